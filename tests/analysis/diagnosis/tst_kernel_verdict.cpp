// One verdict per kernel (analysis/diagnosis/kernel_verdict.h).
//   - ncu: ncu's Speed-of-Light breakdown, case by case (60 % is ncu's threshold for latency issues);
//   - shapes: on the real H100 Qwen Kineto trace, every kernel behind a measured shape point gets that point's bound
//     and % of roof (shape_throughput's own numbers);
//   - model config: on the generated decode trace with its config, every classified kernel in a step gets its class's
//     E_roof in its phase, bound as the cost model's heaviest operator of the class;
//   - causes: kernels shorter than their launch call, grids smaller than a wave, idle before them, from hand-made
//     traces whose numbers are known;
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
        EXPECT_FALSE(v.cause);   // 50 µs, a 4 µs call, 1000 blocks: nothing else to say
    }
}

TEST(KernelVerdict, CausesFromTheTraceAlone)
{
    struct Case {
        int64_t dur, call;
        uint32_t blocks;
        int sms;
        VerdictKind kind;
    };
    const Case cases[] = {
        {2'000, 5'000, 1000, 132, VerdictKind::LaunchBound},   // 2 µs kernel, 5 µs launch call
        {80'000, 5'000, 8, 132, VerdictKind::SmallGrid},       // 8 blocks on 132 SMs
        {80'000, 5'000, 8, 0, VerdictKind::Unknown},           // the same without an SM count: nothing known
        {80'000, 5'000, 132, 132, VerdictKind::Unknown},       // a full wave
    };
    for (const Case& c : cases) {
        const Trace t = one_kernel(c.dur, c.call, c.blocks);
        KernelVerdictInputs in;
        in.trace = &t;
        in.kernel = 0;
        in.sm_count = c.sms;
        const KernelVerdict v = kernel_verdict(in);
        EXPECT_EQ(v.kind, c.kind) << c.dur << " " << c.call << " " << c.blocks << " " << c.sms;
        if (c.kind == VerdictKind::LaunchBound) {
            EXPECT_EQ(v.duration_ns, c.dur);
            EXPECT_EQ(v.launch_call_ns, c.call);
            EXPECT_EQ(v.source, VerdictSource::Trace);
        }
        if (c.kind == VerdictKind::SmallGrid) {
            EXPECT_EQ(v.blocks, 8);
            EXPECT_EQ(v.sm_count, 132);
        }
        if (c.kind == VerdictKind::Unknown) {
            // No ncu file, no shapes, no model config: all three would tell.
            EXPECT_EQ(v.would_tell, (std::vector<std::string>{"ncu", "shapes", "model_config"}));
            EXPECT_NE(kernel_verdict_text(v).find("unknown — what would tell"), std::string::npos);
        }
    }
    // With a bound the cause is a second clause: a 2 µs kernel that ncu calls memory-bound is also launch-bound.
    const Trace t = one_kernel(2'000, 5'000, 1000);
    NcuReport ncu;
    ncu.launches.push_back(launch(10, 75));
    const std::vector<int64_t> join = {0};
    KernelVerdictInputs in;
    in.trace = &t;
    in.kernel = 0;
    in.ncu = &ncu;
    in.ncu_join = &join;
    const KernelVerdict v = kernel_verdict(in);
    EXPECT_EQ(v.kind, VerdictKind::MemoryBound);
    ASSERT_TRUE(v.cause);
    EXPECT_EQ(*v.cause, VerdictKind::LaunchBound);
    const std::string text = kernel_verdict_text(v);
    EXPECT_NE(text.find("memory-bound"), std::string::npos) << text;
    EXPECT_NE(text.find("75 %"), std::string::npos) << text;
    EXPECT_NE(text.find("shorter than its launch (2 µs vs a 5 µs call)"), std::string::npos) << text;
}

TEST(KernelVerdict, IdleBeforeFromTheGapAnalysis)
{
    // The generated host-starved decode: the GPU waits for the host before many kernels. Every kernel the gap
    // analysis finds behind a gap at least as long as itself, and with nothing else known, gets that gap.
    SynthOptions so = synth_preset("decode");
    so.host_starved = true;
    so.decode_steps = 6;
    const Trace t = make_synthetic_trace(so);
    const AnalysisResult a = analyze(t, AnalysisOptions{});
    int checked = 0;
    for (const Gap& g : a.idle.gaps) {
        if (g.next_kind != OpKind::Kernel || g.next_row < 0)
            continue;
        const size_t k = size_t(g.next_row);
        const int64_t dur = t.kernels.end[k] - t.kernels.start[k];
        const int32_t api = t.kernels.launch_api[k];
        const int64_t call = api >= 0 ? t.api.end[size_t(api)] - t.api.start[size_t(api)] : 0;
        if (g.duration() < dur || call > dur)
            continue;   // not the idle cause (or the launch cause comes first)
        KernelVerdictInputs in;
        in.trace = &t;
        in.kernel = int64_t(k);
        in.analysis = &a;
        const KernelVerdict v = kernel_verdict(in);
        ASSERT_EQ(v.kind, VerdictKind::IdleBefore) << "kernel " << k;
        EXPECT_EQ(v.idle_ns, g.duration());
        EXPECT_EQ(v.idle_cause, g.cause);
        ++checked;
    }
    EXPECT_GT(checked, 0);
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
        EXPECT_TRUE(v.kind == VerdictKind::ComputeBound || v.kind == VerdictKind::MemoryBound);
        ++checked;
    }
    EXPECT_GT(checked, 20);
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
        EXPECT_EQ(v.kind, p.bound == "compute" ? VerdictKind::ComputeBound : VerdictKind::MemoryBound);
        EXPECT_DOUBLE_EQ(*v.fraction, *p.pct_of_roof / 100.0);
        EXPECT_EQ(v.op, p.op);
        ++checked;
    }
    EXPECT_GT(checked, 5);
}
