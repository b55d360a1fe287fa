// Quantisation per module: quantization_config says which modules are stored in which format (modules_to_not_convert,
// compressed-tensors targets and ignore, Quark layer configs, GPTQ lm_head), and the Roofline reads each operator's
// weights at its own module's format. gpt-oss (tests/data/models/gpt_oss_20b_config.json, the model card's
// config.json): MXFP4 experts; attention, router, embeddings and lm_head in bf16. Expected bytes are computed here
// from the config's shapes and the formats' definitions (MXFP4: 4 bits + an e8m0 scale per 32 elements; AWQ/GPTQ:
// b bits + an fp16 scale and a b-bit zero point per group).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

#include "analysis/io/model_config.h"
#include "analysis/report/roofline_json.h"
#include "analysis/roofline/cost_model.h"
#include "analysis/roofline/gpu_specs.h"
#include "analysis/roofline/roofline.h"
#include "tests/support/test_env.h"

using namespace sl;

namespace {

ModelConfig gpt_oss() { return load_model_config(test::source_dir() + "/tests/data/models/gpt_oss_20b_config.json"); }

GpuSpec gpu(const std::string& name)
{
    return *GpuDatabase::load(test::source_dir() + "/resources/gpus.json").find(name);
}

const OpCost& op(const CostModelResult& r, Phase p, const std::string& name)
{
    for (const auto& o : r.phase(p)->ops)
        if (o.name == name)
            return o;
    throw std::runtime_error("no operator " + name);
}

ModelConfig llama_with(const std::string& quant)
{
    std::ifstream f(test::source_dir() + "/tests/data/models/llama_tiny_config.json");
    std::stringstream s;
    s << f.rdbuf();
    auto j = nlohmann::json::parse(s.str());
    j["quantization_config"] = nlohmann::json::parse(quant);
    return parse_model_config(j.dump(), "quant_config.json");
}

} // namespace

TEST(QuantModules, GptOssKeepsAttentionRouterEmbeddingAndLmHeadInBf16)
{
    const ModelConfig m = gpt_oss();
    EXPECT_EQ(m.quant_method, "mxfp4");
    EXPECT_EQ(m.num_experts, 32);
    EXPECT_EQ(m.experts_per_token, 4);
    EXPECT_EQ(m.quant_skip.size(), 4u);
    // Module by module (the paths transformers gives them).
    EXPECT_EQ(m.weight_format({"model.layers.7.self_attn.q_proj"}).dtype, "bfloat16");
    EXPECT_EQ(m.weight_format({"model.layers.7.mlp.router"}).dtype, "bfloat16");
    EXPECT_EQ(m.weight_format({"lm_head"}).dtype, "bfloat16");
    const WeightFormat ex = m.weight_format({"model.layers.7.mlp.experts.gate_up_proj"});
    EXPECT_EQ(ex.dtype, "mxfp4");
    EXPECT_DOUBLE_EQ(ex.bytes, 0.5 + 1.0 / 32);
    EXPECT_EQ(ex.group_size, 32);

    // Decode at batch 32 (the vLLM MI300X trace's step) on MI300X.
    CostOptions o;
    o.batch = 32;
    o.context = 1721;
    const CostModelResult r = estimate_costs(m, gpu("MI300X"), o);
    const double h = 2880, V = 201088, T = 32, L = 24;
    const OpCost& lm = op(r, Phase::Decode, "lm_head");
    EXPECT_EQ(lm.weight_dtype, "bfloat16");
    EXPECT_DOUBLE_EQ(lm.weight_bytes, h * V * 2);
    EXPECT_DOUBLE_EQ(lm.bytes, h * V * 2 + T * h * 2 + T * V * 2);   // 1.17 GB, not 0.32 GB at MXFP4
    ASSERT_TRUE(lm.t_theory_ns.has_value());
    EXPECT_NEAR(*lm.t_theory_ns, lm.bytes / 5300e9 * 1e9, 1e-6);   // memory-bound: ~221 us on MI300X
    EXPECT_GT(*lm.t_theory_ns, 215e3);
    const OpCost& q = op(r, Phase::Decode, "q_proj");
    EXPECT_EQ(q.weight_dtype, "bfloat16");
    EXPECT_DOUBLE_EQ(q.weight_bytes, L * h * (64 * 64) * 2);
    EXPECT_EQ(op(r, Phase::Decode, "o_proj").weight_dtype, "bfloat16");
    EXPECT_EQ(op(r, Phase::Decode, "router").weight_dtype, "bfloat16");
    EXPECT_EQ(op(r, Phase::Decode, "embedding").weight_dtype, "bfloat16");
    EXPECT_EQ(op(r, Phase::Decode, "final_norm").weight_dtype, "bfloat16");
    for (const char* e : {"experts_gate_proj", "experts_up_proj", "experts_down_proj"}) {
        const OpCost& x = op(r, Phase::Decode, e);
        EXPECT_EQ(x.weight_dtype, "mxfp4") << e;
        ASSERT_GT(x.weight_elems, 0) << e;
        EXPECT_NEAR(x.weight_bytes / x.weight_elems, 0.53125, 1e-12) << e;
    }
    EXPECT_EQ(op(r, Phase::Decode, "attention").weight_dtype, "");   // no weights

    // The Roofline table: roofline.operators[] carries each operator's weight format.
    const RooflineReport rep = make_roofline(r);
    const nlohmann::json j = roofline_to_json(rep, m);
    int seen = 0;
    for (const auto& row : j["operators"]) {
        if (row["phase"] != "decode")
            continue;
        const std::string name = row["name"];
        if (name == "lm_head" || name == "q_proj" || name == "router") {
            EXPECT_EQ(row["weight_dtype"], "bfloat16") << name;
            ++seen;
        } else if (name.rfind("experts_", 0) == 0 && name.size() > 5 && name.compare(name.size() - 5, 5, "_proj") == 0) {
            EXPECT_EQ(row["weight_dtype"], "mxfp4") << name;
            ++seen;
        } else if (name == "attention" || name == "experts_act_mul") {
            EXPECT_TRUE(row["weight_dtype"].is_null()) << name;
        }
    }
    EXPECT_EQ(seen, 6);
    EXPECT_EQ(j["model"]["quantization"]["default_format"]["dtype"], "mxfp4");
    EXPECT_EQ(j["model"]["quantization"]["not_converted"].size(), 4u);
    EXPECT_NE(roofline_to_text(rep, m).find("mxfp4"), std::string::npos);

    // --weight-dtype still sets every weight's.
    o.weight_dtype = "fp8";
    const CostModelResult f8 = estimate_costs(m, gpu("MI300X"), o);
    EXPECT_EQ(op(f8, Phase::Decode, "lm_head").weight_dtype, "fp8");
    EXPECT_EQ(op(f8, Phase::Decode, "experts_down_proj").weight_dtype, "fp8");
}

TEST(QuantModules, ModulePatterns)
{
    // transformers' mxfp4 / ModelOpt globs, from the path's start to a '.' or the end
    EXPECT_TRUE(module_matches("model.layers.*.self_attn", "model.layers.0.self_attn.q_proj"));
    EXPECT_TRUE(module_matches("model.layers.*.self_attn", "model.layers.23.self_attn"));
    EXPECT_FALSE(module_matches("model.layers.*.self_attn", "model.layers.3.self_attention_gate"));
    EXPECT_FALSE(module_matches("model.layers.*.mlp.router", "model.layers.3.mlp.experts.gate_up_proj"));
    // compressed-tensors regexes, from the path's start
    EXPECT_TRUE(module_matches("re:.*mlp.*", "model.layers.3.mlp.down_proj"));
    EXPECT_FALSE(module_matches("re:.*mlp.*", "model.layers.3.self_attn.q_proj"));
    EXPECT_FALSE(module_matches("re:mlp", "model.layers.3.mlp.down_proj"));
    EXPECT_FALSE(module_matches("re:([", "model.layers.3.mlp"));   // not a regex: matches nothing
    // class names and plain names (transformers' substring rule)
    EXPECT_TRUE(module_matches("Linear", "lm_head"));
    EXPECT_TRUE(module_matches("lm_head", "lm_head"));
    EXPECT_TRUE(module_matches("gate", "model.layers.1.mlp.gate"));
    EXPECT_FALSE(module_matches("lm_head", "model.embed_tokens"));
}

TEST(QuantModules, FormatsAndTheirScaleBytes)
{
    // AWQ int4, group 128: 4 bits + an fp16 scale and a 4-bit zero point per 128; no list of unconverted modules, so
    // lm_head stays at torch_dtype (transformers' default) and every other linear module is int4.
    const ModelConfig awq = llama_with(R"({"quant_method":"awq","bits":4,"group_size":128,"zero_point":true})");
    EXPECT_DOUBLE_EQ(awq.quant_format.bytes, 0.5 + (2.0 + 0.5) / 128);
    EXPECT_EQ(awq.weight_format({"model.layers.0.self_attn.q_proj"}).dtype, "int4");
    EXPECT_EQ(awq.weight_format({"lm_head"}).dtype, "bfloat16");
    // GPTQ that quantised lm_head too
    const ModelConfig gptq = llama_with(R"({"quant_method":"gptq","bits":4,"group_size":32,"lm_head":true})");
    EXPECT_EQ(gptq.weight_format({"lm_head"}).dtype, "int4");
    EXPECT_DOUBLE_EQ(gptq.weight_format({"lm_head"}).bytes, 0.5 + 2.5 / 32);
    // fp8 block-wise (DeepSeek-V3 style): an fp32 scale per 128x128 block
    const ModelConfig blk = llama_with(R"({"quant_method":"fp8","weight_block_size":[128,128]})");
    EXPECT_DOUBLE_EQ(blk.quant_format.bytes, 1.0 + 4.0 / (128 * 128));
    // compressed-tensors: Linear targets, lm_head ignored; a second group in nvfp4 for the MLP by regex
    const ModelConfig ct = llama_with(R"({"quant_method":"compressed-tensors","ignore":["lm_head"],"config_groups":{)"
                                      R"("group_0":{"targets":["re:.*mlp.*"],"weights":{"num_bits":4,"type":"float","group_size":16}},)"
                                      R"("group_1":{"targets":["Linear"],"weights":{"num_bits":8,"type":"float"}}}})");
    EXPECT_EQ(ct.weight_format({"model.layers.0.mlp.down_proj"}).dtype, "nvfp4");
    EXPECT_DOUBLE_EQ(ct.weight_format({"model.layers.0.mlp.down_proj"}).bytes, 0.5 + 1.0 / 16);
    EXPECT_EQ(ct.weight_format({"model.layers.0.self_attn.o_proj"}).dtype, "fp8");
    EXPECT_EQ(ct.weight_format({"lm_head"}).dtype, "bfloat16");
    // compressed-tensors symmetric int4: scales only
    const ModelConfig ci = llama_with(R"({"quant_method":"compressed-tensors","config_groups":{"g":{"targets":["Linear"],)"
                                      R"("weights":{"num_bits":4,"type":"int","group_size":128,"symmetric":true}}}})");
    EXPECT_DOUBLE_EQ(ci.weight_format({"model.layers.0.mlp.up_proj"}).bytes, 0.5 + 2.0 / 128);
    // Quark (AMD): global fp8, lm_head excluded
    const ModelConfig qk = llama_with(R"({"quant_method":"quark","global_quant_config":{"weight":{"dtype":"fp8_e4m3"}},)"
                                      R"("exclude":["lm_head"]})");
    EXPECT_EQ(qk.weight_format({"model.layers.0.self_attn.q_proj"}).dtype, "fp8");
    EXPECT_EQ(qk.weight_format({"lm_head"}).dtype, "bfloat16");
    // A method Sightline does not know: everything at torch_dtype, and a note says so.
    const ModelConfig unknown = llama_with(R"({"quant_method":"mystery"})");
    EXPECT_EQ(unknown.weight_format({"model.layers.0.mlp.up_proj"}).dtype, "bfloat16");
}

TEST(QuantModules, ConfigFileIsTheModelCards)
{
    // The committed config.json holds the public model card's values (hidden 2880, 24 layers, 32 experts, top-4,
    // head_dim 64, 64 query / 8 KV heads, vocab 201088, expert width 2880).
    const ModelConfig m = gpt_oss();
    EXPECT_EQ(m.hidden_size, 2880);
    EXPECT_EQ(m.num_layers, 24);
    EXPECT_EQ(m.head_dim, 64);
    EXPECT_EQ(m.num_heads, 64);
    EXPECT_EQ(m.num_kv_heads, 8);
    EXPECT_EQ(m.vocab_size, 201088);
    EXPECT_EQ(m.moe_intermediate_size, 2880);
    EXPECT_FALSE(m.tie_word_embeddings);
}
