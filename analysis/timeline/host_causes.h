#pragma once
// Host-side causes of GPU idle time that the trace names: JIT compilation (nvFuser's KernelExecutor::compileFusion,
// NVRTC nvrtcCompileProgram, TorchInductor / Triton compile), autotuning, module loading (cuModuleLoad*,
// cuLibraryLoad*: lazy loading on a kernel's first launch) and the device allocator (cudaMalloc / cudaFree storms,
// cuMemCreate / cuMemMap).
//
// Evidence: host ranges (NVTX push/pop and start/end ranges, Kineto user annotations and CPU ops) and API calls whose
// names match resources/host_causes.json (data: a user file with the same layout replaces it). A cause's host
// intervals are the union of its matching ranges and calls on the threads of one rank; time inside two causes (a
// module load inside a compile range) belongs to the first in the file's precedence order, so each host nanosecond
// has at most one cause.
// The first API call of a process is never a cause: it also creates the CUDA context (PyTorch's first cudaMalloc,
// or cudaFree(0), takes seconds for that, not for allocating).
//
// What a cause explains: the device idle it covers, i.e. the part of every host-wait gap (idle.h: the next op's
// launch call began after the GPU went idle — the host was late) that lies inside the cause's host intervals on the
// same rank. Sync-wait, kernel-wait and unattributed gaps are not host-side work and are never a cause's. Host time
// in a cause before the first GPU op of its rank lies outside the GPU-active window: reported (before_gpu_ns), never
// counted as idle. The idle a cause covers is start-up (or allocator) cost, not the steady state: the time ledger
// gives it to the cause before any generic host-bound finding, and the headline judges the rest of the run without it.
//
// Pure: reads the trace and the idle analysis, returns a value. O(ranges + API calls + gaps), names classified once.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "analysis/io/regex.h"
#include "analysis/timeline/idle.h"
#include "analysis/trace/trace.h"

namespace sl {

class HostCausePatterns {
public:
    struct Cause {
        std::string id, label, label_zh_CN;
    };
    struct Pattern {
        int cause = 0;                 // index into causes()
        bool on_ranges = false, on_api = false;
        bool regex = false;
        std::string text, lower;       // as written / lower-cased (contains)
        Regex re;
    };

    // Parses the host-causes layout (resources/host_causes.json). Throws TraceError naming `source` and the entry on
    // a malformed file (unknown cause, bad regex, missing field, "on" other than range / api / both).
    static HostCausePatterns from_json(const nlohmann::json& doc, const std::string& source);
    static HostCausePatterns load_file(const std::string& path);
    // The user's file when non-empty, else the shipped resources/host_causes.json.
    static HostCausePatterns load(const std::string& user_file = {});

    // Cause index of a range name (api = false) or an API call name (api = true); -1 when none matches.
    int classify(std::string_view name, bool api) const;

    const std::vector<Cause>& causes() const { return causes_; }
    const std::vector<Pattern>& patterns() const { return patterns_; }
    const std::string& source() const { return source_; }

private:
    std::vector<Cause> causes_;
    std::vector<Pattern> patterns_;
    std::string source_;
};

struct HostCauseOptions {
    std::string patterns_file;         // empty = resources/host_causes.json
    size_t max_evidence = 5;           // names listed per cause (largest total time first)
    size_t max_links = 20;             // covered idle pieces kept per cause (longest first)
};

struct HostCauseEvidence {
    std::string name;                  // the range or API name as the trace gives it
    std::string source;                // "nvtx", "annotation", "cpu_op" or "api"
    int64_t count = 0;                 // instances
    int64_t total_ns = 0;              // Σ of their durations (nested instances of one name are each counted)
    int64_t longest_start = 0, longest_end = 0;   // the longest instance, trace clock
};

struct HostCausePiece {
    int64_t start = 0, end = 0;        // device idle covered by the cause, trace clock
    uint16_t device = 0;
};

struct HostCause {
    std::string id, label, label_zh_CN;
    int64_t host_ns = 0;               // the cause's host intervals (union, after precedence), Σ ranks
    int64_t idle_ns = 0;               // device idle those intervals cover (host-wait gaps), Σ devices
    int64_t before_gpu_ns = 0;         // host time of the cause before the first GPU op of its rank
    int64_t first_start = 0, last_end = 0;      // span of its host intervals
    std::vector<HostCauseEvidence> evidence;    // largest total time first, at most max_evidence
    std::vector<HostCausePiece> covered;        // longest covered idle pieces first, at most max_links
};

struct HostCauseResult {
    std::string source;                // the patterns file used
    std::vector<HostCause> causes;     // causes with host time, in precedence order
    int64_t idle_ns = 0;               // Σ causes' idle_ns (each device nanosecond once)
    const HostCause* find(std::string_view id) const;
};

HostCauseResult find_host_causes(const Trace& trace, const IdleResult& idle, const HostCausePatterns& patterns,
                                 const HostCauseOptions& options = {});

// {"source", "idle_ns", "causes": [{id, label, label_zh_CN, host_ns, idle_ns, before_gpu_ns, first_start_ns,
//  last_end_ns, evidence: [{name, source, count, total_ns, longest_start_ns, longest_end_ns}]}]}; times of
//  instants relative to origin_ns (the capture start).
nlohmann::json host_causes_to_json(const HostCauseResult& r, int64_t origin_ns);

} // namespace sl
