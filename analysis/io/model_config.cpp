#include "analysis/io/model_config.h"

#include "analysis/io/input_bounds.h"
#include "analysis/io/json_input.h"
#include "analysis/trace/errors.h"
#include "analysis/io/regex.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>

namespace sl {

using nlohmann::json;

double dtype_bytes(const std::string& dtype)
{
    std::string d;
    for (char c : dtype)
        d += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (d.rfind("torch.", 0) == 0)
        d = d.substr(6);
    if (d == "float32" || d == "fp32" || d == "float" || d == "f32" || d == "tf32")
        return 4;
    if (d == "bfloat16" || d == "bf16" || d == "float16" || d == "fp16" || d == "half" || d == "f16")
        return 2;
    if (d == "fp8" || d == "float8" || d == "float8_e4m3fn" || d == "float8_e5m2" || d == "fp8_e4m3" ||
        d == "fp8_e5m2" || d == "e4m3" || d == "e5m2" || d == "int8" || d == "uint8" || d == "i8")
        return 1;
    if (d == "int4" || d == "uint4" || d == "fp4" || d == "nf4" || d == "mxfp4" || d == "nvfp4" || d == "i4")
        return 0.5;
    return 0;
}

namespace {

struct Reader {
    const json& top;
    const json* text = nullptr;   // text_config for multimodal wrappers (Gemma 3), tried after top
    const std::string& file;

    // The value of the first of `names` present (in top, then text_config); TraceError when two aliases disagree.
    std::optional<int64_t> integer(std::initializer_list<const char*> names) const
    {
        std::optional<int64_t> found;
        std::string found_name;
        for (const json* j : {&top, text}) {
            if (!j || !j->is_object())
                continue;
            for (const char* n : names) {
                if (!j->contains(n) || j->at(n).is_null())
                    continue;
                const json& v = j->at(n);
                // A float is taken when it is whole and fits int64 (a cast of 1e300 would be undefined); an
                // unsigned integer above INT64_MAX is out of every range below.
                const double d = v.is_number_float() ? v.get<double>() : 0.0;
                const bool whole_float = v.is_number_float() && std::isfinite(d) && std::fabs(d) < 9.0e18 && d == std::trunc(d);
                if (!(v.is_number_integer() || whole_float))
                    throw TraceError(file, n, "an integer", describe_json(v));
                if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX))
                    throw TraceError(file, n, "an integer below 2^63", describe_json(v));
                const int64_t x = v.is_number_integer() ? v.get<int64_t>() : static_cast<int64_t>(d);
                if (found && *found != x)
                    throw TraceError(file, std::string(n) + " vs " + found_name,
                                     "one value for the same quantity (contradictory fields)",
                                     std::to_string(x) + " and " + std::to_string(*found));
                if (!found) {
                    found = x;
                    found_name = n;
                }
            }
            if (found)
                return found;
        }
        return found;
    }
    int64_t required_positive(std::initializer_list<const char*> names) const
    {
        const auto v = integer(names);
        if (!v)
            throw TraceError(file, *names.begin(), "this field in config.json", "it is missing");
        if (*v <= 0)
            throw TraceError(file, *names.begin(), "a positive integer", std::to_string(*v));
        return *v;
    }
    std::optional<std::string> string(const char* name) const
    {
        for (const json* j : {&top, text}) {
            if (j && j->is_object() && j->contains(name) && j->at(name).is_string())
                return j->at(name).get<std::string>();
        }
        return std::nullopt;
    }
    std::optional<bool> boolean(const char* name) const
    {
        for (const json* j : {&top, text}) {
            if (j && j->is_object() && j->contains(name) && !j->at(name).is_null()) {
                if (!j->at(name).is_boolean())
                    throw TraceError(file, name, "true or false", describe_json(j->at(name)));
                return j->at(name).get<bool>();
            }
        }
        return std::nullopt;
    }
    const json* find(const char* name) const
    {
        for (const json* j : {&top, text})
            if (j && j->is_object() && j->contains(name) && !j->at(name).is_null())
                return &j->at(name);
        return nullptr;
    }
};

// Sane ranges of the structure's numbers (issue 17): wide enough for every released model (Llama 3.1 405B: 126
// layers, hidden 16384; Gemma 3: vocabulary 262144; DeepSeek-V3: 256 experts), narrow enough that the per-layer
// loops stay short and parameter_count() cannot overflow int64 (experts x 3 x hidden x expert width x layers
// < 2^63 at the upper bounds).
struct Range {
    const char* field;
    int64_t lo, hi;
};
constexpr Range kLayers{"num_hidden_layers", 1, 4096};
constexpr Range kHidden{"hidden_size", 1, 262144};
constexpr Range kHeads{"num_attention_heads", 1, 16384};
constexpr Range kHeadDim{"head_dim", 1, 16384};
constexpr Range kVocab{"vocab_size", 1, 16777216};
constexpr Range kIntermediate{"intermediate_size", 1, 1048576};
constexpr Range kExperts{"num_experts", 1, 1024};
constexpr Range kSharedWidth{"shared_expert_intermediate_size", 0, 16777216};

void check_range(const std::string& file, const Range& r, int64_t v)
{
    if (v < r.lo || v > r.hi)
        throw TraceError(file, r.field,
                         "a value from " + std::to_string(r.lo) + " to " + std::to_string(r.hi) +
                             " (the range Sightline models)",
                         std::to_string(v));
}

} // namespace

int64_t ModelConfig::parameter_count() const
{
    const int64_t h = hidden_size;
    const int64_t attn = h * q_width() + 2 * h * kv_width() + q_width() * h;
    const int64_t mats = gated_mlp ? 3 : 2;
    const int64_t norms = (layer_norm ? 4 : 2) * h;
    int64_t total = vocab_size * h;   // embeddings
    for (int64_t l = 0; l < num_layers; ++l) {
        int64_t mlp = 0;
        if (is_moe() && moe_layer[static_cast<size_t>(l)])
            mlp = h * num_experts + num_experts * mats * h * moe_intermediate_size + mats * h * shared_expert_intermediate;
        else
            mlp = mats * h * intermediate_size;
        total += attn + mlp + norms;
    }
    total += (layer_norm ? 2 : 1) * h;   // final norm
    if (!tie_word_embeddings)
        total += vocab_size * h;
    return total;
}

bool module_matches(const std::string& pattern, const std::string& path)
{
    if (pattern.empty())
        return false;
    try {
        if (pattern.rfind("re:", 0) == 0)
            return Regex("^(?:" + pattern.substr(3) + ")").search(path);
        if (pattern.find('*') != std::string::npos) {
            std::string re = "^";
            for (char c : pattern) {
                if (c == '*')
                    re += ".*";
                else if (std::isalnum(static_cast<unsigned char>(c)) || c == '_')
                    re += c;
                else
                    re += std::string("\\") + c;
            }
            return Regex(re + "(\\.|$)").search(path);
        }
    } catch (const RegexError&) {
        // A pattern RE2 does not take (a back-reference, a look-around, over kMaxRegexBytes) matches nothing: the
        // module stays at its default. A downloaded config is untrusted input; RE2 runs it in linear time.
        return false;
    }
    // A class name (compressed-tensors targets "Linear"): every linear module; a plain name: contained in the path.
    if (std::isupper(static_cast<unsigned char>(pattern[0])) && pattern.find('.') == std::string::npos)
        return pattern == "Linear" || pattern.find("Linear") != std::string::npos;
    return path.find(pattern) != std::string::npos;
}

WeightFormat ModelConfig::base_weight_format() const
{
    WeightFormat f;
    f.dtype = torch_dtype.empty() ? std::string("bfloat16") : torch_dtype;
    if (f.dtype.rfind("torch.", 0) == 0)
        f.dtype = f.dtype.substr(6);
    f.bytes = dtype_bytes(f.dtype);
    f.note = torch_dtype.empty() ? "bfloat16 (no torch_dtype in config.json)" : "torch_dtype";
    return f;
}

WeightFormat ModelConfig::weight_format(const std::vector<std::string>& paths) const
{
    if (quant_format.dtype.empty() || paths.empty())
        return base_weight_format();
    auto any = [&](const std::string& pattern) {
        return std::any_of(paths.begin(), paths.end(), [&](const std::string& p) { return module_matches(pattern, p); });
    };
    for (const auto& s : quant_skip)
        if (any(s))
            return base_weight_format();
    const bool lm_head = paths.front() == "lm_head";
    if (lm_head && !quant_skip_given && !quant_lm_head)
        return base_weight_format();
    for (const auto& mf : quant_modules)
        if (any(mf.pattern))
            return mf.format;
    // compressed-tensors: a module no group targets stays unquantised; other methods convert every linear module.
    if (!quant_modules.empty() && quant_method == "compressed-tensors")
        return base_weight_format();
    return quant_format;
}

namespace {

std::string lower_text(std::string v)
{
    for (auto& c : v)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return v;
}

// One storage format from a method name (and bits / group size / a type where the method leaves them open). An
// empty dtype: not understood.
WeightFormat format_of(const std::string& method, int64_t bits, int64_t group, const std::string& type, bool symmetric,
                       bool bnb_4bit, bool bnb_double_quant)
{
    WeightFormat f;
    f.quantized = true;
    f.group_size = group;
    const bool is_float = type == "float" || type == "fp" || type.rfind("fp", 0) == 0 || type.rfind("float", 0) == 0;
    if (method == "fp8" || method == "fbgemm_fp8" || method == "w8a8_fp8" || method == "fp8_e4m3" ||
        ((method == "compressed-tensors" || method == "quark") && bits == 8 && is_float)) {
        f.dtype = "fp8";
        f.bytes = 1.0 + (group > 0 ? 4.0 / static_cast<double>(group) : 0.0);
        f.note = group > 0 ? "fp8 weights: 1 byte per element + an fp32 scale per " + std::to_string(group) + " elements"
                           : "fp8 weights: 1 byte per element (per-tensor or per-channel scales)";
    } else if (method == "mxfp4" || method == "mx_fp4" || ((method == "compressed-tensors" || method == "quark") &&
                                                           bits == 4 && is_float && group == 32)) {
        f.dtype = "mxfp4";
        f.group_size = 32;
        f.bytes = 0.5 + 1.0 / 32;
        f.note = "mxfp4 weights: 4 bits + one e8m0 scale per 32 elements";
    } else if (method == "nvfp4" || method == "modelopt_fp4" ||
               ((method == "compressed-tensors" || method == "quark") && bits == 4 && is_float)) {
        f.dtype = "nvfp4";
        f.group_size = 16;
        f.bytes = 0.5 + 1.0 / 16;
        f.note = "nvfp4 weights: 4 bits + one fp8 scale per 16 elements";
    } else if (method == "bitsandbytes") {
        if (bnb_4bit) {
            f.dtype = "nf4";
            f.group_size = 64;
            // an fp32 absmax per 64 elements; with double quantisation an 8-bit absmax and an fp32 per 256 of those
            f.bytes = bnb_double_quant ? 0.5 + 1.0 / 64 + 4.0 / (64 * 256) : 0.5 + 4.0 / 64;
            f.note = std::string("bitsandbytes 4-bit weights: 4 bits + ") +
                     (bnb_double_quant ? "an 8-bit absmax per 64 elements (double quantisation)"
                                       : "an fp32 absmax per 64 elements");
        } else {
            f.dtype = "int8";
            f.bytes = 1.0;
            f.note = "bitsandbytes 8-bit weights (a per-row scale)";
        }
    } else if (bits > 0 && bits <= 8) {
        // AWQ and GPTQ store an fp16 scale and a bits-wide zero point per group of each output column;
        // compressed-tensors (pack-quantized) a scale per group and a zero point only when asymmetric.
        f.dtype = "int" + std::to_string(bits);
        const double b = static_cast<double>(bits) / 8.0;
        const bool zeros = method == "awq" || method == "gptq" || !symmetric;
        f.bytes = b + (group > 0 ? (2.0 + (zeros ? b : 0.0)) / static_cast<double>(group) : 0.0);
        f.note = std::to_string(bits) + "-bit " + (method.empty() ? std::string("quantized") : method) + " weights" +
                 (group > 0 ? ", an fp16 scale" + std::string(zeros ? " and a " + std::to_string(bits) + "-bit zero point"
                                                                     : std::string()) +
                                  " per " + std::to_string(group) + " elements"
                            : std::string());
    } else if (method.find("w4a16") != std::string::npos) {
        f.dtype = "int4";
        f.group_size = 128;
        f.bytes = 0.5 + 2.0 / 128;
        f.note = "4-bit weights, group size assumed 128";
    } else {
        f = WeightFormat{};
    }
    return f;
}

std::vector<std::string> string_list(const json& j)
{
    std::vector<std::string> out;
    if (j.is_array())
        for (const auto& x : j)
            if (x.is_string())
                out.push_back(x.get<std::string>());
    return out;
}

// Sliding-window attention (ModelConfig::attention_window): layer_types names each layer's kind (gpt-oss, Gemma 2/3,
// Qwen3-Next: "sliding_attention" / "full_attention"); without it a sliding_window applies to every layer (Mistral,
// Phi-3), unless use_sliding_window is false (Qwen2 states a window it does not use).
void read_attention_window(const Reader& r, ModelConfig& m, const std::string& file)
{
    const auto window = r.integer({"sliding_window"});
    if (!window || *window <= 0)
        return;
    constexpr Range kWindow{"sliding_window", 1, int64_t(1) << 40};
    check_range(file, kWindow, *window);
    const json* types = r.find("layer_types");
    if (types && types->is_array()) {
        if (static_cast<int64_t>(types->size()) != m.num_layers) {
            m.notes.push_back("layer_types has " + std::to_string(types->size()) + " entries for " +
                              std::to_string(m.num_layers) + " layers: sliding_window not applied");
            return;
        }
        m.attention_window.assign(static_cast<size_t>(m.num_layers), 0);
        int64_t sliding = 0;
        for (size_t l = 0; l < types->size(); ++l)
            if ((*types)[l].is_string() && (*types)[l].get<std::string>() == "sliding_attention") {
                m.attention_window[l] = *window;
                ++sliding;
            }
        if (sliding == 0)
            m.attention_window.clear();
        m.notes.push_back("sliding-window attention (" + std::to_string(*window) + " tokens) on " +
                          std::to_string(sliding) + " of " + std::to_string(m.num_layers) + " layers (layer_types)");
        return;
    }
    if (r.boolean("use_sliding_window") == std::optional<bool>(false))
        return;
    m.attention_window.assign(static_cast<size_t>(m.num_layers), *window);
    m.notes.push_back("sliding-window attention (" + std::to_string(*window) + " tokens) on every layer (sliding_window)");
}

// quantization_config -> the weights' storage format per module (see ModelConfig::weight_format).
void parse_quantization(const json& top, ModelConfig& m, const std::string& name)
{
    const json* q = nullptr;
    if (top.contains("quantization_config") && top["quantization_config"].is_object())
        q = &top["quantization_config"];
    else if (top.contains("text_config") && top["text_config"].is_object() &&
             top["text_config"].contains("quantization_config") &&
             top["text_config"]["quantization_config"].is_object())
        q = &top["text_config"]["quantization_config"];
    if (!q)
        return;
    auto str = [&](const json& o, const char* k) {
        return o.contains(k) && o[k].is_string() ? o[k].get<std::string>() : std::string();
    };
    auto num = [&](const json& o, const char* k) -> int64_t {
        return o.contains(k) && o[k].is_number_integer() ? o[k].get<int64_t>() : 0;
    };
    auto flag = [&](const json& o, const char* k, bool def) {
        return o.contains(k) && o[k].is_boolean() ? o[k].get<bool>() : def;
    };
    std::string method = lower_text(str(*q, "quant_method"));
    const std::string algo = lower_text(str(*q, "quant_algo"));   // ModelOpt: "FP8", "NVFP4", "W4A16_AWQ"
    if (method.empty() && !algo.empty())
        method = algo;
    if (method == "modelopt" && !algo.empty())
        method = algo;
    int64_t bits = num(*q, "bits");
    if (bits == 0)
        bits = num(*q, "w_bit");
    int64_t group = num(*q, "group_size");
    if (group == 0)
        group = num(*q, "q_group_size");
    if (group == 0 && q->contains("weight_block_size") && (*q)["weight_block_size"].is_array()) {
        // fp8 block-wise (DeepSeek-V3 style): an fp32 scale per block of [rows, cols] elements
        int64_t area = 1;
        for (const auto& v : (*q)["weight_block_size"])
            area *= v.is_number_integer() ? v.get<int64_t>() : 1;
        group = area > 1 ? area : 0;
    }
    std::string type;
    bool symmetric = flag(*q, "sym", true);
    // Modules left unquantised, under each method's name for the list.
    for (const char* k : {"modules_to_not_convert", "ignore", "exclude_modules", "exclude", "ignored_layers"})
        if (q->contains(k) && (*q)[k].is_array()) {
            for (auto& p : string_list((*q)[k]))
                m.quant_skip.push_back(std::move(p));
            m.quant_skip_given = true;
        }
    m.quant_lm_head = flag(*q, "lm_head", false);   // GPTQModel: the output layer quantised too
    // compressed-tensors: config_groups.*.{targets, weights: {num_bits, type, group_size, symmetric}}
    if (q->contains("config_groups") && (*q)["config_groups"].is_object()) {
        bool first = true;
        for (const auto& [gname, g] : (*q)["config_groups"].items()) {
            if (!g.is_object() || !g.contains("weights") || !g["weights"].is_object())
                continue;
            const json& w = g["weights"];
            const int64_t gb = num(w, "num_bits");
            const int64_t gg = num(w, "group_size");
            const std::string gt = lower_text(str(w, "type"));
            const bool gs = flag(w, "symmetric", true);
            const WeightFormat f = format_of(method, gb, gg, gt, gs, false, false);
            if (first) {   // the first group is the default format, as before
                bits = gb;
                group = gg;
                type = gt;
                symmetric = gs;
                first = false;
            }
            if (f.dtype.empty())
                continue;
            const auto targets = string_list(g.value("targets", json::array()));
            for (const auto& t : targets) {
                m.quant_modules.push_back({t, f});
                if (module_matches(t, "lm_head"))
                    m.quant_lm_head = true;
            }
        }
    }
    // Quark: global_quant_config.weight {dtype, group_size}, layer_quant_config {pattern: {weight}}, exclude [...]
    if (method == "quark") {
        auto quark_format = [&](const json& cfg) {
            if (!cfg.is_object() || !cfg.contains("weight") || !cfg["weight"].is_object())
                return WeightFormat{};
            const json& w = cfg["weight"];
            const std::string dt = lower_text(str(w, "dtype"));
            const int64_t gg = num(w, "group_size");
            if (dt.find("fp8") != std::string::npos)
                return format_of("fp8", 8, 0, "float", true, false, false);
            if (dt.find("fp4") != std::string::npos)
                return format_of(gg == 16 ? "nvfp4" : "mxfp4", 4, gg, "float", true, false, false);
            if (dt.find("int4") != std::string::npos || dt.find("uint4") != std::string::npos)
                return format_of("quark", 4, gg, "int", dt.find("uint") == std::string::npos, false, false);
            if (dt.find("int8") != std::string::npos)
                return format_of("quark", 8, gg, "int", true, false, false);
            return WeightFormat{};
        };
        if (q->contains("layer_quant_config") && (*q)["layer_quant_config"].is_object())
            for (const auto& [pattern, cfg] : (*q)["layer_quant_config"].items())
                if (const WeightFormat f = quark_format(cfg); !f.dtype.empty())
                    m.quant_modules.push_back({pattern, f});
        if (q->contains("global_quant_config")) {
            const WeightFormat f = quark_format((*q)["global_quant_config"]);
            if (!f.dtype.empty()) {
                method = "quark-" + f.dtype;
                m.quant_method = method;
                m.quant_format = f;
            }
        }
    }
    if (m.quant_method.empty())
        m.quant_method = method;
    if (m.quant_format.dtype.empty())
        m.quant_format = format_of(method, bits, group, type, symmetric, flag(*q, "load_in_4bit", false),
                                   flag(*q, "bnb_4bit_use_double_quant", false));
    if (m.quant_format.dtype.empty()) {
        m.quant_format = WeightFormat{};
        m.quant_modules.clear();
        m.notes.push_back("quantization_config with quant_method '" + method + "' (" + name +
                          ") not understood: weights counted at torch_dtype");
        return;
    }
    m.quant_weight_bytes = m.quant_format.bytes;
    m.quant_note = m.quant_format.note;
    m.notes.push_back("quantization_config: " + m.quant_note);
    if (m.quant_skip_given) {
        std::string list;
        for (const auto& s : m.quant_skip)
            list += (list.empty() ? "" : ", ") + s;
        m.notes.push_back("quantization_config: not converted (torch_dtype): " + (list.empty() ? std::string("none") : list));
    } else if (!m.quant_lm_head) {
        m.notes.push_back("quantization_config lists no unconverted modules: lm_head kept at torch_dtype, as "
                          "transformers keeps the output layer unquantised by default");
    }
}

} // namespace

ModelConfig parse_model_config(const std::string& json_text, const std::string& name)
{
    json top;
    size_t deep_at = 0;
    if (json_nesting(json_text, kMaxJsonDepth, &deep_at) > kMaxJsonDepth)
        throw TraceError(name, "byte " + std::to_string(deep_at),
                         "JSON nested at most " + std::to_string(kMaxJsonDepth) + " deep (a Hugging Face config.json)",
                         "deeper nesting");
    try {
        top = json::parse(json_text);
    } catch (const json::parse_error& e) {
        throw TraceError(name, "byte " + std::to_string(e.byte), "valid JSON (a Hugging Face config.json)", e.what());
    } catch (const json::exception& e) {
        // out_of_range.406: a number such as 1e999 that no double holds.
        throw TraceError(name, "", "valid JSON with finite numbers (a Hugging Face config.json)", e.what());
    }
    if (!top.is_object())
        throw TraceError(name, "top level", "a JSON object (a Hugging Face config.json)", top.type_name());
    Reader r{top, nullptr, name};
    if (top.contains("text_config") && top.at("text_config").is_object())
        r.text = &top.at("text_config");

    ModelConfig m;
    m.source = name;
    m.model_type = r.string("model_type").value_or("");
    if (r.text && r.text->contains("model_type") && r.text->at("model_type").is_string() && !top.contains("hidden_size"))
        m.model_type = r.text->at("model_type").get<std::string>();
    if (const json* a = r.find("architectures"); a && a->is_array() && !a->empty() && (*a)[0].is_string())
        m.architecture = (*a)[0].get<std::string>();

    if (r.find("kv_lora_rank"))
        throw TraceError(name, "kv_lora_rank",
                         "standard multi-head / grouped-query attention (multi-head latent attention is not modelled)",
                         "an MLA model");

    m.hidden_size = r.required_positive({"hidden_size", "n_embd", "d_model"});
    m.num_heads = r.required_positive({"num_attention_heads", "n_head"});
    m.num_layers = r.required_positive({"num_hidden_layers", "n_layer", "num_layers"});
    m.vocab_size = r.required_positive({"vocab_size"});

    if (const auto kv = r.integer({"num_key_value_heads", "num_kv_heads"})) {
        if (*kv <= 0)
            throw TraceError(name, "num_key_value_heads", "a positive integer", std::to_string(*kv));
        m.num_kv_heads = *kv;
    } else {
        m.num_kv_heads = m.num_heads;
        m.notes.push_back("num_key_value_heads absent: multi-head attention assumed (KV heads = " +
                          std::to_string(m.num_heads) + ")");
    }
    check_range(name, kHidden, m.hidden_size);
    check_range(name, kHeads, m.num_heads);
    check_range(name, kLayers, m.num_layers);
    read_attention_window(r, m, name);
    check_range(name, kVocab, m.vocab_size);
    if (m.num_kv_heads > m.num_heads)
        throw TraceError(name, "num_key_value_heads", "at most num_attention_heads (" + std::to_string(m.num_heads) + ")",
                         std::to_string(m.num_kv_heads));
    if (m.num_heads % m.num_kv_heads != 0)
        throw TraceError(name, "num_key_value_heads",
                         "a divisor of num_attention_heads (" + std::to_string(m.num_heads) + ")",
                         std::to_string(m.num_kv_heads));

    if (const auto hd = r.integer({"head_dim"})) {
        if (*hd <= 0)
            throw TraceError(name, "head_dim", "a positive integer", std::to_string(*hd));
        m.head_dim = *hd;
    } else {
        if (m.hidden_size % m.num_heads != 0)
            throw TraceError(name, "head_dim",
                             "head_dim, or hidden_size divisible by num_attention_heads",
                             "no head_dim and hidden_size " + std::to_string(m.hidden_size) + " / " +
                                 std::to_string(m.num_heads) + " heads is not whole");
        m.head_dim = m.hidden_size / m.num_heads;
    }

    check_range(name, kHeadDim, m.head_dim);

    const std::string mt = m.model_type;
    static const std::set<std::string> ungated = {"phi", "gpt2", "gpt_neox", "gptj", "opt", "falcon", "bloom",
                                                  "starcoder2", "gpt_bigcode"};
    m.gated_mlp = !ungated.count(mt);
    m.layer_norm = ungated.count(mt) > 0;
    m.hidden_act = r.string("hidden_act").value_or(r.string("hidden_activation").value_or(
        r.string("activation_function").value_or("")));

    if (const auto tie = r.boolean("tie_word_embeddings")) {
        m.tie_word_embeddings = *tie;
    } else {
        // Transformers' per-model defaults: Gemma and GPT-2 tie, Llama/Qwen/Mistral/Phi-3 do not.
        m.tie_word_embeddings = mt.rfind("gemma", 0) == 0 || mt == "gpt2";
        m.notes.push_back(std::string("tie_word_embeddings absent: ") + (m.tie_word_embeddings ? "tied" : "not tied") +
                          " (the default for model_type '" + mt + "')");
    }

    m.torch_dtype = r.string("torch_dtype").value_or(r.string("dtype").value_or(""));
    if (!m.torch_dtype.empty() && dtype_bytes(m.torch_dtype) == 0)
        throw TraceError(name, "torch_dtype", "a known dtype (float32, bfloat16, float16, float8_e4m3fn, int8, ...)",
                         m.torch_dtype);

    parse_quantization(top, m, name);

    // MoE
    const auto experts = r.integer({"num_local_experts", "num_experts", "n_routed_experts"});
    if (experts && *experts > 0) {
        check_range(name, kExperts, *experts);
        m.num_experts = *experts;
        const auto k = r.integer({"num_experts_per_tok", "experts_per_token", "moe_top_k", "top_k"});
        if (!k)
            throw TraceError(name, "num_experts_per_tok", "the number of experts per token for an MoE model",
                             "it is missing");
        if (*k <= 0 || *k > m.num_experts)
            throw TraceError(name, "num_experts_per_tok",
                             "between 1 and the number of experts (" + std::to_string(m.num_experts) + ")",
                             std::to_string(*k));
        m.experts_per_token = *k;
        if (const auto mi = r.integer({"moe_intermediate_size"}))
            m.moe_intermediate_size = *mi;
        if (const auto ii = r.integer({"intermediate_size", "n_inner", "ffn_dim"}))
            m.intermediate_size = *ii;
        if (m.moe_intermediate_size <= 0)
            m.moe_intermediate_size = m.intermediate_size;   // Mixtral: intermediate_size is the expert width
        if (m.moe_intermediate_size <= 0)
            throw TraceError(name, "moe_intermediate_size", "the expert MLP width (or intermediate_size)", "it is missing");
        if (m.intermediate_size <= 0)
            m.intermediate_size = m.moe_intermediate_size;
        check_range(name, kIntermediate, m.moe_intermediate_size);
        check_range(name, kIntermediate, m.intermediate_size);
        if (const auto s = r.integer({"shared_expert_intermediate_size"})) {
            m.shared_expert_intermediate = *s;
        } else if (const auto ns = r.integer({"n_shared_experts"})) {
            check_range(name, {"n_shared_experts", 0, kExperts.hi}, *ns);
            m.shared_expert_intermediate = *ns * m.moe_intermediate_size;
        }
        check_range(name, kSharedWidth, m.shared_expert_intermediate);
        m.moe_layer.assign(static_cast<size_t>(m.num_layers), true);
        const int64_t first_dense = r.integer({"first_k_dense_replace"}).value_or(0);
        const int64_t step = std::max<int64_t>(1, r.integer({"decoder_sparse_step", "moe_layer_freq"}).value_or(1));
        std::set<int64_t> mlp_only;
        if (const json* mo = r.find("mlp_only_layers"); mo && mo->is_array())
            for (const auto& v : *mo)
                if (v.is_number_integer())
                    mlp_only.insert(v.get<int64_t>());
        for (int64_t l = 0; l < m.num_layers; ++l)
            m.moe_layer[static_cast<size_t>(l)] = l >= first_dense && (l + 1) % step == 0 && !mlp_only.count(l);
        if (first_dense > 0 && step > 1)
            m.notes.push_back("both first_k_dense_replace and a sparse step given: both applied");
    } else {
        const auto ii = r.integer({"intermediate_size", "n_inner", "ffn_dim"});
        if (ii && *ii > 0) {
            check_range(name, kIntermediate, *ii);
            m.intermediate_size = *ii;
        } else if (mt == "gpt2") {
            m.intermediate_size = 4 * m.hidden_size;
            m.notes.push_back("n_inner absent: 4 x hidden_size (GPT-2 default)");
        } else {
            throw TraceError(name, "intermediate_size", "this field in config.json", ii ? "a non-positive value" : "it is missing");
        }
        if (r.integer({"num_experts_per_tok"}).value_or(0) > 0 && !experts)
            throw TraceError(name, "num_experts_per_tok", "num_local_experts / num_experts alongside it",
                             "experts per token without an expert count");
    }
    return m;
}

ModelConfig load_model_config(const std::string& config_path, const std::string& index_path)
{
    ModelConfig m = parse_model_config(read_input_file(config_path, InputKind::ModelConfig, "a readable config.json"),
                                       config_path);
    if (index_path.empty())
        return m;

    const std::string index_text =
        read_input_file(index_path, InputKind::WeightIndex, "a readable model.safetensors.index.json");
    json idx = parse_json_input(index_text, index_path);
    if (!idx.is_object() || !idx.contains("weight_map") || !idx.at("weight_map").is_object())
        throw TraceError(index_path, "weight_map", "an object mapping tensor names to files", "it is missing");
    const json& wm = idx.at("weight_map");
    m.index_tensor_count = static_cast<int64_t>(wm.size());
    if (idx.contains("metadata") && idx.at("metadata").is_object() && idx.at("metadata").contains("total_size") &&
        idx.at("metadata").at("total_size").is_number_integer())   // a float (1e30) would not convert safely
        m.index_total_bytes = idx.at("metadata").at("total_size").get<int64_t>();

    // Layer count: the highest "layers.N." index + 1 among the tensor names.
    static const Regex layer_re(R"((?:^|\.)(?:layers|h|blocks)\.(\d+)\.)");
    int64_t max_layer = -1;
    bool has_lm_head = false;
    for (auto it = wm.begin(); it != wm.end(); ++it) {
        std::vector<std::string_view> mm;
        const std::string& key = it.key();
        if (layer_re.search(key, mm)) {
            const std::string digits(mm[1]);
            if (digits.size() > 9)   // std::stoll would throw a bare out_of_range past 19 digits
                throw TraceError(index_path, "weight_map." + quote_prefix(key),
                                 "a layer index below " + std::to_string(kLayers.hi), quote_prefix(digits));
            max_layer = std::max<int64_t>(max_layer, std::stoll(digits));
        }
        if (key.find("lm_head.") != std::string::npos)
            has_lm_head = true;
    }
    if (max_layer >= 0 && max_layer + 1 != m.num_layers)
        throw TraceError(config_path, "num_hidden_layers",
                         std::to_string(m.num_layers) + " layers as the weight index lists (contradictory files)",
                         std::to_string(max_layer + 1) + " layers in " + index_path);
    if (!m.tie_word_embeddings && !has_lm_head && max_layer >= 0)
        m.notes.push_back("tie_word_embeddings is false but the weight index has no lm_head tensor: treated as tied");
    if (!m.tie_word_embeddings && !has_lm_head && max_layer >= 0)
        m.tie_word_embeddings = true;
    if (m.index_total_bytes > 0 && !m.torch_dtype.empty()) {
        const double expect = static_cast<double>(m.parameter_count()) * dtype_bytes(m.torch_dtype);
        const double ratio = static_cast<double>(m.index_total_bytes) / expect;
        if (ratio < 0.8 || ratio > 1.25)
            m.notes.push_back("weight index total_size " + std::to_string(m.index_total_bytes) +
                              " B differs from the structure's " + std::to_string(static_cast<int64_t>(expect)) +
                              " B (quantised weights or extra tensors?)");
    }
    return m;
}

} // namespace sl
