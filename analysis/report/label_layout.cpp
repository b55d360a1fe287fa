#include "analysis/report/label_layout.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace sl::report {

bool segment_hits_rect(const LabelSegment& s, const LabelRect& r)
{
    // Liang-Barsky clipping of the segment against the rectangle.
    const double dx = s.x1 - s.x0, dy = s.y1 - s.y0;
    double t0 = 0, t1 = 1;
    const double p[4] = {-dx, dx, -dy, dy};
    const double q[4] = {s.x0 - r.x0, r.x1 - s.x0, s.y0 - r.y0, r.y1 - s.y0};
    for (int i = 0; i < 4; ++i) {
        if (p[i] == 0) {
            if (q[i] < 0)
                return false;
            continue;
        }
        const double t = q[i] / p[i];
        if (p[i] < 0)
            t0 = std::max(t0, t);
        else
            t1 = std::min(t1, t);
        if (t0 > t1)
            return false;
    }
    return true;
}

double segment_point_distance(const LabelSegment& s, double x, double y)
{
    const double dx = s.x1 - s.x0, dy = s.y1 - s.y0;
    const double len2 = dx * dx + dy * dy;
    double t = len2 > 0 ? ((x - s.x0) * dx + (y - s.y0) * dy) / len2 : 0;
    t = std::clamp(t, 0.0, 1.0);
    return std::hypot(s.x0 + t * dx - x, s.y0 + t * dy - y);
}

bool rect_hits_circle(const LabelRect& r, double cx, double cy, double radius)
{
    const double nx = std::clamp(cx, r.x0, r.x1), ny = std::clamp(cy, r.y0, r.y1);
    return std::hypot(nx - cx, ny - cy) < radius;
}

namespace {

struct Candidate {
    LabelRect box;
    bool leader = false;
    LabelSegment line;
};

// The point of r nearest to (x, y).
void nearest(const LabelRect& r, double x, double y, double& nx, double& ny)
{
    nx = std::clamp(x, r.x0, r.x1);
    ny = std::clamp(y, r.y0, r.y1);
}

std::vector<Candidate> candidates(const LabelRequest& l, const LabelLayoutOptions& o)
{
    std::vector<Candidate> out;
    const double w = l.width, h = l.height, d = l.r + o.gap;
    auto at = [&](double x0, double y0) { out.push_back({{x0, y0, x0 + w, y0 + h}, false, {}}); };
    at(l.x + d, l.y - h / 2);            // right
    at(l.x - d - w, l.y - h / 2);        // left
    at(l.x - w / 2, l.y - d - h);        // above
    at(l.x - w / 2, l.y + d);            // below
    const double c = d * 0.7071;
    at(l.x + c, l.y - c - h);            // above right
    at(l.x - c - w, l.y - c - h);        // above left
    at(l.x + c, l.y + c);                // below right
    at(l.x - c - w, l.y + c);            // below left
    for (double dist : o.leader_distances) {
        if (dist <= d + 2)
            continue;
        for (int k = 0; k < 16; ++k) {
            // Right first, then alternating above and below, turning towards the left.
            const int step = (k + 1) / 2;
            const double a = (k % 2 == 1 ? -1 : 1) * step * (std::numbers::pi / 8);
            const double ux = std::cos(a), uy = std::sin(a);
            const double ax = l.x + dist * ux, ay = l.y + dist * uy;
            const double x0 = ux > 0.35 ? ax : ux < -0.35 ? ax - w : ax - w / 2;
            const double y0 = uy > 0.35 ? ay : uy < -0.35 ? ay - h : ay - h / 2;
            Candidate cand{{x0, y0, x0 + w, y0 + h}, true, {}};
            double nx = 0, ny = 0;
            nearest(cand.box, l.x, l.y, nx, ny);
            const double len = std::hypot(nx - l.x, ny - l.y);
            if (len <= l.r + 1)
                continue;
            cand.line = {l.x + (nx - l.x) / len * l.r, l.y + (ny - l.y) / len * l.r, nx, ny};
            out.push_back(cand);
        }
    }
    return out;
}

} // namespace

std::vector<LabelPlacement> place_labels(const std::vector<LabelRequest>& labels, const LabelLayoutOptions& o)
{
    std::vector<LabelPlacement> out(labels.size());
    std::vector<LabelRect> placed;        // labels, padded
    std::vector<LabelSegment> leaders;    // placed leader lines
    auto padded = [&](const LabelRect& r) { return LabelRect{r.x0 - o.pad, r.y0 - o.pad, r.x1 + o.pad, r.y1 + o.pad}; };
    auto free = [&](const LabelRequest& l, const Candidate& c, bool avoidLines) {
        if (!o.bounds.contains(c.box))
            return false;
        const LabelRect p = padded(c.box);
        for (const LabelRect& q : placed)
            if (p.intersects(q))
                return false;
        for (const LabelRect& q : o.obstacles)
            if (c.box.intersects(q))
                return false;
        for (const LabelMarker& m : o.markers)
            if (rect_hits_circle(c.box, m.x, m.y, m.r + 1))
                return false;
        for (const LabelSegment& s : leaders)
            if (segment_hits_rect(s, c.box))
                return false;
        if (avoidLines)
            for (const LabelSegment& s : o.lines)
                if (segment_hits_rect(s, c.box))
                    return false;
        if (c.leader) {
            for (const LabelRect& q : placed)
                if (segment_hits_rect(c.line, q))
                    return false;
            for (const LabelRect& q : o.obstacles)
                if (segment_hits_rect(c.line, q))
                    return false;
            for (const LabelMarker& m : o.markers) {
                // Its own marker, and those overlapping it (one blob on the chart: a leader out of a crowd has to
                // cross them), are not in its way.
                const bool blob = std::hypot(m.x - l.x, m.y - l.y) < m.r + l.r;
                if (!blob && segment_point_distance(c.line, m.x, m.y) < m.r + 0.5)
                    return false;
            }
        }
        return true;
    };
    for (int pass = 0; pass < 2; ++pass) {
        for (size_t i = 0; i < labels.size(); ++i) {
            if (out[i].placed)
                continue;
            const LabelRequest& l = labels[i];
            if (!(l.width > 0) || !(l.height > 0))
                continue;
            for (const Candidate& c : candidates(l, o)) {
                if (!free(l, c, pass == 0))
                    continue;
                out[i].placed = true;
                out[i].box = c.box;
                out[i].leader = c.leader;
                out[i].line = c.line;
                placed.push_back(padded(c.box));
                if (c.leader)
                    leaders.push_back(c.line);
                break;
            }
        }
        if (o.lines.empty())
            break;
    }
    return out;
}

} // namespace sl::report
