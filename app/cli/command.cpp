#include "app/cli/command.h"

#include <cstdio>
#include <fstream>
#include <iostream>

namespace sl::cli {

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
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a.size() > 1 && a[0] == '-') {
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
                        error = "option " + name + " needs a value";
                        return false;
                    }
                    val = args[++i];
                }
                out.options.emplace_back(name, val);
            } else if (in(flag_options, name) && !has_eq) {
                out.options.emplace_back(name, std::string());
            } else {
                error = "unknown option " + name;
                return false;
            }
        } else {
            out.positional.push_back(a);
        }
    }
    return true;
}

bool write_output(const std::string& path, const std::string& text)
{
    if (path.empty() || path == "-") {
        std::fwrite(text.data(), 1, text.size(), stdout);
        std::fflush(stdout);
        return true;
    }
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out) {
        std::cerr << "sightline-cli: cannot write " << path << "\n";
        return false;
    }
    out << text;
    return static_cast<bool>(out);
}

} // namespace sl::cli
