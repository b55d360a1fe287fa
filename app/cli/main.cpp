// sightline-cli: the headless front end. Same pipeline, same numbers as the GUI.
#include <cstdio>
#include <cstring>
#include <exception>
#include <iostream>

#include "app/cli/command.h"
#include "app/cli/help.h"

using namespace sl::cli;

static void usage(FILE* out)
{
    std::fprintf(out, "Sightline %s - GPU traces of LLM inference, diagnosed.\n\nUsage: sightline-cli COMMAND [ARGS]\n\n",
                 SIGHTLINE_VERSION);
    for (const auto& c : commands())
        std::fprintf(out, "  sightline-cli %s\n", c.synopsis);
    std::fprintf(out, "\n'sightline-cli COMMAND --help' describes a command and its options.\n");
    std::fprintf(out, "\nExit codes: 0 ok, 1 a --fail-on gate fired, 2 bad input, 64 usage error.\n");
}

int main(int argc, char** argv)
{
    if (argc < 2 || !std::strcmp(argv[1], "-h") || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "help")) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? kExitUsage : kExitOk;
    }
    if (!std::strcmp(argv[1], "--version")) {
        std::printf("sightline-cli %s\n", SIGHTLINE_VERSION);
        return kExitOk;
    }
    for (const auto& c : commands()) {
        if (std::strcmp(c.name, argv[1]) == 0) {
            std::vector<std::string> args(argv + 2, argv + argc);
            if (is_help_request(args)) {
                std::fputs(command_help(c).c_str(), stdout);
                return kExitOk;
            }
            try {
                return c.run(args);
            } catch (const std::exception& e) {
                std::cerr << "sightline-cli: " << e.what() << "\n";
                return kExitInput;
            }
        }
    }
    std::fprintf(stderr, "sightline-cli: unknown command '%s'\n\n", argv[1]);
    usage(stderr);
    return kExitUsage;
}
