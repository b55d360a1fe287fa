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
//   dependency-wait  the next op was already queued — its launch call returned before the gap began, or returned
//               early in a gap it then waited out for at least half of (and at least kernel_wait_threshold_ns) —
//               and the trace shows what it waited on: a stream wait on an event (cudaStreamWaitEvent /
//               hipStreamWaitEvent / cuStreamWaitEvent / *StreamWaitValue*), issued by the launching thread after its
//               previous launch on that stream and before this one. The host did not starve the GPU: the queued work
//               waited on another stream's event. Gap::sync_api names the wait call; dependency_of() also finds the
//               host-blocking call (a synchronous copy, a sync) the launching thread sat in meanwhile;
//   other       everything else (cross-stream dependencies the trace does not show, unlinked ops, ...).
// Precedence: sync-wait, dependency-wait, host-wait, kernel-wait, other. Dependency wait is taken only where the
// trace shows the wait call; without one a gap keeps the cause HTA gives it (host wait when the launch came after
// the gap began, else kernel wait or other), so traces without stream waits read exactly as in HTA. Differences from HTA's get_idle_time_breakdown (which is per stream): HTA counts a
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

enum class GapCause : uint8_t { HostWait = 0, KernelWait = 1, SyncWait = 2, Other = 3, DependencyWait = 4 };
inline constexpr size_t kGapCauses = 5;   // GapCause values (arrays indexed by cause)
const char* gap_cause_name(GapCause c);   // "host_wait", "kernel_wait", "sync_wait", "other", "dependency_wait"

// Kind of a GPU op row.
enum class OpKind : uint8_t { Kernel = 0, Memcpy = 1, Memset = 2 };

struct IdleOptions {
    int64_t kernel_wait_threshold_ns = 30'000;   // gaps shorter than this between back-to-back launches: kernel-wait
    bool per_stream = true;                      // also compute the per-stream (HTA-style) breakdown
};

struct IdleBreakdown {
    std::array<int64_t, kGapCauses> ns{};       // indexed by GapCause
    std::array<int64_t, kGapCauses> count{};
    int64_t total_ns() const { return ns[0] + ns[1] + ns[2] + ns[3] + ns[4]; }
    int64_t host_wait_ns() const { return ns[0]; }
    int64_t kernel_wait_ns() const { return ns[1]; }
    int64_t sync_wait_ns() const { return ns[2]; }
    int64_t other_ns() const { return ns[3]; }
    int64_t dependency_wait_ns() const { return ns[4]; }
};

// 32 bytes (the cause and both kinds share one byte): the gap list is the largest thing the analyses keep, up to one
// row per op, so at 10^7 kernels each byte here is 10 MB at analyze's peak (issue 18; it was 40 bytes).
struct Gap {
    int64_t start = 0, end = 0;
    int32_t prev_row = kNoIndex, next_row = kNoIndex;   // rows in the kernel/memcpy/memset table of that kind
    int32_t sync_api = kNoIndex;                        // the sync call behind a sync-wait gap; the stream-wait
                                                        // call behind a dependency-wait gap
    uint16_t device = 0;
    GapCause cause : 3 = GapCause::Other;
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
    // Σ over the dependency-wait gaps of the longest host-blocking call of the next op's launching thread that
    // overlaps each (what dependency_of() finds per gap): time the host sat in a blocking call (a synchronous copy)
    // behind the GPU's own dependency — the host waited on the GPU, not the GPU on the host.
    int64_t dependency_under_blocking_ns = 0;
};

// O(n log n) in GPU ops + API calls.
IdleResult analyze_idle(const Trace& trace, const IdleOptions& options = {});

// What a dependency-wait gap's next op waited on, for the texts: the stream-wait call (Gap::sync_api), the op's
// launch call, and the longest host-blocking call (ApiFlag kApiSync) of the launching thread that overlaps the gap
// (kNoIndex when none), with how much of the gap it covers.
struct GapDependency {
    int32_t wait_api = kNoIndex;       // cudaStreamWaitEvent / hipStreamWaitEvent / ...
    int32_t launch_api = kNoIndex;     // the next op's launch call
    int32_t blocking_api = kNoIndex;   // the host-blocking call during the gap
    int64_t blocking_overlap_ns = 0;
};
GapDependency dependency_of(const Trace& trace, const Gap& gap);

// Busy fraction of each of `chunks` equal chunks of [from, to) on one device (nsys gpu_time_util, with the busy union
// instead of summed concurrency), from its idle gaps (sorted, disjoint): a chunk's busy time is its length less the
// gap time inside it. Empty when to <= from or chunks <= 0.
std::vector<double> chunk_utilization(const std::vector<Gap>& gaps, uint16_t device, int64_t from, int64_t to,
                                      int chunks);

// Σ gap time by cause inside a set of sorted, disjoint windows [start, end) (a gap counts with its part inside).
std::array<int64_t, kGapCauses> gap_ns_in_windows(const std::vector<Gap>& gaps,
                                                  const std::vector<std::pair<int64_t, int64_t>>& windows);

// Helper shared with other analyses: every GPU op of one device (kernels, memcpys, memsets) sorted by start.
struct OpRef {
    int64_t start = 0, end = 0;
    int32_t row = 0;
    OpKind kind = OpKind::Kernel;
};
std::vector<std::vector<OpRef>> gpu_ops_by_device(const Trace& trace);

} // namespace sl
