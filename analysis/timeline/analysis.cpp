#include "analysis/timeline/analysis.h"

#include <set>

#include "analysis/trace/release_memory.h"
#include "analysis/trace/cancel_point.h"

namespace sl {

AnalysisResult analyze(const Trace& t, const AnalysisOptions& o, const LoadControl& control)
{
    const OpClassifier c = OpClassifier::load(o.classes_file);
    return analyze(t, c, o, control);
}

AnalysisResult analyze(const Trace& t, const OpClassifier& c, const AnalysisOptions& o, const LoadControl& control)
{
    const CancelScope scope(control.cancel);
    AnalysisResult r;
    r.options = o;
    r.wall_ns = t.meta.capture_end - t.meta.capture_start;
    auto stage = [&](double f, std::string_view name) {
        control.check();
        control.report(f, name);
    };
    stage(0.0, "operator classes");
    r.classes = classify_ops(t, c, o.classes);
    r.kernel_time_ns = r.classes.kernel_time_ns;
    stage(0.15, "launch");
    r.launch = analyze_launches(t, o.launch);
    stage(0.5, "sync");
    r.sync = analyze_sync(t, o.sync);
    stage(0.6, "overlap");
    OverlapOptions ov;
    ov.comm_class = c.communication_index();
    r.overlap = analyze_overlap(t, r.classes.kernel_class, ov);
    stage(0.7, "nvtx");
    r.nvtx = project_nvtx(t, o.nvtx, control);
    stage(0.8, "phases");
    r.workload = analyze_workload(t, o.workload);
    add_moe_workload(r.workload, t, r.classes, c);
    PhaseClasses pc;
    pc.attention = c.class_index("attention");
    pc.gemm = c.class_index("gemm");
    r.phases = analyze_phases(t, r.classes.kernel_class, c.class_index("sampling"), &r.nvtx, o.phases, pc);
    if (r.workload.kind == WorkloadKind::Training)
        clear_for_training(r.phases, r.workload.evidence.empty() ? std::string("training run")
                                                                 : r.workload.evidence.front());
    add_phase_warnings(r.workload, r.phases, t.meta.capture_start);
    // Idle attribution last but one: its gap list (32 B a gap, up to one per op) is the largest thing the analyses
    // keep, so the others' temporary lists (phases, launch, NVTX) are gone before it exists, and their pages are
    // given back before it is mapped (issue 18: analyze's peak memory at 10^7 kernels).
    release_free_memory();
    stage(0.85, "idle");
    r.idle = analyze_idle(t, o.idle);
    r.host_causes = find_host_causes(t, r.idle, HostCausePatterns::load(o.host_causes.patterns_file), o.host_causes);
    r.capture_edge = capture_edge_idle(t, r.idle, r.phases, &r.host_causes);
    stage(0.88, "collectives");
    {
        // One matching for the per-group statistics and the cross-rank comparisons (the binding and the pipeline read
        // both from here).
        const std::vector<CollectiveRecord> records = collective_records(t);
        std::vector<MatchedCollective> matched;
        r.collectives = collective_stats_from_records(records, {}, &matched);
        std::set<int32_t> ranks;
        for (const auto& d : t.meta.devices)
            ranks.insert(d.rank);
        if (ranks.size() > 1)
            r.cross_rank = cross_rank_comm(records, matched, r.collectives);
    }
    stage(0.9, "weights");
    r.weights = analyze_weight_streaming(t, o.weights);
    r.focus = focus_top_k(r.classes, o.focus);
    stage(1.0, "done");
    return r;
}

} // namespace sl
