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

namespace {

// A serving trace built by hand: each step is a host range with the framework's own name, launching `n` kernels of
// `k_us` µs back to back (launch calls 2 µs apart inside the range). Times in µs.
struct Serving {
    Trace t;
    uint32_t thr = 0, corr = 1;
    Serving()
    {
        t.meta.devices.push_back({});
        t.meta.processes.push_back({1, "p", 0});
        thr = t.thread_index(1, 1, 1);
    }
    // Returns the GPU end of the step.
    int64_t step(const std::string& name, int64_t host0, int64_t gpu0, int n, int64_t k_us,
                 const std::string& inner = {})
    {
        const int64_t host1 = host0 + 2 * n + 10;
        t.ranges.append(host0 * us, host1 * us, t.strings.intern(name), thr, RangeKind::UserAnnotation);
        if (!inner.empty())
            t.ranges.append((host0 + 1) * us, (host1 - 1) * us, t.strings.intern(inner), thr, RangeKind::UserAnnotation);
        int64_t g = gpu0;
        for (int i = 0; i < n; ++i) {
            const uint32_t c = corr++;
            const int64_t a = host0 + 2 + 2 * i;
            t.api.append(a * us, (a + 1) * us, t.strings.intern("cudaLaunchKernel"), c, thr, ApiClass::Runtime,
                         classify_api_name("cudaLaunchKernel"));
            const size_t k = t.kernels.append(g * us, (g + k_us) * us, t.strings.intern(i % 2 ? "gemm_kernel" : "attn_fwd"));
            t.kernels.correlation[k] = c;
            g += k_us;
        }
        return g;
    }
};

std::string vllm(int64_t c, int64_t csq, int64_t csk, int64_t g, int64_t gsk)
{
    auto n = [](int64_t v) { return std::to_string(v); };
    return "execute_" + n(csq + g) + "_context_" + n(c) + "(sq" + n(csq) + "sk" + n(csk) + "sqsq" + n(csq * csq) +
           "sqsk" + n(csq * csk) + ")_generation_" + n(g) + "(sq" + n(g) + "sk" + n(gsk) + "sqsq" + n(g) + "sqsk" +
           n(gsk) + ")";
}

} // namespace

// vLLM names every step with its batch: a prefill, decode steps, a chunked-prefill step dominated by its chunk and
// one dominated by its decode tokens. Each step's kind and composition are what its name says; TPOT comes from the
// decode-dominated steps only, each measured from the GPU work its range launched.
TEST(Phases, VllmStepAnnotationsGiveKindAndComposition)
{
    Serving s;
    int64_t e = s.step(vllm(2, 2048, 2048, 0, 0), 0, 30, 10, 100);             // prefill-only, 1000 µs
    e = s.step(vllm(0, 0, 0, 32, 32 * 1000), e + 20, e + 40, 10, 5);          // decode-only, 50 µs
    e = s.step(vllm(0, 0, 0, 32, 32 * 1001), e + 20, e + 40, 10, 5);          // decode-only
    e = s.step(vllm(1, 512, 512, 32, 32 * 1002), e + 20, e + 40, 10, 30);     // prefill-heavy (512 of 544)
    e = s.step(vllm(1, 4, 4, 32, 32 * 1003), e + 20, e + 40, 10, 6);          // decode-heavy (4 of 36)
    e = s.step(vllm(0, 0, 0, 32, 32 * 1004), e + 20, e + 40, 10, 5);          // decode-only
    s.t.finish();
    PhaseOptions o;
    o.warmup_steps = 0;
    const PhaseResult r = run(s.t, o);
    ASSERT_EQ(r.steps.size(), 6u);
    EXPECT_EQ(r.source, StepSource::NvtxRanges);
    EXPECT_EQ(r.annotated_steps, 6);
    EXPECT_EQ(r.batch_source, "vllm_execute");
    const StepKind want[] = {StepKind::PrefillOnly, StepKind::DecodeOnly, StepKind::DecodeOnly,
                             StepKind::PrefillHeavy, StepKind::DecodeHeavy, StepKind::DecodeOnly};
    for (size_t i = 0; i < 6; ++i)
        EXPECT_EQ(r.steps[i].kind, want[i]) << "step " << i;
    EXPECT_EQ(r.steps[0].batch.prefill_requests, 2);
    EXPECT_EQ(r.steps[0].batch.prefill_tokens, 2048);
    EXPECT_EQ(r.steps[1].batch.decode_requests, 32);
    EXPECT_EQ(r.steps[1].batch.decode_kv_tokens, 32000);
    // Phases: prefill-only is prefill, decode-only decode, the rest mixed.
    EXPECT_EQ(r.prefill_steps, 1);
    EXPECT_EQ(r.decode_steps, 3);
    EXPECT_EQ(r.mixed_steps, 2);
    EXPECT_TRUE(r.steps[0].prefill);
    EXPECT_TRUE(r.steps[3].mixed && r.steps[4].mixed);
    // GPU time from the step's own kernels: the prefill's window is its 10 x 100 µs, not its host range.
    EXPECT_EQ(r.steps[0].kernel_ns, 1000 * us);
    EXPECT_EQ(r.steps[0].wall_ns, 1000 * us);
    // TPOT over the decode-dominated steps (3 decode-only of 50 + 40 µs of gap, 1 decode-heavy of 60 + 40):
    // the prefill-heavy step (300 µs of kernels) is not a token time.
    EXPECT_EQ(r.steady_steps, 4);
    EXPECT_DOUBLE_EQ(r.tpot_median_ns, 90 * us);
    EXPECT_EQ(r.phase_source, "names");
}

// SGLang writes step[…] inside its execute_… range: one step, whose batch the two names give together; a capture
// of one step says so and still gets its step measured.
TEST(Phases, OneSglangStepWithNestedAnnotations)
{
    Serving s;
    s.step(vllm(15, 15360, 15360, 0, 0), 0, 5000, 40, 100, "step[EXTEND bs=15 toks=15360]");
    s.t.finish();
    const PhaseResult r = run(s.t);
    ASSERT_EQ(r.steps.size(), 1u);
    EXPECT_EQ(r.annotated_steps, 1);
    EXPECT_EQ(r.batch_source, "vllm_execute+sglang_step");
    const StepInfo& st = r.steps[0];
    EXPECT_EQ(st.kind, StepKind::PrefillOnly);
    EXPECT_EQ(st.batch.format, "vllm_execute");   // the one with the attention sums speaks for the step
    EXPECT_EQ(st.batch.framework, "SGLang");      // ... and step[…] says whose execute_… it is
    EXPECT_EQ(st.batch.prefill_requests, 15);
    EXPECT_EQ(st.batch.prefill_kv_tokens, 15360);
    EXPECT_EQ(st.kernels, 40);
    EXPECT_EQ(st.start, 5000 * us);   // its own GPU work, not the host range that opened 5 ms earlier
    EXPECT_EQ(st.wall_ns, 4000 * us);
    EXPECT_EQ(r.prefill_steps, 1);
    EXPECT_EQ(r.steady_steps, 0);
    EXPECT_EQ(r.tpot_median_ns, 0);
    EXPECT_NE(r.note.find("one serving step captured"), std::string::npos) << r.note;
    EXPECT_NE(r.note.find("prefill-only"), std::string::npos) << r.note;
    EXPECT_NE(r.note.find("no TPOT"), std::string::npos) << r.note;
}

// One decode step (vLLM's graph decode in ../shared/data is one): TPOT is that step's GPU time, said so.
TEST(Phases, OneDecodeStepHasItsOwnTpot)
{
    Serving s;
    s.step(vllm(0, 0, 0, 32, 55086), 0, 400'000, 100, 100);   // 10 ms of kernels after a 400 ms wait
    s.t.finish();
    const PhaseResult r = run(s.t);
    ASSERT_EQ(r.steps.size(), 1u);
    EXPECT_EQ(r.steps[0].kind, StepKind::DecodeOnly);
    EXPECT_EQ(r.steady_steps, 1);
    EXPECT_DOUBLE_EQ(r.tpot_median_ns, 10'000 * us);
    EXPECT_NE(r.note.find("TPOT is this one step's GPU time"), std::string::npos) << r.note;
}

// A kernel-regex step after a long stall: the first step starts where its GPU work does, not at the capture's first
// op 400 ms earlier (which made "TPOT 473.7 ms" of a ~10 ms step).
TEST(Phases, FirstKernelRegexStepStartsAfterALeadingStall)
{
    Trace t;
    t.meta.devices.push_back({});
    auto k = [&](int64_t s, int64_t e, const char* n) { t.kernels.append(s * us, e * us, t.strings.intern(n)); };
    k(0, 5, "fill_kernel");                     // a setup kernel at the head of the capture
    for (int step = 0; step < 3; ++step) {
        const int64_t b = 400'000 + step * 10'050;
        for (int i = 0; i < 99; ++i)
            k(b + i * 100, b + i * 100 + 100, "gemm_kernel");
        k(b + 9'900, b + 10'000, "sample_boundary");
    }
    t.finish();
    PhaseOptions o;
    o.step_regex = "sample_boundary";
    o.warmup_steps = 0;
    const PhaseResult r = run(t, o);
    ASSERT_EQ(r.steps.size(), 3u);
    EXPECT_EQ(r.steps[0].start, 400'000 * us);
    EXPECT_EQ(r.steps[0].wall_ns, 10'000 * us);
    EXPECT_EQ(r.steps[1].wall_ns, 10'050 * us);
    EXPECT_DOUBLE_EQ(r.tpot_median_ns, 10'050 * us);
}

// The synthetic generator's serving annotations (sightline-cli generate --step-annotation vllm|sglang): the same
// steps, named the two frameworks' ways, give the same kinds and batches.
TEST(Phases, SyntheticServingAnnotationsBothFrameworks)
{
    for (const char* fw : {"vllm", "sglang"}) {
        SynthOptions so;
        so.prefill_steps = 1;
        so.decode_steps = 12;
        so.layers = 2;
        so.mixed_every = 4;
        so.batch = 16;
        so.step_annotation = fw;
        const PhaseResult r = run(make_synthetic_trace(so));
        SCOPED_TRACE(fw);
        ASSERT_EQ(r.steps.size(), 13u);
        EXPECT_EQ(r.annotated_steps, 13);
        EXPECT_EQ(r.steps[0].kind, StepKind::PrefillOnly);
        EXPECT_EQ(r.steps[0].batch.prefill_tokens, so.prefill_tokens);
        int mixed = 0, decode = 0;
        for (size_t i = 1; i < r.steps.size(); ++i) {
            const StepInfo& st = r.steps[i];
            EXPECT_EQ(st.batch.decode_requests, 16) << i;
            if (i % 4 == 0) {
                ++mixed;
                EXPECT_EQ(st.kind, StepKind::PrefillHeavy) << i;   // a 512-token chunk with 16 decode tokens
                EXPECT_EQ(st.batch.prefill_requests, 1) << i;
                EXPECT_EQ(st.batch.prefill_tokens, 512) << i;
            } else {
                ++decode;
                EXPECT_EQ(st.kind, StepKind::DecodeOnly) << i;
            }
        }
        EXPECT_EQ(mixed, 3);
        EXPECT_EQ(r.mixed_steps, 3);
        EXPECT_EQ(r.decode_steps, decode);
        // The vLLM names carry the KV sums; SGLang's step[DECODE bs=…] does not.
        if (std::string(fw) == "vllm")
            EXPECT_EQ(r.steps[1].batch.decode_kv_tokens, 16 * so.context_tokens);
        else
            EXPECT_EQ(r.steps[1].batch.decode_kv_tokens, -1);
    }
}
