#include "analysis/report/workload_json.h"

#include <algorithm>
#include <climits>

namespace sl {

using nlohmann::json;

namespace {

json warning_json(const WorkloadWarning& x)
{
    json args = json::object();
    for (const auto& [k, v] : x.args)
        args[k] = v;
    return {{"code", x.code}, {"message", x.message}, {"args", std::move(args)}};
}

} // namespace

json workload_to_json(const WorkloadResult& w)
{
    json warnings = json::array();
    for (const auto& x : w.warnings)
        warnings.push_back(warning_json(x));
    json signs = json::array();
    for (const auto& f : w.framework_evidence)
        signs.push_back({{"framework", f.framework}, {"kind", f.kind}, {"names", f.names}, {"weight", f.weight},
                         {"example", f.example}});
    json captures = json::array();
    for (const auto& c : w.captures)
        captures.push_back({{"file", c.path},
                            {"source", c.source},
                            {"batch_size", c.batch_size > 0 ? json(c.batch_size) : json(nullptr)},
                            {"mode", c.mode.empty() ? json(nullptr) : json(c.mode)},
                            {"graphs", c.graphs},
                            {"captured_launches", c.captured_launches},
                            {"replays", c.replays},
                            {"kernels_replayed", c.kernels_replayed},
                            {"kernels_matched", c.kernels_matched},
                            {"used", c.used}});
    const json replay = {{"kernels", w.graph_kernels},
                         {"kernels_with_op", w.graph_kernels_joined},
                         {"kernel_ns", w.graph_kernel_ns},
                         {"time_share", w.graph_time_share},
                         {"captures", std::move(captures)}};
    json moe = nullptr;
    if (w.moe.detected)
        moe = {{"experts", w.moe.experts > 0 ? json(w.moe.experts) : json(nullptr)},
               {"top_k", w.moe.top_k > 0 ? json(w.moe.top_k) : json(nullptr)},
               {"source", w.moe.source.empty() ? json(nullptr) : json(w.moe.source)},
               {"expert_gemm_kernels", w.moe.expert_gemm_kernels},
               {"expert_gemm_ns", w.moe.expert_gemm_ns},
               {"routing_kernels", w.moe.routing_kernels},
               {"routing_ns", w.moe.routing_ns},
               {"gpu_share", w.moe.gpu_share},
               {"implementations", w.moe.implementations}};
    return {{"kind", workload_kind_name(w.kind)},
            {"execution", execution_mode_name(w.execution)},
            {"framework", w.framework.empty() ? json(nullptr) : json(w.framework)},
            {"evidence", w.evidence},
            {"graph_kernels", w.graph_kernels},
            {"eager_kernels", w.eager_kernels},
            {"graph_launches", w.graph_launches},
            {"training_signs", w.training_signs},
            {"inference_signs", w.inference_signs},
            {"framework_evidence", std::move(signs)},
            {"graph_replay", std::move(replay)},
            {"moe", std::move(moe)},
            {"torch_compile", w.torch_compile.detected
                                  ? json{{"inductor_kernels", w.torch_compile.inductor_kernels},
                                         {"inductor_kernel_ns", w.torch_compile.inductor_kernel_ns},
                                         {"compiled_regions", w.torch_compile.compiled_regions},
                                         {"cuda_graphs", w.torch_compile.cuda_graphs}}
                                  : json(nullptr)},
            {"vendor", w.vendor.empty() ? json(nullptr) : json(w.vendor)},
            {"vendor_evidence", w.vendor_evidence},
            {"warnings", std::move(warnings)}};
}

void add_time_base_json(json& j, const Trace& t, const AnalysisResult& r)
{
    const auto& m = t.meta;
    j["capture_source"] = m.capture_source;
    j["reported_capture_ns"] = m.reported_capture_ns;
    j["clock_shift_ns"] = m.clock_shift_ns;
    int64_t nvtx = 0, cpu_ops = 0, python = 0;
    for (size_t i = 0; i < t.ranges.size(); ++i)
        (t.ranges.kind[i] == RangeKind::CpuOp            ? cpu_ops
         : t.ranges.kind[i] == RangeKind::PythonFunction ? python
                                                         : nvtx) += 1;
    j["nvtx_ranges"] = nvtx;
    j["cpu_ops"] = cpu_ops;
    j["python_functions"] = python;

    // GPU activity window: first GPU op start .. last GPU op end over every device.
    int64_t lo = INT64_MAX, hi = INT64_MIN, busy = 0, device_windows = 0;
    for (const auto& d : r.idle.devices) {
        if (d.ops == 0)
            continue;
        lo = std::min(lo, d.first_start);
        hi = std::max(hi, d.last_end);
        busy += d.busy_ns;
        device_windows += d.window_ns;
    }
    const int64_t capture = m.capture_end - m.capture_start;
    const size_t ndev = std::count_if(r.idle.devices.begin(), r.idle.devices.end(),
                                      [](const DeviceIdle& d) { return d.ops > 0; });
    // Busy share of the capture, averaged over the devices that ran anything; null when none did. The capture is
    // the window after any clock correction (the reader moved it with the GPU ops).
    if (lo <= hi && capture > 0 && ndev > 0)
        j["gpu_utilization"] = static_cast<double>(busy) / (static_cast<double>(capture) * static_cast<double>(ndev));
    else
        j["gpu_utilization"] = nullptr;
    // Busy share of each device's own activity window (first op to last op), summed over devices: how busy the GPU
    // was while it ran, apart from the host time the capture holds around it. Null without GPU activity.
    j["gpu_busy_fraction"] = device_windows > 0 ? json(static_cast<double>(busy) / static_cast<double>(device_windows))
                                                : json(nullptr);
    // Which window each time-base number of the output is measured over (names of trace.windows, or "device
    // activity": each device's own first-op-to-last-op window, devices[].window_ns).
    j["window_of"] = {{"wall_ns", "capture"},
                      {"gpu_utilization", "capture"},
                      {"gpu_busy_fraction", "device activity"},
                      {"devices.idle_fraction", "device activity"},
                      {"headline.wall_ns", "device activity"},
                      {"phases.tpot_median_ns", "steady_state"}};
    json windows;
    windows["origin_ns"] = m.capture_start;
    windows["capture"] = {{"start_ns", m.capture_start},
                          {"end_ns", m.capture_end},
                          {"source", m.capture_source},
                          {"clock_corrected", m.clock_shift_ns != 0}};
    // The profiler's window on the uncorrected clocks (host and GPU ops each on their own), when a correction moved
    // the GPU ops: what wall_ns and gpu_utilization would have been measured over without it.
    windows["capture_uncorrected"] =
        m.clock_shift_ns != 0 && m.uncorrected_capture_end > m.uncorrected_capture_start
            ? json{{"start_ns", m.uncorrected_capture_start}, {"end_ns", m.uncorrected_capture_end}}
            : json(nullptr);
    windows["gpu_activity"] = lo <= hi ? json{{"start_ns", lo}, {"end_ns", hi}} : json(nullptr);
    const auto& P = r.phases;
    windows["steady_state"] = P.steady_end > P.steady_start
                                  ? json{{"start_ns", P.steady_start}, {"end_ns", P.steady_end},
                                         {"steps", P.steady_steps}, {"warmup_excluded", P.warmup_excluded}}
                                  : json(nullptr);
    j["windows"] = std::move(windows);
    json warnings = json::array();
    for (const auto& x : r.workload.warnings)
        warnings.push_back(warning_json(x));
    j["warnings"] = std::move(warnings);
}

void add_phase_keys_json(json& j, const PhaseResult& P)
{
    j["mixed_steps"] = P.mixed_steps;
    j["warmup_detected"] = P.warmup_detected;
    j["training_iterations"] = P.training_iterations;
    j["rejected_boundary"] = P.rejected_boundary;
    j["phase_source"] = P.phase_source;
    j["steady_window"] = P.steady_end > P.steady_start ? json{{"start_ns", P.steady_start}, {"end_ns", P.steady_end}}
                                                        : json(nullptr);
    j["annotated_steps"] = P.annotated_steps;
    j["batch_source"] = P.batch_source;
    if (j.contains("steps") && j["steps"].is_array())
        for (size_t i = 0; i < j["steps"].size() && i < P.steps.size(); ++i) {
            const StepInfo& st = P.steps[i];
            json& sj = j["steps"][i];
            if (st.mixed)
                sj["phase"] = "mixed";
            // Batch composition as the step's annotation states it (null: not stated, or no annotation).
            const StepBatch& b = st.batch;
            auto n = [](int64_t v) { return v >= 0 ? json(v) : json(nullptr); };
            sj["kind"] = step_kind_name(st.kind);
            sj["prefill_requests"] = n(b.prefill_requests);
            sj["prefill_tokens"] = n(b.prefill_tokens);
            sj["prefill_kv_tokens"] = n(b.prefill_kv_tokens);
            sj["decode_requests"] = n(b.decode_requests);
            sj["decode_tokens"] = n(b.decode_tokens);
            sj["decode_kv_tokens"] = n(b.decode_kv_tokens);
            sj["scheduled_tokens"] = n(b.tokens);
            sj["batch_source"] = b.known() ? b.format : P.phase_source.empty() ? std::string("none") : P.phase_source;
            sj["framework"] = b.known() && !b.framework.empty() ? json(b.framework) : json(nullptr);
        }
}

} // namespace sl
