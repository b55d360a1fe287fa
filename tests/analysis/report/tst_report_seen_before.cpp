// "Seen before on this environment" in the report (step 1 of the analysis loop): with a temporary knowledge base
// holding an A/B-verified suggestion on the trace's own environment and another on a different GPU and driver, the
// report lists the matching record with its verdict counts, measured change and confidence, and not the other; the
// trace's own run is left out; without a knowledge base there is no such section (the goldens stay as they were).
#include "analysis/diagnosis/knowledge_base.h"
#include "analysis/io/fingerprint.h"
#include "analysis/io/nsys_writer.h"
#include "analysis/io/synthetic.h"
#include "analysis/report/report_json.h"
#include "analysis/report/report_markdown.h"
#include "analysis/report_pipeline.h"
#include "tests/support/test_env.h"

#include <gtest/gtest.h>

#include <filesystem>

using namespace sl;
using namespace sl::report;

namespace {

const Section* top(const Report& r, const std::string& id)
{
    for (const auto& s : r.sections)
        if (s.id == id)
            return &s;
    return nullptr;
}

int64_t add_run(KnowledgeBase& kb, const EnvFingerprint& env, const std::string& path, const std::string& hash)
{
    RunRecord r;
    r.trace_path = path;
    r.trace_hash = hash;
    r.env_id = kb.upsert_environment(env);
    r.metrics = {{"tpot_median_ns", 1e7}};
    return kb.record_run(r);
}

void add_verdict(KnowledgeBase& kb, const std::string& key, int64_t before, int64_t after, double delta)
{
    VerificationRecord v;
    v.suggestion_key = key;
    v.before_run = before;
    v.after_run = after;
    v.metric = "tpot_median_ns";
    v.before_value = 1e7;
    v.after_value = 1e7 * (1 + delta);
    v.delta = delta;
    v.verdict = delta < 0 ? "verified" : "failed";
    kb.record_verification(v);
}

struct Fixture {
    std::string dir, trace_path, kb_path;
    Trace trace;
    Fixture()
    {
        dir = test::scratch_dir("seen_before");
        SynthOptions o;
        o.decode_steps = 8;
        o.layers = 2;
        trace = make_synthetic_trace(o);
        trace_path = dir + "/t.sqlite";
        write_nsys_sqlite(trace, trace_path);
        kb_path = dir + "/kb.db";
        std::filesystem::remove(kb_path);
        KnowledgeBase kb(kb_path);
        const EnvFingerprint same = fingerprint_from_trace(trace);
        EnvFingerprint other = same;
        other.gpu = "NVIDIA A10G";
        other.driver = "470.01";
        other.cuda = "11.0";
        other.libraries = {{"torch", "1.0"}};
        // The trace's environment: one suggestion verified (−12 %), twice; the trace itself recorded too.
        const int64_t b = add_run(kb, same, "/runs/before.sqlite", "h-before");
        const int64_t a = add_run(kb, same, "/runs/after.sqlite", "h-after");
        add_verdict(kb, "idle-host-bound/cuda-graphs", b, a, -0.12);
        add_run(kb, same, trace_path, file_hash(trace_path));
        // Another GPU and driver: its verdict must not show.
        const int64_t ob = add_run(kb, other, "/elsewhere/b.sqlite", "o-before");
        const int64_t oa = add_run(kb, other, "/elsewhere/a.sqlite", "o-after");
        add_verdict(kb, "launch-overhead/other-env-only", ob, oa, -0.30);
    }
    Report build(bool with_kb, Lang lang = Lang::En) const
    {
        PipelineOptions po;
        if (with_kb)
            po.kb_path = kb_path;
        po.trace_files = {trace_path};
        results = run_pipeline(trace, po);
        ReportOptions ro;
        ro.lang = lang;
        ro.generated_at = "2026-01-01T00:00:00Z";
        return build_report(report_inputs(trace, results, ro, {trace_path}));
    }
    mutable PipelineResults results;
};

} // namespace

TEST(ReportSeenBefore, ListsTheMatchingEnvironmentOnly)
{
    Fixture f;
    const Report r = f.build(true);
    const Section* s = top(r, "seen_before");
    ASSERT_NE(s, nullptr);
    // Right after the environment section.
    for (size_t i = 0; i < r.sections.size(); ++i)
        if (r.sections[i].id == "seen_before") {
            ASSERT_GT(i, 0u);
            EXPECT_EQ(r.sections[i - 1].id, "environment");
        }
    ASSERT_TRUE(f.results.environment_history.has_value());
    const EnvironmentHistory& h = *f.results.environment_history;
    // The two runs of the same environment, not the trace's own run, not the other GPU's.
    ASSERT_EQ(h.runs.size(), 2u);
    for (const auto& run : h.runs) {
        EXPECT_NE(run.trace_path, f.trace_path);
        EXPECT_EQ(run.trace_path.rfind("/runs/", 0), 0u) << run.trace_path;
    }
    const Table* t = nullptr;
    for (const auto& b : s->blocks)
        if (const auto* tb = std::get_if<Table>(&b); tb && tb->id == "seen_verified")
            t = tb;
    ASSERT_NE(t, nullptr);
    ASSERT_EQ(t->rows.size(), 1u);
    const auto& row = t->rows[0];
    EXPECT_EQ(row[0].text, "idle-host-bound/cuda-graphs");
    EXPECT_EQ(row[2].number, 1.0);   // verified once
    EXPECT_EQ(row[3].number, 0.0);   // failed never
    ASSERT_TRUE(row[5].number.has_value());
    EXPECT_NEAR(*row[5].number, -0.12, 1e-12);   // the measured change
    EXPECT_EQ(row[5].text, "-12.0 %");
    ASSERT_TRUE(row[6].number.has_value());
    const double sim = *row[6].number;
    EXPECT_DOUBLE_EQ(sim, environment_similarity(fingerprint_from_trace(f.trace), fingerprint_from_trace(f.trace)));
    EXPECT_NEAR(*row[7].number, (1 + 1.0) / (1 + 2.0) * sim, 1e-12);   // Laplace-smoothed rate × similarity

    const std::string md = to_markdown(r);
    EXPECT_NE(md.find("Seen before on this environment"), std::string::npos);
    EXPECT_NE(md.find("idle-host-bound/cuda-graphs"), std::string::npos);
    EXPECT_EQ(md.find("other-env-only"), std::string::npos);
    EXPECT_NE(md.find(f.kb_path), std::string::npos);
    const std::string json = to_json_text(r);
    EXPECT_NE(json.find("\"seen_before\""), std::string::npos);
    EXPECT_NE(json.find("\"seen_verified\""), std::string::npos);
    EXPECT_EQ(json.find("other-env-only"), std::string::npos);

    const Report zh = f.build(true, Lang::ZhCN);
    ASSERT_NE(top(zh, "seen_before"), nullptr);
    EXPECT_EQ(top(zh, "seen_before")->title, "此环境的历史记录");
}

TEST(ReportSeenBefore, AbsentWithoutAKnowledgeBaseAndSaysNothingYetWhenEmpty)
{
    Fixture f;
    EXPECT_EQ(top(f.build(false), "seen_before"), nullptr);

    // A knowledge base that knows only other environments: the section says so.
    std::filesystem::remove(f.kb_path);
    {
        KnowledgeBase kb(f.kb_path);
        EnvFingerprint other;
        other.gpu = "NVIDIA A10G";
        other.driver = "470.01";
        add_run(kb, other, "/elsewhere/b.sqlite", "o-before");
    }
    const Report r = f.build(true);
    const Section* s = top(r, "seen_before");
    ASSERT_NE(s, nullptr);
    bool nothing = false;
    for (const auto& b : s->blocks)
        if (const auto* n = std::get_if<Note>(&b))
            nothing = nothing || n->text.find("Nothing yet") != std::string::npos;
    EXPECT_TRUE(nothing);
    EXPECT_TRUE(f.results.environment_history->empty());
}
