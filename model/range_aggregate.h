#pragma once
// What a time range holds, as Perfetto's area selection and the Nsight Systems events view sum it up: per operator
// class and per kernel name (count, time inside the range, average, share of the range's kernel time), copies and
// memsets per kind (count, time, bytes), and API calls per name. A plain function over the timeline index (its lanes
// give each kind's items in the range by binary search), run on a worker: a range over a whole 10^6-kernel trace
// reads each item once.

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/timeline/analysis.h"
#include "analysis/trace/load_control.h"
#include "model/timeline_index.h"

namespace sl {

struct RangeAggregate {
    enum class Group : uint8_t { Class, Kernel, Copy, Api };
    struct Row {
        Group group = Group::Kernel;
        std::string name;        // class label (English id when no analysis), kernel short name, copy kind, API name
        int64_t count = 0;       // items overlapping the range
        int64_t time_ns = 0;     // their time inside the range
        int64_t bytes = 0;       // copies and memsets only
        double share = 0;        // of its group's time inside the range (classes and kernels: of the kernel time)
        int64_t average_ns() const { return count > 0 ? time_ns / count : 0; }
    };
    int64_t from = 0, to = 0;
    int64_t kernels = 0, kernel_ns = 0;   // kernels overlapping the range, their time inside it
    int64_t copies = 0, copy_ns = 0;      // memcpy and memset
    int64_t api_calls = 0, api_ns = 0;
    // Classes, then kernel names, then copy kinds, then API names; each group by time, largest first.
    std::vector<Row> rows;
};

// `analysis` may be null (then no class rows). `classLabel` names a class (AnalysisResult::classes.classes index).
RangeAggregate aggregateRange(const TimelineIndex& index, const AnalysisResult* analysis, int64_t from, int64_t to,
                              const std::vector<std::string>& classLabels = {}, const LoadControl& control = {});

} // namespace sl
