// sightline-cli summary TRACE... [--capture-trace PATH]... [--no-capture-search] [--format text|json] [--rank N] [--top-gaps N] [-o FILE]
#include <iostream>

#include "analysis/trace/errors.h"
#include "analysis/io/load.h"
#include "analysis/timeline/summary.h"
#include "analysis/report/summary_json.h"
#include "analysis/report/summary_text.h"
#include "analysis/io/input_bounds.h"
#include "app/cli/command.h"

namespace sl::cli {
namespace {

bool parse_int(const std::string& s, long long lo, long long hi, long long& out)
{
    if (s.empty())
        return false;
    size_t used = 0;
    try {
        out = std::stoll(s, &used, 10);
    } catch (const std::exception&) {
        return false;
    }
    return used == s.size() && out >= lo && out <= hi;
}

int usage_error(const std::string& msg)
{
    std::cerr << "sightline-cli summary: " << terminal_safe(msg) << "\n"
              << "usage: sightline-cli summary TRACE... [--capture-trace PATH]... [--no-capture-search] [--format text|json] [--rank N] [--top-gaps N] [-o FILE]\n";
    return kExitUsage;
}

int run_summary(const std::vector<std::string>& argv)
{
    Args args;
    std::string error;
    if (!parse_args(argv, {"--format", "--rank", "--top-gaps", "-o", "--output", "--capture-trace"},
                    {"--no-capture-search"}, args, error))
        return usage_error(error);
    if (args.positional.empty())
        return usage_error("no trace file given");
    const std::string format = args.value("--format", "text");
    if (format != "text" && format != "json")
        return usage_error("--format must be text or json, not '" + format + "'");
    SummaryOptions options;
    if (args.has("--rank")) {
        long long r = 0;
        if (!parse_int(args.value("--rank"), 0, INT32_MAX, r))
            return usage_error("--rank needs a non-negative integer, not '" + args.value("--rank") + "'");
        options.rank = static_cast<int32_t>(r);
    }
    if (args.has("--top-gaps")) {
        long long n = 0;
        if (!parse_int(args.value("--top-gaps"), 0, 1'000'000, n))
            return usage_error("--top-gaps needs an integer 0..1000000, not '" + args.value("--top-gaps") + "'");
        options.top_gaps = static_cast<size_t>(n);
    }
    const std::string out_path = args.value("-o", args.value("--output"));
    check_output(out_path, args.positional);

    Trace trace;
    try {
        LoadOptions load;
        for (const auto& [name, value] : args.options)
            if (name == "--capture-trace")
                load.capture_traces.push_back(value);
        load.find_captures = !args.flag("--no-capture-search");
        trace = load_workspace(args.positional, load);
    } catch (const TraceError& e) {
        print_error(e.what());
        return kExitInput;
    }
    const Summary summary = summarize(trace, options);
    const std::string text =
        format == "json" ? summary_to_json(trace, summary).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n" : summary_to_text(trace, summary);
    return write_output(out_path, text, args.positional, format == "json") ? kExitOk : kExitInput;
}

const bool registered = register_command(
    {"summary", "summary TRACE... [--capture-trace PATH]... [--no-capture-search] [--format text|json] [--rank N] [--top-gaps N] [-o FILE]", &run_summary});

} // namespace
} // namespace sl::cli
