// Does the config describe the trace? (analysis/roofline/config_check.h) — on hand-built record_shapes traces whose
// weights are counted here, independently of the check: unfused and fused projections, a wrong layer count, a wrong
// hidden size, a MoE trace and config, a dense trace against a MoE config, no lm_head to count passes, and a trace
// without shapes.
#include "analysis/io/kineto_reader.h"
#include "analysis/io/load.h"
#include "analysis/io/model_config.h"
#include "analysis/roofline/config_check.h"
#include "tests/support/test_env.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <utility>
#include <vector>

using namespace sl;

namespace {

// h 64, 4 query heads and 2 KV heads of 16, intermediate 96 (SwiGLU), vocabulary 320: sizes chosen so that no
// attention, MLP or lm_head matrix shares a shape with another kind (real models have such distinct sizes too).
ModelConfig config(int layers = 2, int hidden = 64, const std::string& extra = "", int intermediate = 96)
{
    std::ostringstream o;
    o << R"({"model_type":"llama","hidden_size":)" << hidden << R"(,"num_attention_heads":4,"num_key_value_heads":2,)"
      << R"("head_dim":16,"intermediate_size":)" << intermediate << R"(,"num_hidden_layers":)" << layers
      << R"(,"vocab_size":320,"torch_dtype":"bfloat16")" << extra << "}";
    return parse_model_config(o.str(), "test config");
}

// One aten::mm CPU op per weight (K, N), M = 8, in `passes` forward passes of `layers` layers, then the lm_head.
Trace trace(const std::vector<std::pair<int, int>>& per_layer, int layers, int passes, bool lm_head = true,
            const char* op = "aten::mm")
{
    std::ostringstream j;
    j << R"({"traceEvents":[)";
    double ts = 0;
    bool first = true;
    auto mm = [&](int k, int n) {
        j << (first ? "" : ",\n") << R"({"ph":"X","cat":"cpu_op","name":")" << op << R"(","pid":1,"tid":1,"ts":)"
          << ts << R"(,"dur":2,"args":{"Input Dims":[[8,)" << k << "],[" << k << "," << n
          << R"(]],"Input type":["c10::BFloat16","c10::BFloat16"]}})";
        first = false;
        ts += 3;
    };
    for (int p = 0; p < passes; ++p) {
        for (int l = 0; l < layers; ++l)
            for (const auto& [k, n] : per_layer)
                mm(k, n);
        if (lm_head)
            mm(64, 320);
    }
    j << "]}";
    const std::string path = test::scratch_dir("config_check") + "/t.json";
    std::ofstream(path) << j.str();
    return read_kineto_json(path);
}

const std::vector<std::pair<int, int>> kUnfused = {{64, 64}, {64, 32}, {64, 32}, {64, 64}, {64, 96}, {64, 96}, {96, 64}};
const std::vector<std::pair<int, int>> kFused = {{64, 128}, {64, 64}, {64, 192}, {96, 64}};   // qkv, o, gate_up, down

} // namespace

TEST(ConfigCheck, UnfusedAndFusedProjectionsConfirmTheConfigAndCountItsLayers)
{
    for (const auto* w : {&kUnfused, &kFused}) {
        const ConfigShapeCheck c = check_config_shapes(trace(*w, 2, 3), config());
        EXPECT_EQ(c.verdict, "confirmed") << c.reason;
        EXPECT_EQ(c.lm_head_calls, 3);
        EXPECT_DOUBLE_EQ(c.matched_fraction, 1.0);
        // q (or qkv) and o once per layer each: 2 layers per pass.
        EXPECT_DOUBLE_EQ(c.layers_from_shapes, 2.0);
        EXPECT_EQ(c.gemm_calls, 3 * (2 * static_cast<int64_t>(w->size()) + 1));
    }
}

TEST(ConfigCheck, AWrongLayerCountOrHiddenSizeIsContradicted)
{
    const Trace t = trace(kUnfused, 2, 3);
    const ConfigShapeCheck four = check_config_shapes(t, config(4));
    EXPECT_EQ(four.verdict, "contradicted");
    EXPECT_DOUBLE_EQ(four.layers_from_shapes, 2.0);
    EXPECT_NE(four.reason.find("2.0 layers"), std::string::npos) << four.reason;
    // hidden 96: most of the trace's weights are not its matrices.
    const ConfigShapeCheck wide = check_config_shapes(t, config(2, 96));
    EXPECT_EQ(wide.verdict, "contradicted");
    EXPECT_LT(wide.matched_fraction, 0.5) << "only the trace's (96, 64) and (64, 96) look like its q and o";
}

TEST(ConfigCheck, AMoeTraceConfirmsItsConfigWhicheverExpertsItTouches)
{
    // Per layer: q, k, v, o, the router (64 -> 4 experts), and expert MLPs of width 40 for two of the four experts:
    // a decode pass need not touch every expert, so the layers are counted from the attention projections.
    const std::vector<std::pair<int, int>> moe = {{64, 64}, {64, 32}, {64, 32}, {64, 64}, {64, 4},
                                                  {64, 40}, {64, 40}, {40, 64}, {64, 40}, {64, 40}, {40, 64}};
    const std::string extra = R"(,"num_local_experts":4,"num_experts_per_tok":2,"moe_intermediate_size":40)";
    const ConfigShapeCheck c = check_config_shapes(trace(moe, 2, 3), config(2, 64, extra));
    EXPECT_EQ(c.verdict, "confirmed") << c.reason;
    EXPECT_DOUBLE_EQ(c.matched_fraction, 1.0);
    EXPECT_DOUBLE_EQ(c.layers_from_shapes, 2.0);
    EXPECT_EQ(check_config_shapes(trace(moe, 2, 3), config(4, 64, extra)).verdict, "contradicted");
}

TEST(ConfigCheck, UnknownWithoutPassesOrShapes)
{
    const ConfigShapeCheck no_head = check_config_shapes(trace(kUnfused, 2, 3, false), config());
    EXPECT_EQ(no_head.verdict, "unknown");
    EXPECT_DOUBLE_EQ(no_head.matched_fraction, 1.0);
    EXPECT_EQ(no_head.lm_head_calls, 0);

    // A dense trace against a MoE config: only the attention and the lm_head are its matrices (per pass
    // 2·(4096+2048+2048+4096) + 64·320 = 45056 of 2·30720 + 20480 = 81920 weight elements), the MLP is not: in
    // between, so not confirmed.
    const std::string moe_extra = R"(,"num_local_experts":4,"num_experts_per_tok":2,"moe_intermediate_size":40)";
    const ConfigShapeCheck dense_vs_moe = check_config_shapes(trace(kUnfused, 2, 3), config(2, 64, moe_extra));
    EXPECT_EQ(dense_vs_moe.verdict, "unknown");
    EXPECT_NEAR(dense_vs_moe.matched_fraction, 45056.0 / 81920.0, 1e-12);

    // Intermediate 128 = the fused qkv width (64 + 2·32): a (64, 128) GEMM could be either, so the layers are not
    // read, and nothing is confirmed.
    const std::vector<std::pair<int, int>> wide_mlp = {{64, 64}, {64, 32}, {64, 32}, {64, 64}, {64, 128}, {64, 128}, {128, 64}};
    const ConfigShapeCheck amb = check_config_shapes(trace(wide_mlp, 2, 3), config(2, 64, "", 128));
    EXPECT_EQ(amb.verdict, "unknown") << amb.reason;
    EXPECT_DOUBLE_EQ(amb.matched_fraction, 1.0);
    EXPECT_EQ(amb.layers_from_shapes, 0.0);

    // aten::linear is not a leaf GEMM (it calls mm/addmm, which the profiler records too): not counted.
    const ConfigShapeCheck none = check_config_shapes(trace(kUnfused, 2, 3, true, "aten::linear"), config());
    EXPECT_EQ(none.verdict, "unknown");
    EXPECT_EQ(none.gemm_calls, 0);
}

// A training step (tests/data/device/train.pt.trace.json.gz: the 8-layer model of config.json, 4 iterations of
// forward, backward and AdamW) runs its backward GEMMs by the same weights, transposed, inside autograd's
// evaluate_function ranges: left out, the forward alone counts 8 layers per pass and the config is confirmed, not
// "contradicted (n layers, the config has 8)".
TEST(ConfigCheck, ATrainingStepsBackwardGemmsAreNotExtraForwardLayers)
{
    const std::string dir = test::source_dir() + "/tests/data/device/";
    const Trace t = load_trace(dir + "train.pt.trace.json.gz");
    const ModelConfig m = load_model_config(dir + "config.json");
    const ConfigShapeCheck c = check_config_shapes(t, m);
    EXPECT_NE(c.verdict, "contradicted") << c.reason;
    EXPECT_GT(c.backward_gemm_calls, 0);
    EXPECT_EQ(c.lm_head_calls, 4) << "one forward pass per iteration";
    EXPECT_DOUBLE_EQ(c.layers_from_shapes, 8.0) << c.reason;
    EXPECT_EQ(c.verdict, "confirmed") << c.reason;
}
