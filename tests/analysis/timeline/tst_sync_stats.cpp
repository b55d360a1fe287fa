// Synchronisation statistics: hand-built answers and the planted sync-every-step decode.
#include <gtest/gtest.h>

#include "analysis/timeline/phases.h"
#include "analysis/timeline/sync_stats.h"
#include "analysis/io/synthetic.h"

using namespace sl;

namespace {
constexpr int64_t us = 1000;
}

TEST(Sync, PerApiSharesUnionAndStalls)
{
    Trace t;
    t.meta.devices.push_back({});
    t.meta.processes.push_back({1, "p", 0});
    const uint32_t th1 = t.thread_index(1, 1, 1), th2 = t.thread_index(2, 1, 2);
    auto api = [&](int64_t s, int64_t e, const char* n, uint32_t th) {
        return t.api.append(s, e, t.strings.intern(n), 0, th, ApiClass::Runtime, classify_api_name(n));
    };
    api(0, 100 * us, "cudaStreamSynchronize", th1);
    api(50 * us, 150 * us, "cudaDeviceSynchronize", th1);   // overlaps the first on the same thread
    api(0, 30 * us, "cudaStreamSynchronize", th2);
    api(200 * us, 210 * us, "cudaMemcpy", th2);             // synchronous memcpy blocks too
    api(300 * us, 301 * us, "cudaLaunchKernel", th1);       // not a sync
    const size_t k = t.kernels.append(20 * us, 60 * us, t.strings.intern("big_gemm"));
    (void)k;
    t.kernels.append(70 * us, 80 * us, t.strings.intern("small"));
    t.meta.capture_start = 0;
    t.meta.capture_end = 1000 * us;
    const SyncResult r = analyze_sync(t);
    EXPECT_EQ(r.calls, 4);
    EXPECT_EQ(r.total_ns, (100 + 100 + 30 + 10) * us);
    EXPECT_EQ(r.host_blocked_ns, (150 + 30 + 10) * us);
    EXPECT_DOUBLE_EQ(r.wall_share, 240.0 / 1000.0);
    ASSERT_EQ(r.per_api.size(), 3u);
    EXPECT_EQ(t.str(r.per_api[0].name), "cudaStreamSynchronize");
    EXPECT_EQ(r.per_api[0].duration.count, 2);
    EXPECT_EQ(r.per_api[0].duration.total, 130 * us);
    EXPECT_DOUBLE_EQ(r.per_api[0].wall_share, 0.13);
    ASSERT_EQ(r.stalls.size(), 4u);
    // Largest stall first (100 µs, the earlier row wins the tie): GPU busy 40 + 10 µs inside 0..100.
    EXPECT_EQ(r.stalls[0].api, 0);
    EXPECT_EQ(r.stalls[0].gpu_busy_ns, 50 * us);
    EXPECT_EQ(r.stalls[0].kernels_overlapping, 2);
    EXPECT_EQ(t.str(r.stalls[0].top_kernel), "big_gemm");
    EXPECT_EQ(r.stalls[0].top_kernel_overlap_ns, 40 * us);
    EXPECT_EQ(r.stalls[1].api, 1);
    EXPECT_EQ(r.stalls[1].gpu_busy_ns, (10 + 10) * us);   // 50..60 of big_gemm, 70..80 of small
    EXPECT_EQ(r.stalls[3].gpu_busy_ns, 0);               // the memcpy at 200 µs: GPU idle

    SyncOptions o;
    o.top_stalls = 1;
    EXPECT_EQ(analyze_sync(t, o).stalls.size(), 1u);
}

TEST(Sync, PlantedSyncEveryStep)
{
    SynthOptions o;
    o.prefill_steps = 0;
    o.decode_steps = 8;
    o.sync_every_step = true;
    o.h2d_copies = false;
    const Trace t = make_synthetic_trace(o);
    const SyncResult r = analyze_sync(t);
    EXPECT_EQ(r.calls, o.decode_steps);
    ASSERT_EQ(r.per_api.size(), 1u);
    EXPECT_NE(t.str(r.per_api[0].name).find("cudaStreamSynchronize"), std::string_view::npos);
    // Each stall waits for the GPU to finish the step: the GPU is busy for most of it.
    ASSERT_FALSE(r.stalls.empty());
    EXPECT_GT(r.stalls[0].gpu_busy_ns, (r.stalls[0].end - r.stalls[0].start) / 2);
    // Per step (phases): exactly one sync call in every steady step.
    const PhaseResult p = analyze_phases(t, {}, -1, nullptr);
    EXPECT_EQ(p.source, StepSource::NvtxRanges);
    EXPECT_DOUBLE_EQ(p.steady_sync_calls_per_step, 1.0);
}
