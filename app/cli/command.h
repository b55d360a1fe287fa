#pragma once
// sightline-cli subcommands register themselves here, one file each (cmd_<name>.cpp).
//
// Exit codes: 0 success, 1 a --fail-on gate fired, 2 bad input (clear error on stderr), 64 usage error.

#include <functional>
#include <string>
#include <vector>

namespace sl::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitGate = 1;
inline constexpr int kExitInput = 2;
inline constexpr int kExitUsage = 64;

struct Command {
    const char* name;
    const char* synopsis;   // one line: "summary TRACE... [--format text|json] [-o FILE]"
    int (*run)(const std::vector<std::string>& args);   // args after the subcommand name
};

// Called from a static initialiser in each cmd_*.cpp:  static const bool reg = register_command({...});
bool register_command(const Command& c);
const std::vector<Command>& commands();

// Small shared helpers for argument parsing and output.
struct Args {
    std::vector<std::string> positional;
    // Returns the value of --name VALUE / --name=VALUE (last wins), or def.
    std::string value(const std::string& name, const std::string& def = {}) const;
    bool flag(const std::string& name) const;
    bool has(const std::string& name) const;
    std::vector<std::pair<std::string, std::string>> options;   // in order; flags have an empty value
};
// Parses args; `value_options` lists the options that take a value (e.g. {"--format","-o"}). Unknown options and
// missing values are usage errors: returns false and fills error.
bool parse_args(const std::vector<std::string>& args, const std::vector<std::string>& value_options,
                const std::vector<std::string>& flag_options, Args& out, std::string& error);

// A table-driven subcommand option: name, whether it takes a value, help text, and how it applies to the request
// (returns an error message, empty on success).
template <typename Request> struct OptionSpec {
    const char* name;
    bool takes_value;
    const char* help;
    std::function<std::string(Request&, const std::string&)> apply;
};

// parse_args with the value/flag option names taken from the table.
template <typename Request>
bool parse_table_args(const std::vector<std::string>& argv, const std::vector<OptionSpec<Request>>& table, Args& out,
                      std::string& error)
{
    std::vector<std::string> value_opts, flag_opts;
    for (const auto& o : table)
        (o.takes_value ? value_opts : flag_opts).push_back(o.name);
    return parse_args(argv, value_opts, flag_opts, out, error);
}

// Applies the parsed options to the request in command-line order; false (with error) at the first bad value.
template <typename Request>
bool apply_options(const Args& args, const std::vector<OptionSpec<Request>>& table, Request& req, std::string& error)
{
    for (const auto& [name, value] : args.options)
        for (const auto& o : table)
            if (name == o.name) {
                error = o.apply(req, value);
                if (!error.empty())
                    return false;
            }
    return true;
}

// Writes text to -o FILE when given, else stdout. Returns false (and prints an error) when the file cannot be written.
bool write_output(const std::string& path, const std::string& text);

} // namespace sl::cli
