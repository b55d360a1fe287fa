#pragma once
// One rank of a generated multi-rank run, for the rank merge and rank view tests: the generator's "decode" preset (6
// steps, `layers` layers, NCCL collectives) with plant_rank's straggler (rank `straggler` arrives `skew_ns` late) and,
// when alltoall_heavy >= 0, all-to-alls in which that rank sends twice the others'.

#include "analysis/io/synthetic.h"
#include "analysis/io/synthetic_ranks.h"

#include <cstdint>

namespace sl::test {

inline Trace planted_rank(int32_t rank, int32_t world, int32_t straggler, int64_t skew_ns, int layers,
                          int32_t alltoall_heavy = -1)
{
    SynthOptions o = synth_preset("decode");
    o.decode_steps = 6;
    o.layers = layers;
    o.nccl = true;
    Trace t = make_synthetic_trace(o);
    SynthRankOptions ro;
    ro.rank = rank;
    ro.world_size = world;
    ro.straggler = straggler;
    ro.skew_ns = skew_ns;
    ro.alltoall_heavy = alltoall_heavy;
    ro.alltoall = alltoall_heavy >= 0;
    plant_rank(t, ro);
    return t;
}

} // namespace sl::test
