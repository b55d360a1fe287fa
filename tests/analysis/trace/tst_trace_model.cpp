// The trace model: string interning, row budgets, API-name classification, correlation linking, range depths, stats.
#include <gtest/gtest.h>

#include "analysis/trace/stats.h"
#include "analysis/trace/trace.h"

using namespace sl;

TEST(StringPool, InternsOnceAndKeepsViewsStableAcrossGrowthAndMove)
{
    StringPool p;
    EXPECT_EQ(p.view(0), "");
    const StrId a = p.intern("ampere_sgemm_128x64_nn");
    std::string_view va = p.view(a);
    for (int i = 0; i < 10000; ++i)
        p.intern("k" + std::to_string(i));
    EXPECT_EQ(p.intern("ampere_sgemm_128x64_nn"), a);
    EXPECT_EQ(va, "ampere_sgemm_128x64_nn");
    StringPool q = std::move(p);
    EXPECT_EQ(q.view(a), "ampere_sgemm_128x64_nn");
    EXPECT_EQ(q.find("k9999"), q.intern("k9999"));
    EXPECT_EQ(q.find("absent"), StringPool::kNotFound);
}

TEST(TraceModel, RowBudgets)
{
    EXPECT_LE(KernelTable::bytes_per_row(), 48u);
    EXPECT_LE(ApiTable::bytes_per_row(), 40u);
}

TEST(TraceModel, LaunchShapesAreInternedInFirstUseOrder)
{
    KernelTable k;
    const LaunchShape a{132, 1, 1, 128, 1, 1, 168, 232448}, b{4096, 2, 1, 256, 1, 1, 64, 0};
    k.reserve(300000);
    for (int i = 0; i < 300000; ++i) {
        const size_t r = k.append(i, i + 1, 0);
        if (i % 3 == 1)
            k.set_shape(r, a);
        else if (i % 3 == 2)
            k.set_shape(r, b);
    }
    ASSERT_EQ(k.shapes.size(), 3u);   // the default shape first, then a, then b
    EXPECT_TRUE(k.shapes[0] == LaunchShape{});
    EXPECT_EQ(k.shape[0], 0u);
    EXPECT_EQ(k.shape[1], 1u);
    EXPECT_EQ(k.shape[5], 2u);
    EXPECT_EQ(k.launch_shape(299998).grid_x, 132u);
    EXPECT_EQ(k.launch_shape(299998).shared_memory, 232448u);
    EXPECT_EQ(k.launch_shape(299999).block_x, 256);
    EXPECT_EQ(k.launch_shape(299997).grid_x, 1u);
    // A table whose shapes were copied in (not interned) still finds them.
    KernelTable c;
    c.shapes = k.shapes;
    EXPECT_EQ(c.intern_shape(b), 2u);
    EXPECT_EQ(c.intern_shape(a), 1u);
    EXPECT_EQ(c.shapes.size(), 3u);

    // What a kernel costs in the trace model, shape table included, at a size where the table is noise.
    Trace t;
    t.kernels = std::move(k);
    Trace empty;
    const double per_kernel = double(t.memory_bytes() - empty.memory_bytes()) / double(t.kernels.size());
    EXPECT_LE(per_kernel, 48.0);
    EXPECT_GE(per_kernel, double(KernelTable::bytes_per_row()));
}

TEST(TraceModel, ClassifiesApiNamesIncludingVersionSuffixes)
{
    EXPECT_TRUE(classify_api_name("cudaLaunchKernel_v7000") & kApiLaunch);
    EXPECT_TRUE(classify_api_name("cuLaunchKernelEx") & kApiLaunch);
    EXPECT_TRUE(classify_api_name("hipLaunchKernel") & kApiLaunch);
    EXPECT_TRUE(classify_api_name("cudaGraphLaunch_v10000") & kApiGraphLaunch);
    EXPECT_FALSE(classify_api_name("cudaGraphLaunch_v10000") & kApiLaunch);
    EXPECT_TRUE(classify_api_name("cudaDeviceSynchronize_v3020") & kApiSync);
    EXPECT_TRUE(classify_api_name("cudaStreamSynchronize") & kApiSync);
    EXPECT_TRUE(classify_api_name("cudaEventSynchronize") & kApiSync);
    EXPECT_TRUE(classify_api_name("cudaMemcpy_v3020") & kApiSync);
    EXPECT_FALSE(classify_api_name("cudaMemcpyAsync_v3020") & kApiSync);
    EXPECT_TRUE(classify_api_name("cudaMemcpyAsync_v3020") & kApiMemcpy);
    EXPECT_TRUE(classify_api_name("cudaMemsetAsync") & kApiMemset);
    EXPECT_EQ(classify_api_name("cudaMalloc_v3020"), 0);
}

TEST(TraceModel, FinishLinksByProcessAndCorrelationAndNestsRanges)
{
    Trace t;
    const uint32_t th1 = t.thread_index((1ll << 24) | 7, 1, 7);
    const uint32_t th2 = t.thread_index((2ll << 24) | 9, 2, 9);
    const StrId launch = t.strings.intern("cudaLaunchKernel");
    t.api.append(100, 110, launch, 42, th1, ApiClass::Runtime, classify_api_name("cudaLaunchKernel"));
    t.api.append(100, 110, launch, 42, th2, ApiClass::Runtime, classify_api_name("cudaLaunchKernel"));
    const uint16_t p2 = t.process_index(2);
    const size_t k = t.kernels.append(200, 300, t.strings.intern("gemm"));
    t.kernels.correlation[k] = 42;
    t.kernels.process[k] = p2;
    const size_t k2 = t.kernels.append(400, 500, t.strings.intern("gemm"));
    t.kernels.correlation[k2] = 43;   // no such call
    t.kernels.process[k2] = p2;
    const StrId step = t.strings.intern("step"), layer = t.strings.intern("layer");
    t.ranges.append(0, 1000, step, th1, RangeKind::PushPop);
    t.ranges.append(10, 500, layer, th1, RangeKind::PushPop);
    t.ranges.append(20, 30, layer, th1, RangeKind::PushPop);
    t.ranges.append(500, 900, layer, th1, RangeKind::PushPop);   // starts where the previous one ended: sibling
    t.ranges.append(0, 10, step, th2, RangeKind::PushPop);
    t.finish();
    EXPECT_EQ(t.kernels.launch_api[k], 1);
    EXPECT_EQ(t.kernels.launch_api[k2], kNoIndex);
    EXPECT_EQ(t.ranges.depth[0], 0);
    EXPECT_EQ(t.ranges.depth[1], 1);
    EXPECT_EQ(t.ranges.depth[2], 2);
    EXPECT_EQ(t.ranges.depth[3], 1);
    EXPECT_EQ(t.ranges.depth[4], 0);
    EXPECT_EQ(t.meta.capture_start, 0);
    EXPECT_EQ(t.meta.capture_end, 1000);
}

TEST(Stats, MatchesNsysDefinitions)
{
    std::vector<int64_t> v{5, 1, 4, 2};
    Stats s = compute_stats(v);
    EXPECT_EQ(s.count, 4);
    EXPECT_EQ(s.total, 12);
    EXPECT_DOUBLE_EQ(s.avg, 3.0);
    EXPECT_DOUBLE_EQ(s.median, 3.0);   // mean of the two middle values
    EXPECT_EQ(s.min, 1);
    EXPECT_EQ(s.max, 5);
    EXPECT_NEAR(s.stddev, 1.8257418583505538, 1e-12);   // sample (n-1)
    std::vector<int64_t> one{7};
    s = compute_stats(one);
    EXPECT_DOUBLE_EQ(s.median, 7);
    EXPECT_DOUBLE_EQ(s.stddev, 0);
    std::vector<int64_t> none;
    EXPECT_EQ(compute_stats(none).count, 0);
    std::vector<int64_t> p{10, 20, 30, 40, 50};
    EXPECT_DOUBLE_EQ(percentile(p, 50), 30);
    EXPECT_DOUBLE_EQ(percentile(p, 90), 46);
}

// compute_stats against an independent oracle (tests/analysis/trace/stats_oracle.py: exact rational variance,
// 60-digit square root, the nearest double): the mean and the sample standard deviation are the doubles nearest to
// their exact values, on every host (no long double, whose width differs between x86-64 and AArch64).
TEST(TraceModel, StatsMatchTheExactOracle)
{
    struct Case {
        int64_t n, base, spread;
        double stddev, mean;
    };
    const Case cases[] = {
        {2, 0, 3, 0.7071067811865476, 0.5},
        {1000, 1000000, 100000, 28290.854409919175, 1051222.0},
        {4097, 1125899906842624, 1099511627776, 39745898134.20448, 1125944412991488.0},
        {3, 5, 1, 0.0, 5.0},
        {100000, 12345, 7, 2.0000049999437497, 12348.00002},
        {5, -1099511627776, 1000, 291.5921809651281, -1099511627404.0},
    };
    for (const Case& c : cases) {
        std::vector<int64_t> v;
        for (int64_t i = 0; i < c.n; ++i)
            v.push_back(c.base + (7919 * i * i + 104729 * i) % c.spread);
        const sl::Stats s = sl::compute_stats(v);
        EXPECT_EQ(s.stddev, c.stddev) << "n=" << c.n << " base=" << c.base << " spread=" << c.spread;
        EXPECT_EQ(s.avg, c.mean) << "n=" << c.n << " base=" << c.base;
        EXPECT_EQ(s.count, c.n);
    }
}
