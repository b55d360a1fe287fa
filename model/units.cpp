#include "model/units.h"

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
