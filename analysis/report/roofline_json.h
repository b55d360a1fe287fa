#pragma once
// JSON and text renderings of the Roofline report and of Nsight Compute launches (layout: resources/schemas/
// roofline.md). Unknown figures are JSON null, never a made-up number.

#include "analysis/io/model_config.h"
#include "analysis/io/ncu_reader.h"
#include "analysis/roofline/ncu_match.h"
#include "analysis/roofline/roofline.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace sl {

struct GpuResolution;
struct OpClassResult;
struct PhaseResult;
struct Trace;
struct WorkloadResult;

// The "roofline" object. gpu_how / known come from resolve_gpu (may be null).
nlohmann::json roofline_to_json(const RooflineReport& r, const ModelConfig& model, const GpuResolution* gpu = nullptr);
// The "ncu" object; trace_kernel (may be null) gives per launch the joined trace kernel index (-1 = none).
nlohmann::json ncu_to_json(const NcuReport& ncu, const std::vector<int64_t>* trace_kernel = nullptr);
// The "ncu.trace_match" object of `analyze --ncu`: whether the file is of the trace's GPU and kernels.
nlohmann::json ncu_match_to_json(const NcuTraceMatch& match);

// Everything `analyze --model/--ncu` needs in one call: resolves the GPU (--gpu, else the trace's first device,
// else an error), runs the cost model, joins it with the trace's measured class times per phase, and reads and joins
// the ncu file. Throws TraceError on bad inputs (naming the file and field).
// Tensor parallelism: when the request's cost.tp_source is not "option" (no --tp) and cost.tp is 1, the degree is
// the NCCL group size the trace's collectives carry (tp_from_collectives), tp_source "trace", with a warning saying
// so — except on a training run (workload kind "training"), whose all-reduces are data-parallel gradients: TP stays
// 1 and a warning names the group size. workload may be null (kind unknown).
struct RooflineRequest {
    std::string model;                  // config.json ("" = no roofline)
    std::string index;                  // model.safetensors.index.json (optional)
    std::string gpu;                    // --gpu NAME (optional when the trace names its device)
    std::string gpu_file;               // extra GPU rows (optional)
    std::string ncu;                    // ncu file (optional)
    CostOptions cost;
    RooflineOptions roofline;
};
struct RooflineOutput {
    nlohmann::json json;                // {"roofline": {...}} and/or {"ncu": {...}}
    std::string text;                   // the same for --format text
    std::optional<RooflineReport> report;   // the joined Roofline (when a model was given), for rules and reports
    std::optional<NcuReport> ncu;           // the ncu launches (when an ncu file was given), read once
    std::optional<NcuTraceMatch> ncu_match; // whether that file is of the trace's GPU and kernels (ncu_match.h)
};
RooflineOutput roofline_for_analysis(const Trace& trace, const OpClassResult& classes, const PhaseResult& phases,
                                     const RooflineRequest& request, const WorkloadResult* workload = nullptr);

// Without --batch/--prompt/--context (o.shape_source not "option"): sets o's prefill and decode shapes from the
// steps' annotations (step_grammar.h) — per phase the mean over its pure steps whose annotation states the sums — and
// o.shape_source "annotation"; returns a note saying so ("" when no step has them).
std::string shapes_from_steps(const PhaseResult& phases, CostOptions& o);

// The cost model's shape, per phase and field: a field the user chose (CostOptions::batch_chosen, prompt_chosen,
// context_chosen: a flag, shape_source "option" alone for all three, or a value other than the default) is the user's; the rest come from the phase's step
// annotations (shapes_from_steps), else from the trace's recorded shapes (trace_shapes.h), else stay the defaults.
// Sets o.prefill_shape / o.decode_shape and o.shape_source ("option" when a flag set anything, else "annotation",
// "trace" or "default"); returns notes for people: what each phase's shape was read from, and every flag the trace
// contradicts (by more than 10 % outside what it shows), naming both values.
std::vector<std::string> resolve_shapes(const Trace& trace, const PhaseResult& phases, CostOptions& o);

std::string roofline_to_text(const RooflineReport& r, const ModelConfig& model, const GpuResolution* gpu = nullptr);
std::string ncu_to_text(const NcuReport& ncu);

} // namespace sl
