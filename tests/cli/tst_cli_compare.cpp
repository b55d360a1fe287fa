// sightline-cli compare and kb: the whole A/B loop on generated traces (record BEFORE with its findings, accept a
// suggestion, compare with AFTER and record the verdict), output formats, usage errors, and the HTA trace-diff pair.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "tests/support/test_env.h"

using nlohmann::json;

namespace {

std::string cli() { return SIGHTLINE_CLI; }

int run(const std::string& args, std::string* out, bool merge = false)
{
    return sl::test::run_command(cli() + " " + args, out, merge);
}

json run_json(const std::string& args)
{
    std::string out;
    const int rc = run(args, &out);
    EXPECT_EQ(rc, 0) << args << "\n" << out;
    return json::parse(out, nullptr, false);
}

} // namespace

TEST(CliCompare, RecordAcceptCompareVerify)
{
    const std::string dir = sl::test::scratch_dir("cli_compare_loop");
    const std::string before = dir + "/before.sqlite", after = dir + "/after.sqlite", kb = dir + "/kb.db";
    std::string out;
    ASSERT_EQ(run("generate --steps 16 --layers 4 --prefill 1 --host-starved --quiet -o " + before, &out, true), 0) << out;
    ASSERT_EQ(run("generate --steps 16 --layers 4 --prefill 1 --quiet -o " + after, &out, true), 0) << out;

    // Record BEFORE: its findings propose suggestions, among them CUDA graphs for the host-bound decode.
    json rec = run_json("kb record " + before + " --kb " + kb + " --format json");
    ASSERT_TRUE(rec.is_object());
    EXPECT_GT(rec["findings"].get<int>(), 0);
    json list = run_json("kb list --kb " + kb + " --format json");
    ASSERT_TRUE(list.is_array());
    int64_t id = 0;
    for (const auto& s : list)
        if (s["suggestion"] == "decode-host-bound/cuda-graphs")
            id = s["id"].get<int64_t>();
    ASSERT_GT(id, 0) << list.dump(1);
    ASSERT_EQ(run("kb accept " + std::to_string(id) + " --note 'graphs on' --kb " + kb, &out, true), 0) << out;

    // Compare and record: TPOT fell, so the accepted suggestion is verified.
    json cmp = run_json("compare " + before + " " + after + " --format json --record --kb " + kb);
    ASSERT_TRUE(cmp.is_object());
    EXPECT_EQ(cmp["schema"], "sightline.compare/1");
    const double tb = cmp["metrics"]["tpot_median_ns"]["before"].get<double>();
    const double ta = cmp["metrics"]["tpot_median_ns"]["after"].get<double>();
    EXPECT_LT(ta, tb);
    ASSERT_EQ(cmp["verdicts"].size(), 1u);
    EXPECT_EQ(cmp["verdicts"][0]["suggestion"], "decode-host-bound/cuda-graphs");
    EXPECT_EQ(cmp["verdicts"][0]["verdict"], "verified");
    EXPECT_NEAR(cmp["verdicts"][0]["delta"].get<double>(), (ta - tb) / tb, 1e-9);

    // The knowledge base now holds both runs and the verification; the suggestion is verified, note kept.
    auto rows = sl::test::sqlite_rows(kb, "SELECT state, annotation FROM suggestions WHERE id = " + std::to_string(id));
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0][0], "verified");
    EXPECT_EQ(rows[0][1], "graphs on");
    EXPECT_EQ(sl::test::sqlite_rows(kb, "SELECT count(*) FROM runs")[0][0], "2");
    EXPECT_EQ(sl::test::sqlite_rows(kb, "SELECT verdict, metric FROM verifications")[0],
              (std::vector<std::string>{"verified", "tpot_median_ns"}));
    ASSERT_EQ(run("kb history --kb " + kb, &out), 0);
    EXPECT_NE(out.find("verified\tdecode-host-bound/cuda-graphs"), std::string::npos) << out;

    // Recording BEFORE again on the same (similar) environment: the verified history raises that finding's
    // confidence, and says why.
    ASSERT_EQ(run("kb record " + before + " --kb " + kb, &out, true), 0) << out;
    auto conf = sl::test::sqlite_rows(kb, "SELECT confidence, json FROM findings WHERE rule = 'decode-host-bound' "
                                          "ORDER BY id");
    ASSERT_EQ(conf.size(), 2u);
    EXPECT_GT(std::stod(conf[1][0]), std::stod(conf[0][0]));
    EXPECT_NE(conf[1][1].find("knowledge base: decode-host-bound/cuda-graphs verified 1x"), std::string::npos);
}

TEST(CliCompare, FormatsAndUsage)
{
    const std::string dir = sl::test::scratch_dir("cli_compare_formats");
    const std::string a = dir + "/a.sqlite", b = dir + "/b.sqlite";
    std::string out;
    ASSERT_EQ(run("generate --steps 8 --layers 2 --prefill 0 --quiet -o " + a, &out, true), 0) << out;
    ASSERT_EQ(run("generate --steps 8 --layers 2 --prefill 0 --nccl --quiet -o " + b, &out, true), 0) << out;
    ASSERT_EQ(run("compare " + a + " " + b, &out), 0);
    EXPECT_NE(out.find("Headline"), std::string::npos);
    EXPECT_NE(out.find("added  ncclKernel"), std::string::npos) << out;
    ASSERT_EQ(run("compare " + a + " " + b + " --format md", &out), 0);
    EXPECT_NE(out.find("| metric | before → after |"), std::string::npos);
    json j = run_json("compare " + a + " " + b + " --format json");
    EXPECT_GT(j["kernel_summary"]["added"].get<int>(), 0);
    EXPECT_EQ(j["kernel_summary"]["removed"].get<int>(), 0);
    EXPECT_TRUE(j["verdicts"].empty());

    EXPECT_EQ(run("compare " + a, &out, true), 64);
    EXPECT_EQ(run("compare " + a + " " + b + " --format pdf", &out, true), 64);
    EXPECT_EQ(run("compare " + a + " " + b + " --threshold abc", &out, true), 64);
    EXPECT_EQ(run("compare " + a + " " + dir + "/missing.sqlite", &out, true), 2);
    EXPECT_EQ(run("kb frobnicate --kb " + dir + "/k.db", &out, true), 64);
    EXPECT_EQ(run("kb accept 12345 --kb " + dir + "/k.db", &out, true), 2);
}

// The verdict first (issue 37 §4): the project's real eager decode against the same decode replayed as a CUDA graph
// (tests/data/device/README.md: 14.1 ms -> 1.73 ms per profiled step). The first line of the text says it in words,
// the JSON's end_to_end holds its numbers, and the workbench's Compare headline reads the same (compare_runs).
TEST(CliCompare, EndToEndVerdictFirst)
{
    const std::string dev = sl::test::source_dir() + "/tests/data/device/";
    const std::string pair = dev + "decode-eager.pt.trace.json.gz " + dev + "decode-graph.pt.trace.json.gz";
    std::string out;
    ASSERT_EQ(run("compare " + pair, &out), 0) << out;
    EXPECT_EQ(out.rfind("Faster end to end: TPOT 14.1 ms -> 1.73 ms (-87.7 %)", 0), 0u) << out.substr(0, 300);
    const json j = run_json("compare " + pair + " --format json");
    const json& e = j.at("end_to_end");
    EXPECT_EQ(e.at("verdict"), "faster");
    EXPECT_EQ(e.at("metric"), "tpot_median_ns");
    EXPECT_NEAR(e.at("change").get<double>(), -0.877, 0.001);
    EXPECT_GT(-e.at("change").get<double>(), e.at("noise").get<double>());
    EXPECT_EQ(e.at("steps_before"), 14);
    // The same run against itself changes nothing.
    const json same = run_json("compare " + dev + "decode-eager.pt.trace.json.gz " + dev +
                               "decode-eager.pt.trace.json.gz --format json");
    EXPECT_EQ(same.at("end_to_end").at("verdict"), "unchanged");
}

TEST(CliCompare, HtaTraceDiffPair)
{
    auto data = sl::test::shared_data_dir();
    if (!data)
        GTEST_SKIP() << "no shared data";
    json j = run_json("compare " + *data + "/kineto/hta/trace_diff__control.json.gz " + *data +
                      "/kineto/hta/trace_diff__test.json.gz --format json");
    ASSERT_TRUE(j.is_object());
    // Kernel names only in the test run (V100) / only in the control run (A100); counted independently in Python.
    EXPECT_EQ(j["kernel_summary"]["added"], 27);
    EXPECT_EQ(j["kernel_summary"]["removed"], 66);
    bool volta = false;
    for (const auto& k : j["kernels"])
        if (k["name"] == "volta_sgemm_128x32_nn") {
            volta = true;
            EXPECT_EQ(k["status"], "added");
            EXPECT_EQ(k["after_count"], 242);
        }
    EXPECT_TRUE(volta);
}

// analyze carries the findings, gates CI with --fail-on, and takes the user's rules directory.
TEST(CliAnalyzeFindings, FindingsFailOnAndUserRules)
{
    {
        // The --rules/--kb/--fail-on options reach `analyze` through cmd_analyze.cpp, which the analysis issue owns.
        std::string usage;
        run("analyze", &usage, true);
        if (usage.find("--fail-on") == std::string::npos)
            GTEST_SKIP() << "this build's analyze has no --fail-on yet";
    }
    const std::string dir = sl::test::scratch_dir("cli_analyze_findings");
    const std::string starved = dir + "/starved.sqlite", healthy = dir + "/healthy.sqlite";
    std::string out;
    ASSERT_EQ(run("generate --steps 16 --layers 4 --prefill 1 --host-starved --quiet -o " + starved, &out, true), 0);
    ASSERT_EQ(run("generate --steps 16 --layers 4 --prefill 1 --quiet -o " + healthy, &out, true), 0);

    json j = run_json("analyze " + starved + " --format json");
    ASSERT_TRUE(j.contains("findings"));
    bool host_bound = false;
    for (const auto& f : j["findings"])
        if (f["rule"] == "decode-host-bound") {
            host_bound = true;
            EXPECT_EQ(f["verdict"], "host-bound");
            EXPECT_EQ(f["severity"], "high");
            EXPECT_TRUE(f["expected_gain"]["computed"].get<bool>());
            EXPECT_FALSE(f["evidence"].empty());
            EXPECT_FALSE(f["suggestions"].empty());
        }
    EXPECT_TRUE(host_bound);
    // What could not apply is said: rules with missing metrics, per rule and scope kind.
    ASSERT_TRUE(j.contains("rules"));
    EXPECT_GE(j["rules"]["rules_evaluated"].get<int>(), 25);
    EXPECT_TRUE(j["rules"]["errors"].empty());
    bool ncu_missing = false;
    for (const auto& m : j["rules"]["missing_data"])
        ncu_missing |= m["rule"] == "ncu-low-occupancy";
    EXPECT_FALSE(ncu_missing);   // no ncu scopes at all: nothing to be missing on
    // Ranked by expected gain x confidence.
    for (size_t i = 1; i < j["findings"].size(); ++i)
        EXPECT_GE(j["findings"][i - 1]["expected_gain"]["fraction"].get<double>() *
                      j["findings"][i - 1]["confidence"]["value"].get<double>() + 1e-12,
                  j["findings"][i]["expected_gain"]["fraction"].get<double>() *
                      j["findings"][i]["confidence"]["value"].get<double>());

    EXPECT_EQ(run("analyze " + starved + " --fail-on high -o " + dir + "/a.txt", &out, true), 1);
    EXPECT_EQ(run("analyze " + healthy + " --fail-on high -o " + dir + "/b.txt", &out, true), 0) << out;
    EXPECT_EQ(run("analyze " + starved + " --fail-on critical", &out, true), 64);

    // A user rules directory switches off the rules that see the starved run's idle (severity follows the bounded
    // gain: any one of them left would take the idle and rate high); a broken file there is reported, the rest still
    // run.
    const std::string rules = dir + "/rules";
    std::filesystem::create_directories(rules);
    {
        std::ofstream(rules + "/off.json")
            << R"({"rules": [{"id": "decode-host-bound", "enabled": false}, {"id": "gpu-idle-fraction", "enabled": false},
                            {"id": "nsys-gpu-time-util", "enabled": false}, {"id": "nsys-gpu-gaps", "enabled": false}]})";
        std::ofstream(rules + "/broken.json") << R"({"rules": [{"id": "half", "scope": "trace", "condition": "x >"}]})";
    }
    // Under --fail-on the broken file fails the gate closed (issue 36): exit 2, never a pass.
    int rc = run("analyze " + starved + " --rules " + rules + " --fail-on high -o " + dir + "/c.txt", &out, true);
    EXPECT_EQ(rc, 2) << out;
    EXPECT_NE(out.find("broken.json, rule half"), std::string::npos) << out;
    EXPECT_NE(out.find("the gate cannot pass"), std::string::npos) << out;
    ASSERT_EQ(run("analyze " + starved + " --rules " + rules + " --format json -o " + dir + "/c.json", &out, true), 0);
    std::ifstream in(dir + "/c.json");
    json k = json::parse(in, nullptr, false);
    for (const auto& f : k["findings"])
        EXPECT_NE(f["rule"], "decode-host-bound");
    EXPECT_FALSE(k["findings"].empty());
    // The rules switched off, nothing broken: the gate passes.
    std::filesystem::remove(rules + "/broken.json");
    rc = run("analyze " + starved + " --rules " + rules + " --fail-on high -o " + dir + "/d.txt", &out, true);
    EXPECT_EQ(rc, 0) << out;
}

// kb record stores the environment's model hash and shape, so similar-environment lookups can tell models apart.
TEST(CliKb, RecordsModelHashAndShape)
{
    const std::string dir = sl::test::scratch_dir("cli_kb_env");
    const std::string trace = dir + "/t.sqlite", kb = dir + "/kb.db", cfg = dir + "/config.json";
    std::ofstream(cfg) << R"({"hidden_size": 4096, "num_hidden_layers": 32})";
    std::string out;
    ASSERT_EQ(run("generate --steps 8 --layers 2 --quiet -o " + trace, &out, true), 0);
    ASSERT_EQ(run("kb record " + trace + " --kb " + kb + " --model " + cfg + " --batch 4 --seq 128", &out, true), 0)
        << out;
    auto rows = sl::test::sqlite_rows(kb, "SELECT gpu, model_hash, batch, seq_len FROM environments");
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0][0], "NVIDIA H100 80GB HBM3");
    EXPECT_EQ(rows[0][1].size(), 16u);
    EXPECT_EQ(rows[0][2], "4");
    EXPECT_EQ(rows[0][3], "128");
    EXPECT_EQ(run("kb record " + trace + " --kb " + kb + " --batch zero", &out, true), 64);
    EXPECT_EQ(run("kb record " + trace + " --kb " + kb + " --model " + dir + "/none.json", &out, true), 2);
}

// Issue 14: `compare` without --kb uses the same default knowledge base as `kb` ($XDG_DATA_HOME/sightline), and
// judges end to end; several AFTER runs (BEFORE -- AFTER AFTER2) add their spread to the noise.
TEST(CliCompare, DefaultKnowledgeBaseAndRepeatedRuns)
{
    const std::string dir = sl::test::scratch_dir("cli_compare_xdg");
    const std::string xdg = dir + "/xdg";
    std::filesystem::create_directories(xdg);
    const std::string before = dir + "/before.sqlite", after = dir + "/after.sqlite", after2 = dir + "/after2.sqlite";
    std::string out;
    ASSERT_EQ(run("generate --steps 16 --layers 4 --prefill 1 --host-starved --quiet -o " + before, &out, true), 0);
    ASSERT_EQ(run("generate --steps 16 --layers 4 --prefill 1 --quiet -o " + after, &out, true), 0);
    ASSERT_EQ(run("generate --steps 16 --layers 4 --prefill 1 --seed 7 --quiet -o " + after2, &out, true), 0);
    auto run_xdg = [&](const std::string& args, std::string* o) {
        o->clear();   // run_command appends
        return sl::test::run_command("env XDG_DATA_HOME=" + xdg + " " + cli() + " " + args, o, false);
    };
    ASSERT_EQ(run_xdg("kb record " + before + " --format json", &out), 0) << out;
    ASSERT_TRUE(std::filesystem::exists(xdg + "/sightline/knowledge.db"));
    ASSERT_EQ(run_xdg("kb list --format json", &out), 0);
    int64_t id = 0;
    for (const auto& s : json::parse(out))
        if (s["suggestion"] == "decode-host-bound/cuda-graphs")
            id = s["id"].get<int64_t>();
    ASSERT_GT(id, 0) << out;
    ASSERT_EQ(run_xdg("kb accept " + std::to_string(id), &out), 0) << out;

    ASSERT_EQ(run_xdg("compare " + before + " " + after + " --format json", &out), 0) << out;
    json cmp = json::parse(out);
    ASSERT_EQ(cmp["verdicts"].size(), 1u) << "compare without --kb found no accepted suggestion";
    const auto& v = cmp["verdicts"][0];
    EXPECT_EQ(v["verdict"], "verified") << v.dump();
    EXPECT_EQ(v["end_to_end"]["metric"], "tpot_median_ns");
    const double tb = cmp["metrics"]["tpot_median_ns"]["before"].get<double>();
    const double ta = cmp["metrics"]["tpot_median_ns"]["after"].get<double>();
    EXPECT_NEAR(v["end_to_end"]["delta"].get<double>(), (ta - tb) / tb, 1e-9);
    EXPECT_GE(v["end_to_end"]["noise"].get<double>(), 0.03);

    ASSERT_EQ(run_xdg("compare " + before + " -- " + after + " " + after2 + " --format json", &out), 0) << out;
    json two = json::parse(out);
    ASSERT_EQ(two["verdicts"].size(), 1u);
    EXPECT_EQ(two["verdicts"][0]["verdict"], "verified");
    EXPECT_GE(two["verdicts"][0]["end_to_end"]["noise"].get<double>(), v["end_to_end"]["noise"].get<double>());
    EXPECT_EQ(run_xdg("compare " + before + " --", &out), 64);
}
