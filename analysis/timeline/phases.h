#pragma once
// Prefill vs decode and decode-step segmentation.
//
// Step boundaries, first that applies:
//   1. a user regex on kernel names (PhaseOptions::step_regex): each matching kernel ends a step;
//   2. serving steps named by their framework (step_grammar.h: vLLM/SGLang execute_…, SGLang step[…], TensorRT-LLM
//      _forward_step …): one step per annotated range, however many there are (one is a step too); an annotation
//      nested in another of the same thread (SGLang's step[…] inside execute_…) is the same step, and the two fill
//      each other's batch. Each step carries its batch composition and kind (prefill-only … decode-only);
//   2b. other NVTX / user-annotation ranges whose name matches nvtx_step_regex (at least min_steps of them): one step per range;
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
// Prefill: in NVTX mode, ranges matching nvtx_prefill_regex or vLLM's batch names; else, with Kineto record_shapes,
// the query length of the step's attention calls (prefill_min_query_tokens); else, in any mode, the shapes of the
// CPU ops of the step's kernels (kernel_ops.h): attention query lengths as before, then GEMM rows — a step whose
// median GEMM M is at least prefill_min_query_tokens x the smallest step's is a prefill pass (batch x prompt rows
// against batch rows), the steps the shapes say nothing of then decode; otherwise a step whose kernel time exceeds prefill_factor × the median step kernel time (prefill runs the same
// layers over many tokens per launch, so its GEMMs are much longer); prefill_ns = Σ their wall time (TTFT-like).
// TPOT median/p90 over the decode steps after the first warmup_steps of them (warm-up excluded, and reported).
// With annotated steps, TPOT comes only from decode-dominated steps (kind decode-only or decode-heavy); a step's
// phase is prefill (prefill-only), decode (decode-only) or mixed (prefill-heavy, mixed, decode-heavy). A capture of
// a single annotated step says so in note and still has its step measured from the GPU work its range launched.
// The first kernel-boundary step (step_regex, sampling kernels) starts at the start of the GPU work that leads to
// its boundary — after the last idle gap longer than first_step_idle_ns before it — not at the first op of the
// capture, which may lie before a long stall (its wall is then a stall, not a step). Likewise the first annotated
// step starts after an idle gap longer than first_step_idle_ns at its head (with at most a quarter of its GPU time
// before it): a kernel its range queued at once that ran only after a stall.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "analysis/timeline/step_grammar.h"
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
    // With record_shapes (Kineto), a step whose attention calls all have at least this many query tokens per
    // sequence is a prefill pass, one whose calls all have one is a decode step (see PhaseResult::phase_source).
    int64_t prefill_min_query_tokens = 16;
    // Warm-up detection (issue 13): beyond the first warmup_steps, leading decode steps whose wall time exceeds
    // warmup_factor x the median of the second half of the decode steps (lazy module loads, first-call GEMM
    // tuning, allocator growth) are warm-up too, and left out of the steady-state window.
    double warmup_factor = 2.0;
    // Sampling-kernel boundaries that repeat once per layer are not sampling kernels (a MoE router's top-k runs in
    // every layer): refused when runs_once_per_layer (op_classes.h) says so of all their launches together.
    bool per_layer_guard = true;
    // The step grammar (resources/step_grammar.json layout); empty = the shipped file.
    std::string step_grammar_file;
    // First kernel-boundary step: idle gaps longer than this before its boundary end the stretch it starts after.
    int64_t first_step_idle_ns = 10'000'000;
};

// Kernel classes the step finder needs beyond sampling (-1 = not known).
struct PhaseClasses {
    int attention = -1;
    int gemm = -1;
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
    bool mixed = false;             // a step that runs prefill (context) and decode tokens together (chunked prefill)
    StepKind kind = StepKind::Unknown;   // from the annotation; else from prefill/mixed (set for every step)
    StepBatch batch;                // what the step's annotation states (batch.known()); unknown fields -1
    bool decode_dominated() const { return kind == StepKind::DecodeOnly || kind == StepKind::DecodeHeavy; }
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
    // Issue 13.
    int64_t mixed_steps = 0;               // steps with prefill and decode tokens together (counted in neither)
    int64_t warmup_detected = 0;           // of warmup_excluded: steps found slow by warmup_factor
    int64_t steady_start = 0, steady_end = 0;   // the analysed steady-state window (first..last steady step)
    int64_t training_iterations = 0;       // training run: iterations found (ProfilerStep ranges); no phases
    // Their GPU windows [start, end), in time order: what the Roofline's training phase measures per iteration.
    std::vector<std::pair<int64_t, int64_t>> training_windows;
    std::string rejected_boundary;         // a per-layer kernel refused as a step boundary (see per_layer_guard)
    // Serving steps named by their framework: how many, and the grammar formats they used ("vllm_execute",
    // "sglang_step", ...; joined by "+"), "" when none.
    int64_t annotated_steps = 0;
    std::string batch_source;
    // What told prefill from decode: "names" (NVTX prefill ranges, serving steps' annotations such as vLLM's
    // execute_… and SGLang's step[…]: their batch composition),
    // "attention_shapes" (the query length of each step's attention calls, record_shapes), "gemm_shapes" (the rows of
    // each step's GEMMs against the smallest step's, record_shapes), "kernel_time" (a step
    // longer than prefill_factor x the median), "" when no steps.
    std::string phase_source;
};

// A training run has iterations, not prefill/decode steps: clears steps, phases and TPOT, keeps the iteration
// count, and says why in note (so no decode or prefill metric exists for rules to read).
void clear_for_training(PhaseResult& result, const std::string& why);

// kernel_class: per-kernel op class (classify_ops); sampling_class: index of class "sampling" (-1: none).
// projection: NVTX projection (may be null: NVTX steps then use host range windows).
// Throws TraceError when step_regex is not a valid regular expression. O(n log n).
// vLLM's per-step ranges, execute_context_N(..)_generation_M(..), are step ranges too (whatever nvtx_step_regex
// says): N > 0 and M > 0 is a mixed step, N > 0 alone a prefill step, N == 0 a decode step.
PhaseResult analyze_phases(const Trace& trace, const std::vector<int16_t>& kernel_class, int sampling_class,
                           const NvtxProjectionResult* projection, const PhaseOptions& options = {},
                           const PhaseClasses& classes = {});

} // namespace sl
