#include "model/units.h"

#include <algorithm>
#include <cmath>

namespace sl {

static QString threeSig(double v)
{
    const double a = std::fabs(v);
    const int decimals = a >= 100 ? 0 : a >= 10 ? 1 : 2;
    return QString::number(v, 'f', decimals);
}

QString formatDuration(int64_t ns)
{
    const double a = std::fabs(static_cast<double>(ns));
    if (a < 1e3)
        return QString::number(ns) + QStringLiteral(" ns");
    if (a < 1e6)
        return threeSig(static_cast<double>(ns) / 1e3) + QStringLiteral(" µs");
    if (a < 1e9)
        return threeSig(static_cast<double>(ns) / 1e6) + QStringLiteral(" ms");
    return threeSig(static_cast<double>(ns) / 1e9) + QStringLiteral(" s");
}

QString formatTimeAt(int64_t ns, int64_t resolution)
{
    const double a = std::fabs(static_cast<double>(ns));
    const double scale = a >= 1e9 ? 1e9 : a >= 1e6 ? 1e6 : a >= 1e3 ? 1e3 : 1;
    const char* unit = a >= 1e9 ? " s" : a >= 1e6 ? " ms" : a >= 1e3 ? " µs" : " ns";
    const int sig = a / scale >= 100 ? 0 : a / scale >= 10 ? 1 : 2;   // formatDuration's digits
    const double res = static_cast<double>(std::max<int64_t>(1, resolution));
    const int needed = res >= scale ? 0 : static_cast<int>(std::ceil(std::log10(scale / res) - 1e-9));
    return QString::number(static_cast<double>(ns) / scale, 'f', std::clamp(std::max(sig, needed), 0, 9)) +
           QString::fromUtf8(unit);
}

QString formatStart(int64_t start, int64_t duration)
{
    return formatTimeAt(start, std::max<int64_t>(1, duration / 10));
}

QString formatBytes(uint64_t bytes)
{
    static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = static_cast<double>(bytes);
    int u = 0;
    while (v >= 1024 && u < 4) {
        v /= 1024;
        ++u;
    }
    return (u == 0 ? QString::number(bytes) : threeSig(v)) + QLatin1Char(' ') + QLatin1String(units[u]);
}

QString formatPercent(double fraction) { return QString::number(fraction * 100.0, 'f', 1) + QStringLiteral(" %"); }

QString formatGainRange(double low, double high)
{
    const double lo = std::round(low * 100), hi = std::round(high * 100);
    if (lo <= 0 && hi <= 0)
        return {};
    if (lo == hi)
        return QString::number(hi, 'f', 0) + QStringLiteral(" %");
    return QString::number(lo, 'f', 0) + QStringLiteral("–") + QString::number(hi, 'f', 0) + QStringLiteral(" %");
}

} // namespace sl
