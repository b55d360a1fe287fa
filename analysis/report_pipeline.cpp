#include "analysis/report_pipeline.h"

#include "analysis/gpu_specs.h"
#include "analysis/knowledge_base.h"
#include "analysis/metrics_binding.h"
#include "analysis/model_config.h"
#include "analysis/rules.h"
#include "analysis/sha256.h"

#include <algorithm>
#include <filesystem>
#include <memory>

namespace sl::report {

// Kernels that ran inside a prefill step's GPU window.
static std::vector<bool> prefill_kernels(const Trace& t, const PhaseResult& p)
{
    std::vector<bool> out(t.kernels.size(), false);
    std::vector<std::pair<int64_t, int64_t>> win;
    for (const StepInfo& s : p.steps)
        if (s.prefill)
            win.emplace_back(s.start, s.end);
    if (win.empty())
        return out;
    std::sort(win.begin(), win.end());
    for (size_t i = 0; i < t.kernels.size(); ++i) {
        const int64_t st = t.kernels.start[i];
        auto it = std::upper_bound(win.begin(), win.end(), std::make_pair(st, INT64_MAX));
        if (it != win.begin() && st < std::prev(it)->second)
            out[i] = true;
    }
    return out;
}

PipelineResults run_pipeline(const Trace& trace, const PipelineOptions& o)
{
    PipelineResults r;
    r.summary = summarize(trace);
    r.analysis = analyze(trace, o.analysis);

    if (!o.ncu_file.empty())
        r.ncu = read_ncu(o.ncu_file);

    if (!o.model_config.empty()) {
        const ModelConfig model = load_model_config(o.model_config, o.model_index);
        GpuDatabase db = GpuDatabase::load_default();
        if (!o.gpu_file.empty())
            db.merge_file(o.gpu_file);
        const GpuSpec* spec = nullptr;
        if (!o.gpu.empty())
            spec = db.find(o.gpu);
        else if (!trace.meta.devices.empty())
            spec = db.match_device(trace.meta.devices.front().name);
        if (!spec) {
            r.notes.push_back("no GPU spec matched " + (o.gpu.empty() ? std::string("the trace's device")
                                                                       : "--gpu " + o.gpu) +
                              "; Roofline skipped");
        } else {
            const CostModelResult cost = estimate_costs(model, *spec, o.cost);
            const auto& cls = r.analysis.classes;
            std::vector<std::string> ids;
            for (const OpClassTotals& c : cls.classes)
                ids.push_back(c.id);
            const auto measured = measured_times(trace, cls.kernel_class, ids,
                                                 prefill_kernels(trace, r.analysis.phases),
                                                 std::max<int64_t>(1, r.analysis.phases.prefill_steps),
                                                 std::max<int64_t>(1, r.analysis.phases.decode_steps));
            r.roofline = join_roofline(cost, measured, o.roofline);
        }
    }

    if (o.rules) {
        DiagnoseOptions d;
        d.rule_dirs = o.rule_dirs;
        d.lang = o.lang;
        std::unique_ptr<KnowledgeBase> kb;
        if (!o.kb_path.empty())
            kb = std::make_unique<KnowledgeBase>(o.kb_path);
        const Diagnosis dg = diagnose(trace, r.analysis, r.roofline ? &*r.roofline : nullptr,
                                      r.ncu ? &*r.ncu : nullptr, d, kb.get());
        r.findings = dg.eval.findings;
        const std::vector<std::string> dirs =
            o.rule_dirs.empty() ? std::vector<std::string>{shipped_rules_dir(), default_user_rules_dir()}
                                : o.rule_dirs;
        for (const Rule& rule : load_rules(dirs).rules) {
            if (rule.file.empty() || r.rule_files.count(rule.file))
                continue;
            std::string v;
            try {
                v = "sha256:" + sha256_file(rule.file).substr(0, 12);
            } catch (const std::exception&) {
                v = "?";
            }
            r.rule_files[std::filesystem::path(rule.file).filename().string()] = v;
        }
        for (const RuleError& e : dg.rule_errors)
            r.notes.push_back("rule file " + e.file + (e.rule_id.empty() ? "" : " (" + e.rule_id + ")") + ": " +
                              e.message);
    }
    return r;
}

ReportInputs report_inputs(const Trace& trace, const PipelineResults& r, const ReportOptions& options,
                           const std::vector<std::string>& input_files)
{
    ReportInputs in;
    in.trace = &trace;
    in.summary = &r.summary;
    in.analysis = &r.analysis;
    in.roofline = r.roofline ? &*r.roofline : nullptr;
    in.ncu = r.ncu ? &*r.ncu : nullptr;
    in.findings = r.findings ? &*r.findings : nullptr;
    in.input_files = input_files;
    in.options = options;
    in.options.notes.insert(in.options.notes.end(), r.notes.begin(), r.notes.end());
    for (const auto& [k, v] : r.rule_files)
        in.options.rule_files.emplace(k, v);
    return in;
}

} // namespace sl::report
