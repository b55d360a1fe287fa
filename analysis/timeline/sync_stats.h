#pragma once
// Synchronisation: how often and how long the host blocked on the GPU (ApiFlag kApiSync calls:
// cudaStreamSynchronize, cudaDeviceSynchronize, cudaEventSynchronize, synchronous cudaMemcpy, ...), per API name,
// and the largest stalls with what the GPU was doing meanwhile.
//
//   wall share   = Σ duration of that API / capture window (TraceMeta capture_end - capture_start)
//   host blocked = Σ over threads of the union of that thread's sync calls (nested/overlapping calls count once)
//   gpu_busy_ns of a stall = union of all GPU ops (any device) inside the stall; a stall with the GPU mostly busy is
//   the host waiting for real work, one with the GPU idle is a wasted round trip.

#include <cstdint>
#include <vector>

#include "analysis/trace/stats.h"
#include "analysis/trace/trace.h"

namespace sl {

struct SyncOptions {
    size_t top_stalls = 10;
};

struct SyncApiStats {
    StrId name = 0;
    Stats duration;
    double wall_share = 0;
};

struct SyncStall {
    int32_t api = kNoIndex;
    int64_t start = 0, end = 0;
    uint32_t thread = 0;
    int64_t gpu_busy_ns = 0;
    int64_t kernels_overlapping = 0;
    StrId top_kernel = 0;            // kernel name with the largest overlap with the stall (0 when none)
    int64_t top_kernel_overlap_ns = 0;
};

struct SyncResult {
    SyncOptions options;
    int64_t wall_ns = 0;
    int64_t calls = 0;
    int64_t total_ns = 0;
    int64_t host_blocked_ns = 0;
    double wall_share = 0;
    std::vector<SyncApiStats> per_api;   // largest total first
    std::vector<SyncStall> stalls;       // longest first
};

// O(API calls · log + GPU ops · (log + top_stalls)).
SyncResult analyze_sync(const Trace& trace, const SyncOptions& options = {});

} // namespace sl
