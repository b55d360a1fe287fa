#pragma once
// The rank view's data (issue 38 §4): a rank × step grid of step times and a rank × collective grid of lateness of
// arrival (the rank's start less the earliest rank's start of the same matched collective), built by merge_partials
// from the partials. Rows are ranks in rank order; each cell keeps where it is in the rank's own trace clock, so the
// workbench opens that rank's trace there. Cells with no value are NaN.

#include <cstdint>
#include <string>
#include <vector>

namespace sl {

struct RankGrid {
    std::vector<int32_t> ranks;               // row -> rank
    std::vector<std::string> traces;          // row -> the rank's trace file (as its partial names it)
    // Steps: columns = the most steps any rank has.
    int64_t steps = 0;
    std::vector<double> step_ns;              // row-major ranks × steps: the step's wall time
    std::vector<int64_t> step_start_ns;       // ... its start in the rank's own trace clock
    std::vector<uint8_t> step_prefill;        // ... 1 for a prefill step
    // Collectives matched on every rank, in start order; at most kMaxCollectiveColumns (the first ones).
    static constexpr int64_t kMaxCollectiveColumns = 4096;
    int64_t collectives = 0;
    int64_t collectives_total = 0;            // matched in all (more than the columns when cut)
    std::vector<std::string> collective_kind; // column -> kind ("allreduce", ...)
    std::vector<double> lateness_ns;          // row-major ranks × collectives: start − earliest start
    std::vector<int64_t> collective_start_ns; // ... the rank's kernel start in its own trace clock
    std::vector<int64_t> collective_end_ns;   // ... and its end

    size_t cell(size_t row, size_t column, int64_t columns) const { return row * static_cast<size_t>(columns) + column; }
};

} // namespace sl
