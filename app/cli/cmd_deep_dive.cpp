// sightline-cli deep-dive PROFILE_DIR|TRACE [--set roofline|full] [--launch-skip N] [--launch-count N] [--out DIR]
//                         [--ncu-args ARGS] [--timeout SEC] [--model config.json ...] -- COMMAND...
//
// Step 4 of the loop (seed 004): the focus set of the trace (Top-K kernel names by time, and the low-E_roof ones
// when a model is given) is profiled with Nsight Compute on exactly those kernels: `-k regex:^(.*::)?(name|...)$` of their
// real function names, `--launch-skip` past the warm-up and `--launch-count` for one steady-state step's launches.
// The report is exported as CSV (--page raw), joined to the trace, and the rules run again with the counters.
#include <filesystem>
#include <iostream>

#include "analysis/diagnosis/kb_disk_full.h"
#include "analysis/diagnosis/knowledge_base.h"
#include "analysis/trace/errors.h"
#include "analysis/io/input_bounds.h"
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
    std::cerr << "sightline-cli deep-dive: " << terminal_safe(msg) << "\nusage: sightline-cli " << kSynopsis << "\n"
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
        DeepDiveRequest req;
        req.trace = a.positional[0];
        req.out_dir = a.value("--out");
        req.set = set;
        req.ncu_args = split_words(a.value("--ncu-args"));
        req.command = command;
        req.timeout_ms = timeout_s * 1000;
        req.pipeline.roofline.model = a.value("--model");
        req.pipeline.roofline.gpu = a.value("--gpu");
        for (const char* o : {"--batch", "--prompt", "--context"})
            if (a.has(o)) {
                int64_t v = 0;
                if (!parse_count(a.value(o), v) || v < 1)
                    return usage(std::string(o) + " needs an integer >= 1");
                (std::string(o) == "--batch" ? req.pipeline.roofline.cost.batch
                 : std::string(o) == "--prompt" ? req.pipeline.roofline.cost.prompt
                                                : req.pipeline.roofline.cost.context) = v;
                (std::string(o) == "--batch" ? req.pipeline.roofline.cost.batch_set
                 : std::string(o) == "--prompt" ? req.pipeline.roofline.cost.prompt_set
                                                : req.pipeline.roofline.cost.context_set) = true;
                req.pipeline.roofline.cost.shape_source = "option";
            }
        for (const auto& [opt, field] : {std::pair{"--launch-skip", &req.launch_skip}, {"--launch-count", &req.launch_count}})
            if (a.has(opt)) {
                int64_t v = 0;
                if (!parse_count(a.value(opt), v))
                    return usage(std::string(opt) + " needs an integer >= 0");
                *field = v;
            }
        std::cout << "sightline-cli: focus set of "
                  << (fs::is_directory(req.trace) ? read_profile_manifest(req.trace).representative : req.trace) << "\n";
        // The focus set first (a trace without kernels is an input error), then the tool.
        DeepDivePlan plan = deep_dive_plan(req);
        if (plan.target.names.empty()) {
            std::cerr << "sightline-cli: " << terminal_safe(plan.trace) << " has no kernels: no focus set to profile\n";
            return kExitInput;
        }
        for (const auto& n : plan.target.names)
            std::cout << "  focus kernel: " << n << "\n";
        std::cout << "  steady state: skip " << plan.target.launch_skip << " matched launch(es), profile "
                  << plan.target.launch_count << "\n";

        install_interrupt_handler();
        const ToolInfo ncu = check_ncu();
        if (!ncu.usable()) {
            std::cerr << "sightline-cli: " << terminal_safe(ncu.error) << "\n";
            return kExitTool;
        }
        set_ncu_commands(plan, req, ncu);
        const DeepDiveOutcome o = deep_dive_run(plan, req, cli_io());
        if (!o.ok)
            return o.interrupted ? kExitInterrupted : kExitTool;
        std::cout << "\nDeep-dive: " << o.launches << " ncu launch(es) in " << plan.csv << ", " << o.joined
                  << " joined to trace kernels\n";
        for (size_t k = 0; k < o.added.size(); ++k) {
            if (k == 0)
                std::cout << "Findings the counters add:\n";
            std::cout << "  " << o.added[k] << "\n";
        }
        if (o.added.empty())
            std::cout << "The counters add no finding to the trace's " << o.findings_before << ".\n";
        std::cout << "Analysis with the counters: " << plan.analysis_json << "\n";
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

const bool registered = register_command({"deep-dive", kSynopsis, &run_deep_dive});

} // namespace
} // namespace sl::cli
