#include "analysis/roofline/roofline.h"

#include "analysis/io/ncu_reader.h"
#include "analysis/timeline/kernel_phase.h"
#include "analysis/timeline/op_classes.h"
#include "analysis/timeline/phases.h"
#include "analysis/trace/cancel_point.h"
#include "analysis/trace/trace.h"

#include <algorithm>
#include <cstdio>
#include <unordered_map>

namespace sl {

namespace {

std::vector<ClassEfficiency> theory_classes(const CostModelResult& cost)
{
    std::vector<ClassEfficiency> out;
    for (const auto& ph : cost.phases) {
        for (const auto& op : ph.ops) {
            auto it = std::find_if(out.begin(), out.end(), [&](const ClassEfficiency& c) {
                return c.op_class == op.op_class && c.phase == phase_name(ph.phase);
            });
            if (it == out.end()) {
                ClassEfficiency c;
                c.op_class = op.op_class;
                c.phase = phase_name(ph.phase);
                c.t_theory_ns = 0.0;
                out.push_back(c);
                it = out.end() - 1;
            }
            it->operators.push_back(op.name);
            it->flops += op.flops;
            it->bytes += op.bytes;
            if (it->t_theory_ns && op.t_theory_ns)
                *it->t_theory_ns += *op.t_theory_ns;
            else
                it->t_theory_ns.reset();
        }
    }
    return out;
}

// The likely causes of an E_roof above the roof, most likely first: memory-bound work points at bytes (weight/KV
// dtype, tensor parallelism), compute-bound work at the shape; the GPU row is always a candidate.
std::string inconsistency_causes(const CostModelResult& cost, const ClassEfficiency& c)
{
    const auto& o = cost.options;
    char buf[96];
    std::vector<std::string> causes;
    std::snprintf(buf, sizeof buf, "weights counted at %.3g bytes/element, KV at %.3g", cost.weight_bytes,
                  cost.kv_bytes);
    const std::string dtype = std::string("dtype: ") + buf + " (check quantization_config, --weight-dtype, --kv-dtype)";
    const std::string tp = "tensor parallelism: theory is for " +
                           (o.tp > 1 ? "1/" + std::to_string(o.tp) + " of the model" : std::string("the whole model")) +
                           " per GPU (check --tp)";
    std::string shape = "shape: batch " + std::to_string(o.batch) + ", prompt " + std::to_string(o.prompt) +
                        ", context " + std::to_string(o.context) + " (check --batch/--prompt/--context)";
    for (const auto& ph : cost.phases)
        if (phase_name(ph.phase) == c.phase)
            shape = "shape: batch " + std::to_string(ph.batch) + ", query " + std::to_string(ph.query_len) +
                    ", KV " + std::to_string(ph.kv_len) + " from " + ph.shape_source +
                    " (check --batch/--prompt/--context)";
    const std::string gpu = "GPU: " + (cost.gpu.name.empty() ? std::string("unknown") : cost.gpu.name) +
                            " (check --gpu)";
    double tc = 0, tm = 0;
    for (const auto& ph : cost.phases)
        if (phase_name(ph.phase) == c.phase)
            for (const auto& op : ph.ops)
                if (op.op_class == c.op_class) {
                    tc += op.t_compute_ns.value_or(0);
                    tm += op.t_memory_ns.value_or(0);
                }
    if (tm >= tc)
        causes = {dtype, tp, shape, gpu};
    else
        causes = {shape, tp, gpu, dtype};
    std::string out;
    for (const auto& s : causes)
        out += (out.empty() ? "" : "; ") + s;
    return out;
}

} // namespace

std::optional<double> RooflineReport::operator_actual_ns(const std::string& op, Phase phase) const
{
    for (const auto& c : classes) {
        if (c.phase != phase_name(phase))
            continue;
        if (std::find(c.operators.begin(), c.operators.end(), op) == c.operators.end())
            continue;
        if (c.operators.size() == 1)
            return c.t_actual_ns;
        return std::nullopt;
    }
    return std::nullopt;
}

RooflineReport make_roofline(const CostModelResult& cost, const RooflineOptions& options)
{
    RooflineReport r;
    r.cost = cost;
    r.options = options;
    r.classes = theory_classes(cost);
    r.warnings = cost.warnings;
    return r;
}

bool is_elementwise_chain_class(const std::string& c)
{
    return c == "elementwise" || c == "norm" || c == "rotary" || c == "activation" || c == "reduction";
}

RooflineReport join_roofline(const CostModelResult& cost, const std::vector<MeasuredPhase>& measured,
                             const RooflineOptions& options)
{
    RooflineReport r = make_roofline(cost, options);
    r.measured = true;
    for (const auto& mp : measured) {
        const int64_t passes = std::max<int64_t>(1, mp.passes);
        if (mp.passes <= 0 && !mp.class_ns.empty())
            r.warnings.push_back("no " + mp.phase + " pass count: measured " + mp.phase + " time taken as one pass");
        for (const auto& [cls, ns] : mp.class_ns) {
            if (ns <= 0)
                continue;
            auto it = std::find_if(r.classes.begin(), r.classes.end(), [&](const ClassEfficiency& c) {
                return c.op_class == cls && c.phase == mp.phase;
            });
            if (it == r.classes.end()) {
                // Measured but not modelled (sampling, memcpy, communication, other): time only.
                ClassEfficiency c;
                c.op_class = cls;
                c.phase = mp.phase;
                r.classes.push_back(c);
                it = r.classes.end() - 1;
            }
            it->measured_total_ns += ns;
            it->t_actual_ns = static_cast<double>(it->measured_total_ns) / static_cast<double>(passes);
            // No theory (or none above zero): no E_roof, never a number.
            if (it->t_theory_ns && *it->t_theory_ns > 0 && *it->t_actual_ns > 0)
                it->e_roof = *it->t_theory_ns / *it->t_actual_ns;
        }
    }
    // Unfused elementwise chains: per phase, when a chain class has theory but no kernel of its own, the chain
    // classes are compared as one (ClassEfficiency::chain).
    for (const std::string phase : {"prefill", "decode", "mixed", "training"}) {
        bool unfused = false, measured = false;
        double theory = 0, actual = 0;
        std::vector<std::string> members;
        for (const auto& c : r.classes) {
            if (c.phase != phase || !is_elementwise_chain_class(c.op_class))
                continue;
            if (c.t_theory_ns && *c.t_theory_ns > 0 && c.measured_total_ns <= 0)
                unfused = true;
            if (c.measured_total_ns > 0)
                measured = true;
            if (c.t_theory_ns)
                theory += *c.t_theory_ns;
            if (c.t_actual_ns)
                actual += *c.t_actual_ns;
            if (c.measured_total_ns > 0 || (c.t_theory_ns && *c.t_theory_ns > 0))
                members.push_back(c.op_class);
        }
        if (!unfused || !measured || theory <= 0 || actual <= 0)
            continue;
        for (auto& c : r.classes) {
            if (c.phase != phase || !is_elementwise_chain_class(c.op_class))
                continue;
            c.chain = members;
            c.chain_theory_ns = theory;
            c.chain_actual_ns = actual;
            c.class_e_roof = c.e_roof;
            // The chain's E_roof on each measured member that has theory of its own; a member without (a reduction
            // with no softmax in the theory) has none: its time is in the chain's, its E_roof is not a number.
            if (c.measured_total_ns > 0 && c.t_theory_ns && *c.t_theory_ns > 0)
                c.e_roof = theory / actual;
        }
    }
    for (auto& c : r.classes) {
        if (!c.e_roof || *c.e_roof <= kMaxPlausibleERoof)
            continue;
        c.e_roof_inconsistent = c.e_roof;
        c.e_roof.reset();
        c.inconsistency = inconsistency_causes(r.cost, c);
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.2f", *c.e_roof_inconsistent);
        r.warnings.push_back("data consistency: " + c.op_class + " " + c.phase + " would run at " + buf +
                             " x the Roofline bound, which is impossible; not reported as an efficiency. Likely: " +
                             c.inconsistency);
    }
    // Focus: Top-K by measured total time, union E_roof < tau.
    std::vector<const ClassEfficiency*> timed;
    for (const auto& c : r.classes)
        if (c.measured_total_ns > 0)
            timed.push_back(&c);
    std::stable_sort(timed.begin(), timed.end(), [](const ClassEfficiency* a, const ClassEfficiency* b) {
        return a->measured_total_ns > b->measured_total_ns;
    });
    for (size_t i = 0; i < timed.size(); ++i) {
        const auto* c = timed[i];
        FocusItem f;
        f.op_class = c->op_class;
        f.phase = c->phase;
        f.measured_total_ns = c->measured_total_ns;
        f.e_roof = c->e_roof;
        f.top_k = static_cast<int>(i) < options.top_k;
        f.low_efficiency = c->e_roof && *c->e_roof < options.tau;
        if (f.top_k || f.low_efficiency)
            r.focus.push_back(f);
    }
    return r;
}

std::vector<MeasuredPhase> measured_times(const Trace& trace, const std::vector<int16_t>& kernel_class,
                                          const std::vector<std::string>& class_ids,
                                          const std::vector<bool>& kernel_in_prefill, int64_t prefill_passes,
                                          int64_t decode_steps)
{
    MeasuredPhase pre, dec;
    pre.phase = "prefill";
    pre.passes = prefill_passes;
    dec.phase = "decode";
    dec.passes = decode_steps;
    const size_t n = std::min(trace.kernels.size(), kernel_class.size());
    for (size_t i = 0; i < n; ++i) {
        const int c = kernel_class[i];
        if (c < 0 || static_cast<size_t>(c) >= class_ids.size())
            continue;
        const int64_t d = trace.kernels.end[i] - trace.kernels.start[i];
        const bool in_prefill = i < kernel_in_prefill.size() && kernel_in_prefill[i];
        (in_prefill ? pre : dec).class_ns[class_ids[static_cast<size_t>(c)]] += d;
    }
    return {pre, dec};
}

std::vector<MeasuredPhase> measured_from_analysis(const Trace& trace, const OpClassResult& classes,
                                                  const PhaseResult& phases, const std::vector<bool>& expert_gemm)
{
    std::vector<std::string> ids;
    for (const auto& c : classes.classes)
        ids.push_back(c.id);
    static const std::string kMoeGemm = "moe_gemm";
    auto class_of = [&](size_t i, int c) -> const std::string& {
        return i < expert_gemm.size() && expert_gemm[i] ? kMoeGemm : ids[static_cast<size_t>(c)];
    };
    // A mixed step (chunked prefill: prefill chunks and decode tokens in one pass) is a phase of its own: its prefill
    // kernels are not a decode step's, nor its decode tokens a prefill pass's. A training run's iterations
    // (PhaseResult::training_windows; its steps were cleared) are passes of the training phase.
    MeasuredPhase out[4];
    out[0].phase = "prefill";
    out[1].phase = "decode";
    out[2].phase = "mixed";
    out[3].phase = "training";
    for (auto& m : out)
        m.passes = 0;
    for (const auto& s : phases.steps)
        out[s.mixed ? 2 : s.prefill ? 0 : 1].passes += 1;
    out[3].passes = static_cast<int64_t>(phases.training_windows.size());
    const std::vector<KernelPhase> placed = kernel_phases(trace, phases);
    for (size_t i = 0; i < placed.size() && i < classes.kernel_class.size(); ++i) {
        const int c = classes.kernel_class[i];
        if (c < 0 || static_cast<size_t>(c) >= ids.size() || placed[i] == KernelPhase::None)
            continue;
        out[static_cast<int>(placed[i])].class_ns[class_of(i, c)] += trace.kernels.end[i] - trace.kernels.start[i];
    }
    // Prefill and decode always (a phase without passes is said so), mixed and training when the trace has them.
    std::vector<MeasuredPhase> r = {out[0], out[1]};
    for (int p : {2, 3})
        if (out[p].passes > 0)
            r.push_back(out[p]);
    return r;
}

std::vector<std::string> kernel_name_tokens(std::string_view name, size_t limit)
{
    // Words that one demangler writes and another leaves out or spells otherwise: ncu's CSV drops "native::", writes
    // "(unnamed)" for "(anonymous namespace)", "[lambda() (instance 3)]" for "{lambda()#3}" and "2" for "2ul";
    // builtin type names.
    static const char* const kSkip[] = {"void",  "native", "anonymous", "namespace", "unnamed",  "lambda",
                                        "instance", "operator", "const", "at", "c10", "std", "unsigned", "int",
                                        "long", "float", "bool", "char", "TensorIteratorBase", "TensorIterator",
                                        // integer literal suffixes: "2ul" in one, "2" in the other
                                        "u", "l", "ul", "lu", "ll", "ull", "llu"};
    std::vector<std::string> out;
    size_t i = 0;
    while (i < name.size() && out.size() < limit) {
        const char c = name[i];
        const bool alpha = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
        const bool digit = c >= '0' && c <= '9';
        if (!alpha && !digit) {
            ++i;
            continue;
        }
        size_t j = i + 1;
        while (j < name.size()) {
            const char d = name[j];
            const bool word = (d >= 'A' && d <= 'Z') || (d >= 'a' && d <= 'z') || d == '_' || (d >= '0' && d <= '9');
            if (!word || (digit && !(d >= '0' && d <= '9')))
                break;
            ++j;
        }
        const std::string_view tok = name.substr(i, j - i);
        i = j;
        // ncu names a lambda's parameters T1, T2, ...: the parameter list begins there.
        if (tok.size() >= 2 && tok[0] == 'T' && tok.find_first_not_of("0123456789", 1) == std::string_view::npos)
            break;
        if (std::find(std::begin(kSkip), std::end(kSkip), tok) != std::end(kSkip))
            continue;
        out.emplace_back(tok);
    }
    return out;
}

std::vector<int64_t> join_ncu_to_trace(const NcuReport& ncu, const Trace& trace)
{
    std::vector<int64_t> out(ncu.launches.size(), -1);
    if (ncu.launches.empty() || trace.kernels.size() == 0)
        return out;
    // Kernels in start order, grouped by interned name id (no string per kernel), then keyed by the full name,
    // the short name and the base name of each distinct id.
    std::vector<size_t> order(trace.kernels.size());
    for (size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return trace.kernels.start[a] < trace.kernels.start[b]; });
    std::unordered_map<StrId, std::vector<size_t>> by_name, by_short;
    for (size_t i : order) {
        by_name[trace.kernels.name[i]].push_back(i);
        if (i < trace.kernels.short_name.size() && trace.kernels.short_name[i] != trace.kernels.name[i])
            by_short[trace.kernels.short_name[i]].push_back(i);
    }
    auto by_start = [&](size_t a, size_t b) { return trace.kernels.start[a] < trace.kernels.start[b]; };
    std::unordered_map<std::string, std::vector<size_t>> by_full, by_base;
    auto add = [&](std::unordered_map<std::string, std::vector<size_t>>& m, const std::string& key,
                   const std::vector<size_t>& rows) {
        auto& v = m[key];
        const bool merge = !v.empty();
        v.insert(v.end(), rows.begin(), rows.end());
        if (merge)
            std::stable_sort(v.begin(), v.end(), by_start);
    };
    for (const auto& [id, rows] : by_name) {
        add(by_full, std::string(trace.str(id)), rows);
        add(by_base, kernel_base_name(trace.str(id)), rows);
    }
    for (const auto& [id, rows] : by_short)
        add(by_full, std::string(trace.str(id)), rows);
    // Distinct trace names by their words (kernel_name_tokens); an ncu name's group is every trace name whose words
    // agree with its own up to the shorter of the two (at least three words), merged in start order.
    constexpr size_t kTokens = 8;
    std::vector<std::pair<std::vector<std::string>, const std::vector<size_t>*>> words;
    for (const auto& [id, rows] : by_name)
        words.emplace_back(kernel_name_tokens(trace.str(id), kTokens), &rows);
    std::unordered_map<std::string, std::vector<size_t>> token_groups;
    auto token_group = [&](const std::string& nm) -> const std::vector<size_t>& {
        auto [it, fresh] = token_groups.try_emplace(nm);
        if (!fresh)
            return it->second;
        const std::vector<std::string> w = kernel_name_tokens(nm, kTokens);
        if (w.size() < 3)
            return it->second;
        for (const auto& [tw, rows] : words) {
            const size_t n = std::min(w.size(), tw.size());
            if (n >= 3 && std::equal(w.begin(), w.begin() + std::ptrdiff_t(n), tw.begin()))
                it->second.insert(it->second.end(), rows->begin(), rows->end());
        }
        std::stable_sort(it->second.begin(), it->second.end(), by_start);
        return it->second;
    };
    std::unordered_map<std::string, size_t> next_full, next_base, next_token;
    for (size_t j = 0; j < ncu.launches.size(); ++j) {
        const std::string& nm = ncu.launches[j].name;
        if (auto it = by_full.find(nm); it != by_full.end()) {
            size_t& k = next_full[nm];
            if (k < it->second.size())
                out[j] = static_cast<int64_t>(it->second[k++]);
            continue;
        }
        // The same kernel named by another demangler: the words of the name agree up to where the shorter stops.
        if (const std::vector<size_t>& rows = token_group(nm); !rows.empty()) {
            size_t& k = next_token[nm];
            if (k < rows.size())
                out[j] = static_cast<int64_t>(rows[k++]);
            continue;
        }
        const std::string base = kernel_base_name(nm);
        if (auto it = by_base.find(base); it != by_base.end()) {
            size_t& k = next_base[base];
            if (k < it->second.size())
                out[j] = static_cast<int64_t>(it->second[k++]);
        }
    }
    return out;
}

} // namespace sl
