#include "analysis/roofline/config_check.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <string_view>
#include <utility>

#include "analysis/io/model_config.h"
#include "analysis/roofline/gemm_dims.h"
#include "analysis/timeline/kernel_phase.h"
#include "analysis/timeline/phases.h"
#include "analysis/trace/cancel_point.h"
#include "analysis/trace/kernel_ops.h"
#include "analysis/trace/trace.h"

namespace sl {

namespace {

// (K, N) of the weight operand of a GEMM CPU op (mm, _scaled_mm, addmm: the ops a model's linear layers become), or
// {0, 0}.
std::pair<int64_t, int64_t> weight_dims(std::string_view op, const std::string& dims_text)
{
    if (op != "aten::mm" && op != "aten::_scaled_mm" && op != "aten::addmm")
        return {0, 0};
    const auto g = gemm_dims(op, dims_text);
    if (!g || g->b_k <= 0 || g->n <= 0 || g->k != g->b_k)
        return {0, 0};
    return {g->b_k, g->n};
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
    // A CPU op the capture join copied in from a graph's capture ran once per graph launch that replayed it.
    std::vector<int64_t> times(a.size(), 1);
    {
        std::set<std::pair<int32_t, int32_t>> replays;   // (op row, graph launch)
        for (size_t j = 0; j < t.graph_ops.size(); ++j)
            if (const int32_t o = t.graph_ops.op[j]; o >= 0 && static_cast<size_t>(o) < a.size())
                replays.insert({o, t.kernels.launch_api[t.graph_ops.kernel[j]]});
        for (const auto& [o, launch] : replays)
            times[static_cast<size_t>(o)] = 0;
        for (const auto& [o, launch] : replays)
            times[static_cast<size_t>(o)] += 1;
    }
    // A training step's backward GEMMs multiply by the same weights, transposed (dX = dY · W) or by activations
    // (dW = dYᵀ · X): counted, they would read as extra forward layers. Autograd runs them inside its
    // "autograd::engine::evaluate_function: …" ranges; the GEMMs there are left out.
    std::vector<std::pair<int64_t, int64_t>> backward;
    for (size_t i = 0; i < t.ranges.size(); ++i)
        if (t.ranges.kind[i] == RangeKind::CpuOp && t.str(t.ranges.name[i]).rfind("autograd::engine::evaluate_function", 0) == 0)
            backward.emplace_back(t.ranges.start[i], t.ranges.end[i]);
    std::sort(backward.begin(), backward.end());
    // Outermost intervals only, so "the last one starting at or before t" decides.
    std::vector<std::pair<int64_t, int64_t>> outer;
    for (const auto& iv : backward)
        if (outer.empty() || iv.first > outer.back().second)
            outer.push_back(iv);
        else
            outer.back().second = std::max(outer.back().second, iv.second);
    auto in_backward = [&](int64_t start, int64_t end) {
        auto it = std::upper_bound(outer.begin(), outer.end(), std::make_pair(start, INT64_MAX));
        return it != outer.begin() && (it - 1)->first <= start && end <= (it - 1)->second;
    };
    int64_t backward_calls = 0;
    bool shapes = false;
    for (size_t i = 0; i < a.size(); ++i) {
        if (a.source[i] != OpArgsTable::kCpuOp || a.input_dims[i].empty())
            continue;
        shapes = true;
        if (!outer.empty() && in_backward(a.start[i], a.end[i])) {
            backward_calls += weight_dims(t.str(a.name[i]), a.input_dims[i]).first > 0;
            continue;
        }
        const auto kn = weight_dims(t.str(a.name[i]), a.input_dims[i]);
        if (kn.first > 0 && times[i] > 0)
            calls[kn] += times[i];
    }
    for (const auto& [kn, c] : calls) {
        r.gemm_calls += c;
        r.weight_elements += double(c) * double(kn.first) * double(kn.second);
    }
    if (r.gemm_calls == 0) {
        // Say why: no shapes recorded at all, or shapes recorded but the GEMMs ran inside graph replays (which carry
        // no CPU ops) with no capture trace joined.
        int64_t replayed = 0;
        for (size_t i = 0; i < t.kernels.size(); ++i) {
            const int32_t api = t.kernels.launch_api[i];
            replayed += (t.kernels.flags[i] & KernelTable::kGraphNode) ||
                        (api >= 0 && static_cast<size_t>(api) < t.api.size() &&
                         (t.api.flags[static_cast<size_t>(api)] & kApiGraphLaunch));
        }
        if (!shapes)
            r.reason = "the trace records no GEMM shapes (record_shapes)";
        else if (replayed > 0 && t.graph_ops.size() == 0)
            r.reason = "the trace records shapes, but its GEMMs ran in CUDA/HIP graph replay (" +
                       std::to_string(replayed) +
                       " kernels), which carries no CPU ops or shapes: give the trace of the graph capture "
                       "(--capture-trace, or a capture_traces/ folder beside the trace)";
        else
            r.reason = "the trace records shapes, but no aten::mm / aten::addmm call";
        return r;
    }
    const int64_t h = m.hidden_size, H = m.num_heads, Hkv = m.num_kv_heads > 0 ? m.num_kv_heads : m.num_heads;
    const int64_t d = m.head_dim > 0 ? m.head_dim : (H > 0 ? h / H : 0), I = m.intermediate_size, V = m.vocab_size;
    if (h <= 0 || H <= 0 || d <= 0 || I <= 0 || m.num_layers <= 0) {
        r.reason = "the config lacks the sizes to check";
        return r;
    }
    const int64_t q = H * d / tp, kv = std::max<int64_t>(1, Hkv / tp) * d, inter = I / tp;
    const std::pair<int64_t, int64_t> q_proj{h, q}, k_proj{h, kv}, qkv_proj{h, q + 2 * kv}, o_proj{q, h};
    const std::set<std::pair<int64_t, int64_t>> attn = {q_proj, k_proj, qkv_proj, o_proj};
    std::set<std::pair<int64_t, int64_t>> mlp;
    // A dense MLP exists in a dense model, or in the layers a MoE config keeps dense.
    const bool dense_mlp = m.num_experts == 0 || m.moe_layer.empty() ||
                           std::find(m.moe_layer.begin(), m.moe_layer.end(), false) != m.moe_layer.end();
    if (dense_mlp) {
        mlp = {{h, inter}, {inter, h}};
        if (m.gated_mlp)
            mlp.insert({h, 2 * inter});
    }
    if (m.num_experts > 0) {
        // Routed experts (each expert whole on a rank, or its width split by tp), the router, a shared expert.
        const int64_t Ie = m.moe_intermediate_size > 0 ? m.moe_intermediate_size : I;
        for (const int64_t w : {Ie, Ie / tp}) {
            mlp.insert({h, w});
            mlp.insert({w, h});
            if (m.gated_mlp)
                mlp.insert({h, 2 * w});
        }
        mlp.insert({h, m.num_experts});
        if (m.shared_expert_intermediate > 0)
            for (const int64_t w : {m.shared_expert_intermediate, m.shared_expert_intermediate / tp}) {
                mlp.insert({h, w});
                mlp.insert({w, h});
                if (m.gated_mlp)
                    mlp.insert({h, 2 * w});
            }
    }
    const std::set<std::pair<int64_t, int64_t>> head = {{h, V}, {h, V / tp}};
    double matched = 0;
    for (const auto& [kn, c] : calls) {
        const double e = double(c) * double(kn.first) * double(kn.second);
        if (head.count(kn)) {
            r.lm_head_calls += c;
            matched += e;
        } else if (attn.count(kn) || mlp.count(kn)) {
            matched += e;
        }
    }
    r.matched_fraction = matched / r.weight_elements;
    r.backward_gemm_calls = backward_calls;
    // Layers per pass: every layer runs one query projection (q, or q, k and v fused) and one output projection, in
    // dense and MoE models alike (a MoE pass need not touch every expert). When q is as wide as the hidden size the
    // two share one shape, which the count then holds twice per layer, as it should. A shape the MLP could also
    // have makes the count ambiguous: then the layers are not read.
    auto count = [&](const std::pair<int64_t, int64_t>& kn) {
        const auto it = calls.find(kn);
        return it == calls.end() ? int64_t{0} : it->second;
    };
    const bool ambiguous = mlp.count(q_proj) || mlp.count(qkv_proj) || mlp.count(o_proj) || head.count(q_proj) ||
                           head.count(qkv_proj) || head.count(o_proj);
    if (r.lm_head_calls > 0 && !ambiguous) {
        const int64_t proj = count(q_proj) + (qkv_proj != q_proj ? count(qkv_proj) : 0) +
                             (o_proj != q_proj && o_proj != qkv_proj ? count(o_proj) : 0);
        r.layers_from_shapes = double(proj) / 2.0 / double(r.lm_head_calls);
    }
    const std::string pct = fmt("%.0f %%", 100.0 * r.matched_fraction);
    const std::string layers = fmt("%.1f", r.layers_from_shapes);
    if (r.matched_fraction < 0.5) {
        r.verdict = "contradicted";
        r.reason = "only " + pct + " of the weight elements the trace's GEMMs multiply by are in the config's matrices";
    } else if (r.layers_from_shapes > 0 && std::abs(r.layers_from_shapes / double(m.num_layers) - 1.0) > 0.2) {
        r.verdict = "contradicted";
        r.reason = "per forward pass the trace runs the attention projections of " + layers +
                   " layers; the config has " + std::to_string(m.num_layers);
    } else if (r.matched_fraction >= 0.8 && r.layers_from_shapes > 0) {
        r.verdict = "confirmed";
        r.reason = pct + " of the GEMM weight elements are the config's matrices, and each of " +
                   std::to_string(r.lm_head_calls) + " forward passes runs the attention projections of " + layers +
                   " layers (config: " + std::to_string(m.num_layers) + ")";
    } else {
        r.reason = pct + " of the GEMM weight elements are the config's matrices" +
                   (r.lm_head_calls == 0 ? "; no lm_head GEMM to count forward passes"
                    : r.layers_from_shapes > 0 ? ""
                                               : "; the attention projections share a shape with the MLP, so the "
                                                 "layers are not counted");
    }
    return r;
}

std::vector<bool> expert_gemm_kernels(const Trace& t, const ModelConfig& m, int64_t tp, std::vector<bool>* down_calls)
{
    std::vector<bool> out;
    if (down_calls)
        down_calls->clear();
    tp = std::max<int64_t>(1, tp);
    const int64_t h = m.hidden_size, I = m.intermediate_size, V = m.vocab_size;
    const int64_t Ie = m.moe_intermediate_size > 0 ? m.moe_intermediate_size : I;
    if (m.num_experts <= 0 || h <= 0 || Ie <= 0 || t.op_args.size() == 0)
        return out;
    std::set<std::pair<int64_t, int64_t>> experts, other;
    for (const int64_t w : {Ie, Ie / tp}) {
        if (w <= 0)
            continue;
        experts.insert({h, w});
        experts.insert({w, h});
        if (m.gated_mlp)
            experts.insert({h, 2 * w});
    }
    // What a dense layer, the attention or the lm_head multiplies by: a shape both could be is not moved.
    const int64_t H = m.num_heads, Hkv = m.num_kv_heads > 0 ? m.num_kv_heads : m.num_heads;
    const int64_t d = m.head_dim > 0 ? m.head_dim : (H > 0 ? h / H : 0);
    const int64_t q = H * d / tp, kv = std::max<int64_t>(1, Hkv / tp) * d;
    other = {{h, q}, {h, kv}, {h, q + 2 * kv}, {q, h}, {h, V}, {h, V / tp}};
    const bool dense_mlp = m.moe_layer.empty() ||
                           std::find(m.moe_layer.begin(), m.moe_layer.end(), false) != m.moe_layer.end();
    if (dense_mlp && I > 0)
        for (const int64_t w : {I, I / tp})
            other.insert({{h, w}, {w, h}, {h, 2 * w}});
    if (m.shared_expert_intermediate > 0)
        for (const int64_t w : {m.shared_expert_intermediate, m.shared_expert_intermediate / tp})
            other.insert({{h, w}, {w, h}, {h, 2 * w}});
    for (const auto& kn : other)
        experts.erase(kn);
    if (experts.empty())
        return out;
    const KernelOps ops(t);
    out.assign(t.kernels.size(), false);
    std::vector<bool> row_seen;   // op rows whose down projection was counted (a call may launch several kernels)
    if (down_calls) {
        down_calls->assign(t.kernels.size(), false);
        row_seen.assign(t.op_args.size(), false);
    }
    bool any = false;
    for (size_t k = 0; k < t.kernels.size(); ++k) {
        cancel_point(k);
        const int32_t row = ops.op_row(k);
        if (row < 0 || static_cast<size_t>(row) >= t.op_args.size() || t.op_args.input_dims[size_t(row)].empty())
            continue;
        const std::string_view name = t.str(t.op_args.name[size_t(row)]);
        if (!is_gemm_op(name))
            continue;
        const auto g = gemm_dims(name, t.op_args.input_dims[size_t(row)]);
        if (g && experts.count({g->k, g->n})) {
            out[k] = true;
            any = true;
            if (down_calls && g->batch == 1 && g->n == h && (g->k == Ie || g->k == Ie / tp) &&
                !row_seen[size_t(row)]) {
                row_seen[size_t(row)] = true;
                (*down_calls)[k] = true;
            }
        }
    }
    if (!any) {
        out.clear();
        if (down_calls)
            down_calls->clear();
    }
    return out;
}

std::array<double, 4> experts_touched_per_step(const Trace& t, const PhaseResult& phases, const ModelConfig& m,
                                               const std::vector<bool>& down_calls)
{
    std::array<double, 4> out{};
    if (down_calls.empty() || !m.is_moe() || !phases.training_windows.empty())
        return out;
    int64_t moe_layers = 0;
    for (int64_t l = 0; l < m.num_layers; ++l)
        moe_layers += m.moe_layer.empty() || (static_cast<size_t>(l) < m.moe_layer.size() && m.moe_layer[size_t(l)]);
    if (moe_layers <= 0)
        return out;
    // Steps per phase as the Roofline counts its passes (roofline.cpp measured_from_analysis).
    std::array<double, 3> steps{};
    for (const auto& s : phases.steps)
        steps[s.mixed ? 2 : s.prefill ? 0 : 1] += 1;
    std::array<double, 3> calls{};
    const std::vector<KernelPhase> placed = kernel_phases(t, phases);
    for (size_t k = 0; k < placed.size() && k < down_calls.size(); ++k) {
        const int p = static_cast<int>(placed[k]);
        if (down_calls[k] && p >= 0 && p < 3)
            calls[size_t(p)] += 1;
    }
    for (size_t p = 0; p < 3; ++p)
        if (steps[p] > 0 && calls[p] > 0)
            out[p] = std::min(double(m.num_experts), calls[p] / (steps[p] * double(moe_layers)));
    return out;
}

} // namespace sl
