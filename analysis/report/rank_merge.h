#pragma once
// The reduce of a many-rank run (issue 38 §1): partials (rank_partial.h) merged into the cross-rank analyses —
// collective matching, skew and straggler by the one matcher (collective_match.h), comm latency as the fastest rank's
// time (TraceLens's definition: the time a collective takes once every rank has arrived), per-rank step time and its
// spread, all-to-all size imbalance, and a straggler finding. `sightline-cli merge` prints it; layout:
// resources/schemas/partial.md, "merge".

#include "analysis/report/rank_partial.h"
#include "analysis/timeline/collective_match.h"

#include <nlohmann/json_fwd.hpp>

#include <optional>
#include <string>
#include <vector>

namespace sl {

inline constexpr const char* kMergeSchema = "sightline.merge/1";

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
};

// What the matched collectives say beyond CollectiveStats: comm latency, all-to-all imbalance, and how much longer
// the straggler's time since its previous collective is than the other ranks' before the collectives it is last in.
struct CrossRankComm {
    int64_t comm_latency_ns = 0;        // Σ of CollectiveLatency::latency_ns
    std::vector<CollectiveLatency> by_group;   // per (process group, kind), most latency first
    AllToAllImbalance alltoall;
    std::optional<double> straggler_lead_in_excess;   // (straggler's mean lead-in / others' mean) - 1
};
CrossRankComm cross_rank_comm(const std::vector<CollectiveRecord>& records,
                              const std::vector<MatchedCollective>& matched, const CollectiveStats& stats);

struct RankRow {
    int32_t rank = 0;
    std::string partial, trace, host;
    int64_t wall_ns = 0, busy_ns = 0, idle_ns = 0, host_wait_ns = 0;
    int64_t steady_steps = 0;
    double step_median_ns = 0, step_mean_ns = 0;   // TPOT of its steady decode steps
    int64_t collectives = 0;
};

struct RankMerge {
    std::vector<std::string> inputs;
    int32_t world_size = 1;
    std::vector<RankRow> ranks;         // rank order
    CollectiveStats collectives;
    CrossRankComm cross;
    // Step time across ranks (ranks with steady steps): spread = slowest / fastest median − 1.
    std::optional<double> step_spread;
    std::optional<int32_t> slowest_rank, fastest_rank;
    std::vector<std::string> findings;  // lines
    std::vector<std::string> warnings;
};

// Checks the partials belong together (throws TraceError naming the file and what was expected: the same world size,
// distinct ranks, ranks inside the world) and reduces them. Ranks: the partial's, else its place in `parts`.
RankMerge merge_partials(std::vector<RankPartial> parts, const CollectiveOptions& options = {});

nlohmann::json rank_merge_to_json(const RankMerge& m);
std::string rank_merge_to_text(const RankMerge& m);

} // namespace sl
