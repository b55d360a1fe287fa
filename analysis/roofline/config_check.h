#pragma once
// Does the model config describe the trace? Read off the weights the trace's own GEMMs multiply by.
//
// A PyTorch profiler trace recorded with record_shapes=True gives every aten::mm / aten::addmm its input shapes:
// [M, K] x [K, N], where the second operand of a Linear layer is its weight (K = in_features, N = out_features).
// The config predicts those weights (per layer, one tensor-parallel rank's shard, fused or not):
//   column-parallel  K = h:          q (H·d/tp), k and v (Hkv·d/tp each), qkv fused ((H+2·Hkv)·d/tp),
//                                    gate and up (I/tp each), gate_up fused (2·I/tp); fc1 (I/tp) without a gate
//   row-parallel     N = h:          o (K = H·d/tp), down / fc2 (K = I/tp)
//   once per pass                    lm_head (K = h, N = V or V/tp)
// MoE configs add the routed experts' matrices (K = h, N = I_e or 2·I_e; K = I_e, N = h; whole on a rank or split by
// tp), the router (h, E) and a shared expert. Two readings:
//   matched_fraction     of the GEMM weight elements the trace streams (Σ calls·K·N over aten::mm/addmm), the share
//                        whose (K, N) is one of the config's matrices;
//   layers_from_shapes   per forward pass (one lm_head call each), the calls of the query projection (q, or qkv
//                        fused) and of the output projection, halved: every layer runs one of each, in dense and
//                        MoE models alike (a MoE pass need not touch every expert). 0 (not read) when one of those
//                        shapes could also be an MLP or lm_head matrix.
// A training step's backward GEMMs (inside autograd's "autograd::engine::evaluate_function: …" ranges) are left out:
// they multiply by the same weights transposed, or by activations, and would read as extra forward layers.
// verdict: "confirmed" (≥ 80 % of the elements match and the layers agree within 20 %), "contradicted" (< 50 % match,
// or the layers differ by more than 20 %), else "unknown" (no shapes, no lm_head call to count passes, or in
// between).
//
// This is what a reader of such a trace checks first, and it needs no time: the theory-vs-measurement rule
// (resources/rules/retest.json) uses it to tell a wrong config from kernels that run below their roof.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace sl {

struct ModelConfig;
struct PhaseResult;
struct Trace;

struct ConfigShapeCheck {
    int64_t gemm_calls = 0;             // aten::mm / aten::addmm calls with 2-D shapes
    double weight_elements = 0;         // Σ calls·K·N over them
    double matched_fraction = 0;        // share of weight_elements in the config's matrices (lm_head included)
    int64_t lm_head_calls = 0;          // forward passes, counted by the lm_head GEMM
    double layers_from_shapes = 0;      // 0 when not read (no lm_head call, or ambiguous shapes)
    int64_t config_layers = 0;
    int64_t backward_gemm_calls = 0;    // GEMMs of a training step's backward (autograd ranges): not counted above
    std::string verdict = "unknown";    // "confirmed" | "contradicted" | "unknown"
    std::string reason;                 // for people, with the numbers
};

ConfigShapeCheck check_config_shapes(const Trace& trace, const ModelConfig& model, int64_t tp = 1);

// Per kernel row: whether it is a GEMM over a routed expert's weights, by the recorded shape of the CPU op that
// launched it (aten::mm / addmm / linear / bmm / _scaled_mm; KernelOps, so graph-replayed kernels joined to their
// capture count too): (K, N) one of the config's expert matrices (h → I_e, h → 2·I_e, I_e → h; whole or split by tp)
// and none of its attention, dense-MLP or lm_head matrices. This is how the Hugging Face eager expert path (one
// aten::mm or a bmm per expert) is told from dense GEMMs: by name its kernels are plain cuBLAS GEMMs. Empty when the
// config has no experts or the trace no shapes.
// down_calls, when given, is filled per kernel row with the first kernel of each non-batched expert down projection
// (K = I_e or I_e/tp, N = h): one call per expert its tokens were routed to, in each MoE layer, on the eager path. A
// batched or gathered expert GEMM (bmm over routed rows) is not one: it says nothing of how many experts ran.
std::vector<bool> expert_gemm_kernels(const Trace& trace, const ModelConfig& model, int64_t tp = 1,
                                      std::vector<bool>* down_calls = nullptr);

// The routed experts a MoE layer touched per step, as the trace ran them (issue 34 §4: "experts touched per step
// from the routing"), per phase (index: Phase — prefill, decode, mixed; training stays 0): the down-projection calls
// above placed in their steps (timeline/kernel_phase.h), over the phase's steps × the config's MoE layers. The cost
// model reads each touched expert's weights once; without this it expects E·(1 − (1 − k/E)^T) (uniform routing).
// 0 where the trace does not say: no down-projection calls in the phase, or a training run (its backward multiplies
// by the same matrices).
std::array<double, 4> experts_touched_per_step(const Trace& trace, const PhaseResult& phases, const ModelConfig& model,
                                               const std::vector<bool>& down_calls);

} // namespace sl
