#pragma once
// The phase each kernel ran in, as the Roofline measures it (roofline.h measured_from_analysis): the step whose window
// its start falls in — a prefill pass, a decode step, a mixed (chunked-prefill) step — or a training iteration
// (PhaseResult::training_windows). One placement for the Roofline's measured time, the time ledger's class pools and
// the operator-class findings' kernel links.

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace sl {

struct PhaseResult;
struct Trace;

enum class KernelPhase : int8_t { None = -1, Prefill = 0, Decode = 1, Mixed = 2, Training = 3 };

// Per kernel row. O(kernels · log steps).
std::vector<KernelPhase> kernel_phases(const Trace& trace, const PhaseResult& phases);

// The phase a scope's words name ("prefill", "decode", "mixed", "training"); nullopt for any other.
std::optional<KernelPhase> kernel_phase_named(std::string_view name);

} // namespace sl
