// The time-breakdown and Roofline sections of the report (report_model.cpp holds the rest).
#include "analysis/report_sections.h"

#include "analysis/summary.h"
#include "analysis/trace.h"

#include <algorithm>
#include <cmath>

namespace sl::report {

// A kernel name short enough for a chart axis: the function's base name ("void ns::foo<T>(args)" -> "foo").
std::string kernel_base_name(std::string_view name)
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
        ch.categories.push_back(kernel_base_name(rows[i].name));
        s.values.push_back(rows[i].percent);
    }
    ch.series.push_back(std::move(s));
    sec.blocks.push_back(std::move(ch));

    Table t{"top_kernels", cx.s("tbl.top_kernels"), {}, {}, int64_t(rows.size())};
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
    Section sec{"time.memory_api", cx.s("sec.memory_api"), {}, {}};
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
        Table t{"api", cx.s("tbl.api"), {}, {}, int64_t(api.size())};
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
        sec.blocks.push_back(Paragraph{cx.s("txt.no_memops_api")});
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
        const char* label = gap_bucket_defs()[b].label;
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

// Sections that need the analysis results (idle attribution, launch/sync, overlap, classes, phases).
static void analysis_sections(BuildContext& cx, Section& time)
{
    static const char* ids[][2] = {{"time.op_classes", "sec.op_classes"}, {"time.idle", "sec.idle"},
                                   {"time.launch", "sec.launch"},         {"time.sync", "sec.sync"},
                                   {"time.overlap", "sec.overlap"},       {"time.phases", "sec.phases"}};
    for (const auto& id : ids) {
        Section s{id[0], cx.s(id[1]), {}, {}};
        cx.missing(s, "miss.analysis", "eff.analysis");
        time.children.push_back(std::move(s));
    }
}

Section build_time_section(BuildContext& cx)
{
    Section sec{"time", cx.s("sec.time"), {}, {}};
    if (const Summary* sm = cx.in.summary) {
        cx.thresholds["summary.top_gaps"] = std::to_string(sm->options.top_gaps);
        if (sm->options.rank)
            cx.thresholds["summary.rank"] = std::to_string(*sm->options.rank);
    }
    sec.children.push_back(devices_section(cx));
    sec.children.push_back(top_kernels_section(cx));
    sec.children.push_back(gaps_section(cx));
    sec.children.push_back(memops_api_section(cx));
    analysis_sections(cx, sec);
    return sec;
}

Section build_roofline_section(BuildContext& cx)
{
    Section sec{"roofline", cx.s("sec.roofline"), {}, {}};
    cx.missing(sec, "miss.roofline", "eff.roofline");
    if (!cx.in.ncu)
        cx.missing(sec, "miss.ncu", "eff.ncu");
    return sec;
}

void headline_time_sentences(BuildContext& cx, std::vector<std::string>& out)
{
    const Summary* sm = cx.in.summary;
    if (!sm)
        return;
    int64_t window = 0, busy = 0;
    int active = 0;
    for (const DeviceSummary& d : sm->devices) {
        window += d.window_ns;
        busy += d.busy_ns;
        if (d.window_ns > 0)
            ++active;
    }
    if (window > 0) {
        const double idle = 1.0 - double(busy) / double(window);
        out.push_back(cx.f("hl.idle", {std::to_string(active), fmt_duration(double(busy)),
                                       fmt_duration(double(window)), fmt_percent(idle)}));
    }
    if (!sm->kernels.by_name.empty()) {
        const StatRow& top = sm->kernels.by_name.front();
        out.push_back(cx.f("hl.top_kernel", {fmt_count(sm->kernels.count), kernel_base_name(top.name),
                                             fmt_fixed(top.percent, 1)}));
    }
}

} // namespace sl::report
