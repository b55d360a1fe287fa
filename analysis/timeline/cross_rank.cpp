#include "analysis/timeline/cross_rank.h"

#include <algorithm>
#include <climits>
#include <map>

namespace sl {

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
                a.latency_ns += fastest;
                a.excess_ns += static_cast<int64_t>(static_cast<double>(fastest) * (1.0 - 1.0 / ratio));
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

        // Against the other ranks' median, collective by collective: lateness and lead-in.
        auto median = [](std::vector<double>& v) {
            std::sort(v.begin(), v.end());
            const size_t n = v.size();
            return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
        };
        double late_sum = 0, lead_mine = 0, lead_med = 0;
        int64_t n_late = 0, n_lead = 0;
        std::map<std::string, std::pair<int64_t, int64_t>> kinds;   // kind -> (matched, straggler last)
        std::vector<double> starts, leads;
        for (const MatchedCollective& m : matched) {
            if (m.records.empty())
                continue;
            auto& k = kinds[recs[m.records.front()].kind];
            k.first += 1;
            if (m.last_rank != *stats.straggler_rank)
                continue;
            k.second += 1;
            starts.clear();
            leads.clear();
            int64_t my_start = 0, my_prev = INT64_MIN;
            for (uint32_t i : m.records) {
                if (recs[i].rank == m.last_rank) {
                    my_start = recs[i].start;
                    my_prev = prev_end[i];
                    continue;
                }
                starts.push_back(static_cast<double>(recs[i].start));
                if (prev_end[i] != INT64_MIN)
                    leads.push_back(static_cast<double>(recs[i].start - prev_end[i]));
            }
            if (starts.empty())
                continue;
            late_sum += static_cast<double>(my_start) - median(starts);
            ++n_late;
            if (my_prev != INT64_MIN && !leads.empty()) {
                lead_mine += static_cast<double>(my_start - my_prev);
                lead_med += median(leads);
                ++n_lead;
            }
        }
        if (n_late > 0)
            out.straggler_lateness_ns = late_sum / static_cast<double>(n_late);
        if (n_lead > 0 && lead_med > 0)
            out.straggler_lead_in_vs_median = lead_mine / lead_med - 1.0;
        int64_t best = 0;
        for (const auto& [kind, c] : kinds)
            if (c.second > best) {
                best = c.second;
                out.straggler_kind = kind;
                out.straggler_kind_last_fraction = static_cast<double>(c.second) / static_cast<double>(c.first);
            }
    }
    return out;
}

} // namespace sl
