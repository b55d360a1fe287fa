// The operator classes' scopes: per class and phase with the Roofline's theory and measured time when it ran, else
// per class from the trace alone; each linked to its longest kernels (in its phase).
#include "analysis/diagnosis/binders/binders.h"

#include <map>
#include <unordered_map>

#include "analysis/diagnosis/ncu_target.h"
#include "analysis/roofline/roofline.h"
#include "analysis/timeline/analysis.h"
#include "analysis/timeline/kernel_phase.h"
#include "analysis/trace/cancel_point.h"
#include "analysis/trace/top_k.h"
#include "analysis/trace/trace.h"

namespace sl::bind {

void class_scopes(const Context& ctx, std::vector<MetricScope>& out)
{
    [[maybe_unused]] const auto& [trace, an, roof, ncu, opt, trace_wall] = ctx;
    const auto& C = an.classes;
    const size_t class_scopes_begin = out.size();
    if (roof && roof->measured) {
        std::map<std::string, double> phase_total;
        for (const auto& c : roof->classes)
            phase_total[c.phase] += double(c.measured_total_ns);
        for (const auto& c : roof->classes) {
            if (c.measured_total_ns <= 0)
                continue;
            MetricScope s;
            s.kind = ScopeKind::OpClass;
            s.subject = c.op_class + " (" + c.phase + ")";
            auto& m = s.metrics;
            const bool dec = c.phase == "decode";
            m["trace_wall_ns"] = trace_wall;
            m["is_decode"] = dec;
            m["is_gemm"] = c.op_class == "gemm";
            m["is_attention"] = c.op_class == "attention";
            m["is_elementwise_chain"] = is_elementwise_chain_class(c.op_class);
            m["total_ns"] = double(c.measured_total_ns);
            m["time_fraction"] = safe_div(double(c.measured_total_ns), phase_total[c.phase]);
            // Gains are fractions of end-to-end time: a class holding 80 % of a phase's kernel time holds less of the
            // wall when the GPU idles or other phases run (rules scale their gain by this, never by time_fraction).
            m["wall_fraction"] = safe_div(double(c.measured_total_ns), trace_wall);
            if (c.bytes > 0)
                m["intensity"] = c.flops / c.bytes;
            if (c.t_theory_ns)
                m["t_theory_ns"] = *c.t_theory_ns;
            if (c.t_actual_ns)
                m["t_actual_ns"] = *c.t_actual_ns;
            // An unfused elementwise chain (roofline.h): the chain's theory and time, which its E_roof compares.
            m["fused_chain"] = c.chain.empty() ? 0.0 : 1.0;
            if (!c.chain.empty() && c.chain_theory_ns && c.chain_actual_ns) {
                m["t_theory_ns"] = *c.chain_theory_ns;
                m["t_actual_ns"] = *c.chain_actual_ns;
            }
            if (c.e_roof && *c.e_roof > 0) {
                m["e_roof"] = *c.e_roof;
                m["distance_to_roof"] = 1.0 / *c.e_roof;
            }
            // Bound type of the class: compute when its operators' compute time exceeds their memory time.
            if (const PhaseCost* pc = roof->cost.phase(phase_from_name(c.phase).value_or(Phase::Prefill))) {
                double tc = 0, tm = 0;
                bool known = false;
                for (const auto& op : pc->ops)
                    if (op.op_class == c.op_class && op.t_compute_ns && op.t_memory_ns) {
                        tc += *op.t_compute_ns;
                        tm += *op.t_memory_ns;
                        known = true;
                    }
                if (known) {
                    m["compute_bound"] = tc > tm;
                    m["memory_bound"] = tm >= tc;
                }
                if (pc->batch > 0)
                    m["batch_size"] = double(pc->batch);
                // The theory rests on a default shape (no flag, annotation or recorded shape for its batch or
                // length): diagnose() keeps the findings that read its E_roof at low severity.
                m["shape_default"] = pc->batch_from == "default" || pc->kv_from == "default" ? 1.0 : 0.0;
            }
            for (auto& [k, v] : m)
                s.sources[k] = "roofline";
            s.sources["time_fraction"] = s.sources["total_ns"] = s.sources["wall_fraction"] = "trace (measured)";
            if (const NcuTarget nt = ncu_target_for_class(trace, an, c.op_class, c.phase); !nt.regex.empty()) {
                s.sources[kNcuKernelsKey] = nt.ncu_args();
                s.sources[kKernelRegexKey] = nt.include_regex();
            }
            out.push_back(std::move(s));
        }
    } else {
        for (const auto& c : C.classes) {
            if (c.count == 0)
                continue;
            MetricScope s;
            s.kind = ScopeKind::OpClass;
            s.subject = c.id;
            auto& m = s.metrics;
            m["trace_wall_ns"] = trace_wall;
            m["is_gemm"] = c.id == "gemm";
            m["is_attention"] = c.id == "attention";
            m["is_elementwise_chain"] = is_elementwise_chain_class(c.id);
            m["count"] = double(c.count);
            m["total_ns"] = double(c.time_ns);
            m["time_fraction"] = safe_div(double(c.time_ns), double(C.kernel_time_ns));
            m["wall_fraction"] = safe_div(double(c.time_ns), trace_wall);
            for (auto& [k, v] : m)
                s.sources[k] = "analysis:classes";
            if (const NcuTarget nt = ncu_target_for_class(trace, an, c.id, ""); !nt.regex.empty()) {
                s.sources[kNcuKernelsKey] = nt.ncu_args();
                s.sources[kKernelRegexKey] = nt.include_regex();
            }
            out.push_back(std::move(s));
        }
    }

    // Links of the operator-class scopes (issue 37 §3: E_roof findings led nowhere): the longest kernels of the class,
    // in the scope's phase when it has one ("gemm (decode)"), as the Roofline measured them (the step each starts in).
    {
        std::unordered_map<std::string, int> class_index;
        for (size_t c = 0; c < C.classes.size(); ++c)
            class_index[C.classes[c].id] = static_cast<int>(c);
        // Scope -> (class, phase: -1 any, 0 prefill, 1 decode, 2 mixed, 3 training).
        std::vector<std::pair<size_t, std::pair<int, int>>> wanted;
        for (size_t i = class_scopes_begin; i < out.size(); ++i) {
            if (out[i].kind != ScopeKind::OpClass)
                continue;
            std::string id = out[i].subject;
            int phase = -1;
            if (const size_t open = id.find(" ("); open != std::string::npos && id.back() == ')') {
                const auto named = kernel_phase_named(std::string_view(id).substr(open + 2, id.size() - open - 3));
                phase = named ? static_cast<int>(*named) : -2;
                id.resize(open);
            }
            if (const auto it = class_index.find(id); it != class_index.end() && phase != -2)
                wanted.push_back({i, {it->second, phase}});
        }
        if (!wanted.empty()) {
            const std::vector<KernelPhase> placed = kernel_phases(trace, an.phases);
            auto ahead = [&](size_t a, size_t b) {
                const int64_t x = trace.kernels.end[a] - trace.kernels.start[a];
                const int64_t y = trace.kernels.end[b] - trace.kernels.start[b];
                return x != y ? x > y : a < b;
            };
            std::vector<TopK<size_t, decltype(ahead)>> top;
            top.reserve(wanted.size());
            std::vector<std::vector<size_t>> by_class(C.classes.size());   // class -> its scopes in `wanted`
            for (size_t w = 0; w < wanted.size(); ++w) {
                top.emplace_back(opt.max_links, ahead);
                by_class[static_cast<size_t>(wanted[w].second.first)].push_back(w);
            }
            const size_t n = std::min(trace.kernels.size(), C.kernel_class.size());
            for (size_t k = 0; k < n; ++k) {
                cancel_point(k);
                const int cls = C.kernel_class[k];
                if (cls < 0 || static_cast<size_t>(cls) >= by_class.size())
                    continue;
                for (const size_t w : by_class[static_cast<size_t>(cls)])
                    if (wanted[w].second.second < 0 || static_cast<int>(placed[k]) == wanted[w].second.second)
                        top[w].offer(k);
            }
            for (size_t w = 0; w < wanted.size(); ++w)
                for (size_t k : top[w].take())
                    out[wanted[w].first].links.kernel_ids.push_back(static_cast<int64_t>(k));
        }
    }
}

} // namespace sl::bind
