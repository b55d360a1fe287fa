#pragma once
// The cross-rank metrics the rules use (resources/rules/communication.json's straggler-rank, resources/rules/ranks.json),
// bound the same way for a merged trace of several ranks (metrics_binding.cpp) and for a merge of per-rank partials
// (analysis/report/rank_findings.h), so one rule reads the same numbers either way. Names and meanings:
// resources/schemas/findings.md (metric vocabulary, "across ranks").

#include "analysis/diagnosis/findings.h"
#include "analysis/timeline/collectives.h"
#include "analysis/timeline/cross_rank.h"

#include <cstdint>

namespace sl {

// Step time across ranks, from the ranks' own steady steps (a merge of partials). A merged trace has no per-rank
// steps: it binds none (zeros, as one rank binds zeros for the straggler).
struct RankStepSpread {
    int32_t ranks = 0;                  // ranks with steady steps
    int32_t slowest = -1, fastest = -1;
    double slowest_median_ns = 0, fastest_median_ns = 0;
    double median_of_ranks_ns = 0;      // the median over ranks of their median step
    int64_t slowest_steps = 0;          // the slowest rank's steady steps
};

// `device_time_ns`: the summed device time of every rank (busy + idle), the basis of the *_fraction gains.
void bind_cross_rank_metrics(MetricScope& scope, const CollectiveStats& stats, const CrossRankComm& cross,
                             double device_time_ns, const RankStepSpread* steps = nullptr);

} // namespace sl
