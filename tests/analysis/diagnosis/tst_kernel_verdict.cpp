// One verdict per kernel (analysis/diagnosis/kernel_verdict.h).
//   - ncu: ncu's Speed-of-Light breakdown, case by case (60 % is ncu's threshold for latency issues);
//   - shapes: on the real H100 Qwen Kineto trace, every kernel behind a measured shape point gets that point's bound
//     and % of roof (shape_throughput's own numbers);
//   - model config: on the generated decode trace with its config, every classified kernel in a step gets its class's
//     E_roof in its phase, bound as the cost model's heaviest operator of the class;
//   - from the launch alone: kernels under the latency floor, grids that leave most SMs without work, PyTorch's
//     strided elementwise loop over full waves (issue-bound), from hand-made traces whose numbers are known;
//   - around the kernel: launch-bound only when the GPU waited for that launch, graph-replayed kernels by their place
//     in the replay, idle before them;
//   - unknown: only when nothing is known, naming what would tell.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "analysis/diagnosis/kernel_verdict.h"
#include "analysis/io/load.h"
#include "analysis/io/ncu_reader.h"
#include "analysis/io/synthetic.h"
#include "analysis/pipeline.h"
#include "analysis/roofline/gpu_specs.h"
#include "analysis/roofline/shape_throughput.h"
#include "analysis/timeline/analysis.h"
#include "analysis/trace/trace.h"
#include "tests/support/test_env.h"

using namespace sl;

namespace {

// One kernel of `dur_ns`, launched by a call of `call_ns`, with a grid of `blocks` blocks.
Trace one_kernel(int64_t dur_ns, int64_t call_ns, uint32_t blocks)
{
    Trace t;
    t.meta.devices.push_back(DeviceInfo{});
    const StrId k = t.strings.intern("void gemv_kernel<float>(float const*, float*)");
    const StrId api = t.strings.intern("cudaLaunchKernel");
    t.api.append(1'000, 1'000 + call_ns, api, 7, 0, ApiClass::Runtime, kApiLaunch);
    const size_t row = t.kernels.append(1'000 + call_ns + 500, 1'000 + call_ns + 500 + dur_ns, k);
    t.kernels.correlation[row] = 7;
    LaunchShape sh;
    sh.grid_x = blocks;
    sh.block_x = 128;
    t.kernels.set_shape(row, sh);
    t.finish();
    return t;
}

NcuLaunch launch(double sm_pct, double mem_pct)
{
    NcuLaunch l;
    l.id = 3;
    l.name = "gemv_kernel";
    auto set = [&l](const char* metric, double v) {
        NcuValue x;
        x.number = v;
        x.base_unit = "%";
        l.metrics[metric] = x;
    };
    set("sm__throughput.avg.pct_of_peak_sustained_elapsed", sm_pct);
    set("gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", mem_pct);
    return l;
}

} // namespace

TEST(KernelVerdict, NcuSpeedOfLight)
{
    struct Case {
        double sm, mem;
        VerdictKind kind;
        double fraction;
    };
    const Case cases[] = {
        {82, 30, VerdictKind::ComputeBound, 0.82},
        {30, 91, VerdictKind::MemoryBound, 0.91},
        {60, 59.9, VerdictKind::ComputeBound, 0.60},   // the threshold itself is bound
        {59.9, 20, VerdictKind::LatencyBound, 0.599},  // both under 60 %: latency issues
        {12, 8, VerdictKind::LatencyBound, 0.12},
    };
    const Trace t = one_kernel(50'000, 4'000, 1000);
    for (const Case& c : cases) {
        NcuReport ncu;
        ncu.launches.push_back(launch(c.sm, c.mem));
        const std::vector<int64_t> join = {0};
        KernelVerdictInputs in;
        in.trace = &t;
        in.kernel = 0;
        in.ncu = &ncu;
        in.ncu_join = &join;
        const KernelVerdict v = kernel_verdict(in);
        EXPECT_EQ(v.kind, c.kind) << c.sm << " / " << c.mem;
        EXPECT_EQ(v.source, VerdictSource::Ncu);
        ASSERT_TRUE(v.fraction);
        EXPECT_NEAR(*v.fraction, c.fraction, 1e-9);
        EXPECT_EQ(v.ncu_launch, 3);
        EXPECT_EQ(v.host, HostClause::None);   // no gap analysis: nothing said around it
    }
}

namespace {

Trace named_kernel(const char* name, int64_t dur_ns, uint32_t blocks, uint16_t threads)
{
    Trace t;
    t.meta.devices.push_back(DeviceInfo{});
    const StrId k = t.strings.intern(name);
    const size_t row = t.kernels.append(10'000, 10'000 + dur_ns, k);
    LaunchShape sh;
    sh.grid_x = blocks;
    sh.block_x = threads;
    t.kernels.set_shape(row, sh);
    t.finish();
    return t;
}

KernelVerdict verdict_of(const Trace& t, int sms, const AnalysisResult* a = nullptr)
{
    KernelVerdictInputs in;
    in.trace = &t;
    in.kernel = 0;
    in.sm_count = sms;
    in.analysis = a;
    return kernel_verdict(in);
}

} // namespace

TEST(KernelVerdict, FromTheLaunchAlone)
{
    struct Case {
        int64_t dur;
        uint32_t blocks;
        int sms;
        VerdictKind kind;
        VerdictReason reason;
    };
    const Case cases[] = {
        {2'000, 1000, 132, VerdictKind::LatencyBound, VerdictReason::ShortKernel},    // under the 5 µs floor
        {4'999, 1000, 132, VerdictKind::LatencyBound, VerdictReason::ShortKernel},
        {5'000, 1000, 132, VerdictKind::Unknown, VerdictReason::None},                // at the floor: nothing known
        {80'000, 8, 132, VerdictKind::LatencyBound, VerdictReason::SmallGrid},        // 8 blocks on 132 SMs
        {80'000, 65, 132, VerdictKind::LatencyBound, VerdictReason::SmallGrid},       // under half the SMs
        {80'000, 66, 132, VerdictKind::Unknown, VerdictReason::None},                 // half of them
        {80'000, 128, 132, VerdictKind::Unknown, VerdictReason::None},                // 97 % of the SMs have a block
        {80'000, 8, 0, VerdictKind::Unknown, VerdictReason::None},                    // no SM count: nothing known
    };
    for (const Case& c : cases) {
        const Trace t = one_kernel(c.dur, 4'000, c.blocks);
        const KernelVerdict v = verdict_of(t, c.sms);
        EXPECT_EQ(v.kind, c.kind) << c.dur << " " << c.blocks << " " << c.sms;
        EXPECT_EQ(v.reason, c.reason) << c.dur << " " << c.blocks << " " << c.sms;
        EXPECT_EQ(v.host, HostClause::None);   // no gap analysis: no claim about the launch
        if (c.kind != VerdictKind::Unknown) {
            EXPECT_EQ(v.source, VerdictSource::Trace);
        }
        EXPECT_FALSE(v.fraction) << "nothing measured its throughput";
        if (c.kind == VerdictKind::Unknown) {
            // No ncu file, no shapes, no model config: all three would tell.
            EXPECT_EQ(v.would_tell, (std::vector<std::string>{"ncu", "shapes", "model_config"}));
            EXPECT_EQ(kernel_verdict_text(v),
                      "Unknown — what would tell: an ncu profile of this kernel; shapes in the trace "
                      "(record_shapes=True); the model's config.json");
        }
    }
    EXPECT_EQ(kernel_verdict_text(verdict_of(one_kernel(2'000, 4'000, 1000), 132)),
              "Latency-bound: it runs 2.00 µs, under the 5.00 µs a kernel needs to approach any roof");
    EXPECT_EQ(kernel_verdict_text(verdict_of(one_kernel(80'000, 4'000, 8), 132)),
              "Latency-bound: 8 blocks on 132 SMs leave most SMs without work");
    // PyTorch's strided elementwise loop: the repeat_kv copy of the H100 sample (18,784 blocks of 128 threads,
    // 26.6 µs; ncu: SM 73 %, memory 25 %) is issue-bound; the same loop over 32 blocks leaves the SMs idle, and the
    // vectorised loop over full waves is not judged from its name.
    const char* strided = "void at::elementwise_kernel<128, 4, at::gpu_kernel_impl_nocast<at::direct_copy_kernel_cuda("
                          "at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda(c10::BFloat16)#1}>(at::"
                          "TensorIteratorBase&, at::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::"
                          "operator()() const::{lambda(c10::BFloat16)#1} const&)::{lambda(int)#1}>(int, ...)";
    {
        const KernelVerdict v = verdict_of(named_kernel(strided, 26'600, 18'784, 128), 132);
        EXPECT_EQ(v.kind, VerdictKind::ComputeBound);
        EXPECT_EQ(v.reason, VerdictReason::StridedElementwise);
        ASSERT_TRUE(v.waves);
        EXPECT_NEAR(*v.waves, 18'784.0 / (132 * 16), 1e-9);   // ncu's launch__waves_per_multiprocessor: 8.89
        EXPECT_EQ(kernel_verdict_text(v), "Compute-bound (instruction issue): PyTorch's strided elementwise loop over "
                                          "8.9 waves spends its issue slots on index arithmetic");
    }
    EXPECT_EQ(verdict_of(named_kernel(strided, 26'600, 32, 128), 132).reason, VerdictReason::SmallGrid);
    EXPECT_EQ(verdict_of(named_kernel(strided, 26'600, 1'000, 128), 132).kind, VerdictKind::Unknown);   // 0.47 wave
    EXPECT_EQ(verdict_of(named_kernel("void at::vectorized_elementwise_kernel<4, at::CUDAFunctor_add<float>>(int)",
                                      26'600, 18'784, 128),
                         132)
                  .kind,
              VerdictKind::Unknown);
}

TEST(KernelVerdict, NoLaunchShapeTheTraceDoesNotRecord)
{
    // An AMD trace records no grid: no small-grid claim, no waves.
    Trace t = one_kernel(80'000, 4'000, 8);
    LaunchShape none;
    none.grid_x = 0;
    none.block_x = 0;
    t.kernels.set_shape(0, none);
    const KernelVerdict v = verdict_of(t, 304);
    EXPECT_FALSE(v.shape_recorded);
    EXPECT_EQ(v.kind, VerdictKind::Unknown);
    EXPECT_FALSE(v.waves);
}

namespace {

// kernel A [1.5, 10 µs) launched early; then the host is late: B's launch call runs 20..29 µs, B runs 31..33 µs (the
// GPU idle since 10 µs: it waited 21 µs for this launch, whose 9 µs call outlasts the 2 µs kernel). C is queued
// behind B (launched at 22..23 µs, runs 33..53 µs): no gap, no launch claim. D is launched late too (70..75 µs) but
// runs 60 µs: waited for, not launch-bound.
Trace host_late()
{
    Trace t;
    t.meta.devices.push_back(DeviceInfo{});
    const StrId api = t.strings.intern("cudaLaunchKernel");
    const StrId names[] = {t.strings.intern("kernel_a"), t.strings.intern("kernel_b"), t.strings.intern("kernel_c"),
                           t.strings.intern("kernel_d")};
    const int64_t calls[4][2] = {{0, 1'000}, {20'000, 29'000}, {22'000, 23'000}, {70'000, 75'000}};
    const int64_t runs[4][2] = {{1'500, 10'000}, {31'000, 33'000}, {33'000, 53'000}, {78'000, 138'000}};
    for (uint32_t i = 0; i < 4; ++i)
        t.api.append(calls[i][0], calls[i][1], api, i + 1, 0, ApiClass::Runtime, kApiLaunch);
    for (uint32_t i = 0; i < 4; ++i) {
        const size_t k = t.kernels.append(runs[i][0], runs[i][1], names[i]);
        t.kernels.correlation[k] = i + 1;
    }
    t.finish();
    return t;
}

} // namespace

TEST(KernelVerdict, LaunchBoundOnlyWhenTheGpuWaitedForThatLaunch)
{
    const Trace t = host_late();
    const AnalysisResult a = analyze(t, AnalysisOptions{});
    auto verdict = [&](int64_t k) {
        KernelVerdictInputs in;
        in.trace = &t;
        in.kernel = k;
        in.analysis = &a;
        return kernel_verdict(in);
    };
    const KernelVerdict b = verdict(1);
    EXPECT_EQ(b.host, HostClause::LaunchBound);
    EXPECT_EQ(b.idle_ns, 21'000);
    EXPECT_EQ(b.launch_call_ns, 9'000);
    EXPECT_EQ(b.kind, VerdictKind::LatencyBound);   // 2 µs: under the floor
    EXPECT_EQ(kernel_verdict_text(b),
              "Latency-bound: it runs 2.00 µs, under the 5.00 µs a kernel needs to approach any roof · launch-bound: "
              "the GPU waited 21.0 µs for it, and its launch call took 9.00 µs, longer than it runs");
    EXPECT_EQ(verdict(2).host, HostClause::None);   // queued: the GPU never waited for it
    const KernelVerdict d = verdict(3);
    EXPECT_EQ(d.host, HostClause::WaitedForLaunch);   // waited for, but it runs longer than its call
    EXPECT_EQ(d.idle_ns, 25'000);
    EXPECT_NE(kernel_verdict_text(d).find("the GPU waited 25.0 µs for its launch"), std::string::npos);
}

TEST(KernelVerdict, GraphReplayedKernelsAreJudgedByTheirPlaceInTheReplay)
{
    // One cudaGraphLaunch of 2.28 ms replays three 1.34 µs kernels: none is "shorter than its launch".
    Trace t;
    t.meta.devices.push_back(DeviceInfo{});
    const StrId api = t.strings.intern("cudaGraphLaunch");
    t.api.append(0, 2'280'000, api, 9, 0, ApiClass::Runtime, kApiGraphLaunch);
    for (int i = 0; i < 3; ++i) {
        const size_t k = t.kernels.append(3'000'000 + i * 3'000, 3'000'000 + i * 3'000 + 1'340,
                                          t.strings.intern("node_" + std::to_string(i)));
        t.kernels.correlation[k] = 9;
    }
    t.finish();
    const AnalysisResult a = analyze(t, AnalysisOptions{});
    const KernelVerdictIndex index = kernel_verdict_index(t, nullptr);
    for (int64_t k = 0; k < 3; ++k)
        for (const bool indexed : {false, true}) {
            KernelVerdictInputs in;
            in.trace = &t;
            in.kernel = k;
            in.analysis = &a;
            in.index = indexed ? &index : nullptr;
            const KernelVerdict v = kernel_verdict(in);
            EXPECT_EQ(v.graph_node, k);
            EXPECT_EQ(v.graph_nodes, 3);
            EXPECT_NE(v.host, HostClause::LaunchBound);
            const std::string text = kernel_verdict_text(v);
            EXPECT_EQ(text.find("2.28 ms"), std::string::npos) << text;
            EXPECT_NE(text.find("node " + std::to_string(k + 1) + " of 3 of its graph replay"), std::string::npos)
                << text;
        }
}

TEST(KernelVerdict, AroundTheKernelFromTheGapAnalysis)
{
    // The generated host-starved decode: the GPU waits for the host before many kernels. Every kernel behind a host
    // wait is said to have been waited for (launch-bound when its call outlasts it); every kernel behind another gap
    // at least as long as itself gets that gap; a kernel behind no gap gets no clause.
    SynthOptions so = synth_preset("decode");
    so.host_starved = true;
    so.decode_steps = 6;
    const Trace t = make_synthetic_trace(so);
    const AnalysisResult a = analyze(t, AnalysisOptions{});
    std::vector<const Gap*> before(t.kernels.size(), nullptr);
    for (const Gap& g : a.idle.gaps)
        if (g.next_kind == OpKind::Kernel && g.next_row >= 0 && g.duration() > 0)
            before[size_t(g.next_row)] = &g;
    int waited = 0, none = 0;
    for (size_t k = 0; k < t.kernels.size(); ++k) {
        KernelVerdictInputs in;
        in.trace = &t;
        in.kernel = int64_t(k);
        in.analysis = &a;
        const KernelVerdict v = kernel_verdict(in);
        const Gap* g = before[k];
        const int64_t dur = t.kernels.end[k] - t.kernels.start[k];
        const int32_t api = t.kernels.launch_api[k];
        const int64_t call = api >= 0 ? t.api.end[size_t(api)] - t.api.start[size_t(api)] : 0;
        const bool graph = v.graph_node >= 0;
        if (g && g->cause == GapCause::HostWait && (!graph || v.graph_node == 0)) {
            ASSERT_EQ(v.host, !graph && call > dur ? HostClause::LaunchBound : HostClause::WaitedForLaunch)
                << "kernel " << k;
            EXPECT_EQ(v.idle_ns, g->duration());
            ++waited;
        } else if (graph) {
            ASSERT_EQ(v.host, HostClause::GraphReplay) << "kernel " << k;
        } else if (g && g->duration() >= dur) {
            ASSERT_EQ(v.host, HostClause::IdleBefore) << "kernel " << k;
            EXPECT_EQ(v.idle_cause, g->cause);
        } else {
            ASSERT_EQ(v.host, HostClause::None) << "kernel " << k;
            ++none;
        }
    }
    EXPECT_GT(waited, 0);
    EXPECT_GT(none, 0);
}

TEST(KernelVerdict, ModelConfigGivesTheClassEfficiency)
{
    const SynthOptions so = synth_preset("decode");
    const std::string dir = test::scratch_dir("kernel_verdict");
    const std::string config = dir + "/config.json";
    {
        FILE* f = std::fopen(config.c_str(), "w");
        ASSERT_TRUE(f);
        const std::string j = synth_model_config_json(so);
        std::fwrite(j.data(), 1, j.size(), f);
        std::fclose(f);
    }
    PipelineOptions o;
    o.run_rules = false;
    o.roofline.model = config;
    o.roofline.cost.prompt = 512;
    const PipelineResult r = run_pipeline_on(std::make_shared<const Trace>(make_synthetic_trace(so)), o);
    ASSERT_TRUE(r.roofline.report);
    const Trace& t = *r.trace;
    int checked = 0;
    for (size_t k = 0; k < t.kernels.size(); k += 7) {
        KernelVerdictInputs in;
        in.trace = &t;
        in.kernel = int64_t(k);
        in.analysis = &r.analysis;
        in.roofline = &*r.roofline.report;
        const KernelVerdict v = kernel_verdict(in);
        if (v.source != VerdictSource::ModelConfig)
            continue;
        const ClassEfficiency* ce = nullptr;
        for (const ClassEfficiency& c : r.roofline.report->classes)
            if (c.op_class == v.op_class && c.phase == v.phase)
                ce = &c;
        ASSERT_TRUE(ce);
        if (v.kind == VerdictKind::Inconsistent) {
            EXPECT_TRUE(ce->e_roof_inconsistent);
            continue;
        }
        ASSERT_TRUE(ce->e_roof);
        EXPECT_DOUBLE_EQ(*v.fraction, *ce->e_roof);
        // ncu's 60 % threshold on the class's E_roof: bound on its side reaching it, latency issues below.
        if (*ce->e_roof >= 0.6) {
            EXPECT_TRUE(v.kind == VerdictKind::ComputeBound || v.kind == VerdictKind::MemoryBound);
        } else {
            EXPECT_EQ(v.kind, VerdictKind::LatencyBound);
        }
        // The model config is the last resort: a kernel the launch alone judges never gets here.
        EXPECT_GE(t.kernels.end[k] - t.kernels.start[k], kLatencyFloorNs);
        ++checked;
    }
    EXPECT_GT(checked, 5);
}

TEST(KernelVerdict, ShapesOfTheRealQwenTrace)
{
    const char* shared = std::getenv("SIGHTLINE_SHARED_DATA");
    const std::string path = std::string(shared ? shared : "") + "/kineto/tracelens/h100__Qwen1.5-0.5B-Chat_inference.json.gz";
    if (!shared || !std::ifstream(path))
        GTEST_SKIP() << "no shared data";
    const Trace t = load_traces({path});
    const GpuDatabase db = GpuDatabase::load_default();
    const ShapeRooflineResult shapes = shape_roofline(t, db.find("H100 SXM"));
    ASSERT_FALSE(shapes.points.empty());
    int checked = 0;
    for (const ShapePoint& p : shapes.points) {
        if (p.kernel_rows.empty() || !p.pct_of_roof || p.roof_inconsistent)
            continue;
        KernelVerdictInputs in;
        in.trace = &t;
        in.kernel = int64_t(p.kernel_rows.front());
        in.shapes = &shapes;
        const KernelVerdict v = kernel_verdict(in);
        // A kernel belongs to one call, so one point: that point's numbers.
        ASSERT_EQ(v.source, VerdictSource::Shapes) << p.op << " " << p.shape;
        const bool busy_compute = p.bound == "compute" && v.duration_ns >= 4 * kLatencyFloorNs &&
                                  (!v.waves || *v.waves >= 1.0);
        if (*p.pct_of_roof >= 60 || busy_compute) {
            EXPECT_EQ(v.kind, p.bound == "compute" ? VerdictKind::ComputeBound : VerdictKind::MemoryBound);
        } else {   // under 60 % of its roof: ncu's latency issues (or issue-bound, a strided elementwise loop)
            EXPECT_TRUE(v.kind == VerdictKind::LatencyBound ||
                        (v.kind == VerdictKind::ComputeBound && v.reason == VerdictReason::StridedElementwise));
        }
        EXPECT_EQ(v.side, p.bound);
        EXPECT_DOUBLE_EQ(*v.fraction, *p.pct_of_roof / 100.0);
        EXPECT_EQ(v.op, p.op);
        ++checked;
    }
    EXPECT_GT(checked, 5);
}

TEST(KernelVerdict, PrefillGemmsOfTheRealSglangStepAreComputeBound)
{
    // SGLang's Qwen3-8B step on an MI300X (../shared/data/kineto/tracelens/sglang_prefilldecode): 15,360 prefill tokens
    // through GEMMs of M = 15360 at 35-48 % of the datasheet's bf16 peak, hundreds of microseconds each. Their pipes
    // are the limit at a lower rate than the boost-clock peak: compute-bound, never "latency-bound".
    const char* shared = std::getenv("SIGHTLINE_SHARED_DATA");
    const std::string path =
        std::string(shared ? shared : "") + "/kineto/tracelens/sglang_prefilldecode/sglang_qwen3-8b_prefilldecode.json.gz";
    if (!shared || !std::ifstream(path))
        GTEST_SKIP() << "no shared data";
    PipelineOptions o;
    o.run_rules = false;
    const PipelineResult r = run_pipeline({path}, o);
    int gemms = 0;
    for (const KernelVerdictSummary& s : r.kernels) {
        if (s.verdict.op != "aten::mm" || s.verdict.shape.find("M=15360") == std::string::npos)
            continue;
        ++gemms;
        EXPECT_EQ(s.verdict.kind, VerdictKind::ComputeBound) << kernel_verdict_text(s.verdict);
        EXPECT_EQ(s.verdict.side, "compute");
        ASSERT_TRUE(s.verdict.fraction);
        EXPECT_GT(*s.verdict.fraction, 0.3);
        EXPECT_LT(*s.verdict.fraction, 0.6);
        EXPECT_EQ(kernel_verdict_text(s.verdict).rfind("Compute-bound at ", 0), 0u) << kernel_verdict_text(s.verdict);
    }
    EXPECT_GE(gemms, 3);
}
