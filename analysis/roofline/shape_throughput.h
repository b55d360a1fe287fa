#pragma once
// Measured throughput from the trace's own shapes (issue 15): no model config needed.
//
// PyTorch-profiler traces recorded with record_shapes=True give every CPU op its "Input Dims", "Input type" and
// "Concrete Inputs" (kept by the Kineto reader in Trace::op_args). A CPU op is joined to the GPU kernels it launched
// through the profiler's own links: kernel.correlation -> the cuda_runtime / cuda_driver launch with that correlation
// (same rank and host pid) -> its "External id" -> the innermost CPU op with that External id; a kernel replayed from
// a CUDA/HIP graph through its captured twin's op (KernelOps, analysis/trace/kernel_ops.h; one call per graph
// launch). Per call:
//
//   FLOPs         GEMM family (mm, addmm, bmm, baddbmm, linear, matmul, _scaled_mm):  2·M·N·K (·batch)
//                 attention (scaled_dot_product_*, _flash_attention_forward, _efficient_attention_forward,
//                     _cudnn_attention_forward):
//                     4·B·Hq·D·pairs, pairs = Sq·Sk, or for causal (bottom-right aligned, as flash-attn does)
//                     Sq·(Sk−Sq) + Sq·(Sq+1)/2 when Sq ≤ Sk; GQA is carried by Hq ≠ Hk (K/V bytes use Hk)
//                 MoE, per expert GEMM (TraceLens's model; M tokens, K hidden, N expert width, k experts per token
//                     out of E, g = 2 when gated, E_active = E·(1 − ((E − k)/E)^M) experts touched):
//                     up 2·M·K·N·k·g, down 2·M·N·K·k; one fused kernel: both + M·K·(2k − 1)
//                 norms: 5 per element (layer/group/batch norm), 4 (rms_norm); elementwise / reductions: 1 per
//                 element of the larger operand; embedding / index_select: 0
//   bytes         minimum traffic: every tensor input read once and the output written once, at the element size of
//                 its "Input type" (GEMM: A + B (+ bias) + C; attention: Q + K + V + O; embedding: the gathered rows
//                 read and written plus the indices; MoE: up M·K·a + E_active·g·K·N·w + M·N·k·a, down
//                 M·N·k·a + E_active·N·K·w + M·K·a, fused M·K·a + E_active·(g + 1)·K·N·w + M·K·a: the weights of the
//                 experts the batch touches, w from the kernel's name (mxfp4 0.5 B, fp8 1 B) or the weights' type)
// MoE ops modelled: vllm::moe_forward with triton_kernels matmul_ogs GEMMs (its inputs name M, K and E; N is taken
// equal to K, as TraceLens does; k from the router's TopK / topk / topk_softmax op with the same M and E; the first
// GEMM of a call is up, gated when its name says _swiglu / _glu, the next down), and fused-experts ops
// (*fused_experts*, *fused_moe*: hidden states [M, K], w1 [E, g·N, K], w2 [E, K, N], top-k weights [M, k]), whose
// first expert GEMM kernel is up and second down, or one kernel the fused whole.
//   achieved      FLOPs / kernel time and bytes / kernel time, where kernel time is the summed GPU time of every
//                 kernel the call launched
//   intensity     FLOPs / bytes;  bound = compute when intensity ≥ ridge (peak / memory bandwidth), else memory
//   % of roof     achieved FLOP/s / min(peak, intensity · bandwidth) with the peak of the call's dtype (GEMM and
//                 attention: the tensor-core peak for bf16/fp16/fp8, fp32 otherwise; the rest: fp32), or achieved
//                 bytes/s / bandwidth when the call does no FLOPs. Unknown peaks leave it unset, never guessed.
//
// Calls are aggregated per unique (op, Input Dims, Input type); a point's TFLOP/s is the sum of its calls' FLOPs over
// the sum of their kernel time.

#include "analysis/roofline/gpu_specs.h"
#include "analysis/trace/trace.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace sl {

struct ShapePoint {
    std::string op;                     // "aten::mm"
    std::string family;                 // "gemm" | "attention" | "moe" | "norm" | "elementwise" | "embedding"
    std::string input_dims, input_types;    // the trace's own text
    std::string dtype;                  // precision the roof is taken for: "bf16", "fp16", "fp8", "fp32", ...
    std::string shape;                  // readable: "M=8944 N=2816 K=1024", "B=16 Hq=16 Hk=16 Sq=559 Sk=559 D=64 causal"
    int64_t calls = 0;                  // calls that launched at least one kernel
    int64_t kernels = 0;                // kernels launched by those calls
    int64_t kernel_ns = 0;              // their summed GPU time
    double flops_per_call = 0, bytes_per_call = 0;
    double tflops = 0, tbps = 0;        // achieved over kernel_ns
    double intensity = 0;               // FLOP/byte (0 when no FLOPs)
    double min_call_tflops = 0, max_call_tflops = 0;
    std::string bound;                  // "compute" | "memory" | "" (unknown peaks)
    std::optional<double> pct_of_roof;  // 0..105, unset when the peak or the bandwidth is unknown, or inconsistent
    bool roof_inconsistent = false;     // achieved > 105 % of the roof: wrong GPU row or dtype (see warnings)
    std::vector<std::string> kernel_names;  // distinct kernel names, longest time first
    std::vector<uint32_t> kernel_rows;  // indices into Trace::kernels, for selection
    // MoE points (family "moe", op "moe_up" | "moe_down" | "moe_fused"): the layer's shape (0 / empty otherwise).
    int64_t moe_tokens = 0, moe_hidden = 0, moe_inter = 0, moe_experts = 0, moe_topk = 0;
    bool moe_gated = false;
    std::string moe_weight_dtype;       // "fp4", "fp8", "int4", or the weights' Input type
    double moe_active_experts = 0;      // E_active: experts the batch is expected to touch
};

struct ShapeRooflineResult {
    int64_t ops_with_shapes = 0;        // CPU ops carrying "Input Dims"
    int64_t calls_joined = 0;           // of those, calls joined to at least one kernel and modelled
    int64_t kernels_joined = 0;
    int64_t kernel_ns_joined = 0;
    int64_t kernels_from_capture = 0;   // kernels of shaped calls that were replayed from a graph (their op from its
                                        // capture trace)
    std::string gpu;                    // spec row used ("" = none)
    std::optional<double> mem_bw_Bps;
    std::vector<ShapePoint> points;     // largest kernel time first
    std::vector<std::string> warnings;
};

// spec may be null (unknown GPU): FLOPs, bytes and achieved rates are still given; bound and % of roof are not.
ShapeRooflineResult shape_roofline(const Trace& trace, const GpuSpec* spec);

// Bytes per element and roof precision of a PyTorch "Input type" ("c10::BFloat16" -> 2, bf16). 0 = not a tensor.
int torch_type_bytes(std::string_view torch_type);
std::optional<Precision> torch_type_precision(std::string_view torch_type);

} // namespace sl
