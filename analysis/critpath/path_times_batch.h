#pragma once
// Internal to analysis/critpath (critical_path.cpp, critpath_summary.cpp): path_times for many paths of one graph.

#include "analysis/critpath/critical_path.h"

#include <vector>

namespace sl::critpath {

// path_times(g, p) for each of `paths`, with one scratch array for all of them (linear in the events and the paths'
// edges; a scratch array per path would be events × paths).
std::vector<std::vector<PathEntry>> path_times_batch(const DependencyGraph& g, const std::vector<CriticalPath>& paths);

} // namespace sl::critpath
