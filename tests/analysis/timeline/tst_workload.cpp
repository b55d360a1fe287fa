// Issue 13: workload recognition, clock-offset detection and the phase rules that depend on them, on small traces
// whose right answer is plain from their construction.
#include <gtest/gtest.h>

#include "analysis/io/synthetic.h"
#include "analysis/timeline/analysis.h"
#include "analysis/trace/clock_offset.h"
#include "analysis/trace/merge.h"

using namespace sl;

namespace {

bool has_code(const WorkloadResult& w, const std::string& code)
{
    for (const auto& x : w.warnings)
        if (x.code == code)
            return true;
    return false;
}

// One launch call and its kernel per entry: kernel starts `delay` after its call began.
Trace launches(const std::vector<int64_t>& delays)
{
    Trace t;
    const StrId launch = t.strings.intern("cudaLaunchKernel");
    const StrId k = t.strings.intern("gemm_kernel");
    const uint32_t th = t.thread_index(1, 1, 1);
    int64_t cpu = 1'000'000;
    for (size_t i = 0; i < delays.size(); ++i) {
        const auto corr = static_cast<uint32_t>(i + 1);
        t.api.append(cpu, cpu + 4'000, launch, corr, th, ApiClass::Runtime, classify_api_name("cudaLaunchKernel"));
        const size_t r = t.kernels.append(cpu + delays[i], cpu + delays[i] + 20'000, k);
        t.kernels.correlation[r] = corr;
        t.kernels.device[r] = t.device_index(0);
        t.kernels.process[r] = t.process_index(1);   // the launching thread's process: links by (pid, corr)
        cpu += 100'000;
    }
    t.finish();
    return t;
}

} // namespace

TEST(ClockOffset, OneClockIsNotFlagged)
{
    // Delays of 6 us to 80 ms: a queue that drains (the 6 us launch) is a queue on one clock, however deep it gets.
    const ClockOffset c = detect_clock_offset(launches({6'000, 50'000, 80'000'000, 7'000}));
    EXPECT_FALSE(c.detected) << c.reason;
    EXPECT_EQ(c.links, 4);
    EXPECT_EQ(c.min_delay_ns, 6'000);
    EXPECT_EQ(c.shift_ns, 0);
}

TEST(ClockOffset, ConstantFloorAboveAnyQueueIsAnOffset)
{
    // Every kernel starts 151-160 ms after its launch: no launch ever found the GPU idle on one clock.
    const ClockOffset c = detect_clock_offset(launches({151'000'000, 152'000'000, 160'000'000}));
    ASSERT_TRUE(c.detected);
    EXPECT_EQ(c.min_delay_ns, 151'000'000);
    EXPECT_EQ(c.shift_ns, -(151'000'000 - 5'000));
    EXPECT_NE(c.reason.find("fastest"), std::string::npos);
}

TEST(ClockOffset, KernelsBeforeTheirLaunchAreAnOffset)
{
    // GPU clock 30 ms behind: kernels "start" before the call that launched them.
    Trace t = launches({-30'000'000, -29'990'000, -29'995'000, -29'000'000});
    const ClockOffset c = detect_clock_offset(t);
    ASSERT_TRUE(c.detected);
    EXPECT_EQ(c.negative, 4);
    EXPECT_EQ(c.shift_ns, 30'000'000 + 5'000);
    shift_gpu_times(t, c.shift_ns);
    EXPECT_FALSE(detect_clock_offset(t).detected);
    EXPECT_EQ(t.kernels.start[0] - t.api.start[0], 5'000);
    // Analysed without the correction, the same trace warns.
    const Trace raw = launches({-30'000'000, -29'990'000, -29'995'000, -29'000'000});
    EXPECT_TRUE(has_code(analyze_workload(raw), "clock_skew"));
}

TEST(Workload, SyntheticDecodeIsEagerInferenceAndGraphsAreSeen)
{
    SynthOptions o = synth_preset("decode");
    o.decode_steps = 8;
    const WorkloadResult eager = analyze_workload(make_synthetic_trace(o));
    EXPECT_EQ(eager.kind, WorkloadKind::Inference);
    EXPECT_EQ(eager.execution, ExecutionMode::Eager);
    EXPECT_EQ(eager.graph_kernels, 0);
    o.cuda_graphs = true;
    o.prefill_steps = 0;
    const WorkloadResult graphs = analyze_workload(make_synthetic_trace(o));
    EXPECT_EQ(graphs.execution, ExecutionMode::CudaGraphs);
    EXPECT_EQ(graphs.graph_launches, 8);
}

TEST(Workload, BackwardOpsMakeATrainingRunWithNoDecodePhases)
{
    // The decode sample, plus one autograd CPU operator: a training run. Its NVTX "decode_step" ranges are then
    // training iterations, never decode steps, and no TPOT exists.
    SynthOptions o = synth_preset("decode");
    o.decode_steps = 8;
    Trace t = make_synthetic_trace(o);
    const uint32_t th = t.ranges.thread.empty() ? 0 : t.ranges.thread[0];
    t.ranges.append(t.meta.capture_start + 10, t.meta.capture_start + 20,
                    t.strings.intern("autograd::engine::evaluate_function: MmBackward0"), th, RangeKind::CpuOp);
    t.finish();
    const AnalysisResult r = analyze(t, AnalysisOptions{});
    EXPECT_EQ(r.workload.kind, WorkloadKind::Training);
    EXPECT_TRUE(r.phases.steps.empty());
    EXPECT_EQ(r.phases.decode_steps, 0);
    EXPECT_EQ(r.phases.prefill_steps, 0);
    EXPECT_EQ(r.phases.tpot_median_ns, 0);
    EXPECT_EQ(r.phases.training_iterations, 10);   // 2 prefill + 8 decode ranges
    EXPECT_NE(r.phases.note.find("training run"), std::string::npos) << r.phases.note;
}

TEST(Workload, NoGpuActivityWarnsAndCpuOpsAreNotNvtx)
{
    Trace t;
    const uint32_t th = t.thread_index(1, 1, 1);
    t.ranges.append(0, 1'000'000, t.strings.intern("aten::add"), th, RangeKind::CpuOp);
    t.finish();
    const WorkloadResult w = analyze_workload(t);
    EXPECT_TRUE(has_code(w, "no_gpu_activity"));
    EXPECT_EQ(w.execution, ExecutionMode::None);
    EXPECT_EQ(w.kind, WorkloadKind::Unknown);
    EXPECT_EQ(w.framework, "PyTorch");
}

TEST(Phases, MergedRanksGivePerRankSteps)
{
    // Two ranks of one run, opened together: the steps (and TPOT) are those of one rank, not the interleaving of
    // both ranks' sampling kernels (which would halve TPOT).
    SynthOptions o = synth_preset("decode");
    o.decode_steps = 12;
    o.nvtx = false;   // sampling-kernel boundaries, where interleaving bites
    Trace a = make_synthetic_trace(o);
    const AnalysisResult alone = analyze(a, AnalysisOptions{});
    ASSERT_EQ(alone.phases.source, StepSource::SamplingKernels);
    o.seed = 2;
    Trace b = make_synthetic_trace(o);
    b.meta.environment["distributed.rank"] = "1";
    a.meta.environment["distributed.rank"] = "0";
    std::vector<Trace> parts;
    parts.push_back(std::move(a));
    parts.push_back(std::move(b));
    const Trace merged = merge_traces(std::move(parts));
    const AnalysisResult both = analyze(merged, AnalysisOptions{});
    EXPECT_EQ(both.phases.steps.size(), alone.phases.steps.size());
    EXPECT_DOUBLE_EQ(both.phases.tpot_median_ns, alone.phases.tpot_median_ns);
    EXPECT_NE(both.phases.note.find("rank 0"), std::string::npos) << both.phases.note;
}

TEST(Phases, APerLayerTopKIsNotASamplingKernel)
{
    // A MoE model without NVTX: every layer runs attention, then the router's top-k (a "sampling"-class name).
    // 24 top-k kernels for 24 attention kernels: per layer, so the top-k is MoE routing (classify_ops moves it), not a
    // step boundary: no decode steps and no TPOT, and the note says what would give steps.
    Trace t;
    const StrId attn = t.strings.intern("flash_fwd_kernel");
    const StrId topk = t.strings.intern("void at::native::sbtopk::gatherTopK<float>");
    const StrId gemm = t.strings.intern("ampere_bf16_s16816gemm_bf16_128x64");
    int64_t x = 0;
    for (int l = 0; l < 24; ++l)
        for (StrId n : {attn, gemm, topk, gemm}) {
            const size_t r = t.kernels.append(x, x + 10'000, n);
            t.kernels.device[r] = t.device_index(0);
            x += 12'000;
        }
    t.finish();
    const AnalysisResult r = analyze(t, AnalysisOptions{});
    EXPECT_TRUE(r.phases.steps.empty());
    EXPECT_EQ(r.phases.tpot_median_ns, 0);
    int routing = -1;
    for (size_t c = 0; c < r.classes.classes.size(); ++c) {
        if (r.classes.classes[c].id == "moe_routing")
            routing = static_cast<int>(c);
    }
    ASSERT_GE(routing, 0);
    for (size_t i = 0; i < t.kernels.size(); ++i) {
        if (t.kernels.name[i] == topk) {
            EXPECT_EQ(r.classes.kernel_class[i], routing);
        }
    }
    EXPECT_NE(r.phases.note.find("--step-regex"), std::string::npos) << r.phases.note;
}
