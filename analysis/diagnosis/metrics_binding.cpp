#include "analysis/diagnosis/metrics_binding.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <set>

#include <nlohmann/json.hpp>

#include "analysis/diagnosis/binders/binders.h"
#include "analysis/diagnosis/scope_text.h"
#include "analysis/roofline/roofline.h"
#include "analysis/timeline/analysis.h"
#include "analysis/trace/trace.h"
#include "analysis/io/input_bounds.h"
#include "analysis/trace/errors.h"
#include "analysis/diagnosis/verify_command.h"

namespace sl {

void bind::say_kernel_by_short_name(MetricScope& s, const std::string& shown)
{
    if (shown == s.subject)
        return;
    s.subject_zh_CN = shown;
    s.sources[kSubjectEnKey] = shown;
}

// One binder per kind of scope (diagnosis/binders/), in the order the rules and the texts see them: the trace, each
// device, the phases, the operator classes, the kernel names, the ncu launches, the host-side causes. Then what the
// scopes share: the whole trace's steady-state busy share and torch.compile, and the titles in words.
std::vector<MetricScope> bind_metrics(const Trace& trace, const AnalysisResult& an, const RooflineReport* roof,
                                      const NcuReport* ncu, const BindOptions& opt)
{
    // The GPU-active window of the whole trace.
    int64_t first = std::numeric_limits<int64_t>::max(), last = std::numeric_limits<int64_t>::min();
    for (const auto& d : an.idle.devices) {
        first = std::min(first, d.first_start);
        last = std::max(last, d.last_end);
    }
    const bind::Context ctx{trace, an, roof, ncu, opt, last > first ? double(last - first) : 0.0};
    std::vector<MetricScope> out;
    out.push_back(bind::trace_scope(ctx));
    bind::device_scopes(ctx, out);
    bind::phase_scopes(ctx, out);
    bind::class_scopes(ctx, out);
    bind::kernel_scopes(ctx, out);
    bind::ncu_scopes(ctx, out);
    bind::host_cause_scopes(ctx, out);

    // What a kernel's or a class's remedy rests on that only the whole trace measures: how busy the GPU is in the
    // steady state (a launch-side remedy for a GPU that is 90 % busy is contradicted by the trace), and whether the
    // run is compiled (torch.compile is no remedy for a compiled run).
    {
        const MetricScope* whole = nullptr;
        for (const auto& s : out)
            if (s.kind == ScopeKind::Trace)
                whole = &s;
        if (whole) {
            const std::map<std::string, double> shared = {
                {"steady_utilization", whole->metrics.at("steady_utilization")},
                {"torch_compiled", whole->metrics.at("torch_compiled")}};
            for (auto& s : out)
                if (s.kind == ScopeKind::Kernel || s.kind == ScopeKind::OpClass || s.kind == ScopeKind::Phase)
                    for (const auto& [k, v] : shared) {
                        s.metrics.emplace(k, v);
                        s.sources.emplace(k, k == "torch_compiled" ? "analysis:workload (torch.compile)" : "analysis:idle");
                    }
        }
    }

    // Titles name classes and phases in words (GEMM / GEMV (decode), GEMM / GEMV（解码）), as the headline and the
    // Overview do, in both languages. (Kernel and ncu-launch scopes got their short names where they were made.)
    for (auto& s : out)
        if (s.kind == ScopeKind::OpClass || s.kind == ScopeKind::Phase) {
            const LocalText w = subject_words(s.kind, s.subject, an.classes);
            if (w.zh_CN != s.subject)
                s.subject_zh_CN = w.zh_CN;
            if (!w.en.empty() && w.en != s.subject)
                s.sources[kSubjectEnKey] = w.en;
        }
    return out;
}

namespace {

// No finding above low severity rests on a default shape: a finding whose rule reads E_roof (e_roof,
// distance_to_roof) or the theory-vs-measurement gap (retest_*delta_fraction) on a scope whose theory took a default
// batch or length (shape_default) is capped at low, and its evidence says why — unless the trace's GEMM shapes
// contradict the config, which no shape explains.
void cap_default_shape_findings(std::vector<Finding>& findings, const std::vector<MetricScope>& scopes,
                                const RuleSet& rules)
{
    for (Finding& f : findings) {
        const Rule* rule = rules.find(f.rule);
        if (!rule)
            continue;
        auto reads = [&](const char* v) {
            return std::find(rule->variables.begin(), rule->variables.end(), v) != rule->variables.end() ||
                   std::find(rule->gain_variables.begin(), rule->gain_variables.end(), v) !=
                       rule->gain_variables.end();
        };
        if (!reads("e_roof") && !reads("distance_to_roof") && !reads("retest_delta_fraction") &&
            !reads("retest_abs_delta_fraction"))
            continue;
        const auto sc = std::find_if(scopes.begin(), scopes.end(), [&](const MetricScope& s) {
            return s.kind == f.scope && s.subject == f.subject;
        });
        if (sc == scopes.end())
            continue;
        const auto it = sc->metrics.find("shape_default");
        if (it == sc->metrics.end() || it->second <= 0)
            continue;
        // A config the trace's own GEMM shapes contradict does not rest on the shape.
        if (const auto cs = sc->metrics.find("retest_config_shapes"); cs != sc->metrics.end() && cs->second < 0)
            continue;
        if (f.severity > Severity::Low)
            f.severity = Severity::Low;
        Evidence e;
        e.metric = "shape_default";
        e.value = 1;
        e.source = "roofline: the theory's batch or length is the default (no --batch/--prompt/--context, step "
                   "annotation or recorded shape): at most low severity";
        f.evidence.push_back(std::move(e));
    }
}

} // namespace

const std::set<std::string>& metric_vocabulary()
{
    static const std::set<std::string> v = {
        // across ranks (cross_rank_metrics.h)
        "straggler_lateness_ns", "straggler_lead_in_excess_fraction", "straggler_kind_last_fraction",
        "alltoall_matched", "alltoall_sized", "alltoall_imbalance", "alltoall_imbalance_max", "alltoall_heaviest_rank",
        "alltoall_heaviest_share", "alltoall_latency_ns", "alltoall_excess_ns", "alltoall_excess_all_ranks_ns",
        "alltoall_excess_fraction", "rank_step_ranks", "rank_step_slowest", "rank_step_fastest",
        "rank_step_slowest_ns", "rank_step_median_ns", "rank_step_spread_fraction", "rank_step_excess_ns",
        "rank_step_excess_total_ns", "rank_step_excess_fraction",
        "achieved_occupancy", "avg_duration_us", "avg_kernel_us", "avg_launch_api_us", "avg_queue_delay_us",
        "batch_size", "before_gpu_ns", "busy_ns", "capture_ns", "collective_skew_max_ns", "collective_skew_mean_ns",
        "collectives_matched", "comm_overlap_fraction", "comm_ranks", "compute_bound", "count", "data_quality",
        "dependency_wait_fraction", "dependency_wait_ns", "distance_to_roof", "dram_throughput_fraction",
        "duration_ns", "e_roof", "edge_after_ns", "edge_before_ns", "edge_dependency_wait_ns", "edge_host_wait_ns",
        "edge_idle_fraction", "edge_idle_ns", "edge_kernel_wait_ns", "edge_other_wait_ns", "edge_sync_wait_ns",
        "elementwise_copy_fraction", "elementwise_copy_ns", "fused_chain", "gap_threshold_us", "graph_fraction",
        "h2d_bytes", "h2d_fraction", "h2d_loop_exposed_ns", "h2d_ns", "h2d_overlap_fraction", "h2d_setup_ns",
        "host_ns", "host_wait_ns", "host_wait_per_step_ns", "host_wait_share", "idle_fraction", "idle_ns",
        "intensity", "is_allocator", "is_attention", "is_autotuning", "is_compilation", "is_decode",
        "is_elementwise_chain", "is_gemm", "is_module_loading", "kernel_count", "kernel_wait_ns", "kernel_wait_share",
        "kernels_per_step", "kv_expand_bytes", "kv_expand_calls", "kv_expand_fraction", "kv_expand_ns",
        "kv_expand_repeats", "l2_miss_rate", "large_gap_count", "large_gap_ns", "launch_api_ns", "launch_count",
        "launch_delay_outlier_count", "launch_overhead_fraction", "layer_cache_hit_rate", "layer_load_count",
        "low_util_chunk_count", "low_util_chunk_fraction", "max_gap_fraction", "max_gap_ns", "memory_bound",
        "memory_throughput_pct", "min_chunk_utilization", "moe_detected", "moe_experts", "moe_fraction",
        "moe_gemm_ns", "moe_routing_ns", "moe_top_k", "nccl_exposed_fraction", "nccl_exposed_ns", "nccl_fraction",
        "nccl_ns", "other_wait_ns", "pageable_async_memcpy_count", "pageable_async_memcpy_ns",
        "prefill_compute_bound", "prefill_step_fraction", "registers_per_thread", "retest_abs_delta_fraction",
        "retest_config_shapes", "retest_delta_fraction", "retest_layers_from_shapes", "retest_measured_ns",
        "retest_theory_ns", "runtime_outlier_count", "shape_default", "shared_bank_conflict_ratio",
        "shared_bank_conflicts_per_request", "short_kernel_count", "short_kernel_fraction", "sm_throughput_pct",
        "stall_memory_dependency_fraction", "steady_idle_fraction", "steady_utilization", "steady_wall_ns",
        "step_count", "straggler_exposed_wait_fraction", "straggler_exposed_wait_ns", "straggler_last_fraction",
        "straggler_makes_others_wait", "straggler_rank", "straggler_wait_ns", "sync_api_count", "sync_api_fraction",
        "sync_api_ns", "sync_dependency_overlap_ns", "sync_memcpy_count", "sync_memcpy_ns", "sync_memset_count",
        "sync_steps_fraction", "sync_wait_ns", "sync_wait_per_step_ns", "syncs_per_step", "t_actual_ns",
        "t_theory_ns", "tensor_core_utilization", "theoretical_occupancy", "time_fraction", "torch_compiled",
        "total_ns", "tpot_median_ns", "trace_wall_ns", "utilization", "wall_fraction", "wall_ns", "waves_per_sm",
        "weights_detected",
    };
    return v;
}

std::vector<std::string> unknown_metrics(const Rule& rule)
{
    std::set<std::string> used(rule.variables.begin(), rule.variables.end());
    for (const auto& g : rule.gain_variables)
        used.insert(!g.empty() && g[0] == '@' ? g.substr(1) : g);   // "@name": an evidence-only metric
    for (const auto& s : rule.suggestions)
        used.insert(s.when_variables.begin(), s.when_variables.end());
    if (!rule.removes_cap.empty())
        used.insert(rule.removes_cap);
    std::vector<std::string> out;
    for (const auto& n : used)
        if (!metric_vocabulary().count(n))
            out.push_back(n);
    return out;
}

namespace {

// Keeps the first kMaxFindingsPerRule findings of each rule (the list is ranked, so the highest) and counts the rest
// per rule and scope kind. The ledger has already bounded every gain over all of them.
std::vector<OmittedFindings> omit_past_rule_limit(std::vector<Finding>& findings)
{
    std::unordered_map<std::string, size_t> listed;
    std::map<std::pair<std::string, int>, OmittedFindings> omitted;
    std::vector<Finding> kept;
    kept.reserve(std::min(findings.size(), size_t(4096)));
    for (Finding& f : findings) {
        if (++listed[f.rule] <= kMaxFindingsPerRule) {
            kept.push_back(std::move(f));
            continue;
        }
        OmittedFindings& o = omitted[{f.rule, static_cast<int>(f.scope)}];
        o.rule = f.rule;
        o.scope = f.scope;
        o.count += 1;
        o.highest = std::max(o.highest, f.severity);
        if (f.expected_gain.ledger)
            o.gain_ns += f.expected_gain.ledger->granted_ns;
    }
    findings = std::move(kept);
    std::vector<OmittedFindings> out;
    for (auto& [k, o] : omitted)
        out.push_back(std::move(o));
    return out;
}

}   // namespace

Diagnosis diagnose(const Trace& trace, const AnalysisResult& analysis, const RooflineReport* roofline,
                   const NcuReport* ncu, const DiagnoseOptions& options, const KnowledgeBase* kb)
{
    Diagnosis d;
    const auto scopes = bind_metrics(trace, analysis, roofline, ncu, options.bind);
    const std::vector<std::string> dirs =
        options.rule_dirs.empty() ? std::vector<std::string>{shipped_rules_dir(), default_user_rules_dir()}
                                  : options.rule_dirs;
    RuleSet rules = load_rules(dirs);
    // A rule naming a metric no scope has (a typo) would never fire, silently: it is a rule error instead.
    std::erase_if(rules.rules, [&](const Rule& r) {
        const auto unknown = unknown_metrics(r);
        if (unknown.empty())
            return false;
        std::string list;
        for (const auto& n : unknown)
            list += (list.empty() ? "'" : ", '") + n + "'";
        rules.errors.push_back({r.file, r.id, "unknown metric " + list +
                                                  " (not evaluated; the metrics are listed in "
                                                  "resources/schemas/findings.md)"});
        return true;
    });
    d.rule_errors = rules.errors;
    d.env = fingerprint_from_trace(trace);
    if (!options.env_extra.model_hash.empty())
        d.env.model_hash = options.env_extra.model_hash;
    if (options.env_extra.batch)
        d.env.batch = options.env_extra.batch;
    if (options.env_extra.seq_len)
        d.env.seq_len = options.env_extra.seq_len;
    EvalOptions eo;
    eo.lang = options.lang;
    // {trace} in texts and verification commands: a path holding a line feed is shown escaped, as every name is.
    eo.trace_path = escape_control_chars(trace.meta.source_path);
    eo.vendor = analysis.workload.vendor;   // each suggestion's form (rules.h)
    for (const auto& s : scopes)
        if (s.kind == ScopeKind::Trace)
            eo.capture_ns = static_cast<int64_t>(s.metrics.at("trace_wall_ns"));
    if (kb)
        eo.history = kb->history_lookup(d.env);
    d.eval = evaluate_rules(rules, scopes, eo);
    // Verified the way the trace was recorded: a PyTorch-profiler trace under torch.profiler, not nsys (issue 37 §8).
    const std::string command = recorded_command(trace.meta);
    for (Finding& f : d.eval.findings)
        for (auto& sg : f.suggestions)
            sg.verify = verify_command_for_trace(sg.verify, trace.meta.format, command);
    // Rule texts come from files (the user's folder is anyone's): a title holding a line feed printed a line of its
    // own in the headline, the text and the report. Escaped once here, as names are, for every output.
    for (Finding& f : d.eval.findings) {
        for (std::string* t : {&f.title.en, &f.title.zh_CN, &f.explanation.en, &f.explanation.zh_CN})
            if (has_control_chars(*t))
                *t = escape_control_chars(*t);
        for (auto& sg : f.suggestions)
            for (std::string* t : {&sg.text.en, &sg.text.zh_CN, &sg.verify})
                if (has_control_chars(*t))
                    *t = escape_control_chars(*t);
    }
    merge_ncu_launch_findings(d.eval.findings);   // before the ledger: one claim per kernel, not one per launch
    const KernelPools pools = kernel_pools(trace, analysis);
    d.ledger = apply_ledger(d.eval.findings, scopes, rules, options.ledger, &pools);
    cap_default_shape_findings(d.eval.findings, scopes, rules);
    d.omitted = omit_past_rule_limit(d.eval.findings);
    d.headline = make_headline(trace, analysis, d.eval.findings);
    return d;
}

std::vector<OperatorMeasurement> operator_measurements(const Trace& trace, const AnalysisResult& an, size_t limit)
{
    std::vector<OperatorMeasurement> out;
    for (const auto& n : an.classes.names) {
        if (out.size() >= limit)
            break;
        OperatorMeasurement o;
        o.name = std::string(trace.str(n.name));
        if (n.cls >= 0 && static_cast<size_t>(n.cls) < an.classes.classes.size())
            o.op_class = an.classes.classes[static_cast<size_t>(n.cls)].id;
        o.count = n.count;
        o.total_ns = n.time_ns;
        o.avg_ns = n.count ? double(n.time_ns) / double(n.count) : 0;
        out.push_back(std::move(o));
    }
    return out;
}

nlohmann::json diagnosis_meta_json(const Diagnosis& d)
{
    using nlohmann::json;
    json errors = json::array();
    for (const auto& e : d.rule_errors)
        errors.push_back({{"file", e.file}, {"rule", e.rule_id}, {"message", e.message}});
    for (const auto& e : d.eval.errors)
        errors.push_back({{"file", e.file}, {"rule", e.rule_id}, {"message", e.message}});
    struct Agg {
        int scopes = 0;
        std::set<std::string> metrics;
    };
    std::map<std::pair<std::string, std::string>, Agg> agg;
    for (const auto& m : d.eval.missing) {
        auto& a = agg[{m.rule, scope_kind_name(m.scope)}];
        ++a.scopes;
        a.metrics.insert(m.metrics.begin(), m.metrics.end());
    }
    json omitted = json::array();
    for (const auto& o : d.omitted)
        omitted.push_back({{"rule", o.rule},
                           {"scope", scope_kind_name(o.scope)},
                           {"count", o.count},
                           {"highest_severity", severity_name(o.highest)},
                           {"gain_ns", o.gain_ns}});
    json missing = json::array();
    for (const auto& [k, a] : agg)
        missing.push_back({{"rule", k.first}, {"scope", k.second}, {"scopes", a.scopes}, {"metrics", a.metrics}});
    return json{{"rules_evaluated", d.eval.rules_evaluated},
                {"scopes", d.eval.scopes},
                {"errors", errors},
                {"missing_data", missing},
                {"rules_not_run", d.eval.not_run},
                {"findings_limit_per_rule", kMaxFindingsPerRule},
                {"omitted", omitted},
                {"ledger", ledger_to_json(d.ledger)}};
}

} // namespace sl
