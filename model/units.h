#pragma once
// Formatting of times and sizes for display: pure functions, shared by every view.

#include <QString>
#include <cstdint>

namespace sl {

// 1234 -> "1.23 µs", 1'500'000 -> "1.50 ms"; three significant digits, unit chosen by magnitude.
QString formatDuration(int64_t ns);
// A time on the axis (ns after the origin) to `resolution` ns or better, unit by magnitude:
// (144'187'230, 9'570) -> "144.187 ms"; never fewer digits than formatDuration.
QString formatTimeAt(int64_t ns, int64_t resolution);
// The start of an item `duration` long, to a tenth of that duration: a 5.9 µs kernel at 782 ms reads "782.0251 ms",
// not "782 ms" (which could be anywhere in a millisecond; issue 37).
QString formatStart(int64_t start, int64_t duration);
// 1536 -> "1.50 KiB".
QString formatBytes(uint64_t bytes);
// 0.4567 -> "45.7 %".
QString formatPercent(double fraction);
// A suggestion's gain range: (0.15, 0.35) -> "15–35 %", (0.15, 0.15) -> "15 %", (0, 0) -> "" (it promises none).
QString formatGainRange(double low, double high);

} // namespace sl
