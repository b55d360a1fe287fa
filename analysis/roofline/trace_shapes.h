#pragma once
// The workload each phase ran, read off the trace's own recorded shapes (PyTorch profiler, record_shapes=True):
// the cost model's batch, query length and KV length when neither flags nor serving step annotations give them.
//
// Per phase (prefill, decode) the calls whose kernels start inside that phase's steps (a kernel belongs to the step
// whose GPU window holds its start, as the Roofline measures classes; mixed steps are left out), joined to their CPU
// op through KernelOps (analysis/trace/kernel_ops.h: eager launches and graph replays with a capture alike):
//
//   attention   the attention op that launched the kernels, one call per (op, launch):
//                 [B, H, S, D] layout  aten::scaled_dot_product_attention, _scaled_dot_product_flash_attention,
//                                      _scaled_dot_product_efficient_attention, _scaled_dot_product_cudnn_attention,
//                                      _cudnn_attention_forward
//                 [B, S, H, D] layout  aten::_flash_attention_forward, aten::_efficient_attention_forward,
//                                      flash_attn::_flash_attn_forward
//               batch B, query length Sq and KV length Sk of each call; per pass the means over the calls:
//               requests = B, Σq = B·Sq, Σk = B·Sk, Σq² = B·Sq², Σq·k = B·Sq·Sk (StepShape, cost_model.h). The KV
//               length is the key's: what the kernel reads, a static cache's padding under a mask included.
//   GEMMs       when the phase has no such call: the M (rows) of its GEMMs (gemm_dims.h), the M with the most calls,
//               is batch × query tokens. A 3-D aten::linear input [B, S, K] with B·S = M splits it; otherwise decode
//               reads M as the batch (one query token each) and prefill as one sequence of M tokens. The KV length is
//               not in a GEMM: decode keeps the caller's (flag or default) and says so.
// With no steps at all (a capture without step markers), attention calls are placed by their query length instead:
// Sq = 1 decode, Sq > 1 prefill.

#include "analysis/roofline/cost_model.h"

#include <cstdint>
#include <optional>
#include <string>

namespace sl {

struct Trace;
struct PhaseResult;

struct TracePhaseShape {
    Phase phase = Phase::Prefill;
    std::string from;                   // "attention" | "gemm"
    std::string op;                     // the op read: "aten::_cudnn_attention_forward", "aten::mm"
    int64_t calls = 0;                  // calls read
    int64_t steps = 0;                  // steps of the phase those calls lie in (0 = no steps: placed by Sq)
    double batch = 0, query = 0, kv = 0;        // means per call (kv 0 = not read: from GEMMs)
    int64_t batch_min = 0, batch_max = 0, query_min = 0, query_max = 0, kv_min = 0, kv_max = 0;
    StepShape shape;                    // per pass (source "trace", fields "trace", kv_from "" when not read)
    std::string evidence;               // "decode shape from the trace's recorded shapes: batch 8, query 1, KV 539
                                        // from 128 aten::_cudnn_attention_forward calls in 16 decode steps"
};

struct TraceShapes {
    std::optional<TracePhaseShape> prefill, decode;
    const std::optional<TracePhaseShape>& of(Phase p) const { return p == Phase::Prefill ? prefill : decode; }
};

TraceShapes shapes_from_trace(const Trace& trace, const PhaseResult& phases);

} // namespace sl
