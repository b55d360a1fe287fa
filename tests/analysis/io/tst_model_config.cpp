// config.json parsing: Llama, GQA Qwen3 with an explicit head_dim, Mixtral MoE, Qwen2-MoE / DeepSeek-style
// layer patterns, Gemma 3's text_config, GPT-2 names, the safetensors index checks, and clear errors naming the
// field for missing or contradictory input.
#include <gtest/gtest.h>

#include "analysis/trace/errors.h"
#include "analysis/io/model_config.h"
#include "tests/support/test_env.h"

using namespace sl;

namespace {
std::string fixture(const std::string& f) { return test::source_dir() + "/tests/data/models/" + f; }

// Expects parse_model_config to throw a TraceError whose message names `field`.
void expect_error_naming(const std::string& json, const std::string& field)
{
    try {
        parse_model_config(json, "config.json");
        FAIL() << "accepted: " << json;
    } catch (const TraceError& e) {
        EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
        EXPECT_EQ(e.file(), "config.json");
    }
}
} // namespace

TEST(ModelConfig, LlamaStyle)
{
    const ModelConfig m = load_model_config(fixture("llama_tiny_config.json"));
    EXPECT_EQ(m.model_type, "llama");
    EXPECT_EQ(m.architecture, "LlamaForCausalLM");
    EXPECT_EQ(m.hidden_size, 64);
    EXPECT_EQ(m.num_heads, 4);
    EXPECT_EQ(m.num_kv_heads, 4);
    EXPECT_EQ(m.head_dim, 16);   // 64 / 4
    EXPECT_EQ(m.intermediate_size, 128);
    EXPECT_EQ(m.num_layers, 2);
    EXPECT_EQ(m.vocab_size, 256);
    EXPECT_FALSE(m.tie_word_embeddings);
    EXPECT_TRUE(m.gated_mlp);
    EXPECT_FALSE(m.layer_norm);
    EXPECT_FALSE(m.is_moe());
    EXPECT_EQ(m.torch_dtype, "bfloat16");
    // embeddings 256*64 = 16384; per layer attn 4*64*64 = 16384, mlp 3*64*128 = 24576, norms 128 -> 41088;
    // 2 layers 82176; final norm 64; lm_head 16384: 16384 + 82176 + 64 + 16384 = 115008
    EXPECT_EQ(m.parameter_count(), 115008);
}

TEST(ModelConfig, QwenGqaWithHeadDimAndIndex)
{
    const ModelConfig m = load_model_config(fixture("qwen3_gqa_config.json"), fixture("qwen3_gqa_index.json"));
    EXPECT_EQ(m.num_heads, 4);
    EXPECT_EQ(m.num_kv_heads, 2);
    EXPECT_EQ(m.head_dim, 64);      // explicit, not 128 / 4
    EXPECT_EQ(m.q_width(), 256);    // wider than hidden_size
    EXPECT_EQ(m.kv_width(), 128);
    EXPECT_TRUE(m.tie_word_embeddings);
    EXPECT_EQ(m.index_tensor_count, 1 + 3 * 11 + 1);
    // embeddings 128000; per layer: q 128*256 + k,v 2*128*128 + o 256*128 = 98304, mlp 3*128*320 = 122880,
    // norms 256 -> 221440, x3 = 664320; final norm 128; tied: 128000 + 664320 + 128 = 792448
    EXPECT_EQ(m.parameter_count(), 792448);
    // The index says 2 layers while the config says 3: contradictory files.
    try {
        load_model_config(fixture("qwen3_gqa_config.json"), fixture("qwen3_gqa_index_2layers.json"));
        FAIL();
    } catch (const TraceError& e) {
        EXPECT_NE(std::string(e.what()).find("num_hidden_layers"), std::string::npos) << e.what();
    }
}

TEST(ModelConfig, MixtralMoe)
{
    const ModelConfig m = load_model_config(fixture("mixtral_tiny_config.json"));
    EXPECT_TRUE(m.is_moe());
    EXPECT_EQ(m.num_experts, 4);
    EXPECT_EQ(m.experts_per_token, 2);
    EXPECT_EQ(m.moe_intermediate_size, 128);   // Mixtral: intermediate_size is the expert width
    ASSERT_EQ(m.moe_layer.size(), 1u);
    EXPECT_TRUE(m.moe_layer[0]);
}

TEST(ModelConfig, MoeLayerPatternsAndSharedExperts)
{
    // Qwen2-MoE: every 2nd layer sparse, layer 3 forced dense, a shared expert.
    const ModelConfig q = parse_model_config(R"({"model_type":"qwen2_moe","hidden_size":64,"num_attention_heads":4,
        "num_key_value_heads":4,"num_hidden_layers":6,"vocab_size":10,"intermediate_size":256,"num_experts":8,
        "num_experts_per_tok":2,"moe_intermediate_size":32,"shared_expert_intermediate_size":128,
        "decoder_sparse_step":2,"mlp_only_layers":[3]})", "q.json");
    EXPECT_EQ(q.moe_layer, (std::vector<bool>{false, true, false, false, false, true}));
    EXPECT_EQ(q.shared_expert_intermediate, 128);
    EXPECT_EQ(q.intermediate_size, 256);
    // DeepSeek-style: first layer dense, two shared experts of the expert width.
    const ModelConfig d = parse_model_config(R"({"model_type":"deepseek","hidden_size":64,"num_attention_heads":4,
        "num_hidden_layers":3,"vocab_size":10,"intermediate_size":256,"n_routed_experts":16,"num_experts_per_tok":4,
        "moe_intermediate_size":32,"n_shared_experts":2,"first_k_dense_replace":1})", "d.json");
    EXPECT_EQ(d.moe_layer, (std::vector<bool>{false, true, true}));
    EXPECT_EQ(d.shared_expert_intermediate, 64);
    EXPECT_EQ(d.num_kv_heads, 4);   // absent -> MHA, and said so
    EXPECT_FALSE(d.notes.empty());
}

TEST(ModelConfig, GemmaTextConfigAndGpt2Names)
{
    const ModelConfig g = parse_model_config(R"({"model_type":"gemma3","architectures":["Gemma3ForConditionalGeneration"],
        "torch_dtype":"bfloat16","text_config":{"model_type":"gemma3_text","hidden_size":2560,"head_dim":256,
        "num_attention_heads":8,"num_key_value_heads":4,"intermediate_size":10240,"num_hidden_layers":34,
        "vocab_size":262208,"hidden_activation":"gelu_pytorch_tanh"}})", "g.json");
    EXPECT_EQ(g.model_type, "gemma3_text");
    EXPECT_EQ(g.head_dim, 256);
    EXPECT_EQ(g.hidden_size, 2560);
    EXPECT_TRUE(g.tie_word_embeddings);   // Gemma default
    EXPECT_EQ(g.hidden_act, "gelu_pytorch_tanh");
    const ModelConfig p = parse_model_config(R"({"model_type":"gpt2","n_embd":768,"n_head":12,"n_layer":12,
        "vocab_size":50257,"n_inner":null})", "gpt2.json");
    EXPECT_EQ(p.hidden_size, 768);
    EXPECT_EQ(p.intermediate_size, 3072);
    EXPECT_FALSE(p.gated_mlp);
    EXPECT_TRUE(p.layer_norm);
    EXPECT_TRUE(p.tie_word_embeddings);
}

TEST(ModelConfig, ClearErrorsNameTheField)
{
    const std::string base = R"("num_attention_heads":4,"num_hidden_layers":2,"vocab_size":10,"intermediate_size":64)";
    expect_error_naming("{" + base + "}", "hidden_size");                                      // missing
    expect_error_naming(R"({"hidden_size":64,"num_hidden_layers":2,"vocab_size":10,"intermediate_size":64})",
                        "num_attention_heads");
    expect_error_naming(R"({"hidden_size":64,"num_attention_heads":4,"vocab_size":10,"intermediate_size":64})",
                        "num_hidden_layers");
    expect_error_naming(R"({"hidden_size":64,"num_attention_heads":4,"num_hidden_layers":2,"vocab_size":10})",
                        "intermediate_size");
    expect_error_naming(R"({"hidden_size":64,)" + base + R"(,"num_key_value_heads":3})", "num_key_value_heads");
    expect_error_naming(R"({"hidden_size":64,)" + base + R"(,"num_key_value_heads":8})", "num_key_value_heads");
    expect_error_naming(R"({"hidden_size":66,)" + base + "}", "head_dim");                    // 66 / 4 not whole
    expect_error_naming(R"({"hidden_size":64,"n_embd":128,)" + base + "}", "n_embd");           // contradictory
    expect_error_naming(R"({"hidden_size":64,)" + base + R"(,"torch_dtype":"float13"})", "torch_dtype");
    expect_error_naming(R"({"hidden_size":-64,)" + base + "}", "hidden_size");
    expect_error_naming(R"({"hidden_size":"64",)" + base + "}", "hidden_size");
    expect_error_naming(R"({"hidden_size":64,)" + base + R"(,"num_local_experts":4})", "num_experts_per_tok");
    expect_error_naming(R"({"hidden_size":64,)" + base + R"(,"num_local_experts":4,"num_experts_per_tok":5})",
                        "num_experts_per_tok");
    expect_error_naming(R"({"hidden_size":64,)" + base + R"(,"num_local_experts":4,"num_experts":8,"num_experts_per_tok":2})",
                        "num_experts");
    expect_error_naming(R"({"hidden_size":64,)" + base + R"(,"num_experts_per_tok":2})", "num_experts_per_tok");
    expect_error_naming(R"({"hidden_size":64,)" + base + R"(,"kv_lora_rank":512})", "kv_lora_rank");
    expect_error_naming("[1,2]", "top level");
    expect_error_naming("{\"hidden_size\": 64,", "byte");
    EXPECT_THROW(load_model_config("/nonexistent/config.json"), TraceError);
}

TEST(ModelConfig, DtypeWidths)
{
    EXPECT_EQ(dtype_bytes("bfloat16"), 2);
    EXPECT_EQ(dtype_bytes("torch.float16"), 2);
    EXPECT_EQ(dtype_bytes("float32"), 4);
    EXPECT_EQ(dtype_bytes("float8_e4m3fn"), 1);
    EXPECT_EQ(dtype_bytes("int8"), 1);
    EXPECT_EQ(dtype_bytes("int4"), 0.5);
    EXPECT_EQ(dtype_bytes("float13"), 0);
}
