// sightline-cli analyze: JSON contract (schema sightline.analysis/1), text output, options and exit codes, on a trace
// the project's own generator writes with planted behaviour.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "tests/support/test_env.h"

namespace test = sl::test;
using nlohmann::json;

namespace {
std::string cli() { return SIGHTLINE_CLI; }

int run(const std::string& args, std::string* out, bool merge = false)
{
    return test::run_command(cli() + " " + args, out, merge);
}

// 1 prefill + 8 decode steps x 2 layers, a D2H copy + cudaStreamSynchronize after every step.
const std::string& trace_path()
{
    static std::string path;
    if (path.empty()) {
        const std::string dir = test::scratch_dir("cli_analyze");
        path = dir + "/sync.sqlite";
        std::string log;
        if (run("generate --steps 8 --layers 2 --prefill 1 --sync-every-step --seed 3 --quiet -o '" + path + "'", &log, true) != 0)
            ADD_FAILURE() << log;
    }
    return path;
}

json analyze_json(const std::string& extra = {})
{
    std::string out;
    const int rc = run("analyze '" + trace_path() + "' --format json " + extra, &out);
    EXPECT_EQ(rc, 0) << out;
    return json::parse(out);
}
} // namespace

TEST(CliAnalyze, JsonContract)
{
    const json j = analyze_json();
    EXPECT_EQ(j["schema"], "sightline.analysis/1");
    ASSERT_EQ(j["devices"].size(), 1u);
    const json& d = j["devices"][0];
    const json& b = d["idle_breakdown"];
    for (const char* k : {"host_wait_ns", "kernel_wait_ns", "sync_wait_ns", "other_ns"})
        ASSERT_TRUE(b.contains(k)) << k;
    EXPECT_EQ(b["host_wait_ns"].get<int64_t>() + b["kernel_wait_ns"].get<int64_t>() + b["sync_wait_ns"].get<int64_t>() +
                  b["other_ns"].get<int64_t>(),
              d["idle_ns"].get<int64_t>());
    EXPECT_EQ(d["window_ns"].get<int64_t>(), d["busy_ns"].get<int64_t>() + d["idle_ns"].get<int64_t>());
    // The planted sync after every step shows up as sync-wait, once per step but the last.
    EXPECT_EQ(b["counts"]["sync_wait"].get<int64_t>(), 9 - 1);
    const json& p = j["phases"];
    for (const char* k : {"prefill_ns", "decode_steps", "tpot_median_ns", "tpot_p90_ns"})
        ASSERT_TRUE(p.contains(k)) << k;
    EXPECT_EQ(p["source"], "nvtx");
    EXPECT_EQ(p["decode_steps"], 8);
    EXPECT_EQ(p["prefill_steps"], 1);
    EXPECT_GT(p["prefill_ns"].get<int64_t>(), 0);
    EXPECT_EQ(p["steps"].size(), 9u);
    EXPECT_EQ(j["sync"]["calls"], 9);
    EXPECT_EQ(j["focus"]["kernels"].size(), 10u);
    EXPECT_TRUE(j["op_classes"]["classes"].is_array());
    EXPECT_TRUE(j["launch"].contains("eta_launch"));
    EXPECT_TRUE(j["gaps"]["largest"].is_array());
    EXPECT_EQ(j["options"]["kernel_wait_threshold_ns"], 30000);
    EXPECT_TRUE(j["weight_streaming"]["hit_rate"].is_null());   // not applicable: no streaming ranges
}

// critical_path (issue 35): its keys, shares that partition its length, and the planted per-step sync on the path.
TEST(CliAnalyze, CriticalPath)
{
    const json j = analyze_json();
    ASSERT_TRUE(j.contains("critical_path"));
    const json& c = j["critical_path"];
    for (const char* k : {"length_ns", "nodes", "events", "graph_events", "graph_edges", "shares", "gpu_kernels_by_class",
                          "sync", "event_waits_inferred", "top"})
        ASSERT_TRUE(c.contains(k)) << k;
    const int64_t len = c["length_ns"].get<int64_t>();
    EXPECT_GT(len, 0);
    int64_t sum = 0;
    for (const char* k : {"host", "launch", "gpu_kernels", "memcpy_memset", "gpu_gap"})
        sum += c["shares"][k]["ns"].get<int64_t>();
    EXPECT_EQ(sum, len);
    int64_t by_class = 0;
    for (const auto& [id, v] : c["gpu_kernels_by_class"].items())
        by_class += v["ns"].get<int64_t>();
    EXPECT_EQ(by_class, c["shares"]["gpu_kernels"]["ns"].get<int64_t>());
    // The host waits for the copy after every step (.item()) but the last: the path crosses those syncs.
    EXPECT_GE(c["sync"]["edges"].get<int64_t>(), 8);
    EXPECT_GT(c["sync"]["host_blocked_ns"].get<int64_t>(), 0);
    ASSERT_FALSE(c["top"].empty());
    EXPECT_LE(c["top"].size(), 10u);
    // One path per step of the phases analysis; the steady state sums the decode steps after warm-up.
    ASSERT_EQ(c["steps"].size(), j["phases"]["steps"].size());
    for (const auto& s : c["steps"])
        EXPECT_GT(s["length_ns"].get<int64_t>(), 0);
    ASSERT_TRUE(c["steady_state"].is_object());
    EXPECT_EQ(c["steady_state"]["steps"], 8 - 2);
    EXPECT_GT(c["steady_state"]["median_step_length_ns"].get<int64_t>(), 0);
}

// The text output says what sets the step: the path per steady step and its shares, largest first.
TEST(CliAnalyze, CriticalPathLineInText)
{
    std::string out;
    ASSERT_EQ(run("analyze '" + trace_path() + "' --format text", &out), 0) << out;
    const size_t at = out.find("What sets the step (critical path)");
    ASSERT_NE(at, std::string::npos) << out.substr(0, 3000);
    const std::string line = out.substr(at, out.find('\n', out.find('\n', at) + 1) - at);
    EXPECT_NE(line.find("per steady step (6 steps)"), std::string::npos) << line;
    EXPECT_NE(line.find("synchronisation"), std::string::npos) << line;
    EXPECT_NE(out.find("most of it in: ", at), std::string::npos) << out.substr(at, 600);
}

TEST(CliAnalyze, OptionsChangeTheAnswer)
{
    const json zero = analyze_json("--gap-threshold-us 0");
    EXPECT_EQ(zero["devices"][0]["idle_breakdown"]["kernel_wait_ns"], 0);
    EXPECT_EQ(zero["options"]["kernel_wait_threshold_ns"], 0);
    const json top3 = analyze_json("--top-k 3");
    EXPECT_EQ(top3["focus"]["kernels"].size(), 3u);
    const json rx = analyze_json("--step-regex 'ArgMaxOps' --warmup-steps 0");
    EXPECT_EQ(rx["phases"]["source"], "kernel_regex");
    EXPECT_EQ(rx["phases"]["warmup_excluded"], 0);
    EXPECT_EQ(rx["phases"]["decode_steps"].get<int64_t>() + rx["phases"]["prefill_steps"].get<int64_t>(), 9);
}

TEST(CliAnalyze, TextAndOutputFile)
{
    std::string out;
    ASSERT_EQ(run("analyze '" + trace_path() + "'", &out), 0);
    EXPECT_NE(out.find("GPU idle attribution"), std::string::npos);
    EXPECT_NE(out.find("sync wait"), std::string::npos);
    EXPECT_NE(out.find("TPOT median"), std::string::npos);
    const std::string file = test::scratch_dir("cli_analyze_out") + "/a.json";
    std::string quiet;
    ASSERT_EQ(run("analyze '" + trace_path() + "' --format json -o '" + file + "'", &quiet), 0);
    EXPECT_TRUE(quiet.empty()) << quiet;
    std::ifstream in(file);
    std::stringstream ss;
    ss << in.rdbuf();
    EXPECT_EQ(json::parse(ss.str())["schema"], "sightline.analysis/1");
}

TEST(CliAnalyze, UsageAndInputErrors)
{
    std::string out;
    EXPECT_EQ(run("analyze", &out, true), 64);
    EXPECT_EQ(run("analyze '" + trace_path() + "' --format xml", &out, true), 64);
    EXPECT_NE(out.find("--format"), std::string::npos);
    EXPECT_EQ(run("analyze '" + trace_path() + "' --gap-threshold-us abc", &out, true), 64);
    EXPECT_EQ(run("analyze '" + trace_path() + "' --top-k 0", &out, true), 64);
    EXPECT_EQ(run("analyze '" + trace_path() + "' --bogus", &out, true), 64);
    EXPECT_EQ(run("analyze /nonexistent/trace.sqlite", &out, true), 2);
    const std::string bad = test::scratch_dir("cli_analyze_bad") + "/classes.json";
    std::ofstream(bad) << "{ not json";
    EXPECT_EQ(run("analyze '" + trace_path() + "' --classes '" + bad + "'", &out, true), 2);
    EXPECT_NE(out.find(bad), std::string::npos);
    EXPECT_EQ(run("analyze '" + trace_path() + "' --step-regex '(['", &out, true), 2);
}
