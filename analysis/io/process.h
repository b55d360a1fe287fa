#pragma once
// Running the external profilers (nsys, ncu): the one small layer every command that drives a tool goes through.
//
// run_process() spawns argv[0] (looked up on PATH) in its own process group, streams its stdout and stderr line by
// line to a callback as they come, and ends it cleanly on a timeout or a cancel request: SIGINT to the whole group
// first (nsys and ncu finish writing what they have on SIGINT), SIGKILL after a grace period. The files a tool
// wrote before it was stopped stay where they are; the caller decides what to keep.
//
// find_tool() explains a missing or too-old tool in one message (which version is needed and where to get it)
// instead of leaving the caller with an exec error.
//
// POSIX only (fork/exec, process groups); no Qt, no shell: arguments are passed as they are, never re-parsed.

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace sl {

struct ProcessOptions {
    std::string cwd;                                  // empty: the caller's
    std::map<std::string, std::string> env;           // added to (and overriding) the caller's environment
    int64_t timeout_ms = 0;                           // 0: none
    int64_t grace_ms = 3000;                          // SIGINT → SIGKILL delay when stopping
    const std::atomic<bool>* cancel = nullptr;        // polled; true stops the process group
    std::function<void(const std::string& line, bool is_stderr)> on_line;   // each output line, without '\n'
    std::string stdout_file;                          // when set, stdout goes to this file, not to on_line
};

struct ProcessResult {
    int exit_code = -1;          // the child's exit status; -1 when it was killed by a signal or never started
    int signal = 0;              // the signal that ended it, 0 when it exited
    bool started = false;        // exec succeeded
    bool timed_out = false;
    bool cancelled = false;
    int64_t wall_ms = 0;
    std::string error;           // why it did not start (file not found, not executable, cannot write stdout_file)
    bool ok() const { return started && !timed_out && !cancelled && signal == 0 && exit_code == 0; }
};

ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options = {});

// The command line as a user would type it in a POSIX shell (arguments quoted only where needed).
std::string shell_quote_command(const std::vector<std::string>& argv);

// Absolute path of an executable named `name` on PATH (or `name` itself when it contains '/'), or "" when none.
std::string find_on_path(const std::string& name);

// A version "2024.5.1" → {2024, 5, 1}. The first run of digits-and-dots in text of at least two parts.
std::vector<int> parse_version(const std::string& text);
// a < b, part by part (missing parts count as 0).
bool version_less(const std::vector<int>& a, const std::vector<int>& b);

struct ToolInfo {
    std::string name;            // "nsys" / "ncu"
    std::string path;            // resolved on PATH; empty when missing
    std::string version_text;    // the first line of `TOOL --version` that holds a version
    std::vector<int> version;
    std::string error;           // missing, too old, or --version failed: one message, empty when usable
    bool usable() const { return error.empty(); }
};

// Finds `name` on PATH and runs `name --version`; sets error (naming the minimum version and where to get the
// tool) when it is missing, does not answer --version, or is older than `minimum`.
ToolInfo find_tool(const std::string& name, const std::vector<int>& minimum, const std::string& where_to_get,
                   int64_t timeout_ms = 20'000);

} // namespace sl
