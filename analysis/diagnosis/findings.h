#pragma once
// Findings: what the rule engine concludes, with its evidence, expected gain, confidence and suggestions.
//
// The engine never looks at a Trace: it evaluates rules over MetricScopes (a named bag of metrics about one
// subject: the whole trace, a device, a phase, an operator class, a kernel name or one ncu launch) which
// metrics_binding.h builds from the analysis results. That keeps the rules data-driven and testable on
// hand-built scopes. Schema of the JSON form: resources/schemas/findings.md.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace sl {

// HostCause: one host-side cause of idle the trace names (timeline/host_causes.h: "compilation", "autotuning",
// "module_loading", "allocator").
enum class ScopeKind : uint8_t { Trace = 0, Device, Phase, OpClass, Kernel, NcuLaunch, HostCause };
const char* scope_kind_name(ScopeKind k);                       // "trace", "device", "phase", "op_class", ...
std::optional<ScopeKind> parse_scope_kind(std::string_view s);  // also accepts "operator_class", "ncu"

struct LinkedRange {
    int64_t start = 0, end = 0;   // ns, trace clock
    std::string label;            // e.g. "gap before ampere_sgemm", "decode step 12"
};

// Links from a scope (and so from its findings) to the trace items behind it, for the GUI to jump to.
struct ScopeLinks {
    std::vector<int64_t> kernel_ids;        // row indices into Trace::kernels (a bounded sample, largest first)
    std::vector<LinkedRange> time_ranges;     // gaps, steps, low-utilisation chunks
    std::vector<std::string> nvtx_ranges;   // NVTX range names
};

struct MetricScope {
    ScopeKind kind = ScopeKind::Trace;
    std::string subject;                          // "trace", "GPU 0", "decode", "gemm", a kernel name, "ncu #3"
    // The subject for people where it differs from the key (operator classes and phases): what {subject} says in
    // a Chinese title ("GEMM / GEMV（解码）" for "gemm (decode)"). Empty: the subject as it is.
    std::string subject_zh_CN;
    std::map<std::string, double> metrics;        // named metrics; a missing name = data not available
    std::map<std::string, std::string> sources;   // metric -> where it came from ("trace:kernels", "ncu:<metric>")
    ScopeLinks links;
};

enum class Severity : uint8_t { Info = 0, Low = 1, Medium = 2, High = 3 };
const char* severity_name(Severity s);
std::optional<Severity> parse_severity(std::string_view s);

// The documented verdict vocabulary (resources/schemas/findings.md): scripts and the knowledge base group by it.
const std::vector<std::string>& verdict_vocabulary();
bool is_known_verdict(std::string_view v);

struct LocalText {
    std::string en, zh_CN;
    const std::string& get(std::string_view lang) const { return (lang.rfind("zh", 0) == 0 && !zh_CN.empty()) ? zh_CN : en; }
};

// A verify command as shown in a language: the placeholder for the user's own command in that language
// ("<your inference command>", "<你的推理命令>"); the rest is a shell command and stays as it is.
std::string verify_for(const std::string& verify, std::string_view lang);

struct Evidence {
    std::string metric;
    double value = 0;
    std::string op;                      // comparison from the condition ("<", ">=", ...); empty when none
    std::optional<double> threshold;     // the number the condition compares with, when it has one
    std::string source;                  // MetricScope::sources, or "metrics" when not given
};

// Expected gain. `fraction` is the share of the scope's end-to-end time (trace wall, phase wall or TPOT) that the
// fix is expected to save; `ns` the same in nanoseconds when known. When the rule could compute it from the
// metrics, computed = true and low == high == fraction; otherwise [low, high] is the rule's range and fraction its
// midpoint.
// What the time ledger (ledger.h) granted a finding: the time it removes, how much of it was there, how much the
// rule asked for and how much it got after sharing with the findings that claim the same nanoseconds.
struct TimeClaim {
    std::string entry;                   // ledger entry: "idle:host", "kernel:<name>", "comm:exposed", "wall", ...
    double available_ns = 0;             // the entry's time in the trace (before any finding claimed it)
    double cap_ns = 0;                   // this finding's own bound (its scope's share of the entry)
    double claimed_ns = 0;               // what the rule asked for (its gain, unbounded)
    double granted_ns = 0;               // what the ledger gave it: <= cap_ns, <= what was left of the entry
    double wall_ns = 0;                  // end-to-end basis: GPU-active device time of the trace
    double unbounded_fraction = 0;       // the rule's own fraction, before the ledger
    std::optional<double> per_step_ns;   // phase findings: granted time per step ...
    std::optional<double> step_fraction; // ... and as a share of the step time (TPOT for decode)
    Severity rule_severity = Severity::Info;   // the rule's default severity (the finding's follows the bounded gain)
    // Kernel pools (ledger.h, one claim per kernel): the time of the entry's kernels that larger claims on
    // overlapping pools took before this one (available_ns is what was left), and those pools' entries.
    double overlap_ns = 0;
    std::vector<std::string> overlaps;
};

struct ExpectedGain {
    double fraction = 0;
    double low = 0, high = 0;
    std::optional<double> ns;
    bool computed = false;
    std::string basis;                   // the gain expression or "rule range"
    std::optional<TimeClaim> ledger;     // set by apply_ledger: fraction/ns/low/high are then the bounded values
};

struct Confidence {
    double value = 0;                    // prior x data quality x knowledge-base factor, clamped to [0.05, 0.99]
    std::string label;                   // "high" (>= 0.7), "medium" (>= 0.4), "low"
    double prior = 0, data_quality = 1, kb_factor = 1;
    std::vector<std::string> reasons;    // why it is not the prior: "short capture", "verified 3x on ..."
};
std::string confidence_label(double v);

struct Suggestion {
    std::string id;                      // unique within its rule; the KB key is "<rule>/<id>"
    LocalText text;
    double gain_low = 0, gain_high = 0;  // expected gain range (fraction of the target metric)
    std::string risk;                    // "low" | "medium" | "high"
    std::string verify;                  // verification command template, placeholders filled
    std::string metric;                  // the metric it promises to move (compare.h judges it): "tpot_median_ns"
    std::string direction;               // "decrease" | "increase"
};

// One Nsight Compute launch as a finding's subject says it: "NAME (ncu #ID)".
struct NcuLaunchRef {
    std::string kernel;                  // the launch's kernel name, as ncu gives it
    int64_t id = 0;                      // ncu's launch id
    int64_t launches = 1;                // launches of this kernel where the rule holds (merge_ncu_launch_findings)
};
// The subject of an ncu_launch scope: "NAME (ncu #ID)"; parse_ncu_launch_subject is its inverse (nullopt for any
// other subject, a merged one's "NAME (ncu #7 and 13 more launches)" included). The one place either is spelled.
std::string ncu_launch_subject(std::string_view kernel, int64_t id);
std::optional<NcuLaunchRef> parse_ncu_launch_subject(std::string_view subject);

// Issue 35 §4: the step time a what-if replay of the dependency graph gives for the change a finding's suggestion asks
// for (critpath/whatif.h; run_pipeline_on fills it from the critical path's graph). The finding's expected_gain stays
// the ceiling.
struct ReplayedStep {
    std::string change;                  // as `whatif --change` takes it: "cuda-graphs", "remove-sync"
    int64_t baseline_step_ns = 0;        // the measured steady step (analyze's TPOT median)
    int64_t predicted_step_ns = 0;
    int64_t predicted_lo_ns = 0, predicted_hi_ns = 0;
    std::string step_source;             // WhatIfResult::step_source
};

struct Finding {
    std::string rule;
    std::string verdict;
    Severity severity = Severity::Info;
    ScopeKind scope = ScopeKind::Trace;
    std::string subject;
    ScopeLinks links;
    LocalText title, explanation;        // placeholders already filled
    std::vector<Evidence> evidence;
    ExpectedGain expected_gain;
    Confidence confidence;
    std::vector<Suggestion> suggestions;
    std::vector<std::string> references;
    std::optional<NcuLaunchRef> ncu_launch;   // the launch, for an ncu_launch finding (its subject as data)
    std::optional<ReplayedStep> replayed_step;   // JSON `replayed_step`; none when no what-if fits or replays

    double rank_score() const { return expected_gain.fraction * confidence.value; }
};

// Sorts a theory/measurement mismatch (verdict theory-measurement-mismatch) first, then by expected gain x confidence
// (descending), then severity, then rule id and subject (stable order).
void rank_findings(std::vector<Finding>& findings);

// One finding per rule and kernel for Nsight Compute launches: a rule that holds on many launches of one kernel
// (ncu --launch-count 200 over a decode step measures each GEMM dozens of times) fired once per launch, 190 of a
// report's 219 findings, each claiming the kernel's whole time. Keeps the launch with the highest rank score in
// each (rule, kernel) group, in the place of the group's first finding; its subject becomes "NAME (ncu #7 and 13 more
// launches)" (titles and explanations follow, in both languages), its kernel links the group's, an evidence row
// ncu_launches_flagged and ncu_launch.launches count the group. Other findings are left as they are.
void merge_ncu_launch_findings(std::vector<Finding>& findings);

// Highest severity among the findings; nullopt when there are none.
std::optional<Severity> max_severity(const std::vector<Finding>& findings);

// JSON: one object per finding with rule, verdict, severity, scope, subject, title, explanation (both languages),
// confidence {level, value, prior, data_quality, kb_factor, reasons}, expected_gain {fraction, low, high, ns,
// computed, basis}, evidence [...], suggestions [...], links {...}, references.
nlohmann::json finding_to_json(const Finding& f);
nlohmann::json findings_to_json(const std::vector<Finding>& findings);

// Plain text and Markdown renderings (lang "en" or "zh_CN").
std::string findings_to_text(const std::vector<Finding>& findings, std::string_view lang = "en");
std::string findings_to_markdown(const std::vector<Finding>& findings, std::string_view lang = "en");

// Formats a metric value for humans from its name: *_ns -> "1.23 ms", *_us -> "12.3 µs", *_fraction/*_rate/
// *_ratio/e_roof -> "12.3 %", *_pct -> "12.3 %", counts -> integer. Used by the placeholders.
std::string format_metric(std::string_view name, double value);
// A bare number for people: "14.9" (not 14.9301), "436" (not 436.22), integers as integers.
std::string format_number(double value);
// A suggestion's gain range in percent: "15–35 %", "15 %" when both ends round alike, "" when it promises none
// (a profiling step).
std::string suggestion_gain_range(double low, double high);

} // namespace sl
