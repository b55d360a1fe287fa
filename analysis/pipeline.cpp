#include "analysis/pipeline.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>

#include "analysis/critpath/graph_beside.h"
#include "analysis/critpath/whatif.h"
#include "analysis/report/analysis_json.h"
#include "analysis/report/analysis_text.h"
#include "analysis/diagnosis/findings.h"
#include "analysis/diagnosis/knowledge_base.h"
#include "analysis/io/input_bounds.h"
#include "analysis/io/load.h"
#include "analysis/io/model_config.h"
#include "analysis/trace/errors.h"
#include "analysis/diagnosis/rules.h"
#include "analysis/report/collectives_json.h"
#include "analysis/report/shape_roofline_json.h"
#include "analysis/report/kernel_verdicts_json.h"
#include "analysis/roofline/roofline.h"
#include "analysis/trace/cancel_point.h"

namespace sl {

namespace {

// Measured per-shape throughput when the trace recorded shapes: the roof is --gpu's row, else the row matching the
// trace's first device (by name, else by its properties); an unknown GPU still gives FLOPs, bytes and achieved rates.
ShapeRooflineResult shapes_for_trace(const Trace& t, const RooflineRequest& req)
{
    bool any = false;
    for (size_t i = 0; i < t.op_args.size() && !any; ++i)
        any = t.op_args.source[i] == OpArgsTable::kCpuOp && !t.op_args.input_dims[i].empty();
    if (!any)
        return {};
    GpuDatabase db = GpuDatabase::load_default();
    if (!req.gpu_file.empty())
        db.merge_file(req.gpu_file);
    const GpuSpec* spec = !req.gpu.empty() ? db.find(req.gpu)
                          : t.meta.devices.empty() ? nullptr : db.identify(t.meta.devices.front()).spec;
    return shape_roofline(t, spec);
}

} // namespace

KernelVerdictInputs kernel_verdict_inputs(const PipelineResult& r, std::vector<int64_t>& ncu_join)
{
    KernelVerdictInputs in;
    in.trace = r.trace.get();
    in.analysis = &r.analysis;
    in.roofline = r.roofline.report ? &*r.roofline.report : nullptr;
    if (r.roofline.ncu && r.trace) {
        ncu_join = join_ncu_to_trace(*r.roofline.ncu, *r.trace);
        in.ncu = &*r.roofline.ncu;
        in.ncu_join = &ncu_join;
    }
    in.shapes = r.shapes.points.empty() ? nullptr : &r.shapes;
    return in;
}

// Issue 35 §4: a finding whose suggestion is a what-if the dependency graph can replay (CUDA graphs for launch
// overhead, removing the per-step sync) gets the replayed step time beside its bound (Finding::replayed_step): one
// replay per change, all on one replayer over the critical path's graph (built here only when there was none).
static void replay_findings(PipelineResult& r, std::optional<critpath::DependencyGraph>& graph)
{
    auto& findings = r.diagnosis.eval.findings;
    std::vector<std::string> change_of(findings.size());
    std::vector<std::string> changes;   // distinct, sorted
    for (size_t i = 0; i < findings.size(); ++i) {
        for (const Suggestion& s : findings[i].suggestions)
            if (change_of[i] = critpath::change_for_suggestion(s.id); !change_of[i].empty())
                break;
        if (!change_of[i].empty())
            changes.push_back(change_of[i]);
    }
    std::sort(changes.begin(), changes.end());
    changes.erase(std::unique(changes.begin(), changes.end()), changes.end());
    if (changes.empty() || !r.trace)
        return;
    if (!graph)
        graph.emplace(critpath::build_dependency_graph(*r.trace));
    critpath::WhatIfInputs in;
    in.classes = &r.analysis.classes;
    in.phases = &r.analysis.phases;
    std::vector<critpath::Change> parsed;
    std::vector<std::string> texts;
    for (const std::string& change : changes) {
        critpath::Change c;
        std::string error;
        if (critpath::parse_change(change, c, error)) {
            parsed.push_back(std::move(c));
            texts.push_back(change);
        }
    }
    // One replayer for all of them (its edges, order and baseline replay built once).
    const std::vector<critpath::EachReplay> replays = critpath::replay_each(*r.trace, *graph, parsed, in);
    for (size_t k = 0; k < replays.size(); ++k) {
        if (!replays[k].result)   // nothing to replay (no host sync): the finding keeps its bound
            continue;
        const critpath::WhatIfResult& w = *replays[k].result;
        const ReplayedStep step{texts[k], w.baseline_step_ns, w.predicted_step_ns, w.predicted_lo_ns,
                                w.predicted_hi_ns, w.step_source};
        for (size_t i = 0; i < findings.size(); ++i)
            if (change_of[i] == texts[k])
                findings[i].replayed_step = step;
    }
}

PipelineResult run_pipeline_on(std::shared_ptr<const Trace> trace, const PipelineOptions& options,
                               const LoadControl& control,
                               const std::function<void(PipelineStage, const PipelineResult&)>& on_stage)
{
    auto notify = [&](PipelineStage s, const PipelineResult& r) {
        if (on_stage)
            on_stage(s, r);
    };
    const CancelScope scope(control.cancel);
    PipelineResult r;
    r.trace = std::move(trace);
    const Trace& t = *r.trace;
    control.check();
    r.summary = summarize(t, options.summary);
    notify(PipelineStage::Summarised, r);
    control.check();
    // The critical path and the replays are optional: when their graph would take the process past its memory budget
    // (--max-memory; by default 90 % of what it may use), they are left out with a warning instead of ending the run
    // out of memory. analyze()'s own arrays come on top of what is resident now: about the trace's size again.
    // (Only when one is asked for: the critical path, or the rules whose findings may be replayed.)
    const uint64_t budget = memory_budget(), resident = resident_memory_bytes();
    const uint64_t graph_bytes = critpath::critical_path_bytes(t);
    const bool graph_fits = !(options.critical_path || options.run_rules) || budget == 0 || budget == UINT64_MAX ||
                            resident + t.memory_bytes() + graph_bytes <= budget;
    // The critical path's dependency graph needs the trace alone: built on a second core while the analyses run
    // (critpath/graph_beside.h), and kept for the findings' what-if replays.
    critpath::GraphBeside beside = critpath::build_graph_beside(
        t, options.critical_path && graph_fits, [&] { r.analysis = analyze(t, options.analysis, control); });
    std::optional<critpath::DependencyGraph> graph = std::move(beside.graph);
    if (!graph_fits) {
        char text[320];
        std::snprintf(text, sizeof text,
                      "the critical path and the what-if replays were not computed: their dependency graph would need "
                      "about %.2f GB on top of the %.2f GB in use, over the memory budget of %.2f GB (--max-memory)",
                      double(graph_bytes) / 1e9, double(resident) / 1e9, double(budget) / 1e9);
        r.analysis.workload.warnings.push_back({"critical_path_skipped", text,
                                                {{"needed_bytes", std::to_string(graph_bytes)},
                                                 {"resident_bytes", std::to_string(resident)},
                                                 {"budget_bytes", std::to_string(budget)}}});
    }
    if (!options.roofline.model.empty()) {
        // The model config names an MoE's experts and top-k (it wins over the trace's shapes); a config that
        // cannot be read is reported by the Roofline below.
        try {
            const ModelConfig cfg = load_model_config(options.roofline.model, options.roofline.index);
            set_moe_from_config(r.analysis.workload, cfg);
            // Expert GEMMs the names cannot tell (the Hugging Face eager path: an aten::mm per expert), by their
            // recorded shapes: counted in the MoE share, as the Roofline counts them as moe_gemm time.
            const int64_t tp = std::max<int64_t>(1, options.roofline.cost.tp);
            const std::vector<bool> experts = expert_gemm_kernels(t, cfg, tp);
            MoeWorkload& m = r.analysis.workload.moe;
            const int moe_gemm = [&] {
                for (size_t c = 0; c < r.analysis.classes.classes.size(); ++c)
                    if (r.analysis.classes.classes[c].id == "moe_gemm")
                        return int(c);
                return -1;
            }();
            int64_t added = 0;
            for (size_t k = 0; k < experts.size() && k < t.kernels.size(); ++k) {
                if (!experts[k] || (k < r.analysis.classes.kernel_class.size() &&
                                    r.analysis.classes.kernel_class[k] == moe_gemm))
                    continue;
                m.expert_gemm_kernels += 1;
                m.expert_gemm_ns += t.kernels.end[k] - t.kernels.start[k];
                ++added;
            }
            if (added > 0) {
                const int64_t all = r.analysis.classes.kernel_time_ns;
                m.gpu_share = all > 0 ? double(m.expert_gemm_ns + m.routing_ns) / double(all) : 0;
                m.implementations.push_back("PyTorch eager experts (by shape)");
                r.analysis.workload.evidence.push_back(
                    "MoE: " + std::to_string(added) +
                    " GEMM kernels multiply by the config's expert matrices (their recorded shapes): expert GEMMs");
            }
        } catch (const TraceError&) {
        }
    }
    notify(PipelineStage::Analysed, r);
    control.check();
    if (!options.roofline.model.empty() || !options.roofline.ncu.empty()) {
        RooflineRequest req = options.roofline;
        req.roofline.top_k = static_cast<int>(options.analysis.focus.top_k);
        r.roofline = roofline_for_analysis(t, r.analysis.classes, r.analysis.phases, req, &r.analysis.workload);
        notify(PipelineStage::Roofline, r);
    }
    r.shapes = shapes_for_trace(t, options.roofline);
    r.collectives = r.analysis.collectives;   // analyze() matched them (timeline/collectives.h)
    control.check();
    // One dependency graph for the critical path and the findings' what-if replays (built beside analyze() above, or
    // in replay_findings for the replays alone when the critical path is not asked for and a finding needs one).
    if (graph) {
        r.critical_path = critpath::summarise_critical_path(t, *graph, beside.prep.get(), &r.analysis.classes, {}, 10,
                                                            &r.analysis.phases.steps);
        beside.prep.reset();
    }
    control.check();
    {
        std::vector<int64_t> ncu_join;
        r.kernels = kernel_verdict_summaries(kernel_verdict_inputs(r, ncu_join));
    }
    control.check();
    if (options.run_rules) {
        DiagnoseOptions dopt;
        dopt.lang = options.lang;
        if (!options.rule_dirs.empty())
            dopt.rule_dirs = options.rule_dirs;
        else if (!options.rules_dir.empty())
            dopt.rule_dirs = {shipped_rules_dir(), options.rules_dir};
        std::unique_ptr<KnowledgeBase> kb;
        if (!options.kb_path.empty())
            kb = std::make_unique<KnowledgeBase>(options.kb_path, KnowledgeBase::Access::ReadOnly);   // only read
        r.diagnosis = diagnose(t, r.analysis, r.roofline.report ? &*r.roofline.report : nullptr,
                               r.roofline.ncu ? &*r.roofline.ncu : nullptr, dopt, kb.get());
        control.check();
        if (graph_fits)
            replay_findings(r, graph);
        notify(PipelineStage::Diagnosed, r);
    }
    return r;
}

PipelineResult run_pipeline(const std::vector<std::string>& paths, const PipelineOptions& options,
                            const LoadControl& control,
                            const std::function<void(PipelineStage, const PipelineResult&)>& on_stage)
{
    // Loading is the long part; give it most of the progress bar.
    LoadControl load = control;
    if (control.progress)
        load.progress = [&](double f, std::string_view stage) { control.progress(0.85 * f, stage); };
    auto trace = std::make_shared<const Trace>(load_workspace(paths, options.load, load));
    if (on_stage) {
        PipelineResult partial;
        partial.inputs = paths;
        partial.trace = trace;
        on_stage(PipelineStage::Loaded, partial);
    }
    PipelineResult r = run_pipeline_on(std::move(trace), options, control, on_stage);
    r.inputs = paths;
    control.report(1.0, "done");
    return r;
}

// The rules ran when the diagnosis saw the analysis (a headline always has a wall or a verdict then).
static bool options_ran_rules(const PipelineResult& r)
{
    return r.diagnosis.eval.rules_evaluated > 0 || r.diagnosis.headline.wall_ns > 0;
}

static nlohmann::json replayed_step_json(const ReplayedStep& w)
{
    return {{"change", w.change},
            {"baseline_step_ns", w.baseline_step_ns},
            {"predicted_step_ns", w.predicted_step_ns},
            {"predicted_range_ns", nlohmann::json::array({w.predicted_lo_ns, w.predicted_hi_ns})},
            {"change_fraction", w.baseline_step_ns > 0 ? static_cast<double>(w.predicted_step_ns - w.baseline_step_ns) /
                                                             static_cast<double>(w.baseline_step_ns)
                                                       : 0.0},
            {"step_source", w.step_source}};
}

nlohmann::json pipeline_to_json(const PipelineResult& r)
{
    nlohmann::json j = analysis_to_json(*r.trace, r.analysis);
    for (auto it = r.roofline.json.begin(); it != r.roofline.json.end(); ++it)
        j[it.key()] = it.value();
    if (r.shapes.ops_with_shapes > 0)
        j["shape_roofline"] = shape_roofline_to_json(r.shapes);
    if (r.collectives.kernels > 0)
        j["collectives"] = collectives_to_json(r.collectives);
    if (r.critical_path.computed)
        j["critical_path"] = critpath::to_json(r.critical_path);
    if (r.trace && !r.kernels.empty()) {
        j["kernels"] = kernel_summaries_to_json(*r.trace, r.kernels);
        j["kernels_total"] = r.kernels.size();
    }
    j["findings"] = findings_to_json(r.diagnosis.eval.findings);
    const auto& findings = r.diagnosis.eval.findings;
    for (size_t i = 0; i < findings.size() && i < j["findings"].size(); ++i)
        if (findings[i].replayed_step)
            j["findings"][i]["replayed_step"] = replayed_step_json(*findings[i].replayed_step);
    j["rules"] = diagnosis_meta_json(r.diagnosis);
    if (r.trace && options_ran_rules(r))
        j["headline"] = headline_to_json(r.diagnosis.headline);
    return j;
}

// "What sets the step" (issue 35): the critical path's length (per steady step when the trace has steps) and its
// shares, the largest first, then the event holding most of it.
static std::string critical_path_text(const critpath::CriticalPathSummary& c)
{
    if (!c.computed || c.length_ns <= 0)
        return "";
    const double len = static_cast<double>(c.length_ns);
    auto pct = [&](int64_t ns) {
        char b[32];
        std::snprintf(b, sizeof b, "%.1f %%", 100.0 * static_cast<double>(ns) / len);
        return std::string(b);
    };
    std::vector<std::pair<int64_t, std::string>> parts = {
        {c.shares.host_ns, "host work"},
        {c.shares.launch_ns, "launch delay"},
        {c.shares.gpu_kernel_ns - c.shares.communication_ns, "kernels"},
        {c.shares.communication_ns, "communication"},
        {c.shares.memcpy_memset_ns, "copies"},
        {c.shares.gpu_gap_ns, "GPU gaps"}};
    std::stable_sort(parts.begin(), parts.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    std::string s = "\nWhat sets the step (critical path)\n  ";
    double steady = 0;
    int n = 0;
    for (const auto& st : c.steps)
        if (st.steady) {
            steady += static_cast<double>(st.length_ns);
            ++n;
        }
    s += n > 0 ? format_ns(steady / n) + " per steady step (" + std::to_string(n) + " steps); " : std::string();
    s += format_ns(len) + " over the trace: ";
    bool first = true;
    for (const auto& [ns, what] : parts)
        if (ns > 0) {
            s += (first ? "" : ", ") + what + " " + pct(ns);
            first = false;
        }
    if (c.shares.sync_edges > 0)
        s += "; through " + std::to_string(c.shares.sync_edges) + " synchronisation(s)";
    s += "\n";
    if (!c.top.empty())
        s += "  most of it in: " + terminal_safe(c.top.front().name) + " (" + c.top.front().kind + ", " +
             pct(c.top.front().ns) + ")\n";
    return s;
}

// One line per rule that found more than it may list (kMaxFindingsPerRule): how many more, where, how severe.
static std::string omitted_findings_text(const Diagnosis& d)
{
    std::string s;
    for (const auto& o : d.omitted)
        s += "  ... and " + std::to_string(o.count) + " more " + o.rule + " finding(s) on other " +
             scope_kind_name(o.scope) + " scopes (up to " + severity_name(o.highest) + "), not listed: at most " +
             std::to_string(kMaxFindingsPerRule) + " per rule\n";
    return s;
}

// The rule files and rules that did not load or evaluate, for the text output: a warning people cannot miss.
static std::string rule_problems_text(const Diagnosis& d)
{
    const size_t n = d.rule_errors.size() + d.eval.errors.size();
    if (n == 0)
        return {};
    std::string s = "\nWarning: " + std::to_string(n) + " problem(s) with the rules; the rules named were not " +
                    "evaluated (a --fail-on gate exits 2)\n";
    for (const auto* errors : {&d.rule_errors, &d.eval.errors})
        for (const auto& e : *errors)
            s += "  " + terminal_safe("rule file " + e.file + (e.rule_id.empty() ? "" : ", rule " + e.rule_id) + ": " +
                                      e.message) + "\n";
    return s;
}

// The replayed step time of each what-if the findings suggest (one line per change, with the rules suggesting it).
static std::string replayed_findings_text(const PipelineResult& r)
{
    // One line per change (sorted), with the rules whose findings it was replayed for.
    std::map<std::string, std::pair<const ReplayedStep*, std::map<std::string, int>>> by_change;
    for (const Finding& f : r.diagnosis.eval.findings)
        if (f.replayed_step) {
            auto& [w, rules] = by_change[f.replayed_step->change];
            w = &*f.replayed_step;
            ++rules[f.rule];
        }
    if (by_change.empty())
        return {};
    std::string s =
        "\nWhat the suggested changes would give (replay of the dependency graph; `sightline-cli whatif`)\n";
    for (const auto& [change, entry] : by_change) {
        const ReplayedStep& w = *entry.first;
        const auto& rules = entry.second;
        std::string by;
        for (const auto& [rule, n] : rules)
            by += (by.empty() ? "" : ", ") + rule + (n > 1 ? " x" + std::to_string(n) : std::string());
        char pct[32];
        std::snprintf(pct, sizeof pct, "%+.1f %%",
                      w.baseline_step_ns > 0 ? 100.0 * static_cast<double>(w.predicted_step_ns - w.baseline_step_ns) /
                                                   static_cast<double>(w.baseline_step_ns)
                                             : 0.0);
        s += "  " + change + ": step " + format_ns(static_cast<double>(w.baseline_step_ns)) + " -> " +
             format_ns(static_cast<double>(w.predicted_step_ns)) + " [" +
             format_ns(static_cast<double>(w.predicted_lo_ns)) + " .. " +
             format_ns(static_cast<double>(w.predicted_hi_ns)) + "] (" + pct + "); suggested by " + by +
             " (their gains above stay the ceiling)\n";
    }
    return s;
}

std::string pipeline_to_text(const PipelineResult& r)
{
    return (options_ran_rules(r) ? headline_to_text(r.diagnosis.headline) + "\n" : std::string()) +
           analysis_to_text(*r.trace, r.analysis) + (r.roofline.text.empty() ? "" : "\n" + r.roofline.text) +
           (r.shapes.ops_with_shapes > 0 ? "\n" + shape_roofline_to_text(r.shapes) : std::string()) +
           (r.collectives.kernels > 0 ? "\n" + collectives_to_text(r.collectives) : std::string()) +
           (r.trace && !r.kernels.empty() ? "\n" + kernel_summaries_to_text(*r.trace, r.kernels) : std::string()) +
           critical_path_text(r.critical_path) +
           rule_problems_text(r.diagnosis) + "\nFindings\n" + findings_to_text(r.diagnosis.eval.findings) +
           omitted_findings_text(r.diagnosis) + replayed_findings_text(r);
}

} // namespace sl
