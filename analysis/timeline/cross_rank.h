#pragma once
// What the collectives matched across ranks say beyond CollectiveStats (issue 38): comm latency as the fastest rank's
// time (TraceLens's definition), all-to-all size imbalance, and the straggler's lateness and lead-in against the other
// ranks. Computed from the matcher's records (collective_match.h), so a merged trace (metrics_binding.cpp) and a
// merge of partials (analysis/report/rank_merge.h) get the same numbers.

#include "analysis/timeline/collective_match.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace sl {

struct CollectiveLatency {
    std::string process_group, kind;
    int64_t matched = 0;
    int64_t latency_ns = 0;             // Σ over matched collectives of the fastest rank's kernel time
    int64_t time_ns = 0;                // Σ over matched collectives and ranks of kernel time
    double mean_skew_ns = 0;
};

struct AllToAllImbalance {
    int64_t matched = 0;                // matched all-to-alls
    int64_t sized = 0;                  // of those, with a size on every rank
    std::optional<double> mean_ratio, max_ratio;   // max rank bytes / mean rank bytes, per collective
    std::optional<int32_t> heaviest_rank;          // the rank most often sending the most
    int64_t heaviest_count = 0;
    // The time balanced sizes could remove: per sized all-to-all, its latency (the fastest rank's time) less the
    // share the mean size would take, latency · (1 − mean / max), summed. Bounded by the all-to-alls' latency.
    int64_t excess_ns = 0;
    int64_t latency_ns = 0;                         // Σ latency of the sized all-to-alls
};

// What the matched collectives say beyond CollectiveStats: comm latency, all-to-all imbalance, and how much longer
// the straggler's time since its previous collective is than the other ranks' before the collectives it is last in.
struct CrossRankComm {
    int64_t comm_latency_ns = 0;        // Σ of CollectiveLatency::latency_ns
    std::vector<CollectiveLatency> by_group;   // per (process group, kind), most latency first
    AllToAllImbalance alltoall;
    std::optional<double> straggler_lead_in_excess;   // (straggler's mean lead-in / others' mean) - 1
    // On the collectives the straggler starts last: its start less the median of the other ranks' starts, averaged
    // (its lateness: what a planted skew plants), and its lead-in against the other ranks' median lead-in
    // (Σ its lead-ins / Σ the others' per-collective medians − 1; "its compute before them is 12 % longer").
    std::optional<double> straggler_lateness_ns;
    std::optional<double> straggler_lead_in_vs_median;
    // The collective kind it starts last most often, and the share of that kind's matched collectives it starts last.
    std::string straggler_kind;
    std::optional<double> straggler_kind_last_fraction;
};
CrossRankComm cross_rank_comm(const std::vector<CollectiveRecord>& records,
                              const std::vector<MatchedCollective>& matched, const CollectiveStats& stats);

} // namespace sl
