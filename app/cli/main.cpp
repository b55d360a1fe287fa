// sightline-cli: the headless front end. Same pipeline, same numbers as the GUI.
#include <cstdio>
#include <cstring>
#include <exception>
#include <iostream>

#include "analysis/io/input_bounds.h"
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
    std::fprintf(out, "\nEvery command takes --max-input-size SIZE (e.g. 128G, or none) to raise the input size limits.\n");
    std::fprintf(out, "\nExit codes: 0 ok, 1 a --fail-on gate fired, 2 bad input, 64 usage error.\n");
}

// Removes --max-input-size SIZE / --max-input-size=SIZE from args and applies it. False (after a message) when the
// value is not a size.
static bool take_max_input_size(std::vector<std::string>& args)
{
    static const std::string opt = "--max-input-size";
    for (size_t i = 0; i < args.size(); ++i) {
        std::string value;
        size_t n = 0;
        if (args[i] == opt && i + 1 < args.size()) {
            value = args[i + 1];
            n = 2;
        } else if (args[i].rfind(opt + "=", 0) == 0) {
            value = args[i].substr(opt.size() + 1);
            n = 1;
        } else if (args[i] == opt) {
            std::fprintf(stderr, "sightline-cli: --max-input-size needs a value (e.g. 128G, or none)\n");
            return false;
        } else {
            continue;
        }
        uint64_t bytes = 0;
        if (!sl::parse_size(value, bytes)) {
            std::fprintf(stderr, "sightline-cli: --max-input-size: expected a size such as 512M, 128G or none, found '%s'\n",
                         value.c_str());
            return false;
        }
        sl::set_input_size_override(bytes);
        args.erase(args.begin() + static_cast<std::ptrdiff_t>(i), args.begin() + static_cast<std::ptrdiff_t>(i + n));
        --i;
    }
    return true;
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
            // --max-input-size SIZE (any command): the one override of every input size limit (issue 17).
            if (!take_max_input_size(args))
                return kExitUsage;
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
