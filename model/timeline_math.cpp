#include "model/timeline_math.h"

#include "model/units.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace sl::timeline {

double nsPerPixel(const Window& w, double widthPx)
{
    return widthPx > 0 ? static_cast<double>(w.duration()) / widthPx : 1.0;
}

double timeToX(int64_t t, const Window& w, double widthPx)
{
    if (w.duration() <= 0)
        return 0;
    return static_cast<double>(t - w.start) * widthPx / static_cast<double>(w.duration());
}

int64_t xToTime(double x, const Window& w, double widthPx)
{
    if (widthPx <= 0)
        return w.start;
    return w.start + std::llround(x * static_cast<double>(w.duration()) / widthPx);
}

Window zoom(const Window& w, int64_t anchor, double factor, const Window& bounds, int64_t minDuration)
{
    const double d = static_cast<double>(w.duration());
    double nd = std::max(d * factor, static_cast<double>(std::max<int64_t>(minDuration, 1)));
    const bool bounded = bounds.duration() > 0;
    if (bounded)
        nd = std::min(nd, static_cast<double>(bounds.duration()));
    const double rel = d > 0 ? static_cast<double>(anchor - w.start) / d : 0.5;
    Window r;
    r.start = anchor - std::llround(rel * nd);
    r.end = r.start + std::llround(nd);
    return bounded ? pan(r, 0, bounds) : r;
}

Window pan(const Window& w, int64_t delta, const Window& bounds)
{
    Window r{w.start + delta, w.end + delta};
    if (bounds.duration() <= 0)
        return r;
    if (r.duration() >= bounds.duration())
        return bounds;
    if (r.start < bounds.start)
        r = {bounds.start, bounds.start + w.duration()};
    if (r.end > bounds.end)
        r = {bounds.end - w.duration(), bounds.end};
    return r;
}

Window fit(const Window& bounds, double marginFraction)
{
    const int64_t m = std::llround(static_cast<double>(bounds.duration()) * marginFraction);
    return {bounds.start - m, bounds.end + m};
}

int64_t tickStep(double nsPerPx, double minSpacingPx)
{
    const double minStep = std::max(1.0, nsPerPx * minSpacingPx);
    int64_t p = 1;
    while (true) {
        for (int64_t m : {1, 2, 5}) {
            if (static_cast<double>(m * p) >= minStep)
                return m * p;
        }
        if (p > INT64_MAX / 100)
            return p * 10;
        p *= 10;
    }
}

QString tickLabel(int64_t t, int64_t origin, int64_t step)
{
    const int64_t rel = t - origin;
    struct Unit {
        int64_t scale;
        const char* suffix;
    };
    static const Unit units[] = {{1'000'000'000, " s"}, {1'000'000, " ms"}, {1'000, " µs"}, {1, " ns"}};
    // The unit: the largest one not bigger than the step (so 500 µs steps read "1.5 ms"? no: "1500 µs" is worse).
    const Unit* u = &units[3];
    for (const Unit& c : units)
        if (step >= c.scale / 10 && c.scale > 1) {
            u = &c;
            break;
        }
    if (step < 100)
        u = &units[3];
    // Decimals needed so consecutive ticks differ.
    int decimals = 0;
    for (int64_t s = u->scale; s > step && decimals < 9; s /= 10)
        ++decimals;
    const double v = static_cast<double>(rel) / static_cast<double>(u->scale);
    return QString::number(v, 'f', decimals) + QString::fromUtf8(u->suffix);
}

AxisLabelMode axisLabelMode(int64_t first, int64_t last, int64_t origin, int64_t step)
{
    auto digits = [](const QString& label) {
        int n = 0;
        for (QChar c : label)
            n += c.isDigit();
        return n;
    };
    AxisLabelMode m;
    if (std::max(digits(tickLabel(first, origin, step)), digits(tickLabel(last, origin, step))) <= 5)
        return m;
    m.offsets = true;
    m.reference = first;
    m.referenceLabel = formatTimeAt(first - origin, step);
    return m;
}

QString offsetLabel(int64_t t, int64_t reference, int64_t step)
{
    return QLatin1Char('+') + tickLabel(t, reference, step);
}

int lodLevel(double nsPerPx)
{
    if (nsPerPx < 2)
        return 0;
    const auto n = static_cast<uint64_t>(nsPerPx);
    return static_cast<int>(std::bit_width(n)) - 1;
}

} // namespace sl::timeline
