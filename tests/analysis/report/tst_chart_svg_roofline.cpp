// The report's Roofline chart (one layout for HTML, PDF and Markdown PNGs): prefill and decode points keep the GUI
// pane's colours whatever order their groups come in, point labels stay inside the plot box (a point near the
// right edge puts its label on its left), and no two point labels overlap.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "analysis/report/chart_svg.h"

using namespace sl::report;

namespace {

Chart roofline(const std::vector<ScatterPoint>& points)
{
    Chart c;
    c.kind = ChartKind::Roofline;
    c.id = "roofline";
    c.x_label = "FLOP/byte";
    c.y_label = "FLOP/s";
    c.roofs = {{"DRAM 3.35 TB/s", true, 3.35e12}, {"BF16 989 TFLOP/s", false, 989e12}};
    c.points = points;
    return c;
}

// The fill of the marker drawn at the point's place: the circle whose centre is nearest the label's anchor.
std::string fill_of(const ChartScene& s, const std::string& label)
{
    const ScenePrim* text = nullptr;
    for (const ScenePrim& p : s.prims)
        if (p.kind == ScenePrim::Kind::Text && p.text == label)
            text = &p;
    if (!text)
        return "";
    const ScenePrim* best = nullptr;
    double bestD = 1e300;
    for (const ScenePrim& p : s.prims) {
        if (p.kind != ScenePrim::Kind::Circle)
            continue;
        const double d = std::hypot(p.x - text->x, p.y - text->y);
        if (d < bestD) {
            bestD = d;
            best = &p;
        }
    }
    return best && bestD < 12 ? best->fill : "";
}

} // namespace

TEST(ChartSvgRoofline, PrefillAndDecodeKeepTheirColoursInAnyOrder)
{
    // Decode listed first, then prefill, then a third group: colours follow the group's name, not its position.
    const ChartScene a = layout_chart(roofline({{"dec", 1, 1e12, "decode"}, {"pre", 100, 1e14, "prefill"},
                                                {"foc", 10, 1e13, "focus"}}));
    const ChartScene b = layout_chart(roofline({{"pre", 100, 1e14, "prefill"}, {"dec", 1, 1e12, "decode"}}));
    EXPECT_EQ(fill_of(a, "pre"), kPrefillColor);
    EXPECT_EQ(fill_of(b, "pre"), kPrefillColor);
    EXPECT_EQ(fill_of(a, "dec"), kDecodeColor);
    EXPECT_EQ(fill_of(b, "dec"), kDecodeColor);
    EXPECT_EQ(fill_of(a, "foc"), palette_color(2));
    EXPECT_NE(std::string(kPrefillColor), std::string(kDecodeColor));
}

TEST(ChartSvgRoofline, PointLabelsStayInsideTheChart)
{
    // A point at the largest intensity sits on the plot's right edge: its label must not run past the chart.
    const std::string long_label = "flash_fwd_splitkv_kernel";
    const double width = 720;
    const ChartScene s = layout_chart(roofline({{long_label, 1e4, 5e14, "prefill"}, {"gemv", 0.5, 1e12, "decode"}}),
                                      width, 360);
    int labels = 0;
    for (const ScenePrim& p : s.prims) {
        if (p.kind != ScenePrim::Kind::Text || p.font_size != 9)
            continue;
        ++labels;
        const double w = text_width(p.text, p.font_size);
        const double left = p.anchor == 0 ? p.x : p.anchor == 1 ? p.x - w / 2 : p.x - w;
        EXPECT_GE(left, 0) << p.text;
        EXPECT_LE(left + w, width) << p.text;
    }
    EXPECT_EQ(labels, 2);
}

TEST(ChartSvgRoofline, PointLabelsNeverOverlapEachOther)
{
    // Seven operators of one decode step crowd the memory roof at intensities 0.8-1.2 FLOP/byte (a real decode
    // Roofline: q/k/v/o/gate/up/down at batch 1). Before, each label sat right of its marker whatever was there.
    std::vector<ScatterPoint> pts;
    const char* names[] = {"q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"};
    for (int i = 0; i < 7; ++i)
        pts.push_back({names[i], 0.8 + 0.06 * i, 2.0e12 + 0.05e12 * i, "decode"});
    const double width = 720, height = 360;
    const ChartScene s = layout_chart(roofline(pts), width, height);
    struct Box {
        double x0, y0, x1, y1;
        std::string text;
    };
    std::vector<Box> boxes;
    for (const ScenePrim& p : s.prims) {
        if (p.kind != ScenePrim::Kind::Text || p.font_size != 9)
            continue;
        const double w = text_width(p.text, p.font_size);
        const double x0 = p.anchor == 0 ? p.x : p.anchor == 1 ? p.x - w / 2 : p.x - w;
        boxes.push_back({x0, p.y - p.font_size, x0 + w, p.y + 2, p.text});
        EXPECT_GE(x0, 0) << p.text;
        EXPECT_LE(x0 + w, width) << p.text;
    }
    EXPECT_GE(boxes.size(), 5u) << "most labels find a free place";
    for (size_t i = 0; i < boxes.size(); ++i)
        for (size_t j = i + 1; j < boxes.size(); ++j) {
            const Box& a = boxes[i];
            const Box& b = boxes[j];
            const bool overlap = a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;
            EXPECT_FALSE(overlap) << a.text << " overlaps " << b.text;
        }
    // Every point keeps its marker, labelled or not.
    int markers = 0;
    for (const ScenePrim& p : s.prims)
        markers += p.kind == ScenePrim::Kind::Circle && p.fill == std::string(kDecodeColor);
    EXPECT_GE(markers, 7);
}

TEST(ChartSvgRoofline, LegendSitsOutsideThePlot)
{
    // The group legend (prefill, decode, focus) sat in the plot's top-left corner, over points and roofs (issue 37
    // §8). It is under the x axis now: every legend entry's text lies below the plot's bottom axis line.
    const ChartScene s = layout_chart(roofline({{"dec", 1, 1e12, "decode"}, {"pre", 100, 1e14, "prefill"},
                                                {"foc", 10, 1e13, "focus"}}),
                                      720, 440);
    // The plot's bottom edge: the lowest horizontal line (the x axis).
    double axis_y = 0;
    for (const ScenePrim& p : s.prims)
        if (p.kind == ScenePrim::Kind::Line && p.y == p.h)
            axis_y = std::max(axis_y, p.y);
    ASSERT_GT(axis_y, 0);
    int entries = 0;
    for (const ScenePrim& p : s.prims)
        if (p.kind == ScenePrim::Kind::Text && (p.text == "decode" || p.text == "prefill" || p.text == "focus")) {
            ++entries;
            EXPECT_GT(p.y - p.font_size, axis_y) << p.text;
            EXPECT_LE(p.y, s.height) << p.text;
        }
    EXPECT_EQ(entries, 3);
}
