#pragma once
// Prefill vs decode and decode-step segmentation.
//
// Step boundaries, first that applies:
//   1. a user regex on kernel names (PhaseOptions::step_regex): each matching kernel ends a step;
//   2. NVTX / user-annotation ranges whose name matches nvtx_step_regex (at least min_steps of them): one step per range;
//   3. sampling kernels (op class "sampling": argmax, top-k, top-p, multinomial, ...): each ends a step (seed 001
//      uses argmax_kernel the same way).
// With kernel boundaries, step i runs from the end of boundary i-1 to the end of boundary i (seed 001); the first
// segment runs from the first GPU op to the first boundary (it holds the prefill when the capture starts with one).
// Consecutive boundary kernels with fewer than min_step_kernels other kernels between them (e.g. top-k, then
// softmax, then multinomial) are folded into one boundary. With NVTX steps, a step's GPU work is what its range
// launched (nvtx_gpu_proj semantics; the host range itself when it launched nothing); its window runs from the end
// of the previous step's GPU work to the end of its own, so the wall time is the token-to-token period on the GPU.
// Kernel counts and kernel time of NVTX steps are the projected ops; of boundary steps, kernels starting in the window.
// Per step: kernel count, Σ kernel time, wall, busy (union of GPU ops in the window), gap = wall - busy,
// utilisation = busy / wall, host sync calls and launch calls started in the window.
// Prefill: in NVTX mode, ranges matching nvtx_prefill_regex; otherwise a step whose kernel time exceeds prefill_factor × the median step kernel time (prefill runs the same
// layers over many tokens per launch, so its GEMMs are much longer); prefill_ns = Σ their wall time (TTFT-like).
// TPOT median/p90 over the decode steps after the first warmup_steps of them (warm-up excluded, and reported).

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/trace/trace.h"

namespace sl {

struct NvtxProjectionResult;

struct PhaseOptions {
    std::string step_regex;                  // kernel-name regex (ECMAScript, case-insensitive); empty = not used
    std::string nvtx_step_regex =
        R"(^(ProfilerStep#\d+|(decode|generate|gen)[_ -]?step[_ #:-]?\d*|token[_ #:-]?\d+|step[_ #:-]?\d+|decode[_ #:-]\d+)$)";
    // NVTX ranges that are prefill passes (counted as prefill steps in NVTX mode, whatever their size).
    std::string nvtx_prefill_regex = R"(^(prefill|prompt|context[_ -]?encode)([_ #:-]?\d+)?$)";
    bool sampling_boundaries = true;         // use sampling-class kernels when nothing else applies
    int min_steps = 2;                       // fewer NVTX step ranges / boundaries than this: method not used
    int min_step_kernels = 2;                // boundary folding (see above)
    int warmup_steps = 2;                    // first decode steps excluded from TPOT
    double prefill_factor = 3.0;
};

enum class StepSource : uint8_t { None = 0, KernelRegex = 1, NvtxRanges = 2, SamplingKernels = 3 };
const char* step_source_name(StepSource s);   // "none", "kernel_regex", "nvtx", "sampling_kernel"

struct StepInfo {
    int64_t start = 0, end = 0;     // GPU window
    int64_t wall_ns = 0;            // TPOT sample
    int64_t kernels = 0;
    int64_t kernel_ns = 0;
    int64_t busy_ns = 0, gap_ns = 0;
    double utilization = 0;
    int64_t sync_calls = 0, launch_calls = 0;
    int32_t range = kNoIndex;       // NVTX step range row
    bool prefill = false, warmup = false;
};

struct PhaseResult {
    PhaseOptions options;
    StepSource source = StepSource::None;
    std::string boundary;                  // the regex or kernel name that delimits steps
    std::vector<StepInfo> steps;
    int64_t prefill_steps = 0, prefill_ns = 0;
    int64_t decode_steps = 0;
    int64_t warmup_excluded = 0;           // decode steps excluded from TPOT
    int64_t steady_steps = 0;
    double tpot_median_ns = 0, tpot_p90_ns = 0, tpot_mean_ns = 0;
    double steady_utilization = 0;         // mean over steady steps
    double steady_kernels_per_step = 0;
    double steady_sync_calls_per_step = 0;
    std::string note;                      // why nothing was found, or caveats
};

// kernel_class: per-kernel op class (classify_ops); sampling_class: index of class "sampling" (-1: none).
// projection: NVTX projection (may be null: NVTX steps then use host range windows).
// Throws TraceError when step_regex is not a valid regular expression. O(n log n).
PhaseResult analyze_phases(const Trace& trace, const std::vector<int16_t>& kernel_class, int sampling_class,
                           const NvtxProjectionResult* projection, const PhaseOptions& options = {});

} // namespace sl
