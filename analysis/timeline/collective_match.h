#pragma once
// Collectives as per-rank records, and the one matcher that runs across ranks on them (issue 38).
//
// collective_stats (collectives.h) is collective_records + collective_stats_from_records: the records of a merged
// trace and the records read back from per-rank partials (analysis/report/rank_partial.h) go through the same
// matcher, so a merge of partials gives the numbers an analysis of all ranks in one process gives.
//
// A record is one NCCL/RCCL kernel with what the matcher and the reduce need: its rank, (process group, kind),
// metadata (size, dtype, group size), its position among its rank's records of that (process group, kind) (seq),
// its launch call's start, its kernel interval, and the compute time of its device that covers it (`cover`: the
// merged non-communication kernel intervals of its device, clipped to [start, end)), from which hidden and exposed
// time and the exposed part of a wait are computed without the rest of the trace.

#include "analysis/timeline/collectives.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace sl {

inline constexpr int64_t kNoLaunch = INT64_MIN;

struct CollectiveRecord {
    int32_t rank = 0;
    std::string process_group;          // "" when the trace does not say
    std::string kind;                   // collective_kind()
    std::string dtype;
    int64_t group_size = 0;             // 0 = unknown
    bool has_metadata = false;          // collective args found (kernel or CPU op)
    double bytes = 0;                   // S (collectives.h), 0 = unknown
    int64_t seq = 0;                    // position among the rank's records of (process group, kind), start order
    int64_t launch_ns = kNoLaunch;      // start of the launch call, kNoLaunch when not linked
    int64_t start = 0, end = 0;
    uint32_t order = 0;                 // tie-break among records of one rank starting together (trace row order)
    std::vector<std::pair<int64_t, int64_t>> cover;   // absolute [start, end) of covering compute, merged, sorted

    int64_t duration() const { return end - start; }
    // Compute time of the record's device inside [from, to) (clipped to the record's interval).
    int64_t covered(int64_t from, int64_t to) const;
};

// One collective matched across every rank: indices into the records given to the matcher, in rank order.
struct MatchedCollective {
    std::vector<uint32_t> records;
    int32_t last_rank = 0;              // the rank that started last
    int64_t skew_ns = 0;                // latest start - earliest start
};

// The records of a trace's NCCL/RCCL kernels (rank: the device's), sorted by (start, rank, order).
std::vector<CollectiveRecord> collective_records(const Trace& trace);

// The statistics of collectives.h from records (any order); `matched`, when given, receives every matched collective.
CollectiveStats collective_stats_from_records(const std::vector<CollectiveRecord>& records,
                                              const CollectiveOptions& options = {},
                                              std::vector<MatchedCollective>* matched = nullptr);

} // namespace sl
