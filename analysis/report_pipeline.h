#pragma once
// Everything a report needs, computed from loaded traces in one call: summary, analysis, the optional Roofline
// (model config.json + GPU spec) and Nsight Compute file, and the rule engine's findings. The CLI's `report`
// command, the benchmark and the golden tests use it; the GUI, which already holds these results, fills
// ReportInputs itself.

#include "analysis/critpath/critpath_summary.h"
#include "analysis/timeline/analysis.h"
#include "analysis/roofline/cost_model.h"
#include "analysis/diagnosis/findings.h"
#include "analysis/diagnosis/kb_lookup.h"
#include "analysis/diagnosis/headline.h"
#include "analysis/io/ncu_reader.h"
#include "analysis/roofline/ncu_match.h"
#include "analysis/report/report_model.h"
#include "analysis/roofline/roofline.h"
#include "analysis/timeline/summary.h"
#include "analysis/trace/trace.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace sl::report {

struct PipelineOptions {
    AnalysisOptions analysis;
    std::string model_config;        // HF config.json; empty = no Roofline
    std::string model_index;         // model.safetensors.index.json checked against the config; optional
    std::string gpu_file;            // extra or corrected GPU spec rows; optional
    std::string gpu;                 // --gpu NAME; empty = match the trace's first device name
    CostOptions cost;                // batch / prompt / context, κ
    RooflineOptions roofline;        // K, τ
    std::string ncu_file;            // ncu CSV/text/.ncu-rep; empty = none
    bool rules = true;               // run the rule engine
    std::vector<std::string> rule_dirs;   // empty = shipped + user rules
    std::string lang = "en";         // language of the findings' texts
    std::string kb_path;             // knowledge base whose verified history adjusts confidence; optional. When
                                     // it exists, the report also gets "Seen before on this environment".
    std::vector<std::string> trace_files;   // the trace's own files: their runs are left out of that lookup
};

struct PipelineResults {
    Summary summary;
    AnalysisResult analysis;
    std::optional<RooflineReport> roofline;
    std::optional<NcuReport> ncu;
    std::optional<NcuTraceMatch> ncu_match;          // whether the ncu file is of this trace's GPU and kernels
    std::optional<std::vector<Finding>> findings;
    std::optional<Headline> headline;                // the trace-level verdict (diagnosis/headline.h)
    std::optional<critpath::CriticalPathSummary> critical_path;   // what sets the step (analysis/critpath/)
    std::map<std::string, std::string> rule_files;   // path -> "sha256:<first 12 hex>"
    std::vector<std::string> notes;                  // what could not be computed, and why
    // Rule files and rules that did not load or evaluate (also in notes): a --fail-on gate cannot pass with any.
    std::vector<std::string> rule_problems;
    std::optional<EnvironmentHistory> environment_history;   // knowledge-base lookup (options.kb_path exists)
    std::string kb_path;
    // The user's decisions on this trace's suggestions as the knowledge base holds them (`kb accept|reject|annotate`,
    // the GUI's Suggestions pane), keyed "<rule>/<suggestion id>|<subject>": the run found by the trace file's
    // content hash (one trace file). report_inputs() gives them to the report unless the caller set its own.
    std::map<std::string, std::string> suggestion_state, suggestion_note;
};

// Throws TraceError for unreadable or malformed inputs (model config, ncu file).
PipelineResults run_pipeline(const Trace& trace, const PipelineOptions& options);

// ReportInputs pointing into `results` (which must outlive the report build).
// The workload the Roofline was computed for, from the pipeline's model config (file name) and shape, when the
// user did not describe it: the report's "Model" and "Shape" lines. Shared by sightline-cli report and the GUI.
void describe_workload(ReportOptions& report, const PipelineOptions& pipeline);

ReportInputs report_inputs(const Trace& trace, const PipelineResults& results, const ReportOptions& options,
                           const std::vector<std::string>& input_files);

} // namespace sl::report
