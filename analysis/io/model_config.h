#pragma once
// Model structure from a Hugging Face config.json (and, optionally, model.safetensors.index.json).
//
// Understood: Llama, Mistral, Qwen2/Qwen3 (+ MoE), Gemma/Gemma2/Gemma3 (text_config), Phi-3/Phi (phi-2), Mixtral,
// DeepSeek-style MoE, and GPT-2 style names (n_embd, n_head, n_layer, n_inner).
// Fields: hidden_size, num_attention_heads, num_key_value_heads (default: num_attention_heads, i.e. MHA),
// head_dim (default hidden_size / num_attention_heads), intermediate_size, num_hidden_layers, vocab_size,
// torch_dtype, tie_word_embeddings, hidden_act; MoE: num_local_experts | num_experts | n_routed_experts,
// num_experts_per_tok | experts_per_token (gpt-oss), moe_intermediate_size, shared_expert_intermediate_size, n_shared_experts,
// first_k_dense_replace, decoder_sparse_step, mlp_only_layers.
// Missing or contradictory fields throw TraceError naming the field.

#include <cstdint>
#include <string>
#include <vector>

namespace sl {

struct ModelConfig {
    std::string source;             // path of config.json
    std::string model_type;         // "llama", "qwen2", ...
    std::string architecture;       // first entry of "architectures", if any
    int64_t hidden_size = 0;        // h
    int64_t num_heads = 0;          // H
    int64_t num_kv_heads = 0;       // Hkv
    int64_t head_dim = 0;           // d
    int64_t intermediate_size = 0;  // I (dense MLP)
    int64_t num_layers = 0;         // N
    int64_t vocab_size = 0;         // V
    std::string torch_dtype;        // "bfloat16", "float16", "float32", ... ("" when absent)
    bool tie_word_embeddings = false;
    std::string hidden_act;         // "silu", "gelu_pytorch_tanh", ...
    bool gated_mlp = true;          // gate/up/down (SwiGLU/GeGLU) vs up/down (fc1/fc2)
    bool layer_norm = false;        // LayerNorm (with bias) instead of RMSNorm

    // MoE (num_experts == 0: dense model)
    int64_t num_experts = 0;                // E routed experts
    int64_t experts_per_token = 0;          // k
    int64_t moe_intermediate_size = 0;      // I_e (default: intermediate_size)
    int64_t shared_expert_intermediate = 0; // total width of the shared expert(s), 0 = none
    std::vector<bool> moe_layer;            // per layer: true = MoE MLP, false = dense MLP (size num_layers)

    // From model.safetensors.index.json when given.
    int64_t index_total_bytes = 0;          // metadata.total_size
    int64_t index_tensor_count = 0;

    // quantization_config (issue 15): the weights' storage size per element, scales included (0 = not quantized,
    // weights at torch_dtype). fp8 1; mxfp4 4 bits + one e8m0 scale per 32 = 0.53125; nvfp4 4 bits + one fp8 scale
    // per 16 = 0.5625; AWQ/GPTQ int-b with group size g: b/8 + 2/g (an fp16 scale per group); bitsandbytes 4/8 bit.
    std::string quant_method;               // "fp8", "mxfp4", "awq", "gptq", ... ("" = none)
    double quant_weight_bytes = 0;
    std::string quant_note;                 // how quant_weight_bytes was derived

    std::vector<std::string> notes;         // defaults taken, things worth saying

    bool is_moe() const { return num_experts > 0; }
    int64_t q_width() const { return num_heads * head_dim; }
    int64_t kv_width() const { return num_kv_heads * head_dim; }
    // Parameter count from the structure (embeddings + layers + final norm + lm_head unless tied).
    int64_t parameter_count() const;
};

// Reads config.json; index_path (may be empty) adds the safetensors index checks (layer count, tied lm_head, size).
ModelConfig load_model_config(const std::string& config_path, const std::string& index_path = {});
// Same from text already in memory (name is used in error messages).
ModelConfig parse_model_config(const std::string& json_text, const std::string& name);

// Bytes per element of a dtype name: "float32"/"fp32" 4, "bfloat16"/"bf16"/"float16"/"fp16"/"half" 2,
// "fp8"/"float8_e4m3fn"/"int8" 1, "int4"/"fp4" 0.5. Returns 0 for an unknown name.
double dtype_bytes(const std::string& dtype);

} // namespace sl
