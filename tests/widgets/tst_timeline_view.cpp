// TimelineView: hit testing through widget coordinates, click -> shared selection, keys zoom/pan/fit, range
// selection by Shift+drag, and painting at every zoom without crashing (offscreen).
#include <QImage>
#include <QLocale>
#include <QScrollBar>
#include <QWheelEvent>
#include <QPainter>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTest>
#include <random>

#include "analysis/io/load.h"
#include "analysis/pipeline.h"
#include "analysis/timeline/analysis.h"
#include "analysis/io/synthetic.h"
#include "model/selection.h"
#include "model/units.h"
#include "widgets/timeline_view.h"

using namespace sl;

namespace {

std::shared_ptr<const Trace> twoKernels()
{
    auto t = std::make_shared<Trace>();
    const uint16_t dev = t->device_index(0);
    const uint32_t th = t->thread_index(1, 1, 1);
    const StrId kn = t->strings.intern("gemm");
    const StrId launch = t->strings.intern("cudaLaunchKernel");
    const int64_t ks[][2] = {{1000, 5000}, {6000, 9000}};
    for (int i = 0; i < 2; ++i) {
        const size_t r = t->kernels.append(ks[i][0], ks[i][1], kn);
        t->kernels.device[r] = dev;
        t->kernels.stream[r] = 7;
        t->kernels.correlation[r] = uint32_t(i + 1);
        t->api.append(ks[i][0] - 900, ks[i][0] - 500, launch, uint32_t(i + 1), th, ApiClass::Runtime, kApiLaunch);
    }
    t->finish();
    return t;
}

// Two devices, two streams each, gaps of every size, overlapping kernels and zero-length ops (which the analysis
// counts as ops and the timeline's gap lane skips, so the two gap lists differ there), launches on two threads.
std::shared_ptr<const Trace> twoDevices(uint64_t seed)
{
    std::mt19937_64 rng(seed);
    auto t = std::make_shared<Trace>();
    const uint32_t th = t->thread_index(1, 1, 1);
    const StrId kn = t->strings.intern("gemm"), launch = t->strings.intern("cudaLaunchKernel");
    for (int d = 0; d < 2; ++d) {
        const uint16_t dev = t->device_index(d);
        for (uint32_t stream : {7u, 9u}) {
            int64_t at = int64_t(rng() % 1000);
            for (int i = 0; i < 1500; ++i) {
                const int64_t len = rng() % 50 == 0 ? 0 : int64_t(20 + rng() % 3000);
                at += int64_t(rng() % 4 == 0 ? rng() % 20000 : rng() % 200);
                const size_t r = t->kernels.append(at, at + len, kn);
                t->kernels.device[r] = dev;
                t->kernels.stream[r] = stream;
                t->kernels.correlation[r] = uint32_t(r + 1);
                t->api.append(at - 500, at - 100, launch, uint32_t(r + 1), th, ApiClass::Runtime, kApiLaunch);
                at += len;
            }
        }
    }
    t->finish();
    for (size_t r = 0; r < t->kernels.size(); ++r)
        t->kernels.launch_api[r] = int32_t(r);   // kernel r was launched by API call r
    return t;
}

// What TimelineView::mapAnalysis computed for every gap-lane item before issue 18 moved it off the GUI thread: the
// analysis gap of the lane's device with the item's start (each device's gaps sorted by start), else -1.
std::vector<std::vector<int64_t>> oldGapMapping(const TimelineIndex& index, const AnalysisResult& analysis)
{
    std::vector<std::vector<int64_t>> out(index.lanes().size());
    for (size_t li = 0; li < index.lanes().size(); ++li) {
        const TimelineLane& lane = index.lanes()[li];
        if (lane.kind != LaneKind::Gaps)
            continue;
        std::vector<const Gap*> gaps;
        for (const Gap& g : analysis.idle.gaps)
            if (g.device == lane.device)
                gaps.push_back(&g);
        std::stable_sort(gaps.begin(), gaps.end(), [](const Gap* a, const Gap* b) { return a->start < b->start; });
        out[li].assign(lane.items.size(), -1);
        size_t j = 0;
        for (uint32_t i = 0; i < lane.items.size(); ++i) {
            const int64_t s = index.itemStart(lane, i);
            while (j < gaps.size() && gaps[j]->start < s)
                ++j;
            if (j < gaps.size() && gaps[j]->start == s)
                out[li][i] = gaps[j] - analysis.idle.gaps.data();
        }
    }
    return out;
}

// "182.025 ms" -> 182'025'000, "5 µs" -> 5'000 (the units tickLabel and formatTimeAt write), rounded to the ns.
int64_t parseDisplayedTime(const QString& text)
{
    static const QRegularExpression re(QStringLiteral("^(-?[0-9.]+) (ns|µs|ms|s)$"));
    const auto m = re.match(text.trimmed());
    if (!m.hasMatch())
        return INT64_MIN;
    const double v = m.captured(1).toDouble();
    const QString u = m.captured(2);
    return std::llround(v * (u == QLatin1String("s") ? 1e9 : u == QLatin1String("ms") ? 1e6 : u == QStringLiteral("µs") ? 1e3 : 1.0));
}

// A y inside the lane (`offset` pixels below its top), or -1 when the lane is not on screen.
int laneY(const TimelineView& view, int lane, int offset = 2)
{
    for (int yy = TimelineView::kAxisHeight; yy < view.height(); ++yy)
        if (view.laneAt(yy) == lane)
            return yy + offset;
    return -1;
}

} // namespace

class TestTimelineView : public QObject {
    Q_OBJECT
private slots:
    // Issue 35: View › Critical Path outlines the critical path on the timeline, as HTA overlays it in Perfetto. On
    // the real eager decode (tests/data/device) the overlay's items are the path's events, in path order: the steady
    // steps' paths, then, once a kernel is selected, the path of its step; hidden again, nothing is drawn.
    void criticalPathOverlayIsThePathsEvents()
    {
        auto trace = std::make_shared<const Trace>(
            load_trace(qEnvironmentVariable("SIGHTLINE_SOURCE_DIR").toStdString() +
                       "/tests/data/device/decode-eager.pt.trace.json.gz"));
        PipelineOptions po;
        po.run_rules = false;
        auto r = std::make_shared<const PipelineResult>(run_pipeline_on(trace, po));
        QVERIFY(r->critical_path.computed);
        Selection sel;
        TimelineView view(&sel);
        view.resize(1200, 700);
        view.setIndex(TimelineIndex::build(trace));
        view.setAnalysis(std::shared_ptr<const AnalysisResult>(r, &r->analysis));
        view.setCriticalPath(std::shared_ptr<const critpath::CriticalPathSummary>(r, &r->critical_path));
        QVERIFY(view.criticalPathMarks().empty());   // off until asked for
        view.setCriticalPathShown(true);
        auto same = [&](const std::vector<critpath::PathEntry>& want) {
            const auto& marks = view.criticalPathMarks();
            if (marks.size() != want.size() || view.criticalPathUnplaced() != 0)
                return false;
            for (size_t i = 0; i < marks.size(); ++i) {
                static const ItemKind kinds[] = {ItemKind::Range, ItemKind::Api, ItemKind::Kernel, ItemKind::Memcpy,
                                                 ItemKind::Memset};
                const TimelineLane& lane = view.index()->lanes()[size_t(marks[i].lane)];
                if (view.index()->ref(lane, marks[i].item) != ItemRef{kinds[size_t(want[i].kind)], want[i].row})
                    return false;
            }
            return true;
        };
        std::vector<critpath::PathEntry> steady;
        int step = -1;
        for (const critpath::StepPath& sp : r->critical_path.steps)
            if (sp.steady) {
                steady.insert(steady.end(), sp.events.begin(), sp.events.end());
                step = step < 0 ? sp.step : step;
            }
        QVERIFY(!steady.empty() && step >= 0);
        QCOMPARE(view.criticalPathStep(), -1);
        QVERIFY(same(steady));
        // A kernel of that step selected: the overlay is its step's path.
        const StepInfo& si = r->analysis.phases.steps[size_t(step)];
        int64_t kernel = -1;
        for (size_t k = 0; k < trace->kernels.size() && kernel < 0; ++k)
            if (trace->kernels.start[k] >= si.start && trace->kernels.start[k] < si.end)
                kernel = int64_t(k);
        QVERIFY(kernel >= 0);
        sel.setKernel(kernel);
        QCOMPARE(view.criticalPathStep(), step);
        QVERIFY(same(r->critical_path.steps[size_t(step)].events));
        // Drawn: the step on screen shows the overlay's colour.
        view.setWindow({si.start - (si.end - si.start) / 20, si.end});
        auto magenta = [&] {
            const QImage img = view.grab().toImage();
            int n = 0;
            for (int y = 0; y < img.height(); ++y)
                for (int x = 0; x < img.width(); ++x) {
                    const QColor c = img.pixelColor(x, y);
                    n += c.red() > 180 && c.green() < 90 && c.blue() > 90 && c.blue() < 200;
                }
            return n;
        };
        const int shown = magenta();   // (some class colours are pinkish too: compared with the overlay hidden)
        view.setCriticalPathShown(false);
        QVERIFY(view.criticalPathMarks().empty());
        const int hidden = magenta();
        QVERIFY2(shown > hidden + 200, qPrintable(QStringLiteral("%1 vs %2").arg(shown).arg(hidden)));
    }

    // Issue 18: the view no longer maps every gap-lane item to its analysis gap when an index or an analysis
    // arrives (10^7 gaps on the GUI thread); it looks the gap up when drawn or clicked. The answers are the old
    // mapping's, item for item, on a two-device trace whose gap lists differ from the analysis's in places, and
    // the galloping lookup a frame uses gives the plain binary search's.
    void gapLookupEqualsTheOldMapping()
    {
        for (uint64_t seed : {1u, 2u}) {
            const auto trace = twoDevices(seed);
            const auto analysis = std::make_shared<const AnalysisResult>(analyze(*trace, AnalysisOptions{}));
            // the order the lookup relies on (analyze_idle's): by device, then start
            const auto& gaps = analysis->idle.gaps;
            for (size_t g = 1; g < gaps.size(); ++g)
                QVERIFY(gaps[g - 1].device < gaps[g].device ||
                        (gaps[g - 1].device == gaps[g].device && gaps[g - 1].start < gaps[g].start));
            Selection sel;
            TimelineView view(&sel);
            view.resize(800, 400);
            const auto index = TimelineIndex::build(trace);
            view.setIndex(index);
            view.setAnalysis(analysis);
            const auto expected = oldGapMapping(*index, *analysis);
            int lanes = 0, matched = 0, unmatched = 0;
            for (size_t li = 0; li < index->lanes().size(); ++li) {
                const TimelineLane& lane = index->lanes()[li];
                if (lane.kind != LaneKind::Gaps) {
                    QCOMPARE(view.analysisGapOf(int(li), 0), int64_t(-1));
                    continue;
                }
                ++lanes;
                size_t hint = 0;
                uint32_t lastItem = UINT32_MAX;
                size_t lastGap = 0;
                for (uint32_t i = 0; i < lane.items.size(); ++i) {
                    QCOMPARE(view.analysisGapOf(int(li), i), expected[li][i]);
                    QCOMPARE(view.analysisGapAt(lane.device, index->itemStart(lane, i), &hint), expected[li][i]);
                    // a frame's guess: the last match plus the lane items since (checked, then galloped from)
                    size_t guess = lastItem == UINT32_MAX ? 0 : lastGap + (i - lastItem);
                    QCOMPARE(view.analysisGapAt(lane.device, index->itemStart(lane, i), &guess), expected[li][i]);
                    if (expected[li][i] >= 0) {
                        lastItem = i;
                        lastGap = size_t(expected[li][i]);
                    }
                    (expected[li][i] >= 0 ? matched : unmatched) += 1;
                }
                QCOMPARE(view.analysisGapOf(int(li), uint32_t(lane.items.size())), int64_t(-1));
            }
            QCOMPARE(lanes, 2);
            QVERIFY(matched > 500);
            // every analysis gap of a device is found from its start, in order, with and without a hint
            size_t hint = 0;
            for (size_t g = 0; g < gaps.size(); ++g) {
                QCOMPARE(view.analysisGapAt(gaps[g].device, gaps[g].start, &hint), int64_t(g));
                QCOMPARE(view.analysisGapAt(gaps[g].device, gaps[g].start), int64_t(g));
            }
            QCOMPARE(view.analysisGapAt(0, gaps.front().start + 1), int64_t(-1));
            QCOMPARE(view.analysisGapAt(7, gaps.front().start), int64_t(-1));
            // a hint past the answer (queries out of order) still finds it
            hint = gaps.size() - 1;
            QCOMPARE(view.analysisGapAt(gaps.front().device, gaps.front().start, &hint), int64_t(0));
            // without an analysis, nothing is mapped
            view.setAnalysis(nullptr);
            QCOMPARE(view.analysisGapOf(index->laneOfGaps(0), 0), int64_t(-1));
            Q_UNUSED(unmatched);
        }
    }

    // Issue 18: a coarse index (no gap-lane items, no kernel lookup) draws at every zoom, its idle lanes say the
    // gaps are coming, a click there selects nothing, a launch call still selects its kernel (by a scan); the
    // complete index then keeps the window and the idle lanes work.
    void coarseIndexDegradesGracefully()
    {
        const auto trace = twoDevices(3);
        const auto analysis = std::make_shared<const AnalysisResult>(analyze(*trace, AnalysisOptions{}));
        const auto coarse = TimelineIndex::buildCoarse(trace);
        QVERIFY(!coarse->complete());
        QVERIFY(coarse->kernelLookup() == nullptr);
        Selection sel;
        TimelineView view(&sel);
        view.resize(1000, 500);
        view.setIndex(coarse);
        view.setAnalysis(analysis);
        QImage img(view.size(), QImage::Format_RGB32);
        for (int64_t span : {int64_t(1000), int64_t(100'000), coarse->end() - coarse->start()}) {
            view.setWindow({coarse->start(), coarse->start() + span});
            QPainter p(&img);
            view.render(p);
        }
        const int gapLane = coarse->laneOfGaps(0);
        QVERIFY(gapLane >= 0);
        QVERIFY(view.drawnRuns(gapLane).empty());
        QVERIFY(view.idleColumns(gapLane).empty());
        QCOMPARE(view.analysisGapOf(gapLane, 0), int64_t(-1));
        // a click in the empty idle lane selects nothing
        const Gap& gap = analysis->idle.gaps.front();
        view.setWindow({gap.start - gap.duration(), gap.end + gap.duration()});
        const int y = laneY(view, gapLane);
        QVERIFY(y > 0);
        const QRect plot = view.plotRect();
        const QPoint mid(plot.left() + plot.width() / 2, y);
        QTest::mouseClick(&view, Qt::LeftButton, {}, mid);
        QCOMPARE(sel.gap(), int64_t(-1));
        QVERIFY(view.tooltipAt(mid).isEmpty());
        // a launch call selects the kernel it launched without the lookup
        const int64_t api = trace->kernels.launch_api[100];
        QVERIFY(api >= 0);
        view.setWindow({trace->api.start[size_t(api)] - 2000, trace->api.end[size_t(api)] + 2000});
        const int apiLane = coarse->laneOfApi(uint32_t(api));
        QVERIFY(apiLane >= 0);
        const int apiY = laneY(view, apiLane);
        QVERIFY(apiY > 0);
        const int64_t apiMid = (trace->api.start[size_t(api)] + trace->api.end[size_t(api)]) / 2;
        const QPoint onApi(plot.left() + int(timeline::timeToX(apiMid, view.window(), plot.width())), apiY);
        int hitLane = -1;
        const int64_t hit = view.itemAt(onApi, &hitLane);
        QCOMPARE(hitLane, apiLane);
        QVERIFY(hit >= 0);
        const ItemRef hitRef = coarse->ref(coarse->lanes()[size_t(apiLane)], uint32_t(hit));
        QCOMPARE(hitRef.kind, ItemKind::Api);
        const int64_t launched = TimelineIndex::build(trace)->kernelLookup()->kernelOfApi(hitRef.row);
        QVERIFY(launched >= 0);
        QTest::mouseClick(&view, Qt::LeftButton, {}, onApi);
        QCOMPARE(sel.kernel(), launched);
        // refined: the same window, and the idle lane now finds the gap under the cursor
        const timeline::Window w{gap.start - gap.duration(), gap.end + gap.duration()};
        view.setWindow(w);
        view.setIndex(TimelineIndex::refine(*coarse));
        QCOMPARE(view.window().start, w.start);
        QCOMPARE(view.window().end, w.end);
        {
            QPainter p(&img);
            view.render(p);
        }
        QVERIFY(!view.drawnRuns(gapLane).empty());
        QTest::mouseClick(&view, Qt::LeftButton, {}, mid);
        QCOMPARE(sel.gap(), int64_t(0));
    }

    void clickSelectsKernel()
    {
        Selection sel;
        TimelineView view(&sel);
        view.resize(1000, 300);
        view.setIndex(TimelineIndex::build(twoKernels()));
        view.setWindow({0, 10000});
        QCOMPARE(sel.window().end, int64_t(10000));
        const QRect plot = view.plotRect();
        const int laneY = view.laneAt(plot.top() + 5) == 0 ? plot.top() + 5 : -1;
        QVERIFY(laneY > 0);
        // kernel 1 spans [6000, 9000): x = 60 % .. 90 % of the plot
        const QPoint onK1(plot.left() + int(plot.width() * 0.75), laneY);
        QCOMPARE(view.itemAt(onK1), int64_t(1));
        QSignalSpy spy(&sel, &Selection::kernelChanged);
        QTest::mouseClick(&view, Qt::LeftButton, {}, onK1);
        QCOMPARE(sel.kernel(), int64_t(1));
        QCOMPARE(spy.count(), 1);
        // clicking empty space clears
        QTest::mouseClick(&view, Qt::LeftButton, {}, QPoint(plot.left() + int(plot.width() * 0.55), laneY));
        QCOMPARE(sel.kernel(), int64_t(-1));
        // the lane titles name the device and stream
        QVERIFY(view.laneTitle(0).contains(QStringLiteral("7")));
    }

    // A Kineto trace records only the demangled name (short_name == name): the kernel's label on the timeline and its
    // tooltip heading are the function's own name, as nsys shortens it; the full name follows in the tooltip.
    void kernelLabelsAreShortNames()
    {
        auto t = std::make_shared<Trace>();
        const uint16_t dev = t->device_index(0);
        const char* full = "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
                           "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, "
                           "at::detail::Array<char*, 3>)";
        const size_t r = t->kernels.append(1000, 9000, t->strings.intern(full));
        t->kernels.device[r] = dev;
        t->kernels.stream[r] = 7;
        t->finish();
        QCOMPARE(t->kernels.short_name[0], t->kernels.name[0]);
        Selection sel;
        TimelineView view(&sel);
        view.resize(1000, 300);
        view.setIndex(TimelineIndex::build(t));
        view.setWindow({0, 10000});
        QImage img(view.size(), QImage::Format_RGB32);
        {
            QPainter p(&img);
            view.render(p);
        }
        const QRect plot = view.plotRect();
        const QString tip = view.tooltipAt(QPoint(plot.left() + plot.width() / 2, plot.top() + 5));
        QVERIFY2(tip.startsWith(QStringLiteral("<b>vectorized_elementwise_kernel</b>")), qPrintable(tip));
        QVERIFY2(tip.contains(QStringLiteral("<small>void at::native::vectorized_elementwise_kernel&lt;4")),
                 qPrintable(tip));
    }

    void keysZoomPanAndFit()
    {
        Selection sel;
        TimelineView view(&sel);
        view.resize(1000, 300);
        view.setIndex(TimelineIndex::build(twoKernels()));
        const auto fitted = view.window();
        QTest::keyClick(&view, Qt::Key_W);
        QVERIFY(view.window().duration() < fitted.duration());
        const auto zoomed = view.window();
        QTest::keyClick(&view, Qt::Key_D);
        QVERIFY(view.window().start > zoomed.start);
        QCOMPARE(view.window().duration(), zoomed.duration());
        QTest::keyClick(&view, Qt::Key_F);
        QCOMPARE(view.window(), fitted);
    }

    // Ctrl+wheel zooms at the cursor, the wheel scrolls the lanes, Shift+wheel (or a horizontal wheel) pans: what
    // Perfetto and Nsight Systems users reach for first.
    void wheelZoomsScrollsAndPans()
    {
        Selection sel;
        TimelineView view(&sel);
        SynthOptions o = synth_preset("decode");
        view.setIndex(TimelineIndex::build(std::make_shared<const Trace>(make_synthetic_trace(o))));
        // Room for two lanes, fewer than the trace has: the lanes scroll.
        view.setMinimumHeight(0);
        view.resize(1000, TimelineView::kAxisHeight + 2 * view.laneHeight());
        view.show();
        QVERIFY(view.laneCount() * view.laneHeight() > view.plotRect().height());
        const auto fitted = view.window();
        const QRect plot = view.plotRect();
        const QPointF at(plot.left() + plot.width() * 0.25, plot.top() + 5);
        auto wheel = [&](QPoint delta, Qt::KeyboardModifiers mods) {
            QWheelEvent w(at, view.mapToGlobal(at), QPoint(), delta, Qt::NoButton, mods, Qt::NoScrollPhase, false);
            QCoreApplication::sendEvent(&view, &w);
        };
        // The plain wheel scrolls the lanes and leaves the time window alone.
        auto* bar = view.findChild<QScrollBar*>();
        QVERIFY(bar);
        QCOMPARE(bar->value(), 0);
        wheel(QPoint(0, -120), Qt::NoModifier);
        QVERIFY(bar->value() > 0);
        QCOMPARE(view.window(), fitted);
        // Ctrl+wheel zooms in, keeping the time under the cursor where it was.
        const int64_t under = timeline::xToTime(at.x() - plot.left(), view.window(), plot.width());
        wheel(QPoint(0, 120), Qt::ControlModifier);
        QVERIFY(view.window().duration() < fitted.duration());
        const int64_t after = timeline::xToTime(at.x() - plot.left(), view.window(), plot.width());
        QVERIFY2(std::llabs(after - under) <= view.window().duration() / plot.width() + 1, "zoom is not at the cursor");
        // Shift+wheel pans by a tenth of the window per notch, the zoom unchanged; a horizontal wheel too.
        const auto zoomed = view.window();
        wheel(QPoint(0, -120), Qt::ShiftModifier);
        QCOMPARE(view.window().duration(), zoomed.duration());
        QVERIFY(view.window().start > zoomed.start);
        const auto panned = view.window();
        wheel(QPoint(120, 0), Qt::NoModifier);
        QVERIFY(view.window().start < panned.start);
        QCOMPARE(view.window().duration(), zoomed.duration());
    }

    // F fits the selection (Perfetto): the selected range, else the selected kernel, with a tenth of a margin on
    // each side; with nothing selected it fits everything, as 0 always does.
    void fFitsTheSelectionElseEverything()
    {
        Selection sel;
        TimelineView view(&sel);
        view.resize(1000, 300);
        view.setIndex(TimelineIndex::build(twoKernels()));
        const auto fitted = view.window();
        sel.setKernel(1);   // [6000, 9000)
        QTest::keyClick(&view, Qt::Key_F);
        QCOMPARE(view.window().start, int64_t(5700));
        QCOMPARE(view.window().end, int64_t(9300));
        sel.setRange({1000, 3000});
        QTest::keyClick(&view, Qt::Key_F);
        QCOMPARE(view.window().start, int64_t(800));
        QCOMPARE(view.window().end, int64_t(3200));
        QTest::keyClick(&view, Qt::Key_0);
        QCOMPARE(view.window(), fitted);
        sel.clear();
        QTest::keyClick(&view, Qt::Key_W);
        QTest::keyClick(&view, Qt::Key_F);
        QCOMPARE(view.window(), fitted);
    }

    void shiftDragSelectsRange()
    {
        Selection sel;
        TimelineView view(&sel);
        view.resize(1000, 300);
        view.show();
        view.setIndex(TimelineIndex::build(twoKernels()));
        view.setWindow({0, 10000});
        const QRect plot = view.plotRect();
        const int y = plot.top() + 5;
        QTest::mousePress(&view, Qt::LeftButton, Qt::ShiftModifier, QPoint(plot.left() + plot.width() / 10, y));
        QMouseEvent move(QEvent::MouseMove, QPointF(plot.left() + plot.width() / 2, y), view.mapToGlobal(QPointF(plot.left() + plot.width() / 2, y)),
                         Qt::NoButton, Qt::LeftButton, Qt::ShiftModifier);
        QCoreApplication::sendEvent(&view, &move);
        QTest::mouseRelease(&view, Qt::LeftButton, Qt::ShiftModifier, QPoint(plot.left() + plot.width() / 2, y));
        QVERIFY(qAbs(sel.range().start - 1000) <= 20);
        QVERIFY(qAbs(sel.range().end - 5000) <= 20);
        QTest::keyClick(&view, Qt::Key_Z);
        QCOMPARE(view.window().start, sel.range().start);
    }

    void paintsAtEveryZoom()
    {
        Selection sel;
        TimelineView view(&sel);
        view.resize(1280, 600);
        SynthOptions o = synth_preset("decode");
        view.setIndex(TimelineIndex::build(std::make_shared<const Trace>(make_synthetic_trace(o))));
        sel.setKernel(10);
        QImage img(view.size(), QImage::Format_RGB32);
        for (double f : {1.0, 0.1, 0.01, 0.001, 0.0001}) {
            auto w = view.window();
            view.setWindow(timeline::zoom(w, (w.start + w.end) / 2, f, {}));
            QPainter p(&img);
            view.render(p);
        }
        // something other than the background was drawn
        const QRgb bg = img.pixel(img.width() - 2, img.height() - 2);
        int different = 0;
        for (int x = view.labelWidth(); x < img.width(); x += 7)
            for (int y = TimelineView::kAxisHeight; y < img.height(); y += 5)
                different += img.pixel(x, y) != bg;
        QVERIFY(different > 10);
    }

    // Issue 37 §7: deep in, the axis read "782025 µs", "782030 µs", ... Now a reference is shown once (the first
    // tick, to the step's precision) and the other ticks are short offsets from it, as in Nsight Systems; zoomed
    // out, the labels stay absolute.
    void deepZoomAxisReadsOffsetsFromAReference()
    {
        Selection sel;
        TimelineView view(&sel);
        view.resize(1280, 600);
        SynthOptions o = synth_preset("decode");
        o.decode_steps = 400;   // a trace longer than 0.2 s
        const auto index = TimelineIndex::build(std::make_shared<const Trace>(make_synthetic_trace(o)));
        view.setIndex(index);
        const int64_t origin = index->origin();
        QVERIFY(index->end() - origin > 200'000'000);   // far enough in for 6-digit µs
        QImage img(view.size(), QImage::Format_RGB32);
        auto draw = [&] {
            QPainter p(&img);
            view.render(p);
        };
        auto digits = [](const QString& s) { return int(std::count_if(s.begin(), s.end(), [](QChar c) { return c.isDigit(); })); };
        view.fitToWindow();
        draw();
        QVERIFY(!view.axisLabelMode().offsets);
        QVERIFY(view.axisTicks().size() >= 3);
        for (const auto& tick : view.axisTicks())
            QVERIFY2(!tick.label.startsWith(QLatin1Char('+')) && digits(tick.label) <= 5, qPrintable(tick.label));

        // 60 µs wide, 182 ms into the trace: ticks every 5 µs
        const int64_t at = origin + 182'025'000;
        view.setWindow({at - 1'000, at - 1'000 + 60'000});
        draw();
        const auto& mode = view.axisLabelMode();
        QVERIFY(mode.offsets);
        const auto& ticks = view.axisTicks();
        QVERIFY(ticks.size() >= 5);
        const int64_t step = ticks[1].time - ticks[0].time;
        QVERIFY(step >= 2'000 && step <= 10'000);
        // the reference: the first tick, its label absolute and exact to the step ("182.025 ms"), drawn once
        QCOMPARE(mode.reference, ticks[0].time);
        QCOMPARE(ticks[0].label, mode.referenceLabel);
        QCOMPARE(mode.referenceLabel, formatTimeAt(ticks[0].time - origin, step));
        QCOMPARE(parseDisplayedTime(mode.referenceLabel), ticks[0].time - origin);
        QCOMPARE(mode.referenceLabel, QStringLiteral("182.025 ms"));
        // every other tick: "+N µs", N its distance from the reference, short
        for (size_t i = 1; i < ticks.size(); ++i) {
            QVERIFY2(ticks[i].label.startsWith(QLatin1Char('+')), qPrintable(ticks[i].label));
            QVERIFY2(digits(ticks[i].label) <= 3, qPrintable(ticks[i].label));
            QCOMPARE(parseDisplayedTime(ticks[i].label.mid(1)), ticks[i].time - mode.reference);
            QVERIFY(ticks[i].label.endsWith(QStringLiteral(" µs")));
        }
    }

    // At full zoom the decode trace's kernels are far narrower than a pixel: the block under the cursor says
    // "N kernels" ("N copies" on the copy stream) with N equal to the GPU ops of that stream starting inside the
    // block's span and inside the visible window (counted here from the trace): a block reaching past the window's
    // edge counts only what is visible.
    void mergedBlockTooltipCountsItsKernels()
    {
        Selection sel;
        TimelineView view(&sel);
        view.resize(1280, 600);
        auto trace = std::make_shared<const Trace>(make_synthetic_trace(synth_preset("decode")));
        view.setIndex(TimelineIndex::build(trace));
        QImage img(view.size(), QImage::Format_RGB32);
        int checked = 0;
        for (double f : {1.0, 0.05}) {
            auto w = view.window();
            view.setWindow(timeline::zoom(w, (w.start + w.end) / 2, f, {}));
            {
                QPainter p(&img);
                view.render(p);
            }
            const auto& lanes = view.index()->lanes();
            for (size_t li = 0; li < lanes.size(); ++li) {
                if (lanes[li].kind != LaneKind::Stream)
                    continue;
                for (const auto& run : view.drawnRuns(int(li))) {
                    if (run.count < 2 || run.x1 - run.x0 < 3)
                        continue;
                    const int y = laneY(view, int(li));
                    if (y < 0)
                        break;
                    const QPoint at((run.x0 + run.x1) / 2, y);
                    // independent count: GPU ops on the lane's device and stream starting within the span, and
                    // overlapping the visible window
                    int64_t n = 0, inSpan = 0;
                    const TimelineLane& lane = lanes[li];
                    const auto w = view.window();
                    auto count = [&](const auto& table) {
                        for (size_t i = 0; i < table.size(); ++i)
                            if (table.device[i] == lane.device && table.stream[i] == lane.stream &&
                                table.start[i] >= run.start && table.start[i] < run.end) {
                                ++inSpan;
                                n += table.end[i] > w.start && table.start[i] < w.end;
                            }
                    };
                    count(trace->kernels);
                    count(trace->memcpy);
                    count(trace->memset);
                    const QString tip = view.tooltipAt(at);
                    const QString what = lane.kernels == 0 ? QStringLiteral("copies") : QStringLiteral("kernels");
                    QVERIFY2(tip.contains(QStringLiteral("<b>%1 %2</b>").arg(QLocale().toString(qlonglong(n)), what)),
                             qPrintable(tip));
                    QCOMPARE(int64_t(run.count), inSpan);
                    QCOMPARE(int64_t(run.visible), n);
                    ++checked;
                    break;   // one block per lane and zoom
                }
            }
        }
        QVERIFY(checked >= 2);
    }

    // Clicking the idle lane selects the analysis gap under the cursor; Esc clears.
    void clickOnIdleLaneSelectsGap()
    {
        auto trace = std::make_shared<const Trace>(make_synthetic_trace(synth_preset("decode")));
        auto analysis = std::make_shared<const AnalysisResult>(analyze(*trace, AnalysisOptions{}));
        Selection sel;
        TimelineView view(&sel);
        view.resize(1280, 600);
        view.setIndex(TimelineIndex::build(trace));
        view.setAnalysis(analysis);
        // the largest gap, zoomed so that it fills the middle of the plot
        size_t pick = 0;
        for (size_t g = 1; g < analysis->idle.gaps.size(); ++g)
            if (analysis->idle.gaps[g].duration() > analysis->idle.gaps[pick].duration())
                pick = g;
        const Gap& gap = analysis->idle.gaps[pick];
        sel.setKernel(5);   // (selecting a kernel scrolls to it: before choosing the window)
        view.setWindow({gap.start - gap.duration(), gap.end + gap.duration()});
        int lane = -1;
        for (size_t li = 0; li < view.index()->lanes().size(); ++li)
            if (view.index()->lanes()[li].kind == LaneKind::Gaps && view.index()->lanes()[li].device == gap.device)
                lane = int(li);
        QVERIFY(lane >= 0);
        const int y = laneY(view, lane);
        QVERIFY(y > 0);
        const QRect plot = view.plotRect();
        QTest::mouseClick(&view, Qt::LeftButton, {}, QPoint(plot.left() + plot.width() / 2, y));
        QCOMPARE(sel.gap(), int64_t(pick));
        QCOMPARE(sel.kernel(), int64_t(-1));
        QVERIFY(view.tooltipAt(QPoint(plot.left() + plot.width() / 2, y)).contains(formatDuration(gap.duration())));
        QTest::keyClick(&view, Qt::Key_Escape);
        QCOMPARE(sel.gap(), int64_t(-1));
    }

    // Issue 16, at fit on the bundled sample (4.7 % idle, all of it kernel wait): the idle lane is inked in
    // proportion to the idle time of each pixel column — the painted ink, read back from the pixels, averages to the
    // analysis's idle fraction (not a solid bar) — and merged "N kernels" blocks wear their dominant class's colour,
    // not the neutral merged grey.
    void fitShowsIdleDensityAndClassColours()
    {
        auto trace = std::make_shared<const Trace>(make_synthetic_trace(synth_preset("decode")));
        auto analysis = std::make_shared<const AnalysisResult>(analyze(*trace, AnalysisOptions{}));
        Selection sel;
        TimelineView view(&sel);
        view.resize(1280, 600);
        view.setIndex(TimelineIndex::build(trace));
        view.setAnalysis(analysis);
        view.setWindow({view.index()->gpuStart(), view.index()->gpuEnd()});
        QImage img(view.size(), QImage::Format_RGB32);
        {
            QPainter p(&img);
            view.render(p);
        }
        const double idle = analysis->idle.devices.at(0).idle_fraction;
        QVERIFY(idle > 0.03 && idle < 0.07);
        int lane = -1;
        for (size_t li = 0; li < view.index()->lanes().size(); ++li)
            if (view.index()->lanes()[li].kind == LaneKind::Gaps)
                lane = int(li);
        QVERIFY(lane >= 0);
        const int y = laneY(view, lane, 3);
        QVERIFY(y > 0);
        const QRect plot = view.plotRect();
        // The fractions the frame painted average to the idle fraction.
        const std::vector<float>& cols = view.idleColumns(lane);
        QCOMPARE(int(cols.size()), plot.width());
        double sum = 0;
        for (float f : cols)
            sum += f;
        QVERIFY2(std::abs(sum / cols.size() - idle) < 0.005, qPrintable(QString::number(sum / cols.size())));
        // The pixels: ink = distance from the lane background over the full cause colour's distance.
        const QColor bg = lane % 2 == 0 ? view.palette().alternateBase().color() : view.palette().base().color();
        const QColor full = TimelineView::causeColor(GapCause::KernelWait);
        auto dist = [&](QColor c) {
            return std::abs(c.red() - bg.red()) + std::abs(c.green() - bg.green()) + std::abs(c.blue() - bg.blue());
        };
        double ink = 0;
        int solid = 0;
        for (int x = plot.left(); x < plot.left() + plot.width(); ++x) {
            const double a = double(dist(QColor(img.pixel(x, y)))) / double(dist(full));
            ink += std::min(1.0, a);
            solid += a > 0.9;
        }
        ink /= plot.width();
        QVERIFY2(std::abs(ink - idle) < 0.015, qPrintable(QStringLiteral("ink %1 vs idle %2").arg(ink).arg(idle)));
        QVERIFY2(solid < plot.width() / 10, qPrintable(QString::number(solid)));
        // Merged blocks in the stream lanes: none painted in the neutral merged colour, some in a class colour.
        int merged = 0;
        for (size_t li = 0; li < view.index()->lanes().size(); ++li) {
            if (view.index()->lanes()[li].kind != LaneKind::Stream)
                continue;
            for (const auto& run : view.drawnRuns(int(li)))
                if (run.count > 1) {
                    const QColor c = view.mergedColor(int(li), run.first, run.count);
                    QVERIFY(c != view.mergedColor(-1, 0, 0));   // the neutral colour
                    ++merged;
                }
        }
        QVERIFY(merged > 0);
    }
};

QTEST_MAIN(TestTimelineView)
#include "tst_timeline_view.moc"
