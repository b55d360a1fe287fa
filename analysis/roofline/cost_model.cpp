#include "analysis/roofline/cost_model.h"

#include "analysis/trace/errors.h"

#include <algorithm>
#include <cmath>

namespace sl {

const char* phase_name(Phase p)
{
    switch (p) {
    case Phase::Prefill: return "prefill";
    case Phase::Decode: return "decode";
    case Phase::Mixed: return "mixed";
    case Phase::Training: return "training";
    }
    return "";
}

std::optional<Phase> phase_from_name(std::string_view name)
{
    if (name == "prefill")
        return Phase::Prefill;
    if (name == "decode")
        return Phase::Decode;
    if (name == "mixed")
        return Phase::Mixed;
    if (name == "training")
        return Phase::Training;
    return std::nullopt;
}

std::string OpCost::bound() const
{
    if (!t_compute_ns || !t_memory_ns)
        return "unknown";
    if (t_floor_ns && *t_floor_ns > std::max(*t_compute_ns, *t_memory_ns))
        return "latency";
    return *t_compute_ns >= *t_memory_ns ? "compute" : "memory";
}

namespace {
bool all_by_option(const CostOptions& o)
{
    return o.shape_source == "option" && !o.batch_set && !o.prompt_set && !o.context_set;
}
} // namespace

bool CostOptions::batch_chosen() const { return batch_set || all_by_option(*this) || batch != CostOptions{}.batch; }
bool CostOptions::prompt_chosen() const { return prompt_set || all_by_option(*this) || prompt != CostOptions{}.prompt; }
bool CostOptions::context_chosen() const
{
    return context_set || all_by_option(*this) || context != CostOptions{}.context;
}

const PhaseCost* CostModelResult::phase(Phase p) const
{
    for (const auto& ph : phases)
        if (ph.phase == p)
            return &ph;
    return nullptr;
}

namespace {

// The experts a MoE layer touched per step in this phase as the trace ran them; 0 = not known.
double p_touched(const CostOptions& o, Phase p)
{
    const size_t i = static_cast<size_t>(p);
    return i < o.experts_touched.size() && p != Phase::Training ? o.experts_touched[i] : 0.0;
}

struct Dims {
    double b, q, T, Lkv, h, H, Hkv, d, I, V;
    double w, a, kv;
};

Dims dims(const ModelConfig& m, Phase phase, const CostOptions& o)
{
    Dims x{};
    x.b = static_cast<double>(o.batch);
    x.q = phase != Phase::Decode ? static_cast<double>(o.prompt) : 1.0;
    x.T = x.b * x.q;
    x.Lkv = phase != Phase::Decode ? static_cast<double>(o.prompt) : static_cast<double>(o.context);
    // The step annotations' shape of this phase, when given (a mixed phase always has one).
    if (const auto& sh = o.shape_of(phase); sh && sh->requests > 0) {
        x.b = sh->requests;
        x.T = sh->sq;
        x.q = sh->sq / sh->requests;
        x.Lkv = sh->sk / sh->requests;
    }
    x.h = static_cast<double>(m.hidden_size);
    x.H = static_cast<double>(m.num_heads);
    x.Hkv = static_cast<double>(m.num_kv_heads);
    x.d = static_cast<double>(m.head_dim);
    x.I = static_cast<double>(m.intermediate_size);
    x.V = static_cast<double>(m.vocab_size);
    const std::string base = m.torch_dtype.empty() ? std::string("bfloat16") : m.torch_dtype;
    // --weight-dtype, else quantization_config's storage size, else torch_dtype.
    x.w = !o.weight_dtype.empty() ? dtype_bytes(o.weight_dtype)
          : m.quant_weight_bytes > 0 ? m.quant_weight_bytes : dtype_bytes(base);
    x.a = dtype_bytes(o.act_dtype.empty() ? base : o.act_dtype);
    x.kv = o.kv_dtype.empty() ? x.a : dtype_bytes(o.kv_dtype);
    return x;
}

OpCost gemm(const char* name, double T, double in, double out, const Dims& x, const char* cls = "gemm",
            double weight_rows_factor = 1.0)
{
    OpCost c;
    c.name = name;
    c.op_class = cls;
    c.count = 1;
    c.flops = 2 * T * in * out;
    c.tensor_flops = c.flops;
    c.bytes = weight_rows_factor * in * out * x.w + T * in * x.a + T * out * x.a;
    c.weight_elems = weight_rows_factor * in * out;   // at x.w here; apply_weight_formats() sets the module's format
    return c;
}

OpCost vec(const char* name, const char* cls, double flops, double bytes)
{
    OpCost c;
    c.name = name;
    c.op_class = cls;
    c.count = 1;
    c.flops = flops;
    c.bytes = bytes;
    return c;
}

OpCost norm(const char* name, const ModelConfig& m, double T, const Dims& x)
{
    OpCost c = m.layer_norm ? vec(name, "norm", 7 * T * x.h, 2 * T * x.h * x.a + 2 * x.h * x.w)
                            : vec(name, "norm", 4 * T * x.h, 2 * T * x.h * x.a + x.h * x.w);
    c.weight_elems = (m.layer_norm ? 2 : 1) * x.h;
    return c;
}

// The names an operator's module has in transformers, in the given layer: the first is the one quantization_config
// patterns are usually written for (gpt-oss, Llama, Qwen), the others what other architectures call it (Mixtral's
// block_sparse_moe, Qwen-MoE's mlp.gate, per-expert modules).
std::vector<std::string> module_paths(const std::string& op, int64_t layer)
{
    const std::string L = "model.layers." + std::to_string(layer) + ".";
    if (op == "q_proj" || op == "k_proj" || op == "v_proj" || op == "o_proj")
        return {L + "self_attn." + op};
    if (op == "gate_proj" || op == "up_proj" || op == "down_proj")
        return {L + "mlp." + op};
    if (op == "router")
        return {L + "mlp.router", L + "mlp.gate", L + "block_sparse_moe.gate"};
    if (op.rfind("experts_", 0) == 0) {
        const std::string base = op.substr(8);   // gate_proj, up_proj, down_proj
        const std::string fused = base == "down_proj" ? "down_proj" : "gate_up_proj";
        const std::string w = base == "gate_proj" ? "w1" : base == "up_proj" ? "w3" : "w2";
        return {L + "mlp.experts." + fused, L + "mlp.experts.0." + base, L + "block_sparse_moe.experts.0." + w};
    }
    if (op.rfind("shared_", 0) == 0) {
        const std::string base = op.substr(7);
        return {L + "mlp.shared_expert." + base, L + "mlp.shared_experts." + base};
    }
    if (op == "lm_head")
        return {"lm_head"};
    return {};
}

// Each operator's weights at its module's storage format (the operators were costed at x.w per weight element):
// --weight-dtype for every weight when given; else torch_dtype for norms and the embedding, and
// ModelConfig::weight_format for linear modules (quantization_config per module).
void apply_weight_formats(std::vector<OpCost>& ops, const ModelConfig& m, const CostOptions& o, int64_t layer,
                          const Dims& x)
{
    for (auto& c : ops) {
        if (c.weight_elems <= 0)
            continue;
        WeightFormat f;
        if (!o.weight_dtype.empty()) {
            f.dtype = o.weight_dtype;
            f.bytes = dtype_bytes(o.weight_dtype);
        } else if (c.op_class == "norm" || c.op_class == "embedding") {
            f = m.base_weight_format();
        } else {
            f = m.weight_format(module_paths(c.name, layer));
        }
        c.bytes += c.weight_elems * (f.bytes - x.w);
        c.weight_bytes = c.weight_elems * f.bytes;
        c.weight_dtype = f.dtype;
    }
}

void mlp(std::vector<OpCost>& ops, const ModelConfig& m, double T, double width, const Dims& x, const char* prefix,
         double weight_factor = 1.0, const char* gemm_class = "gemm")
{
    auto nm = [&](const char* base) { return std::string(prefix) + base; };
    auto g = [&](const std::string& n, double in, double out) {
        OpCost c = gemm("", T, in, out, x, gemm_class, weight_factor);
        c.name = n;
        ops.push_back(c);
    };
    if (m.gated_mlp) {
        g(nm("gate_proj"), x.h, width);
        g(nm("up_proj"), x.h, width);
        OpCost act = vec("", "activation", 5 * T * width, 3 * T * width * x.a);
        act.name = nm("act_mul");
        ops.push_back(act);
    } else {
        g(nm("up_proj"), x.h, width);
        OpCost act = vec("", "activation", 5 * T * width, 2 * T * width * x.a);
        act.name = nm("act");
        ops.push_back(act);
    }
    g(nm("down_proj"), width, x.h);
}

} // namespace

std::vector<OpCost> layer_costs(const ModelConfig& m, Phase phase, const CostOptions& o, int64_t layer)
{
    const Dims x = dims(m, phase, o);
    std::vector<OpCost> ops;
    const double T = x.T;
    ops.push_back(norm("attn_norm", m, T, x));
    ops.push_back(gemm("q_proj", T, x.h, x.H * x.d, x));
    ops.push_back(gemm("k_proj", T, x.h, x.Hkv * x.d, x));
    ops.push_back(gemm("v_proj", T, x.h, x.Hkv * x.d, x));
    if (m.model_type != "gpt2") {
        const double e = T * (x.H + x.Hkv) * x.d;
        ops.push_back(vec("rotary", "rotary", 3 * e, 2 * e * x.a));
    }
    {
        const double e = T * x.Hkv * x.d;
        ops.push_back(vec("kv_cache_write", "kv_cache", 0, 2 * e * x.a + 2 * e * x.kv));
    }
    // A sliding window W (ModelConfig::attention_window) caps what one query attends to: a decode step reads and
    // scores min(Lkv, W) KV tokens; a causal prefill of s tokens scores Σ_i min(i + 1, W) pairs per head, and reads
    // every K/V of the prompt once.
    const double W = static_cast<double>(m.window_of(layer));
    const double Lkv_read = phase == Phase::Decode && W > 0 ? std::min(x.Lkv, W) : x.Lkv;
    const double kv_once = x.b * Lkv_read * x.Hkv * x.d * x.kv;   // one of K or V, read once
    const double q_bytes = x.b * x.q * x.H * x.d * x.a;           // Q (or O)
    if (o.fused_attention) {
        double pairs = 0;
        double reread = 1;
        if (phase != Phase::Decode) {
            const double s = x.q;
            const double causal = W > 0 && s > W ? W * (W + 1) / 2 + (s - W) * W : s * (s + 1) / 2;
            pairs = o.causal_skip ? x.b * x.H * causal : x.b * x.H * s * s;
            if (o.fa_q_tile > 0) {
                const double n = std::ceil(s / static_cast<double>(o.fa_q_tile));
                reread = o.causal_skip ? (n + 1) / 2 : n;
            }
        } else {
            pairs = x.b * x.H * Lkv_read;
        }
        // Paged / chunked attention from the annotation's sums (q = Σq/b, Lkv = Σk/b already give the bytes). With a
        // window no query scores more than W keys: at most H·Σq·W pairs (the sums do not say which sequences are
        // longer than W, so this is a bound, exact when every KV length is past the window).
        // A mixed step's sums hold its decode sequences too (q = 1: k − ½ pairs each, their decode cost to ½ a pair).
        if (const auto& sh = o.shape_of(phase); sh && sh->requests > 0) {
            pairs = phase != Phase::Decode ? x.H * std::max(0.0, sh->sqsk - sh->sqsq / 2) : x.H * sh->sqsk;
            if (W > 0)
                pairs = std::min(pairs, x.H * sh->sq * W);
            reread = 1;
        }
        OpCost att = vec("attention", "attention", 4 * x.d * pairs + 5 * pairs, 2 * q_bytes + 2 * kv_once * reread);
        att.tensor_flops = 4 * x.d * pairs;
        ops.push_back(att);
    } else {
        const double scores = x.b * x.H * x.q * Lkv_read;   // a decode step scores only its window
        OpCost qk = vec("qk_matmul", "gemm", 2 * x.d * scores, q_bytes + kv_once + scores * x.a);
        qk.tensor_flops = qk.flops;
        ops.push_back(qk);
        ops.push_back(vec("softmax", "reduction", 5 * scores, 2 * scores * x.a));
        OpCost sv = vec("sv_matmul", "gemm", 2 * x.d * scores, scores * x.a + kv_once + q_bytes);
        sv.tensor_flops = sv.flops;
        ops.push_back(sv);
    }
    ops.push_back(gemm("o_proj", T, x.H * x.d, x.h, x));
    ops.push_back(vec("attn_add", "elementwise", T * x.h, 3 * T * x.h * x.a));
    ops.push_back(norm("mlp_norm", m, T, x));
    const bool moe = m.is_moe() && layer >= 0 && layer < static_cast<int64_t>(m.moe_layer.size()) &&
                     m.moe_layer[static_cast<size_t>(layer)];
    if (moe) {
        const double E = static_cast<double>(m.num_experts);
        const double k = static_cast<double>(m.experts_per_token);
        const double known = p_touched(o, phase);
        const double touched = known > 0 ? std::min(E, known) : E * (1 - std::pow(1 - k / E, T));
        ops.push_back(gemm("router", T, x.h, E, x, "moe_routing"));
        // Experts: Tk routed rows; weights of `touched` experts are read.
        mlp(ops, m, T * k, static_cast<double>(m.moe_intermediate_size), x, "experts_", touched, "moe_gemm");
        if (m.shared_expert_intermediate > 0)
            mlp(ops, m, T, static_cast<double>(m.shared_expert_intermediate), x, "shared_");
    } else {
        mlp(ops, m, T, x.I, x, "");
    }
    ops.push_back(vec("mlp_add", "elementwise", T * x.h, 3 * T * x.h * x.a));
    apply_weight_formats(ops, m, o, layer, x);
    return ops;
}

std::vector<OpCost> model_level_costs(const ModelConfig& m, Phase phase, const CostOptions& o)
{
    const Dims x = dims(m, phase, o);
    std::vector<OpCost> ops;
    ops.push_back(vec("embedding", "embedding", 0, x.T * x.h * x.w + x.T * x.h * x.a));
    ops.back().weight_elems = x.T * x.h;   // the rows looked up
    ops.push_back(norm("final_norm", m, x.T, x));
    // Training computes the loss on every token's logits.
    const double rows = phase == Phase::Decode ? x.b : (o.prefill_all_logits || phase == Phase::Training ? x.T : x.b);
    ops.push_back(gemm("lm_head", rows, x.h, x.V, x));
    apply_weight_formats(ops, m, o, -1, x);
    return ops;
}

void apply_times(OpCost& op, const CostModelResult& r)
{
    const double vec_flops = op.flops - op.tensor_flops;
    op.t_compute_ns.reset();
    op.t_memory_ns.reset();
    op.t_theory_ns.reset();
    op.t_floor_ns.reset();
    bool compute_known = true;
    double tc = 0;
    if (op.tensor_flops > 0) {
        if (r.gemm_peak)
            tc += op.tensor_flops / *r.gemm_peak * 1e9;
        else
            compute_known = false;
    }
    if (vec_flops > 0) {
        if (r.vector_peak)
            tc += vec_flops / *r.vector_peak * 1e9;
        else
            compute_known = false;
    }
    if (compute_known)
        op.t_compute_ns = tc;
    if (r.bandwidth > 0)
        op.t_memory_ns = op.bytes / r.bandwidth * 1e9;
    if (r.gpu.min_kernel_ns > 0 && op.count > 0)
        op.t_floor_ns = static_cast<double>(op.count) * r.gpu.min_kernel_ns;
    if (op.t_compute_ns && op.t_memory_ns)
        op.t_theory_ns = std::max(std::max(*op.t_compute_ns, *op.t_memory_ns) * r.options.kappa,
                                  op.t_floor_ns.value_or(0.0));
}

namespace {

// A training iteration's loss and optimizer (appended after the model's forward + backward operators): the
// cross-entropy over every token's logits (log-softmax and its gradient, 2·T·V elements read and written each way),
// and AdamW over every parameter P: read the parameter, its gradient and the two moments, write the parameter and
// the moments (7·P·w bytes, the moments in the parameters' dtype as torch.optim keeps them), ≈ 15 FLOPs each, in
// one fused (foreach) pass.
void add_training_tail(PhaseCost& pc, const ModelConfig& m, const CostOptions& o, const CostModelResult& r)
{
    const Dims x = dims(m, Phase::Training, o);
    const double logits = x.T * x.V;
    OpCost loss = vec("loss", "reduction", 2 * 5 * logits, 2 * 2 * logits * x.a);
    loss.count = 2;
    // Every parameter (ModelConfig::parameter_count: embeddings, layers, final norm, lm_head unless tied); each
    // rank updates its 1/tp share.
    const double params = static_cast<double>(m.parameter_count()) / static_cast<double>(std::max<int64_t>(1, o.tp));
    OpCost opt = vec("optimizer", "elementwise", 15 * params, 7 * params * x.w);
    for (OpCost* c : {&loss, &opt}) {
        apply_times(*c, r);
        pc.ops.push_back(*c);
    }
}

} // namespace

CostModelResult estimate_costs(const ModelConfig& m, const GpuSpec& gpu, const CostOptions& o)
{
    if (o.batch <= 0)
        throw TraceError("--batch", "", "a positive batch size", std::to_string(o.batch));
    if (o.prompt <= 0)
        throw TraceError("--prompt", "", "a positive prompt length", std::to_string(o.prompt));
    if (o.context <= 0)
        throw TraceError("--context", "", "a positive context length", std::to_string(o.context));
    if (o.tp < 1)
        throw TraceError("--tp", "", "a tensor-parallel degree of 1 or more", std::to_string(o.tp));
    if (!(o.kappa > 0))
        throw TraceError("--kappa", "", "a positive loss factor", std::to_string(o.kappa));
    if (!(o.bw_efficiency > 0 && o.bw_efficiency <= 1))
        throw TraceError("--bw-efficiency", "", "a fraction in (0, 1]", std::to_string(o.bw_efficiency));
    for (const auto& [opt, v] : {std::pair<const char*, std::string>{"--weight-dtype", o.weight_dtype},
                                 {"--act-dtype", o.act_dtype}, {"--kv-dtype", o.kv_dtype}})
        if (!v.empty() && dtype_bytes(v) == 0)
            throw TraceError(opt, "", "a dtype (fp32, bf16, fp16, fp8, int8, int4)", v);

    CostModelResult r;
    r.gpu = gpu;
    r.options = o;
    const Dims x = dims(m, Phase::Decode, o);
    r.weight_bytes = x.w;
    r.act_bytes = x.a;
    r.kv_bytes = x.kv;

    // GEMM precision from the activation dtype (and the weights for 8-bit paths).
    const std::string base = m.torch_dtype.empty() ? std::string("bfloat16") : m.torch_dtype;
    std::string act = o.act_dtype.empty() ? base : o.act_dtype;
    for (auto& c : act)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (x.a >= 4)
        r.gemm_precision = o.allow_tf32 ? Precision::TF32 : Precision::FP32;
    else if (x.a == 2)
        r.gemm_precision = act.find("bf") != std::string::npos ? Precision::BF16 : Precision::FP16;
    else if (x.w <= 1)
        r.gemm_precision = act.find("int") != std::string::npos ? Precision::INT8 : Precision::FP8;
    else
        r.gemm_precision = Precision::BF16;   // 8-bit activations with wide weights compute in 16 bits
    r.gemm_peak = gpu.peaks.get(r.gemm_precision);
    r.vector_peak = gpu.peaks.fp32;
    r.bandwidth = gpu.mem_bw_Bps * o.bw_efficiency;
    if (!r.gemm_peak)
        r.warnings.push_back(std::string("GPU '") + gpu.name + "' has no " + precision_name(r.gemm_precision) +
                             " peak: compute-side times are unknown");
    if (!r.vector_peak)
        r.warnings.push_back("GPU '" + gpu.name + "' has no FP32 peak: element-wise compute times are unknown");
    if (r.bandwidth <= 0)
        r.warnings.push_back("GPU '" + gpu.name + "' has no memory bandwidth: memory-side times are unknown");
    if (x.w < 1)
        r.warnings.push_back("sub-byte weights: GEMMs assumed to dequantise to the activation precision");

    const std::vector<Phase> costed = o.training ? std::vector<Phase>{Phase::Training}
                                                 : std::vector<Phase>{Phase::Prefill, Phase::Decode, Phase::Mixed};
    for (Phase p : costed) {
        if (p == Phase::Mixed && !(o.mixed_shape && o.mixed_shape->requests > 0))
            continue;   // no mixed step to cost
        PhaseCost pc;
        pc.phase = p;
        const Dims px = dims(m, p, o);
        pc.batch = static_cast<int64_t>(std::llround(px.b));
        pc.query_len = static_cast<int64_t>(std::llround(px.q));
        pc.kv_len = static_cast<int64_t>(std::llround(px.Lkv));
        pc.tokens = static_cast<int64_t>(std::llround(px.T));
        if (m.is_moe() && m.experts_per_token > 0) {
            const double E = static_cast<double>(m.num_experts), k = static_cast<double>(m.experts_per_token);
            const double known = p_touched(o, p);
            pc.experts_touched = known > 0 ? std::min(E, known) : E * (1 - std::pow(1 - k / E, px.T));
            pc.experts_from = known > 0 ? "trace" : "uniform routing";
        }
        if (const auto& sh = o.shape_of(p); sh && sh->requests > 0) {
            pc.shape_source = sh->source.empty() ? "annotation" : sh->source;
            auto field = [&](const std::string& f) { return f.empty() ? pc.shape_source : f; };
            pc.batch_from = field(sh->batch_from);
            pc.query_from = field(sh->query_from);
            pc.kv_from = field(sh->kv_from);
            pc.shape_evidence = sh->evidence;
        } else {
            // The options alone: a field the caller chose is "option", the rest the defaults.
            auto from = [](bool chosen) { return std::string(chosen ? "option" : "default"); };
            pc.batch_from = from(o.batch_chosen());
            pc.kv_from = p != Phase::Decode ? from(o.prompt_chosen()) : from(o.context_chosen());
            pc.shape_source = pc.batch_from == "option" || pc.kv_from == "option" ? "option" : "default";
            // The query length is the prompt's in prefill, and one token in decode whatever the rest says.
            pc.query_from = p != Phase::Decode ? pc.kv_from : pc.shape_source;
        }
        auto add = [&](const OpCost& c) {
            auto it = std::find_if(pc.ops.begin(), pc.ops.end(), [&](const OpCost& e) { return e.name == c.name; });
            OpCost timed = c;
            if (p == Phase::Training) {
                // Forward and backward: the backward is ≈ 2× the forward (a GEMM's input gradient dX = dY·Wᵀ and
                // weight gradient dW = Xᵀ·dY each cost its forward; an elementwise op's gradient reads and writes
                // about twice its bytes), each in kernels of its own.
                timed.count *= 3;
                timed.flops *= 3;
                timed.tensor_flops *= 3;
                timed.bytes *= 3;
            }
            if (o.tp > 1 && timed.op_class != "norm" && timed.op_class != "elementwise" &&
                timed.op_class != "embedding" && timed.name != "router") {
                const double f = 1.0 / static_cast<double>(o.tp);
                timed.flops *= f;
                timed.tensor_flops *= f;
                timed.bytes *= f;
                timed.weight_elems *= f;
                timed.weight_bytes *= f;
            }
            apply_times(timed, r);
            if (it == pc.ops.end()) {
                pc.ops.push_back(timed);
                return;
            }
            it->count += timed.count;
            it->flops += timed.flops;
            it->tensor_flops += timed.tensor_flops;
            it->bytes += timed.bytes;
            it->weight_elems += timed.weight_elems;
            it->weight_bytes += timed.weight_bytes;
            if (!timed.weight_dtype.empty() && ("+" + it->weight_dtype + "+").find("+" + timed.weight_dtype + "+") ==
                                                   std::string::npos)
                it->weight_dtype += (it->weight_dtype.empty() ? "" : "+") + timed.weight_dtype;
            auto sum = [](std::optional<double>& a, const std::optional<double>& b) {
                if (a && b)
                    *a += *b;
                else
                    a.reset();
            };
            sum(it->t_compute_ns, timed.t_compute_ns);
            sum(it->t_memory_ns, timed.t_memory_ns);
            sum(it->t_theory_ns, timed.t_theory_ns);
            sum(it->t_floor_ns, timed.t_floor_ns);
        };
        const auto model_ops = model_level_costs(m, p, o);
        add(model_ops[0]);   // embedding first, in execution order
        for (int64_t l = 0; l < m.num_layers; ++l)
            for (const auto& c : layer_costs(m, p, o, l))
                add(c);
        add(model_ops[1]);
        add(model_ops[2]);
        if (p == Phase::Training)
            add_training_tail(pc, m, o, r);
        pc.t_theory_ns = 0.0;
        for (const auto& c : pc.ops) {
            pc.flops += c.flops;
            pc.bytes += c.bytes;
            if (c.t_theory_ns && pc.t_theory_ns)
                *pc.t_theory_ns += *c.t_theory_ns;
            else
                pc.t_theory_ns.reset();
        }
        r.phases.push_back(std::move(pc));
    }
    return r;
}

double calibrate_kappa(const std::vector<std::pair<double, double>>& theory_actual_ns)
{
    std::vector<double> ratios;
    for (const auto& [t, a] : theory_actual_ns)
        if (t > 0 && a > 0)
            ratios.push_back(a / t);
    if (ratios.empty())
        return 1.0;
    std::sort(ratios.begin(), ratios.end());
    const size_t n = ratios.size();
    return n % 2 ? ratios[n / 2] : (ratios[n / 2 - 1] + ratios[n / 2]) / 2;
}

} // namespace sl
