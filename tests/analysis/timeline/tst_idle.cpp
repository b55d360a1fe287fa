// Idle attribution: hand-built traces with hand-computed answers, and synthetic traces with planted behaviour.
#include <gtest/gtest.h>

#include <atomic>

#include "analysis/timeline/idle.h"
#include "analysis/io/synthetic.h"
#include "analysis/timeline/launch_stats.h"
#include "analysis/timeline/op_classes.h"
#include "analysis/timeline/phases.h"
#include "analysis/timeline/sync_stats.h"
#include "analysis/timeline/workload.h"
#include "analysis/trace/cancel_point.h"

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
    size_t api(int64_t s, int64_t e, const char* name, uint32_t c = 0)
    {
        return t.api.append(s, e, t.strings.intern(name), c, thr, ApiClass::Runtime, classify_api_name(name));
    }
    size_t kernel(int64_t s, int64_t e, int64_t api_s, int64_t api_e, uint32_t stream = 7, const char* name = "k")
    {
        const uint32_t c = corr++;
        api(api_s, api_e, "cudaLaunchKernel", c);
        const size_t k = t.kernels.append(s, e, t.strings.intern(name));
        t.kernels.correlation[k] = c;
        t.kernels.stream[k] = stream;
        return k;
    }
};

// K1..K5 on one device; every gap planted with a known cause (times in µs):
//   [110,115] host-wait   (K2's launch starts at 112, after K1 ended)
//   [120,122] kernel-wait (2 µs < 30 µs, K3 launched long before)
//   [130,200] other       (70 µs, K4 launched at 109: neither host nor launch latency)
//   [210,320] sync-wait   (cudaStreamSynchronize 212..305 in progress)
Trace planted()
{
    Builder b;
    b.kernel(100 * us, 110 * us, 90 * us, 95 * us);
    b.kernel(115 * us, 120 * us, 112 * us, 113 * us);
    b.kernel(122 * us, 130 * us, 105 * us, 108 * us, 8);
    b.kernel(200 * us, 210 * us, 109 * us, 111 * us);
    b.api(212 * us, 305 * us, "cudaStreamSynchronize");
    b.kernel(320 * us, 330 * us, 306 * us, 308 * us);
    b.t.finish();
    return std::move(b.t);
}
} // namespace

TEST(Idle, PlantedCausesPerDevice)
{
    const Trace t = planted();
    const IdleResult r = analyze_idle(t);
    ASSERT_EQ(r.devices.size(), 1u);
    const DeviceIdle& d = r.devices[0];
    EXPECT_EQ(d.window_ns, 230 * us);
    EXPECT_EQ(d.busy_ns, 43 * us);
    EXPECT_EQ(d.idle_ns, 187 * us);
    EXPECT_DOUBLE_EQ(d.idle_fraction, 187.0 / 230.0);
    EXPECT_EQ(d.breakdown.host_wait_ns(), 5 * us);
    EXPECT_EQ(d.breakdown.kernel_wait_ns(), 2 * us);
    EXPECT_EQ(d.breakdown.other_ns(), 70 * us);
    EXPECT_EQ(d.breakdown.sync_wait_ns(), 110 * us);
    EXPECT_EQ(d.breakdown.total_ns(), d.idle_ns);
    ASSERT_EQ(r.gaps.size(), 4u);
    EXPECT_EQ(r.gaps[0].cause, GapCause::HostWait);
    EXPECT_EQ(r.gaps[1].cause, GapCause::KernelWait);
    EXPECT_EQ(r.gaps[2].cause, GapCause::Other);
    EXPECT_EQ(r.gaps[3].cause, GapCause::SyncWait);
    ASSERT_GE(r.gaps[3].sync_api, 0);
    EXPECT_EQ(t.str(t.api.name[static_cast<size_t>(r.gaps[3].sync_api)]), "cudaStreamSynchronize");
    EXPECT_EQ(r.gaps[0].prev_row, 0);
    EXPECT_EQ(r.gaps[0].next_row, 1);
    // Histogram: 2 µs in [1,5), 5 µs in [5,10), 70 µs in [50,100), 110 µs in [0.1,1 ms).
    ASSERT_EQ(r.histogram.size(), 7u);
    EXPECT_EQ(r.histogram[1].count, 1);
    EXPECT_EQ(r.histogram[2].count, 1);
    EXPECT_EQ(r.histogram[4].count, 1);
    EXPECT_EQ(r.histogram[5].count, 1);
    EXPECT_EQ(r.histogram[5].total_ns, 110 * us);
}

TEST(Idle, PerStreamFollowsHtaAndDiffersFromDevice)
{
    // Stream 7 does not see K3 (stream 8), so its gap [120,200] is 80 µs of "other" (HTA per-stream semantics),
    // while the device was busy with K3 during [122,130].
    const IdleResult r = analyze_idle(planted());
    ASSERT_EQ(r.streams.size(), 2u);
    const StreamIdle& s7 = r.streams[0];
    EXPECT_EQ(s7.stream, 7u);
    EXPECT_EQ(s7.ops, 4);
    EXPECT_EQ(s7.idle_ns, 195 * us);
    EXPECT_EQ(s7.busy_ns, 35 * us);
    EXPECT_EQ(s7.breakdown.host_wait_ns(), 5 * us);
    EXPECT_EQ(s7.breakdown.other_ns(), 80 * us);
    EXPECT_EQ(s7.breakdown.sync_wait_ns(), 110 * us);
    EXPECT_EQ(r.streams[1].stream, 8u);
    EXPECT_EQ(r.streams[1].idle_ns, 0);
}

TEST(Idle, ThresholdIsAnOption)
{
    IdleOptions o;
    o.kernel_wait_threshold_ns = 1 * us;   // the 2 µs gap is no longer launch latency
    const IdleResult r = analyze_idle(planted(), o);
    EXPECT_EQ(r.devices[0].breakdown.kernel_wait_ns(), 0);
    EXPECT_EQ(r.devices[0].breakdown.other_ns(), 72 * us);
    o.kernel_wait_threshold_ns = 100 * us;  // now the 70 µs gap is too
    const IdleResult r2 = analyze_idle(planted(), o);
    EXPECT_EQ(r2.devices[0].breakdown.kernel_wait_ns(), 72 * us);
}

TEST(Idle, OverlappingOpsAndCopiesFormOneBusyPeriod)
{
    Builder b;
    b.kernel(0, 10 * us, -5 * us, -4 * us);
    const size_t m = b.t.memcpy.append(5 * us, 20 * us, 100, CopyKind::HtoD);
    b.t.memcpy.stream[m] = 13;
    b.kernel(25 * us, 30 * us, 21 * us, 22 * us);   // launched after the copy ended: host-wait
    b.t.finish();
    const IdleResult r = analyze_idle(b.t);
    ASSERT_EQ(r.gaps.size(), 1u);
    EXPECT_EQ(r.gaps[0].start, 20 * us);
    EXPECT_EQ(r.gaps[0].prev_kind, OpKind::Memcpy);
    EXPECT_EQ(r.gaps[0].cause, GapCause::HostWait);
    EXPECT_EQ(r.devices[0].busy_ns, 25 * us);
}

TEST(Idle, EmptyTraceHasNoDevices)
{
    Trace t;
    t.finish();
    const IdleResult r = analyze_idle(t);
    EXPECT_TRUE(r.devices.empty());
    EXPECT_TRUE(r.gaps.empty());
}

TEST(Idle, PlantedHostStarvedDecodeIsHostWaitDominant)
{
    SynthOptions o;
    o.prefill_steps = 0;
    o.decode_steps = 16;
    o.h2d_copies = false;
    const IdleResult fed = analyze_idle(make_synthetic_trace(o));
    o.host_starved = true;
    const IdleResult starved = analyze_idle(make_synthetic_trace(o));
    const auto& f = fed.devices.at(0);
    const auto& s = starved.devices.at(0);
    // Starving the GPU makes it idle far more often, and the idle is the host's fault.
    EXPECT_GT(s.idle_fraction, 0.3);
    EXPECT_GT(s.idle_fraction, 3 * f.idle_fraction);
    EXPECT_GT(s.breakdown.host_wait_ns(), 0.9 * static_cast<double>(s.idle_ns));
    // A host that runs ahead leaves only launch-latency gaps (plus the inter-step scheduler gaps).
    EXPECT_GT(f.breakdown.kernel_wait_ns() + f.breakdown.host_wait_ns(), 0.9 * static_cast<double>(f.idle_ns));
}

TEST(Idle, PlantedSyncEveryStepIsSyncWait)
{
    SynthOptions o;
    o.prefill_steps = 0;
    o.decode_steps = 12;
    o.h2d_copies = false;
    o.sync_every_step = true;
    const IdleResult r = analyze_idle(make_synthetic_trace(o));
    const auto& d = r.devices.at(0);
    // One sync per step: every step but the last leaves a sync-wait gap after its D2H copy.
    EXPECT_EQ(d.breakdown.count[static_cast<size_t>(GapCause::SyncWait)], o.decode_steps - 1);
    EXPECT_GT(d.breakdown.sync_wait_ns(), d.breakdown.host_wait_ns());
    EXPECT_GT(d.breakdown.sync_wait_ns(), 0.5 * static_cast<double>(d.idle_ns));
    o.sync_every_step = false;
    const IdleResult r2 = analyze_idle(make_synthetic_trace(o));
    EXPECT_EQ(r2.devices.at(0).breakdown.sync_wait_ns(), 0);
}

TEST(Idle, QueuedWorkDuringASyncIsNotSyncWait)
{
    // The host blocks in cudaDeviceSynchronize 0..100 µs while the GPU drains work queued before it: the 10 µs gap
    // between the two queued kernels is launch latency, not the sync's fault.
    Builder b;
    b.kernel(10 * us, 20 * us, 0, 2 * us);
    b.kernel(30 * us, 40 * us, 3 * us, 4 * us);
    b.api(5 * us, 100 * us, "cudaDeviceSynchronize");
    b.t.finish();
    const IdleResult r = analyze_idle(b.t);
    ASSERT_EQ(r.gaps.size(), 1u);
    EXPECT_EQ(r.gaps[0].cause, GapCause::KernelWait);
}

// A queued kernel blocked on an event (what SGLang's overlap scheduler shows at the head of a step): the host
// issues cudaStreamWaitEvent, launches K2 at 112 µs — 2 µs after K1 ended — and then blocks in a synchronous
// cudaMemcpy; K2 starts only at 5,000 µs. The launch came after the gap began (HTA: host wait), but K2 was queued
// 4,887 µs of the 4,890 µs gap: a dependency wait on the event, not the host. Times in µs.
TEST(Idle, QueuedKernelBlockedOnAnEventIsADependencyWait)
{
    Builder b;
    b.kernel(100 * us, 110 * us, 90 * us, 95 * us);
    b.api(108 * us, 110 * us, "cudaStreamWaitEvent");
    b.kernel(5000 * us, 5010 * us, 111 * us, 113 * us);
    b.api(114 * us, 5013 * us, "cudaMemcpy");   // blocks until K2 and the copy behind it are done
    b.t.finish();
    const IdleResult r = analyze_idle(b.t);
    ASSERT_EQ(r.gaps.size(), 1u);
    const Gap& g = r.gaps[0];
    EXPECT_EQ(g.cause, GapCause::DependencyWait);
    EXPECT_EQ(r.devices[0].breakdown.dependency_wait_ns(), 4890 * us);
    EXPECT_EQ(r.devices[0].breakdown.host_wait_ns(), 0);
    EXPECT_EQ(r.devices[0].breakdown.total_ns(), r.devices[0].idle_ns);
    const GapDependency d = dependency_of(b.t, g);
    ASSERT_GE(d.wait_api, 0);
    EXPECT_EQ(b.t.str(b.t.api.name[static_cast<size_t>(d.wait_api)]), "cudaStreamWaitEvent");
    ASSERT_GE(d.blocking_api, 0);
    EXPECT_EQ(b.t.str(b.t.api.name[static_cast<size_t>(d.blocking_api)]), "cudaMemcpy");
    EXPECT_EQ(d.blocking_overlap_ns, (5000 - 114) * us);
    EXPECT_EQ(r.dependency_under_blocking_ns, d.blocking_overlap_ns);   // the analysis' sum over its one gap
    ASSERT_GE(d.launch_api, 0);
    EXPECT_EQ(b.t.api.start[static_cast<size_t>(d.launch_api)], 111 * us);
    // Per stream the same gap, the same cause.
    ASSERT_EQ(r.streams.size(), 1u);
    EXPECT_EQ(r.streams[0].breakdown.dependency_wait_ns(), 4890 * us);
}

// Where HTA and Sightline agree they stay agreed: the same stall without the stream wait is host wait (the launch
// came after the gap began), a wait issued before the stream's previous launch belongs to that launch, and a kernel
// that started soon after its launch returned was not queued behind anything.
TEST(Idle, WithoutAWaitOfItsOwnTheCauseIsHtas)
{
    {
        Builder b;
        b.kernel(100 * us, 110 * us, 90 * us, 95 * us);
        b.kernel(5000 * us, 5010 * us, 111 * us, 113 * us);
        b.t.finish();
        const IdleResult r = analyze_idle(b.t);
        ASSERT_EQ(r.gaps.size(), 1u);
        EXPECT_EQ(r.gaps[0].cause, GapCause::HostWait);
    }
    {
        Builder b;
        b.api(80 * us, 82 * us, "cudaStreamWaitEvent");   // before K1's launch: K1's wait
        b.kernel(100 * us, 110 * us, 90 * us, 95 * us);
        b.kernel(5000 * us, 5010 * us, 111 * us, 113 * us);
        b.t.finish();
        const IdleResult r = analyze_idle(b.t);
        ASSERT_EQ(r.gaps.size(), 1u);
        EXPECT_EQ(r.gaps[0].cause, GapCause::HostWait);
    }
    {
        Builder b;
        b.kernel(100 * us, 110 * us, 90 * us, 95 * us);
        b.api(200 * us, 202 * us, "cudaStreamWaitEvent");
        b.kernel(420 * us, 430 * us, 400 * us, 405 * us);   // launched 290 µs into the gap, ran 15 µs later
        b.t.finish();
        const IdleResult r = analyze_idle(b.t);
        ASSERT_EQ(r.gaps.size(), 1u);
        EXPECT_EQ(r.gaps[0].cause, GapCause::HostWait);
    }
    {
        // Queued before the gap began, but no stream wait in sight: "other", as before.
        Builder b;
        b.kernel(100 * us, 110 * us, 90 * us, 95 * us);
        b.kernel(900 * us, 910 * us, 96 * us, 98 * us);
        b.t.finish();
        const IdleResult r = analyze_idle(b.t);
        ASSERT_EQ(r.gaps.size(), 1u);
        EXPECT_EQ(r.gaps[0].cause, GapCause::Other);
    }
}

// The planted trace of `sightline-cli generate --event-stall-ms 40`: the first decode step's first kernel is queued
// behind cudaStreamWaitEvent and starts 40 ms later while the host sits in cudaMemcpy.
TEST(Idle, SyntheticEventStallIsOneDependencyWait)
{
    SynthOptions o;
    o.prefill_steps = 0;
    o.decode_steps = 6;
    o.layers = 2;
    o.event_stall_ns = 40'000'000;
    const Trace t = make_synthetic_trace(o);
    const IdleResult r = analyze_idle(t);
    int64_t dep = 0, n = 0;
    const Gap* longest = nullptr;
    for (const Gap& g : r.gaps) {
        if (!longest || g.duration() > longest->duration())
            longest = &g;
        if (g.cause == GapCause::DependencyWait) {
            dep += g.duration();
            ++n;
        }
    }
    ASSERT_NE(longest, nullptr);
    EXPECT_EQ(longest->cause, GapCause::DependencyWait);
    EXPECT_EQ(n, 1);
    EXPECT_GT(dep, 39'000'000);
    EXPECT_LT(dep, 41'000'000);
    const GapDependency d = dependency_of(t, *longest);
    ASSERT_GE(d.blocking_api, 0);
    EXPECT_EQ(t.str(t.api.name[static_cast<size_t>(d.blocking_api)]), "cudaMemcpy_v3020");
    EXPECT_EQ(t.str(t.api.name[static_cast<size_t>(d.wait_api)]), "cudaStreamWaitEvent_v3020");
    EXPECT_EQ(r.dependency_under_blocking_ns, d.blocking_overlap_ns);
    // Without the stall the same trace has no dependency wait at all.
    o.event_stall_ns = 0;
    const IdleResult r0 = analyze_idle(make_synthetic_trace(o));
    EXPECT_EQ(r0.devices[0].breakdown.dependency_wait_ns(), 0);
}

// IdleResult::dependency_under_blocking_ns (what the trace scope's sync_dependency_overlap_ns reads) equals
// dependency_of()'s blocking overlap summed gap by gap — its definition — on a trace of many stalls: 300 kernels on
// two streams, each queued behind a stream wait with probability 1/2, the host in blocking calls that nest, overlap
// the gaps in part, sit on another thread, or do not overlap at all.
TEST(Idle, DependencyUnderBlockingIsTheSumOfEachGapsBlockingOverlap)
{
    Builder b;
    const uint32_t other = b.t.thread_index(1, 1, 2);
    uint64_t seed = 12345;
    auto rnd = [&](int64_t n) {
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        return static_cast<int64_t>((seed >> 33) % static_cast<uint64_t>(n));
    };
    int64_t t = 100 * us;
    for (int i = 0; i < 300; ++i) {
        const int64_t launch = t - 20 * us;
        if (rnd(2))
            b.api(launch - 3 * us, launch - 2 * us, "cudaStreamWaitEvent");
        const int64_t gap = (1 + rnd(200)) * us;
        b.kernel(t + gap, t + gap + 5 * us, launch, launch + us, 7 + static_cast<uint32_t>(rnd(2)));
        switch (rnd(5)) {
        case 0:   // a blocking copy over most of the gap, and a nested sync inside it
            b.api(launch + 2 * us, t + gap - us, "cudaMemcpy");
            b.api(launch + 3 * us, t + gap / 2, "cudaStreamSynchronize");
            break;
        case 1:   // one that ends inside the gap
            b.api(launch + 2 * us, t + gap / 3 + 1, "cudaDeviceSynchronize");
            break;
        case 2:   // on another thread: not the launching one's
            b.t.api.append(launch + 2 * us, t + gap, b.t.strings.intern("cudaMemcpy"), 0, other, ApiClass::Runtime,
                           classify_api_name("cudaMemcpy"));
            break;
        case 3:   // before the gap: no overlap
            b.api(launch + 2 * us, launch + 4 * us, "cudaMemcpy");
            break;
        default:
            break;
        }
        t += gap + 5 * us;
    }
    b.t.finish();
    const IdleResult r = analyze_idle(b.t);
    int64_t sum = 0, dependency_gaps = 0;
    for (const Gap& g : r.gaps)
        if (g.cause == GapCause::DependencyWait) {
            sum += dependency_of(b.t, g).blocking_overlap_ns;
            ++dependency_gaps;
        }
    EXPECT_GT(dependency_gaps, 50);
    EXPECT_GT(sum, 0);
    EXPECT_EQ(r.dependency_under_blocking_ns, sum);
}

// Issue 36 §7: the analyses stop inside their loops once the cancel flag of the thread's CancelScope is raised, not
// only between stages (where analyze() checks its LoadControl). Each stage is called directly with the flag already
// up: it must throw Cancelled, where without its inner cancel points it would return a result. With no scope open
// (the CLI, other threads) the same calls run to the end.
TEST(CancelPoints, EachLongStageStopsInsideItsLoops)
{
    SynthOptions o = synth_preset("decode");
    o.total_kernels = 20'000;
    const Trace t = make_synthetic_trace(o);
    const OpClassifier c = OpClassifier::load();
    const OpClassResult classes = classify_ops(t, c);   // no scope: runs
    std::atomic<bool> flag{true};
    {
        const CancelScope scope(&flag);
        EXPECT_THROW(classify_ops(t, c), Cancelled);   // every regex match is a cancel point
        EXPECT_THROW(analyze_idle(t), Cancelled);
        EXPECT_THROW(analyze_launches(t), Cancelled);
        EXPECT_THROW(analyze_sync(t), Cancelled);
        EXPECT_THROW(analyze_workload(t), Cancelled);
        EXPECT_THROW(analyze_phases(t, classes.kernel_class, c.class_index("sampling"), nullptr), Cancelled);
        {
            const CancelScope inner(nullptr);   // a scope without a flag keeps the enclosing one
            EXPECT_THROW(cancel_point(), Cancelled);
        }
    }
    EXPECT_NO_THROW(cancel_point());   // the scope's end restores "no flag"
    EXPECT_NO_THROW(analyze_idle(t));
    flag = false;
    const CancelScope lowered(&flag);
    EXPECT_NO_THROW(analyze_idle(t));
}
