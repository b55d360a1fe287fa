#pragma once
// Theoretical FLOPs and bytes per LLM operator, per phase, and the Roofline time bound on a GPU.
//
// Notation (per layer): b = batch, s = prompt length (prefill), L = context length (decode, KV tokens attended to,
// the new token included), q = query tokens per sequence this pass (s in prefill, 1 in decode), T = b*q tokens,
// h = hidden_size, H = attention heads, Hkv = KV heads, d = head_dim, I = intermediate_size, V = vocab_size,
// w / a / kv = bytes per element of weights / activations / KV cache, Lkv = s (prefill) or L (decode).
//
// GEMM (in -> out), e.g. q_proj (h -> H*d), k_proj/v_proj (h -> Hkv*d), o_proj (H*d -> h), gate/up (h -> I),
// down (I -> h), lm_head (h -> V), MoE router (h -> E):
//     FLOPs = 2*T*in*out (tensor cores)            Bytes = in*out*w + T*in*a + T*out*a
// norm (RMSNorm):   FLOPs = 4*T*h      Bytes = 2*T*h*a + h*w           (LayerNorm: 7*T*h, + 2*h*w)
// rotary:           FLOPs = 3*T*(H+Hkv)*d          Bytes = 2*T*(H+Hkv)*d*a   (read and write q and k)
// kv_cache_write:   FLOPs = 0          Bytes = 2*T*Hkv*d*a (read k, v) + 2*T*Hkv*d*kv (write the cache)
// attention, fused (FlashAttention-style, one pass, GQA-correct: K/V read once per KV head, not per query head):
//     pairs P = b*H*s*(s+1)/2 (causal prefill, masked tiles skipped) | b*H*s*s (causal_skip off) | b*H*L (decode)
//     FLOPs = 4*d*P (QK^T and PV, tensor) + 5*P (softmax: max, sub, exp, sum, div; CUDA cores)
//     Bytes = 2*b*q*H*d*a (read Q, write O) + 2*b*Lkv*Hkv*d*kv * R
//     R = 1 (ideal single pass over K/V; the default), or with fa_q_tile = Br > 0 in prefill, n = ceil(s/Br) Q tiles
//     each re-reading K/V: R = n (causal_skip off) or (n+1)/2 (causal: tile i reads i of n KV tiles).
//     sliding window W (config sliding_window / layer_types, per layer): decode P = b*H*min(L, W) and K/V read for
//     min(L, W) tokens; causal prefill P = b*H*(s(s+1)/2 if s <= W, else W(W+1)/2 + (s-W)*W), K/V read once.
// attention, unfused (eager: QK^T -> softmax -> PV, masked work not skipped), P' = b*H*q*Lkv score elements:
//     qk_matmul:  FLOPs = 2*d*P'   Bytes = b*q*H*d*a (Q) + b*Lkv*Hkv*d*kv (K) + P'*a (scores written)
//     softmax:    FLOPs = 5*P'     Bytes = 2*P'*a (scores read, probabilities written)
//     sv_matmul:  FLOPs = 2*d*P'   Bytes = P'*a (probabilities) + b*Lkv*Hkv*d*kv (V) + b*q*H*d*a (O written)
//     so the score matrix costs 4*P'*a bytes in total (write, read+write, read).
// act_mul (SiLU(gate)*up):  FLOPs = 5*T*I   Bytes = 3*T*I*a     (ungated GELU: 5*T*I, 2*T*I*a)
// residual add:             FLOPs = T*h     Bytes = 3*T*h*a
// MoE layer: router GEMM (h -> E), then with k experts per token, Tk = T*k routed rows and
//     U = E*(1 - (1 - k/E)^T) distinct experts expected to be touched (uniform routing), or the experts the trace's
//     steps touched (CostOptions::experts_touched: the eager path's expert calls per step and layer):
//     experts_gate/up: FLOPs = 2*Tk*h*Ie  Bytes = U*h*Ie*w + Tk*h*a + Tk*Ie*a;  experts_down likewise (Ie -> h);
//     (op class moe_gemm, so the Roofline's MoE row carries the weights of the experts the batch touches);
//     experts_act_mul: 5*Tk*Ie FLOPs, 3*Tk*Ie*a bytes; shared experts are a dense MLP of width Is over T tokens.
// Once per model: embedding (Bytes = T*h*w + T*h*a), final_norm (over T tokens), lm_head (GEMM over b rows in
// decode; in prefill over b rows — the last token of each sequence — or all T rows with prefill_all_logits).
//
// Weights (w above) are read at each module's own storage format: quantization_config's format for quantised
// linear modules, torch_dtype for the rest (modules_to_not_convert, the embedding, norms, and lm_head unless the
// config quantises it); --weight-dtype sets every weight's.
//
// Decode GEMMs have intensity 2*T*in*out / (in*out*w + ...) ~= 2*b/w FLOP/byte (the rule of thumb).
//
// Time on a GPU (per operator and layer, then summed):
//     t_compute = tensor_flops / P_gemm + (flops - tensor_flops) / P_fp32,  t_memory = bytes / (BW * bw_efficiency)
//     T_theory  = max(max(t_compute, t_memory) * kappa, t_floor);  bound = compute when t_compute >= t_memory, else
//     memory, or latency when t_floor is above both.
//     t_floor   = kernels * min_kernel: each operator instance is one kernel, and no kernel runs shorter than the GPU's
//     minimum kernel duration (GpuSpec::min_kernel_ns, resources/gpus.json), so a decode residual add of 64 KB is
//     judged against ~0.8 us on an H100, not against the 20 ns its bytes would take at full bandwidth. Without a
//     minimum for the GPU there is no floor.
// kappa defaults to 1.0: T_theory is then the plain Roofline bound and E_roof = T_theory / T_actual is the
// fraction of the roof reached (the design's kappa in [1.1, 2.0] is an empirical loss factor: calibrate it with
// calibrate_kappa() on measured operators, or pass it). P_gemm is the tensor peak of the GEMM precision (from the
// activation dtype: bf16 -> bf16, fp16 -> fp16, fp32 -> fp32 CUDA cores or tf32 with allow_tf32, fp8 weights and
// activations -> fp8, int8 weights and activations -> int8). A peak the GPU row lacks leaves T_theory unknown.

#include <array>

#include "analysis/roofline/gpu_specs.h"
#include "analysis/io/model_config.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sl {

// Mixed: a chunked-prefill step, prefill chunks and decode tokens in one forward pass (vLLM, SGLang, TensorRT-LLM).
// Its linear layers run once over all the step's tokens (weights read once), its attention over each sequence's own
// query and KV lengths; so it is costed as one pass on the step's summed shape (CostOptions::mixed_shape) with the
// prefill formulas, which give a decode sequence (q = 1, k = L) its decode cost (pairs H·(L − ½)).
// Training: one iteration of a training run — the forward pass over b sequences of s tokens with every logit, its
// backward (≈ 2× the forward's FLOPs and bytes: each GEMM's input and weight gradients, each elementwise op's
// gradient), and the optimizer's update of every parameter (AdamW: read the parameter, its gradient and two moments,
// write the parameter and the moments). It replaces prefill and decode when CostOptions::training is set.
enum class Phase { Prefill, Decode, Mixed, Training };
const char* phase_name(Phase p);   // "prefill" | "decode" | "mixed" | "training"
// The phase a name says ("prefill", "decode", "mixed"); nullopt for any other.
std::optional<Phase> phase_from_name(std::string_view name);

// One pass of a phase as the serving steps' own annotations state it (analysis/timeline/step_grammar.h), per pass
// (the mean over the phase's steps): b requests with Σq query tokens and Σk KV tokens in all, and the attention
// sums Σq² and Σq·k. When set, it replaces batch / prompt / context for its phase: b = requests, q = Σq / b,
// Lkv = Σk / b, T = Σq, and fused attention takes its pairs from the sums — paged / chunked prefill
// Hq·(Σq·k − Σq²/2) (causal within the new chunk, as TraceLens's inference attention model), decode Hq·Σq·k — and
// reads Q and O for Σq tokens and K and V for Σk.
// The same struct carries a phase's shape read off the trace's recorded shapes (trace_shapes.h, the means per
// attention call) and a shape whose fields the user's flags partly set (roofline_for_analysis). Each says where it came
// from: source "annotation" | "trace" | "option" (a flag set at least one of its fields), and per field.
struct StepShape {
    double requests = 0;
    double sq = 0, sk = 0, sqsq = 0, sqsk = 0;
    std::string source;                 // "" = "annotation" (callers that fill the sums only)
    std::string batch_from, query_from, kv_from;   // "annotation" | "trace" | "option" | "default"
    std::string evidence;               // what was read, for people
};

struct CostOptions {
    int64_t batch = 1;                  // b
    int64_t prompt = 1024;              // s
    int64_t context = 2048;             // L
    // Shapes of a prefill pass and a decode step from the trace's step annotations (roofline_for_analysis sets them
    // when the user gave no --batch/--prompt/--context); shape_source says where the shape came from: "option",
    // "annotation" or "default".
    // "trace" (recorded shapes, trace_shapes.h) is a fourth value: each phase's own source is PhaseCost::shape_source.
    std::optional<StepShape> prefill_shape, decode_shape;
    // The mean mixed step (prefill chunks and decode tokens together), from the mixed steps' annotations: the prefill
    // and decode sides' sums added (requests, Σq, Σk, Σq², Σq·k). No default: without it there is no mixed phase.
    std::optional<StepShape> mixed_shape;
    // A training run (WorkloadKind::Training): one Training phase on the prefill shape (batch, prompt, or
    // prefill_shape), instead of prefill and decode.
    bool training = false;
    const std::optional<StepShape>& shape_of(Phase p) const
    {
        // A training iteration's forward pass is shaped as a prefill pass.
        return p == Phase::Decode ? decode_shape : p == Phase::Mixed ? mixed_shape : prefill_shape;
    }
    std::string shape_source = "default";
    // Which of batch / prompt / context a flag (or Preferences) set: those win over the trace, field by field. A caller
    // that sets shape_source "option" without naming a field means all three.
    bool batch_set = false, prompt_set = false, context_set = false;
    // Whether the caller chose each field: a flag set it (…_set), or shape_source is "option" with no field named
    // (all three), or its value is not the default (a caller that set it without saying: API users, Preferences).
    bool batch_chosen() const;
    bool prompt_chosen() const;
    bool context_chosen() const;
    std::string weight_dtype;           // "" = config torch_dtype (bfloat16 when absent)
    std::string act_dtype;              // "" = config torch_dtype
    std::string kv_dtype;               // "" = act dtype
    bool fused_attention = true;
    bool causal_skip = true;            // FlashAttention skips fully masked tiles in prefill
    int64_t fa_q_tile = 0;              // Br; 0 = ideal single pass over K/V
    bool prefill_all_logits = false;
    bool allow_tf32 = false;            // fp32 GEMMs on TF32 tensor cores
    double kappa = 1.0;                 // loss factor applied to every T_theory
    double bw_efficiency = 1.0;         // fraction of the datasheet bandwidth reachable
    int64_t tp = 1;                     // tensor-parallel degree: one rank's share of GEMM, attention, KV, rotary
                                        // and activation work (norms, residual adds and the embedding stay whole)
    std::string tp_source = "default";  // "option" (the user's --tp), "trace" (NCCL group size, see
                                        // roofline_for_analysis), "default" (1, or a tp set without saying)
    // MoE: the routed experts a layer touched per step, per phase (index: Phase), as the trace ran them
    // (config_check.h experts_touched_per_step); 0 = not known, the uniform-routing expectation U above.
    std::array<double, 4> experts_touched{};
};

struct OpCost {
    std::string name;                   // "q_proj", "attention", ...
    std::string op_class;               // kernel_classes.json ids: "gemm", "moe_gemm", "attention", "reduction" (softmax),
                                        // "norm", "rotary", "activation",
                                        // "elementwise", "kv_cache", "embedding", "moe_routing"
    int64_t count = 0;                  // instances summed (layers)
    double flops = 0;                   // total FLOPs
    double tensor_flops = 0;            // part of flops on tensor cores (the rest on FP32 CUDA cores)
    double bytes = 0;                   // total DRAM bytes
    // Weights read (elements; part of `bytes` at their storage format) and that format: "mxfp4", "bfloat16", ...
    // from quantization_config per module (ModelConfig::weight_format); "" for operators without weights. An
    // operator summed over layers whose formats differ lists them joined with '+'.
    double weight_elems = 0;
    double weight_bytes = 0;            // those weights' DRAM bytes (scales included)
    std::string weight_dtype;
    std::optional<double> t_compute_ns, t_memory_ns, t_theory_ns;
    // The time floor: count kernels (one per instance: the theory's operators are each one fused kernel) × the GPU's
    // minimum kernel duration (GpuSpec::min_kernel_ns); unset when the GPU row has none. T_theory is at least this.
    std::optional<double> t_floor_ns;

    double intensity() const { return bytes > 0 ? flops / bytes : 0; }
    // "compute", "memory", "latency" (the time floor is above both: no kernel of this size reaches either roof), or
    // "unknown" (a needed peak or the bandwidth is missing)
    std::string bound() const;
};

struct PhaseCost {
    Phase phase = Phase::Prefill;
    int64_t batch = 0, query_len = 0, kv_len = 0, tokens = 0;
    // Where this phase's workload came from: "annotation" (serving step annotations), "trace" (recorded shapes),
    // "option" (--batch/--prompt/--context or Preferences), "default" (nothing to go on: batch 1, prompt 1024,
    // context 2048); per field; and what was read, for people.
    std::string shape_source = "default";
    std::string batch_from = "default", query_from = "default", kv_from = "default";
    std::string shape_evidence;
    // MoE: routed experts whose weights one layer reads per pass, and where that came from: "trace" (the expert
    // down-projection calls per step), "uniform routing" (E·(1 − (1 − k/E)^T)); 0 and "" for a dense model.
    double experts_touched = 0;
    std::string experts_from;
    std::vector<OpCost> ops;            // whole-model totals per operator (all layers), in execution order
    double flops = 0, bytes = 0;
    std::optional<double> t_theory_ns;  // sum over operators (unknown if any operator's is unknown)
};

struct CostModelResult {
    GpuSpec gpu;
    Precision gemm_precision = Precision::BF16;
    std::optional<double> gemm_peak, vector_peak;   // FLOP/s used
    double bandwidth = 0;                           // bytes/s used (datasheet x bw_efficiency)
    double weight_bytes = 2, act_bytes = 2, kv_bytes = 2;
    CostOptions options;
    std::vector<PhaseCost> phases;      // prefill, decode, then mixed when CostOptions::mixed_shape is set
    std::vector<std::string> warnings;

    const PhaseCost* phase(Phase p) const;
};

// Per-layer operator costs (one layer, no times). layer selects dense vs MoE MLP for mixed models.
std::vector<OpCost> layer_costs(const ModelConfig& m, Phase phase, const CostOptions& o, int64_t layer = 0);
// Once-per-model operators (embedding, final_norm, lm_head).
std::vector<OpCost> model_level_costs(const ModelConfig& m, Phase phase, const CostOptions& o);

// Both phases, whole-model totals, with times on the GPU. Throws TraceError on bad options (naming the option).
CostModelResult estimate_costs(const ModelConfig& m, const GpuSpec& gpu, const CostOptions& o);

// Fills t_compute/t_memory/t_theory of one operator.
void apply_times(OpCost& op, const CostModelResult& r);

// kappa that makes T_theory match measured times: the median of t_actual / T_theory(kappa = 1) over the given
// (T_theory at kappa 1, t_actual) pairs; 1.0 when none.
double calibrate_kappa(const std::vector<std::pair<double, double>>& theory_actual_ns);

} // namespace sl
