#pragma once
// Merges several traces (one per rank) into one workspace Trace. Devices, processes and threads keep their rank;
// strings are re-interned into one pool.
// Launch links (launch_api, syncs.api) are resolved per part and remapped; do not call finish() on the result, since
// two ranks may share a pid and correlation ids. Ranks: distributed.rank from each part's environment, else file order.

#include <vector>

#include "analysis/trace/trace.h"

namespace sl {

Trace merge_traces(std::vector<Trace> parts);

} // namespace sl
