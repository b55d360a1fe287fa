// Map and reduce across ranks (issue 38 §1): a merge of per-rank partials gives the numbers an analysis of all the
// ranks in one process gives, on generated ranks (always) and HTA's two sampled ranks of one job (with shared data).
#include "analysis/io/load.h"
#include "analysis/io/synthetic.h"
#include "analysis/io/synthetic_ranks.h"
#include "analysis/report/collectives_json.h"
#include "analysis/report/rank_findings.h"
#include "analysis/report/rank_merge.h"
#include "analysis/report/rank_partial.h"
#include "analysis/timeline/analysis.h"
#include "analysis/trace/errors.h"
#include "analysis/trace/merge.h"
#include "tests/support/planted_rank.h"
#include "tests/support/test_env.h"

#include <gtest/gtest.h>
#include <tuple>
#include <nlohmann/json.hpp>

using namespace sl;
using nlohmann::json;

namespace {

// The partial as `analyze --partial` writes it and `merge` reads it back: through its JSON text.
RankPartial partial_of(const Trace& t, const std::string& name)
{
    const AnalysisResult r = analyze(t, AnalysisOptions{});
    const std::string text = rank_partial_to_json(make_rank_partial(t, r, name)).dump();
    return rank_partial_from_json(text, name + ".partial.json");
}

Trace generated_rank(int32_t rank, int32_t world, int32_t straggler, int64_t skew_ns, int32_t heavy)
{
    return test::planted_rank(rank, world, straggler, skew_ns, 4, heavy);
}

// Everything merge computes from the matched collectives, from one merged trace.
struct OneProcess {
    CollectiveStats stats;
    CrossRankComm cross;
};
OneProcess one_process(const Trace& merged)
{
    const std::vector<CollectiveRecord> records = collective_records(merged);
    std::vector<MatchedCollective> matched;
    OneProcess out;
    out.stats = collective_stats_from_records(records, {}, &matched);
    out.cross = cross_rank_comm(records, matched, out.stats);
    // The matcher over records is collective_stats itself.
    EXPECT_EQ(collectives_to_json(out.stats), collectives_to_json(collective_stats(merged)));
    return out;
}

void expect_same(const RankMerge& m, const OneProcess& one)
{
    EXPECT_EQ(collectives_to_json(m.collectives).dump(2), collectives_to_json(one.stats).dump(2));
    EXPECT_EQ(m.cross.comm_latency_ns, one.cross.comm_latency_ns);
    ASSERT_EQ(m.cross.by_group.size(), one.cross.by_group.size());
    for (size_t i = 0; i < m.cross.by_group.size(); ++i) {
        EXPECT_EQ(m.cross.by_group[i].latency_ns, one.cross.by_group[i].latency_ns);
        EXPECT_EQ(m.cross.by_group[i].matched, one.cross.by_group[i].matched);
        EXPECT_EQ(m.cross.by_group[i].time_ns, one.cross.by_group[i].time_ns);
    }
    EXPECT_EQ(m.cross.alltoall.sized, one.cross.alltoall.sized);
    EXPECT_EQ(m.cross.alltoall.mean_ratio, one.cross.alltoall.mean_ratio);
    EXPECT_EQ(m.cross.straggler_lead_in_excess, one.cross.straggler_lead_in_excess);
    EXPECT_EQ(m.cross.straggler_lateness_ns, one.cross.straggler_lateness_ns);
    EXPECT_EQ(m.cross.straggler_lead_in_vs_median, one.cross.straggler_lead_in_vs_median);
    EXPECT_EQ(m.cross.straggler_kind, one.cross.straggler_kind);
    EXPECT_EQ(m.cross.alltoall.excess_ns, one.cross.alltoall.excess_ns);
}

const Finding* finding(const RankMerge& m, const std::string& rule)
{
    for (const Finding& f : m.rule_findings)
        if (f.rule == rule)
            return &f;
    return nullptr;
}

double evidence(const Finding& f, const std::string& metric)
{
    for (const Evidence& e : f.evidence)
        if (e.metric == metric)
            return e.value;
    ADD_FAILURE() << f.rule << " has no evidence " << metric;
    return -1;
}

} // namespace

// Four generated ranks, rank 2 late by 6 µs at every collective, rank 1's all-to-all input twice the others'.
TEST(RankMerge, GeneratedRanksMergeAsInOneProcess)
{
    const int32_t world = 4;
    std::vector<RankPartial> partials;
    std::vector<Trace> traces;
    for (int32_t r = 0; r < world; ++r) {
        traces.push_back(generated_rank(r, world, 2, 6'000, 1));
        partials.push_back(partial_of(traces.back(), "rank" + std::to_string(r)));
    }
    const RankMerge m = merge_partials(partials);
    const OneProcess one = one_process(merge_traces(std::move(traces)));
    expect_same(m, one);

    const CollectiveStats& s = m.collectives;
    ASSERT_EQ(s.ranks.size(), 4u);
    EXPECT_EQ(s.match_method, "end");
    EXPECT_EQ(s.unmatched, 0);
    EXPECT_EQ(s.kernels, 4 * s.matched);
    ASSERT_TRUE(s.straggler_rank.has_value());
    EXPECT_EQ(*s.straggler_rank, 2);
    EXPECT_TRUE(s.straggler_makes_others_wait);
    ASSERT_TRUE(s.mean_skew_ns.has_value());
    EXPECT_NEAR(*s.mean_skew_ns, 6'000, 300);   // the planted lateness, within 5 %
    EXPECT_EQ(s.kernels_with_metadata, s.kernels);
    // Comm latency: the fastest rank's time, i.e. the straggler's (it arrives when the others are already there).
    ASSERT_FALSE(m.cross.by_group.empty());
    EXPECT_LT(m.cross.comm_latency_ns, s.time_ns / 4);
    // All-to-all: 2 / mean(2, 1, 1, 1) = 1.6 on every one; rank 1 is the heaviest.
    EXPECT_GT(m.cross.alltoall.sized, 0);
    ASSERT_TRUE(m.cross.alltoall.mean_ratio.has_value());
    EXPECT_NEAR(*m.cross.alltoall.mean_ratio, 1.6, 1e-9);
    EXPECT_EQ(m.cross.alltoall.heaviest_rank, 1);
    // Per-rank steps: the same timeline on every rank.
    ASSERT_EQ(m.ranks.size(), 4u);
    EXPECT_GT(m.ranks[0].steady_steps, 0);
    ASSERT_TRUE(m.step_spread.has_value());
    EXPECT_NEAR(*m.step_spread, 0.0, 1e-9);
    ASSERT_FALSE(m.findings.empty());
    EXPECT_NE(m.findings[0].find("rank 2 arrives last at 100 %"), std::string::npos) << m.findings[0];
    const json j = rank_merge_to_json(m);
    EXPECT_EQ(j["schema"], kMergeSchema);
    EXPECT_EQ(j["collectives"]["straggler_rank"], 2);
}

// The partial holds the rank, its process group and every collective, and reads back to the same records.
TEST(RankMerge, PartialRoundTripsItsRecords)
{
    const Trace t = generated_rank(3, 4, 3, 10'000, -1);
    const AnalysisResult r = analyze(t, AnalysisOptions{});
    const RankPartial p = make_rank_partial(t, r, "rank3.json");
    const RankPartial q = rank_partial_from_json(rank_partial_to_json(p).dump(), "rank3.partial.json");
    ASSERT_TRUE(q.rank.has_value());
    EXPECT_EQ(*q.rank, 3);
    EXPECT_EQ(q.world_size, 4);
    ASSERT_EQ(q.process_groups.size(), 1u);
    EXPECT_EQ(q.process_groups[0].group_size, 4);
    EXPECT_EQ(q.process_groups[0].ranks, "[0, 1, 2, 3]");
    EXPECT_EQ(q.steps.wall_ns, p.steps.wall_ns);
    EXPECT_EQ(q.steps.tpot_median_ns, p.steps.tpot_median_ns);
    ASSERT_EQ(q.collectives.size(), p.collectives.size());
    for (size_t i = 0; i < p.collectives.size(); ++i) {
        const auto& a = p.collectives[i];
        const auto& b = q.collectives[i];
        EXPECT_EQ(a.start, b.start);
        EXPECT_EQ(a.end, b.end);
        EXPECT_EQ(a.launch_ns, b.launch_ns);
        EXPECT_EQ(a.kind, b.kind);
        EXPECT_EQ(a.seq, b.seq);
        EXPECT_EQ(a.bytes, b.bytes);
        EXPECT_EQ(a.cover, b.cover);
    }
    // Bounded: tens of bytes per collective, nothing per kernel.
    const size_t bytes = rank_partial_to_json(p).dump().size();
    EXPECT_LT(bytes, 4'000 + 80 * p.collectives.size()) << bytes;
}

// Partials that do not belong together are refused, naming the file and what was expected.
TEST(RankMerge, MismatchedPartialsAreRefused)
{
    const RankPartial a = partial_of(generated_rank(0, 2, -1, 0, -1), "a");
    const RankPartial b = partial_of(generated_rank(1, 2, -1, 0, -1), "b");
    const RankPartial c = partial_of(generated_rank(1, 4, -1, 0, -1), "c");
    auto message = [](std::vector<RankPartial> parts) {
        try {
            merge_partials(std::move(parts));
        } catch (const TraceError& e) {
            return std::string(e.what());
        }
        return std::string();
    };
    RankPartial b2 = b;
    b2.source = "b2.partial.json";
    const std::string dup = message({a, b, b2});
    EXPECT_NE(dup.find("b2.partial.json"), std::string::npos) << dup;
    EXPECT_NE(dup.find("also in b.partial.json"), std::string::npos) << dup;
    EXPECT_NE(dup.find("a rank no other partial claims"), std::string::npos) << dup;
    const std::string world = message({a, c});
    EXPECT_NE(world.find("c.partial.json"), std::string::npos) << world;
    EXPECT_NE(world.find("world size 2"), std::string::npos) << world;

    json j = rank_partial_to_json(make_rank_partial(generated_rank(0, 2, -1, 0, -1),
                                                    analyze(generated_rank(0, 2, -1, 0, -1), AnalysisOptions{}), "x"));
    j["schema"] = "sightline.partial/2";
    try {
        rank_partial_from_json(j.dump(), "x.partial.json");
        ADD_FAILURE() << "a partial of another version was read";
    } catch (const TraceError& e) {
        EXPECT_EQ(e.file(), "x.partial.json");
        EXPECT_NE(e.expected().find("sightline.partial/1"), std::string::npos) << e.what();
    }
    j["schema"] = kPartialSchema;
    j["collectives"]["duration_ns"].erase(0);
    try {
        rank_partial_from_json(j.dump(), "x.partial.json");
        ADD_FAILURE() << "columns of different lengths were read";
    } catch (const TraceError& e) {
        EXPECT_EQ(e.where(), "collectives.duration_ns");
    }
}

// HTA's trace_filter pair (ranks 0 and 1 of a 128-rank job): the merge of their partials is the one-process analysis.
TEST(RankMerge, SampledRanksOfOneJobMergeAsInOneProcess)
{
    const auto dir = test::shared_data_dir();
    if (!dir)
        GTEST_SKIP() << "SIGHTLINE_SHARED_DATA not set";
    const std::vector<std::string> files = {*dir + "/kineto/hta/trace_filter__sampled_rank-0.json.gz",
                                            *dir + "/kineto/hta/trace_filter__sampled_rank-1.json.gz"};
    std::vector<RankPartial> partials;
    for (const auto& f : files)
        partials.push_back(partial_of(load_trace(f), f));
    const RankMerge m = merge_partials(partials);
    const OneProcess one = one_process(load_traces(files));
    expect_same(m, one);
    EXPECT_EQ(m.world_size, 128);
    EXPECT_EQ(m.collectives.matched, 5);
    EXPECT_EQ(m.collectives.straggler_rank, 1);
    EXPECT_EQ(m.collectives.straggler_wait_ns, 4859000 + 3302000 + 84000 + 22328000 + 1292000);
}

// Issue 38 done-when: a straggler planted in 64 generated ranks is named, with its lateness within 5 % of the planted
// 10 µs, and the merge of the 64 partials is the one-process analysis.
TEST(RankMerge, PlantedStragglerInSixtyFourRanksIsNamedWithItsLateness)
{
    const int32_t world = 64;
    std::vector<RankPartial> partials;
    std::vector<Trace> traces;
    for (int32_t r = 0; r < world; ++r) {
        traces.push_back(generated_rank(r, world, 37, 10'000, -1));
        partials.push_back(partial_of(traces.back(), "rank" + std::to_string(r)));
    }
    const RankMerge m = merge_partials(partials);
    expect_same(m, one_process(merge_traces(std::move(traces))));
    const CollectiveStats& s = m.collectives;
    EXPECT_EQ(m.world_size, 64);
    ASSERT_EQ(s.ranks.size(), 64u);
    EXPECT_GT(s.matched, 0);
    EXPECT_EQ(s.unmatched, 0);
    ASSERT_TRUE(s.straggler_rank.has_value());
    EXPECT_EQ(*s.straggler_rank, 37);
    ASSERT_TRUE(s.mean_skew_ns.has_value());
    ASSERT_TRUE(s.max_skew_ns.has_value());
    EXPECT_NEAR(*s.mean_skew_ns, 10'000, 500);
    EXPECT_NEAR(*s.max_skew_ns, 10'000, 500);
    ASSERT_FALSE(m.findings.empty());
    EXPECT_NE(m.findings[0].find("rank 37 arrives last at 100 %"), std::string::npos) << m.findings[0];
}

// Cross-rank rules as findings (issue 38 §1): 4 and 16 generated ranks with a planted straggler. It is named, its
// lateness is the planted skew within 5 %, and the gain is the others' exposed wait for it, never more.
TEST(CrossRankFindings, PlantedStragglerIsNamedWithItsLateness)
{
    for (const auto& [world, straggler, skew] : {std::tuple{4, 2, int64_t{6'000}}, std::tuple{16, 11, int64_t{9'000}}}) {
        std::vector<RankPartial> partials;
        for (int32_t r = 0; r < world; ++r)
            partials.push_back(partial_of(generated_rank(r, world, straggler, skew, -1), "rank" + std::to_string(r)));
        const RankMerge m = merge_partials(partials);
        const Finding* f = finding(m, "straggler-rank");
        ASSERT_NE(f, nullptr) << "world " << world;
        EXPECT_EQ(f->verdict, "straggler");
        EXPECT_EQ(f->subject, "ranks");
        EXPECT_NE(f->title.en.find("Rank " + std::to_string(straggler) + " arrives last at 100.0 %"), std::string::npos)
            << f->title.en;
        EXPECT_NEAR(evidence(*f, "straggler_lateness_ns"), double(skew), 0.05 * double(skew)) << "world " << world;
        EXPECT_DOUBLE_EQ(evidence(*f, "straggler_last_fraction"), 1.0);
        // Its lead-in is longer by the lateness: the planted rank starts each collective late after the same work.
        EXPECT_GT(evidence(*f, "straggler_lead_in_excess_fraction"), 0.0);
        // Gain: the others' exposed wait for it, a share of every rank's device time.
        ASSERT_TRUE(f->expected_gain.computed);
        ASSERT_TRUE(f->expected_gain.ns.has_value());
        EXPECT_DOUBLE_EQ(*f->expected_gain.ns, double(m.collectives.straggler_exposed_wait_ns));
        EXPECT_LE(*f->expected_gain.ns, double(m.collectives.straggler_wait_ns));
        EXPECT_GT(f->expected_gain.fraction, 0.0);
        EXPECT_LT(f->expected_gain.fraction, 1.0);
        EXPECT_GT(f->confidence.value, 0.0);
        ASSERT_FALSE(f->suggestions.empty());
        EXPECT_FALSE(f->suggestions[0].verify.empty());
        // Nothing else fires: the sizes are even and every rank runs the same steps.
        EXPECT_EQ(m.rule_findings.size(), 1u) << m.rule_findings.back().rule;
        const json j = rank_merge_to_json(m);
        EXPECT_EQ(j["cross_rank_findings"].size(), m.rule_findings.size());
        EXPECT_EQ(j["straggler"]["rank"], straggler);
        EXPECT_NEAR(j["straggler"]["lateness_ns"].get<double>(), double(skew), 0.05 * double(skew));
    }
}

// A planted all-to-all imbalance (rank 1 sends twice the others') is a finding naming rank 1; its gain is bounded by
// the all-to-alls' latency on every rank.
TEST(CrossRankFindings, AllToAllImbalanceNamesTheHeaviestRank)
{
    std::vector<RankPartial> partials;
    for (int32_t r = 0; r < 4; ++r)
        partials.push_back(partial_of(generated_rank(r, 4, -1, 0, 1), "rank" + std::to_string(r)));
    const RankMerge m = merge_partials(partials);
    const Finding* f = finding(m, "alltoall-imbalance");
    ASSERT_NE(f, nullptr);
    EXPECT_NE(f->title.en.find("rank 1 most often"), std::string::npos) << f->title.en;
    EXPECT_NEAR(evidence(*f, "alltoall_imbalance"), 1.6, 1e-9);
    ASSERT_TRUE(f->expected_gain.ns.has_value());
    // Each all-to-all's latency less the mean's share: 1 - 1/1.6 of it, on each of the 4 ranks.
    EXPECT_NEAR(*f->expected_gain.ns, 4 * 0.375 * double(m.cross.alltoall.latency_ns), 4.0 * m.cross.alltoall.sized);
    EXPECT_LE(*f->expected_gain.ns, 4.0 * double(m.cross.alltoall.latency_ns));
    EXPECT_EQ(finding(m, "straggler-rank"), nullptr);
}

// Step-time spread: one rank's steps planted 30 % longer is named, its gain bounded by its excess over the median rank.
TEST(CrossRankFindings, StepSpreadNamesTheSlowestRank)
{
    std::vector<RankPartial> partials;
    for (int32_t r = 0; r < 4; ++r)
        partials.push_back(partial_of(generated_rank(r, 4, -1, 0, -1), "rank" + std::to_string(r)));
    const double base = partials[3].steps.tpot_median_ns;
    ASSERT_GT(base, 0);
    partials[3].steps.tpot_median_ns = 1.3 * base;
    const RankMerge m = merge_partials(partials);
    const Finding* f = finding(m, "rank-step-spread");
    ASSERT_NE(f, nullptr);
    EXPECT_NE(f->title.en.find("Rank 3's steps"), std::string::npos) << f->title.en;
    EXPECT_NEAR(evidence(*f, "rank_step_spread_fraction"), 0.3, 1e-9);
    ASSERT_TRUE(f->expected_gain.ns.has_value());
    EXPECT_NEAR(*f->expected_gain.ns, 0.3 * base * double(partials[3].steps.steady_steps), 1.0);
    EXPECT_NEAR(f->expected_gain.fraction, 0.3 / 1.3, 1e-9);
}

// HTA's sampled ranks 0 and 1: rank 1 is the straggler, the others wait 31.865 ms for it (stop 41's number), and the
// finding says so.
TEST(CrossRankFindings, SampledRanksNameRankOne)
{
    const auto dir = test::shared_data_dir();
    if (!dir)
        GTEST_SKIP() << "SIGHTLINE_SHARED_DATA not set";
    std::vector<RankPartial> partials;
    for (const char* f : {"/kineto/hta/trace_filter__sampled_rank-0.json.gz", "/kineto/hta/trace_filter__sampled_rank-1.json.gz"})
        partials.push_back(partial_of(load_trace(*dir + f), *dir + f));
    const RankMerge m = merge_partials(partials);
    const Finding* f = finding(m, "straggler-rank");
    ASSERT_NE(f, nullptr);
    EXPECT_NE(f->title.en.find("Rank 1 arrives last"), std::string::npos) << f->title.en;
    EXPECT_DOUBLE_EQ(evidence(*f, "straggler_wait_ns"), 31'865'000.0);
    ASSERT_TRUE(f->expected_gain.ns.has_value());
    EXPECT_LE(*f->expected_gain.ns, 31'865'000.0);
    EXPECT_DOUBLE_EQ(*f->expected_gain.ns, double(m.collectives.straggler_exposed_wait_ns));
}
