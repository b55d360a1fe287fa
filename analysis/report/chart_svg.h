#pragma once
// Chart layout shared by every renderer: a report Chart is laid out once into a ChartScene (rectangles, lines,
// circles and text in a width x height pixel box), then serialised as SVG here (HTML writer) or painted with
// QPainter by model/chart_render (PDF and PNG). One layout, so the HTML, PDF and Markdown images look the same.
//
// Layouts: Bar = horizontal bars (long kernel names fit on the left), Histogram = vertical bars, StackedBar =
// horizontal stacked bars with a legend, Roofline = log-log scatter with memory (slanted) and compute (flat) roofs.

#include "analysis/report/report_model.h"

#include <string>
#include <string_view>
#include <vector>

namespace sl::report {

struct ScenePrim {
    enum class Kind : uint8_t { Rect, Line, Circle, Text } kind = Kind::Rect;
    double x = 0, y = 0;          // Rect: top-left; Line: start; Circle: centre; Text: anchor point (baseline)
    double w = 0, h = 0;          // Rect: size; Line: end point (x2, y2)
    double r = 0;                 // Circle radius
    std::string fill;             // "#rrggbb" or "" (none)
    std::string stroke;           // "#rrggbb" or "" (none)
    double stroke_width = 1;
    bool dashed = false;
    std::string text;
    double font_size = 11;
    int anchor = 0;               // 0 start, 1 middle, 2 end
    double rotate = 0;            // degrees, around (x, y)
    bool bold = false;
};

struct ChartScene {
    double width = 0, height = 0;
    std::vector<ScenePrim> prims;
};

ChartScene layout_chart(const Chart& chart, double width = 720, double height = 360);
std::string scene_to_svg(const ChartScene& scene);
inline std::string chart_to_svg(const Chart& c, double width = 720, double height = 360)
{
    return scene_to_svg(layout_chart(c, width, height));
}

// Estimated advance width of text in the chart font (CJK and other wide characters count double).
double text_width(std::string_view text, double font_size);
// Nice linear axis ticks covering [0, max]: returns the tick values (first 0).
std::vector<double> nice_ticks(double max, int target = 5);
// The fixed palette (colour i mod size).
const std::string& palette_color(size_t i);
// The colour of a Roofline point group: prefill and decode have fixed colours, the same as the GUI's Roofline pane
// (widgets/roofline_view.cpp reads them from here), whatever order the groups come in; other groups take
// palette_color(index).
std::string group_color(std::string_view group, size_t index);
inline constexpr const char* kPrefillColor = "#d96c1e";
inline constexpr const char* kDecodeColor = "#2365c4";
inline constexpr const char* kMixedColor = "#8a3fb0";      // chunked-prefill steps: between the two
inline constexpr const char* kTrainingColor = "#2e8b57";   // a training iteration

} // namespace sl::report
