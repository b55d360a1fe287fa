#pragma once
// Sniffing inputs by content and loading traces. One entry point for the GUI and the CLI.

#include <string>
#include <vector>

#include "analysis/trace/load_control.h"
#include "analysis/trace/trace.h"

namespace sl {

enum class InputFormat {
    Missing,        // path does not exist or cannot be read
    Empty,          // 0-byte file
    NsysSqlite,     // SQLite database (nsys export)
    NsysReport,     // .nsys-rep / .qdrep ("NVIDIA Tegra Profiler Report")
    KinetoJson,     // Chrome-trace JSON, plain or gzip
    NcuCsv,         // Nsight Compute CSV export
    NcuReport,      // .ncu-rep ("NVR\0")
    ModelConfig,    // Hugging Face config.json
    Unknown
};
const char* input_format_name(InputFormat f);

// Looks at the first bytes only (and, for JSON, the first few KiB).
InputFormat sniff_file(const std::string& path);

// Loads one trace file (nsys SQLite, .nsys-rep via `nsys export`, Kineto JSON / .json.gz). Throws TraceError with
// file, location, expectation and finding on bad input; Cancelled when control.cancel was raised.
Trace load_trace(const std::string& path, const LoadControl& control = {});

// How graph replays are joined to the traces of their capture (analysis/io/graph_join.h).
struct LoadOptions {
    std::vector<std::string> capture_traces;   // --capture-trace PATH: a capture trace or a folder of them, repeatable
    bool find_captures = true;                 // without capture_traces: a capture_traces/ folder beside each trace
                                               // that replays graphs is joined to it
};

// Loads several trace files (e.g. one per rank) into one workspace Trace; devices and processes keep their rank.
// A file among them that is the trace of a graph capture (graph_join.h: is_capture_trace) is not a rank: it is
// joined to the others' graph replays, as --capture-trace files and a capture_traces/ folder beside a trace are.
Trace load_traces(const std::vector<std::string>& paths, const LoadControl& control = {});
// The same with the capture options.
Trace load_workspace(const std::vector<std::string>& paths, const LoadOptions& options, const LoadControl& control = {});

} // namespace sl
