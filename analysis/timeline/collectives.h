#pragma once
// Collective communication in bytes and bandwidth (issue 15), from the metadata PyTorch writes on NCCL/RCCL kernels
// and record_param_comms CPU ops ("Collective name", "In msg nelems", "Out msg nelems", "dtype", "Group size",
// "Process Group Name"; kept by the Kineto reader in Trace::op_args).
//
// A collective is one NCCL/RCCL kernel (name starting "nccl" / "rccl", any case). Its metadata comes from the
// kernel's own args (same rank, device and correlation), else from the CPU op whose External id its launch carries.
// Definitions are nccl-tests' (doc/PERFORMANCE.md), with n = group size and t = the kernel's GPU time:
//   size S     all-reduce, broadcast, reduce: count · element size; all-gather: the gathered (output) size;
//              reduce-scatter and all-to-all: the input size; send / recv: the message. PyTorch's in/out nelems
//              follow that split, so S = max(In msg nelems, Out msg nelems) · element size.
//   algbw      S / t
//   busbw      all-reduce: algbw · 2(n−1)/n; all-gather, reduce-scatter, all-to-all: algbw · (n−1)/n;
//              broadcast, reduce, send, recv: algbw
// Exposed time = the part of a collective's kernel interval that no non-communication kernel on the same device
// covers; hidden = the rest.
//
// With several ranks (a merged trace), one collective across ranks is one kernel per rank of the same (process group,
// kind) whose ends agree (a collective completes together everywhere; the early ranks spin until the last arrives):
// matched on ends within max(end_tolerance_ns, end_tolerance_fraction · duration), anchored on the rank with the
// fewest kernels, so a kernel missing on one rank (sampled traces, peers outside the trace) drops only itself. When
// no end agrees anywhere (clocks of different hosts) and every rank has the same count, the k-th of each is taken
// (match_method "sequence"). skew = latest start − earliest start; the rank starting last is the one the others
// wait for: each earlier rank waits from its start until the last start (within its own kernel), and the part of
// that wait no compute kernel of its device covers is exposed. The straggler is the rank that starts last most
// often; it "makes the others wait" when it is last in at least half the matched collectives and the mean skew is
// at least 10 % of the mean collective time; straggler_wait_ns / straggler_exposed_wait_ns sum the other ranks'
// waits on the collectives it started last.

#include "analysis/trace/trace.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace sl {

struct CollectiveGroup {
    std::string kind;                   // "allreduce", "allgather", "reduce_scatter", "alltoall", "broadcast", ...
    std::string process_group;          // "Process Group Name" ("" when the trace does not say)
    int64_t group_size = 0;             // n (0 = unknown)
    std::string dtype;                  // as the trace writes it ("Float", "BFloat16", ...)
    int64_t count = 0;                  // kernels
    int64_t with_size = 0;              // of those, with a known size and dtype
    double bytes = 0;                   // summed S
    int64_t time_ns = 0;                // summed kernel time
    int64_t exposed_ns = 0, hidden_ns = 0;
    std::optional<double> algbw_Bps, busbw_Bps;   // summed S / summed time of the sized kernels
    std::optional<double> median_algbw_Bps;       // median over the sized kernels
};

struct RankComm {
    int32_t rank = 0;
    int64_t count = 0, time_ns = 0, exposed_ns = 0;
    int64_t last_arrivals = 0;          // matched collectives this rank started last
    int64_t wait_ns = 0;                // time its collectives waited for a later rank to arrive
    int64_t exposed_wait_ns = 0;        // ... of which no compute kernel on its device covered
};

struct CollectiveStats {
    int64_t kernels = 0;                // NCCL/RCCL kernels seen
    int64_t kernels_with_metadata = 0;  // of those, with collective args
    int64_t time_ns = 0, exposed_ns = 0;
    double bytes = 0;
    std::vector<CollectiveGroup> groups;    // per (kind, process group, group size, dtype); most time first
    std::vector<RankComm> ranks;            // one per rank with communication
    // Multi-rank (ranks.size() > 1):
    int64_t matched = 0;                // collectives matched across every rank
    int64_t unmatched = 0;              // kernels of shared (group, kind) sequences left without partners
    std::string match_method;           // "end", "sequence", or "" (nothing matched / one rank)
    std::optional<double> mean_skew_ns, max_skew_ns;
    std::optional<int32_t> straggler_rank;
    bool straggler_makes_others_wait = false;
    int64_t straggler_wait_ns = 0;          // the other ranks' waits on the collectives the straggler started last
    int64_t straggler_exposed_wait_ns = 0;  // ... of which not hidden under their compute
    std::string straggler_text;         // one line for reports ("" when no straggler)
    std::vector<std::string> warnings;
};

struct CollectiveOptions {
    int64_t end_tolerance_ns = 20'000;      // ends of one collective on different ranks agree within this ...
    double end_tolerance_fraction = 0.05;   // ... or this share of the kernel's duration, whichever is larger
};

CollectiveStats collective_stats(const Trace& trace, const CollectiveOptions& options = {});

// The tensor-parallel degree a trace's collectives suggest (issue 15): PyTorch writes "Group size" on every NCCL
// kernel (and record_param_comms op) from 2.1 on. The size of the all-reduce / all-gather / reduce-scatter groups
// with the most calls (kernel rows when there are any, else CPU ops) is the degree; 0 when no collective carries a
// size above 1. Several sizes (TP inside DP) are listed in `sizes`, the evidence says which won. Whether the group is
// tensor- or data-parallel the trace does not say: callers keep training runs (DDP all-reduces gradients) at 1.
struct TpFromTrace {
    int64_t degree = 0;
    std::string evidence;               // "NCCL allreduce group size 8 (process group '0', 1,234 calls)"
    std::vector<int64_t> sizes;         // every group size > 1 seen, most calls first
};
TpFromTrace tp_from_collectives(const Trace& trace);

// NCCL's bus-bandwidth factor for a collective kind and group size n (1 for unknown kinds or n < 2 of p2p).
double busbw_factor(std::string_view kind, int64_t n);
// Bytes per element of a c10 dtype name as PyTorch writes it in collective args ("Float" 4, "BFloat16" 2); 0 unknown.
int comm_dtype_bytes(std::string_view dtype);
// Normalised kind: "allreduce", "allgather", "reduce_scatter", "alltoall", "broadcast", "reduce", "send", "recv",
// "barrier", or the input lower-cased.
std::string collective_kind(std::string_view name);

} // namespace sl
