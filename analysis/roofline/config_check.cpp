#include "analysis/roofline/config_check.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <string_view>
#include <utility>

#include "analysis/io/model_config.h"
#include "analysis/trace/trace.h"

namespace sl {

namespace {

// (K, N) of the weight operand of a GEMM CPU op, or {0, 0}.
std::pair<int64_t, int64_t> weight_dims(std::string_view op, const std::string& dims_text)
{
    size_t a = 0;
    if (op == "aten::mm" || op == "aten::_scaled_mm")
        a = 0;
    else if (op == "aten::addmm")
        a = 1;   // bias first
    else
        return {0, 0};
    const nlohmann::json d = nlohmann::json::parse(dims_text, nullptr, false);
    if (!d.is_array() || d.size() < a + 2)
        return {0, 0};
    const auto& x = d[a];
    const auto& w = d[a + 1];
    if (!x.is_array() || !w.is_array() || x.size() != 2 || w.size() != 2 || !w[0].is_number_integer() ||
        !w[1].is_number_integer() || !x[1].is_number_integer())
        return {0, 0};
    const int64_t k = w[0].get<int64_t>(), n = w[1].get<int64_t>();
    if (k <= 0 || n <= 0 || x[1].get<int64_t>() != k)
        return {0, 0};
    return {k, n};
}

std::string fmt(const char* f, double v)
{
    char b[64];
    std::snprintf(b, sizeof b, f, v);
    return b;
}

} // namespace

ConfigShapeCheck check_config_shapes(const Trace& t, const ModelConfig& m, int64_t tp)
{
    ConfigShapeCheck r;
    r.config_layers = m.num_layers;
    tp = std::max<int64_t>(1, tp);
    std::map<std::pair<int64_t, int64_t>, int64_t> calls;   // (K, N) -> calls
    const OpArgsTable& a = t.op_args;
    for (size_t i = 0; i < a.size(); ++i) {
        if (a.source[i] != OpArgsTable::kCpuOp || a.input_dims[i].empty())
            continue;
        const auto kn = weight_dims(t.str(a.name[i]), a.input_dims[i]);
        if (kn.first > 0)
            ++calls[kn];
    }
    for (const auto& [kn, c] : calls) {
        r.gemm_calls += c;
        r.weight_elements += double(c) * double(kn.first) * double(kn.second);
    }
    if (r.gemm_calls == 0) {
        r.reason = "the trace records no GEMM shapes (record_shapes)";
        return r;
    }
    const int64_t h = m.hidden_size, H = m.num_heads, Hkv = m.num_kv_heads > 0 ? m.num_kv_heads : m.num_heads;
    const int64_t d = m.head_dim > 0 ? m.head_dim : (H > 0 ? h / H : 0), I = m.intermediate_size, V = m.vocab_size;
    if (h <= 0 || H <= 0 || d <= 0 || I <= 0 || m.num_layers <= 0) {
        r.reason = "the config lacks the sizes to check";
        return r;
    }
    const int64_t q = H * d / tp, kv = std::max<int64_t>(1, Hkv / tp) * d, inter = I / tp;
    std::set<std::pair<int64_t, int64_t>> layer = {{h, q}, {h, kv}, {h, q + 2 * kv}, {q, h}, {h, inter}, {inter, h}};
    if (m.gated_mlp)
        layer.insert({h, 2 * inter});
    const std::set<std::pair<int64_t, int64_t>> head = {{h, V}, {h, V / tp}};
    const double per_layer = double(h) * double(q + 2 * kv) + double(q) * double(h) +
                             (m.gated_mlp ? 3.0 : 2.0) * double(h) * double(inter);
    double matched = 0, layer_elems = 0;
    for (const auto& [kn, c] : calls) {
        const double e = double(c) * double(kn.first) * double(kn.second);
        if (head.count(kn)) {
            r.lm_head_calls += c;
            matched += e;
        } else if (layer.count(kn)) {
            matched += e;
            layer_elems += e;
        }
    }
    r.matched_fraction = matched / r.weight_elements;
    if (r.lm_head_calls > 0)
        r.layers_from_shapes = layer_elems / double(r.lm_head_calls) / per_layer;
    const std::string pct = fmt("%.0f %%", 100.0 * r.matched_fraction);
    const std::string layers = fmt("%.1f", r.layers_from_shapes);
    if (m.num_experts > 0) {
        r.reason = "a MoE config: its expert GEMMs are not modelled by this check";
        return r;
    }
    if (r.matched_fraction < 0.5) {
        r.verdict = "contradicted";
        r.reason = "only " + pct + " of the weight elements the trace's GEMMs multiply by are in the config's matrices";
    } else if (r.lm_head_calls > 0 &&
               std::abs(r.layers_from_shapes / double(m.num_layers) - 1.0) > 0.2) {
        r.verdict = "contradicted";
        r.reason = "per forward pass the trace's GEMMs stream the weights of " + layers + " layers; the config has " +
                   std::to_string(m.num_layers);
    } else if (r.matched_fraction >= 0.8 && r.lm_head_calls > 0) {
        r.verdict = "confirmed";
        r.reason = pct + " of the GEMM weight elements are the config's matrices, and each of " +
                   std::to_string(r.lm_head_calls) + " forward passes streams the weights of " + layers +
                   " layers (config: " + std::to_string(m.num_layers) + ")";
    } else {
        r.reason = pct + " of the GEMM weight elements are the config's matrices" +
                   (r.lm_head_calls > 0 ? "" : "; no lm_head GEMM to count forward passes");
    }
    return r;
}

} // namespace sl
