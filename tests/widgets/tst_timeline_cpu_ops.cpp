// The timeline's CPU side and its overview: CPU-operator flame charts under each thread's CUDA API lane (Python
// frames folded in their own group), a click on an operator that selects it and leads to its kernels, Details of a
// kernel naming its operator chain, module and shapes; the overview track of the whole capture; merged blocks drawn
// by class per pixel column; the copy stream's label; the label column's drag. On the H100 Qwen1.5 Kineto trace of
// ../shared/data (recorded with record_shapes and with_modules) and on the generator's decode preset.
#include <QImage>
#include <QLocale>
#include <QPainter>
#include <QSettings>
#include <QSignalSpy>
#include <QTest>
#include <cstdlib>
#include <fstream>

#include "analysis/io/load.h"
#include "analysis/io/synthetic.h"
#include "analysis/timeline/analysis.h"
#include "model/class_density.h"
#include "model/kernel_origin.h"
#include "model/selection.h"
#include "widgets/details_panel.h"
#include "widgets/timeline_view.h"

using namespace sl;

namespace {

std::string qwenTrace()
{
    const char* root = std::getenv("SIGHTLINE_SHARED_DATA");
    if (!root)
        return {};
    const std::string p = std::string(root) + "/kineto/tracelens/h100__Qwen1.5-0.5B-Chat_inference.json.gz";
    return std::ifstream(p).good() ? p : std::string();
}

int laneY(const TimelineView& view, int lane, int offset = 2)
{
    for (int yy = 0; yy < view.height(); ++yy)
        if (view.laneAt(yy) == lane)
            return yy + offset;
    return -1;
}

void render(TimelineView& view)
{
    QImage img(view.size(), QImage::Format_RGB32);
    QPainter p(&img);
    view.render(p);
}

} // namespace

class TestTimelineCpuOps : public QObject {
    Q_OBJECT
    std::shared_ptr<const Trace> qwen_;
    std::shared_ptr<const TimelineIndex> qwenIndex_;
    std::shared_ptr<const AnalysisResult> qwenAnalysis_;

    void loadQwen()
    {
        if (qwen_ || qwenTrace().empty())
            return;
        qwen_ = std::make_shared<const Trace>(load_trace(qwenTrace()));
        qwenIndex_ = TimelineIndex::build(qwen_);
        qwenAnalysis_ = std::make_shared<const AnalysisResult>(analyze(*qwen_, AnalysisOptions{}));
    }

private slots:
    void initTestCase() { QSettings().remove(QStringLiteral("timeline/labelWidth")); }

    // The main thread's CPU ops are drawn as a flame chart under its CUDA API lane, every one of them in a lane of
    // its depth; the Python frames come after them, folded to their first lane until its label is clicked.
    void flameChartUnderTheApiLane()
    {
        loadQwen();
        if (!qwen_)
            QSKIP("no shared data");
        Selection sel;
        TimelineView view(&sel);
        view.resize(1600, 900);
        view.setIndex(qwenIndex_);
        const auto& lanes = qwenIndex_->lanes();
        int api = -1, opsHead = -1, pyHead = -1;
        size_t opItems = 0, pyLanes = 0;
        for (size_t i = 0; i < lanes.size(); ++i) {
            if (lanes[i].kind == LaneKind::ApiThread && api < 0)
                api = int(i);
            if (lanes[i].kind == LaneKind::HostRanges && lanes[i].thread == lanes[size_t(std::max(api, 0))].thread &&
                opsHead < 0)
                opsHead = int(i);   // the flame chart's first depth (the ProfilerStep annotation, the ops under it)
            if (lanes[i].kind == LaneKind::HostRanges && (lanes[i].rangeKinds & (1u << uint8_t(RangeKind::CpuOp)))) {
                for (uint32_t j = 0; j < lanes[i].items.size(); ++j)
                    opItems += qwen_->ranges.kind[qwenIndex_->ref(lanes[i], j).row] == RangeKind::CpuOp;
            }
            if (lanes[i].kind == LaneKind::Python && lanes[i].thread == lanes[size_t(std::max(api, 0))].thread) {
                if (pyHead < 0)
                    pyHead = int(i);
                ++pyLanes;
            }
        }
        size_t cpuOps = 0;
        for (RangeKind k : qwen_->ranges.kind)
            cpuOps += k == RangeKind::CpuOp;
        QCOMPARE(cpuOps, size_t(4186));   // the header's count
        QCOMPARE(opItems, cpuOps);         // every one drawn
        QVERIFY(api >= 0 && opsHead > api && pyHead > opsHead);
        QCOMPARE(lanes[size_t(opsHead)].thread, lanes[size_t(api)].thread);
        QVERIFY(view.isGroupHead(opsHead));
        QVERIFY(!view.isFolded(opsHead));
        QVERIFY(view.laneTitle(opsHead).contains(TimelineView::tr("CPU ops")));
        // Python frames: folded to their first lane
        QVERIFY(pyLanes >= 10);
        QVERIFY(view.isFolded(pyHead));
        QVERIFY(view.isLaneShown(pyHead));
        QVERIFY(!view.isLaneShown(pyHead + 1));
        // a click on the group's label unfolds it
        view.show();
        const int y = laneY(view, pyHead);
        if (y < 0) {
            view.revealItem(pyHead, 0);
        }
        const int yy = laneY(view, pyHead);
        QVERIFY(yy > 0);
        QTest::mouseClick(&view, Qt::LeftButton, {}, QPoint(20, yy));
        QVERIFY(!view.isFolded(pyHead));
        QVERIFY(view.isLaneShown(pyHead + 1));
        QVERIFY(view.laneHeightOf(pyHead + 1) > 0);
        QTest::mouseClick(&view, Qt::LeftButton, {}, QPoint(20, laneY(view, pyHead)));
        QVERIFY(view.isFolded(pyHead));
    }

    // A click on an operator selects it (Details shows it with the kernels it launched); a kernel's Details names
    // the operator chain, the nn.Module path and the shapes record_shapes saw.
    void operatorClickAndKernelDetails()
    {
        loadQwen();
        if (!qwen_)
            QSKIP("no shared data");
        const Trace& t = *qwen_;
        // The longest aten::linear: zoom onto it.
        const StrId linear = t.strings.find("aten::linear");
        QVERIFY(linear != UINT32_MAX);
        int64_t best = -1;
        for (size_t r = 0; r < t.ranges.size(); ++r)
            if (t.ranges.name[r] == linear && (best < 0 || t.ranges.end[r] - t.ranges.start[r] >
                                                               t.ranges.end[size_t(best)] - t.ranges.start[size_t(best)]))
                best = int64_t(r);
        QVERIFY(best >= 0);
        Selection sel;
        TimelineView view(&sel);
        view.resize(1600, 1400);
        view.setIndex(qwenIndex_);
        view.setAnalysis(qwenAnalysis_);
        DetailsPanel details;
        details.setTrace(qwen_);
        details.setTimeline(qwenIndex_);
        details.setAnalysis(qwenAnalysis_);
        details.setSelection(&sel);
        view.show();
        const int64_t s = t.ranges.start[size_t(best)], e = t.ranges.end[size_t(best)];
        view.setWindow({s - (e - s) / 4, e + (e - s) / 4});
        render(view);
        // Find it on screen through the view's own hit test.
        int lane = -1;
        uint32_t item = 0;
        for (size_t li = 0; li < qwenIndex_->lanes().size() && lane < 0; ++li) {
            const TimelineLane& l = qwenIndex_->lanes()[li];
            if (l.kind != LaneKind::HostRanges)
                continue;
            for (uint32_t j = qwenIndex_->endStartingBefore(l, s); j < l.items.size() && qwenIndex_->itemStart(l, j) == s; ++j)
                if (qwenIndex_->ref(l, j).row == uint32_t(best)) {
                    lane = int(li);
                    item = j;
                }
        }
        QVERIFY(lane >= 0);
        view.revealItem(lane, item);   // scrolls its lane into view
        const int y = laneY(view, lane, 3);
        QVERIFY(y > 0);
        const QRect plot = view.plotRect();
        const int x = plot.left() + int(timeline::timeToX((s + e) / 2, view.window(), plot.width()));
        QTest::mouseClick(&view, Qt::LeftButton, {}, QPoint(x, y));
        QCOMPARE(sel.hostRange(), best);
        QVERIFY(details.text().contains(DetailsPanel::tr("CPU operator")));
        QVERIFY(details.text().contains(QStringLiteral("aten::linear")));
        int64_t total = 0;
        const auto kernels = kernelsOfHostRange(*qwenIndex_, uint32_t(best), 100, &total);
        QVERIFY(!kernels.empty());
        QVERIFY(details.text().contains(DetailsPanel::tr("Kernels launched (%1)").arg(QLocale().toString(qlonglong(total)))));
        // One of its kernels: Details names the chain up to aten::linear, the module and the shapes.
        const uint32_t k = kernels.front();
        sel.setKernel(int64_t(k));
        QCOMPARE(sel.hostRange(), int64_t(-1));
        const QString text = details.text();
        QVERIFY2(text.contains(DetailsPanel::tr("Operator")) && text.contains(QStringLiteral("aten::linear")), qPrintable(text));
        QVERIFY2(text.contains(DetailsPanel::tr("Module")) && text.contains(QStringLiteral("Qwen2Model_0")), qPrintable(text));
        QVERIFY2(text.contains(DetailsPanel::tr("Input shapes")) && text.contains(QStringLiteral("bf16")), qPrintable(text));
        // F fits the selected operator when nothing narrower is selected.
        sel.setHostRange(best);
        view.setFocus();
        QTest::keyClick(&view, Qt::Key_F);
        QVERIFY(view.window().start <= s && view.window().end >= e && view.window().duration() < (e - s) * 2);
    }

    // The copy stream says so, and a merged block of it counts copies; with the class density a merged block of a
    // stream lane is painted per pixel column as high as the column is busy, by class.
    void copiesAndClassMix()
    {
        auto trace = std::make_shared<const Trace>(make_synthetic_trace(synth_preset("decode")));
        auto index = TimelineIndex::build(trace);
        auto analysis = std::make_shared<const AnalysisResult>(analyze(*trace, AnalysisOptions{}));
        auto density = ClassDensity::build(index, analysis);
        Selection sel;
        TimelineView view(&sel);
        view.resize(1280, 600);
        view.setIndex(index);
        view.setAnalysis(analysis);
        view.setClassDensity(density);
        int copyLane = -1, computeLane = -1;
        for (size_t li = 0; li < index->lanes().size(); ++li) {
            const TimelineLane& l = index->lanes()[li];
            if (l.kind != LaneKind::Stream)
                continue;
            if (l.stream == kSynthCopyStream)
                copyLane = int(li);
            if (l.stream == kSynthComputeStream)
                computeLane = int(li);
        }
        QVERIFY(copyLane >= 0 && computeLane >= 0);
        QVERIFY(view.laneTitle(copyLane).endsWith(TimelineView::tr("copies")));
        QVERIFY(!view.laneTitle(computeLane).contains(TimelineView::tr("copies")));
        QCOMPARE(view.mergedLabel(copyLane, 5634), TimelineView::tr("%Ln copies", nullptr, 5634));
        QCOMPARE(view.mergedLabel(computeLane, 1000000), TimelineView::tr("%Ln kernels", nullptr, 1000000));
        render(view);
        // The compute stream at fit: one merged block whose columns hold the class times of the density.
        const std::vector<int64_t>& cols = view.mergedColumns(computeLane);
        const size_t K = size_t(density->classCount());
        QCOMPARE(cols.size(), size_t(view.plotRect().width()) * K);
        std::vector<int64_t> want;
        density->laneColumns(computeLane, view.window(), view.plotRect().width(), want);
        QCOMPARE(cols, want);
        int mixed = 0;
        for (size_t x = 0; x < size_t(view.plotRect().width()); ++x) {
            int classes = 0;
            for (size_t c = 0; c < K; ++c)
                classes += cols[x * K + c] > 0;
            mixed += classes >= 2;
        }
        QVERIFY2(mixed > view.plotRect().width() / 2, qPrintable(QString::number(mixed)));   // decode steps mix classes
        // The overview: the whole capture whatever the zoom, the busy fraction per column from the density.
        const auto o = view.overviewColumns();
        QCOMPARE(int(o.busy.size()), view.overviewRect().width());
        const ClassDensity::Overview d = density->overview(o.window, int(o.busy.size()));
        QCOMPARE(o.busy, d.busy);
        QCOMPARE(o.share, d.share);
        const auto fitted = view.window();
        view.setWindow({fitted.start, fitted.start + fitted.duration() / 35});
        render(view);
        QCOMPARE(view.overviewColumns().busy, d.busy);
        // A click in the overview centres the view there, keeping the zoom.
        view.show();
        const QRect box = view.overviewRect();
        const int64_t before = view.window().duration();
        QTest::mouseClick(&view, Qt::LeftButton, {}, QPoint(box.left() + box.width() * 3 / 4, box.center().y()));
        QCOMPARE(view.window().duration(), before);
        const int64_t centre = (view.window().start + view.window().end) / 2;
        const int64_t want34 = o.window.start + o.window.duration() * 3 / 4;
        QVERIFY(std::llabs(centre - want34) < o.window.duration() / 100);
    }

    // The label column's edge drags wider (and the width is kept).
    void labelColumnResizes()
    {
        auto trace = std::make_shared<const Trace>(make_synthetic_trace(synth_preset("decode")));
        Selection sel;
        TimelineView view(&sel);
        view.resize(1280, 600);
        view.setIndex(TimelineIndex::build(trace));
        view.show();
        const int w0 = view.labelWidth();
        const QPoint edge(w0, view.plotRect().top() + 10);
        QTest::mousePress(&view, Qt::LeftButton, {}, edge);
        QMouseEvent move(QEvent::MouseMove, QPointF(w0 + 120, edge.y()), view.mapToGlobal(QPointF(w0 + 120, edge.y())),
                         Qt::NoButton, Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(&view, &move);
        QTest::mouseRelease(&view, Qt::LeftButton, {}, QPoint(w0 + 120, edge.y()));
        QCOMPARE(view.labelWidth(), w0 + 120);
        QCOMPARE(view.plotRect().left(), w0 + 120);
        TimelineView again(&sel);
        QCOMPARE(again.labelWidth(), w0 + 120);
        QSettings().remove(QStringLiteral("timeline/labelWidth"));
    }
};

QTEST_MAIN(TestTimelineCpuOps)
#include "tst_timeline_cpu_ops.moc"
