#pragma once
// Findings across ranks (issue 38 §1): the merge of partials (rank_merge.h) bound as one trace-scope MetricScope
// (subject "ranks") with the cross-rank metrics a merged trace binds (diagnosis/cross_rank_metrics.h), and the
// shipped rules evaluated on it. The rules that can fire are the cross-rank ones — straggler-rank
// (resources/rules/communication.json), rank-step-spread and alltoall-imbalance (resources/rules/ranks.json); every
// other trace rule lacks its metrics here and is skipped. Each finding's gain is the rule's, bounded by the time it
// removes (the others' exposed wait for the straggler, the all-to-alls' excess, the slowest rank's excess steps).

#include "analysis/diagnosis/findings.h"
#include "analysis/diagnosis/rules.h"

#include <string>
#include <vector>

namespace sl {

struct RankMerge;

// The merge's one scope: subject "ranks", trace_wall_ns = the longest rank's wall.
MetricScope rank_merge_scope(const RankMerge& m);

struct RankFindingsOptions {
    std::vector<std::string> rule_dirs;   // empty: the shipped rules, then the user's
    std::string lang = "en";
};
struct RankFindings {
    std::vector<Finding> findings;        // ranked
    std::vector<RuleError> errors;        // rule files that did not load, evaluation errors
};
RankFindings rank_merge_findings(const RankMerge& m, const RankFindingsOptions& options = {});

} // namespace sl
