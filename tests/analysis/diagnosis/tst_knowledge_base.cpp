// The knowledge base: round trips, similar-environment history, migrations from an older schema, two processes
// writing at once, and kill -9 in the middle of writing.
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <thread>
#include <sys/wait.h>
#include <unistd.h>

#include <sqlite3.h>

#include "analysis/diagnosis/knowledge_base.h"
#include "tests/support/test_env.h"

using namespace sl;

namespace {

Finding make_finding(const std::string& rule, const std::string& subject, int suggestions = 1)
{
    Finding f;
    f.rule = rule;
    f.verdict = "launch-bound";
    f.severity = Severity::Medium;
    f.subject = subject;
    f.expected_gain.fraction = 0.1;
    f.confidence.value = 0.6;
    f.confidence.label = "medium";
    for (int i = 0; i < suggestions; ++i) {
        Suggestion s;
        s.id = "s" + std::to_string(i);
        s.text.en = "do thing " + std::to_string(i);
        s.metric = "tpot_median_ns";
        s.direction = "decrease";
        f.suggestions.push_back(s);
    }
    return f;
}

EnvFingerprint h100_env(const std::string& model = "m1")
{
    EnvFingerprint e;
    e.gpu = "NVIDIA H100 80GB HBM3";
    e.driver = "550.54";
    e.cuda = "12.4";
    e.libraries["torch"] = "2.3.0";
    e.model_hash = model;
    e.batch = 1;
    return e;
}

std::string integrity(const std::string& db)
{
    auto rows = sl::test::sqlite_rows(db, "PRAGMA integrity_check");
    return rows.empty() || rows[0].empty() ? "" : rows[0][0];
}

} // namespace

TEST(KnowledgeBase, RoundTripRunsFindingsSuggestionsAndVerifications)
{
    const std::string db = sl::test::scratch_dir("kb_roundtrip") + "/k.db";
    KnowledgeBase kb(db);
    EXPECT_EQ(kb.schema_version(), KnowledgeBase::kSchemaVersion);
    EXPECT_EQ(sl::test::sqlite_rows(db, "PRAGMA journal_mode")[0][0], "wal");

    const int64_t env = kb.upsert_environment(h100_env());
    EXPECT_EQ(kb.upsert_environment(h100_env()), env);   // same key, same row
    EXPECT_NE(kb.upsert_environment(h100_env("m2")), env);
    EXPECT_EQ(kb.environment(env)->libraries.at("torch"), "2.3.0");

    RunRecord r;
    r.trace_path = "/t/before.sqlite";
    r.trace_hash = "abc";
    r.env_id = env;
    r.metrics = {{"tpot_median_ns", 12e6}, {"idle_fraction", 0.31}};
    std::vector<OperatorMeasurement> ops = {{"gemm_a", "gemm", 100, 5'000'000, 50'000, 0.4},
                                            {"rmsnorm", "norm", 200, 1'000'000, 5'000, std::nullopt}};
    const int64_t run = kb.record_run(r, ops, {make_finding("decode-host-bound", "decode", 2),
                                               make_finding("launch-bound-short-kernels", "rmsnorm")});
    auto back = kb.run(run);
    ASSERT_TRUE(back);
    EXPECT_EQ(back->trace_hash, "abc");
    EXPECT_DOUBLE_EQ(back->metrics.at("tpot_median_ns"), 12e6);
    EXPECT_EQ(kb.find_run_by_hash("abc")->id, run);
    EXPECT_FALSE(kb.find_run_by_hash("zzz"));
    auto ops_back = kb.operator_measurements(run);
    ASSERT_EQ(ops_back.size(), 2u);
    EXPECT_EQ(ops_back[0].name, "gemm_a");
    EXPECT_DOUBLE_EQ(*ops_back[0].e_roof, 0.4);
    EXPECT_FALSE(ops_back[1].e_roof);

    auto sugg = kb.suggestions(run);
    ASSERT_EQ(sugg.size(), 3u);
    EXPECT_EQ(sugg[0].key, "decode-host-bound/s0");
    EXPECT_EQ(sugg[0].subject, "decode");
    EXPECT_EQ(sugg[0].state, SuggestionState::Proposed);
    kb.set_suggestion_state(sugg[0].id, SuggestionState::Accepted, std::string("trying graphs on Monday"));
    auto accepted = kb.suggestions(run, SuggestionState::Accepted);
    ASSERT_EQ(accepted.size(), 1u);
    EXPECT_EQ(accepted[0].annotation, "trying graphs on Monday");
    EXPECT_THROW(kb.set_suggestion_state(999'999, SuggestionState::Rejected), KbError);

    // A note changes the note only: a state set by another instance (connection) in between is kept.
    {
        KnowledgeBase other(kb.path());
        other.set_suggestion_state(sugg[1].id, SuggestionState::Rejected);
    }
    kb.set_suggestion_annotation(sugg[1].id, "not on this GPU");
    auto rejected = kb.suggestions(run, SuggestionState::Rejected);
    ASSERT_EQ(rejected.size(), 1u);
    EXPECT_EQ(rejected[0].id, sugg[1].id);
    EXPECT_EQ(rejected[0].annotation, "not on this GPU");
    EXPECT_THROW(kb.set_suggestion_annotation(999'999, "x"), KbError);

    // The same trace hash again: the existing run, with nothing recorded twice; a new hash records a run.
    const int64_t runs_before = kb.count("runs"), sugg_before = kb.count("suggestions");
    RunRecord again;
    again.trace_hash = "abc";
    EXPECT_EQ(kb.find_or_record_run(again), run);
    EXPECT_EQ(kb.count("runs"), runs_before);
    EXPECT_EQ(kb.count("suggestions"), sugg_before);
    again.trace_hash = "def";
    const int64_t fresh = kb.find_or_record_run(again);
    EXPECT_NE(fresh, run);
    EXPECT_EQ(kb.count("runs"), runs_before + 1);

    VerificationRecord v;
    v.suggestion_id = sugg[0].id;
    v.suggestion_key = sugg[0].key;
    v.before_run = run;
    v.after_run = run;
    v.metric = "tpot_median_ns";
    v.before_value = 12e6;
    v.after_value = 9.24e6;
    v.delta = -0.23;
    v.verdict = "verified";
    kb.record_verification(v);
    EXPECT_EQ(kb.suggestions(run, SuggestionState::Verified).size(), 1u);   // state follows the verdict
    EXPECT_EQ(kb.verifications("decode-host-bound/s0").size(), 1u);
    EXPECT_EQ(kb.count("verifications"), 1);
    EXPECT_THROW(kb.count("sqlite_master; DROP TABLE runs"), KbError);
}

TEST(KnowledgeBase, HistoryRaisesConfidenceOnSimilarEnvironmentsOnly)
{
    const std::string db = sl::test::scratch_dir("kb_history") + "/k.db";
    KnowledgeBase kb(db);
    RunRecord r;
    r.env_id = kb.upsert_environment(h100_env());
    const int64_t run = kb.record_run(r);
    for (double d : {-0.20, -0.26}) {
        VerificationRecord v;
        v.suggestion_key = "decode-host-bound/cuda-graphs";
        v.before_run = v.after_run = run;
        v.metric = "tpot_median_ns";
        v.delta = d;
        v.verdict = "verified";
        kb.record_verification(v);
    }
    VerificationRecord f;
    f.suggestion_key = "decode-host-bound/cuda-graphs";
    f.before_run = f.after_run = run;
    f.metric = "tpot_median_ns";
    f.delta = 0.01;
    f.verdict = "failed";
    kb.record_verification(f);

    auto same = kb.history("decode-host-bound/cuda-graphs", h100_env());
    ASSERT_TRUE(same);
    EXPECT_EQ(same->verified, 2);
    EXPECT_EQ(same->failed, 1);
    // Same everything; the sequence length is unknown on both sides, which counts half: 1 - 0.05 / 2.
    EXPECT_DOUBLE_EQ(same->similarity, 0.975);
    EXPECT_NEAR(same->mean_delta, -0.23, 1e-12);
    EXPECT_NE(same->reason.find("-23 %"), std::string::npos) << same->reason;
    EXPECT_NE(same->reason.find("same GPU"), std::string::npos) << same->reason;

    // Another GPU and another model: similarity 0.35 + versions: below the 0.5 cut-off, so no history applies.
    EnvFingerprint other = h100_env("different-model");
    other.gpu = "NVIDIA A100-SXM4-40GB";
    other.driver = "470.1";
    other.cuda = "11.4";
    EXPECT_LT(environment_similarity(other, h100_env()), 0.5);
    EXPECT_FALSE(kb.history("decode-host-bound/cuda-graphs", other));
    EXPECT_FALSE(kb.history("unknown/suggestion", h100_env()));

    // The engine uses it through history_lookup.
    auto lookup = kb.history_lookup(h100_env());
    EXPECT_TRUE(lookup("decode-host-bound/cuda-graphs"));
}

TEST(KnowledgeBase, DefaultPathFollowsXdg)
{
    const char* old = std::getenv("XDG_DATA_HOME");
    std::string saved = old ? old : "";
    setenv("XDG_DATA_HOME", "/tmp/xdg-test", 1);
    EXPECT_EQ(KnowledgeBase::default_path(), "/tmp/xdg-test/sightline/knowledge.db");
    if (old)
        setenv("XDG_DATA_HOME", saved.c_str(), 1);
    else
        unsetenv("XDG_DATA_HOME");
}

// The schema an earlier build wrote (version 1): no annotation/metric columns, no operator_measurements.
TEST(KnowledgeBase, MigratesFromVersionOneKeepingData)
{
    const std::string db = sl::test::scratch_dir("kb_migrate") + "/old.db";
    {
        sqlite3* h = nullptr;
        ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
        const char* v1 = R"(
          CREATE TABLE environments(id INTEGER PRIMARY KEY, key TEXT UNIQUE NOT NULL, gpu TEXT, driver TEXT, cuda TEXT,
                                    libraries_json TEXT, model_hash TEXT, batch INTEGER, seq_len INTEGER, created_at INTEGER);
          CREATE TABLE runs(id INTEGER PRIMARY KEY, trace_path TEXT, trace_hash TEXT, recorded_at INTEGER,
                            env_id INTEGER REFERENCES environments(id), metrics_json TEXT);
          CREATE TABLE findings(id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL REFERENCES runs(id), rule TEXT,
                                verdict TEXT, severity TEXT, subject TEXT, expected_gain REAL, confidence REAL, json TEXT);
          CREATE TABLE suggestions(id INTEGER PRIMARY KEY, finding_id INTEGER REFERENCES findings(id),
                                   run_id INTEGER REFERENCES runs(id), key TEXT NOT NULL, text TEXT,
                                   state TEXT NOT NULL DEFAULT 'proposed', updated_at INTEGER);
          CREATE TABLE verifications(id INTEGER PRIMARY KEY, suggestion_id INTEGER, suggestion_key TEXT,
                                     before_run INTEGER, after_run INTEGER, metric TEXT, before_value REAL,
                                     after_value REAL, delta REAL, verdict TEXT, recorded_at INTEGER);
          CREATE INDEX runs_hash ON runs(trace_hash);
          CREATE INDEX findings_run ON findings(run_id);
          CREATE INDEX suggestions_run ON suggestions(run_id);
          INSERT INTO runs(id, trace_path, trace_hash, recorded_at, metrics_json) VALUES(1, '/old.sqlite', 'h1', 5, '{"tpot_median_ns": 7}');
          INSERT INTO findings(id, run_id, rule, verdict, severity, subject) VALUES(1, 1, 'gpu-idle-fraction', 'idle-gaps', 'high', 'trace');
          INSERT INTO suggestions(id, finding_id, run_id, key, text, state) VALUES(1, 1, 1, 'gpu-idle-fraction/graphs-and-async', 'x', 'accepted');
          INSERT INTO verifications(suggestion_id, suggestion_key, before_run, after_run, metric, before_value, after_value, delta, verdict, recorded_at)
            VALUES(1, 'decode-host-bound/cuda-graphs', 1, 1, 'tpot_median_ns', 7, 5, -0.25, 'verified', 6);
          PRAGMA user_version = 1;)";
        char* err = nullptr;
        ASSERT_EQ(sqlite3_exec(h, v1, nullptr, nullptr, &err), SQLITE_OK) << (err ? err : "");
        sqlite3_close(h);
    }
    KnowledgeBase kb(db);
    EXPECT_EQ(kb.schema_version(), 3);
    // A verification recorded before v3 reads back without a prediction (issue 35 §4), and a new one keeps its.
    const auto old = kb.verifications("decode-host-bound/cuda-graphs");
    ASSERT_EQ(old.size(), 1u);
    EXPECT_EQ(old[0].change, "");
    EXPECT_FALSE(old[0].predicted_value);
    EXPECT_FALSE(old[0].prediction_error);
    EXPECT_DOUBLE_EQ(old[0].delta, -0.25);
    VerificationRecord v = old[0];
    v.suggestion_id = 0;   // (tied to no stored suggestion: its state stays accepted for the checks below)
    v.change = "cuda-graphs";
    v.predicted_value = 4.5;
    v.prediction_error = (5 - 4.5) / 5;
    kb.record_verification(v);
    const auto both = kb.verifications("decode-host-bound/cuda-graphs");
    ASSERT_EQ(both.size(), 2u);
    EXPECT_EQ(both[1].change, "cuda-graphs");
    EXPECT_DOUBLE_EQ(both[1].predicted_value.value_or(0), 4.5);
    EXPECT_DOUBLE_EQ(both[1].prediction_error.value_or(0), 0.1);
    auto r = kb.find_run_by_hash("h1");
    ASSERT_TRUE(r);
    EXPECT_DOUBLE_EQ(r->metrics.at("tpot_median_ns"), 7);
    auto s = kb.suggestions(r->id, SuggestionState::Accepted);
    ASSERT_EQ(s.size(), 1u);
    EXPECT_EQ(s[0].annotation, "");
    kb.set_suggestion_state(s[0].id, SuggestionState::Accepted, std::string("now annotated"));
    EXPECT_EQ(kb.suggestions(r->id)[0].annotation, "now annotated");
    const int64_t run2 = kb.record_run(RunRecord{}, {{"k", "gemm", 1, 10, 10, 0.5}});
    EXPECT_EQ(kb.operator_measurements(run2).size(), 1u);
    EXPECT_EQ(integrity(db), "ok");
}

TEST(KnowledgeBase, RefusesANewerSchema)
{
    const std::string db = sl::test::scratch_dir("kb_newer") + "/new.db";
    {
        sqlite3* h = nullptr;
        ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
        sqlite3_exec(h, "CREATE TABLE x(a); PRAGMA user_version = 99;", nullptr, nullptr, nullptr);
        sqlite3_close(h);
    }
    try {
        KnowledgeBase kb(db);
        FAIL() << "opened a newer schema";
    } catch (const KbError& e) {
        EXPECT_NE(std::string(e.what()).find("newer"), std::string::npos) << e.what();
    }
}

TEST(KnowledgeBase, TwoProcessesWriteConcurrently)
{
    const std::string db = sl::test::scratch_dir("kb_concurrent") + "/k.db";
    { KnowledgeBase init(db); }
    constexpr int kRuns = 60;
    std::vector<pid_t> kids;
    for (int p = 0; p < 2; ++p) {
        const pid_t pid = fork();
        ASSERT_GE(pid, 0);
        if (pid == 0) {
            int rc = 0;
            try {
                KnowledgeBase kb(db);
                for (int i = 0; i < kRuns; ++i) {
                    RunRecord r;
                    r.trace_hash = "p" + std::to_string(p) + "-" + std::to_string(i);
                    r.env_id = kb.upsert_environment(h100_env("model-" + std::to_string(i % 3)));
                    kb.record_run(r, {{"k", "gemm", 1, 1, 1, std::nullopt}},
                                  {make_finding("a", "x"), make_finding("b", "y"), make_finding("c", "z")});
                }
            } catch (const std::exception& e) {
                std::fprintf(stderr, "child %d: %s\n", p, e.what());
                rc = 1;
            }
            _exit(rc);
        }
        kids.push_back(pid);
    }
    for (pid_t k : kids) {
        int status = 0;
        ASSERT_EQ(waitpid(k, &status, 0), k);
        ASSERT_TRUE(WIFEXITED(status));
        EXPECT_EQ(WEXITSTATUS(status), 0);
    }
    KnowledgeBase kb(db);
    EXPECT_EQ(kb.count("runs"), 2 * kRuns);
    EXPECT_EQ(kb.count("findings"), 2 * kRuns * 3);
    EXPECT_EQ(kb.count("suggestions"), 2 * kRuns * 3);
    EXPECT_EQ(kb.count("environments"), 3);
    EXPECT_EQ(integrity(db), "ok");
}

TEST(KnowledgeBase, KillNineDuringWritesLosesNothingCommitted)
{
    const std::string db = sl::test::scratch_dir("kb_kill") + "/k.db";
    { KnowledgeBase init(db); }
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        try {
            KnowledgeBase kb(db);
            for (int i = 0;; ++i) {
                RunRecord r;
                r.trace_hash = "run-" + std::to_string(i);
                std::vector<Finding> f;
                for (int k = 0; k < 5; ++k)
                    f.push_back(make_finding("rule" + std::to_string(k), "s", 2));
                kb.record_run(r, {{"k", "gemm", 1, 1, 1, std::nullopt}}, f);
            }
        } catch (...) {
        }
        _exit(3);
    }
    // Wait until the child has committed some runs, then kill it wherever it is.
    int64_t seen = 0;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (seen < 25 && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        try {
            auto rows = sl::test::sqlite_rows(db, "SELECT count(*) FROM runs");
            if (!rows.empty())
                seen = std::atoll(rows[0][0].c_str());
        } catch (const std::exception&) {   // busy while the writer checkpoints: poll again
        }
    }
    ASSERT_EQ(kill(pid, SIGKILL), 0);
    int status = 0;
    waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFSIGNALED(status));
    ASSERT_GE(seen, 25);

    KnowledgeBase kb(db);   // reopens, recovers the WAL
    EXPECT_EQ(integrity(db), "ok");
    const int64_t runs = kb.count("runs");
    EXPECT_GE(runs, seen);   // everything seen committed is still there
    // Every run is complete: its transaction wrote 5 findings, 10 suggestions and 1 measurement, or nothing.
    EXPECT_EQ(kb.count("findings"), runs * 5);
    EXPECT_EQ(kb.count("suggestions"), runs * 10);
    EXPECT_EQ(kb.count("operator_measurements"), runs);
    // And it is still writable.
    kb.record_run(RunRecord{});
    EXPECT_EQ(kb.count("runs"), runs + 1);
}
