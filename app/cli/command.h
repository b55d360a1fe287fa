#pragma once
// sightline-cli subcommands register themselves here, one file each (cmd_<name>.cpp).
//
// Exit codes: 0 success, 1 a --fail-on gate fired, 2 bad input (clear error on stderr; an output that is an input
// too), 3 an external tool failed, 4 an output could not be written, 64 usage error, 130 interrupted.

#include <functional>
#include <string_view>
#include <string>
#include <vector>

namespace sl::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitGate = 1;
inline constexpr int kExitInput = 2;
inline constexpr int kExitTool = 3;          // an external tool is missing, too old, or failed
inline constexpr int kExitOutput = 4;        // an output could not be written (the message names the path and why)
inline constexpr int kExitUsage = 64;
inline constexpr int kExitInterrupted = 130; // SIGINT/SIGTERM: temporaries removed, previous outputs kept

// The lines `--help` prints about the exit codes and the limit options every command takes.
extern const char* const kExitCodesHelp;
extern const char* const kLimitOptionsHelp;

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
// missing values are usage errors: returns false and fills error. "--" ends the options: every argument after it
// is positional, so `summary -- -x.sqlite` reads the file "-x.sqlite".
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

// Writes text to -o FILE when given (through a temporary renamed into place, output_file.h), else to standard
// output. Text for a terminal or a text file has its control characters escaped (text_output()); pass raw = true
// for JSON and other formats whose bytes must stay as built. Returns true; throws OutputIsInput (main: exit 2) when
// FILE is one of the command's inputs (those read so far and `inputs`), OutputError (main: exit 4) when it cannot be
// written.
bool write_output(const std::string& path, const std::string& text, const std::vector<std::string>& inputs = {},
                  bool raw = false);

// Refuses, before any work, an output that is one of the inputs named on the command line (throws OutputIsInput).
void check_output(const std::string& path, const std::vector<std::string>& inputs);

// Text output with every control character but newline and tab written as \xNN, so names and paths cannot move the
// cursor or clear the screen (names with newlines are escaped by the readers).
std::string text_output(std::string_view text);

// "sightline-cli: MESSAGE" on stderr, the message made safe for a terminal (input_bounds.h terminal_safe()).
void print_error(const std::string& message);

} // namespace sl::cli
