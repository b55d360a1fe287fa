#pragma once
// What the timeline paints at fit, where one pixel column holds many items: the idle lane's *density* (the idle
// fraction of each pixel column, so a 4.7 % idle trace looks 4.7 % inked, not solid) and the dominant operator class
// of a merged "N kernels" block (so it keeps a class colour, not a neutral grey).
//
// Both read only TimelineIndex's public lane queries (item start/end, binary searches), not how the index stores
// its levels, and cost O(log n + kBlock) per query; a gap lane's prefix sums come with the index
// (TimelineLane::blockSum, built on the worker), so making a GapDensity is O(1) on the GUI thread.

#include <cstdint>
#include <vector>

#include "model/timeline_index.h"
#include "model/timeline_math.h"

namespace sl {

class GapDensity {
public:
    GapDensity() = default;
    // `lane` must be a gap lane of `index` (its items are disjoint, sorted by start); both outlive this object.
    // O(1) when the lane carries its block sums (an index's gap lanes do), else one O(gaps) pass.
    GapDensity(const TimelineIndex& index, const TimelineLane& lane);

    bool isNull() const { return index_ == nullptr; }
    // Idle time of the lane inside [t0, t1), gaps clipped to it.
    int64_t idleIn(int64_t t0, int64_t t1) const;
    // Idle fraction (0..1) of each of `columns` pixel columns spanning `window`.
    std::vector<float> columnFractions(const timeline::Window& window, int columns) const;

private:
    int64_t prefix(uint32_t i) const;   // Σ durations of items [0, i)
    // Idle time of the lane before t, for t not less than the cursor's last t (a sweep over column boundaries).
    struct Cursor {
        uint32_t k = 0;      // gaps starting before the last t
        int64_t sum = 0;     // Σ durations of gaps [0, k)
        bool valid = false;
    };
    int64_t idleBefore(int64_t t, Cursor& c) const;
    const TimelineIndex* index_ = nullptr;
    const TimelineLane* lane_ = nullptr;
    const std::vector<int64_t>& blockPrefix() const { return lanePrefix_ ? *lanePrefix_ : ownPrefix_; }
    // Σ durations of items before block b (kBlock items per block), then the total: the lane's, or our own
    const std::vector<int64_t>* lanePrefix_ = nullptr;
    std::vector<int64_t> ownPrefix_;
};

// The operator class holding the most kernel time among items [first, first + count) of a stream lane, from at
// most `sample` items read evenly spaced (all of them when count <= sample); kernelClass is
// AnalysisResult::classes.kernel_class. -1 when no item is a classified kernel.
int dominantKernelClass(const TimelineIndex& index, const TimelineLane& lane, uint32_t first, uint32_t count,
                        const std::vector<int16_t>& kernelClass, uint32_t sample = 256);

} // namespace sl
