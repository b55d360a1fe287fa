#include "analysis/io/load.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <new>
#include <sys/stat.h>

#include "analysis/io/graph_join.h"
#include "analysis/io/input_bounds.h"
#include "analysis/io/input_errors.h"
#include "analysis/trace/errors.h"
#include "analysis/trace/release_memory.h"
#include "analysis/io/kineto_reader.h"
#include "analysis/trace/merge.h"
#include "analysis/io/nsys_reader.h"
#include "analysis/trace/cancel_point.h"

namespace sl {

const char* input_format_name(InputFormat f)
{
    switch (f) {
    case InputFormat::Missing: return "missing";
    case InputFormat::Empty: return "empty";
    case InputFormat::NsysSqlite: return "nsys-sqlite";
    case InputFormat::NsysReport: return "nsys-rep";
    case InputFormat::KinetoJson: return "kineto-json";
    case InputFormat::NcuCsv: return "ncu-csv";
    case InputFormat::NcuReport: return "ncu-rep";
    case InputFormat::ModelConfig: return "model-config";
    case InputFormat::Unknown: break;
    }
    return "unknown";
}

InputFormat sniff_file(const std::string& path)
{
    struct stat st {};
    // Regular files only: opening a FIFO blocks until a writer comes, a device never ends (issue 17).
    if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
        return InputFormat::Missing;
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return InputFormat::Missing;
    char buf[4096];
    in.read(buf, sizeof buf);
    const size_t n = static_cast<size_t>(in.gcount());
    if (n == 0)
        return InputFormat::Empty;
    const std::string_view head(buf, n);
    if (head.substr(0, 16) == std::string_view("SQLite format 3\0", 16))
        return InputFormat::NsysSqlite;
    if (head.substr(0, 28) == "NVIDIA Tegra Profiler Report")
        return InputFormat::NsysReport;
    if (n >= 4 && std::memcmp(buf, "NVR\0", 4) == 0)
        return InputFormat::NcuReport;
    if (n >= 2 && static_cast<unsigned char>(buf[0]) == 0x1f && static_cast<unsigned char>(buf[1]) == 0x8b)
        return InputFormat::KinetoJson;
    size_t i = 0;
    if (n >= 3 && static_cast<unsigned char>(buf[0]) == 0xEF && static_cast<unsigned char>(buf[1]) == 0xBB &&
        static_cast<unsigned char>(buf[2]) == 0xBF)
        i = 3;   // UTF-8 BOM
    while (i < n && (buf[i] == ' ' || buf[i] == '\n' || buf[i] == '\r' || buf[i] == '\t'))
        ++i;
    const std::string_view rest = head.substr(i);
    if (!rest.empty() && rest[0] == '{') {
        // A model config has these keys near the top; a trace has traceEvents / schemaVersion / deviceProperties.
        const bool config = rest.find("\"model_type\"") != std::string_view::npos ||
                            rest.find("\"architectures\"") != std::string_view::npos ||
                            rest.find("\"num_hidden_layers\"") != std::string_view::npos;
        const bool trace = rest.find("\"traceEvents\"") != std::string_view::npos ||
                           rest.find("\"schemaVersion\"") != std::string_view::npos ||
                           rest.find("\"deviceProperties\"") != std::string_view::npos;
        return config && !trace ? InputFormat::ModelConfig : InputFormat::KinetoJson;
    }
    if (!rest.empty() && rest[0] == '[')
        return InputFormat::KinetoJson;   // Chrome trace "JSON array format"
    // ncu CSV: possibly preceded by ==PROF== lines; the header starts with "ID", (quoted).
    if (head.find("\"ID\",") != std::string_view::npos)
        return InputFormat::NcuCsv;
    return InputFormat::Unknown;
}

namespace {

Trace load_one(const std::string& path, const LoadControl& control);

} // namespace

Trace load_trace(const std::string& path, const LoadControl& control)
{
    const CancelScope scope(control.cancel);
    Trace t = load_one(path, control);
    release_free_memory();   // the readers' temporaries (per-thread parts, SQLite caches, buffers)
    return t;
}

namespace {

Trace read_one(const std::string& path, const LoadControl& control);

// The names a trace gives its GPUs, processes, threads and streams, its versions and the readers' warnings, escaped
// as the readers escape kernel names (escape_control_chars, the rule of terminal_safe): a GPU named
// "X\nsightline-cli: all good" (nsys TARGET_INFO_GPU, Kineto deviceProperties) printed a line of its own in every
// text output, and its finding subjects carried the line feed on. One place, for every reader.
void escape_meta_names(TraceMeta& m)
{
    auto fix = [](std::string& s) {
        if (has_control_chars(s))
            s = escape_control_chars(s);
    };
    for (auto& d : m.devices) {
        fix(d.name);
        fix(d.chip);
    }
    for (auto& p : m.processes)
        fix(p.name);
    for (auto& t : m.threads)
        fix(t.name);
    for (auto& s : m.streams)
        fix(s.label);
    fix(m.tool_version);
    fix(m.schema_version);
    for (auto& w : m.warnings)
        fix(w);
    bool keys = false;
    for (auto& [k, v] : m.environment) {
        fix(v);
        keys = keys || has_control_chars(k);
    }
    if (keys) {
        std::map<std::string, std::string> env;
        for (auto& [k, v] : m.environment)
            env[escape_control_chars(k)] = std::move(v);
        m.environment = std::move(env);
    }
}

// An allocation that fails anywhere in a reader is a located error: the file, the last place the reader checked
// the memory budget, the memory in use and the budget (input_bounds.h).
Trace load_one(const std::string& path, const LoadControl& control)
{
    try {
        Trace t = read_one(path, control);
        escape_meta_names(t.meta);
        return t;
    } catch (const std::bad_alloc&) {
        throw out_of_memory_error(path);
    }
}

Trace read_one(const std::string& path, const LoadControl& control)
{
    check_input_file(path, InputKind::Trace, "an nsys SQLite export or a Kineto JSON trace");
    const InputFormat f = sniff_file(path);
    switch (f) {
    case InputFormat::Missing:
        // check_input_file passed; the file changed since, or could not be opened after all: say what happened.
        throw TraceError(path, "", "a readable trace file", [&] {
            const std::string why = input_file_problem(path);
            return why.empty() ? std::string("a file that cannot be read") : why;
        }());
    case InputFormat::Empty:
        throw TraceError(path, "", "an nsys SQLite export or a Kineto JSON trace", "an empty (0-byte) file");
    case InputFormat::NsysSqlite:
        return read_nsys_sqlite(path, control);
    case InputFormat::NsysReport:
        return read_nsys_report(path, control);
    case InputFormat::KinetoJson:
        return read_kineto_json(path, control);
    case InputFormat::NcuCsv:
    case InputFormat::NcuReport:
        throw TraceError(path, "", "a timeline trace (nsys SQLite export or Kineto JSON)",
                         "an Nsight Compute export; pass it with --ncu");
    case InputFormat::ModelConfig:
        throw TraceError(path, "", "a timeline trace (nsys SQLite export or Kineto JSON)",
                         "a model config.json; pass it with --model");
    case InputFormat::Unknown:
        break;
    }
    throw TraceError(path, "file header", "an nsys SQLite export, an .nsys-rep, or a Kineto JSON trace",
                     "an unrecognised format");
}

} // namespace

Trace load_traces(const std::vector<std::string>& paths, const LoadControl& control)
{
    return load_workspace(paths, LoadOptions{}, control);
}

// The paths with every file named twice left out (the same device and inode: `t.json t.json`, overlapping shell
// globs, a link and its target), the first name kept; `warnings` says which were left out. A path that cannot be
// stat'ed is kept: its reader says what is wrong with it.
static std::vector<std::string> distinct_files(const std::vector<std::string>& paths, std::vector<std::string>& warnings)
{
    std::vector<std::string> out;
    std::vector<std::pair<dev_t, ino_t>> seen;
    for (const auto& p : paths) {
        struct stat st {};
        if (::stat(p.c_str(), &st) != 0) {
            out.push_back(p);
            continue;
        }
        const auto id = std::make_pair(st.st_dev, st.st_ino);
        const auto it = std::find(seen.begin(), seen.end(), id);
        if (it == seen.end()) {
            seen.push_back(id);
            out.push_back(p);
            continue;
        }
        size_t first = 0;
        for (size_t i = 0; i < out.size(); ++i) {
            struct stat o {};
            if (::stat(out[i].c_str(), &o) == 0 && o.st_dev == st.st_dev && o.st_ino == st.st_ino) {
                first = i;
                break;
            }
        }
        warnings.push_back(terminal_safe(p) + " is the same file as " + terminal_safe(out[first]) +
                           " (given twice): read once, as one input, not as two ranks");
    }
    return out;
}

Trace load_workspace(const std::vector<std::string>& given, const LoadOptions& options, const LoadControl& control)
{
    const CancelScope scope(control.cancel);
    if (given.empty())
        throw TraceError("", "", "at least one trace file", "none");
    std::vector<std::string> twice;
    const std::vector<std::string> paths = distinct_files(given, twice);
    // The captures a user names are read first (a bad path fails before a long load).
    std::vector<CaptureInput> capture_in;
    for (const auto& c : options.capture_traces)
        for (auto& in : capture_inputs(c, "option"))
            capture_in.push_back(std::move(in));
    const size_t steps = paths.size() + capture_in.size();
    auto sub_control = [&](size_t i) {
        LoadControl sub = control;
        if (control.progress)
            sub.progress = [&, i](double frac, std::string_view stage) {
                control.progress((static_cast<double>(i) + frac) / static_cast<double>(steps), stage);
            };
        return sub;
    };
    std::vector<LoadedCapture> captures;
    for (size_t i = 0; i < capture_in.size(); ++i)
        captures.push_back(read_capture(capture_in[i], sub_control(i)));
    std::vector<Trace> parts;
    std::vector<std::string> part_paths;
    parts.reserve(paths.size());
    for (size_t i = 0; i < paths.size(); ++i) {
        Trace t = load_trace(paths[i], sub_control(capture_in.size() + i));
        // A capture trace beside other traces is joined to them, never merged as a rank.
        if (paths.size() > 1 && is_capture_trace(t)) {
            captures.push_back(read_capture(capture_inputs(paths[i], "input").front(), control));
            continue;
        }
        parts.push_back(std::move(t));
        part_paths.push_back(paths[i]);
    }
    if (parts.empty())
        throw TraceError(paths.front(), "", "a trace to analyse beside the graph-capture traces",
                         "only traces of graph captures (they are joined to a replay, not analysed alone)");
    // Ranks in one folder share its capture_traces/: read once, each rank's replay picks its own capture from them.
    std::map<std::string, std::vector<LoadedCapture>> beside;
    for (size_t i = 0; i < parts.size(); ++i) {
        if (!has_graph_replay(parts[i]))
            continue;
        const std::vector<LoadedCapture>* use = &captures;
        if (captures.empty() && options.find_captures) {
            const std::string folder = std::filesystem::path(part_paths[i]).parent_path().string();
            auto it = beside.find(folder);
            if (it == beside.end()) {
                // Found, not asked for: one that cannot be read is skipped with a note, never fails the load.
                std::vector<LoadedCapture> read;
                try {
                    for (const auto& in : captures_beside(part_paths[i])) {
                        try {
                            read.push_back(read_capture(in, control));
                        } catch (const TraceError& e) {
                            parts[i].meta.warnings.push_back("the capture trace beside it could not be read (" +
                                                             std::string(e.what()) + "); not joined");
                        }
                    }
                } catch (const TraceError& e) {
                    parts[i].meta.warnings.push_back("the capture_traces/ folder beside it could not be read (" +
                                                     std::string(e.what()) + "); not joined");
                }
                it = beside.emplace(folder, std::move(read)).first;
            }
            use = &it->second;
        }
        join_graph_captures(parts[i], *use);
    }
    // join_graph_captures added rows; the reader's temporaries are gone already (load_trace released them).
    Trace out = parts.size() == 1 ? std::move(parts.front()) : merge_traces(std::move(parts));
    out.meta.warnings.insert(out.meta.warnings.end(), twice.begin(), twice.end());
    return out;
}

} // namespace sl
