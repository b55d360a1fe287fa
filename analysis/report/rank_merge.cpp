#include "analysis/report/rank_merge.h"

#include "analysis/report/collectives_json.h"
#include "analysis/report/rank_findings.h"
#include "analysis/trace/errors.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <map>

namespace sl {

using nlohmann::json;

RankMerge merge_partials(std::vector<RankPartial> parts, const CollectiveOptions& options,
                         const std::vector<std::string>& rule_dirs, RankGrid* grid)
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
    std::vector<int64_t> shifts(parts.size(), 0);
    std::map<int32_t, size_t> row_of;   // rank -> grid row
    if (grid) {
        *grid = RankGrid{};
        for (size_t i = 0; i < parts.size(); ++i)
            row_of[ranks[i]] = 0;
        size_t row = 0;
        for (auto& [r, k] : row_of) {
            k = row++;
            grid->ranks.push_back(r);
        }
        grid->traces.resize(parts.size());
        for (const auto& p : parts)
            grid->steps = std::max<int64_t>(grid->steps, static_cast<int64_t>(p.steps.wall_ns.size()));
        const size_t n = parts.size() * static_cast<size_t>(grid->steps);
        grid->step_ns.assign(n, std::nan(""));
        grid->step_start_ns.assign(n, 0);
        grid->step_prefill.assign(n, 0);
        for (size_t i = 0; i < parts.size(); ++i) {
            const size_t row = row_of[ranks[i]];
            const PartialSteps& ps = parts[i].steps;
            grid->traces[row] = parts[i].trace_path;
            for (size_t k = 0; k < ps.wall_ns.size(); ++k) {
                const size_t c = grid->cell(row, k, grid->steps);
                grid->step_ns[c] = static_cast<double>(ps.wall_ns[k]);
                grid->step_start_ns[c] = k < ps.start_ns.size() ? ps.start_ns[k] : 0;
                grid->step_prefill[c] = k < ps.prefill.size() ? ps.prefill[k] : 0;
            }
        }
    }
    for (size_t i = 0; i < parts.size(); ++i) {
        RankPartial& p = parts[i];
        out.inputs.push_back(p.source);
        const int64_t shift = all_epoch ? p.utc_epoch_ns - min_epoch : p.utc_epoch_ns;
        shifts[i] = shift;
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
    if (grid) {
        std::map<int32_t, int64_t> shift_of;
        for (size_t i = 0; i < parts.size(); ++i)
            shift_of[ranks[i]] = shifts[i];
        std::vector<const MatchedCollective*> order;
        for (const MatchedCollective& mc : matched)
            if (!mc.records.empty())
                order.push_back(&mc);
        auto first_start = [&](const MatchedCollective* mc) {
            int64_t t = INT64_MAX;
            for (uint32_t i : mc->records)
                t = std::min(t, records[i].start);
            return t;
        };
        std::stable_sort(order.begin(), order.end(), [&](const MatchedCollective* x, const MatchedCollective* y) {
            return first_start(x) < first_start(y);
        });
        grid->collectives_total = static_cast<int64_t>(order.size());
        grid->collectives = std::min<int64_t>(grid->collectives_total, RankGrid::kMaxCollectiveColumns);
        const size_t n = grid->ranks.size() * static_cast<size_t>(grid->collectives);
        grid->lateness_ns.assign(n, std::nan(""));
        grid->collective_start_ns.assign(n, 0);
        grid->collective_end_ns.assign(n, 0);
        for (int64_t c = 0; c < grid->collectives; ++c) {
            const MatchedCollective& mc = *order[static_cast<size_t>(c)];
            grid->collective_kind.push_back(records[mc.records.front()].kind);
            const int64_t earliest = first_start(&mc);
            for (uint32_t i : mc.records) {
                const auto it = row_of.find(records[i].rank);
                if (it == row_of.end())
                    continue;
                const size_t cell = grid->cell(it->second, static_cast<size_t>(c), grid->collectives);
                grid->lateness_ns[cell] = static_cast<double>(records[i].start - earliest);
                grid->collective_start_ns[cell] = records[i].start - shift_of[records[i].rank];
                grid->collective_end_ns[cell] = records[i].end - shift_of[records[i].rank];
            }
        }
    }

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
        std::vector<double> medians;
        for (const auto& r : out.ranks)
            if (r.steady_steps > 0 && r.step_median_ns > 0)
                medians.push_back(r.step_median_ns);
        std::sort(medians.begin(), medians.end());
        const size_t n = medians.size();
        RankStepSpread& st = out.step_ranks;
        st.ranks = static_cast<int32_t>(n);
        st.slowest = slow->rank;
        st.fastest = fast->rank;
        st.slowest_median_ns = slow->step_median_ns;
        st.fastest_median_ns = fast->step_median_ns;
        st.median_of_ranks_ns = n % 2 ? medians[n / 2] : 0.5 * (medians[n / 2 - 1] + medians[n / 2]);
        st.slowest_steps = slow->steady_steps;
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
    RankFindingsOptions fo;
    fo.rule_dirs = rule_dirs;
    RankFindings rf = rank_merge_findings(out, fo);
    out.rule_findings = std::move(rf.findings);
    for (const RuleError& e : rf.errors)
        out.warnings.push_back("rule file " + e.file + (e.rule_id.empty() ? "" : ", rule " + e.rule_id) + ": " +
                               e.message);
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
    j["alltoall"]["excess_ns"] = a.excess_ns;
    j["alltoall"]["latency_ns"] = a.latency_ns;
    j["straggler_lead_in_excess"] = opt(m.cross.straggler_lead_in_excess);
    j["straggler"] = {{"rank", m.collectives.straggler_rank ? json(*m.collectives.straggler_rank) : json(nullptr)},
                      {"makes_others_wait", m.collectives.straggler_makes_others_wait},
                      {"lateness_ns", opt(m.cross.straggler_lateness_ns)},
                      {"lead_in_vs_median", opt(m.cross.straggler_lead_in_vs_median)},
                      {"kind", m.cross.straggler_kind.empty() ? json(nullptr) : json(m.cross.straggler_kind)},
                      {"kind_last_fraction", opt(m.cross.straggler_kind_last_fraction)},
                      {"wait_ns", m.collectives.straggler_wait_ns},
                      {"exposed_wait_ns", m.collectives.straggler_exposed_wait_ns}};
    j["steps"]["median_of_ranks_ns"] = m.step_ranks.ranks > 0 ? json(m.step_ranks.median_of_ranks_ns) : json(nullptr);
    j["findings"] = m.findings;
    j["cross_rank_findings"] = findings_to_json(m.rule_findings);
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
        out += "\nIn short\n";
        for (const auto& f : m.findings)
            out += "  - " + f + "\n";
    }
    if (!m.rule_findings.empty())
        out += "\nFindings across ranks\n" + findings_to_text(m.rule_findings);
    for (const auto& w : m.warnings)
        out += "note: " + w + "\n";
    return out;
}

} // namespace sl
