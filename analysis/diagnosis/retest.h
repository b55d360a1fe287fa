#pragma once
// Step 2 of the analysis loop (seed 004): with a model config, check the Roofline theory against the run before
// trusting anything else. When the measured time of a decode step differs from the theory by more than Δ_retest
// (≈ 20 %, the threshold of the shipped rule `theory-vs-measurement` in resources/rules/retest.json, which a user
// rules folder overrides), the configuration (model, dtype, batch, parallelism, GPU) or the measurement (clocks,
// contention, a warm-up in the window) is suspect, and the user is told what to re-check first.
//
// What is compared: the operators the theory says carry the step — the classes holding at least `min_share` of
// the phase's theoretical time (in decode: the weight-streaming GEMMs and attention) — theory per pass against
// their measured time per pass. The small element-wise kernels are left out on purpose: the Roofline cannot predict
// their launch-bound time, and other rules judge them. Decode only in the shipped rule: prefill is compute-bound
// and real GEMMs reach anywhere from 30 to 80 % of the compute roof, so its Δ does not discriminate a wrong config.

#include <optional>
#include <string>
#include <vector>

namespace sl {

struct RooflineReport;

struct RetestCheck {
    std::string phase;                 // "decode" | "prefill"
    double theory_ns = 0;              // Σ T_theory per pass of the dominant classes
    double measured_ns = 0;            // Σ T_actual per pass of the same classes
    double delta = 0;                  // measured / theory - 1 (negative: faster than the theory allows)
    std::vector<std::string> classes;  // the dominant classes compared
};

// nullopt when the report is not joined with a trace, or no dominant class of the phase has both times.
std::optional<RetestCheck> retest_check(const RooflineReport& report, const std::string& phase, double min_share = 0.05);

} // namespace sl
