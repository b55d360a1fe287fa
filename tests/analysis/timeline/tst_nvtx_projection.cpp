// NVTX -> GPU projection (nsys nvtx_gpu_proj_trace semantics), hand-computed.
#include <gtest/gtest.h>

#include "analysis/timeline/nvtx_projection.h"
#include "analysis/io/synthetic.h"

using namespace sl;

TEST(NvtxProjection, NestedRangesInclusiveAndExclusive)
{
    Trace t;
    t.meta.devices.push_back({});
    t.meta.processes.push_back({1, "p", 0});
    const uint32_t A = t.thread_index(1, 1, 1), B = t.thread_index(2, 1, 2);
    const size_t step = t.ranges.append(0, 100, t.strings.intern("step"), A, RangeKind::PushPop);
    const size_t l0 = t.ranges.append(10, 40, t.strings.intern("layer 0"), A, RangeKind::PushPop);
    const size_t l1 = t.ranges.append(40, 80, t.strings.intern("layer 1"), A, RangeKind::PushPop);
    const size_t other = t.ranges.append(0, 200, t.strings.intern("other thread"), B, RangeKind::PushPop);
    uint32_t corr = 1;
    auto launch = [&](int64_t api_at, int64_t ks, int64_t ke, bool copy = false) {
        const uint32_t c = corr++;
        t.api.append(api_at, api_at + 2, t.strings.intern(copy ? "cudaMemcpyAsync" : "cudaLaunchKernel"), c, A,
                     ApiClass::Runtime, classify_api_name(copy ? "cudaMemcpyAsync" : "cudaLaunchKernel"));
        if (copy) {
            const size_t m = t.memcpy.append(ks, ke, 10, CopyKind::HtoD);
            t.memcpy.correlation[m] = c;
        } else {
            const size_t k = t.kernels.append(ks, ke, t.strings.intern("k"));
            t.kernels.correlation[k] = c;
        }
    };
    launch(5, 300, 310);            // in step only
    launch(15, 320, 340);           // layer 0
    launch(45, 350, 380);           // layer 1
    launch(50, 390, 395, true);     // layer 1, a copy
    launch(120, 400, 500);          // outside every range on thread A (thread B's range covers the time)
    t.finish();
    const NvtxProjectionResult r = project_nvtx(t);
    ASSERT_EQ(r.ranges.size(), 4u);
    EXPECT_EQ(r.ranges[step].ops, 4);
    EXPECT_EQ(r.ranges[step].gpu_ns, 10 + 20 + 30 + 5);
    EXPECT_EQ(r.ranges[step].exclusive_gpu_ns, 10);
    EXPECT_EQ(r.ranges[step].proj_start, 300);
    EXPECT_EQ(r.ranges[step].proj_end, 395);
    EXPECT_EQ(r.ranges[l0].gpu_ns, 20);
    EXPECT_EQ(r.ranges[l0].exclusive_gpu_ns, 20);
    EXPECT_EQ(r.ranges[l1].ops, 2);
    EXPECT_EQ(r.ranges[l1].gpu_ns, 35);
    EXPECT_EQ(r.ranges[l1].proj_duration(), 45);
    EXPECT_EQ(r.ranges[other].ops, 0);   // another thread's range never owns thread A's launches
    EXPECT_EQ(r.ops_in_ranges, 4);
    EXPECT_EQ(r.ops_total, 5);
    EXPECT_EQ(r.projected_ranges, 3);
    ASSERT_EQ(r.per_name.size(), 4u);
    EXPECT_EQ(t.str(r.per_name[0].name), "step");
    EXPECT_EQ(t.str(r.per_name[1].name), "layer 1");
    EXPECT_EQ(r.per_name[1].range_ns, 40);
}

TEST(NvtxProjection, CpuOpsOnlyOnRequest)
{
    Trace t;
    t.meta.processes.push_back({1, "p", 0});
    const uint32_t A = t.thread_index(1, 1, 1);
    const size_t op = t.ranges.append(0, 100, t.strings.intern("aten::mm"), A, RangeKind::CpuOp);
    t.api.append(10, 12, t.strings.intern("cudaLaunchKernel"), 7, A, ApiClass::Runtime, kApiLaunch);
    const size_t k = t.kernels.append(20, 30, t.strings.intern("gemm"));
    t.kernels.correlation[k] = 7;
    t.finish();
    EXPECT_EQ(project_nvtx(t).ranges[op].ops, 0);
    NvtxProjectionOptions o;
    o.include_cpu_ops = true;
    EXPECT_EQ(project_nvtx(t, o).ranges[op].gpu_ns, 10);
}

TEST(NvtxProjection, SyntheticLayersShareTheKernelTime)
{
    SynthOptions so;
    so.h2d_copies = false;
    const Trace t = make_synthetic_trace(so);
    const NvtxProjectionResult r = project_nvtx(t);
    // Every kernel is launched inside some range (prefill / decode_step / layer), and the exclusive times of all
    // ranges add up to the total kernel time.
    EXPECT_EQ(r.ops_in_ranges, static_cast<int64_t>(t.kernels.size()));
    int64_t excl = 0, total = 0;
    for (const auto& p : r.ranges)
        excl += p.exclusive_gpu_ns;
    for (size_t i = 0; i < t.kernels.size(); ++i)
        total += t.kernels.end[i] - t.kernels.start[i];
    EXPECT_EQ(excl, total);
}
