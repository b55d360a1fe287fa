#include "analysis/timeline/phases.h"

#include <algorithm>
#include <climits>
#include <functional>
#include <numeric>
#include <string_view>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "analysis/io/regex.h"
#include "analysis/trace/errors.h"
#include "analysis/timeline/nvtx_projection.h"
#include "analysis/timeline/op_classes.h"
#include "analysis/timeline/overlap.h"
#include "analysis/trace/kernel_ops.h"
#include "analysis/trace/stats.h"
#include "analysis/io/json_input.h"
#include "analysis/trace/cancel_point.h"

namespace sl {

const char* step_source_name(StepSource s)
{
    switch (s) {
    case StepSource::KernelRegex: return "kernel_regex";
    case StepSource::NvtxRanges: return "nvtx";
    case StepSource::SamplingKernels: return "sampling_kernel";
    case StepSource::None: break;
    }
    return "none";
}

namespace {

struct Sorted {
    std::vector<int64_t> v;
    int64_t count_in(int64_t a, int64_t b) const
    {
        return std::lower_bound(v.begin(), v.end(), b) - std::lower_bound(v.begin(), v.end(), a);
    }
};

// Query lengths of the attention calls a PyTorch profiler recorded with record_shapes=True, by host start time:
// scaled_dot_product_attention and its backends take (…, L, E) tensors, so L is the query's (first input's)
// second-to-last dim.
struct AttentionCall {
    int64_t start = 0;
    int64_t sq = 0;
};

std::vector<AttentionCall> attention_calls(const Trace& t)
{
    std::vector<AttentionCall> out;
    const OpArgsTable& a = t.op_args;
    for (size_t i = 0; i < a.size(); ++i) {
        if (a.source[i] != OpArgsTable::kCpuOp || a.input_dims[i].empty())
            continue;
        const std::string_view n = t.str(a.name[i]);
        if (n != "aten::scaled_dot_product_attention" && n != "aten::_scaled_dot_product_flash_attention" &&
            n != "aten::_scaled_dot_product_efficient_attention" && n != "aten::_scaled_dot_product_cudnn_attention")
            continue;
        const nlohmann::json d = parse_json_lenient(a.input_dims[i]);
        if (!d.is_array() || d.size() < 2 || !d[0].is_array() || !d[1].is_array() || d[0].size() < 2 ||
            d[1].size() < 2 || !d[1][d[1].size() - 2].is_number_integer())
            continue;   // a query and a key of (…, L, E)
        const auto& q = d[0][d[0].size() - 2];
        if (!q.is_number_integer() || q.get<int64_t>() < 1)
            continue;
        out.push_back({a.start[i], q.get<int64_t>()});
    }
    std::sort(out.begin(), out.end(), [](const AttentionCall& x, const AttentionCall& y) { return x.start < y.start; });
    return out;
}

// What the shapes of a step's kernels say (record_shapes; the CPU op of each kernel, eager or joined from a graph's
// capture: kernel_ops.h): the query lengths of its attention calls and the median M — the rows, i.e. the tokens — of
// its GEMMs. A decode step multiplies batch rows (M = b, one token per sequence); a prefill pass batch x prompt rows.
struct StepShapes {
    int64_t sq_lo = INT64_MAX, sq_hi = 0;   // attention query lengths (sq_hi 0: none)
    int64_t gemm_m = 0;                     // median GEMM M (0: none)
};

// Rows of a (…, K) operand: the product of its leading dims (0 when not a known shape).
int64_t rows_of(const nlohmann::json& dims)
{
    if (!dims.is_array() || dims.size() < 2)
        return 0;
    int64_t m = 1;
    for (size_t i = 0; i + 1 < dims.size(); ++i) {
        if (!dims[i].is_number_integer() || dims[i].get<int64_t>() < 1)
            return 0;
        m *= dims[i].get<int64_t>();
    }
    return m;
}

// One CPU op's (query length, GEMM M); 0 where it is not that kind of op.
std::pair<int64_t, int64_t> op_shape(const Trace& t, int32_t op)
{
    const std::string_view n = t.str(t.op_args.name[static_cast<size_t>(op)]);
    // The kernel's op is the innermost: scaled_dot_product_attention's backends down to their forward ops. Queries
    // are (…, L, E) for the sdpa family and cuDNN's forward, (B, L, H, E) for the flash and memory-efficient ones.
    const bool bhle = n == "aten::scaled_dot_product_attention" || n == "aten::_scaled_dot_product_flash_attention" ||
                      n == "aten::_scaled_dot_product_efficient_attention" ||
                      n == "aten::_scaled_dot_product_cudnn_attention" || n == "aten::_cudnn_attention_forward";
    const bool blhe = n == "aten::_flash_attention_forward" || n == "aten::_efficient_attention_forward";
    const bool attention = bhle || blhe;
    // GEMMs by their activation operand: addmm(bias, mat1, mat2) has it second; mm, matmul and linear first.
    const int gemm_input = n == "aten::addmm" ? 1 : (n == "aten::mm" || n == "aten::matmul" || n == "aten::linear") ? 0 : -1;
    if (!attention && gemm_input < 0)
        return {0, 0};
    const nlohmann::json d = parse_json_lenient(t.op_args.input_dims[static_cast<size_t>(op)]);
    if (!d.is_array())
        return {0, 0};
    if (attention) {
        if (d.size() < 2 || !d[0].is_array() || d[0].size() < (blhe ? 4u : 2u))
            return {0, 0};
        const auto& q = blhe ? d[0][1] : d[0][d[0].size() - 2];
        return {q.is_number_integer() && q.get<int64_t>() >= 1 ? q.get<int64_t>() : 0, 0};
    }
    if (d.size() <= static_cast<size_t>(gemm_input) + 1)
        return {0, 0};
    return {0, rows_of(d[static_cast<size_t>(gemm_input)])};
}

// Per step (steps sorted by start, disjoint GPU windows): the shapes of the kernels that start in its window.
std::vector<StepShapes> step_shapes(const Trace& t, const std::vector<StepInfo>& steps)
{
    std::vector<StepShapes> out(steps.size());
    bool shaped = false;
    for (size_t i = 0; i < t.op_args.size() && !shaped; ++i)
        shaped = t.op_args.source[i] == OpArgsTable::kCpuOp && !t.op_args.input_dims[i].empty();
    if (!shaped || steps.empty())
        return out;
    const KernelOps ops(t);
    std::unordered_map<int32_t, std::pair<int64_t, int64_t>> seen;
    std::vector<std::vector<int64_t>> ms(steps.size());
    for (size_t k = 0; k < t.kernels.size(); ++k) {
        cancel_point(k);
        const int64_t ks = t.kernels.start[k];
        auto it = std::upper_bound(steps.begin(), steps.end(), ks,
                                   [](int64_t v, const StepInfo& s) { return v < s.end; });
        if (it == steps.end() || ks < it->start)
            continue;
        const int32_t op = ops.op_row(k);
        if (op < 0)
            continue;
        auto [at, fresh] = seen.try_emplace(op);
        if (fresh)
            at->second = op_shape(t, op);
        else
            continue;   // one op, one sample (split-K GEMMs launch two kernels)
        const auto [sq, m] = at->second;
        StepShapes& x = out[static_cast<size_t>(it - steps.begin())];
        if (sq > 0) {
            x.sq_lo = std::min(x.sq_lo, sq);
            x.sq_hi = std::max(x.sq_hi, sq);
        }
        if (m > 0)
            ms[static_cast<size_t>(it - steps.begin())].push_back(m);
    }
    for (size_t j = 0; j < steps.size(); ++j)
        if (!ms[j].empty()) {
            auto mid = ms[j].begin() + static_cast<std::ptrdiff_t>(ms[j].size() / 2);
            std::nth_element(ms[j].begin(), mid, ms[j].end());
            out[j].gemm_m = *mid;
        }
    return out;
}

// Annotated serving steps: one per outermost annotated range of a thread; an annotated range nested in it (SGLang's
// step[…] inside execute_…) is the same step and fills the batch its parent does not state. The annotation with the
// attention sums is the step's primary one (its format is the step's batch_source).
struct Annotated {
    uint32_t range = 0;
    StepBatch batch;
};

std::vector<Annotated> annotated_steps(const Trace& t, const StepGrammar& g, const std::function<bool(size_t)>& kept,
                                       std::vector<std::string>& formats)
{
    std::vector<int32_t> cache(t.strings.size(), -2);   // -2 not parsed yet, -1 no format, else index into parsed
    std::vector<StepBatch> parsed;
    std::vector<Annotated> found;
    for (size_t i = 0; i < t.ranges.size(); ++i) {
        cancel_point(i);
        if (t.ranges.kind[i] == RangeKind::CpuOp || !kept(i))
            continue;
        const StrId n = t.ranges.name[i];
        if (n >= cache.size())
            continue;
        if (cache[n] == -2) {
            if (auto b = g.parse(t.str(n))) {
                cache[n] = static_cast<int32_t>(parsed.size());
                parsed.push_back(std::move(*b));
            } else {
                cache[n] = -1;
            }
        }
        if (cache[n] >= 0)
            found.push_back({static_cast<uint32_t>(i), parsed[static_cast<size_t>(cache[n])]});
    }
    const auto& R = t.ranges;
    std::sort(found.begin(), found.end(), [&](const Annotated& a, const Annotated& b) {
        if (R.thread[a.range] != R.thread[b.range])
            return R.thread[a.range] < R.thread[b.range];
        if (R.start[a.range] != R.start[b.range])
            return R.start[a.range] < R.start[b.range];
        return R.end[a.range] > R.end[b.range];
    });
    std::vector<Annotated> out;
    for (auto& a : found) {
        if (std::find(formats.begin(), formats.end(), a.batch.format) == formats.end())
            formats.push_back(a.batch.format);
        if (!out.empty()) {
            Annotated& p = out.back();
            if (R.thread[p.range] == R.thread[a.range] && R.start[a.range] >= R.start[p.range] &&
                R.end[a.range] <= R.end[p.range]) {
                const std::string fa = a.batch.framework, fp = p.batch.framework;
                if (a.batch.has_attention_sums() && !p.batch.has_attention_sums()) {
                    StepBatch primary = std::move(a.batch);
                    primary.fill_from(p.batch);
                    p.batch = std::move(primary);
                } else {
                    p.batch.fill_from(a.batch);
                }
                // A name both frameworks write ("vLLM/SGLang" execute_…) with one only one writes (SGLang's
                // step[…]): the step is that one's.
                for (const auto& [shared, own] : {std::pair{fa, fp}, std::pair{fp, fa}})
                    if (!own.empty() && shared != own && shared.find(own) != std::string::npos)
                        p.batch.framework = own;
                continue;
            }
        }
        out.push_back(std::move(a));
    }
    std::sort(out.begin(), out.end(), [&](const Annotated& a, const Annotated& b) {
        return R.start[a.range] != R.start[b.range] ? R.start[a.range] < R.start[b.range] : a.range < b.range;
    });
    return out;
}

// Step i's wall time runs from the end of step i-1's GPU work (the previous token) to the end of its own, so
// host-side gaps between steps count and TPOT is the token-to-token period on the GPU.
void chain_walls(std::vector<StepInfo>& steps)
{
    int64_t prev_end = INT64_MIN;
    for (auto& s : steps) {
        if (prev_end != INT64_MIN && prev_end > s.start && prev_end < s.end)
            s.start = prev_end;   // overlapping windows: count the shared part once
        else if (prev_end != INT64_MIN && prev_end < s.start)
            s.start = prev_end;
        s.wall_ns = s.end - s.start;
        prev_end = std::max(prev_end, s.end);
    }
}

// Start of the stretch of GPU work that leads to `end`: after the last idle gap longer than max_idle among the ops
// (kernels of korder, memcpys, memsets) that start in [from, end) — of those gaps, only the ones with at most
// max_share_before of the window's op time before them (a stall at the head of a step, not one in its middle).
int64_t stretch_start(const Trace& t, const std::vector<uint32_t>& korder, const std::vector<int64_t>& kstart,
                      int64_t from, int64_t end, int64_t max_idle, const std::function<bool(uint16_t)>& dev_kept,
                      double max_share_before = 1.0)
{
    std::vector<std::pair<int64_t, int64_t>> ops;
    const auto a = std::lower_bound(kstart.begin(), kstart.end(), from) - kstart.begin();
    const auto b = std::lower_bound(kstart.begin(), kstart.end(), end) - kstart.begin();
    for (auto i = a; i < b; ++i)
        ops.emplace_back(t.kernels.start[korder[static_cast<size_t>(i)]], t.kernels.end[korder[static_cast<size_t>(i)]]);
    for (size_t i = 0; i < t.memcpy.size(); ++i)
        if (t.memcpy.start[i] >= from && t.memcpy.start[i] < end && dev_kept(t.memcpy.device[i]))
            ops.emplace_back(t.memcpy.start[i], t.memcpy.end[i]);
    for (size_t i = 0; i < t.memset.size(); ++i)
        if (t.memset.start[i] >= from && t.memset.start[i] < end && dev_kept(t.memset.device[i]))
            ops.emplace_back(t.memset.start[i], t.memset.end[i]);
    std::sort(ops.begin(), ops.end());
    double total = 0, before = 0;
    for (const auto& [s0, e0] : ops)
        total += double(e0 - s0);
    int64_t start = from, reach = INT64_MIN;
    for (const auto& [s0, e0] : ops) {
        if (reach != INT64_MIN && s0 - reach > max_idle && before <= max_share_before * total)
            start = s0;
        reach = std::max(reach, e0);
        before += double(e0 - s0);
    }
    return start;
}

} // namespace

void clear_for_training(PhaseResult& r, const std::string& why)
{
    int64_t iterations = 0;
    r.training_windows.clear();
    for (const auto& st : r.steps)
        if (st.range >= 0) {
            iterations += 1;
            r.training_windows.emplace_back(st.start, st.end);
        }
    r.training_iterations = iterations;
    r.steps.clear();
    r.prefill_steps = r.prefill_ns = r.decode_steps = r.warmup_excluded = r.steady_steps = 0;
    r.mixed_steps = r.warmup_detected = 0;
    r.steady_start = r.steady_end = 0;
    r.tpot_median_ns = r.tpot_p90_ns = r.tpot_mean_ns = 0;
    r.steady_utilization = r.steady_kernels_per_step = r.steady_sync_calls_per_step = 0;
    r.phase_source.clear();
    r.note = "training run (" + why + "): " +
             (iterations > 0 ? std::to_string(iterations) + " training iterations, which " : std::string("its steps ")) +
             "are not prefill or decode steps; no decode steps, TPOT or prefill are reported";
}

PhaseResult analyze_phases(const Trace& t, const std::vector<int16_t>& kernel_class, int sampling_class,
                           const NvtxProjectionResult* projection, const PhaseOptions& o, const PhaseClasses& pc)
{
    PhaseResult r;
    r.options = o;
    const auto& k = t.kernels;
    // Merged ranks: steps are those of one rank (the lowest), never the interleaving of several.
    int32_t rank0 = INT32_MAX, rank_hi = INT32_MIN;
    for (const auto& d : t.meta.devices) {
        rank0 = std::min(rank0, d.rank);
        rank_hi = std::max(rank_hi, d.rank);
    }
    const bool multi_rank = rank0 != INT32_MAX && rank_hi > rank0;
    auto kernel_kept = [&](size_t i) {
        return !multi_rank || (k.device[i] < t.meta.devices.size() && t.meta.devices[k.device[i]].rank == rank0);
    };
    auto range_kept = [&](size_t i) {
        return !multi_rank || (t.ranges.thread[i] < t.meta.threads.size() &&
                               t.meta.threads[t.ranges.thread[i]].rank == rank0);
    };
    std::vector<uint32_t> korder;
    korder.reserve(k.size());
    for (uint32_t i = 0; i < k.size(); ++i)
        if (kernel_kept(i))
            korder.push_back(i);
    auto kless = [&](uint32_t a, uint32_t b) { return k.start[a] != k.start[b] ? k.start[a] < k.start[b] : a < b; };
    if (!std::is_sorted(korder.begin(), korder.end(), kless))
        std::sort(korder.begin(), korder.end(), kless);
    std::vector<int64_t> kstart(korder.size()), kprefix(korder.size() + 1, 0);
    for (size_t i = 0; i < korder.size(); ++i) {
        kstart[i] = k.start[korder[i]];
        kprefix[i + 1] = kprefix[i] + (k.end[korder[i]] - k.start[korder[i]]);
    }

    std::function<bool(uint16_t)> dev_kept = [&](uint16_t d) {
        return !multi_rank || (d < t.meta.devices.size() && t.meta.devices[d].rank == rank0);
    };
    std::optional<StepGrammar> grammar;

    // Step windows.
    std::vector<StepInfo> steps;
    auto boundary_steps = [&](auto is_boundary) {
        std::vector<StepInfo> out;
        if (korder.empty())
            return out;
        int64_t seg_start = k.start[korder.front()];
        for (size_t i = 0; i < t.memcpy.size(); ++i)
            seg_start = std::min(seg_start, t.memcpy.start[i]);
        for (size_t i = 0; i < t.memset.size(); ++i)
            seg_start = std::min(seg_start, t.memset.start[i]);
        int64_t inner = 0;
        for (uint32_t ki : korder) {
            if (!is_boundary(ki)) {
                ++inner;
                continue;
            }
            if (inner < o.min_step_kernels && !out.empty()) {
                out.back().end = std::max(out.back().end, k.end[ki]);
            } else {
                StepInfo s;
                s.start = seg_start;
                s.end = k.end[ki];
                out.push_back(s);
            }
            seg_start = out.back().end;
            inner = 0;
        }
        // The first step has no previous boundary: it starts where the GPU work leading to its boundary starts,
        // not before a long stall at the head of the capture (whose length would read as the step's time).
        if (!out.empty())
            out.front().start = stretch_start(t, korder, kstart, out.front().start, out.front().end,
                                              o.first_step_idle_ns, dev_kept);
        for (auto& s : out)
            s.wall_ns = s.end - s.start;
        return out;
    };
    std::vector<int8_t> name_flag(t.strings.size(), -1);
    if (!o.step_regex.empty()) {
        Regex re;
        try {
            re = Regex(o.step_regex, Regex::Options{.icase = true});
        } catch (const RegexError& e) {
            throw TraceError("options", "step regex", kRegexExpected, e.what());
        }
        steps = boundary_steps([&](uint32_t ki) {
            const StrId n = k.name[ki];
            int8_t& f = name_flag[n < name_flag.size() ? n : 0];
            if (f < 0)
                f = re.search(t.str(n)) ? 1 : 0;
            return f == 1;
        });
        r.source = StepSource::KernelRegex;
        r.boundary = o.step_regex;
        if (steps.empty())
            r.note = "no kernel name matches the step regex";
    } else {
        // Serving steps named by their framework come first: the framework's own word for what a step is.
        grammar = StepGrammar::load(o.step_grammar_file);
        std::vector<std::string> formats;
        std::vector<Annotated> annotated;
        if (t.ranges.size() > 0)
            annotated = annotated_steps(t, *grammar, range_kept, formats);
        // NVTX step ranges.
        std::vector<uint32_t> matched, prefill_ranges;
        if (!o.nvtx_step_regex.empty() && t.ranges.size() > 0) {
            Regex re;
            try {
                re = Regex(o.nvtx_step_regex, Regex::Options{.icase = true});
            } catch (const RegexError& e) {
                throw TraceError("options", "NVTX step regex", kRegexExpected, e.what());
            }
            Regex pre;
            const bool use_pre = !o.nvtx_prefill_regex.empty();
            if (use_pre) {
                try {
                    pre = Regex(o.nvtx_prefill_regex, Regex::Options{.icase = true});
                } catch (const RegexError& e) {
                    throw TraceError("options", "NVTX prefill regex", kRegexExpected, e.what());
                }
            }
            std::vector<int8_t> rflag(t.strings.size(), -1);   // 0 no, 1 step, 2 prefill
            for (size_t i = 0; i < t.ranges.size(); ++i) {
                cancel_point(i);
                if (!is_nvtx_like(t.ranges.kind[i]) || !range_kept(i))
                    continue;
                const StrId n = t.ranges.name[i];
                int8_t& f = rflag[n < rflag.size() ? n : 0];
                if (f < 0) {
                    const std::string_view s = t.str(n);
                    f = re.search(s)                  ? 1
                        : (use_pre && pre.search(s)) ? 2
                                                     : 0;
                }
                if (f == 1)
                    matched.push_back(static_cast<uint32_t>(i));
                else if (f == 2)
                    prefill_ranges.push_back(static_cast<uint32_t>(i));
            }
        }
        if (!annotated.empty()) {
            // The framework's steps replace generic step ranges; prefill passes named as such outside them stay
            // prefill steps (a trace whose prompts ran as "prefill N" before vLLM-named batches).
            matched.clear();
            std::vector<Annotated> all = annotated;
            for (uint32_t ri : prefill_ranges) {
                const bool inside = std::any_of(annotated.begin(), annotated.end(), [&](const Annotated& a) {
                    return t.ranges.start[ri] < t.ranges.end[a.range] && t.ranges.end[ri] > t.ranges.start[a.range];
                });
                if (!inside)
                    all.push_back({ri, StepBatch{}});
            }
            std::sort(all.begin(), all.end(), [&](const Annotated& a, const Annotated& b) {
                return t.ranges.start[a.range] != t.ranges.start[b.range] ? t.ranges.start[a.range] < t.ranges.start[b.range]
                                                                          : a.range < b.range;
            });
            for (const Annotated& a : all) {
                StepInfo s;
                s.range = static_cast<int32_t>(a.range);
                s.batch = a.batch;
                s.prefill = !a.batch.known();   // a named prefill pass
                const uint32_t ri = a.range;
                const bool proj = projection && ri < projection->ranges.size() && projection->ranges[ri].ops > 0;
                s.start = proj ? projection->ranges[ri].proj_start : t.ranges.start[ri];
                s.end = proj ? projection->ranges[ri].proj_end : t.ranges.end[ri];
                if (proj) {
                    s.kernels = projection->ranges[ri].ops;
                    s.kernel_ns = projection->ranges[ri].gpu_ns;
                }
                steps.push_back(std::move(s));
            }
            // The first step's own work starts after a stall at its head (a kernel queued at the range's opening
            // that ran half a second later): the stall is reported as such (idle attribution, headline), not as
            // the step's time. Later steps' windows reach back to the previous step's end anyway (token period).
            if (!steps.empty() && steps.front().kernels > 0)
                steps.front().start = stretch_start(t, korder, kstart, steps.front().start, steps.front().end,
                                                    o.first_step_idle_ns, dev_kept, 0.25);
            chain_walls(steps);
            r.source = StepSource::NvtxRanges;
            r.annotated_steps = static_cast<int64_t>(annotated.size());
            for (const auto& f : formats)
                r.batch_source += (r.batch_source.empty() ? "" : "+") + f;
            r.boundary = r.batch_source;
        } else
        // One step range holding a whole model pass (a Hugging Face forward under ProfilerStep, a single
        // generate() prefill): a prefill pass, not a decode step.
        if (matched.size() == 1 && o.min_steps > 1 && projection && matched[0] < projection->ranges.size() &&
            projection->ranges[matched[0]].ops >= 50) {
            const uint32_t ri = matched[0];
            StepInfo s;
            s.range = static_cast<int32_t>(ri);
            s.prefill = true;
            s.start = projection->ranges[ri].proj_start;
            s.end = projection->ranges[ri].proj_end;
            s.kernels = projection->ranges[ri].ops;
            s.kernel_ns = projection->ranges[ri].gpu_ns;
            s.wall_ns = s.end - s.start;
            steps.push_back(s);
            r.source = StepSource::NvtxRanges;
            r.boundary = o.nvtx_step_regex;
            r.note = "one step range (" + std::string(t.str(t.ranges.name[ri])) + ", " +
                     std::to_string(s.kernels) + " GPU ops): a single forward pass, taken as one prefill pass; "
                     "there are no decode steps, so no TPOT";
        } else if (static_cast<int>(matched.size()) >= o.min_steps) {
            const size_t n_steps = matched.size();
            matched.insert(matched.end(), prefill_ranges.begin(), prefill_ranges.end());
            std::vector<uint8_t> is_prefill(t.ranges.size(), 0);
            for (size_t i = n_steps; i < matched.size(); ++i)
                is_prefill[matched[i]] = 1;
            std::sort(matched.begin(), matched.end(), [&](uint32_t a, uint32_t b) {
                return t.ranges.start[a] != t.ranges.start[b] ? t.ranges.start[a] < t.ranges.start[b] : a < b;
            });
            for (uint32_t ri : matched) {
                StepInfo s;
                s.range = static_cast<int32_t>(ri);
                s.prefill = is_prefill[ri] != 0;
                const bool proj = projection && ri < projection->ranges.size() && projection->ranges[ri].ops > 0;
                s.start = proj ? projection->ranges[ri].proj_start : t.ranges.start[ri];
                s.end = proj ? projection->ranges[ri].proj_end : t.ranges.end[ri];
                if (proj) {
                    s.kernels = projection->ranges[ri].ops;
                    s.kernel_ns = projection->ranges[ri].gpu_ns;
                }
                steps.push_back(s);
            }
            chain_walls(steps);
            r.source = StepSource::NvtxRanges;
            r.boundary = o.nvtx_step_regex;
        } else if (o.sampling_boundaries && sampling_class >= 0 && kernel_class.size() == k.size()) {
            int64_t n_samp = 0, n_attn = 0, n_gemm = 0;
            for (uint32_t ki : korder) {
                const int c = kernel_class[ki];
                n_samp += c == sampling_class;
                n_attn += pc.attention >= 0 && c == pc.attention;
                n_gemm += pc.gemm >= 0 && c == pc.gemm;
            }
            const bool per_layer = o.per_layer_guard && runs_once_per_layer(n_samp, n_attn, n_gemm);
            if (!per_layer)
                steps = boundary_steps([&](uint32_t ki) { return kernel_class[ki] == sampling_class; });
            // The most frequent sampling-class kernel name (ties: the lower string id): the boundary kernel when
            // steps are taken from it, the rejected one when it runs once per layer.
            const auto most_frequent_sampling_name = [&] {
                std::unordered_map<StrId, int64_t> cnt;
                for (uint32_t ki : korder)
                    if (kernel_class[ki] == sampling_class)
                        cnt[k.name[ki]] += 1;
                StrId best = 0;
                int64_t bc = -1;
                for (const auto& [n, c] : cnt)
                    if (c > bc || (c == bc && n < best)) {
                        best = n;
                        bc = c;
                    }
                return std::string(t.str(best));
            };
            if (per_layer) {
                r.rejected_boundary = most_frequent_sampling_name();
            } else if (static_cast<int>(steps.size()) >= o.min_steps) {
                r.source = StepSource::SamplingKernels;
                r.boundary = most_frequent_sampling_name();
            } else {
                steps.clear();
            }
        }
        if (steps.empty()) {
            if (korder.empty())
                r.note = "no phases: the trace has no GPU kernels";
            else if (!r.rejected_boundary.empty())
                r.note = "no decode steps found: the only sampling-class kernel (" + r.rejected_boundary +
                         ") runs once per layer (as often as attention), so it is not a sampling kernel; no NVTX "
                         "step ranges (give a boundary kernel with --step-regex)";
            else if (matched.size() == 1)
                r.note = "no decode steps found: one step range only (" +
                         std::string(t.str(t.ranges.name[matched[0]])) +
                         ") and it launched too little GPU work to be a model pass";
            else
                r.note = "no decode steps found: no NVTX step ranges, no sampling kernels (give a boundary kernel "
                         "with --step-regex)";
        }
    }

    // Per-step measures. One list at a time is alive (issue 18: at 10^7 kernels the kernel order, its start and
    // prefix columns, the op intervals and the busy index together were ~44 B a kernel at analyze's peak): the
    // kernel counts first, then the op intervals from the kernel order, then the busy union alone.
    for (auto& s : steps) {
        if (s.range < 0) {
            const auto a = std::lower_bound(kstart.begin(), kstart.end(), s.start) - kstart.begin();
            const auto b = std::lower_bound(kstart.begin(), kstart.end(), s.end) - kstart.begin();
            s.kernels = b - a;
            s.kernel_ns = kprefix[static_cast<size_t>(b)] - kprefix[static_cast<size_t>(a)];
        }
    }
    std::vector<int64_t>().swap(kstart);
    std::vector<int64_t>().swap(kprefix);
    std::vector<Interval> ops;
    if (!steps.empty()) {
        size_t n = korder.size();
        for (size_t i = 0; i < t.memcpy.size(); ++i)
            n += dev_kept(t.memcpy.device[i]);
        for (size_t i = 0; i < t.memset.size(); ++i)
            n += dev_kept(t.memset.device[i]);
        ops.reserve(n);
        for (uint32_t i : korder)
            ops.push_back({k.start[i], k.end[i]});
        for (size_t i = 0; i < t.memcpy.size(); ++i)
            if (dev_kept(t.memcpy.device[i]))
                ops.push_back({t.memcpy.start[i], t.memcpy.end[i]});
        for (size_t i = 0; i < t.memset.size(); ++i)
            if (dev_kept(t.memset.device[i]))
                ops.push_back({t.memset.start[i], t.memset.end[i]});
    }
    std::vector<uint32_t>().swap(korder);
    const BusyIndex busy(steps.empty() ? std::vector<Interval>{} : merge_intervals(std::move(ops)));
    Sorted syncs, launches;
    {
        size_t ns = 0, nl = 0;
        for (size_t i = 0; i < t.api.size(); ++i) {
            cancel_point(i);
            ns += (t.api.flags[i] & kApiSync) != 0;
            nl += (t.api.flags[i] & (kApiLaunch | kApiGraphLaunch)) != 0;
        }
        syncs.v.reserve(ns);
        launches.v.reserve(nl);
    }
    for (size_t i = 0; i < t.api.size(); ++i) {
        cancel_point(i);
        if (t.api.flags[i] & kApiSync)
            syncs.v.push_back(t.api.start[i]);
        if (t.api.flags[i] & (kApiLaunch | kApiGraphLaunch))
            launches.v.push_back(t.api.start[i]);
    }
    std::sort(syncs.v.begin(), syncs.v.end());
    std::sort(launches.v.begin(), launches.v.end());
    for (auto& s : steps) {
        const int64_t window = s.end - s.start;
        s.busy_ns = busy.busy_in(s.start, s.end);
        s.gap_ns = std::max<int64_t>(0, window - s.busy_ns);
        s.utilization = window > 0 ? static_cast<double>(s.busy_ns) / static_cast<double>(window) : 0;
        const int64_t h0 = s.range >= 0 ? t.ranges.start[static_cast<size_t>(s.range)] : s.start;
        const int64_t h1 = s.range >= 0 ? t.ranges.end[static_cast<size_t>(s.range)] : s.end;
        s.sync_calls = syncs.count_in(h0, h1);
        s.launch_calls = launches.count_in(h0, h1);
    }

    // Prefill vs decode. A serving step's annotation states its batch (step_grammar.h): its kind follows from the
    // token shares; prefill-only is a prefill step, decode-only a decode step, the rest mixed (chunked prefill).
    bool named_batches = false;
    if (r.source == StepSource::NvtxRanges && grammar) {
        for (auto& st : steps) {
            if (!st.batch.known())
                continue;
            st.kind = grammar->kind(st.batch);
            if (st.kind == StepKind::Unknown)
                continue;
            named_batches = true;
            st.prefill = st.kind == StepKind::PrefillOnly;
            st.mixed = st.kind == StepKind::PrefillHeavy || st.kind == StepKind::Mixed || st.kind == StepKind::DecodeHeavy;
        }
    }
    // Without named batches: the query length of the attention calls each step's host range made (PyTorch profiler
    // with record_shapes). One token per sequence is decode; a long query (a prompt, or a chunk of one) is prefill,
    // whatever the step's size relative to the others: a capture of prefill passes alone has no decode step to be
    // 3x longer than. Lengths in between (speculative verification) are left to the kernel-time rule.
    bool shaped_phases = false;
    if (!named_batches && r.source == StepSource::NvtxRanges) {
        const std::vector<AttentionCall> calls = attention_calls(t);
        if (!calls.empty()) {
            for (auto& st : steps) {
                if (st.range < 0)
                    continue;
                const int64_t h0 = t.ranges.start[static_cast<size_t>(st.range)];
                const int64_t h1 = t.ranges.end[static_cast<size_t>(st.range)];
                auto it = std::lower_bound(calls.begin(), calls.end(), h0,
                                           [](const AttentionCall& c, int64_t v) { return c.start < v; });
                int64_t lo = INT64_MAX, hi = 0;
                for (; it != calls.end() && it->start <= h1; ++it) {
                    lo = std::min(lo, it->sq);
                    hi = std::max(hi, it->sq);
                }
                if (hi == 0)
                    continue;
                if (hi == 1) {
                    shaped_phases = true;
                    st.prefill = false;
                } else if (lo >= o.prefill_min_query_tokens) {
                    shaped_phases = true;
                    st.prefill = true;
                }
            }
            if (shaped_phases) {
                r.phase_source = "attention_shapes";
                named_batches = true;   // decided per step; the kernel-time rule stays out
            }
        }
    }
    // Otherwise the shapes of each step's kernels (record_shapes, any step source: an eager decode loop delimited by
    // its sampling kernels, a generate() whose prompt ran as its first step). Attention calls decide as above; without
    // them, a step whose median GEMM M is at least prefill_min_query_tokens x the smallest step's is a prefill pass
    // (M = batch x prompt tokens against M = batch: 12 GEMMs at M = 8192 before decode steps at M = 16). Steps the
    // shapes do not decide are decode steps, as with attention calls.
    const bool named_prefill = std::any_of(steps.begin(), steps.end(), [](const StepInfo& s) { return s.prefill; });
    if (!named_batches && !named_prefill && !steps.empty() &&
        std::is_sorted(steps.begin(), steps.end(), [](const StepInfo& a, const StepInfo& b) { return a.start < b.start; })) {
        const std::vector<StepShapes> sh = step_shapes(t, steps);
        int64_t ref = INT64_MAX;
        for (const auto& x : sh)
            if (x.gemm_m > 0)
                ref = std::min(ref, x.gemm_m);
        bool by_attention = false, by_gemm = false, prefill_found = false;
        std::vector<int8_t> decided(steps.size(), -1);   // -1 undecided, 0 decode, 1 prefill
        for (size_t j = 0; j < steps.size(); ++j) {
            if (sh[j].sq_hi == 1) {
                decided[j] = 0;
                by_attention = true;
            } else if (sh[j].sq_hi > 0 && sh[j].sq_lo >= o.prefill_min_query_tokens) {
                decided[j] = 1;
                by_attention = true;
            } else if (sh[j].gemm_m > 0 && ref < INT64_MAX && sh[j].gemm_m >= o.prefill_min_query_tokens * ref) {
                decided[j] = 1;
                by_gemm = true;
            }
            prefill_found |= decided[j] == 1;
        }
        // The shapes decide when they name a prefill pass, or decode for every step (a decode loop's one-token
        // queries); a step they say nothing about is left to the kernel-time rule only when they name nothing.
        const bool all_decode = std::all_of(decided.begin(), decided.end(), [](int8_t d) { return d == 0; });
        if (prefill_found || all_decode) {
            for (size_t j = 0; j < steps.size(); ++j)
                steps[j].prefill = decided[j] == 1;
            r.phase_source = by_attention ? "attention_shapes" : by_gemm ? "gemm_shapes" : "attention_shapes";
            named_batches = true;
        }
    }
    if (multi_rank)
        r.note = "merged ranks: steps are those of rank " + std::to_string(rank0) + " (of ranks " +
                 std::to_string(rank0) + ".." + std::to_string(rank_hi) + "), not their interleaving";
    const bool explicit_prefill = named_batches || (r.source == StepSource::NvtxRanges &&
                                  std::any_of(steps.begin(), steps.end(), [](const StepInfo& s) { return s.prefill; }));
    if (explicit_prefill) {
        // Prefill ranges named as such, or told by the attention shapes; nothing to infer.
        if (r.phase_source.empty())
            r.phase_source = "names";
    } else if (steps.size() >= 2) {
        r.phase_source = "kernel_time";
        std::vector<int64_t> rest;
        for (size_t i = 1; i < steps.size(); ++i)
            rest.push_back(steps[i].kernel_ns);
        const double ref = compute_stats(rest).median;
        for (auto& s : steps)
            s.prefill = static_cast<double>(s.kernel_ns) > o.prefill_factor * ref && ref > 0;
    } else if (!steps.empty() && r.note.empty()) {
        r.note = "only one step: too few to tell prefill from decode";
    }
    // Every step has a kind: its annotation's, else its phase's. TPOT comes from the decode-dominated steps only
    // (decode-only, and decode-heavy mixed steps), so a prefill or a prefill-heavy chunk never reads as a token time.
    std::vector<size_t> decode;
    for (size_t i = 0; i < steps.size(); ++i) {
        StepInfo& st = steps[i];
        if (st.kind == StepKind::Unknown)
            st.kind = st.mixed ? StepKind::Mixed : st.prefill ? StepKind::PrefillOnly : StepKind::DecodeOnly;
        if (st.mixed) {
            r.mixed_steps += 1;
        } else if (st.prefill) {
            r.prefill_steps += 1;
            r.prefill_ns += st.wall_ns;
        } else {
            r.decode_steps += 1;
        }
        if (st.decode_dominated() && !st.prefill)
            decode.push_back(i);
    }
    if (r.annotated_steps == 1 && steps.size() == 1) {
        const StepInfo& st = steps.front();
        std::string name(t.str(t.ranges.name[static_cast<size_t>(st.range)]));
        if (name.size() > 60)
            name = name.substr(0, 57) + "...";
        const std::string comp = st.batch.composition();
        r.note = "one serving step captured (" + name + ": " + step_kind_name(st.kind) +
                 (comp.empty() ? std::string() : ", " + comp) + "); it is analysed from the " +
                 std::to_string(st.kernels) + " GPU ops its range launched" +
                 (decode.empty() ? std::string("; it has no decode-dominated step, so no TPOT")
                                 : std::string("; TPOT is this one step's GPU time, with no warm-up excluded"));
    }
    size_t warm = decode.size() > static_cast<size_t>(std::max(o.warmup_steps, 0))
                      ? static_cast<size_t>(std::max(o.warmup_steps, 0))
                      : 0;
    if (warm == 0 && o.warmup_steps > 0 && !decode.empty() && r.note.empty())
        r.note = "too few decode steps to exclude warm-up; TPOT over all of them";
    // Slow leading steps beyond the fixed warm-up (lazy loads, autotuning): compared with the median of the second
    // half of the decode steps, which no warm-up reaches.
    if (warm > 0 && o.warmup_factor > 0 && decode.size() >= 4) {
        std::vector<int64_t> tail;
        for (size_t j = decode.size() / 2; j < decode.size(); ++j)
            tail.push_back(steps[decode[j]].wall_ns);
        const double ref = compute_stats(tail).median;
        while (warm < decode.size() / 2 && ref > 0 &&
               static_cast<double>(steps[decode[warm]].wall_ns) > o.warmup_factor * ref) {
            ++warm;
            ++r.warmup_detected;
        }
    }
    r.warmup_excluded = static_cast<int64_t>(warm);
    std::vector<int64_t> tpot;
    double util = 0, kern = 0, sync = 0;
    for (size_t j = 0; j < decode.size(); ++j) {
        StepInfo& s = steps[decode[j]];
        if (j < warm) {
            s.warmup = true;
            continue;
        }
        tpot.push_back(s.wall_ns);
        if (tpot.size() == 1)
            r.steady_start = s.start;
        r.steady_end = std::max(r.steady_end, s.end);
        util += s.utilization;
        kern += static_cast<double>(s.kernels);
        sync += static_cast<double>(s.sync_calls);
    }
    r.steady_steps = static_cast<int64_t>(tpot.size());
    if (!tpot.empty()) {
        const double n = static_cast<double>(tpot.size());
        r.steady_utilization = util / n;
        r.steady_kernels_per_step = kern / n;
        r.steady_sync_calls_per_step = sync / n;
        std::vector<int64_t> copy = tpot;
        const Stats st = compute_stats(copy);
        r.tpot_median_ns = st.median;
        r.tpot_mean_ns = st.avg;
        r.tpot_p90_ns = percentile(tpot, 90);
    }
    r.steps = std::move(steps);
    return r;
}

} // namespace sl
