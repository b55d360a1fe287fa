#pragma once
// The one pipeline the GUI, the CLI and the reports run: load → summary → analyses → Roofline/ncu → rules.
// Same inputs, same options → the same numbers, whichever front end asked.

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analysis/critpath/critpath_summary.h"
#include "analysis/io/load.h"
#include "analysis/timeline/analysis.h"
#include "analysis/trace/load_control.h"
#include "analysis/diagnosis/kernel_verdict.h"
#include "analysis/diagnosis/metrics_binding.h"
#include "analysis/report/roofline_json.h"
#include "analysis/roofline/shape_throughput.h"
#include "analysis/timeline/collectives.h"
#include "analysis/timeline/summary.h"
#include "analysis/trace/trace.h"

namespace sl {

struct PipelineOptions {
    LoadOptions load;              // graph-capture traces (--capture-trace) and whether to look for them beside a trace
    SummaryOptions summary;
    AnalysisOptions analysis;
    RooflineRequest roofline;      // model config / GPU / shape / ncu file; empty model and ncu = no Roofline
    std::string rules_dir;         // user rules added to (and overriding) the shipped ones; empty = shipped + default user dir
    std::vector<std::string> rule_dirs;   // when set: exactly these rule directories (overrides rules_dir)
    std::string lang = "en";       // language of the findings' texts
    std::string kb_path;           // knowledge base for confidence history; empty = none
    bool run_rules = true;
    bool critical_path = true;     // the dependency graph and its critical path (analysis/critpath/)
};

struct PipelineResult {
    std::vector<std::string> inputs;
    std::shared_ptr<const Trace> trace;
    Summary summary;
    AnalysisResult analysis;
    RooflineOutput roofline;       // json/text plus report and ncu when requested
    ShapeRooflineResult shapes;    // measured throughput from Kineto shapes (empty without record_shapes)
    CollectiveStats collectives;   // NCCL/RCCL bytes, bandwidth, exposed time, rank skew
    critpath::CriticalPathSummary critical_path;   // the whole trace's critical path (HTA's graph + graph replay)
    // One verdict per distinct kernel (name + launch shape), largest total time first: the JSON's `kernels`, and
    // what the workbench's Details line says of each launch (analysis/diagnosis/kernel_verdict.h).
    std::vector<KernelVerdictSummary> kernels;
    Diagnosis diagnosis;
};

enum class PipelineStage { Loaded, Summarised, Analysed, Roofline, Diagnosed };

// Runs every stage. `on_stage` (optional) is called after each stage with the partial result, so a GUI can show the
// summary before the rest is done. Throws TraceError / KbError on bad input, Cancelled when cancelled.
PipelineResult run_pipeline(const std::vector<std::string>& paths, const PipelineOptions& options,
                            const LoadControl& control = {},
                            const std::function<void(PipelineStage, const PipelineResult&)>& on_stage = {});

// The verdict inputs every kernel of r shares (its analysis, Roofline, ncu launches, shapes); `ncu_join` must outlive
// the result and is filled here (join_ncu_to_trace of r's ncu file, empty without one).
KernelVerdictInputs kernel_verdict_inputs(const PipelineResult& r, std::vector<int64_t>& ncu_join);

// Runs the stages after loading on a trace the caller already has.
PipelineResult run_pipeline_on(std::shared_ptr<const Trace> trace, const PipelineOptions& options,
                               const LoadControl& control = {},
                               const std::function<void(PipelineStage, const PipelineResult&)>& on_stage = {});

// The `sightline-cli analyze --format json` document (schema sightline.analysis/1 plus roofline, ncu, findings).
nlohmann::json pipeline_to_json(const PipelineResult& r);
// The `--format text` rendering.
std::string pipeline_to_text(const PipelineResult& r);

} // namespace sl
