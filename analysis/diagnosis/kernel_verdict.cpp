#include "analysis/diagnosis/kernel_verdict.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <map>

#include "analysis/io/ncu_metrics.h"
#include "analysis/io/ncu_reader.h"
#include "analysis/roofline/roofline.h"
#include "analysis/roofline/shape_throughput.h"
#include "analysis/timeline/analysis.h"
#include "analysis/trace/trace.h"

namespace sl {

namespace {

constexpr double kSolBoundPct = 60.0;   // ncu's Speed-of-Light threshold: below it on both, latency issues

// The class id and phase ("prefill" | "decode" | "") of kernel k.
void class_and_phase(const AnalysisResult& a, const Trace& t, size_t k, std::string& cls, std::string& phase)
{
    if (k < a.classes.kernel_class.size()) {
        const int c = a.classes.kernel_class[k];
        if (c >= 0 && size_t(c) < a.classes.classes.size())
            cls = a.classes.classes[size_t(c)].id;
    }
    const int64_t start = t.kernels.start[k];
    for (const StepInfo& s : a.phases.steps)
        if (start >= s.start && start < s.end) {
            phase = s.prefill ? "prefill" : "decode";
            break;
        }
}

bool from_ncu(const KernelVerdictInputs& in, KernelVerdict& v)
{
    if (!in.ncu || !in.ncu_join)
        return false;
    const Trace& t = *in.trace;
    const auto& join = *in.ncu_join;
    int64_t launch = -1;
    bool same_name = false;
    for (size_t l = 0; l < join.size() && l < in.ncu->launches.size(); ++l)
        if (join[l] == in.kernel) {
            launch = int64_t(l);
            break;
        }
    if (launch < 0) {
        const StrId name = t.kernels.name[size_t(in.kernel)];
        for (size_t l = 0; l < join.size() && l < in.ncu->launches.size(); ++l)
            if (join[l] >= 0 && size_t(join[l]) < t.kernels.size() && t.kernels.name[size_t(join[l])] == name) {
                launch = int64_t(l);
                same_name = true;
                break;
            }
    }
    if (launch < 0)
        return false;
    const NcuLaunchMetrics m = compute_ncu_metrics(in.ncu->launches[size_t(launch)]);
    const std::optional<double> mem = m.memory_throughput_pct ? m.memory_throughput_pct : m.dram_throughput_pct;
    if (!m.sm_throughput_pct && !mem)
        return false;
    v.source = VerdictSource::Ncu;
    v.ncu_launch = in.ncu->launches[size_t(launch)].id;
    v.ncu_same_name_only = same_name;
    v.sm_pct = m.sm_throughput_pct;
    v.memory_pct = mem;
    const double sm = m.sm_throughput_pct.value_or(0), me = mem.value_or(0);
    const double top = std::max(sm, me);
    v.fraction = top / 100.0;
    v.kind = top < kSolBoundPct ? VerdictKind::LatencyBound
             : sm >= me         ? VerdictKind::ComputeBound
                                : VerdictKind::MemoryBound;
    return true;
}

bool from_shapes(const KernelVerdictInputs& in, KernelVerdict& v)
{
    if (!in.shapes)
        return false;
    for (const ShapePoint& p : in.shapes->points) {
        if (std::find(p.kernel_rows.begin(), p.kernel_rows.end(), uint32_t(in.kernel)) == p.kernel_rows.end())
            continue;
        v.op = p.op;
        v.shape = p.shape;
        v.dtype = p.dtype;
        if (p.roof_inconsistent) {
            v.source = VerdictSource::Shapes;
            v.kind = VerdictKind::Inconsistent;
            return true;
        }
        if (!p.pct_of_roof || p.bound.empty())
            return false;   // no peak for this GPU or dtype: the shape says nothing about the bound
        v.source = VerdictSource::Shapes;
        v.kind = p.bound == "compute" ? VerdictKind::ComputeBound : VerdictKind::MemoryBound;
        v.fraction = *p.pct_of_roof / 100.0;
        return true;
    }
    return false;
}

bool from_model(const KernelVerdictInputs& in, KernelVerdict& v)
{
    if (!in.roofline || !in.analysis)
        return false;
    std::string cls, phase;
    class_and_phase(*in.analysis, *in.trace, size_t(in.kernel), cls, phase);
    if (cls.empty() || phase.empty())
        return false;
    const ClassEfficiency* ce = nullptr;
    for (const ClassEfficiency& c : in.roofline->classes)
        if (c.op_class == cls && c.phase == phase)
            ce = &c;
    if (!ce)
        return false;
    v.op_class = cls;
    v.phase = phase;
    if (ce->e_roof_inconsistent) {
        v.source = VerdictSource::ModelConfig;
        v.kind = VerdictKind::Inconsistent;
        v.e_roof_inconsistent = ce->e_roof_inconsistent;
        return true;
    }
    if (!ce->e_roof)
        return false;
    // The bound of the class: the cost model's operator of that class with the most theoretical time decides.
    std::string bound;
    double most = -1;
    for (const PhaseCost& ph : in.roofline->cost.phases) {
        if (phase_name(ph.phase) != phase)
            continue;
        for (const OpCost& o : ph.ops)
            if (o.op_class == cls && o.t_theory_ns && *o.t_theory_ns > most) {
                most = *o.t_theory_ns;
                bound = o.bound();
            }
    }
    if (bound != "compute" && bound != "memory")
        return false;
    v.source = VerdictSource::ModelConfig;
    v.kind = bound == "compute" ? VerdictKind::ComputeBound : VerdictKind::MemoryBound;
    v.fraction = *ce->e_roof;
    return true;
}

// The cause from the trace alone, first that applies.
void cause_from_trace(const KernelVerdictInputs& in, KernelVerdict& v)
{
    const Trace& t = *in.trace;
    const auto& k = t.kernels;
    const size_t i = size_t(in.kernel);
    v.duration_ns = k.end[i] - k.start[i];
    const int32_t api = k.launch_api[i];
    if (api >= 0 && size_t(api) < t.api.size()) {
        const int64_t call = t.api.end[size_t(api)] - t.api.start[size_t(api)];
        if (call > v.duration_ns) {
            v.cause = VerdictKind::LaunchBound;
            v.launch_call_ns = call;
            return;
        }
    }
    const LaunchShape& sh = k.launch_shape(i);
    const int64_t blocks = int64_t(sh.grid_x) * std::max<int64_t>(1, sh.grid_y) * std::max<int64_t>(1, sh.grid_z);
    if (in.sm_count > 0 && sh.grid_x > 0 && blocks < in.sm_count) {
        v.cause = VerdictKind::SmallGrid;
        v.blocks = blocks;
        v.sm_count = in.sm_count;
        return;
    }
    if (in.analysis) {
        const auto& gaps = in.analysis->idle.gaps;
        const auto it = std::lower_bound(gaps.begin(), gaps.end(), std::make_pair(k.device[i], k.start[i]),
                                         [](const Gap& g, const std::pair<uint16_t, int64_t>& key) {
                                             return g.device != key.first ? g.device < key.first : g.end < key.second;
                                         });
        for (auto g = it; g != gaps.end() && g->device == k.device[i] && g->end == k.start[i]; ++g)
            if (g->next_kind == OpKind::Kernel && g->next_row == int32_t(i) && g->duration() >= v.duration_ns &&
                g->duration() > 0) {
                v.cause = VerdictKind::IdleBefore;
                v.idle_ns = g->duration();
                v.idle_cause = g->cause;
                return;
            }
    }
}

std::string dur(int64_t ns)
{
    char b[32];
    const double a = double(std::llabs(ns));
    if (a < 1e3)
        std::snprintf(b, sizeof b, "%lld ns", static_cast<long long>(ns));
    else if (a < 1e6)
        std::snprintf(b, sizeof b, "%.3g µs", double(ns) / 1e3);
    else if (a < 1e9)
        std::snprintf(b, sizeof b, "%.3g ms", double(ns) / 1e6);
    else
        std::snprintf(b, sizeof b, "%.3g s", double(ns) / 1e9);
    return b;
}

std::string pct(double fraction)
{
    char b[32];
    std::snprintf(b, sizeof b, "%.0f %%", fraction * 100);
    return b;
}

std::string upper(std::string s)
{
    for (char& c : s)
        c = char(std::toupper(static_cast<unsigned char>(c)));
    return s;
}

} // namespace

const char* verdict_kind_name(VerdictKind k)
{
    switch (k) {
    case VerdictKind::ComputeBound: return "compute_bound";
    case VerdictKind::MemoryBound: return "memory_bound";
    case VerdictKind::LatencyBound: return "latency_bound";
    case VerdictKind::Inconsistent: return "inconsistent";
    case VerdictKind::LaunchBound: return "launch_bound";
    case VerdictKind::SmallGrid: return "small_grid";
    case VerdictKind::IdleBefore: return "idle_before";
    case VerdictKind::Unknown: return "unknown";
    }
    return "unknown";
}

const char* verdict_source_name(VerdictSource s)
{
    switch (s) {
    case VerdictSource::Ncu: return "ncu";
    case VerdictSource::Shapes: return "shapes";
    case VerdictSource::ModelConfig: return "model_config";
    case VerdictSource::Trace: return "trace";
    case VerdictSource::None: return "none";
    }
    return "none";
}

KernelVerdict kernel_verdict(const KernelVerdictInputs& in)
{
    KernelVerdict v;
    if (!in.trace || in.kernel < 0 || size_t(in.kernel) >= in.trace->kernels.size())
        return v;
    const bool bound = from_ncu(in, v) || from_shapes(in, v) || from_model(in, v);
    cause_from_trace(in, v);
    if (!bound && v.cause) {
        v.kind = *v.cause;
        v.source = VerdictSource::Trace;
    }
    if (v.kind == VerdictKind::Unknown) {
        if (!in.ncu)
            v.would_tell.push_back("ncu");
        const Trace& t = *in.trace;
        bool shapes = false;
        for (size_t i = 0; i < t.op_args.size() && !shapes; ++i)
            shapes = !t.op_args.input_dims[i].empty();
        if (!shapes)
            v.would_tell.push_back("shapes");
        if (!in.roofline)
            v.would_tell.push_back("model_config");
        if (in.ncu && std::find(v.would_tell.begin(), v.would_tell.end(), "ncu") == v.would_tell.end())
            v.would_tell.insert(v.would_tell.begin(), "ncu");   // an ncu file without this kernel: profile it
    }
    return v;
}

std::string kernel_verdict_text(const KernelVerdict& v)
{
    std::string s;
    const std::string how = v.fraction ? pct(*v.fraction) : std::string("?");
    switch (v.kind) {
    case VerdictKind::ComputeBound:
    case VerdictKind::MemoryBound: {
        const bool compute = v.kind == VerdictKind::ComputeBound;
        s = compute ? "compute-bound" : "memory-bound";
        if (v.source == VerdictSource::Ncu)
            s += ", " + std::string(compute ? "SM" : "memory") + " throughput at " + how + " of peak (ncu launch " +
                 std::to_string(v.ncu_launch) + (v.ncu_same_name_only ? ", another launch of this kernel" : "") + ")";
        else if (v.source == VerdictSource::Shapes)
            s += " at " + how + " of the " + upper(v.dtype) + " roof (shapes: " + v.op + " " + v.shape + ")";
        else
            s += " at E_roof " + how + " (model config: " + v.op_class + ", " + v.phase + ")";
        break;
    }
    case VerdictKind::LatencyBound:
        s = "latency-bound: SM " + pct(v.sm_pct.value_or(0) / 100) + " and memory " +
            pct(v.memory_pct.value_or(0) / 100) + " of peak, both under 60 % (ncu launch " + std::to_string(v.ncu_launch) +
            ")";
        break;
    case VerdictKind::Inconsistent:
        s = v.source == VerdictSource::Shapes ? "measured above the roof (shapes: " + v.op + " " + v.shape +
                                                    "): wrong GPU row or dtype"
                                              : "measured above the roof (model config: " + v.op_class + ", " + v.phase +
                                                    "): wrong dtype, parallelism, shape or GPU";
        break;
    case VerdictKind::LaunchBound:
    case VerdictKind::SmallGrid:
    case VerdictKind::IdleBefore:
        break;
    case VerdictKind::Unknown: {
        s = "unknown — what would tell:";
        for (size_t i = 0; i < v.would_tell.size(); ++i)
            s += std::string(i ? "," : "") + " " +
                 (v.would_tell[i] == "ncu"      ? "an ncu profile of this kernel"
                  : v.would_tell[i] == "shapes" ? "shapes in the trace (record_shapes=True)"
                                                : "the model's config.json");
        return s;
    }
    }
    if (v.cause) {
        std::string c;
        switch (*v.cause) {
        case VerdictKind::LaunchBound:
            c = "shorter than its launch (" + dur(v.duration_ns) + " vs a " + dur(v.launch_call_ns) + " call)";
            break;
        case VerdictKind::SmallGrid:
            c = "grid smaller than a wave (" + std::to_string(v.blocks) + " blocks on " + std::to_string(v.sm_count) +
                " SMs)";
            break;
        case VerdictKind::IdleBefore:
            c = "idle " + dur(v.idle_ns) + " before it (" + gap_cause_name(v.idle_cause) + ")";
            break;
        default: break;
        }
        s += (s.empty() ? "" : " · ") + c;
    }
    return s;
}

} // namespace sl
