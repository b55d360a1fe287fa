#pragma once
// One rank of a generated many-rank job (issue 38): a synthetic trace (synthetic.h) made rank R of W, with the
// collective metadata PyTorch writes on NCCL kernels, and a planted straggler, skew and all-to-all imbalance to test
// the cross-rank analyses against. `sightline-cli generate --rank R --world-size W [--straggler S --skew-us US]
// [--alltoall [--alltoall-heavy H]]`.
//
// Ranks generated with the same options and seed have the same timeline, so each collective ends at the same time on
// every rank (a collective completes together). On the straggler S every collective starts skew later (its kernel
// shorter by as much, its end unchanged): S arrives last at every collective by the skew, and the others spin
// waiting for it. With alltoall, every second collective of a layer is an all-to-all (MoE dispatch) whose input on
// rank H is twice the others'.

#include "analysis/trace/trace.h"

#include <cstdint>

namespace sl {

struct SynthRankOptions {
    int32_t rank = 0;
    int32_t world_size = 1;
    int32_t straggler = -1;         // -1 = none
    int64_t skew_ns = 0;            // the straggler's lateness at each collective (capped at the kernel's length - 1 µs)
    bool alltoall = false;
    int32_t alltoall_heavy = -1;    // the rank whose all-to-all input is twice the others'; -1 = balanced
    int64_t tokens = 8;             // rows of the all-reduced activations (tokens x 4096 bf16)
};

// Throws std::invalid_argument on a rank outside the world or a skew < 0.
void plant_rank(Trace& trace, const SynthRankOptions& options);

} // namespace sl
