#include "analysis/report/rank_merge.h"

#include "analysis/report/collectives_json.h"
#include "analysis/trace/errors.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <map>

namespace sl {

using nlohmann::json;

CrossRankComm cross_rank_comm(const std::vector<CollectiveRecord>& recs, const std::vector<MatchedCollective>& matched,
                              const CollectiveStats& stats)
{
    CrossRankComm out;
    std::map<std::pair<std::string, std::string>, CollectiveLatency> groups;
    std::map<int32_t, int64_t> heaviest;
    double ratio_sum = 0;
    for (const MatchedCollective& m : matched) {
        if (m.records.empty())
            continue;
        const CollectiveRecord& first = recs[m.records.front()];
        auto& g = groups[{first.process_group, first.kind}];
        g.process_group = first.process_group;
        g.kind = first.kind;
        g.matched += 1;
        int64_t fastest = INT64_MAX;
        for (uint32_t i : m.records) {
            fastest = std::min(fastest, recs[i].duration());
            g.time_ns += recs[i].duration();
        }
        g.latency_ns += fastest;
        g.mean_skew_ns += static_cast<double>(m.skew_ns);
        out.comm_latency_ns += fastest;
        if (first.kind == "alltoall") {
            auto& a = out.alltoall;
            a.matched += 1;
            double sum = 0, mx = 0;
            int32_t heavy = first.rank;
            bool sized = true;
            for (uint32_t i : m.records) {
                sized = sized && recs[i].bytes > 0;
                sum += recs[i].bytes;
                if (recs[i].bytes > mx) {
                    mx = recs[i].bytes;
                    heavy = recs[i].rank;
                }
            }
            if (sized) {
                a.sized += 1;
                const double ratio = mx / (sum / static_cast<double>(m.records.size()));
                ratio_sum += ratio;
                a.max_ratio = std::max(a.max_ratio.value_or(0.0), ratio);
                heaviest[heavy] += 1;
            }
        }
    }
    for (auto& [k, g] : groups) {
        g.mean_skew_ns = g.matched > 0 ? g.mean_skew_ns / static_cast<double>(g.matched) : 0;
        out.by_group.push_back(g);
    }
    std::stable_sort(out.by_group.begin(), out.by_group.end(),
                     [](const CollectiveLatency& x, const CollectiveLatency& y) { return x.latency_ns > y.latency_ns; });
    if (out.alltoall.sized > 0) {
        out.alltoall.mean_ratio = ratio_sum / static_cast<double>(out.alltoall.sized);
        for (const auto& [r, n] : heaviest)
            if (n > out.alltoall.heaviest_count) {
                out.alltoall.heaviest_count = n;
                out.alltoall.heaviest_rank = r;
            }
    }
    // Lead-in: the time from a rank's previous collective's end to this collective's start (its compute and host
    // work in between), on the collectives the straggler starts last.
    if (stats.straggler_rank) {
        std::map<int32_t, std::vector<uint32_t>> by_rank;
        for (uint32_t i = 0; i < recs.size(); ++i)
            by_rank[recs[i].rank].push_back(i);
        std::vector<int64_t> prev_end(recs.size(), INT64_MIN);
        for (auto& [r, v] : by_rank) {
            std::sort(v.begin(), v.end(), [&](uint32_t x, uint32_t y) {
                return std::make_pair(recs[x].start, recs[x].order) < std::make_pair(recs[y].start, recs[y].order);
            });
            for (size_t j = 1; j < v.size(); ++j)
                prev_end[v[j]] = recs[v[j - 1]].end;
        }
        double mine = 0, others = 0;
        int64_t n_mine = 0, n_others = 0;
        for (const MatchedCollective& m : matched) {
            if (m.last_rank != *stats.straggler_rank)
                continue;
            for (uint32_t i : m.records) {
                if (prev_end[i] == INT64_MIN)
                    continue;
                const double lead = static_cast<double>(recs[i].start - prev_end[i]);
                if (recs[i].rank == m.last_rank) {
                    mine += lead;
                    ++n_mine;
                } else {
                    others += lead;
                    ++n_others;
                }
            }
        }
        if (n_mine > 0 && n_others > 0 && others > 0)
            out.straggler_lead_in_excess = (mine / static_cast<double>(n_mine)) /
                                               (others / static_cast<double>(n_others)) - 1.0;
    }
    return out;
}

RankMerge merge_partials(std::vector<RankPartial> parts, const CollectiveOptions& options)
{
    if (parts.empty())
        throw TraceError("", "", "at least one partial to merge", "none");
    RankMerge out;
    const RankPartial& first = parts.front();
    std::map<int32_t, const RankPartial*> seen;
    std::vector<int32_t> ranks(parts.size());
    for (size_t i = 0; i < parts.size(); ++i) {
        const RankPartial& p = parts[i];
        if (p.world_size != first.world_size)
            throw TraceError(p.source, "identity.world_size",
                             "world size " + std::to_string(first.world_size) + ", as in " + first.source,
                             std::to_string(p.world_size));
        for (size_t k = 0; k < i; ++k)
            if (!p.source.empty() && parts[k].source == p.source)
                throw TraceError(p.source, "", "each partial once (one per rank)", "the same file twice");
        ranks[i] = p.rank.value_or(static_cast<int32_t>(i));
        if (p.rank && *p.rank >= p.world_size)
            throw TraceError(p.source, "identity.rank",
                             "a rank below the world size " + std::to_string(p.world_size), std::to_string(*p.rank));
        auto [it, fresh] = seen.emplace(ranks[i], &p);
        if (!fresh)
            throw TraceError(p.source, "identity.rank",
                             "a rank no other partial claims (one partial per rank)",
                             "rank " + std::to_string(ranks[i]) + ", also in " + it->second->source);
    }
    out.world_size = first.world_size;
    // Time base: as merge_traces aligns ranks.
    bool all_epoch = true;
    int64_t min_epoch = INT64_MAX;
    for (const auto& p : parts) {
        all_epoch = all_epoch && p.utc_epoch_ns != 0;
        if (p.utc_epoch_ns != 0)
            min_epoch = std::min(min_epoch, p.utc_epoch_ns);
    }
    std::vector<CollectiveRecord> records;
    for (size_t i = 0; i < parts.size(); ++i) {
        RankPartial& p = parts[i];
        out.inputs.push_back(p.source);
        const int64_t shift = all_epoch ? p.utc_epoch_ns - min_epoch : p.utc_epoch_ns;
        for (auto& r : p.collectives) {
            r.rank = ranks[i];
            r.start += shift;
            r.end += shift;
            if (r.launch_ns != kNoLaunch)
                r.launch_ns += shift;
            for (auto& [s, e] : r.cover) {
                s += shift;
                e += shift;
            }
            records.push_back(std::move(r));
        }
        RankRow row;
        row.rank = ranks[i];
        row.partial = p.source;
        row.trace = p.trace_path;
        row.host = p.host;
        row.wall_ns = p.wall_ns;
        for (const auto& d : p.devices) {
            row.busy_ns += d.busy_ns;
            row.idle_ns += d.idle_ns;
            row.host_wait_ns += d.host_wait_ns;
        }
        row.steady_steps = p.steps.steady_steps;
        row.step_median_ns = p.steps.tpot_median_ns;
        row.step_mean_ns = p.steps.tpot_mean_ns;
        row.collectives = static_cast<int64_t>(p.collectives.size());
        out.ranks.push_back(std::move(row));
        for (const auto& w : p.warnings)
            out.warnings.push_back(p.source + ": " + w);
        p.collectives.clear();
        p.collectives.shrink_to_fit();
    }
    std::stable_sort(out.ranks.begin(), out.ranks.end(),
                     [](const RankRow& x, const RankRow& y) { return x.rank < y.rank; });
    std::vector<MatchedCollective> matched;
    out.collectives = collective_stats_from_records(records, options, &matched);
    out.cross = cross_rank_comm(records, matched, out.collectives);

    const RankRow* slow = nullptr;
    const RankRow* fast = nullptr;
    for (const auto& r : out.ranks) {
        if (r.steady_steps <= 0 || r.step_median_ns <= 0)
            continue;
        if (!slow || r.step_median_ns > slow->step_median_ns)
            slow = &r;
        if (!fast || r.step_median_ns < fast->step_median_ns)
            fast = &r;
    }
    if (slow && fast) {
        out.slowest_rank = slow->rank;
        out.fastest_rank = fast->rank;
        out.step_spread = slow->step_median_ns / fast->step_median_ns - 1.0;
    }

    const CollectiveStats& st = out.collectives;
    if (st.straggler_rank && st.matched > 0 && st.straggler_makes_others_wait) {
        int64_t last = 0;
        for (const auto& rc : st.ranks)
            if (rc.rank == *st.straggler_rank)
                last = rc.last_arrivals;
        char buf[400];
        std::snprintf(buf, sizeof buf, "rank %d arrives last at %.0f %% of matched collectives (%lld of %lld)",
                      *st.straggler_rank, 100.0 * static_cast<double>(last) / static_cast<double>(st.matched),
                      static_cast<long long>(last), static_cast<long long>(st.matched));
        std::string line = buf;
        if (out.cross.straggler_lead_in_excess) {
            std::snprintf(buf, sizeof buf, "; its time since its previous collective is %.0f %% %s than the others'",
                          100.0 * std::abs(*out.cross.straggler_lead_in_excess),
                          *out.cross.straggler_lead_in_excess >= 0 ? "longer" : "shorter");
            line += buf;
        }
        if (st.straggler_makes_others_wait) {
            std::snprintf(buf, sizeof buf, "; the other ranks wait %.3f ms for it (%.3f ms exposed)",
                          static_cast<double>(st.straggler_wait_ns) / 1e6,
                          static_cast<double>(st.straggler_exposed_wait_ns) / 1e6);
            line += buf;
        }
        out.findings.push_back(line);
    }
    if (out.step_spread && *out.step_spread >= 0.05 && out.slowest_rank) {
        char buf[200];
        std::snprintf(buf, sizeof buf, "rank %d's median step is %.1f %% longer than rank %d's", *out.slowest_rank,
                      100.0 * *out.step_spread, *out.fastest_rank);
        out.findings.push_back(buf);
    }
    if (out.cross.alltoall.mean_ratio && *out.cross.alltoall.mean_ratio >= 1.2) {
        char buf[200];
        std::snprintf(buf, sizeof buf,
                      "all-to-all sizes are unbalanced: the largest rank sends %.2fx the mean (max %.2fx); rank %d is "
                      "the largest most often",
                      *out.cross.alltoall.mean_ratio, *out.cross.alltoall.max_ratio,
                      out.cross.alltoall.heaviest_rank.value_or(-1));
        out.findings.push_back(buf);
    }
    if (parts.size() > 1 && st.ranks.size() < parts.size())
        out.warnings.push_back(std::to_string(parts.size() - st.ranks.size()) +
                               " partial(s) hold no collectives: left out of matching");
    return out;
}

json rank_merge_to_json(const RankMerge& m)
{
    json j;
    j["schema"] = kMergeSchema;
    j["inputs"] = m.inputs;
    j["world_size"] = m.world_size;
    json ranks = json::array();
    for (const auto& r : m.ranks)
        ranks.push_back({{"rank", r.rank},
                         {"partial", r.partial},
                         {"trace", r.trace},
                         {"host", r.host.empty() ? json(nullptr) : json(r.host)},
                         {"wall_ns", r.wall_ns},
                         {"busy_ns", r.busy_ns},
                         {"idle_ns", r.idle_ns},
                         {"host_wait_ns", r.host_wait_ns},
                         {"steady_steps", r.steady_steps},
                         {"step_median_ns", r.step_median_ns},
                         {"step_mean_ns", r.step_mean_ns},
                         {"collectives", r.collectives}});
    j["ranks"] = std::move(ranks);
    j["steps"] = {{"spread", m.step_spread ? json(*m.step_spread) : json(nullptr)},
                  {"slowest_rank", m.slowest_rank ? json(*m.slowest_rank) : json(nullptr)},
                  {"fastest_rank", m.fastest_rank ? json(*m.fastest_rank) : json(nullptr)}};
    j["collectives"] = collectives_to_json(m.collectives);
    json groups = json::array();
    for (const auto& g : m.cross.by_group)
        groups.push_back({{"process_group", g.process_group},
                          {"kind", g.kind},
                          {"matched", g.matched},
                          {"latency_ns", g.latency_ns},
                          {"time_ns", g.time_ns},
                          {"mean_skew_ns", g.mean_skew_ns}});
    j["comm_latency"] = {{"definition", "per matched collective, the fastest rank's kernel time"},
                         {"total_ns", m.cross.comm_latency_ns},
                         {"groups", std::move(groups)}};
    const auto& a = m.cross.alltoall;
    auto opt = [](const std::optional<double>& v) { return v ? json(*v) : json(nullptr); };
    j["alltoall"] = {{"matched", a.matched},
                     {"sized", a.sized},
                     {"mean_imbalance", opt(a.mean_ratio)},
                     {"max_imbalance", opt(a.max_ratio)},
                     {"heaviest_rank", a.heaviest_rank ? json(*a.heaviest_rank) : json(nullptr)},
                     {"heaviest_count", a.heaviest_count}};
    j["straggler_lead_in_excess"] = opt(m.cross.straggler_lead_in_excess);
    j["findings"] = m.findings;
    j["warnings"] = m.warnings;
    return j;
}

std::string rank_merge_to_text(const RankMerge& m)
{
    std::string out;
    char buf[512];
    std::snprintf(buf, sizeof buf, "Merged %zu rank partials (world size %d)\n", m.ranks.size(), m.world_size);
    out += buf;
    out += "  rank   wall ms    busy ms    idle ms   steady steps   step median ms   collectives\n";
    for (const auto& r : m.ranks) {
        std::snprintf(buf, sizeof buf, "  %4d %9.3f %10.3f %10.3f %14lld %16.3f %13lld\n", r.rank,
                      static_cast<double>(r.wall_ns) / 1e6, static_cast<double>(r.busy_ns) / 1e6,
                      static_cast<double>(r.idle_ns) / 1e6, static_cast<long long>(r.steady_steps),
                      r.step_median_ns / 1e6, static_cast<long long>(r.collectives));
        out += buf;
    }
    if (m.step_spread) {
        std::snprintf(buf, sizeof buf, "  step time spread: %.1f %% (slowest rank %d, fastest rank %d)\n",
                      100.0 * *m.step_spread, *m.slowest_rank, *m.fastest_rank);
        out += buf;
    }
    out += "\n" + collectives_to_text(m.collectives);
    std::snprintf(buf, sizeof buf, "  comm latency (fastest rank per matched collective): %.3f ms\n",
                  static_cast<double>(m.cross.comm_latency_ns) / 1e6);
    out += buf;
    for (const auto& g : m.cross.by_group) {
        std::snprintf(buf, sizeof buf, "    %-14s pg %-6s %6lld matched  latency %9.3f ms  mean skew %9.1f us\n",
                      g.kind.c_str(), g.process_group.empty() ? "-" : g.process_group.c_str(),
                      static_cast<long long>(g.matched), static_cast<double>(g.latency_ns) / 1e6, g.mean_skew_ns / 1e3);
        out += buf;
    }
    if (m.cross.alltoall.matched > 0) {
        const auto& a = m.cross.alltoall;
        if (a.mean_ratio)
            std::snprintf(buf, sizeof buf, "  all-to-all: %lld matched, %lld sized; imbalance mean %.2fx, max %.2fx\n",
                          static_cast<long long>(a.matched), static_cast<long long>(a.sized), *a.mean_ratio,
                          *a.max_ratio);
        else
            std::snprintf(buf, sizeof buf, "  all-to-all: %lld matched, none with sizes on every rank\n",
                          static_cast<long long>(a.matched));
        out += buf;
    }
    if (!m.findings.empty()) {
        out += "\nFindings\n";
        for (const auto& f : m.findings)
            out += "  - " + f + "\n";
    }
    for (const auto& w : m.warnings)
        out += "note: " + w + "\n";
    return out;
}

} // namespace sl
