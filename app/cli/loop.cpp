#include "app/cli/loop.h"

#include <csignal>
#include <iostream>
#include <unistd.h>

namespace sl::cli {

namespace {

std::atomic<bool> g_interrupted{false};

extern "C" void on_interrupt(int sig)
{
    if (g_interrupted.exchange(true)) {
        std::signal(sig, SIG_DFL);   // second Ctrl-C: no more waiting
        ::raise(sig);
    }
    static const char msg[] = "\nsightline-cli: interrupted: stopping the running tool, keeping what is done...\n";
    [[maybe_unused]] auto w = ::write(2, msg, sizeof msg - 1);
}

void print_tool(const ToolInfo& t)
{
    if (t.usable())
        std::cout << "sightline-cli: using " << t.path << " (" << t.version_text << ")\n";
}

} // namespace

std::atomic<bool>& interrupted() { return g_interrupted; }

void install_interrupt_handler()
{
    std::signal(SIGINT, on_interrupt);
    std::signal(SIGTERM, on_interrupt);
}

LoopIo cli_io()
{
    LoopIo io;
    io.print = [](const std::string& text) { std::cout << text << std::flush; };
    io.cancel = &g_interrupted;
    return io;
}

ToolInfo check_nsys()
{
    auto t = find_nsys();
    print_tool(t);
    return t;
}

ToolInfo check_ncu()
{
    auto t = find_ncu();
    print_tool(t);
    return t;
}

bool split_command(const std::vector<std::string>& argv, std::vector<std::string>& options,
                   std::vector<std::string>& command)
{
    options.clear();
    command.clear();
    for (size_t i = 0; i < argv.size(); ++i) {
        if (argv[i] == "--") {
            command.assign(argv.begin() + long(i) + 1, argv.end());
            return !command.empty();
        }
        options.push_back(argv[i]);
    }
    return false;
}

} // namespace sl::cli
