#pragma once
// The map of a many-rank run on one machine (issue 38 §2): each rank's trace read, analysed and reduced to its
// partial (rank_partial.h) on the readers' task runner (io/parallel.h), at most `max_in_memory` ranks at once, each
// trace freed as soon as its partial is made. `sightline-cli analyze RANK... --max-ranks-in-memory N` runs it, then
// the reduce (rank_merge.h).

#include "analysis/io/load.h"
#include "analysis/report/rank_partial.h"
#include "analysis/timeline/analysis.h"

#include <atomic>
#include <functional>
#include <string>
#include <vector>

namespace sl {

// One partial per path, in path order. Throws the first failing rank's error (TraceError naming its file).
// `on_done` (optional, called from the worker threads, serialised) reports each rank finished. `cancel` (optional):
// raised, the readers and analyses stop and Cancelled is thrown (the workbench's Cancel).
std::vector<RankPartial> map_ranks(const std::vector<std::string>& paths, const LoadOptions& load,
                                   const AnalysisOptions& options, unsigned max_in_memory,
                                   const std::function<void(size_t done, size_t total)>& on_done = {},
                                   const std::atomic<bool>* cancel = nullptr);

} // namespace sl
