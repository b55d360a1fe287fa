#pragma once
// Point labels on a chart that never overlap: each label goes to the first free place near its point, else farther
// out with a leader line back to the point, else it is left out (the chart's tooltip or table names the point).
// Shared by the report's Roofline (chart_svg) and the workbench's Roofline pane. Pixels, y pointing down.
//
// Free means: inside the bounds; overlapping no label placed before, no marker (every point's circle, labelled or
// not), no obstacle rectangle (roof labels, the legend) and, in the first pass, no line (the roofs); a leader line
// crosses no placed label and no other marker (markers overlapping its own are one blob with it: a leader out of a
// crowd crosses them). Labels are placed in the order given: put the most important first.
// Candidates, nearest first: right of the marker, left, above, below, the four corners; then rings at growing
// distances in 16 directions, joined to the marker by a leader line. A second pass lets the labels that found no
// place cross the lines.

#include <vector>

namespace sl::report {

struct LabelRect {
    double x0 = 0, y0 = 0, x1 = 0, y1 = 0;   // x0 <= x1, y0 <= y1
    bool intersects(const LabelRect& o) const { return x0 < o.x1 && o.x0 < x1 && y0 < o.y1 && o.y0 < y1; }
    bool contains(const LabelRect& o) const { return o.x0 >= x0 && o.x1 <= x1 && o.y0 >= y0 && o.y1 <= y1; }
};

struct LabelMarker {
    double x = 0, y = 0, r = 0;
};

struct LabelSegment {
    double x0 = 0, y0 = 0, x1 = 0, y1 = 0;
};

struct LabelRequest {
    double x = 0, y = 0;          // the point's centre
    double r = 0;                 // its marker's radius
    double width = 0, height = 0; // the label's size
};

struct LabelPlacement {
    bool placed = false;
    LabelRect box;                // where the label goes
    bool leader = false;          // a leader line joins it to its marker
    LabelSegment line;            // from the marker's edge to the label's nearest point
};

struct LabelLayoutOptions {
    LabelRect bounds;                       // labels stay inside
    std::vector<LabelMarker> markers;       // every point drawn (the labelled ones included)
    std::vector<LabelRect> obstacles;       // never under a label
    std::vector<LabelSegment> lines;        // avoided in the first pass
    double gap = 3;                         // between a marker and its adjacent label
    double pad = 1;                         // kept between labels
    std::vector<double> leader_distances = {16, 28, 44, 64, 90};   // from the marker's centre
};

std::vector<LabelPlacement> place_labels(const std::vector<LabelRequest>& labels, const LabelLayoutOptions& options);

// Geometry the placer and its tests share.
bool segment_hits_rect(const LabelSegment& s, const LabelRect& r);
double segment_point_distance(const LabelSegment& s, double x, double y);
bool rect_hits_circle(const LabelRect& r, double cx, double cy, double radius);

} // namespace sl::report
