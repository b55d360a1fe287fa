// sightline-cli merge PARTIAL... [--format text|json|md|pdf|html] [--lang en|zh_CN] [-o FILE]
//
// The reduce of a many-rank run (issue 38 §1): the partials `analyze RANK --partial` wrote, one per rank, merged into
// the cross-rank analyses (analysis/report/rank_merge.h). Partials that do not belong together (another schema, two
// for one rank, different world sizes) are bad input: exit 2 naming the file and what was expected. md, pdf and html
// are the report document analyze writes (cmd_report.cpp), of the merge (analysis/report/rank_report.h).
#include <iostream>

#include "analysis/io/input_bounds.h"
#include "analysis/report/rank_merge.h"
#include "analysis/report/rank_report.h"
#include "analysis/trace/errors.h"
#include "app/cli/command.h"

#include <nlohmann/json.hpp>

namespace sl::cli {

std::string report_document(const report::Report& rep, const std::string& format, const std::string& output,
                            const std::vector<std::string>& files, int* pdf_pages);

namespace {

constexpr const char* kSynopsis = "merge PARTIAL... [--format text|json|md|pdf|html] [--lang en|zh_CN] [-o FILE]";

int usage_error(const std::string& msg)
{
    std::cerr << "sightline-cli merge: " << terminal_safe(msg) << "\nusage: sightline-cli " << kSynopsis << "\n"
              << "  PARTIAL         a rank's partial, written by `sightline-cli analyze RANK_TRACE --partial -o FILE`\n"
              << "  --format        text (default), json (sightline.merge/1), or the report: md, pdf (needs -o) or html\n"
              << "  --lang          report language for md, pdf and html: en (default) or zh_CN\n"
              << "  -o FILE         write to FILE instead of stdout\n";
    return kExitUsage;
}

int run_merge(const std::vector<std::string>& argv)
{
    Args args;
    std::string error;
    if (!parse_args(argv, {"--format", "-o", "--output", "--lang"}, {}, args, error))
        return usage_error(error);
    if (args.positional.empty())
        return usage_error("no partial given (write one per rank with `sightline-cli analyze RANK_TRACE --partial "
                           "-o RANK.partial.json`)");
    const std::string format = args.value("--format", "text");
    if (format != "text" && format != "json" && format != "md" && format != "pdf" && format != "html")
        return usage_error("--format must be text, json, md, pdf or html, not '" + format + "'");
    report::Lang lang = report::Lang::En;
    if (!report::parse_lang(args.value("--lang", "en"), lang))
        return usage_error("--lang must be en or zh_CN, not '" + args.value("--lang") + "'");
    const std::string out_path = args.value("-o", args.value("--output"));
#ifndef SIGHTLINE_HAVE_QT
    if (format == "pdf")
        return usage_error("this build has no Qt, so it cannot write PDF; use --format md, html or json");
#endif
    if (format == "pdf" && out_path.empty())
        return usage_error("--format pdf needs -o FILE");
    check_output(out_path, args.positional);
    std::string text;
    try {
        std::vector<RankPartial> parts;
        parts.reserve(args.positional.size());
        for (const auto& p : args.positional)
            parts.push_back(read_rank_partial(p));
        const RankMerge m = merge_partials(std::move(parts));
        if (format == "json") {
            text = rank_merge_to_json(m).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
        } else if (format == "text") {
            text = rank_merge_to_text(m);
        } else {
            report::ReportOptions ro;
            ro.lang = lang;
            ro.detail = report::Detail::Full;
            text = report_document(report::build_merge_report(m, ro), format, out_path, args.positional, nullptr);
        }
    } catch (const TraceError& e) {
        print_error(e.what());
        return kExitInput;
    }
    return write_output(out_path, text, args.positional, format == "json" || format == "pdf") ? kExitOk : kExitOutput;
}

const bool registered = register_command({"merge", kSynopsis, &run_merge});

} // namespace
} // namespace sl::cli
