#pragma once
// Where a kernel came from on the host: the launch call, the CPU operators (and annotations / NVTX ranges) open on
// the launching thread when the call was made, the nn.Module path (Kineto "nn.Module: Name" Python frames open then)
// and the shapes and types its CPU op ran on (record_shapes, joined by External id: KernelLookup::opArgsOfKernel).
// Eager launches: a kernel replayed from a CUDA graph is launched by the graph launch, so what is open around it is
// what was open around the graph launch.
//
// Read from the timeline index's flame-chart lanes of the launching thread (one binary search per depth), not from
// a scan of the ranges: a click costs O(depth · log ranges).

#include <cstdint>
#include <string>
#include <vector>

#include "model/timeline_index.h"

namespace sl {

struct KernelOrigin {
    int32_t api = -1;                    // Trace::api row of the launch call (-1: unknown)
    std::vector<uint32_t> hostRanges;    // Trace::ranges rows (NVTX, annotations, CPU ops) open, outermost first
    std::vector<uint32_t> modules;       // Trace::ranges rows of the "nn.Module: " frames open, outermost first
    int32_t op = -1;                     // the innermost CPU op of hostRanges (Trace::ranges row), -1 when none
    int32_t opArgs = -1;                 // Trace::op_args row (kCpuOp) of the op that launched it, -1 when none
    bool graphReplay = false;            // replayed from a CUDA graph (KernelTable::kGraphNode)

    // The CPU ops of hostRanges (not the annotations), outermost first.
    std::vector<uint32_t> cpuOps(const Trace& trace) const;
};

KernelOrigin kernelOrigin(const TimelineIndex& index, uint32_t kernel);

// The module name of an "nn.Module: Name_N" frame ("Name_N"); the frame's name itself otherwise.
std::string moduleName(std::string_view frame);

// The rows of the CPU op's kernels: every kernel launched by an API call on the op's thread inside the op's time
// (kernels launched by its children included), in launch order, at most `limit`. Through the timeline's API lane of
// that thread (binary search) and KernelLookup::kernelOfApi. `total` (when given) counts them all.
std::vector<uint32_t> kernelsOfHostRange(const TimelineIndex& index, uint32_t range, size_t limit = 256,
                                         int64_t* total = nullptr);

} // namespace sl
