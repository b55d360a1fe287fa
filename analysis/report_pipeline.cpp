#include "analysis/report_pipeline.h"

#include "analysis/pipeline.h"

#include "analysis/roofline/gpu_specs.h"
#include "analysis/diagnosis/knowledge_base.h"
#include "analysis/diagnosis/metrics_binding.h"
#include "analysis/io/model_config.h"
#include "analysis/diagnosis/rules.h"
#include "analysis/io/fingerprint.h"
#include "analysis/io/sha256.h"

#include <algorithm>
#include <filesystem>
#include <memory>

namespace sl::report {

PipelineResults run_pipeline(const Trace& trace, const PipelineOptions& o)
{
    // The report runs the same pipeline as `analyze` and the GUI, so its numbers are theirs.
    sl::PipelineOptions po;
    po.analysis = o.analysis;
    po.roofline.model = o.model_config;
    po.roofline.index = o.model_index;
    po.roofline.gpu = o.gpu;
    po.roofline.gpu_file = o.gpu_file;
    po.roofline.ncu = o.ncu_file;
    po.roofline.cost = o.cost;
    po.roofline.roofline = o.roofline;
    po.run_rules = o.rules;
    po.rule_dirs = o.rule_dirs;
    po.lang = o.lang;
    po.kb_path = o.kb_path;
    // Non-owning: the caller keeps the trace alive for the duration of the call.
    const std::shared_ptr<const Trace> view(std::shared_ptr<const Trace>{}, &trace);
    sl::PipelineResult p = sl::run_pipeline_on(view, po);

    PipelineResults r;
    r.summary = std::move(p.summary);
    r.analysis = std::move(p.analysis);
    r.roofline = std::move(p.roofline.report);
    r.ncu = std::move(p.roofline.ncu);
    r.ncu_match = std::move(p.roofline.ncu_match);
    if (p.critical_path.computed)
        r.critical_path = std::move(p.critical_path);
    if (o.rules) {
        r.findings = p.diagnosis.eval.findings;
        r.headline = p.diagnosis.headline;
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
        for (const auto* errors : {&p.diagnosis.rule_errors, &p.diagnosis.eval.errors})
            for (const RuleError& e : *errors) {
                r.rule_problems.push_back("rule file " + e.file + (e.rule_id.empty() ? "" : " (" + e.rule_id + ")") +
                                          ": " + e.message);
                r.notes.push_back(r.rule_problems.back());
            }
    }
    // Step 1 of the loop: what the knowledge base knows about this environment (the trace's own runs left out).
    if (!o.kb_path.empty() && std::filesystem::exists(o.kb_path)) {
        EnvFingerprint env = p.diagnosis.env;
        if (!o.model_config.empty())
            env.model_hash = file_hash(o.model_config);   // as `profile` and `kb record --model` record it
        std::vector<std::string> own;
        for (const auto& f : o.trace_files)
            own.push_back(file_hash(f));
        try {
            const KnowledgeBase kb(o.kb_path, KnowledgeBase::Access::ReadOnly);
            r.environment_history = lookup_environment(kb, env, 0.5, own);
            r.kb_path = kb.path();
            if (own.size() == 1 && !own.front().empty())
                if (const auto run = kb.find_run_by_hash(own.front()))
                    for (const SuggestionRecord& s : kb.suggestions(run->id)) {
                        const std::string key = s.key + "|" + s.subject;
                        r.suggestion_state[key] = suggestion_state_name(s.state);
                        if (!s.annotation.empty())
                            r.suggestion_note[key] = s.annotation;
                    }
        } catch (const KbError& e) {
            r.notes.push_back("knowledge base " + o.kb_path + ": " + e.what());
        }
    }
    return r;
}

void describe_workload(ReportOptions& report, const PipelineOptions& pipeline)
{
    if (pipeline.model_config.empty())
        return;
    if (report.model.empty())
        report.model = std::filesystem::path(pipeline.model_config).filename().string();
    if (report.shape.empty())
        report.shape = "batch " + std::to_string(pipeline.cost.batch) + ", prompt " + std::to_string(pipeline.cost.prompt) +
                       ", context " + std::to_string(pipeline.cost.context);
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
    in.ncu_match = r.ncu_match ? &*r.ncu_match : nullptr;
    in.findings = r.findings ? &*r.findings : nullptr;
    in.headline = r.headline ? &*r.headline : nullptr;
    in.critical_path = r.critical_path ? &*r.critical_path : nullptr;
    in.environment_history = r.environment_history ? &*r.environment_history : nullptr;
    in.kb_path = r.kb_path;
    in.input_files = input_files;
    in.options = options;
    in.options.notes.insert(in.options.notes.end(), r.notes.begin(), r.notes.end());
    // The knowledge base's decisions, unless the caller brought its own (the GUI passes what its pane shows).
    if (in.options.suggestion_state.empty() && in.options.suggestion_note.empty()) {
        in.options.suggestion_state = r.suggestion_state;
        in.options.suggestion_note = r.suggestion_note;
    }
    for (const auto& [k, v] : r.rule_files)
        in.options.rule_files.emplace(k, v);
    return in;
}

} // namespace sl::report
