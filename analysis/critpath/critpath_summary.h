#pragma once
// The critical path as `analyze` reports it: built on the whole trace (or a window), with shares by kind and by
// operator class, and the events that hold most of its length. The JSON's `critical_path` key.

#include "analysis/critpath/critical_path.h"
#include "analysis/timeline/op_classes.h"
#include "analysis/timeline/phases.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace sl::critpath {

struct TopEntry {
    std::string kind;                  // cpu_op | api | kernel | memcpy | memset
    std::string name;
    int64_t ns = 0;                    // path time attributed to it (summed over its instances)
    int64_t count = 0;                 // instances on the path
};

// One step's critical path: the longest path of the step's part of the trace's graph (its GPU ops by their start in
// the step's GPU window; its CPU events by their start from the step's first launch to the next step's).
struct StepPath {
    int32_t step = 0;                  // index into PhaseResult::steps
    int64_t length_ns = 0;
    int64_t nodes = 0;
    PathShares shares;
    bool steady = false;               // a decode step after warm-up (not prefill, not warm-up)
    std::vector<PathEntry> events;     // the path's events in path order, with their path time (the timeline overlay)
};

struct CriticalPathSummary {
    bool computed = false;
    int64_t window_begin = 0, window_end = 0;
    int64_t length_ns = 0;
    int64_t graph_events = 0, graph_edges = 0;
    int64_t path_nodes = 0, path_events = 0;
    PathShares shares;
    std::vector<std::string> class_ids;        // index -> class id (shares.kernel_class_ns)
    std::vector<TopEntry> top;                 // by name, largest first
    int64_t event_waits_inferred = 0;
    int64_t unordered_nodes = 0;
    std::vector<StepPath> steps;               // per step of the phases analysis (empty when it found none)
    std::vector<PathEntry> events;             // the whole path's events in path order; only without steps
};

// Window of every event of g for the steps (-1 = in none); see StepPath.
std::vector<int32_t> step_of_event(const DependencyGraph& g, const Trace& trace, const std::vector<StepInfo>& steps);

// classes may be null (kernels then count in one class "all"); steps null or empty: no per-step paths.
CriticalPathSummary summarise_critical_path(const Trace& trace, const OpClassResult* classes,
                                            const GraphOptions& options = {}, size_t top = 10,
                                            const std::vector<StepInfo>* steps = nullptr);
// The same on a graph the caller built (with `options`), so that the what-if replays can use it too.
CriticalPathSummary summarise_critical_path(const Trace& trace, const DependencyGraph& g, const OpClassResult* classes,
                                            const GraphOptions& options = {}, size_t top = 10,
                                            const std::vector<StepInfo>* steps = nullptr);

nlohmann::json to_json(const CriticalPathSummary& s);

} // namespace sl::critpath
