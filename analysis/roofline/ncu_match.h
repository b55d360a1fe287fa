#pragma once
// Whether an Nsight Compute export belongs to the trace it is joined to: the same GPU and the same kernels.
//
// Device: the GPU the ncu file names (its "Device" column; both names resolved through the spec database where they
// can be, else compared as text), its compute capability ("CC"), and the SM count its launches imply, which needs
// no device column (older details pages have none): SMs = grid ÷ (waves per SM × blocks per SM), the inverse of
// ncu's "Waves Per SM" (launches of at least half a wave, whose two printed decimals keep it within 1 %; their
// median). Each is compared with the trace's first device (its own properties, else its spec row).
// Kernels: every ncu launch should join a trace kernel (join_ncu_to_trace); those that do not are named.
//
// A mismatch does not stop the join: it is said, with what differs, in `warnings` (a code and its arguments, as
// the trace's own warnings are), in the CLI's text and JSON and in the workbench.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/timeline/workload.h"
#include "analysis/trace/trace.h"

namespace sl {

struct NcuReport;
class GpuDatabase;

struct NcuTraceMatch {
    int64_t launches = 0;                       // in the ncu file
    int64_t joined = 0;                         // of those, joined to a trace kernel
    std::vector<std::string> unmatched_names;   // distinct display names of unjoined launches, in file order (<= 5)
    int64_t unmatched_distinct = 0;             // how many distinct names did not join
    std::string ncu_device;                     // what the file says or implies: a name, "compute capability 8.0",
                                                // "108 SMs" ("" when it says nothing)
    std::string trace_device;                   // the trace's first device name ("" when none)
    std::optional<int> ncu_sm_count;            // from the file (a column) or implied by its launches
    std::optional<int> trace_sm_count;          // the trace's device, else its spec row
    bool device_mismatch = false;
    std::vector<std::string> device_evidence;   // each comparison that differed: "108 SMs ≠ 132 SMs", ...
    bool kernel_mismatch = false;               // a launch joined no trace kernel
    // codes "ncu_device_mismatch" (args: ncu_device, trace_device, evidence) and "ncu_kernels_unmatched" (args:
    // unmatched, launches, names), each with an English message.
    std::vector<WorkloadWarning> warnings;
};

// `join` is join_ncu_to_trace(ncu, trace); `db` may be null (names compared as text, no spec-row SM count).
NcuTraceMatch match_ncu_to_trace(const NcuReport& ncu, const Trace& trace, const std::vector<int64_t>& join,
                                 const GpuDatabase* db = nullptr);

// What the file says of its GPU, as a DeviceInfo for GpuDatabase::identify: the device name, compute capability
// and SM count (ncu_implied_sm_count) where it gives them; every field empty when it says nothing.
DeviceInfo ncu_device_info(const NcuReport& ncu);

// The SM count the launches imply (see above); nullopt when no launch fills half a wave or they disagree by more
// than 3 %.
std::optional<int> ncu_implied_sm_count(const NcuReport& ncu);

} // namespace sl
