#pragma once
// What-if replays (issue 35 §3): the dependency graph (dependency_graph.h) re-timed under a change, and the step time
// it gives.
//
// The replay is ASAP in topological order: a node's new time is the largest, over its in-edges, of the predecessor's
// new time plus the edge's weight under the change; a node with no in-edge (a thread's first event) keeps its time.
// The weights are the trace's own time differences, so the replay without a change gives back the trace:
//   host        a CPU event's pieces and the gaps between top-level events on one thread (unrecorded host work such
//               as Python): the measured time. Runtime-lock edges across threads weigh 0.
//   blocking    a blocking call (sync, blocking copy) ends at max(its start, the GPU op it waited for) + the residual
//               it took after that (the call's own cost): both edges carry that residual.
//   launch      launch call start -> GPU op start: the measured delay when the stream was free (HTA's launch edge);
//               for an op that was queued, min(its delay, the trace's median launch delay), so a faster stream
//               predecessor cannot start it before its launch.
//   stream      stream predecessor end -> op start: the measured gap for a queued op; for an op its launch held back,
//               min(its gap, the median positive gap between queued ops), so a faster host cannot start it before its
//               predecessor ends.
//   sync        GPU op -> host call it held (stream, device, event syncs; and, where the trace records no sync row,
//               the last op launched on the call's thread before a host-blocking call, counted in syncs_inferred), and
//               GPU -> GPU event waits.
//   span        a GPU op's duration.
// Changes scale or drop weights:
//   cuda-graphs        per step and launching thread, the host time from the step's first launch call to its last
//                      collapses to one graph launch (host cost base + per node), every launch edge of the step weighs
//                      the graph's launch delay, every stream gap of the step at most the graph-node gap. Kernels keep
//                      their durations and stream order; syncs stay.
//   remove-sync[:API]  every host-blocking call (or those named API): its sync edges dropped, its host time 0.
//   class:NAME=K       kernels of operator class NAME (op_classes.h ids) K times faster.
//   fuse:NAME          class NAME's kernels scaled to the Roofline's floor for the steps' phase (roofline.h
//                      t_theory / t_actual; an unfused elementwise chain to the chain's floor).
//   remove-range:NAME  host time inside CPU ops, NVTX ranges or runtime calls named NAME, on their thread, removed;
//                      the GPU work they launched stays.
//   comm=K             communication-class kernels K times faster.
// The step time of each step is replayed as the end of its GPU work minus the previous step's; the prediction for a
// step is its measured time plus (changed replay - baseline replay), which keeps whatever the graph does not see as it
// was (the baseline replay is exact by construction when every node is explained by an edge; unexplained_nodes
// counts those it is not). predicted_step_ns is the median over the steady steps (phases.h's TPOT steps), and
// predicted_range_ns their [min, max]: the spread of the kept durations across steps.
//
// Linear in the graph's edges (one Kahn pass per replay); cancel_point() in every loop over events or edges.

#include "analysis/critpath/dependency_graph.h"
#include "analysis/timeline/op_classes.h"
#include "analysis/timeline/phases.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace sl {
struct RooflineReport;
}

namespace sl::critpath {

enum class ChangeKind : uint8_t {
    CudaGraphs = 0, RemoveSync = 1, ClassFaster = 2, Fuse = 3, RemoveRange = 4, Comm = 5
};
const char* change_kind_name(ChangeKind k);   // "cuda-graphs", "remove-sync", "class", "fuse", "remove-range", "comm"

struct Change {
    ChangeKind kind = ChangeKind::CudaGraphs;
    std::string text;          // as written
    std::string name;          // API (remove-sync), class (class/fuse) or range name (remove-range); may be empty
    double factor = 1.0;       // K (class, comm)
};

// The grammar of a change, for messages.
extern const char* const kChangeGrammar;

// Parses one --change string. On failure returns false and error names the change and what was expected.
bool parse_change(std::string_view text, Change& out, std::string& error);

// The what-if change a rule's suggestion asks for (issue 35 §4), by its id or its knowledge-base key
// "<rule>/<suggestion id>": "cuda-graphs" for cuda-graphs, "remove-sync" for remove-item / remove-syncs; "" for a
// suggestion the replay cannot express.
std::string change_for_suggestion(std::string_view suggestion_id_or_key);

struct WhatIfOptions {
    // CUDA graph replay, measured on tests/data/device/decode-graph.pt.trace.json.gz (H100, PyTorch 2.11, under the
    // profiler; 16 replays of a 384-node graph): gaps between consecutive graph nodes median 417 ns, mean 483 ns,
    // p90 607 ns; cudaGraphLaunch 320-381 µs, median ≈ 345 µs, i.e. ≈ 0.9 µs per node. A trace that holds graph
    // replays itself supplies its own figures instead (WhatIfResult::graph_constants_source says which).
    int64_t graph_node_gap_ns = 480;
    int64_t graph_launch_base_ns = 5'000;
    int64_t graph_launch_per_node_ns = 900;
    // When the trace has no op launched onto a free stream (or none queued), the launch delay and the gap between
    // queued ops fall back to these.
    int64_t default_launch_delay_ns = 5'000;
    int64_t default_queued_gap_ns = 1'000;
};

// What the replay needs besides the graph: the trace's classes, steps, and the Roofline (fuse only). Each may be null.
struct WhatIfInputs {
    const OpClassResult* classes = nullptr;
    const PhaseResult* phases = nullptr;
    const RooflineReport* roofline = nullptr;
};

struct ChangeEffect {
    Change change;
    std::string changed;                 // what it changed, in words
    std::vector<std::string> kept;       // what it kept
    std::vector<std::string> unknown;    // what the trace does not say and the replay did not guess
    int64_t events_changed = 0;          // host pieces, calls, kernels or edges it touched
    int64_t alone_step_ns = 0;           // predicted step time with this change alone
    int64_t alone_lo_ns = 0, alone_hi_ns = 0;
};

struct StepReplay {
    int32_t step = 0;                    // index into PhaseResult::steps (-1: the whole capture)
    bool steady = false;
    int64_t measured_ns = 0;             // the trace's step time (StepInfo::wall_ns)
    int64_t baseline_replay_ns = 0;      // the replay without a change
    int64_t changed_replay_ns = 0;       // the replay with every change
    int64_t predicted_ns = 0;            // measured + changed - baseline
};

struct WhatIfResult {
    std::string step_source;             // "steps" (phases.h, steady steps), "all_steps", "capture" (no steps)
    int64_t steady_steps = 0;
    int64_t baseline_step_ns = 0;        // median measured step time of the steady steps (analyze's TPOT median)
    int64_t baseline_replay_step_ns = 0; // median of the baseline replay of the same steps
    double baseline_replay_max_error = 0;   // largest |replay - measured| / measured over those steps
    int64_t predicted_step_ns = 0;
    int64_t predicted_lo_ns = 0, predicted_hi_ns = 0;
    std::vector<ChangeEffect> changes;
    std::vector<StepReplay> steps;
    std::vector<std::string> kept;       // durations every replay keeps
    // Graph facts.
    int64_t graph_events = 0, graph_edges = 0, replay_edges = 0;
    int64_t unexplained_nodes = 0;       // nodes the baseline replay puts earlier than the trace (an unrecorded wait)
    int64_t unknown_dependencies = 0;    // queued ops started > kernel_gap_max after their predecessor, gap kept
    int64_t syncs_inferred = 0;          // host-blocking calls given a sync edge by thread order (no sync row)
    int64_t syncs_unmatched = 0;         // host-blocking calls whose wait could not be matched (kept as measured)
    int64_t launch_delay_ns = 0, queued_gap_ns = 0;   // the medians the launch and stream edges use
    int64_t graph_node_gap_ns = 0, graph_launch_base_ns = 0, graph_launch_per_node_ns = 0;
    std::string graph_constants_source;
};

// Thrown by replay_what_if for a change the trace or its analyses cannot support (an unknown class, fuse without a
// Roofline floor): the message names the change and what was expected.
struct WhatIfError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

WhatIfResult replay_what_if(const Trace& trace, const DependencyGraph& g, const std::vector<Change>& changes,
                            const WhatIfInputs& inputs = {}, const WhatIfOptions& options = {},
                            const GraphOptions& graph_options = {});

// Each change alone, as replay_what_if(trace, g, {change}, ...) gives it, on one replayer: the replay edges, their
// order and the baseline replay are built once for all of them (the pipeline replays every change its findings
// suggest). A change replay_what_if refuses (WhatIfError) gets its message in `error` and no result.
struct EachReplay {
    std::optional<WhatIfResult> result;
    std::string error;
};
std::vector<EachReplay> replay_each(const Trace& trace, const DependencyGraph& g, const std::vector<Change>& changes,
                                    const WhatIfInputs& inputs = {}, const WhatIfOptions& options = {},
                                    const GraphOptions& graph_options = {});

nlohmann::json to_json(const WhatIfResult& r);
std::string to_text(const WhatIfResult& r);

} // namespace sl::critpath
