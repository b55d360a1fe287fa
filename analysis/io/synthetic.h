#pragma once
// Synthetic, LLM-decode-shaped traces built in memory: the bundled sample, fixtures with planted behaviour for the
// analysis tests, and 10^6-kernel traces for the benchmarks.
//
// Shape: optional prefill passes (large cuBLAS GEMMs, flash-attention forward over many tokens), then decode steps
// of `layers` transformer layers each — rmsnorm, qkv GEMM, rotary, KV-cache write, decode attention, o-proj GEMM,
// residual add, rmsnorm, gate/up GEMM, silu*mul, down GEMM — closed by a final rmsnorm, the lm_head GEMM and an
// argmax sampling kernel. One CPU thread issues every launch (cudaLaunchKernel / cudaLaunchKernelExC with
// correlation ids and realistic API durations and launch latency) inside NVTX ranges "prefill N", "decode_step N"
// and "layer L". Kernels run on one compute stream, H2D copies on a copy stream, NCCL kernels on a comm stream.
// Deterministic: the same options give the same trace, bit for bit.

#include <cstdint>
#include <string>
#include <string_view>

#include "analysis/trace/trace.h"

namespace sl {

// Stream ids the generator uses (nsys numbering style: 7 is the legacy default stream of the first context).
inline constexpr uint32_t kSynthComputeStream = 7;
inline constexpr uint32_t kSynthCopyStream = 13;
inline constexpr uint32_t kSynthCommStream = 21;

struct SynthOptions {
    uint64_t seed = 1;

    // ---- shape -------------------------------------------------------------------------------------------------
    int prefill_steps = 2;            // prefill passes before the decode steps (0 = none)
    int prefill_tokens = 512;         // tokens per prefill pass (scales prefill kernel durations)
    int decode_steps = 32;
    int layers = 8;
    int context_tokens = 512;         // KV length at the first decode step (decode attention grows with it)
    bool nvtx = true;                 // emit NVTX ranges ("prefill N", "decode_step N", "layer L")

    // Scale mode: when > 0, prefill is kept as given and decode steps are generated until exactly this many
    // kernels exist (decode_steps is ignored).
    int64_t total_kernels = 0;
    // When > 0, extra per-layer NVTX ranges ("attention", "mlp") are added so the trace holds about this many
    // ranges in all (within ~1 %).
    int64_t total_nvtx = 0;

    // ---- host timing (ns, means; each draw jitters by +-jitter) ----------------------------------------------
    int64_t start_ns = 300'000'000;   // first event, on the session clock
    int64_t launch_api_ns = 4'500;    // duration of one cudaLaunchKernel call
    int64_t host_overhead_ns = 3'500; // framework time between two launches
    int64_t launch_latency_ns = 6'000;// earliest kernel start after its launch call began
    int64_t step_host_ns = 150'000;   // scheduler work on the host between decode steps
    double jitter = 0.08;
    double kernel_time_scale = 1.0;   // multiplies every kernel duration

    // ---- device ----------------------------------------------------------------------------------------------
    std::string gpu_name = "NVIDIA H100 80GB HBM3";
    int32_t device_id = 0;
    int32_t sm_count = 132;
    double memory_bandwidth_Bps = 3.35e12;
    int64_t clock_hz = 1'980'000'000;
    int64_t total_memory_bytes = 85'520'809'984;
    int64_t l2_cache_bytes = 52'428'800;
    int64_t pid = 48'213;
    std::string process_name = "python3";

    // ---- planted behaviour -----------------------------------------------------------------------------------
    // Every launch call is issued only after the previous compute kernel ended (plus host_starve_gap_ns): the GPU
    // waits for the host before every kernel.
    bool host_starved = false;
    int64_t host_starve_gap_ns = 20'000;
    // After the sampling kernel of every step: cudaMemcpyAsync D2H of 8 bytes on the compute stream, then
    // cudaStreamSynchronize (what `.item()` does), with a SYNCHRONIZATION row. The host blocks until the copy ends.
    bool sync_every_step = false;
    // H2D copies on the copy stream, h2d_copies_per_step per step (prefill included).
    bool h2d_copies = true;
    int h2d_copies_per_step = 2;
    uint64_t h2d_bytes_per_step = 2u << 20;
    // true: the copies for step s+1 are issued during step s and run under its compute.
    // false: the copies of step s run before its first kernel, and compute waits for them (no overlap).
    bool copy_overlaps_compute = true;
    // H2D copies from pageable host memory: slower, and cudaMemcpyAsync blocks the host until the copy ends.
    bool pageable_copies = false;
    // Tensor-parallel all-reduce: two ncclKernel_AllReduce per layer (after o-proj and after down), on the comm
    // stream, launched with cuLaunchKernelEx (driver API).
    bool nccl = false;
    // true: the all-reduce runs under the following compute kernels; false: compute waits for it.
    bool nccl_overlaps_compute = false;
    // Decode steps replayed as CUDA graphs: one cudaGraphLaunch per step, every kernel flagged kGraphNode with the
    // graph launch's correlation id (nsys --cuda-graph-trace=node). No per-layer NVTX inside graph steps.
    bool cuda_graphs = false;
    // Warm-up (issue 13): the first warmup_heavy_steps decode steps run warmup_slowdown x slower kernels after 1 ms
    // of host work (autotuning), and the first of them starts with a 3 ms cuModuleLoadData (a lazy first launch).
    int warmup_heavy_steps = 0;
    double warmup_slowdown = 5.0;
    // Mixed (chunked-prefill) steps (issue 13): decode-step ranges are named like vLLM's batches,
    // "execute_context_N(T)_generation_M(M)", and every mixed_every-th decode step also runs one prefill chunk of
    // prefill_tokens tokens (its kernels prefill-sized), named with N = 1. 0 = off.
    int mixed_every = 0;
    // JIT compilation before the first kernel (nvFuser-style): the first step's inputs are uploaded, then the host
    // spends jit_compile_ns in an NVTX range "KernelExecutor::compileFusion", 80 % of it in a nested
    // "nvrtcCompileProgram" range, and loads the compiled module (cuModuleLoadData, 2 ms) before the first launch.
    // The GPU idles behind it. 0 = off.
    int64_t jit_compile_ns = 0;
    // Host/device clock offset (issue 13): added to every GPU time after generation, as a profiler whose GPU clock
    // is not synchronised with the host clock would write it. 0 = one clock.
    int64_t clock_offset_ns = 0;

    // ---- serving: recorded shapes, MoE, the graph's capture ----------------------------------------------------
    // record_shapes: the GEMM launches (and the MoE block) run inside CPU ops carrying "Input Dims" / "Input type"
    // for `batch` tokens per decode step, joined to their launches by External id, as the PyTorch profiler writes
    // them with record_shapes=True (kept in a Kineto output).
    bool record_shapes = false;
    // MoE decode (a gpt-oss-like layer through triton_kernels): every layer's MLP is a router GEMM (h -> E), then
    // under vllm::moe_forward a TopK (k in its Concrete Inputs), routing, the matmul_ogs up GEMM with swiglu and
    // the down GEMM over MXFP4 expert weights of width h, and the finalize scatter. 0 = a dense MLP.
    int moe_experts = 0;
    int moe_top_k = 4;
    // With cuda_graphs: the graph's capture at the start of the trace itself, as an nsys profile of a server's
    // start-up holds it — cudaStreamBeginCapture, one launch call per node under PyTorch emit_nvtx-style NVTX ranges
    // ("aten::mm, seq = N, op_id = N, sizes = [[8, 4096], [4096, 12288]]"), cudaStreamEndCapture — so an nsys output
    // carries graph-node creation events (CUDA_GRAPH_NODE_EVENTS) the replayed kernels' graphNodeId lead back to.
    bool capture_in_trace = false;
    // Serving-step annotations, as the frameworks write them, instead of "prefill N" / "decode_step N" (and instead
    // of the older batch names of mixed_every):
    //   "vllm"   execute_{N}_context_{C}(sq…sk…sqsq…sqsk…)_generation_{G}(sq…sk…sqsq…sqsk…) on every step;
    //   "sglang" step[EXTEND bs=1 toks=T] for prefill passes, step[DECODE bs=B] for decode steps and
    //            step[MIXED bs=… c=1 g=B c_sq=… c_sk=… c_sqsq=… c_sqsk=… g_sq=… g_sk=… g_sqsq=… g_sqsk=…] for mixed
    //            ones.
    // With mixed_every > 0 every mixed_every-th decode step also runs a prefill chunk of prefill_tokens tokens (a
    // first chunk: Σk = Σq). Decode requests each attend to context_tokens + step KV tokens.
    std::string step_annotation;
    // Decode requests (one token each) per decode step: the shapes record_shapes writes and the step annotations'
    // batch (the kernels' durations are batch 8's whatever it is).
    int batch = 8;
    // A queued kernel blocked on an event: the first decode step opens with cudaStreamWaitEvent, launches its first
    // kernel (queued at once) and then blocks the host in a synchronous cudaMemcpy; the kernel starts only
    // event_stall_ns after the GPU went idle (as SGLang's overlap scheduler shows). 0 = off.
    int64_t event_stall_ns = 0;
};

// Named presets:
//   "decode" — the bundled sample: 2 prefill passes + 32 decode steps x 8 layers (~3,000 kernels).
//   "scale"  — 1,000,000 kernels, 32 layers, ~200,000 NVTX ranges, no prefill (benchmarks).
// Throws std::invalid_argument for an unknown name.
SynthOptions synth_preset(std::string_view name);

// Builds the trace and calls Trace::finish(). meta.format is "synthetic".
Trace make_synthetic_trace(const SynthOptions& options);

// The trace of capturing the decode graph make_synthetic_trace(options) replays (options.cuda_graphs), as a server
// writes it with the profiler on during capture: one cudaStreamBeginCapture .. cudaStreamEndCapture window on the
// host thread holding one launch call per node of the graph, in the replay's order, each naming its kernel (args
// "kernel") and carrying the External id of its CPU op with the shapes of options.batch tokens, under nn.Module
// frames (LlamaForCausalLM > LlamaDecoderLayer > ...); no kernel runs. Write it with write_kineto_json.
Trace make_synthetic_capture_trace(const SynthOptions& options);

// A Hugging Face style config.json for the model the synthetic kernels stand for: a Llama-2-7B-shaped model
// (hidden 4096, intermediate 11008, 32 heads, 32 KV heads, vocab 32000, bf16) with options.layers layers, so
// `--model` / the Roofline pane can be tried on the generated trace. Its kernel durations were set for batch 8 and
// a 512-token context (prefill passes of prefill_tokens tokens).
std::string synth_model_config_json(const SynthOptions& options);

} // namespace sl
