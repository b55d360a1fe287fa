#include "analysis/diagnosis/metrics_binding.h"
#include "analysis/trace/top_k.h"
#include "analysis/diagnosis/ncu_target.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <set>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "analysis/timeline/analysis.h"
#include "analysis/timeline/capture_edge.h"
#include "analysis/timeline/collectives.h"
#include "analysis/timeline/cross_rank.h"
#include "analysis/diagnosis/cross_rank_metrics.h"
#include "analysis/timeline/kernel_phase.h"
#include "analysis/trace/cancel_point.h"
#include "analysis/trace/trace.h"
#include "analysis/io/input_bounds.h"
#include "analysis/trace/errors.h"
// The Roofline and ncu parts bind when those analyses are part of the build (they landed in parallel with this
// file); without them bind_metrics ignores its roofline/ncu arguments.
#if __has_include("analysis/roofline/roofline.h") && __has_include("analysis/io/ncu_metrics.h") && __has_include("analysis/io/ncu_reader.h")
#include "analysis/io/ncu_metrics.h"
#include "analysis/io/ncu_reader.h"
#include "analysis/roofline/kv_expand.h"
#include "analysis/roofline/roofline.h"
#include "analysis/diagnosis/retest.h"
#include "analysis/diagnosis/scope_text.h"
#define SIGHTLINE_BIND_ROOFLINE 1
#else
#define SIGHTLINE_BIND_ROOFLINE 0
#endif

namespace sl {

namespace {

// Texts say a kernel by its short name ("vllm::act_and_mul_kernel<…>", "… (ncu #7)"), in both languages: a
// demangled name runs to a thousand characters, and the scope's subject keeps it whole.
void say_kernel_by_short_name(MetricScope& s, const std::string& shown)
{
    if (shown == s.subject)
        return;
    s.subject_zh_CN = shown;
    s.sources[kSubjectEnKey] = shown;
}

double safe_div(double a, double b) { return b > 0 ? a / b : 0.0; }

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

// Busy fraction of each of `chunks` equal chunks of [from, to), from the device's idle gaps (sorted, disjoint,
// inside [from, to)): a chunk's busy time is its length less the gap time inside it, which equals the busy union's
// without materialising one interval per op (at 10^7 kernels that union and the op list behind it were 400 MB of
// analyze's peak memory; issue 18).
std::vector<double> chunk_utilization_from_gaps(const std::vector<Gap>& gaps, uint16_t device, int64_t from,
                                                int64_t to, int chunks)
{
    std::vector<double> u;
    if (to <= from || chunks <= 0)
        return u;
    const double width = double(to - from) / chunks;
    std::vector<int64_t> edge(static_cast<size_t>(chunks) + 1);
    for (int c = 0; c <= chunks; ++c)
        edge[static_cast<size_t>(c)] = c == chunks ? to : from + static_cast<int64_t>(std::llround(c * width));
    std::vector<int64_t> idle(static_cast<size_t>(chunks), 0);
    for (const Gap& g : gaps) {
        if (g.device != device)
            continue;
        const int64_t g0 = std::max(g.start, from), g1 = std::min(g.end, to);
        if (g1 <= g0)
            continue;
        // First chunk whose end lies after the gap's start.
        size_t c = static_cast<size_t>(std::upper_bound(edge.begin() + 1, edge.end(), g0) - (edge.begin() + 1));
        for (; c < idle.size() && edge[c] < g1; ++c)
            idle[c] += std::max<int64_t>(0, std::min(g1, edge[c + 1]) - std::max(g0, edge[c]));
    }
    for (size_t c = 0; c < idle.size(); ++c) {
        const int64_t a = edge[c], b = edge[c + 1];
        u.push_back(b > a ? double(b - a - idle[c]) / double(b - a) : 1.0);
    }
    return u;
}

// Links to the max_links longest gaps that `keep` accepts, longest first, equal lengths in list (time) order.
template <class Keep>
void link_largest_gaps(const std::vector<Gap>& gaps, Keep keep, size_t max_links, ScopeLinks& links)
{
    auto ahead = [&](uint32_t a, uint32_t b) {
        const int64_t x = gaps[a].duration(), y = gaps[b].duration();
        return x != y ? x > y : a < b;
    };
    TopK<uint32_t, decltype(ahead)> top(max_links, ahead);
    for (size_t i = 0; i < gaps.size(); ++i)
        if (keep(gaps[i]))
            top.offer(static_cast<uint32_t>(i));
    for (uint32_t i : top.take()) {
        const Gap& g = gaps[i];
        links.time_ranges.push_back({g.start, g.end, std::string("gap (") + gap_cause_name(g.cause) + ")"});
    }
}

struct StepWindow {
    int64_t start, end;
};

bool is_graph_kernel(const Trace& t, size_t i)
{
    if (t.kernels.flags[i] & KernelTable::kGraphNode)
        return true;
    const int32_t a = t.kernels.launch_api[i];
    return a >= 0 && static_cast<size_t>(a) < t.api.size() && (t.api.flags[static_cast<size_t>(a)] & kApiGraphLaunch);
}

// A compute-bound prefill: the steps are prefill-dominated (prefill-only / prefill-heavy steps hold at least half
// of the step time), the GPU is busy >= 90 % of their windows, and GEMM and attention kernels hold at least half of
// the kernel time. Launch-side remedies (CUDA graphs) cannot shorten such work.
bool prefill_compute_bound(const Trace& t, const AnalysisResult& an)
{
    double prefill_wall = 0, prefill_busy = 0, all_wall = 0;
    for (const auto& s : an.phases.steps) {
        const double w = double(s.end - s.start);
        all_wall += w;
        if (s.kind == StepKind::PrefillOnly || s.kind == StepKind::PrefillHeavy) {
            prefill_wall += w;
            prefill_busy += double(s.busy_ns);
        }
    }
    if (all_wall <= 0 || prefill_wall < 0.5 * all_wall || prefill_busy < 0.9 * prefill_wall)
        return false;
    double compute = 0, total = 0;
    for (size_t c = 0; c < an.classes.classes.size(); ++c) {
        const auto& cl = an.classes.classes[c];
        total += double(cl.time_ns);
        if (cl.id == "gemm" || cl.id == "attention")
            compute += double(cl.time_ns);
    }
    (void)t;
    return total > 0 && compute >= 0.5 * total;
}

// Σ of gap time by cause clipped to a set of sorted, disjoint windows.
std::array<int64_t, kGapCauses> gaps_in_windows(const std::vector<Gap>& gaps, const std::vector<StepWindow>& windows)
{
    std::array<int64_t, kGapCauses> out{};
    if (windows.empty())
        return out;
    for (const auto& g : gaps) {
        auto it = std::upper_bound(windows.begin(), windows.end(), g.start,
                                   [](int64_t v, const StepWindow& w) { return v < w.end; });
        for (; it != windows.end() && it->start < g.end; ++it) {
            const int64_t a = std::max(g.start, it->start), b = std::min(g.end, it->end);
            if (b > a)
                out[static_cast<size_t>(g.cause)] += b - a;
        }
    }
    return out;
}

} // namespace

std::vector<MetricScope> bind_metrics(const Trace& trace, const AnalysisResult& an, const RooflineReport* roof,
                                      const NcuReport* ncu, const BindOptions& opt)
{
    std::vector<MetricScope> out;
    const auto& kernels = trace.kernels;

    // The GPU-active window of the whole trace.
    int64_t first = std::numeric_limits<int64_t>::max(), last = std::numeric_limits<int64_t>::min();
    for (const auto& d : an.idle.devices) {
        first = std::min(first, d.first_start);
        last = std::max(last, d.last_end);
    }
    const double trace_wall = last > first ? double(last - first) : 0.0;

    // ---- trace ----------------------------------------------------------------------------------------------
    {
        MetricScope s;
        s.kind = ScopeKind::Trace;
        s.subject = "trace";
        auto& m = s.metrics;
        m["trace_wall_ns"] = trace_wall;
        m["wall_ns"] = trace_wall;
        m["capture_ns"] = double(an.wall_ns);
        double window = 0, busy = 0, idle = 0;
        std::array<double, kGapCauses> cause{};
        for (const auto& d : an.idle.devices) {
            window += double(d.window_ns);
            busy += double(d.busy_ns);
            idle += double(d.idle_ns);
            for (size_t i = 0; i < kGapCauses; ++i)
                cause[i] += double(d.breakdown.ns[i]);
        }
        m["busy_ns"] = busy;
        m["idle_ns"] = idle;
        m["idle_fraction"] = safe_div(idle, window);
        m["utilization"] = safe_div(busy, window);
        m["host_wait_ns"] = cause[0];
        m["kernel_wait_ns"] = cause[1];
        m["sync_wait_ns"] = cause[2];
        m["other_wait_ns"] = cause[3];
        // Queued work waiting on another stream's event (not the host), and the largest single gap: idle that
        // feeding the GPU faster cannot remove.
        m["dependency_wait_ns"] = cause[4];
        m["dependency_wait_fraction"] = safe_div(cause[4], window);
        {
            double top = 0, dep_under_sync = 0;
            for (const Gap& g : an.idle.gaps) {
                top = std::max(top, double(g.duration()));
                if (g.cause != GapCause::DependencyWait)
                    continue;
                // Dependency wait while the launching thread sat in a host-blocking call (a synchronous copy): the
                // host waited behind the GPU's dependency, not the GPU behind the host.
                const GapDependency dep = dependency_of(trace, g);
                dep_under_sync += double(dep.blocking_overlap_ns);
            }
            m["max_gap_fraction"] = safe_div(top, window);
            m["sync_dependency_overlap_ns"] = dep_under_sync;
        }
        for (const char* k : {"idle_fraction", "utilization", "host_wait_ns", "kernel_wait_ns", "sync_wait_ns",
                              "other_wait_ns", "idle_ns", "busy_ns", "dependency_wait_ns", "dependency_wait_fraction",
                              "max_gap_fraction", "sync_dependency_overlap_ns"})
            s.sources[k] = "analysis:idle";
        // The capture's edges (timeline/capture_edge.h): idle before the first step or after the last is the
        // capture's, not the steady state's; the ledger keeps it out of every idle entry. The steady state is the
        // window without it and without the start-up idle host-side causes cover: the rules that blame the host
        // read its busy share.
        {
            const CaptureEdgeIdle edge = capture_edge_idle(trace, an.idle, an.phases, &an.host_causes);
            const double edge_ns = double(edge.total_ns());
            m["edge_idle_ns"] = edge_ns;
            m["edge_idle_fraction"] = safe_div(edge_ns, window);
            m["edge_host_wait_ns"] = double(edge.ns[0]);
            m["edge_kernel_wait_ns"] = double(edge.ns[1]);
            m["edge_sync_wait_ns"] = double(edge.ns[2]);
            m["edge_other_wait_ns"] = double(edge.ns[3]);
            m["edge_dependency_wait_ns"] = double(edge.ns[4]);
            m["edge_before_ns"] = double(edge.before_ns);
            m["edge_after_ns"] = double(edge.after_ns);
            const double startup = std::clamp(double(an.host_causes.idle_ns), 0.0, cause[0]);
            const double steady = window - edge_ns - startup;
            m["steady_wall_ns"] = std::max(0.0, steady);
            m["steady_utilization"] = steady > 0 ? std::min(1.0, busy / steady) : safe_div(busy, window);
            m["steady_idle_fraction"] = steady > 0 ? std::max(0.0, 1.0 - busy / steady) : safe_div(idle, window);
            for (const char* k : {"edge_idle_ns", "edge_idle_fraction", "edge_host_wait_ns", "edge_kernel_wait_ns",
                                  "edge_sync_wait_ns", "edge_other_wait_ns", "edge_dependency_wait_ns",
                                  "edge_before_ns", "edge_after_ns", "steady_wall_ns", "steady_utilization",
                                  "steady_idle_fraction"})
                s.sources[k] = "analysis:idle";   // the idle gaps outside the steps (words in the GUI's sourceLabel)
        }

        const auto& L = an.launch;
        m["kernel_count"] = double(L.kernels);
        m["launch_count"] = double(L.launch_calls + L.graph_launch_calls);
        m["launch_api_ns"] = double(L.launch_api_ns);
        m["launch_overhead_fraction"] = L.eta_launch;
        m["short_kernel_count"] = double(L.short_kernels);
        m["short_kernel_fraction"] = safe_div(double(L.short_kernels), double(L.kernels));
        m["runtime_outlier_count"] = double(L.api_outliers);
        m["launch_delay_outlier_count"] = double(L.queue_outliers);
        if (L.api.count > 0)
            m["avg_launch_api_us"] = L.api.avg / 1e3;
        if (L.queue.count > 0)
            m["avg_queue_delay_us"] = L.queue.avg / 1e3;
        // Kernels that already run in CUDA/HIP graph replay: CUDA graphs are not a remedy for them.
        m["graph_fraction"] = safe_div(double(L.graph_kernels), double(L.kernels));
        s.sources["graph_fraction"] = "analysis:launch";
        m["prefill_compute_bound"] = prefill_compute_bound(trace, an) ? 1.0 : 0.0;
        s.sources["prefill_compute_bound"] = "analysis:phases";
        // The share of the steps' time in prefill passes and prefill-heavy mixed steps (0 without steps): advice
        // that rests on decode (a larger decode batch) does not go to a run that is mostly prefill.
        {
            double prefill = 0, all = 0;
            for (const auto& st : an.phases.steps) {
                const double w = double(st.end - st.start);
                all += w;
                if (st.kind == StepKind::PrefillOnly || st.kind == StepKind::PrefillHeavy || (st.prefill && !st.mixed))
                    prefill += w;
            }
            m["prefill_step_fraction"] = safe_div(prefill, all);
            s.sources["prefill_step_fraction"] = "analysis:phases";
        }
        for (const char* k : {"kernel_count", "launch_count", "launch_api_ns", "launch_overhead_fraction",
                              "short_kernel_count", "short_kernel_fraction", "runtime_outlier_count",
                              "launch_delay_outlier_count", "avg_launch_api_us", "avg_queue_delay_us"})
            s.sources[k] = "analysis:launch";

        m["sync_api_count"] = double(an.sync.calls);
        m["sync_api_ns"] = double(an.sync.host_blocked_ns);
        m["sync_api_fraction"] = safe_div(double(an.sync.host_blocked_ns), trace_wall);
        s.sources["sync_api_count"] = s.sources["sync_api_ns"] = s.sources["sync_api_fraction"] = "analysis:sync";

        // Synchronous memcpy / memset API calls (nsys cuda_memcpy_sync, cuda_memset_sync).
        double sync_memcpy = 0, sync_memcpy_ns = 0, sync_memset = 0;
        for (size_t i = 0; i < trace.api.size(); ++i) {
            const uint8_t f = trace.api.flags[i];
            if ((f & kApiMemcpy) && (f & kApiSync)) {
                ++sync_memcpy;
                sync_memcpy_ns += double(trace.api.end[i] - trace.api.start[i]);
            } else if ((f & kApiMemset) && !(f & kApiAsync)) {
                ++sync_memset;
            }
        }
        m["sync_memcpy_count"] = sync_memcpy;
        m["sync_memcpy_ns"] = sync_memcpy_ns;
        m["sync_memset_count"] = sync_memset;
        s.sources["sync_memcpy_count"] = s.sources["sync_memcpy_ns"] = s.sources["sync_memset_count"] = "trace:api";

        double pageable = 0, pageable_ns = 0, h2d_ns = 0, h2d_hidden = 0, h2d_bytes = 0, h2d_outside = 0;
        for (const auto& d : an.overlap.devices) {
            pageable += double(d.pageable_async_api_count);
            if (d.pageable_async_api_count > 0)
                pageable_ns += double(d.pageable_time_ns);
            h2d_ns += double(d.h2d.time_ns);
            h2d_hidden += double(d.h2d.hidden_ns);
            h2d_outside += double(d.h2d.outside_ns);
            h2d_bytes += double(d.h2d.bytes);
        }
        m["pageable_async_memcpy_count"] = pageable;
        m["pageable_async_memcpy_ns"] = pageable_ns;
        m["h2d_ns"] = h2d_ns;
        m["h2d_bytes"] = h2d_bytes;
        m["h2d_fraction"] = safe_div(h2d_ns, trace_wall);
        if (h2d_ns > 0)
            m["h2d_overlap_fraction"] = h2d_hidden / h2d_ns;
        // Exposed copy time that compute could hide: not the uploads before the first kernel (or readbacks after
        // the last), which have nothing to run under — a benchmark's one-off 1.3 GB setup copy is not a step's input.
        m["h2d_setup_ns"] = h2d_outside;
        m["h2d_loop_exposed_ns"] = std::max(0.0, h2d_ns - h2d_hidden - h2d_outside);
        for (const char* k : {"pageable_async_memcpy_count", "pageable_async_memcpy_ns", "h2d_ns", "h2d_bytes",
                              "h2d_fraction", "h2d_overlap_fraction", "h2d_setup_ns", "h2d_loop_exposed_ns"})
            s.sources[k] = "analysis:overlap";
        // The KV cache copied whole every step (roofline/kv_expand.h): repeat_kv's expand + reshape, by the copies'
        // recorded shapes.
        {
            const KvExpansion kv = find_kv_expansion(trace);
            m["kv_expand_ns"] = double(kv.kernel_ns);
            m["kv_expand_calls"] = double(kv.calls);
            m["kv_expand_bytes"] = kv.bytes;
            m["kv_expand_fraction"] = safe_div(double(kv.kernel_ns), trace_wall);
            m["kv_expand_repeats"] = double(kv.repeats);
            for (const char* k : {"kv_expand_ns", "kv_expand_calls", "kv_expand_bytes", "kv_expand_fraction",
                                  "kv_expand_repeats"})
                s.sources[k] = "analysis:shapes";
        }

        // Ranks and the straggler (timeline/collectives.h, cross_rank.h): only a merged multi-rank trace can show
        // one rank making the others wait, so the cross-rank matching runs only there; a single rank binds zeros.
        {
            std::set<int32_t> device_ranks;
            for (const auto& d : trace.meta.devices)
                device_ranks.insert(d.rank);
            CollectiveStats cs;
            CrossRankComm cross;
            if (device_ranks.size() > 1) {
                const std::vector<CollectiveRecord> records = collective_records(trace);
                std::vector<MatchedCollective> matched;
                cs = collective_stats_from_records(records, {}, &matched);
                cross = cross_rank_comm(records, matched, cs);
            }
            bind_cross_rank_metrics(s, cs, cross, busy + idle);
        }

        const auto& W = an.weights;
        m["weights_detected"] = W.detected ? 1.0 : 0.0;
        // The kernel-mix story (headline.h): elementwise/copy-like kernels' time and share of kernel time.
        m["elementwise_copy_ns"] = elementwise_copy_kernel_ns(trace, an);
        m["elementwise_copy_fraction"] = safe_div(m["elementwise_copy_ns"], double(an.classes.kernel_time_ns));
        s.sources["elementwise_copy_ns"] = s.sources["elementwise_copy_fraction"] = "analysis:classes";
        // MoE (workload.h): expert GEMMs and routing, and the layer's experts and top-k when known.
        const MoeWorkload& moe = an.workload.moe;
        m["moe_detected"] = moe.detected ? 1.0 : 0.0;
        m["moe_gemm_ns"] = double(moe.expert_gemm_ns);
        m["moe_routing_ns"] = double(moe.routing_ns);
        m["moe_fraction"] = moe.gpu_share;
        m["moe_experts"] = double(moe.experts);
        m["moe_top_k"] = double(moe.top_k);
        for (const char* k : {"moe_detected", "moe_gemm_ns", "moe_routing_ns", "moe_fraction", "moe_experts", "moe_top_k"})
            s.sources[k] = "analysis:workload (MoE)";
        // torch.compile (workload.h): no suggestion to compile a run that is compiled.
        m["torch_compiled"] = an.workload.torch_compile.detected ? 1.0 : 0.0;
        s.sources["torch_compiled"] = "analysis:workload (torch.compile)";
        s.sources["weights_detected"] = "analysis:weights";
        if (W.detected && W.hit_rate >= 0) {
            m["layer_cache_hit_rate"] = W.hit_rate;
            m["layer_load_count"] = double(W.hits + W.misses);
            s.sources["layer_cache_hit_rate"] = s.sources["layer_load_count"] = "analysis:weights (NVTX)";
        }
        // Links: the largest gaps anywhere.
        link_largest_gaps(an.idle.gaps, [](const Gap&) { return true; }, opt.max_links, s.links);
        out.push_back(std::move(s));
    }

    // ---- devices ----------------------------------------------------------------------------------------------
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
            const auto util =
                chunk_utilization_from_gaps(G, d.device, d.first_start, d.last_end, opt.util_chunks);
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

    // ---- phases ------------------------------------------------------------------------------------------------
    const auto& P = an.phases;
    for (int decode = 0; decode <= 1; ++decode) {
        std::vector<StepWindow> windows;
        std::vector<std::string> step_ranges;   // NVTX step ranges behind the steps, when steps came from NVTX
        double wall = 0, busy = 0, gap = 0, kern = 0, kern_ns = 0, syncs = 0, sync_steps = 0, steps = 0;
        double phase_kernels = 0, phase_graph_kernels = 0;
        for (const auto& st : P.steps) {
            if (st.prefill != (decode == 0) || st.mixed)   // mixed steps are a phase of their own (issue 13)
                continue;
            if (decode && st.warmup)
                continue;
            windows.push_back({st.start, st.end});
            if (st.range != kNoIndex && static_cast<size_t>(st.range) < trace.ranges.size() &&
                step_ranges.size() < opt.max_links)
                step_ranges.emplace_back(trace.str(trace.ranges.name[static_cast<size_t>(st.range)]));
            wall += double(st.end - st.start);
            busy += double(st.busy_ns);
            gap += double(st.gap_ns);
            kern += double(st.kernels);
            kern_ns += double(st.kernel_ns);
            syncs += double(st.sync_calls);
            sync_steps += st.sync_calls > 0 ? 1 : 0;
            ++steps;
        }
        if (steps == 0)
            continue;
        std::sort(windows.begin(), windows.end(), [](const StepWindow& a, const StepWindow& b) { return a.start < b.start; });
        const auto cause = gaps_in_windows(an.idle.gaps, windows);
        const double idle = double(cause[0] + cause[1] + cause[2] + cause[3] + cause[4]);
        // Kernels of the phase's steps (starting in their windows) that ran in graph replay (none without graph
        // launches: then the walk over every kernel is skipped).
        for (size_t i = 0; an.launch.graph_kernels > 0 && i < kernels.size(); ++i) {
            const int64_t ks = kernels.start[i];
            auto it = std::upper_bound(windows.begin(), windows.end(), ks,
                                       [](int64_t v, const StepWindow& w) { return v < w.end; });
            if (it == windows.end() || ks < it->start)
                continue;
            phase_kernels += 1;
            phase_graph_kernels += is_graph_kernel(trace, i) ? 1 : 0;
        }
        MetricScope s;
        s.kind = ScopeKind::Phase;
        s.subject = decode ? "decode" : "prefill";
        auto& m = s.metrics;
        m["trace_wall_ns"] = trace_wall;
        m["is_decode"] = decode;
        m["step_count"] = steps;
        m["wall_ns"] = wall;
        m["idle_fraction"] = safe_div(wall - busy, wall);
        m["host_wait_ns"] = double(cause[0]);
        m["host_wait_share"] = safe_div(double(cause[0]), idle);
        m["kernel_wait_share"] = safe_div(double(cause[1]), idle);
        m["idle_ns"] = idle;
        m["kernel_wait_ns"] = double(cause[1]);
        m["sync_wait_ns"] = double(cause[2]);
        m["host_wait_per_step_ns"] = double(cause[0]) / steps;
        m["dependency_wait_ns"] = double(cause[4]);
        m["graph_fraction"] = safe_div(phase_graph_kernels, phase_kernels);
        m["sync_wait_per_step_ns"] = double(cause[2]) / steps;
        m["syncs_per_step"] = syncs / steps;
        m["sync_steps_fraction"] = sync_steps / steps;
        m["kernels_per_step"] = kern / steps;
        m["avg_kernel_us"] = safe_div(kern_ns, kern) / 1e3;
        if (decode && P.tpot_median_ns > 0)
            m["tpot_median_ns"] = P.tpot_median_ns;
        else if (!decode)
            m["tpot_median_ns"] = wall / steps;   // time per prefill pass
#if SIGHTLINE_BIND_ROOFLINE
        // Step 2 of the loop: theory of the step's dominant operators vs their measured time (analysis/diagnosis/retest.h).
        if (roof)
            if (const PhaseCost* pc = roof->cost.phase(decode ? Phase::Decode : Phase::Prefill))
                m["shape_default"] = pc->batch_from == "default" || pc->kv_from == "default" ? 1.0 : 0.0;
        if (roof)
            if (const auto rc = retest_check(*roof, decode ? "decode" : "prefill")) {
                m["retest_theory_ns"] = rc->theory_ns;
                m["retest_measured_ns"] = rc->measured_ns;
                m["retest_delta_fraction"] = rc->delta;
                m["retest_abs_delta_fraction"] = std::abs(rc->delta);
                // What the trace's own GEMM shapes say of the config (roofline/config_check.h): 1 confirmed,
                // -1 contradicted, 0 unknown (no record_shapes, MoE, no lm_head to count passes).
                const std::string& v = roof->config_shapes.verdict;
                m["retest_config_shapes"] = v == "confirmed" ? 1.0 : v == "contradicted" ? -1.0 : 0.0;
                if (roof->config_shapes.lm_head_calls > 0)
                    m["retest_layers_from_shapes"] = roof->config_shapes.layers_from_shapes;
            }
#endif
        for (auto& [k, v] : m)
            s.sources[k] = k.rfind("retest_", 0) == 0 ? "roofline" : "analysis:phases";
        for (size_t i = 0; i < std::min(windows.size(), opt.max_links); ++i)
            s.links.time_ranges.push_back({windows[i].start, windows[i].end,
                                           std::string(decode ? "decode step" : "prefill pass")});
        s.links.nvtx_ranges = std::move(step_ranges);
        out.push_back(std::move(s));
    }

    // ---- operator classes ------------------------------------------------------------------------------------
    const auto& C = an.classes;
    const size_t class_scopes_begin = out.size();
#if SIGHTLINE_BIND_ROOFLINE
    if (roof && roof->measured) {
        std::map<std::string, double> phase_total;
        for (const auto& c : roof->classes)
            phase_total[c.phase] += double(c.measured_total_ns);
        for (const auto& c : roof->classes) {
            if (c.measured_total_ns <= 0)
                continue;
            MetricScope s;
            s.kind = ScopeKind::OpClass;
            s.subject = c.op_class + " (" + c.phase + ")";
            auto& m = s.metrics;
            const bool dec = c.phase == "decode";
            m["trace_wall_ns"] = trace_wall;
            m["is_decode"] = dec;
            m["is_gemm"] = c.op_class == "gemm";
            m["is_attention"] = c.op_class == "attention";
            m["is_elementwise_chain"] = is_elementwise_chain_class(c.op_class);
            m["total_ns"] = double(c.measured_total_ns);
            m["time_fraction"] = safe_div(double(c.measured_total_ns), phase_total[c.phase]);
            // Gains are fractions of end-to-end time: a class holding 80 % of a phase's kernel time holds less of the
            // wall when the GPU idles or other phases run (rules scale their gain by this, never by time_fraction).
            m["wall_fraction"] = safe_div(double(c.measured_total_ns), trace_wall);
            if (c.bytes > 0)
                m["intensity"] = c.flops / c.bytes;
            if (c.t_theory_ns)
                m["t_theory_ns"] = *c.t_theory_ns;
            if (c.t_actual_ns)
                m["t_actual_ns"] = *c.t_actual_ns;
            // An unfused elementwise chain (roofline.h): the chain's theory and time, which its E_roof compares.
            m["fused_chain"] = c.chain.empty() ? 0.0 : 1.0;
            if (!c.chain.empty() && c.chain_theory_ns && c.chain_actual_ns) {
                m["t_theory_ns"] = *c.chain_theory_ns;
                m["t_actual_ns"] = *c.chain_actual_ns;
            }
            if (c.e_roof && *c.e_roof > 0) {
                m["e_roof"] = *c.e_roof;
                m["distance_to_roof"] = 1.0 / *c.e_roof;
            }
            // Bound type of the class: compute when its operators' compute time exceeds their memory time.
            if (const PhaseCost* pc = roof->cost.phase(phase_from_name(c.phase).value_or(Phase::Prefill))) {
                double tc = 0, tm = 0;
                bool known = false;
                for (const auto& op : pc->ops)
                    if (op.op_class == c.op_class && op.t_compute_ns && op.t_memory_ns) {
                        tc += *op.t_compute_ns;
                        tm += *op.t_memory_ns;
                        known = true;
                    }
                if (known) {
                    m["compute_bound"] = tc > tm;
                    m["memory_bound"] = tm >= tc;
                }
                if (pc->batch > 0)
                    m["batch_size"] = double(pc->batch);
                // The theory rests on a default shape (no flag, annotation or recorded shape for its batch or
                // length): diagnose() keeps the findings that read its E_roof at low severity.
                m["shape_default"] = pc->batch_from == "default" || pc->kv_from == "default" ? 1.0 : 0.0;
            }
            for (auto& [k, v] : m)
                s.sources[k] = "roofline";
            s.sources["time_fraction"] = s.sources["total_ns"] = s.sources["wall_fraction"] = "trace (measured)";
            if (const NcuTarget nt = ncu_target_for_class(trace, an, c.op_class, c.phase); !nt.regex.empty()) {
                s.sources[kNcuKernelsKey] = nt.ncu_args();
                s.sources[kKernelRegexKey] = nt.include_regex();
            }
            out.push_back(std::move(s));
        }
    } else
#else
    (void)roof;
#endif
    {
        for (const auto& c : C.classes) {
            if (c.count == 0)
                continue;
            MetricScope s;
            s.kind = ScopeKind::OpClass;
            s.subject = c.id;
            auto& m = s.metrics;
            m["trace_wall_ns"] = trace_wall;
            m["is_gemm"] = c.id == "gemm";
            m["is_attention"] = c.id == "attention";
            m["is_elementwise_chain"] = is_elementwise_chain_class(c.id);
            m["count"] = double(c.count);
            m["total_ns"] = double(c.time_ns);
            m["time_fraction"] = safe_div(double(c.time_ns), double(C.kernel_time_ns));
            m["wall_fraction"] = safe_div(double(c.time_ns), trace_wall);
            for (auto& [k, v] : m)
                s.sources[k] = "analysis:classes";
            if (const NcuTarget nt = ncu_target_for_class(trace, an, c.id, ""); !nt.regex.empty()) {
                s.sources[kNcuKernelsKey] = nt.ncu_args();
                s.sources[kKernelRegexKey] = nt.include_regex();
            }
            out.push_back(std::move(s));
        }
    }

    // Links of the operator-class scopes (issue 37 §3: E_roof findings led nowhere): the longest kernels of the class,
    // in the scope's phase when it has one ("gemm (decode)"), as the Roofline measured them (the step each starts in).
    {
        std::unordered_map<std::string, int> class_index;
        for (size_t c = 0; c < C.classes.size(); ++c)
            class_index[C.classes[c].id] = static_cast<int>(c);
        // Scope -> (class, phase: -1 any, 0 prefill, 1 decode, 2 mixed, 3 training).
        std::vector<std::pair<size_t, std::pair<int, int>>> wanted;
        for (size_t i = class_scopes_begin; i < out.size(); ++i) {
            if (out[i].kind != ScopeKind::OpClass)
                continue;
            std::string id = out[i].subject;
            int phase = -1;
            if (const size_t open = id.find(" ("); open != std::string::npos && id.back() == ')') {
                const auto named = kernel_phase_named(std::string_view(id).substr(open + 2, id.size() - open - 3));
                phase = named ? static_cast<int>(*named) : -2;
                id.resize(open);
            }
            if (const auto it = class_index.find(id); it != class_index.end() && phase != -2)
                wanted.push_back({i, {it->second, phase}});
        }
        if (!wanted.empty()) {
            const std::vector<KernelPhase> placed = kernel_phases(trace, an.phases);
            auto ahead = [&](size_t a, size_t b) {
                const int64_t x = trace.kernels.end[a] - trace.kernels.start[a];
                const int64_t y = trace.kernels.end[b] - trace.kernels.start[b];
                return x != y ? x > y : a < b;
            };
            std::vector<TopK<size_t, decltype(ahead)>> top;
            top.reserve(wanted.size());
            std::vector<std::vector<size_t>> by_class(C.classes.size());   // class -> its scopes in `wanted`
            for (size_t w = 0; w < wanted.size(); ++w) {
                top.emplace_back(opt.max_links, ahead);
                by_class[static_cast<size_t>(wanted[w].second.first)].push_back(w);
            }
            const size_t n = std::min(trace.kernels.size(), C.kernel_class.size());
            for (size_t k = 0; k < n; ++k) {
                cancel_point(k);
                const int cls = C.kernel_class[k];
                if (cls < 0 || static_cast<size_t>(cls) >= by_class.size())
                    continue;
                for (const size_t w : by_class[static_cast<size_t>(cls)])
                    if (wanted[w].second.second < 0 || static_cast<int>(placed[k]) == wanted[w].second.second)
                        top[w].offer(k);
            }
            for (size_t w = 0; w < wanted.size(); ++w)
                for (size_t k : top[w].take())
                    out[wanted[w].first].links.kernel_ids.push_back(static_cast<int64_t>(k));
        }
    }

    // ---- kernel names ---------------------------------------------------------------------------------------
    const double kernel_time = double(C.kernel_time_ns);
    std::unordered_map<StrId, size_t> scope_of_name;
    const size_t first_kernel_scope = out.size();
    for (const auto& k : an.launch.per_name) {
        if (out.size() - first_kernel_scope >= opt.max_kernel_scopes)
            break;
        if (k.count == 0)
            continue;
        MetricScope s;
        s.kind = ScopeKind::Kernel;
        s.subject = std::string(trace.str(k.name));
        say_kernel_by_short_name(s, kernel_display_name(s.subject));
        auto& m = s.metrics;
        m["trace_wall_ns"] = trace_wall;
        m["count"] = double(k.count);
        m["total_ns"] = double(k.kernel_ns);
        m["avg_duration_us"] = double(k.kernel_ns) / double(k.count) / 1e3;
        m["time_fraction"] = safe_div(double(k.kernel_ns), kernel_time);
        m["wall_fraction"] = safe_div(double(k.kernel_ns), trace_wall);
        m["short_kernel_count"] = double(k.short_count);
        m["short_kernel_fraction"] = double(k.short_count) / double(k.count);
        m["graph_fraction"] = double(k.graph) / double(k.count);
        if (k.api.count > 0)
            m["avg_launch_api_us"] = k.api.avg / 1e3;
        if (k.queue.count > 0)
            m["avg_queue_delay_us"] = k.queue.avg / 1e3;
        for (auto& [n, v] : m)
            s.sources[n] = "analysis:launch";
        scope_of_name[k.name] = out.size();
        out.push_back(std::move(s));
    }
    // Links: the longest instances of each bound kernel name, equal durations in row order (a bounded heap per
    // scope, not a list of every instance: 10^7 kernels were 97 MB at analyze's peak, issue 18).
    {
        auto ahead = [&](size_t a, size_t b) {
            const int64_t x = kernels.end[a] - kernels.start[a], y = kernels.end[b] - kernels.start[b];
            return x != y ? x > y : a < b;
        };
        std::unordered_map<size_t, TopK<size_t, decltype(ahead)>> top;
        for (size_t i = 0; i < kernels.size(); ++i)
            if (const auto it = scope_of_name.find(kernels.name[i]); it != scope_of_name.end())
                top.try_emplace(it->second, opt.max_links, ahead).first->second.offer(i);
        for (auto& [scope, t] : top)
            for (size_t i : t.take())
                out[scope].links.kernel_ids.push_back(static_cast<int64_t>(i));
    }

    // ---- ncu launches -----------------------------------------------------------------------------------------
#if SIGHTLINE_BIND_ROOFLINE
    if (ncu) {
        const auto joined = join_ncu_to_trace(*ncu, trace);
        std::unordered_map<StrId, int64_t> name_time;
        for (const auto& n : C.names)
            name_time[n.name] = n.time_ns;
        const int gemm = [&] {
            for (size_t i = 0; i < C.classes.size(); ++i)
                if (C.classes[i].id == "gemm")
                    return static_cast<int>(i);
            return -1;
        }();
        OpClassifier classifier;
        bool have_classifier = false;
        try {
            classifier = OpClassifier::load(an.options.classes_file);
            have_classifier = true;
        } catch (const Cancelled&) {
            throw;   // a Cancel raised inside is not this step's failure
        } catch (const std::exception&) {
        }
        for (size_t li = 0; li < ncu->launches.size(); ++li) {
            const auto& L = ncu->launches[li];
            const auto x = compute_ncu_metrics(L);
            MetricScope s;
            s.kind = ScopeKind::NcuLaunch;
            s.subject = ncu_launch_subject(L.name, L.id);
            say_kernel_by_short_name(s, ncu_launch_subject(kernel_display_name(L.name), L.id));
            // The launch's own kernel, as ncu filters it (its place among the matched launches is not known here).
            if (const std::string base = ncu_base_name(L.name); !base.empty())
                s.sources[kNcuKernelsKey] = "-k regex:'^(.*::)?" + ncu_regex_escape(base) + "$' --launch-count 1";
            auto& m = s.metrics;
            m["trace_wall_ns"] = trace_wall;
            auto put = [&](const char* k, const std::optional<double>& v, double scale = 1.0) {
                if (v && std::isfinite(*v))
                    m[k] = *v * scale;
            };
            put("duration_ns", x.duration_ns);
            put("tensor_core_utilization", x.tensor_pipe_pct, 0.01);
            put("achieved_occupancy", x.achieved_occupancy_pct, 0.01);
            put("theoretical_occupancy", x.theoretical_occupancy_pct, 0.01);
            put("dram_throughput_fraction", x.dram_throughput_pct, 0.01);
            if (x.l2_hit_rate_pct)
                m["l2_miss_rate"] = 1.0 - *x.l2_hit_rate_pct / 100.0;
            put("sm_throughput_pct", x.sm_throughput_pct);
            put("memory_throughput_pct", x.memory_throughput_pct);
            put("waves_per_sm", x.waves_per_sm);
            put("registers_per_thread", x.registers_per_thread);
            put("intensity", x.intensity);
            if (x.shared_bank_conflicts && x.shared_wavefronts && *x.shared_wavefronts > 0)
                m["shared_bank_conflict_ratio"] = *x.shared_bank_conflicts / *x.shared_wavefronts;
            if (x.shared_bank_conflicts) {
                const auto ld = L.number("smsp__sass_inst_executed_op_shared_ld.sum");
                const auto st = L.number("smsp__sass_inst_executed_op_shared_st.sum");
                const double req = ld.value_or(0) + st.value_or(0);
                if (req > 0)
                    m["shared_bank_conflicts_per_request"] = *x.shared_bank_conflicts / req;
            }
            if (auto total = L.number("smsp__average_warp_latency_per_inst_issued.ratio"); total && *total > 0)
                for (const auto& st : x.top_stalls)
                    if (st.reason == "long_scoreboard")
                        m["stall_memory_dependency_fraction"] = st.value / *total;
            // GEMM or not: the joined trace kernel's class, else the classifier on the ncu name.
            const int64_t k = li < joined.size() ? joined[li] : -1;
            if (k >= 0 && static_cast<size_t>(k) < C.kernel_class.size()) {
                m["is_gemm"] = C.kernel_class[static_cast<size_t>(k)] == gemm;
                m["time_fraction"] = safe_div(double(name_time[kernels.name[static_cast<size_t>(k)]]), kernel_time);
                m["wall_fraction"] = safe_div(double(name_time[kernels.name[static_cast<size_t>(k)]]), trace_wall);
                s.links.kernel_ids.push_back(k);
            } else if (have_classifier) {
                const auto match = classifier.classify(L.name);
                m["is_gemm"] = match.cls >= 0 && static_cast<size_t>(match.cls) < classifier.class_ids().size() &&
                               classifier.class_ids()[static_cast<size_t>(match.cls)] == "gemm";
            }
            if (x.duration_derived)
                m["data_quality"] = 0.8;
            for (auto& [n, v] : m)
                s.sources[n] = "ncu";
            s.sources["time_fraction"] = s.sources["wall_fraction"] = "trace (joined by name)";
            out.push_back(std::move(s));
        }
    }
#else
    (void)ncu;
#endif
    // ---- host-side causes (timeline/host_causes.h) ---------------------------------------------------------------
    // One scope per cause the trace names, with the device idle it covers; its links are the ranges and calls behind
    // it (the longest instance of each name) and the idle they cover, so a finding shows the range as evidence.
    for (const auto& hc : an.host_causes.causes) {
        MetricScope s;
        s.kind = ScopeKind::HostCause;
        s.subject = hc.id;
        auto& m = s.metrics;
        m["trace_wall_ns"] = trace_wall;
        m["idle_ns"] = double(hc.idle_ns);
        m["idle_fraction"] = safe_div(double(hc.idle_ns), trace_wall);
        m["host_ns"] = double(hc.host_ns);
        m["before_gpu_ns"] = double(hc.before_gpu_ns);
        double count = 0;
        for (const auto& e : hc.evidence)
            count += double(e.count);
        m["count"] = count;
        for (const char* id : {"compilation", "autotuning", "module_loading", "allocator"})
            m[std::string("is_") + id] = hc.id == id ? 1.0 : 0.0;
        for (auto& [k, v] : m)
            s.sources[k] = "analysis:host_causes";
        // The subject in words: the cause and its largest evidence, "JIT compilation (NVTX KernelExecutor::...)".
        std::string names;
        for (size_t i = 0; i < hc.evidence.size() && i < 2; ++i)
            names += (i ? ", " : "") + std::string(hc.evidence[i].source == "nvtx" ? "NVTX " : "") +
                     hc.evidence[i].name;
        s.sources[kSubjectEnKey] = hc.label + (names.empty() ? "" : " (" + names + ")");
        s.subject_zh_CN = hc.label_zh_CN + (names.empty() ? "" : "（" + names + "）");
        for (const auto& e : hc.evidence) {
            if (s.links.time_ranges.size() < opt.max_links)
                s.links.time_ranges.push_back({e.longest_start, e.longest_end, e.source + " " + e.name});
            if (e.source != "api")
                s.links.nvtx_ranges.push_back(e.name);
        }
        for (const auto& p : hc.covered)
            if (s.links.time_ranges.size() < opt.max_links)
                s.links.time_ranges.push_back({p.start, p.end, "GPU idle during " + hc.label});
        out.push_back(std::move(s));
    }

    // What a kernel's or a class's remedy rests on that only the whole trace measures: how busy the GPU is in the
    // steady state (a launch-side remedy for a GPU that is 90 % busy is contradicted by the trace), and whether the
    // run is compiled (torch.compile is no remedy for a compiled run).
    {
        const MetricScope* whole = nullptr;
        for (const auto& s : out)
            if (s.kind == ScopeKind::Trace)
                whole = &s;
        if (whole) {
            const std::map<std::string, double> shared = {
                {"steady_utilization", whole->metrics.at("steady_utilization")},
                {"torch_compiled", whole->metrics.at("torch_compiled")}};
            for (auto& s : out)
                if (s.kind == ScopeKind::Kernel || s.kind == ScopeKind::OpClass || s.kind == ScopeKind::Phase)
                    for (const auto& [k, v] : shared) {
                        s.metrics.emplace(k, v);
                        s.sources.emplace(k, k == "torch_compiled" ? "analysis:workload (torch.compile)" : "analysis:idle");
                    }
        }
    }

    // Titles name classes and phases in words (GEMM / GEMV (decode), GEMM / GEMV（解码）), as the headline and the
    // Overview do, in both languages. (Kernel and ncu-launch scopes got their short names where they were made.)
    for (auto& s : out)
        if (s.kind == ScopeKind::OpClass || s.kind == ScopeKind::Phase) {
            const LocalText w = subject_words(s.kind, s.subject, an.classes);
            if (w.zh_CN != s.subject)
                s.subject_zh_CN = w.zh_CN;
            if (!w.en.empty() && w.en != s.subject)
                s.sources[kSubjectEnKey] = w.en;
        }
    return out;
}

namespace {

// No finding above low severity rests on a default shape: a finding whose rule reads E_roof (e_roof,
// distance_to_roof) or the theory-vs-measurement gap (retest_*delta_fraction) on a scope whose theory took a default
// batch or length (shape_default) is capped at low, and its evidence says why — unless the trace's GEMM shapes
// contradict the config, which no shape explains.
void cap_default_shape_findings(std::vector<Finding>& findings, const std::vector<MetricScope>& scopes,
                                const RuleSet& rules)
{
    for (Finding& f : findings) {
        const Rule* rule = rules.find(f.rule);
        if (!rule)
            continue;
        auto reads = [&](const char* v) {
            return std::find(rule->variables.begin(), rule->variables.end(), v) != rule->variables.end() ||
                   std::find(rule->gain_variables.begin(), rule->gain_variables.end(), v) !=
                       rule->gain_variables.end();
        };
        if (!reads("e_roof") && !reads("distance_to_roof") && !reads("retest_delta_fraction") &&
            !reads("retest_abs_delta_fraction"))
            continue;
        const auto sc = std::find_if(scopes.begin(), scopes.end(), [&](const MetricScope& s) {
            return s.kind == f.scope && s.subject == f.subject;
        });
        if (sc == scopes.end())
            continue;
        const auto it = sc->metrics.find("shape_default");
        if (it == sc->metrics.end() || it->second <= 0)
            continue;
        // A config the trace's own GEMM shapes contradict does not rest on the shape.
        if (const auto cs = sc->metrics.find("retest_config_shapes"); cs != sc->metrics.end() && cs->second < 0)
            continue;
        if (f.severity > Severity::Low)
            f.severity = Severity::Low;
        Evidence e;
        e.metric = "shape_default";
        e.value = 1;
        e.source = "roofline: the theory's batch or length is the default (no --batch/--prompt/--context, step "
                   "annotation or recorded shape): at most low severity";
        f.evidence.push_back(std::move(e));
    }
}

} // namespace

const std::set<std::string>& metric_vocabulary()
{
    static const std::set<std::string> v = {
        // across ranks (cross_rank_metrics.h)
        "straggler_lateness_ns", "straggler_lead_in_excess_fraction", "straggler_kind_last_fraction",
        "alltoall_matched", "alltoall_sized", "alltoall_imbalance", "alltoall_imbalance_max", "alltoall_heaviest_rank",
        "alltoall_heaviest_share", "alltoall_latency_ns", "alltoall_excess_ns", "alltoall_excess_all_ranks_ns",
        "alltoall_excess_fraction", "rank_step_ranks", "rank_step_slowest", "rank_step_fastest",
        "rank_step_slowest_ns", "rank_step_median_ns", "rank_step_spread_fraction", "rank_step_excess_ns",
        "rank_step_excess_total_ns", "rank_step_excess_fraction",
        "achieved_occupancy", "avg_duration_us", "avg_kernel_us", "avg_launch_api_us", "avg_queue_delay_us",
        "batch_size", "before_gpu_ns", "busy_ns", "capture_ns", "collective_skew_max_ns", "collective_skew_mean_ns",
        "collectives_matched", "comm_overlap_fraction", "comm_ranks", "compute_bound", "count", "data_quality",
        "dependency_wait_fraction", "dependency_wait_ns", "distance_to_roof", "dram_throughput_fraction",
        "duration_ns", "e_roof", "edge_after_ns", "edge_before_ns", "edge_dependency_wait_ns", "edge_host_wait_ns",
        "edge_idle_fraction", "edge_idle_ns", "edge_kernel_wait_ns", "edge_other_wait_ns", "edge_sync_wait_ns",
        "elementwise_copy_fraction", "elementwise_copy_ns", "fused_chain", "gap_threshold_us", "graph_fraction",
        "h2d_bytes", "h2d_fraction", "h2d_loop_exposed_ns", "h2d_ns", "h2d_overlap_fraction", "h2d_setup_ns",
        "host_ns", "host_wait_ns", "host_wait_per_step_ns", "host_wait_share", "idle_fraction", "idle_ns",
        "intensity", "is_allocator", "is_attention", "is_autotuning", "is_compilation", "is_decode",
        "is_elementwise_chain", "is_gemm", "is_module_loading", "kernel_count", "kernel_wait_ns", "kernel_wait_share",
        "kernels_per_step", "kv_expand_bytes", "kv_expand_calls", "kv_expand_fraction", "kv_expand_ns",
        "kv_expand_repeats", "l2_miss_rate", "large_gap_count", "large_gap_ns", "launch_api_ns", "launch_count",
        "launch_delay_outlier_count", "launch_overhead_fraction", "layer_cache_hit_rate", "layer_load_count",
        "low_util_chunk_count", "low_util_chunk_fraction", "max_gap_fraction", "max_gap_ns", "memory_bound",
        "memory_throughput_pct", "min_chunk_utilization", "moe_detected", "moe_experts", "moe_fraction",
        "moe_gemm_ns", "moe_routing_ns", "moe_top_k", "nccl_exposed_fraction", "nccl_exposed_ns", "nccl_fraction",
        "nccl_ns", "other_wait_ns", "pageable_async_memcpy_count", "pageable_async_memcpy_ns",
        "prefill_compute_bound", "prefill_step_fraction", "registers_per_thread", "retest_abs_delta_fraction",
        "retest_config_shapes", "retest_delta_fraction", "retest_layers_from_shapes", "retest_measured_ns",
        "retest_theory_ns", "runtime_outlier_count", "shape_default", "shared_bank_conflict_ratio",
        "shared_bank_conflicts_per_request", "short_kernel_count", "short_kernel_fraction", "sm_throughput_pct",
        "stall_memory_dependency_fraction", "steady_idle_fraction", "steady_utilization", "steady_wall_ns",
        "step_count", "straggler_exposed_wait_fraction", "straggler_exposed_wait_ns", "straggler_last_fraction",
        "straggler_makes_others_wait", "straggler_rank", "straggler_wait_ns", "sync_api_count", "sync_api_fraction",
        "sync_api_ns", "sync_dependency_overlap_ns", "sync_memcpy_count", "sync_memcpy_ns", "sync_memset_count",
        "sync_steps_fraction", "sync_wait_ns", "sync_wait_per_step_ns", "syncs_per_step", "t_actual_ns",
        "t_theory_ns", "tensor_core_utilization", "theoretical_occupancy", "time_fraction", "torch_compiled",
        "total_ns", "tpot_median_ns", "trace_wall_ns", "utilization", "wall_fraction", "wall_ns", "waves_per_sm",
        "weights_detected",
    };
    return v;
}

std::vector<std::string> unknown_metrics(const Rule& rule)
{
    std::set<std::string> used(rule.variables.begin(), rule.variables.end());
    for (const auto& g : rule.gain_variables)
        used.insert(!g.empty() && g[0] == '@' ? g.substr(1) : g);   // "@name": an evidence-only metric
    for (const auto& s : rule.suggestions)
        used.insert(s.when_variables.begin(), s.when_variables.end());
    if (!rule.removes_cap.empty())
        used.insert(rule.removes_cap);
    std::vector<std::string> out;
    for (const auto& n : used)
        if (!metric_vocabulary().count(n))
            out.push_back(n);
    return out;
}

namespace {

// Keeps the first kMaxFindingsPerRule findings of each rule (the list is ranked, so the highest) and counts the rest
// per rule and scope kind. The ledger has already bounded every gain over all of them.
std::vector<OmittedFindings> omit_past_rule_limit(std::vector<Finding>& findings)
{
    std::unordered_map<std::string, size_t> listed;
    std::map<std::pair<std::string, int>, OmittedFindings> omitted;
    std::vector<Finding> kept;
    kept.reserve(std::min(findings.size(), size_t(4096)));
    for (Finding& f : findings) {
        if (++listed[f.rule] <= kMaxFindingsPerRule) {
            kept.push_back(std::move(f));
            continue;
        }
        OmittedFindings& o = omitted[{f.rule, static_cast<int>(f.scope)}];
        o.rule = f.rule;
        o.scope = f.scope;
        o.count += 1;
        o.highest = std::max(o.highest, f.severity);
        if (f.expected_gain.ledger)
            o.gain_ns += f.expected_gain.ledger->granted_ns;
    }
    findings = std::move(kept);
    std::vector<OmittedFindings> out;
    for (auto& [k, o] : omitted)
        out.push_back(std::move(o));
    return out;
}

}   // namespace

Diagnosis diagnose(const Trace& trace, const AnalysisResult& analysis, const RooflineReport* roofline,
                   const NcuReport* ncu, const DiagnoseOptions& options, const KnowledgeBase* kb)
{
    Diagnosis d;
    const auto scopes = bind_metrics(trace, analysis, roofline, ncu, options.bind);
    const std::vector<std::string> dirs =
        options.rule_dirs.empty() ? std::vector<std::string>{shipped_rules_dir(), default_user_rules_dir()}
                                  : options.rule_dirs;
    RuleSet rules = load_rules(dirs);
    // A rule naming a metric no scope has (a typo) would never fire, silently: it is a rule error instead.
    std::erase_if(rules.rules, [&](const Rule& r) {
        const auto unknown = unknown_metrics(r);
        if (unknown.empty())
            return false;
        std::string list;
        for (const auto& n : unknown)
            list += (list.empty() ? "'" : ", '") + n + "'";
        rules.errors.push_back({r.file, r.id, "unknown metric " + list +
                                                  " (not evaluated; the metrics are listed in "
                                                  "resources/schemas/findings.md)"});
        return true;
    });
    d.rule_errors = rules.errors;
    d.env = fingerprint_from_trace(trace);
    if (!options.env_extra.model_hash.empty())
        d.env.model_hash = options.env_extra.model_hash;
    if (options.env_extra.batch)
        d.env.batch = options.env_extra.batch;
    if (options.env_extra.seq_len)
        d.env.seq_len = options.env_extra.seq_len;
    EvalOptions eo;
    eo.lang = options.lang;
    // {trace} in texts and verification commands: a path holding a line feed is shown escaped, as every name is.
    eo.trace_path = escape_control_chars(trace.meta.source_path);
    eo.vendor = analysis.workload.vendor;   // each suggestion's form (rules.h)
    for (const auto& s : scopes)
        if (s.kind == ScopeKind::Trace)
            eo.capture_ns = static_cast<int64_t>(s.metrics.at("trace_wall_ns"));
    if (kb)
        eo.history = kb->history_lookup(d.env);
    d.eval = evaluate_rules(rules, scopes, eo);
    // Rule texts come from files (the user's folder is anyone's): a title holding a line feed printed a line of its
    // own in the headline, the text and the report. Escaped once here, as names are, for every output.
    for (Finding& f : d.eval.findings) {
        for (std::string* t : {&f.title.en, &f.title.zh_CN, &f.explanation.en, &f.explanation.zh_CN})
            if (has_control_chars(*t))
                *t = escape_control_chars(*t);
        for (auto& sg : f.suggestions)
            for (std::string* t : {&sg.text.en, &sg.text.zh_CN, &sg.verify})
                if (has_control_chars(*t))
                    *t = escape_control_chars(*t);
    }
    merge_ncu_launch_findings(d.eval.findings);   // before the ledger: one claim per kernel, not one per launch
    const KernelPools pools = kernel_pools(trace, analysis);
    d.ledger = apply_ledger(d.eval.findings, scopes, rules, options.ledger, &pools);
    cap_default_shape_findings(d.eval.findings, scopes, rules);
    d.omitted = omit_past_rule_limit(d.eval.findings);
    d.headline = make_headline(trace, analysis, d.eval.findings);
    return d;
}

std::vector<OperatorMeasurement> operator_measurements(const Trace& trace, const AnalysisResult& an, size_t limit)
{
    std::vector<OperatorMeasurement> out;
    for (const auto& n : an.classes.names) {
        if (out.size() >= limit)
            break;
        OperatorMeasurement o;
        o.name = std::string(trace.str(n.name));
        if (n.cls >= 0 && static_cast<size_t>(n.cls) < an.classes.classes.size())
            o.op_class = an.classes.classes[static_cast<size_t>(n.cls)].id;
        o.count = n.count;
        o.total_ns = n.time_ns;
        o.avg_ns = n.count ? double(n.time_ns) / double(n.count) : 0;
        out.push_back(std::move(o));
    }
    return out;
}

nlohmann::json diagnosis_meta_json(const Diagnosis& d)
{
    using nlohmann::json;
    json errors = json::array();
    for (const auto& e : d.rule_errors)
        errors.push_back({{"file", e.file}, {"rule", e.rule_id}, {"message", e.message}});
    for (const auto& e : d.eval.errors)
        errors.push_back({{"file", e.file}, {"rule", e.rule_id}, {"message", e.message}});
    struct Agg {
        int scopes = 0;
        std::set<std::string> metrics;
    };
    std::map<std::pair<std::string, std::string>, Agg> agg;
    for (const auto& m : d.eval.missing) {
        auto& a = agg[{m.rule, scope_kind_name(m.scope)}];
        ++a.scopes;
        a.metrics.insert(m.metrics.begin(), m.metrics.end());
    }
    json omitted = json::array();
    for (const auto& o : d.omitted)
        omitted.push_back({{"rule", o.rule},
                           {"scope", scope_kind_name(o.scope)},
                           {"count", o.count},
                           {"highest_severity", severity_name(o.highest)},
                           {"gain_ns", o.gain_ns}});
    json missing = json::array();
    for (const auto& [k, a] : agg)
        missing.push_back({{"rule", k.first}, {"scope", k.second}, {"scopes", a.scopes}, {"metrics", a.metrics}});
    return json{{"rules_evaluated", d.eval.rules_evaluated},
                {"scopes", d.eval.scopes},
                {"errors", errors},
                {"missing_data", missing},
                {"rules_not_run", d.eval.not_run},
                {"findings_limit_per_rule", kMaxFindingsPerRule},
                {"omitted", omitted},
                {"ledger", ledger_to_json(d.ledger)}};
}

} // namespace sl
