#include "analysis/timeline/sync_stats.h"

#include <algorithm>
#include <unordered_map>

#include "analysis/timeline/overlap.h"
#include "analysis/trace/cancel_point.h"

namespace sl {

SyncResult analyze_sync(const Trace& t, const SyncOptions& o)
{
    SyncResult r;
    r.options = o;
    r.wall_ns = t.meta.capture_end - t.meta.capture_start;
    const auto& a = t.api;
    std::unordered_map<StrId, std::vector<int64_t>> per_name;
    std::unordered_map<uint32_t, std::vector<Interval>> per_thread;
    std::vector<int32_t> rows;
    for (size_t i = 0; i < a.size(); ++i) {
        cancel_point(i);
        if (!(a.flags[i] & kApiSync))
            continue;
        const int64_t d = a.end[i] - a.start[i];
        per_name[a.name[i]].push_back(d);
        per_thread[a.thread[i]].push_back({a.start[i], a.end[i]});
        rows.push_back(static_cast<int32_t>(i));
        r.calls += 1;
        r.total_ns += d;
    }
    for (auto& [thr, iv] : per_thread)
        r.host_blocked_ns += total_length(merge_intervals(std::move(iv)));
    for (auto& [name, v] : per_name) {
        SyncApiStats s;
        s.name = name;
        s.duration = compute_stats(v);
        s.wall_share = r.wall_ns > 0 ? static_cast<double>(s.duration.total) / static_cast<double>(r.wall_ns) : 0;
        r.per_api.push_back(s);
    }
    std::sort(r.per_api.begin(), r.per_api.end(), [](const SyncApiStats& x, const SyncApiStats& y) {
        return x.duration.total != y.duration.total ? x.duration.total > y.duration.total : x.name < y.name;
    });
    r.wall_share = r.wall_ns > 0 ? static_cast<double>(r.total_ns) / static_cast<double>(r.wall_ns) : 0;

    const size_t n = std::min(o.top_stalls, rows.size());
    std::partial_sort(rows.begin(), rows.begin() + static_cast<std::ptrdiff_t>(n), rows.end(), [&](int32_t x, int32_t y) {
        const int64_t dx = a.end[x] - a.start[x], dy = a.end[y] - a.start[y];
        return dx != dy ? dx > dy : x < y;
    });
    rows.resize(n);
    if (rows.empty())
        return r;
    std::vector<Interval> ops;
    ops.reserve(t.kernels.size() + t.memcpy.size() + t.memset.size());
    for (size_t i = 0; i < t.kernels.size(); ++i)
        ops.push_back({t.kernels.start[i], t.kernels.end[i]});
    for (size_t i = 0; i < t.memcpy.size(); ++i)
        ops.push_back({t.memcpy.start[i], t.memcpy.end[i]});
    for (size_t i = 0; i < t.memset.size(); ++i)
        ops.push_back({t.memset.start[i], t.memset.end[i]});
    const BusyIndex busy(merge_intervals(std::move(ops)));
    for (int32_t row : rows) {
        SyncStall s;
        s.api = row;
        s.start = a.start[row];
        s.end = a.end[row];
        s.thread = a.thread[row];
        s.gpu_busy_ns = busy.busy_in(s.start, s.end);
        r.stalls.push_back(s);
    }
    // What ran during each stall: one pass over the kernels per stall (top_stalls is small).
    std::vector<std::unordered_map<StrId, int64_t>> overlap(r.stalls.size());
    for (size_t i = 0; i < t.kernels.size(); ++i) {
        cancel_point(i);
        for (size_t s = 0; s < r.stalls.size(); ++s) {
            const int64_t lo = std::max(r.stalls[s].start, t.kernels.start[i]);
            const int64_t hi = std::min(r.stalls[s].end, t.kernels.end[i]);
            if (hi > lo) {
                r.stalls[s].kernels_overlapping += 1;
                overlap[s][t.kernels.name[i]] += hi - lo;
            }
        }
    }
    for (size_t s = 0; s < r.stalls.size(); ++s)
        for (const auto& [name, ns] : overlap[s])
            if (ns > r.stalls[s].top_kernel_overlap_ns ||
                (ns == r.stalls[s].top_kernel_overlap_ns && name < r.stalls[s].top_kernel)) {
                r.stalls[s].top_kernel = name;
                r.stalls[s].top_kernel_overlap_ns = ns;
            }
    return r;
}

} // namespace sl
