#pragma once
// Merges several traces (one per rank) into one workspace Trace. Devices, processes and threads keep their rank;
// strings are re-interned into one pool.

#include <vector>

#include "analysis/trace.h"

namespace sl {

Trace merge_traces(std::vector<Trace> parts);

} // namespace sl
