// The time-breakdown and Roofline sections of the report (report_model.cpp holds the rest).
#include "analysis/report/report_sections.h"

#include "analysis/roofline/ncu_match.h"
#include "analysis/diagnosis/ledger.h"
#include "analysis/diagnosis/ncu_target.h"

#include "analysis/timeline/analysis.h"
#include "analysis/roofline/cost_model.h"
#include "analysis/io/ncu_metrics.h"
#include "analysis/io/ncu_reader.h"
#include "analysis/roofline/roofline.h"
#include "analysis/timeline/summary.h"
#include "analysis/trace/trace.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>

namespace sl::report {

// A kernel name short enough for a chart axis: the function's unqualified name ("void ns::foo<T>(args)" -> "foo");
// unlike sl::kernel_base_name (roofline.h, the name used for matching) it also drops the scope, and falls back to the
// first 40 characters of the name when nothing is left.
std::string kernel_short_name(std::string_view name)
{
    std::string_view s = name;
    if (s.rfind("void ", 0) == 0)
        s.remove_prefix(5);
    // Cut at the first '<' or '(' that is not part of "operator<" / "operator()".
    size_t cut = s.size();
    int depth = 0;
    for (size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '<' || s[i] == '(') {
            if (depth == 0) {
                cut = i;
                break;
            }
        }
    }
    (void)depth;
    s = s.substr(0, cut);
    const size_t colon = s.rfind("::");
    if (colon != std::string_view::npos)
        s.remove_prefix(colon + 2);
    while (!s.empty() && s.back() == ' ')
        s.remove_suffix(1);
    return s.empty() ? std::string(name.substr(0, std::min<size_t>(name.size(), 40))) : std::string(s);
}

// ---- Summary-based tables ------------------------------------------------------------------------------------------
static Section devices_section(BuildContext& cx)
{
    Section sec{"time.devices", cx.s("sec.devices"), {}, {}};
    const Summary* sm = cx.in.summary;
    if (!sm) {
        cx.missing(sec, "miss.summary", "eff.summary");
        return sec;
    }
    Table t{"devices", cx.s("tbl.devices"), {}, {}, -1};
    t.columns = {{"device", cx.s("col.device"), "", Align::Left},
                 {"kernels", cx.s("col.kernels"), "count", Align::Right},
                 {"window", cx.s("col.window"), "ns", Align::Right},
                 {"busy", cx.s("col.busy"), "ns", Align::Right},
                 {"idle", cx.s("col.idle"), "ns", Align::Right},
                 {"utilization", cx.s("col.utilization"), "fraction", Align::Right},
                 {"gaps", cx.s("col.gaps"), "count", Align::Right},
                 {"gap_time", cx.s("col.gap_time"), "ns", Align::Right}};
    for (const DeviceSummary& d : sm->devices) {
        std::string label = "GPU " + std::to_string(d.id);
        if (d.rank != 0)
            label += " (rank " + std::to_string(d.rank) + ")";
        if (!d.name.empty())
            label += " · " + d.name;
        t.rows.push_back({vtext(label), vcount(d.kernels), vdur(double(d.window_ns)), vdur(double(d.busy_ns)),
                          vdur(double(d.idle_ns)), vpct(d.utilization), vcount(d.gaps.count),
                          vdur(double(d.gaps.total_ns))});
    }
    sec.blocks.push_back(std::move(t));
    return sec;
}

static Section top_kernels_section(BuildContext& cx)
{
    Section sec{"time.top_kernels", cx.s("sec.top_kernels"), {}, {}};
    const Summary* sm = cx.in.summary;
    if (!sm) {
        cx.missing(sec, "miss.summary", "eff.summary");
        return sec;
    }
    const auto& rows = sm->kernels.by_name;
    if (rows.empty()) {
        sec.blocks.push_back(Paragraph{cx.s("txt.no_kernels")});
        return sec;
    }
    const size_t n = std::min(rows.size(), size_t(std::max(0, cx.in.options.top_kernels)));
    sec.blocks.push_back(Paragraph{cx.f("txt.top_kernels", {std::to_string(n), fmt_count(int64_t(rows.size())),
                                                            fmt_count(sm->kernels.count),
                                                            fmt_duration(double(sm->kernels.total_ns))})});
    Chart ch;
    ch.id = "top_kernels";
    ch.kind = ChartKind::Bar;
    ch.title = cx.s("chart.top_kernels");
    ch.x_label = cx.s("axis.kernel");
    ch.y_label = cx.s("axis.share_kernel_time");
    ch.y_unit = "%";
    Series s{cx.s("axis.share_kernel_time"), {}, ""};
    for (size_t i = 0; i < std::min<size_t>(n, 10); ++i) {
        ch.categories.push_back(kernel_short_name(rows[i].name));
        s.values.push_back(rows[i].percent);
    }
    ch.series.push_back(std::move(s));
    sec.blocks.push_back(std::move(ch));

    Table t{"top_kernels", cx.s(cx.from_nsys ? "tbl.top_kernels_nsys" : "tbl.top_kernels"), {}, {}, int64_t(rows.size())};
    t.columns = {{"percent", cx.s("col.time_pct"), "percent", Align::Right},
                 {"total", cx.s("col.total_time"), "ns", Align::Right},
                 {"instances", cx.s("col.instances"), "count", Align::Right},
                 {"avg", cx.s("col.avg"), "ns", Align::Right},
                 {"med", cx.s("col.med"), "ns", Align::Right},
                 {"min", cx.s("col.min"), "ns", Align::Right},
                 {"max", cx.s("col.max"), "ns", Align::Right},
                 {"stddev", cx.s("col.stddev"), "ns", Align::Right},
                 {"name", cx.s("col.name"), "", Align::Left}};
    t.columns.back().max_chars = 72;
    for (size_t i = 0; i < n; ++i) {
        const StatRow& r = rows[i];
        t.rows.push_back({Value::num(r.percent, fmt_fixed(r.percent, 1), "percent"), vdur(double(r.total_ns)),
                          vcount(r.instances), vdur(r.avg_ns), vdur(r.med_ns), vdur(double(r.min_ns)),
                          vdur(double(r.max_ns)), vdur(r.stddev_ns), vtext(r.name)});
    }
    sec.blocks.push_back(std::move(t));
    return sec;
}

static Section memops_api_section(BuildContext& cx)
{
    Section sec{"time.memory_api", cx.f("sec.memory_api", {cx.runtime}), {}, {}};
    const Summary* sm = cx.in.summary;
    if (!sm) {
        cx.missing(sec, "miss.summary", "eff.summary");
        return sec;
    }
    if (!sm->memops.by_operation.empty()) {
        Table t{"memops", cx.s("tbl.memops"), {}, {}, -1};
        t.columns = {{"operation", cx.s("col.operation"), "", Align::Left},
                     {"count", cx.s("col.count"), "count", Align::Right},
                     {"total", cx.s("col.total_time"), "ns", Align::Right},
                     {"percent", cx.s("col.time_pct"), "percent", Align::Right},
                     {"bytes", cx.s("col.bytes"), "B", Align::Right},
                     {"avg_bytes", cx.s("col.avg_bytes"), "B", Align::Right}};
        for (const MemopRow& r : sm->memops.by_operation)
            t.rows.push_back({vtext(r.operation), vcount(r.count), vdur(double(r.total_ns)),
                              Value::num(r.percent, fmt_fixed(r.percent, 1), "percent"), vbytes(double(r.bytes)),
                              vbytes(r.avg_bytes)});
        sec.blocks.push_back(std::move(t));
    }
    const auto& api = sm->api.by_name;
    if (!api.empty()) {
        const size_t n = std::min<size_t>(api.size(), 10);
        Table t{"api", cx.f("tbl.api", {cx.runtime}), {}, {}, int64_t(api.size())};
        t.columns = {{"percent", cx.s("col.time_pct"), "percent", Align::Right},
                     {"total", cx.s("col.total_time"), "ns", Align::Right},
                     {"calls", cx.s("col.calls"), "count", Align::Right},
                     {"avg", cx.s("col.avg"), "ns", Align::Right},
                     {"med", cx.s("col.med"), "ns", Align::Right},
                     {"max", cx.s("col.max"), "ns", Align::Right},
                     {"name", cx.s("col.name"), "", Align::Left}};
        for (size_t i = 0; i < n; ++i) {
            const StatRow& r = api[i];
            t.rows.push_back({Value::num(r.percent, fmt_fixed(r.percent, 1), "percent"), vdur(double(r.total_ns)),
                              vcount(r.instances), vdur(r.avg_ns), vdur(r.med_ns), vdur(double(r.max_ns)),
                              vtext(r.name)});
        }
        sec.blocks.push_back(std::move(t));
    }
    if (sm->memops.by_operation.empty() && api.empty())
        sec.blocks.push_back(Paragraph{cx.f("txt.no_memops_api", {cx.runtime})});
    return sec;
}

static Section gaps_section(BuildContext& cx)
{
    Section sec{"time.gaps", cx.s("sec.gaps"), {}, {}};
    const Summary* sm = cx.in.summary;
    if (!sm) {
        cx.missing(sec, "miss.summary", "eff.summary");
        return sec;
    }
    // Histogram over all devices.
    std::array<int64_t, kGapBuckets> count{}, total{};
    int64_t n = 0, sum = 0;
    for (const DeviceSummary& d : sm->devices) {
        for (size_t b = 0; b < kGapBuckets; ++b) {
            count[b] += d.gaps.histogram[b].count;
            total[b] += d.gaps.histogram[b].total_ns;
        }
        n += d.gaps.count;
        sum += d.gaps.total_ns;
    }
    sec.blocks.push_back(Paragraph{cx.f("txt.gaps", {fmt_count(n), fmt_duration(double(sum))})});
    Chart ch;
    ch.id = "gap_histogram";
    ch.kind = ChartKind::Histogram;
    ch.title = cx.s("chart.gap_histogram");
    ch.x_label = cx.s("axis.gap_length");
    ch.y_label = cx.s("axis.gaps");
    ch.y_unit = "count";
    Series sc{cx.s("axis.gaps"), {}, ""};
    Table t{"gap_histogram", cx.s("tbl.gap_histogram"), {}, {}, -1};
    t.columns = {{"bucket", cx.s("col.gap_length"), "", Align::Left},
                 {"count", cx.s("col.count"), "count", Align::Right},
                 {"total", cx.s("col.total_time"), "ns", Align::Right},
                 {"share", cx.s("col.share_idle"), "fraction", Align::Right}};
    for (size_t b = 0; b < kGapBuckets; ++b) {
        // The bucket's name as people write it: "1–5 µs", "<1 µs", "0.1–1 ms" (the summary JSON keeps "1-5us").
        std::string label;
        for (const char* c = gap_bucket_defs()[b].label; *c; ++c) {
            if (*c == '-')
                label += "–";
            else if (c[0] == 'u' && c[1] == 's')
                label += " µs", ++c;
            else if (c[0] == 'm' && c[1] == 's')
                label += " ms", ++c;
            else
                label += *c;
        }
        ch.categories.push_back(label);
        sc.values.push_back(double(count[b]));
        t.rows.push_back({vtext(label), vcount(count[b]), vdur(double(total[b])),
                          vpct(sum > 0 ? double(total[b]) / double(sum) : 0.0)});
    }
    ch.series.push_back(std::move(sc));
    sec.blocks.push_back(std::move(ch));
    sec.blocks.push_back(std::move(t));

    // Largest gaps across devices.
    struct G { const DeviceSummary* d; const DeviceGap* g; };
    std::vector<G> all;
    for (const DeviceSummary& d : sm->devices)
        for (const DeviceGap& g : d.gaps.largest)
            all.push_back({&d, &g});
    std::stable_sort(all.begin(), all.end(), [](const G& a, const G& b) {
        if (a.g->duration_ns != b.g->duration_ns)
            return a.g->duration_ns > b.g->duration_ns;
        return a.g->start_ns < b.g->start_ns;
    });
    if (!all.empty()) {
        const size_t rows = std::min(all.size(), size_t(std::max(0, cx.in.options.max_gap_rows)));
        Table lg{"largest_gaps", cx.s("tbl.largest_gaps"), {}, {}, int64_t(all.size())};
        lg.columns = {{"device", cx.s("col.device"), "", Align::Left},
                      {"start", cx.s("col.start"), "ns", Align::Right},
                      {"duration", cx.s("col.duration"), "ns", Align::Right},
                      {"before", cx.s("col.before"), "", Align::Left},
                      {"after", cx.s("col.after"), "", Align::Left}};
        lg.columns[3].max_chars = 40;
        lg.columns[4].max_chars = 40;
        const int64_t origin = cx.in.trace ? cx.in.trace->meta.capture_start : 0;
        for (size_t i = 0; i < rows; ++i) {
            const DeviceGap& g = *all[i].g;
            lg.rows.push_back({vtext("GPU " + std::to_string(all[i].d->id)),
                               Value::num(double(g.start_ns), fmt_duration(double(g.start_ns - origin)), "ns"),
                               vdur(double(g.duration_ns)), vtext(g.before.name), vtext(g.after.name)});
        }
        sec.blocks.push_back(std::move(lg));
    }
    return sec;
}

// ---- Sections from the analysis results ---------------------------------------------------------------------------
static std::string device_label(const Trace* t, uint16_t device)
{
    if (t && device < t->meta.devices.size()) {
        const DeviceInfo& d = t->meta.devices[device];
        std::string s = "GPU " + std::to_string(d.id);
        if (d.rank != 0)
            s += " (rank " + std::to_string(d.rank) + ")";
        return s;
    }
    return "GPU #" + std::to_string(device);
}

static std::string name_of(const BuildContext& cx, StrId id)
{
    return cx.in.trace ? std::string(cx.in.trace->str(id)) : std::to_string(id);
}

static Section op_classes_section(BuildContext& cx, const AnalysisResult& a)
{
    Section sec{"time.op_classes", cx.s("sec.op_classes"), {}, {}};
    std::vector<const OpClassTotals*> rows;
    for (const OpClassTotals& c : a.classes.classes)
        if (c.time_ns > 0 || c.count > 0)
            rows.push_back(&c);
    std::stable_sort(rows.begin(), rows.end(),
                     [](const OpClassTotals* x, const OpClassTotals* y) { return x->time_ns > y->time_ns; });
    if (rows.empty()) {
        sec.blocks.push_back(Paragraph{cx.s("txt.no_kernels")});
        return sec;
    }
    int64_t total = 0;
    for (const OpClassTotals* c : rows)
        total += c->time_ns;
    Chart ch;
    ch.id = "op_classes";
    ch.kind = ChartKind::Bar;
    ch.title = cx.s("chart.op_classes");
    ch.x_label = cx.s("axis.class");
    ch.y_label = cx.s("axis.share_gpu_time");
    ch.y_unit = "%";
    Series ser{cx.s("axis.share_gpu_time"), {}, ""};
    Table t{"op_classes", cx.s("tbl.op_classes"), {}, {}, -1};
    t.columns = {{"class", cx.s("col.class"), "", Align::Left},
                 {"time", cx.s("col.total_time"), "ns", Align::Right},
                 {"share", cx.s("col.share"), "fraction", Align::Right},
                 {"count", cx.s("col.instances"), "count", Align::Right},
                 {"names", cx.s("col.distinct_names"), "count", Align::Right}};
    for (const OpClassTotals* c : rows) {
        const double share = total > 0 ? double(c->time_ns) / double(total) : 0.0;
        const std::string label = c->label_for(lang_code(cx.lang));
        ch.categories.push_back(label);
        ser.values.push_back(share * 100.0);
        t.rows.push_back({vtext(label), vdur(double(c->time_ns)), vpct(share), vcount(c->count),
                          vcount(c->distinct_names)});
    }
    ch.series.push_back(std::move(ser));
    sec.blocks.push_back(Paragraph{cx.s("txt.op_classes")});
    sec.blocks.push_back(std::move(ch));
    sec.blocks.push_back(std::move(t));
    if (a.classes.unmatched_names_total > 0) {
        int64_t unmatched_ns = 0;
        for (const NameClass& n : a.classes.unmatched)
            unmatched_ns += n.time_ns;
        sec.blocks.push_back(Note{Note::Kind::Info, cx.f("txt.unmatched", {fmt_count(a.classes.unmatched_names_total),
                                                                           fmt_duration(double(unmatched_ns))})});
    }
    return sec;
}

static const char* kCauseIds[kGapCauses] = {"cause.host_wait", "cause.kernel_wait", "cause.sync_wait", "cause.other",
                                            "cause.dependency_wait"};
static const char* kCauseColors[kGapCauses] = {"#e15759", "#f28e2b", "#b07aa1", "#bab0ac", "#7d5fc8"};

static Section idle_section(BuildContext& cx, const AnalysisResult& a)
{
    Section sec{"time.idle", cx.s("sec.idle"), {}, {}};
    sec.blocks.push_back(Paragraph{cx.f("txt.idle_causes", {fmt_duration(double(a.idle.options.kernel_wait_threshold_ns))})});
    Chart ch;
    ch.id = "idle_causes";
    ch.kind = ChartKind::StackedBar;
    ch.title = cx.s("chart.idle");
    ch.y_label = cx.s("axis.idle_ms");
    ch.y_unit = "ms";
    // Dependency wait (queued work waiting on an event) is shown only where a device has some: most traces have none.
    int causes = 4;
    for (const DeviceIdle& d : a.idle.devices)
        if (d.breakdown.dependency_wait_ns() > 0)
            causes = int(kGapCauses);
    for (int c = 0; c < causes; ++c)
        ch.series.push_back({cx.s(kCauseIds[c]), {}, kCauseColors[c]});
    Table t{"idle_causes", cx.s("tbl.idle"), {}, {}, -1};
    t.columns = {{"device", cx.s("col.device"), "", Align::Left},
                 {"window", cx.s("col.window"), "ns", Align::Right},
                 {"idle", cx.s("col.idle"), "ns", Align::Right},
                 {"idle_fraction", cx.s("col.idle_fraction"), "fraction", Align::Right},
                 {"host_wait", cx.s("cause.host_wait"), "ns", Align::Right},
                 {"kernel_wait", cx.s("cause.kernel_wait"), "ns", Align::Right},
                 {"sync_wait", cx.s("cause.sync_wait"), "ns", Align::Right},
                 {"other", cx.s("cause.other"), "ns", Align::Right}};
    if (causes > 4)
        t.columns.push_back({"dependency_wait", cx.s("cause.dependency_wait"), "ns", Align::Right});
    for (const DeviceIdle& d : a.idle.devices) {
        const std::string label = device_label(cx.in.trace, d.device);
        ch.categories.push_back(label);
        std::vector<Value> row{vtext(label), vdur(double(d.window_ns)), vdur(double(d.idle_ns)), vpct(d.idle_fraction)};
        for (int c = 0; c < causes; ++c) {
            const int64_t ns = d.breakdown.ns[size_t(c)];
            ch.series[size_t(c)].values.push_back(double(ns) / 1e6);
            const double share = d.idle_ns > 0 ? double(ns) / double(d.idle_ns) : 0.0;
            row.push_back(Value::num(double(ns), fmt_duration(double(ns)) + " (" + fmt_percent(share) + ")", "ns"));
        }
        t.rows.push_back(std::move(row));
    }
    if (t.rows.empty()) {
        sec.blocks.push_back(Paragraph{cx.s("txt.no_kernels")});
        return sec;
    }
    sec.blocks.push_back(std::move(ch));
    sec.blocks.push_back(std::move(t));
    return sec;
}

static Section launch_section(BuildContext& cx, const AnalysisResult& a)
{
    Section sec{"time.launch", cx.s("sec.launch"), {}, {}};
    const LaunchResult& l = a.launch;
    KeyValues kv{"launch", {}};
    kv.items.push_back({"launch_calls", cx.s("kv.launch_calls"), vcount(l.launch_calls)});
    kv.items.push_back({"graph_launch_calls", cx.f("kv.graph_launch_calls", {cx.runtime}), vcount(l.graph_launch_calls)});
    kv.items.push_back({"graph_kernels", cx.f("kv.graph_kernels", {cx.runtime}), vcount(l.graph_kernels)});
    kv.items.push_back({"launch_api_ns", cx.s("kv.launch_api_time"), vdur(double(l.launch_api_ns))});
    kv.items.push_back({"api_median_ns", cx.s("kv.api_median"), vdur(l.api.median)});
    kv.items.push_back({"queue_median_ns", cx.s("kv.queue_median"), vdur(l.queue.median)});
    kv.items.push_back({"queue_max_ns", cx.s("kv.queue_max"), vdur(double(l.queue.max))});
    kv.items.push_back({"short_kernels", cx.s("kv.short_kernels"), vcount(l.short_kernels)});
    kv.items.push_back({"launch_rate_per_s", cx.s("kv.launch_rate"),
                        Value::num(l.launch_rate_per_s, fmt_si(l.launch_rate_per_s, "/s"), "1/s")});
    kv.items.push_back({"eta_launch", cx.s("kv.eta_launch"), vpct(l.eta_launch)});
    kv.items.push_back({"outliers", cx.s("kv.launch_outliers"),
                        vtext(fmt_count(l.api_outliers) + " / " + fmt_count(l.queue_outliers))});
    sec.blocks.push_back(std::move(kv));
    if (!l.per_name.empty()) {
        const size_t n = std::min<size_t>(l.per_name.size(), 10);
        Table t{"launch_per_kernel", cx.s("tbl.launch_kernels"), {}, {}, int64_t(l.per_name.size())};
        t.columns = {{"name", cx.s("col.name"), "", Align::Left},
                     {"count", cx.s("col.instances"), "count", Align::Right},
                     {"kernel_time", cx.s("col.kernel_time"), "ns", Align::Right},
                     {"api_avg", cx.s("col.api_avg"), "ns", Align::Right},
                     {"queue_avg", cx.s("col.queue_avg"), "ns", Align::Right},
                     {"short", cx.s("col.short"), "count", Align::Right}};
        t.columns[0].max_chars = 56;
        for (size_t i = 0; i < n; ++i) {
            const KernelLaunchStats& k = l.per_name[i];
            t.rows.push_back({vtext(name_of(cx, k.name)), vcount(k.count), vdur(double(k.kernel_ns)), vdur(k.api.avg),
                              vdur(k.queue.avg), vcount(k.short_count)});
        }
        sec.blocks.push_back(std::move(t));
    }
    return sec;
}

static Section sync_section(BuildContext& cx, const AnalysisResult& a)
{
    Section sec{"time.sync", cx.s("sec.sync"), {}, {}};
    const SyncResult& s = a.sync;
    KeyValues kv{"sync", {}};
    kv.items.push_back({"calls", cx.s("kv.sync_calls"), vcount(s.calls)});
    kv.items.push_back({"total_ns", cx.s("kv.sync_total"), vdur(double(s.total_ns))});
    kv.items.push_back({"host_blocked_ns", cx.s("kv.host_blocked"), vdur(double(s.host_blocked_ns))});
    kv.items.push_back({"wall_share", cx.s("kv.wall_share"), vpct(s.wall_share)});
    sec.blocks.push_back(std::move(kv));
    if (!s.per_api.empty()) {
        Table t{"sync_apis", cx.s("tbl.sync"), {}, {}, -1};
        t.columns = {{"name", cx.s("col.name"), "", Align::Left},
                     {"calls", cx.s("col.calls"), "count", Align::Right},
                     {"total", cx.s("col.total_time"), "ns", Align::Right},
                     {"avg", cx.s("col.avg"), "ns", Align::Right},
                     {"max", cx.s("col.max"), "ns", Align::Right},
                     {"wall_share", cx.s("col.share_window"), "fraction", Align::Right}};
        for (const SyncApiStats& p : s.per_api)
            t.rows.push_back({vtext(name_of(cx, p.name)), vcount(p.duration.count), vdur(double(p.duration.total)),
                              vdur(p.duration.avg), vdur(double(p.duration.max)), vpct(p.wall_share)});
        sec.blocks.push_back(std::move(t));
    }
    if (!s.stalls.empty()) {
        Table t{"sync_stalls", cx.s("tbl.sync_stalls"), {}, {}, -1};
        t.columns = {{"start", cx.s("col.start"), "ns", Align::Right},
                     {"duration", cx.s("col.duration"), "ns", Align::Right},
                     {"gpu_busy", cx.s("col.gpu_busy"), "ns", Align::Right},
                     {"kernels", cx.s("col.kernels"), "count", Align::Right},
                     {"top_kernel", cx.s("col.top_kernel"), "", Align::Left}};
        t.columns[4].max_chars = 48;
        const int64_t origin = cx.in.trace ? cx.in.trace->meta.capture_start : 0;
        for (const SyncStall& st : s.stalls)
            t.rows.push_back({Value::num(double(st.start), fmt_duration(double(st.start - origin)), "ns"),
                              vdur(double(st.end - st.start)), vdur(double(st.gpu_busy_ns)),
                              vcount(st.kernels_overlapping),
                              vtext(st.top_kernel ? name_of(cx, st.top_kernel) : std::string("—"))});
        sec.blocks.push_back(std::move(t));
    }
    return sec;
}

static Value hidden_value(const CopyOverlap& c)
{
    if (c.count == 0 || c.hidden_fraction < 0)
        return vtext("—");
    return Value::num(c.hidden_fraction, fmt_duration(double(c.time_ns)) + " (" + fmt_percent(c.hidden_fraction) + ")",
                      "fraction");
}

static Section overlap_section(BuildContext& cx, const AnalysisResult& a)
{
    Section sec{"time.overlap", cx.s("sec.overlap"), {}, {}};
    sec.blocks.push_back(Paragraph{cx.s("txt.overlap")});
    Table t{"overlap", cx.s("tbl.overlap"), {}, {}, -1};
    t.columns = {{"device", cx.s("col.device"), "", Align::Left},
                 {"compute", cx.s("col.compute"), "ns", Align::Right},
                 {"h2d_hidden", cx.s("col.h2d_hidden"), "fraction", Align::Right},
                 {"d2h_hidden", cx.s("col.d2h_hidden"), "fraction", Align::Right},
                 {"comm_hidden", cx.s("col.comm_hidden"), "fraction", Align::Right},
                 {"pageable", cx.s("col.pageable"), "count", Align::Right}};
    for (const DeviceOverlap& d : a.overlap.devices) {
        if (d.compute_ns == 0 && d.all_copies.count == 0 && d.comm.count == 0)
            continue;
        t.rows.push_back({vtext(device_label(cx.in.trace, d.device)), vdur(double(d.compute_ns)), hidden_value(d.h2d),
                          hidden_value(d.d2h), hidden_value(d.comm), vcount(d.pageable_count)});
    }
    sec.blocks.push_back(std::move(t));
    if (a.weights.detected) {
        Table w{"weight_streaming", cx.s("tbl.weights"), {}, {}, -1};
        w.columns = {{"layer", cx.s("col.layer"), "", Align::Right},
                     {"accesses", cx.s("col.accesses"), "count", Align::Right},
                     {"hits", cx.s("col.hits"), "count", Align::Right},
                     {"misses", cx.s("col.misses"), "count", Align::Right},
                     {"h2d", cx.s("col.h2d_time"), "ns", Align::Right},
                     {"hidden", cx.s("col.hidden"), "ns", Align::Right}};
        for (const LayerStreaming& l : a.weights.layers)
            w.rows.push_back({Value::num(double(l.layer), std::to_string(l.layer), ""), vcount(l.accesses),
                              vcount(l.hits), vcount(l.misses), vdur(double(l.h2d_ns)), vdur(double(l.h2d_hidden_ns))});
        sec.blocks.push_back(std::move(w));
    }
    return sec;
}

static Section phases_section(BuildContext& cx, const AnalysisResult& a)
{
    Section sec{"time.phases", cx.s("sec.phases"), {}, {}};
    const PhaseResult& p = a.phases;
    if (p.source == StepSource::None || p.steps.empty()) {
        cx.missing(sec, "miss.phases", "eff.phases");
        if (!p.note.empty())
            sec.blocks.push_back(Note{Note::Kind::Info, p.note});
        return sec;
    }
    KeyValues kv{"phases", {}};
    kv.items.push_back({"step_source", cx.s("kv.step_source"),
                        vtext(std::string(step_source_name(p.source)) + (p.boundary.empty() ? "" : " — " + shorten_text(p.boundary, 60)))});
    kv.items.push_back({"prefill_steps", cx.s("kv.prefill_steps"), vcount(p.prefill_steps)});
    kv.items.push_back({"prefill_ns", cx.s("kv.prefill_time"), vdur(double(p.prefill_ns))});
    kv.items.push_back({"decode_steps", cx.s("kv.decode_steps"), vcount(p.decode_steps)});
    kv.items.push_back({"warmup_excluded", cx.s("kv.warmup_excluded"), vcount(p.warmup_excluded)});
    kv.items.push_back({"tpot_median_ns", cx.s("kv.tpot_median"), vdur(p.tpot_median_ns)});
    kv.items.push_back({"tpot_p90_ns", cx.s("kv.tpot_p90"), vdur(p.tpot_p90_ns)});
    kv.items.push_back({"tpot_mean_ns", cx.s("kv.tpot_mean"), vdur(p.tpot_mean_ns)});
    kv.items.push_back({"steady_utilization", cx.s("kv.steady_utilization"), vpct(p.steady_utilization)});
    kv.items.push_back({"kernels_per_step", cx.s("kv.kernels_per_step"),
                        Value::num(p.steady_kernels_per_step, fmt_sig(p.steady_kernels_per_step, 3), "count")});
    kv.items.push_back({"syncs_per_step", cx.s("kv.syncs_per_step"),
                        Value::num(p.steady_sync_calls_per_step, fmt_sig(p.steady_sync_calls_per_step, 3), "count")});
    sec.blocks.push_back(std::move(kv));
    if (!p.note.empty())
        sec.blocks.push_back(Note{Note::Kind::Info, p.note});

    Section steps{"time.steps", cx.s("sec.steps"), {}, {}};
    const size_t n = std::min(p.steps.size(), size_t(std::max(0, cx.in.options.max_step_rows)));
    Table t{"steps", cx.s("tbl.steps"), {}, {}, int64_t(p.steps.size())};
    t.columns = {{"step", cx.s("col.step"), "", Align::Right},
                 {"kind", cx.s("col.phase"), "", Align::Left},
                 {"wall", cx.s("col.wall"), "ns", Align::Right},
                 {"kernels", cx.s("col.kernels"), "count", Align::Right},
                 {"kernel_time", cx.s("col.kernel_time"), "ns", Align::Right},
                 {"gap", cx.s("col.gap_time"), "ns", Align::Right},
                 {"utilization", cx.s("col.utilization"), "fraction", Align::Right},
                 {"syncs", cx.s("col.syncs"), "count", Align::Right}};
    for (size_t i = 0; i < n; ++i) {
        const StepInfo& st = p.steps[i];
        const std::string kind = st.prefill ? "prefill" : st.warmup ? "decode (" + cx.s("val.warmup") + ")" : "decode";
        t.rows.push_back({Value::num(double(i), std::to_string(i), ""), vtext(kind), vdur(double(st.wall_ns)),
                          vcount(st.kernels), vdur(double(st.kernel_ns)), vdur(double(st.gap_ns)),
                          vpct(st.utilization), vcount(st.sync_calls)});
    }
    steps.blocks.push_back(std::move(t));
    sec.children.push_back(std::move(steps));
    return sec;
}

static void record_analysis_options(BuildContext& cx, const AnalysisResult& a)
{
    const AnalysisOptions& o = a.options;
    cx.thresholds["idle.kernel_wait_threshold_ns"] = std::to_string(o.idle.kernel_wait_threshold_ns);
    cx.thresholds["launch.short_kernel_api_cutoff_ns"] = std::to_string(o.launch.short_kernel_api_cutoff_ns);
    cx.thresholds["launch.api_outlier_ns"] = std::to_string(o.launch.api_outlier_ns);
    cx.thresholds["launch.queue_outlier_ns"] = std::to_string(o.launch.queue_outlier_ns);
    cx.thresholds["sync.top_stalls"] = std::to_string(o.sync.top_stalls);
    cx.thresholds["phases.warmup_steps"] = std::to_string(o.phases.warmup_steps);
    cx.thresholds["phases.prefill_factor"] = fmt_sig(o.phases.prefill_factor, 3);
    cx.thresholds["phases.step_regex"] = o.phases.step_regex.empty() ? "—" : o.phases.step_regex;
    cx.thresholds["focus.top_k"] = std::to_string(o.focus.top_k);
    // The time ledger's severity table (diagnosis/ledger.h): high, medium and low from the bounded end-to-end gain
    // and the confidence; idle findings gated below gate_fraction of the wall.
    const LedgerOptions lo;
    cx.thresholds["ledger.high_fraction"] = fmt_sig(lo.high_fraction, 3);
    cx.thresholds["ledger.high_confidence"] = fmt_sig(lo.high_confidence, 3);
    cx.thresholds["ledger.medium_fraction"] = fmt_sig(lo.medium_fraction, 3);
    cx.thresholds["ledger.low_fraction"] = fmt_sig(lo.low_fraction, 3);
    cx.thresholds["ledger.gate_fraction"] = fmt_sig(lo.gate_fraction, 3);
    cx.thresholds["classes.file"] = a.classes.source.empty()
                                        ? "kernel_classes.json"
                                        : std::filesystem::path(a.classes.source).filename().string();
}

Section build_time_section(BuildContext& cx)
{
    Section sec{"time", cx.s("sec.time"), {}, {}};
    if (const Summary* sm = cx.in.summary) {
        cx.thresholds["summary.top_gaps"] = std::to_string(sm->options.top_gaps);
        if (sm->options.rank)
            cx.thresholds["summary.rank"] = std::to_string(*sm->options.rank);
    }
    const AnalysisResult* a = cx.in.analysis;
    auto missing = [&](const char* id, const char* title) {
        Section s{id, cx.s(title), {}, {}};
        cx.missing(s, "miss.analysis", "eff.analysis");
        return s;
    };
    if (a)
        record_analysis_options(cx, *a);
    sec.children.push_back(devices_section(cx));
    sec.children.push_back(a ? op_classes_section(cx, *a) : missing("time.op_classes", "sec.op_classes"));
    sec.children.push_back(top_kernels_section(cx));
    sec.children.push_back(a ? idle_section(cx, *a) : missing("time.idle", "sec.idle"));
    sec.children.push_back(gaps_section(cx));
    sec.children.push_back(a ? launch_section(cx, *a) : missing("time.launch", "sec.launch"));
    sec.children.push_back(a ? sync_section(cx, *a) : missing("time.sync", "sec.sync"));
    sec.children.push_back(a ? overlap_section(cx, *a) : missing("time.overlap", "sec.overlap"));
    sec.children.push_back(a ? phases_section(cx, *a) : missing("time.phases", "sec.phases"));
    sec.children.push_back(memops_api_section(cx));
    return sec;
}

// ---- Roofline ----------------------------------------------------------------------------------------------------
// Regex-escapes a kernel base name for `ncu -k regex:`.
static std::string regex_escape(std::string_view s)
{
    std::string o;
    for (char c : s) {
        if (std::string_view("\\^$.|?*+()[]{}").find(c) != std::string_view::npos)
            o += '\\';
        o += c;
    }
    return o;
}

std::string ncu_command(const std::vector<std::string>& kernel_names)
{
    std::vector<std::string> bases;
    for (const std::string& n : kernel_names) {
        std::string b = regex_escape(kernel_short_name(n));
        if (!b.empty() && std::find(bases.begin(), bases.end(), b) == bases.end())
            bases.push_back(b);
    }
    std::string re;
    for (const std::string& b : bases)
        re += (re.empty() ? "" : "|") + b;
    // Single quotes protect the regex from the shell; a quote inside a name is closed, escaped and reopened.
    std::string quoted;
    for (char c : re)
        quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return "ncu -k regex:'" + quoted + "' --set full --csv --page raw -o sightline-focus <application>";
}

// Kernel names behind the focus set: the analysis' Top-K names, plus the heaviest names of every operator class
// that the Roofline marked as low-efficiency.
static std::vector<std::string> focus_kernel_names(BuildContext& cx)
{
    std::vector<std::string> out;
    const AnalysisResult* a = cx.in.analysis;
    if (!a || !cx.in.trace)
        return out;
    std::set<std::string> seen;
    for (const FocusEntry& e : a->focus.entries)
        if ((e.in_top_k || e.in_low_efficiency) && seen.insert(name_of(cx, e.name)).second)
            out.push_back(name_of(cx, e.name));
    if (const RooflineReport* r = cx.in.roofline) {
        for (const FocusItem& f : r->focus) {
            if (!f.low_efficiency)
                continue;
            int cls = -1;
            for (size_t i = 0; i < a->classes.classes.size(); ++i)
                if (a->classes.classes[i].id == f.op_class)
                    cls = int(i);
            int taken = 0;
            for (const NameClass& n : a->classes.names) {
                if (n.cls != cls || taken >= 3)
                    continue;
                ++taken;
                if (seen.insert(name_of(cx, n.name)).second)
                    out.push_back(name_of(cx, n.name));
            }
        }
    }
    return out;
}

static Value opt_dur_value(const std::optional<double>& v) { return v ? vdur(*v) : vtext("—"); }
static Value opt_fraction(const std::optional<double>& v)
{
    return v ? Value::num(*v, *v >= 0.1 ? fmt_fixed(*v, 2) : fmt_sig(*v, 2), "fraction") : vtext("—");
}

static void roofline_model_blocks(BuildContext& cx, Section& sec, const RooflineReport& r, const NcuReport* ncu)
{
    const CostModelResult& c = r.cost;
    cx.thresholds["roofline.top_k"] = std::to_string(r.options.top_k);
    cx.thresholds["roofline.tau"] = fmt_sig(r.options.tau, 3);
    cx.thresholds["roofline.kappa"] = fmt_sig(c.options.kappa, 3);
    cx.thresholds["roofline.bw_efficiency"] = fmt_sig(c.options.bw_efficiency, 3);
    KeyValues kv{"roofline", {}};
    kv.items.push_back({"gpu", cx.s("kv.gpu_spec"),
                        vtext(c.gpu.name + (c.gpu.from_trace ? " (" + cx.s("val.from_trace") + ")" : ""))});
    kv.items.push_back({"gemm_precision", cx.s("kv.gemm_precision"), vtext(precision_name(c.gemm_precision))});
    if (c.gemm_peak)
        kv.items.push_back({"gemm_peak", cx.s("kv.gemm_peak"),
                            Value::num(*c.gemm_peak, fmt_si(*c.gemm_peak, "FLOP/s"), "FLOP/s")});
    if (c.vector_peak)
        kv.items.push_back({"vector_peak", cx.s("kv.vector_peak"),
                            Value::num(*c.vector_peak, fmt_si(*c.vector_peak, "FLOP/s"), "FLOP/s")});
    kv.items.push_back(
        {"bandwidth", cx.s("kv.bandwidth"), Value::num(c.bandwidth, fmt_si(c.bandwidth, "B/s"), "B/s")});
    {
        // Per phase, with where its workload came from (trace, annotation, option, default: roofline.md).
        std::string shape;
        for (const PhaseCost& ph : c.phases)
            shape += (shape.empty() ? "" : "; ") + std::string(phase_name(ph.phase)) + " batch " +
                     std::to_string(ph.batch) +
                     (ph.phase == Phase::Prefill ? ", prompt " + std::to_string(ph.query_len)
                                                 : ", context " + std::to_string(ph.kv_len)) +
                     " (" + ph.shape_source + ")";
        kv.items.push_back({"shape", cx.s("kv.cost_shape"), vtext(shape)});
    }
    kv.items.push_back({"kappa", "κ", Value::num(c.options.kappa, fmt_sig(c.options.kappa, 3), "")});
    sec.blocks.push_back(std::move(kv));

    // Chart: roofs from the peaks and bandwidth; one point per (class, phase) with a measured time.
    Chart ch;
    ch.id = "roofline";
    ch.kind = ChartKind::Roofline;
    ch.title = cx.s("chart.roofline") + " — " + c.gpu.name;
    ch.x_label = cx.s("axis.intensity");
    ch.y_label = cx.s("axis.performance");
    ch.x_unit = "FLOP/B";
    ch.y_unit = "FLOP/s";
    ch.log_x = ch.log_y = true;
    if (c.bandwidth > 0)
        ch.roofs.push_back({"DRAM " + fmt_si(c.bandwidth, "B/s"), true, c.bandwidth});
    if (c.gemm_peak)
        ch.roofs.push_back({std::string(precision_name(c.gemm_precision)) + " tensor " +
                                fmt_si(*c.gemm_peak, "FLOP/s"),
                            false, *c.gemm_peak});
    if (c.vector_peak)
        ch.roofs.push_back({"vector " + fmt_si(*c.vector_peak, "FLOP/s"), false, *c.vector_peak});
    // A class measured faster than its roof (e_roof_inconsistent: the theory's operators and the kernels measured
    // under its name are not the same work, or the GPU row is wrong) would be drawn above the roof: it is left out
    // of the chart, as its E_roof is left out of the table.
    for (const ClassEfficiency& e : r.classes) {
        if (!e.t_actual_ns || *e.t_actual_ns <= 0 || e.flops <= 0 || e.bytes <= 0 || e.e_roof_inconsistent)
            continue;
        ch.points.push_back(
            {e.op_class + " (" + e.phase + ")", e.flops / e.bytes, e.flops / (*e.t_actual_ns * 1e-9), e.phase});
    }
    if (ncu) {
        for (const NcuLaunch& l : ncu->launches) {
            const NcuLaunchMetrics m = compute_ncu_metrics(l);
            if (m.intensity && m.achieved_flops_per_s && *m.intensity > 0 && *m.achieved_flops_per_s > 0)
                ch.points.push_back({"#" + std::to_string(l.id) + " " + kernel_short_name(l.name), *m.intensity,
                                     *m.achieved_flops_per_s, "ncu"});
        }
    }
    sec.blocks.push_back(std::move(ch));

    // Per operator class and phase: theory vs measurement.
    Table ct{"roofline_classes", cx.s("tbl.roofline_classes"), {}, {}, -1};
    ct.columns = {{"class", cx.s("col.class"), "", Align::Left},
                  {"phase", cx.s("col.phase"), "", Align::Left},
                  {"flops", cx.s("col.flops"), "FLOP", Align::Right},
                  {"bytes", cx.s("col.bytes"), "B", Align::Right},
                  {"intensity", cx.s("col.intensity"), "FLOP/B", Align::Right},
                  {"t_theory", cx.s("col.t_theory"), "ns", Align::Right},
                  {"t_actual", cx.s("col.t_actual"), "ns", Align::Right},
                  {"e_roof", cx.s("col.e_roof"), "fraction", Align::Right}};
    for (const ClassEfficiency& e : r.classes) {
        const double in = e.bytes > 0 ? e.flops / e.bytes : 0;
        ct.rows.push_back({vtext(e.op_class), vtext(e.phase), Value::num(e.flops, fmt_si(e.flops, "FLOP"), "FLOP"),
                           vbytes(e.bytes), Value::num(in, fmt_sig(in, 3), "FLOP/B"), opt_dur_value(e.t_theory_ns),
                           opt_dur_value(e.t_actual_ns), opt_fraction(e.e_roof)});
    }
    if (!ct.rows.empty())
        sec.blocks.push_back(std::move(ct));

    // Per operator of the cost model (whole-model totals for one pass of each phase).
    Table ot{"roofline_operators", cx.s("tbl.roofline_ops"), {}, {}, -1};
    ot.columns = {{"phase", cx.s("col.phase"), "", Align::Left},
                  {"operator", cx.s("col.operator"), "", Align::Left},
                  {"weight_dtype", cx.s("col.weight_dtype"), "", Align::Left},
                  {"flops", cx.s("col.flops"), "FLOP", Align::Right},
                  {"bytes", cx.s("col.bytes"), "B", Align::Right},
                  {"intensity", cx.s("col.intensity"), "FLOP/B", Align::Right},
                  {"bound", cx.s("col.bound"), "", Align::Left},
                  {"t_theory", cx.s("col.t_theory"), "ns", Align::Right},
                  {"t_actual", cx.s("col.t_actual"), "ns", Align::Right},
                  {"e_roof", cx.s("col.e_roof"), "fraction", Align::Right}};
    for (const PhaseCost& ph : c.phases) {
        for (const OpCost& op : ph.ops) {
            const std::optional<double> actual = r.operator_actual_ns(op.name, ph.phase);
            std::optional<double> e;
            if (actual && op.t_theory_ns && *actual > 0)
                e = *op.t_theory_ns / *actual;
            ot.rows.push_back({vtext(phase_name(ph.phase)), vtext(op.name),
                               vtext(op.weight_dtype.empty() ? std::string("-") : op.weight_dtype),
                               Value::num(op.flops, fmt_si(op.flops, "FLOP"), "FLOP"), vbytes(op.bytes),
                               Value::num(op.intensity(), fmt_sig(op.intensity(), 3), "FLOP/B"), vtext(op.bound()),
                               opt_dur_value(op.t_theory_ns), opt_dur_value(actual), opt_fraction(e)});
        }
    }
    if (!ot.rows.empty())
        sec.blocks.push_back(std::move(ot));
    for (const std::string& w : r.warnings)
        sec.blocks.push_back(Note{Note::Kind::Warning, w});
}

Section build_roofline_section(BuildContext& cx)
{
    Section sec{"roofline", cx.s("sec.roofline"), {}, {}};
    const RooflineReport* r = cx.in.roofline;
    const NcuReport* ncu = cx.in.ncu;
    // An ncu file of another GPU or run is joined anyway: say so before any of its numbers.
    if (const NcuTraceMatch* m = cx.in.ncu_match) {
        for (const WorkloadWarning& w : m->warnings) {
            auto arg = [&w](const char* k) {
                const auto it = w.args.find(k);
                return it == w.args.end() ? std::string() : it->second;
            };
            const std::string text =
                w.code == "ncu_device_mismatch"
                    ? cx.f("ncu.device_mismatch", {arg("ncu_device"), arg("trace_device"), arg("evidence")})
                : w.code == "ncu_kernels_unmatched"
                    ? cx.f("ncu.kernels_unmatched", {arg("unmatched"), arg("launches"), arg("names")})
                    : w.message;
            sec.blocks.push_back(Note{Note::Kind::Warning, text});
        }
    }
    if (!r)
        cx.missing(sec, "miss.roofline", "eff.roofline");
    else
        roofline_model_blocks(cx, sec, *r, ncu);

    // Focus set and the deep-dive command: ncu on NVIDIA, rocprof-compute on AMD (the trace's vendor).
    const bool amd = cx.in.analysis && cx.in.analysis->workload.vendor == "AMD";
    Section fs{"roofline.focus", cx.s(amd ? "sec.focus_amd" : "sec.focus"), {}, {}};
    if (r && !r->focus.empty()) {
        Table t{"focus_classes", cx.s("tbl.focus"), {}, {}, -1};
        t.columns = {{"class", cx.s("col.class"), "", Align::Left},
                     {"phase", cx.s("col.phase"), "", Align::Left},
                     {"time", cx.s("col.total_time"), "ns", Align::Right},
                     {"e_roof", cx.s("col.e_roof"), "fraction", Align::Right},
                     {"reason", cx.s("col.reason"), "", Align::Left}};
        for (const FocusItem& f : r->focus) {
            if (!f.top_k && !f.low_efficiency)
                continue;
            std::string why = f.top_k ? cx.f("why.most_time", {std::to_string(r->options.top_k)}) : "";
            if (f.low_efficiency)
                why += std::string(why.empty() ? "" : "; ") + cx.f("why.low_eroof", {fmt_fixed(r->options.tau, 2)});
            t.rows.push_back({vtext(f.op_class), vtext(f.phase), vdur(double(f.measured_total_ns)),
                              opt_fraction(f.e_roof), vtext(why)});
        }
        fs.blocks.push_back(std::move(t));
    }
    if (const AnalysisResult* a = cx.in.analysis; a && !a->focus.entries.empty()) {
        Table t{"focus_kernels", cx.s("tbl.focus_kernels"), {}, {}, -1};
        t.columns = {{"name", cx.s("col.name"), "", Align::Left},
                     {"time", cx.s("col.total_time"), "ns", Align::Right},
                     {"share", cx.s("col.share"), "fraction", Align::Right},
                     {"cumulative", cx.s("col.cumulative"), "fraction", Align::Right},
                     {"reason", cx.s("col.reason"), "", Align::Left}};
        t.columns[0].max_chars = 64;
        for (const FocusEntry& e : a->focus.entries) {
            if (!e.in_top_k && !e.in_low_efficiency)
                continue;
            std::string why = e.in_top_k ? cx.f("why.most_time", {std::to_string(a->focus.options.top_k)}) : "";
            if (e.in_low_efficiency)
                why += std::string(why.empty() ? "" : "; ") +
                       cx.f("why.low_eroof", {fmt_fixed(cx.in.roofline ? cx.in.roofline->options.tau : 0.3, 2)});
            t.rows.push_back({vtext(name_of(cx, e.name)), vdur(double(e.time_ns)), vpct(e.share),
                              vpct(e.cumulative_share), vtext(why)});
        }
        fs.blocks.push_back(std::move(t));
    }
    const std::vector<std::string> names = focus_kernel_names(cx);
    if (!names.empty() && amd) {
        std::vector<std::string> bases;
        for (const std::string& n : names)
            if (std::string b = ncu_base_name(n); !b.empty() && std::find(bases.begin(), bases.end(), b) == bases.end())
                bases.push_back(std::move(b));
        fs.blocks.push_back(Paragraph{cx.s("txt.rocprof_command")});
        fs.blocks.push_back(
            Code{"sh", "rocprof-compute profile -n sightline-focus -k " + kernel_include_regex(bases) + " -- <application>"});
        fs.blocks.push_back(Paragraph{cx.s("txt.rocprof_analyze")});
        fs.blocks.push_back(Code{"sh", "rocprof-compute analyze -p workloads/sightline-focus/* > focus.txt"});
    } else if (!names.empty()) {
        fs.blocks.push_back(Paragraph{cx.s("txt.ncu_command")});
        // The shared filter (analysis/diagnosis/ncu_target.h): base names with or without a namespace, and the
        // launch window of one steady decode step, as `sightline-cli deep-dive` and the rules write it.
        std::string command = ncu_command(names);
        if (cx.in.trace && cx.in.analysis) {
            std::vector<StrId> ids;
            for (const std::string& n : names)
                if (const StrId id = cx.in.trace->strings.find(n); id != UINT32_MAX)
                    ids.push_back(id);
            if (const NcuTarget t = ncu_target(*cx.in.trace, *cx.in.analysis, ids, "decode"); !t.regex.empty())
                command = "ncu " + t.ncu_args() + " --set full --csv --page raw -o sightline-focus <application>";
        }
        fs.blocks.push_back(Code{"sh", command});
        fs.blocks.push_back(Paragraph{cx.s("txt.ncu_import")});
        fs.blocks.push_back(Code{"sh", "ncu --import sightline-focus.ncu-rep --csv --page raw > focus.csv"});
    } else if (!cx.in.analysis) {
        cx.missing(fs, "miss.analysis", "eff.analysis");
    }

    if (!ncu) {
        cx.missing(fs, amd ? "miss.counters_amd" : "miss.ncu", "eff.ncu");
    } else {
        Table t{"ncu_launches", cx.s("tbl.ncu"), {}, {}, int64_t(ncu->launches.size())};
        t.columns = {{"id", "ID", "", Align::Right},
                     {"name", cx.s("col.name"), "", Align::Left},
                     {"duration", cx.s("col.duration"), "ns", Align::Right},
                     {"flops", cx.s("col.achieved"), "FLOP/s", Align::Right},
                     {"intensity", cx.s("col.intensity"), "FLOP/B", Align::Right},
                     {"sm_pct", "SM %", "percent", Align::Right},
                     {"mem_pct", cx.s("col.mem_pct"), "percent", Align::Right},
                     {"occupancy", cx.s("col.occupancy"), "percent", Align::Right}};
        t.columns[1].max_chars = 48;
        auto pct = [](const std::optional<double>& v) {
            return v ? Value::num(*v, fmt_fixed(*v, 1), "percent") : vtext("—");
        };
        const size_t n = std::min<size_t>(ncu->launches.size(), 30);
        for (size_t i = 0; i < n; ++i) {
            const NcuLaunch& l = ncu->launches[i];
            const NcuLaunchMetrics m = compute_ncu_metrics(l);
            t.rows.push_back(
                {Value::num(double(l.id), std::to_string(l.id), ""), vtext(l.name), opt_dur_value(m.duration_ns),
                 m.achieved_flops_per_s
                     ? Value::num(*m.achieved_flops_per_s, fmt_si(*m.achieved_flops_per_s, "FLOP/s"), "FLOP/s")
                     : vtext("—"),
                 m.intensity ? Value::num(*m.intensity, fmt_sig(*m.intensity, 3), "FLOP/B") : vtext("—"),
                 pct(m.sm_throughput_pct), pct(m.memory_throughput_pct), pct(m.achieved_occupancy_pct)});
        }
        fs.blocks.push_back(std::move(t));
    }
    sec.children.push_back(std::move(fs));
    return sec;
}

void headline_time_sentences(BuildContext& cx, std::vector<std::string>& out)
{
    const Summary* sm = cx.in.summary;
    const AnalysisResult* a = cx.in.analysis;
    int64_t window = 0, busy = 0;
    int active = 0;
    if (sm) {
        for (const DeviceSummary& d : sm->devices) {
            window += d.window_ns;
            busy += d.busy_ns;
            if (d.window_ns > 0)
                ++active;
        }
    } else if (a) {
        for (const DeviceIdle& d : a->idle.devices) {
            window += d.window_ns;
            busy += d.busy_ns;
            if (d.window_ns > 0)
                ++active;
        }
    }
    if (window > 0) {
        const double idle = 1.0 - double(busy) / double(window);
        out.push_back(cx.f(active == 1 ? "hl.idle_one" : "hl.idle", {std::to_string(active), fmt_duration(double(busy)),
                                       fmt_duration(double(window)), fmt_percent(idle)}));
    }
    if (a) {
        IdleBreakdown sum;
        for (const DeviceIdle& d : a->idle.devices)
            for (size_t c = 0; c < kGapCauses; ++c)
                sum.ns[c] += d.breakdown.ns[c];
        const int64_t total = sum.total_ns();
        if (total > 0) {
            size_t top = 0;
            for (size_t c = 1; c < kGapCauses; ++c)
                if (sum.ns[c] > sum.ns[top])
                    top = c;
            static const char* const kCauseInText[kGapCauses] = {"cause_in_text.host_wait", "cause_in_text.kernel_wait",
                                                                 "cause_in_text.sync_wait", "cause_in_text.other",
                                                                 "cause_in_text.dependency_wait"};
            out.push_back(cx.f("hl.idle_cause", {cx.s(kCauseInText[top]), fmt_percent(double(sum.ns[top]) / double(total))}));
        }
        const PhaseResult& p = a->phases;
        if (p.source != StepSource::None && p.steady_steps > 0)
            out.push_back(cx.f("hl.tpot", {fmt_count(p.decode_steps), fmt_duration(p.tpot_median_ns),
                                           fmt_duration(p.tpot_p90_ns), fmt_percent(p.steady_utilization)}));
    }
    if (sm && !sm->kernels.by_name.empty()) {
        const StatRow& top = sm->kernels.by_name.front();
        out.push_back(cx.f("hl.top_kernel", {fmt_count(sm->kernels.count), kernel_short_name(top.name),
                                             fmt_fixed(top.percent, 1)}));
    }
}

} // namespace sl::report
