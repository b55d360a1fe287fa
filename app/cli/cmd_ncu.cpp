// sightline-cli ncu: Nsight Compute exports (details/raw CSV, text report, .ncu-rep via ncu) read per launch,
// with what ncu's roofline and SOL sections compute, and ncu's own rule results as evidence.
#include "analysis/io/input_bounds.h"
#include "app/cli/command.h"

#include "analysis/io/ncu_reader.h"
#include "analysis/report/roofline_json.h"

#include <iostream>

using namespace sl;
using namespace sl::cli;

namespace {

int run(const std::vector<std::string>& args)
{
    Args a;
    std::string err;
    if (!parse_args(args, {"--format", "-o", "--decimal"}, {}, a, err)) {
        std::cerr << "sightline-cli ncu: " << terminal_safe(err) << "\n";
        return kExitUsage;
    }
    const std::string format = a.value("--format", "text");
    const std::string dec = a.value("--decimal");
    if (a.positional.size() != 1 || (format != "text" && format != "json") || (!dec.empty() && dec != "." && dec != ",")) {
        std::cerr << "usage: sightline-cli ncu FILE [--format text|json] [--decimal .|,] [-o FILE]\n";
        return kExitUsage;
    }
    const std::string output = a.value("-o");
    check_output(output, a.positional);
    NcuReadOptions o;
    if (!dec.empty())
        o.decimal_separator = dec[0];
    const NcuReport r = read_ncu(a.positional[0], o);
    std::string out;
    if (format == "json") {
        nlohmann::json j;
        j["schema"] = "sightline.ncu/1";
        j["ncu"] = ncu_to_json(r);
        out = j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";   // never a bare type_error.316
    } else {
        out = ncu_to_text(r);
    }
    return write_output(output, out, a.positional, format == "json") ? kExitOk : kExitInput;
}

const bool registered =
    register_command({"ncu", "ncu FILE(.csv|.txt|.ncu-rep) [--format text|json] [--decimal .|,] [-o FILE]", run});

} // namespace
