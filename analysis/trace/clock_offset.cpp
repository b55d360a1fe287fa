#include "analysis/trace/clock_offset.h"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <utility>
#include <vector>

namespace sl {

namespace {

// The host-clock time at which a device-wide blocking sync saw the GPU finish, against the GPU-clock end of the
// last op launched before it: the largest (recorded last end - sync end) over syncs that really waited is the
// GPU clock's lateness, give or take the sync's return latency. nullopt-like: {false, 0} when no sync waited.
std::pair<bool, int64_t> sync_pinned_lateness(const Trace& t, const ClockOffsetOptions& o)
{
    std::vector<std::pair<int64_t, int64_t>> syncs;   // (call start, call end) of device-wide syncs that waited
    for (size_t a = 0; a < t.api.size(); ++a) {
        if (!(t.api.flags[a] & kApiSync) || (t.api.flags[a] & kApiMemcpy) ||
            t.api.end[a] - t.api.start[a] < o.min_sync_wait_ns)
            continue;
        const std::string_view n = t.str(t.api.name[a]);
        if (n.find("DeviceSynchronize") != std::string_view::npos || n.find("CtxSynchronize") != std::string_view::npos)
            syncs.emplace_back(t.api.start[a], t.api.end[a]);
    }
    if (syncs.empty())
        return {false, 0};
    std::sort(syncs.begin(), syncs.end());
    std::vector<int64_t> last_end(syncs.size(), INT64_MIN);   // per sync: latest end of ops launched before it
    auto visit = [&](const std::vector<int64_t>& end, const std::vector<int32_t>& launch) {
        for (size_t i = 0; i < end.size() && i < launch.size(); ++i) {
            const int32_t a = launch[i];
            if (a < 0 || static_cast<size_t>(a) >= t.api.size())
                continue;
            const int64_t issued = t.api.start[static_cast<size_t>(a)];
            // the first sync that began after the launch: it (and every later one) waited for this op
            auto it = std::upper_bound(syncs.begin(), syncs.end(), std::make_pair(issued, INT64_MAX));
            if (it != syncs.end()) {
                int64_t& e = last_end[static_cast<size_t>(it - syncs.begin())];
                e = std::max(e, end[i]);
            }
        }
    };
    visit(t.kernels.end, t.kernels.launch_api);
    visit(t.memcpy.end, t.memcpy.launch_api);
    visit(t.memset.end, t.memset.launch_api);
    bool any = false;
    int64_t late = INT64_MIN, running = INT64_MIN;
    for (size_t i = 0; i < syncs.size(); ++i) {
        running = std::max(running, last_end[i]);   // a later sync also waited for what the earlier ones did
        if (running == INT64_MIN)
            continue;
        any = true;
        late = std::max(late, running - syncs[i].second);
    }
    return {any, any ? late : 0};
}

} // namespace

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
    bool floor = lo > o.min_plausible_floor_ns;
    if (floor && !negative) {
        // A floor can also be a standing queue: a GPU-bound run whose host keeps launching ahead (CUDA-graph
        // replay, async decode loops) never drains its queue inside the capture, so even the fastest op waited.
        // A device-wide sync that really waited tells the two apart: on one clock it returns right after the GPU
        // finished, so the GPU clock's lateness is what the sync pins, not the floor.
        if (const auto [pinned, late] = sync_pinned_lateness(t, o); pinned) {
            r.sync_pinned = true;
            r.sync_lateness_ns = late;
            if (late <= o.min_plausible_floor_ns)
                floor = false;   // the sync saw the GPU finish on time: the floor is queue, not clock
        }
    }
    if (!negative && !floor)
        return r;
    r.detected = true;
    // With a sync that waited, the lateness it pins is the offset (a queue may stand on top of it); else the floor.
    r.shift_ns = (!negative && r.sync_pinned) ? -r.sync_lateness_ns : -(lo - o.assumed_latency_ns);
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
                   " after its launch call began (a queue on one clock drains within microseconds)" +
                   (r.sync_pinned ? "; a device-wide sync returned " + ms(r.sync_lateness_ns) +
                                        " before the GPU work it waited for ended"
                                  : std::string());
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

namespace {

struct Extent {
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    void add(const std::vector<int64_t>& start, const std::vector<int64_t>& end)
    {
        for (size_t i = 0; i < start.size() && i < end.size(); ++i) {
            lo = std::min(lo, start[i]);
            hi = std::max(hi, end[i]);
        }
    }
    bool empty() const { return lo > hi; }
};

Extent gpu_extent(const Trace& t)
{
    Extent e;
    e.add(t.kernels.start, t.kernels.end);
    e.add(t.memcpy.start, t.memcpy.end);
    e.add(t.memset.start, t.memset.end);
    return e;
}

} // namespace

void shift_gpu_times_and_capture(Trace& t, int64_t s)
{
    auto& m = t.meta;
    const Extent raw = gpu_extent(t);
    m.uncorrected_capture_start = m.capture_start;
    m.uncorrected_capture_end = m.capture_end;
    if (!raw.empty() && m.capture_end > m.capture_start) {
        m.uncorrected_capture_start = std::min(m.capture_start, raw.lo);
        m.uncorrected_capture_end = std::max(m.capture_end, raw.hi);
    }
    shift_gpu_times(t, s);
    if (s == 0 || raw.empty() || m.capture_end <= m.capture_start)
        return;
    Extent host;
    host.add(t.api.start, t.api.end);
    host.add(t.ranges.start, t.ranges.end);
    host.add(t.syncs.start, t.syncs.end);
    const Extent now = gpu_extent(t);
    // Timestamps are rounded to 1 us in Kineto JSON: a span "reaches" the GPU ops within that.
    constexpr int64_t kTolerance = 1'000;
    const int64_t lo = m.capture_start, hi = m.capture_end;
    if (raw.hi > (host.empty() ? INT64_MIN : host.hi) && hi >= raw.hi - kTolerance)
        m.capture_end = std::max(host.empty() ? INT64_MIN : host.hi, now.hi) + std::max<int64_t>(0, hi - raw.hi);
    if (raw.lo < (host.empty() ? INT64_MAX : host.lo) && lo <= raw.lo + kTolerance)
        m.capture_start = std::min(host.empty() ? INT64_MAX : host.lo, now.lo) - std::max<int64_t>(0, raw.lo - lo);
    if (m.capture_end <= m.capture_start) {   // nothing sensible left: the events' own extent
        m.capture_start = std::min(host.empty() ? INT64_MAX : host.lo, now.lo);
        m.capture_end = std::max(host.empty() ? INT64_MIN : host.hi, now.hi);
    }
}

} // namespace sl
