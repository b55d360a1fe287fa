// The panes together, on ONE Selection, wired as app/gui/main_window.cpp wires them, on a Document the real JobRunner
// fills: a planted decode trace (injected loader) opened with the sample's model config and an ncu CSV whose launches
// carry three of the trace's kernel names. Selection propagation end to end, by real clicks where the pane is
// clickable: a kernel link in Findings, a Roofline kernel point and class point, a gap-histogram bar, a row of the
// Kernels table; then File › Close (Document::clear) and opening a second trace. Every expected value is computed
// from the Trace and from a second run of the pipeline on the same trace, not read back from the panes.
#include <QAbstractItemView>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QImage>
#include <QPainter>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QBarSeries>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>
#include <algorithm>
#include <set>

#include "model/findings_filter_model.h"
#include "model/findings_model.h"
#include "model/kernel_summary_model.h"
#include "model/roofline_model.h"
#include "model/selection.h"
#include "model/units.h"
#include "tests/support/qt_fixtures.h"
#include "widgets/details_panel.h"
#include "widgets/findings_view.h"
#include "widgets/gap_histogram_view.h"
#include "widgets/overview_panel.h"
#include "widgets/roofline_view.h"
#include "widgets/summary_table_view.h"
#include "widgets/timeline_view.h"

using namespace sl;

namespace {

QString qs(std::string_view s) { return QString::fromUtf8(s.data(), qsizetype(s.size())); }

// The panes and their wiring, copied from MainWindow's constructor (docks, menus and status bar left out).
struct Workbench {
    Document doc;
    JobRunner runner;
    Selection sel;
    TimelineView timeline{&sel};
    KernelSummaryModel kernelModel;
    SummaryTableView kernels{&kernelModel, KernelSummaryModel::SortRole, KernelSummaryModel::Name};
    GapHistogramView gaps;
    RooflineView roofline{&doc, &sel};
    FindingsView findings{&doc, &sel};
    OverviewPanel overview;
    DetailsPanel details;

    Workbench()
    {
        testing::wireRunner(runner, doc);
        QObject::connect(&doc, &Document::analysisChanged, &timeline, [this] { timeline.setAnalysis(doc.analysis()); });
        QObject::connect(&doc, &Document::timelineChanged, &timeline, [this] { timeline.setIndex(doc.timeline()); });
        QObject::connect(&doc, &Document::summaryChanged, &kernelModel, [this] { kernelModel.setSummary(doc.summary()); });
        QObject::connect(&kernels, &SummaryTableView::currentSourceRowChanged, &sel, [this](int row) {
            const StatRow* r = kernelModel.rowAt(row);
            const auto trace = doc.trace();
            const uint32_t id = r && trace ? trace->strings.find(r->name) : UINT32_MAX;
            sel.setKernelName(id);
            jumpToLongest(id);
        });
        gaps.setSelection(&sel);
        QObject::connect(&doc, &Document::analysisChanged, &gaps, [this] { gaps.setAnalysis(doc.analysis()); });
        QObject::connect(&roofline, &RooflineView::kernelActivated, &sel, [this](uint32_t id, const QString&) { jumpToLongest(id); });
        QObject::connect(&findings, &FindingsView::rangeRequested, &sel, &Selection::setWindow);
        auto refreshOverview = [this] { overview.setData(doc.summary(), doc.analysis()); };
        QObject::connect(&doc, &Document::summaryChanged, &overview, refreshOverview);
        QObject::connect(&doc, &Document::analysisChanged, &overview, refreshOverview);
        QObject::connect(&doc, &Document::diagnosisChanged, &overview, [this] { overview.setDiagnosis(doc.diagnosis()); });
        QObject::connect(&overview, &OverviewPanel::findingActivated, &findings, [this](int row) { findings.selectFinding(row); });
        details.setDocument(&doc);
        details.setSelection(&sel);
        QObject::connect(&doc, &Document::traceChanged, &sel, [this] {   // MainWindow::onTraceChanged
            sel.clear();
            timeline.setIndex(doc.timeline());
        });
        timeline.resize(1280, 600);
        kernels.resize(900, 400);
        gaps.resize(800, 500);
        roofline.resize(900, 600);
        findings.resize(1000, 700);
        for (QWidget* w : std::initializer_list<QWidget*>{&timeline, &kernels, &gaps, &roofline, &findings, &overview, &details})
            w->show();
    }

    // MainWindow::jumpToLongest
    void jumpToLongest(uint32_t nameId)
    {
        const auto index = doc.timeline();
        if (nameId != UINT32_MAX && index)
            sel.setKernel(index->kernelLookup()->longestInstance(nameId));
    }

    bool open(const QStringList& paths)
    {
        QSignalSpy finished(&runner, &JobRunner::finished);
        runner.open(paths);
        if (!QTest::qWaitFor([&] { return finished.count() > 0; }, 60000))
            return false;
        QCoreApplication::processEvents();
        return finished.at(0).at(0).toBool();
    }
};

// The longest instance of kernel name `name` (smallest row among equals), by a scan of the trace.
int64_t longestOf(const Trace& t, StrId name)
{
    int64_t best = -1;
    for (size_t i = 0; i < t.kernels.size(); ++i)
        if (t.kernels.name[i] == name &&
            (best < 0 || t.kernels.end[i] - t.kernels.start[i] > t.kernels.end[size_t(best)] - t.kernels.start[size_t(best)]))
            best = int64_t(i);
    return best;
}

bool windowContains(const TimelineView& v, const Trace& t, int64_t k)
{
    return v.window().start <= t.kernels.start[size_t(k)] && t.kernels.end[size_t(k)] <= v.window().end;
}

// What Details must show for kernel k: its short name and its own duration and start.
bool detailsShowKernel(const DetailsPanel& d, const Trace& t, int64_t k)
{
    const QString text = d.text();
    return text.contains(qs(t.str(t.kernels.short_name[size_t(k)])).toHtmlEscaped()) &&
           text.contains(formatDuration(t.kernels.end[size_t(k)] - t.kernels.start[size_t(k)])) &&
           text.contains(formatStart(t.kernels.start[size_t(k)] - t.meta.capture_start,
                                     t.kernels.end[size_t(k)] - t.kernels.start[size_t(k)]));
}

// Pixels that differ between two frames of the same size.
int differingPixels(const QImage& a, const QImage& b)
{
    int n = 0;
    for (int y = 0; y < a.height(); ++y)
        for (int x = 0; x < a.width(); ++x)
            n += a.pixel(x, y) != b.pixel(x, y);
    return n;
}

QImage frame(TimelineView& v)
{
    QImage img(v.size(), QImage::Format_RGB32);
    QPainter p(&img);
    v.render(p);
    return img;
}

std::vector<std::string> ruleIds(const std::vector<Finding>& fs)
{
    std::vector<std::string> ids;
    for (const Finding& f : fs)
        ids.push_back(f.rule + "|" + f.subject);
    return ids;
}

void clickTreeRow(QTreeView* tree, const QModelIndex& proxyIndex)
{
    for (QModelIndex a = proxyIndex.parent(); a.isValid(); a = a.parent())
        tree->expand(a);
    tree->scrollTo(proxyIndex);
    QTest::mouseClick(tree->viewport(), Qt::LeftButton, Qt::NoModifier, tree->visualRect(proxyIndex).center());
}

} // namespace

class TestViewsTogether : public QObject {
    Q_OBJECT
private:
    QTemporaryDir dir_;
    SynthOptions first_ = testing::plantedDecode(), second_ = synth_preset("decode");
    QString trace1_, trace2_, config_, ncu_;
    std::shared_ptr<const Trace> ref1_;   // what the loader returns for the first trace, made here independently
    std::vector<StrId> ncuNames_;         // ids in ref1_ of the three kernel names the ncu CSV names

    // An ncu CSV (raw page, base units) with one launch per name, at intensities 2, 100 and 1000 FLOP/byte.
    QString writeNcu(const Trace& t, const std::vector<StrId>& names)
    {
        QByteArray csv = "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\","
                         "\"Block Size\",\"Grid Size\",\"Device\",\"CC\",\"gpu__time_duration.sum\",\"dram__bytes.sum\","
                         "\"sm__ops_path_tensor_src_bf16_dst_fp32.sum\"\n"
                         "\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"nsecond\",\"byte\",\"\"\n";
        const char* shape[3][3] = {{"1000000", "1000000000", "2000000000"},
                                   {"200000", "500000000", "50000000000"},
                                   {"400000", "100000000", "100000000000"}};
        for (size_t n = 0; n < names.size(); ++n)
            csv += QStringLiteral("\"%1\",\"1\",\"python3\",\"node\",\"%2\",\"1\",\"7\",\"(128, 1, 1)\",\"(8, 1, 1)\",\"0\","
                                  "\"9.0\",\"%3\",\"%4\",\"%5\"\n")
                       .arg(n)
                       .arg(qs(t.str(names[n])), QString::fromLatin1(shape[n][0]), QString::fromLatin1(shape[n][1]),
                            QString::fromLatin1(shape[n][2]))
                       .toUtf8();
        return testing::writeTextFile(dir_.path(), QStringLiteral("launches.csv"), csv);
    }

    void openFirst(Workbench& w)
    {
        QVERIFY(w.open({trace1_, config_, ncu_}));
        QVERIFY(w.doc.trace() && w.doc.timeline() && w.doc.analysis() && w.doc.roofline() && w.doc.diagnosis());
        QCOMPARE(w.doc.inputs().ncu, ncu_);
        QVERIFY(w.roofline.hasRoofline());
    }

    // The Roofline rows of ncu points of kernel name `id`.
    static std::vector<int> ncuRowsOf(const RooflineView& v, StrId id)
    {
        std::vector<int> rows;
        const RooflineData& d = v.model()->rooflineData();
        for (size_t i = 0; i < d.points.size(); ++i)
            if (d.points[i].kind == RooflinePointKind::Ncu && d.points[i].kernel_name == id)
                rows.push_back(int(i));
        return rows;
    }

private slots:
    void initTestCase()
    {
        QVERIFY(dir_.isValid());
        trace1_ = dir_.filePath(QStringLiteral("decode_planted.sqlite"));   // the injected loader reads no file
        trace2_ = dir_.filePath(QStringLiteral("second.sqlite"));
        config_ = testing::writeModelConfig(dir_.path(), first_);
        ref1_ = std::make_shared<const Trace>(make_synthetic_trace(first_));
        for (size_t k = 0; k < ref1_->kernels.size() && ncuNames_.size() < 3; ++k)
            if (std::find(ncuNames_.begin(), ncuNames_.end(), ref1_->kernels.name[k]) == ncuNames_.end())
                ncuNames_.push_back(ref1_->kernels.name[k]);
        QCOMPARE(ncuNames_.size(), size_t(3));
        ncu_ = writeNcu(*ref1_, ncuNames_);
    }

    // (a) A kernel link of a finding: the Selection's kernel, the timeline scrolls to it, Details shows it.
    void findingsKernelLink()
    {
        Workbench w;
        w.runner.setLoader([this](const std::vector<std::string>& p, const LoadControl&) {
            return make_synthetic_trace(p.at(0) == trace2_.toStdString() ? second_ : first_);
        });
        openFirst(w);
        const PipelineResult ref = run_pipeline_on(ref1_, w.runner.settings().pipelineOptions(config_, ncu_));
        QCOMPARE(ruleIds(w.doc.diagnosis()->eval.findings), ruleIds(ref.diagnosis.eval.findings));
        QCOMPARE(w.findings.model()->rowCount(), int(ref.diagnosis.eval.findings.size()));
        // The overview lists the first finding too.
        QVERIFY(w.overview.findingsText().contains(qs(ref.diagnosis.eval.findings.at(0).title.en).toHtmlEscaped()));

        const Trace& t = *w.doc.trace();
        // Zoom the timeline onto the first 1 % of the GPU work, then follow a link to a kernel outside it.
        const auto index = w.doc.timeline();
        w.timeline.setWindow({index->gpuStart(), index->gpuStart() + (index->gpuEnd() - index->gpuStart()) / 100});
        int findingRow = -1, link = -1;
        int64_t k = -1;
        for (size_t f = 0; f < ref.diagnosis.eval.findings.size() && k < 0; ++f) {
            const auto& ids = ref.diagnosis.eval.findings[f].links.kernel_ids;
            for (size_t i = 0; i < ids.size(); ++i)
                if (!windowContains(w.timeline, *ref.trace, ids[i])) {
                    findingRow = int(f), link = int(i), k = ids[i];
                    break;
                }
        }
        QVERIFY2(k >= 0, "the planted trace has a finding linking a kernel outside the first 1 % of the timeline");
        QVERIFY(!detailsShowKernel(w.details, t, k));
        const QModelIndex src = w.findings.model()->linkIndex(findingRow, FindingsModel::KernelLinkRow, link);
        QCOMPARE(src.data(FindingsModel::KernelIndexRole).toLongLong(), k);
        QSignalSpy requested(&w.findings, &FindingsView::kernelRequested);
        clickTreeRow(w.findings.tree(), w.findings.proxy()->mapFromSource(src));
        QCOMPARE(requested.count(), 1);
        QCOMPARE(w.sel.kernel(), k);
        QVERIFY(windowContains(w.timeline, t, k));
        QCOMPARE(w.sel.window(), (TimeRange{w.timeline.window().start, w.timeline.window().end}));
        QVERIFY2(detailsShowKernel(w.details, t, k), qPrintable(w.details.text().left(400)));
        // The Roofline follows the kernel: its ncu point when it has one, else the measured point of its class.
        const int row = w.roofline.highlightedRow();
        QVERIFY(row >= 0);
        const RooflinePoint* p = w.roofline.model()->pointAt(row);
        const std::string cls = ref.analysis.classes.classes[size_t(ref.analysis.classes.kernel_class[size_t(k)])].id;
        if (std::find(ncuNames_.begin(), ncuNames_.end(), t.kernels.name[size_t(k)]) != ncuNames_.end())
            QCOMPARE(p->kernel_name, t.kernels.name[size_t(k)]);
        else
            QCOMPARE(p->op_class, cls);

        // A time-range link: the main window moves the shared window onto it; the timeline must follow.
        int rangeFinding = -1;
        for (size_t f = 0; f < ref.diagnosis.eval.findings.size() && rangeFinding < 0; ++f)
            if (!ref.diagnosis.eval.findings[f].links.time_ranges.empty())
                rangeFinding = int(f);
        if (rangeFinding >= 0) {
            const auto& tr = ref.diagnosis.eval.findings[size_t(rangeFinding)].links.time_ranges[0];
            w.timeline.setWindow({index->gpuEnd() - (index->gpuEnd() - index->gpuStart()) / 200, index->gpuEnd()});
            clickTreeRow(w.findings.tree(), w.findings.proxy()->mapFromSource(
                                                w.findings.model()->linkIndex(rangeFinding, FindingsModel::RangeLinkRow, 0)));
            QCOMPARE(w.sel.range(), (TimeRange{tr.start, tr.end}));
            QCOMPARE(w.sel.window(), (TimeRange{tr.start, tr.end}));
            QCOMPARE((TimeRange{w.timeline.window().start, w.timeline.window().end}), w.sel.window());
        }
    }

    // A finding about one kernel name (its title row): the name is selected everywhere; the Roofline highlights the
    // name's ncu point when it has one, and the timeline and Details should show an instance of the name.
    void findingsKernelFinding()
    {
        Workbench w;
        w.runner.setLoader([this](const std::vector<std::string>&, const LoadControl&) { return make_synthetic_trace(first_); });
        openFirst(w);
        const Trace& t = *w.doc.trace();
        const auto& fs = w.doc.diagnosis()->eval.findings;
        int row = -1;
        for (size_t f = 0; f < fs.size() && row < 0; ++f)
            if (fs[f].scope == ScopeKind::Kernel && t.strings.find(fs[f].subject) != StringPool::kNotFound)
                row = int(f);
        if (row < 0)
            QSKIP("the planted trace gave no finding about a single kernel name");
        const StrId name = t.strings.find(fs[size_t(row)].subject);
        clickTreeRow(w.findings.tree(), w.findings.proxy()->mapFromSource(w.findings.model()->index(row, 0)));
        QCOMPARE(w.findings.currentFindingRow(), row);
        QCOMPARE(w.sel.kernelName(), name);
        if (const std::vector<int> rows = ncuRowsOf(w.roofline, name); !rows.empty())
            QCOMPARE(w.roofline.highlightedRow(), rows[0]);
        QCOMPARE(w.sel.kernel(), longestOf(t, name));
    }

    // (b) Roofline clicks: a kernel (ncu) point selects its name and, wired as in the window, its longest instance;
    // a class point names the class the Details pane gives its kernels.
    void rooflineClicks()
    {
        Workbench w;
        w.runner.setLoader([this](const std::vector<std::string>&, const LoadControl&) { return make_synthetic_trace(first_); });
        openFirst(w);
        QVERIFY(QTest::qWaitForWindowExposed(&w.roofline));
        QCoreApplication::processEvents();
        const Trace& t = *w.doc.trace();
        // One ncu point per name of the CSV, joined to the trace's name.
        for (StrId id : ncuNames_)
            QCOMPARE(ncuRowsOf(w.roofline, t.strings.find(std::string(ref1_->str(id)))).size(), size_t(1));

        // A kernel point that a click at its own pixel picks.
        int row = -1;
        StrId name = UINT32_MAX;
        for (StrId id : ncuNames_) {
            const int r = ncuRowsOf(w.roofline, id).at(0);
            if (w.roofline.pointAt(w.roofline.viewportPosition(r)) == r) {
                row = r, name = id;
                break;
            }
        }
        QVERIFY2(row >= 0, "an ncu point that is not under another point");
        QSignalSpy kernelSpy(&w.roofline, &RooflineView::kernelActivated);
        QSignalSpy classSpy(&w.roofline, &RooflineView::opClassActivated);
        QTest::mouseClick(w.roofline.chartView()->viewport(), Qt::LeftButton, Qt::NoModifier,
                          w.roofline.viewportPosition(row) + QPoint(2, 1));
        QCOMPARE(kernelSpy.count(), 1);
        QCOMPARE(classSpy.count(), 0);
        QCOMPARE(kernelSpy.at(0).at(0).toUInt(), name);
        QCOMPARE(kernelSpy.at(0).at(1).toString(), qs(t.str(name)));
        QCOMPARE(w.sel.kernelName(), name);
        const int64_t longest = longestOf(t, name);
        QVERIFY(longest >= 0);
        QCOMPARE(w.sel.kernel(), longest);
        QCOMPARE(w.roofline.highlightedRow(), row);
        QVERIFY2(detailsShowKernel(w.details, t, longest), qPrintable(w.details.text().left(400)));
        QVERIFY(windowContains(w.timeline, t, longest));

        // A measured class point: the signal names its class and phase and moves no selection; a kernel of that
        // class (one without an ncu point of its own), selected, has the same class in Details and highlights a point
        // of the same class.
        const RooflineData& d = w.roofline.model()->rooflineData();
        const AnalysisResult& a = *w.doc.analysis();
        int classRow = -1, c = -1;
        int64_t member = -1;
        for (size_t i = 0; i < d.points.size() && classRow < 0; ++i) {
            if (d.points[i].kind != RooflinePointKind::Measured ||
                w.roofline.pointAt(w.roofline.viewportPosition(int(i))) != int(i))
                continue;
            c = -1;
            for (size_t ci = 0; ci < a.classes.classes.size(); ++ci)
                if (a.classes.classes[ci].id == d.points[i].op_class)
                    c = int(ci);
            for (size_t k = 0; c >= 0 && k < t.kernels.size() && member < 0; ++k)
                if (a.classes.kernel_class[k] == c &&
                    std::find(ncuNames_.begin(), ncuNames_.end(), t.kernels.name[k]) == ncuNames_.end())
                    member = int64_t(k);
            if (member >= 0)
                classRow = int(i);
        }
        QVERIFY2(classRow >= 0, "a measured class point that is not under another point");
        const std::string cls = d.points[size_t(classRow)].op_class;
        QTest::mouseClick(w.roofline.chartView()->viewport(), Qt::LeftButton, Qt::NoModifier,
                          w.roofline.viewportPosition(classRow));
        QCOMPARE(classSpy.count(), 1);
        QCOMPARE(classSpy.at(0).at(0).toString(), qs(cls));
        QCOMPARE(classSpy.at(0).at(1).toString(), qs(d.points[size_t(classRow)].phase));
        QCOMPARE(kernelSpy.count(), 1);
        QCOMPARE(w.sel.kernel(), longest);   // unchanged
        QCOMPARE(w.roofline.highlightedRow(), classRow);
        w.sel.setKernel(member);
        QVERIFY(w.details.text().contains(qs(a.classes.classes[size_t(c)].label).toHtmlEscaped()));
        QVERIFY(detailsShowKernel(w.details, t, member));
        QVERIFY(w.roofline.highlightedRow() >= 0);
        QCOMPARE(w.roofline.model()->pointAt(w.roofline.highlightedRow())->op_class, cls);
    }

    // (c) A bar of the gap histogram: the bucket's gaps (filtered here by the bucket bounds) are highlighted, the
    // timeline marks them and draws the marks, the largest is selected and Details shows it.
    void gapBucketClick()
    {
        Workbench w;
        w.runner.setLoader([this](const std::vector<std::string>&, const LoadControl&) { return make_synthetic_trace(first_); });
        openFirst(w);
        QVERIFY(QTest::qWaitForWindowExposed(&w.gaps));
        QCoreApplication::processEvents();
        const auto& gaps = w.doc.analysis()->idle.gaps;
        QVERIFY(!gaps.empty());
        // Bucket bounds as summary.h documents them: [0,1us) [1,5) [5,10) [10,50) [50,100) [100us,1ms) [1ms,inf).
        const int64_t bounds[8] = {0, 1'000, 5'000, 10'000, 50'000, 100'000, 1'000'000, INT64_MAX};
        std::vector<int64_t> inBucket[7];
        for (size_t g = 0; g < gaps.size(); ++g)
            for (int b = 0; b < 7; ++b)
                if (gaps[g].duration() >= bounds[b] && gaps[g].duration() < bounds[b + 1])
                    inBucket[b].push_back(int64_t(g));
        int bucket = 0;
        for (int b = 1; b < 7; ++b)
            if (inBucket[b].size() > inBucket[bucket].size())
                bucket = b;
        const std::vector<int64_t>& expected = inBucket[bucket];
        QVERIFY(!expected.empty());
        // Click low in the bucket's column (its cause bars stand side by side there).
        QChart* chart = w.gaps.chartView()->chart();
        auto* series = qobject_cast<QBarSeries*>(chart->series().value(0));
        QVERIFY(series);
        const QPointF inChart = chart->mapToPosition(QPointF(bucket, 0.15), series);
        const QPoint at = w.gaps.chartView()->mapFromScene(chart->mapToScene(inChart));
        QSignalSpy selected(&w.gaps, &GapHistogramView::bucketSelected);
        QTest::mouseClick(w.gaps.chartView()->viewport(), Qt::LeftButton, Qt::NoModifier, at);
        QCOMPARE(selected.count(), 1);
        QCOMPARE(selected.at(0).at(0).toInt(), bucket);
        QCOMPARE(w.sel.highlightedGaps(), expected);

        // The timeline marks exactly those gaps, in their device's idle lane, and draws the marks.
        std::set<int64_t> marked;
        for (const TimelineView::GapMark& m : w.timeline.highlightMarks()) {
            const Gap& g = gaps[size_t(m.gap)];
            QCOMPARE(m.start, g.start);
            QCOMPARE(m.end, g.end);
            QCOMPARE(m.lane, w.doc.timeline()->laneOfGaps(g.device));
            marked.insert(m.gap);
        }
        QCOMPARE(marked, std::set<int64_t>(expected.begin(), expected.end()));
        QCOMPARE(w.timeline.highlightMarks().size(), expected.size());
        // ...and draws them: the same window without the highlight looks different, and with it again the same.
        const QImage marked1 = frame(w.timeline);
        w.sel.setHighlightedGaps({});
        QVERIFY(w.timeline.highlightMarks().empty());
        const QImage plain = frame(w.timeline);
        QVERIFY(differingPixels(marked1, plain) > 0);
        w.sel.setHighlightedGaps(expected);
        QCOMPARE(differingPixels(marked1, frame(w.timeline)), 0);

        // The largest gap of the bucket is selected (no kernel), revealed in the timeline and shown in Details.
        int64_t largest = expected.front();
        for (int64_t g : expected)
            if (gaps[size_t(g)].duration() > gaps[size_t(largest)].duration())
                largest = g;
        QCOMPARE(w.sel.gap(), largest);
        QCOMPARE(w.sel.kernel(), int64_t(-1));
        const Gap& g = gaps[size_t(largest)];
        QVERIFY(w.timeline.window().start <= g.start && g.end <= w.timeline.window().end);
        QVERIFY2(w.details.text().contains(formatDuration(g.duration())), qPrintable(w.details.text().left(400)));
        QVERIFY(w.details.text().contains(TimelineView::causeLabel(g.cause)));
    }

    // (d) A row of the Kernels table: its name everywhere, its longest instance in the timeline and Details, and
    // the Roofline highlights the name's ncu point.
    void kernelsTableRow()
    {
        Workbench w;
        w.runner.setLoader([this](const std::vector<std::string>&, const LoadControl&) { return make_synthetic_trace(first_); });
        openFirst(w);
        QVERIFY(QTest::qWaitForWindowExposed(&w.kernels));
        const Trace& t = *w.doc.trace();
        // One row per distinct kernel name.
        std::set<StrId> names(t.kernels.name.begin(), t.kernels.name.end());
        QCOMPARE(w.kernelModel.rowCount(), int(names.size()));
        for (StrId name : {ncuNames_[1], ncuNames_[2]}) {
            int row = -1;
            for (int r = 0; r < w.kernelModel.rowCount(); ++r)
                if (w.kernelModel.rowAt(r)->name == t.str(name))
                    row = r;
            QVERIFY(row >= 0);
            const QModelIndex proxy = w.kernels.proxy()->mapFromSource(w.kernelModel.index(row, KernelSummaryModel::Name));
            w.kernels.view()->scrollTo(proxy);
            QTest::mouseClick(w.kernels.view()->viewport(), Qt::LeftButton, Qt::NoModifier,
                              w.kernels.view()->visualRect(proxy).center());
            QCOMPARE(w.kernels.currentSourceRow(), row);
            QCOMPARE(w.sel.kernelName(), name);
            const int64_t longest = longestOf(t, name);
            QCOMPARE(w.sel.kernel(), longest);
            QVERIFY(windowContains(w.timeline, t, longest));
            QVERIFY2(detailsShowKernel(w.details, t, longest), qPrintable(w.details.text().left(400)));
            const std::vector<int> rows = ncuRowsOf(w.roofline, name);
            QCOMPARE(rows.size(), size_t(1));
            QCOMPARE(w.roofline.highlightedRow(), rows[0]);
        }
    }

    // (e) File › Close: every pane empties, nothing crashes, the Selection is cleared; (f) a second trace replaces
    // everything: its findings, no Roofline (no config this time), its gaps and kernels.
    void closeThenOpenAnother()
    {
        Workbench w;
        w.runner.setLoader([this](const std::vector<std::string>& p, const LoadControl&) {
            return make_synthetic_trace(p.at(0) == trace2_.toStdString() ? second_ : first_);
        });
        openFirst(w);
        // Leave a selection everywhere first.
        w.gaps.selectBucket(1);
        w.sel.setKernel(10);
        w.sel.setKernelName(ncuNames_[0]);
        w.sel.setRange({w.doc.trace()->kernels.start[0], w.doc.trace()->kernels.end[20]});
        w.findings.selectFinding(0);
        QVERIFY(w.roofline.highlightedRow() >= 0);
        QVERIFY(w.findings.currentFindingRow() == 0);

        w.doc.clear();
        QCoreApplication::processEvents();
        QCOMPARE(w.sel.kernel(), int64_t(-1));
        QCOMPARE(w.sel.gap(), int64_t(-1));
        QCOMPARE(w.sel.kernelName(), UINT32_MAX);
        QVERIFY(w.sel.range().isEmpty());
        QVERIFY(w.sel.highlightedGaps().empty());
        QVERIFY(!w.timeline.index());
        QVERIFY(w.timeline.highlightMarks().empty());
        (void)frame(w.timeline);   // paints the empty timeline
        QCOMPARE(w.kernelModel.rowCount(), 0);
        QCOMPARE(w.findings.model()->rowCount(), 0);
        QCOMPARE(w.findings.currentFindingRow(), -1);
        QVERIFY(!w.roofline.hasRoofline());
        QCOMPARE(w.roofline.model()->rowCount(), 0);
        QCOMPARE(w.roofline.highlightedRow(), -1);
        for (size_t b = 0; b < kGapBuckets; ++b)
            for (size_t c = 0; c < 4; ++c)
                QCOMPARE(w.gaps.histogram().count[b][c], int64_t(0));
        QCOMPARE(w.gaps.selectedBucket(), -1);
        QVERIFY(w.overview.findingsText().isEmpty());
        QVERIFY(w.overview.topFindingRows().isEmpty());
        for (StrId id : ncuNames_)
            QVERIFY(!w.details.text().contains(qs(ref1_->str(ref1_->kernels.short_name[size_t(longestOf(*ref1_, id))]))));

        // The second trace, without config or ncu file.
        QVERIFY(w.open({trace2_}));
        QVERIFY(w.doc.trace() && w.doc.analysis() && w.doc.diagnosis());
        auto ref2trace = std::make_shared<const Trace>(make_synthetic_trace(second_));
        const PipelineResult ref2 = run_pipeline_on(ref2trace, w.runner.settings().pipelineOptions());
        const PipelineResult ref1 = run_pipeline_on(ref1_, w.runner.settings().pipelineOptions(config_, ncu_));
        QVERIFY(ruleIds(ref2.diagnosis.eval.findings) != ruleIds(ref1.diagnosis.eval.findings));
        QCOMPARE(w.doc.trace()->kernels.size(), ref2trace->kernels.size());
        QCOMPARE(w.findings.model()->rowCount(), int(ref2.diagnosis.eval.findings.size()));
        for (int r = 0; r < w.findings.model()->rowCount(); ++r)
            QCOMPARE(w.findings.model()->finding(r)->rule + "|" + w.findings.model()->finding(r)->subject,
                     ruleIds(ref2.diagnosis.eval.findings)[size_t(r)]);
        QVERIFY(!w.roofline.hasRoofline());
        QCOMPARE(w.roofline.model()->rowCount(), 0);
        QVERIFY(w.doc.inputs().modelConfig.isEmpty() && w.doc.inputs().ncu.isEmpty());
        std::set<StrId> names(ref2trace->kernels.name.begin(), ref2trace->kernels.name.end());
        QCOMPARE(w.kernelModel.rowCount(), int(names.size()));
        int64_t binned = 0;
        for (size_t b = 0; b < kGapBuckets; ++b)
            for (size_t c = 0; c < 4; ++c)
                binned += w.gaps.histogram().count[b][c];
        QCOMPARE(binned, int64_t(ref2.analysis.idle.gaps.size()));
        QCOMPARE(&w.timeline.index()->trace(), w.doc.trace().get());
        const int shown = std::min<int>(OverviewPanel::kTopFindings, int(ref2.diagnosis.eval.findings.size()));
        QCOMPARE(w.overview.topFindingRows().size(), shown);
        if (shown > 0)
            QVERIFY(w.overview.findingsText().contains(qs(ref2.diagnosis.eval.findings[0].title.en).toHtmlEscaped()));
        QCOMPARE(w.sel.kernel(), int64_t(-1));
        QCOMPARE(w.sel.kernelName(), UINT32_MAX);
        // Selecting a kernel of the new trace shows the new trace's kernel.
        const int64_t k = int64_t(ref2trace->kernels.size() / 2);
        w.sel.setKernel(k);
        QVERIFY(detailsShowKernel(w.details, *w.doc.trace(), k));
        QVERIFY(windowContains(w.timeline, *w.doc.trace(), k));
    }
};

QTEST_MAIN(TestViewsTogether)
#include "tst_views_together.moc"
