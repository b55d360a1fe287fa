#include "analysis/diagnosis/verify_command.h"

#include "analysis/trace/trace.h"

namespace sl {

namespace {

void replace_all(std::string& s, const std::string& from, const std::string& to)
{
    for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
        s.replace(at, from.size(), to);
}

} // namespace

std::string recorded_command(const TraceMeta& meta)
{
    for (const char* k : {"command", "cmdline", "command_line", "metadata.command", "metadata.cmdline",
                          "metadata.command_line"})
        if (auto it = meta.environment.find(k); it != meta.environment.end() && !it->second.empty())
            return it->second;
    return {};
}

std::string verify_command_for_trace(const std::string& verify, const std::string& format,
                                     const std::string& command)
{
    std::string out = verify;
    if (format == "kineto-json" && out.rfind("nsys profile", 0) == 0) {
        const size_t and_then = out.find(" && ");
        const std::string run = command.empty() ? std::string("<your command") : "<run `" + command + "`";
        const std::string profiled = run + " under torch.profiler, saving after.pt.trace.json.gz>";
        out = and_then == std::string::npos ? profiled : profiled + out.substr(and_then);
        replace_all(out, "after.nsys-rep", "after.pt.trace.json.gz");
    }
    if (!command.empty())
        replace_all(out, "<your inference command>", command);
    return out;
}

} // namespace sl
