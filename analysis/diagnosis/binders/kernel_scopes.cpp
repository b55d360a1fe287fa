// The kernel names with the most time: one scope each, linked to its longest instances.
#include "analysis/diagnosis/binders/binders.h"

#include <unordered_map>

#include "analysis/roofline/roofline.h"
#include "analysis/timeline/analysis.h"
#include "analysis/trace/top_k.h"
#include "analysis/trace/trace.h"

namespace sl::bind {

void kernel_scopes(const Context& c, std::vector<MetricScope>& out)
{
    [[maybe_unused]] const auto& [trace, an, roof, ncu, opt, trace_wall] = c;
    const auto& kernels = trace.kernels;
    const auto& C = an.classes;
    const double kernel_time = double(C.kernel_time_ns);
    std::unordered_map<StrId, size_t> scope_of_name;
    const size_t first_kernel_scope = out.size();
    for (const auto& k : an.launch.per_name) {
        if (out.size() - first_kernel_scope >= opt.max_kernel_scopes)
            break;
        if (k.count == 0)
            continue;
        MetricScope s;
        s.kind = ScopeKind::Kernel;
        s.subject = std::string(trace.str(k.name));
        say_kernel_by_short_name(s, kernel_display_name(s.subject));
        auto& m = s.metrics;
        m["trace_wall_ns"] = trace_wall;
        m["count"] = double(k.count);
        m["total_ns"] = double(k.kernel_ns);
        m["avg_duration_us"] = double(k.kernel_ns) / double(k.count) / 1e3;
        m["time_fraction"] = safe_div(double(k.kernel_ns), kernel_time);
        m["wall_fraction"] = safe_div(double(k.kernel_ns), trace_wall);
        m["short_kernel_count"] = double(k.short_count);
        m["short_kernel_fraction"] = double(k.short_count) / double(k.count);
        m["graph_fraction"] = double(k.graph) / double(k.count);
        if (k.api.count > 0)
            m["avg_launch_api_us"] = k.api.avg / 1e3;
        if (k.queue.count > 0)
            m["avg_queue_delay_us"] = k.queue.avg / 1e3;
        for (auto& [n, v] : m)
            s.sources[n] = "analysis:launch";
        scope_of_name[k.name] = out.size();
        out.push_back(std::move(s));
    }
    // Links: the longest instances of each bound kernel name, equal durations in row order (a bounded heap per
    // scope, not a list of every instance: 10^7 kernels were 97 MB at analyze's peak, issue 18).
    {
        auto ahead = [&](size_t a, size_t b) {
            const int64_t x = kernels.end[a] - kernels.start[a], y = kernels.end[b] - kernels.start[b];
            return x != y ? x > y : a < b;
        };
        std::unordered_map<size_t, TopK<size_t, decltype(ahead)>> top;
        for (size_t i = 0; i < kernels.size(); ++i)
            if (const auto it = scope_of_name.find(kernels.name[i]); it != scope_of_name.end())
                top.try_emplace(it->second, opt.max_links, ahead).first->second.offer(i);
        for (auto& [scope, t] : top)
            for (size_t i : t.take())
                out[scope].links.kernel_ids.push_back(static_cast<int64_t>(i));
    }
}

} // namespace sl::bind
