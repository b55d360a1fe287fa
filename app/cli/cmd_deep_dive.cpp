// sightline-cli deep-dive PROFILE_DIR|TRACE [--set roofline|full] [--launch-skip N] [--launch-count N] [--out DIR]
//                         [--ncu-args ARGS] [--timeout SEC] [--model config.json ...] -- COMMAND...
//
// Step 4 of the loop (seed 004): the focus set of the trace (Top-K kernel names by time, and the low-E_roof ones
// when a model is given) is profiled with Nsight Compute on exactly those kernels: `-k regex:^(.*::)?(name|...)$` of their
// real function names, `--launch-skip` past the warm-up and `--launch-count` for one steady-state step's launches.
// The report is exported as CSV (--page raw), joined to the trace, and the rules run again with the counters.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>

#include "analysis/diagnosis/knowledge_base.h"
#include "analysis/diagnosis/ncu_target.h"
#include "analysis/roofline/roofline.h"
#include "analysis/trace/errors.h"
#include "app/cli/command.h"
#include "app/cli/loop.h"

namespace sl::cli {
namespace {

namespace fs = std::filesystem;

constexpr const char* kSynopsis =
    "deep-dive PROFILE_DIR|TRACE [--set roofline|full] [--launch-skip N] [--launch-count N] [--out DIR] "
    "[--ncu-args ARGS] [--timeout SEC] [--model config.json [--gpu NAME] [--batch B] [--prompt S] [--context L]] "
    "-- COMMAND...";

int usage(const std::string& msg)
{
    std::cerr << "sightline-cli deep-dive: " << msg << "\nusage: sightline-cli " << kSynopsis << "\n"
              << "  --set          ncu section set: roofline (default) or full\n"
              << "  --launch-skip  matched launches to skip (default: those before the first steady decode step)\n"
              << "  --launch-count matched launches to profile (default: one steady step's launches, at most 200)\n"
              << "  --out DIR      where deep_dive.ncu-rep, deep_dive.csv and deep_dive.analysis.json go\n"
              << "                 (default: PROFILE_DIR, or the trace's directory)\n";
    return kExitUsage;
}

bool parse_count(const std::string& s, int64_t& out)
{
    try {
        size_t used = 0;
        const long long v = std::stoll(s, &used);
        if (used != s.size() || v < 0)
            return false;
        out = v;
        return true;
    } catch (const std::exception&) {
        return false;
    }
}

} // namespace

// The ncu kernel filter and launch window for a trace's focus set: the shared core function
// (analysis/diagnosis/ncu_target.h) over the focus kernel names, with "regex:" for ncu's -k.
static NcuTarget focus_ncu_target(const PipelineResult& r)
{
    std::vector<StrId> focus;
    for (const auto& e : r.analysis.focus.entries)
        if ((e.in_top_k || e.in_low_efficiency) && std::find(focus.begin(), focus.end(), e.name) == focus.end())
            focus.push_back(e.name);
    NcuTarget t = ncu_target(*r.trace, r.analysis, focus, "decode");
    if (!t.regex.empty())
        t.regex = "regex:" + t.regex;
    return t;
}

namespace {

int run_deep_dive(const std::vector<std::string>& argv)
{
    std::vector<std::string> opts, command;
    if (!split_command(argv, opts, command))
        return usage("give the inference command after --");
    Args a;
    std::string error;
    if (!parse_args(opts,
                    {"--set", "--launch-skip", "--launch-count", "--out", "--ncu-args", "--timeout", "--model", "--gpu",
                     "--batch", "--prompt", "--context"},
                    {}, a, error))
        return usage(error);
    if (a.positional.size() != 1)
        return usage("needs exactly one PROFILE_DIR (from `profile --out`) or trace");
    const std::string set = a.value("--set", "roofline");
    if (set != "roofline" && set != "full")
        return usage("--set must be roofline or full, not '" + set + "'");
    int64_t timeout_s = 0;
    if (a.has("--timeout") && (!parse_count(a.value("--timeout"), timeout_s) || timeout_s < 1))
        return usage("--timeout needs a number of seconds >= 1");
    try {
        std::string trace_path = a.positional[0], out_dir, model = a.value("--model");
        if (fs::is_directory(trace_path)) {
            const ProfileManifest pm = read_profile_manifest(trace_path);
            out_dir = trace_path;
            trace_path = pm.representative;
            if (model.empty())
                model = pm.model;
        } else
            out_dir = fs::absolute(trace_path).parent_path().string();
        if (a.has("--out"))
            out_dir = a.value("--out");
        fs::create_directories(out_dir);

        PipelineOptions popt;
        popt.roofline.model = model;
        popt.roofline.gpu = a.value("--gpu");
        for (const char* o : {"--batch", "--prompt", "--context"})
            if (a.has(o)) {
                int64_t v = 0;
                if (!parse_count(a.value(o), v) || v < 1)
                    return usage(std::string(o) + " needs an integer >= 1");
                (std::string(o) == "--batch" ? popt.roofline.cost.batch
                 : std::string(o) == "--prompt" ? popt.roofline.cost.prompt
                                                : popt.roofline.cost.context) = v;
            }
        std::cout << "sightline-cli: focus set of " << trace_path << "\n";
        const PipelineResult before = run_pipeline({trace_path}, popt);
        NcuTarget t = focus_ncu_target(before);
        if (t.names.empty()) {
            std::cerr << "sightline-cli: " << trace_path << " has no kernels: no focus set to profile\n";
            return kExitInput;
        }
        for (const auto& [opt, field] : {std::pair{"--launch-skip", &t.launch_skip}, {"--launch-count", &t.launch_count}})
            if (a.has(opt) && !parse_count(a.value(opt), *field))
                return usage(std::string(opt) + " needs an integer >= 0");
        for (const auto& n : t.names)
            std::cout << "  focus kernel: " << n << "\n";
        std::cout << "  steady state: skip " << t.launch_skip << " matched launch(es), profile " << t.launch_count << "\n";

        install_interrupt_handler();
        const ToolInfo ncu = check_ncu();
        if (!ncu.usable()) {
            std::cerr << "sightline-cli: " << ncu.error << "\n";
            return kExitTool;
        }
        const std::string base = (fs::absolute(out_dir) / "deep_dive").lexically_normal().string();
        std::vector<std::string> prof = {ncu.path, "--set", set, "-k", t.regex, "--launch-skip",
                                         std::to_string(t.launch_skip), "--launch-count", std::to_string(t.launch_count),
                                         "--force-overwrite", "--export", base};
        for (const auto& w : split_words(a.value("--ncu-args")))
            prof.push_back(w);
        prof.insert(prof.end(), command.begin(), command.end());
        const ProcessResult pr = run_tool(prof, "ncu", {}, timeout_s * 1000);
        const std::string rep = base + ".ncu-rep";
        if (!pr.ok()) {
            std::cout << "sightline-cli: " << describe_failure(pr, "ncu")
                      << (fs::exists(rep) ? "; its partial report is kept: " + rep : std::string()) << "\n";
            return pr.cancelled ? kExitInterrupted : kExitTool;
        }
        const std::string csv = base + ".csv";
        const ProcessResult er = run_tool({ncu.path, "--import", rep, "--csv", "--page", "raw"}, "ncu", csv,
                                          timeout_s * 1000);
        if (!er.ok()) {
            std::cout << "sightline-cli: " << describe_failure(er, "ncu --import") << "\n";
            return er.cancelled ? kExitInterrupted : kExitTool;
        }
        // Join and re-run the rules with the counters.
        popt.roofline.ncu = csv;
        const PipelineResult after = run_pipeline({trace_path}, popt);
        const std::string out_json = base + ".analysis.json";
        std::ofstream(out_json) << pipeline_to_json(after).dump(2) << "\n";
        size_t launches = 0, joined = 0;
        if (after.roofline.ncu) {
            launches = after.roofline.ncu->launches.size();
            for (int64_t k : join_ncu_to_trace(*after.roofline.ncu, *after.trace))
                joined += k >= 0;
        }
        std::cout << "\nDeep-dive: " << launches << " ncu launch(es) in " << csv << ", " << joined
                  << " joined to trace kernels\n";
        std::set<std::string> had;
        for (const auto& f : before.diagnosis.eval.findings)
            had.insert(f.rule + "|" + f.subject);
        size_t added = 0;
        for (const auto& f : after.diagnosis.eval.findings)
            if (!had.count(f.rule + "|" + f.subject)) {
                if (added++ == 0)
                    std::cout << "Findings the counters add:\n";
                std::cout << "  [" << severity_name(f.severity) << "] " << f.title.en << "\n";
            }
        if (added == 0)
            std::cout << "The counters add no finding to the trace's " << before.diagnosis.eval.findings.size() << ".\n";
        std::cout << "Analysis with the counters: " << out_json << "\n";
        return kExitOk;
    } catch (const TraceError& e) {
        std::cerr << "sightline-cli: " << e.what() << "\n";
        return kExitInput;
    } catch (const KbError& e) {
        std::cerr << "sightline-cli: " << e.what() << "\n";
        return kExitInput;
    }
}

const bool registered = register_command({"deep-dive", kSynopsis, &run_deep_dive});

} // namespace
} // namespace sl::cli
