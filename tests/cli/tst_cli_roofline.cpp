// sightline-cli roofline and ncu: JSON layout, text output, exit codes and error messages.
#include <gtest/gtest.h>

#include "tests/support/test_env.h"

#include <nlohmann/json.hpp>

#include <fstream>

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

TEST(CliRoofline, JsonForALlamaConfig)
{
    std::string out;
    ASSERT_EQ(run("roofline --model " + src("tests/data/models/llama_tiny_config.json") +
                      " --gpu H100-SXM --batch 2 --prompt 8 --context 16 --format json",
                  &out),
              0)
        << out;
    const auto j = nlohmann::json::parse(out);
    const auto& r = j["roofline"];
    EXPECT_EQ(r["gpu"]["name"], "H100 SXM");
    EXPECT_DOUBLE_EQ(r["peaks"]["memory_bw_Bps"].get<double>(), 3350e9);
    EXPECT_EQ(r["peaks"]["gemm_precision"], "bf16");
    ASSERT_EQ(r["phases"].size(), 2u);
    // decode total FLOPs (see tst_cost_model: 418,048)
    EXPECT_DOUBLE_EQ(r["phases"][1]["flops"].get<double>(), 418048);
    bool seen = false;
    for (const auto& op : r["operators"]) {
        for (const char* k : {"name", "phase", "flops", "bytes", "intensity", "bound", "t_theory_ns", "t_actual_ns",
                              "e_roof"})
            EXPECT_TRUE(op.contains(k)) << k;
        if (op["name"] == "q_proj" && op["phase"] == "decode") {
            seen = true;
            EXPECT_DOUBLE_EQ(op["flops"].get<double>(), 2 * 16384.0);   // whole model: 2 layers
            EXPECT_DOUBLE_EQ(op["bytes"].get<double>(), 2 * 8704.0);
            // 8704 B per layer is 2.6 ns at 3350 GB/s: far below the H100's shortest kernel (0.832 us), so the
            // operator's theory is its time floor, two kernels, and it is latency-bound.
            EXPECT_EQ(op["bound"], "latency");
            EXPECT_DOUBLE_EQ(op["t_floor_ns"].get<double>(), 2 * 832.0);
            EXPECT_DOUBLE_EQ(op["t_theory_ns"].get<double>(), 2 * 832.0);
            EXPECT_TRUE(op["t_actual_ns"].is_null());
        }
    }
    EXPECT_TRUE(seen);
    EXPECT_TRUE(r["focus"].is_array());
    // -o writes the same JSON to a file
    const std::string path = test::scratch_dir("cli_roofline") + "/r.json";
    ASSERT_EQ(run("roofline --model " + src("tests/data/models/qwen3_gqa_config.json") +
                      " --gpu a100 --unfused --kv-dtype fp8 --format json -o " + path,
                  &out),
              0);
    std::ifstream in(path);
    const auto k = nlohmann::json::parse(in);
    EXPECT_EQ(k["roofline"]["gpu"]["name"], "A100 80GB SXM");
    EXPECT_EQ(k["roofline"]["options"]["fused_attention"], false);
    EXPECT_DOUBLE_EQ(k["roofline"]["options"]["kv_bytes"].get<double>(), 1);
}

TEST(CliRoofline, TextTableAndErrors)
{
    std::string out;
    ASSERT_EQ(run("roofline --model " + src("tests/data/models/qwen3_gqa_config.json") + " --gpu RTX4090", &out), 0);
    EXPECT_NE(out.find("q_proj"), std::string::npos);
    EXPECT_NE(out.find("attention"), std::string::npos);
    EXPECT_NE(out.find("prefill"), std::string::npos);
    EXPECT_NE(out.find("decode"), std::string::npos);
    EXPECT_NE(out.find("RTX 4090"), std::string::npos);

    EXPECT_EQ(run("roofline --gpu H100-SXM", &out, true), 64);                         // no --model
    EXPECT_EQ(run("roofline --model x.json --gpu H100 --batch eight", &out, true), 64);
    EXPECT_EQ(run("roofline --model " + src("tests/data/models/llama_tiny_config.json") + " --gpu H900", &out, true), 2);
    EXPECT_NE(out.find("H900"), std::string::npos);
    EXPECT_NE(out.find("H100 SXM"), std::string::npos);
    EXPECT_EQ(run("roofline --model /nonexistent/config.json --gpu H100", &out, true), 2);
    const std::string bad = test::scratch_dir("cli_roofline_bad") + "/config.json";
    std::ofstream(bad) << R"({"hidden_size": 64, "num_attention_heads": 4, "num_hidden_layers": 2, "vocab_size": 9})";
    EXPECT_EQ(run("roofline --model " + bad + " --gpu H100", &out, true), 2);
    EXPECT_NE(out.find("intermediate_size"), std::string::npos);
}

// Given a trace, `roofline` is the Roofline of what the trace ran (issue 34 §3: "with a config.json the Roofline
// used batch 1, prompt 1024, context 2048 while the trace's own shapes say batch 16"): the project's real eager decode
// records batch 8 and a KV length of 539 (tests/data/device/README.md), and the decode theory takes them from the
// trace and says so — the same phases as analyze --model's. A flag still wins, field by field.
TEST(CliRoofline, TraceGivesItsOwnWorkload)
{
    const std::string trace = src("tests/data/device/decode-eager.pt.trace.json.gz");
    const std::string config = src("tests/data/device/config.json");
    std::string out;
    ASSERT_EQ(run("roofline --model " + config + " " + trace + " --format json", &out), 0) << out;
    const auto r = nlohmann::json::parse(out)["roofline"];
    const nlohmann::json* dec = nullptr;
    for (const auto& ph : r["phases"])
        if (ph["phase"] == "decode")
            dec = &ph;
    ASSERT_TRUE(dec);
    EXPECT_EQ((*dec)["batch"], 8);
    EXPECT_EQ((*dec)["shape_source"], "trace");
    EXPECT_EQ((*dec)["shape_fields"]["batch"], "trace");
    EXPECT_NEAR((*dec)["kv_len"].get<double>(), 539, 16);
    EXPECT_FALSE((*dec)["t_actual_ns"].is_null());   // the trace's measured decode time is joined
    // analyze --model prints the same phases.
    std::string full;
    ASSERT_EQ(run("analyze " + trace + " --model " + config + " --format json", &full), 0) << full;
    EXPECT_EQ(nlohmann::json::parse(full)["roofline"]["phases"], r["phases"]);
    // --batch wins over the trace for the batch, and the trace keeps the KV length.
    ASSERT_EQ(run("roofline --model " + config + " " + trace + " --batch 4 --format json", &out), 0) << out;
    const auto with_batch = nlohmann::json::parse(out);   // held: a range-for over parse(out)[...] reads freed memory
    for (const auto& ph : with_batch["roofline"]["phases"])
        if (ph["phase"] == "decode") {
            EXPECT_EQ(ph["batch"], 4);
            EXPECT_EQ(ph["shape_fields"]["batch"], "option");
            EXPECT_EQ(ph["shape_fields"]["kv_len"], "trace");
        }
}

TEST(CliNcu, RealAndCraftedFiles)
{
    std::string out;
    ASSERT_EQ(run("ncu " + src("tests/data/ncu/raw_base_units.csv") + " --format json", &out), 0) << out;
    auto j = nlohmann::json::parse(out);
    ASSERT_EQ(j["ncu"]["launches"].size(), 3u);
    const auto& l0 = j["ncu"]["launches"][0];
    for (const char* k : {"id", "name", "duration_ns", "dram_bytes", "flops", "intensity", "sm_throughput_pct",
                          "memory_throughput_pct", "achieved_occupancy_pct", "rules"})
        EXPECT_TRUE(l0.contains(k)) << k;
    EXPECT_DOUBLE_EQ(l0["flops"]["fp32"].get<double>(), 2300);
    EXPECT_DOUBLE_EQ(l0["duration_ns"].get<double>(), 10240);
    EXPECT_TRUE(j["ncu"]["launches"][2]["dram_bytes"].is_null());

    if (const auto dir = test::shared_data_dir()) {
        const std::string csv = *dir + "/ncu/a100_gpt2_flashattn_details_ncu2021.csv";
        if (std::ifstream(csv)) {
            ASSERT_EQ(run("ncu " + csv + " --format json", &out), 0);
            j = nlohmann::json::parse(out);
            EXPECT_EQ(j["ncu"]["launches"].size(), 10u);
            EXPECT_EQ(j["ncu"]["launches"][3]["rules"][0]["name"], "LaunchConfiguration");
            ASSERT_EQ(run("ncu " + csv, &out), 0);
            EXPECT_NE(out.find("fmha_fwd_loop_kernel"), std::string::npos);
        }
        const std::string rep = *dir + "/ncu/gh200_silu_pytorch.ncu-rep";
        if (std::ifstream(rep) && test::run_command("command -v ncu", nullptr) != 0) {
            EXPECT_EQ(run("ncu " + rep, &out, true), 2);
            EXPECT_NE(out.find("ncu --import"), std::string::npos) << out;
        }
    }
    EXPECT_EQ(run("ncu " + src("tests/data/ncu/bad_id.csv"), &out, true), 2);
    EXPECT_NE(out.find("line 3"), std::string::npos) << out;
    EXPECT_EQ(run("ncu", &out, true), 64);
}

