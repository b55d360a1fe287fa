#include "analysis/trace/clock_offset.h"

#include <algorithm>
#include <climits>
#include <cstdio>

namespace sl {

ClockOffset detect_clock_offset(const Trace& t, const ClockOffsetOptions& o)
{
    ClockOffset r;
    int64_t lo = INT64_MAX;
    auto visit = [&](const std::vector<int64_t>& start, const std::vector<int32_t>& launch) {
        for (size_t i = 0; i < start.size() && i < launch.size(); ++i) {
            const int32_t a = launch[i];
            if (a < 0 || static_cast<size_t>(a) >= t.api.size())
                continue;
            // Graph launches: the kernels of a replayed graph all carry the launch's correlation; only the first
            // can be timed against the call, the others queue behind it. The minimum handles that.
            const int64_t d = start[i] - t.api.start[static_cast<size_t>(a)];
            ++r.links;
            lo = std::min(lo, d);
            if (d < -o.negative_tolerance_ns)
                ++r.negative;
        }
    };
    visit(t.kernels.start, t.kernels.launch_api);
    visit(t.memcpy.start, t.memcpy.launch_api);
    visit(t.memset.start, t.memset.launch_api);
    if (r.links < o.min_links)
        return r;
    r.min_delay_ns = lo;
    const bool negative = r.negative > 0 &&
                          static_cast<double>(r.negative) >= o.negative_share * static_cast<double>(r.links);
    const bool floor = lo > o.min_plausible_floor_ns;
    if (!negative && !floor)
        return r;
    r.detected = true;
    r.shift_ns = -(lo - o.assumed_latency_ns);
    auto ms = [](int64_t ns) {
        char b[32];
        std::snprintf(b, sizeof b, "%.3f ms", static_cast<double>(ns) / 1e6);
        return std::string(b);
    };
    if (negative)
        r.reason = std::to_string(r.negative) + " of " + std::to_string(r.links) +
                   " GPU ops start before the launch call that issued them began (earliest by " + ms(-lo) + ")";
    else
        r.reason = "even the fastest of " + std::to_string(r.links) + " GPU ops started " + ms(lo) +
                   " after its launch call began (a queue on one clock drains within microseconds)";
    return r;
}

void shift_gpu_times(Trace& t, int64_t s)
{
    if (s == 0)
        return;
    auto add = [s](std::vector<int64_t>& v) {
        for (auto& x : v)
            x += s;
    };
    add(t.kernels.start);
    add(t.kernels.end);
    add(t.memcpy.start);
    add(t.memcpy.end);
    add(t.memset.start);
    add(t.memset.end);
    add(t.gpu_ranges.start);
    add(t.gpu_ranges.end);
}

} // namespace sl
