#include "analysis/report/summary_json.h"

#include <cmath>

namespace sl {

namespace {

using nlohmann::json;

int64_t rounded(double v) { return static_cast<int64_t>(std::llround(v)); }

json stat_row(const StatRow& r)
{
    return json{{"name", r.name},          {"instances", r.instances}, {"total_ns", r.total_ns},
                {"avg_ns", rounded(r.avg_ns)}, {"med_ns", rounded(r.med_ns)}, {"min_ns", r.min_ns},
                {"max_ns", r.max_ns},      {"stddev_ns", rounded(r.stddev_ns)}, {"percent", r.percent}};
}

json stat_section(const StatSection& s)
{
    json rows = json::array();
    for (const auto& r : s.by_name)
        rows.push_back(stat_row(r));
    return json{{"count", s.count}, {"total_ns", s.total_ns}, {"by_name", std::move(rows)}};
}

json gap_op(const GapNeighbor& g)
{
    return json{{"kind", gpu_op_kind_name(g.op.kind)}, {"index", g.op.index}, {"name", g.name},
                {"stream", g.stream}, {"start_ns", g.start_ns}, {"end_ns", g.end_ns}};
}

} // namespace

nlohmann::json summary_to_json(const Trace& t, const Summary& s)
{
    json j;
    j["schema"] = kSummarySchema;

    json devices = json::array();
    for (const auto& d : t.meta.devices) {
        if (s.options.rank && d.rank != *s.options.rank)
            continue;
        devices.push_back(json{{"id", d.id},
                               {"name", d.name},
                               {"rank", d.rank},
                               {"sm_count", d.sm_count},
                               {"memory_bandwidth_bps", static_cast<int64_t>(std::llround(d.memory_bandwidth_Bps))},
                               {"clock_hz", d.clock_hz}});
    }
    j["trace"] = json{{"format", t.meta.format},
                      {"tool_version", t.meta.tool_version},
                      {"schema_version", t.meta.schema_version},
                      {"source", t.meta.source_path},
                      {"capture", json{{"start_ns", t.meta.capture_start}, {"end_ns", t.meta.capture_end}}},
                      {"devices", std::move(devices)}};
    j["options"] = json{{"rank", s.options.rank ? json(*s.options.rank) : json(nullptr)},
                        {"top_gaps", s.options.top_gaps}};

    j["kernels"] = stat_section(s.kernels);
    j["api"] = stat_section(s.api);

    json ops = json::array();
    for (const auto& r : s.memops.by_operation)
        ops.push_back(json{{"operation", r.operation},
                           {"count", r.count},
                           {"total_ns", r.total_ns},
                           {"avg_ns", rounded(r.avg_ns)},
                           {"med_ns", rounded(r.med_ns)},
                           {"min_ns", r.min_ns},
                           {"max_ns", r.max_ns},
                           {"stddev_ns", rounded(r.stddev_ns)},
                           {"percent", r.percent},
                           {"bytes", r.bytes},
                           {"avg_bytes", rounded(r.avg_bytes)},
                           {"med_bytes", rounded(r.med_bytes)},
                           {"min_bytes", r.min_bytes},
                           {"max_bytes", r.max_bytes},
                           {"stddev_bytes", rounded(r.stddev_bytes)}});
    j["memops"] = json{{"count", s.memops.count},
                       {"total_ns", s.memops.total_ns},
                       {"bytes", s.memops.bytes},
                       {"by_operation", std::move(ops)}};

    json ranges = json::array();
    for (const auto& r : s.nvtx.by_name) {
        json row = stat_row(r);
        row["style"] = r.style;
        ranges.push_back(std::move(row));
    }
    j["nvtx"] = json{{"count", s.nvtx.count}, {"total_ns", s.nvtx.total_ns}, {"by_name", std::move(ranges)}};

    json devs = json::array();
    for (const auto& d : s.devices) {
        json hist = json::array();
        for (const auto& b : d.gaps.histogram)
            hist.push_back(json{{"bucket", b.label},
                                {"lo_ns", b.lo_ns},
                                {"hi_ns", b.hi_ns < 0 ? json(nullptr) : json(b.hi_ns)},
                                {"count", b.count},
                                {"total_ns", b.total_ns}});
        json largest = json::array();
        for (const auto& g : d.gaps.largest)
            largest.push_back(json{{"start_ns", g.start_ns},
                                   {"duration_ns", g.duration_ns},
                                   {"before", gap_op(g.before)},
                                   {"after", gap_op(g.after)}});
        devs.push_back(json{{"id", d.id},
                            {"rank", d.rank},
                            {"name", d.name},
                            {"kernels", d.kernels},
                            {"memcpys", d.memcpys},
                            {"memsets", d.memsets},
                            {"start_ns", d.window_start_ns},
                            {"end_ns", d.window_end_ns},
                            {"window_ns", d.window_ns},
                            {"busy_ns", d.busy_ns},
                            {"idle_ns", d.idle_ns},
                            {"utilization", d.utilization},
                            {"busy_periods", d.busy_periods},
                            {"gaps", json{{"count", d.gaps.count},
                                          {"total_ns", d.gaps.total_ns},
                                          {"histogram", std::move(hist)},
                                          {"largest", std::move(largest)}}}});
    }
    j["devices"] = std::move(devs);
    j["warnings"] = s.warnings;
    return j;
}

} // namespace sl
