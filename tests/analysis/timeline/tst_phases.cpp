// Prefill/decode phases and decode steps: hand-built traces with hand-computed TPOT, and the synthetic decode
// (NVTX steps and sampling-kernel steps) checked against an independent computation.
#include <gtest/gtest.h>

#include <algorithm>

#include "analysis/trace/errors.h"
#include "analysis/timeline/nvtx_projection.h"
#include "analysis/timeline/op_classes.h"
#include "analysis/timeline/phases.h"
#include "analysis/trace/stats.h"
#include "analysis/io/synthetic.h"

using namespace sl;

namespace {
constexpr int64_t us = 1000;

PhaseResult run(const Trace& t, const PhaseOptions& o = {})
{
    const OpClassifier c = OpClassifier::load();
    const OpClassResult cls = classify_ops(t, c);
    const NvtxProjectionResult p = project_nvtx(t);
    return analyze_phases(t, cls.kernel_class, c.class_index("sampling"), &p, o);
}

// Prefill (a 1000 µs GEMM) closed by argmax at 1014 µs, then 5 decode steps: the first (warm-up) 80 µs long, the
// others 50 µs: gemm 20 µs, norm 10 µs, argmax 10 µs, 10 µs of gaps.
Trace argmax_trace(bool fold = false)
{
    Trace t;
    t.meta.devices.push_back({});
    auto k = [&](int64_t s, int64_t e, const char* n) { t.kernels.append(s * us, e * us, t.strings.intern(n)); };
    k(0, 1000, "gemm_kernel");
    k(1001, 1011, "rms_norm_kernel");
    k(1012, 1014, "argmax_kernel");
    int64_t e = 1014;
    for (int i = 0; i < 5; ++i) {
        const int64_t lead = i == 0 ? 35 : 5;
        k(e + lead, e + lead + 20, "gemm_kernel");
        k(e + lead + 21, e + lead + 31, "rms_norm_kernel");
        if (fold) {   // top-k, then multinomial: one boundary, not two
            k(e + lead + 35, e + lead + 40, "topk_kernel");
            k(e + lead + 40, e + lead + 45, "multinomial_kernel");
            e += lead + 45;
        } else {
            k(e + lead + 35, e + lead + 45, "argmax_kernel");
            e += lead + 45;
        }
    }
    t.finish();
    return t;
}
} // namespace

TEST(Phases, ArgmaxBoundariesHandComputed)
{
    PhaseOptions o;
    o.warmup_steps = 1;
    const PhaseResult r = run(argmax_trace(), o);
    EXPECT_EQ(r.source, StepSource::SamplingKernels);
    EXPECT_EQ(r.boundary, "argmax_kernel");
    ASSERT_EQ(r.steps.size(), 6u);
    EXPECT_TRUE(r.steps[0].prefill);
    EXPECT_EQ(r.prefill_steps, 1);
    EXPECT_EQ(r.prefill_ns, 1014 * us);
    EXPECT_EQ(r.decode_steps, 5);
    EXPECT_EQ(r.warmup_excluded, 1);
    EXPECT_TRUE(r.steps[1].warmup);
    EXPECT_EQ(r.steps[1].wall_ns, 80 * us);
    EXPECT_EQ(r.steady_steps, 4);
    for (size_t i = 2; i < 6; ++i) {
        EXPECT_EQ(r.steps[i].wall_ns, 50 * us);
        EXPECT_EQ(r.steps[i].kernels, 3);
        EXPECT_EQ(r.steps[i].kernel_ns, 40 * us);
        EXPECT_EQ(r.steps[i].busy_ns, 40 * us);
        EXPECT_EQ(r.steps[i].gap_ns, 10 * us);
        EXPECT_DOUBLE_EQ(r.steps[i].utilization, 0.8);
    }
    EXPECT_DOUBLE_EQ(r.tpot_median_ns, 50 * us);
    EXPECT_DOUBLE_EQ(r.tpot_p90_ns, 50 * us);
    EXPECT_DOUBLE_EQ(r.steady_utilization, 0.8);
    EXPECT_DOUBLE_EQ(r.steady_kernels_per_step, 3);

    o.warmup_steps = 0;   // the 80 µs step now counts: p90 of {80,50,50,50,50} = 50 + 0.6·30 = 68
    const PhaseResult r0 = run(argmax_trace(), o);
    EXPECT_EQ(r0.steady_steps, 5);
    EXPECT_DOUBLE_EQ(r0.tpot_p90_ns, 68 * us);
}

TEST(Phases, ConsecutiveSamplingKernelsFoldIntoOneBoundary)
{
    const PhaseResult r = run(argmax_trace(true));
    EXPECT_EQ(r.source, StepSource::SamplingKernels);
    // seg0 ends at argmax; each decode step ends at its multinomial (topk folded into the same boundary).
    ASSERT_EQ(r.steps.size(), 6u);
    EXPECT_EQ(r.steps[2].wall_ns, 50 * us);
    EXPECT_EQ(r.steps[2].kernels, 4);
}

TEST(Phases, UserRegexAndBadRegex)
{
    PhaseOptions o;
    o.step_regex = "rms_norm";
    const PhaseResult r = run(argmax_trace(), o);
    EXPECT_EQ(r.source, StepSource::KernelRegex);
    EXPECT_EQ(r.steps.size(), 6u);
    EXPECT_EQ(r.steps[0].end, 1011 * us);
    o.step_regex = "no_such_kernel";
    const PhaseResult none = run(argmax_trace(), o);
    EXPECT_TRUE(none.steps.empty());
    EXPECT_FALSE(none.note.empty());
    o.step_regex = "([";
    EXPECT_THROW(run(argmax_trace(), o), TraceError);
}

TEST(Phases, NoBoundariesSaysSo)
{
    Trace t;
    t.kernels.append(0, 10, t.strings.intern("gemm"));
    t.finish();
    const PhaseResult r = run(t);
    EXPECT_EQ(r.source, StepSource::None);
    EXPECT_EQ(r.decode_steps, 0);
    EXPECT_FALSE(r.note.empty());
}

TEST(Phases, SyntheticNvtxStepsMatchIndependentComputation)
{
    SynthOptions so;   // 2 prefill passes, 32 decode steps, NVTX "prefill N" / "decode_step N"
    const Trace t = make_synthetic_trace(so);
    const PhaseResult r = run(t);
    EXPECT_EQ(r.source, StepSource::NvtxRanges);
    EXPECT_EQ(r.prefill_steps, so.prefill_steps);
    EXPECT_EQ(r.decode_steps, so.decode_steps);
    EXPECT_EQ(r.warmup_excluded, 2);
    EXPECT_EQ(r.steady_steps, so.decode_steps - 2);
    // Independent: for each decode_step range, the last end of the kernels whose launch call started inside it.
    std::vector<std::pair<int64_t, int64_t>> steps;   // (range start, GPU end)
    for (size_t i = 0; i < t.ranges.size(); ++i) {
        const std::string_view n = t.str(t.ranges.name[i]);
        if (n.rfind("decode_step", 0) != 0 && n.rfind("prefill", 0) != 0)
            continue;
        int64_t end = 0, count = 0;
        for (size_t k = 0; k < t.kernels.size(); ++k) {
            const int32_t a = t.kernels.launch_api[k];
            if (a >= 0 && t.api.start[static_cast<size_t>(a)] >= t.ranges.start[i] &&
                t.api.start[static_cast<size_t>(a)] < t.ranges.end[i]) {
                end = std::max(end, t.kernels.end[k]);
                ++count;
            }
        }
        steps.push_back({t.ranges.start[i], end});
        (void)count;
    }
    std::sort(steps.begin(), steps.end());
    ASSERT_EQ(steps.size(), static_cast<size_t>(so.prefill_steps + so.decode_steps));
    std::vector<int64_t> tpot;
    for (size_t i = static_cast<size_t>(so.prefill_steps) + 2; i < steps.size(); ++i)
        tpot.push_back(steps[i].second - steps[i - 1].second);
    std::vector<int64_t> copy = tpot;
    EXPECT_DOUBLE_EQ(r.tpot_median_ns, compute_stats(copy).median);
    EXPECT_DOUBLE_EQ(r.tpot_p90_ns, percentile(tpot, 90));
    EXPECT_GT(r.steady_utilization, 0.5);
    EXPECT_LE(r.steady_utilization, 1.0);
}

TEST(Phases, SyntheticWithoutNvtxUsesArgmax)
{
    SynthOptions so;
    so.nvtx = false;
    const Trace t = make_synthetic_trace(so);
    const PhaseResult r = run(t);
    EXPECT_EQ(r.source, StepSource::SamplingKernels);
    EXPECT_NE(r.boundary.find("ArgMaxOps"), std::string::npos);   // PyTorch's argmax is a reduce_kernel
    // Each prefill pass and each decode step ends with one sampling kernel.
    EXPECT_EQ(r.prefill_steps, so.prefill_steps);
    EXPECT_EQ(r.decode_steps, so.decode_steps);
    // Steady decode steps all have the same kernel count: layers × per-layer ops + the closing ops.
    const int64_t k0 = r.steps.back().kernels;
    for (const auto& s : r.steps) {
        if (!s.prefill && !s.warmup) {
            EXPECT_EQ(s.kernels, k0);
        }
    }
}
