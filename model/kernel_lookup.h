#pragma once
// Per-name index over the kernels of one trace, built once on a worker (TimelineIndex::build builds it) and
// immutable afterwards, so the GUI never scans 10^6 kernels to answer "all instances of this name", "where does
// this instance rank", "the longest instance" or "which kernel did this API call launch".
//
// Layout: the kernel rows grouped by name (StrId of Trace::kernels.name), each group sorted by duration ascending
// (ties: larger row first, so the group's last row is the longest instance with the smallest row); one offset per
// distinct name; a per-API-call "first kernel launched" table. 4 bytes per kernel + 4 per API call + 16 per name.

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "analysis/trace/load_control.h"
#include "analysis/trace/trace.h"

namespace sl {

// Durations of all instances of one name.
struct NameDistribution {
    int64_t count = 0;
    int64_t total = 0;
    int64_t min = 0, median = 0, p90 = 0, max = 0;
};

class KernelLookup {
public:
    static std::shared_ptr<const KernelLookup> build(std::shared_ptr<const Trace> trace, const LoadControl& control = {});

    const Trace& trace() const { return *trace_; }

    struct Name {
        StrId name = 0;
        uint32_t begin = 0, end = 0;   // range in the grouped rows
        int64_t total = 0;             // summed duration
    };
    // One entry per distinct kernel name, largest total time first.
    const std::vector<Name>& names() const { return names_; }
    // The entry of a name; null when no kernel has it.
    const Name* find(StrId name) const;

    // Rows of every instance of `name`, shortest first; empty when none.
    std::span<const uint32_t> instances(StrId name) const;
    // Row of the longest instance (smallest row among equals); -1 when no kernel has the name.
    int64_t longestInstance(StrId name) const;
    NameDistribution distribution(StrId name) const;
    // Share of the name's instances strictly shorter than kernel `row`, over count - 1 (1 for a single instance):
    // 0 = the shortest, 1 = the longest.
    double percentileOf(int64_t row) const;
    // Value at quantile q (0..1) of a sorted sample of n durations: element round(q * (n - 1)). Shared with tests.
    static size_t quantileIndex(size_t n, double q);

    // The first kernel (smallest row) launched by API call `api`; -1 when none.
    int64_t kernelOfApi(int64_t api) const;

    // The longest host range (Trace::ranges: NVTX, annotations, CPU ops) named `name`, the smallest row among equals;
    // -1 when none. O(log distinct range names): a finding's NVTX link does not scan the ranges.
    int64_t longestRange(StrId name) const;

    // The CPU op that launched kernel `row` as record_shapes saw it: its Trace::op_args row (kCpuOp, with the op's
    // input shapes and types), joined as Kineto joins them: the kernel's correlation id names its launch call, whose
    // "External id" names the op (per rank and host process). -1 when the trace has no such join (nsys, or a kernel
    // launched outside any CPU op). O(log joined kernels).
    int32_t opArgsOfKernel(uint32_t row) const;
    // The same join for one kernel from the op_args table itself (no lookup yet: a coarse index). O(op_args).
    static int32_t scanOpArgsOfKernel(const Trace& trace, uint32_t row);

    // Distinct names whose full or short form contains `needle` (case-insensitive ASCII), largest total time first,
    // at most `limit`. O(distinct names).
    std::vector<StrId> search(std::string_view needle, size_t limit = 50) const;

    // The answers of longestInstance, kernelOfApi and longestRange from one scan of the trace: for a caller whose
    // timeline index has no lookup yet (a coarse index, before refine()). O(kernels) or O(ranges) per call.
    static int64_t scanLongestInstance(const Trace& trace, StrId name);
    static int64_t scanKernelOfApi(const Trace& trace, int64_t api);
    static int64_t scanLongestRange(const Trace& trace, StrId name);

    size_t memoryBytes() const;

private:
    int64_t duration(uint32_t row) const { return trace_->kernels.end[row] - trace_->kernels.start[row]; }
    std::shared_ptr<const Trace> trace_;
    std::vector<uint32_t> rows_;        // grouped by name, by duration within a group
    std::vector<Name> names_;           // by total time, descending
    std::vector<uint32_t> nameSlot_;    // StrId -> index into names_ (UINT32_MAX: none)
    std::vector<int32_t> apiKernel_;    // API row -> first kernel row, -1
    std::vector<StrId> shortOf_;        // per names_ entry: the short name of its first instance
    std::vector<std::pair<StrId, int32_t>> longestRange_;   // range name -> longest range row, by name
    std::vector<std::pair<uint32_t, int32_t>> opArgs_;      // kernel row -> op_args row, by kernel (joined only)
};

} // namespace sl
