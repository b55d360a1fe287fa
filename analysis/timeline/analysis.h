#pragma once
// The aggregate: every analysis of issue 4 over one Trace, with every threshold named and defaulted in one place.
// Pure: analyze() reads the trace, returns a value, and touches nothing else. Progress and cancel through
// LoadControl (stages: "operator classes", "idle", "launch", "sync", "overlap", "nvtx", "phases", "collectives", "weights").

#include <string>

#include "analysis/timeline/capture_edge.h"
#include "analysis/timeline/collectives.h"
#include "analysis/timeline/cross_rank.h"
#include "analysis/timeline/focus.h"
#include "analysis/timeline/host_causes.h"
#include "analysis/timeline/idle.h"
#include "analysis/timeline/launch_stats.h"
#include "analysis/trace/load_control.h"
#include "analysis/timeline/nvtx_projection.h"
#include "analysis/timeline/op_classes.h"
#include "analysis/timeline/overlap.h"
#include "analysis/timeline/phases.h"
#include "analysis/timeline/sync_stats.h"
#include "analysis/trace/trace.h"
#include "analysis/timeline/weight_streaming.h"
#include "analysis/timeline/workload.h"

namespace sl {

struct AnalysisOptions {
    std::string classes_file;          // user kernel-classes JSON; empty = resources/kernel_classes.json
    IdleOptions idle;                  // kernel_wait_threshold_ns = 30 µs
    LaunchOptions launch;              // short-kernel cutoff 50 µs, queue outlier 100 µs
    SyncOptions sync;                  // top_stalls = 10
    OpClassOptions classes;            // max_unmatched_names = 200
    NvtxProjectionOptions nvtx;        // user annotations yes, cpu ops no
    PhaseOptions phases;               // step regex, warm-up 2, prefill factor 3
    WeightStreamingOptions weights;    // per-layer range-name regexes
    FocusOptions focus;                // top_k = 10
    WorkloadOptions workload;          // capture too short below 20 ms or 50 kernels
    HostCauseOptions host_causes;      // patterns file (empty = resources/host_causes.json)
    size_t max_gaps_listed = 200;      // largest gaps written to JSON / text (all stay in the result)
};

struct AnalysisResult {
    AnalysisOptions options;
    int64_t wall_ns = 0;               // capture window
    int64_t kernel_time_ns = 0;        // Σ kernel durations
    OpClassResult classes;
    IdleResult idle;
    LaunchResult launch;
    SyncResult sync;
    OverlapResult overlap;
    NvtxProjectionResult nvtx;
    PhaseResult phases;
    WeightStreamingResult weights;
    FocusResult focus;
    WorkloadResult workload;           // kind, execution, framework, trace-level warnings (issue 13)
    HostCauseResult host_causes;       // compilation / autotuning / module loading / allocator idle (host_causes.h)
    CaptureEdgeIdle capture_edge;      // idle before the first step and after the last (capture_edge.h)
    CollectiveStats collectives;       // collectives per group, matched across ranks when the trace has several
                                       // (collectives.h)
    CrossRankComm cross_rank;          // comm latency, all-to-all sizes, the straggler's lateness and lead-in, from
                                       // the same matching (cross_rank.h); empty for one rank
};

// Loads the classifier from options.classes_file (or the shipped file) and runs everything. Throws TraceError on a
// bad classes file or regex, Cancelled when control's cancel flag is raised.
AnalysisResult analyze(const Trace& trace, const AnalysisOptions& options, const LoadControl& control = {});
// Same with a classifier the caller already loaded (the GUI keeps one).
AnalysisResult analyze(const Trace& trace, const OpClassifier& classifier, const AnalysisOptions& options,
                       const LoadControl& control = {});

} // namespace sl
