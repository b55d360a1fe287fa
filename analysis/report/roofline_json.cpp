#include "analysis/report/roofline_json.h"

#include "analysis/trace/errors.h"
#include "analysis/roofline/gpu_specs.h"
#include "analysis/roofline/trace_shapes.h"
#include "analysis/io/ncu_metrics.h"
#include "analysis/trace/trace.h"
#include "analysis/timeline/collectives.h"
#include "analysis/timeline/phases.h"
#include "analysis/timeline/workload.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace sl {

using nlohmann::json;

namespace {

json opt(const std::optional<double>& v)
{
    if (!v || !std::isfinite(*v))
        return nullptr;
    return *v;
}

json positive(double v) { return v > 0 ? json(v) : json(nullptr); }

// E_roof as an efficiency only when it is physically possible (<= kMaxPlausibleERoof); above it the value moves to
// "e_roof_inconsistent" and "e_roof" is null, so nothing reads it as an efficiency.
// Every such object also carries "consistency_warning": the likely causes (`why`, e.g. the class's), else a generic
// sentence naming them.
void put_e_roof(json& j, const std::optional<double>& v, const std::string& why = {})
{
    const bool bad = v && *v > kMaxPlausibleERoof;
    j["e_roof"] = v && !bad ? json(*v) : json(nullptr);
    if (bad) {
        j["e_roof_inconsistent"] = *v;
        j["consistency_warning"] =
            !why.empty() ? why
                         : std::string("E_roof above the roof is impossible: check the weight/KV dtype (quantization_config, "
                                       "--weight-dtype, --kv-dtype), tensor parallelism (--tp), the shape (--batch/"
                                       "--prompt/--context) and the GPU (--gpu); see roofline.warnings");
    }
}

std::string fmt_num(double v)
{
    char buf[64];
    const double a = std::fabs(v);
    if (a >= 1e12)
        std::snprintf(buf, sizeof buf, "%.2fT", v / 1e12);
    else if (a >= 1e9)
        std::snprintf(buf, sizeof buf, "%.2fG", v / 1e9);
    else if (a >= 1e6)
        std::snprintf(buf, sizeof buf, "%.2fM", v / 1e6);
    else if (a >= 1e3)
        std::snprintf(buf, sizeof buf, "%.2fK", v / 1e3);
    else
        std::snprintf(buf, sizeof buf, "%.0f", v);
    return buf;
}

std::string fmt_ns(const std::optional<double>& v)
{
    if (!v)
        return "-";
    char buf[64];
    if (*v >= 1e6)
        std::snprintf(buf, sizeof buf, "%.3f ms", *v / 1e6);
    else if (*v >= 1e3)
        std::snprintf(buf, sizeof buf, "%.2f us", *v / 1e3);
    else
        std::snprintf(buf, sizeof buf, "%.1f ns", *v);
    return buf;
}

std::string fmt_opt(const std::optional<double>& v, const char* f = "%.2f")
{
    if (!v)
        return "-";
    char buf[64];
    std::snprintf(buf, sizeof buf, f, *v);
    return buf;
}

const ClassEfficiency* find_class(const RooflineReport& r, const std::string& cls, const std::string& phase)
{
    for (const auto& c : r.classes)
        if (c.op_class == cls && c.phase == phase)
            return &c;
    return nullptr;
}

} // namespace

json roofline_to_json(const RooflineReport& r, const ModelConfig& model, const GpuResolution* res)
{
    const CostModelResult& c = r.cost;
    json g;
    g["name"] = c.gpu.name;
    g["known"] = res ? res->known : !c.gpu.from_trace;
    g["how"] = res ? res->how : std::string();
    g["vendor"] = c.gpu.vendor;
    g["arch"] = c.gpu.arch;
    g["compute_capability"] = c.gpu.compute_capability;
    g["sm_count"] = c.gpu.sm_count > 0 ? json(c.gpu.sm_count) : json(nullptr);
    g["boost_clock_hz"] = positive(c.gpu.boost_clock_hz);
    g["mem_bw_Bps"] = positive(c.gpu.mem_bw_Bps);
    g["mem_bytes"] = positive(c.gpu.mem_bytes);
    g["l2_bytes"] = positive(c.gpu.l2_bytes);
    g["source"] = c.gpu.source;
    g["uncertain_fields"] = c.gpu.uncertain_fields;
    g["from_trace"] = c.gpu.from_trace;
    g["identified_by"] = res && !res->identified_by.empty() ? json(res->identified_by) : json(nullptr);
    g["evidence"] = res ? json(res->evidence) : json::array();
    g["warp_size"] = c.gpu.expected_warp_size();
    g["min_kernel_ns"] = positive(c.gpu.min_kernel_ns);
    g["min_kernel_source"] = c.gpu.min_kernel_ns > 0 ? json(c.gpu.min_kernel_source) : json(nullptr);
    g["min_kernel_assumed"] = c.gpu.min_kernel_assumed;
    {
        // The vendor's measured (achievable) peaks, where a source gives them; the roofs above stay the datasheet's.
        json a = json::object();
        for (Precision pr : {Precision::FP32, Precision::TF32, Precision::FP16, Precision::BF16, Precision::FP8,
                             Precision::INT8})
            if (const auto v = c.gpu.achievable.get(pr))
                a[precision_name(pr)] = *v;
        if (c.gpu.achievable_mem_bw_Bps > 0)
            a["memory_bw_Bps"] = c.gpu.achievable_mem_bw_Bps;
        g["achievable"] = c.gpu.achievable_source.empty() ? json(nullptr) : json{{"peaks", a}, {"source", c.gpu.achievable_source}};
    }

    json p;
    for (Precision pr : {Precision::FP32, Precision::TF32, Precision::FP16, Precision::BF16, Precision::FP16_FP16ACC,
                         Precision::FP8, Precision::INT8}) {
        std::optional<double> v;
        switch (pr) {
        case Precision::FP32: v = c.gpu.peaks.fp32; break;
        case Precision::TF32: v = c.gpu.peaks.tf32; break;
        case Precision::FP16: v = c.gpu.peaks.fp16; break;
        case Precision::BF16: v = c.gpu.peaks.bf16; break;
        case Precision::FP16_FP16ACC: v = c.gpu.peaks.fp16_fp16acc; break;
        case Precision::FP8: v = c.gpu.peaks.fp8; break;
        case Precision::INT8: v = c.gpu.peaks.int8; break;
        }
        p[precision_name(pr)] = opt(v);
    }
    p["memory_bw_Bps"] = positive(c.bandwidth);
    p["gemm_precision"] = precision_name(c.gemm_precision);
    p["gemm_flops"] = opt(c.gemm_peak);
    p["vector_flops"] = opt(c.vector_peak);
    p["ridge_flop_per_byte"] = c.gemm_peak && c.bandwidth > 0 ? json(*c.gemm_peak / c.bandwidth) : json(nullptr);

    json ops = json::array(), phases = json::array();
    for (const auto& ph : c.phases) {
        const std::string pn = phase_name(ph.phase);
        double actual_sum = 0;
        bool any_actual = false;
        for (const auto& cl : r.classes)
            if (cl.phase == pn && cl.t_actual_ns) {
                actual_sum += *cl.t_actual_ns;
                any_actual = true;
            }
        for (const auto& o : ph.ops) {
            json j;
            j["name"] = o.name;
            j["phase"] = pn;
            j["class"] = o.op_class;
            j["count"] = o.count;
            j["flops"] = o.flops;
            j["tensor_flops"] = o.tensor_flops;
            j["bytes"] = o.bytes;
            j["weight_dtype"] = o.weight_dtype.empty() ? json(nullptr) : json(o.weight_dtype);
            j["weight_bytes"] = o.weight_dtype.empty() ? json(nullptr) : json(o.weight_bytes);
            j["intensity"] = o.bytes > 0 ? json(o.intensity()) : json(nullptr);
            j["bound"] = o.bound();
            j["t_compute_ns"] = opt(o.t_compute_ns);
            j["t_memory_ns"] = opt(o.t_memory_ns);
            j["t_theory_ns"] = opt(o.t_theory_ns);
            j["t_floor_ns"] = opt(o.t_floor_ns);
            j["shape_source"] = ph.shape_source;
            const auto act = r.operator_actual_ns(o.name, ph.phase);
            j["t_actual_ns"] = opt(act);
            std::string why;   // the causes named for the operator's class in this phase, when it is inconsistent too
            for (const auto& cl : r.classes)
                if (cl.op_class == o.op_class && cl.phase == pn && cl.e_roof_inconsistent)
                    why = cl.inconsistency;
            put_e_roof(j, act && o.t_theory_ns && *act > 0 ? std::optional<double>(*o.t_theory_ns / *act)
                                                            : std::nullopt,
                       why);
            ops.push_back(j);
        }
        json pj;
        pj["phase"] = pn;
        pj["batch"] = ph.batch;
        pj["query_len"] = ph.query_len;
        pj["kv_len"] = ph.kv_len;
        pj["tokens"] = ph.tokens;
        pj["shape_source"] = ph.shape_source;
        pj["shape_fields"] = {{"batch", ph.batch_from}, {"query_len", ph.query_from}, {"kv_len", ph.kv_from}};
        pj["shape_evidence"] = ph.shape_evidence.empty() ? json(nullptr) : json(ph.shape_evidence);
        if (!ph.experts_from.empty()) {
            pj["experts_touched"] = ph.experts_touched;
            pj["experts_touched_from"] = ph.experts_from;
        }
        pj["flops"] = ph.flops;
        pj["bytes"] = ph.bytes;
        pj["intensity"] = ph.bytes > 0 ? json(ph.flops / ph.bytes) : json(nullptr);
        pj["t_theory_ns"] = opt(ph.t_theory_ns);
        pj["t_actual_ns"] = any_actual ? json(actual_sum) : json(nullptr);
        put_e_roof(pj, any_actual && ph.t_theory_ns && actual_sum > 0
                           ? std::optional<double>(*ph.t_theory_ns / actual_sum) : std::nullopt);
        phases.push_back(pj);
    }
    json classes = json::array();
    for (const auto& cl : r.classes) {
        json j;
        j["class"] = cl.op_class;
        j["phase"] = cl.phase;
        j["operators"] = cl.operators;
        j["flops"] = cl.flops;
        j["bytes"] = cl.bytes;
        j["t_theory_ns"] = opt(cl.t_theory_ns);
        j["t_actual_ns"] = opt(cl.t_actual_ns);
        j["measured_total_ns"] = cl.measured_total_ns;
        j["e_roof"] = opt(cl.e_roof);
        {
            // Where the workload behind this class's theory came from (its phase's shape).
            const PhaseCost* pc = c.phase(phase_from_name(cl.phase).value_or(Phase::Decode));
            j["shape_source"] = pc ? json(pc->shape_source) : json(nullptr);
        }
        if (cl.e_roof_inconsistent) {
            j["e_roof_inconsistent"] = *cl.e_roof_inconsistent;
            j["consistency_warning"] = cl.inconsistency;
        }
        if (!cl.chain.empty()) {   // an unfused elementwise chain, compared as one (roofline.h)
            j["chain"] = cl.chain;
            j["chain_t_theory_ns"] = opt(cl.chain_theory_ns);
            j["chain_t_actual_ns"] = opt(cl.chain_actual_ns);
            j["class_e_roof"] = opt(cl.class_e_roof);
        }
        classes.push_back(j);
    }
    json focus = json::array();
    for (const auto& f : r.focus) {
        json j;
        j["class"] = f.op_class;
        j["phase"] = f.phase;
        j["measured_total_ns"] = f.measured_total_ns;
        j["e_roof"] = opt(f.e_roof);
        json reasons = json::array();
        if (f.top_k)
            reasons.push_back("top_k");
        if (f.low_efficiency)
            reasons.push_back("low_e_roof");
        j["reasons"] = reasons;
        if (const auto* cl = find_class(r, f.op_class, f.phase))
            j["operators"] = cl->operators;
        focus.push_back(j);
    }
    json m;
    m["source"] = model.source;
    m["model_type"] = model.model_type;
    m["hidden_size"] = model.hidden_size;
    m["num_attention_heads"] = model.num_heads;
    m["num_key_value_heads"] = model.num_kv_heads;
    m["head_dim"] = model.head_dim;
    m["intermediate_size"] = model.intermediate_size;
    m["num_hidden_layers"] = model.num_layers;
    m["vocab_size"] = model.vocab_size;
    m["torch_dtype"] = model.torch_dtype;
    m["tie_word_embeddings"] = model.tie_word_embeddings;
    m["num_experts"] = model.num_experts;
    m["experts_per_token"] = model.experts_per_token;
    m["parameters"] = model.parameter_count();
    m["notes"] = model.notes;
    m["quant_method"] = model.quant_method;
    m["quant_weight_bytes"] = model.quant_weight_bytes > 0 ? json(model.quant_weight_bytes) : json(nullptr);
    if (!model.quant_method.empty() && model.quant_format.bytes > 0) {
        json per = json::array();
        for (const auto& mf : model.quant_modules)
            per.push_back({{"pattern", mf.pattern}, {"dtype", mf.format.dtype}, {"bytes", mf.format.bytes},
                           {"group_size", mf.format.group_size}});
        m["quantization"] = {{"method", model.quant_method},
                             {"default_format",
                              {{"dtype", model.quant_format.dtype},
                               {"bytes", model.quant_format.bytes},
                               {"group_size", model.quant_format.group_size},
                               {"note", model.quant_format.note}}},
                             {"per_module", per},
                             {"not_converted", model.quant_skip},
                             {"lm_head_quantized", model.quant_lm_head}};
    } else {
        m["quantization"] = nullptr;
    }

    const CostOptions& o = c.options;
    json oj;
    oj["batch"] = o.batch;
    oj["prompt"] = o.prompt;
    oj["context"] = o.context;
    oj["shape_source"] = o.shape_source;
    oj["weight_bytes"] = c.weight_bytes;
    oj["act_bytes"] = c.act_bytes;
    oj["kv_bytes"] = c.kv_bytes;
    oj["fused_attention"] = o.fused_attention;
    oj["causal_skip"] = o.causal_skip;
    oj["fa_q_tile"] = o.fa_q_tile;
    oj["prefill_all_logits"] = o.prefill_all_logits;
    oj["kappa"] = o.kappa;
    oj["bw_efficiency"] = o.bw_efficiency;
    oj["tp"] = o.tp;
    oj["tp_source"] = o.tp_source;

    json out;
    out["gpu"] = g;
    out["peaks"] = p;
    out["kappa"] = o.kappa;
    out["model"] = m;
    out["options"] = oj;
    out["thresholds"] = {{"top_k", r.options.top_k}, {"tau", r.options.tau}};
    out["measured"] = r.measured;
    out["operators"] = ops;
    out["phases"] = phases;
    out["classes"] = classes;
    out["focus"] = focus;
    const ConfigShapeCheck& cs = r.config_shapes;
    out["config_shapes"] = {{"verdict", cs.verdict},
                            {"reason", cs.reason},
                            {"gemm_calls", cs.gemm_calls},
                            {"matched_fraction", cs.gemm_calls > 0 ? json(cs.matched_fraction) : json()},
                            {"lm_head_calls", cs.lm_head_calls},
                            {"layers_from_shapes", cs.lm_head_calls > 0 ? json(cs.layers_from_shapes) : json()},
                            {"config_layers", cs.config_layers}};
    json w = r.warnings;
    if (res)
        for (const auto& x : res->warnings)
            w.push_back(x);
    out["warnings"] = w;
    return out;
}

json ncu_to_json(const NcuReport& ncu, const std::vector<int64_t>* trace_kernel)
{
    json launches = json::array();
    for (size_t i = 0; i < ncu.launches.size(); ++i) {
        const NcuLaunch& l = ncu.launches[i];
        const NcuLaunchMetrics m = compute_ncu_metrics(l);
        json j;
        j["id"] = l.id;
        j["name"] = l.name;
        if (trace_kernel)
            j["trace_kernel"] = i < trace_kernel->size() && (*trace_kernel)[i] >= 0 ? json((*trace_kernel)[i])
                                                                                   : json(nullptr);
        j["block"] = l.block;
        j["grid"] = l.grid;
        j["device"] = l.device;
        j["cc"] = l.cc;
        j["duration_ns"] = opt(m.duration_ns);
        j["duration_derived"] = m.duration_derived;
        j["sm_clock_hz"] = opt(m.sm_clock_hz);
        j["dram_bytes"] = opt(m.dram_bytes);
        j["flops"] = {{"fp64", opt(m.flops_fp64)}, {"fp32", opt(m.flops_fp32)}, {"fp16", opt(m.flops_fp16)},
                      {"tensor", opt(m.flops_tensor)}};
        j["tensor_instructions"] = opt(m.tensor_instructions);
        j["achieved_flops_per_s"] = opt(m.achieved_flops_per_s);
        j["intensity"] = opt(m.intensity);
        j["sm_throughput_pct"] = opt(m.sm_throughput_pct);
        j["memory_throughput_pct"] = opt(m.memory_throughput_pct);
        j["dram_throughput_pct"] = opt(m.dram_throughput_pct);
        j["l1_throughput_pct"] = opt(m.l1_throughput_pct);
        j["l2_throughput_pct"] = opt(m.l2_throughput_pct);
        j["achieved_occupancy_pct"] = opt(m.achieved_occupancy_pct);
        j["theoretical_occupancy_pct"] = opt(m.theoretical_occupancy_pct);
        j["l1_hit_rate_pct"] = opt(m.l1_hit_rate_pct);
        j["l2_hit_rate_pct"] = opt(m.l2_hit_rate_pct);
        j["tensor_pipe_pct"] = opt(m.tensor_pipe_pct);
        json st = json::array();
        for (const auto& s : m.top_stalls)
            st.push_back({{"reason", s.reason}, {"value", s.value}});
        j["top_stalls"] = st;
        j["shared_bank_conflicts"] = opt(m.shared_bank_conflicts);
        j["shared_wavefronts"] = opt(m.shared_wavefronts);
        j["registers_per_thread"] = opt(m.registers_per_thread);
        j["waves_per_sm"] = opt(m.waves_per_sm);
        json rules = json::array();
        for (const auto& ru : l.rules)
            rules.push_back({{"section", ru.section}, {"name", ru.name}, {"type", ru.type},
                             {"description", ru.description}, {"speedup_type", ru.speedup_type},
                             {"speedup_pct", opt(ru.speedup_pct)}});
        j["rules"] = rules;
        j["missing"] = m.missing;
        launches.push_back(j);
    }
    json out;
    out["source"] = ncu.source_path;
    out["format"] = ncu.format;
    out["decimal_separator"] = std::string(1, ncu.decimal_separator);
    out["warnings"] = ncu.warnings;
    out["launches"] = launches;
    return out;
}

json ncu_match_to_json(const NcuTraceMatch& m)
{
    json w = json::array();
    for (const WorkloadWarning& x : m.warnings)
        w.push_back({{"code", x.code}, {"message", x.message}, {"args", x.args}});
    return {{"launches", m.launches},
            {"joined", m.joined},
            {"unmatched_names", m.unmatched_names},
            {"kernel_mismatch", m.kernel_mismatch},
            {"ncu_device", m.ncu_device},
            {"trace_device", m.trace_device},
            {"ncu_sm_count", m.ncu_sm_count ? json(*m.ncu_sm_count) : json(nullptr)},
            {"trace_sm_count", m.trace_sm_count ? json(*m.trace_sm_count) : json(nullptr)},
            {"device_mismatch", m.device_mismatch},
            {"device_evidence", m.device_evidence},
            {"warnings", std::move(w)}};
}

std::string roofline_to_text(const RooflineReport& r, const ModelConfig& model, const GpuResolution* res)
{
    const CostModelResult& c = r.cost;
    std::string out;
    char buf[512];
    out += "Roofline: " + (model.architecture.empty() ? model.model_type : model.architecture) + " (" +
           std::to_string(model.num_layers) + " layers, h=" + std::to_string(model.hidden_size) + ", heads " +
           std::to_string(model.num_heads) + "/" + std::to_string(model.num_kv_heads) + " kv, d=" +
           std::to_string(model.head_dim) + ") on " + c.gpu.name + "\n";
    if (res) {
        out += "GPU: " + res->how + "\n";
        if (res->identified_by == "properties")
            for (const auto& e : res->evidence)
                out += "  evidence: " + e + "\n";
    }
    if (!c.gpu.achievable_source.empty()) {
        std::string a;
        for (Precision pr : {Precision::FP16, Precision::BF16, Precision::FP8})
            if (const auto v = c.gpu.achievable.get(pr))
                a += (a.empty() ? "" : ", ") + std::string(precision_name(pr)) + " " + fmt_num(*v) + " FLOP/s";
        if (c.gpu.achievable_mem_bw_Bps > 0)
            a += (a.empty() ? "" : ", ") + std::string("memory ") + fmt_num(c.gpu.achievable_mem_bw_Bps) + " B/s";
        out += "Achievable (measured by the vendor, not the roofs used): " + a + " (" + c.gpu.achievable_source + ")\n";
    }
    std::snprintf(buf, sizeof buf, "Peaks: %s %s FLOP/s (GEMM), fp32 %s FLOP/s, memory %s B/s; kappa %.2f\n",
                  precision_name(c.gemm_precision), c.gemm_peak ? fmt_num(*c.gemm_peak).c_str() : "unknown",
                  c.vector_peak ? fmt_num(*c.vector_peak).c_str() : "unknown",
                  c.bandwidth > 0 ? fmt_num(c.bandwidth).c_str() : "unknown", c.options.kappa);
    out += buf;
    if (c.gpu.min_kernel_ns > 0)
        out += "Time floor: " + fmt_ns(c.gpu.min_kernel_ns) + " per kernel each operator needs (" +
               (c.gpu.min_kernel_assumed ? std::string("assumed: no measurement for this GPU, the database default")
                                         : std::string("the shortest kernel measured on this GPU")) +
               "; see gpu.min_kernel_source)\n";
    if (c.options.tp > 1 || c.options.tp_source == "trace")
        out += "Tensor parallelism: " + std::to_string(c.options.tp) + " (" +
               (c.options.tp_source == "trace" ? std::string("from the trace's NCCL group size")
                                               : std::string("--tp")) +
               "): theory is one rank's share\n";
    if (r.config_shapes.gemm_calls > 0)
        out += "Config vs the trace's GEMM shapes: " + r.config_shapes.verdict + " (" + r.config_shapes.reason + ")\n";
    for (const auto& ph : c.phases) {
        if (ph.phase == Phase::Training)
            std::snprintf(buf, sizeof buf,
                          "\ntraining: batch %lld, %lld tokens/seq, per iteration: forward, backward (2x), loss and "
                          "optimizer (shape: %s)\n",
                          static_cast<long long>(ph.batch), static_cast<long long>(ph.query_len),
                          ph.shape_source.c_str());
        else if (ph.phase == Phase::Mixed)   // prefill chunks and decode tokens in one pass: the step's sums
            std::snprintf(buf, sizeof buf,
                          "\nmixed: %lld requests, %lld tokens in one pass, mean KV length %lld (shape: %s)\n",
                          static_cast<long long>(ph.batch), static_cast<long long>(ph.tokens),
                          static_cast<long long>(ph.kv_len), ph.shape_source.c_str());
        else
            std::snprintf(buf, sizeof buf, "\n%s: batch %lld, %lld query tokens/seq, KV length %lld (shape: %s)\n",
                          phase_name(ph.phase), static_cast<long long>(ph.batch),
                          static_cast<long long>(ph.query_len), static_cast<long long>(ph.kv_len),
                          ph.shape_source.c_str());
        out += buf;
        if (!ph.experts_from.empty()) {
            std::snprintf(buf, sizeof buf, "  MoE: %.2f routed experts read per layer and pass (%s)\n",
                          ph.experts_touched, ph.experts_from == "trace" ? "the trace's expert calls per step"
                                                                          : "uniform routing expected");
            out += buf;
        }
        std::snprintf(buf, sizeof buf, "  %-20s %-12s %-9s %10s %10s %9s %-8s %12s %12s %7s\n", "operator", "class",
                      "weights", "FLOPs", "bytes", "FLOP/B", "bound", "T_theory", "T_actual", "E_roof");
        out += buf;
        for (const auto& o : ph.ops) {
            const auto act = r.operator_actual_ns(o.name, ph.phase);
            std::optional<double> e;
            bool above_roof = false;   // not an efficiency (roofline.h kMaxPlausibleERoof): marked, never printed
            if (act && o.t_theory_ns && *act > 0) {
                e = *o.t_theory_ns / *act;
                if (*e > kMaxPlausibleERoof) {
                    above_roof = true;
                    e.reset();
                }
            }
            std::snprintf(buf, sizeof buf, "  %-20s %-12s %-9s %10s %10s %9.2f %-8s %12s %12s %7s\n", o.name.c_str(),
                          o.op_class.c_str(), o.weight_dtype.empty() ? "-" : o.weight_dtype.c_str(),
                          fmt_num(o.flops).c_str(), fmt_num(o.bytes).c_str(), o.intensity(),
                          o.bound().c_str(), fmt_ns(o.t_theory_ns).c_str(), fmt_ns(act).c_str(),
                          (above_roof ? std::string("(!)") : fmt_opt(e)).c_str());
            out += buf;
        }
        std::snprintf(buf, sizeof buf, "  %-20s %-12s %-9s %10s %10s %9.2f %-8s %12s\n", "total", "", "",
                      fmt_num(ph.flops).c_str(), fmt_num(ph.bytes).c_str(), ph.bytes > 0 ? ph.flops / ph.bytes : 0.0,
                      "", fmt_ns(ph.t_theory_ns).c_str());
        out += buf;
    }
    if (r.measured) {
        out += "\nMeasured per operator class (per pass):\n";
        std::snprintf(buf, sizeof buf, "  %-8s %-14s %12s %12s %7s  %s\n", "phase", "class", "T_theory", "T_actual",
                      "E_roof", "shape");
        out += buf;
        for (const auto& cl : r.classes) {
            if (!cl.t_actual_ns)
                continue;
            const PhaseCost* pc = c.phase(phase_from_name(cl.phase).value_or(Phase::Decode));
            std::snprintf(buf, sizeof buf, "  %-8s %-14s %12s %12s %7s  %s\n", cl.phase.c_str(), cl.op_class.c_str(),
                          fmt_ns(cl.t_theory_ns).c_str(), fmt_ns(cl.t_actual_ns).c_str(), fmt_opt(cl.e_roof).c_str(),
                          pc ? pc->shape_source.c_str() : "-");
            out += buf;
        }
        std::snprintf(buf, sizeof buf, "\nFocus: the %d operators that take the most time, and any with E_roof below %.2f:\n", r.options.top_k, r.options.tau);
        out += buf;
        for (const auto& f : r.focus) {
            std::snprintf(buf, sizeof buf, "  %-8s %-14s %12s  E_roof %s%s%s\n", f.phase.c_str(), f.op_class.c_str(),
                          fmt_ns(static_cast<double>(f.measured_total_ns)).c_str(), fmt_opt(f.e_roof).c_str(),
                          f.top_k ? "  [most time]" : "", f.low_efficiency ? "  [low efficiency]" : "");
            out += buf;
        }
    }
    std::vector<std::string> w = r.warnings;
    if (res)
        w.insert(w.end(), res->warnings.begin(), res->warnings.end());
    for (const auto& n : model.notes)
        w.push_back(n);
    if (!w.empty()) {
        out += "\nNotes:\n";
        for (const auto& x : w)
            out += "  - " + x + "\n";
    }
    return out;
}

std::string ncu_to_text(const NcuReport& ncu)
{
    std::string out = "Nsight Compute: " + ncu.source_path + " (" + ncu.format + "), " +
                      std::to_string(ncu.launches.size()) + " launches\n";
    char buf[512];
    for (const auto& l : ncu.launches) {
        const NcuLaunchMetrics m = compute_ncu_metrics(l);
        std::string name = l.name.size() > 90 ? l.name.substr(0, 87) + "..." : l.name;
        out += "\n[" + std::to_string(l.id) + "] " + name + "\n";
        std::snprintf(buf, sizeof buf,
                      "  duration %s%s  DRAM %s B  FLOPs fp32 %s fp16 %s fp64 %s tensor %s  intensity %s FLOP/B\n",
                      fmt_ns(m.duration_ns).c_str(), m.duration_derived ? " (cycles/clock)" : "",
                      m.dram_bytes ? fmt_num(*m.dram_bytes).c_str() : "-",
                      m.flops_fp32 ? fmt_num(*m.flops_fp32).c_str() : "-",
                      m.flops_fp16 ? fmt_num(*m.flops_fp16).c_str() : "-",
                      m.flops_fp64 ? fmt_num(*m.flops_fp64).c_str() : "-",
                      m.flops_tensor ? fmt_num(*m.flops_tensor).c_str() : "-", fmt_opt(m.intensity).c_str());
        out += buf;
        std::snprintf(buf, sizeof buf,
                      "  SM %s%%  memory %s%%  DRAM %s%%  occupancy %s%% of %s%%  L1 hit %s%%  L2 hit %s%%  tensor "
                      "pipe %s%%\n",
                      fmt_opt(m.sm_throughput_pct).c_str(), fmt_opt(m.memory_throughput_pct).c_str(),
                      fmt_opt(m.dram_throughput_pct).c_str(), fmt_opt(m.achieved_occupancy_pct).c_str(),
                      fmt_opt(m.theoretical_occupancy_pct).c_str(), fmt_opt(m.l1_hit_rate_pct).c_str(),
                      fmt_opt(m.l2_hit_rate_pct).c_str(), fmt_opt(m.tensor_pipe_pct).c_str());
        out += buf;
        if (!m.top_stalls.empty()) {
            out += "  stalls:";
            for (const auto& s : m.top_stalls) {
                std::snprintf(buf, sizeof buf, " %s %.2f", s.reason.c_str(), s.value);
                out += buf;
            }
            out += "\n";
        }
        for (const auto& ru : l.rules) {
            std::string d = ru.description.size() > 160 ? ru.description.substr(0, 157) + "..." : ru.description;
            out += "  " + ru.type + " " + (ru.name.empty() ? ru.section : ru.name);
            if (ru.speedup_pct) {
                std::snprintf(buf, sizeof buf, " (est. %s speedup %.1f%%)",
                              ru.speedup_type.empty() ? "global" : ru.speedup_type.c_str(), *ru.speedup_pct);
                out += buf;
            }
            out += ": " + d + "\n";
        }
    }
    for (const auto& w : ncu.warnings)
        out += "note: " + w + "\n";
    return out;
}

std::string shapes_from_steps(const PhaseResult& phases, CostOptions& o)
{
    // Per phase: the mean batch over its pure steps (prefill-only steps for prefill, decode-only for decode: the
    // steps whose kernel time the Roofline measures), from annotations that state the sums; and the mean mixed step
    // (prefill chunks and decode tokens in one pass), whose sums are its two sides' added.
    std::string note;
    for (const Phase ph : {Phase::Prefill, Phase::Decode, Phase::Mixed}) {
        StepShape sh;
        int64_t n = 0;
        std::string format;
        for (const StepInfo& s : phases.steps) {
            const StepBatch& b = s.batch;
            if (!b.has_attention_sums())
                continue;
            const bool take = ph == Phase::Prefill ? s.kind == StepKind::PrefillOnly
                              : ph == Phase::Decode ? s.kind == StepKind::DecodeOnly
                                                    : s.mixed;
            if (!take)
                continue;
            const bool pre = ph != Phase::Decode, dec = ph != Phase::Prefill;
            auto side = [](bool on, int64_t v) { return on && v > 0 ? double(v) : 0.0; };
            const double req = side(pre, b.prefill_requests) + side(dec, b.decode_requests);
            if (req <= 0)
                continue;
            sh.requests += req;
            sh.sq += side(pre, b.prefill_tokens) + side(dec, b.decode_tokens);
            sh.sk += side(pre, b.prefill_kv_tokens) + side(dec, b.decode_kv_tokens);
            sh.sqsq += side(pre, b.prefill_sqsq) + side(dec, b.decode_sqsq);
            sh.sqsk += side(pre, b.prefill_sqsk) + side(dec, b.decode_sqsk);
            format = b.format;
            ++n;
        }
        if (n == 0 || sh.sq <= 0)
            continue;
        for (double* v : {&sh.requests, &sh.sq, &sh.sk, &sh.sqsq, &sh.sqsk})
            *v /= double(n);
        sh.source = sh.batch_from = sh.query_from = sh.kv_from = "annotation";
        if (ph != Phase::Mixed)
            o.shape_source = "annotation";
        char buf[360];
        std::snprintf(buf, sizeof buf,
                      "%s shape from %lld step annotation%s (%s): %.4g requests, %.6g query tokens, %.6g KV tokens "
                      "per pass (attention from their sums Σq² %.6g, Σq·k %.6g)%s",
                      phase_name(ph), static_cast<long long>(n), n == 1 ? "" : "s", format.c_str(), sh.requests,
                      sh.sq, sh.sk, sh.sqsq, sh.sqsk,
                      ph == Phase::Mixed ? "; prefill chunks and decode tokens in one pass, judged as one"
                                         : "; pass --batch/--prompt/--context to use another");
        sh.evidence = buf;
        (ph == Phase::Prefill ? o.prefill_shape : ph == Phase::Decode ? o.decode_shape : o.mixed_shape) = sh;
        note += (note.empty() ? "" : "; ") + std::string(buf);
    }
    return note;
}

namespace {

std::string shape_num(double v)
{
    char b[32];
    if (std::fabs(v - std::round(v)) < 0.05)
        std::snprintf(b, sizeof b, "%.0f", v);
    else
        std::snprintf(b, sizeof b, "%.1f", v);
    return b;
}

// What a phase's run says of its shape: the step annotations' sums, else the trace's recorded shapes.
struct RunShape {
    StepShape shape;
    double batch = 0, query = 0, kv = 0;        // per sequence (kv 0: not known)
    double batch_lo = 0, batch_hi = 0, query_lo = 0, query_hi = 0, kv_lo = 0, kv_hi = 0;
    std::string said_by;                        // "the decode steps' annotations", "the trace's recorded shapes (…)"
};

// A phase whose shape rests on a default, said as such.
std::string default_shape_note(const PhaseCost& ph)
{
    std::string fields;
    if (ph.batch_from == "default")
        fields = "batch " + std::to_string(ph.batch);
    if (ph.kv_from == "default")
        fields += (fields.empty() ? "" : " and ") +
                  (ph.phase == Phase::Prefill ? "prompt " + std::to_string(ph.query_len)
                                              : "KV length " + std::to_string(ph.kv_len));
    return std::string(phase_name(ph.phase)) + " shape: " + fields + " " +
           (fields.find(" and ") != std::string::npos ? "are" : "is") +
           " the default (no --batch/--prompt/--context, step annotation or recorded shape says otherwise); "
           "E_roof findings of this phase are at most low severity";
}

// A flag value the run contradicts: outside what the run shows by more than 10 %.
bool contradicts(double flag, double lo, double hi)
{
    return flag < lo * 0.9 || flag > hi * 1.1;
}

} // namespace

std::vector<std::string> resolve_shapes(const Trace& trace, const PhaseResult& phases, CostOptions& o)
{
    std::vector<std::string> notes;
    const bool fb = o.batch_chosen(), fp = o.prompt_chosen(), fc = o.context_chosen();
    const bool flags = fb || fp || fc;
    CostOptions ann = o;
    ann.prefill_shape.reset();
    ann.decode_shape.reset();
    ann.mixed_shape.reset();
    shapes_from_steps(phases, ann);
    const TraceShapes recorded = shapes_from_trace(trace, phases);
    std::string overall = flags ? "option" : "default";
    for (const Phase ph : {Phase::Prefill, Phase::Decode}) {
        const bool prefill = ph == Phase::Prefill;
        const char* pn = phase_name(ph);
        std::optional<StepShape>& target = prefill ? o.prefill_shape : o.decode_shape;
        target.reset();
        std::optional<RunShape> run;
        if (const auto& a = prefill ? ann.prefill_shape : ann.decode_shape; a && a->requests > 0) {
            RunShape r;
            r.shape = *a;
            r.batch = r.batch_lo = r.batch_hi = a->requests;
            r.query = r.query_lo = r.query_hi = a->sq / a->requests;
            r.kv = r.kv_lo = r.kv_hi = a->sk / a->requests;
            r.said_by = std::string("the ") + pn + " steps' annotations";
            run = r;
        } else if (const auto& t = recorded.of(ph)) {
            RunShape r;
            r.shape = t->shape;
            r.shape.evidence = t->evidence;
            r.batch = t->batch;
            r.batch_lo = double(t->batch_min);
            r.batch_hi = double(t->batch_max);
            r.query = t->query;
            r.query_lo = double(t->query_min);
            r.query_hi = double(t->query_max);
            if (t->kv > 0) {
                r.kv = t->kv;
                r.kv_lo = double(t->kv_min);
                r.kv_hi = double(t->kv_max);
            } else {
                // Decode from GEMMs: the KV length is not in the trace; the caller's context (flag or default).
                const double L = double(o.context);
                r.shape.sk = r.shape.requests * L;
                r.shape.sqsk = r.shape.sq * L;
                r.shape.sqsq = r.shape.sq;
                r.shape.kv_from = fc ? "option" : "default";
                r.shape.evidence += "; KV length " + std::to_string(o.context) +
                                    (fc ? " (--context)" : " (the default: pass --context N)");
            }
            r.said_by = "the trace's recorded shapes (" + std::to_string(t->calls) + " " + t->op + " calls)";
            run = r;
        }
        if (!run)
            continue;
        // Flags the run contradicts: warned, naming both values; the flag still wins.
        auto check = [&](bool set, const char* flag, int64_t v, const char* what, double val, double lo, double hi) {
            if (!set || val <= 0 || !contradicts(double(v), lo, hi))
                return;
            const std::string shown = lo == hi ? shape_num(val) : shape_num(lo) + "–" + shape_num(hi);
            notes.push_back(std::string(flag) + " " + std::to_string(v) + " contradicts the trace: " + run->said_by +
                            " say " + what + " " + shown + " in " + pn + "; the Roofline uses " + flag + " " +
                            std::to_string(v) + " as given");
        };
        check(fb, "--batch", o.batch, "batch", run->batch, run->batch_lo, run->batch_hi);
        if (prefill)
            check(fp, "--prompt", o.prompt, "a query length of", run->query, run->query_lo, run->query_hi);
        else if (run->kv > 0)
            check(fc, "--context", o.context, "a KV length of", run->kv, run->kv_lo, run->kv_hi);
        const bool b_flag = fb, len_flag = prefill ? fp : fc;
        if (b_flag && len_flag)
            continue;   // every field of this phase is the user's: the plain formulas on the options
        if (!b_flag && !len_flag) {
            target = run->shape;
        } else {
            // Field by field: the flags' values, the run's for the rest.
            const double b = b_flag ? double(o.batch) : run->batch;
            const double q = prefill ? (len_flag ? double(o.prompt) : run->query) : run->query;
            const double L = prefill ? (len_flag ? double(o.prompt) : run->kv > 0 ? run->kv : q)
                                     : (len_flag ? double(o.context) : run->shape.sk / run->shape.requests);
            StepShape sh;
            sh.requests = b;
            sh.sq = b * q;
            sh.sk = b * L;
            sh.sqsq = b * q * q;
            sh.sqsk = b * q * L;
            sh.source = "option";
            sh.batch_from = b_flag ? "option" : run->shape.batch_from;
            sh.query_from = prefill && len_flag ? "option" : run->shape.query_from;
            sh.kv_from = len_flag ? "option" : run->shape.kv_from;
            sh.evidence = std::string(pn) + " shape: batch " + shape_num(b) + (b_flag ? " (--batch)" : " (trace)") +
                          ", query " + shape_num(q) + ", KV " + shape_num(L) +
                          (len_flag ? (prefill ? " (--prompt)" : " (--context)") : " (trace)") + "; " +
                          run->shape.evidence;
            target = sh;
        }
        if (!flags && overall != "annotation")
            overall = target->source;
        notes.push_back(target->evidence + (flags || target->source == "annotation"
                                                ? std::string()   // the annotation's note says it already
                                                : std::string("; pass --batch/--prompt/--context to use another")));
    }
    // Mixed steps: their annotations' sums, whatever the flags say (--batch/--prompt/--context describe a prefill
    // pass and a decode step; a mixed step's composition is what its annotation states).
    o.mixed_shape = ann.mixed_shape;
    if (o.mixed_shape)
        notes.push_back(o.mixed_shape->evidence);
    o.shape_source = overall;
    return notes;
}

RooflineOutput roofline_for_analysis(const Trace& trace, const OpClassResult& classes, const PhaseResult& phases,
                                     const RooflineRequest& request, const WorkloadResult* workload)
{
    RooflineOutput out;
    out.json = json::object();
    if (!request.model.empty()) {
        const ModelConfig model = load_model_config(request.model, request.index);
        GpuDatabase db = GpuDatabase::load_default();
        if (!request.gpu_file.empty())
            db.merge_file(request.gpu_file);
        const DeviceInfo* dev = trace.meta.devices.empty() ? nullptr : &trace.meta.devices.front();
        if (request.gpu.empty() && !dev)
            throw TraceError(trace.meta.source_path, "devices", "a GPU named by the trace, or --gpu NAME",
                             "no device in the trace");
        const GpuResolution res = resolve_gpu(db, request.gpu, dev);
        CostOptions copt = request.cost;
        std::string tp_note;
        if (copt.tp_source != "option" && copt.tp == 1) {
            copt.tp_source = "default";
            const TpFromTrace inferred = tp_from_collectives(trace);
            if (inferred.degree > 1) {
                if (workload && workload->kind == WorkloadKind::Training) {
                    tp_note = "tensor parallelism: the trace's " + inferred.evidence +
                              " is a training run's (data-parallel gradients), so the Roofline keeps TP 1; pass "
                              "--tp N if the model is also split";
                } else {
                    copt.tp = inferred.degree;
                    copt.tp_source = "trace";
                    tp_note = "tensor parallelism " + std::to_string(inferred.degree) + " inferred from the trace (" +
                              inferred.evidence + "): theory is one rank's share; pass --tp N to override";
                }
            }
        } else if (copt.tp_source != "option") {
            copt.tp_source = "option";   // a degree set without saying where it came from: the caller's
        }
        // The shape, field by field: the user's --batch/--prompt/--context, else each phase's from its steps' own
        // annotations, else from the trace's recorded shapes, else the defaults (said so).
        const std::vector<std::string> shape_notes = resolve_shapes(trace, phases, copt);
        // A training run is costed per iteration (forward, backward, optimizer), not as prefill and decode.
        copt.training = workload && workload->kind == WorkloadKind::Training;
        // The Hugging Face eager expert path runs plain GEMMs: their recorded shapes say they are the experts', and
        // their down projections, one per touched expert and layer, how many experts each step's routing reached.
        std::vector<bool> expert_down;
        const std::vector<bool> experts = expert_gemm_kernels(trace, model, copt.tp, &expert_down);
        if (!copt.training)
            copt.experts_touched = experts_touched_per_step(trace, phases, model, expert_down);
        const CostModelResult cost = estimate_costs(model, res.spec, copt);
        const auto measured = measured_from_analysis(trace, classes, phases, experts);
        RooflineReport report = join_roofline(cost, measured, request.roofline);
        report.config_shapes = check_config_shapes(trace, model, copt.tp);
        if (!tp_note.empty())
            report.warnings.push_back(tp_note);
        for (const std::string& n : shape_notes) {
            // A training run has one phase, its iteration, whose forward pass is shaped as a prefill pass.
            if (copt.training && n.rfind("decode shape", 0) == 0)
                continue;
            if (copt.training && n.rfind("prefill shape", 0) == 0)
                report.warnings.push_back("training shape (its forward pass)" + n.substr(13));
            else
                report.warnings.push_back(n);
        }
        // The defaults, said as such, for each phase the trace measured (a phase it never ran has no E_roof).
        for (const PhaseCost& ph : cost.phases) {
            const bool ran = std::any_of(measured.begin(), measured.end(), [&](const MeasuredPhase& m) {
                return m.phase == phase_name(ph.phase) && !m.class_ns.empty();
            });
            if (ran && (ph.batch_from == "default" || ph.kv_from == "default"))
                report.warnings.push_back(default_shape_note(ph));
        }
        bool any = false;
        for (const auto& m : measured)
            any |= !m.class_ns.empty();
        if (!any)
            report.warnings.push_back(copt.training
                                          ? "no training iterations were found in the trace: no measured times to join"
                                          : "no prefill or decode steps were found in the trace: no measured times to "
                                            "join");
        if (trace.meta.devices.size() > 1)
            report.warnings.push_back("the trace has " + std::to_string(trace.meta.devices.size()) +
                                      " devices: measured times are summed over all of them");
        out.json["roofline"] = roofline_to_json(report, model, &res);
        out.text += roofline_to_text(report, model, &res);
        out.report = std::move(report);
    }
    if (!request.ncu.empty()) {
        const NcuReport ncu = read_ncu(request.ncu);
        const auto idx = join_ncu_to_trace(ncu, trace);
        std::optional<GpuDatabase> db;
        try {
            db = GpuDatabase::load_default();
            if (!request.gpu_file.empty())
                db->merge_file(request.gpu_file);
        } catch (const Cancelled&) {
            throw;   // a Cancel raised inside is not this step's failure
        } catch (const std::exception&) {
            db.reset();   // names are then compared as text
        }
        NcuTraceMatch match = match_ncu_to_trace(ncu, trace, idx, db ? &*db : nullptr);
        out.json["ncu"] = ncu_to_json(ncu, &idx);
        out.json["ncu"]["trace_match"] = ncu_match_to_json(match);
        if (!out.text.empty())
            out.text.push_back('\n');
        for (const WorkloadWarning& w : match.warnings)
            out.text += "warning: " + w.message + "\n";
        out.text += ncu_to_text(ncu);
        out.ncu = ncu;
        out.ncu_match = std::move(match);
    }
    return out;
}

} // namespace sl
