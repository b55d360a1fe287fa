// The prefill and decode phases' scopes: their steps' idle by cause, syncs, kernels and graph replay, and the
// Roofline's retest of their theory against the measured time.
#include "analysis/diagnosis/binders/binders.h"

#include <algorithm>
#include <cmath>

#include "analysis/diagnosis/retest.h"
#include "analysis/roofline/roofline.h"
#include "analysis/timeline/analysis.h"
#include "analysis/trace/trace.h"

namespace sl::bind {

namespace {

bool is_graph_kernel(const Trace& t, size_t i)
{
    if (t.kernels.flags[i] & KernelTable::kGraphNode)
        return true;
    const int32_t a = t.kernels.launch_api[i];
    return a >= 0 && static_cast<size_t>(a) < t.api.size() && (t.api.flags[static_cast<size_t>(a)] & kApiGraphLaunch);
}

} // namespace

void phase_scopes(const Context& c, std::vector<MetricScope>& out)
{
    [[maybe_unused]] const auto& [trace, an, roof, ncu, opt, trace_wall] = c;
    const auto& kernels = trace.kernels;
    const auto& P = an.phases;
    for (int decode = 0; decode <= 1; ++decode) {
        std::vector<std::pair<int64_t, int64_t>> windows;
        std::vector<std::string> step_ranges;   // NVTX step ranges behind the steps, when steps came from NVTX
        double wall = 0, busy = 0, gap = 0, kern = 0, kern_ns = 0, syncs = 0, sync_steps = 0, steps = 0;
        double phase_kernels = 0, phase_graph_kernels = 0;
        for (const auto& st : P.steps) {
            if (st.prefill != (decode == 0) || st.mixed)   // mixed steps are a phase of their own (issue 13)
                continue;
            if (decode && st.warmup)
                continue;
            windows.push_back({st.start, st.end});
            if (st.range != kNoIndex && static_cast<size_t>(st.range) < trace.ranges.size() &&
                step_ranges.size() < opt.max_links)
                step_ranges.emplace_back(trace.str(trace.ranges.name[static_cast<size_t>(st.range)]));
            wall += double(st.end - st.start);
            busy += double(st.busy_ns);
            gap += double(st.gap_ns);
            kern += double(st.kernels);
            kern_ns += double(st.kernel_ns);
            syncs += double(st.sync_calls);
            sync_steps += st.sync_calls > 0 ? 1 : 0;
            ++steps;
        }
        if (steps == 0)
            continue;
        std::sort(windows.begin(), windows.end());
        const auto cause = gap_ns_in_windows(an.idle.gaps, windows);
        const double idle = double(cause[0] + cause[1] + cause[2] + cause[3] + cause[4]);
        // Kernels of the phase's steps (starting in their windows) that ran in graph replay (none without graph
        // launches: then the walk over every kernel is skipped).
        for (size_t i = 0; an.launch.graph_kernels > 0 && i < kernels.size(); ++i) {
            const int64_t ks = kernels.start[i];
            auto it = std::upper_bound(windows.begin(), windows.end(), ks,
                                       [](int64_t v, const std::pair<int64_t, int64_t>& w) { return v < w.second; });
            if (it == windows.end() || ks < it->first)
                continue;
            phase_kernels += 1;
            phase_graph_kernels += is_graph_kernel(trace, i) ? 1 : 0;
        }
        MetricScope s;
        s.kind = ScopeKind::Phase;
        s.subject = decode ? "decode" : "prefill";
        auto& m = s.metrics;
        m["trace_wall_ns"] = trace_wall;
        m["is_decode"] = decode;
        m["step_count"] = steps;
        m["wall_ns"] = wall;
        m["idle_fraction"] = safe_div(wall - busy, wall);
        m["host_wait_ns"] = double(cause[0]);
        m["host_wait_share"] = safe_div(double(cause[0]), idle);
        m["kernel_wait_share"] = safe_div(double(cause[1]), idle);
        m["idle_ns"] = idle;
        m["kernel_wait_ns"] = double(cause[1]);
        m["sync_wait_ns"] = double(cause[2]);
        m["host_wait_per_step_ns"] = double(cause[0]) / steps;
        m["dependency_wait_ns"] = double(cause[4]);
        m["graph_fraction"] = safe_div(phase_graph_kernels, phase_kernels);
        m["sync_wait_per_step_ns"] = double(cause[2]) / steps;
        m["syncs_per_step"] = syncs / steps;
        m["sync_steps_fraction"] = sync_steps / steps;
        m["kernels_per_step"] = kern / steps;
        m["avg_kernel_us"] = safe_div(kern_ns, kern) / 1e3;
        if (decode && P.tpot_median_ns > 0)
            m["tpot_median_ns"] = P.tpot_median_ns;
        else if (!decode)
            m["tpot_median_ns"] = wall / steps;   // time per prefill pass
        // Step 2 of the loop: theory of the step's dominant operators vs their measured time (analysis/diagnosis/retest.h).
        if (roof)
            if (const PhaseCost* pc = roof->cost.phase(decode ? Phase::Decode : Phase::Prefill))
                m["shape_default"] = pc->batch_from == "default" || pc->kv_from == "default" ? 1.0 : 0.0;
        if (roof)
            if (const auto rc = retest_check(*roof, decode ? "decode" : "prefill")) {
                m["retest_theory_ns"] = rc->theory_ns;
                m["retest_measured_ns"] = rc->measured_ns;
                m["retest_delta_fraction"] = rc->delta;
                m["retest_abs_delta_fraction"] = std::abs(rc->delta);
                // What the trace's own GEMM shapes say of the config (roofline/config_check.h): 1 confirmed,
                // -1 contradicted, 0 unknown (no record_shapes, MoE, no lm_head to count passes).
                const std::string& v = roof->config_shapes.verdict;
                m["retest_config_shapes"] = v == "confirmed" ? 1.0 : v == "contradicted" ? -1.0 : 0.0;
                if (roof->config_shapes.lm_head_calls > 0)
                    m["retest_layers_from_shapes"] = roof->config_shapes.layers_from_shapes;
            }
        for (auto& [k, v] : m)
            s.sources[k] = k.rfind("retest_", 0) == 0 ? "roofline" : "analysis:phases";
        for (size_t i = 0; i < std::min(windows.size(), opt.max_links); ++i)
            s.links.time_ranges.push_back({windows[i].first, windows[i].second,
                                           std::string(decode ? "decode step" : "prefill pass")});
        s.links.nvtx_ranges = std::move(step_ranges);
        out.push_back(std::move(s));
    }
}

} // namespace sl::bind
