#pragma once
// Per-kernel verdicts (analysis/diagnosis/kernel_verdict.h) as JSON and text: the `kernels` section of
// `sightline-cli analyze --format json` and what `sightline-cli explain` prints (resources/schemas/analysis.md,
// "kernels").

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/diagnosis/kernel_verdict.h"

namespace sl {

struct Trace;

// At most this many distinct kernels in `kernels` (largest total time first); `kernels_total` counts them all.
inline constexpr size_t kMaxKernelsInJson = 500;

// One launch's verdict: kind, source, reason, fraction, side, host clause, text and the evidence it rests on.
nlohmann::json kernel_verdict_to_json(const Trace& trace, const KernelVerdict& v);
// One distinct kernel: name, grid and block (null where the trace does not record them), launches, time, the
// example launch's verdict, and the time per verdict kind over all its launches.
nlohmann::json kernel_summary_to_json(const Trace& trace, const KernelVerdictSummary& s);
// The first `limit` summaries.
nlohmann::json kernel_summaries_to_json(const Trace& trace, const std::vector<KernelVerdictSummary>& all,
                                        size_t limit = kMaxKernelsInJson);
// "Kernel verdicts" for --format text: the first `limit` distinct kernels, one line each.
std::string kernel_summaries_to_text(const Trace& trace, const std::vector<KernelVerdictSummary>& all,
                                     size_t limit = 10);
// One distinct kernel (explain): its launch shape, time, verdict and the verdicts of its launches.
std::string kernel_summary_to_text(const Trace& trace, const KernelVerdictSummary& s);

} // namespace sl
