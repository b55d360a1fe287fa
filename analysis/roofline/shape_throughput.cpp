#include "analysis/roofline/shape_throughput.h"

#include <nlohmann/json.hpp>

#include "analysis/timeline/step_grammar.h"

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
    const auto dj = nlohmann::json::parse(dims_text, nullptr, false);
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
    const auto tj = nlohmann::json::parse(types_text.empty() ? std::string("[]") : types_text, nullptr, false);
    if (tj.is_array())
        for (const auto& t : tj)
            out.types.push_back(t.is_string() ? t.get<std::string>() : std::string());
    const auto cj = nlohmann::json::parse(concrete_text.empty() ? std::string("[]") : concrete_text, nullptr, false);
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

bool is_gemm(std::string_view op)
{
    return op == "aten::mm" || op == "aten::addmm" || op == "aten::bmm" || op == "aten::baddbmm" ||
           op == "aten::linear" || op == "aten::matmul" || op == "aten::_scaled_mm";
}

int causal_index(std::string_view op)
{
    if (op == "aten::scaled_dot_product_attention") return 5;
    if (op == "aten::_scaled_dot_product_flash_attention") return 4;
    if (op == "aten::_scaled_dot_product_efficient_attention") return 6;
    if (op == "aten::_scaled_dot_product_cudnn_attention") return 6;
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

std::optional<Cost> gemm_cost(std::string_view op, const OpInputs& in)
{
    Cost c;
    c.family = "gemm";
    auto t = [&](size_t i) { return i < in.dims.size() && in.is_tensor[i]; };
    int64_t batch = 1, m = 0, n = 0, k = 0;
    size_t a = 0, b = 1;
    double extra = 0;
    if (op == "aten::mm" || op == "aten::_scaled_mm") {
        if (!t(0) || !t(1) || in.dims[0].size() != 2 || in.dims[1].size() != 2)
            return std::nullopt;
        m = in.dims[0][0]; k = in.dims[0][1]; n = in.dims[1][1];
    } else if (op == "aten::addmm") {
        if (!t(1) || !t(2) || in.dims[1].size() != 2 || in.dims[2].size() != 2)
            return std::nullopt;
        a = 1; b = 2;
        m = in.dims[1][0]; k = in.dims[1][1]; n = in.dims[2][1];
        extra = arg_bytes(in, 0);
    } else if (op == "aten::bmm" || op == "aten::baddbmm") {
        a = op == "aten::bmm" ? 0 : 1;
        b = a + 1;
        if (!t(a) || !t(b) || in.dims[a].size() != 3 || in.dims[b].size() != 3)
            return std::nullopt;
        batch = in.dims[a][0]; m = in.dims[a][1]; k = in.dims[a][2]; n = in.dims[b][2];
        if (a == 1)
            extra = arg_bytes(in, 0);
    } else if (op == "aten::linear") {
        if (!t(0) || !t(1) || in.dims[1].size() != 2 || in.dims[0].empty())
            return std::nullopt;
        const Dims& x = in.dims[0];
        m = numel(Dims(x.begin(), x.end() - 1)); k = x.back(); n = in.dims[1][0];
        extra = arg_bytes(in, 2);
    } else if (op == "aten::matmul") {
        if (!t(0) || !t(1) || in.dims[0].size() < 2 || in.dims[1].size() < 2)
            return std::nullopt;
        const Dims& x = in.dims[0];
        const Dims& y = in.dims[1];
        k = x.back(); n = y.back();
        if (y.size() == 2) {
            m = numel(Dims(x.begin(), x.end() - 1));
        } else {
            m = x[x.size() - 2];
            batch = numel(Dims(x.begin(), x.end() - 2));
        }
    } else {
        return std::nullopt;
    }
    const int ea = torch_type_bytes(in.types[a]), eb = torch_type_bytes(in.types[b]);
    // Output: the input's element size, except fp8 _scaled_mm, whose result is bf16 unless the trace says otherwise.
    const int eo = op == "aten::_scaled_mm" ? 2 : std::max(ea, 1);
    c.flops = 2.0 * batch * m * n * k;
    c.bytes = static_cast<double>(batch) * (m * k * ea + k * n * eb + m * n * eo) + extra;
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
    if (is_gemm(op))
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

struct Key3 {
    int32_t rank;
    int64_t pid, id;
    bool operator==(const Key3& o) const { return rank == o.rank && pid == o.pid && id == o.id; }
};
struct Key3Hash {
    size_t operator()(const Key3& k) const
    {
        return std::hash<int64_t>()((k.id * 0x9E3779B97F4A7C15ull) ^ (static_cast<uint64_t>(k.pid) << 7) ^
                                    static_cast<uint64_t>(k.rank));
    }
};

} // namespace

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
    std::unordered_map<Key3, size_t, Key3Hash> op_of_ext, ext_of_launch;
    for (size_t i = 0; i < a.size(); ++i) {
        if (a.source[i] == OpArgsTable::kCpuOp && !a.input_dims[i].empty()) {
            ++r.ops_with_shapes;
            if (a.external_id[i] != 0)
                op_of_ext[{a.rank[i], a.pid[i], a.external_id[i]}] = i;   // a later (inner) duplicate wins
        } else if (a.source[i] == OpArgsTable::kLaunch) {
            ext_of_launch[{a.rank[i], a.pid[i], static_cast<int64_t>(a.correlation[i])}] = i;
        }
    }
    if (r.ops_with_shapes == 0)
        return r;
    // Kernels per shaped CPU op.
    std::unordered_map<size_t, std::vector<uint32_t>> kernels_of_op;
    const auto& k = trace.kernels;
    for (size_t i = 0; i < k.size(); ++i) {
        if (k.correlation[i] == 0)
            continue;
        const int32_t rank = k.device[i] < trace.meta.devices.size() ? trace.meta.devices[k.device[i]].rank : 0;
        const int64_t pid = k.process[i] < trace.meta.processes.size() ? trace.meta.processes[k.process[i]].pid : 0;
        auto l = ext_of_launch.find({rank, pid, static_cast<int64_t>(k.correlation[i])});
        if (l == ext_of_launch.end())
            continue;
        auto o = op_of_ext.find({rank, pid, a.external_id[l->second]});
        if (o == op_of_ext.end())
            continue;
        kernels_of_op[o->second].push_back(static_cast<uint32_t>(i));
    }
    struct Acc {
        ShapePoint p;
        double flops = 0, bytes = 0;
        std::map<StrId, int64_t> name_ns;
    };
    std::map<std::tuple<std::string, std::string, std::string>, Acc> acc;
    int64_t unparsable = 0, no_annotation = 0;
    // Serving frameworks' attention operators take their cost from the step annotation (loaded only when the trace
    // has such an operator).
    std::optional<StepGrammar> grammar;
    std::optional<StepAnnotations> annotations;
    for (const auto& [row, kern] : kernels_of_op) {
        OpInputs in;
        if (!parse_inputs(a.input_dims[row], a.input_types[row], a.concrete_inputs[row], in)) {
            ++unparsable;
            continue;
        }
        const std::string op(trace.str(a.name[row]));
        std::optional<Cost> cost;
        std::string group = a.input_dims[row];
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
                group += "|" + cost.value_or(Cost{}).shape;
                for (StrId n : names)
                    group += "|" + std::to_string(n);
            }
        }
        if (!cost)
            cost = op_cost(op, in);
        if (!cost)
            continue;
        int64_t ns = 0;
        for (uint32_t ki : kern)
            ns += k.end[ki] - k.start[ki];
        auto& g = acc[{op, group, a.input_types[row]}];
        if (g.p.calls == 0) {
            g.p.op = op;
            g.p.family = cost->family;
            g.p.input_dims = a.input_dims[row];
            g.p.input_types = a.input_types[row];
            g.p.shape = cost->shape;
            const auto prec = torch_type_precision(cost->dtype_text);
            g.p.dtype = prec ? precision_name(*prec) : cost->dtype_text;
            g.p.flops_per_call = cost->flops;
            g.p.bytes_per_call = cost->bytes;
        }
        if (ns > 0) {
            const double t = cost->flops / static_cast<double>(ns) / 1e3;
            g.p.min_call_tflops = g.p.calls == 0 ? t : std::min(g.p.min_call_tflops, t);
            g.p.max_call_tflops = g.p.calls == 0 ? t : std::max(g.p.max_call_tflops, t);
        }
        g.p.calls += 1;
        g.p.kernels += static_cast<int64_t>(kern.size());
        g.p.kernel_ns += ns;
        g.flops += cost->flops;
        g.bytes += cost->bytes;
        for (uint32_t ki : kern) {
            g.name_ns[k.name[ki]] += k.end[ki] - k.start[ki];
            g.p.kernel_rows.push_back(ki);
        }
        r.calls_joined += 1;
        r.kernels_joined += static_cast<int64_t>(kern.size());
        r.kernel_ns_joined += ns;
    }
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
            if (p.family == "gemm" || p.family == "attention")
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
