// Launch statistics on hand-built traces (hand-computed answers) and synthetic traces (CUDA graphs, driver launches).
#include <gtest/gtest.h>

#include "analysis/timeline/launch_stats.h"
#include "analysis/io/synthetic.h"

using namespace sl;

namespace {
constexpr int64_t us = 1000;

struct Builder {
    Trace t;
    uint32_t thr = 0, corr = 1;
    Builder()
    {
        t.meta.devices.push_back({});
        t.meta.processes.push_back({1, "p", 0});
        thr = t.thread_index(1, 1, 1);
    }
    size_t kernel(int64_t s, int64_t e, int64_t api_s, int64_t api_e, const char* name,
                  const char* api_name = "cudaLaunchKernel")
    {
        const uint32_t c = corr++;
        t.api.append(api_s, api_e, t.strings.intern(api_name), c, thr, ApiClass::Runtime, classify_api_name(api_name));
        const size_t k = t.kernels.append(s, e, t.strings.intern(name));
        t.kernels.correlation[k] = c;
        return k;
    }
};
} // namespace

TEST(Launch, QueueShortAndEta)
{
    Builder b;
    // a: API 0..5 µs, kernel 10..12 (queue 5, 2 µs < 5 µs launch: short)
    // a: API 6..9,    kernel 12..22 (queue 3, not short)
    // b: API 10..70 (60 µs, above the 50 µs cutoff), kernel 80..81 (queue 10; shorter than its launch but the
    //    launch is an outlier, so HTA does not call it short)
    // c: API 71..73 (cuLaunchKernel, driver), kernel 72..100 (starts before the API returned: queue 0)
    b.kernel(10 * us, 12 * us, 0, 5 * us, "a");
    b.kernel(12 * us, 22 * us, 6 * us, 9 * us, "a");
    b.kernel(80 * us, 81 * us, 10 * us, 70 * us, "b");
    b.kernel(72 * us, 100 * us, 71 * us, 73 * us, "c", "cuLaunchKernel");
    const size_t unlinked = b.t.kernels.append(100 * us, 110 * us, b.t.strings.intern("d"));
    (void)unlinked;
    b.t.finish();
    const LaunchResult r = analyze_launches(b.t);
    EXPECT_EQ(r.kernels, 5);
    EXPECT_EQ(r.linked, 4);
    EXPECT_EQ(r.launch_calls, 4);
    EXPECT_EQ(r.graph_launch_calls, 0);
    EXPECT_EQ(r.launch_api_ns, (5 + 3 + 60 + 2) * us);
    EXPECT_EQ(r.window_ns, 100 * us);   // first kernel start 10 µs .. last end 110 µs
    EXPECT_DOUBLE_EQ(r.eta_launch, 70.0 / 100.0);
    EXPECT_DOUBLE_EQ(r.launch_rate_per_s, 4 / 100e-6);
    EXPECT_EQ(r.short_kernels, 1);
    EXPECT_EQ(r.api_outliers, 1);
    EXPECT_EQ(r.queue.count, 4);
    EXPECT_EQ(r.queue.total, (5 + 3 + 10 + 0) * us);
    EXPECT_DOUBLE_EQ(r.queue.median, 4 * us);
    ASSERT_EQ(r.per_name.size(), 4u);
    EXPECT_EQ(b.t.str(r.per_name[0].name), "c");   // 28 µs of kernel time, the most
    const auto& a = *std::find_if(r.per_name.begin(), r.per_name.end(), [&](const KernelLaunchStats& s) { return b.t.str(s.name) == "a"; });
    EXPECT_EQ(a.count, 2);
    EXPECT_EQ(a.short_count, 1);
    EXPECT_DOUBLE_EQ(a.api.median, 4 * us);
    EXPECT_EQ(a.queue.total, 8 * us);

    LaunchOptions o;
    o.short_kernel_api_cutoff_ns = 100 * us;   // now b's 1 µs kernel under a 60 µs launch is short too
    EXPECT_EQ(analyze_launches(b.t, o).short_kernels, 2);
}

TEST(Launch, GraphLaunchesCountOnce)
{
    Builder b;
    const uint32_t c = b.corr++;
    b.t.api.append(0, 8 * us, b.t.strings.intern("cudaGraphLaunch"), c, b.thr, ApiClass::Runtime,
                   classify_api_name("cudaGraphLaunch"));
    for (int i = 0; i < 3; ++i) {
        const size_t k = b.t.kernels.append((10 + 5 * i) * us, (12 + 5 * i) * us, b.t.strings.intern("g"));
        b.t.kernels.correlation[k] = c;
        b.t.kernels.flags[k] = KernelTable::kGraphNode;
    }
    b.t.finish();
    const LaunchResult r = analyze_launches(b.t);
    EXPECT_EQ(r.graph_launch_calls, 1);
    EXPECT_EQ(r.launch_calls, 0);
    EXPECT_EQ(r.graph_kernels, 3);
    EXPECT_EQ(r.launch_api_ns, 8 * us);
    EXPECT_EQ(r.short_kernels, 0);   // graph kernels share one launch: never "shorter than their launch"
    EXPECT_EQ(r.queue.total, (2 + 7 + 12) * us);
}

TEST(Launch, SyntheticCudaGraphsCutLaunchCalls)
{
    SynthOptions o;
    o.prefill_steps = 0;
    o.decode_steps = 10;
    o.h2d_copies = false;
    const Trace eager = make_synthetic_trace(o);
    o.cuda_graphs = true;
    const Trace graphs = make_synthetic_trace(o);
    const LaunchResult e = analyze_launches(eager), g = analyze_launches(graphs);
    EXPECT_EQ(e.graph_launch_calls, 0);
    EXPECT_EQ(e.launch_calls, static_cast<int64_t>(eager.kernels.size()));
    EXPECT_EQ(g.graph_launch_calls, o.decode_steps);
    EXPECT_EQ(g.graph_kernels, static_cast<int64_t>(graphs.kernels.size()));
    EXPECT_LT(g.eta_launch, e.eta_launch / 10);
    // Independent count of short kernels in the eager trace: kernel shorter than its (≤ 50 µs) launch call.
    int64_t expect_short = 0;
    for (size_t i = 0; i < eager.kernels.size(); ++i) {
        const int32_t a = eager.kernels.launch_api[i];
        ASSERT_GE(a, 0);
        const int64_t ad = eager.api.end[static_cast<size_t>(a)] - eager.api.start[static_cast<size_t>(a)];
        if (eager.kernels.end[i] - eager.kernels.start[i] < ad && ad <= 50 * us)
            ++expect_short;
    }
    EXPECT_EQ(e.short_kernels, expect_short);
    EXPECT_GT(expect_short, 0);
}

TEST(Launch, DriverLaunchesOfNcclAreCounted)
{
    SynthOptions o;
    o.prefill_steps = 0;
    o.decode_steps = 4;
    o.nccl = true;
    const Trace t = make_synthetic_trace(o);
    const LaunchResult r = analyze_launches(t);
    EXPECT_EQ(r.linked, static_cast<int64_t>(t.kernels.size()));   // cuLaunchKernelEx links too (HTA misses these)
}
