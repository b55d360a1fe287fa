#pragma once
// Idle attribution: every gap in a device's GPU activity, with its cause.
//
// Busy time of a device = union of its kernel, memcpy and memset intervals; its active window runs from the first
// op start to the last op end; a gap = an idle interval between two busy periods (ARCHITECTURE.md). Each gap is
// attributed through the GPU op that ends it (the "next" op) and that op's launching API call:
//   sync-wait   the next op's launch call started after the gap began (the host was late) and a host-blocking
//               API of the same process (ApiFlag kApiSync: cudaStreamSynchronize, cudaDeviceSynchronize,
//               cudaEventSynchronize, synchronous cudaMemcpy, ...) was in progress between the gap start and that
//               launch: the host was late because it sat waiting for the GPU to drain. Ops already queued when the
//               GPU went idle are never sync-wait, even while the host blocks in a sync further on; ops with no known
//               launch call (unlinked) are never host- or sync-wait, as in HTA;
//   host-wait   otherwise, the next op's launch call started after the gap began (HTA: ts_runtime > prev_end): the
//               CPU could not feed the GPU;
//   kernel-wait otherwise, a gap shorter than kernel_wait_threshold_ns (default 30 µs, HTA consecutive_kernel_delay)
//               between back-to-back launches: launch latency;
//   other       everything else (cross-stream/event dependencies, unlinked ops, ...).
// Precedence is that order. Differences from HTA's get_idle_time_breakdown (which is per stream): HTA counts a
// stream as idle while another stream is busy, and has no sync-wait class; Sightline's device-level breakdown only
// counts time when *no* stream of the device is busy (so it sums to the device idle time, seed 004's T_idle), and
// separates sync-wait from host-wait. The per-stream breakdown below follows HTA's per-stream gaps (previous end on
// the same stream) with the same four causes. HTA rounds to integer µs; Sightline keeps ns.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/trace/trace.h"

namespace sl {

enum class GapCause : uint8_t { HostWait = 0, KernelWait = 1, SyncWait = 2, Other = 3 };
const char* gap_cause_name(GapCause c);   // "host_wait", "kernel_wait", "sync_wait", "other"

// Kind of a GPU op row.
enum class OpKind : uint8_t { Kernel = 0, Memcpy = 1, Memset = 2 };

struct IdleOptions {
    int64_t kernel_wait_threshold_ns = 30'000;   // gaps shorter than this between back-to-back launches: kernel-wait
    bool per_stream = true;                      // also compute the per-stream (HTA-style) breakdown
};

struct IdleBreakdown {
    std::array<int64_t, 4> ns{};       // indexed by GapCause
    std::array<int64_t, 4> count{};
    int64_t total_ns() const { return ns[0] + ns[1] + ns[2] + ns[3]; }
    int64_t host_wait_ns() const { return ns[0]; }
    int64_t kernel_wait_ns() const { return ns[1]; }
    int64_t sync_wait_ns() const { return ns[2]; }
    int64_t other_ns() const { return ns[3]; }
};

// 32 bytes (the cause and both kinds share one byte): the gap list is the largest thing the analyses keep, up to one
// row per op, so at 10^7 kernels each byte here is 10 MB at analyze's peak (issue 18; it was 40 bytes).
struct Gap {
    int64_t start = 0, end = 0;
    int32_t prev_row = kNoIndex, next_row = kNoIndex;   // rows in the kernel/memcpy/memset table of that kind
    int32_t sync_api = kNoIndex;                        // the sync call behind a sync-wait gap
    uint16_t device = 0;
    GapCause cause : 2 = GapCause::Other;
    OpKind prev_kind : 2 = OpKind::Kernel;
    OpKind next_kind : 2 = OpKind::Kernel;
    int64_t duration() const { return end - start; }
};
static_assert(sizeof(Gap) == 32, "Gap is kept once per idle interval: keep it at 32 bytes");

struct DeviceIdle {
    uint16_t device = 0;
    int64_t first_start = 0, last_end = 0;
    int64_t window_ns = 0;      // last_end - first_start (HTA kernel_time; seed 004 T_total)
    int64_t busy_ns = 0;        // union of ops
    int64_t idle_ns = 0;        // window - busy = Σ gaps
    double idle_fraction = 0;   // η_idle = idle / window
    int64_t ops = 0;
    IdleBreakdown breakdown;
};

struct StreamIdle {
    uint16_t device = 0;
    uint32_t stream = 0;
    int64_t ops = 0;
    int64_t busy_ns = 0, idle_ns = 0;
    IdleBreakdown breakdown;
};

struct GapBucket {
    int64_t lo_ns = 0, hi_ns = 0;   // [lo, hi); hi = INT64_MAX for the last
    int64_t count = 0, total_ns = 0;
};

struct IdleResult {
    IdleOptions options;
    std::vector<DeviceIdle> devices;   // one per TraceMeta::devices entry (that has ops)
    std::vector<StreamIdle> streams;
    std::vector<Gap> gaps;             // device-level gaps, in time order per device
    std::vector<GapBucket> histogram;  // device gaps by size: <1, 1-5, 5-10, 10-50, 50-100 µs, 0.1-1 ms, >1 ms
};

// O(n log n) in GPU ops + API calls.
IdleResult analyze_idle(const Trace& trace, const IdleOptions& options = {});

// Helper shared with other analyses: every GPU op of one device (kernels, memcpys, memsets) sorted by start.
struct OpRef {
    int64_t start = 0, end = 0;
    int32_t row = 0;
    OpKind kind = OpKind::Kernel;
};
std::vector<std::vector<OpRef>> gpu_ops_by_device(const Trace& trace);

} // namespace sl
