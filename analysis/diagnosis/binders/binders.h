#pragma once
// The binders behind bind_metrics (metrics_binding.h), one per kind of scope. Each reads the trace and what the
// analyses found — AnalysisResult (timeline/analysis.h: idle and its capture edges, launches, syncs, overlap, phases,
// collectives, host causes, workload), the Roofline report and the ncu report — and turns it into named metrics; none
// recomputes an analysis (issue 34 §7: the binding used to re-run the capture-edge, collective and dependency passes).
// The metric names are listed in metric_vocabulary() (metrics_binding.cpp); tst_metric_vocabulary reads every file
// of this folder for the names they assign.

#include <string>
#include <vector>

#include "analysis/diagnosis/metrics_binding.h"
#include "analysis/timeline/idle.h"

namespace sl {

struct AnalysisResult;
struct NcuReport;
struct RooflineReport;
struct Trace;

namespace bind {

struct Context {
    const Trace& trace;
    const AnalysisResult& an;
    const RooflineReport* roof;   // may be null
    const NcuReport* ncu;         // may be null
    const BindOptions& opt;
    double trace_wall = 0;        // the GPU-active window of the whole trace (every scope's trace_wall_ns)
};

inline double safe_div(double a, double b) { return b > 0 ? a / b : 0.0; }

// Texts say a kernel by its short name ("vllm::act_and_mul_kernel<…>", "… (ncu #7)"), in both languages: a
// demangled name runs to a thousand characters, and the scope's subject keeps it whole.
void say_kernel_by_short_name(MetricScope& s, const std::string& shown);

// Links to the max_links longest gaps that `keep` accepts, longest first, equal lengths in list (time) order.
template <class Keep>
void link_largest_gaps(const std::vector<Gap>& gaps, Keep keep, size_t max_links, ScopeLinks& links);

MetricScope trace_scope(const Context& c);                                 // trace_scope.cpp
void device_scopes(const Context& c, std::vector<MetricScope>& out);       // device_scopes.cpp
void phase_scopes(const Context& c, std::vector<MetricScope>& out);        // phase_scopes.cpp
void class_scopes(const Context& c, std::vector<MetricScope>& out);        // class_scopes.cpp
void kernel_scopes(const Context& c, std::vector<MetricScope>& out);       // kernel_scopes.cpp
void ncu_scopes(const Context& c, std::vector<MetricScope>& out);          // ncu_scopes.cpp
void host_cause_scopes(const Context& c, std::vector<MetricScope>& out);   // host_cause_scopes.cpp

} // namespace bind
} // namespace sl

#include "analysis/diagnosis/binders/link_gaps.inl"
