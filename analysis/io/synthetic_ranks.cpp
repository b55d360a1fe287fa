#include "analysis/io/synthetic_ranks.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace sl {

void plant_rank(Trace& t, const SynthRankOptions& o)
{
    if (o.world_size < 1 || o.rank < 0 || o.rank >= o.world_size)
        throw std::invalid_argument("synthetic rank: --rank must be in 0..world size - 1");
    if (o.straggler >= o.world_size || o.alltoall_heavy >= o.world_size)
        throw std::invalid_argument("synthetic rank: the straggler and the heavy rank must be ranks of the world");
    if (o.skew_ns < 0)
        throw std::invalid_argument("synthetic rank: the skew must be >= 0");
    auto& m = t.meta;
    m.world_size = o.world_size;
    m.environment["distributed.rank"] = std::to_string(o.rank);
    m.environment["distributed.backend"] = "nccl";
    m.environment["host_name"] = "node" + std::to_string(o.rank / 8);
    for (auto& d : m.devices) {
        d.rank = o.rank;
        d.id = o.rank % 8;   // the rank's local GPU
    }
    for (auto& p : m.processes)
        p.rank = o.rank;
    for (auto& th : m.threads)
        th.rank = o.rank;
    std::string group_ranks = "[";
    for (int32_t r = 0; r < o.world_size; ++r)
        group_ranks += (r ? ", " : "") + std::to_string(r);
    group_ranks += "]";
    auto& k = t.kernels;
    int64_t nth = 0;
    for (size_t i = 0; i < k.size(); ++i) {
        const std::string_view name = t.str(k.name[i]);
        if (name.rfind("nccl", 0) != 0)
            continue;
        const bool a2a = o.alltoall && (nth++ % 2 == 1);
        if (o.rank == o.straggler && o.skew_ns > 0)
            k.start[i] += std::min(o.skew_ns, std::max<int64_t>(0, k.end[i] - k.start[i] - 1'000));
        const size_t row = t.op_args.append(OpArgsTable::kKernel, k.start[i], k.end[i], k.name[i]);
        auto& a = t.op_args;
        a.rank[row] = o.rank;
        a.pid[row] = m.devices[k.device[i]].id;
        a.correlation[row] = k.correlation[i];
        a.collective[row] = a2a ? "all_to_all" : "allreduce";
        a.dtype[row] = "BFloat16";
        a.pg_name[row] = "0";
        a.pg_ranks[row] = group_ranks;
        a.group_size[row] = o.world_size;
        const int64_t n = o.tokens * 4096 * (a2a && o.rank == o.alltoall_heavy ? 2 : 1);
        a.in_nelems[row] = n;
        a.out_nelems[row] = n;
    }
}

} // namespace sl
