#pragma once
// Measured Roofline efficiency: the cost model joined to measured time per operator class and phase.
//
//   E_roof(class, phase) = T_theory(class, phase) / T_actual(class, phase)
// where T_theory is the sum of the cost model's operators of that class for one forward pass of the phase (one
// prefill of the prompt, one decode step), and T_actual is the measured class time of that phase divided by the
// number of passes the trace holds (prefill passes, decode steps).
//
// Focus set = Top-K (class, phase) by total measured time  ∪  { E_roof < tau }  (defaults K = 10, tau = 0.3).
//
// The measured side is a plain map (class id -> ns per phase) so this join does not depend on how classes and
// phases were found; measured_times_from_trace() fills it from the op-class and phase analyses.
//
// ncu launches are joined to trace kernels by name (exact; then the words of the name as two demanglers agree on
// them, kernel_name_tokens; then the function name without "void", template arguments and parameters), the n-th ncu
// launch of a name to the n-th trace kernel of that name in start order.

#include "analysis/roofline/config_check.h"
#include "analysis/roofline/cost_model.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace sl {

struct NcuReport;
struct Trace;
struct OpClassResult;
struct PhaseResult;

struct MeasuredPhase {
    std::string phase;                          // "prefill" | "decode"
    int64_t passes = 1;                         // prefill passes / decode steps in the measured time
    std::map<std::string, int64_t> class_ns;    // op class id -> total measured ns in this phase
};

struct RooflineOptions {
    int top_k = 10;          // K of the focus set
    double tau = 0.3;        // E_roof threshold of the focus set
};

struct ClassEfficiency {
    std::string op_class, phase;
    std::vector<std::string> operators;         // cost-model operators of this class
    double flops = 0, bytes = 0;                // per pass
    std::optional<double> t_theory_ns;          // per pass
    std::optional<double> t_actual_ns;          // per pass (measured total / passes)
    int64_t measured_total_ns = 0;              // over the whole trace
    std::optional<double> e_roof;               // T_theory / T_actual, only when <= kMaxPlausibleERoof
    // T_theory / T_actual above kMaxPlausibleERoof: physically impossible, so not an efficiency. e_roof stays unset
    // (no finding can cite it) and `inconsistency` names the likely causes, most likely first.
    std::optional<double> e_roof_inconsistent;
    std::string inconsistency;
    // An unfused elementwise chain: the cost model's norm, rotary, activation (act * up), residual add and softmax
    // are each one fused kernel, while an eager run (Hugging Face, PyTorch) spreads them over generic elementwise,
    // copy and reduction kernels, so a class alone compares kernels with the wrong theory (the residual adds' theory
    // against every RMSNorm and rotary piece). When a chain class has theory but no kernel of its own in a phase, the
    // chain classes of that phase are compared as one: `chain` lists them, chain_theory_ns / chain_actual_ns are
    // their sums per pass, and e_roof (and the focus set) hold the chain's E_roof — how far the unfused chain is from
    // a fused one, which fusion recovers; class_e_roof is the class alone.
    std::vector<std::string> chain;
    std::optional<double> chain_theory_ns, chain_actual_ns, class_e_roof;
};

// The classes of the elementwise chain (above): elementwise, norm, rotary, activation, reduction.
bool is_elementwise_chain_class(const std::string& op_class);

// Above this, T_theory / T_actual is a data-consistency problem (dtype, tensor parallelism, shape, GPU), not an
// efficiency: 5 % over the roof absorbs clock and datasheet rounding.
inline constexpr double kMaxPlausibleERoof = 1.05;

struct FocusItem {
    std::string op_class, phase;
    int64_t measured_total_ns = 0;
    std::optional<double> e_roof;
    bool top_k = false, low_efficiency = false;
};

struct RooflineReport {
    CostModelResult cost;
    RooflineOptions options;
    bool measured = false;                      // a trace was joined
    std::vector<ClassEfficiency> classes;       // per (class, phase): theory and measurement
    std::vector<FocusItem> focus;               // largest measured time first
    std::vector<std::string> warnings;
    // Whether the config's weight matrices are the ones the trace's GEMMs multiply by (record_shapes traces only;
    // set by roofline_for_analysis, "unknown" otherwise).
    ConfigShapeCheck config_shapes;

    // The measured per-pass time for an operator: set only when the operator is alone in its class for the phase
    // (otherwise the class time cannot be split among operators without inventing a split).
    std::optional<double> operator_actual_ns(const std::string& op, Phase phase) const;
};

// Theory only (no trace): classes carry T_theory, focus is empty.
RooflineReport make_roofline(const CostModelResult& cost, const RooflineOptions& options = {});
// Joined with measurements.
RooflineReport join_roofline(const CostModelResult& cost, const std::vector<MeasuredPhase>& measured,
                             const RooflineOptions& options = {});

// Builds the measured side from per-kernel classes and per-kernel phase flags: kernel_class[i] indexes class_ids
// (negative = unclassified, skipped), kernel_in_prefill[i] says whether kernel i ran in a prefill pass.
std::vector<MeasuredPhase> measured_times(const Trace& trace, const std::vector<int16_t>& kernel_class,
                                          const std::vector<std::string>& class_ids,
                                          const std::vector<bool>& kernel_in_prefill, int64_t prefill_passes,
                                          int64_t decode_steps);

// The same from the op-class and phase analyses (analysis/timeline/op_classes.h, analysis/timeline/phases.h): a kernel belongs to
// prefill when it starts inside a prefill step's window, to decode when inside a decode step's window, to "mixed"
// inside a mixed (chunked-prefill) step's, to "training" inside a training iteration's (PhaseResult::training_windows);
// kernels outside every step are not counted. Passes = that phase's steps (a mixed or training phase only when the
// trace has one).
// expert_gemm (config_check.h expert_gemm_kernels, may be empty): kernels whose time counts as moe_gemm whatever
// their class by name.
std::vector<MeasuredPhase> measured_from_analysis(const Trace& trace, const OpClassResult& classes,
                                                  const PhaseResult& phases,
                                                  const std::vector<bool>& expert_gemm = {});

// For each ncu launch (in report order) the index of the matching trace kernel, or -1.
std::vector<int64_t> join_ncu_to_trace(const NcuReport& ncu, const Trace& trace);

// The words of a kernel's name for matching across demanglers (at most `limit`): identifiers and numbers, without
// the words one demangler writes and another does not ("native", "(anonymous namespace)", lambda spellings, builtin
// types), up to ncu's lambda parameters (T1, T2, ...).
std::vector<std::string> kernel_name_tokens(std::string_view name, size_t limit);

// Name used for matching: without a leading "void ", template arguments and the parameter list.
std::string kernel_base_name(std::string_view name);
// A kernel's name as titles say it: kernel_base_name with "<…>" where template arguments were left out
// ("void vllm::act_and_mul_kernel<c10::BFloat16, ...>(...)" -> "vllm::act_and_mul_kernel<…>"), so a demangled
// CUTLASS name of 1,000 characters does not make a title; the name itself when nothing would be left.
std::string kernel_display_name(std::string_view name);

} // namespace sl
