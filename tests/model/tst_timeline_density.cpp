// What the timeline paints at fit (issue 16): a merged "N kernels" block reports the operator class holding most of
// its kernel time, and the idle lane's density per pixel column adds up to the idle time — checked against
// brute-force walks over the trace, on the bundled sample (the generator's decode preset, 4.7 % idle).
#include <QTest>

#include <map>

#include "analysis/io/synthetic.h"
#include "analysis/timeline/analysis.h"
#include "model/timeline_density.h"
#include "model/timeline_index.h"

using namespace sl;

class TestTimelineDensity : public QObject {
    Q_OBJECT
    std::shared_ptr<const Trace> trace_;
    std::shared_ptr<const TimelineIndex> index_;
    AnalysisResult analysis_;

    int gapLane() const
    {
        for (size_t i = 0; i < index_->lanes().size(); ++i)
            if (index_->lanes()[i].kind == LaneKind::Gaps)
                return int(i);
        return -1;
    }

private slots:
    void initTestCase()
    {
        trace_ = std::make_shared<const Trace>(make_synthetic_trace(synth_preset("decode")));
        index_ = TimelineIndex::build(trace_);
        analysis_ = analyze(*trace_, AnalysisOptions{});
    }

    // Every merged span of every zoom level of every stream lane: with a sample covering all its items the dominant
    // class is the one with the most kernel time in a walk over the span's items; with the timeline's bounded sample
    // it is still that class whenever the class holds at least 60 % of the span's time.
    void mergedBlockReportsItsDominantClass()
    {
        int exact = 0, sampled = 0;
        for (const TimelineLane& lane : index_->lanes()) {
            if (lane.kind != LaneKind::Stream)
                continue;
            for (const auto& level : lane.levels)
                for (const LodSpan& s : level.toVector()) {
                    if (s.count < 2)
                        continue;
                    std::map<int, int64_t> time;
                    int64_t total = 0;
                    for (uint32_t i = s.first; i < s.first + s.count; ++i) {
                        const ItemRef r = index_->ref(lane, i);
                        if (r.kind != ItemKind::Kernel)
                            continue;
                        const int64_t d = std::max<int64_t>(1, trace_->kernels.end[r.row] - trace_->kernels.start[r.row]);
                        time[analysis_.classes.kernel_class[r.row]] += d;
                        total += d;
                    }
                    if (time.empty())
                        continue;
                    int best = -1;
                    int64_t bestNs = -1;
                    for (const auto& [c, ns] : time)
                        if (ns > bestNs) {
                            best = c;
                            bestNs = ns;
                        }
                    QCOMPARE(dominantKernelClass(*index_, lane, s.first, s.count, analysis_.classes.kernel_class,
                                                 s.count),
                             best);
                    ++exact;
                    if (bestNs >= 0.6 * double(total)) {
                        QCOMPARE(dominantKernelClass(*index_, lane, s.first, s.count, analysis_.classes.kernel_class, 48),
                                 best);
                        ++sampled;
                    }
                }
        }
        QVERIFY(exact > 50);
        QVERIFY(sampled > 10);
    }

    // idleIn over random windows equals a walk over every gap clipped to the window.
    void idleInMatchesABruteForceWalk()
    {
        const int li = gapLane();
        QVERIFY(li >= 0);
        const TimelineLane& lane = index_->lanes()[size_t(li)];
        const GapDensity d(*index_, lane);
        auto brute = [&](int64_t t0, int64_t t1) {
            int64_t s = 0;
            for (uint32_t i = 0; i < lane.items.size(); ++i)
                s += std::max<int64_t>(0, std::min(t1, index_->itemEnd(lane, i)) - std::max(t0, index_->itemStart(lane, i)));
            return s;
        };
        const int64_t a = index_->gpuStart(), b = index_->gpuEnd();
        QCOMPARE(d.idleIn(a, b), brute(a, b));
        uint64_t x = 12345;
        for (int k = 0; k < 200; ++k) {
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            const int64_t t0 = a + int64_t((x >> 11) % uint64_t(b - a));
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            const int64_t len = 1 + int64_t((x >> 11) % uint64_t(k % 3 == 0 ? 5000 : (b - a) / 10));
            QCOMPARE(d.idleIn(t0, t0 + len), brute(t0, t0 + len));
        }
    }

    // columnFractions sweeps the column boundaries once; each column is what idleIn() says of it, at fit, zoomed
    // in to a few gaps per column and to a fraction of a gap, and with windows reaching past the lane's ends.
    void columnFractionsEqualIdleInPerColumn()
    {
        const int li = gapLane();
        QVERIFY(li >= 0);
        const TimelineLane& lane = index_->lanes()[size_t(li)];
        const GapDensity d(*index_, lane);
        const int64_t a = index_->gpuStart(), b = index_->gpuEnd();
        uint64_t x = 777;
        auto next = [&] {
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            return x >> 11;
        };
        std::vector<timeline::Window> windows = {{a, b}, {a - (b - a) / 3, b + (b - a) / 3}, {b - 10, b + 1000000}};
        for (int k = 0; k < 60; ++k) {
            const int64_t len = 1 + int64_t(next() % uint64_t(k % 3 == 0 ? 20000 : k % 3 == 1 ? (b - a) / 50 : (b - a)));
            const int64_t t0 = a - len / 2 + int64_t(next() % uint64_t(b - a));
            windows.push_back({t0, t0 + len});
        }
        int checked = 0, nonZero = 0;
        for (const timeline::Window& w : windows)
            for (int width : {1920, 701, 37}) {
                const std::vector<float> cols = d.columnFractions(w, width);
                QCOMPARE(int(cols.size()), width);
                int64_t prev = w.start;
                for (int c = 0; c < width; ++c) {
                    const int64_t nx = c + 1 == width ? w.end : timeline::xToTime(double(c + 1), w, double(width));
                    float expected = 0.f;
                    if (nx > prev)
                        expected = float(std::clamp(double(d.idleIn(prev, nx)) / double(nx - prev), 0.0, 1.0));
                    prev = std::max(prev, nx);
                    QCOMPARE(cols[size_t(c)], expected);
                    ++checked;
                    nonZero += expected > 0.f;
                }
            }
        QVERIFY(checked > 100000);
        QVERIFY(nonZero > 1000);
    }

    // At fit, the columns' idle fractions average to the device's idle fraction from the analysis (4.7 % on the
    // sample) within half a percentage point, and no column claims more than its width.
    void fitColumnsAverageToTheIdleFraction()
    {
        const int li = gapLane();
        const TimelineLane& lane = index_->lanes()[size_t(li)];
        const GapDensity d(*index_, lane);
        const timeline::Window fit{index_->gpuStart(), index_->gpuEnd()};
        for (int width : {1500, 1093, 300}) {
            const std::vector<float> cols = d.columnFractions(fit, width);
            QCOMPARE(int(cols.size()), width);
            double sum = 0;
            for (float f : cols) {
                QVERIFY(f >= 0.f && f <= 1.f);
                sum += f;
            }
            const double expected = analysis_.idle.devices.at(0).idle_fraction;
            QVERIFY2(expected > 0.03 && expected < 0.07, qPrintable(QString::number(expected)));
            QVERIFY2(std::abs(sum / width - expected) < 0.005,
                     qPrintable(QStringLiteral("%1 vs %2").arg(sum / width).arg(expected)));
        }
    }
};

QTEST_MAIN(TestTimelineDensity)
#include "tst_timeline_density.moc"
