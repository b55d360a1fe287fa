// sightline-cli compare BEFORE AFTER [--format text|json|md] [--record] [--kb PATH] [--threshold PCT] [-o FILE]
// sightline-cli compare BEFORE... -- AFTER...   (or repeated --before B --after A): several runs of each side
//
// Verdicts are judged end to end (TPOT, wall per step, wall) outside run-to-run noise; the first run of each side
// is the one the kernel/class tables and the knowledge base use, the others add their spread to the noise.
//
// A/B verification: what changed between two runs, and for each suggestion accepted on BEFORE (in the knowledge
// base) whether the metric it promised to move did move. --record writes AFTER as a run and every verdict as a
// verification into the knowledge base (BEFORE too, when the knowledge base does not know it yet), unless the two
// runs are no A/B pair (an empty side, other hardware, another workload: compare.h), which it says on stderr.
#include <algorithm>
#include <filesystem>
#include <iostream>

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
    "compare BEFORE AFTER | BEFORE... -- AFTER... | --before B --after A ... [--format text|json|md] [--record] "
    "[--kb PATH] [--threshold PCT] [-o FILE]";

int usage(const std::string& msg)
{
    std::cerr << "sightline-cli compare: " << terminal_safe(msg) << "\nusage: sightline-cli " << kSynopsis << "\n"
              << "  --format     text (default), json or md\n"
              << "  --kb PATH    knowledge base (default " << KnowledgeBase::default_path() << ")\n"
              << "  --record     write AFTER and the verdicts of accepted suggestions into the knowledge base (nothing\n"
              << "               when a side holds no kernels, or the hardware or the workload differs)\n"
              << "  --threshold  smallest end-to-end change that counts as verified/failed (percent, default 3; "
                 "run-to-run noise raises it)\n"
              << "  --before/--after, or BEFORE... -- AFTER...: several runs of each configuration\n";
    return kExitUsage;
}

int run_compare(const std::vector<std::string>& argv)
{
    Args args;
    std::string error;
    const std::string kSep = "\x1f--";   // "--" between the BEFORE runs and the AFTER runs
    std::vector<std::string> argv2 = argv;
    for (auto& a : argv2)
        if (a == "--")
            a = kSep;
    if (!parse_args(argv2, {"--format", "--kb", "--threshold", "-o", "--output", "--before", "--after"}, {"--record"},
                    args, error))
        return usage(error);
    std::vector<std::string> before_paths, after_paths;
    {
        const auto sep = std::find(args.positional.begin(), args.positional.end(), kSep);
        if (sep != args.positional.end()) {
            before_paths.assign(args.positional.begin(), sep);
            after_paths.assign(sep + 1, args.positional.end());
        } else if (args.positional.size() == 2) {
            before_paths = {args.positional[0]};
            after_paths = {args.positional[1]};
        } else if (!args.positional.empty()) {
            return usage("needs exactly two traces, BEFORE and AFTER (or BEFORE... -- AFTER...)");
        }
        for (const auto& [k, v] : args.options) {
            if (k == "--before")
                before_paths.push_back(v);
            else if (k == "--after")
                after_paths.push_back(v);
        }
    }
    if (before_paths.empty() || after_paths.empty())
        return usage("needs at least one BEFORE and one AFTER trace");
    const std::string format = args.value("--format", "text");
    if (format != "text" && format != "json" && format != "md")
        return usage("--format must be text, json or md, not '" + format + "'");
    CompareOptions opt;
    if (args.has("--threshold")) {
        try {
            size_t used = 0;
            const std::string v = args.value("--threshold");
            const double pct = std::stod(v, &used);
            if (used != v.size() || pct <= 0 || pct >= 100)
                throw std::invalid_argument("range");
            opt.verify_threshold = pct / 100.0;
        } catch (const std::exception&) {
            return usage("--threshold needs a percentage between 0 and 100");
        }
    }
    const bool record = args.flag("--record");
    const std::string output = args.has("-o") ? args.value("-o") : args.value("--output");
    std::vector<std::string> inputs = before_paths;
    inputs.insert(inputs.end(), after_paths.begin(), after_paths.end());
    inputs.push_back(args.value("--kb", KnowledgeBase::default_path()));   // skipped when it does not exist
    check_output(output, inputs);

    std::string text;
    try {
        const std::string& before_path = before_paths[0];
        const std::string& after_path = after_paths[0];
        const Trace before = load_trace(before_path);
        const Trace after = load_trace(after_path);
        const AnalysisOptions aopt;
        const AnalysisResult ab = analyze(before, aopt);
        const AnalysisResult aa = analyze(after, aopt);
        // Extra runs: only their analyses are kept (for the noise), not their traces.
        std::vector<AnalysisResult> extra_b, extra_a;
        for (size_t i = 1; i < before_paths.size(); ++i)
            extra_b.push_back(analyze(load_trace(before_paths[i]), aopt));
        for (size_t i = 1; i < after_paths.size(); ++i)
            extra_a.push_back(analyze(load_trace(after_paths[i]), aopt));
        std::vector<const AnalysisResult*> more_b, more_a;
        for (const auto& x : extra_b)
            more_b.push_back(&x);
        for (const auto& x : extra_a)
            more_a.push_back(&x);
        CompareResult r = compare_runs(before, ab, after, aa, opt);
        r.before_path = before_path;
        r.after_path = after_path;

        // The same default knowledge base as `kb` and `analyze` ($XDG_DATA_HOME/...): without --kb the accepted
        // suggestions are still judged when the default knowledge base exists.
        const std::string kb_path = args.value("--kb", KnowledgeBase::default_path());
        // Two runs that are no A/B pair (an empty side, other hardware, another workload) record nothing: a false
        // verdict would move the suggestion's confidence on every similar environment.
        const bool can_record = record && r.comparable();
        if (record && !can_record) {
            r.recorded = 0;
            std::string why;
            for (const auto& w : r.not_comparable)
                why += (why.empty() ? "" : "; ") + w;
            print_error("recorded nothing in " + kb_path + ": the runs are not comparable (" + why + ")");
        }
        if (can_record || args.has("--kb") || std::filesystem::exists(kb_path)) {
            KnowledgeBase kb(kb_path, can_record ? KnowledgeBase::Access::ReadWrite : KnowledgeBase::Access::ReadOnly);
            const std::string before_hash = file_hash(before_path);
            const std::string after_hash = file_hash(after_path);
            std::optional<int64_t> before_run;
            if (auto run = kb.find_run_by_hash(before_hash))
                before_run = run->id;
            if (before_run)
                judge_suggestions_runs(r, kb.suggestions(*before_run, SuggestionState::Accepted), before, ab, after,
                                       aa, more_b, more_a);
            if (can_record) {
                const int64_t b = before_run ? *before_run : ensure_kb_run(kb, before, ab, before_path, before_hash);
                const int64_t a = ensure_kb_run(kb, after, aa, after_path, after_hash);
                const int written = record_verdicts(kb, r, b, a);
                r.recorded = written;
                std::cerr << "sightline-cli: recorded " << written << " verdict(s) in " << terminal_safe(kb_path) << "\n";
            }
        }
        if (format == "json")
            text = compare_to_json(r).dump(2) + "\n";
        else if (format == "md")
            text = compare_to_markdown(r);
        else
            text = compare_to_text(r);
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
    return write_output(output, text, inputs, format == "json") ? kExitOk : kExitInput;
}

const bool registered = register_command({"compare", kSynopsis, &run_compare});

} // namespace
} // namespace sl::cli
