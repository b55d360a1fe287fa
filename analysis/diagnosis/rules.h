#pragma once
// The rule engine. Rules are JSON data (resources/rules/*.json, then the user's rules directory, which adds rules or
// overrides shipped ones by id); conditions and gain formulas are muparser expressions over metric names. The
// engine evaluates every rule on every MetricScope of the rule's scope kind and emits Findings.
//
// Rule file format (documented with the verdict vocabulary in resources/schemas/findings.md):
//   { "schema": "sightline.rules/1", "rules": [ {
//       "id": "launch-bound-short-kernels", "scope": "kernel",
//       "condition": "avg_duration_us < 50 && count > 500",
//       "severity": "medium", "kind": "remedy", "verdict": "launch-bound", "prior": 0.7,
//       "title": {"en": "...{subject}...", "zh_CN": "..."}, "explanation": {"en": "... {avg_duration_us} ...", ...},
//       "gain": {"expr": "total_ns * 0.5 / trace_wall_ns", "ns": "total_ns * 0.5", "range": [0.05, 0.3]},
//       "suggestions": [ {"id": "cuda-graphs", "text": {"en": ..., "zh_CN": ...}, "gain": [0.1, 0.4],
//                         "risk": "low", "verify": "nsys profile -o after ...", "metric": "tpot_median_ns",
//                         "direction": "decrease",
//                         "forms": {"NVIDIA": {"text": {...}, "verify": "nsys ..."},
//                                   "AMD": {"text": {...}, "verify": "rocprofv3 ..."}}} ],
//       "references": ["..."], "enabled": true } ] }

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/diagnosis/findings.h"

namespace sl {

// One vendor's form of a suggestion: its words and its verify command (empty: the suggestion's own).
struct SuggestionForm {
    LocalText text;
    std::string verify;
};

struct RuleSuggestion {
    std::string id;
    LocalText text;                   // the vendor-neutral form (may be empty when every form has its own text)
    double gain_low = 0, gain_high = 0;
    std::string risk = "medium";
    std::string verify;               // template: {subject}, {trace}, {metric} placeholders
    std::string metric, direction;
    // "forms": {"NVIDIA": {...}, "AMD": {...}}, by vendor (workload.vendor). A vendor named with null has no form
    // (listed in no_form_for): the suggestion is not shown on its traces. Without "forms" the suggestion is
    // vendor-neutral and shown everywhere. See resolve_suggestion_form().
    std::map<std::string, SuggestionForm> forms;
    std::vector<std::string> no_form_for;
    // "when": a condition on the finding's scope metrics (the condition's syntax); the suggestion is shown only where
    // it holds (an operator class's fix depends on the class: a tuned library for a GEMM, fusion for an elementwise
    // chain). A metric the scope lacks does not hide it. Empty: always shown.
    std::string when;
    std::vector<std::string> when_variables;
};

// The form of a suggestion for a trace's vendor ("NVIDIA", "AMD", or "" when unknown): that vendor's form, its
// missing fields from the neutral form; nullopt when the suggestion has forms but none for that vendor (it is not
// shown). An unknown vendor takes the neutral form when there is one, else the NVIDIA form, else the first.
std::optional<SuggestionForm> resolve_suggestion_form(const RuleSuggestion& s, const std::string& vendor);

struct Rule {
    std::string id;
    ScopeKind scope = ScopeKind::Trace;
    std::string condition;            // muparser expression; non-zero = the rule fires
    Severity severity = Severity::Medium;
    std::string verdict;
    double prior = 0.6;
    LocalText title, explanation;
    std::string gain_expr;            // fraction of the end-to-end time; empty = use the range
    std::string gain_ns_expr;         // the same in ns; optional
    double gain_low = 0, gain_high = 0;
    std::vector<RuleSuggestion> suggestions;
    std::vector<std::string> references;
    std::vector<std::string> variables;   // metric names the condition uses (filled by the loader)
    std::vector<std::string> gain_variables;
    // The time the fix would remove (diagnosis/ledger.h): a ledger entry ("idle:host", "kernel:{subject}", ...)
    // and optionally a metric of the scope that bounds this finding's share of it ("total_ns"). Empty = "wall".
    std::string removes, removes_cap;
    // What the rule is (ledger.h): "remedy" — a change that removes time, whose severity follows its bounded
    // end-to-end gain and confidence (severity above is then the default, kept when the gain is only the rule's
    // range); "check" — a consistency check that removes no time and keeps its severity. Default: "check" when
    // removes is "none", else "remedy".
    std::string kind = "remedy";
    std::string file;                 // where it was loaded from
};

struct RuleError {
    std::string file;
    std::string rule_id;              // empty when the whole file failed
    std::string message;
};

struct RuleSet {
    std::vector<Rule> rules;          // sorted by id
    std::vector<RuleError> errors;
    const Rule* find(std::string_view id) const;
};

// Parses one rule object; throws std::runtime_error with a clear message when it is malformed (unknown scope,
// severity or verdict, a condition muparser rejects, missing English title, ...).
Rule parse_rule(const nlohmann::json& j, const std::string& file);

// Loads every *.json in each directory, in order; a later directory overrides rules with the same id (a rule with
// "enabled": false removes it). A missing default_user_rules_dir() is skipped silently; any other missing folder,
// a path that is a file and not a folder, a folder or file that cannot be read (no permission, a symbolic-link
// loop), a malformed file or rule is recorded in errors (never thrown) and the rest still load.
RuleSet load_rules(const std::vector<std::string>& dirs);
// Appends the rules of one file to `set` (override by id). Returns false when the file failed as a whole.
bool load_rule_file(const std::string& path, RuleSet& set);

// The shipped rules directory (resource_path("rules")).
std::string shipped_rules_dir();
// $XDG_CONFIG_HOME/sightline/rules or ~/.config/sightline/rules.
std::string default_user_rules_dir();

// What the knowledge base says about one suggestion on similar environments (knowledge_base.h fills it).
struct SuggestionHistory {
    int verified = 0, failed = 0;
    double similarity = 0;            // 0..1, best environment similarity among the runs behind the counts
    double mean_delta = 0;            // mean relative change of the promised metric (-0.23 = -23 %)
    std::string reason;               // "verified 3x on NVIDIA H100 / same model: -23 % tpot_median_ns"
    // What the what-if replays predicted for this change kind on similar environments, against what verify measured
    // (knowledge_base.h verifications.prediction_error): how many, and their mean |(measured - predicted)/measured|.
    int predictions = 0;
    double mean_abs_prediction_error = 0;
};
// Looked up by "<rule>/<suggestion id>".
using HistoryLookup = std::function<std::optional<SuggestionHistory>(const std::string& suggestion_key)>;

struct EvalOptions {
    std::string lang = "en";
    std::string trace_path;                 // fills {trace} in verification commands
    std::string vendor;                     // picks each suggestion's form (workload.vendor; "" = unknown)
    // Data quality: a capture shorter than this lowers confidence (x0.8); scopes with fewer than
    // min_samples events (metric "count") lower it (x0.85).
    int64_t short_capture_ns = 200'000'000;
    int64_t capture_ns = 0;                 // 0 = unknown (no penalty)
    double min_samples = 5;
    HistoryLookup history;                  // optional
};

// A rule that could not be evaluated on a scope because a metric was missing.
struct MissingData {
    std::string rule;
    ScopeKind scope = ScopeKind::Trace;
    std::string subject;
    std::vector<std::string> metrics;
};

struct EvalResult {
    std::vector<Finding> findings;          // ranked (rank_findings)
    std::vector<MissingData> missing;       // rules skipped for missing data, per scope
    // Rules that ran on none of their scopes because every one lacked a metric (a rule missing data on some
    // scopes but evaluated on others did run). Sorted by id.
    std::vector<std::string> not_run;
    std::vector<RuleError> errors;          // evaluation errors (muparser), per rule and subject
    int rules_evaluated = 0, scopes = 0;
};

EvalResult evaluate_rules(const RuleSet& rules, const std::vector<MetricScope>& scopes, const EvalOptions& opt = {});

// Fills {name} / {name:raw} placeholders from metrics (formatted by format_metric; :raw prints the number);
// {subject} and {trace} from the arguments. Unknown placeholders are kept verbatim.
// {subject} is the scope's words for people when it has them (subject_zh_CN in zh_CN; the English words under
// kSubjectEnKey, scope_text.h, otherwise); else the subject key.
std::string fill_placeholders(const std::string& text, const MetricScope& scope, const std::string& trace_path = {},
                              std::string_view lang = {});

// Comparisons "name OP number" (or "number OP name") found in a condition, for the evidence's thresholds.
struct ConditionTerm {
    std::string metric, op;
    double threshold = 0;
};
std::vector<ConditionTerm> condition_terms(const std::string& condition);

} // namespace sl
