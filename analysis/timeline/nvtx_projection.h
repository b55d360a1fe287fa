#pragma once
// NVTX → GPU projection with the semantics of nsys `nvtx_gpu_proj_trace`: a GPU op (kernel, memcpy, memset) belongs
// to a host range R when its launching API call (Trace links it: launch_api) starts inside R on the same thread.
// Projected start = min op start, projected end = max op end; GPU time = Σ op durations (inclusive of nested
// ranges); exclusive GPU time = ops whose innermost enclosing range is R ("kernel time per innermost range": per
// layer, per step). Ranges are taken to nest on their thread (the stack finish() uses for depths); a StartEnd range
// that overlaps a sibling without nesting is attributed as if it nested.
// Differences from nsys: nsys counts NumGPUOps as distinct correlation ids (a graph launch counts once); Sightline
// counts ops. Kineto user annotations (record_function) are projected too; CPU ops only on request.

#include <cstdint>
#include <vector>

#include "analysis/trace/load_control.h"
#include "analysis/trace/trace.h"

namespace sl {

struct NvtxProjectionOptions {
    bool include_user_annotations = true;   // Kineto user_annotation ranges (RangeKind::UserAnnotation)
    bool include_cpu_ops = false;           // Kineto cpu_op rows (RangeKind::CpuOp): many, rarely wanted
    size_t max_names = 200;                 // per-name rows kept (largest GPU time first)
};

struct ProjectedRange {
    int64_t proj_start = 0, proj_end = 0;   // 0/0 when the range launched no GPU op
    int64_t gpu_ns = 0;                     // inclusive
    int64_t exclusive_gpu_ns = 0;
    int64_t ops = 0;                        // inclusive
    bool included = false;                  // false for range kinds not projected
    int64_t proj_duration() const { return ops > 0 ? proj_end - proj_start : 0; }
};

struct RangeNameProjection {
    StrId name = 0;
    int64_t instances = 0;
    int64_t range_ns = 0;          // Σ host range durations
    int64_t proj_ns = 0;           // Σ projected durations
    int64_t gpu_ns = 0;            // Σ inclusive GPU time
    int64_t exclusive_gpu_ns = 0;  // Σ exclusive GPU time
    int64_t ops = 0;
};

struct NvtxProjectionResult {
    NvtxProjectionOptions options;
    std::vector<ProjectedRange> ranges;        // parallel to Trace::ranges (empty when the trace has no ranges)
    std::vector<RangeNameProjection> per_name; // largest inclusive GPU time first, capped at max_names
    int64_t projected_ranges = 0;              // included ranges that launched at least one op
    int64_t ops_in_ranges = 0, ops_total = 0;  // GPU ops attributed to some range / all GPU ops
};

// O((ranges + API calls) · log + GPU ops).
NvtxProjectionResult project_nvtx(const Trace& trace, const NvtxProjectionOptions& options = {},
                                  const LoadControl& control = {});

} // namespace sl
