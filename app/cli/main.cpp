// sightline-cli: the headless front end. Same pipeline, same numbers as the GUI.
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <exception>
#include <iostream>
#include <new>
#include <string>
#include <unistd.h>

#include "analysis/diagnosis/kb_disk_full.h"
#include "analysis/diagnosis/knowledge_base.h"
#include "analysis/io/input_bounds.h"
#include "analysis/io/output_file.h"
#include "analysis/trace/errors.h"
#include "app/cli/command.h"
#include "app/cli/help.h"

using namespace sl::cli;

static std::string usage_text()
{
    std::string text = std::string("Sightline ") + SIGHTLINE_VERSION +
                       " - GPU traces of LLM inference, diagnosed.\n\nUsage: sightline-cli COMMAND [ARGS]\n\n";
    for (const auto& c : commands())
        text += std::string("  sightline-cli ") + c.synopsis + "\n";
    text += "\n'sightline-cli COMMAND --help' describes a command and its options.\n";
    text += std::string("\n") + kLimitOptionsHelp;
    text += std::string("\n") + kExitCodesHelp + "\n";
    return text;
}

static void usage(FILE* out) { std::fputs(usage_text().c_str(), out); }

namespace {

// Options every command takes: the limits on what an input may become in memory (input_bounds.h).
struct LimitOption {
    const char* name;
    bool count;                      // a plain number (a ratio), not a size
    void (*apply)(uint64_t);
};
const LimitOption kLimitOptions[] = {
    {"--max-input-size", false, sl::set_input_size_override},
    {"--max-inflated-size", false, sl::set_inflated_size_override},
    {"--max-inflate-ratio", true, sl::set_inflate_ratio_override},
    {"--max-name-bytes", false, sl::set_name_bytes_override},
    {"--max-memory", false, sl::set_memory_budget_override},
};

bool parse_count(const std::string& v, uint64_t& out)
{
    if (v == "none" || v == "unlimited") {
        out = UINT64_MAX;
        return true;
    }
    if (v.empty() || v.size() > 12 || v.find_first_not_of("0123456789") != std::string::npos)
        return false;
    out = std::stoull(v);
    return out > 0;
}

// Removes the limit options (OPTION VALUE / OPTION=VALUE) from args, before a "--" only, and applies them. False
// (after a message) when a value is not a size.
bool take_limit_options(std::vector<std::string>& args)
{
    for (size_t i = 0; i < args.size(); ++i) {
        if (args[i] == "--")
            break;
        for (const auto& o : kLimitOptions) {
            const std::string opt = o.name;
            std::string value;
            size_t n = 0;
            if (args[i] == opt && i + 1 < args.size()) {
                value = args[i + 1];
                n = 2;
            } else if (args[i].rfind(opt + "=", 0) == 0) {
                value = args[i].substr(opt.size() + 1);
                n = 1;
            } else if (args[i] == opt) {
                std::fprintf(stderr, "sightline-cli: %s needs a value (e.g. %s, or none)\n", o.name, o.count ? "128" : "128G");
                return false;
            } else {
                continue;
            }
            uint64_t x = 0;
            if (o.count ? !parse_count(value, x) : !sl::parse_size(value, x)) {
                std::fprintf(stderr, "sightline-cli: %s: expected %s, found %s\n", o.name,
                             o.count ? "a whole number such as 64, or none" : "a size such as 512M, 128G or none",
                             sl::quote_prefix(value).c_str());
                return false;
            }
            o.apply(x);
            args.erase(args.begin() + static_cast<std::ptrdiff_t>(i), args.begin() + static_cast<std::ptrdiff_t>(i + n));
            --i;
            break;
        }
    }
    return true;
}

// The guard on outputs (any command, output_file.h): `--force` (before a "--" only) is taken out of args and lets an
// output replace a protected file; the default knowledge base and every `--kb PATH` named are protected, whether the
// command opens them or not, so `analyze T -o ~/.local/share/sightline/knowledge.db` is refused (exit 2).
void take_output_guard_options(std::vector<std::string>& args)
{
    sl::protect_output_path(sl::KnowledgeBase::default_path(), "the default knowledge base");
    for (size_t i = 0; i < args.size(); ++i) {
        if (args[i] == "--")
            break;
        if (args[i] == "--force") {
            sl::set_force_overwrite(true);
            args.erase(args.begin() + static_cast<std::ptrdiff_t>(i));
            --i;
        } else if (args[i] == "--kb" && i + 1 < args.size()) {
            sl::protect_output_path(args[i + 1], "the knowledge base in use (--kb)");
        } else if (args[i].rfind("--kb=", 0) == 0) {
            sl::protect_output_path(args[i].substr(5), "the knowledge base in use (--kb)");
        }
    }
}

// SIGINT / SIGTERM in any command: the temporaries of outputs being written are removed (the previous files stay),
// one line says so, exit 130. profile, verify and deep-dive install their own handler (loop.cpp), which stops the
// running profiler first and keeps what is done.
extern "C" void on_signal(int)
{
    sl::remove_temporaries_signal_safe();
    static const char msg[] = "\nsightline-cli: interrupted\n";
    [[maybe_unused]] auto w = ::write(2, msg, sizeof msg - 1);
    ::_exit(kExitInterrupted);
}

void install_signal_handlers()
{
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGINT);
    sigaddset(&sa.sa_mask, SIGTERM);
    ::sigaction(SIGINT, &sa, nullptr);
    ::sigaction(SIGTERM, &sa, nullptr);
    // A reader that closed the pipe (`analyze BIG --format json | head -c 10`) is a write error, not a silent death
    // by SIGPIPE (rc 141): the write fails with EPIPE and the command says so, exit 4. Children get SIGPIPE back
    // (process.cpp resets it before exec).
    ::signal(SIGPIPE, SIG_IGN);
}

// The names of the inputs read so far, for an out-of-memory message outside a reader.
std::string inputs_text()
{
    const auto in = sl::noted_input_files();
    std::string s;
    for (size_t i = 0; i < in.size() && i < 3; ++i)
        s += (i ? ", " : "") + in[i];
    if (in.size() > 3)
        s += ", ...";
    return s;
}

// Standard output is checked once more at the end (what was printed with std::cout or printf): `> /dev/full`
// fails with a message instead of exit 0.
int finish_stdout(int rc)
{
    errno = 0;
    std::cout.flush();   // (flushes stdout too: the streams are synchronised)
    if (std::fflush(stdout) == 0 && !std::ferror(stdout) && std::cout.good())
        return rc;
    const int e = errno ? errno : EIO;
    print_error(std::string("cannot write standard output: ") + std::strerror(e));
    return rc == kExitOk || rc == kExitGate ? kExitOutput : rc;
}

// Help on standard output, written at once so that a failure keeps its reason: a text longer than stdio's buffer,
// written to a full output piece by piece, lost ENOSPC before finish_stdout() could report it.
int print_help(const std::string& text)
{
    try {
        sl::write_standard_output(text);
    } catch (const sl::OutputError& e) {
        print_error(e.what());
        return kExitOutput;
    }
    return finish_stdout(kExitOk);
}

} // namespace

int main(int argc, char** argv)
{
    if (argc < 2 || !std::strcmp(argv[1], "-h") || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "help")) {
        if (argc < 2) {
            usage(stderr);
            return kExitUsage;
        }
        return print_help(usage_text());
    }
    if (!std::strcmp(argv[1], "--version")) {
        std::printf("sightline-cli %s\n", SIGHTLINE_VERSION);
        return finish_stdout(kExitOk);
    }
    for (const auto& c : commands()) {
        if (std::strcmp(c.name, argv[1]) == 0) {
            std::vector<std::string> args(argv + 2, argv + argc);
            if (is_help_request(args)) {
                return print_help(command_help(c));
            }
            // The limit options (any command): --max-input-size (issue 17) and the limits on inflated content,
            // names and memory.
            if (!take_limit_options(args))
                return kExitUsage;
            take_output_guard_options(args);
            install_signal_handlers();
            int rc = kExitInput;
            try {
                rc = c.run(args);
            } catch (const sl::OutputIsInput& e) {
                print_error(e.what());
                rc = kExitInput;
            } catch (const sl::OutputProtected& e) {
                print_error(e.what());
                rc = kExitInput;
            } catch (const sl::OutputError& e) {
                print_error(e.what());
                rc = kExitOutput;
            } catch (const sl::KbDiskFull& e) {
                print_error(e.what());
                rc = kExitOutput;
            } catch (const std::bad_alloc&) {
                const auto in = sl::noted_input_files();
                print_error(in.empty() ? std::string("out of memory")
                                       : sl::out_of_memory_error(in.back()).what() +
                                             (in.size() > 1 ? " (inputs: " + inputs_text() + ")" : std::string()));
                rc = kExitInput;
            } catch (const std::exception& e) {
                print_error(e.what());
                rc = kExitInput;
            }
            return finish_stdout(rc);
        }
    }
    std::fprintf(stderr, "sightline-cli: unknown command '%s'\n\n", sl::terminal_safe(argv[1]).c_str());
    usage(stderr);
    return kExitUsage;
}
