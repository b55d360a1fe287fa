// Timeline coordinate math (data-driven) and the level-of-detail index: lanes, visible-slice search, hit testing,
// merged spans, range statistics — on hand-built traces with hand-computed answers.
#include <QTest>
#include <functional>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <random>
#include <set>

#include "model/timeline_index.h"
#include "model/timeline_math.h"

using namespace sl;
using namespace sl::timeline;

Q_DECLARE_METATYPE(sl::timeline::Window)

namespace {

// GPU 0 stream 7: kernels [100,200) [250,300) [1000,1100); stream 13: memcpy [150,400).
// Thread 0: API calls launching the kernels at [10,20) [30,40) [900,950); NVTX "step" [0,2000) and "layer" [5,45).
std::shared_ptr<const Trace> smallTrace()
{
    auto t = std::make_shared<Trace>();
    const uint16_t dev = t->device_index(0);
    const uint32_t th = t->thread_index(1, 1, 1);
    const StrId kn = t->strings.intern("gemm");
    const StrId launch = t->strings.intern("cudaLaunchKernel");
    const int64_t ks[][2] = {{100, 200}, {250, 300}, {1000, 1100}};
    const int64_t as[][2] = {{10, 20}, {30, 40}, {900, 950}};
    for (int i = 0; i < 3; ++i) {
        const size_t r = t->kernels.append(ks[i][0], ks[i][1], kn);
        t->kernels.device[r] = dev;
        t->kernels.stream[r] = 7;
        t->kernels.correlation[r] = uint32_t(i + 1);
        t->api.append(as[i][0], as[i][1], launch, uint32_t(i + 1), th, ApiClass::Runtime, kApiLaunch);
    }
    const size_t c = t->memcpy.append(150, 400, 4096, CopyKind::HtoD);
    t->memcpy.device[c] = dev;
    t->memcpy.stream[c] = 13;
    t->ranges.append(0, 2000, t->strings.intern("step"), th, RangeKind::PushPop);
    t->ranges.append(5, 45, t->strings.intern("layer"), th, RangeKind::PushPop);
    t->finish();
    return t;
}

// A trace whose lanes exercise every path of the index's construction: two devices, streams holding kernels and
// copies mixed (items of two tables in one lane), a stream whose rows are not in time order (the sort), items that
// overlap (block maxima, gaps that a long item hides), durations and gaps from 10 ns to 1 ms (levels that start
// merging at different zooms), two API threads, nested NVTX ranges and CPU ops (not drawn). Seed 3 adds spans
// longer than 2^32 ns (LodLevel keeps their lengths aside): a stream of 1 us kernels 50 ms apart over 15 s, which
// coarse levels merge into runs of seconds, and a 6 s NVTX range.
std::shared_ptr<const Trace> randomTrace(uint64_t seed)
{
    std::mt19937_64 rng(seed);
    auto logUniform = [&](double lo, double hi) {
        return int64_t(std::exp(std::uniform_real_distribution<double>(std::log(lo), std::log(hi))(rng)));
    };
    auto t = std::make_shared<Trace>();
    const uint16_t devs[2] = {t->device_index(0), t->device_index(1)};
    const uint32_t ths[2] = {t->thread_index(1, 1, 1), t->thread_index(2, 1, 2)};
    const StrId names[3] = {t->strings.intern("gemm"), t->strings.intern("attn"), t->strings.intern("norm")};
    struct Op { int64_t s, e; uint16_t dev; uint32_t stream; bool copy; };
    std::vector<Op> ops;
    for (int lane = 0; lane < 5; ++lane) {
        const uint16_t dev = devs[lane < 3 ? 0 : 1];
        const uint32_t stream = uint32_t(7 + lane);
        int64_t at = logUniform(1, 1e5);
        const int n = 400 + int(rng() % 3000);
        for (int i = 0; i < n; ++i) {
            const int64_t d = logUniform(10, lane == 1 ? 1e6 : 2e4);
            // lane 2 overlaps: some items start before the previous one ended
            const int64_t gap = lane == 2 && rng() % 4 == 0 ? -d / 2 : logUniform(1, lane == 4 ? 1e6 : 5e3);
            at = std::max<int64_t>(0, at + gap);
            ops.push_back({at, at + d, dev, stream, lane == 0 && rng() % 5 == 0});
            at += d;
        }
    }
    std::shuffle(ops.begin() + 2000, ops.end(), rng);   // rows out of time order from here on
    for (const Op& o : ops) {
        if (o.copy) {
            const size_t c = t->memcpy.append(o.s, o.e, 4096, CopyKind::HtoD);
            t->memcpy.device[c] = o.dev;
            t->memcpy.stream[c] = o.stream;
        } else {
            const size_t r = t->kernels.append(o.s, o.e, names[rng() % 3]);
            t->kernels.device[r] = o.dev;
            t->kernels.stream[r] = o.stream;
        }
    }
    if (seed == 3) {
        for (int i = 0; i < 300; ++i) {
            const int64_t at = int64_t(i) * 50'000'000 + logUniform(1, 1e6);
            const size_t r = t->kernels.append(at, at + 1000, names[0]);
            t->kernels.device[r] = devs[1];
            t->kernels.stream[r] = 20;
        }
        t->ranges.append(1000, 6'000'001'000, t->strings.intern("serve"), ths[1], RangeKind::PushPop);
    }
    const StrId launch = t->strings.intern("cudaLaunchKernel"), step = t->strings.intern("step");
    for (int th = 0; th < 2; ++th) {
        int64_t at = 0;
        for (int i = 0; i < 2000; ++i) {
            const int64_t d = logUniform(100, 1e4);
            t->api.append(at, at + d, launch, 0, ths[th], ApiClass::Runtime, kApiLaunch);
            if (i % 10 == 0)
                t->ranges.append(at, at + 30 * d, step, ths[th], i % 20 == 0 ? RangeKind::PushPop : RangeKind::CpuOp);
            at += d + logUniform(10, 1e5);
        }
    }
    t->finish();
    return t;
}

struct ThreadsEnv {
    explicit ThreadsEnv(const char* n) { ::setenv("SIGHTLINE_LOAD_THREADS", n, 1); }
    ~ThreadsEnv() { ::unsetenv("SIGHTLINE_LOAD_THREADS"); }
};

} // namespace

class TestTimelineIndex : public QObject {
    Q_OBJECT
    // Two kernel lookups give the same answers: names, instances, API -> kernel, longest ranges; and the scans a
    // caller falls back to while its index is coarse give them too.
    static void sameLookup(const KernelLookup& a, const KernelLookup& b)
    {
        const Trace& t = b.trace();
        QCOMPARE(a.names().size(), b.names().size());
        for (size_t i = 0; i < b.names().size(); ++i) {
            const KernelLookup::Name &x = a.names()[i], &y = b.names()[i];
            QCOMPARE(x.name, y.name);
            QCOMPARE(x.begin, y.begin);
            QCOMPARE(x.end, y.end);
            QCOMPARE(x.total, y.total);
            const auto ia = a.instances(y.name), ib = b.instances(y.name);
            QVERIFY(std::equal(ia.begin(), ia.end(), ib.begin(), ib.end()));
            QCOMPARE(a.longestInstance(y.name), b.longestInstance(y.name));
            QCOMPARE(KernelLookup::scanLongestInstance(t, y.name), b.longestInstance(y.name));
        }
        for (int64_t api = -1; api <= int64_t(t.api.size()); ++api) {
            QCOMPARE(a.kernelOfApi(api), b.kernelOfApi(api));
            QCOMPARE(KernelLookup::scanKernelOfApi(t, api), b.kernelOfApi(api));
        }
        for (size_t r = 0; r < t.ranges.size(); ++r) {
            const StrId nm = t.ranges.name[r];
            QCOMPARE(a.longestRange(nm), b.longestRange(nm));
            QCOMPARE(KernelLookup::scanLongestRange(t, nm), b.longestRange(nm));
        }
    }

private slots:
    void timeToX_data()
    {
        QTest::addColumn<qint64>("t");
        QTest::addColumn<double>("x");
        QTest::newRow("start") << qint64(1000) << 0.0;
        QTest::newRow("middle") << qint64(1500) << 50.0;
        QTest::newRow("end") << qint64(2000) << 100.0;
        QTest::newRow("before") << qint64(900) << -10.0;
    }
    void timeToX()
    {
        QFETCH(qint64, t);
        QFETCH(double, x);
        const Window w{1000, 2000};
        QCOMPARE(timeline::timeToX(t, w, 100), x);
        QCOMPARE(xToTime(x, w, 100), t);
    }

    void zoom_data()
    {
        QTest::addColumn<Window>("in");
        QTest::addColumn<qint64>("anchor");
        QTest::addColumn<double>("factor");
        QTest::addColumn<Window>("out");
        const Window b{0, 10000};
        QTest::newRow("in at centre") << Window{0, 1000} << qint64(500) << 0.5 << Window{250, 750};
        QTest::newRow("in at left edge") << Window{0, 1000} << qint64(0) << 0.5 << Window{0, 500};
        QTest::newRow("in keeps anchor pixel") << Window{1000, 2000} << qint64(1200) << 0.5 << Window{1100, 1600};
        QTest::newRow("out clamps to bounds") << Window{0, 8000} << qint64(4000) << 4.0 << b;
        QTest::newRow("out shifts inside bounds") << Window{8000, 10000} << qint64(9000) << 2.0 << Window{6000, 10000};
        QTest::newRow("min duration") << Window{0, 200} << qint64(100) << 0.01 << Window{50, 150};
    }
    void zoom()
    {
        QFETCH(Window, in);
        QFETCH(qint64, anchor);
        QFETCH(double, factor);
        QFETCH(Window, out);
        const Window r = timeline::zoom(in, anchor, factor, Window{0, 10000}, 100);
        QCOMPARE(r.start, out.start);
        QCOMPARE(r.end, out.end);
    }

    void pan()
    {
        const Window b{0, 1000};
        QCOMPARE(timeline::pan({100, 200}, 50, b), (Window{150, 250}));
        QCOMPARE(timeline::pan({100, 200}, -500, b), (Window{0, 100}));
        QCOMPARE(timeline::pan({800, 900}, 500, b), (Window{900, 1000}));
        QCOMPARE(timeline::fit({0, 1000}, 0.01), (Window{-10, 1010}));
    }

    void ticks_data()
    {
        QTest::addColumn<double>("nsPerPx");
        QTest::addColumn<qint64>("step");
        QTest::addColumn<qint64>("t");
        QTest::addColumn<QString>("label");
        // 80 px minimum spacing
        QTest::newRow("ns") << 0.5 << qint64(50) << qint64(150) << QStringLiteral("150 ns");
        QTest::newRow("µs") << 30.0 << qint64(5000) << qint64(15000) << QStringLiteral("15 µs");
        QTest::newRow("fractional µs") << 3.0 << qint64(500) << qint64(1500) << QStringLiteral("1.5 µs");
        QTest::newRow("ms") << 12000.0 << qint64(1000000) << qint64(3000000) << QStringLiteral("3 ms");
        QTest::newRow("s") << 2e7 << qint64(2000000000) << qint64(4000000000) << QStringLiteral("4 s");
    }
    void ticks()
    {
        QFETCH(double, nsPerPx);
        QFETCH(qint64, step);
        QFETCH(qint64, t);
        QFETCH(QString, label);
        QCOMPARE(tickStep(nsPerPx, 80), step);
        QCOMPARE(tickLabel(t, 0, step), label);
    }

    void lodLevels()
    {
        QCOMPARE(lodLevel(0.3), 0);
        QCOMPARE(lodLevel(1024), 10);
        QCOMPARE(lodLevel(1500), 10);
        QCOMPARE(lodLevel(2048), 11);
    }

    // A Kineto thread's host ranges: annotations and CPU ops nest among themselves, Python frames among themselves
    // (a with_stack trace is tens of frames deep above the ops; the ops' flame chart does not inherit that depth).
    // Checked against an oracle that counts, for each range, the ranges of its family on its thread enclosing it, on
    // random properly nested stacks where frames and ops interleave.
    void flameChartFamilies()
    {
        std::mt19937_64 rng(7);
        auto t = std::make_shared<Trace>();
        const uint32_t threads[2] = {t->thread_index(1, 1, 1), t->thread_index(2, 1, 2)};
        const StrId names[4] = {t->strings.intern("ProfilerStep#1"), t->strings.intern("aten::linear"),
                                t->strings.intern("nn.Module: Linear_0"), t->strings.intern("model.py(10): forward")};
        // A random tree of nested intervals per thread; each node is an annotation, an op or a Python frame.
        std::function<void(uint32_t, int64_t, int64_t, int)> grow = [&](uint32_t th, int64_t s, int64_t e, int level) {
            const int children = level > 6 ? 0 : int(rng() % 4);
            int64_t at = s + 1;
            for (int c = 0; c < children && at + 4 < e; ++c) {
                const int64_t len = std::max<int64_t>(2, int64_t(rng() % uint64_t(std::max<int64_t>(2, (e - at) / 2))));
                const int64_t cs = at, ce = std::min(e - 1, at + len);
                const int pick = int(rng() % 4);
                const RangeKind k = pick == 0 ? RangeKind::UserAnnotation : pick == 1 ? RangeKind::CpuOp : RangeKind::PythonFunction;
                t->ranges.append(cs, ce, names[pick], th, k);
                grow(th, cs, ce, level + 1);
                at = ce + 1 + int64_t(rng() % 5);
            }
        };
        for (uint32_t th : threads)
            for (int root = 0; root < 20; ++root) {
                const int64_t s = int64_t(root) * 1'000'000;
                t->ranges.append(s, s + 900'000, names[3], th, RangeKind::PythonFunction);
                grow(th, s, s + 900'000, 0);
            }
        t->finish();
        const auto idx = TimelineIndex::build(t);
        const RangeTable& R = t->ranges;
        auto family = [&](uint32_t r) { return R.kind[r] == RangeKind::PythonFunction ? 1 : 0; };
        size_t seenRanges = 0, python = 0, deepOps = 0;
        for (const TimelineLane& lane : idx->lanes()) {
            if (lane.kind != LaneKind::HostRanges && lane.kind != LaneKind::Python)
                continue;
            for (uint32_t i = 0; i < lane.items.size(); ++i) {
                const uint32_t r = idx->ref(lane, i).row;
                ++seenRanges;
                QCOMPARE(R.thread[r], lane.thread);
                QCOMPARE(family(r), lane.kind == LaneKind::Python ? 1 : 0);
                python += lane.kind == LaneKind::Python;
                int enclosing = 0;
                for (uint32_t q = 0; q < R.size(); ++q)
                    enclosing += q != r && R.thread[q] == R.thread[r] && family(q) == family(r) &&
                                 R.start[q] <= R.start[r] && R.end[q] >= R.end[r] &&
                                 (R.start[q] < R.start[r] || R.end[q] > R.end[r] || q < r);
                QCOMPARE(int(lane.depth), enclosing);
                // the trace's own depth counts every kind: an op under Python frames is deeper there
                deepOps += lane.kind == LaneKind::HostRanges && R.depth[r] > lane.depth;
            }
        }
        QCOMPARE(seenRanges, size_t(R.size()));
        QVERIFY(python > 40);
        QVERIFY(deepOps > 10);
        // per thread: the API lane (none here), then the host-range depths, then the Python depths
        int prevKind = -1;
        uint32_t prevThread = UINT32_MAX;
        for (const TimelineLane& lane : idx->lanes()) {
            if (lane.thread != prevThread)
                prevKind = -1;
            QVERIFY(int(lane.kind) >= prevKind);
            prevKind = int(lane.kind);
            prevThread = lane.thread;
        }
    }

    void lanes()
    {
        const auto idx = TimelineIndex::build(smallTrace());
        const auto& lanes = idx->lanes();
        // stream 7, stream 13, gaps of GPU 0, API of thread 0, host ranges depth 0, depth 1
        QCOMPARE(lanes.size(), size_t(6));
        QCOMPARE(lanes[0].kind, LaneKind::Stream);
        QCOMPARE(lanes[0].stream, 7u);
        QCOMPARE(lanes[1].stream, 13u);
        // stream 7 holds kernels, stream 13 the copy: what their labels say
        QCOMPARE(lanes[0].kernels, 3u);
        QCOMPARE(lanes[0].copies + lanes[0].memsets, 0u);
        QCOMPARE(lanes[1].kernels, 0u);
        QCOMPARE(lanes[1].copies, 1u);
        QCOMPARE(lanes[2].kind, LaneKind::Gaps);
        QCOMPARE(lanes[3].kind, LaneKind::ApiThread);
        QCOMPARE(lanes[4].kind, LaneKind::HostRanges);
        QCOMPARE(lanes[4].rangeKinds, uint8_t(1u << uint8_t(RangeKind::PushPop)));
        QCOMPARE(lanes[5].depth, uint8_t(1));
        // busy: [100,400) and [1000,1100): one gap [400,1000)
        QCOMPARE(lanes[2].items.size(), size_t(1));
        QCOMPARE(idx->itemStart(lanes[2], 0), int64_t(400));
        QCOMPARE(idx->itemEnd(lanes[2], 0), int64_t(1000));
        QCOMPARE(idx->start(), int64_t(0));
        QCOMPARE(idx->end(), int64_t(2000));
        QCOMPARE(idx->gpuStart(), int64_t(100));   // GPU work only: [100, 1100)
        QCOMPARE(idx->gpuEnd(), int64_t(1100));
        QCOMPARE(idx->laneOfKernel(2), 0);
        QCOMPARE(idx->laneOfApi(1), 3);
    }

    void hitTesting()
    {
        const auto idx = TimelineIndex::build(smallTrace());
        const TimelineLane& s7 = idx->lanes()[0];
        QCOMPARE(idx->hitTest(s7, 150, 0), int64_t(0));
        QCOMPARE(idx->hitTest(s7, 199, 0), int64_t(0));
        QCOMPARE(idx->hitTest(s7, 200, 0), int64_t(-1));   // ends are exclusive
        QCOMPARE(idx->hitTest(s7, 225, 30), int64_t(1));   // nearest within tolerance: 250 is 25 away, 199 is 26
        QCOMPARE(idx->hitTest(s7, 600, 100), int64_t(-1));
        QCOMPARE(idx->ref(s7, 2), (ItemRef{ItemKind::Kernel, 2}));
        // nested NVTX: depth-1 lane finds "layer", depth 0 finds "step"
        QCOMPARE(idx->hitTest(idx->lanes()[5], 20, 0), int64_t(0));
        QCOMPARE(idx->hitTest(idx->lanes()[4], 20, 0), int64_t(0));
        // visible slice
        QCOMPARE(idx->firstEndingAfter(s7, 200), 1u);
        QCOMPARE(idx->endStartingBefore(s7, 1000), 2u);
        QCOMPARE(idx->endStartingBefore(s7, 1001), 3u);
    }

    void overlappingItemsAreFoundByBlockMax()
    {
        // A long item first, then many short ones: the long one must still be found at a late time.
        auto t = std::make_shared<Trace>();
        t->device_index(0);
        const StrId n = t->strings.intern("k");
        t->kernels.append(0, 1'000'000, n);
        for (int i = 0; i < 500; ++i)
            t->kernels.append(10 + i * 10, 15 + i * 10, n);
        t->finish();
        const auto idx = TimelineIndex::build(t);
        const TimelineLane& lane = idx->lanes()[0];
        QCOMPARE(idx->firstEndingAfter(lane, 900'000), 0u);
        QCOMPARE(idx->hitTest(lane, 900'000, 0), int64_t(0));
        QCOMPARE(idx->hitTest(lane, 12, 0), int64_t(1));   // the innermost (shortest) containing item wins
    }

    void mergedSpans()
    {
        // 1000 kernels of 10 ns every 20 ns, then one of 100 us: at 1 us per pixel the small ones fold into one span.
        auto t = std::make_shared<Trace>();
        t->device_index(0);
        const StrId n = t->strings.intern("k");
        for (int i = 0; i < 1000; ++i)
            t->kernels.append(i * 20, i * 20 + 10, n);
        t->kernels.append(1'000'000, 1'100'000, n);
        t->finish();
        const auto idx = TimelineIndex::build(t);
        const TimelineLane& lane = idx->lanes()[0];
        QVERIFY(lane.levels.size() > 10);
        const auto& lv = lane.levels[10];   // 1024 ns buckets
        QCOMPARE(lv.size(), size_t(2));
        QCOMPARE(lv[0].count, 1000u);
        QCOMPARE(lv[0].start, int64_t(0));
        QCOMPARE(lv[0].end, int64_t(19'990));
        QCOMPARE(lv[1].count, 1u);
        QCOMPARE(lv[1].first, 1000u);
        // fine levels where nothing merges are not stored
        QVERIFY(lane.levels[2].empty());
        QVERIFY(idx->memoryBytes() > 1001 * sizeof(uint32_t));
    }

    // LodLevel's 16-byte spans give back the spans they were made from, lengths of 2^32 ns and more included, and
    // find the span of an item.
    void lodLevelRoundTrip()
    {
        const int64_t big = int64_t(1) << 33;
        const std::vector<LodSpan> spans = {{5, 9, 0, 3},
                                            {10, 10 + big, 3, 1},
                                            {big * 2, big * 2 + 0xFFFFFFFE, 4, 10},
                                            {big * 3, big * 3 + 0xFFFFFFFF, 14, 2},
                                            {big * 4, big * 5, 16, 100}};
        const LodLevel lv(spans);
        QCOMPARE(lv.size(), spans.size());
        QCOMPARE(lv.toVector(), spans);
        for (size_t j = 0; j < spans.size(); ++j)
            QCOMPARE(lv[j], spans[j]);
        QCOMPARE(lv.spanOfItem(0), size_t(0));
        QCOMPARE(lv.spanOfItem(2), size_t(0));
        QCOMPARE(lv.spanOfItem(3), size_t(1));
        QCOMPARE(lv.spanOfItem(13), size_t(2));
        QCOMPARE(lv.spanOfItem(14), size_t(3));
        QCOMPARE(lv.spanOfItem(115), size_t(4));
        QCOMPARE(lv.spanOfItem(1000), size_t(4));
        QCOMPARE(LodLevel(std::vector<LodSpan>{{0, 1, 0, 1}, {2, 3, 1, 4}}).memoryBytes(), size_t(2 * 16));
        QCOMPARE(LodLevel().spanOfItem(7), size_t(0));
        QVERIFY(LodLevel().empty());
    }

    // The index against an independent construction: each lane's items sorted by (start, reference) from the
    // trace's rows, the gap lane from one sorted list of the device's ops, and every level merged from the items
    // themselves (not from the level below, as the index does), stored where it merges at least 4:1. Then the
    // same index built single-threaded and on 3 threads.
    void lanesAndLevelsMatchNaiveConstruction()
    {
        for (uint64_t seed : {1u, 2u, 3u}) {
            const auto trace = randomTrace(seed);
            const Trace& t = *trace;
            std::shared_ptr<const TimelineIndex> idx, one;
            {
                ThreadsEnv env("3");
                idx = TimelineIndex::build(trace);
            }
            {
                ThreadsEnv env("1");
                one = TimelineIndex::build(trace);
            }
            // expected stream lanes: (device, stream) -> ops sorted by (start, kind << 29 | row)
            std::map<std::pair<uint16_t, uint32_t>, std::vector<std::pair<int64_t, uint32_t>>> streams;
            std::map<uint16_t, std::vector<std::tuple<int64_t, uint32_t, int64_t>>> byDevice;
            for (uint32_t i = 0; i < t.kernels.size(); ++i) {
                streams[{t.kernels.device[i], t.kernels.stream[i]}].emplace_back(t.kernels.start[i], i);
                byDevice[t.kernels.device[i]].emplace_back(t.kernels.start[i], i, t.kernels.end[i]);
            }
            for (uint32_t i = 0; i < t.memcpy.size(); ++i) {
                streams[{t.memcpy.device[i], t.memcpy.stream[i]}].emplace_back(t.memcpy.start[i], (1u << 29) | i);
                byDevice[t.memcpy.device[i]].emplace_back(t.memcpy.start[i], (1u << 29) | i, t.memcpy.end[i]);
            }
            const auto& lanes = idx->lanes();
            // NVTX ranges and CPU ops nest together (no Python frames here): the trace's own depths
            std::set<std::pair<uint32_t, uint8_t>> depths;
            for (uint32_t r = 0; r < t.ranges.size(); ++r)
                depths.insert({t.ranges.thread[r], t.ranges.depth[r]});
            QCOMPARE(lanes.size(), streams.size() + 2 + 2 + depths.size());   // 5 or 6 streams, 2 gap lanes, 2 API, range depths
            size_t li = 0;
            uint16_t dev = lanes[0].device;
            auto checkGaps = [&](uint16_t device) {
                const TimelineLane& gl = lanes[li++];
                QCOMPARE(gl.kind, LaneKind::Gaps);
                auto ops = byDevice[device];
                std::sort(ops.begin(), ops.end());
                std::vector<std::pair<int64_t, int64_t>> gaps;
                int64_t curEnd = INT64_MIN;
                for (const auto& [s, ref, e] : ops) {
                    if (e <= s)
                        continue;
                    if (curEnd != INT64_MIN && s > curEnd)
                        gaps.emplace_back(curEnd, s);
                    curEnd = std::max(curEnd, e);
                }
                QCOMPARE(gl.items.size(), gaps.size());
                for (uint32_t g = 0; g < gaps.size(); ++g) {
                    QCOMPARE(idx->itemStart(gl, g), gaps[g].first);
                    QCOMPARE(idx->itemEnd(gl, g), gaps[g].second);
                }
            };
            for (const auto& [key, expected] : streams) {
                if (key.first != dev) {
                    checkGaps(dev);
                    dev = key.first;
                }
                auto sorted = expected;
                std::sort(sorted.begin(), sorted.end());
                const TimelineLane& lane = lanes[li++];
                QCOMPARE(lane.kind, LaneKind::Stream);
                QCOMPARE(lane.stream, key.second);
                QCOMPARE(lane.items.size(), sorted.size());
                for (uint32_t i = 0; i < sorted.size(); ++i)
                    QCOMPARE(lane.items[i], sorted[i].second);
            }
            checkGaps(dev);
            QCOMPARE(lanes[li].kind, LaneKind::ApiThread);
            QCOMPARE(lanes[li + 1].kind, LaneKind::HostRanges);
            size_t rangeItems = 0;
            for (const TimelineLane& lane : lanes) {
                if (lane.kind != LaneKind::HostRanges)
                    continue;
                rangeItems += lane.items.size();
                // every item of a lane is a range of its thread at its depth
                for (uint32_t i = 0; i < lane.items.size(); ++i) {
                    const uint32_t r = idx->ref(lane, i).row;
                    QCOMPARE(t.ranges.thread[r], lane.thread);
                    QCOMPARE(t.ranges.depth[r], lane.depth);
                    QVERIFY(lane.rangeKinds & (1u << uint8_t(t.ranges.kind[r])));
                }
            }
            size_t pushPop = 0;
            for (uint32_t r = 0; r < t.ranges.size(); ++r)
                pushPop += t.ranges.kind[r] == RangeKind::PushPop;
            QCOMPARE(rangeItems, size_t(t.ranges.size()));   // NVTX ranges and the CPU ops, nested in one chart
            QCOMPARE(pushPop, size_t(seed == 3 ? 201 : 200));

            int storedLevels = 0, longSpans = 0;
            for (size_t l = 0; l < lanes.size(); ++l) {
                const TimelineLane& lane = lanes[l];
                const uint32_t n = uint32_t(lane.items.size());
                // block maxima: running max of ends at each block's last item
                int64_t running = INT64_MIN;
                std::vector<int64_t> blocks;
                for (uint32_t i = 0; i < n; ++i) {
                    running = std::max(running, idx->itemEnd(lane, i));
                    if ((i + 1) % TimelineIndex::kBlock == 0 || i + 1 == n)
                        blocks.push_back(running);
                }
                QCOMPARE(lane.blockMaxEnd, blocks);
                // levels, each merged from the items
                std::vector<std::vector<LodSpan>> expected;
                if (n >= 64) {
                    for (int level = 0; level <= TimelineIndex::kMaxLevel; ++level) {
                        const int64_t b = int64_t(1) << level;
                        std::vector<LodSpan> spans;
                        for (uint32_t i = 0; i < n; ++i) {
                            const int64_t s = idx->itemStart(lane, i), e = idx->itemEnd(lane, i);
                            if (!spans.empty()) {
                                LodSpan& c = spans.back();
                                if ((c.count > 1 || c.end - c.start < b) && e - s < b && s - c.end < b) {
                                    c.end = std::max(c.end, e);
                                    ++c.count;
                                    continue;
                                }
                            }
                            spans.push_back({s, e, i, 1});
                        }
                        if (spans.size() * 4 > n) {
                            expected.emplace_back();
                            continue;
                        }
                        expected.push_back(spans);
                        if (spans.size() <= 1)
                            break;
                    }
                    while (!expected.empty() && expected.back().empty())
                        expected.pop_back();
                }
                QCOMPARE(lane.levels.size(), expected.size());
                for (size_t L = 0; L < expected.size(); ++L) {
                    QCOMPARE(lane.levels[L].size(), expected[L].size());
                    for (size_t j = 0; j < expected[L].size(); ++j) {
                        const LodSpan &a = lane.levels[L][j], &e = expected[L][j];
                        QVERIFY2(a.start == e.start && a.end == e.end && a.first == e.first && a.count == e.count,
                                 qPrintable(QStringLiteral("lane %1 level %2 span %3").arg(l).arg(L).arg(j)));
                        longSpans += e.end - e.start >= (int64_t(1) << 32);
                    }
                    storedLevels += !expected[L].empty();
                }
                // the single-threaded build is the same index
                const TimelineLane& o = one->lanes()[l];
                QCOMPARE(o.items, lane.items);
                QCOMPARE(o.gapBefore, lane.gapBefore);
                QCOMPARE(o.blockMaxEnd, lane.blockMaxEnd);
                QCOMPARE(o.levels.size(), lane.levels.size());
                for (size_t L = 0; L < lane.levels.size(); ++L) {
                    QCOMPARE(o.levels[L].size(), lane.levels[L].size());
                    for (size_t j = 0; j < lane.levels[L].size(); ++j)
                        QVERIFY(o.levels[L][j].start == lane.levels[L][j].start &&
                                o.levels[L][j].end == lane.levels[L][j].end &&
                                o.levels[L][j].first == lane.levels[L][j].first &&
                                o.levels[L][j].count == lane.levels[L][j].count);
                }
            }
            QVERIFY(storedLevels > 20);   // the test sees merged levels, not only lanes too small to store any
            if (seed == 3)
                QVERIFY(longSpans > 1);   // spans of 2^32 ns and more, kept beside the 16-byte spans
            QCOMPARE(one->start(), idx->start());
            QCOMPARE(one->end(), idx->end());
            QCOMPARE(one->gpuStart(), idx->gpuStart());
            QCOMPARE(one->gpuEnd(), idx->gpuEnd());
            QCOMPARE(idx->kernelLookup()->names().size(), size_t(3));
        }
    }

    // Coarse first (issue 18): buildCoarse() has build()'s lanes, items and extent and only the coarse levels, each
    // equal to the greedy merge of the items at that bucket, its gap lanes empty and no kernel lookup; refine() of it
    // is build()'s index, level for level, with the gap lanes (and their idle sums) and a lookup equal to build()'s.
    void coarseFirstIndexEqualsTheFullOneWhenRefined()
    {
        auto sameSpans = [](const std::vector<LodSpan>& a, const std::vector<LodSpan>& b) {
            return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](const LodSpan& x, const LodSpan& y) {
                       return x.start == y.start && x.end == y.end && x.first == y.first && x.count == y.count;
                   });
        };
        for (uint64_t seed : {4u, 5u}) {
            const auto trace = randomTrace(seed);
            ThreadsEnv env(seed == 4 ? "1" : "3");
            const auto full = TimelineIndex::build(trace);
            const auto coarse = TimelineIndex::buildCoarse(trace);
            QVERIFY(full->complete());
            QVERIFY(!coarse->complete());
            const int C = coarse->coarseLevel();
            // the whole extent fits kCoarsePixels buckets at the coarse level, not at the one below
            QVERIFY((int64_t(1) << C) * TimelineIndex::kCoarsePixels >= coarse->end() - coarse->start());
            QVERIFY(C == 0 || (int64_t(1) << (C - 1)) * TimelineIndex::kCoarsePixels < coarse->end() - coarse->start());
            QCOMPARE(coarse->start(), full->start());
            QCOMPARE(coarse->end(), full->end());
            QCOMPARE(coarse->gpuStart(), full->gpuStart());
            QCOMPARE(coarse->gpuEnd(), full->gpuEnd());
            QCOMPARE(coarse->lanes().size(), full->lanes().size());
            QVERIFY(coarse->kernelLookup() == nullptr);
            QVERIFY(coarse->kernelLookupPtr() == nullptr);
            QVERIFY(full->kernelLookup() != nullptr);
            int coarseLanes = 0, gapLanes = 0;
            for (size_t l = 0; l < full->lanes().size(); ++l) {
                const TimelineLane &c = coarse->lanes()[l], &f = full->lanes()[l];
                QCOMPARE(c.kind, f.kind);
                QCOMPARE(c.device, f.device);
                if (c.kind == LaneKind::Gaps) {
                    // there, but empty until refined: no gap is found in it, none is drawn
                    ++gapLanes;
                    QVERIFY(f.items.size() > 0);
                    QVERIFY(c.items.empty() && c.gapBefore.empty() && c.blockMaxEnd.empty() && c.levels.empty() &&
                            c.blockSum.empty());
                    QCOMPARE(coarse->laneOfGaps(c.device), int(l));
                    QCOMPARE(coarse->gapItemAt(int(l), full->itemStart(f, 0)), int64_t(-1));
                    QCOMPARE(coarse->firstEndingAfter(c, coarse->start()), 0u);
                    QCOMPARE(coarse->hitTest(c, full->itemStart(f, 0), 10), int64_t(-1));
                    continue;
                }
                QVERIFY(c.blockSum.empty());
                QCOMPARE(c.items, f.items);
                QCOMPARE(c.gapBefore, f.gapBefore);
                QCOMPARE(c.blockMaxEnd, f.blockMaxEnd);
                const uint32_t n = uint32_t(c.items.size());
                if (n < 64) {
                    QVERIFY(c.levels.empty());
                    continue;
                }
                ++coarseLanes;
                QVERIFY(int(c.levels.size()) > C);
                for (int L = 0; L < int(c.levels.size()); ++L) {
                    if (L < C) {
                        QVERIFY(c.levels[size_t(L)].empty());
                        continue;
                    }
                    // the greedy merge of the items at this bucket
                    const int64_t b = int64_t(1) << L;
                    std::vector<LodSpan> spans;
                    for (uint32_t i = 0; i < n; ++i) {
                        const int64_t s = coarse->itemStart(c, i), e = coarse->itemEnd(c, i);
                        if (!spans.empty()) {
                            LodSpan& cur = spans.back();
                            if ((cur.count > 1 || cur.end - cur.start < b) && e - s < b && s - cur.end < b) {
                                cur.end = std::max(cur.end, e);
                                ++cur.count;
                                continue;
                            }
                        }
                        spans.push_back({s, e, i, 1});
                    }
                    QVERIFY2(sameSpans(c.levels[size_t(L)].toVector(), spans), qPrintable(QStringLiteral("lane %1 level %2").arg(l).arg(L)));
                    // where the full index stores the level too, it is the same
                    if (L < int(f.levels.size()) && !f.levels[size_t(L)].empty())
                        QVERIFY(c.levels[size_t(L)] == f.levels[size_t(L)]);
                }
            }
            QVERIFY(coarseLanes >= 5);
            QVERIFY(gapLanes >= 2);
            QVERIFY(coarse->memoryBytes() < full->memoryBytes());
            const auto refined = TimelineIndex::refine(*coarse);
            QVERIFY(refined->complete());
            QCOMPARE(refined->coarseLevel(), -1);
            QCOMPARE(&refined->trace(), &full->trace());
            sameLookup(*refined->kernelLookup(), *full->kernelLookup());
            if (QTest::currentTestFailed())
                return;
            QCOMPARE(refined->start(), full->start());
            QCOMPARE(refined->end(), full->end());
            QCOMPARE(refined->origin(), full->origin());
            QCOMPARE(refined->memoryBytes() > 0, true);
            for (size_t l = 0; l < full->lanes().size(); ++l) {
                const TimelineLane &r = refined->lanes()[l], &f = full->lanes()[l];
                QCOMPARE(r.kind, f.kind);
                QCOMPARE(r.device, f.device);
                QCOMPARE(r.stream, f.stream);
                QCOMPARE(r.thread, f.thread);
                QCOMPARE(r.depth, f.depth);
                QCOMPARE(r.items, f.items);
                QCOMPARE(r.gapBefore, f.gapBefore);
                QCOMPARE(r.blockMaxEnd, f.blockMaxEnd);
                QCOMPARE(r.blockSum, f.blockSum);
                if (f.kind == LaneKind::Gaps) {
                    // the idle time before each block, then the total
                    const uint32_t n = uint32_t(f.items.size());
                    QCOMPARE(f.blockSum.size(), size_t((n + 63) / 64 + 1));
                    int64_t sum = 0;
                    for (uint32_t i = 0; i < n; ++i) {
                        if (i % 64 == 0)
                            QCOMPARE(f.blockSum[i / 64], sum);
                        sum += full->itemEnd(f, i) - full->itemStart(f, i);
                    }
                    QCOMPARE(f.blockSum.back(), sum);
                } else {
                    QVERIFY(f.blockSum.empty());
                }
                QCOMPARE(r.levels.size(), f.levels.size());
                for (size_t L = 0; L < f.levels.size(); ++L)
                    QVERIFY2(r.levels[L] == f.levels[L], qPrintable(QStringLiteral("lane %1 level %2").arg(l).arg(L)));
            }
            for (uint32_t k = 0; k < trace->kernels.size(); k += 97) {
                QCOMPARE(refined->laneOfKernel(k), full->laneOfKernel(k));
                QCOMPARE(refined->itemOfKernel(k), full->itemOfKernel(k));
            }
        }
    }

    // Packed references: blocks whose spread needs 1, 2 and 4 bytes per item, a partial last block, all read back.
    void packedRefs()
    {
        std::vector<uint32_t> refs;
        for (uint32_t i = 0; i < 64; ++i)
            refs.push_back(1000 + i * 3);            // spread 189: 1 byte
        for (uint32_t i = 0; i < 64; ++i)
            refs.push_back(70'000 - i * 1000);       // spread 63,000: 2 bytes, descending
        for (uint32_t i = 0; i < 64; ++i)
            refs.push_back(i % 2 ? 0xE000'0000u + i : i);   // spread ~2^31: 4 bytes
        for (uint32_t i = 0; i < 5; ++i)
            refs.push_back(42 - i);                  // partial block
        const PackedRefs p(refs);
        QCOMPARE(p.size(), refs.size());
        QCOMPARE(p.toVector(), refs);
        QCOMPARE(p.front(), 1000u);
        QCOMPARE(p.back(), 38u);
        QCOMPARE(p.memoryBytes() >= 64 * (1 + 2 + 4) + 5, true);
        QVERIFY(p.memoryBytes() < refs.size() * sizeof(uint32_t));
        QVERIFY(PackedRefs().empty());
    }

    void rangeStatistics()
    {
        const auto idx = TimelineIndex::build(smallTrace());
        const RangeStats s = idx->rangeStats(0, 2000);
        QCOMPARE(s.kernels, int64_t(3));
        QCOMPARE(s.kernelTime, int64_t(250));
        QCOMPARE(s.busy, int64_t(400));     // [100,400) + [1000,1100)
        // Idle inside the GPU activity window [100, 1100) only, as the idle analysis counts it: the gap [400, 1000).
        QCOMPARE(s.idle, int64_t(600));
        // A range inside that gap: all idle, though no op lies in it.
        const RangeStats g = idx->rangeStats(500, 800);
        QCOMPARE(g.busy, int64_t(0));
        QCOMPARE(g.idle, int64_t(300));
        QCOMPARE(g.kernels, int64_t(0));
        // The origin of every view is the capture start (here the first event: finish() fills the window from it).
        QCOMPARE(idx->origin(), idx->trace().meta.capture_start);
        QCOMPARE(s.apiCalls, int64_t(3));
        const RangeStats c = idx->rangeStats(180, 260);   // clips: kernel [180,200) + [250,260), copy covers all
        QCOMPARE(c.kernels, int64_t(2));
        QCOMPARE(c.kernelTime, int64_t(30));
        QCOMPARE(c.busy, int64_t(80));
        QCOMPARE(c.idle, int64_t(0));
    }

    // Kernel -> lane position, gap lookup by start, and the "N kernels" summary of a run, on the small trace:
    // stream 7 holds the kernels in start order, the gap lane of GPU 0 has one gap [400, 1000).
    void kernelPositionsGapsAndRunSummary()
    {
        const auto idx = TimelineIndex::build(smallTrace());
        for (uint32_t k = 0; k < 3; ++k) {
            const int lane = idx->laneOfKernel(k);
            QVERIFY(lane >= 0);
            QCOMPARE(idx->itemOfKernel(k), k);   // kernels 0, 1, 2 start at 100, 250, 1000
            QCOMPARE(idx->ref(idx->lanes()[size_t(lane)], k), (ItemRef{ItemKind::Kernel, k}));
        }
        QCOMPARE(idx->itemOfKernel(3), UINT32_MAX);
        const int gl = idx->laneOfGaps(0);
        QVERIFY(gl >= 0);
        QCOMPARE(idx->lanes()[size_t(gl)].kind, LaneKind::Gaps);
        QCOMPARE(idx->gapItemAt(gl, 400), int64_t(0));
        QCOMPARE(idx->gapItemAt(gl, 401), int64_t(-1));
        QCOMPARE(idx->gapItemAt(idx->laneOfKernel(0), 400), int64_t(-1));
        QCOMPARE(idx->laneOfGaps(3), -1);
        const TimelineLane& stream = idx->lanes()[size_t(idx->laneOfKernel(0))];
        const auto m = idx->summarize(stream, 0, 3);
        QCOMPARE(m.count, 3u);
        QCOMPARE(m.start, int64_t(100));
        QCOMPARE(m.end, int64_t(1100));
        QCOMPARE(m.topNames.size(), size_t(1));
        QCOMPARE(m.topNames[0].second, 3u);
        QCOMPARE(idx->trace().str(m.topNames[0].first), std::string_view("gemm"));
        // the lookup is built with the index: one name, 100 ns twice (rows 0 and 2) and 50 ns; the first row wins
        QCOMPARE(idx->kernelLookup()->names().size(), size_t(1));
        QCOMPARE(idx->kernelLookup()->longestInstance(idx->trace().kernels.name[0]), int64_t(0));
        QCOMPARE(idx->kernelLookup()->distribution(idx->trace().kernels.name[0]).total, int64_t(250));
    }
};

QTEST_GUILESS_MAIN(TestTimelineIndex)
#include "tst_timeline_index.moc"
