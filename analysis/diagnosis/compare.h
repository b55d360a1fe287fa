#pragma once
// A/B comparison of two runs (BEFORE, AFTER): per operator class and per kernel name, what was added, removed, got
// faster or slower; the headline metrics (idle breakdown, TPOT, utilisation, launch and sync time) side by side;
// and, for each suggestion accepted on BEFORE, a verdict from the metric the suggestion promised to move.
//
// Kernel names are matched by their text (the two traces have separate string pools). A row is "faster"/"slower"
// when its total time changed by more than max(rel_threshold × before, abs_threshold_ns), else "unchanged".
// A suggestion is judged end to end: by TPOT (tpot_median_ns) when both runs have decode steps, else by the wall
// time per step, else by the wall time (end_to_end_metric). It is "verified" when that metric improved by more than
// max(verify_threshold, run-to-run noise) *and* the metric the suggestion promised to move (launch-API time, idle of
// a cause, ...: the proxy) moved the promised way; "failed" when it got worse by as much; else "inconclusive" (also
// when the run got faster but the proxy did not move: the speed-up came from something else). Noise is
// twice the standard error of the difference of the two runs' mean step time (from each run's step spread), and,
// when several runs of a configuration are given (judge_suggestions_runs), twice the relative spread of the runs.
//
// Environment: both runs' fingerprints (GPU, GPU count, driver, CUDA, framework versions) are compared first. On
// different hardware (another GPU model or another number of active GPUs) every difference mixes the hardware with
// the change, so no suggestion is "verified" or "failed" there: the verdict is "inconclusive" and says why. Software
// differences are listed but do not block a verdict (an upgrade may be the change being verified).
//
// Comparable: a verdict needs two runs of the same thing. When a side holds no GPU kernels, when the GPU is another
// model or known on one side only, another number of GPUs or another vendor, or when the workload differs
// (inference against training, another serving framework), CompareResult::not_comparable says why: no verdict is
// "verified" or "failed" then, and record_verdicts() writes nothing (`compare --record` says so instead).

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "analysis/diagnosis/knowledge_base.h"
#include "analysis/io/fingerprint.h"

namespace sl {

struct Trace;
struct AnalysisResult;

struct CompareOptions {
    double rel_threshold = 0.05;
    int64_t abs_threshold_ns = 10'000;
    double verify_threshold = 0.03;
};

struct DeltaRow {
    std::string name;                 // kernel name or op class id
    std::string op_class;             // for kernel rows
    int64_t before_count = 0, after_count = 0;
    int64_t before_ns = 0, after_ns = 0;
    std::string status;               // "added" | "removed" | "faster" | "slower" | "unchanged"
    int64_t delta_ns() const { return after_ns - before_ns; }
    double relative() const { return before_ns > 0 ? double(after_ns - before_ns) / double(before_ns) : 0.0; }
};

struct SuggestionVerdict {
    int64_t suggestion_id = 0;
    std::string key, subject, metric, direction;
    std::optional<double> before, after;
    double delta = 0;                 // relative
    std::string verdict;              // "verified" | "failed" | "inconclusive" | "unmeasurable"
    std::string reason;
    // End to end: the metric the verdict is judged by, its values, relative change and the noise it must exceed.
    std::string e2e_metric;           // "tpot_median_ns" | "wall_per_step_ns" | "wall_ns"; empty = not measurable
    std::optional<double> e2e_before, e2e_after;
    double e2e_delta = 0;             // relative (-0.2 = 20 % faster)
    double noise = 0;                 // relative threshold used (>= verify_threshold)
    std::string proxy_verdict;        // what the proxy metric alone would have said
    // Issue 35 §4: when the suggestion maps to a what-if (critpath/whatif.h) and the end-to-end metric is the TPOT,
    // what the replay of that change on BEFORE predicted for AFTER's TPOT, and how far off it was:
    // (e2e_after - predicted) / e2e_after. Recorded with the verification; its history tunes the confidence.
    std::string whatif_change;
    std::optional<double> predicted;
    std::optional<double> prediction_error;
};

// One field in which the two runs' environments differ: "gpu", "gpu_count", "driver", "cuda" or a library key
// from the trace (e.g. "torch"); fields unknown on either side are not differences.
struct EnvDifference {
    std::string field, before, after;
};

struct CompareEnvironment {
    EnvFingerprint before, after;
    int before_gpus = 0, after_gpus = 0;   // devices with GPU activity
    std::vector<EnvDifference> differences;
    // Same GPU model (or unknown on a side) and the same number of active GPUs.
    bool same_hardware() const;
};

// The end-to-end verdict of the pair, what a user asks first (issue 37 §4): judged as the suggestions' verdicts are,
// on TPOT when both runs have decode steps, else on the wall time per step, else on the wall time; faster or slower
// only beyond the noise (twice the standard error of the difference of the runs' mean step times, at least
// CompareOptions::verify_threshold). Needs no accepted suggestion. The CLI's first line and the workbench's Compare
// headline both say it.
struct EndToEndVerdict {
    std::string verdict = "unknown";    // "faster" | "slower" | "unchanged" | "not-comparable" | "unknown"
    std::string metric;                 // "tpot_median_ns" | "wall_per_step_ns" | "wall_ns"
    double before = 0, after = 0;       // ns
    double change = 0;                  // relative: -0.898 = 89.8 % less time
    double noise = 0;                   // relative threshold the change had to exceed
    double step_noise = 0;              // the run-to-run part of it (0 when the spread is not known)
    bool spread_known = false;          // both runs have ≥ 2 steps
    int64_t steps_before = 0, steps_after = 0;
    // Tokens per second over the steady decode steps when each states its batch; else one sequence's tokens per
    // second (1 / TPOT, per_sequence); steps per second without decode steps (steps); 0 when not known.
    double throughput_before = 0, throughput_after = 0;
    bool throughput_per_sequence = false, throughput_steps = false;
};

struct CompareResult {
    std::string before_path, after_path;
    EndToEndVerdict end_to_end;
    CompareEnvironment environment;
    std::map<std::string, double> before_metrics, after_metrics;   // headline_metrics()
    std::vector<DeltaRow> classes;    // by |delta| descending
    std::vector<DeltaRow> kernels;    // by |delta| descending
    std::vector<SuggestionVerdict> verdicts;
    CompareOptions options;
    // Why the two runs are no A/B pair (see above), one sentence each; empty when they are.
    std::vector<std::string> not_comparable;
    bool comparable() const { return not_comparable.empty(); }
    // What `--record` did: nullopt when it was not asked, else the verifications written (0 when refused).
    std::optional<int> recorded;
};

// Headline metrics of one run: wall_ns, busy_ns, idle_ns, idle_fraction, utilization, host_wait_ns, kernel_wait_ns,
// sync_wait_ns, other_wait_ns, kernel_count, kernel_ns, launch_api_ns, launch_overhead_fraction, sync_api_ns,
// nccl_ns, h2d_ns, pageable_async_memcpy_ns, sync_memcpy_ns, tpot_median_ns, tpot_p90_ns, decode_steps, prefill_ns.
std::map<std::string, double> headline_metrics(const Trace& trace, const AnalysisResult& analysis);

// The value of a suggestion's metric for a subject: a headline metric, or subject_time_ns (the total time of the
// kernel name or op class the finding was about; "gemm (decode)" is matched as class "gemm").
std::optional<double> suggestion_metric(const std::string& metric, const std::string& subject, const Trace& trace,
                                        const AnalysisResult& analysis);

CompareResult compare_runs(const Trace& before, const AnalysisResult& before_analysis, const Trace& after,
                           const AnalysisResult& after_analysis, const CompareOptions& options = {});

// The end-to-end metric of a run: tpot_median_ns when it has decode steps, else wall_per_step_ns when it has
// steps, else wall_ns; with the relative standard error of its mean from the step spread (0 when no steps).
struct EndToEnd {
    std::string metric;
    double value = 0;
    double rel_stderr = 0;
    int steps = 0;
};
EndToEnd end_to_end_metric(const AnalysisResult& analysis, const std::string& prefer = {});

// Verdicts for suggestions (normally those accepted on BEFORE in the knowledge base); appended to result.verdicts.
void judge_suggestions(CompareResult& result, const std::vector<SuggestionRecord>& suggestions, const Trace& before,
                       const AnalysisResult& before_analysis, const Trace& after, const AnalysisResult& after_analysis);
// The same with extra runs of each configuration (each list may be empty): the end-to-end value is the mean over
// all runs of a side, and the spread across runs joins the noise.
void judge_suggestions_runs(CompareResult& result, const std::vector<SuggestionRecord>& suggestions,
                            const Trace& before, const AnalysisResult& before_analysis, const Trace& after,
                            const AnalysisResult& after_analysis,
                            const std::vector<const AnalysisResult*>& more_before,
                            const std::vector<const AnalysisResult*>& more_after);

// The knowledge-base run of a trace: found by its content hash, else recorded with the trace's environment
// fingerprint, headline metrics and operator measurements. Returns the run id.
int64_t ensure_kb_run(KnowledgeBase& kb, const Trace& trace, const AnalysisResult& analysis, const std::string& path,
                      const std::string& hash);

// What `compare --record` writes (CLI and GUI alike): one verification per verdict that could be measured, tied to
// the two runs. Returns how many were written: none when the runs are not comparable (result.not_comparable).
int record_verdicts(KnowledgeBase& kb, const CompareResult& result, int64_t before_run, int64_t after_run);

// The verdict of the pair (EndToEndVerdict; compare_runs fills CompareResult::end_to_end with it).
EndToEndVerdict end_to_end_verdict(const CompareResult& r, const AnalysisResult& before, const AnalysisResult& after);
// It in one English sentence: "Faster end to end: TPOT 23.5 ms -> 2.39 ms (-89.8 %), beyond the noise of +/-3.0 %."
std::string end_to_end_text(const CompareResult& r);

nlohmann::json compare_to_json(const CompareResult& r);
// The sentence said when the runs are on different hardware (text, markdown, GUI).
std::string hardware_warning(const CompareEnvironment& e);
// A kernel name shortened for text tables (no "void ", no parameter list, at most 120 bytes + "…").
std::string display_kernel_name(const std::string& name);
std::string compare_to_text(const CompareResult& r, size_t max_rows = 20);
std::string compare_to_markdown(const CompareResult& r, size_t max_rows = 20);

} // namespace sl
