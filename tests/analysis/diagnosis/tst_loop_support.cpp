// The pieces of the analysis loop that live in the core: run-to-run variance (median and spread over N runs) and
// the knowledge-base lookup of an environment (step 1: "seen before on this environment").
#include <gtest/gtest.h>

#include <cmath>

#include "analysis/diagnosis/kb_lookup.h"
#include "analysis/diagnosis/knowledge_base.h"
#include "analysis/diagnosis/run_variance.h"
#include "tests/support/test_env.h"

using namespace sl;

TEST(RunVariance, MedianSpreadAndStdevByHand)
{
    // TPOT of three runs 10, 12, 11 ms; one run without decode.
    const std::vector<std::map<std::string, double>> runs = {
        {{"tpot_median_ns", 10e6}, {"wall_ns", 100e6}},
        {{"tpot_median_ns", 12e6}, {"wall_ns", 104e6}},
        {{"tpot_median_ns", 11e6}, {"wall_ns", 102e6}},
        {{"wall_ns", 200e6}},
    };
    const auto v = run_variance(runs);
    ASSERT_EQ(v.size(), 2u);
    const auto& t = v[0];
    EXPECT_EQ(t.metric, "tpot_median_ns");
    EXPECT_EQ(t.runs, 3u);
    EXPECT_DOUBLE_EQ(t.median, 11e6);
    EXPECT_DOUBLE_EQ(t.min, 10e6);
    EXPECT_DOUBLE_EQ(t.max, 12e6);
    EXPECT_DOUBLE_EQ(t.rel_spread, 2.0 / 11.0);
    EXPECT_NEAR(t.stdev, 1e6, 1e-3);          // sample stdev of 10, 11, 12 = 1
    EXPECT_NEAR(t.rel_stdev, 1.0 / 11.0, 1e-12);
    const auto& w = v[1];
    EXPECT_EQ(w.runs, 4u);
    EXPECT_DOUBLE_EQ(w.median, 103e6);        // even count: mean of the middle two
    EXPECT_EQ(end_to_end_metric(runs), "tpot_median_ns");
    EXPECT_EQ(representative_run(runs, "tpot_median_ns"), 2u);
    EXPECT_EQ(end_to_end_metric({{{"wall_ns", 1.0}}}), "wall_ns");
    const std::string text = run_variance_to_text(v, {"tpot_median_ns"});
    EXPECT_NE(text.find("median 11.000 ms"), std::string::npos) << text;
    EXPECT_NE(text.find("spread  18.2 %"), std::string::npos) << text;
    EXPECT_EQ(text.find("wall_ns"), std::string::npos);
}

TEST(RunVariance, SingleRunHasNoSpread)
{
    const auto v = run_variance({{{"wall_ns", 5.0}}});
    ASSERT_EQ(v.size(), 1u);
    EXPECT_EQ(v[0].stdev, 0.0);
    EXPECT_EQ(v[0].rel_spread, 0.0);
}

TEST(KbLookup, SimilarEnvironmentsAndTheirVerdicts)
{
    const std::string dir = sl::test::scratch_dir("kb_lookup");
    KnowledgeBase kb(dir + "/kb.db");
    EnvFingerprint h100;
    h100.gpu = "NVIDIA H100 80GB HBM3";
    h100.driver = "550.54";
    h100.cuda = "12.4";
    h100.model_hash = "m1";
    EnvFingerprint other_driver = h100;
    other_driver.driver = "535.1";
    EnvFingerprint a100 = h100;
    a100.gpu = "NVIDIA A100-SXM4-80GB";
    a100.model_hash = "m2";

    auto add_run = [&](const EnvFingerprint& e, const std::string& hash, int64_t at) {
        RunRecord r;
        r.trace_path = "/t/" + hash + ".sqlite";
        r.trace_hash = hash;
        r.recorded_at = at;
        r.env_id = kb.upsert_environment(e);
        r.metrics = {{"tpot_median_ns", 1e6}};
        return kb.record_run(r);
    };
    const int64_t r1 = add_run(h100, "h1", 100), r2 = add_run(h100, "h2", 200), r3 = add_run(other_driver, "h3", 300);
    const int64_t r4 = add_run(a100, "a1", 400), r5 = add_run(a100, "a2", 500);
    auto verdict = [&](int64_t b, int64_t a, const std::string& key, const std::string& v, double delta) {
        VerificationRecord rec;
        rec.suggestion_key = key;
        rec.before_run = b;
        rec.after_run = a;
        rec.metric = "tpot_median_ns";
        rec.delta = delta;
        rec.verdict = v;
        kb.record_verification(rec);
    };
    verdict(r1, r2, "decode-host-bound/cuda-graphs", "verified", -0.20);
    verdict(r1, r3, "decode-host-bound/cuda-graphs", "verified", -0.30);
    verdict(r1, r2, "decode-sync-every-step/remove-item", "failed", +0.01);
    verdict(r4, r5, "a100-only/thing", "verified", -0.5);   // another GPU and model: not this environment

    // Looking up the H100 environment, leaving out run h2 (say, the run just made).
    const auto h = lookup_environment(kb, h100, 0.5, {"h2"});
    ASSERT_EQ(h.runs.size(), 2u);
    EXPECT_EQ(h.runs[0].run_id, r1);            // identical environment first
    // Similarity as the knowledge base defines it (analysis/io/fingerprint.h; unknown library versions count half).
    const double same = environment_similarity(h100, h100);
    EXPECT_DOUBLE_EQ(h.runs[0].similarity, same);
    EXPECT_EQ(h.runs[1].run_id, r3);            // same GPU and model, other driver
    EXPECT_LT(h.runs[1].similarity, same);
    EXPECT_GE(h.runs[1].similarity, 0.5);
    ASSERT_EQ(h.verified.size(), 2u);
    EXPECT_EQ(h.verified[0].suggestion_key, "decode-host-bound/cuda-graphs");
    EXPECT_EQ(h.verified[0].verified, 2);
    EXPECT_NEAR(h.verified[0].mean_delta, -0.25, 1e-12);
    EXPECT_NEAR(h.verified[0].confidence, 3.0 / 4.0 * same, 1e-12);   // (2 + 1) / (2 + 2) × best similarity
    EXPECT_EQ(h.verified[1].failed, 1);
    EXPECT_NEAR(h.verified[1].confidence, 1.0 / 3.0 * same, 1e-12);
    const std::string text = environment_history_to_text(h);
    EXPECT_NE(text.find("Seen before on this environment (NVIDIA H100 80GB HBM3, driver 550.54, CUDA 12.4)"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("2 earlier run(s)"), std::string::npos) << text;
    EXPECT_NE(text.find("decode-host-bound/cuda-graphs"), std::string::npos);
    EXPECT_EQ(text.find("a100-only"), std::string::npos);

    EnvFingerprint l4;
    l4.gpu = "NVIDIA L4";
    l4.model_hash = "m9";
    const auto none = lookup_environment(kb, l4);
    EXPECT_TRUE(none.empty());
    EXPECT_NE(environment_history_to_text(none).find("nothing yet"), std::string::npos);
}
