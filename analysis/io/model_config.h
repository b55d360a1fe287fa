#pragma once
// Model structure from a Hugging Face config.json (and, optionally, model.safetensors.index.json).
//
// Understood: Llama, Mistral, Qwen2/Qwen3 (+ MoE), Gemma/Gemma2/Gemma3 (text_config), Phi-3/Phi (phi-2), Mixtral,
// DeepSeek-style MoE, and GPT-2 style names (n_embd, n_head, n_layer, n_inner).
// Fields: hidden_size, num_attention_heads, num_key_value_heads (default: num_attention_heads, i.e. MHA),
// head_dim (default hidden_size / num_attention_heads), intermediate_size, num_hidden_layers, vocab_size,
// torch_dtype, tie_word_embeddings, hidden_act; quantization_config (per module, see ModelConfig::weight_format);
// MoE: num_local_experts | num_experts | n_routed_experts,
// num_experts_per_tok | experts_per_token (gpt-oss), moe_intermediate_size, shared_expert_intermediate_size, n_shared_experts,
// first_k_dense_replace, decoder_sparse_step, mlp_only_layers.
// Missing or contradictory fields throw TraceError naming the field.

#include <cstdint>
#include <string>
#include <vector>

namespace sl {

// How one module's weights are stored: the format's name, the bytes per weight element with its scales (and zero
// points) included, and where that came from.
struct WeightFormat {
    std::string dtype;              // "mxfp4", "nvfp4", "fp8", "int4", "int8", ... or the unquantised torch dtype
    double bytes = 0;               // per weight element, scales included (0 = unknown)
    int64_t group_size = 0;         // weight elements per scale (0 = per tensor or per channel)
    std::string note;               // how `bytes` was derived
    bool quantized = false;
};

// A per-module format of quantization_config (compressed-tensors config_groups, Quark layer_quant_config): modules
// whose path matches `pattern` (see module_matches) are stored as `format`.
struct ModuleFormat {
    std::string pattern;
    WeightFormat format;
};

// Whether a module path ("model.layers.3.self_attn.q_proj") matches a quantization_config pattern: "re:REGEX"
// (compressed-tensors: the regex from the path's start), a pattern with '*' (HF mxfp4 / ModelOpt: a glob over
// the path's start, up to a '.' or the end: "model.layers.*.self_attn"), a class name ("Linear": every linear
// module), else a plain name contained in the path (transformers' modules_to_not_convert rule).
bool module_matches(const std::string& pattern, const std::string& module_path);

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
    // Sliding-window attention: per layer, the KV tokens one query attends to at most (0 = full attention; size
    // num_layers, or empty when no layer slides). From layer_types ("sliding_attention" layers take
    // sliding_window), else sliding_window on every layer unless use_sliding_window is false (Qwen2 states a window
    // it does not use).
    std::vector<int64_t> attention_window;

    // From model.safetensors.index.json when given.
    int64_t index_total_bytes = 0;          // metadata.total_size
    int64_t index_tensor_count = 0;

    // quantization_config (issue 15): the weights' storage size per element, scales included (0 = not quantized,
    // weights at torch_dtype). fp8 1; mxfp4 4 bits + one e8m0 scale per 32 = 0.53125; nvfp4 4 bits + one fp8 scale
    // per 16 = 0.5625; AWQ/GPTQ int-b with group size g: b/8 + 2/g (an fp16 scale per group); bitsandbytes 4/8 bit.
    std::string quant_method;               // "fp8", "mxfp4", "awq", "gptq", ... ("" = none)
    double quant_weight_bytes = 0;
    std::string quant_note;                 // how quant_weight_bytes was derived
    // Per module: the default quantised format (quant_format), formats of matching modules (quant_modules, first
    // match wins), and the modules left unquantised (quant_skip: modules_to_not_convert / ignore / exclude_modules /
    // exclude). quant_skip_given: the config lists such modules; without a list lm_head stays unquantised
    // (transformers keeps the output layer out by default), unless the method quantises it explicitly.
    WeightFormat quant_format;
    std::vector<ModuleFormat> quant_modules;
    std::vector<std::string> quant_skip;
    bool quant_skip_given = false;
    bool quant_lm_head = false;             // GPTQ "lm_head": true, or compressed-tensors targets that reach it

    std::vector<std::string> notes;         // defaults taken, things worth saying

    bool is_moe() const { return num_experts > 0; }
    int64_t window_of(int64_t layer) const
    {
        return layer >= 0 && layer < static_cast<int64_t>(attention_window.size())
                   ? attention_window[static_cast<size_t>(layer)]
                   : 0;
    }
    int64_t q_width() const { return num_heads * head_dim; }
    int64_t kv_width() const { return num_kv_heads * head_dim; }
    // Parameter count from the structure (embeddings + layers + final norm + lm_head unless tied).
    int64_t parameter_count() const;
    // How a linear module's weights are stored; `paths` are the module's names (its HF path first, then the
    // names other architectures give the same module). The embedding and norms are never quantised.
    WeightFormat weight_format(const std::vector<std::string>& paths) const;
    // The unquantised format: torch_dtype (bfloat16 when absent).
    WeightFormat base_weight_format() const;
};

// Reads config.json; index_path (may be empty) adds the safetensors index checks (layer count, tied lm_head, size).
ModelConfig load_model_config(const std::string& config_path, const std::string& index_path = {});
// Same from text already in memory (name is used in error messages).
ModelConfig parse_model_config(const std::string& json_text, const std::string& name);

// Bytes per element of a dtype name: "float32"/"fp32" 4, "bfloat16"/"bf16"/"float16"/"fp16"/"half" 2,
// "fp8"/"float8_e4m3fn"/"int8" 1, "int4"/"fp4" 0.5. Returns 0 for an unknown name.
double dtype_bytes(const std::string& dtype);

} // namespace sl
