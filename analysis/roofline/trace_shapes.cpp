#include "analysis/roofline/trace_shapes.h"

#include "analysis/roofline/gemm_dims.h"
#include "analysis/timeline/phases.h"
#include "analysis/trace/kernel_ops.h"
#include "analysis/trace/trace.h"
#include "analysis/io/json_input.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <set>

namespace sl {

namespace {

// 1: [B, H, S, D] (the SDPA family), 2: [B, S, H, D] (the flash / efficient forward kernels), 0: not an attention op.
int attention_layout(std::string_view op)
{
    if (op == "aten::scaled_dot_product_attention" || op == "aten::_scaled_dot_product_flash_attention" ||
        op == "aten::_scaled_dot_product_efficient_attention" || op == "aten::_scaled_dot_product_cudnn_attention" ||
        op == "aten::_cudnn_attention_forward")
        return 1;
    if (op == "aten::_flash_attention_forward" || op == "aten::_efficient_attention_forward" ||
        op == "flash_attn::_flash_attn_forward")
        return 2;
    return 0;
}

struct Attn {
    int64_t b = 0, sq = 0, sk = 0;
};

// Q and K of an attention call: 4-D tensors, the first two arguments.
std::optional<Attn> read_attention(int layout, const std::string& dims_text)
{
    const auto d = parse_json_lenient(dims_text);
    if (!d.is_array() || d.size() < 2)
        return std::nullopt;
    auto dim4 = [](const nlohmann::json& t, int64_t out[4]) {
        if (!t.is_array() || t.size() != 4)
            return false;
        for (size_t i = 0; i < 4; ++i) {
            if (!t[i].is_number_integer() || t[i].get<int64_t>() <= 0)
                return false;
            out[i] = t[i].get<int64_t>();
        }
        return true;
    };
    int64_t q[4], k[4];
    if (!dim4(d[0], q) || !dim4(d[1], k) || q[0] != k[0])
        return std::nullopt;
    Attn a;
    a.b = q[0];
    a.sq = layout == 1 ? q[2] : q[1];
    a.sk = layout == 1 ? k[2] : k[1];
    return a;
}

std::string num(double v)
{
    char b[32];
    if (std::abs(v - std::round(v)) < 0.05)
        std::snprintf(b, sizeof b, "%.0f", v);
    else
        std::snprintf(b, sizeof b, "%.1f", v);
    return b;
}

std::string range_text(int64_t lo, int64_t hi, double mean)
{
    if (lo == hi)
        return std::to_string(lo);
    return std::to_string(lo) + "–" + std::to_string(hi) + " (mean " + num(mean) + ")";
}

struct Acc {
    int64_t calls = 0;
    double b = 0, sq = 0, sk = 0, bsq = 0, bsk = 0, bsqsq = 0, bsqsk = 0;
    int64_t bmin = INT64_MAX, bmax = 0, qmin = INT64_MAX, qmax = 0, kmin = INT64_MAX, kmax = 0;
    std::map<std::string, int64_t> ops;
    std::set<const StepInfo*> steps;
    void add(const Attn& a, const std::string& op, const StepInfo* st)
    {
        ++calls;
        const double B = double(a.b), Q = double(a.sq), K = double(a.sk);
        b += B;
        sq += Q;
        sk += K;
        bsq += B * Q;
        bsk += B * K;
        bsqsq += B * Q * Q;
        bsqsk += B * Q * K;
        bmin = std::min(bmin, a.b);
        bmax = std::max(bmax, a.b);
        qmin = std::min(qmin, a.sq);
        qmax = std::max(qmax, a.sq);
        kmin = std::min(kmin, a.sk);
        kmax = std::max(kmax, a.sk);
        ops[op] += 1;
        if (st)
            steps.insert(st);
    }
};

std::string most_calls(const std::map<std::string, int64_t>& ops)
{
    std::string best;
    int64_t n = -1;
    for (const auto& [op, c] : ops)
        if (c > n) {
            best = op;
            n = c;
        }
    return best;
}

} // namespace

TraceShapes shapes_from_trace(const Trace& t, const PhaseResult& phases)
{
    TraceShapes out;
    const OpArgsTable& a = t.op_args;
    bool any_shapes = false;
    for (size_t i = 0; i < a.size() && !any_shapes; ++i)
        any_shapes = a.source[i] == OpArgsTable::kCpuOp && !a.input_dims[i].empty();
    if (!any_shapes)
        return out;

    // Steps by start, to place each kernel (as measured_from_analysis does); mixed steps are neither phase.
    std::vector<const StepInfo*> steps;
    for (const auto& s : phases.steps)
        steps.push_back(&s);
    std::sort(steps.begin(), steps.end(), [](const StepInfo* x, const StepInfo* y) { return x->start < y->start; });
    auto step_of = [&](int64_t ts) -> const StepInfo* {
        auto it = std::upper_bound(steps.begin(), steps.end(), ts,
                                   [](int64_t v, const StepInfo* s) { return v < s->start; });
        if (it == steps.begin())
            return nullptr;
        const StepInfo* s = *(it - 1);
        return ts < s->end ? s : nullptr;
    };

    const KernelOps kops(t);
    Acc attn[2];                                       // [prefill, decode]
    std::map<int64_t, int64_t> gemm_m[2];              // M -> calls
    std::map<int64_t, std::pair<int64_t, int64_t>> gemm_split[2];   // M -> (B, S) from a 3-D linear input
    std::map<std::string, int64_t> gemm_ops[2];
    std::set<const StepInfo*> gemm_steps[2];
    std::set<std::pair<int32_t, int32_t>> seen;        // one call per (op row, graph launch)
    for (size_t k = 0; k < t.kernels.size(); ++k) {
        const auto call = kops.call(k);
        if (call.first == kNoIndex || !seen.insert(call).second)
            continue;
        const size_t row = static_cast<size_t>(call.first);
        if (row >= a.size() || a.input_dims[row].empty())
            continue;
        const std::string op(t.str(a.name[row]));
        const int layout = attention_layout(op);
        const bool gemm = !layout && is_gemm_op(op);
        if (!layout && !gemm)
            continue;
        const StepInfo* st = nullptr;
        int side = -1;   // 0 prefill, 1 decode
        if (!steps.empty()) {
            st = step_of(t.kernels.start[k]);
            if (!st || st->mixed)
                continue;
            side = st->prefill ? 0 : 1;
        }
        if (layout) {
            const auto at = read_attention(layout, a.input_dims[row]);
            if (!at)
                continue;
            if (side < 0)
                side = at->sq == 1 ? 1 : 0;
            attn[side].add(*at, op, st);
            continue;
        }
        if (side < 0)
            continue;   // without steps, a GEMM's M cannot say its phase
        const auto g = gemm_dims(op, a.input_dims[row]);
        if (!g || g->m <= 0 || g->batch != 1)
            continue;
        gemm_m[side][g->m] += 1;
        gemm_ops[side][op] += 1;
        if (st)
            gemm_steps[side].insert(st);
        if (op == "aten::linear") {
            const auto d = parse_json_lenient(a.input_dims[row]);
            if (d.is_array() && !d.empty() && d[0].is_array() && d[0].size() == 3 && d[0][0].is_number_integer() &&
                d[0][1].is_number_integer())
                gemm_split[side][g->m] = {d[0][0].get<int64_t>(), d[0][1].get<int64_t>()};
        }
    }

    for (int side = 0; side < 2; ++side) {
        const Phase ph = side == 0 ? Phase::Prefill : Phase::Decode;
        const char* pn = phase_name(ph);
        TracePhaseShape s;
        s.phase = ph;
        s.shape.source = "trace";
        s.shape.batch_from = s.shape.query_from = s.shape.kv_from = "trace";
        const Acc& c = attn[side];
        if (c.calls > 0) {
            const double n = double(c.calls);
            s.from = "attention";
            s.op = most_calls(c.ops);
            s.calls = c.calls;
            s.steps = static_cast<int64_t>(c.steps.size());
            s.batch = c.b / n;
            s.query = c.sq / n;
            s.kv = c.sk / n;
            s.batch_min = c.bmin;
            s.batch_max = c.bmax;
            s.query_min = c.qmin;
            s.query_max = c.qmax;
            s.kv_min = c.kmin;
            s.kv_max = c.kmax;
            s.shape.requests = s.batch;
            s.shape.sq = c.bsq / n;
            s.shape.sk = c.bsk / n;
            s.shape.sqsq = c.bsqsq / n;
            s.shape.sqsk = c.bsqsk / n;
            std::string ops;
            for (const auto& [op, cnt] : c.ops)
                ops += (ops.empty() ? "" : ", ") + std::to_string(cnt) + " " + op;
            s.evidence = std::string(pn) + " shape from the trace's recorded shapes: batch " +
                         range_text(c.bmin, c.bmax, s.batch) + ", query " + range_text(c.qmin, c.qmax, s.query) +
                         ", KV " + range_text(c.kmin, c.kmax, s.kv) + " from " + ops + " call" +
                         (c.calls == 1 ? "" : "s") +
                         (s.steps > 0 ? " in " + std::to_string(s.steps) + " " + pn + " step" + (s.steps == 1 ? "" : "s")
                                      : std::string(" (no steps: placed by their query length)"));
        } else if (!gemm_m[side].empty()) {
            // The M with the most calls is batch × query tokens.
            int64_t m = 0, best = -1, total = 0;
            for (const auto& [mm, cnt] : gemm_m[side]) {
                total += cnt;
                if (cnt > best) {
                    m = mm;
                    best = cnt;
                }
            }
            int64_t b = ph == Phase::Decode ? m : 1, q = ph == Phase::Decode ? 1 : m;
            bool split = false;
            if (const auto it = gemm_split[side].find(m);
                it != gemm_split[side].end() && it->second.first * it->second.second == m) {
                b = it->second.first;
                q = it->second.second;
                split = true;
            }
            s.from = "gemm";
            s.op = most_calls(gemm_ops[side]);
            s.calls = best;
            s.steps = static_cast<int64_t>(gemm_steps[side].size());
            s.batch = double(b);
            s.query = double(q);
            s.batch_min = s.batch_max = b;
            s.query_min = s.query_max = q;
            s.shape.requests = double(b);
            s.shape.sq = double(b * q);
            if (ph == Phase::Prefill) {
                // A prompt attends to itself: KV = the query length.
                s.kv = double(q);
                s.kv_min = s.kv_max = q;
                s.shape.sk = double(b * q);
                s.shape.sqsq = double(b) * double(q) * double(q);
                s.shape.sqsk = s.shape.sqsq;
            } else {
                s.shape.kv_from = "";   // not in a GEMM: the caller's context
            }
            s.evidence = std::string(pn) + " shape from the trace's recorded GEMM shapes (no attention op with "
                         "shapes): M = " + std::to_string(m) + " rows in " + std::to_string(best) + " of " +
                         std::to_string(total) + " GEMM calls" +
                         (s.steps > 0 ? " in " + std::to_string(s.steps) + " " + pn + " steps" : std::string()) +
                         ", read as batch " + std::to_string(b) + " × " + std::to_string(q) + " query token" +
                         (q == 1 ? "" : "s") +
                         (split ? " (a 3-D linear input)"
                                : ph == Phase::Decode ? " (decode: one token per sequence)"
                                                      : " (one sequence: the split of M is not recorded)") +
                         (ph == Phase::Decode ? "; the KV length is not in a GEMM" : "");
        } else {
            continue;
        }
        (side == 0 ? out.prefill : out.decode) = std::move(s);
    }
    return out;
}

} // namespace sl
