#pragma once
// What the longest-path pass needs of the graph alone (issue 35 §6): every node's out-edges (CSR by source, each
// node's in insertion order, the zero-weight flag in the top bit of the edge id) and the pass's node records with
// their in-degrees. The pipeline builds it beside analyze() with the graph (graph_beside.h), so that only the pass
// itself waits for the analyses' steps and classes; without one, the pass builds its own (the same arrays: the same
// paths).
//
// The records (32 bytes a node) hold everything the relaxation touches at a destination (both lengths, both
// predecessors, the in-degree, the window), so that an edge costs one random cache line (plus the destination's time)
// instead of seven. First touching them is most of their cost on a VM (10^7 kernels: 40 M nodes, 1.3 GB), which is
// why they are made here. A prep serves one pass: the pass uses its records up.

#include "analysis/critpath/critpath_summary.h"

#include <memory>
#include <vector>

namespace sl::critpath {

struct PathNode {                      // trivial: allocated unwritten, then filled (first touch)
    int64_t dist_all, dist_per;
    uint32_t via_all, via_per;         // UINT32_MAX = none
    uint32_t indegree;
    int32_t window;                    // -1 = in none
};

struct PathPrep {
    std::vector<uint32_t> out_off;     // node v's out-edges are out_edge[out_off[v] .. out_off[v + 1])
    std::vector<uint32_t> out_edge;    // edge id | kZeroWeightBit when the edge weighs 0
    std::unique_ptr<PathNode[]> nodes; // per node: lengths 0, no predecessor, its in-degree, window -1
    std::vector<uint32_t> sources;     // the nodes of in-degree 0, in time order (of equal times, by id)
    size_t node_count = 0;
    static constexpr uint32_t kZeroWeightBit = 0x80000000u;
};

// Throws std::length_error past 2^31 edges.
std::unique_ptr<PathPrep> prepare_paths(const DependencyGraph& g);

// longest_path_and_windows (critical_path.h) and summarise_critical_path (critpath_summary.h) on a prepared graph
// (prep may be null: built here). The prep's records are used up.
std::vector<CriticalPath> longest_path_and_windows(const DependencyGraph& g, PathPrep* prep,
                                                   const std::vector<int32_t>& event_window, size_t windows,
                                                   const PathOptions& options = {});
CriticalPathSummary summarise_critical_path(const Trace& trace, const DependencyGraph& g, PathPrep* prep,
                                            const OpClassResult* classes, const GraphOptions& options = {},
                                            size_t top = 10, const std::vector<StepInfo>* steps = nullptr);

} // namespace sl::critpath
