#pragma once
// Turns analysis results into the named metrics the rules use, one MetricScope per subject: the trace, each device,
// the prefill and decode phases, each operator class (per phase when a Roofline report is given), the kernel
// names with the most time, and each ncu launch. The metric vocabulary is documented in
// resources/schemas/findings.md; tst_rule_catalog checks that every shipped rule only uses names listed there.
//
// Every scope also carries trace_wall_ns (the GPU-active window of the whole trace) so a rule on a small subject can
// express its gain as a share of the end-to-end time.

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "analysis/diagnosis/findings.h"
#include "analysis/diagnosis/knowledge_base.h"
#include "analysis/diagnosis/headline.h"
#include "analysis/diagnosis/ledger.h"
#include "analysis/diagnosis/rules.h"

namespace sl {

struct Trace;
struct AnalysisResult;
struct RooflineReport;
struct NcuReport;

struct BindOptions {
    int64_t gap_threshold_ns = 50'000;   // nsys gpu_gaps threshold; 500 ms there, 50 µs suits LLM decode
    int util_chunks = 30;                // nsys gpu_time_util: chunks of the active window...
    double util_threshold = 0.5;         // ... reported when busy below this
    size_t max_kernel_scopes = 200;      // kernel names with the most time
    size_t max_links = 20;               // kernel ids / time ranges linked per scope
};

// roofline and ncu may be null.
std::vector<MetricScope> bind_metrics(const Trace& trace, const AnalysisResult& analysis,
                                      const RooflineReport* roofline, const NcuReport* ncu,
                                      const BindOptions& options = {});

// The whole diagnosis in one call: binds the metrics, loads the rules (rule_dirs, or the shipped directory then
// the user's), evaluates them with the trace's capture length as data quality and, when kb is given, the verified
// history of similar environments (fingerprint_from_trace + env_extra) as the confidence's KB factor.
struct DiagnoseOptions {
    std::vector<std::string> rule_dirs;   // empty: {shipped_rules_dir(), default_user_rules_dir()}
    BindOptions bind;
    std::string lang = "en";
    EnvFingerprint env_extra;             // model_hash / batch / seq_len to merge into the trace's fingerprint
    LedgerOptions ledger;                 // bounds, gating and severity of the gains (ledger.h)
};
// Findings one rule may list (the highest ranked); past it the rest are counted, not listed. A rule over one scope
// per device, stream or kernel gave one finding each: 120,000 findings (600 MB of JSON) for 60,000 devices
// (issue 36 §8). Far above real traces: on ../shared/data one rule gave at most 14 (HTA df_index_resolver).
inline constexpr size_t kMaxFindingsPerRule = 64;

// What one rule found past kMaxFindingsPerRule: how many, on which kind of scope, the highest severity among them,
// and the time their bounded gains add up to (ns).
struct OmittedFindings {
    std::string rule;
    ScopeKind scope = ScopeKind::Trace;
    int64_t count = 0;
    Severity highest = Severity::Info;
    double gain_ns = 0;
};

struct Diagnosis {
    std::vector<RuleError> rule_errors;   // malformed rule files/rules (the rest still ran)
    EvalResult eval;                      // findings (ranked; at most kMaxFindingsPerRule per rule), missing data, errors
    std::vector<OmittedFindings> omitted; // per rule and scope kind, the findings past kMaxFindingsPerRule (by rule id)
    EnvFingerprint env;
    Ledger ledger;                        // the time each finding removes, bounded and shared (ledger.h)
    Headline headline;                    // the trace-level verdict (headline.h)
};
Diagnosis diagnose(const Trace& trace, const AnalysisResult& analysis, const RooflineReport* roofline,
                   const NcuReport* ncu, const DiagnoseOptions& options = {}, const KnowledgeBase* kb = nullptr);

// {"rules_evaluated", "scopes", "errors": [{file, rule, message}], "missing_data": [{rule, scope, scopes, metrics}],
//  "ledger": ledger_to_json}:
// what did not load and which rules could not apply for lack of a metric (aggregated per rule and scope kind).
nlohmann::json diagnosis_meta_json(const Diagnosis& d);

// Every metric name bind_metrics() can give a scope, of any kind: a rule naming another one (a typo) is never
// evaluated, and diagnose() says so as a rule error, which fails a --fail-on gate. tst_rules checks this list against
// the names this file's source assigns, so a new metric cannot be left out.
const std::set<std::string>& metric_vocabulary();
// The names a rule uses (condition, gain expressions, the suggestions' "when", evidence) that are not in
// metric_vocabulary(), sorted.
std::vector<std::string> unknown_metrics(const Rule& rule);

// Per kernel name (largest time first, at most `limit`) for KnowledgeBase::record_run.
std::vector<OperatorMeasurement> operator_measurements(const Trace& trace, const AnalysisResult& analysis,
                                                       size_t limit = 200);

} // namespace sl
