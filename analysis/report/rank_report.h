#pragma once
// The merge of ranks as a report document (report_model.h), so `sightline-cli merge --format md|pdf|html` writes what
// `analyze` writes for one trace: the ranks and their steps, the collectives and comm latency, all-to-all sizes,
// and the cross-rank findings (rank_findings.h) with their evidence, gains and verify commands.

#include "analysis/report/report_model.h"

namespace sl {
struct RankMerge;
}

namespace sl::report {

Report build_merge_report(const RankMerge& m, const ReportOptions& options);

} // namespace sl::report
