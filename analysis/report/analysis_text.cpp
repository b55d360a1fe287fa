#include "analysis/report/analysis_text.h"
#include "analysis/io/input_bounds.h"
#include "analysis/roofline/gpu_specs.h"
#include "analysis/trace/errors.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <sstream>

namespace sl {

std::string format_ns(double ns)
{
    char buf[64];
    const double a = ns < 0 ? -ns : ns;
    if (a >= 1e9)
        std::snprintf(buf, sizeof buf, "%.3f s", ns / 1e9);
    else if (a >= 1e6)
        std::snprintf(buf, sizeof buf, "%.3f ms", ns / 1e6);
    else if (a >= 1e3)
        std::snprintf(buf, sizeof buf, "%.1f us", ns / 1e3);
    else
        std::snprintf(buf, sizeof buf, "%.0f ns", ns);
    return buf;
}

static std::string pct(double f)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f%%", f * 100.0);
    return buf;
}

static std::string pct_of(int64_t a, int64_t b) { return b > 0 ? pct(static_cast<double>(a) / static_cast<double>(b)) : "-"; }

// "1 launch call", "3 launch calls": a count with its noun in the right number.
static std::string count_of(int64_t n, std::string_view noun, std::string_view plural = {})
{
    std::string out = std::to_string(n) + " ";
    if (n == 1)
        out += noun;
    else if (!plural.empty())
        out += plural;
    else
        out += std::string(noun) + "s";
    return out;
}

// A per-step average for people: "92.9", "3" (no "92.9333").
static std::string per_step(double v)
{
    char buf[32];
    if (v == static_cast<double>(static_cast<int64_t>(v)))
        std::snprintf(buf, sizeof buf, "%.0f", v);
    else
        std::snprintf(buf, sizeof buf, "%.1f", v);
    return buf;
}

static std::string clip(std::string_view s, size_t n = 80)
{
    if (s.size() <= n)
        return std::string(s);
    return std::string(s.substr(0, n - 3)) + "...";
}

std::string analysis_to_text(const Trace& t, const AnalysisResult& r)
{
    std::ostringstream os;
    // The path as the user typed it, made safe for a terminal (a file name may hold a line feed); the names the
    // trace gives (kernels, GPUs, ...) were escaped when it was loaded (load.cpp escape_meta_names, the readers).
    os << "Sightline analysis: " << (t.meta.source_path.empty() ? "(trace)" : terminal_safe(t.meta.source_path)) << " ["
       << t.meta.format << "]\n";
    os << "  wall " << format_ns(static_cast<double>(r.wall_ns)) << ", " << count_of(int64_t(t.kernels.size()), "kernel")
       << " (" << format_ns(static_cast<double>(r.kernel_time_ns)) << "), " << t.memcpy.size() << " memcpy, "
       << t.memset.size() << " memset, " << count_of(int64_t(t.api.size()), "API call") << "\n";
    // What the trace is, and what to read first (issue 13).
    const WorkloadResult& W = r.workload;
    os << "  workload: " << workload_kind_name(W.kind) << ", " << execution_mode_name(W.execution)
       << (W.framework.empty() ? std::string() : ", " + W.framework)
       << (!W.moe.detected ? std::string()
                           : ", MoE" + (W.moe.experts > 0 ? " " + std::to_string(W.moe.experts) + " experts" : std::string()) +
                                 (W.moe.top_k > 0 ? " top-" + std::to_string(W.moe.top_k) : std::string()))
       << "; capture window "
       << format_ns(static_cast<double>(t.meta.capture_end - t.meta.capture_start)) << " ("
       << (t.meta.capture_source.empty() ? std::string("events") : t.meta.capture_source)
       << "), times from the capture start\n";
    if (!W.vendor.empty())
        os << "  vendor: " << W.vendor << " (" << W.vendor_evidence.front() << ")\n";
    for (const auto& d : t.meta.devices) {
        static const std::optional<GpuDatabase> db = []() -> std::optional<GpuDatabase> {
            try {
                return GpuDatabase::load_default();
            } catch (const Cancelled&) {
                throw;   // a Cancel raised inside is not this step's failure
            } catch (const std::exception&) {
                return std::nullopt;
            }
        }();
        if (!db)
            break;
        const GpuIdentification id = db->identify(d);
        os << "  GPU " << d.id << ": " << id.summary;
        if (id.how == "properties" && !id.evidence.empty()) {
            std::string ev;
            for (const auto& e : id.evidence)
                ev += (ev.empty() ? "" : "; ") + e;
            os << " [" << ev << "]";
        }
        if (!d.properties_from.empty())
            os << "; properties from " << d.properties_from;
        os << "\n";
    }
    for (const auto& w : W.warnings)
        os << "  warning [" << w.code << "]: " << w.message << "\n";
    os << "\n";

    os << "GPU idle attribution (gap < " << format_ns(static_cast<double>(r.options.idle.kernel_wait_threshold_ns))
       << " between back-to-back launches = kernel wait)\n";
    for (const auto& d : r.idle.devices) {
        const auto& b = d.breakdown;
        os << "  device " << d.device;
        if (d.device < t.meta.devices.size() && !t.meta.devices[d.device].name.empty())
            os << " (" << t.meta.devices[d.device].name << ")";
        os << ": window " << format_ns(static_cast<double>(d.window_ns)) << ", busy "
           << format_ns(static_cast<double>(d.busy_ns)) << ", idle " << format_ns(static_cast<double>(d.idle_ns))
           << " (eta_idle " << pct(d.idle_fraction) << ")\n";
        os << "    host wait " << format_ns(static_cast<double>(b.host_wait_ns())) << " (" << pct_of(b.host_wait_ns(), d.idle_ns)
           << "), kernel wait " << format_ns(static_cast<double>(b.kernel_wait_ns())) << " (" << pct_of(b.kernel_wait_ns(), d.idle_ns)
           << "), sync wait " << format_ns(static_cast<double>(b.sync_wait_ns())) << " (" << pct_of(b.sync_wait_ns(), d.idle_ns)
           << "), other " << format_ns(static_cast<double>(b.other_ns())) << " (" << pct_of(b.other_ns(), d.idle_ns) << ")";
        if (b.dependency_wait_ns() > 0)
            os << ", dependency wait " << format_ns(static_cast<double>(b.dependency_wait_ns())) << " ("
               << pct_of(b.dependency_wait_ns(), d.idle_ns) << ")";
        os << "\n";
    }
    // Queued work that waited on another stream's event: what it waited on, and what the host sat in meanwhile.
    {
        std::vector<const Gap*> dep;
        for (const Gap& g : r.idle.gaps)
            if (g.cause == GapCause::DependencyWait)
                dep.push_back(&g);
        std::sort(dep.begin(), dep.end(), [](const Gap* a, const Gap* b) { return a->duration() > b->duration(); });
        for (size_t i = 0; i < dep.size() && i < 3; ++i) {
            const Gap& g = *dep[i];
            const GapDependency d = dependency_of(t, g);
            os << "    dependency wait " << format_ns(static_cast<double>(g.duration())) << " at "
               << format_ns(static_cast<double>(g.start - t.meta.capture_start)) << ": the next op";
            if (d.launch_api >= 0)
                os << " (" << clip(t.str(t.api.name[static_cast<size_t>(d.launch_api)]), 30) << " "
                   << format_ns(static_cast<double>(t.api.start[static_cast<size_t>(d.launch_api)] - t.meta.capture_start))
                   << " into the capture)";
            os << " was queued behind " << (d.wait_api >= 0 ? clip(t.str(t.api.name[static_cast<size_t>(d.wait_api)]), 30)
                                                           : std::string("a stream wait"));
            if (d.blocking_api >= 0)
                os << " while the host blocked " << format_ns(static_cast<double>(d.blocking_overlap_ns)) << " in "
                   << clip(t.str(t.api.name[static_cast<size_t>(d.blocking_api)]), 30);
            os << "\n";
        }
    }
    os << "  gaps by size:";
    for (const auto& b : r.idle.histogram)
        os << " [" << format_ns(static_cast<double>(b.lo_ns)) << "+: " << b.count << "]";
    os << "\n\n";

    const auto& L = r.launch;
    os << "Launches: " << count_of(L.launch_calls, "launch call") << ", "
       << count_of(L.graph_launch_calls, "graph launch", "graph launches") << " ("
       << count_of(L.graph_kernels, "graph kernel") << "), rate " << static_cast<int64_t>(L.launch_rate_per_s) << "/s, eta_launch "
       << pct(L.eta_launch) << "\n";
    os << "  launch call median " << format_ns(L.api.median) << ", queue delay median " << format_ns(L.queue.median)
       << ", short kernels (shorter than their launch) " << L.short_kernels << " of " << L.linked << " linked\n\n";

    const auto& S = r.sync;
    os << "Synchronisation: " << count_of(S.calls, "blocking call") << ", " << format_ns(static_cast<double>(S.total_ns)) << " ("
       << pct(S.wall_share) << " of wall), host blocked " << format_ns(static_cast<double>(S.host_blocked_ns)) << "\n";
    for (const auto& p : S.per_api)
        os << "  " << clip(t.str(p.name), 40) << ": " << count_of(p.duration.count, "call") << ", "
           << format_ns(static_cast<double>(p.duration.total)) << " (" << pct(p.wall_share) << ")\n";
    for (size_t i = 0; i < S.stalls.size() && i < 3; ++i) {
        const auto& s = S.stalls[i];
        os << "  stall " << format_ns(static_cast<double>(s.end - s.start)) << " in "
           << clip(t.str(t.api.name[static_cast<size_t>(s.api)]), 30) << ": GPU busy "
           << pct_of(s.gpu_busy_ns, s.end - s.start);
        if (s.top_kernel)
            os << ", mostly " << clip(t.str(s.top_kernel), 50);
        // The GPU idle under the stall was queued work waiting on an event, not on this call.
        int64_t dep = 0;
        for (const Gap& g : r.idle.gaps)
            if (g.cause == GapCause::DependencyWait)
                dep += std::max<int64_t>(0, std::min(g.end, s.end) - std::max(g.start, s.start));
        if (dep > 0)
            os << "; the GPU meanwhile waited " << format_ns(static_cast<double>(dep))
               << " on another stream's event with its work already queued (dependency wait), not on this call";
        os << "\n";
    }
    os << "\n";

    os << "Overlap\n";
    for (const auto& d : r.overlap.devices) {
        if (d.all_copies.count == 0 && d.comm.count == 0)
            continue;
        auto f = [](double x) { return x < 0 ? std::string("-") : pct(x); };
        os << "  device " << d.device << ": H2D hidden " << f(d.h2d.hidden_fraction) << ", D2H hidden "
           << f(d.d2h.hidden_fraction) << ", comm under compute " << f(d.comm.hidden_fraction) << ", pageable copies "
           << d.pageable_count << "\n";
    }
    os << "\n";

    os << "Operator classes (share of kernel time)\n";
    std::vector<const OpClassTotals*> cls;
    for (const auto& c : r.classes.classes)
        if (c.count > 0)
            cls.push_back(&c);
    std::sort(cls.begin(), cls.end(), [](auto* a, auto* b) { return a->time_ns > b->time_ns; });
    for (const auto* c : cls)
        os << "  " << c->label << ": " << format_ns(static_cast<double>(c->time_ns)) << " ("
           << pct_of(c->time_ns, r.kernel_time_ns) << "), " << count_of(c->count, "op") << "\n";
    if (r.classes.unmatched_names_total > 0)
        os << "  " << r.classes.unmatched_names_total << " kernel names matched no class (see JSON op_classes.unmatched)\n";
    os << "\n";

    const auto& P = r.phases;
    os << "Phases: steps from " << step_source_name(P.source);
    if (!P.boundary.empty())
        os << " (" << clip(P.boundary, 60) << ")";
    os << "\n  prefill " << format_ns(static_cast<double>(P.prefill_ns)) << " in " << count_of(P.prefill_steps, "step") << "; "
       << count_of(P.decode_steps, "decode step") << ", " << P.warmup_excluded << " warm-up excluded";
    if (P.phase_source == "attention_shapes")
        os << " (prefill vs decode from the attention calls' query length)";
    os << "\n";
    if (P.steady_steps > 0)
        os << "  TPOT median " << format_ns(P.tpot_median_ns) << ", p90 " << format_ns(P.tpot_p90_ns)
           << ", GPU utilisation " << pct(P.steady_utilization) << ", " << per_step(P.steady_kernels_per_step)
           << " kernels and " << per_step(P.steady_sync_calls_per_step) << " sync calls per step\n";
    if (!P.note.empty())
        os << "  note: " << P.note << "\n";
    // Serving steps named by their framework: kind and batch composition of the first few.
    if (P.annotated_steps > 0) {
        os << "  " << count_of(P.annotated_steps, "annotated step") << " (" << P.batch_source << ")\n";
        for (size_t i = 0; i < P.steps.size() && i < 5; ++i) {
            const StepInfo& s = P.steps[i];
            const std::string comp = s.batch.composition();
            os << "    step " << i + 1 << ": " << step_kind_name(s.kind) << (comp.empty() ? "" : ", " + comp)
               << "; wall " << format_ns(static_cast<double>(s.end - s.start)) << " (" << count_of(s.kernels, "GPU op")
               << ", busy " << pct(s.utilization) << ")\n";
        }
        if (P.steps.size() > 5)
            os << "    ... " << P.steps.size() - 5 << " more (JSON phases.steps)\n";
    }
    os << "\n";

    if (!r.nvtx.per_name.empty()) {
        os << "NVTX ranges by GPU time (projected)\n";
        for (size_t i = 0; i < r.nvtx.per_name.size() && i < 10; ++i) {
            const auto& p = r.nvtx.per_name[i];
            os << "  " << clip(t.str(p.name), 40) << ": " << p.instances << "x, GPU "
               << format_ns(static_cast<double>(p.gpu_ns)) << " (exclusive " << format_ns(static_cast<double>(p.exclusive_gpu_ns))
               << ")\n";
        }
        os << "\n";
    }
    if (r.weights.detected) {
        const auto& W = r.weights;
        os << "Weight streaming: " << W.layers.size() << " layers, hits " << W.hits << ", misses " << W.misses
           << (W.explicit_hits ? "" : " (inferred)") << ", evictions " << W.evictions << ", H2D "
           << format_ns(static_cast<double>(W.h2d_ns)) << " ("
           << (W.h2d_hidden_fraction < 0 ? std::string("-") : pct(W.h2d_hidden_fraction)) << " under compute)\n\n";
    }

    os << "Focus: top " << r.focus.options.top_k << " kernels (" << pct(r.focus.covered_share) << " of kernel time)\n";
    for (const auto& f : r.focus.entries)
        os << "  " << pct(f.share) << "  " << format_ns(static_cast<double>(f.time_ns)) << "  x" << f.count << "  ["
           << (f.cls < static_cast<int>(r.classes.classes.size()) ? r.classes.classes[static_cast<size_t>(f.cls)].id : "")
           << "]  " << clip(t.str(f.name)) << "\n";
    return os.str();
}

} // namespace sl
