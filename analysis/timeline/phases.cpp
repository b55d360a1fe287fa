#include "analysis/timeline/phases.h"

#include <algorithm>
#include <climits>
#include <numeric>
#include <regex>
#include <unordered_map>

#include "analysis/trace/errors.h"
#include "analysis/timeline/nvtx_projection.h"
#include "analysis/timeline/overlap.h"
#include "analysis/trace/stats.h"

namespace sl {

const char* step_source_name(StepSource s)
{
    switch (s) {
    case StepSource::KernelRegex: return "kernel_regex";
    case StepSource::NvtxRanges: return "nvtx";
    case StepSource::SamplingKernels: return "sampling_kernel";
    case StepSource::None: break;
    }
    return "none";
}

namespace {

struct Sorted {
    std::vector<int64_t> v;
    int64_t count_in(int64_t a, int64_t b) const
    {
        return std::lower_bound(v.begin(), v.end(), b) - std::lower_bound(v.begin(), v.end(), a);
    }
};

} // namespace

PhaseResult analyze_phases(const Trace& t, const std::vector<int16_t>& kernel_class, int sampling_class,
                           const NvtxProjectionResult* projection, const PhaseOptions& o)
{
    PhaseResult r;
    r.options = o;
    const auto& k = t.kernels;
    std::vector<uint32_t> korder(k.size());
    std::iota(korder.begin(), korder.end(), 0u);
    auto kless = [&](uint32_t a, uint32_t b) { return k.start[a] != k.start[b] ? k.start[a] < k.start[b] : a < b; };
    if (!std::is_sorted(korder.begin(), korder.end(), kless))
        std::sort(korder.begin(), korder.end(), kless);
    std::vector<int64_t> kstart(k.size()), kprefix(k.size() + 1, 0);
    for (size_t i = 0; i < korder.size(); ++i) {
        kstart[i] = k.start[korder[i]];
        kprefix[i + 1] = kprefix[i] + (k.end[korder[i]] - k.start[korder[i]]);
    }

    // Step windows.
    std::vector<StepInfo> steps;
    auto boundary_steps = [&](auto is_boundary) {
        std::vector<StepInfo> out;
        if (korder.empty())
            return out;
        int64_t seg_start = k.start[korder.front()];
        for (size_t i = 0; i < t.memcpy.size(); ++i)
            seg_start = std::min(seg_start, t.memcpy.start[i]);
        for (size_t i = 0; i < t.memset.size(); ++i)
            seg_start = std::min(seg_start, t.memset.start[i]);
        int64_t inner = 0;
        for (uint32_t ki : korder) {
            if (!is_boundary(ki)) {
                ++inner;
                continue;
            }
            if (inner < o.min_step_kernels && !out.empty()) {
                out.back().end = std::max(out.back().end, k.end[ki]);
            } else {
                StepInfo s;
                s.start = seg_start;
                s.end = k.end[ki];
                out.push_back(s);
            }
            seg_start = out.back().end;
            inner = 0;
        }
        for (auto& s : out)
            s.wall_ns = s.end - s.start;
        return out;
    };
    std::vector<int8_t> name_flag(t.strings.size(), -1);
    if (!o.step_regex.empty()) {
        std::regex re;
        try {
            re = std::regex(o.step_regex, std::regex::ECMAScript | std::regex::icase);
        } catch (const std::regex_error& e) {
            throw TraceError("options", "step regex", "a valid ECMAScript regular expression",
                             o.step_regex + " (" + e.what() + ")");
        }
        steps = boundary_steps([&](uint32_t ki) {
            const StrId n = k.name[ki];
            int8_t& f = name_flag[n < name_flag.size() ? n : 0];
            if (f < 0)
                f = std::regex_search(std::string(t.str(n)), re) ? 1 : 0;
            return f == 1;
        });
        r.source = StepSource::KernelRegex;
        r.boundary = o.step_regex;
        if (steps.empty())
            r.note = "no kernel name matches the step regex";
    } else {
        // NVTX step ranges.
        std::vector<uint32_t> matched, prefill_ranges;
        if (!o.nvtx_step_regex.empty() && t.ranges.size() > 0) {
            std::regex re;
            try {
                re = std::regex(o.nvtx_step_regex, std::regex::ECMAScript | std::regex::icase);
            } catch (const std::regex_error& e) {
                throw TraceError("options", "NVTX step regex", "a valid ECMAScript regular expression",
                                 o.nvtx_step_regex + " (" + e.what() + ")");
            }
            std::regex pre;
            const bool use_pre = !o.nvtx_prefill_regex.empty();
            if (use_pre) {
                try {
                    pre = std::regex(o.nvtx_prefill_regex, std::regex::ECMAScript | std::regex::icase);
                } catch (const std::regex_error& e) {
                    throw TraceError("options", "NVTX prefill regex", "a valid ECMAScript regular expression",
                                     o.nvtx_prefill_regex + " (" + e.what() + ")");
                }
            }
            std::vector<int8_t> rflag(t.strings.size(), -1);   // 0 no, 1 step, 2 prefill
            for (size_t i = 0; i < t.ranges.size(); ++i) {
                if (t.ranges.kind[i] == RangeKind::CpuOp)
                    continue;
                const StrId n = t.ranges.name[i];
                int8_t& f = rflag[n < rflag.size() ? n : 0];
                if (f < 0) {
                    const std::string s(t.str(n));
                    f = std::regex_search(s, re) ? 1 : (use_pre && std::regex_search(s, pre)) ? 2 : 0;
                }
                if (f == 1)
                    matched.push_back(static_cast<uint32_t>(i));
                else if (f == 2)
                    prefill_ranges.push_back(static_cast<uint32_t>(i));
            }
        }
        if (static_cast<int>(matched.size()) >= o.min_steps) {
            const size_t n_steps = matched.size();
            matched.insert(matched.end(), prefill_ranges.begin(), prefill_ranges.end());
            std::vector<uint8_t> is_prefill(t.ranges.size(), 0);
            for (size_t i = n_steps; i < matched.size(); ++i)
                is_prefill[matched[i]] = 1;
            std::sort(matched.begin(), matched.end(), [&](uint32_t a, uint32_t b) {
                return t.ranges.start[a] != t.ranges.start[b] ? t.ranges.start[a] < t.ranges.start[b] : a < b;
            });
            for (uint32_t ri : matched) {
                StepInfo s;
                s.range = static_cast<int32_t>(ri);
                s.prefill = is_prefill[ri] != 0;
                const bool proj = projection && ri < projection->ranges.size() && projection->ranges[ri].ops > 0;
                s.start = proj ? projection->ranges[ri].proj_start : t.ranges.start[ri];
                s.end = proj ? projection->ranges[ri].proj_end : t.ranges.end[ri];
                if (proj) {
                    s.kernels = projection->ranges[ri].ops;
                    s.kernel_ns = projection->ranges[ri].gpu_ns;
                }
                steps.push_back(s);
            }
            // Step i's wall time runs from the end of step i-1's GPU work (the previous token) to the end of its
            // own, so host-side gaps between steps count and TPOT is the token-to-token period on the GPU.
            int64_t prev_end = INT64_MIN;
            for (auto& s : steps) {
                if (prev_end != INT64_MIN && prev_end > s.start && prev_end < s.end)
                    s.start = prev_end;   // overlapping windows: count the shared part once
                else if (prev_end != INT64_MIN && prev_end < s.start)
                    s.start = prev_end;
                s.wall_ns = s.end - s.start;
                prev_end = std::max(prev_end, s.end);
            }
            r.source = StepSource::NvtxRanges;
            r.boundary = o.nvtx_step_regex;
        } else if (o.sampling_boundaries && sampling_class >= 0 && kernel_class.size() == k.size()) {
            steps = boundary_steps([&](uint32_t ki) { return kernel_class[ki] == sampling_class; });
            if (static_cast<int>(steps.size()) >= o.min_steps) {
                r.source = StepSource::SamplingKernels;
                // Name the most frequent boundary kernel.
                std::unordered_map<StrId, int64_t> cnt;
                for (uint32_t ki : korder)
                    if (kernel_class[ki] == sampling_class)
                        cnt[k.name[ki]] += 1;
                StrId best = 0;
                int64_t bc = -1;
                for (const auto& [n, c] : cnt)
                    if (c > bc || (c == bc && n < best)) {
                        best = n;
                        bc = c;
                    }
                r.boundary = std::string(t.str(best));
            } else {
                steps.clear();
            }
        }
        if (steps.empty())
            r.note = "no decode steps found: no NVTX step ranges, no sampling kernels (give a boundary kernel with "
                     "--step-regex)";
    }

    // Per-step measures.
    std::vector<Interval> ops;
    ops.reserve(k.size() + t.memcpy.size() + t.memset.size());
    for (size_t i = 0; i < k.size(); ++i)
        ops.push_back({k.start[i], k.end[i]});
    for (size_t i = 0; i < t.memcpy.size(); ++i)
        ops.push_back({t.memcpy.start[i], t.memcpy.end[i]});
    for (size_t i = 0; i < t.memset.size(); ++i)
        ops.push_back({t.memset.start[i], t.memset.end[i]});
    const BusyIndex busy(steps.empty() ? std::vector<Interval>{} : merge_intervals(std::move(ops)));
    Sorted syncs, launches;
    for (size_t i = 0; i < t.api.size(); ++i) {
        if (t.api.flags[i] & kApiSync)
            syncs.v.push_back(t.api.start[i]);
        if (t.api.flags[i] & (kApiLaunch | kApiGraphLaunch))
            launches.v.push_back(t.api.start[i]);
    }
    std::sort(syncs.v.begin(), syncs.v.end());
    std::sort(launches.v.begin(), launches.v.end());
    for (auto& s : steps) {
        if (s.range < 0) {
            const auto a = std::lower_bound(kstart.begin(), kstart.end(), s.start) - kstart.begin();
            const auto b = std::lower_bound(kstart.begin(), kstart.end(), s.end) - kstart.begin();
            s.kernels = b - a;
            s.kernel_ns = kprefix[static_cast<size_t>(b)] - kprefix[static_cast<size_t>(a)];
        }
        const int64_t window = s.end - s.start;
        s.busy_ns = busy.busy_in(s.start, s.end);
        s.gap_ns = std::max<int64_t>(0, window - s.busy_ns);
        s.utilization = window > 0 ? static_cast<double>(s.busy_ns) / static_cast<double>(window) : 0;
        const int64_t h0 = s.range >= 0 ? t.ranges.start[static_cast<size_t>(s.range)] : s.start;
        const int64_t h1 = s.range >= 0 ? t.ranges.end[static_cast<size_t>(s.range)] : s.end;
        s.sync_calls = syncs.count_in(h0, h1);
        s.launch_calls = launches.count_in(h0, h1);
    }

    // Prefill vs decode.
    const bool explicit_prefill = r.source == StepSource::NvtxRanges &&
                                  std::any_of(steps.begin(), steps.end(), [](const StepInfo& s) { return s.prefill; });
    if (explicit_prefill) {
        // Prefill ranges named as such; nothing to infer.
    } else if (steps.size() >= 2) {
        std::vector<int64_t> rest;
        for (size_t i = 1; i < steps.size(); ++i)
            rest.push_back(steps[i].kernel_ns);
        const double ref = compute_stats(rest).median;
        for (auto& s : steps)
            s.prefill = static_cast<double>(s.kernel_ns) > o.prefill_factor * ref && ref > 0;
    } else if (!steps.empty()) {
        r.note = "only one step: too few to tell prefill from decode";
    }
    std::vector<size_t> decode;
    for (size_t i = 0; i < steps.size(); ++i) {
        if (steps[i].prefill) {
            r.prefill_steps += 1;
            r.prefill_ns += steps[i].wall_ns;
        } else {
            decode.push_back(i);
        }
    }
    r.decode_steps = static_cast<int64_t>(decode.size());
    const size_t warm = decode.size() > static_cast<size_t>(std::max(o.warmup_steps, 0))
                            ? static_cast<size_t>(std::max(o.warmup_steps, 0))
                            : 0;
    if (warm == 0 && o.warmup_steps > 0 && !decode.empty() && r.note.empty())
        r.note = "too few decode steps to exclude warm-up; TPOT over all of them";
    r.warmup_excluded = static_cast<int64_t>(warm);
    std::vector<int64_t> tpot;
    double util = 0, kern = 0, sync = 0;
    for (size_t j = 0; j < decode.size(); ++j) {
        StepInfo& s = steps[decode[j]];
        if (j < warm) {
            s.warmup = true;
            continue;
        }
        tpot.push_back(s.wall_ns);
        util += s.utilization;
        kern += static_cast<double>(s.kernels);
        sync += static_cast<double>(s.sync_calls);
    }
    r.steady_steps = static_cast<int64_t>(tpot.size());
    if (!tpot.empty()) {
        const double n = static_cast<double>(tpot.size());
        r.steady_utilization = util / n;
        r.steady_kernels_per_step = kern / n;
        r.steady_sync_calls_per_step = sync / n;
        std::vector<int64_t> copy = tpot;
        const Stats st = compute_stats(copy);
        r.tpot_median_ns = st.median;
        r.tpot_mean_ns = st.avg;
        r.tpot_p90_ns = percentile(tpot, 90);
    }
    r.steps = std::move(steps);
    return r;
}

} // namespace sl
