#pragma once
// The reduce of a many-rank run (issue 38 §1): partials (rank_partial.h) merged into the cross-rank analyses —
// collective matching, skew and straggler by the one matcher (collective_match.h), comm latency as the fastest rank's
// time (TraceLens's definition: the time a collective takes once every rank has arrived), per-rank step time and its
// spread, all-to-all size imbalance, and a straggler finding. `sightline-cli merge` prints it; layout:
// resources/schemas/partial.md, "merge".

#include "analysis/diagnosis/cross_rank_metrics.h"
#include "analysis/diagnosis/findings.h"
#include "analysis/report/rank_grid.h"
#include "analysis/report/rank_partial.h"
#include "analysis/timeline/collective_match.h"
#include "analysis/timeline/cross_rank.h"

#include <nlohmann/json_fwd.hpp>

#include <optional>
#include <string>
#include <vector>

namespace sl {

inline constexpr const char* kMergeSchema = "sightline.merge/1";

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
    RankStepSpread step_ranks;          // the same, with the median rank's step (the cross-rank rules' metrics)
    std::vector<std::string> findings;  // lines
    // The cross-rank rules' findings (rank_findings.h): the straggler with its evidence, all-to-all imbalance, step
    // spread; each with a bounded gain, a confidence and a verify command. Filled by merge_partials.
    std::vector<Finding> rule_findings;
    std::vector<std::string> warnings;
};

// Checks the partials belong together (throws TraceError naming the file and what was expected: the same world size,
// distinct ranks, ranks inside the world) and reduces them. Ranks: the partial's, else its place in `parts`.
// `rule_dirs`: where the cross-rank rules come from (empty: the shipped rules, then the user's).
// `grid`, when given, receives the rank view's grids (rank_grid.h).
RankMerge merge_partials(std::vector<RankPartial> parts, const CollectiveOptions& options = {},
                         const std::vector<std::string>& rule_dirs = {}, RankGrid* grid = nullptr);

nlohmann::json rank_merge_to_json(const RankMerge& m);
std::string rank_merge_to_text(const RankMerge& m);

} // namespace sl
