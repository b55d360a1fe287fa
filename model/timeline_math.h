#pragma once
// Pure coordinate and unit math for the timeline: time <-> pixel mapping, zoom around an anchor, panning within
// bounds, "nice" axis tick steps and their labels. Free functions, tested with data-driven tests.

#include <QString>
#include <cstdint>

namespace sl::timeline {

struct Window {
    int64_t start = 0, end = 0;
    int64_t duration() const { return end - start; }
    bool operator==(const Window&) const = default;
};

// x in pixels of time t when `w` spans `widthPx` pixels.
double timeToX(int64_t t, const Window& w, double widthPx);
// time at pixel x (rounded to the nearest ns).
int64_t xToTime(double x, const Window& w, double widthPx);
double nsPerPixel(const Window& w, double widthPx);

// Zooms by `factor` (< 1 zooms in) keeping `anchor` at the same pixel; the result stays within `bounds` (when
// bounds is not empty) and is never shorter than minDuration ns.
Window zoom(const Window& w, int64_t anchor, double factor, const Window& bounds, int64_t minDuration = 100);
// Shifts by delta ns, clamped so the window stays inside bounds (its duration is kept when it fits).
Window pan(const Window& w, int64_t delta, const Window& bounds);
// Bounds with a small margin on both sides (fit-to-window).
Window fit(const Window& bounds, double marginFraction = 0.01);

// A tick step of 1, 2 or 5 x 10^k ns such that ticks are at least minSpacingPx apart.
int64_t tickStep(double nsPerPx, double minSpacingPx);
// Tick label relative to `origin`, with just enough precision for `step`: "1.5 ms", "120 µs", "2 s".
QString tickLabel(int64_t t, int64_t origin, int64_t step);

// Deep-zoom axis labels as Nsight Systems writes them: while the labels of ticks `first`..`last` (every `step`,
// measured from `origin`) read in at most 5 digits they stay absolute ("782.03 ms"); deeper, "782025 µs" would
// repeat the same leading digits on every tick, so the first tick becomes the reference, shown once to the step's
// precision ("782.025 ms", formatTimeAt), and the other ticks read as offsets from it ("+5 µs", "+10 µs").
struct AxisLabelMode {
    bool offsets = false;
    int64_t reference = 0;    // the first tick (when offsets)
    QString referenceLabel;   // its time from the origin, to the step's precision
};
AxisLabelMode axisLabelMode(int64_t first, int64_t last, int64_t origin, int64_t step);
// "+5 µs": t - reference in the step's unit (tickLabel's), with a plus sign.
QString offsetLabel(int64_t t, int64_t reference, int64_t step);

// Level of detail: the index level whose bucket (2^level ns) is the largest not above one pixel.
int lodLevel(double nsPerPx);

} // namespace sl::timeline
