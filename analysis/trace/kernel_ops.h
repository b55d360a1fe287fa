#pragma once
// Which CPU op launched kernel row i: one answer for kernels launched one by one and for kernels replayed from a
// CUDA/HIP graph, for every analysis that reads shapes and for the GUI's Details pane.
//
//   eager     kernel (rank, pid, correlation) -> the launch call's op_args row with that correlation (Kineto) -> its
//             External id -> the innermost CPU op (op_args kCpuOp row) carrying that External id: its name, "Input
//             Dims", "Input type" and "Concrete Inputs" (record_shapes).
//   replayed  a kernel whose launch is a graph launch (cudaGraphLaunch / hipGraphLaunch, or flagged as a graph node)
//             has no CPU op of its own; the capture join (analysis/io/graph_join.h) matched it to its twin in the
//             trace of the graph's capture and recorded the twin's CPU op in Trace::graph_ops. Without a join, a
//             replayed kernel has no op (never the graph launch's: that would give every kernel of the graph one op).
//   chain     the CPU ops around the launch call, outermost first: the cpu_op ranges enclosing the launch call on its
//             thread (the NVTX ranges there when the trace has no CPU ops, as nsys exports do); for replayed kernels,
//             those around the twin's launch in the capture.
//   module    the nn.Module frames around the launch ("GptOssForCausalLM > GraphModule"): recorded for replayed
//             kernels from the capture trace's Python stacks; eager kernels have one only when the trace kept
//             module frames (RangeKind::PyModule).
// Building it costs O(op_args + ranges); a lookup is O(1) (op_row, call) or O(log ranges) (op with the chain).
// It holds references into the trace: the trace must outlive it.

#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "analysis/trace/trace.h"

namespace sl {

struct KernelOp {
    int32_t op = kNoIndex;              // Trace::op_args row (kCpuOp) with the op's recorded args; kNoIndex = none
    std::string_view name;              // "aten::addmm"; the innermost chain entry when there is no op row; "" unknown
    std::string_view input_dims, input_types, concrete_inputs;   // raw JSON text as recorded ("" = not recorded)
    std::string chain;                  // "vllm::rocm_unquantized_gemm > aten::linear > aten::addmm" ("" = none)
    std::string module;                 // "GptOssForCausalLM > GraphModule" ("" = unknown)
    bool replayed = false;              // launched by a graph launch
    bool from_capture = false;          // replayed, and the op was recovered from the graph's capture trace
};

class KernelOps {
public:
    explicit KernelOps(const Trace& trace);

    // The op_args row (kCpuOp) of the CPU op that launched kernel row k, kNoIndex when unknown.
    int32_t op_row(size_t k) const;
    // One call of a CPU op: the kernels one eager op launched share {op row, -1}; the replayed kernels of one captured
    // op share {op row, row of the graph launch call} per replay. {kNoIndex, -1} when the op is unknown.
    std::pair<int32_t, int32_t> call(size_t k) const;
    // Launched by a graph launch (or flagged a graph node by the profiler).
    bool replayed(size_t k) const;
    // Everything known about kernel row k's op (for one kernel at a time: the chain is searched per call).
    KernelOp op(size_t k) const;

    // The ranges open on a thread at host time t, outermost first, " > " between: the chain's kind (CPU ops, or NVTX
    // without them) or, with modules, the nn.Module frames. Used for launch calls that launched no kernel of this
    // trace (a graph capture's).
    std::string around(uint32_t thread, int64_t t, bool modules) const;

    const Trace& trace() const { return t_; }

private:
    struct Key {
        int32_t rank;
        int64_t pid, id;
        bool operator==(const Key& o) const { return rank == o.rank && pid == o.pid && id == o.id; }
    };
    struct KeyHash {
        size_t operator()(const Key& k) const;
    };
    int32_t eager_op(size_t k) const;
    void build_ranges() const;

    const Trace& t_;
    std::unordered_map<Key, int32_t, KeyHash> op_of_ext_, launch_of_corr_;
    // Per thread: range rows sorted by start, for the chain (CPU ops or NVTX) and the module frames. Built on first use.
    mutable std::once_flag ranges_once_;
    mutable std::vector<std::vector<uint32_t>> chain_ranges_, module_ranges_;
    mutable bool chain_is_cpu_ops_ = true;
};

} // namespace sl
