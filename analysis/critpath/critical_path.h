#pragma once
// The critical path of a dependency graph (dependency_graph.h): the longest path over the DAG, found in one pass in
// topological order, and what its length is made of.
//
// Ties are broken as networkx's dag_longest_path does on HTA's graph: nodes in Kahn's topological generations (the
// sources in time order, then each generation's successors in edge order), each node's predecessor the first of the
// best ones in edge insertion order, the path ending at the first node (in that order) of greatest length.
//
// Shares partition the length: every edge on the path is host compute (a CPU event's span), launch latency (launch
// call start -> GPU op start), a GPU op's span (kernels by operator class, memcpy/memset, communication being the
// classifier's communication class), or a GPU gap (stream predecessor -> op). Dependency and sync edges weigh 0, as in
// HTA; the host's waits behind them are reported beside the partition (sync_blocked_ns), not in it.

#include "analysis/critpath/dependency_graph.h"

#include <cstdint>
#include <string>
#include <vector>

namespace sl::critpath {

struct PathShares {
    int64_t host_ns = 0;               // CPU operators and runtime calls on the path
    int64_t launch_ns = 0;             // launch delays (call start -> op start)
    int64_t gpu_kernel_ns = 0;         // kernels (all classes, communication included)
    int64_t memcpy_memset_ns = 0;      // memcpy / memset ops
    int64_t communication_ns = 0;      // kernels of the communication class (part of gpu_kernel_ns)
    int64_t gpu_gap_ns = 0;            // stream predecessor -> op (kernel-kernel delays, graph-node gaps)
    std::vector<int64_t> kernel_class_ns;   // per class index of the classifier (sums to gpu_kernel_ns)
    int64_t sync_edges = 0;            // GPU -> host and GPU -> GPU waits the path goes through
    int64_t sync_blocked_ns = 0;       // the host calls those waits ended: their whole duration (not in the length)
};

// One event on the path with the path time attributed to it (HTA's edge attribution: a span to the event it lies
// in, a gap between two children to their parent; and a launch delay to the launch call, a GPU gap to the earlier
// op).
struct PathEntry {
    EventKind kind = EventKind::CpuOp;
    uint32_t row = 0;                  // row of its table
    int64_t ns = 0;
};

struct CriticalPath {
    int64_t length_ns = 0;
    std::vector<uint32_t> nodes;       // node ids, first to last
    std::vector<uint32_t> edges;       // edge ids between consecutive nodes (nodes.size() - 1 of them)
    PathShares shares;
    int64_t unordered_nodes = 0;       // nodes left out of the topological order (a cycle; 0 on a sound graph)

    // Distinct events with a node on the path (HTA's critical_path_events_set), ascending event ids.
    std::vector<uint32_t> events() const;
};

struct PathOptions {
    // Operator class of every kernel row (OpClassResult::kernel_class); empty = all kernels in one class 0.
    const std::vector<int16_t>* kernel_class = nullptr;
    size_t class_count = 0;            // number of classes (kernel_class_ns's size); 0 = 1 + the largest index seen
    int communication_class = -1;      // OpClassifier::communication_index(); -1 = none
};

CriticalPath longest_path(const DependencyGraph& g, const PathOptions& options = {});

// The critical path of each window (a step) in one pass: event_window[ev] names the window of every event (-1 = none);
// an edge counts only between two nodes of the same window, so each path is the longest path of that window's
// subgraph of g. (A window cut out of the whole trace's graph, not a graph built on the window: edges into it from
// outside are dropped, edges inside it stay as the whole trace made them.)
std::vector<CriticalPath> longest_path_per_window(const DependencyGraph& g, const std::vector<int32_t>& event_window,
                                                  size_t windows, const PathOptions& options = {});
// Both at once (one topological pass): the windows' paths, then the whole graph's (windows + 1 of them).
std::vector<CriticalPath> longest_path_and_windows(const DependencyGraph& g, const std::vector<int32_t>& event_window,
                                                   size_t windows, const PathOptions& options = {});

// Path time per event (events with none left out), in the order the path first reaches them.
std::vector<PathEntry> path_times(const DependencyGraph& g, const CriticalPath& p);
// The same, largest first (at most `limit` entries).
std::vector<PathEntry> path_entries(const DependencyGraph& g, const CriticalPath& p, size_t limit);

} // namespace sl::critpath
