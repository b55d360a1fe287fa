// sightline-cli profile [--nsys-args ARGS] [--runs N] [--out DIR] [--timeout SEC] [--model config.json ...] -- COMMAND...
// sightline-cli verify BEFORE_DIR [--runs N] [--out DIR] ... -- COMMAND...
//
// The loop of seed 004, steps 1, 3, 5 and 6: run the user's inference command under `nsys profile` N times,
// export each run to SQLite, analyse it, measure the run-to-run spread, look the environment up in the knowledge
// base and record the runs there (profile); after a change, profile again, compare with the earlier profile's
// representative run, judge the accepted suggestions outside the run-to-run spread and record the verdicts (verify).
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "analysis/diagnosis/compare.h"
#include "analysis/diagnosis/kb_disk_full.h"
#include "analysis/diagnosis/knowledge_base.h"
#include "analysis/diagnosis/run_variance.h"
#include "analysis/io/fingerprint.h"
#include "analysis/io/load.h"
#include "analysis/trace/errors.h"
#include "analysis/io/input_bounds.h"
#include "app/cli/command.h"
#include "app/cli/loop.h"

namespace sl::cli {

int run_report(const std::vector<std::string>& argv);   // cmd_report.cpp

namespace {

constexpr const char* kProfileSynopsis =
    "profile [--nsys-args ARGS] [--runs N] [--out DIR] [--timeout SEC] [--kb PATH] [--no-record] "
    "[--model config.json [--gpu NAME] [--batch B] [--prompt S] [--context L]] -- COMMAND...";
constexpr const char* kVerifySynopsis =
    "verify BEFORE_DIR [--nsys-args ARGS] [--runs N] [--out DIR] [--timeout SEC] [--kb PATH] -- COMMAND...";

bool parse_int(const std::string& s, int64_t lo, int64_t hi, int64_t& out)
{
    try {
        size_t used = 0;
        const long long v = std::stoll(s, &used);
        if (used != s.size() || v < lo || v > hi)
            return false;
        out = v;
        return true;
    } catch (const std::exception&) {
        return false;
    }
}

int usage(const char* synopsis, const std::string& cmd, const std::string& msg)
{
    std::cerr << "sightline-cli " << cmd << ": " << terminal_safe(msg) << "\nusage: sightline-cli " << synopsis << "\n"
              << "  --nsys-args ARGS  extra nsys profile flags, one string (e.g. \"--delay=5 --duration=20\" or\n"
              << "                    \"--capture-range=nvtx --nvtx-capture=decode\"); after Sightline's own, so they win\n"
              << "  --runs N          profile N times for the run-to-run spread (default 1; 3 or more recommended)\n"
              << "  --out DIR         where the reports, exports, analyses and profile.json go\n"
              << "  --timeout SEC     stop a tool that runs longer (SIGINT, then SIGKILL); default none\n"
              << "  --kb PATH         knowledge base (default " << KnowledgeBase::default_path() << ")\n"
              << "  --model config.json, --gpu, --batch, --prompt, --context  Roofline and the theory check\n";
    return kExitUsage;
}

// Fills a ProfileRequest from the options shared by profile and verify; returns an error message or "".
std::string fill_request(const Args& a, ProfileRequest& req)
{
    int64_t v = 0;
    if (a.has("--runs")) {
        if (!parse_int(a.value("--runs"), 1, 1000, v))
            return "--runs needs an integer 1..1000, not '" + a.value("--runs") + "'";
        req.runs = int(v);
    }
    if (a.has("--timeout")) {
        if (!parse_int(a.value("--timeout"), 1, 7 * 24 * 3600, v))
            return "--timeout needs a number of seconds >= 1, not '" + a.value("--timeout") + "'";
        req.timeout_ms = v * 1000;
    }
    req.nsys_args = split_words(a.value("--nsys-args"));
    req.kb_path = a.value("--kb");
    req.record = !a.flag("--no-record");
    auto& roof = req.pipeline.roofline;
    roof.model = a.value("--model");
    roof.gpu = a.value("--gpu");
    for (const char* opt : {"--batch", "--prompt", "--context"}) {
        if (!a.has(opt))
            continue;
        if (!parse_int(a.value(opt), 1, 1'000'000'000, v))
            return std::string(opt) + " needs an integer >= 1, not '" + a.value(opt) + "'";
        (std::string(opt) == "--batch" ? roof.cost.batch : std::string(opt) == "--prompt" ? roof.cost.prompt
                                                                                           : roof.cost.context) = v;
        (std::string(opt) == "--batch" ? roof.cost.batch_set : std::string(opt) == "--prompt" ? roof.cost.prompt_set
                                                                                               : roof.cost.context_set) = true;
        roof.cost.shape_source = "option";
    }
    if (!roof.model.empty())
        req.pipeline.roofline.roofline.top_k = int(req.pipeline.analysis.focus.top_k);
    return {};
}

const std::vector<std::string> kValueOptions = {"--nsys-args", "--runs", "--out", "--timeout", "--kb", "--model",
                                                "--gpu", "--batch", "--prompt", "--context"};

std::string default_out_dir(const std::string& stem)
{
    for (int i = 1;; ++i) {
        const std::string d = "sightline-" + stem + "-" + std::to_string(i);
        if (!std::filesystem::exists(d))
            return d;
    }
}

// The representative run's Markdown report, as `sightline-cli report` writes it (with the model when given).
void set_report_writer(ProfileRequest& req)
{
    req.write_report = [roof = req.pipeline.roofline](const std::string& trace, const std::string& md) {
        std::vector<std::string> rargs = {trace, "--format", "md", "-o", md};
        if (!roof.model.empty()) {
            rargs.insert(rargs.end(), {"--model", roof.model});
            if (!roof.gpu.empty())
                rargs.insert(rargs.end(), {"--gpu", roof.gpu});
            // Only the fields the user set: the report takes the rest from the steps' annotations or the trace's
            // recorded shapes, as the analysis did.
            if (roof.cost.batch_set)
                rargs.insert(rargs.end(), {"--batch", std::to_string(roof.cost.batch)});
            if (roof.cost.prompt_set)
                rargs.insert(rargs.end(), {"--prompt", std::to_string(roof.cost.prompt)});
            if (roof.cost.context_set)
                rargs.insert(rargs.end(), {"--context", std::to_string(roof.cost.context)});
        }
        return run_report(rargs) == 0;
    };
}

int finish(const ProfileOutcome& o)
{
    if (o.interrupted)
        return kExitInterrupted;
    if (o.tool_failed)
        return kExitTool;
    return kExitOk;
}

int run_profile(const std::vector<std::string>& argv)
{
    std::vector<std::string> opts, command;
    if (!split_command(argv, opts, command))
        return usage(kProfileSynopsis, "profile", "give the inference command after --");
    Args a;
    std::string error;
    if (!parse_args(opts, kValueOptions, {"--no-record"}, a, error))
        return usage(kProfileSynopsis, "profile", error);
    if (!a.positional.empty())
        return usage(kProfileSynopsis, "profile", "unexpected argument '" + a.positional.front() + "' before --");
    ProfileRequest req;
    req.command = command;
    if (auto e = fill_request(a, req); !e.empty())
        return usage(kProfileSynopsis, "profile", e);
    req.out_dir = a.has("--out") ? a.value("--out") : default_out_dir("profile");
    install_interrupt_handler();
    const ToolInfo nsys = check_nsys();
    if (!nsys.usable()) {
        std::cerr << "sightline-cli: " << terminal_safe(nsys.error) << "\n";
        return kExitTool;
    }
    try {
        set_report_writer(req);
        return finish(profile_command(req, nsys, cli_io()));
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

int run_verify(const std::vector<std::string>& argv)
{
    std::vector<std::string> opts, command;
    if (!split_command(argv, opts, command))
        return usage(kVerifySynopsis, "verify", "give the inference command after --");
    Args a;
    std::string error;
    if (!parse_args(opts, kValueOptions, {"--no-record"}, a, error))
        return usage(kVerifySynopsis, "verify", error);
    if (a.positional.size() != 1)
        return usage(kVerifySynopsis, "verify", "needs exactly one BEFORE_DIR (the --out of an earlier profile)");
    try {
        const ProfileManifest before = read_profile_manifest(a.positional[0]);
        ProfileRequest req;
        req.command = command;
        req.pipeline.roofline.model = before.model;
        if (auto e = fill_request(a, req); !e.empty())
            return usage(kVerifySynopsis, "verify", e);
        if (!a.has("--runs"))
            req.runs = int(before.sqlite.size());   // as many as before, so both spreads are alike
        req.out_dir = a.has("--out") ? a.value("--out") : (std::filesystem::path(before.dir) / "verify").string();
        install_interrupt_handler();
        const ToolInfo nsys = check_nsys();
        if (!nsys.usable()) {
            std::cerr << "sightline-cli: " << terminal_safe(nsys.error) << "\n";
            return kExitTool;
        }
        set_report_writer(req);
        ProfileOutcome after = profile_command(req, nsys, cli_io());
        if (after.interrupted || after.tool_failed || after.runs.empty() || !after.runs[after.representative].ok)
            return finish(after);

        // Compare the representative runs; a change inside the run-to-run spread is not a verdict.
        std::vector<std::map<std::string, double>> after_metrics;
        for (const auto& r : after.runs)
            if (r.ok)
                after_metrics.push_back(r.metrics);
        const std::string metric = end_to_end_metric(before.metrics);
        double spread = 0;
        for (const auto* set : {&before.metrics, static_cast<const decltype(after_metrics)*>(&after_metrics)})
            for (const auto& s : run_variance(*set))
                if (s.metric == metric)
                    spread = std::max(spread, s.rel_spread);
        CompareOptions copt;
        copt.verify_threshold = std::max(copt.verify_threshold, spread);
        const std::string& after_path = after.runs[after.representative].sqlite;
        const Trace tb = load_trace(before.representative);
        const Trace ta = load_trace(after_path);
        const AnalysisResult ab = analyze(tb, AnalysisOptions{});
        const AnalysisResult aa = analyze(ta, AnalysisOptions{});
        CompareResult cr = compare_runs(tb, ab, ta, aa, copt);
        cr.before_path = before.representative;
        cr.after_path = after_path;
        KnowledgeBase kb(req.kb_path.empty() ? KnowledgeBase::default_path() : req.kb_path);
        const std::string before_hash = file_hash(before.representative);
        std::optional<int64_t> before_run;
        if (auto r = kb.find_run_by_hash(before_hash))
            before_run = r->id;
        if (before_run)
            judge_suggestions(cr, kb.suggestions(*before_run, SuggestionState::Accepted), tb, ab, ta, aa);

        // The end-to-end verdict: medians over the runs, judged against the spread.
        auto median_of = [&](const std::vector<std::map<std::string, double>>& runs) -> std::optional<double> {
            for (const auto& s : run_variance(runs))
                if (s.metric == metric)
                    return s.median;
            return std::nullopt;
        };
        const auto mb = median_of(before.metrics), ma = median_of(after_metrics);
        const double unit = metric.size() > 3 && metric.compare(metric.size() - 3, 3, "_ns") == 0 ? 1e6 : 1.0;
        std::printf("\nVerify: %s median %.4g%s -> %.4g%s", metric.c_str(), (mb ? *mb : 0) / unit,
                    unit > 1 ? " ms" : "", (ma ? *ma : 0) / unit, unit > 1 ? " ms" : "");
        std::fflush(stdout);
        std::string verdict = "inconclusive";
        double delta = 0;
        if (mb && ma && *mb > 0) {
            delta = (*ma - *mb) / *mb;
            // Lower is better for every end-to-end time metric.
            if (std::abs(delta) > copt.verify_threshold)
                verdict = delta < 0 ? "verified" : "failed";
            std::printf(" (%+.1f %%; run-to-run spread %.1f %%, threshold %.1f %%): %s\n", 100 * delta, 100 * spread,
                        100 * copt.verify_threshold, verdict == "verified" ? "faster, outside the spread"
                                                        : verdict == "failed" ? "slower, outside the spread"
                                                                              : "inconclusive: within the spread");
        } else
            std::printf(": inconclusive (metric missing)\n");
        std::fflush(stdout);
        std::cout << compare_to_text(cr) << std::flush;
        if (req.record) {
            const int64_t b = before_run ? *before_run : ensure_kb_run(kb, tb, ab, before.representative, before_hash);
            const int64_t af = after.runs[after.representative].kb_run
                                   ? after.runs[after.representative].kb_run
                                   : ensure_kb_run(kb, ta, aa, after_path, file_hash(after_path));
            int written = record_verdicts(kb, cr, b, af);
            if (mb && ma) {
                VerificationRecord v;
                v.suggestion_key = "end-to-end/" + metric;
                v.before_run = b;
                v.after_run = af;
                v.metric = metric;
                v.before_value = *mb;
                v.after_value = *ma;
                v.delta = delta;
                v.verdict = verdict;
                kb.record_verification(v);
                ++written;
            }
            std::cout << "sightline-cli: recorded " << written << " verification(s) in " << kb.path() << "\n";
        }
        return kExitOk;
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

const bool registered_profile = register_command({"profile", kProfileSynopsis, &run_profile});
const bool registered_verify = register_command({"verify", kVerifySynopsis, &run_verify});

} // namespace
} // namespace sl::cli
