#pragma once
// The analysis loop of seed 004 (figure 1) for sightline-cli: profile (nsys, N runs, variance), deep-dive (ncu on the
// focus set), verify (profile again, compare, record in the knowledge base). Shared pieces of cmd_profile.cpp and
// cmd_deep_dive.cpp: Ctrl-C handling, running a tool with its command line printed and its output streamed, the
// tool checks, and what one profiled run leaves in the output directory.

#include <atomic>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/io/process.h"
#include "analysis/pipeline.h"

namespace sl::cli {

inline constexpr int kExitTool = 3;          // an external tool is missing, too old, or failed
inline constexpr int kExitInterrupted = 130; // Ctrl-C: children stopped, partial results kept

// Minimum versions: the nsys SQLite schemas the reader knows start at 2022.1; ncu's --import/--csv/--page raw
// and regex kernel filters are in every release since 2022.1.
inline const std::vector<int> kNsysMinimum = {2022, 1};
inline const std::vector<int> kNcuMinimum = {2022, 1};

// SIGINT/SIGTERM set this flag (the first time; a second Ctrl-C ends sightline-cli at once).
std::atomic<bool>& interrupted();
void install_interrupt_handler();

// Finds nsys / ncu (ToolInfo::error explains a missing or too-old one) and prints the version used.
ToolInfo check_nsys();
ToolInfo check_ncu();

// Prints "$ <command line>" and runs it, its output streamed line by line as "  [label] ...". Honours Ctrl-C.
ProcessResult run_tool(const std::vector<std::string>& argv, const std::string& label, const std::string& stdout_file = {},
                       int64_t timeout_ms = 0);
// One line on why a run did not succeed ("nsys was stopped by Ctrl-C", "timed out after 5 s", "exited with 1").
std::string describe_failure(const ProcessResult& r, const std::string& label);

// Splits "sightline-cli X [options] -- COMMAND..." into options and the command. False when there is no "--" or
// no command after it.
bool split_command(const std::vector<std::string>& argv, std::vector<std::string>& options,
                   std::vector<std::string>& command);
// Whitespace-separated words of --nsys-args / --ncu-args (quotes group words: "--capture-range=nvtx" 'a b').
std::vector<std::string> split_words(const std::string& s);

struct ProfileRequest {
    std::vector<std::string> command;
    std::vector<std::string> nsys_args;          // extra, after Sightline's own flags (later flags win in nsys)
    int runs = 1;
    std::string out_dir;
    int64_t timeout_ms = 0;                      // per nsys run; 0 = none
    std::string kb_path;                         // empty = the default knowledge base
    bool record = true;                          // write the runs into the knowledge base
    PipelineOptions pipeline;                    // --model / --gpu / shape for the Roofline and Δ_retest
};

struct ProfiledRun {
    int index = 0;                               // 1-based
    std::string report_base, nsys_rep, sqlite, analysis_json;
    bool ok = false;
    std::string error;
    std::map<std::string, double> metrics;       // headline_metrics()
    std::vector<std::string> commands;           // the exact command lines
    int64_t kb_run = 0;
};

struct ProfileOutcome {
    std::vector<ProfiledRun> runs;
    bool interrupted = false;
    bool tool_failed = false;
    std::string e2e_metric;
    size_t representative = 0;                   // index into runs (a successful one when any)
    nlohmann::json manifest;                     // what profile.json holds
    std::string text;                            // what was printed at the end
};

// nsys profile + export + analyse, runs times; writes DIR/run<i>.{nsys-rep,sqlite,analysis.json}, DIR/report.md,
// DIR/profile.json. Prints as it goes. Throws TraceError/KbError on a bad export or knowledge base.
ProfileOutcome profile_command(const ProfileRequest& req, const ToolInfo& nsys);

// The exact nsys command lines of run `index` (1-based) into out_dir.
std::vector<std::string> nsys_profile_argv(const ToolInfo& nsys, const ProfileRequest& req, const std::string& base);
std::vector<std::string> nsys_export_argv(const ToolInfo& nsys, const std::string& rep, const std::string& sqlite);

// profile.json of an earlier profile: the successful runs' SQLite files and the representative run.
struct ProfileManifest {
    std::string dir;
    std::vector<std::string> sqlite;             // successful runs, in run order
    std::vector<std::map<std::string, double>> metrics;
    std::string representative;                  // its SQLite file
    std::vector<std::string> command;
    std::string model;
};
// Throws TraceError naming the file and what was expected.
ProfileManifest read_profile_manifest(const std::string& dir);

} // namespace sl::cli
