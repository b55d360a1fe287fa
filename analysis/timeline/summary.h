#pragma once
// The trace summary behind `sightline-cli summary` and the GUI's first page: nsys-parity tables (cuda_gpu_kern_sum,
// cuda_api_sum, cuda_gpu_mem_time_sum / cuda_gpu_mem_size_sum, nvtx_sum) and per-device busy/idle/gap figures.
//
// Definitions (the JSON contract in resources/schemas/summary.md repeats them):
//  * Statistics per group: total, instances, mean, true median (mean of the two middle values for an even count),
//    min, max, sample standard deviation (n-1; 0 for one instance) of the durations (end - start), as nsys stats.
//  * percent = 100 * group total / sum of the section's totals (nsys "Time (%)": of summed time, not wall time).
//  * Order: total DESC, instances ASC, name ASC (nsys: ORDER BY total DESC, Instances, Name).
//  * Busy time of a device = union of its kernel, memcpy and memset intervals; window = first op start .. last op
//    end; idle = window - busy; utilization = busy / window (0 when the window is empty); gaps = idle intervals
//    between busy periods (see analysis/trace/intervals.h for the merge rules).

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/trace/intervals.h"
#include "analysis/trace/trace.h"

namespace sl {

struct SummaryOptions {
    std::optional<int32_t> rank;   // summarise only devices, processes and threads of this rank; nullopt = all
    size_t top_gaps = 10;          // how many of the largest gaps to list per device
};

// One group of a duration summary (kernel name, API name, NVTX range name).
struct StatRow {
    std::string name;
    int64_t instances = 0;
    int64_t total_ns = 0;
    double avg_ns = 0;
    double med_ns = 0;
    int64_t min_ns = 0;
    int64_t max_ns = 0;
    double stddev_ns = 0;
    double percent = 0;            // of the section's summed time, 0..100, unrounded
};

struct StatSection {
    int64_t count = 0;             // rows summarised
    int64_t total_ns = 0;          // sum of their durations
    std::vector<StatRow> by_name;  // ordered total DESC, instances, name
};

// One memory operation ("[CUDA memcpy Host-to-Device]", "[CUDA memset]", ...): time and size statistics.
struct MemopRow {
    std::string operation;
    int64_t count = 0;
    int64_t total_ns = 0;
    double avg_ns = 0, med_ns = 0, stddev_ns = 0;
    int64_t min_ns = 0, max_ns = 0;
    double percent = 0;            // of summed memop time, 0..100
    int64_t bytes = 0;             // total bytes
    double avg_bytes = 0, med_bytes = 0, stddev_bytes = 0;
    int64_t min_bytes = 0, max_bytes = 0;
};

struct MemopSection {
    int64_t count = 0;
    int64_t total_ns = 0;
    int64_t bytes = 0;
    std::vector<MemopRow> by_operation;   // ordered total_ns DESC, count, operation (cuda_gpu_mem_time_sum)
};

// NVTX ranges grouped by (name, style), as nsys nvtx_sum. style: "PushPop", "StartEnd" or "Annotation" (Kineto
// user annotations). CPU-op ranges are not NVTX and are left out.
struct NvtxRow : StatRow {
    std::string style;
};

struct NvtxSection {
    int64_t count = 0;
    int64_t total_ns = 0;
    std::vector<NvtxRow> by_name;
};

// Gap histogram buckets, lower-inclusive, upper-exclusive, in ns:
//   <1us [0,1000)  1-5us [1000,5000)  5-10us [5000,10000)  10-50us [10000,50000)  50-100us [50000,100000)
//   0.1-1ms [100000,1000000)  >1ms [1000000, inf)
inline constexpr size_t kGapBuckets = 7;
struct GapBucketDef {
    const char* label;
    int64_t lo_ns;
    int64_t hi_ns;                 // exclusive; -1 = unbounded
};
const std::array<GapBucketDef, kGapBuckets>& gap_bucket_defs();
size_t gap_bucket_of(int64_t gap_ns);

struct GapHistogramBin {
    std::string label;
    int64_t lo_ns = 0, hi_ns = -1;
    int64_t count = 0;
    int64_t total_ns = 0;
};

// The op on either side of a gap.
struct GapNeighbor {
    GpuOpRef op;                   // row in Trace::kernels / memcpy / memset
    std::string name;
    uint32_t stream = 0;
    int64_t start_ns = 0, end_ns = 0;
};

// (Named DeviceGap, not Gap: analysis/timeline/idle.h has its own sl::Gap with causes.)
struct DeviceGap {
    int64_t start_ns = 0;          // end of the busy period before it
    int64_t duration_ns = 0;
    GapNeighbor before;                  // the op whose end opens the gap (BusyPeriod::last)
    GapNeighbor after;                   // the op whose start closes it (BusyPeriod::first of the next period)
};

struct GapSummary {
    int64_t count = 0;
    int64_t total_ns = 0;
    std::array<GapHistogramBin, kGapBuckets> histogram;
    std::vector<DeviceGap> largest;      // duration DESC, start ASC; at most SummaryOptions::top_gaps
};

struct DeviceSummary {
    uint16_t device = 0;           // index into TraceMeta::devices
    int32_t id = 0;
    int32_t rank = 0;
    std::string name;
    int64_t kernels = 0, memcpys = 0, memsets = 0;
    int64_t window_start_ns = 0, window_end_ns = 0;   // 0/0 when the device did no GPU work
    int64_t window_ns = 0;
    int64_t busy_ns = 0;
    int64_t idle_ns = 0;
    double utilization = 0;        // busy / window, 0..1
    int64_t busy_periods = 0;
    GapSummary gaps;
};

struct Summary {
    SummaryOptions options;
    StatSection kernels;
    StatSection api;
    MemopSection memops;
    NvtxSection nvtx;
    std::vector<DeviceSummary> devices;   // TraceMeta::devices order, filtered by rank
    std::vector<std::string> warnings;    // the trace's own warnings plus the summary's
};

Summary summarize(const Trace& trace, const SummaryOptions& options = {});

} // namespace sl
