#include "analysis/report/rank_report.h"

#include "analysis/report/rank_merge.h"
#include "analysis/report/report_sections.h"

#include <cstdio>
#include <functional>

namespace sl::report {

namespace {

struct Words {
    Lang lang;
    std::string operator()(const char* en, const char* zh) const { return lang == Lang::ZhCN ? zh : en; }
};

Value vopt_pct(const std::optional<double>& v) { return v ? vpct(*v) : vtext("—"); }

} // namespace

Report build_merge_report(const RankMerge& m, const ReportOptions& o)
{
    const Words w{o.lang};
    Report r;
    r.lang = o.lang;
    r.version = SIGHTLINE_VERSION;
    r.detail = o.detail;
    r.trace_name = std::to_string(m.ranks.size()) + " ranks";
    r.title = !o.title.empty() ? o.title
                               : w("Sightline merge of ", "Sightline 多 rank 合并：") + std::to_string(m.ranks.size()) +
                                     w(" ranks", " 个 rank");
    r.generated_at = o.generated_at.empty() ? utc_now_iso() : o.generated_at;
    // A run id from the partials merged (their paths), as a trace's is derived from its inputs.
    if (o.run_id.empty()) {
        std::string joined;
        for (const auto& in : m.inputs)
            joined += in + '\n';
        char buf[32];
        std::snprintf(buf, sizeof buf, "merge-%08zx", std::hash<std::string>{}(joined) & 0xffffffffu);
        r.run_id = buf;
    } else {
        r.run_id = o.run_id;
    }

    const CollectiveStats& st = m.collectives;
    Section overview{"overview", w("Overview", "概览"), {}, {}};
    KeyValues kv{"merge", {}};
    kv.items.push_back({"world_size", w("World size", "world size"), Value::num(m.world_size, std::to_string(m.world_size), "count")});
    kv.items.push_back({"ranks", w("Ranks merged", "已合并的 rank"), vcount(static_cast<int64_t>(m.ranks.size()))});
    kv.items.push_back({"collectives_matched", w("Collectives matched on every rank", "在每个 rank 上匹配的集合通信"),
                        vcount(st.matched)});
    kv.items.push_back({"comm_latency_ns", w("Comm latency (fastest rank per collective)", "通信延迟（每次集合通信最快 rank 的时间）"),
                        vdur(static_cast<double>(m.cross.comm_latency_ns))});
    if (st.straggler_rank)
        kv.items.push_back({"straggler_rank", w("Rank arriving last most often", "最常最后到达的 rank"),
                            Value::num(*st.straggler_rank, std::to_string(*st.straggler_rank), "")});
    if (m.cross.straggler_lateness_ns)
        kv.items.push_back({"straggler_lateness_ns", w("Its lateness (vs the other ranks' median)", "其迟到时间（相对其他 rank 的中位数）"),
                            vdur(*m.cross.straggler_lateness_ns)});
    kv.items.push_back({"straggler_wait_ns", w("Other ranks' wait for it", "其他 rank 为它等待的时间"),
                        vdur(static_cast<double>(st.straggler_wait_ns))});
    kv.items.push_back({"step_spread", w("Step time spread (slowest / fastest rank − 1)", "步时离散度（最慢 / 最快 rank − 1）"),
                        vopt_pct(m.step_spread)});
    overview.blocks.push_back(std::move(kv));
    for (const auto& line : m.findings)
        overview.blocks.push_back(Paragraph{line});
    r.sections.push_back(std::move(overview));

    r.sections.push_back(findings_section(m.rule_findings, o));

    Section ranks{"ranks", w("Ranks", "各 rank"), {}, {}};
    Table t{"ranks", w("Per rank", "每个 rank"), {}, {}, -1};
    t.columns = {{"rank", "rank", "", Align::Right},
                 {"wall_ns", w("Wall", "墙钟时间"), "ns", Align::Right},
                 {"busy_ns", w("Busy", "忙碌"), "ns", Align::Right},
                 {"idle_ns", w("Idle", "空闲"), "ns", Align::Right},
                 {"steady_steps", w("Steady steps", "稳态步数"), "count", Align::Right},
                 {"step_median_ns", w("Median step", "步时中位数"), "ns", Align::Right},
                 {"collectives", w("Collectives", "集合通信"), "count", Align::Right},
                 {"last_arrivals", w("Arrives last", "最后到达次数"), "count", Align::Right}};
    for (const RankRow& row : m.ranks) {
        int64_t last = 0;
        for (const auto& rc : st.ranks)
            if (rc.rank == row.rank)
                last = rc.last_arrivals;
        t.rows.push_back({Value::num(row.rank, std::to_string(row.rank), ""), vdur(static_cast<double>(row.wall_ns)),
                          vdur(static_cast<double>(row.busy_ns)), vdur(static_cast<double>(row.idle_ns)),
                          vcount(row.steady_steps), vdur(row.step_median_ns), vcount(row.collectives), vcount(last)});
    }
    ranks.blocks.push_back(std::move(t));
    r.sections.push_back(std::move(ranks));

    Section comm{"collectives", w("Collectives across ranks", "跨 rank 的集合通信"), {}, {}};
    Table g{"comm_latency", w("Comm latency by process group and kind", "按进程组与类型的通信延迟"), {}, {}, -1};
    g.columns = {{"kind", w("Kind", "类型"), "", Align::Left},
                 {"process_group", w("Process group", "进程组"), "", Align::Left},
                 {"matched", w("Matched", "匹配数"), "count", Align::Right},
                 {"latency_ns", w("Latency", "延迟"), "ns", Align::Right},
                 {"time_ns", w("Time on all ranks", "所有 rank 的时间"), "ns", Align::Right},
                 {"mean_skew_ns", w("Mean skew", "平均偏差"), "ns", Align::Right}};
    for (const auto& c : m.cross.by_group)
        g.rows.push_back({vtext(c.kind), vtext(c.process_group.empty() ? "-" : c.process_group), vcount(c.matched),
                          vdur(static_cast<double>(c.latency_ns)), vdur(static_cast<double>(c.time_ns)),
                          vdur(c.mean_skew_ns)});
    comm.blocks.push_back(std::move(g));
    const auto& a = m.cross.alltoall;
    if (a.matched > 0) {
        KeyValues ak{"alltoall", {}};
        ak.items.push_back({"alltoall_matched", w("All-to-alls matched", "匹配的 all-to-all"), vcount(a.matched)});
        ak.items.push_back({"alltoall_sized", w("With a size on every rank", "每个 rank 都有数据量的"), vcount(a.sized)});
        if (a.mean_ratio)
            ak.items.push_back({"mean_imbalance", w("Largest rank / mean (mean)", "最大 rank / 平均（均值）"),
                                Value::num(*a.mean_ratio, fmt_fixed(*a.mean_ratio, 2) + "×", "")});
        if (a.max_ratio)
            ak.items.push_back({"max_imbalance", w("Largest rank / mean (max)", "最大 rank / 平均（最大）"),
                                Value::num(*a.max_ratio, fmt_fixed(*a.max_ratio, 2) + "×", "")});
        ak.items.push_back({"excess_ns", w("Time balanced sizes would remove", "数据量均衡后可省下的时间"),
                            vdur(static_cast<double>(a.excess_ns))});
        comm.blocks.push_back(std::move(ak));
    }
    r.sections.push_back(std::move(comm));

    if (!m.warnings.empty()) {
        Section notes{"notes", w("Notes", "说明"), {}, {}};
        for (const auto& n : m.warnings)
            notes.blocks.push_back(Note{Note::Kind::Warning, n});
        r.sections.push_back(std::move(notes));
    }
    Section inputs{"inputs", w("Inputs", "输入"), {}, {}};
    inputs.blocks.push_back(Bullets{m.inputs});
    r.sections.push_back(std::move(inputs));
    return r;
}

} // namespace sl::report
