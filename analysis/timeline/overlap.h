#pragma once
// Copy/compute and communication/compute overlap per device, pageable-memory copies; plus the interval primitives
// (merge, intersect, busy-in-window) the other analyses share.
//
// Definitions (HTA get_comm_comp_overlap semantics, extended to copies):
//   compute   = union of the device's kernels that are not communication (op class "communication") intervals
//   copy_hidden_fraction(kind) = |union(copies of kind) ∩ compute| / |union(copies of kind)|
//   comm_hidden_fraction       = |union(comm kernels) ∩ compute| / |union(comm kernels)|
// A fraction is -1 when its denominator is 0 (nothing to hide).

#include <cstdint>
#include <vector>

#include "analysis/trace/trace.h"

namespace sl {

struct Interval {
    int64_t start = 0, end = 0;
};

// Sorts by start and merges overlapping or touching intervals; drops empty ones. O(n log n) (O(n) when sorted).
std::vector<Interval> merge_intervals(std::vector<Interval> v);
int64_t total_length(const std::vector<Interval>& merged);
// Length of the intersection of two merged lists. O(|a| + |b|).
int64_t intersection_length(const std::vector<Interval>& a, const std::vector<Interval>& b);

// Busy time of a merged list inside any window in O(log n) (prefix sums over the merged intervals).
class BusyIndex {
public:
    BusyIndex() = default;
    explicit BusyIndex(std::vector<Interval> merged);
    int64_t busy_in(int64_t from, int64_t to) const;
    const std::vector<Interval>& intervals() const { return iv_; }

private:
    std::vector<Interval> iv_;
    std::vector<int64_t> prefix_;   // prefix_[i] = Σ lengths of iv_[0..i)
};

struct OverlapOptions {
    int comm_class = -1;   // op class index of communication kernels (OpClassifier::communication_index())
};

struct CopyOverlap {
    int64_t time_ns = 0;      // |union of these copies|
    int64_t hidden_ns = 0;    // of which under compute kernels
    // Of time_ns, the part before the device's first compute kernel starts or after its last one ends: setup uploads
    // and final readbacks, which no compute can hide (time_ns - hidden_ns - outside_ns is what overlap could win).
    int64_t outside_ns = 0;
    int64_t count = 0;
    uint64_t bytes = 0;
    double hidden_fraction = -1;
};

struct DeviceOverlap {
    uint16_t device = 0;
    int64_t compute_ns = 0;          // |union of compute kernels|
    CopyOverlap h2d, d2h, all_copies;
    CopyOverlap comm;                // NCCL / communication kernels
    // Pageable-memory copies (src or dst MemKind::Pageable): the copy engine cannot run them asynchronously.
    int64_t pageable_count = 0, pageable_time_ns = 0;
    uint64_t pageable_bytes = 0;
    int64_t pageable_async_api_count = 0;   // ... issued through a *Async API (nsys rule cuda_memcpy_async)
};

struct OverlapResult {
    std::vector<DeviceOverlap> devices;   // one per TraceMeta::devices entry
};

// kernel_class: per kernel row (from classify_ops), may be empty (then nothing counts as communication).
OverlapResult analyze_overlap(const Trace& trace, const std::vector<int16_t>& kernel_class,
                              const OverlapOptions& options = {});

} // namespace sl
