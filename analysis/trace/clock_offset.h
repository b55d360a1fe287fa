#pragma once
// Host/device clock offset: when the GPU timestamps of a trace sit on a different clock from its host timestamps
// (seen in real Kineto traces from ROCm and some CUPTI builds: every CPU event at 0-26 ms, every GPU op at
// 151-308 ms), launch-to-start delays turn into hundreds of milliseconds of "queue delay" and the GPU seems idle
// while the host works. Two signs, both impossible on one clock:
//   * GPU ops that start before the launch call that issued them began (by more than negative_tolerance_ns);
//   * a floor on launch -> start delay far above any plausible queue: even the fastest of all linked ops waited
//     longer than min_plausible_floor_ns. On one clock, a GPU that drains its queue (any sync, any idle moment)
//     starts the next op within microseconds of its launch; on the 20 real Kineto traces in ../shared/data the
//     smallest delay is 2-45 us.
// A floor alone can also be a standing queue (a GPU-bound run whose host launches ahead and never drains inside the
// capture: CUDA-graph replay, an async decode loop). A device-wide sync that waited (cudaDeviceSynchronize,
// cuCtxSynchronize; longer than min_sync_wait_ns) returns right after the GPU finished on one clock, so the lateness
// it pins (last end of the work launched before it - its return) decides: at most min_plausible_floor_ns, the floor
// is queue and nothing is detected; larger, that lateness is the offset.
// Otherwise the estimate is the smallest launch -> start delay; correcting moves every GPU op (kernels, copies, sets, GPU
// annotations) by -(estimate - assumed_latency_ns), so the fastest launch starts assumed_latency_ns after its call.

#include <cstdint>
#include <string>

#include "analysis/trace/trace.h"

namespace sl {

struct ClockOffsetOptions {
    int64_t min_plausible_floor_ns = 2'000'000;   // 2 ms: the fastest launch of a trace never waits this long
    int64_t negative_tolerance_ns = 1'000;        // timestamps rounded to 1 us in Kineto JSON
    double negative_share = 0.01;                 // share of linked ops starting before their call began
    int64_t min_links = 3;                        // fewer linked GPU ops: no verdict
    int64_t assumed_latency_ns = 5'000;           // launch -> start of the fastest op after correction
    int64_t min_sync_wait_ns = 100'000;           // a sync shorter than this may not have waited for anything
};

struct ClockOffset {
    bool detected = false;
    int64_t links = 0;              // GPU ops linked to their launch call
    int64_t min_delay_ns = 0;       // smallest launch-call start -> GPU start
    int64_t negative = 0;           // ops that started before their launch call began
    int64_t shift_ns = 0;           // what to add to GPU times (0 when not detected)
    bool sync_pinned = false;       // a device-wide sync that waited pinned the GPU clock's lateness
    int64_t sync_lateness_ns = 0;   // that lateness (GPU-clock last end - sync return), when pinned
    std::string reason;             // human-readable evidence
};

// Needs the kernel/copy -> API links that Trace::finish() computes. Pure.
ClockOffset detect_clock_offset(const Trace& trace, const ClockOffsetOptions& options = {});

// Adds shift_ns to every GPU-clock time (kernels, memcpy, memset, GPU user annotations).
void shift_gpu_times(Trace& trace, int64_t shift_ns);

// shift_gpu_times, and the capture window with it. A profiler's window that reached past every host event only
// because the GPU ops ran late (or early) on their own clock (a Kineto "Trace" span is the union of host and device
// activity: 0-308 ms for CPU events at 0-26 ms and GPU ops at 151-308 ms) ends (starts) where the corrected GPU ops
// or the host events do, whichever is later (earlier), plus the margin the profiler left past the GPU ops. A window
// that did not reach the GPU ops' own-clock extreme is the host's and stays. The window before is kept in
// meta.uncorrected_capture_start/end.
void shift_gpu_times_and_capture(Trace& trace, int64_t shift_ns);

} // namespace sl
