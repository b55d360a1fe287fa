#pragma once
// The dependency graph of one rank's work (issue 35): every CPU operator, runtime/driver call and GPU op
// (kernel, memcpy, memset) is an event with a start node and an end node; edges say what had to happen before what.
//
// The edges follow HTA's critical-path graph (hta/analyzers/critical_path_analysis.py, CPGraph), restated here as
// facts, plus graph replay, which HTA does not model (HTA #290):
//   span        start -> end of one event, or the piece of a CPU event between two of its children; weight = the
//               time between the nodes. The exit edge of a blocking call (cudaDeviceSynchronize, cudaStreamSynchronize,
//               cudaEventQuery/Synchronize, cudaMemcpy, or any call classify_api_name() flags kApiSync) weighs 0: the
//               host waited, the work it waited for is on the GPU.
//   dependency  consecutive top-level CPU events on one thread, and the runtime lock: calls that take the CUDA
//               runtime lock (launches, cudaMemcpyAsync, cudaHostAlloc) are ordered by their ends across threads.
//               Weight 0.
//   launch      launch call start -> GPU op start; weight = the launch delay. Added when the op's stream had nothing
//               queued at the launch and nothing else was launched onto it before the op started (HTA's queue-length
//               rule), the stream's previous op ended before the launch began, and an event wait (if any) was met
//               before the launch. Otherwise, when zero_weight_launch_edges is set, a zero-weight causal launch edge
//               (HTA's CRITICAL_PATH_ADD_ZERO_WEIGHT_LAUNCH_EDGE; off by default there and here: HTA's overlaid output
//               for simple_add was made without it, and with it the path differs by 2 kernels and a call).
//   kernel_gap  previous op on the stream end -> op start, weight = the gap; when the launch rule did not apply and
//               the gap is under kernel_gap_max_ns (HTA: 1.5 ms; longer means an unrecorded dependency).
//   sync        GPU op end -> end of the host call that waited for it (stream sync: the stream's last op; device /
//               context sync: the last op of every stream; event sync: the op before the event's record), and GPU op
//               end -> start of the op that a cudaStreamWaitEvent made wait (op after the wait on the waiting stream).
//               Weight 0.
//   graph       graph replay (kernels whose launch call is a cudaGraphLaunch): the first op of a launch on a stream
//               depends on the graph launch call (weight = launch delay when the stream was free), every later op on
//               its stream predecessor (weight = the gap, no threshold: a graph's nodes are queued at once).
//
// What the trace model does not record is not guessed silently: Kineto's cuda_sync events name the event record an
// event wait waited on (wait_on_cuda_event_record_corr_id, wait_on_stream); Sightline's SyncTable does not keep them,
// so an event wait is matched to the last cudaEventRecord on the waiting call's thread, and the record to the op
// launched last before it on that thread. `event_waits_inferred` counts those matches.
//
// Linear in the number of events after one sort of the nodes by time (n log n), iterative (no recursion over the
// trace), ~40 bytes per event plus ~10 bytes per edge.

#include "analysis/trace/trace.h"

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace sl::critpath {

enum class EventKind : uint8_t { CpuOp = 0, Api = 1, Kernel = 2, Memcpy = 3, Memset = 4 };
const char* event_kind_name(EventKind k);
inline bool is_gpu(EventKind k) { return k >= EventKind::Kernel; }

enum class EdgeKind : uint8_t { Span = 0, Dependency = 1, Launch = 2, KernelGap = 3, Sync = 4, Graph = 5 };
const char* edge_kind_name(EdgeKind k);

struct GraphOptions {
    // The window: CPU events that start in [begin, end), GPU ops whose launch call does, syncs whose call does.
    int64_t begin = std::numeric_limits<int64_t>::min();
    int64_t end = std::numeric_limits<int64_t>::max();
    int64_t kernel_gap_max_ns = 1'500'000;       // HTA KERNEL_KERNEL_DELAY_THRESHOLD_US
    bool zero_weight_launch_edges = false;       // causal launch -> op edge when the launch edge proper is not added
};

// Node n belongs to event n / 2; n % 2 == 0 is its start, 1 its end.
struct DependencyGraph {
    std::vector<EventKind> event_kind;
    std::vector<uint32_t> event_row;             // row in the table of its kind (ranges, api, kernels, memcpy, memset)
    std::vector<int64_t> node_ts;                // 2 per event
    std::vector<uint32_t> cpu_parent;            // per CPU event (ids below cpu_events): its enclosing event on the
                                                 // thread's stack, UINT32_MAX at the top level
    size_t cpu_events = 0;                       // CPU events come first, GPU ops after them
    // Edges in insertion order (HTA's order: runtime lock, call stacks, GPU ops); weight = node_ts[dst] -
    // node_ts[src] unless zero_weight (negative differences count 0: a child that ends a nanosecond after its parent).
    std::vector<uint32_t> edge_src, edge_dst;
    std::vector<EdgeKind> edge_kind;
    std::vector<uint8_t> edge_zero;              // 1 = weighs 0
    int64_t event_waits_inferred = 0;            // event syncs / stream waits matched by thread order (see above)
    int64_t negative_edges = 0;                  // edges whose time difference was negative (counted as 0)

    size_t events() const { return event_kind.size(); }
    size_t nodes() const { return node_ts.size(); }
    size_t edges() const { return edge_src.size(); }
    int64_t weight(size_t e) const
    {
        if (edge_zero[e]) return 0;
        const int64_t w = node_ts[edge_dst[e]] - node_ts[edge_src[e]];
        return w > 0 ? w : 0;
    }
    static uint32_t start_node(uint32_t ev) { return 2 * ev; }
    static uint32_t end_node(uint32_t ev) { return 2 * ev + 1; }
    size_t memory_bytes() const;
};

DependencyGraph build_dependency_graph(const Trace& trace, const GraphOptions& options = {});

// How many graphs build_dependency_graph has built in this process (tests: the pipeline builds one per run).
uint64_t dependency_graphs_built();

} // namespace sl::critpath
