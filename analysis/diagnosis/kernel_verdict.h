#pragma once
// One verdict per kernel: what bounds it and how far it is from that bound, or why no bound applies.
//
// The bound, from the best evidence there is for this kernel, in this order:
//   1. ncu counters of its launch (else of another launch of the same kernel name): ncu's Speed-of-Light breakdown —
//      compute-bound when SM throughput is the larger of SM and memory throughput and at least 60 % of peak,
//      memory-bound when memory throughput is; below 60 % for both, latency-bound (ncu's own threshold for "latency
//      issues"). How far: the larger throughput, as a fraction of peak.
//   2. the measured shape point holding it (analysis/roofline/shape_throughput.h): compute- or memory-bound by its
//      intensity against the ridge, at pct_of_roof of the roof; above the roof is a data inconsistency.
//   3. the model config's Roofline: its operator class in its phase, bound by the cost model's operators of that class
//      (the one with the most theoretical time decides), at E_roof of the class; above 1.05 is an inconsistency.
// The latency / launch / occupancy cause, from the trace alone, first that applies:
//   launch    — the kernel ran shorter than its launch call took on the CPU (the host cannot keep up with kernels
//               this short, one launch each);
//   small grid — fewer blocks than the GPU has SMs: the grid fills less than one wave;
//   idle before — the GPU sat idle before it for at least the kernel's own duration (the gap's cause is named).
// With a bound, the cause is a second clause of the same line; without one it is the verdict. Only when neither is
// known is the verdict "unknown", with what would tell (an ncu profile, shapes in the trace, the model config).

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

enum class VerdictKind : uint8_t {
    ComputeBound,
    MemoryBound,
    LatencyBound,   // ncu: neither SM nor memory throughput reaches 60 % of peak
    Inconsistent,   // measured above the roof: wrong GPU row, dtype or shape
    LaunchBound,    // shorter than its launch call
    SmallGrid,      // fewer blocks than SMs
    IdleBefore,     // the GPU waited before it at least as long as it ran
    Unknown,
};
enum class VerdictSource : uint8_t { Ncu, Shapes, ModelConfig, Trace, None };
const char* verdict_kind_name(VerdictKind k);      // "compute_bound", "memory_bound", ... "unknown"
const char* verdict_source_name(VerdictSource s);  // "ncu", "shapes", "model_config", "trace", "none"

struct KernelVerdictInputs {
    const Trace* trace = nullptr;
    int64_t kernel = -1;
    const AnalysisResult* analysis = nullptr;            // classes, phases, idle gaps (may be null)
    const RooflineReport* roofline = nullptr;            // the model config's Roofline (may be null)
    const NcuReport* ncu = nullptr;                      // (may be null)
    const std::vector<int64_t>* ncu_join = nullptr;      // join_ncu_to_trace(*ncu, *trace)
    const ShapeRooflineResult* shapes = nullptr;         // (may be null)
    int sm_count = 0;                                    // SMs of the kernel's GPU (0 = unknown)
};

struct KernelVerdict {
    VerdictKind kind = VerdictKind::Unknown;
    VerdictSource source = VerdictSource::None;
    // How far from the bound: throughput or attained performance as a fraction of the bound's peak (ncu: the larger
    // SOL throughput; shapes: % of roof / 100; model: E_roof). Unset for causes and unknown.
    std::optional<double> fraction;
    // ncu: the launch the counters come from, its SOL throughputs (%), and whether it is another launch of the name.
    int64_t ncu_launch = -1;
    bool ncu_same_name_only = false;
    std::optional<double> sm_pct, memory_pct;
    // shapes: the point's op, shape and roof precision; model: the class and phase.
    std::string op, shape, dtype, op_class, phase;
    std::optional<double> e_roof_inconsistent;           // model: T_theory / T_actual above 1.05

    // The cause (LaunchBound, SmallGrid, IdleBefore): the verdict itself without a bound, else a second clause.
    std::optional<VerdictKind> cause;
    int64_t duration_ns = 0;                             // the kernel's
    int64_t launch_call_ns = 0;                          // its launch API call's (LaunchBound)
    int64_t blocks = 0;                                  // grid size in blocks (SmallGrid)
    int sm_count = 0;
    int64_t idle_ns = 0;                                 // the gap before it (IdleBefore)
    GapCause idle_cause = GapCause::Other;

    // Unknown: what would tell, among "ncu", "shapes", "model_config".
    std::vector<std::string> would_tell;
};

KernelVerdict kernel_verdict(const KernelVerdictInputs& in);

// The same line in English, for the CLI, logs and tests: "memory-bound at 43 % of the BF16 roof (shapes: aten::mm
// M=.. N=.. K=..) · shorter than its launch (3.1 µs vs 5.2 µs call)". The workbench says it in its own language.
std::string kernel_verdict_text(const KernelVerdict& v);

} // namespace sl
