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

// Issue 34 §3: on the real eager decode (batch 8, KV 539 in its recorded shapes; tests/data/device/README.md) with
// only --model, the Roofline's workload is the trace's and every number says so; no E_roof below 0.01 comes from a
// default; --batch 1 still wins, with a warning naming both values.
TEST(CliAnalyzeRoofline, RealDecodeTakesItsShapeFromTheTrace)
{
    const std::string trace = src("tests/data/device/decode-eager.pt.trace.json.gz");
    const std::string config = src("tests/data/device/config.json");
    std::string out;
    ASSERT_EQ(run("analyze " + trace + " --model " + config + " --format json", &out), 0) << out;
    const auto j = nlohmann::json::parse(out);
    const auto& r = j.at("roofline");
    EXPECT_EQ(r["options"]["shape_source"], "trace");
    bool decode = false;
    for (const auto& p : r["phases"]) {
        if (p["phase"] != "decode")
            continue;
        decode = true;
        EXPECT_EQ(p["batch"], 8);
        EXPECT_EQ(p["query_len"], 1);
        EXPECT_EQ(p["kv_len"], 539);
        EXPECT_EQ(p["shape_source"], "trace");
        EXPECT_EQ(p["shape_fields"]["batch"], "trace");
        EXPECT_NE(p["shape_evidence"].get<std::string>().find("batch 8"), std::string::npos);
    }
    EXPECT_TRUE(decode);
    int measured = 0;
    for (const auto& c : r["classes"]) {
        ASSERT_TRUE(c.contains("shape_source"));
        if (c["phase"] == "decode") {
            EXPECT_EQ(c["shape_source"], "trace");
        }
        if (c["e_roof"].is_number()) {
            ++measured;
            EXPECT_FALSE(c["e_roof"].get<double>() < 0.01 && c["shape_source"] == "default") << c.dump();
            EXPECT_GE(c["e_roof"].get<double>(), 0.01) << c.dump();
        }
        if (c["t_theory_ns"].is_null()) {
            EXPECT_TRUE(c["e_roof"].is_null()) << "no theory, no E_roof: " << c.dump();
        }
    }
    EXPECT_GT(measured, 0);
    EXPECT_EQ(r["gpu"]["min_kernel_ns"], 832.0);
    for (const auto& o : r["operators"]) {
        if (o["t_floor_ns"].is_number() && o["t_theory_ns"].is_number()) {
            EXPECT_GE(o["t_theory_ns"].get<double>(), o["t_floor_ns"].get<double>() - 1e-6) << o.dump();
        }
    }
    // The text says where the shape came from.
    ASSERT_EQ(run("analyze " + trace + " --model " + config, &out), 0);
    EXPECT_NE(out.find("decode: batch 8, 1 query tokens/seq, KV length 539 (shape: trace)"), std::string::npos) << out;
    // A flag the trace contradicts: it wins, and a warning names both values.
    ASSERT_EQ(run("analyze " + trace + " --model " + config + " --batch 1 --format json", &out), 0) << out;
    const auto k = nlohmann::json::parse(out).at("roofline");
    EXPECT_EQ(k["options"]["shape_source"], "option");
    bool warned = false;
    for (const auto& w : k["warnings"])
        warned |= w.get<std::string>().find("--batch 1 contradicts the trace") != std::string::npos &&
                  w.get<std::string>().find("batch 8") != std::string::npos;
    EXPECT_TRUE(warned) << k["warnings"].dump(1);
    for (const auto& p : k["phases"])
        if (p["phase"] == "decode") {
            EXPECT_EQ(p["batch"], 1);
            EXPECT_EQ(p["shape_fields"]["batch"], "option");
            EXPECT_EQ(p["shape_fields"]["kv_len"], "trace");
        }
}
