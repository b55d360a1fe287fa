#pragma once
// JSON for what the trace is (issue 13): the `workload` object and the time-base keys added to `trace`
// (capture source, windows, warnings, GPU utilisation). Documented in resources/schemas/analysis.md.

#include <nlohmann/json.hpp>

#include "analysis/timeline/analysis.h"
#include "analysis/trace/trace.h"

namespace sl {

// {"kind", "execution", "framework", "evidence"[], "warnings"[{code, message}], "graph_kernels", ...}
nlohmann::json workload_to_json(const WorkloadResult& workload);

// Adds to the analysis JSON's "trace" object: capture_source, reported_capture_ns, clock_shift_ns, nvtx_ranges,
// cpu_ops, gpu_utilization (null without GPU activity), windows {capture, gpu_activity, steady_state} and
// warnings[] (the workload's warnings).
void add_time_base_json(nlohmann::json& trace_obj, const Trace& trace, const AnalysisResult& result);

// Adds to the "phases" object: mixed_steps, warmup_detected, training_iterations, rejected_boundary,
// steady_window {start_ns, end_ns} (null when there is none).
void add_phase_keys_json(nlohmann::json& phases_obj, const PhaseResult& phases);

} // namespace sl
