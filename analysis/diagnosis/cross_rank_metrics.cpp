#include "analysis/diagnosis/cross_rank_metrics.h"

#include <algorithm>

namespace sl {

namespace {
double safe_div(double a, double b) { return b > 0 ? a / b : 0.0; }
} // namespace

void bind_cross_rank_metrics(MetricScope& s, const CollectiveStats& cs, const CrossRankComm& cross,
                             double device_time, const RankStepSpread* steps)
{
    auto& m = s.metrics;
    m["comm_ranks"] = double(cs.ranks.size());
    m["collectives_matched"] = double(cs.matched);
    m["collective_skew_mean_ns"] = cs.mean_skew_ns.value_or(0.0);
    m["collective_skew_max_ns"] = cs.max_skew_ns.value_or(0.0);
    m["straggler_rank"] = cs.straggler_rank ? double(*cs.straggler_rank) : -1.0;
    m["straggler_makes_others_wait"] = cs.straggler_makes_others_wait ? 1.0 : 0.0;
    double last_arrivals = 0;
    for (const auto& r : cs.ranks)
        if (cs.straggler_rank && r.rank == *cs.straggler_rank)
            last_arrivals = double(r.last_arrivals);
    m["straggler_last_fraction"] = safe_div(last_arrivals, double(cs.matched));
    m["straggler_wait_ns"] = double(cs.straggler_wait_ns);
    m["straggler_exposed_wait_ns"] = double(cs.straggler_exposed_wait_ns);
    m["straggler_exposed_wait_fraction"] = safe_div(double(cs.straggler_exposed_wait_ns), device_time);
    m["straggler_lateness_ns"] = cross.straggler_lateness_ns.value_or(0.0);
    m["straggler_lead_in_excess_fraction"] = cross.straggler_lead_in_vs_median.value_or(0.0);
    m["straggler_kind_last_fraction"] = cross.straggler_kind_last_fraction.value_or(0.0);
    for (const char* k : {"comm_ranks", "collectives_matched", "collective_skew_mean_ns", "collective_skew_max_ns",
                          "straggler_rank", "straggler_makes_others_wait", "straggler_last_fraction",
                          "straggler_wait_ns", "straggler_exposed_wait_ns", "straggler_exposed_wait_fraction",
                          "straggler_lateness_ns", "straggler_lead_in_excess_fraction", "straggler_kind_last_fraction"})
        s.sources[k] = "analysis:collectives";

    // All-to-all size imbalance (MoE dispatch/combine): every rank would gain the excess, so its share of the summed
    // device time is excess x ranks.
    const AllToAllImbalance& a = cross.alltoall;
    m["alltoall_matched"] = double(a.matched);
    m["alltoall_sized"] = double(a.sized);
    m["alltoall_imbalance"] = a.mean_ratio.value_or(1.0);
    m["alltoall_imbalance_max"] = a.max_ratio.value_or(1.0);
    m["alltoall_heaviest_rank"] = a.heaviest_rank ? double(*a.heaviest_rank) : -1.0;
    m["alltoall_heaviest_share"] = safe_div(double(a.heaviest_count), double(a.sized));
    m["alltoall_latency_ns"] = double(a.latency_ns);
    m["alltoall_excess_ns"] = double(a.excess_ns);
    m["alltoall_excess_all_ranks_ns"] = double(a.excess_ns) * double(cs.ranks.size());
    m["alltoall_excess_fraction"] =
        std::min(1.0, safe_div(double(a.excess_ns) * double(cs.ranks.size()), device_time));
    for (const char* k : {"alltoall_matched", "alltoall_sized", "alltoall_imbalance", "alltoall_imbalance_max",
                          "alltoall_heaviest_rank", "alltoall_heaviest_share", "alltoall_latency_ns",
                          "alltoall_excess_ns", "alltoall_excess_all_ranks_ns", "alltoall_excess_fraction"})
        s.sources[k] = "analysis:collectives";

    // Step time across ranks: the slowest rank's median step against the median rank's. What evening it out can
    // remove is the slowest rank's excess over the median rank, per step and over its steady steps.
    const RankStepSpread none;
    const RankStepSpread& st = steps ? *steps : none;
    const double excess = std::max(0.0, st.slowest_median_ns - st.median_of_ranks_ns);
    m["rank_step_ranks"] = double(st.ranks);
    m["rank_step_slowest"] = double(st.slowest);
    m["rank_step_fastest"] = double(st.fastest);
    m["rank_step_slowest_ns"] = st.slowest_median_ns;
    m["rank_step_median_ns"] = st.median_of_ranks_ns;
    m["rank_step_spread_fraction"] = st.fastest_median_ns > 0 ? st.slowest_median_ns / st.fastest_median_ns - 1.0 : 0.0;
    m["rank_step_excess_ns"] = excess;
    m["rank_step_excess_total_ns"] = excess * double(st.slowest_steps);
    m["rank_step_excess_fraction"] = safe_div(excess, st.slowest_median_ns);
    for (const char* k : {"rank_step_ranks", "rank_step_slowest", "rank_step_fastest", "rank_step_slowest_ns",
                          "rank_step_median_ns", "rank_step_spread_fraction", "rank_step_excess_ns",
                          "rank_step_excess_total_ns", "rank_step_excess_fraction"})
        s.sources[k] = "analysis:rank-steps";
}

} // namespace sl
