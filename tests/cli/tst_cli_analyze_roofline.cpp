// sightline-cli analyze --model/--ncu: the Roofline and ncu objects inside the analysis output.
#include <gtest/gtest.h>

#include "tests/support/test_env.h"

#include <nlohmann/json.hpp>

using namespace sl;

namespace {
std::string cli() { return SIGHTLINE_CLI; }
std::string src(const std::string& p) { return test::source_dir() + "/" + p; }

int run(const std::string& args, std::string* out, bool merge = false)
{
    out->clear();   // run_command appends
    return test::run_command(cli() + " " + args, out, merge);
}
} // namespace

// analyze --model/--ncu: the roofline and ncu objects join the analysis JSON, measured per class and phase.
TEST(CliAnalyzeRoofline, GeneratedDecodeTrace)
{
    const std::string dir = test::scratch_dir("cli_analyze_roofline");
    const std::string trace = dir + "/decode.sqlite";
    std::string out;
    ASSERT_EQ(run("generate --preset decode --quiet -o " + trace, &out, true), 0) << out;
    ASSERT_EQ(run("analyze " + trace + " --model " + src("tests/data/models/llama_tiny_config.json") +
                      " --gpu H100-SXM --batch 1 --prompt 128 --context 256 --ncu " +
                      src("tests/data/ncu/raw_base_units.csv") + " --format json",
                  &out),
              0)
        << out;
    const auto j = nlohmann::json::parse(out);
    ASSERT_TRUE(j.contains("roofline"));
    ASSERT_TRUE(j.contains("ncu"));
    const auto& r = j["roofline"];
    EXPECT_TRUE(r["measured"].get<bool>());
    EXPECT_EQ(r["gpu"]["name"], "H100 SXM");
    // Every class with a measured time and a theory has E_roof = t_theory / t_actual.
    size_t joined = 0;
    for (const auto& c : r["classes"]) {
        if (c["t_actual_ns"].is_null() || c["t_theory_ns"].is_null())
            continue;
        ++joined;
        EXPECT_NEAR(c["e_roof"].get<double>(), c["t_theory_ns"].get<double>() / c["t_actual_ns"].get<double>(), 1e-9);
    }
    EXPECT_GT(joined, 0u);
    EXPECT_FALSE(r["focus"].empty());
    EXPECT_EQ(j["ncu"]["launches"].size(), 3u);
    EXPECT_TRUE(j["ncu"]["launches"][0].contains("trace_kernel"));
    // Without --model and --ncu the analysis JSON has neither key.
    ASSERT_EQ(run("analyze " + trace + " --format json", &out), 0);
    const auto k = nlohmann::json::parse(out);
    EXPECT_FALSE(k.contains("roofline"));
    EXPECT_FALSE(k.contains("ncu"));
    // Text output carries the Roofline table.
    ASSERT_EQ(run("analyze " + trace + " --model " + src("tests/data/models/llama_tiny_config.json") + " --gpu H100", &out),
              0);
    EXPECT_NE(out.find("Roofline:"), std::string::npos);
    EXPECT_EQ(run("analyze " + trace + " --model " + src("tests/data/models/llama_tiny_config.json") +
                      " --batch zero",
                  &out, true),
              64);
}
