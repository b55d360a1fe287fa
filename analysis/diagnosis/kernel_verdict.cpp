#include "analysis/diagnosis/kernel_verdict.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>
#include <mutex>
#include <string_view>
#include <unordered_map>

#include "analysis/io/ncu_metrics.h"
#include "analysis/io/ncu_reader.h"
#include "analysis/roofline/gpu_specs.h"
#include "analysis/roofline/roofline.h"
#include "analysis/roofline/shape_throughput.h"
#include "analysis/timeline/analysis.h"
#include "analysis/trace/trace.h"
#include "analysis/trace/errors.h"

namespace sl {

namespace {

// Threads an SM keeps resident (Volta to Hopper: 2048; 1536 on consumer Ampere/Ada, where this overstates the wave
// by a third) and blocks it keeps at most (32 from Ampere on). Registers and shared memory can only lower it.
constexpr int64_t kThreadsPerSm = 2048;
constexpr int64_t kBlocksPerSm = 32;

// The class id and phase ("prefill" | "decode" | "mixed" | "") of kernel k.
void class_and_phase(const AnalysisResult& a, const Trace& t, size_t k, std::string& cls, std::string& phase)
{
    if (k < a.classes.kernel_class.size()) {
        const int c = a.classes.kernel_class[k];
        if (c >= 0 && size_t(c) < a.classes.classes.size())
            cls = a.classes.classes[size_t(c)].id;
    }
    const int64_t start = t.kernels.start[k];
    const auto& steps = a.phases.steps;
    // Steps are in time order: the last one starting at or before the kernel.
    auto it = std::upper_bound(steps.begin(), steps.end(), start,
                               [](int64_t s, const StepInfo& st) { return s < st.start; });
    for (int back = 0; back < 4 && it != steps.begin(); ++back) {
        --it;
        if (start >= it->start && start < it->end) {
            phase = it->mixed ? "mixed" : it->prefill ? "prefill" : "decode";
            return;
        }
    }
}

// The ncu launch for kernel k: joined to it, else the first joined launch of its name; -1 none.
int64_t ncu_launch_of(const KernelVerdictInputs& in, bool& same_name)
{
    same_name = false;
    const size_t k = size_t(in.kernel);
    if (in.index && k < in.index->ncu_launch.size()) {
        const int32_t l = in.index->ncu_launch[k];
        if (l <= -2) {
            same_name = true;
            return -2 - int64_t(l);
        }
        return l;
    }
    const Trace& t = *in.trace;
    const auto& join = *in.ncu_join;
    for (size_t l = 0; l < join.size() && l < in.ncu->launches.size(); ++l)
        if (join[l] == in.kernel)
            return int64_t(l);
    const StrId name = t.kernels.name[k];
    for (size_t l = 0; l < join.size() && l < in.ncu->launches.size(); ++l)
        if (join[l] >= 0 && size_t(join[l]) < t.kernels.size() && t.kernels.name[size_t(join[l])] == name) {
            same_name = true;
            return int64_t(l);
        }
    return -1;
}

bool from_ncu(const KernelVerdictInputs& in, KernelVerdict& v)
{
    if (!in.ncu || !in.ncu_join)
        return false;
    bool same_name = false;
    const int64_t launch = ncu_launch_of(in, same_name);
    if (launch < 0 || size_t(launch) >= in.ncu->launches.size())
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
    v.kind = top < kSolBoundFraction * 100 ? VerdictKind::LatencyBound
             : sm >= me                    ? VerdictKind::ComputeBound
                                           : VerdictKind::MemoryBound;
    return true;
}

// PyTorch's generic elementwise loop (TensorIterator's non-contiguous path): "at::native::elementwise_kernel<...>"
// ("at::elementwise_kernel<" as ncu writes it) — not vectorized_elementwise_kernel, unrolled_elementwise_kernel or
// index_elementwise_kernel, whose names do not hold either spelling.
bool strided_elementwise_name(std::string_view name)
{
    return name.find("at::native::elementwise_kernel<") != std::string_view::npos ||
           name.find("at::elementwise_kernel<") != std::string_view::npos;
}

// 3. From the launch alone: short kernel, small grid, strided elementwise over a full wave.
bool from_launch(const KernelVerdictInputs& in, KernelVerdict& v)
{
    if (v.duration_ns < kLatencyFloorNs) {
        v.kind = VerdictKind::LatencyBound;
        v.reason = VerdictReason::ShortKernel;
        return true;
    }
    if (v.shape_recorded && v.sm_count > 0 && v.blocks < (int64_t(v.sm_count) + 1) / 2) {
        v.kind = VerdictKind::LatencyBound;
        v.reason = VerdictReason::SmallGrid;
        return true;
    }
    if (v.waves && *v.waves >= 1.0 &&
        strided_elementwise_name(in.trace->strings.view(in.trace->kernels.name[size_t(in.kernel)]))) {
        v.kind = VerdictKind::ComputeBound;
        v.reason = VerdictReason::StridedElementwise;
        return true;
    }
    return false;
}

// Above the ridge, a kernel with the GPU's worth of work (at least kComputeBusyNs long, a full wave where the grid
// is known) that does not reach 60 % of the datasheet's tensor peak is still compute-bound: its SM pipes are the
// limit, at a lower rate than the boost-clock peak (clocks, tile shapes). ncu's SOL compares with the peak at the
// clock it ran and counts pipe utilisation, not FLOPs against the datasheet: a prefill GEMM at 35-75 % of the
// datasheet's bf16 peak is compute-bound there, not latency-bound.
constexpr int64_t kComputeBusyNs = 4 * kLatencyFloorNs;
bool busy_above_the_ridge(const KernelVerdict& v)
{
    return v.side == "compute" && v.duration_ns >= kComputeBusyNs && (!v.waves || *v.waves >= 1.0);
}

// 2. The measured shape point holding the kernel.
bool from_shapes(const KernelVerdictInputs& in, KernelVerdict& v)
{
    if (!in.shapes)
        return false;
    const ShapePoint* point = nullptr;
    if (in.index && size_t(in.kernel) < in.index->shape_point.size()) {
        const int32_t p = in.index->shape_point[size_t(in.kernel)];
        if (p >= 0 && size_t(p) < in.shapes->points.size())
            point = &in.shapes->points[size_t(p)];
    } else {
        for (const ShapePoint& p : in.shapes->points)
            if (std::find(p.kernel_rows.begin(), p.kernel_rows.end(), uint32_t(in.kernel)) != p.kernel_rows.end()) {
                point = &p;
                break;
            }
    }
    if (!point)
        return false;
    const ShapePoint& p = *point;
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
    v.side = p.bound;
    v.fraction = *p.pct_of_roof / 100.0;
    if (*v.fraction >= kSolBoundFraction || busy_above_the_ridge(v)) {
        v.kind = p.bound == "compute" ? VerdictKind::ComputeBound : VerdictKind::MemoryBound;
        return true;
    }
    // Under 60 % of its roof: latency issues, unless the launch itself says more (a strided elementwise loop over
    // full waves is issue-bound, which the byte count cannot see).
    KernelVerdict launch = v;
    if (from_launch(in, launch) && launch.reason == VerdictReason::StridedElementwise) {
        v.kind = VerdictKind::ComputeBound;
        v.reason = VerdictReason::StridedElementwise;
        return true;
    }
    v.kind = VerdictKind::LatencyBound;
    v.reason = VerdictReason::BelowSixty;
    return true;
}

// 4. The model config's Roofline: the class in its phase.
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
    if (ce->e_roof_inconsistent) {
        v.op_class = cls;
        v.phase = phase;
        v.source = VerdictSource::ModelConfig;
        v.kind = VerdictKind::Inconsistent;
        v.e_roof_inconsistent = ce->e_roof_inconsistent;
        return true;
    }
    if (!ce->e_roof || !ce->t_theory_ns || *ce->t_theory_ns <= 0)
        return false;   // no theory for the class: no efficiency
    // The side of the class: the cost model's operator of that class with the most theoretical time decides.
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
    if (bound != "compute" && bound != "memory" && bound != "latency")
        return false;
    v.op_class = cls;
    v.phase = phase;
    v.source = VerdictSource::ModelConfig;
    v.fraction = *ce->e_roof;
    if (bound == "latency") {   // the GPU's minimum kernel duration bounds the class, not a roof
        v.kind = VerdictKind::LatencyBound;
        v.reason = VerdictReason::KernelFloor;
        return true;
    }
    v.side = bound;
    if (*v.fraction >= kSolBoundFraction || busy_above_the_ridge(v)) {
        v.kind = bound == "compute" ? VerdictKind::ComputeBound : VerdictKind::MemoryBound;
    } else {
        v.kind = VerdictKind::LatencyBound;
        v.reason = VerdictReason::BelowSixty;
    }
    return true;
}

// The launch as recorded: duration, grid, waves.
void launch_facts(const KernelVerdictInputs& in, KernelVerdict& v)
{
    const Trace& t = *in.trace;
    const auto& k = t.kernels;
    const size_t i = size_t(in.kernel);
    v.duration_ns = k.end[i] - k.start[i];
    v.sm_count = in.sm_count;
    if (v.sm_count <= 0 && in.index && k.device[i] < in.index->sm_count.size())
        v.sm_count = in.index->sm_count[k.device[i]];
    else if (v.sm_count <= 0)
        v.sm_count = device_sm_count(t, k.device[i]);   // the same figure the index holds
    const LaunchShape& sh = k.launch_shape(i);
    v.shape_recorded = sh.grid_x > 0 && sh.block_x > 0;
    if (!v.shape_recorded)
        return;
    // Saturating: a hostile trace's 2^32 x 2^16 x 2^16 grid must not overflow.
    int64_t blocks = 0;
    if (__builtin_mul_overflow(int64_t(sh.grid_x), std::max<int64_t>(1, sh.grid_y), &blocks) ||
        __builtin_mul_overflow(blocks, std::max<int64_t>(1, sh.grid_z), &blocks))
        blocks = INT64_MAX;
    v.blocks = blocks;
    v.threads_per_block = int64_t(sh.block_x) * std::max<int64_t>(1, sh.block_y) * std::max<int64_t>(1, sh.block_z);
    if (v.sm_count > 0 && v.threads_per_block > 0) {
        const int64_t resident = std::clamp<int64_t>(kThreadsPerSm / v.threads_per_block, 1, kBlocksPerSm);
        v.waves = double(v.blocks) / double(int64_t(v.sm_count) * resident);
    }
}

// The graph replay kernel k belongs to: its place among the kernels of the same graph launch call, in start order.
void graph_place(const KernelVerdictInputs& in, KernelVerdict& v)
{
    const Trace& t = *in.trace;
    const size_t i = size_t(in.kernel);
    if (in.index && i < in.index->graph_node.size()) {
        v.graph_node = in.index->graph_node[i];
        v.graph_nodes = in.index->graph_nodes[i];
        return;
    }
    const int32_t api = t.kernels.launch_api[i];
    if (api < 0 || size_t(api) >= t.api.size() || !(t.api.flags[size_t(api)] & kApiGraphLaunch))
        return;
    int32_t before = 0, n = 0;
    for (size_t j = 0; j < t.kernels.size(); ++j)
        if (t.kernels.launch_api[j] == api) {
            ++n;
            if (t.kernels.start[j] < t.kernels.start[i] || (t.kernels.start[j] == t.kernels.start[i] && j < i))
                ++before;
        }
    v.graph_node = before;
    v.graph_nodes = n;
}

// Around the kernel: its launch, the idle gap before it, its graph replay.
void host_side(const KernelVerdictInputs& in, KernelVerdict& v)
{
    const Trace& t = *in.trace;
    const auto& k = t.kernels;
    const size_t i = size_t(in.kernel);
    graph_place(in, v);
    const Gap* gap = nullptr;
    if (in.analysis) {
        const auto& gaps = in.analysis->idle.gaps;
        const auto it = std::lower_bound(gaps.begin(), gaps.end(), std::make_pair(k.device[i], k.start[i]),
                                         [](const Gap& g, const std::pair<uint16_t, int64_t>& key) {
                                             return g.device != key.first ? g.device < key.first : g.end < key.second;
                                         });
        for (auto g = it; g != gaps.end() && g->device == k.device[i] && g->end == k.start[i]; ++g)
            if (g->next_kind == OpKind::Kernel && g->next_row == int32_t(i) && g->duration() > 0)
                gap = &*g;
    }
    const int32_t api = k.launch_api[i];
    const bool graph = v.graph_node >= 0;
    if (gap && gap->cause == GapCause::HostWait && (!graph || v.graph_node == 0)) {
        // The GPU went idle before this launch's call came: it waited for the launch (for a graph, for the graph
        // launch, said at the replay's first node only).
        v.idle_ns = gap->duration();
        v.idle_cause = gap->cause;
        if (api >= 0 && size_t(api) < t.api.size())
            v.launch_call_ns = t.api.end[size_t(api)] - t.api.start[size_t(api)];
        v.host = !graph && v.launch_call_ns > v.duration_ns ? HostClause::LaunchBound : HostClause::WaitedForLaunch;
        return;
    }
    if (graph) {
        v.host = HostClause::GraphReplay;
        if (gap && gap->duration() >= v.duration_ns) {   // the few hundred ns between graph nodes are not news
            v.idle_ns = gap->duration();
            v.idle_cause = gap->cause;
        }
        return;
    }
    if (gap && gap->duration() >= v.duration_ns) {
        v.host = HostClause::IdleBefore;
        v.idle_ns = gap->duration();
        v.idle_cause = gap->cause;
    }
}

// A gap's cause in words, as the workbench says it.
const char* cause_words(GapCause c)
{
    switch (c) {
    case GapCause::HostWait: return "host wait";
    case GapCause::KernelWait: return "kernel wait";
    case GapCause::SyncWait: return "sync wait";
    case GapCause::DependencyWait: return "dependency wait";
    case GapCause::Other: break;
    }
    return "other";
}

std::string upper(std::string s)
{
    for (char& c : s)
        c = char(std::toupper(static_cast<unsigned char>(c)));
    return s;
}

std::string fixed(double x, int decimals)
{
    char b[48];
    std::snprintf(b, sizeof b, "%.*f", decimals, x);
    return b;
}

std::string three_sig(double x)
{
    const double a = std::fabs(x);
    return fixed(x, a >= 100 ? 0 : a >= 10 ? 1 : 2);
}

} // namespace

std::string verdict_duration(int64_t ns)
{
    const double a = std::fabs(double(ns));
    if (a < 1e3)
        return std::to_string(ns) + " ns";
    if (a < 1e6)
        return three_sig(double(ns) / 1e3) + " µs";
    if (a < 1e9)
        return three_sig(double(ns) / 1e6) + " ms";
    return three_sig(double(ns) / 1e9) + " s";
}

std::string verdict_percent(double fraction) { return fixed(fraction * 100.0, 1) + " %"; }

const char* verdict_kind_name(VerdictKind k)
{
    switch (k) {
    case VerdictKind::ComputeBound: return "compute_bound";
    case VerdictKind::MemoryBound: return "memory_bound";
    case VerdictKind::LatencyBound: return "latency_bound";
    case VerdictKind::Inconsistent: return "inconsistent";
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

const char* verdict_reason_name(VerdictReason r)
{
    switch (r) {
    case VerdictReason::None: return "";
    case VerdictReason::BelowSixty: return "below_60_pct";
    case VerdictReason::ShortKernel: return "short_kernel";
    case VerdictReason::SmallGrid: return "small_grid";
    case VerdictReason::StridedElementwise: return "strided_elementwise";
    case VerdictReason::KernelFloor: return "kernel_floor";
    }
    return "";
}

const char* host_clause_name(HostClause h)
{
    switch (h) {
    case HostClause::None: return "";
    case HostClause::LaunchBound: return "launch_bound";
    case HostClause::WaitedForLaunch: return "waited_for_launch";
    case HostClause::IdleBefore: return "idle_before";
    case HostClause::GraphReplay: return "graph_replay";
    }
    return "";
}

int device_sm_count(const Trace& t, uint16_t device)
{
    if (device >= t.meta.devices.size())
        return 0;
    const DeviceInfo& d = t.meta.devices[device];
    if (d.sm_count > 0)
        return d.sm_count;
    // The spec row of the device, looked up once per device name.
    static std::mutex mutex;
    static std::map<std::string, int> cache;
    const std::lock_guard<std::mutex> lock(mutex);
    const auto it = cache.find(d.name);
    if (it != cache.end())
        return it->second;
    int n = 0;
    try {
        static const GpuDatabase db = GpuDatabase::load_default();
        if (const GpuSpec* g = db.identify(d).spec)
            n = g->sm_count;
    } catch (const Cancelled&) {
        throw;   // a Cancel raised inside is not this step's failure
    } catch (const std::exception&) {
        n = 0;
    }
    cache.emplace(d.name, n);
    return n;
}

KernelVerdictIndex kernel_verdict_index(const Trace& t, const ShapeRooflineResult* shapes, const NcuReport* ncu,
                                        const std::vector<int64_t>* ncu_join)
{
    KernelVerdictIndex x;
    const size_t n = t.kernels.size();
    x.shape_point.assign(n, -1);
    if (shapes)
        for (size_t p = 0; p < shapes->points.size(); ++p)
            for (const uint32_t row : shapes->points[p].kernel_rows)
                if (row < n && x.shape_point[row] < 0)
                    x.shape_point[row] = int32_t(p);
    // Graph replays: the kernels of one graph launch call, in start order.
    x.graph_node.assign(n, -1);
    x.graph_nodes.assign(n, 0);
    std::unordered_map<int32_t, std::vector<uint32_t>> replays;
    for (size_t i = 0; i < n; ++i) {
        const int32_t api = t.kernels.launch_api[i];
        if (api >= 0 && size_t(api) < t.api.size() && (t.api.flags[size_t(api)] & kApiGraphLaunch))
            replays[api].push_back(uint32_t(i));
    }
    for (auto& [api, rows] : replays) {
        std::stable_sort(rows.begin(), rows.end(),
                         [&t](uint32_t a, uint32_t b) { return t.kernels.start[a] < t.kernels.start[b]; });
        for (size_t r = 0; r < rows.size(); ++r) {
            x.graph_node[rows[r]] = int32_t(r);
            x.graph_nodes[rows[r]] = int32_t(rows.size());
        }
    }
    x.ncu_launch.assign(n, -1);
    if (ncu && ncu_join) {
        std::unordered_map<StrId, int32_t> first_of_name;
        for (size_t l = 0; l < ncu_join->size() && l < ncu->launches.size(); ++l) {
            const int64_t k = (*ncu_join)[l];
            if (k < 0 || size_t(k) >= n)
                continue;
            if (x.ncu_launch[size_t(k)] < 0)
                x.ncu_launch[size_t(k)] = int32_t(l);
            first_of_name.emplace(t.kernels.name[size_t(k)], int32_t(l));
        }
        for (size_t i = 0; i < n; ++i)
            if (x.ncu_launch[i] < 0)
                if (const auto it = first_of_name.find(t.kernels.name[i]); it != first_of_name.end())
                    x.ncu_launch[i] = -2 - it->second;
    }
    for (size_t i = 0; i < t.op_args.size() && !x.trace_has_shapes; ++i)
        x.trace_has_shapes = !t.op_args.input_dims[i].empty();
    x.sm_count.resize(t.meta.devices.size());
    for (size_t d = 0; d < t.meta.devices.size(); ++d)
        x.sm_count[d] = device_sm_count(t, uint16_t(d));
    return x;
}

KernelVerdict kernel_verdict(const KernelVerdictInputs& in)
{
    KernelVerdict v;
    if (!in.trace || in.kernel < 0 || size_t(in.kernel) >= in.trace->kernels.size())
        return v;
    launch_facts(in, v);
    host_side(in, v);
    if (!from_ncu(in, v) && !from_shapes(in, v)) {
        if (from_launch(in, v))
            v.source = VerdictSource::Trace;
        else
            from_model(in, v);
    }
    if (v.kind == VerdictKind::Unknown) {
        if (!in.ncu)
            v.would_tell.push_back("ncu");
        const Trace& t = *in.trace;
        bool shapes = in.index && in.index->trace_has_shapes;
        for (size_t i = 0; !in.index && i < t.op_args.size() && !shapes; ++i)
            shapes = !t.op_args.input_dims[i].empty();
        if (!shapes)
            v.would_tell.push_back("shapes");
        if (!in.roofline)
            v.would_tell.push_back("model_config");
        // A replayed kernel has no CPU op of its own: the trace of the graph's capture gives it its shapes.
        if (shapes && v.graph_node >= 0)
            v.would_tell.push_back("capture_trace");
        if (in.ncu)
            v.would_tell.insert(v.would_tell.begin(), "ncu");   // an ncu file without this kernel: profile it
    }
    return v;
}

std::string kernel_verdict_text(const KernelVerdict& v)
{
    const std::string how = v.fraction ? verdict_percent(*v.fraction) : std::string("?");
    const std::string shape = v.op.empty() ? v.shape : v.shape.empty() ? v.op : v.op + " " + v.shape;
    const std::string roof = v.side == "compute" ? "compute" : "memory";
    std::string s;
    switch (v.kind) {
    case VerdictKind::ComputeBound:
    case VerdictKind::MemoryBound: {
        const bool compute = v.kind == VerdictKind::ComputeBound;
        if (v.source == VerdictSource::Ncu)
            s = std::string(compute ? "Compute-bound: SM throughput at " : "Memory-bound: memory throughput at ") +
                how + " of peak (ncu launch " + std::to_string(v.ncu_launch) + ")" +
                (v.ncu_same_name_only ? ", measured on another launch of this kernel" : "");
        else if (v.reason == VerdictReason::StridedElementwise)
            s = "Compute-bound (instruction issue): PyTorch's strided elementwise loop over " +
                fixed(v.waves.value_or(0), 1) + " waves spends its issue slots on index arithmetic" +
                (v.fraction ? " (memory at " + how + " of its roof)" : std::string());
        else if (v.source == VerdictSource::Shapes)
            s = std::string(compute ? "Compute-bound at " : "Memory-bound at ") + how + " of the " +
                (compute ? upper(v.dtype) + " roof" : std::string("memory roof")) + " (" + shape + ")";
        else
            s = std::string(compute ? "Compute-bound at E_roof " : "Memory-bound at E_roof ") + how + " (" +
                v.op_class + " in " + v.phase + ", from the model config)";
        break;
    }
    case VerdictKind::LatencyBound:
        switch (v.reason) {
        case VerdictReason::ShortKernel:
            s = "Latency-bound: it runs " + verdict_duration(v.duration_ns) + ", under the " +
                verdict_duration(kLatencyFloorNs) + " a kernel needs to approach any roof";
            break;
        case VerdictReason::SmallGrid:
            s = "Latency-bound: " + std::to_string(v.blocks) + " blocks on " + std::to_string(v.sm_count) +
                " SMs leave most SMs without work";
            break;
        case VerdictReason::KernelFloor:
            s = "Latency-bound: the GPU's minimum kernel duration bounds " + v.op_class + " in " + v.phase +
                ", at E_roof " + how + " (from the model config)";
            break;
        case VerdictReason::BelowSixty:
            if (v.source == VerdictSource::ModelConfig)
                s = "Latency-bound: E_roof " + how + ", under 60 % (" + v.op_class + " in " + v.phase +
                    ", from the model config)";
            else
                s = "Latency-bound: " + how + " of its " + roof + " roof, under 60 % (" + shape + ")";
            break;
        default:
            s = "Latency-bound: SM " + verdict_percent(v.sm_pct.value_or(0) / 100) + " and memory " +
                verdict_percent(v.memory_pct.value_or(0) / 100) + " of peak, both under 60 % (ncu launch " +
                std::to_string(v.ncu_launch) + ")" +
                (v.ncu_same_name_only ? ", measured on another launch of this kernel" : "");
            break;
        }
        break;
    case VerdictKind::Inconsistent:
        s = v.source == VerdictSource::Shapes
                ? "Measured above the roof (" + shape + "): wrong GPU row or dtype"
                : "Measured above the roof (" + v.op_class + " in " + v.phase + ", T_theory/T_actual " +
                      fixed(v.e_roof_inconsistent.value_or(0), 2) + "): wrong dtype, parallelism, shape or GPU";
        break;
    case VerdictKind::Unknown: {
        s = "Unknown — what would tell: ";
        for (size_t i = 0; i < v.would_tell.size(); ++i)
            s += std::string(i ? "; " : "") +
                 (v.would_tell[i] == "ncu"             ? "an ncu profile of this kernel"
                  : v.would_tell[i] == "shapes"        ? "shapes in the trace (record_shapes=True)"
                  : v.would_tell[i] == "capture_trace" ? "the trace of the graph's capture (--capture-trace)"
                                                       : "the model's config.json");
        break;
    }
    }
    std::string c;
    switch (v.host) {
    case HostClause::LaunchBound:
        c = "launch-bound: the GPU waited " + verdict_duration(v.idle_ns) + " for it, and its launch call took " +
            verdict_duration(v.launch_call_ns) + ", longer than it runs";
        break;
    case HostClause::WaitedForLaunch:
        c = v.graph_node >= 0 ? "the GPU waited " + verdict_duration(v.idle_ns) + " for its graph launch"
                              : "the GPU waited " + verdict_duration(v.idle_ns) + " for its launch";
        break;
    case HostClause::IdleBefore:
        c = "idle " + verdict_duration(v.idle_ns) + " before it (" + cause_words(v.idle_cause) + ")";
        break;
    case HostClause::GraphReplay:
        c = "node " + std::to_string(v.graph_node + 1) + " of " + std::to_string(v.graph_nodes) + " of its graph replay";
        if (v.idle_ns > 0)
            c += ", idle " + verdict_duration(v.idle_ns) + " before it (" + cause_words(v.idle_cause) + ")";
        break;
    case HostClause::None: break;
    }
    if (!c.empty())
        s += " · " + c;
    return s;
}

std::vector<KernelVerdictSummary> kernel_verdict_summaries(const KernelVerdictInputs& shared)
{
    std::vector<KernelVerdictSummary> out;
    if (!shared.trace)
        return out;
    const Trace& t = *shared.trace;
    const size_t n = t.kernels.size();
    KernelVerdictIndex own;
    const KernelVerdictIndex* index = shared.index;
    if (!index) {
        own = kernel_verdict_index(t, shared.shapes, shared.ncu, shared.ncu_join);
        index = &own;
    }
    constexpr size_t kKinds = size_t(VerdictKind::Unknown) + 1;
    constexpr size_t kHosts = size_t(HostClause::GraphReplay) + 1;
    struct Acc {
        std::array<int64_t, kKinds> kind_ns{}, kind_n{};
        std::array<int64_t, kHosts> host_n{};
        int64_t best = -1, best_dist = INT64_MAX;
    };
    // Pass 1: every launch's verdict kind and host clause (one byte each), summed per distinct kernel.
    std::unordered_map<uint64_t, uint32_t> where;
    std::vector<Acc> acc;
    std::vector<uint32_t> distinct(n);
    std::vector<uint8_t> kind(n);
    for (size_t i = 0; i < n; ++i) {
        const uint64_t key = (uint64_t(t.kernels.name[i]) << 32) | t.kernels.shape[i];
        auto [it, fresh] = where.emplace(key, uint32_t(acc.size()));
        if (fresh) {
            acc.emplace_back();
            KernelVerdictSummary s;
            s.name = std::string(t.strings.view(t.kernels.name[i]));
            s.shape_id = t.kernels.shape[i];
            s.first_kernel = int64_t(i);
            out.push_back(std::move(s));
        }
        distinct[i] = it->second;
        KernelVerdictInputs in = shared;
        in.kernel = int64_t(i);
        in.index = index;
        const KernelVerdict v = kernel_verdict(in);
        const int64_t dur = t.kernels.end[i] - t.kernels.start[i];
        Acc& a = acc[it->second];
        kind[i] = uint8_t(v.kind);
        a.kind_ns[size_t(v.kind)] += dur;
        ++a.kind_n[size_t(v.kind)];
        ++a.host_n[size_t(v.host)];
        KernelVerdictSummary& s = out[it->second];
        ++s.launches;
        s.total_ns += dur;
    }
    // The kind with the most time, per distinct kernel (ties: the first kind).
    std::vector<uint8_t> top(acc.size());
    for (size_t d = 0; d < acc.size(); ++d) {
        size_t best = 0;
        for (size_t k = 1; k < kKinds; ++k)
            if (acc[d].kind_ns[k] > acc[d].kind_ns[best] || (acc[d].kind_n[best] == 0 && acc[d].kind_n[k] > 0))
                best = k;
        top[d] = uint8_t(best);
    }
    // Pass 2: the example launch: of that kind, the one closest to the kind's mean duration (the earliest on ties).
    for (size_t i = 0; i < n; ++i) {
        Acc& a = acc[distinct[i]];
        const uint8_t k = top[distinct[i]];
        if (kind[i] != k)
            continue;
        const int64_t mean = a.kind_ns[k] / std::max<int64_t>(1, a.kind_n[k]);
        const int64_t dist = std::llabs((t.kernels.end[i] - t.kernels.start[i]) - mean);
        if (dist < a.best_dist) {
            a.best_dist = dist;
            a.best = int64_t(i);
        }
    }
    for (size_t d = 0; d < out.size(); ++d) {
        const Acc& a = acc[d];
        KernelVerdictSummary& s = out[d];
        for (size_t k = 0; k < kKinds; ++k)
            if (a.kind_n[k] > 0)
                s.by_kind.emplace_back(VerdictKind(k), a.kind_ns[k]);
        std::stable_sort(s.by_kind.begin(), s.by_kind.end(),
                         [](const auto& x, const auto& y) { return x.second > y.second; });
        for (size_t h = 1; h < kHosts; ++h)
            if (a.host_n[h] > 0)
                s.by_host.emplace_back(HostClause(h), a.host_n[h]);
        std::stable_sort(s.by_host.begin(), s.by_host.end(),
                         [](const auto& x, const auto& y) { return x.second > y.second; });
        s.example_kernel = a.best >= 0 ? a.best : s.first_kernel;
        KernelVerdictInputs in = shared;
        in.kernel = s.example_kernel;
        in.index = index;
        s.verdict = kernel_verdict(in);
    }
    std::vector<size_t> order(out.size());
    for (size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&out](size_t a, size_t b) { return out[a].total_ns > out[b].total_ns; });
    std::vector<KernelVerdictSummary> sorted;
    sorted.reserve(out.size());
    for (const size_t i : order)
        sorted.push_back(std::move(out[i]));
    return sorted;
}

} // namespace sl
