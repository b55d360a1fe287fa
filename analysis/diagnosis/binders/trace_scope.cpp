// The whole trace's scope: busy and idle by cause, the capture's edges and the steady state, launches, syncs,
// copies, the KV cache's expansion, ranks and the straggler, MoE and torch.compile — as the analyses found them.
#include "analysis/diagnosis/binders/binders.h"

#include <algorithm>
#include <array>
#include <set>

#include "analysis/diagnosis/cross_rank_metrics.h"
#include "analysis/diagnosis/headline.h"
#include "analysis/roofline/kv_expand.h"
#include "analysis/diagnosis/scope_text.h"
#include "analysis/timeline/analysis.h"
#include "analysis/trace/trace.h"

namespace sl::bind {

namespace {

// A compute-bound prefill: the steps are prefill-dominated (prefill-only / prefill-heavy steps hold at least half
// of the step time), the GPU is busy >= 90 % of their windows, and GEMM and attention kernels hold at least half of
// the kernel time. Launch-side remedies (CUDA graphs) cannot shorten such work.
bool prefill_compute_bound(const AnalysisResult& an)
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
    return total > 0 && compute >= 0.5 * total;
}

} // namespace

MetricScope trace_scope(const Context& c)
{
    [[maybe_unused]] const auto& [trace, an, roof, ncu, opt, trace_wall] = c;
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
        double top = 0;
        for (const Gap& g : an.idle.gaps)
            top = std::max(top, double(g.duration()));
        m["max_gap_fraction"] = safe_div(top, window);
        // Dependency wait while the launching thread sat in a host-blocking call (a synchronous copy): the host
        // waited behind the GPU's dependency, not the GPU behind the host (timeline/idle.h).
        m["sync_dependency_overlap_ns"] = double(an.idle.dependency_under_blocking_ns);
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
        const CaptureEdgeIdle& edge = an.capture_edge;
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
    m["prefill_compute_bound"] = prefill_compute_bound(an) ? 1.0 : 0.0;
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

    // Ranks and the straggler (timeline/collectives.h): only a merged multi-rank trace can show one rank making
    // the others wait, so the cross-rank matching runs only there; a single rank binds zeros.
    {
        std::set<int32_t> device_ranks;
        for (const auto& d : trace.meta.devices)
            device_ranks.insert(d.rank);
        // The statistics and the cross-rank comparisons of analyze()'s one matching (cross_rank_metrics.h, the
        // binder merge of partials uses too).
        static const CollectiveStats kOneRank;
        static const CrossRankComm kNoCrossRank;
        const bool ranks = device_ranks.size() > 1;
        bind_cross_rank_metrics(s, ranks ? an.collectives : kOneRank, ranks ? an.cross_rank : kNoCrossRank,
                                busy + idle);
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
    return s;
}

} // namespace sl::bind
