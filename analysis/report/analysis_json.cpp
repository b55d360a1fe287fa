#include "analysis/report/analysis_json.h"
#include "analysis/report/workload_json.h"
#include "analysis/roofline/gpu_specs.h"
#include "analysis/trace/errors.h"

#include <unordered_map>
#include <algorithm>
#include <optional>

namespace sl {

using nlohmann::json;

namespace {

json fraction(double f) { return f < 0 ? json(nullptr) : json(f); }

// NVTX ranges, annotations and CPU ops: `ranges` is nvtx_ranges + cpu_ops; Python frames are counted apart.
size_t host_ranges_without_python(const Trace& t)
{
    return static_cast<size_t>(std::count_if(t.ranges.kind.begin(), t.ranges.kind.end(),
                                             [](RangeKind k) { return k != RangeKind::PythonFunction; }));
}

json stats_json(const Stats& s)
{
    return json{{"count", s.count}, {"total_ns", s.total}, {"avg_ns", s.avg},   {"median_ns", s.median},
                {"min_ns", s.min},  {"max_ns", s.max},     {"stddev_ns", s.stddev}};
}

json breakdown_json(const IdleBreakdown& b)
{
    return json{{"host_wait_ns", b.host_wait_ns()},
                {"kernel_wait_ns", b.kernel_wait_ns()},
                {"sync_wait_ns", b.sync_wait_ns()},
                {"other_ns", b.other_ns()},
                {"dependency_wait_ns", b.dependency_wait_ns()},
                {"counts",
                 {{"host_wait", b.count[0]}, {"kernel_wait", b.count[1]}, {"sync_wait", b.count[2]}, {"other", b.count[3]},
                  {"dependency_wait", b.count[4]}}}};
}

json copy_json(const CopyOverlap& c)
{
    return json{{"count", c.count}, {"bytes", c.bytes}, {"time_ns", c.time_ns}, {"hidden_ns", c.hidden_ns},
                {"hidden_fraction", fraction(c.hidden_fraction)}, {"outside_compute_ns", c.outside_ns}};
}

std::string op_name(const Trace& t, OpKind kind, int32_t row)
{
    if (row < 0)
        return {};
    const size_t r = static_cast<size_t>(row);
    switch (kind) {
    case OpKind::Kernel: return std::string(t.str(t.kernels.name[r]));
    case OpKind::Memcpy: return copy_kind_label(t.memcpy.copy_kind[r]);
    case OpKind::Memset: return "[CUDA memset]";
    }
    return {};
}

const char* op_kind_name(OpKind k)
{
    switch (k) {
    case OpKind::Kernel: return "kernel";
    case OpKind::Memcpy: return "memcpy";
    case OpKind::Memset: return "memset";
    }
    return "kernel";
}

// The spec-database row a device is identified as (by its name, else its properties), with the evidence; the
// database is read once per process (a user's --gpu-file rows are not consulted here: this is the trace's reading).
json gpu_identity_json(const DeviceInfo& d)
{
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
        return nullptr;
    const GpuIdentification id = db->identify(d);
    return {{"row", id.spec ? json(id.spec->name) : json(nullptr)},
            {"vendor", id.spec ? json(id.spec->vendor) : json(nullptr)},
            {"identified_by", id.how.empty() ? json(nullptr) : json(id.how)},
            {"summary", id.summary},
            {"evidence", id.evidence},
            {"candidates", id.candidates}};
}

} // namespace

json analysis_to_json(const Trace& t, const AnalysisResult& r)
{
    const AnalysisOptions& o = r.options;
    json j;
    j["schema"] = kAnalysisSchema;
    j["trace"] = {{"format", t.meta.format},
                  {"source", t.meta.source_path},
                  {"capture_start_ns", t.meta.capture_start},
                  {"capture_end_ns", t.meta.capture_end},
                  {"wall_ns", r.wall_ns},
                  {"kernels", t.kernels.size()},
                  {"memcpys", t.memcpy.size()},
                  {"memsets", t.memset.size()},
                  {"api_calls", t.api.size()},
                  {"ranges", host_ranges_without_python(t)},
                  {"kernel_time_ns", r.kernel_time_ns}};
    add_time_base_json(j["trace"], t, r);   // issue 13: windows, warnings, utilisation
    j["workload"] = workload_to_json(r.workload);
    j["options"] = {{"classes_file", r.classes.source},
                    {"kernel_wait_threshold_ns", o.idle.kernel_wait_threshold_ns},
                    {"short_kernel_api_cutoff_ns", o.launch.short_kernel_api_cutoff_ns},
                    {"launch_api_outlier_ns", o.launch.api_outlier_ns},
                    {"queue_outlier_ns", o.launch.queue_outlier_ns},
                    {"top_sync_stalls", o.sync.top_stalls},
                    {"step_regex", o.phases.step_regex},
                    {"nvtx_step_regex", o.phases.nvtx_step_regex},
                    {"nvtx_prefill_regex", o.phases.nvtx_prefill_regex},
                    {"warmup_steps", o.phases.warmup_steps},
                    {"prefill_factor", o.phases.prefill_factor},
                    {"min_step_kernels", o.phases.min_step_kernels},
                    {"top_k", o.focus.top_k},
                    {"max_gaps_listed", o.max_gaps_listed}};

    // Devices: idle + overlap.
    json devs = json::array();
    std::unordered_map<uint16_t, const DeviceOverlap*> overlap_of;   // one lookup per device, not a scan (§8)
    for (const DeviceOverlap& ov : r.overlap.devices)
        overlap_of.insert_or_assign(ov.device, &ov);
    for (const DeviceIdle& d : r.idle.devices) {
        json dj;
        dj["index"] = d.device;
        if (d.device < t.meta.devices.size()) {
            const auto& info = t.meta.devices[d.device];
            dj["id"] = info.id;
            dj["rank"] = info.rank;
            dj["name"] = info.name;
            dj["warp_size"] = info.warp_size > 0 ? json(info.warp_size) : json(nullptr);
            dj["properties_from"] = info.properties_from.empty() ? json(nullptr) : json(info.properties_from);
            dj["gpu"] = gpu_identity_json(info);
        }
        dj["ops"] = d.ops;
        dj["first_start_ns"] = d.first_start;
        dj["last_end_ns"] = d.last_end;
        dj["window_ns"] = d.window_ns;
        dj["busy_ns"] = d.busy_ns;
        dj["idle_ns"] = d.idle_ns;
        dj["idle_fraction"] = d.idle_fraction;
        dj["idle_breakdown"] = breakdown_json(d.breakdown);
        if (const auto oi = overlap_of.find(d.device); oi != overlap_of.end()) {
            const DeviceOverlap& ov = *oi->second;
            dj["overlap"] = {{"compute_ns", ov.compute_ns},
                             {"h2d", copy_json(ov.h2d)},
                             {"d2h", copy_json(ov.d2h)},
                             {"all_copies", copy_json(ov.all_copies)},
                             {"communication", copy_json(ov.comm)},
                             {"pageable",
                              {{"count", ov.pageable_count},
                               {"time_ns", ov.pageable_time_ns},
                               {"bytes", ov.pageable_bytes},
                               {"async_api_count", ov.pageable_async_api_count}}}};
        }
        devs.push_back(std::move(dj));
    }
    j["devices"] = std::move(devs);

    json streams = json::array();
    for (const StreamIdle& s : r.idle.streams)
        streams.push_back({{"device", s.device}, {"stream", s.stream}, {"ops", s.ops}, {"busy_ns", s.busy_ns},
                           {"idle_ns", s.idle_ns}, {"idle_breakdown", breakdown_json(s.breakdown)}});
    j["streams"] = std::move(streams);

    // Gaps: histogram and the largest ones.
    json hist = json::array();
    for (const GapBucket& b : r.idle.histogram)
        hist.push_back({{"lo_ns", b.lo_ns}, {"hi_ns", b.hi_ns == INT64_MAX ? json(nullptr) : json(b.hi_ns)},
                        {"count", b.count}, {"total_ns", b.total_ns}});
    std::vector<size_t> gi(r.idle.gaps.size());
    for (size_t i = 0; i < gi.size(); ++i)
        gi[i] = i;
    const size_t ng = std::min(o.max_gaps_listed, gi.size());
    std::partial_sort(gi.begin(), gi.begin() + static_cast<std::ptrdiff_t>(ng), gi.end(), [&](size_t a, size_t b) {
        const int64_t da = r.idle.gaps[a].duration(), db = r.idle.gaps[b].duration();
        return da != db ? da > db : a < b;
    });
    json largest = json::array();
    for (size_t n = 0; n < ng; ++n) {
        const Gap& g = r.idle.gaps[gi[n]];
        json gj = {{"start_ns", g.start},
                   {"duration_ns", g.duration()},
                   {"device", g.device},
                   {"cause", gap_cause_name(g.cause)},
                   {"prev", {{"kind", op_kind_name(g.prev_kind)}, {"row", g.prev_row}, {"name", op_name(t, g.prev_kind, g.prev_row)}}},
                   {"next", {{"kind", op_kind_name(g.next_kind)}, {"row", g.next_row}, {"name", op_name(t, g.next_kind, g.next_row)}}}};
        if (g.sync_api >= 0 && g.cause != GapCause::DependencyWait)
            gj["sync_api"] = {{"row", g.sync_api}, {"name", std::string(t.str(t.api.name[static_cast<size_t>(g.sync_api)]))}};
        if (g.cause == GapCause::DependencyWait) {
            // What the queued op waited on, and what the host sat in meanwhile.
            const GapDependency dep = dependency_of(t, g);
            auto api = [&](int32_t a) {
                return a >= 0 && static_cast<size_t>(a) < t.api.size()
                           ? json{{"row", a}, {"name", std::string(t.str(t.api.name[static_cast<size_t>(a)]))},
                                  {"start_ns", t.api.start[static_cast<size_t>(a)]},
                                  {"end_ns", t.api.end[static_cast<size_t>(a)]}}
                           : json(nullptr);
            };
            gj["dependency"] = {{"wait_api", api(dep.wait_api)},
                                {"launch_api", api(dep.launch_api)},
                                {"blocking_api", api(dep.blocking_api)},
                                {"blocking_overlap_ns", dep.blocking_overlap_ns}};
        }
        largest.push_back(std::move(gj));
    }
    j["gaps"] = {{"count", r.idle.gaps.size()}, {"histogram", std::move(hist)}, {"largest", std::move(largest)}};
    // Host-side causes of idle (compilation, autotuning, module loading, allocator), on the trace clock as the gaps.
    j["host_causes"] = host_causes_to_json(r.host_causes, 0);

    // Launch statistics.
    {
        const LaunchResult& L = r.launch;
        json per = json::array();
        for (size_t i = 0; i < L.per_name.size() && i < 100; ++i) {
            const auto& p = L.per_name[i];
            per.push_back({{"name", std::string(t.str(p.name))}, {"count", p.count}, {"linked", p.linked},
                           {"graph", p.graph}, {"kernel_ns", p.kernel_ns}, {"api", stats_json(p.api)},
                           {"queue", stats_json(p.queue)}, {"short_count", p.short_count}});
        }
        j["launch"] = {{"window_ns", L.window_ns},
                       {"kernels", L.kernels},
                       {"linked_kernels", L.linked},
                       {"launch_calls", L.launch_calls},
                       {"graph_launch_calls", L.graph_launch_calls},
                       {"graph_kernels", L.graph_kernels},
                       {"launch_api_ns", L.launch_api_ns},
                       {"api", stats_json(L.api)},
                       {"queue", stats_json(L.queue)},
                       {"short_kernels", L.short_kernels},
                       {"api_outliers", L.api_outliers},
                       {"queue_outliers", L.queue_outliers},
                       {"launch_rate_per_s", L.launch_rate_per_s},
                       {"eta_launch", L.eta_launch},
                       {"per_name", std::move(per)}};
    }

    // Synchronisation.
    {
        const SyncResult& S = r.sync;
        json per = json::array();
        for (const auto& p : S.per_api)
            per.push_back({{"name", std::string(t.str(p.name))}, {"duration", stats_json(p.duration)},
                           {"wall_share", p.wall_share}});
        json stalls = json::array();
        for (const auto& s : S.stalls) {
            // GPU idle under the stall that was queued work waiting on another stream's event (dependency wait).
            int64_t dep = 0;
            for (const Gap& g : r.idle.gaps)
                if (g.cause == GapCause::DependencyWait)
                    dep += std::max<int64_t>(0, std::min(g.end, s.end) - std::max(g.start, s.start));
            stalls.push_back({{"api_row", s.api},
                              {"name", std::string(t.str(t.api.name[static_cast<size_t>(s.api)]))},
                              {"start_ns", s.start},
                              {"duration_ns", s.end - s.start},
                              {"thread", s.thread},
                              {"gpu_busy_ns", s.gpu_busy_ns},
                              {"kernels_overlapping", s.kernels_overlapping},
                              {"top_kernel", std::string(t.str(s.top_kernel))},
                              {"top_kernel_overlap_ns", s.top_kernel_overlap_ns},
                              {"gpu_dependency_wait_ns", dep}});
        }
        j["sync"] = {{"calls", S.calls}, {"total_ns", S.total_ns}, {"host_blocked_ns", S.host_blocked_ns},
                     {"wall_share", S.wall_share}, {"per_api", std::move(per)}, {"largest_stalls", std::move(stalls)}};
    }

    // Operator classes.
    {
        const OpClassResult& C = r.classes;
        json cls = json::array();
        for (const auto& c : C.classes)
            cls.push_back({{"id", c.id}, {"label", c.label}, {"label_zh_CN", c.label_zh_CN}, {"time_ns", c.time_ns}, {"count", c.count},
                           {"distinct_names", c.distinct_names},
                           {"share", C.kernel_time_ns > 0 ? static_cast<double>(c.time_ns) / static_cast<double>(C.kernel_time_ns) : 0.0}});
        json un = json::array();
        for (const auto& n : C.unmatched)
            un.push_back({{"name", std::string(t.str(n.name))}, {"time_ns", n.time_ns}, {"count", n.count}});
        j["op_classes"] = {{"source", C.source}, {"classes", std::move(cls)}, {"unmatched", std::move(un)},
                           {"unmatched_total", C.unmatched_names_total}};
    }

    // Phases.
    {
        const PhaseResult& P = r.phases;
        json steps = json::array();
        for (size_t i = 0; i < P.steps.size() && i < 2000; ++i) {
            const StepInfo& s = P.steps[i];
            steps.push_back({{"index", i},
                             {"start_ns", s.start},
                             {"end_ns", s.end},
                             {"wall_ns", s.wall_ns},
                             {"kernels", s.kernels},
                             {"kernel_ns", s.kernel_ns},
                             {"busy_ns", s.busy_ns},
                             {"gap_ns", s.gap_ns},
                             {"utilization", s.utilization},
                             {"sync_calls", s.sync_calls},
                             {"launch_calls", s.launch_calls},
                             {"phase", s.prefill ? "prefill" : "decode"},
                             {"warmup", s.warmup}});
            // The serving step's own annotation (its name as the framework wrote it), when it has one.
            steps.back()["annotation"] = s.range >= 0 && s.batch.known() && static_cast<size_t>(s.range) < t.ranges.size()
                                             ? json(std::string(t.str(t.ranges.name[static_cast<size_t>(s.range)])))
                                             : json(nullptr);
        }
        j["phases"] = {{"source", step_source_name(P.source)},
                       {"boundary", P.boundary},
                       {"prefill_ns", P.prefill_ns},
                       {"prefill_steps", P.prefill_steps},
                       {"decode_steps", P.decode_steps},
                       {"warmup_excluded", P.warmup_excluded},
                       {"steady_steps", P.steady_steps},
                       {"tpot_median_ns", P.tpot_median_ns},
                       {"tpot_p90_ns", P.tpot_p90_ns},
                       {"tpot_mean_ns", P.tpot_mean_ns},
                       {"steady_utilization", P.steady_utilization},
                       {"steady_kernels_per_step", P.steady_kernels_per_step},
                       {"steady_sync_calls_per_step", P.steady_sync_calls_per_step},
                       {"note", P.note},
                       {"steps", std::move(steps)}};
        add_phase_keys_json(j["phases"], P);
    }

    // NVTX projection.
    {
        const NvtxProjectionResult& N = r.nvtx;
        json per = json::array();
        for (const auto& p : N.per_name)
            per.push_back({{"name", std::string(t.str(p.name))}, {"instances", p.instances}, {"range_ns", p.range_ns},
                           {"projected_ns", p.proj_ns}, {"gpu_ns", p.gpu_ns}, {"exclusive_gpu_ns", p.exclusive_gpu_ns},
                           {"ops", p.ops}});
        j["nvtx"] = {{"projected_ranges", N.projected_ranges}, {"ops_in_ranges", N.ops_in_ranges},
                     {"ops_total", N.ops_total}, {"per_name", std::move(per)}};
    }

    // Weight streaming.
    {
        const WeightStreamingResult& W = r.weights;
        json layers = json::array();
        for (const auto& l : W.layers)
            layers.push_back({{"layer", l.layer}, {"accesses", l.accesses}, {"transfers", l.transfers},
                              {"prefetches", l.prefetches}, {"evictions", l.evictions}, {"hits", l.hits},
                              {"misses", l.misses}, {"transfer_range_ns", l.transfer_range_ns},
                              {"h2d_count", l.h2d_count}, {"h2d_ns", l.h2d_ns}, {"h2d_bytes", l.h2d_bytes},
                              {"h2d_hidden_ns", l.h2d_hidden_ns}});
        j["weight_streaming"] = {{"detected", W.detected},
                                 {"explicit_hits", W.explicit_hits},
                                 {"accesses", W.accesses},
                                 {"hits", W.hits},
                                 {"misses", W.misses},
                                 {"hit_rate", fraction(W.hit_rate)},
                                 {"evictions", W.evictions},
                                 {"prefetches", W.prefetches},
                                 {"transfers", W.transfers},
                                 {"h2d_ns", W.h2d_ns},
                                 {"h2d_hidden_ns", W.h2d_hidden_ns},
                                 {"h2d_hidden_fraction", fraction(W.h2d_hidden_fraction)},
                                 {"layers", std::move(layers)}};
    }

    // Focus set.
    {
        json e = json::array();
        for (const auto& f : r.focus.entries)
            e.push_back({{"name", std::string(t.str(f.name))},
                         {"class", f.cls < static_cast<int>(r.classes.classes.size()) ? r.classes.classes[static_cast<size_t>(f.cls)].id : "other"},
                         {"time_ns", f.time_ns},
                         {"count", f.count},
                         {"share", f.share},
                         {"cumulative_share", f.cumulative_share},
                         {"top_k", f.in_top_k},
                         {"low_efficiency", f.in_low_efficiency}});
        j["focus"] = {{"top_k", r.focus.options.top_k}, {"covered_share", r.focus.covered_share}, {"kernels", std::move(e)}};
    }
    return j;
}

} // namespace sl
