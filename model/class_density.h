#pragma once
// What a stream lane holds in a pixel column where many items share it: the GPU time of each operator class, so a
// merged block shows its class mix and density instead of one flat "N kernels" bar; and the same summed over every
// stream of every device for the overview track (GPU utilisation per pixel column of the whole capture, coloured by
// class share).
//
// Built once on a worker from a complete TimelineIndex and the analysis's kernel classes (JobRunner), immutable
// afterwards. Per stream lane it stores, every kBlock items, the running sum of item durations per class (copies and
// memsets count as the "memcpy_memset" class), like the gap lanes' TimelineLane::blockSum. A column's class times are
// the difference of two such sums, each found by galloping forward from the previous column boundary and walking at
// most half a block of items: O(columns · (classes + kBlock / 2)) per lane and frame, whatever the number of kernels.

#include <cstdint>
#include <memory>
#include <vector>

#include "analysis/timeline/analysis.h"
#include "analysis/trace/load_control.h"
#include "model/timeline_index.h"
#include "model/timeline_math.h"

namespace sl {

class ClassDensity {
public:
    // `index` must be complete (its stream lanes hold every item); classes from `analysis` (kernel_class per kernel).
    static std::shared_ptr<const ClassDensity> build(std::shared_ptr<const TimelineIndex> index,
                                                     std::shared_ptr<const AnalysisResult> analysis,
                                                     const LoadControl& control = {});

    const TimelineIndex& index() const { return *index_; }
    const AnalysisResult& analysis() const { return *analysis_; }
    // Whether this density was built from this index and analysis (a view checks before drawing from it).
    bool matches(const TimelineIndex* index, const AnalysisResult* analysis) const
    {
        return index_.get() == index && analysis_.get() == analysis;
    }
    // Slots: one per class of AnalysisResult::classes.classes, in that order.
    int classCount() const { return classes_; }
    // The slot of item i of a stream lane (its kernel's class, or the memcpy_memset class for a copy or memset).
    int slotOf(const TimelineLane& lane, uint32_t i) const;

    // GPU time per class inside each of `columns` pixel columns spanning `window`, of stream lane `lane` (an index
    // into TimelineIndex::lanes()): out[x * classCount() + c], in ns, items clipped to the column. Empty for a lane
    // that is not a stream lane.
    void laneColumns(int lane, const timeline::Window& window, int columns, std::vector<int64_t>& out) const;
    // Kernel time per class of stream lane `lane` inside [t0, t1).
    std::vector<int64_t> laneTime(int lane, int64_t t0, int64_t t1) const;

    // The overview track: for each of `columns` columns spanning `window`, the busy fraction of the GPUs (Σ over
    // devices of busy time / (devices with GPU work · column length), busy = the union of their ops, from the idle
    // lanes) and each class's share of the GPU time summed over the streams (shares add up to 1 where anything ran).
    struct Overview {
        int columns = 0, classes = 0;
        std::vector<float> busy;    // [x]
        std::vector<float> share;   // [x * classes + c]
    };
    Overview overview(const timeline::Window& window, int columns) const;

    size_t memoryBytes() const;

private:
    struct LanePrefix {
        int lane = -1;
        std::vector<int64_t> sums;   // [(block) * classes + c], blocks + 1 rows: before each block, then the total
    };
    const LanePrefix* prefixOf(int lane) const;
    std::shared_ptr<const TimelineIndex> index_;
    std::shared_ptr<const AnalysisResult> analysis_;
    int classes_ = 0;
    int copySlot_ = -1;
    int otherSlot_ = 0;
    std::vector<LanePrefix> lanes_;   // stream lanes, by lane index
};

} // namespace sl
