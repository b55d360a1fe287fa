#include "app/cli/command.h"

#include <cstdio>
#include <iostream>

#include "analysis/io/input_bounds.h"
#include "analysis/io/output_file.h"

namespace sl::cli {

const char* const kExitCodesHelp =
    "Exit codes: 0 ok, 1 a --fail-on gate fired, 2 bad input (or an output that is one of the inputs or a knowledge "
    "base), 3 an external "
    "tool is missing or failed, 4 an output could not be written (full disk, no permission, a closed or full "
    "standard output), 64 usage error, 130 interrupted (SIGINT/SIGTERM; a file being written is left as it was).";

const char* const kLimitOptionsHelp =
    "Every command takes these limits on what an input may become in memory (SIZE like 512M or 128G, or none):\n"
    "  --max-input-size SIZE     the size of an input file (default: traces 64G, ncu exports 4G, JSON data 16M)\n"
    "  --max-inflated-size SIZE  the inflated content of a .gz (default 64G)\n"
    "  --max-inflate-ratio N     the inflated content of a .gz: 64M plus N times the compressed bytes read (default 64)\n"
    "  --max-name-bytes SIZE     the distinct names of a trace (default 128M; one name keeps 16 KiB)\n"
    "  --max-memory SIZE         memory while loading, and for the critical path (left out past it) (default 90 %\n"
    "                            of RAM, the cgroup limit or ulimit)\n"
    "and this guard on what an output may replace:\n"
    "  --force                   let -o replace the knowledge base (the default one, or --kb), its -wal/-shm files,\n"
    "                            or an SQLite database Sightline did not write (refused otherwise: exit 2)\n";

static std::vector<Command>& registry()
{
    static std::vector<Command> r;
    return r;
}

bool register_command(const Command& c)
{
    registry().push_back(c);
    return true;
}

const std::vector<Command>& commands() { return registry(); }

std::string Args::value(const std::string& name, const std::string& def) const
{
    std::string v = def;
    for (const auto& [k, val] : options)
        if (k == name)
            v = val;
    return v;
}

bool Args::flag(const std::string& name) const { return has(name); }

bool Args::has(const std::string& name) const
{
    for (const auto& [k, val] : options)
        if (k == name)
            return true;
    return false;
}

bool parse_args(const std::vector<std::string>& args, const std::vector<std::string>& value_options,
                const std::vector<std::string>& flag_options, Args& out, std::string& error)
{
    auto in = [](const std::vector<std::string>& v, const std::string& s) {
        for (const auto& x : v)
            if (x == s)
                return true;
        return false;
    };
    bool options_ended = false;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (!options_ended && a == "--") {
            options_ended = true;
            continue;
        }
        if (!options_ended && a.size() > 1 && a[0] == '-') {
            std::string name = a, val;
            const auto eq = a.find('=');
            const bool has_eq = eq != std::string::npos && a.rfind("--", 0) == 0;
            if (has_eq) {
                name = a.substr(0, eq);
                val = a.substr(eq + 1);
            }
            if (in(value_options, name)) {
                if (!has_eq) {
                    if (i + 1 >= args.size()) {
                        error = "option " + terminal_safe(name) + " needs a value";
                        return false;
                    }
                    val = args[++i];
                }
                out.options.emplace_back(name, val);
            } else if (in(flag_options, name) && !has_eq) {
                out.options.emplace_back(name, std::string());
            } else {
                error = "unknown option " + terminal_safe(name) + (name.size() > 2 && name[1] != '-'
                                                                   ? " (a file whose name starts with '-' goes after --)"
                                                                   : "");
                return false;
            }
        } else {
            out.positional.push_back(a);
        }
    }
    return true;
}

std::string text_output(std::string_view text)
{
    bool plain = true;
    for (char ch : text) {
        const auto c = static_cast<unsigned char>(ch);
        if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7F || c == 0xC2 || c == 0xE2) {
            plain = false;
            break;
        }
    }
    if (plain)
        return std::string(text);
    // Line by line and tab by tab, so newlines and tabs stay what they are and everything else is made safe.
    std::string out;
    out.reserve(text.size() + 64);
    size_t start = 0;
    for (size_t i = 0; i <= text.size(); ++i) {
        if (i == text.size() || text[i] == '\n' || text[i] == '\t') {
            out += terminal_safe(text.substr(start, i - start));
            if (i < text.size())
                out += text[i];
            start = i + 1;
        }
    }
    return out;
}

void print_error(const std::string& message)
{
    const std::string line = "sightline-cli: " + terminal_safe(message) + "\n";
    std::fflush(stdout);
    std::fputs(line.c_str(), stderr);
    std::fflush(stderr);
}

void check_output(const std::string& path, const std::vector<std::string>& inputs)
{
    if (!path.empty() && path != "-")
        check_output_is_not_input(path, inputs);
}

bool write_output(const std::string& path, const std::string& text, const std::vector<std::string>& inputs, bool raw)
{
    if (path.empty() || path == "-") {
        write_standard_output(raw ? text : text_output(text));
        return true;
    }
    write_output_file(path, raw ? text : text_output(text), inputs);
    return true;
}

} // namespace sl::cli
