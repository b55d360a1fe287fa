#include "analysis/roofline/shape_throughput.h"
#include "analysis/roofline/gemm_dims.h"

#include <nlohmann/json.hpp>

#include <cmath>

#include "analysis/timeline/step_grammar.h"
#include "analysis/trace/kernel_ops.h"
#include "analysis/io/json_input.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <unordered_map>

namespace sl {

namespace {

using Dims = std::vector<int64_t>;

struct OpInputs {
    std::vector<Dims> dims;                 // per argument ([] for scalars / non-tensors)
    std::vector<bool> is_tensor;            // the argument's dims came as a list of numbers
    std::vector<std::string> types;
    std::vector<std::string> concrete;
};

bool parse_inputs(const std::string& dims_text, const std::string& types_text, const std::string& concrete_text,
                  OpInputs& out)
{
    const auto dj = parse_json_lenient(dims_text);
    if (!dj.is_array())
        return false;
    for (const auto& d : dj) {
        Dims v;
        bool tensor = d.is_array() && !d.empty();
        if (d.is_array())
            for (const auto& x : d) {
                if (!x.is_number_integer()) {
                    tensor = false;     // TensorList ([[..],[..]]) or something else: not one tensor
                    v.clear();
                    break;
                }
                v.push_back(x.get<int64_t>());
            }
        out.dims.push_back(std::move(v));
        out.is_tensor.push_back(tensor);
    }
    const auto tj = parse_json_lenient(types_text.empty() ? std::string("[]") : types_text);
    if (tj.is_array())
        for (const auto& t : tj)
            out.types.push_back(t.is_string() ? t.get<std::string>() : std::string());
    const auto cj = parse_json_lenient(concrete_text.empty() ? std::string("[]") : concrete_text);
    if (cj.is_array())
        for (const auto& c : cj)
            out.concrete.push_back(c.is_string() ? c.get<std::string>() : std::string());
    if (out.types.size() < out.dims.size())
        out.types.resize(out.dims.size());
    if (out.concrete.size() < out.dims.size())
        out.concrete.resize(out.dims.size());
    return true;
}

int64_t numel(const Dims& d)
{
    int64_t n = 1;
    for (int64_t x : d)
        n *= std::max<int64_t>(0, x);
    return n;
}

struct Cost {
    std::string family, shape;
    double flops = 0, bytes = 0;
    std::string dtype_text;     // the input type the roof follows
};

int causal_index(std::string_view op)
{
    if (op == "aten::scaled_dot_product_attention") return 5;
    if (op == "aten::_scaled_dot_product_flash_attention") return 4;
    if (op == "aten::_scaled_dot_product_efficient_attention") return 6;
    if (op == "aten::_scaled_dot_product_cudnn_attention") return 6;
    if (op == "aten::_cudnn_attention_forward") return 10;   // (q, k, v, bias, cum_seq_q, cum_seq_k, max_q, max_k, lse, dropout, is_causal, ...)
    if (op == "aten::_flash_attention_forward") return 8;
    if (op == "aten::_efficient_attention_forward") return 9;
    return -1;
}

bool is_norm(std::string_view op)
{
    return op == "aten::layer_norm" || op == "aten::native_layer_norm" || op == "aten::rms_norm" ||
           op == "aten::_fused_rms_norm" || op == "aten::group_norm" || op == "aten::native_group_norm" ||
           op == "aten::batch_norm" || op == "aten::native_batch_norm" || op == "aten::_batch_norm_impl_index" ||
           op == "aten::cudnn_batch_norm";
}

bool is_elementwise(std::string_view op)
{
    static const char* const kOps[] = {
        "aten::add", "aten::add_", "aten::sub", "aten::sub_", "aten::mul", "aten::mul_", "aten::div", "aten::div_",
        "aten::pow", "aten::rsqrt", "aten::sqrt", "aten::exp", "aten::log", "aten::neg", "aten::silu", "aten::silu_",
        "aten::gelu", "aten::relu", "aten::relu_", "aten::sigmoid", "aten::tanh", "aten::copy_", "aten::clone",
        "aten::_to_copy", "aten::mean", "aten::sum", "aten::amax", "aten::max", "aten::softmax", "aten::_softmax",
        "aten::where", "aten::masked_fill", "aten::masked_fill_", "aten::fill_", "aten::zero_", "aten::cos",
        "aten::sin", "aten::cumsum", "aten::argmax", "aten::eq", "aten::ne", "aten::lt", "aten::gt", "aten::clamp",
        "aten::native_dropout", "aten::reciprocal", "aten::abs", "aten::addcmul_", "aten::addcdiv_", "aten::lerp_",
        "aten::threshold_backward", "aten::_log_softmax", "aten::_softmax_backward_data"};
    return std::find(std::begin(kOps), std::end(kOps), op) != std::end(kOps);
}

bool is_reduction(std::string_view op)
{
    return op == "aten::mean" || op == "aten::sum" || op == "aten::amax" || op == "aten::max" ||
           op == "aten::argmax" || op == "aten::cumsum";
}

std::string fmt_shape(std::initializer_list<std::pair<const char*, int64_t>> kv, const char* tail = "")
{
    std::string s;
    for (const auto& [k, v] : kv) {
        if (!s.empty())
            s += ' ';
        s += k;
        s += '=';
        s += std::to_string(v);
    }
    return s + tail;
}

// Tensor bytes of argument i (0 when it is not a tensor or its type is unknown).
double arg_bytes(const OpInputs& in, size_t i)
{
    if (i >= in.dims.size() || !in.is_tensor[i])
        return 0;
    return static_cast<double>(numel(in.dims[i])) * torch_type_bytes(in.types[i]);
}

// The GEMM dimensions of a parsed call (gemm_dims.h).
std::optional<GemmDims> gemm_dims_of(std::string_view op, const OpInputs& in)
{
    auto t = [&](size_t i) { return i < in.dims.size() && in.is_tensor[i]; };
    GemmDims g;
    if (op == "aten::mm" || op == "aten::_scaled_mm") {
        if (!t(0) || !t(1) || in.dims[0].size() != 2 || in.dims[1].size() != 2)
            return std::nullopt;
        g.m = in.dims[0][0]; g.k = in.dims[0][1]; g.n = in.dims[1][1]; g.b_k = in.dims[1][0];
    } else if (op == "aten::addmm") {
        if (!t(1) || !t(2) || in.dims[1].size() != 2 || in.dims[2].size() != 2)
            return std::nullopt;
        g.a = 1; g.b = 2;
        g.m = in.dims[1][0]; g.k = in.dims[1][1]; g.n = in.dims[2][1]; g.b_k = in.dims[2][0];
    } else if (op == "aten::bmm" || op == "aten::baddbmm") {
        g.a = op == "aten::bmm" ? 0 : 1;
        g.b = g.a + 1;
        const size_t a = g.a, b = g.b;
        if (!t(a) || !t(b) || in.dims[a].size() != 3 || in.dims[b].size() != 3)
            return std::nullopt;
        g.batch = in.dims[a][0]; g.m = in.dims[a][1]; g.k = in.dims[a][2]; g.n = in.dims[b][2];
        g.b_k = in.dims[b][1];
    } else if (op == "aten::linear") {
        if (!t(0) || !t(1) || in.dims[1].size() != 2 || in.dims[0].empty())
            return std::nullopt;
        const Dims& x = in.dims[0];
        g.m = numel(Dims(x.begin(), x.end() - 1)); g.k = x.back(); g.n = in.dims[1][0]; g.b_k = in.dims[1][1];
    } else if (op == "aten::matmul") {
        if (!t(0) || !t(1) || in.dims[0].size() < 2 || in.dims[1].size() < 2)
            return std::nullopt;
        const Dims& x = in.dims[0];
        const Dims& y = in.dims[1];
        g.k = x.back(); g.n = y.back(); g.b_k = y[y.size() - 2];
        if (y.size() == 2) {
            g.m = numel(Dims(x.begin(), x.end() - 1));
        } else {
            g.m = x[x.size() - 2];
            g.batch = numel(Dims(x.begin(), x.end() - 2));
        }
    } else {
        return std::nullopt;
    }
    return g;
}

std::optional<Cost> gemm_cost(std::string_view op, const OpInputs& in)
{
    const auto g = gemm_dims_of(op, in);
    if (!g)
        return std::nullopt;
    Cost c;
    c.family = "gemm";
    const int64_t batch = g->batch, m = g->m, n = g->n, k = g->k;
    const size_t a = g->a, b = g->b;
    // The bias (addmm, baddbmm: the first argument; linear: the third) is read once more.
    const double extra = op == "aten::addmm" || op == "aten::baddbmm" ? arg_bytes(in, 0)
                         : op == "aten::linear"                       ? arg_bytes(in, 2)
                                                                      : 0.0;
    const int ea = torch_type_bytes(in.types[a]), eb = torch_type_bytes(in.types[b]);
    // Output: the input's element size, except fp8 _scaled_mm, whose result is bf16 unless the trace says otherwise.
    const int eo = op == "aten::_scaled_mm" ? 2 : std::max(ea, 1);
    c.flops = 2.0 * batch * m * n * k;
    // No element sizes (shapes from NVTX text carry no dtypes): the traffic is unknown, not one byte an element.
    c.bytes = ea > 0 && eb > 0 ? static_cast<double>(batch) * (m * k * ea + k * n * eb + m * n * eo) + extra : 0.0;
    c.dtype_text = in.types[a];
    c.shape = batch > 1 ? fmt_shape({{"batch", batch}, {"M", m}, {"N", n}, {"K", k}})
                        : fmt_shape({{"M", m}, {"N", n}, {"K", k}});
    return c;
}

std::optional<Cost> attention_cost(std::string_view op, const OpInputs& in)
{
    const int ci = causal_index(op);
    if (ci < 0 || in.dims.size() < 3 || !in.is_tensor[0] || !in.is_tensor[1] || !in.is_tensor[2])
        return std::nullopt;
    const Dims &q = in.dims[0], &kk = in.dims[1];
    if (q.size() != 4 || kk.size() != 4)
        return std::nullopt;
    // SDPA ops take [B, H, S, D]; the flash / efficient forward kernels take [B, S, H, D].
    const bool bshd = op == "aten::_flash_attention_forward" || op == "aten::_efficient_attention_forward";
    const int64_t b = q[0], d = q[3];
    const int64_t hq = bshd ? q[2] : q[1], sq = bshd ? q[1] : q[2];
    const int64_t hk = bshd ? kk[2] : kk[1], sk = bshd ? kk[1] : kk[2];
    const bool causal = static_cast<size_t>(ci) < in.concrete.size() && in.concrete[static_cast<size_t>(ci)] == "True";
    double pairs = static_cast<double>(sq) * sk;
    if (causal)
        pairs = sq <= sk ? static_cast<double>(sq) * (sk - sq) + static_cast<double>(sq) * (sq + 1) / 2.0
                         : static_cast<double>(sk) * (sk + 1) / 2.0;
    Cost c;
    c.family = "attention";
    c.flops = 4.0 * b * hq * d * pairs;
    c.bytes = 2 * arg_bytes(in, 0) + arg_bytes(in, 1) + arg_bytes(in, 2);   // Q read + O written, K, V
    c.dtype_text = in.types[0];
    c.shape = fmt_shape({{"B", b}, {"Hq", hq}, {"Hk", hk}, {"Sq", sq}, {"Sk", sk}, {"D", d}}, causal ? " causal" : "");
    return c;
}

// A serving framework's paged / chunked-prefill attention operator (StepGrammar::attention_ops), costed from the
// step annotation's sums, as TraceLens's inference attention model does: with Hq query heads of size dqk, values of
// size dv, Hkv KV heads, and per side (c = prefill/context, g = decode/generation) Σq, Σk, Σq², Σq·k,
//   FLOPs = Hq·(dqk + dv)·(2·c_Σq·k − c_Σq² + 2·g_Σq·k)      (causal within the new chunk: half of its Σq² pairs)
//   bytes = (Σq·Hq·(dqk + dv) + Σk·Hkv·(dqk + dv)) · element size, summed over both sides (Q read, O written, K and
//           V read once).
std::optional<Cost> inference_attention_cost(const StepGrammar::AttentionOp& a, const OpInputs& in,
                                             const StepBatch& b)
{
    const size_t qa = static_cast<size_t>(a.q_arg), ka = static_cast<size_t>(a.k_arg);
    if (qa >= in.dims.size() || ka >= in.dims.size() || !in.is_tensor[qa] || !in.is_tensor[ka] ||
        in.dims[qa].size() < 2 || in.dims[ka].size() < 2 || !b.has_attention_sums())
        return std::nullopt;
    const Dims& q = in.dims[qa];
    const Dims& k = in.dims[ka];
    const int64_t hq = q[q.size() - 2], dqk = q.back(), hkv = k[k.size() - 2];
    int64_t dv = k.back();
    if (a.v_arg >= 0 && static_cast<size_t>(a.v_arg) < in.dims.size() && in.is_tensor[static_cast<size_t>(a.v_arg)] &&
        !in.dims[static_cast<size_t>(a.v_arg)].empty())
        dv = in.dims[static_cast<size_t>(a.v_arg)].back();
    if (hq <= 0 || dqk <= 0 || hkv <= 0 || dv <= 0)
        return std::nullopt;
    const int e = torch_type_bytes(in.types[qa]);
    Cost c;
    c.family = "attention";
    c.dtype_text = in.types[qa];
    const double d = static_cast<double>(dqk + dv);
    c.flops = static_cast<double>(hq) * d *
              (2.0 * static_cast<double>(b.prefill_sqsk) - static_cast<double>(b.prefill_sqsq) +
               2.0 * static_cast<double>(b.decode_sqsk));
    const double sq = static_cast<double>(b.prefill_tokens + b.decode_tokens);
    const double sk = static_cast<double>(b.prefill_kv_tokens + b.decode_kv_tokens);
    c.bytes = (sq * static_cast<double>(hq) * d + sk * static_cast<double>(hkv) * d) * std::max(e, 1);
    c.shape = fmt_shape({{"Hq", hq}, {"Hkv", hkv}, {"Dqk", dqk}, {"Dv", dv}, {"c_sq", b.prefill_tokens},
                         {"c_sk", b.prefill_kv_tokens}, {"c_sqsq", b.prefill_sqsq}, {"c_sqsk", b.prefill_sqsk},
                         {"g_sq", b.decode_tokens}, {"g_sk", b.decode_kv_tokens}, {"g_sqsq", b.decode_sqsq},
                         {"g_sqsk", b.decode_sqsk}});
    return c;
}

// Serving-step annotations with their attention sums, by start: the annotation of a call is the first (earliest)
// of them that encloses the call (TraceLens's rule), or, for a kernel replayed from a graph whose CPU op lies
// elsewhere, the one that encloses its launch call.
class StepAnnotations {
public:
    StepAnnotations(const Trace& t, const StepGrammar& g)
    {
        std::vector<int32_t> cache(t.strings.size(), -2);
        for (size_t i = 0; i < t.ranges.size(); ++i) {
            if (t.ranges.kind[i] == RangeKind::CpuOp)
                continue;
            const StrId n = t.ranges.name[i];
            if (n >= cache.size())
                continue;
            if (cache[n] == -2) {
                auto b = g.parse(t.str(n));
                cache[n] = b && b->has_attention_sums() ? static_cast<int32_t>(batches_.size()) : -1;
                if (cache[n] >= 0)
                    batches_.push_back(std::move(*b));
            }
            if (cache[n] >= 0)
                rows_.push_back({t.ranges.start[i], t.ranges.end[i], cache[n]});
        }
        std::sort(rows_.begin(), rows_.end(), [](const Row& a, const Row& b) { return a.start < b.start; });
    }
    bool empty() const { return rows_.empty(); }
    // The earliest annotation enclosing [start, end], or null; the annotation text's index in `key`.
    const StepBatch* enclosing(int64_t start, int64_t end, int32_t* key) const
    {
        for (const Row& r : rows_) {
            if (r.start > start)
                break;
            if (r.end >= end) {
                if (key)
                    *key = r.batch;
                return &batches_[static_cast<size_t>(r.batch)];
            }
        }
        return nullptr;
    }

private:
    struct Row {
        int64_t start, end;
        int32_t batch;
    };
    std::vector<Row> rows_;
    std::vector<StepBatch> batches_;
};

std::optional<Cost> op_cost(std::string_view op, const OpInputs& in)
{
    if (is_gemm_op(op))
        return gemm_cost(op, in);
    if (causal_index(op) >= 0)
        return attention_cost(op, in);
    // First tensor argument and the largest tensor.
    size_t first = in.dims.size();
    int64_t largest = 0;
    double in_bytes = 0;
    for (size_t i = 0; i < in.dims.size(); ++i) {
        if (!in.is_tensor[i])
            continue;
        if (first == in.dims.size())
            first = i;
        largest = std::max(largest, numel(in.dims[i]));
        in_bytes += arg_bytes(in, i);
    }
    if (first == in.dims.size())
        return std::nullopt;
    Cost c;
    c.dtype_text = in.types[first];
    const int e = std::max(1, torch_type_bytes(in.types[first]));
    if (op == "aten::embedding" || op == "aten::index_select") {
        // embedding(weight [V, D], indices); index_select(self [V, D], dim, index [n]).
        const size_t idx = op == "aten::embedding" ? 1 : 2;
        if (in.dims[0].size() != 2 || idx >= in.dims.size() || !in.is_tensor[idx])
            return std::nullopt;
        const double rows = static_cast<double>(numel(in.dims[idx]));
        const double dim = static_cast<double>(in.dims[0][1]);
        c.family = "embedding";
        c.bytes = 2.0 * rows * dim * e + rows * std::max(1, torch_type_bytes(in.types[idx]));
        c.shape = fmt_shape({{"rows", static_cast<int64_t>(rows)}, {"D", static_cast<int64_t>(dim)},
                             {"V", in.dims[0][0]}});
        return c;
    }
    if (is_norm(op)) {
        c.family = "norm";
        const int64_t n = numel(in.dims[first]);
        c.flops = (op == "aten::rms_norm" || op == "aten::_fused_rms_norm" ? 4.0 : 5.0) * n;
        c.bytes = in_bytes + static_cast<double>(n) * e;    // x and weights read, y written
        c.shape = fmt_shape({{"elements", n}});
        return c;
    }
    if (is_elementwise(op)) {
        c.family = "elementwise";
        c.flops = static_cast<double>(largest);
        // Reductions write a small result; everything else writes one element per element of the larger operand.
        // In-place ops read and write their first argument; copy_, fill_ and zero_ only write it (its one count in
        // in_bytes is the write).
        const bool write_only = op == "aten::copy_" || op == "aten::fill_" || op == "aten::zero_";
        const bool inplace = op.back() == '_';
        const double out = is_reduction(op) || write_only ? 0.0
                           : inplace ? static_cast<double>(numel(in.dims[first])) * e
                                     : static_cast<double>(largest) * e;
        c.bytes = in_bytes + out;
        c.shape = fmt_shape({{"elements", largest}});
        return c;
    }
    return std::nullopt;
}


// ---- MoE: per expert GEMM, as TraceLens models it (PerfModel/extensions/moe_perf_model_extensions.py) ------------
//   E_active = E·(1 − ((E − k)/E)^M)          distinct experts M tokens touch with k experts each (uniform routing)
//   up   (gate+up when gated, g = 2):  FLOPs = 2·M·K·N·k·g      bytes = M·K·a + E_active·g·K·N·w + M·N·k·a
//   down:                              FLOPs = 2·M·N·K·k        bytes = M·N·k·a + E_active·N·K·w + M·K·a
//   fused (one kernel for both):       FLOPs = up + down + M·K·(2k − 1) (the weighted sum of the k outputs)
//                                      bytes = M·K·a + E_active·(g + 1)·K·N·w + M·K·a
// with M tokens, K hidden, N the expert width, a / w bytes per activation / weight element.
struct MoeShape {
    int64_t tokens = 0, hidden = 0, inter = 0, experts = 0, topk = 0;
    bool gated = false;
    double act_bytes = 2, weight_bytes = 2;
    std::string act_type, weight_dtype;     // "c10::BFloat16"; "fp4" | "fp8" | the act type
    bool inter_assumed = false;             // N not in the trace: taken equal to K (TraceLens's assumption)
};

double moe_active(const MoeShape& m)
{
    const double E = static_cast<double>(m.experts), k = static_cast<double>(m.topk);
    return E * (1.0 - std::pow((E - k) / E, static_cast<double>(m.tokens)));
}

std::string moe_shape_text(const MoeShape& m, const char* stage)
{
    std::string s = fmt_shape({{"tokens", m.tokens}, {"hidden", m.hidden}, {"inter", m.inter},
                               {"experts", m.experts}, {"topk", m.topk}});
    s += m.gated ? " gated" : "";
    s += std::string(" ") + stage;
    s += " w=" + m.weight_dtype;
    if (m.inter_assumed)
        s += " (inter = hidden assumed)";
    return s;
}

Cost moe_cost(const MoeShape& m, const std::string& stage)
{
    Cost c;
    c.family = "moe";
    const double M = static_cast<double>(m.tokens), K = static_cast<double>(m.hidden),
                 N = static_cast<double>(m.inter), k = static_cast<double>(m.topk), g = m.gated ? 2.0 : 1.0;
    const double act = moe_active(m), a = m.act_bytes, w = m.weight_bytes;
    if (stage == "up") {
        c.flops = 2 * M * K * N * k * g;
        c.bytes = M * K * a + act * g * K * N * w + M * N * k * a;
    } else if (stage == "down") {
        c.flops = 2 * M * N * K * k;
        c.bytes = M * N * k * a + act * N * K * w + M * K * a;
    } else {
        c.flops = 2 * M * K * N * k * g + 2 * M * N * K * k + M * K * (2 * k - 1);
        c.bytes = M * K * a + act * (g + 1) * K * N * w + M * K * a;
    }
    c.dtype_text = m.act_type;
    c.shape = moe_shape_text(m, stage.c_str());
    return c;
}

std::string lower_text(std::string_view s)
{
    std::string o(s);
    for (char& ch : o)
        ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return o;
}

// Weight element size from an expert-GEMM kernel's name (MXFP4 / FP8 kernels say so), else the activation's.
void weight_from_kernel(MoeShape& m, std::string_view kernel)
{
    const std::string n = lower_text(kernel);
    if (n.find("fp4") != std::string::npos) {
        m.weight_bytes = 0.5;
        m.weight_dtype = "fp4";
    } else if (n.find("fp8") != std::string::npos || n.find("e4m3") != std::string::npos) {
        m.weight_bytes = 1;
        m.weight_dtype = "fp8";
    }
}

bool is_expert_gemm_kernel(std::string_view name)
{
    const std::string n = lower_text(name);
    return n.find("matmul_ogs") != std::string::npos || n.find("fused_moe_kernel") != std::string::npos ||
           n.find("moe_gemm") != std::string::npos || n.find("ck_moe") != std::string::npos ||
           n.find("fmoe") != std::string::npos || n.find("grouped_gemm") != std::string::npos;
}

// (tokens, experts) -> k, from the router's top-k CPU ops: triton_kernels' TopK (k in Concrete Inputs[1]),
// aten::topk, and vLLM's topk_softmax (topk_weights [T, k] first, the gating logits [T, E] last).
std::map<std::pair<int64_t, int64_t>, int64_t> router_topk(const Trace& t)
{
    std::map<std::pair<int64_t, int64_t>, int64_t> out;
    const OpArgsTable& a = t.op_args;
    for (size_t i = 0; i < a.size(); ++i) {
        if (a.source[i] != OpArgsTable::kCpuOp || a.input_dims[i].empty())
            continue;
        const std::string_view n = t.str(a.name[i]);
        const bool topk = n == "TopK" || n == "aten::topk";
        const bool softmax = n.find("topk_softmax") != std::string_view::npos;
        if (!topk && !softmax)
            continue;
        OpInputs in;
        if (!parse_inputs(a.input_dims[i], a.input_types[i], a.concrete_inputs[i], in) || in.dims.empty())
            continue;
        if (topk && in.dims[0].size() == 2 && in.concrete.size() > 1) {
            char* end = nullptr;
            const long long k = std::strtoll(in.concrete[1].c_str(), &end, 10);
            if (end && *end == '\0' && k > 0)
                out[{in.dims[0][0], in.dims[0][1]}] = k;
        } else if (softmax && in.dims.size() >= 4 && in.dims[0].size() == 2 && in.dims.back().size() == 2) {
            out[{in.dims.back()[0], in.dims.back()[1]}] = in.dims[0][1];
        }
    }
    return out;
}

struct MoePart {
    Cost cost;
    std::string op;                     // "moe_up" | "moe_down" | "moe_fused"
    std::vector<uint32_t> kernels;
    MoeShape shape;
};

// The expert GEMMs of one MoE call, each a point of its own. Empty when the op is not an MoE op this models, or its
// shapes do not say enough (warning set).
std::vector<MoePart> moe_parts(const Trace& t, std::string_view op, const OpInputs& in,
                               const std::vector<uint32_t>& kernels,
                               const std::map<std::pair<int64_t, int64_t>, int64_t>& topk_of, std::string& why)
{
    std::vector<MoePart> out;
    std::vector<uint32_t> gemms;
    for (uint32_t k : kernels)
        if (is_expert_gemm_kernel(t.str(t.kernels.name[k])))
            gemms.push_back(k);
    std::sort(gemms.begin(), gemms.end(), [&](uint32_t x, uint32_t y) { return t.kernels.start[x] < t.kernels.start[y]; });
    if (gemms.empty())
        return out;
    MoeShape m;
    auto tensor2 = [&](size_t i) { return i < in.dims.size() && in.is_tensor[i] && in.dims[i].size() == 2; };
    auto tensor3 = [&](size_t i) { return i < in.dims.size() && in.is_tensor[i] && in.dims[i].size() == 3; };
    if (op == "vllm::moe_forward") {
        // (hidden_states [M, K], router_logits [M, E], ...): the expert width is not in the trace.
        if (!tensor2(0) || !tensor2(1)) {
            why = "vllm::moe_forward without 2-D hidden states and router logits";
            return out;
        }
        m.tokens = in.dims[0][0];
        m.hidden = in.dims[0][1];
        m.experts = in.dims[1][1];
        m.inter = m.hidden;
        m.inter_assumed = true;
        const auto it = topk_of.find({m.tokens, m.experts});
        if (it == topk_of.end()) {
            why = "no router top-k op for " + std::to_string(m.tokens) + " tokens over " + std::to_string(m.experts) +
                  " experts";
            return out;
        }
        m.topk = it->second;
    } else {
        // Fused-experts ops: (hidden_states [M, K], w1 [E, g·N, K'], w2 [E, K, N'], topk_weights [M, k], ...);
        // K' < K and N' < N when int4 weights are packed.
        if (!tensor2(0) || !tensor3(1) || !tensor3(2) || !tensor2(3)) {
            why = std::string(op) + " without (hidden states, w1, w2, top-k weights) shapes";
            return out;
        }
        m.tokens = in.dims[0][0];
        m.hidden = in.dims[0][1];
        m.experts = in.dims[1][0];
        const int64_t pack = in.dims[1][2] > 0 ? std::max<int64_t>(1, m.hidden / in.dims[1][2]) : 1;
        m.inter = in.dims[2][2] * pack;
        m.gated = in.dims[1][1] == 2 * m.inter;
        m.topk = in.dims[3][1];
        const int wb = torch_type_bytes(in.types[1]);
        if (wb > 0) {
            m.weight_bytes = static_cast<double>(wb) / static_cast<double>(pack);
            m.weight_dtype = pack > 1 ? "int4" : in.types[1];
        }
    }
    if (m.tokens <= 0 || m.hidden <= 0 || m.inter <= 0 || m.experts <= 0 || m.topk <= 0 || m.topk > m.experts) {
        why = std::string(op) + " with shapes that are not an MoE layer's";
        return out;
    }
    m.act_type = in.types[0];
    m.act_bytes = std::max(1, torch_type_bytes(in.types[0]));
    if (m.weight_dtype.empty()) {
        m.weight_bytes = m.act_bytes;
        m.weight_dtype = in.types[0];
    }
    weight_from_kernel(m, t.str(t.kernels.name[gemms.front()]));
    if (gemms.size() == 1) {
        MoePart p;
        p.op = "moe_fused";
        p.shape = m;
        p.cost = moe_cost(m, "fused");
        p.kernels = gemms;
        out.push_back(std::move(p));
        return out;
    }
    for (size_t i = 0; i < gemms.size(); ++i) {
        MoePart p;
        p.op = i == 0 ? "moe_up" : "moe_down";
        p.shape = m;
        const std::string name = lower_text(t.str(t.kernels.name[gemms[i]]));
        if (op == "vllm::moe_forward")   // the activation is fused into the up GEMM's name: _swiglu / _glu
            p.shape.gated = i == 0 && (name.find("_swiglu") != std::string::npos || name.find("_glu") != std::string::npos);
        else if (i > 0)
            p.shape.gated = false;
        weight_from_kernel(p.shape, name);
        p.cost = moe_cost(p.shape, i == 0 ? "up" : "down");
        p.kernels = {gemms[i]};
        out.push_back(std::move(p));
    }
    return out;
}

bool is_moe_op(std::string_view op)
{
    return op == "vllm::moe_forward" || op.find("fused_experts") != std::string_view::npos ||
           op.find("fused_moe") != std::string_view::npos;
}

} // namespace

bool is_gemm_op(std::string_view op)
{
    return op == "aten::mm" || op == "aten::addmm" || op == "aten::bmm" || op == "aten::baddbmm" ||
           op == "aten::linear" || op == "aten::matmul" || op == "aten::_scaled_mm";
}

std::optional<GemmDims> gemm_dims(std::string_view op, const std::string& input_dims)
{
    OpInputs in;
    if (!is_gemm_op(op) || !parse_inputs(input_dims, std::string(), std::string(), in))
        return std::nullopt;
    return gemm_dims_of(op, in);
}

int torch_type_bytes(std::string_view t)
{
    if (t == "c10::BFloat16" || t == "c10::Half" || t == "short int" || t == "short")
        return 2;
    if (t == "float" || t == "int" || t == "unsigned int")
        return 4;
    if (t == "double" || t == "long int" || t == "long" || t == "int64_t" || t == "c10::complex<float>")
        return 8;
    if (t == "bool" || t == "unsigned char" || t == "signed char" || t == "char" ||
        t.rfind("c10::Float8", 0) == 0 || t.rfind("c10::Float4", 0) == 0)
        return 1;
    return 0;
}

std::optional<Precision> torch_type_precision(std::string_view t)
{
    if (t == "c10::BFloat16") return Precision::BF16;
    if (t == "c10::Half") return Precision::FP16;
    if (t.rfind("c10::Float8", 0) == 0) return Precision::FP8;
    if (t == "float") return Precision::FP32;
    if (t == "signed char" || t == "char") return Precision::INT8;
    return std::nullopt;
}

ShapeRooflineResult shape_roofline(const Trace& trace, const GpuSpec* spec)
{
    ShapeRooflineResult r;
    const auto& a = trace.op_args;
    if (spec) {
        r.gpu = spec->name;
        if (spec->mem_bw_Bps > 0)
            r.mem_bw_Bps = spec->mem_bw_Bps;
    }
    for (size_t i = 0; i < a.size(); ++i)
        if (a.source[i] == OpArgsTable::kCpuOp && !a.input_dims[i].empty())
            ++r.ops_with_shapes;
    if (r.ops_with_shapes == 0)
        return r;
    // Kernels per call of a shaped CPU op, eager or replayed from a graph (KernelOps: one call per op row, and per
    // graph launch for replayed kernels).
    const KernelOps kops(trace);
    std::map<std::pair<int32_t, int32_t>, std::vector<uint32_t>> kernels_of_call;
    const auto& k = trace.kernels;
    for (size_t i = 0; i < k.size(); ++i) {
        const auto c = kops.call(i);
        if (c.first == kNoIndex || a.input_dims[static_cast<size_t>(c.first)].empty())
            continue;
        kernels_of_call[c].push_back(static_cast<uint32_t>(i));
        if (kops.replayed(i))
            ++r.kernels_from_capture;
    }
    const auto topk_of = router_topk(trace);
    struct Acc {
        ShapePoint p;
        double flops = 0, bytes = 0;
        std::map<StrId, int64_t> name_ns;
    };
    std::map<std::tuple<std::string, std::string, std::string>, Acc> acc;
    int64_t unparsable = 0, no_annotation = 0;
    std::map<std::string, int64_t> moe_unmodelled;
    // Serving frameworks' attention operators take their cost from the step annotation (loaded only when the trace
    // has such an operator).
    std::optional<StepGrammar> grammar;
    std::optional<StepAnnotations> annotations;
    // key_extra splits one (op, dims, types) into several points: per expert GEMM for MoE, per step batch and
    // kernel path for serving attention.
    auto add = [&](const std::string& op, const std::string& dims, const std::string& types, const Cost& cost,
                   const std::vector<uint32_t>& kern, const MoeShape* moe, const std::string& key_extra) {
        int64_t ns = 0;
        for (uint32_t ki : kern)
            ns += k.end[ki] - k.start[ki];
        auto& g = acc[{op, dims + (moe ? cost.shape : std::string()) + key_extra, types}];
        if (g.p.calls == 0) {
            g.p.op = op;
            g.p.family = cost.family;
            g.p.input_dims = dims;
            g.p.input_types = types;
            g.p.shape = cost.shape;
            const auto prec = torch_type_precision(cost.dtype_text);
            g.p.dtype = prec ? precision_name(*prec) : cost.dtype_text;
            g.p.flops_per_call = cost.flops;
            g.p.bytes_per_call = cost.bytes;
            if (moe) {
                g.p.moe_tokens = moe->tokens;
                g.p.moe_hidden = moe->hidden;
                g.p.moe_inter = moe->inter;
                g.p.moe_experts = moe->experts;
                g.p.moe_topk = moe->topk;
                g.p.moe_gated = moe->gated;
                g.p.moe_weight_dtype = moe->weight_dtype;
                g.p.moe_active_experts = moe_active(*moe);
            }
        }
        if (ns > 0) {
            const double t = cost.flops / static_cast<double>(ns) / 1e3;
            g.p.min_call_tflops = g.p.calls == 0 ? t : std::min(g.p.min_call_tflops, t);
            g.p.max_call_tflops = g.p.calls == 0 ? t : std::max(g.p.max_call_tflops, t);
        }
        g.p.calls += 1;
        g.p.kernels += static_cast<int64_t>(kern.size());
        g.p.kernel_ns += ns;
        g.flops += cost.flops;
        g.bytes += cost.bytes;
        for (uint32_t ki : kern) {
            g.name_ns[k.name[ki]] += k.end[ki] - k.start[ki];
            g.p.kernel_rows.push_back(ki);
        }
        r.calls_joined += 1;
        r.kernels_joined += static_cast<int64_t>(kern.size());
        r.kernel_ns_joined += ns;
    };
    for (const auto& [call, kern] : kernels_of_call) {
        const size_t row = static_cast<size_t>(call.first);
        OpInputs in;
        if (!parse_inputs(a.input_dims[row], a.input_types[row], a.concrete_inputs[row], in)) {
            ++unparsable;
            continue;
        }
        const std::string op(trace.str(a.name[row]));
        if (is_moe_op(op)) {
            std::string why;
            for (const MoePart& part : moe_parts(trace, op, in, kern, topk_of, why))
                add(part.op, a.input_dims[row], a.input_types[row], part.cost, part.kernels, &part.shape, std::string());
            if (!why.empty())
                moe_unmodelled[why] += 1;
            continue;
        }
        std::optional<Cost> cost;
        std::string key_extra;
        if (op.find("::") != std::string::npos && op.rfind("aten::", 0) != 0) {
            if (!grammar)
                grammar = StepGrammar::load();
            if (const StepGrammar::AttentionOp* ia = grammar->attention_op(op)) {
                if (!annotations)
                    annotations.emplace(trace, *grammar);
                int32_t key = -1;
                const StepBatch* b = annotations->enclosing(a.start[row], a.end[row], &key);
                if (!b && !kern.empty()) {
                    // A replayed graph kernel: its CPU op was recorded at capture; its launch lies in the step.
                    const int32_t la = k.launch_api[kern.front()];
                    if (la >= 0 && static_cast<size_t>(la) < trace.api.size())
                        b = annotations->enclosing(trace.api.start[static_cast<size_t>(la)],
                                                   trace.api.end[static_cast<size_t>(la)], &key);
                }
                if (!b) {
                    ++no_annotation;
                    continue;
                }
                cost = inference_attention_cost(*ia, in, *b);
                // One point per step batch and kernel path (a layer type served by other kernels is another row,
                // as in TraceLens's report).
                std::vector<StrId> names;
                for (uint32_t ki : kern)
                    names.push_back(k.name[ki]);
                std::sort(names.begin(), names.end());
                names.erase(std::unique(names.begin(), names.end()), names.end());
                key_extra += "|" + cost.value_or(Cost{}).shape;
                for (StrId n : names)
                    key_extra += "|" + std::to_string(n);
            }
        }
        if (!cost)
            cost = op_cost(op, in);
        if (!cost)
            continue;
        add(op, a.input_dims[row], a.input_types[row], *cost, kern, nullptr, key_extra);
    }
    for (const auto& [why, n] : moe_unmodelled)
        r.warnings.push_back("MoE: " + std::to_string(n) + " calls not modelled (" + why + ")");
    if (unparsable > 0)
        r.warnings.push_back(std::to_string(unparsable) + " CPU ops have \"Input Dims\" that are not a JSON list; skipped");
    if (no_annotation > 0)
        r.warnings.push_back(std::to_string(no_annotation) +
                             " serving attention calls lie in no step annotation with attention sums (vLLM "
                             "execute_…(sq…sk…sqsq…sqsk…), SGLang step[… c_sqsq=…]): their FLOPs are not modelled");
    for (auto& [key, g] : acc) {
        ShapePoint& p = g.p;
        std::sort(p.kernel_rows.begin(), p.kernel_rows.end());
        if (p.kernel_ns > 0) {
            p.tflops = g.flops / static_cast<double>(p.kernel_ns) / 1e3;
            p.tbps = g.bytes / static_cast<double>(p.kernel_ns) / 1e3;
        }
        p.intensity = g.bytes > 0 ? g.flops / g.bytes : 0;
        std::vector<std::pair<int64_t, StrId>> names;
        for (const auto& [id, ns] : g.name_ns)
            names.emplace_back(ns, id);
        std::sort(names.begin(), names.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
        for (const auto& [ns, id] : names)
            p.kernel_names.emplace_back(trace.str(id));
        // Roof: tensor-core peak of the dtype for GEMM / attention, fp32 for the rest.
        std::optional<double> peak;
        if (spec) {
            const auto prec = parse_precision(p.dtype);
            if (p.family == "gemm" || p.family == "attention" || p.family == "moe")
                peak = prec ? spec->peaks.get(*prec) : std::nullopt;
            else
                peak = spec->peaks.fp32;
        }
        const double bw = spec ? spec->mem_bw_Bps : 0;
        if (p.kernel_ns > 0 && bw > 0) {
            if (g.flops > 0 && peak && *peak > 0) {
                const double ridge = *peak / bw;
                p.bound = p.intensity >= ridge ? "compute" : "memory";
                const double roof = std::min(*peak, p.intensity * bw);
                p.pct_of_roof = 100.0 * (p.tflops * 1e12) / roof;
            } else if (g.flops == 0) {
                p.bound = "memory";
                p.pct_of_roof = 100.0 * (p.tbps * 1e12) / bw;
            }
        }
        // Above the roof is impossible: never shown as an efficiency, named as a data inconsistency instead.
        if (p.pct_of_roof && *p.pct_of_roof > 105.0) {
            p.roof_inconsistent = true;
            r.warnings.push_back("data consistency: " + p.op + " " + p.shape + " would reach " +
                                 std::to_string(static_cast<int>(*p.pct_of_roof)) + "% of the " + p.dtype +
                                 " roof of " + r.gpu + ": the GPU row (wrong GPU) or the dtype does not match the run");
            p.pct_of_roof.reset();
        }
        r.points.push_back(std::move(p));
    }
    std::stable_sort(r.points.begin(), r.points.end(),
                     [](const ShapePoint& x, const ShapePoint& y) { return x.kernel_ns > y.kernel_ns; });
    if (r.calls_joined == 0)
        r.warnings.push_back("the trace records input shapes, but no shaped CPU op could be joined to a kernel "
                             "(no launch carries an \"External id\")");
    return r;
}

} // namespace sl
