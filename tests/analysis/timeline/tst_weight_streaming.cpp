// Weight streaming / layer cache from NVTX names (seed 000: ensure_layer_X, h2d_transfer_layer_X,
// prefetch_layers_X, evict_layer_X, layer_X_kv_fetch, layer_X_forward), hand-computed.
#include <gtest/gtest.h>

#include "analysis/trace/errors.h"
#include "analysis/timeline/weight_streaming.h"

using namespace sl;

namespace {
struct Builder {
    Trace t;
    uint32_t A = 0, corr = 1;
    Builder()
    {
        t.meta.devices.push_back({});
        t.meta.processes.push_back({1, "p", 0});
        A = t.thread_index(1, 1, 1);
    }
    void range(int64_t s, int64_t e, const char* n) { t.ranges.append(s, e, t.strings.intern(n), A, RangeKind::PushPop); }
    void h2d(int64_t api_at, int64_t s, int64_t e, uint64_t bytes)
    {
        const uint32_t c = corr++;
        t.api.append(api_at, api_at + 1, t.strings.intern("cudaMemcpyAsync"), c, A, ApiClass::Runtime,
                     classify_api_name("cudaMemcpyAsync"));
        const size_t m = t.memcpy.append(s, e, bytes, CopyKind::HtoD);
        t.memcpy.correlation[m] = c;
    }
};
} // namespace

TEST(WeightStreaming, SeedNamesInferredHitsAndMisses)
{
    Builder b;
    b.range(0, 100, "ensure_layer_0");
    b.range(10, 90, "h2d_transfer_layer_0");
    b.h2d(20, 200, 300, 1000);                // layer 0's weights: 100 ns, half under the kernel below
    b.range(100, 110, "ensure_layer_3");      // nothing transferred: a hit
    b.range(110, 150, "prefetch_layers_4");
    b.h2d(120, 300, 340, 500);                // 40 ns, fully under the kernel
    b.range(150, 160, "evict_layer_0");
    b.range(160, 170, "layer_0_kv_fetch");    // KV, not weights: ignored
    b.range(170, 180, "layer_0_forward");     // compute: ignored
    b.t.kernels.append(250, 400, b.t.strings.intern("gemm"));
    b.t.finish();
    const WeightStreamingResult r = analyze_weight_streaming(b.t);
    ASSERT_TRUE(r.detected);
    EXPECT_FALSE(r.explicit_hits);
    ASSERT_EQ(r.layers.size(), 3u);
    const LayerStreaming& l0 = r.layers[0];
    EXPECT_EQ(l0.layer, 0);
    EXPECT_EQ(l0.accesses, 1);
    EXPECT_EQ(l0.transfers, 1);
    EXPECT_EQ(l0.misses, 1);
    EXPECT_EQ(l0.hits, 0);
    EXPECT_EQ(l0.evictions, 1);
    EXPECT_EQ(l0.h2d_count, 1);   // launched inside both ensure_ and h2d_transfer_: counted once
    EXPECT_EQ(l0.h2d_ns, 100);
    EXPECT_EQ(l0.h2d_bytes, 1000u);
    EXPECT_EQ(l0.h2d_hidden_ns, 50);
    EXPECT_EQ(l0.transfer_range_ns, 80);
    const LayerStreaming& l3 = r.layers[1];
    EXPECT_EQ(l3.layer, 3);
    EXPECT_EQ(l3.hits, 1);
    const LayerStreaming& l4 = r.layers[2];
    EXPECT_EQ(l4.prefetches, 1);
    EXPECT_EQ(l4.h2d_hidden_ns, 40);
    EXPECT_EQ(r.hits, 1);
    EXPECT_EQ(r.misses, 1);
    EXPECT_DOUBLE_EQ(r.hit_rate, 0.5);
    EXPECT_EQ(r.h2d_ns, 140);
    EXPECT_DOUBLE_EQ(r.h2d_hidden_fraction, 90.0 / 140.0);
}

TEST(WeightStreaming, ExplicitHitMissNamesWin)
{
    Builder b;
    b.range(0, 10, "ensure_layer_1");
    b.range(10, 20, "cache_hit_layer_1");
    b.range(20, 30, "cache_miss_layer_2");
    b.range(30, 40, "layer_5_cache_hit");
    b.t.finish();
    const WeightStreamingResult r = analyze_weight_streaming(b.t);
    EXPECT_TRUE(r.explicit_hits);
    EXPECT_EQ(r.hits, 2);
    EXPECT_EQ(r.misses, 1);
    EXPECT_EQ(r.accesses, 1);
}

TEST(WeightStreaming, NotDetectedWithoutSuchNamesAndBadRegex)
{
    Builder b;
    b.range(0, 10, "decode_step 1");
    b.range(0, 5, "layer 3");
    b.t.finish();
    EXPECT_FALSE(analyze_weight_streaming(b.t).detected);
    WeightStreamingOptions o;
    o.evict_regex = "(";
    EXPECT_THROW(analyze_weight_streaming(b.t, o), TraceError);
}
