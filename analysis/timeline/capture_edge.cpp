#include "analysis/timeline/capture_edge.h"

#include <algorithm>
#include <limits>
#include <map>

#include "analysis/timeline/host_causes.h"
#include "analysis/timeline/phases.h"
#include "analysis/trace/trace.h"

namespace sl {

CaptureEdgeIdle capture_edge_idle(const Trace& trace, const IdleResult& idle, const PhaseResult& phases,
                                  const HostCauseResult* causes)
{
    CaptureEdgeIdle out;
    constexpr int64_t kNone = std::numeric_limits<int64_t>::min();
    // The steady part of the capture, per device: the steps' span (the same for every device), or the device's
    // kernels' span.
    int64_t steps_from = std::numeric_limits<int64_t>::max(), steps_to = kNone;
    for (const auto& s : phases.steps) {
        steps_from = std::min(steps_from, s.start);
        steps_to = std::max(steps_to, s.end);
    }
    const bool have_steps = steps_to > steps_from;
    std::map<uint16_t, std::pair<int64_t, int64_t>> kernel_span;
    if (!have_steps)
        for (size_t i = 0; i < trace.kernels.size(); ++i) {
            auto [it, fresh] = kernel_span.try_emplace(trace.kernels.device[i], trace.kernels.start[i],
                                                       trace.kernels.end[i]);
            if (!fresh) {
                it->second.first = std::min(it->second.first, trace.kernels.start[i]);
                it->second.second = std::max(it->second.second, trace.kernels.end[i]);
            }
        }

    // The longest gap on each side of each device, with its part outside the steady span.
    struct Pick {
        int64_t part = 0;
        int32_t gap = -1;
    };
    std::map<uint16_t, std::pair<Pick, Pick>> picks;   // device -> (before, after)
    for (size_t i = 0; i < idle.gaps.size(); ++i) {
        const Gap& g = idle.gaps[i];
        int64_t from = steps_from, to = steps_to;
        if (!have_steps) {
            const auto it = kernel_span.find(g.device);
            if (it == kernel_span.end())
                continue;
            from = it->second.first;
            to = it->second.second;
        }
        const int64_t before = std::max<int64_t>(0, std::min(g.end, from) - g.start);
        const int64_t after = std::max<int64_t>(0, g.end - std::max(g.start, to));
        auto& [b, a] = picks[g.device];
        if (before > b.part)
            b = {before, static_cast<int32_t>(i)};
        if (after > a.part)
            a = {after, static_cast<int32_t>(i)};
    }
    for (const auto& [device, p] : picks) {
        (void)device;
        for (const Pick* x : {&p.first, &p.second}) {
            if (x->gap < 0)
                continue;
            const Gap& g = idle.gaps[static_cast<size_t>(x->gap)];
            out.ns[static_cast<size_t>(g.cause)] += x->part;
            (x == &p.first ? out.before_ns : out.after_ns) += x->part;
            out.gaps.push_back(static_cast<uint32_t>(x->gap));
        }
    }
    std::sort(out.gaps.begin(), out.gaps.end());
    out.gaps.erase(std::unique(out.gaps.begin(), out.gaps.end()), out.gaps.end());
    // Start-up idle is the host causes' (their findings claim it), not the edge's.
    if (causes && causes->idle_ns > 0) {
        auto& host = out.ns[static_cast<size_t>(GapCause::HostWait)];
        const int64_t theirs = std::min(host, causes->idle_ns);
        host -= theirs;
        // Taken from the side that holds it, the start first (compilation precedes the first kernel).
        const int64_t from_before = std::min(theirs, out.before_ns);
        out.before_ns -= from_before;
        out.after_ns = std::max<int64_t>(0, out.after_ns - (theirs - from_before));
    }
    return out;
}

bool is_capture_edge_gap(const CaptureEdgeIdle& edge, uint32_t index)
{
    return std::binary_search(edge.gaps.begin(), edge.gaps.end(), index);
}

} // namespace sl
