// Interval primitives and copy/compute, comm/compute overlap: hand-computed answers and planted synthetic traces.
#include <gtest/gtest.h>

#include <random>

#include "analysis/timeline/op_classes.h"
#include "analysis/timeline/overlap.h"
#include "analysis/io/synthetic.h"

using namespace sl;

namespace {
constexpr int64_t us = 1000;
}

TEST(Intervals, MergeIntersectBusy)
{
    const auto m = merge_intervals({{5, 10}, {0, 3}, {3, 4}, {8, 12}, {20, 20}, {15, 18}});
    ASSERT_EQ(m.size(), 3u);
    EXPECT_EQ(m[0].start, 0);
    EXPECT_EQ(m[0].end, 4);   // touching intervals merge
    EXPECT_EQ(m[1].start, 5);
    EXPECT_EQ(m[1].end, 12);
    EXPECT_EQ(total_length(m), 4 + 7 + 3);
    const auto other = merge_intervals({{2, 6}, {11, 16}});
    EXPECT_EQ(intersection_length(m, other), 2 + 1 + 1 + 1);
    const BusyIndex b(m);
    EXPECT_EQ(b.busy_in(0, 100), 14);
    EXPECT_EQ(b.busy_in(2, 6), 3);
    EXPECT_EQ(b.busy_in(4, 5), 0);
    EXPECT_EQ(b.busy_in(6, 7), 1);
    EXPECT_EQ(b.busy_in(13, 14), 0);
    EXPECT_EQ(b.busy_in(10, 10), 0);
}

TEST(Intervals, BusyInMatchesBruteForce)
{
    std::mt19937 rng(7);
    std::vector<Interval> iv;
    for (int i = 0; i < 300; ++i) {
        const int64_t s = rng() % 10'000;
        iv.push_back({s, s + 1 + static_cast<int64_t>(rng() % 50)});
    }
    const auto m = merge_intervals(iv);
    const BusyIndex b(m);
    std::vector<uint8_t> cover(11'000, 0);
    for (const auto& x : iv)
        for (int64_t p = x.start; p < x.end; ++p)
            cover[static_cast<size_t>(p)] = 1;
    for (int q = 0; q < 200; ++q) {
        int64_t a = rng() % 10'500, c = rng() % 10'500;
        if (a > c)
            std::swap(a, c);
        int64_t want = 0;
        for (int64_t p = a; p < c; ++p)
            want += cover[static_cast<size_t>(p)];
        ASSERT_EQ(b.busy_in(a, c), want) << a << ".." << c;
    }
}

TEST(Overlap, HandBuiltCopiesAndComm)
{
    Trace t;
    t.meta.devices.push_back({});
    t.kernels.append(0, 100 * us, t.strings.intern("gemm"));
    t.kernels.append(200 * us, 300 * us, t.strings.intern("ncclKernel_AllReduce"));
    // H2D 50..150: half under the GEMM. D2H 400..410: nothing running.
    size_t m = t.memcpy.append(50 * us, 150 * us, 1 << 20, CopyKind::HtoD);
    t.memcpy.src_kind[m] = MemKind::Pageable;
    m = t.memcpy.append(400 * us, 410 * us, 64, CopyKind::DtoH);
    t.memcpy.src_kind[m] = MemKind::Device;
    t.memcpy.dst_kind[m] = MemKind::Pinned;
    t.finish();
    OverlapOptions o;
    o.comm_class = 1;
    const OverlapResult r = analyze_overlap(t, {0, 1}, o);
    ASSERT_EQ(r.devices.size(), 1u);
    const auto& d = r.devices[0];
    EXPECT_EQ(d.compute_ns, 100 * us);
    EXPECT_EQ(d.h2d.time_ns, 100 * us);
    EXPECT_EQ(d.h2d.hidden_ns, 50 * us);
    EXPECT_DOUBLE_EQ(d.h2d.hidden_fraction, 0.5);
    EXPECT_DOUBLE_EQ(d.d2h.hidden_fraction, 0.0);
    EXPECT_EQ(d.all_copies.count, 2);
    EXPECT_EQ(d.comm.count, 1);
    EXPECT_DOUBLE_EQ(d.comm.hidden_fraction, 0.0);   // the all-reduce ran alone
    EXPECT_EQ(d.pageable_count, 1);
    EXPECT_EQ(d.pageable_bytes, 1u << 20);
    // Without classes nothing is communication, and the NCCL kernel counts as compute.
    const OverlapResult r2 = analyze_overlap(t, {}, {});
    EXPECT_EQ(r2.devices[0].compute_ns, 200 * us);
    EXPECT_DOUBLE_EQ(r2.devices[0].comm.hidden_fraction, -1);
}

// Copies before the first compute kernel (a setup upload) and after the last (a final readback) have nothing to
// run under: they are outside_ns, so only the exposed copy time between the kernels counts as what overlap could win.
TEST(Overlap, CopiesOutsideTheComputeSpan)
{
    Trace t;
    t.meta.devices.push_back({});
    t.kernels.append(1000 * us, 1100 * us, t.strings.intern("gemm"));
    t.kernels.append(1300 * us, 1400 * us, t.strings.intern("gemm"));
    t.memcpy.append(0, 900 * us, 1 << 30, CopyKind::HtoD);               // setup upload: wholly outside
    t.memcpy.append(950 * us, 1050 * us, 1 << 20, CopyKind::HtoD);       // 50 before, 50 under the first GEMM
    t.memcpy.append(1150 * us, 1250 * us, 1 << 20, CopyKind::HtoD);      // between the kernels: exposed, hideable
    t.memcpy.append(1500 * us, 1600 * us, 1 << 20, CopyKind::DtoH);      // final readback
    t.finish();
    const OverlapResult r = analyze_overlap(t, {0, 0}, {});   // kept: a reference into a temporary dangled (ASan)
    const auto& d = r.devices[0];
    EXPECT_EQ(d.h2d.time_ns, 1100 * us);
    EXPECT_EQ(d.h2d.hidden_ns, 50 * us);
    EXPECT_EQ(d.h2d.outside_ns, 950 * us);
    EXPECT_EQ(d.h2d.time_ns - d.h2d.hidden_ns - d.h2d.outside_ns, 100 * us);   // the copy between the GEMMs
    EXPECT_EQ(d.d2h.outside_ns, 100 * us);
    // No compute at all: every copy is outside.
    Trace c;
    c.meta.devices.push_back({});
    c.memcpy.append(0, 10 * us, 64, CopyKind::HtoD);
    c.finish();
    EXPECT_EQ(analyze_overlap(c, {}, {}).devices[0].h2d.outside_ns, 10 * us);
}

static DeviceOverlap synth_overlap(const SynthOptions& o)
{
    const Trace t = make_synthetic_trace(o);
    const OpClassifier c = OpClassifier::load();
    const OpClassResult cls = classify_ops(t, c);
    OverlapOptions ov;
    ov.comm_class = c.communication_index();
    return analyze_overlap(t, cls.kernel_class, ov).devices.at(0);
}

TEST(Overlap, PlantedCopyStreamOverlapsOrNot)
{
    SynthOptions o;
    o.prefill_steps = 0;
    o.decode_steps = 12;
    o.copy_overlaps_compute = true;
    const DeviceOverlap hidden = synth_overlap(o);
    o.copy_overlaps_compute = false;
    const DeviceOverlap serial = synth_overlap(o);
    EXPECT_GT(hidden.h2d.count, 0);
    EXPECT_GT(hidden.h2d.hidden_fraction, 0.8);
    EXPECT_LT(serial.h2d.hidden_fraction, 0.2);
    EXPECT_EQ(hidden.pageable_count, 0);
    o.pageable_copies = true;
    const DeviceOverlap pageable = synth_overlap(o);
    EXPECT_EQ(pageable.pageable_count, pageable.h2d.count);
    EXPECT_EQ(pageable.pageable_async_api_count, pageable.h2d.count);   // cudaMemcpyAsync from pageable memory
}

TEST(Overlap, PlantedNcclUnderOrOutsideCompute)
{
    SynthOptions o;
    o.prefill_steps = 0;
    o.decode_steps = 6;
    o.h2d_copies = false;
    o.nccl = true;
    o.nccl_overlaps_compute = true;
    const DeviceOverlap under = synth_overlap(o);
    o.nccl_overlaps_compute = false;
    const DeviceOverlap outside = synth_overlap(o);
    EXPECT_EQ(under.comm.count, 2 * o.layers * o.decode_steps);
    EXPECT_GT(under.comm.hidden_fraction, 0.5);
    EXPECT_LT(outside.comm.hidden_fraction, 0.1);
}
