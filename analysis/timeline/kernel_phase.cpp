#include "analysis/timeline/kernel_phase.h"

#include "analysis/timeline/phases.h"
#include "analysis/trace/cancel_point.h"
#include "analysis/trace/trace.h"

#include <algorithm>

namespace sl {

std::vector<KernelPhase> kernel_phases(const Trace& trace, const PhaseResult& phases)
{
    struct Window {
        int64_t start, end;
        KernelPhase phase;
    };
    std::vector<Window> windows;
    windows.reserve(phases.steps.size() + phases.training_windows.size());
    for (const auto& s : phases.steps)
        windows.push_back({s.start, s.end,
                           s.mixed ? KernelPhase::Mixed : s.prefill ? KernelPhase::Prefill : KernelPhase::Decode});
    for (const auto& [a, b] : phases.training_windows)
        windows.push_back({a, b, KernelPhase::Training});
    std::sort(windows.begin(), windows.end(), [](const Window& a, const Window& b) { return a.start < b.start; });
    std::vector<KernelPhase> out(trace.kernels.size(), KernelPhase::None);
    if (windows.empty())
        return out;
    for (size_t i = 0; i < out.size(); ++i) {
        cancel_point(i);
        const int64_t t = trace.kernels.start[i];
        auto it = std::upper_bound(windows.begin(), windows.end(), t,
                                   [](int64_t v, const Window& w) { return v < w.start; });
        if (it != windows.begin() && t < (it - 1)->end)
            out[i] = (it - 1)->phase;
    }
    return out;
}

std::optional<KernelPhase> kernel_phase_named(std::string_view name)
{
    if (name == "prefill")
        return KernelPhase::Prefill;
    if (name == "decode")
        return KernelPhase::Decode;
    if (name == "mixed")
        return KernelPhase::Mixed;
    if (name == "training")
        return KernelPhase::Training;
    return std::nullopt;
}

} // namespace sl
