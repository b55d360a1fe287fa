#pragma once
// "What sets the step" in one place: the critical path of the steady steps — their median length and their shares
// summed over them — else, without steady steps, the whole trace's path. The JSON's critical_path.steady_state, the
// report's overview line and the workbench's Overview read it (each had its own copy of this loop).

#include <algorithm>
#include <cstdint>
#include <vector>

#include "analysis/critpath/critpath_summary.h"

namespace sl::critpath {

struct SteadyPath {
    bool per_step = false;     // true: over the steady steps; false: the whole trace's path (no steady step)
    size_t steps = 0;          // steady steps with a path
    int64_t median_ns = 0;     // the median steady step's path length (the whole path's length without steps)
    int64_t total_ns = 0;      // Σ of their lengths (the whole path's without steps): the shares' denominator
    PathShares shares;         // summed over them (kernel_class_ns left empty), or the whole path's
};

inline SteadyPath steady_path(const CriticalPathSummary& c)
{
    SteadyPath p;
    std::vector<int64_t> lengths;
    for (const StepPath& sp : c.steps) {
        if (!sp.steady || sp.nodes == 0)
            continue;
        lengths.push_back(sp.length_ns);
        p.total_ns += sp.length_ns;
        p.shares.host_ns += sp.shares.host_ns;
        p.shares.launch_ns += sp.shares.launch_ns;
        p.shares.gpu_kernel_ns += sp.shares.gpu_kernel_ns;
        p.shares.memcpy_memset_ns += sp.shares.memcpy_memset_ns;
        p.shares.communication_ns += sp.shares.communication_ns;
        p.shares.gpu_gap_ns += sp.shares.gpu_gap_ns;
        p.shares.sync_edges += sp.shares.sync_edges;
        p.shares.sync_blocked_ns += sp.shares.sync_blocked_ns;
    }
    if (lengths.empty()) {
        p.shares = c.shares;
        p.median_ns = p.total_ns = c.length_ns;
        return p;
    }
    p.per_step = true;
    p.steps = lengths.size();
    std::nth_element(lengths.begin(), lengths.begin() + static_cast<std::ptrdiff_t>(lengths.size() / 2), lengths.end());
    p.median_ns = lengths[lengths.size() / 2];
    return p;
}

} // namespace sl::critpath
