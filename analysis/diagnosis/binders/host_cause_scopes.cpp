// One scope per host-side cause the trace names (timeline/host_causes.h: compilation, autotuning, module loading,
// the allocator), with the device idle it covers; linked to the ranges and calls behind it and the idle they cover.
#include "analysis/diagnosis/binders/binders.h"

#include "analysis/diagnosis/scope_text.h"
#include "analysis/timeline/analysis.h"
#include "analysis/trace/trace.h"

namespace sl::bind {

void host_cause_scopes(const Context& c, std::vector<MetricScope>& out)
{
    [[maybe_unused]] const auto& [trace, an, roof, ncu, opt, trace_wall] = c;
    // One scope per cause the trace names, with the device idle it covers; its links are the ranges and calls behind
    // it (the longest instance of each name) and the idle they cover, so a finding shows the range as evidence.
    for (const auto& hc : an.host_causes.causes) {
        MetricScope s;
        s.kind = ScopeKind::HostCause;
        s.subject = hc.id;
        auto& m = s.metrics;
        m["trace_wall_ns"] = trace_wall;
        m["idle_ns"] = double(hc.idle_ns);
        m["idle_fraction"] = safe_div(double(hc.idle_ns), trace_wall);
        m["host_ns"] = double(hc.host_ns);
        m["before_gpu_ns"] = double(hc.before_gpu_ns);
        double count = 0;
        for (const auto& e : hc.evidence)
            count += double(e.count);
        m["count"] = count;
        for (const char* id : {"compilation", "autotuning", "module_loading", "allocator"})
            m[std::string("is_") + id] = hc.id == id ? 1.0 : 0.0;
        for (auto& [k, v] : m)
            s.sources[k] = "analysis:host_causes";
        // The subject in words: the cause and its largest evidence, "JIT compilation (NVTX KernelExecutor::...)".
        std::string names;
        for (size_t i = 0; i < hc.evidence.size() && i < 2; ++i)
            names += (i ? ", " : "") + std::string(hc.evidence[i].source == "nvtx" ? "NVTX " : "") +
                     hc.evidence[i].name;
        s.sources[kSubjectEnKey] = hc.label + (names.empty() ? "" : " (" + names + ")");
        s.subject_zh_CN = hc.label_zh_CN + (names.empty() ? "" : "（" + names + "）");
        for (const auto& e : hc.evidence) {
            if (s.links.time_ranges.size() < opt.max_links)
                s.links.time_ranges.push_back({e.longest_start, e.longest_end, e.source + " " + e.name});
            if (e.source != "api")
                s.links.nvtx_ranges.push_back(e.name);
        }
        for (const auto& p : hc.covered)
            if (s.links.time_ranges.size() < opt.max_links)
                s.links.time_ranges.push_back({p.start, p.end, "GPU idle during " + hc.label});
        out.push_back(std::move(s));
    }
}

} // namespace sl::bind
