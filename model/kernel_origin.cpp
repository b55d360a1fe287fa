#include "model/kernel_origin.h"

namespace sl {

namespace {
constexpr std::string_view kModulePrefix = "nn.Module: ";
}

std::vector<uint32_t> KernelOrigin::cpuOps(const Trace& t) const
{
    std::vector<uint32_t> out;
    for (uint32_t r : hostRanges)
        if (r < t.ranges.size() && t.ranges.kind[r] == RangeKind::CpuOp)
            out.push_back(r);
    return out;
}

std::string moduleName(std::string_view frame)
{
    if (frame.starts_with(kModulePrefix))
        frame.remove_prefix(kModulePrefix.size());
    return std::string(frame);
}

KernelOrigin kernelOrigin(const TimelineIndex& index, uint32_t kernel)
{
    KernelOrigin o;
    const Trace& t = index.trace();
    if (kernel >= t.kernels.size())
        return o;
    o.graphReplay = (t.kernels.flags[kernel] & KernelTable::kGraphNode) != 0;
    const KernelLookup* lookup = index.kernelLookup();
    o.opArgs = lookup ? lookup->opArgsOfKernel(kernel) : KernelLookup::scanOpArgsOfKernel(t, kernel);
    const int32_t api = t.kernels.launch_api[kernel];
    if (api < 0 || size_t(api) >= t.api.size())
        return o;
    o.api = api;
    const uint32_t th = t.api.thread[size_t(api)];
    const int64_t as = t.api.start[size_t(api)], ae = t.api.end[size_t(api)];
    for (const TimelineLane& lane : index.lanes()) {
        if ((lane.kind != LaneKind::HostRanges && lane.kind != LaneKind::Python) || lane.thread != th)
            continue;
        // Ranges of this depth that end at or after the call's end and start at or before its start.
        const uint32_t lo = index.firstEndingAfter(lane, ae - 1), hi = index.endStartingBefore(lane, as + 1);
        for (uint32_t j = lo; j < hi; ++j) {
            const uint32_t row = index.ref(lane, j).row;
            if (t.ranges.start[row] > as || t.ranges.end[row] < ae)
                continue;
            if (lane.kind == LaneKind::HostRanges)
                o.hostRanges.push_back(row);
            else if (t.str(t.ranges.name[row]).starts_with(kModulePrefix))
                o.modules.push_back(row);
        }
    }
    // Lanes come by depth within each family: the rows are outermost first already; keep them so on ties.
    auto byDepth = [&](uint32_t a, uint32_t b) {
        return t.ranges.start[a] != t.ranges.start[b] ? t.ranges.start[a] < t.ranges.start[b]
                                                      : t.ranges.end[a] > t.ranges.end[b];
    };
    std::stable_sort(o.hostRanges.begin(), o.hostRanges.end(), byDepth);
    std::stable_sort(o.modules.begin(), o.modules.end(), byDepth);
    for (auto it = o.hostRanges.rbegin(); it != o.hostRanges.rend(); ++it)
        if (t.ranges.kind[*it] == RangeKind::CpuOp) {
            o.op = int32_t(*it);
            break;
        }
    return o;
}

std::vector<uint32_t> kernelsOfHostRange(const TimelineIndex& index, uint32_t range, size_t limit, int64_t* total)
{
    std::vector<uint32_t> out;
    if (total)
        *total = 0;
    const Trace& t = index.trace();
    if (range >= t.ranges.size())
        return out;
    const uint32_t th = t.ranges.thread[range];
    const int64_t s = t.ranges.start[range], e = t.ranges.end[range];
    const KernelLookup* lookup = index.kernelLookup();
    for (const TimelineLane& lane : index.lanes()) {
        if (lane.kind != LaneKind::ApiThread || lane.thread != th)
            continue;
        const uint32_t lo = index.endStartingBefore(lane, s), hi = index.endStartingBefore(lane, e);
        for (uint32_t j = lo; j < hi; ++j) {
            const uint32_t api = index.ref(lane, j).row;
            if (!(t.api.flags[api] & (kApiLaunch | kApiGraphLaunch | kApiMemcpy | kApiMemset)))
                continue;
            const int64_t k = lookup ? lookup->kernelOfApi(api) : (out.size() < limit ? KernelLookup::scanKernelOfApi(t, api) : -1);
            if (k < 0)
                continue;
            if (total)
                ++*total;
            if (out.size() < limit)
                out.push_back(uint32_t(k));
            else if (!total)
                break;
        }
    }
    return out;
}

} // namespace sl
