#include "analysis/timeline/launch_stats.h"
#include "analysis/trace/cancel_point.h"

#include <algorithm>
#include <climits>
#include <cstdint>

namespace sl {

LaunchResult analyze_launches(const Trace& t, const LaunchOptions& o)
{
    LaunchResult r;
    r.options = o;
    const auto& k = t.kernels;
    const auto& a = t.api;
    // At 10^7 kernels every list below is 80 MB: each is allocated at its exact size and freed as soon as its
    // statistics are taken, and the per-name lists are filled in a second pass after the all-kernel queue list is
    // gone, so at most two are alive at once (issue 18: four, grown by doubling, were 400 MB of analyze's peak).
    // Values keep kernel order within every list, so the statistics are the same to the last bit.
    {
        size_t n = 0;
        for (size_t i = 0; i < a.size(); ++i)
            n += (a.flags[i] & (kApiLaunch | kApiGraphLaunch)) != 0;
        std::vector<int64_t> all_api;
        all_api.reserve(n);
        for (size_t i = 0; i < a.size(); ++i) {
            cancel_point(i);
            const uint8_t f = a.flags[i];
            if (!(f & (kApiLaunch | kApiGraphLaunch)))
                continue;
            const int64_t d = a.end[i] - a.start[i];
            (f & kApiGraphLaunch ? r.graph_launch_calls : r.launch_calls) += 1;
            r.launch_api_ns += d;
            all_api.push_back(d);
            if (d > o.api_outlier_ns)
                r.api_outliers += 1;
        }
        r.api = compute_stats(all_api);
    }

    std::vector<int32_t> slot(t.strings.size(), -1);
    std::vector<int32_t> unslotted;            // per-name rows of kernels whose name id has no slot, in order
    std::vector<size_t> n_queue, n_api;        // per name: linked kernels, linked non-graph kernels
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    auto linked_api = [&](size_t i) {
        const int32_t li = k.launch_api[i];
        return li >= 0 && static_cast<size_t>(li) < a.size() ? static_cast<size_t>(li) : SIZE_MAX;
    };
    auto is_graph = [&](size_t i, size_t ai) {
        return (k.flags[i] & KernelTable::kGraphNode) || (ai != SIZE_MAX && (a.flags[ai] & kApiGraphLaunch));
    };
    {
        std::vector<int64_t> all_queue;
        size_t linked = 0;
        for (size_t i = 0; i < k.size(); ++i)
            linked += linked_api(i) != SIZE_MAX;
        all_queue.reserve(linked);
        for (size_t i = 0; i < k.size(); ++i) {
            cancel_point(i);
            lo = std::min(lo, k.start[i]);
            hi = std::max(hi, k.end[i]);
            const StrId n = k.name[i];
            int32_t s = n < slot.size() ? slot[n] : -1;
            if (s < 0) {
                s = static_cast<int32_t>(r.per_name.size());
                r.per_name.push_back({});
                r.per_name.back().name = n;
                n_queue.push_back(0);
                n_api.push_back(0);
                if (n < slot.size())
                    slot[n] = s;
                else
                    unslotted.push_back(s);
            }
            auto& ps = r.per_name[static_cast<size_t>(s)];
            const int64_t kd = k.end[i] - k.start[i];
            ps.count += 1;
            ps.kernel_ns += kd;
            r.kernels += 1;
            const size_t ai = linked_api(i);
            const bool graph = is_graph(i, ai);
            if (graph) {
                ps.graph += 1;
                r.graph_kernels += 1;
            }
            if (ai == SIZE_MAX)
                continue;
            ps.linked += 1;
            r.linked += 1;
            const int64_t q = std::max<int64_t>(0, k.start[i] - a.end[ai]);
            n_queue[static_cast<size_t>(s)] += 1;
            all_queue.push_back(q);
            if (q > o.queue_outlier_ns)
                r.queue_outliers += 1;
            if (!graph) {
                const int64_t ad = a.end[ai] - a.start[ai];
                n_api[static_cast<size_t>(s)] += 1;
                if (kd < ad && ad <= o.short_kernel_api_cutoff_ns) {
                    ps.short_count += 1;
                    r.short_kernels += 1;
                }
            }
        }
        r.queue = compute_stats(all_queue);
    }
    {
        std::vector<std::vector<int64_t>> api_d(r.per_name.size()), queue_d(r.per_name.size());
        for (size_t s = 0; s < r.per_name.size(); ++s) {
            api_d[s].reserve(n_api[s]);
            queue_d[s].reserve(n_queue[s]);
        }
        size_t next_unslotted = 0;
        for (size_t i = 0; i < k.size(); ++i) {
            cancel_point(i);
            const StrId n = k.name[i];
            const size_t s = static_cast<size_t>(n < slot.size() ? slot[n] : unslotted[next_unslotted++]);
            const size_t ai = linked_api(i);
            if (ai == SIZE_MAX)
                continue;
            queue_d[s].push_back(std::max<int64_t>(0, k.start[i] - a.end[ai]));
            if (!is_graph(i, ai))
                api_d[s].push_back(a.end[ai] - a.start[ai]);
        }
        for (size_t s = 0; s < r.per_name.size(); ++s) {
            r.per_name[s].api = compute_stats(api_d[s]);
            r.per_name[s].queue = compute_stats(queue_d[s]);
            std::vector<int64_t>().swap(api_d[s]);
            std::vector<int64_t>().swap(queue_d[s]);
        }
    }
    std::sort(r.per_name.begin(), r.per_name.end(), [](const KernelLaunchStats& x, const KernelLaunchStats& y) {
        return x.kernel_ns != y.kernel_ns ? x.kernel_ns > y.kernel_ns : x.name < y.name;
    });
    r.window_ns = lo <= hi ? hi - lo : 0;
    if (r.window_ns > 0) {
        r.launch_rate_per_s = static_cast<double>(r.launch_calls + r.graph_launch_calls) * 1e9 / static_cast<double>(r.window_ns);
        r.eta_launch = static_cast<double>(r.launch_api_ns) / static_cast<double>(r.window_ns);
    }
    return r;
}

} // namespace sl
