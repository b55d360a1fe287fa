// Timeline coordinate math (data-driven) and the level-of-detail index: lanes, visible-slice search, hit testing,
// merged spans, range statistics — on hand-built traces with hand-computed answers.
#include <QTest>

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

} // namespace

class TestTimelineIndex : public QObject {
    Q_OBJECT
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

    void lanes()
    {
        const auto idx = TimelineIndex::build(smallTrace());
        const auto& lanes = idx->lanes();
        // stream 7, stream 13, gaps of GPU 0, API of thread 0, NVTX depth 0, NVTX depth 1
        QCOMPARE(lanes.size(), size_t(6));
        QCOMPARE(lanes[0].kind, LaneKind::Stream);
        QCOMPARE(lanes[0].stream, 7u);
        QCOMPARE(lanes[1].stream, 13u);
        QCOMPARE(lanes[2].kind, LaneKind::Gaps);
        QCOMPARE(lanes[3].kind, LaneKind::ApiThread);
        QCOMPARE(lanes[4].kind, LaneKind::Nvtx);
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
        QCOMPARE(idx->kernelLookup().names().size(), size_t(1));
        QCOMPARE(idx->kernelLookup().longestInstance(idx->trace().kernels.name[0]), int64_t(0));
        QCOMPARE(idx->kernelLookup().distribution(idx->trace().kernels.name[0]).total, int64_t(250));
    }
};

QTEST_GUILESS_MAIN(TestTimelineIndex)
#include "tst_timeline_index.moc"
