#pragma once
// The timeline's level-of-detail index, built once per trace on a worker and immutable afterwards.
//
// Lanes: per device, one lane per stream (kernels, copies, memsets) and one idle-gap lane; per CPU thread one
// lane of API calls, then its host ranges as a flame chart: one lane per nesting depth of its NVTX ranges, Kineto
// user annotations and CPU operators (HostRanges), then one per depth of its Python frames (Python), each family
// nested on its own. A lane holds its items as references into the trace
// (packed, about 1 byte each: PackedRefs), sorted by start, plus the running maximum of their ends every kBlock items (so the first visible item is
// found by binary search even when items overlap). For every zoom level 2^L ns per pixel where it pays off, runs of
// items narrower than a bucket and separated by less than a bucket are pre-merged into one "N kernels" span; a
// view draws at most a few spans per pixel and never walks every event. The build is a few O(n) passes per lane,
// lanes on parallel threads (SIGHTLINE_LOAD_THREADS; the result does not depend on the thread count).
//
// Coarse first (issue 18): buildCoarse() skips the search for each lane's finest stored level and stores only the
// coarse levels (2^L ns per pixel with the whole trace at most kCoarsePixels wide), one pass per lane, and leaves out
// what drawing the trace does not need: the gap lanes are there but empty (no items, blocks or levels) and there is
// no kernel lookup (kernelLookup() is null). A view shows the trace from it while refine() adds the finer levels,
// the gap lanes and the lookup on a worker; refine()'s index equals build()'s.

#include <QString>
#include <cstdint>
#include <memory>
#include <vector>

#include "analysis/trace/trace.h"
#include "analysis/trace/load_control.h"
#include "model/kernel_lookup.h"
#include "model/packed_refs.h"

namespace sl {

// What an item reference points at. Packed into the top bits of a 32-bit reference.
enum class ItemKind : uint8_t { Kernel = 0, Memcpy = 1, Memset = 2, Api = 3, Range = 4, Gap = 5 };

struct ItemRef {
    ItemKind kind = ItemKind::Kernel;
    uint32_t row = 0;   // row in the table of that kind (for gaps: index into the lane's own gap list)
    bool operator==(const ItemRef&) const = default;
};

// HostRanges: NVTX ranges, Kineto user annotations and CPU ops of one thread at one nesting depth (depth among
// those three kinds only); Python: the thread's Kineto python_function frames at one depth (among Python frames).
enum class LaneKind : uint8_t { Stream, Gaps, ApiThread, HostRanges, Python };

// A pre-merged span at one zoom level: `count` consecutive items of the lane starting at item `first`.
struct LodSpan {
    int64_t start = 0, end = 0;
    uint32_t first = 0;
    uint32_t count = 0;
    bool operator==(const LodSpan&) const = default;
};

// One zoom level's spans, in item order and covering the lane's items without a hole (span j + 1 starts at the item
// after span j's last), stored in 16 bytes a span instead of LodSpan's 24: the start, the first item and the
// length end - start; a span's count is where the next one starts. A length that does not fit 32 bits (4.3 s: a
// long range, or a run of small items merged at a coarse level) is kept beside them, looked up by binary search.
class LodLevel {
public:
    LodLevel() = default;
    // `spans` as the build makes them: contiguous from item 0.
    explicit LodLevel(const std::vector<LodSpan>& spans);
    size_t size() const { return start_.size(); }
    bool empty() const { return start_.empty(); }
    LodSpan operator[](size_t j) const
    {
        const int64_t s = start_[j];
        const uint32_t len = length_[j];
        const uint32_t next = j + 1 < first_.size() ? first_[j + 1] : items_;
        return {s, len != kLong ? s + len : longEnd(j), first_[j], next - first_[j]};
    }
    // The span holding item i (the last one when i is past the lane's items); 0 for an empty level.
    size_t spanOfItem(uint32_t i) const;
    std::vector<LodSpan> toVector() const;
    size_t memoryBytes() const;
    bool operator==(const LodLevel&) const = default;

private:
    static constexpr uint32_t kLong = UINT32_MAX;
    struct LongEnd {
        uint32_t span = 0;
        int64_t end = 0;
        bool operator==(const LongEnd&) const = default;
    };
    int64_t longEnd(size_t j) const;
    std::vector<int64_t> start_;
    std::vector<uint32_t> first_;
    std::vector<uint32_t> length_;
    std::vector<LongEnd> longEnds_;   // by span, the spans whose length is kLong
    uint32_t items_ = 0;              // one past the last span's last item
};

struct TimelineLane {
    LaneKind kind = LaneKind::Stream;
    uint16_t device = 0;          // Stream, Gaps
    uint32_t stream = 0;          // Stream
    uint32_t thread = 0;          // ApiThread, HostRanges, Python (index into TraceMeta::threads)
    uint8_t depth = 0;            // HostRanges, Python: nesting depth within the family on the thread
    // HostRanges: bit (1 << RangeKind) for each kind of range the lane holds.
    uint8_t rangeKinds = 0;
    // Stream: how many of its items are kernels, copies and memsets (a copy stream is labelled as one).
    uint32_t kernels = 0, copies = 0, memsets = 0;
    // Packed refs (kind << 29 | row), sorted by start. In a gap lane, item i is gap i and items[i] is the GPU op
    // whose start closes it, gapBefore[i] the op whose end opens it: 8 bytes per gap instead of two times.
    // Both are packed (PackedRefs: about 1 byte per item where neighbouring items are close rows).
    PackedRefs items;
    PackedRefs gapBefore;
    // Running max of ends up to the end of each block of kBlock items (in a gap lane, whose gaps are disjoint, the
    // end of each block's last gap: kept all the same, as a binary search of the packed gaps made frames slower).
    std::vector<int64_t> blockMaxEnd;
    // Gap lanes only: idle time before each block of kBlock items, then the lane's total (GapDensity's prefix sums,
    // built with the lane so the GUI thread does not walk 10^7 gaps when an index arrives).
    std::vector<int64_t> blockSum;
    // levels[L]: merged spans for 2^L ns per pixel; empty when not worth storing (draw the items directly).
    std::vector<LodLevel> levels;
};

// The one time origin of every view (timeline axis, tooltips, Details, range statistics, findings): the start of
// the capture window the profiler reports (TraceMeta::capture_start, nsys ANALYSIS_DETAILS / Kineto trace span), so
// "37.9 ms" means 37.9 ms after the capture started wherever it is shown. A trace without a capture window (0/0)
// measures from its first event (`fallback`).
int64_t timeOrigin(const Trace& trace, int64_t fallback = 0);

// Statistics of a time range (range selection on the timeline).
struct RangeStats {
    int64_t duration = 0;
    int64_t kernels = 0;          // kernels overlapping the range
    int64_t kernelTime = 0;       // kernel time clipped to the range (summed over kernels)
    int64_t busy = 0;             // union of GPU work clipped to the range, summed over devices
    // Per device with GPU work: the part of the range inside its GPU activity window (first op start .. last op
    // end) minus busy, summed over those devices. A range over an idle gap is all idle, even with no op in it.
    int64_t idle = 0;
    int64_t apiCalls = 0;
};

class TimelineIndex {
public:
    static constexpr uint32_t kBlock = 64;
    static constexpr int kMaxLevel = 44;

    static constexpr int64_t kCoarsePixels = 8192;

    // Builds the index; polls control for cancellation.
    static std::shared_ptr<const TimelineIndex> build(std::shared_ptr<const Trace> trace, const LoadControl& control = {});
    // The lanes and items of build() with only the coarse levels (complete() is false); its gap lanes are empty and
    // it has no kernel lookup.
    static std::shared_ptr<const TimelineIndex> buildCoarse(std::shared_ptr<const Trace> trace,
                                                            const LoadControl& control = {});
    // The complete index from a coarse one: its lanes with every level build() stores, the gap lanes and the kernel
    // lookup. Equal to build()'s.
    static std::shared_ptr<const TimelineIndex> refine(const TimelineIndex& coarse, const LoadControl& control = {});
    bool complete() const { return coarseLevel_ < 0; }
    // The finest level a coarse index stores (-1 when complete): a view zoomed in further draws that level's spans
    // (coarse blocks) instead of walking the items, until the complete index arrives.
    int coarseLevel() const { return coarseLevel_; }

    const Trace& trace() const { return *trace_; }
    std::shared_ptr<const Trace> tracePtr() const { return trace_; }
    const std::vector<TimelineLane>& lanes() const { return lanes_; }
    // The GPU runtime's name the API lanes go by: "HIP" on an AMD trace, else "CUDA" (sl::detect_gpu_vendor).
    const char* runtimeName() const { return runtime_; }
    int64_t start() const { return start_; }
    int64_t end() const { return end_; }
    // Where the axis, tooltips and range statistics measure time from: timeOrigin(trace(), start()).
    int64_t origin() const { return origin_; }
    // Extent of GPU work only (kernels, copies, memsets); start()/end() when there is none.
    int64_t gpuStart() const { return gpuStart_; }
    int64_t gpuEnd() const { return gpuEnd_; }

    ItemRef ref(const TimelineLane& lane, uint32_t i) const;
    int64_t itemStart(const TimelineLane& lane, uint32_t i) const;
    int64_t itemEnd(const TimelineLane& lane, uint32_t i) const;
    // First item whose end is after t (may start after t); lane.items.size() when none.
    uint32_t firstEndingAfter(const TimelineLane& lane, int64_t t) const;
    // One past the last item starting before t.
    uint32_t endStartingBefore(const TimelineLane& lane, int64_t t) const;
    // The item under time t (within +-tolerance ns), preferring the one containing t, else the nearest; -1 if none.
    int64_t hitTest(const TimelineLane& lane, int64_t t, int64_t tolerance) const;
    // Lane of a kernel (its stream lane) and of an API call (its thread lane); -1 if none.
    int laneOfKernel(uint32_t kernel) const;
    int laneOfApi(uint32_t api) const;

    RangeStats rangeStats(int64_t from, int64_t to) const;

    // Kernels grouped by name (distribution, longest instance, search, API -> kernel), built with the complete
    // index; null in a coarse one (callers fall back to a scan or wait for the complete index).
    const KernelLookup* kernelLookup() const { return lookup_.get(); }
    std::shared_ptr<const KernelLookup> kernelLookupPtr() const { return lookup_; }
    // Position of kernel `kernel` in its stream lane's items; UINT32_MAX when not found. O(log n).
    uint32_t itemOfKernel(uint32_t kernel) const;
    // Gap-lane item of the device gap [start, end) of `device` (e.g. from AnalysisResult::idle); -1 if none (and
    // always in a coarse index, whose gap lanes are empty).
    int laneOfGaps(uint16_t device) const;
    int64_t gapItemAt(int lane, int64_t start) const;
    // Merged-span summary of items [first, first + count) of a lane: how many, their span, and the most frequent
    // names among a bounded sample (at most `sample` items are read, evenly spaced), for the "N kernels" tooltip.
    struct MergedSummary {
        uint32_t count = 0;
        int64_t start = 0, end = 0;
        std::vector<std::pair<StrId, uint32_t>> topNames;   // (short name, occurrences in the sample), most first
        uint32_t sampled = 0;
    };
    MergedSummary summarize(const TimelineLane& lane, uint32_t first, uint32_t count, size_t topN = 3,
                            uint32_t sample = 256) const;

    // Heap bytes of the index (items, blocks, gaps, levels): compared with Trace::memory_bytes() in the benchmark.
    size_t memoryBytes() const;

private:
    static std::shared_ptr<const TimelineIndex> buildImpl(std::shared_ptr<const Trace> trace, const LoadControl& control,
                                                          bool coarse);
    std::shared_ptr<const Trace> trace_;
    const char* runtime_ = "CUDA";   // a string literal of gpu_runtime_name()
    std::shared_ptr<const KernelLookup> lookup_;
    std::vector<TimelineLane> lanes_;
    std::vector<std::pair<uint64_t, int>> streamLanes_;   // (device << 32 | stream) -> lane, sorted
    std::vector<std::pair<uint32_t, int>> apiLanes_;      // thread -> lane, sorted
    int64_t start_ = 0, end_ = 0;
    int64_t gpuStart_ = 0, gpuEnd_ = 0;
    int64_t origin_ = 0;
    int coarseLevel_ = -1;
};

} // namespace sl
