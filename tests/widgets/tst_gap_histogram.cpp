// Gaps pane, summary buckets and fine bins: on real pipeline results (the synthetic decode trace, plain and with
// host-starved / sync-every-step gaps planted), the fine bins' counts and totals per cause equal an independent
// computation over the gaps (bin found by log10, not by searching the edges); edges are log-spaced, 4 per decade
// from 100 ns, and every gap falls in exactly one bin; the 7-bucket mode equals the idle analysis' histogram and the
// summary's; a fine bin's click (method and real mouse click on the chart) highlights exactly its gaps in the timeline.
#include <QAbstractItemModelTester>
#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QCategoryAxis>
#include <QChart>
#include <QChartView>
#include <QSignalSpy>
#include <QTest>
#include <QTableView>
#include <QToolButton>
#include <algorithm>
#include <cmath>
#include <limits>

#include "analysis/pipeline.h"
#include "analysis/diagnosis/rules.h"
#include "analysis/io/synthetic.h"
#include "analysis/trace/kernel_short_name.h"
#include "model/gap_list_model.h"
#include "model/gap_histogram.h"
#include "model/selection.h"
#include "model/timeline_index.h"
#include "model/units.h"
#include "widgets/gap_histogram_view.h"
#include "widgets/timeline_view.h"

using namespace sl;

namespace {

std::shared_ptr<const PipelineResult> pipeline(bool planted)
{
    SynthOptions so = synth_preset("decode");
    if (planted) {
        so.host_starved = true;
        so.sync_every_step = true;
    }
    auto trace = std::make_shared<const Trace>(make_synthetic_trace(so));
    PipelineOptions o;
    o.rule_dirs = {shipped_rules_dir()};
    return std::make_shared<const PipelineResult>(run_pipeline_on(trace, o));
}

std::shared_ptr<const AnalysisResult> analysisOf(const std::shared_ptr<const PipelineResult>& r)
{
    return std::shared_ptr<const AnalysisResult>(r, &r->analysis);
}

// The spec of the fine edges, written out: edge j (j >= 1) = round(100 ns · 10^((j - 1) / 4)), edge 0 = 0.
int64_t specEdge(int j) { return j == 0 ? 0 : std::llround(100.0 * std::pow(10.0, (j - 1) / 4.0)); }

// Independent bin of a gap length: from its logarithm, corrected at the rounded edges.
int specBin(int64_t d)
{
    int j = d < 100 ? 0 : 1 + int(std::floor(4.0 * std::log10(double(d) / 100.0)));
    while (j > 0 && d < specEdge(j))
        --j;
    while (d >= specEdge(j + 1))
        ++j;
    return j;
}

struct Expected {
    std::vector<std::array<int64_t, 4>> count, total;
    std::vector<std::vector<int64_t>> gaps;   // indices per bin
};

Expected independentFine(const IdleResult& idle)
{
    Expected e;
    for (size_t i = 0; i < idle.gaps.size(); ++i) {
        const Gap& g = idle.gaps[i];
        const size_t b = size_t(specBin(g.duration()));
        if (b >= e.count.size()) {
            e.count.resize(b + 1, {});
            e.total.resize(b + 1, {});
            e.gaps.resize(b + 1);
        }
        ++e.count[b][size_t(g.cause)];
        e.total[b][size_t(g.cause)] += g.duration();
        e.gaps[b].push_back(int64_t(i));
    }
    return e;
}

} // namespace

class TestGapHistogram : public QObject {
    Q_OBJECT
private slots:
    void edgesByHand()
    {
        // 100·10^(k/4) ns: 177.83 -> 178, 316.23 -> 316, 562.34 -> 562, 1000, 1778.28 -> 1778
        QCOMPARE(logGapEdges(1000), (std::vector<int64_t>{0, 100, 178, 316, 562, 1000, 1778}));
        QCOMPARE(logGapEdges(999), (std::vector<int64_t>{0, 100, 178, 316, 562, 1000}));
        QCOMPARE(logGapEdges(50), (std::vector<int64_t>{0, 100}));
        QCOMPARE(logGapEdges(100), (std::vector<int64_t>{0, 100, 178}));
        // a gap on an edge belongs to the bin that starts there
        IdleResult ir;
        for (int64_t d : {99, 100, 177, 178, 1000, 1777})
            ir.gaps.push_back(Gap{.start = 0, .end = d, .device = 0, .cause = GapCause::HostWait});
        ir.gaps.push_back(Gap{.start = 5, .end = 5 + 1000, .device = 0, .cause = GapCause::SyncWait});
        const GapBins b = fineGapBins(ir);
        QCOMPARE(b.edges, (std::vector<int64_t>{0, 100, 178, 316, 562, 1000, 1778}));
        QCOMPARE(b.bin_of_gap, (std::vector<int32_t>{0, 1, 1, 2, 5, 5, 5}));
        QCOMPARE(b.count[5][size_t(GapCause::HostWait)], int64_t(2));
        QCOMPARE(b.total_ns[5][size_t(GapCause::HostWait)], int64_t(2777));
        QCOMPARE(b.count[5][size_t(GapCause::SyncWait)], int64_t(1));
        QCOMPARE(b.binCount(3), int64_t(0));
        QCOMPARE(b.gapsIn(1), (std::vector<int64_t>{1, 2}));
        QVERIFY(b.gapsIn(6).empty());
        QCOMPARE(b.binOf(1778), -1);   // above the last closed edge
        // no gaps: no bins
        QCOMPARE(fineGapBins(IdleResult{}).size(), size_t(0));
        QCOMPARE(fineGapBins(IdleResult{}).binOf(5), -1);
    }

    void fineBinsOnPipeline_data()
    {
        QTest::addColumn<bool>("planted");
        QTest::newRow("decode") << false;
        QTest::newRow("decode, host-starved, sync every step") << true;
    }
    void fineBinsOnPipeline()
    {
        QFETCH(bool, planted);
        const auto r = pipeline(planted);
        const IdleResult& idle = r->analysis.idle;
        QVERIFY(idle.gaps.size() > 100);
        const GapBins b = fineGapBins(idle);
        const Expected e = independentFine(idle);

        // edges: 0, then log-spaced, 4 per decade from 100 ns (every 4th a power of ten), up to the largest gap
        int64_t largest = 0;
        for (const Gap& g : idle.gaps)
            largest = std::max(largest, g.duration());
        QCOMPARE(b.edges.front(), int64_t(0));
        QCOMPARE(b.edges[1], int64_t(100));
        for (size_t j = 1; j + 1 < b.edges.size(); ++j) {
            const double ratio = double(b.edges[j + 1]) / double(b.edges[j]);
            QVERIFY2(std::abs(ratio - std::pow(10.0, 0.25)) < 1.0 / double(b.edges[j]) + 1e-9,
                     qPrintable(QStringLiteral("edge %1 -> %2").arg(b.edges[j]).arg(b.edges[j + 1])));
            if ((j - 1) % 4 == 0)
                QCOMPARE(b.edges[j], int64_t(std::llround(std::pow(10.0, 2 + double(j - 1) / 4))));
        }
        QVERIFY(b.edges.back() > largest);
        QVERIFY(b.edges[b.edges.size() - 2] <= largest);   // no empty bins beyond the largest gap
        QCOMPARE(b.size(), e.count.size());

        // counts and totals per bin and cause equal the independent computation; each gap in exactly one bin
        int64_t n = 0, ns = 0;
        for (size_t bin = 0; bin < b.size(); ++bin) {
            for (size_t c = 0; c < 4; ++c) {
                QCOMPARE(b.count[bin][c], e.count[bin][c]);
                QCOMPARE(b.total_ns[bin][c], e.total[bin][c]);
                n += b.count[bin][c];
                ns += b.total_ns[bin][c];
            }
            QCOMPARE(b.gapsIn(int(bin)), e.gaps[bin]);
        }
        QCOMPARE(n, int64_t(idle.gaps.size()));
        int64_t idleNs = 0;
        for (const DeviceIdle& d : idle.devices)
            idleNs += d.idle_ns;
        QCOMPARE(ns, idleNs);
        for (size_t i = 0; i < idle.gaps.size(); ++i) {
            const int32_t bin = b.bin_of_gap[i];
            QVERIFY(bin >= 0 && size_t(bin) < b.size());
            QVERIFY(b.lo(size_t(bin)) <= idle.gaps[i].duration() && idle.gaps[i].duration() < b.hi(size_t(bin)));
        }
        // finer than the summary: more than 7 bins with gaps in them on this trace
        if (planted)
            QVERIFY(std::count_if(e.gaps.begin(), e.gaps.end(), [](const auto& g) { return !g.empty(); }) > 3);
    }

    void summaryModeEqualsSummaryHistogram()
    {
        const auto r = pipeline(true);
        const IdleResult& idle = r->analysis.idle;
        GapHistogramView view;
        view.setAnalysis(analysisOf(r));
        QVERIFY(!view.fineBins());
        const GapBins& b = view.bins();
        QCOMPARE(b.size(), kGapBuckets);
        QCOMPARE(idle.histogram.size(), kGapBuckets);
        std::array<int64_t, kGapBuckets> sumCount{}, sumTotal{};
        for (const DeviceSummary& d : r->summary.devices)
            for (size_t k = 0; k < kGapBuckets; ++k) {
                sumCount[k] += d.gaps.histogram[k].count;
                sumTotal[k] += d.gaps.histogram[k].total_ns;
            }
        int nonEmpty = 0;
        for (size_t k = 0; k < kGapBuckets; ++k) {
            QCOMPARE(b.lo(k), idle.histogram[k].lo_ns);
            QCOMPARE(b.hi(k), idle.histogram[k].hi_ns);
            QCOMPARE(b.binCount(k), idle.histogram[k].count);
            QCOMPARE(b.binTotal(k), idle.histogram[k].total_ns);
            QCOMPARE(b.binCount(k), sumCount[k]);
            QCOMPARE(b.binTotal(k), sumTotal[k]);
            for (size_t c = 0; c < 4; ++c) {
                QCOMPARE(b.count[k][c], view.histogram().count[k][c]);
                QCOMPARE(b.total_ns[k][c], view.histogram().total_ns[k][c]);
            }
            nonEmpty += b.binCount(k) > 0;
        }
        QVERIFY(nonEmpty >= 2);
        auto* axis = qobject_cast<QBarCategoryAxis*>(view.chartView()->chart()->axes(Qt::Horizontal).value(0));
        QVERIFY(axis);
        QCOMPARE(axis->count(), int(kGapBuckets));
        // Each bin by its start in µs, the unit in the axis title: short enough not to be cut in a dock at
        // 1366×768 ("10–5…" with a range and a unit on each); the hover text gives the range with its units.
        QCOMPARE(axis->at(0), QStringLiteral("0"));
        QCOMPARE(axis->at(3), QStringLiteral("10"));
        QCOMPARE(axis->at(5), QStringLiteral("100"));
        QCOMPARE(axis->at(6), QStringLiteral("1k"));
        QCOMPARE(axis->titleText(), GapHistogramView::tr("bin start (µs)"));
        QVERIFY(view.bucketSummary(3).contains(QStringLiteral("10 µs \u2013 50 µs")) ||
                view.bucketSummary(3).contains(QStringLiteral("10.0 µs \u2013 50.0 µs")));
    }

    // Issue 18: the bins computed on the job's worker (binGapHistogram) are what the view computes itself, and the
    // view shows them without binning again; bins of another analysis are ignored; fine bins still work.
    void binnedOffTheGuiThreadEqualsBinnedByTheView()
    {
        const auto r = pipeline(true);
        const auto analysis = analysisOf(r);
        const auto binned = binGapHistogram(analysis);
        QCOMPARE(binned->analysis, analysis);
        const GapHistogram byCause = binGapsByCause(analysis->idle);
        const GapBins summary = summaryGapBins(analysis->idle);
        QVERIFY(binned->byCause.count == byCause.count && binned->byCause.total_ns == byCause.total_ns);
        QCOMPARE(binned->summary.edges, summary.edges);
        QVERIFY(binned->summary.count == summary.count && binned->summary.total_ns == summary.total_ns);
        QCOMPARE(binned->summary.bin_of_gap, summary.bin_of_gap);
        QVERIFY(summary.bin_of_gap.size() > 100);

        GapHistogramView plain, given, other;
        plain.setAnalysis(analysis);
        given.setAnalysis(analysis, binned);
        // the worker's bins are shown as they are, not copied or recomputed
        QCOMPARE(&given.bins(), &binned->summary);
        QVERIFY(&plain.bins() != &binned->summary);
        // bins of an equal but different analysis object are not taken
        other.setAnalysis(std::make_shared<const AnalysisResult>(*analysis), binned);
        QVERIFY(&other.bins() != &binned->summary);
        for (const GapHistogramView* v : {&given, &other}) {
            QCOMPARE(v->bins().edges, plain.bins().edges);
            QVERIFY(v->bins().count == plain.bins().count && v->bins().total_ns == plain.bins().total_ns);
            QVERIFY(v->histogram().count == plain.histogram().count);
            QVERIFY(v->histogram().total_ns == plain.histogram().total_ns);
        }
        for (int b = 0; b < int(plain.bins().size()); ++b)
            QCOMPARE(given.gapsInBucket(b), plain.gapsInBucket(b));
        given.setFineBins(true);
        plain.setFineBins(true);
        QCOMPARE(given.bins().edges, plain.bins().edges);
        QVERIFY(given.bins().count == plain.bins().count);
        given.setFineBins(false);
        QCOMPARE(&given.bins(), &binned->summary);
        given.setAnalysis(nullptr, binned);
        QCOMPARE(given.bins().size(), size_t(0));
    }

    void clickFineBinSelectsItsGaps()
    {
        const auto r = pipeline(true);
        const auto analysis = analysisOf(r);
        const IdleResult& idle = analysis->idle;
        Selection sel;
        TimelineView timeline(&sel);
        timeline.resize(1000, 500);
        timeline.setIndex(TimelineIndex::build(r->trace));
        timeline.setAnalysis(analysis);
        GapHistogramView view;
        view.resize(900, 450);
        view.setSelection(&sel);
        view.setAnalysis(analysis);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));

        // the tool button switches to fine bins (and the chart shows one bar per bin)
        QSignalSpy modeSpy(&view, &GapHistogramView::fineBinsChanged);
        QVERIFY(view.fineBinsButton()->isCheckable());
        const QImage unchecked = view.fineBinsButton()->grab().toImage();
        QTest::mouseClick(view.fineBinsButton(), Qt::LeftButton);
        QVERIFY(view.fineBinsButton()->isChecked());
        QVERIFY(view.fineBinsButton()->grab().toImage() != unchecked);   // the pressed state shows
        QCOMPARE(modeSpy.count(), 1);
        QVERIFY(view.fineBins());
        const Expected e = independentFine(idle);
        QCOMPARE(view.bins().size(), e.count.size());
        auto* axis = qobject_cast<QBarCategoryAxis*>(view.chartView()->chart()->axes(Qt::Horizontal).value(0));
        QVERIFY(axis);
        QCOMPARE(axis->count(), int(e.count.size()));
        QCOMPARE(axis->at(0), QStringLiteral("0"));
        QCOMPARE(axis->at(1), QStringLiteral("100ns"));
        QCOMPARE(axis->at(2), QStringLiteral("178"));
        QCOMPARE(axis->at(4), QStringLiteral("562"));
        QCOMPARE(axis->at(6).remove(QChar(0x200B)), QStringLiteral("1.78"));   // made unique: see binLabel
        QCOMPARE(axis->at(5), QStringLiteral("1µs"));

        int tested = 0;
        for (size_t bin = 0; bin < e.gaps.size(); ++bin) {
            view.selectBucket(int(bin));
            QCOMPARE(sel.highlightedGaps(), e.gaps[bin]);
            std::vector<int64_t> marked;
            for (const auto& m : timeline.highlightMarks())
                marked.push_back(m.gap);
            std::sort(marked.begin(), marked.end());
            QCOMPARE(marked, e.gaps[bin]);
            if (e.gaps[bin].empty())
                continue;
            ++tested;
            int64_t largest = e.gaps[bin].front();
            for (int64_t g : e.gaps[bin])
                if (idle.gaps[size_t(g)].duration() > idle.gaps[size_t(largest)].duration())
                    largest = g;
            QCOMPARE(sel.gap(), largest);
            // hover text: count and total time of the bin and of each cause in it
            const QString summary = view.bucketSummary(int(bin));
            int64_t total = 0;
            for (size_t c = 0; c < 4; ++c) {
                total += e.total[bin][c];
                if (e.count[bin][c] > 0) {
                    QVERIFY(summary.contains(TimelineView::causeLabel(GapCause(c))));
                    QVERIFY2(summary.contains(GapHistogramView::tr("%1: %2 · %3").arg(TimelineView::causeLabel(GapCause(c)).toHtmlEscaped())
                                                  .arg(e.count[bin][c]).arg(formatDuration(e.total[bin][c]))),
                             qPrintable(summary));
                } else {
                    QVERIFY(!summary.contains(TimelineView::causeLabel(GapCause(c))));
                }
            }
            QVERIFY(summary.contains(formatDuration(total)));
            QVERIFY(summary.contains(formatDuration(view.bins().lo(bin)) + QStringLiteral(" – ") +
                                     formatDuration(view.bins().hi(bin))));
        }
        QVERIFY(tested >= 3);

        // a real click on the middle of the tallest fine bar selects that bin and exactly its gaps
        view.selectBucket(-1);
        QVERIFY(sel.highlightedGaps().empty());
        size_t tallest = 0, smallest = SIZE_MAX;
        for (size_t bin = 0; bin < e.gaps.size(); ++bin) {
            if (e.gaps[bin].size() > e.gaps[tallest].size())
                tallest = bin;
            if (!e.gaps[bin].empty() && (smallest == SIZE_MAX || e.gaps[bin].size() < e.gaps[smallest].size()))
                smallest = bin;
        }
        QChart* chart = view.chartView()->chart();
        // The count axis is logarithmic: the tallest bar is log10(1 + n) high, and the smallest bin's bar is still
        // more than a sliver beside it (a third of a decade at least).
        QVERIFY(e.gaps[smallest].size() * 10 < e.gaps[tallest].size());
        const QPointF tallTop = chart->mapToPosition(QPointF(double(tallest), GapHistogramView::logHeight(int64_t(e.gaps[tallest].size()))),
                                                     chart->series().first());
        const QPointF smallTop = chart->mapToPosition(QPointF(double(smallest), GapHistogramView::logHeight(int64_t(e.gaps[smallest].size()))),
                                                      chart->series().first());
        const QPointF base = chart->mapToPosition(QPointF(double(smallest), 0), chart->series().first());
        QVERIFY2(base.y() - smallTop.y() >= (base.y() - tallTop.y()) * 0.1,
                 qPrintable(QStringLiteral("%1 px beside %2 px").arg(base.y() - smallTop.y()).arg(base.y() - tallTop.y())));
        const QPointF scene = chart->mapToPosition(QPointF(double(tallest), GapHistogramView::logHeight(int64_t(e.gaps[tallest].size())) / 2),
                                                   chart->series().first());
        QSignalSpy spy(&view, &GapHistogramView::bucketSelected);
        QTest::mouseClick(view.chartView()->viewport(), Qt::LeftButton, {}, view.chartView()->mapFromScene(scene));
        QTRY_COMPARE(spy.count(), 1);
        QCOMPARE(view.selectedBucket(), int(tallest));
        QCOMPARE(sel.highlightedGaps(), e.gaps[tallest]);
        // ... and the timeline spans them (what F fits): from the first to the last gap of the bin.
        int64_t lo = INT64_MAX, hi = INT64_MIN;
        for (int64_t g : e.gaps[tallest]) {
            lo = std::min(lo, idle.gaps[size_t(g)].start);
            hi = std::max(hi, idle.gaps[size_t(g)].end);
        }
        QVERIFY(timeline.window().start <= lo && timeline.window().end >= hi);
        QVERIFY(timeline.window().duration() <= (hi - lo) * 13 / 10);
        QCOMPARE(timeline.highlightedGapsExtent(), (timeline::Window{lo, hi}));
        // F fits them again after the view moved (the selected gap, the bin's largest, is one of them).
        timeline.setWindow({lo, lo + 1000});
        timeline.fitSelection();
        const int64_t margin = std::max<int64_t>(1, (hi - lo) / 10);
        QCOMPARE(timeline.window(), (timeline::Window{lo - margin, hi + margin}));
        // A click high in the smallest bin's column, far above its bar, selects that bin: the whole column counts.
        auto* countAxis = qobject_cast<QCategoryAxis*>(chart->axes(Qt::Vertical).value(0));
        QVERIFY(countAxis);
        const QPointF above = chart->mapToPosition(QPointF(double(smallest), countAxis->max() * 0.95), chart->series().first());
        QVERIFY(above.y() < smallTop.y() - 10);
        QTest::mouseClick(view.chartView()->viewport(), Qt::LeftButton, {}, view.chartView()->mapFromScene(above));
        QTRY_COMPARE(spy.count(), 2);
        QCOMPARE(view.selectedBucket(), int(smallest));
        QCOMPARE(sel.highlightedGaps(), e.gaps[smallest]);

        // back to the summary buckets: the fine bin's highlight is dropped, buckets select by the summary's ranges
        view.fineBinsButton()->click();
        QVERIFY(!view.fineBins());
        QCOMPARE(modeSpy.count(), 2);
        QVERIFY(sel.highlightedGaps().empty());
        QCOMPARE(view.selectedBucket(), -1);
        view.selectBucket(1);
        for (int64_t g : sel.highlightedGaps())
            QVERIFY(idle.gaps[size_t(g)].duration() >= 1000 && idle.gaps[size_t(g)].duration() < 5000);
        QCOMPARE(int64_t(sel.highlightedGaps().size()), idle.histogram[1].count);
    }

    // Issue 37 §6: the causes stand side by side, each bar its own count on the log axis. Stacked on a log axis they
    // misstated their shares (a bin of 10 host waits and 10 sync waits drew them at 0.72 and 0.32 decades).
    void causesSideBySideEachReadOnTheLogAxis()
    {
        const auto r = pipeline(true);
        const IdleResult& idle = r->analysis.idle;
        GapHistogramView view;
        view.setAnalysis(analysisOf(r));
        for (bool fine : {false, true}) {
            view.setFineBins(fine);
            QChart* chart = view.chartView()->chart();
            QCOMPARE(chart->series().size(), 1);
            auto* series = qobject_cast<QBarSeries*>(chart->series().first());
            QVERIFY2(series, "grouped bars (QBarSeries), not stacked");
            const GapBins& b = view.bins();
            std::array<int64_t, kGapCauses> perCause{};
            for (const Gap& g : idle.gaps)
                ++perCause[size_t(g.cause)];
            int present = 0;
            for (size_t c = 0; c < kGapCauses; ++c) {
                QBarSet* set = nullptr;
                for (QBarSet* s : series->barSets())
                    if (s->label() == TimelineView::causeLabel(GapCause(c)))
                        set = s;
                // a bar set for each cause the trace has, none for the others
                QCOMPARE(set != nullptr, perCause[c] > 0);
                if (!set)
                    continue;
                ++present;
                QCOMPARE(set->count(), int(b.size()));
                for (size_t bin = 0; bin < b.size(); ++bin)
                    QCOMPARE(set->at(int(bin)), GapHistogramView::logHeight(b.count[bin][c]));
            }
            QCOMPARE(series->count(), present);
            QVERIFY(present >= 2);
            // a bin holding two causes draws both at their own heights: neither is a sliver of the other's bar
            bool mixed = false;
            for (size_t bin = 0; bin < b.size() && !mixed; ++bin)
                mixed = std::count_if(b.count[bin].begin(), b.count[bin].end(), [](int64_t n) { return n > 0; }) >= 2;
            QVERIFY(mixed);
            auto* y = qobject_cast<QCategoryAxis*>(chart->axes(Qt::Vertical).value(0));
            QVERIFY(y);
            QVERIFY(chart->title().contains(QStringLiteral("per cause (log scale)")));   // says what is scaled
            int64_t tallest = 0;
            for (size_t bin = 0; bin < b.size(); ++bin)
                for (size_t c = 0; c < kGapCauses; ++c)
                    tallest = std::max(tallest, b.count[bin][c]);
            QVERIFY(y->max() >= GapHistogramView::logHeight(tallest) - 0.05);   // the tallest bar fits (top at 10^k)
        }
    }

    // Issue 37 §6: a clicked bin lists exactly its gaps (start, length, cause, what came before and after); a row,
    // Previous / Next, or a click on the table centres the timeline on that gap.
    void clickedBinListsItsGapsAndRowsCentreTheTimeline()
    {
        const auto r = pipeline(true);
        const auto analysis = analysisOf(r);
        const IdleResult& idle = analysis->idle;
        const Trace& t = *r->trace;
        Selection sel;
        TimelineView timeline(&sel);
        timeline.resize(1200, 500);
        const auto index = TimelineIndex::build(r->trace);
        timeline.setIndex(index);
        timeline.setAnalysis(analysis);
        GapHistogramView view;
        view.resize(1200, 400);
        view.setSelection(&sel);
        view.setAnalysis(analysis);
        view.setTrace(r->trace, index->origin());
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QAbstractItemModelTester tester(view.gapList(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(view.gapList()->rowCount(), 0);

        // the summary bucket with the most gaps, and its gaps by the analysis' own lengths and ranges
        size_t bucket = 0;
        for (size_t k = 0; k < kGapBuckets; ++k)
            if (idle.histogram[k].count > idle.histogram[bucket].count)
                bucket = k;
        std::vector<int64_t> expected;
        for (size_t i = 0; i < idle.gaps.size(); ++i)
            if (idle.gaps[i].duration() >= idle.histogram[bucket].lo_ns && idle.gaps[i].duration() < idle.histogram[bucket].hi_ns)
                expected.push_back(int64_t(i));
        QCOMPARE(int64_t(expected.size()), idle.histogram[bucket].count);
        QVERIFY(expected.size() >= 5);

        // a real click on the bin's column
        QChart* chart = view.chartView()->chart();
        const QPointF scene = chart->mapToPosition(QPointF(double(bucket), 0.2), chart->series().first());
        QTest::mouseClick(view.chartView()->viewport(), Qt::LeftButton, {}, view.chartView()->mapFromScene(scene));
        QTRY_COMPARE(view.selectedBucket(), int(bucket));
        GapListModel* list = view.gapList();
        QCOMPARE(list->rowCount(), int(expected.size()));
        std::vector<int64_t> listed = list->gaps();
        std::sort(listed.begin(), listed.end());
        QCOMPARE(listed, expected);
        for (int row = 1; row < list->rowCount(); ++row)   // in time order
            QVERIFY(idle.gaps[size_t(list->gapAt(row - 1))].start <= idle.gaps[size_t(list->gapAt(row))].start);
        // the columns: start from the timeline's origin, length, cause, the kernels around it by their short names
        for (int row = 0; row < list->rowCount(); ++row) {
            const Gap& g = idle.gaps[size_t(list->gapAt(row))];
            QCOMPARE(list->index(row, GapListModel::StartColumn).data().toString(), formatStart(g.start - index->origin(), g.duration()));
            QCOMPARE(list->index(row, GapListModel::LengthColumn).data().toString(), formatDuration(g.duration()));
            QCOMPARE(list->index(row, GapListModel::LengthColumn).data(GapListModel::SortRole).toLongLong(), g.duration());
            if (g.prev_kind == OpKind::Kernel && g.prev_row >= 0) {
                const std::string_view full = t.str(t.kernels.name[size_t(g.prev_row)]);
                const std::string_view shortName = shorten_kernel_name(full);
                QCOMPARE(list->index(row, GapListModel::BeforeColumn).data().toString(),
                         QString::fromUtf8(shortName.data(), qsizetype(shortName.size())));
                QCOMPARE(list->index(row, GapListModel::BeforeColumn).data(Qt::ToolTipRole).toString(),
                         QString::fromUtf8(full.data(), qsizetype(full.size())));
            }
            if (g.next_kind == OpKind::Kernel && g.next_row >= 0) {
                const std::string_view shortName = shorten_kernel_name(t.str(t.kernels.name[size_t(g.next_row)]));
                QCOMPARE(list->index(row, GapListModel::AfterColumn).data().toString(),
                         QString::fromUtf8(shortName.data(), qsizetype(shortName.size())));
            }
        }
        QCOMPARE(list->index(0, GapListModel::CauseColumn).data().toString(),
                 TimelineView::causeLabel(idle.gaps[size_t(list->gapAt(0))].cause));

        // the gap of a row is selected and centred in the timeline, the operations around it in view
        const QRect plot = timeline.plotRect();
        auto centredOn = [&](int row) {
            const int64_t g = list->gapAt(row);
            if (sel.gap() != g || view.gapTable()->currentIndex().row() != row)
                return false;
            const Gap& gap = idle.gaps[size_t(g)];
            const timeline::Window w = timeline.window();
            const double x = timeline::timeToX(gap.start + gap.duration() / 2, w, plot.width());
            return std::abs(x - plot.width() / 2.0) <= 1.0 && w.start < gap.start && w.end > gap.end &&
                   w.duration() <= 4 * gap.duration();
        };
        const int mid = list->rowCount() / 2;
        view.gapTable()->selectionModel()->setCurrentIndex(list->index(mid, 0),
                                                           QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        QVERIFY(centredOn(mid));
        QTest::mouseClick(view.nextGapButton(), Qt::LeftButton);
        QVERIFY(centredOn(mid + 1));
        QTest::mouseClick(view.previousGapButton(), Qt::LeftButton);
        QTest::mouseClick(view.previousGapButton(), Qt::LeftButton);
        QVERIFY(centredOn(mid - 1));
        // a click on the first row of the table
        const QRect first = view.gapTable()->visualRect(list->index(0, GapListModel::LengthColumn));
        QVERIFY(first.isValid());
        QTest::mouseClick(view.gapTable()->viewport(), Qt::LeftButton, {}, first.center());
        QVERIFY(centredOn(0));
        QVERIFY(!view.previousGapButton()->isEnabled());
        // sorted by length, longest first: the rows follow, the list is the same gaps
        view.gapTable()->sortByColumn(GapListModel::LengthColumn, Qt::DescendingOrder);
        for (int row = 1; row < list->rowCount(); ++row)
            QVERIFY(idle.gaps[size_t(list->gapAt(row - 1))].duration() >= idle.gaps[size_t(list->gapAt(row))].duration());
        listed = list->gaps();
        std::sort(listed.begin(), listed.end());
        QCOMPARE(listed, expected);
        // another bin replaces the list; no bin empties it
        view.selectBucket(-1);
        QCOMPARE(list->rowCount(), 0);
        QVERIFY(!view.nextGapButton()->isEnabled());
    }
};

QTEST_MAIN(TestGapHistogram)
#include "tst_gap_histogram.moc"
