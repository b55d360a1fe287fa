// One scope per device: its idle, large gaps, low-utilisation chunks and communication overlap.
#include "analysis/diagnosis/binders/binders.h"

#include <algorithm>
#include <unordered_map>

#include "analysis/timeline/analysis.h"
#include "analysis/trace/trace.h"

namespace sl::bind {

namespace {

std::string device_subject(const Trace& t, uint16_t d)
{
    if (d < t.meta.devices.size()) {
        const auto& dev = t.meta.devices[d];
        std::string s = "GPU " + std::to_string(dev.id);
        if (t.meta.world_size > 1 || dev.rank != 0)
            s += " rank " + std::to_string(dev.rank);
        if (!dev.name.empty())
            s += " (" + dev.name + ")";
        return s;
    }
    return "GPU " + std::to_string(d);
}

} // namespace

void device_scopes(const Context& c, std::vector<MetricScope>& out)
{
    [[maybe_unused]] const auto& [trace, an, roof, ncu, opt, trace_wall] = c;
    // Each device's gaps (in list order) and overlap, found once: a scan of every gap and every overlap row per
    // device was quadratic in the number of devices (issue 36 §8: 30,000 devices took 9 s here).
    std::unordered_map<uint16_t, std::vector<Gap>> gaps_of;
    for (const Gap& g : an.idle.gaps)
        gaps_of[g.device].push_back(g);
    std::unordered_map<uint16_t, const DeviceOverlap*> overlap_of;
    for (const auto& o : an.overlap.devices)
        overlap_of.insert_or_assign(o.device, &o);
    static const std::vector<Gap> kNoGaps;
    for (const auto& d : an.idle.devices) {
        MetricScope s;
        s.kind = ScopeKind::Device;
        s.subject = device_subject(trace, d.device);
        auto& m = s.metrics;
        m["trace_wall_ns"] = trace_wall;
        m["wall_ns"] = double(d.window_ns);
        m["idle_fraction"] = d.idle_fraction;
        m["utilization"] = safe_div(double(d.busy_ns), double(d.window_ns));
        m["gap_threshold_us"] = double(opt.gap_threshold_ns) / 1e3;
        double large = 0, large_ns = 0, max_gap = 0;
        const auto gi = gaps_of.find(d.device);
        const std::vector<Gap>& G = gi == gaps_of.end() ? kNoGaps : gi->second;
        for (const Gap& g : G) {
            max_gap = std::max(max_gap, double(g.duration()));
            if (g.duration() > opt.gap_threshold_ns) {
                ++large;
                large_ns += double(g.duration());
            }
        }
        m["large_gap_count"] = large;
        m["large_gap_ns"] = large_ns;
        m["max_gap_ns"] = max_gap;
        link_largest_gaps(
            G, [&](const Gap& g) { return g.device == d.device && g.duration() > opt.gap_threshold_ns; },
            opt.max_links, s.links);
        // Low-utilisation chunks (nsys gpu_time_util, with the busy union instead of summed concurrency).
        {
            const auto util = chunk_utilization(G, d.device, d.first_start, d.last_end, opt.util_chunks);
            double low = 0, min_u = 1;
            for (double u : util) {
                min_u = std::min(min_u, u);
                if (u < opt.util_threshold)
                    ++low;
            }
            if (!util.empty()) {
                m["low_util_chunk_count"] = low;
                m["low_util_chunk_fraction"] = low / double(util.size());
                m["min_chunk_utilization"] = min_u;
            }
        }
        if (const auto oi = overlap_of.find(d.device); oi != overlap_of.end()) {
            const DeviceOverlap& o = *oi->second;
            m["nccl_ns"] = double(o.comm.time_ns);
            m["nccl_fraction"] = safe_div(double(o.comm.time_ns), double(d.window_ns));
            m["nccl_exposed_ns"] = double(o.comm.time_ns) * (1.0 - std::max(0.0, o.comm.hidden_fraction));
            // What the GPU cannot hide: the communication rule's severity and gain come from this share, not
            // from nccl_fraction (a well-overlapped run has much communication and little of it exposed).
            m["nccl_exposed_fraction"] = safe_div(m["nccl_exposed_ns"], double(d.window_ns));
            if (o.comm.hidden_fraction >= 0)
                m["comm_overlap_fraction"] = o.comm.hidden_fraction;
            else
                m["comm_overlap_fraction"] = 0;
        }
        for (auto& [k, v] : m)
            s.sources[k] = "analysis:idle/overlap";
        out.push_back(std::move(s));
    }
}

} // namespace sl::bind
