#pragma once
// Which findings involve a trace item: a kernel (Details pane, Findings pane) or a time range such as an idle gap.
// Plain functions over immutable results; no Qt.
//
// A finding involves kernel k when
//   * its links.kernel_ids contain k (kernel, op-class, ncu-launch and gap scopes link a bounded sample), or
//   * it is a kernel-scope finding whose subject is k's name, or
//   * it is an op-class finding whose subject is k's class id, or "<class id> (<phase>)" for k's phase, or
//   * it is a phase finding ("prefill" / "decode") for the phase of the step k runs in.
// A finding involves the range [start, end) when one of its links.time_ranges overlaps it, or it is a phase finding
// for the phase of a step overlapping the range.

#include <cstdint>
#include <string>
#include <vector>

namespace sl {

class KernelLookup;

struct Diagnosis;
struct Trace;
struct AnalysisResult;
struct Finding;

// Index into AnalysisResult::phases.steps of the step whose GPU window contains t, or -1. O(log steps).
int64_t stepAt(const AnalysisResult& analysis, int64_t t);

// How a step is named to people, numbered the way the trace numbers its own steps: among the steps of the same
// phase (prefill / decode / mixed), `number` = first + its position. `first` is 0 (the analysis JSON's and the
// generator's convention) unless the trace's step ranges end in numbers that count consistently from another base
// ("decode_step 14" is then step 14, and a capture that starts at "decode_step 100" numbers from 100). `range` is
// the step's NVTX range name, empty for kernel-delimited steps.
struct StepLabel {
    std::string phase;            // "prefill", "decode" or "mixed"
    int64_t number = 0, first = 0, last = 0;
    bool warmup = false;
    std::string range;
};
// step: index into AnalysisResult::phases.steps (must be valid).
StepLabel stepLabel(const AnalysisResult& analysis, const Trace& trace, int64_t step);

// The longest kernel of an operator class (kernel_classes.json id) whose start lies in a step of `phase` ("prefill"
// or "decode"; empty = any); -1 when none, the smallest row among equals. With the timeline's kernel lookup it walks
// the class's names (a class is a property of the kernel name), each from its longest instance down until one lies
// in the phase: no scan of every kernel per click. Without it, one pass over the per-kernel class column.
int64_t longestKernelOfClass(const Trace& trace, const AnalysisResult& analysis, const std::string& opClass,
                             const std::string& phase, const KernelLookup* lookup = nullptr);
// "prefill" / "decode" for kernel k (by the step its start falls in); empty when it is in no step.
std::string phaseOfKernel(const AnalysisResult& analysis, const Trace& trace, int64_t kernel);
// Class id of kernel k; empty when unclassified or no analysis.
std::string classOfKernel(const AnalysisResult* analysis, int64_t kernel);

// Indices into diagnosis.eval.findings, in their ranked order.
std::vector<size_t> findingsForKernel(const Diagnosis& diagnosis, const Trace& trace, const AnalysisResult* analysis,
                                      int64_t kernel);
std::vector<size_t> findingsForRange(const Diagnosis& diagnosis, const Trace& trace, const AnalysisResult* analysis,
                                     int64_t start, int64_t end);

} // namespace sl
