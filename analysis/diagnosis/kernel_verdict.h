#pragma once
// One verdict per kernel launch: what bounds its execution and how far it is from that bound, in Nsight Compute's own
// terms, plus what the GPU did around it (docs/methodology.md, "Per-kernel verdicts").
//
// The kind follows ncu's Speed-of-Light classes: compute-bound when SM throughput is the larger and reaches 60 % of
// peak, memory-bound when memory throughput does, and latency-bound when neither reaches 60 % ("achieved compute
// throughput and/or memory bandwidth below 60 % of peak typically indicate latency issues"). The evidence, best first:
//   1. ncu counters of its launch (else of another launch of the same kernel name);
//   2. the measured shape point holding it (analysis/roofline/shape_throughput.h): its attained fraction of the roof
//      of its side (compute or memory, by intensity against the ridge); under 60 % it is latency-bound, reaching
//      60 % it is bound on that side — except above the ridge with the GPU's worth of work (20 µs or more, a full
//      wave): compute-bound below the datasheet peak, as ncu sees a big GEMM whose pipes are busy at the clock it
//      ran; above the roof is a data inconsistency;
//   3. the launch itself, from the trace alone:
//        - short kernel: it ran under the GPU's latency floor (kLatencyFloorNs): block dispatch over every SM, a DRAM
//          round trip and the tail take about 2 µs on Ampere/Hopper, and reaching 60 % of any roof needs them under
//          40 % of the kernel's time, so no kernel this short can;
//        - small grid: fewer blocks than half the SMs: most SMs have no work, and SM-averaged throughput cannot reach
//          60 % (a partial wave on most SMs is not that: persistent kernels launch one block per SM on purpose);
//        - strided elementwise: PyTorch's non-vectorised elementwise path (at::elementwise_kernel, which TensorIterator
//          takes for non-contiguous operands) over at least one full wave spends its issue slots on per-element index
//          arithmetic: ncu finds its SM throughput above 60 % while memory stays low (the repeat_kv copies of the
//          project's own H100 sample: SM 73 %, memory 25 %): compute-bound (instruction issue), no fraction known;
//   4. the model config's Roofline: its operator class in its phase at E_roof of the class (the cost model's
//      heaviest operator of the class names the side); under 0.6 latency-bound as in 2; a class whose theory is its
//      kernels' minimum duration (the cost model's bound "latency") is latency-bound (kernel floor).
// Only when none applies is the kind "unknown", with what would tell (an ncu profile, shapes, the model config).
//
// Around the kernel (the host side, from the trace alone; never compared with a whole graph launch):
//   launch-bound  the GPU waited for this launch (the idle gap before it is a host wait: its launch call came after
//                 the GPU went idle) and the call took longer than the kernel ran: the CPU cannot launch kernels this
//                 short as fast as the GPU runs them;
//   waited        the GPU waited for this launch, the kernel ran longer than its call;
//   idle before   the GPU sat idle before it for another cause (sync, dependency, ...), at least as long as it ran;
//   graph         replayed from a CUDA/HIP graph: its place in its replay (node i of n), and the gap before it only
//                 when it is at least as long as the kernel; a wait for the graph launch itself is said only for the
//                 replay's first node.
// A kernel queued behind others (its launch returned before the GPU went idle) never gets a launch clause.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/timeline/idle.h"

namespace sl {

struct Trace;
struct AnalysisResult;
struct RooflineReport;
struct NcuReport;
struct ShapeRooflineResult;

enum class VerdictKind : uint8_t { ComputeBound, MemoryBound, LatencyBound, Inconsistent, Unknown };
enum class VerdictSource : uint8_t { Ncu, Shapes, ModelConfig, Trace, None };
// Why a latency- or compute-bound verdict holds where no counter says it (None with ncu, or when bound by shapes).
enum class VerdictReason : uint8_t { None, BelowSixty, ShortKernel, SmallGrid, StridedElementwise, KernelFloor };
enum class HostClause : uint8_t { None, LaunchBound, WaitedForLaunch, IdleBefore, GraphReplay };
const char* verdict_kind_name(VerdictKind k);      // "compute_bound", "memory_bound", "latency_bound", ...
const char* verdict_source_name(VerdictSource s);  // "ncu", "shapes", "model_config", "trace", "none"
const char* verdict_reason_name(VerdictReason r);  // "", "below_60_pct", "short_kernel", "small_grid",
                                                   // "strided_elementwise", "kernel_floor"
const char* host_clause_name(HostClause h);        // "", "launch_bound", "waited_for_launch", "idle_before", "graph_replay"

// Under this a kernel cannot reach 60 % of any roof (above).
inline constexpr int64_t kLatencyFloorNs = 5'000;
// ncu's Speed-of-Light threshold: below it on both SM and memory throughput, latency issues.
inline constexpr double kSolBoundFraction = 0.60;

// What every verdict of one trace shares, built once (kernel -> shape point, graph replay positions); the verdict of
// a single kernel may do without it (it is then found by a scan).
struct KernelVerdictIndex {
    std::vector<int32_t> shape_point;        // per kernel: index into ShapeRooflineResult::points, -1 none
    std::vector<int32_t> graph_node, graph_nodes;   // per kernel: place in its graph replay (-1 = not replayed)
    std::vector<int32_t> ncu_launch;         // per kernel: the ncu launch joined to it, else the first joined launch
                                             // of its name (negative: -2 - that launch), -1 none
    std::vector<int> sm_count;               // per device: SMs (0 = unknown)
    bool trace_has_shapes = false;           // some CPU op of the trace carries Input Dims
};

struct KernelVerdictInputs {
    const Trace* trace = nullptr;
    int64_t kernel = -1;
    const AnalysisResult* analysis = nullptr;            // classes, phases, idle gaps (may be null)
    const RooflineReport* roofline = nullptr;            // the model config's Roofline (may be null)
    const NcuReport* ncu = nullptr;                      // (may be null)
    const std::vector<int64_t>* ncu_join = nullptr;      // join_ncu_to_trace(*ncu, *trace)
    const ShapeRooflineResult* shapes = nullptr;         // (may be null)
    int sm_count = 0;                                    // SMs of the kernel's GPU (0: the index's per-device
                                                         // count, else device_sm_count's)
    const KernelVerdictIndex* index = nullptr;           // (may be null)
};

struct KernelVerdict {
    VerdictKind kind = VerdictKind::Unknown;
    VerdictSource source = VerdictSource::None;
    VerdictReason reason = VerdictReason::None;
    // How far from the bound: the larger throughput (ncu) or the attained fraction of the roof of its side (shapes:
    // % of roof / 100; model: E_roof). Unset where nothing measures it (short kernel, small grid, strided elementwise,
    // unknown).
    std::optional<double> fraction;
    std::string side;                                    // shapes / model: "compute" | "memory" (the roof it is under)
    // ncu: the launch the counters come from, its SOL throughputs (%), and whether it is another launch of the name.
    int64_t ncu_launch = -1;
    bool ncu_same_name_only = false;
    std::optional<double> sm_pct, memory_pct;
    // shapes: the point's op, shape and roof precision; model: the class and phase.
    std::string op, shape, dtype, op_class, phase;
    std::optional<double> e_roof_inconsistent;           // model: T_theory / T_actual above 1.05

    // The launch, as the trace records it.
    int64_t duration_ns = 0;
    bool shape_recorded = false;                         // the trace gives the grid and block
    int64_t blocks = 0, threads_per_block = 0;
    int sm_count = 0;
    std::optional<double> waves;                         // blocks / (SMs x blocks resident per SM by threads)

    // Around it.
    HostClause host = HostClause::None;
    int64_t launch_call_ns = 0;                          // its launch call's duration (launch-bound, waited)
    int64_t idle_ns = 0;                                 // the gap before it
    GapCause idle_cause = GapCause::Other;
    int32_t graph_node = -1, graph_nodes = 0;            // its place in its graph replay

    // Unknown: what would tell, among "ncu", "shapes", "model_config", "capture_trace" (a replayed kernel of a trace
    // with shapes: its graph's capture gives it its op).
    std::vector<std::string> would_tell;
};

// The index for every kernel of a trace (shapes, ncu and its join may be null).
KernelVerdictIndex kernel_verdict_index(const Trace& trace, const ShapeRooflineResult* shapes,
                                        const NcuReport* ncu = nullptr, const std::vector<int64_t>* ncu_join = nullptr);
// SMs of the trace's device `device`: the trace's own figure, else its GPU spec row's (shipped GPU table); 0 unknown.
int device_sm_count(const Trace& trace, uint16_t device);

KernelVerdict kernel_verdict(const KernelVerdictInputs& in);

// The same line in English, for the CLI, JSON and tests: "latency-bound: 57.3 % of its memory roof, under 60 %
// (shapes: aten::mm M=8 N=5632 K=2048) · the GPU waited 12.0 µs for its launch". The workbench's Details line is this
// text in English (model/kernel_verdict_text.h says it in the interface's language; a test holds them equal).
std::string kernel_verdict_text(const KernelVerdict& v);

// Durations and percentages as the workbench writes them: three significant digits ("2.00 µs", "57.3 %").
std::string verdict_duration(int64_t ns);
std::string verdict_percent(double fraction);

// ---- One verdict per distinct kernel (name + launch shape), for `analyze --format json` and `explain` ----------
struct KernelVerdictSummary {
    std::string name;
    uint32_t shape_id = 0;                               // Trace::kernels.shapes index
    int64_t launches = 0, total_ns = 0;
    int64_t first_kernel = -1;                           // first launch's row (for `explain --kernel ID`)
    int64_t example_kernel = -1;                         // the launch whose verdict is shown: of the kind with the
                                                         // most time, the launch closest to that kind's mean
                                                         // duration
    KernelVerdict verdict;                               // that launch's
    std::vector<std::pair<VerdictKind, int64_t>> by_kind;    // kernel time per kind, largest first
    std::vector<std::pair<HostClause, int64_t>> by_host;     // launches per host clause (None left out), most first
};

// Every distinct kernel of the trace, largest total time first. Two passes over the kernels, two bytes of each kept
// between them.
std::vector<KernelVerdictSummary> kernel_verdict_summaries(const KernelVerdictInputs& shared);

} // namespace sl
