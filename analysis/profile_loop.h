#pragma once
// The analysis loop of seed 004 (figure 1), shared by sightline-cli (profile / deep-dive / verify) and the GUI's
// Profile… and Deep-dive focus set… dialogs: profile the user's command under nsys N times (export, analyse,
// run-to-run spread, knowledge base), and run ncu on a trace's focus set (export the CSV, join it, re-run the rules).
//
// No Qt and no terminal here: everything the loop says goes through LoopIo (the CLI prints it, the GUI shows it in a
// live log), and a cancel flag stops the running tool (SIGINT to its process group, SIGKILL after a grace period;
// analysis/io/process.h) while what is done is kept. The GUI calls these functions on a worker thread.

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/diagnosis/ncu_target.h"
#include "analysis/io/process.h"
#include "analysis/pipeline.h"

namespace sl {

// Minimum versions: the nsys SQLite schemas the reader knows start at 2022.1; ncu's --import/--csv/--page raw
// and regex kernel filters are in every release since 2022.1.
inline const std::vector<int> kNsysMinimum = {2022, 1};
inline const std::vector<int> kNcuMinimum = {2022, 1};

// Finds nsys / ncu on PATH (ToolInfo::error explains a missing or too-old one: the version needed, where to get it).
ToolInfo find_nsys();
ToolInfo find_ncu();

// Where the loop's words go, and how it is stopped.
struct LoopIo {
    // Everything the loop says, in chunks that end with '\n' (the commands it runs as "$ ...", each output line of a
    // tool as "  [nsys] ...", its own messages). Empty: silent.
    std::function<void(const std::string& text)> print;
    // "run i of N" as a run starts (1-based).
    std::function<void(int run, int runs)> on_run;
    const std::atomic<bool>* cancel = nullptr;   // polled; true stops the running tool and the loop
    std::string prefix = "sightline-cli: ";      // before the loop's own messages
    std::string cancel_name = "Ctrl-C";          // "nsys was stopped by <cancel_name>"
    int64_t grace_ms = 10'000;                   // nsys and ncu finish writing their report on SIGINT; give them time
    void say(const std::string& text) const
    {
        if (print)
            print(text);
    }
    bool cancelled() const { return cancel && cancel->load(); }
};

// Says "$ <command line>" and runs it in cwd with env added, each output line said as "  [label] ...".
ProcessResult run_tool(const std::vector<std::string>& argv, const std::string& label, const LoopIo& io,
                       const std::string& stdout_file = {}, int64_t timeout_ms = 0, const std::string& cwd = {},
                       const std::map<std::string, std::string>& env = {});
// One line on why a run did not succeed ("nsys was stopped by Ctrl-C", "timed out after 5 s", "exited with 1").
std::string describe_failure(const ProcessResult& r, const std::string& label, const std::string& cancel_name = "Ctrl-C");

// Whitespace-separated words of --nsys-args / --ncu-args (quotes group words: "--capture-range=nvtx" 'a b').
std::vector<std::string> split_words(const std::string& s);

// ---- profile (steps 1, 3, 5) -----------------------------------------------------------------------------------

struct ProfileRequest {
    std::vector<std::string> command;
    std::vector<std::string> nsys_args;          // extra, after Sightline's own flags (later flags win in nsys)
    int runs = 1;
    std::string out_dir;
    std::string cwd;                             // working directory of nsys and the command; empty = ours
    std::map<std::string, std::string> env;      // added to the environment of nsys and the command
    int64_t timeout_ms = 0;                      // per nsys run; 0 = none
    std::string kb_path;                         // empty = the default knowledge base
    bool record = true;                          // write the runs into the knowledge base
    PipelineOptions pipeline;                    // --model / --gpu / shape for the Roofline and Δ_retest
    // Writes the representative run's Markdown report (trace, output file); true when written. Empty: no report.
    std::function<bool(const std::string& trace, const std::string& md)> write_report;
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
    std::string manifest_path;
    std::string text;                            // what was said at the end
    bool any_ok() const
    {
        for (const auto& r : runs)
            if (r.ok)
                return true;
        return false;
    }
};

// nsys profile + export + analyse, req.runs times; writes DIR/run<i>.{nsys-rep,sqlite,analysis.json}, the report
// (req.write_report) and DIR/profile.json. Says what it does as it goes. Throws TraceError/KbError on a bad export
// or knowledge base.
ProfileOutcome profile_command(const ProfileRequest& req, const ToolInfo& nsys, const LoopIo& io);

// The exact nsys command lines of one run whose report goes to `base` (without extension).
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

// ---- deep-dive (step 4) ----------------------------------------------------------------------------------------

// The ncu kernel filter and launch window for a trace's focus set (ncu_target over its kernels; regex with "regex:").
NcuTarget focus_ncu_target(const PipelineResult& r);

struct DeepDiveRequest {
    std::string trace;                           // a trace, or a profile directory (its representative run)
    std::string out_dir;                         // empty: the profile directory, or the trace's directory
    std::string set = "roofline";                // ncu --set: roofline or full
    std::vector<std::string> ncu_args;           // extra ncu flags, before the command
    std::vector<std::string> command;
    std::string cwd;
    std::map<std::string, std::string> env;
    int64_t timeout_ms = 0;                      // per ncu call; 0 = none
    std::optional<int64_t> launch_skip, launch_count;   // override the steady-state window
    PipelineOptions pipeline;                    // --model etc.; the model of a profile directory when empty
};

// What deep_dive_plan finds before anything runs: the focus set and the exact ncu command lines.
struct DeepDivePlan {
    std::string trace;                           // the trace file (a profile directory's representative run)
    std::string base;                            // <out_dir>/deep_dive, absolute
    std::string rep, csv, analysis_json;         // base + .ncu-rep / .csv / .analysis.json
    PipelineOptions pipeline;
    std::shared_ptr<const PipelineResult> before;
    NcuTarget target;
    std::vector<std::string> profile_argv, import_argv;   // the exact ncu command lines (set_ncu_commands)
};
// Runs the pipeline on the trace and forms the focus set (target.names is empty when the trace has no kernels);
// the command lines name "ncu". Throws TraceError (bad trace or profile.json).
DeepDivePlan deep_dive_plan(const DeepDiveRequest& req);
// Points the plan's files (base, rep, csv, analysis_json) at <dir>/deep_dive.*.
void set_deep_dive_dir(DeepDivePlan& plan, const std::string& dir);
// (Re)writes plan.profile_argv / import_argv for req's set, extra ncu flags and command, with ncu.path ("ncu" when
// empty): what the GUI shows before it runs, and what deep_dive_run runs.
void set_ncu_commands(DeepDivePlan& plan, const DeepDiveRequest& req, const ToolInfo& ncu);

struct DeepDiveOutcome {
    bool ok = false;
    bool interrupted = false;
    bool tool_failed = false;
    std::string error;
    size_t launches = 0, joined = 0;             // ncu launches in the CSV, and those joined to trace kernels
    std::vector<std::string> added;              // "[severity] title" of the findings the counters add
    size_t findings_before = 0;
};
// ncu --export, ncu --import --csv, join and re-run the rules; writes plan.csv and plan.analysis.json.
DeepDiveOutcome deep_dive_run(const DeepDivePlan& plan, const DeepDiveRequest& req, const LoopIo& io);

} // namespace sl
