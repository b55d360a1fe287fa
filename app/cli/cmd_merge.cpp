// sightline-cli merge PARTIAL... [--format text|json] [-o FILE]
//
// The reduce of a many-rank run (issue 38 §1): the partials `analyze RANK --partial` wrote, one per rank, merged into
// the cross-rank analyses (analysis/report/rank_merge.h). Partials that do not belong together (another schema, two
// for one rank, different world sizes) are bad input: exit 2 naming the file and what was expected.
#include <iostream>

#include "analysis/io/input_bounds.h"
#include "analysis/report/rank_merge.h"
#include "analysis/trace/errors.h"
#include "app/cli/command.h"

#include <nlohmann/json.hpp>

namespace sl::cli {
namespace {

constexpr const char* kSynopsis = "merge PARTIAL... [--format text|json] [-o FILE]";

int usage_error(const std::string& msg)
{
    std::cerr << "sightline-cli merge: " << terminal_safe(msg) << "\nusage: sightline-cli " << kSynopsis << "\n"
              << "  PARTIAL         a rank's partial, written by `sightline-cli analyze RANK_TRACE --partial -o FILE`\n"
              << "  --format        text (default) or json (sightline.merge/1)\n"
              << "  -o FILE         write to FILE instead of stdout\n";
    return kExitUsage;
}

int run_merge(const std::vector<std::string>& argv)
{
    Args args;
    std::string error;
    if (!parse_args(argv, {"--format", "-o", "--output"}, {}, args, error))
        return usage_error(error);
    if (args.positional.empty())
        return usage_error("no partial given (write one per rank with `sightline-cli analyze RANK_TRACE --partial "
                           "-o RANK.partial.json`)");
    const std::string format = args.value("--format", "text");
    if (format != "text" && format != "json")
        return usage_error("--format must be text or json, not '" + format + "'");
    const std::string out_path = args.value("-o", args.value("--output"));
    check_output(out_path, args.positional);
    std::string text;
    try {
        std::vector<RankPartial> parts;
        parts.reserve(args.positional.size());
        for (const auto& p : args.positional)
            parts.push_back(read_rank_partial(p));
        const RankMerge m = merge_partials(std::move(parts));
        if (format == "json")
            text = rank_merge_to_json(m).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
        else
            text = rank_merge_to_text(m);
    } catch (const TraceError& e) {
        print_error(e.what());
        return kExitInput;
    }
    return write_output(out_path, text, args.positional, format == "json") ? kExitOk : kExitOutput;
}

const bool registered = register_command({"merge", kSynopsis, &run_merge});

} // namespace
} // namespace sl::cli
