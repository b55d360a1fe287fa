// One scope per ncu launch: its counters (tensor pipe, occupancy, DRAM, L2, stalls, bank conflicts), joined to its
// trace kernel for the time it holds.
#include "analysis/diagnosis/binders/binders.h"

#include <cmath>
#include <optional>
#include <unordered_map>

#include "analysis/diagnosis/ncu_target.h"
#include "analysis/io/ncu_metrics.h"
#include "analysis/io/ncu_reader.h"
#include "analysis/diagnosis/scope_text.h"
#include "analysis/roofline/roofline.h"
#include "analysis/timeline/analysis.h"
#include "analysis/trace/errors.h"
#include "analysis/trace/trace.h"

namespace sl::bind {

void ncu_scopes(const Context& c, std::vector<MetricScope>& out)
{
    [[maybe_unused]] const auto& [trace, an, roof, ncu, opt, trace_wall] = c;
    const auto& kernels = trace.kernels;
    const auto& C = an.classes;
    const double kernel_time = double(C.kernel_time_ns);
    if (ncu) {
        const auto joined = join_ncu_to_trace(*ncu, trace);
        std::unordered_map<StrId, int64_t> name_time;
        for (const auto& n : C.names)
            name_time[n.name] = n.time_ns;
        const int gemm = [&] {
            for (size_t i = 0; i < C.classes.size(); ++i)
                if (C.classes[i].id == "gemm")
                    return static_cast<int>(i);
            return -1;
        }();
        OpClassifier classifier;
        bool have_classifier = false;
        try {
            classifier = OpClassifier::load(an.options.classes_file);
            have_classifier = true;
        } catch (const Cancelled&) {
            throw;   // a Cancel raised inside is not this step's failure
        } catch (const std::exception&) {
        }
        for (size_t li = 0; li < ncu->launches.size(); ++li) {
            const auto& L = ncu->launches[li];
            const auto x = compute_ncu_metrics(L);
            MetricScope s;
            s.kind = ScopeKind::NcuLaunch;
            s.subject = ncu_launch_subject(L.name, L.id);
            say_kernel_by_short_name(s, ncu_launch_subject(kernel_display_name(L.name), L.id));
            // The launch's own kernel, as ncu filters it (its place among the matched launches is not known here).
            if (const std::string base = ncu_base_name(L.name); !base.empty())
                s.sources[kNcuKernelsKey] = "-k regex:'^(.*::)?" + ncu_regex_escape(base) + "$' --launch-count 1";
            auto& m = s.metrics;
            m["trace_wall_ns"] = trace_wall;
            auto put = [&](const char* k, const std::optional<double>& v, double scale = 1.0) {
                if (v && std::isfinite(*v))
                    m[k] = *v * scale;
            };
            put("duration_ns", x.duration_ns);
            put("tensor_core_utilization", x.tensor_pipe_pct, 0.01);
            put("achieved_occupancy", x.achieved_occupancy_pct, 0.01);
            put("theoretical_occupancy", x.theoretical_occupancy_pct, 0.01);
            put("dram_throughput_fraction", x.dram_throughput_pct, 0.01);
            if (x.l2_hit_rate_pct)
                m["l2_miss_rate"] = 1.0 - *x.l2_hit_rate_pct / 100.0;
            put("sm_throughput_pct", x.sm_throughput_pct);
            put("memory_throughput_pct", x.memory_throughput_pct);
            put("waves_per_sm", x.waves_per_sm);
            put("registers_per_thread", x.registers_per_thread);
            put("intensity", x.intensity);
            if (x.shared_bank_conflicts && x.shared_wavefronts && *x.shared_wavefronts > 0)
                m["shared_bank_conflict_ratio"] = *x.shared_bank_conflicts / *x.shared_wavefronts;
            if (x.shared_bank_conflicts) {
                const auto ld = L.number("smsp__sass_inst_executed_op_shared_ld.sum");
                const auto st = L.number("smsp__sass_inst_executed_op_shared_st.sum");
                const double req = ld.value_or(0) + st.value_or(0);
                if (req > 0)
                    m["shared_bank_conflicts_per_request"] = *x.shared_bank_conflicts / req;
            }
            if (auto total = L.number("smsp__average_warp_latency_per_inst_issued.ratio"); total && *total > 0)
                for (const auto& st : x.top_stalls)
                    if (st.reason == "long_scoreboard")
                        m["stall_memory_dependency_fraction"] = st.value / *total;
            // GEMM or not: the joined trace kernel's class, else the classifier on the ncu name.
            const int64_t k = li < joined.size() ? joined[li] : -1;
            if (k >= 0 && static_cast<size_t>(k) < C.kernel_class.size()) {
                m["is_gemm"] = C.kernel_class[static_cast<size_t>(k)] == gemm;
                m["time_fraction"] = safe_div(double(name_time[kernels.name[static_cast<size_t>(k)]]), kernel_time);
                m["wall_fraction"] = safe_div(double(name_time[kernels.name[static_cast<size_t>(k)]]), trace_wall);
                s.links.kernel_ids.push_back(k);
            } else if (have_classifier) {
                const auto match = classifier.classify(L.name);
                m["is_gemm"] = match.cls >= 0 && static_cast<size_t>(match.cls) < classifier.class_ids().size() &&
                               classifier.class_ids()[static_cast<size_t>(match.cls)] == "gemm";
            }
            if (x.duration_derived)
                m["data_quality"] = 0.8;
            for (auto& [n, v] : m)
                s.sources[n] = "ncu";
            s.sources["time_fraction"] = s.sources["wall_fraction"] = "trace (joined by name)";
            out.push_back(std::move(s));
        }
    }
}

} // namespace sl::bind
