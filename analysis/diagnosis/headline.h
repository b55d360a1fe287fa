#pragma once
// The trace-level verdict: what limits the run, said once, before any finding.
//
// bound, from the GPU-active device time of the trace (idle.h attribution, overlap.h communication):
//   communication  exposed (not hidden) communication >= comm_fraction of the wall and more than the idle time;
//   host / sync    the GPU idles >= idle_fraction of the wall and the idle's largest cause is the CPU not feeding it
//                  (host wait + launch latency) / a host-blocking sync;
//   dependency     ... and the largest cause is dependency wait (queued work waiting on other streams' events);
//   unknown        ... and the largest cause is "other" (unlinked ops, cross-stream waits): the trace cannot tell;
//                  also when the trace has no kernels;
//   balanced       the GPU idles between balanced_fraction and idle_fraction of the wall, and no single cause
//                  dominates; when one does — the largest of launch wait (host), sync wait, exposed communication
//                  holds >= cause_fraction of the wall and at least half of the time the GPU is not computing
//                  (idle + exposed communication) — the bound is that cause (host / sync / communication);
//   gpu-memory     otherwise (GPU-bound) when memory-bound kernels (elementwise/copy/norm/... classes) or decode
//                  steps hold most of the kernel time;
//   gpu-compute    otherwise.
// One stall that dominates the window (a single idle gap holding >= stall_idle_share of the idle and >=
// idle_fraction of the wall: a 493 ms wait before a 494 ms step) is stated as such — its length, where it lies
// (before the step, inside it, between steps), what ended it and why (for a dependency wait: the stream-wait call
// and the host-blocking call meanwhile) — and the bound is that of the rest of the window, without it: "one 493 ms
// stall before the step; the step itself is GPU-bound (compute) at 99.7 % busy". It is never called host-bound.
// A stall before the first step or after the last is said to lie at the edge of the capture (capture_edge); the
// bound is judged without any of the capture's edge idle (timeline/capture_edge.h), as the ledger grants none of it.
// A steady state at least steady_busy_fraction busy is never host-bound: the largest cause of its little idle being
// the host does not make the host what limits it (it is GPU-bound).
// verdict maps it to the findings vocabulary (host-bound, sync-bound, communication-bound, memory-bound,
// compute-bound, balanced, idle-gaps, unknown). actions = the top three findings after the ledger (distinct
// suggestions, one per ledger entry), with their bounded gains. kernel_mix names the elementwise/copy story when those classes hold
// >= mix_fraction of kernel time (fusion / torch.compile / CUDA graphs with fused kernels).
// Start-up: idle that host-side causes cover (timeline/host_causes.h: the host compiling, autotuning, loading
// modules, allocating) is not the steady state: the bound above is judged without it (wall, idle and host wait less
// that idle), and when it holds >= cause_fraction of the wall and at least half of the time the GPU does not compute,
// it is the verdict: bound "host", verdict "compilation" / "autotuning" / "module-loading" / "allocator-stall", the
// statement naming the ranges and calls. The statement ends with the evidence base (capture length, kernels, steps)
// and, under short_capture_ns, says the verdict is on a sample of the run.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "analysis/diagnosis/findings.h"

namespace sl {

struct Trace;
struct AnalysisResult;
struct OpClassResult;

// A finding's subject for people: an operator-class scope "gemm (decode)" -> "GEMM / GEMV (decode)" (GEMM /
// GEMV（解码）in Chinese), a phase scope by its phase word; kernel names, devices and "trace" as they are.
LocalText subject_words(ScopeKind scope, const std::string& subject, const OpClassResult& classes);

struct HeadlineOptions {
    double idle_fraction = 0.20;       // idle share of the wall above which the GPU is starved
    double balanced_fraction = 0.10;   // idle share above which the run is "balanced" rather than GPU-bound
    double cause_fraction = 0.05;      // ... unless one cause of it holds this share of the wall (and most of it)
    double comm_fraction = 0.20;       // exposed communication share of the wall for "communication"
    double mix_fraction = 0.40;        // elementwise/copy share of kernel time for the kernel-mix story
    double startup_fraction = 0.01;    // host-cause idle share of the wall the statement names
    int64_t short_capture_ns = 60'000'000'000;   // a capture under a minute is a sample: the statement says so
    double stall_idle_share = 0.80;    // one gap holding this share of the idle (and idle_fraction of the wall) is a stall
    double steady_busy_fraction = 0.85;   // busy share of the steady state at and above which it is never host-bound
};

// The one stall that dominates the window, when there is one.
struct HeadlineStall {
    bool dominant = false;
    int64_t start = 0, end = 0;       // the gap
    uint16_t device = 0;
    std::string cause;                // gap_cause_name: "dependency_wait", "host_wait", ...
    std::string position;             // "before_step", "inside_step", "between_steps", "after_steps", "" (no steps)
    int64_t step = -1;                // the step it precedes or lies in (index into phases.steps)
    std::string next_op;              // what ended it (a kernel's short name, a copy kind)
    std::optional<int64_t> launched_after_ns;   // its launch call's start after the capture start
    std::optional<int64_t> queued_ns;           // from its launch call's return to its start
    std::string launch_call, wait_call, blocking_call;   // API names ("" when none)
    int64_t blocking_overlap_ns = 0;
    double share_of_wall = 0;
    double rest_wall_ns = 0, rest_busy_ns = 0;   // the window without the stall
    bool capture_edge = false;        // before the first step or after the last (timeline/capture_edge.h): the
                                      // capture's, not the steady state's
    LocalText statement;              // the sentence the headline opens with
};

struct HeadlineAction {
    std::string rule, verdict, subject, suggestion;   // suggestion = "<rule>/<id>" or empty
    LocalText text;
    double gain_fraction = 0, gain_ns = 0;
    std::string removes;              // ledger entry (a key for scripts: "class:gemm (decode)")
    LocalText removes_text;           // the same for people: "GEMM / GEMV time in decode"
    LocalText subject_text;           // the subject for people: "GEMM / GEMV (decode)", "decode", a kernel name
    std::string severity;
    double confidence = 0;            // the finding's confidence, 0..1
    std::string confidence_label;     // "high", "medium", "low"
    std::string verify;               // the suggestion's verification command ("" when none)
    // Subjects of later findings giving the same advice, merged into this action (their words are in subject_text;
    // the gain is the larger one's).
    std::vector<std::string> merged_subjects;
};

struct KernelMix {
    double fraction = 0;              // elementwise/copy classes' share of kernel time (kernels only, no DMA copies)
    double ns = 0;
    std::vector<std::string> classes; // the classes counted, largest first, with time
    bool dominant = false;            // fraction >= mix_fraction
    LocalText story;                  // empty unless dominant
};

// A host-side cause of idle the trace names (timeline/host_causes.h), as the headline says it.
struct HeadlineHostCause {
    std::string id;                   // "compilation", "autotuning", "module_loading", "allocator"
    std::string verdict;              // "compilation", "autotuning", "module-loading", "allocator-stall"
    LocalText label;                  // "JIT compilation"
    double idle_ns = 0, host_ns = 0, before_gpu_ns = 0;
    std::vector<std::string> evidence;   // "NVTX KernelExecutor::compileFusion 300 ms", "cuModuleLoadData 2 ms"
};

// How much the verdict rests on: the capture, its kernels and the steps it holds.
struct EvidenceBase {
    double capture_ns = 0;
    int64_t kernels = 0, prefill_steps = 0, decode_steps = 0, training_iterations = 0;
    bool short_capture = false;       // under short_capture_ns: the verdict is on a sample of the run
    LocalText text;                   // "Seen: 49.8 ms of capture, 1,465 kernels, 1 prefill pass — ..."
};

struct Headline {
    std::string bound = "unknown";    // host, gpu-compute, gpu-memory, communication, sync, balanced, unknown
    std::string verdict = "unknown";
    LocalText statement;
    double wall_ns = 0, busy_ns = 0, idle_ns = 0;
    double host_wait_ns = 0, kernel_wait_ns = 0, sync_wait_ns = 0, other_wait_ns = 0;
    double dependency_wait_ns = 0;    // queued work waiting on another stream's event (idle.h)
    HeadlineStall stall;
    double comm_exposed_ns = 0, launch_api_ns = 0, kernel_ns = 0;
    KernelMix kernel_mix;
    std::vector<HeadlineAction> actions;   // at most three
    // Start-up: the idle that host-side causes cover (compilation, autotuning, module loading, allocator), largest
    // first. The bound is judged on the run without it; when it is most of the time the GPU does not compute, it is
    // the verdict (bound "host", verdict the cause's).
    double startup_idle_ns = 0;
    std::vector<HeadlineHostCause> host_causes;
    EvidenceBase evidence_base;
};

// Whether an operator class is one of the kernel-mix classes (elementwise, memcpy_memset, activation, norm, rotary,
// reduction): kernels that move bytes rather than compute, the fusion candidates ("class:elementwise-copy").
bool is_kernel_mix_class(const std::string& id);

// Σ kernel time (kernels only, not DMA copies) of the elementwise/copy/norm/activation/rotary/reduction classes:
// the kernel-mix story's time, also bound as the trace metric elementwise_copy_ns.
double elementwise_copy_kernel_ns(const Trace& trace, const AnalysisResult& analysis);

// findings: ranked and bounded (after apply_ledger).
Headline make_headline(const Trace& trace, const AnalysisResult& analysis, const std::vector<Finding>& findings,
                       const HeadlineOptions& options = {});

// {"bound", "verdict", "statement": {en, zh_CN}, "wall_ns", "busy_ns", "idle_ns", "idle_by_cause": {...},
//  "comm_exposed_ns", "launch_api_ns", "kernel_ns", "kernel_mix": {...}, "actions": [...], "startup_idle_ns",
//  "host_causes": [{id, verdict, label, idle_ns, host_ns, before_gpu_ns, evidence}], "evidence_base": {...},
//  "stall": {...} | null}
nlohmann::json headline_to_json(const Headline& h);
// One paragraph (lang "en" or "zh_CN") plus the numbered actions, for text/Markdown.
std::string headline_to_text(const Headline& h, std::string_view lang = "en");

} // namespace sl
