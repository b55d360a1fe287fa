#pragma once
// Joining a CUDA/HIP graph replay to the trace of the graph's capture: a step between reading and analysis.
//
// A kernel replayed from a graph is launched by the graph launch (cudaGraphLaunch / hipGraphLaunch), which carries no
// CPU op, so it has no operator, module, shapes or dtype. A server records them when it captures its graphs
// (vLLM / SGLang with the profiler on during capture; TraceLens calls that trace the capture trace): between
// cudaStreamBeginCapture / hipStreamBeginCapture and ...EndCapture, every kernel launch call names the kernel it adds
// to the graph (args "kernel") and carries the External id of the CPU op that launched it (with "Input Dims",
// "Input type", "Concrete Inputs") under its Python module frames. The capture trace is not a rank: its kernels
// never ran (only a few set-up fills do).
//
// The join, per graph launch of the replay and per stream of its kernels (start order):
//   1. candidates: every capture window (BeginCapture .. EndCapture on one thread) of every capture trace, its
//      kernel launches in call order;
//   2. alignment: the longest common subsequence of kernel names (the text before any template arguments or
//      parameter list, so one demangling or another compares equal), in a band around the diagonal, which tolerates
//      a few extra or missing kernels on either side; a capture launch without a kernel name matches by position;
//   3. choice: the window with the most matched kernels; on a tie, the capture whose execution_details.json batch
//      size is the replay's batch (the N of the vLLM/SGLang "execute_N_..." annotation or "bs=N" around the graph
//      launch: equal, else the smallest larger one), then the same rank;
//   4. every matched kernel gets its twin's CPU op (copied into the replay's op_args, once per captured op), the
//      chain of CPU ops and the module path around the twin's launch (Trace::graph_ops); each capture's counts go to
//      Trace::meta.captures.
// Graph launches whose kernel-name sequence was seen before reuse that alignment, so a run of identical decode steps
// costs one alignment.

#include <string>
#include <vector>

#include "analysis/trace/load_control.h"
#include "analysis/trace/trace.h"

namespace sl {

struct CaptureInput {
    std::string path;               // a capture trace file
    std::string source;             // "option" | "beside" | "input" (as GraphCaptureJoin::source)
    int64_t batch_size = 0;         // from execution_details.json (0 = not named)
    std::string mode;               // "FULL", "PIECEWISE", ... ("" = not named)
};

// The folder a --capture-trace PATH names, or the capture_traces/ folder beside a trace: its trace files
// (*.json, *.json.gz other than execution_details.json), sorted, with the batch size and mode that folder's
// execution_details.json gives each (a list of {"file", "batch_size", "mode"}). A file PATH is taken as it is (with
// the execution_details.json beside it, when there is one). Throws TraceError on an unreadable or malformed
// execution_details.json, naming it.
std::vector<CaptureInput> capture_inputs(const std::string& path, const std::string& source);
// capture_inputs(<folder of trace_path>/capture_traces, "beside"), or nothing when there is no such folder.
std::vector<CaptureInput> captures_beside(const std::string& trace_path);

// Whether a trace is the trace of a graph capture: more kernel launch calls between stream Begin/EndCapture calls than
// kernels it ran.
bool is_capture_trace(const Trace& t);
// Whether a trace replays graphs (a graph launch call, or a kernel flagged as a graph node).
bool has_graph_replay(const Trace& t);

struct LoadedCapture {
    CaptureInput input;
    Trace trace;                    // read with its module frames (KinetoReadOptions::python_modules)
};

// Reads a capture trace for the join (Kineto JSON, with module frames). Throws TraceError as the reader does.
LoadedCapture read_capture(const CaptureInput& input, const LoadControl& control = {});

// Joins the replay's graph-launched kernels to their captured twins (see above). Appends to replay.graph_ops (which
// must be empty) and replay.op_args, and records one GraphCaptureJoin per capture in replay.meta.captures.
void join_graph_captures(Trace& replay, const std::vector<LoadedCapture>& captures);

// nsys exports with graph-node ids (--cuda-graph-trace=node): a kernel replayed from a graph carries its node's id
// (KERNEL.graphNodeId), and the node's creation is a host event on the capturing thread (CUDA_GRAPH_NODE_EVENTS, or
// CUDA_GRAPH_EVENTS in exports that keep node rows there), made during the launch call that captured it; an
// instantiated (cloned) node names the captured one in originalGraphNodeId. The NVTX ranges open at the creation are
// the node's op chain: PyTorch's emit_nvtx names the op ("aten::mm, seq = 3, op_id = 5, sizes = [[32, 2880], [2880,
// 5120]]" with record_shapes), so the innermost becomes the kernel's CPU op (copied into op_args, "Input Dims" from
// its sizes; no dtypes). What the nsys reader found, per node row:
struct GraphNodeOrigin {
    int64_t node = 0;               // graphNodeId
    int64_t original = 0;           // originalGraphNodeId (0 = none)
    int64_t created = 0;            // creation time, ns on the trace's clock
    uint32_t thread = 0;            // index into TraceMeta::threads of the creating thread
};
// kernel_node[i] = graphNodeId of kernel row i (0 = none). Fills graph_ops for the kernels whose node has an origin
// under an NVTX range, and records one GraphCaptureJoin (source "graph-nodes", the trace itself).
void join_graph_nodes(Trace& replay, const std::vector<int64_t>& kernel_node,
                      const std::vector<GraphNodeOrigin>& origins);

} // namespace sl
