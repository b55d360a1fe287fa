// sightline-cli kb record TRACE [--model config.json] [--batch B] [--seq S] [--rules DIR] | list [--state S] [--run ID] | accept ID [--note T] | reject ID [--note T]
//                  | annotate ID TEXT | history  [--kb PATH] [--format text|json]
//
// The knowledge base from the command line: record a run with its findings and proposed suggestions, list them,
// accept or reject a suggestion (with a note), and see the verification history that `compare --record` wrote.
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "analysis/timeline/analysis.h"
#include "analysis/diagnosis/compare.h"
#include "analysis/trace/errors.h"
#include "analysis/io/fingerprint.h"
#include "analysis/diagnosis/kb_disk_full.h"
#include "analysis/diagnosis/knowledge_base.h"
#include "analysis/io/load.h"
#include "analysis/diagnosis/metrics_binding.h"
#include "analysis/io/input_bounds.h"
#include "app/cli/command.h"

namespace sl::cli {
namespace {

constexpr const char* kSynopsis =
    "kb record TRACE [--model config.json] [--batch B] [--seq S] | list [--state S] [--run ID] | accept ID [--note T] | reject ID [--note T] | annotate ID TEXT "
    "| history [--kb PATH] [--format text|json]";

int usage(const std::string& msg)
{
    std::cerr << "sightline-cli kb: " << terminal_safe(msg) << "\nusage: sightline-cli " << kSynopsis << "\n";
    return kExitUsage;
}

bool parse_id(const std::string& s, int64_t& id)
{
    try {
        size_t used = 0;
        id = std::stoll(s, &used);
        return used == s.size() && id > 0;
    } catch (const std::exception&) {
        return false;
    }
}

int run_kb(const std::vector<std::string>& argv)
{
    Args args;
    std::string error;
    if (!parse_args(argv, {"--kb", "--state", "--run", "--note", "--format", "--rules", "--model", "--batch", "--seq"}, {}, args, error))
        return usage(error);
    if (args.positional.empty())
        return usage("missing subcommand");
    const std::string sub = args.positional[0];
    const std::string format = args.value("--format", "text");
    if (format != "text" && format != "json")
        return usage("--format must be text or json");
    try {
        // list and history only read: a read-only knowledge base (file or file system) works, and nothing is created.
        const bool reading = sub == "list" || sub == "history";
        KnowledgeBase kb(args.value("--kb", KnowledgeBase::default_path()),
                         reading ? KnowledgeBase::Access::ReadOnly : KnowledgeBase::Access::ReadWrite);
        std::ostringstream out;
        if (sub == "record") {
            if (args.positional.size() != 2)
                return usage("kb record needs one trace");
            const std::string path = args.positional[1];
            const Trace trace = load_trace(path);
            const AnalysisResult an = analyze(trace, AnalysisOptions{});
            DiagnoseOptions dopt;
            if (args.has("--rules"))
                dopt.rule_dirs = {shipped_rules_dir(), args.value("--rules")};
            // The environment fingerprint: the model (hash of its config.json) and the run's shape.
            if (args.has("--model")) {
                dopt.env_extra.model_hash = file_hash(args.value("--model"));
                if (dopt.env_extra.model_hash.empty())
                    throw TraceError(args.value("--model"), "file", "a readable config.json", "cannot open it");
            }
            for (const char* opt : {"--batch", "--seq"})
                if (args.has(opt)) {
                    int64_t v = 0;
                    if (!parse_id(args.value(opt), v))
                        return usage(std::string(opt) + " needs a positive integer");
                    (std::string(opt) == "--batch" ? dopt.env_extra.batch : dopt.env_extra.seq_len) = v;
                }
            const Diagnosis d = diagnose(trace, an, nullptr, nullptr, dopt, &kb);
            for (const auto& e : d.rule_errors)
                print_error("rule file " + e.file + (e.rule_id.empty() ? "" : " rule " + e.rule_id) + ": " + e.message);
            RunRecord run;
            run.trace_path = path;
            run.trace_hash = file_hash(path);
            run.env_id = kb.upsert_environment(d.env);
            run.metrics = headline_metrics(trace, an);
            const int64_t id = kb.record_run(run, operator_measurements(trace, an), d.eval.findings);
            if (format == "json")
                out << nlohmann::json{{"run", id}, {"findings", d.eval.findings.size()},
                                      {"suggestions", kb.suggestions(id).size()}}
                           .dump()
                    << "\n";
            else
                out << "run " << id << ": " << d.eval.findings.size() << " findings, " << kb.suggestions(id).size()
                    << " suggestions proposed\n";
        } else if (sub == "list") {
            std::optional<int64_t> run;
            std::optional<SuggestionState> state;
            if (args.has("--run")) {
                int64_t r = 0;
                if (!parse_id(args.value("--run"), r))
                    return usage("--run needs a run id");
                run = r;
            }
            if (args.has("--state")) {
                state = parse_suggestion_state(args.value("--state"));
                if (!state)
                    return usage("--state must be proposed, accepted, rejected, verified or failed");
            }
            const auto rows = kb.suggestions(run, state);
            if (format == "json") {
                nlohmann::json a = nlohmann::json::array();
                for (const auto& s : rows)
                    a.push_back({{"id", s.id}, {"run", s.run_id}, {"suggestion", s.key}, {"subject", s.subject},
                                 {"state", suggestion_state_name(s.state)}, {"metric", s.metric},
                                 {"annotation", s.annotation}, {"text", s.text}});
                out << a.dump(2) << "\n";
            } else {
                // What the database holds is text of anyone's making (an annotation, a subject named by a trace):
                // escaped by the rule of terminal_safe, so a line feed in it cannot print a line of its own.
                for (const auto& s : rows)
                    out << s.id << "\trun " << s.run_id << "\t" << suggestion_state_name(s.state) << "\t"
                        << terminal_safe(s.key) << "\t" << terminal_safe(s.subject)
                        << (s.annotation.empty() ? "" : "\t# " + terminal_safe(s.annotation)) << "\n";
            }
        } else if (sub == "accept" || sub == "reject" || sub == "annotate") {
            int64_t id = 0;
            if (args.positional.size() < 2 || !parse_id(args.positional[1], id))
                return usage("kb " + sub + " needs a suggestion id");
            if (sub == "annotate") {
                if (args.positional.size() != 3)
                    return usage("kb annotate ID TEXT");
                kb.set_suggestion_annotation(id, args.positional[2]);   // the state stays as stored
            } else {
                std::optional<std::string> note;
                if (args.has("--note"))
                    note = args.value("--note");
                kb.set_suggestion_state(id, sub == "accept" ? SuggestionState::Accepted : SuggestionState::Rejected,
                                        note);
            }
            // "accepted", "rejected", "annotated" (not "annotateed").
            out << "suggestion " << id << ": " << (sub == "annotate" ? std::string("annotated") : sub + "ed") << "\n";
        } else if (sub == "history") {
            const auto rows = kb.verifications();
            if (format == "json") {
                nlohmann::json a = nlohmann::json::array();
                for (const auto& v : rows) {
                    a.push_back({{"suggestion", v.suggestion_key}, {"before_run", v.before_run},
                                 {"after_run", v.after_run}, {"metric", v.metric}, {"before", v.before_value},
                                 {"after", v.after_value}, {"delta", v.delta}, {"verdict", v.verdict}});
                    if (v.predicted_value && v.prediction_error)   // issue 35 §4: what the replay predicted
                        a.back()["prediction"] = {{"change", v.change},
                                                  {"predicted", *v.predicted_value},
                                                  {"error", *v.prediction_error}};
                }
                out << a.dump(2) << "\n";
            } else {
                for (const auto& v : rows)
                    out << terminal_safe(v.verdict) << "\t" << terminal_safe(v.suggestion_key) << "\t"
                        << terminal_safe(v.metric) << "\t"
                        << format_metric(v.metric, v.before_value) << " -> " << format_metric(v.metric, v.after_value)
                        << (v.predicted_value && v.prediction_error
                                ? "\treplay (" + terminal_safe(v.change) + ") predicted " +
                                      format_metric(v.metric, *v.predicted_value) + ", off by " +
                                      format_metric("x_pct", 100.0 * *v.prediction_error)
                                : std::string())
                        << "\n";
            }
        } else {
            return usage("unknown subcommand '" + sub + "'");
        }
        return write_output("", out.str(), {}, format == "json") ? kExitOk : kExitInput;
    } catch (const TraceError& e) {
        print_error(e.what());
        return kExitInput;
    } catch (const KbDiskFull& e) {   // a full disk under the knowledge base: an output not written
        print_error(e.what());
        return kExitOutput;
    } catch (const KbError& e) {
        print_error(e.what());
        return kExitInput;
    }
}

const bool registered = register_command({"kb", kSynopsis, &run_kb});

} // namespace
} // namespace sl::cli
