// Chart point labels (analysis/report/label_layout.h): the geometry primitives against hand-computed cases, and the
// placer's promises checked on every label it places — inside the bounds, over no other label, marker, obstacle or
// (first pass) line, its leader crossing no label or other marker — on hand-made crowds and on random charts.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "analysis/report/label_layout.h"

using namespace sl::report;

namespace {

struct SegCase {
    LabelSegment s;
    LabelRect r;
    bool hits;
};

// Every promise of place_labels, for one result. Returns "" when all hold, else what broke.
std::string check(const std::vector<LabelRequest>& req, const LabelLayoutOptions& o,
                  const std::vector<LabelPlacement>& out, bool linesToo)
{
    for (size_t i = 0; i < out.size(); ++i) {
        const LabelPlacement& a = out[i];
        if (!a.placed)
            continue;
        const std::string who = "label " + std::to_string(i);
        if (!o.bounds.contains(a.box))
            return who + " leaves the bounds";
        if (std::fabs((a.box.x1 - a.box.x0) - req[i].width) > 1e-9 || std::fabs((a.box.y1 - a.box.y0) - req[i].height) > 1e-9)
            return who + " changed size";
        for (const LabelMarker& m : o.markers)
            if (rect_hits_circle(a.box, m.x, m.y, m.r))
                return who + " covers a marker";
        for (const LabelRect& q : o.obstacles)
            if (a.box.intersects(q))
                return who + " covers an obstacle";
        if (linesToo)
            for (const LabelSegment& s : o.lines)
                if (segment_hits_rect(s, a.box))
                    return who + " crosses a line";
        for (size_t j = 0; j < out.size(); ++j) {
            if (j == i || !out[j].placed)
                continue;
            if (a.box.intersects(out[j].box))
                return who + " overlaps label " + std::to_string(j);
            if (out[j].leader && segment_hits_rect(out[j].line, a.box))
                return who + " is crossed by the leader of label " + std::to_string(j);
        }
        if (a.leader) {
            // The leader starts on the marker's edge and ends on the label.
            if (std::fabs(std::hypot(a.line.x0 - req[i].x, a.line.y0 - req[i].y) - req[i].r) > 1e-6)
                return who + "'s leader does not start at its marker";
            if (!(a.line.x1 >= a.box.x0 - 1e-9 && a.line.x1 <= a.box.x1 + 1e-9 && a.line.y1 >= a.box.y0 - 1e-9 &&
                  a.line.y1 <= a.box.y1 + 1e-9))
                return who + "'s leader does not reach its label";
            for (const LabelMarker& m : o.markers)
                if (std::hypot(m.x - req[i].x, m.y - req[i].y) >= m.r + req[i].r &&
                    segment_point_distance(a.line, m.x, m.y) < m.r)
                    return who + "'s leader crosses another marker";
        }
    }
    return {};
}

} // namespace

TEST(LabelLayout, SegmentAgainstRectangle)
{
    const LabelRect r{10, 10, 20, 20};
    const SegCase cases[] = {
        {{0, 15, 30, 15}, r, true},     // straight through
        {{0, 0, 9, 30}, r, false},      // passes left of it
        {{12, 12, 13, 13}, r, true},    // inside
        {{0, 0, 30, 30}, r, true},      // the diagonal
        {{0, 21, 30, 21}, r, false},    // just below
        {{15, 0, 15, 9.9}, r, false},   // stops short
        {{25, 0, 0, 25}, r, true},      // x + y = 25 passes (12.5, 12.5), inside
        {{15, 0, 0, 15}, r, false},     // x + y = 15 passes under the corner (10, 10), where x + y = 20
    };
    for (size_t i = 0; i < std::size(cases); ++i)
        EXPECT_EQ(segment_hits_rect(cases[i].s, cases[i].r), cases[i].hits) << "case " << i;
    EXPECT_DOUBLE_EQ(segment_point_distance({0, 0, 10, 0}, 5, 3), 3.0);
    EXPECT_DOUBLE_EQ(segment_point_distance({0, 0, 10, 0}, 13, 4), 5.0);   // beyond the end: to the end point
    EXPECT_TRUE(rect_hits_circle(r, 25, 15, 5.5));
    EXPECT_FALSE(rect_hits_circle(r, 25, 15, 4.5));
    EXPECT_FALSE(rect_hits_circle(r, 24, 24, 5.5));   // the corner is sqrt(32) = 5.66 away
}

TEST(LabelLayout, AloneGoesRightOfItsMarker)
{
    LabelLayoutOptions o;
    o.bounds = {0, 0, 400, 300};
    o.markers = {{100, 100, 5}};
    const auto out = place_labels({{100, 100, 5, 60, 12}}, o);
    ASSERT_TRUE(out[0].placed);
    EXPECT_FALSE(out[0].leader);
    EXPECT_DOUBLE_EQ(out[0].box.x0, 100 + 5 + o.gap);
    EXPECT_DOUBLE_EQ(out[0].box.y0, 100 - 6);
}

TEST(LabelLayout, AtTheRightEdgeGoesLeft)
{
    LabelLayoutOptions o;
    o.bounds = {0, 0, 400, 300};
    o.markers = {{380, 100, 5}};
    const auto out = place_labels({{380, 100, 5, 60, 12}}, o);
    ASSERT_TRUE(out[0].placed);
    EXPECT_DOUBLE_EQ(out[0].box.x1, 380 - 5 - o.gap);
}

TEST(LabelLayout, ACrowdGetsLeadersAndNoOverlap)
{
    // Eight points within 10 px of each other (the Roofline's prefill classes at one intensity).
    LabelLayoutOptions o;
    o.bounds = {0, 0, 600, 400};
    std::vector<LabelRequest> req;
    for (int i = 0; i < 8; ++i) {
        const double x = 300 + (i % 3) * 5, y = 200 + (i / 3) * 5;
        o.markers.push_back({x, y, 4});
        req.push_back({x, y, 4, 80, 12});
    }
    const auto out = place_labels(req, o);
    EXPECT_EQ(check(req, o, out, true), "");
    int placed = 0, leaders = 0;
    for (const auto& p : out) {
        placed += p.placed;
        leaders += p.leader;
    }
    EXPECT_EQ(placed, 8);     // the rings have room for all of them on an empty chart
    EXPECT_GE(leaders, 1);    // not all fit next to their markers
}

TEST(LabelLayout, ObstaclesAndLinesAreKeptClear)
{
    LabelLayoutOptions o;
    o.bounds = {0, 0, 400, 300};
    o.markers = {{200, 150, 5}};
    o.obstacles = {{208, 140, 300, 160}};            // a roof label right of the point
    o.lines = {{0, 150 - 20, 400, 150 - 20}};         // a roof 20 px above it
    const std::vector<LabelRequest> req = {{200, 150, 5, 60, 12}};
    const auto out = place_labels(req, o);
    ASSERT_TRUE(out[0].placed);
    EXPECT_EQ(check(req, o, out, true), "");
    EXPECT_LT(out[0].box.x1, 200);   // left of it: right is taken, above meets the roof
}

TEST(LabelLayout, NoRoomMeansNoLabel)
{
    LabelLayoutOptions o;
    o.bounds = {0, 0, 50, 20};
    o.markers = {{25, 10, 5}};
    const auto out = place_labels({{25, 10, 5, 200, 12}}, o);   // wider than the chart
    EXPECT_FALSE(out[0].placed);
}

TEST(LabelLayout, RandomChartsKeepEveryPromise)
{
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> ux(20, 620), uy(20, 380), uw(30, 140);
    for (int chart = 0; chart < 200; ++chart) {
        LabelLayoutOptions o;
        o.bounds = {0, 0, 640, 400};
        const int n = 2 + chart % 40;
        std::vector<LabelRequest> req;
        for (int i = 0; i < n; ++i) {
            const double x = ux(rng), y = uy(rng), r = 3 + (i % 4) * 2;
            o.markers.push_back({x, y, r});
            if (i % 3 != 2)   // some points carry no label but still block
                req.push_back({x, y, r, uw(rng), 11});
        }
        o.obstacles = {{500, 10, 630, 24}, {10, 10, 120, 60}};
        o.lines = {{0, 380, 320, 40}, {320, 40, 640, 40}};
        const auto out = place_labels(req, o);
        ASSERT_EQ(out.size(), req.size());
        // Pass 1 labels avoid the lines; pass 2 may cross them, so lines are not checked here.
        EXPECT_EQ(check(req, o, out, false), "") << "chart " << chart;
    }
}
