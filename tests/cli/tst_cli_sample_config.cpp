// sightline-cli generate --config-out: the model config.json of the generated (bundled) sample is a valid Llama-7B
// shaped config the roofline and analyze commands accept, and the sample's measured E_roof values are plausible.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "tests/support/test_env.h"

using namespace sl;

namespace {

std::string cli() { return SIGHTLINE_CLI; }

int run(const std::string& args, std::string* out, bool merge = false)
{
    out->clear();
    return test::run_command(cli() + " " + args, out, merge);
}

std::string slurp(const std::string& path)
{
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

} // namespace

TEST(CliSampleConfig, GeneratorWritesTheSampleModel)
{
    const std::string dir = test::scratch_dir("cli_sample_config");
    const std::string trace = dir + "/sample.sqlite", config = dir + "/sample.config.json";
    std::string out;
    ASSERT_EQ(run("generate --preset decode --quiet -o " + trace + " --config-out " + config, &out, true), 0) << out;
    const auto c = nlohmann::json::parse(slurp(config));
    EXPECT_EQ(c["model_type"], "llama");
    EXPECT_EQ(c["architectures"][0], "LlamaForCausalLM");
    EXPECT_EQ(c["hidden_size"], 4096);
    EXPECT_EQ(c["intermediate_size"], 11008);
    EXPECT_EQ(c["num_attention_heads"], 32);
    EXPECT_EQ(c["num_key_value_heads"], 32);
    EXPECT_EQ(c["vocab_size"], 32000);
    EXPECT_EQ(c["torch_dtype"], "bfloat16");
    EXPECT_EQ(c["num_hidden_layers"], 8);   // the decode preset's layers

    // With --layers 32 it is Llama-2-7B's shape: the roofline command counts its 6,738,415,616 parameters
    // (embeddings 32000*4096 twice, 32 layers of 4*4096^2 + 3*4096*11008 + 2*4096, the final norm).
    const std::string config32 = dir + "/llama7b.config.json";
    ASSERT_EQ(run("generate --preset decode --layers 32 --steps 1 --quiet -o " + dir + "/l32.sqlite --config-out " +
                      config32,
                  &out, true),
              0)
        << out;
    ASSERT_EQ(run("roofline --model " + config32 + " --gpu H100-SXM --format json", &out), 0) << out;
    const auto r = nlohmann::json::parse(out)["roofline"];
    EXPECT_EQ(r["model"]["parameters"].get<int64_t>(), 6'738'415'616);
    EXPECT_EQ(r["model"]["num_hidden_layers"], 32);

    // Unwritable config path: an output error (exit 4) naming the path, not a crash.
    EXPECT_EQ(run("generate --preset decode --quiet -o " + dir + "/x.sqlite --config-out " + dir +
                      "/no/such/dir/c.json",
                  &out, true),
              4)
        << out;
    EXPECT_NE(out.find("cannot write " + dir + "/no/such/dir/c.json: No such file or directory"), std::string::npos) << out;
}

TEST(CliSampleConfig, SampleRooflineHasPlausiblePerClassERoof)
{
    const std::string dir = test::scratch_dir("cli_sample_config_roofline");
    const std::string trace = dir + "/sample.sqlite", config = dir + "/sample.config.json";
    std::string out;
    ASSERT_EQ(run("generate --preset decode --quiet -o " + trace + " --config-out " + config, &out, true), 0) << out;
    // The GPU comes from the trace's device (NVIDIA H100 80GB HBM3); the shape is the GUI's default settings.
    ASSERT_EQ(run("analyze " + trace + " --model " + config + " --batch 1 --prompt 512 --context 2048 --format json",
                  &out),
              0)
        << out;
    const auto j = nlohmann::json::parse(out)["roofline"];
    EXPECT_EQ(j["gpu"]["name"], "H100 SXM");
    EXPECT_TRUE(j["measured"].get<bool>());
    std::map<std::string, double> decode, prefill;
    for (const auto& c : j["classes"]) {
        if (c["e_roof"].is_null())
            continue;
        const double e = c["e_roof"].get<double>();
        EXPECT_NEAR(e, c["t_theory_ns"].get<double>() / c["t_actual_ns"].get<double>(), 1e-9 * e);
        (c["phase"] == "decode" ? decode : prefill)[c["class"].get<std::string>()] = e;
    }
    // Per-class E_roof for the decode step's main classes.
    for (const char* cls : {"gemm", "attention", "norm"})
        EXPECT_TRUE(decode.count(cls)) << cls;
    EXPECT_TRUE(prefill.count("gemm"));
    // Plausible (shape batch 1, prompt 512 = the sample's prefill tokens, context 2048): a 7B-shaped decode step at
    // batch 1 reads every weight once per token, so its GEMMs are memory bound and the sample's GEMM kernels reach
    // ~91 % of the memory roof; decode attention reads a 2048-token KV cache at ~90 %. The small per-token kernels
    // (norm, rotary, ...) move a few KB each: no kernel that small reaches a roof, so their theory is the time floor
    // (kernels × the H100's shortest kernel, 0.832 us) and they are latency-bound, judged against what a kernel can
    // do (E_roof ≈ 0.26 for the norms), not against the few ns their bytes would take (E_roof < 1 % before the floor).
    // Nothing exceeds the roof.
    EXPECT_GT(decode["gemm"], 0.6);
    EXPECT_LT(decode["gemm"], 1.0);
    EXPECT_GT(decode["attention"], 0.6);
    EXPECT_LT(decode["attention"], 1.0);
    EXPECT_GT(decode["norm"], 0.05);
    EXPECT_LT(decode["norm"], 1.0);
    for (const auto& o : j["operators"]) {
        if (o["phase"] == "decode" && o["name"] == "attn_norm") {
            EXPECT_EQ(o["bound"], "latency");
            EXPECT_DOUBLE_EQ(o["t_theory_ns"].get<double>(), o["t_floor_ns"].get<double>());
        }
    }
    for (const auto* m : {&decode, &prefill})
        for (const auto& [cls, e] : *m) {
            EXPECT_GT(e, 1e-4) << cls;
            EXPECT_LT(e, 1.0) << cls;
        }
}
