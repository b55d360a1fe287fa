#include "analysis/timeline/launch_stats.h"

#include <algorithm>
#include <climits>

namespace sl {

LaunchResult analyze_launches(const Trace& t, const LaunchOptions& o)
{
    LaunchResult r;
    r.options = o;
    const auto& k = t.kernels;
    const auto& a = t.api;
    std::vector<int64_t> all_api;
    for (size_t i = 0; i < a.size(); ++i) {
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

    std::vector<int32_t> slot(t.strings.size(), -1);
    std::vector<std::vector<int64_t>> api_d, queue_d;
    std::vector<int64_t> all_queue;
    all_queue.reserve(k.size());
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (size_t i = 0; i < k.size(); ++i) {
        lo = std::min(lo, k.start[i]);
        hi = std::max(hi, k.end[i]);
        const StrId n = k.name[i];
        int32_t s = n < slot.size() ? slot[n] : -1;
        if (s < 0) {
            s = static_cast<int32_t>(r.per_name.size());
            r.per_name.push_back({});
            r.per_name.back().name = n;
            api_d.emplace_back();
            queue_d.emplace_back();
            if (n < slot.size())
                slot[n] = s;
        }
        auto& ps = r.per_name[static_cast<size_t>(s)];
        const int64_t kd = k.end[i] - k.start[i];
        ps.count += 1;
        ps.kernel_ns += kd;
        r.kernels += 1;
        const int32_t li = k.launch_api[i];
        const bool linked = li >= 0 && static_cast<size_t>(li) < a.size();
        const bool graph = (k.flags[i] & KernelTable::kGraphNode) ||
                           (linked && (a.flags[static_cast<size_t>(li)] & kApiGraphLaunch));
        if (graph) {
            ps.graph += 1;
            r.graph_kernels += 1;
        }
        if (!linked)
            continue;
        const size_t ai = static_cast<size_t>(li);
        ps.linked += 1;
        r.linked += 1;
        const int64_t q = std::max<int64_t>(0, k.start[i] - a.end[ai]);
        queue_d[static_cast<size_t>(s)].push_back(q);
        all_queue.push_back(q);
        if (q > o.queue_outlier_ns)
            r.queue_outliers += 1;
        if (!graph) {
            const int64_t ad = a.end[ai] - a.start[ai];
            api_d[static_cast<size_t>(s)].push_back(ad);
            if (kd < ad && ad <= o.short_kernel_api_cutoff_ns) {
                ps.short_count += 1;
                r.short_kernels += 1;
            }
        }
    }
    r.queue = compute_stats(all_queue);
    for (size_t s = 0; s < r.per_name.size(); ++s) {
        r.per_name[s].api = compute_stats(api_d[s]);
        r.per_name[s].queue = compute_stats(queue_d[s]);
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
