// The Roofline pane: the message without a Roofline (and with an error), roofs on the chart, chart click → selection
// (nearest point in pixel space, clicked 2 px off the marker), a kernel name selected elsewhere highlighted, and the
// hover text. Inputs: the generated decode trace and its model config through the real pipeline, plus ncu launches
// named after the trace's kernels.
#include <QApplication>
#include <QCategoryAxis>
#include <QChart>
#include <QChartView>
#include <QDir>
#include <QFile>
#include <QGraphicsSimpleTextItem>
#include <QLineSeries>
#include <QMouseEvent>
#include <QSignalSpy>
#include <QMenu>
#include <QToolTip>
#include <QtTest>
#include <algorithm>
#include <cmath>

#include "analysis/pipeline.h"
#include "analysis/io/synthetic.h"
#include "model/document.h"
#include "model/roofline_model.h"
#include "model/search_index.h"
#include "model/selection.h"
#include "model/timeline_index.h"
#include "model/units.h"
#include "tests/support/qt_fixtures.h"
#include "widgets/roofline_view.h"

using namespace sl;

class TestRooflineView : public QObject {
    Q_OBJECT
private:
    PipelineResult result_;
    RooflineOutput withNcu_;

    // The viewport pixel of a point, from its values through QChart::mapToPosition.
    static QPoint pixelOf(RooflineView& v, const RooflinePoint& p)
    {
        QChart* c = v.chart();
        const QPointF inChart = v.valueToChart(p.intensity, p.flops_per_s);
        // Same as mapping the plotted (log10) value through the series' axes.
        const QPointF direct = c->mapToPosition(QPointF(std::log10(p.intensity), std::log10(p.flops_per_s)),
                                                c->series().constFirst());
        if (std::hypot(inChart.x() - direct.x(), inChart.y() - direct.y()) > 1e-6)
            qWarning("valueToChart disagrees with mapToPosition");
        return v.chartView()->mapFromScene(c->mapToScene(inChart));
    }

    // A row of the given kind whose marker has no other marker within 24 px (so a click picks it unambiguously).
    static int isolatedRow(RooflineView& v, RooflinePointKind kind)
    {
        const RooflineData& d = v.model()->rooflineData();
        for (size_t i = 0; i < d.points.size(); ++i) {
            if (d.points[i].kind != kind)
                continue;
            const QPoint a = pixelOf(v, d.points[i]);
            bool alone = v.chartView()->viewport()->rect().contains(a);
            for (size_t j = 0; j < d.points.size() && alone; ++j)
                if (j != i) {
                    const QPoint b = pixelOf(v, d.points[j]);
                    alone = std::hypot(double(a.x() - b.x()), double(a.y() - b.y())) > 24;
                }
            if (alone)
                return int(i);
        }
        return -1;
    }

    static void click(RooflineView& v, QPoint at)
    {
        QTest::mouseClick(v.chartView()->viewport(), Qt::LeftButton, Qt::NoModifier, at);
    }

    static void hover(RooflineView& v, QPoint at)
    {
        QWidget* vp = v.chartView()->viewport();
        QMouseEvent ev(QEvent::MouseMove, QPointF(at), QPointF(vp->mapToGlobal(at)), Qt::NoButton, Qt::NoButton,
                       Qt::NoModifier);
        QApplication::sendEvent(vp, &ev);
    }

private slots:
    void initTestCase()
    {
        const SynthOptions so = synth_preset("decode");
        const QString config = testing::writeModelConfig(testing::scratchDir(QStringLiteral("roofline_view")), so);
        PipelineOptions o;
        o.run_rules = false;
        o.roofline.model = config.toStdString();
        result_ = run_pipeline_on(std::make_shared<const Trace>(make_synthetic_trace(so)), o);
        QVERIFY(result_.roofline.report);
        // ncu launches for three of the trace's kernel names, at distinct places on the chart.
        const Trace& t = *result_.trace;
        withNcu_ = result_.roofline;
        withNcu_.ncu = NcuReport{};
        std::vector<StrId> names;
        for (size_t k = 0; k < t.kernels.size() && names.size() < 3; ++k)
            if (std::find(names.begin(), names.end(), t.kernels.name[k]) == names.end())
                names.push_back(t.kernels.name[k]);
        const double shape[3][3] = {{2e9, 1e9, 1e6}, {5e10, 5e8, 2e5}, {1e11, 1e8, 4e5}};   // I = 2, 100, 1000
        for (size_t n = 0; n < names.size(); ++n)
            withNcu_.ncu->launches.push_back(
                testing::ncuLaunch(int64_t(n), std::string(t.str(names[n])), shape[n][0], shape[n][1], shape[n][2]));
    }

    void messageWithoutRoofline()
    {
        Document doc;
        Selection sel;
        RooflineView v(&doc, &sel);
        v.resize(900, 600);
        QVERIFY(!v.hasRoofline());
        QVERIFY(v.message().contains(QStringLiteral("config.json")));
        QVERIFY(v.message().contains(QStringLiteral("Settings")));
        // A trace without a model config: still the hint.
        doc.setTrace({QStringLiteral("synthetic")}, result_.trace);
        QVERIFY(!v.hasRoofline());
        QVERIFY(v.message().contains(QStringLiteral("File")));
        // An error names itself.
        doc.setRooflineError(QStringLiteral("config.json: missing field hidden_size"));
        QVERIFY(!v.hasRoofline());
        QVERIFY(v.message().contains(QStringLiteral("missing field hidden_size")));
        // The Roofline arrives: the chart replaces the message.
        doc.setRoofline(std::make_shared<const RooflineOutput>(result_.roofline));
        QVERIFY(v.hasRoofline());
        QVERIFY(v.message().isEmpty());
        QVERIFY(v.chart()->title().contains(QStringLiteral("H100 SXM")));
        // A new trace drops it again; opened with a config.json, the pane says it is on its way.
        DocumentInputs in;
        in.traces = {QStringLiteral("synthetic")};
        in.modelConfig = QStringLiteral("/models/llama/config.json");
        doc.setInputs(in);
        doc.setTrace({QStringLiteral("synthetic")}, result_.trace);
        QVERIFY(!v.hasRoofline());
        QVERIFY2(v.message().contains(QStringLiteral("Computing")), qPrintable(v.message()));
        QVERIFY(v.message().contains(in.modelConfig));
    }

    void roofsAreDrawnInsideThePlot()
    {
        Document doc;
        Selection sel;
        RooflineView v(&doc, &sel);
        v.resize(900, 600);
        v.show();
        QVERIFY(QTest::qWaitForWindowExposed(&v));
        doc.setTrace({QStringLiteral("synthetic")}, result_.trace);
        doc.setRoofline(std::make_shared<const RooflineOutput>(result_.roofline));
        QCoreApplication::processEvents();
        // One memory roof + one line per distinct compute peak (H100 SXM: fp32, tf32, fp16=bf16, fp8=int8).
        int lines = 0;
        const QRectF plot = v.chart()->plotArea();
        for (QAbstractSeries* s : v.chart()->series())
            if (auto* l = qobject_cast<QLineSeries*>(s); l && s->type() == QAbstractSeries::SeriesTypeLine) {
                ++lines;
                QCOMPARE(l->count(), 2);
                for (const QPointF& p : l->points()) {
                    const QPointF px = v.chart()->mapToPosition(p, l);
                    QVERIFY(px.x() >= plot.left() - 0.5 && px.x() <= plot.right() + 0.5);
                    QVERIFY(px.y() >= plot.top() - 0.5 && px.y() <= plot.bottom() + 0.5);
                }
            }
        QCOMPARE(lines, 5);
        // Every point lies inside the plot.
        for (const RooflinePoint& p : v.model()->rooflineData().points)
            QVERIFY(plot.contains(v.valueToChart(p.intensity, p.flops_per_s)));
        // Decade ticks with SI labels: at 900x600 one per decade, "1T", "10T", "100T", "1P" among them.
        auto* y = qobject_cast<QCategoryAxis*>(v.chart()->axes(Qt::Vertical).constFirst());
        QVERIFY(y);
        const int decades = int(std::lround(y->max() - y->min()));
        QCOMPARE(y->count(), decades + 1);
        for (const char* l : {"1T", "10T", "100T", "1P"})
            QVERIFY2(y->categoriesLabels().contains(QLatin1String(l)), l);
        // The look, for a person to check: saved beside the test's scratch files.
        QVERIFY(v.grab().save(testing::scratchDir(QStringLiteral("roofline_view")) + QStringLiteral("/roofline_900x600.png")));
        // In a short dock every other or third decade is labelled instead of eliding them all.
        v.resize(1280, 260);
        QTRY_VERIFY(y->count() < decades + 1);
        QVERIFY(y->count() >= 2);
        for (const QString& l : y->categoriesLabels())
            QVERIFY2(!l.contains(QChar(0x2026)) && !l.contains(QLatin1String("e+")), qPrintable(l));
    }

    void roofLabelsNeverOverlapAndStayInThePlot_data()
    {
        QTest::addColumn<QSize>("size");
        QTest::newRow("900x600") << QSize(900, 600);
        QTest::newRow("short dock 1280x260") << QSize(1280, 260);
        QTest::newRow("short dock 400x300") << QSize(400, 300);
    }
    void roofLabelsNeverOverlapAndStayInThePlot()
    {
        QFETCH(QSize, size);
        Document doc;
        Selection sel;
        RooflineView v(&doc, &sel);
        v.resize(size);
        v.show();
        QVERIFY(QTest::qWaitForWindowExposed(&v));
        doc.setTrace({QStringLiteral("synthetic")}, result_.trace);
        doc.setRoofline(std::make_shared<const RooflineOutput>(result_.roofline));
        QCoreApplication::processEvents();
        const QRectF plot = v.chart()->plotArea();
        std::vector<std::pair<QString, QRectF>> shown;
        bool fp8 = false, bf16 = false;
        for (QGraphicsItem* item : v.chart()->childItems()) {
            auto* text = dynamic_cast<QGraphicsSimpleTextItem*>(item);
            if (!text || !text->text().contains(QLatin1String("FLOP/s")) || text->text().contains(QLatin1String("DRAM")))
                continue;
            if (!text->isVisible())
                continue;
            const QRectF r = text->mapRectToParent(text->boundingRect());
            QVERIFY2(plot.adjusted(-1, -3, 1, 1).contains(r), qPrintable(text->text()));   // not clipped
            for (const auto& [other, o] : shown)
                QVERIFY2(!r.intersects(o), qPrintable(text->text() + QStringLiteral(" overlaps ") + other));
            shown.push_back({text->text(), r});
            fp8 = fp8 || text->text().startsWith(QLatin1String("FP8"));
            bf16 = bf16 || text->text().contains(QLatin1String("BF16"));
        }
        QVERIFY(shown.size() >= 2);
        QVERIFY2(fp8, "the FP8 roof is named");   // not hidden under FP16/BF16
        QVERIFY2(bf16, "the GEMM (BF16) roof is named");
        QVERIFY(v.grab().save(testing::scratchDir(QStringLiteral("roofline_view")) +
                              QStringLiteral("/roof_labels_%1x%2.png").arg(size.width()).arg(size.height())));
    }

    // Point labels (and roof labels) at the window sizes people use: no label over another, over any marker, or
    // over a roof's label; every label inside the plot; the points with the most time labelled first.
    void pointLabelsNeverOverlap_data()
    {
        QTest::addColumn<QSize>("size");
        QTest::newRow("1280x720") << QSize(1280, 720);
        QTest::newRow("1920x1080") << QSize(1920, 1080);
        QTest::newRow("dock 700x400") << QSize(700, 400);
        QTest::newRow("short dock 400x300") << QSize(400, 300);
    }
    void pointLabelsNeverOverlap()
    {
        QFETCH(QSize, size);
        Document doc;
        Selection sel;
        RooflineView v(&doc, &sel);
        v.resize(size);
        v.show();
        QVERIFY(QTest::qWaitForWindowExposed(&v));
        doc.setTrace({QStringLiteral("synthetic")}, result_.trace);
        doc.setRoofline(std::make_shared<const RooflineOutput>(withNcu_));
        QCoreApplication::processEvents();
        const RooflineData& d = v.model()->rooflineData();
        const QRectF plot = v.chart()->plotArea();
        const std::vector<QRectF> roofs = v.roofLabelRects();
        // Compute roof labels keep clear of every marker (the whole marker, not its centre).
        for (const QRectF& r : roofs)
            for (size_t i = 0; i < d.points.size(); ++i) {
                const QPointF c = v.valueToChart(d.points[i].intensity, d.points[i].flops_per_s);
                const double rad = v.markerRadius(int(i));
                const QPointF n(std::clamp(c.x(), r.left(), r.right()), std::clamp(c.y(), r.top(), r.bottom()));
                QVERIFY2(std::hypot(n.x() - c.x(), n.y() - c.y()) >= rad,
                         qPrintable(QStringLiteral("a roof label covers point %1").arg(i)));
            }
        std::vector<std::pair<int, QRectF>> shown;
        for (int row : v.labelledRows()) {
            const QRectF r = v.labelRect(row);
            if (r.isEmpty())
                continue;
            QVERIFY2(plot.contains(r), qPrintable(v.pointLabelText(row)));
            for (const auto& [other, o] : shown)
                QVERIFY2(!r.intersects(o), qPrintable(v.pointLabelText(row) + QStringLiteral(" overlaps ") +
                                                      v.pointLabelText(other)));
            for (const QRectF& roof : roofs)
                QVERIFY2(!r.intersects(roof), qPrintable(v.pointLabelText(row) + QStringLiteral(" overlaps a roof label")));
            for (size_t i = 0; i < d.points.size(); ++i) {
                const QPointF c = v.valueToChart(d.points[i].intensity, d.points[i].flops_per_s);
                const double rad = v.markerRadius(int(i));
                const QPointF n(std::clamp(c.x(), r.left(), r.right()), std::clamp(c.y(), r.top(), r.bottom()));
                QVERIFY2(std::hypot(n.x() - c.x(), n.y() - c.y()) >= rad,
                         qPrintable(v.pointLabelText(row) + QStringLiteral(" covers point %1").arg(i)));
            }
            shown.push_back({row, r});
        }
        // A chart of 1280 px and more has room for most of them.
        if (size.width() >= 1280)
            QVERIFY2(shown.size() >= std::min<size_t>(6, v.labelledRows().size()), qPrintable(QString::number(shown.size())));
        QVERIFY(!shown.empty());
        QVERIFY(v.grab().save(testing::scratchDir(QStringLiteral("roofline_view")) +
                              QStringLiteral("/point_labels_%1x%2.png").arg(size.width()).arg(size.height())));
    }

    // Two points 5 px apart: a click on either selects that one (QXYSeries::clicked would give the first marker under
    // the cursor), and hovering shows its own values.
    void clickOnOneOfTwoClosePointsSelectsIt()
    {
        Document doc;
        Selection sel;
        RooflineView v(&doc, &sel);
        v.resize(1280, 720);
        v.show();
        QVERIFY(QTest::qWaitForWindowExposed(&v));
        doc.setTrace({QStringLiteral("synthetic")}, result_.trace);
        doc.setRoofline(std::make_shared<const RooflineOutput>(withNcu_));
        QCoreApplication::processEvents();
        RooflineData d = v.model()->rooflineData();
        // Two extra ncu points at 20 FLOP/B, the second 5 px to the right of the first.
        RooflinePoint a;
        a.kind = RooflinePointKind::Ncu;
        a.label = "near_a_kernel";
        a.intensity = 20;
        a.flops_per_s = 2e13;
        a.flops = 2e9;
        a.bytes = 1e8;
        a.total_ns = 1e5;
        RooflinePoint b = a;
        b.label = "near_b_kernel";
        d.points.push_back(a);
        d.points.push_back(b);
        v.model()->setRooflineData(d);
        QCoreApplication::processEvents();
        const int ra = int(d.points.size()) - 2, rb = int(d.points.size()) - 1;
        // Move b 5 px right of a in pixel space: intensity scaled by the px-per-decade of the x axis.
        const QPointF pa = v.valueToChart(a.intensity, a.flops_per_s);
        const QPointF p10 = v.valueToChart(a.intensity * 10, a.flops_per_s);
        d.points[size_t(rb)].intensity = a.intensity * std::pow(10.0, 5.0 / (p10.x() - pa.x()));
        v.model()->setRooflineData(d);
        QCoreApplication::processEvents();
        const QPoint va = v.viewportPosition(ra), vb = v.viewportPosition(rb);
        QVERIFY(std::abs((vb - va).x() - 5) <= 1);
        click(v, vb);
        QCOMPARE(v.highlightedRow(), rb);
        click(v, va);
        QCOMPARE(v.highlightedRow(), ra);
        hover(v, vb);
        QVERIFY2(v.hoverText().contains(QStringLiteral("near_b_kernel")), qPrintable(v.hoverText()));
        hover(v, va);
        QVERIFY2(v.hoverText().contains(QStringLiteral("near_a_kernel")), qPrintable(v.hoverText()));
    }

    // Issue 37 §2: a large marker painted over a small one that it hides wholly (a decode class over a prefill class,
    // the series order): a click 2 px beside the large marker selects it, not the hidden one whose centre is nearer
    // the cursor (before: "activation (prefill)", which the user could not see). The chooser (right click) lists
    // both, painted on top first, and picking the hidden one selects it.
    void clickBesideAMarkerOverAHiddenOneSelectsTheVisibleOne()
    {
        Document doc;
        Selection sel;
        RooflineView v(&doc, &sel);
        v.resize(1280, 720);
        v.show();
        QVERIFY(QTest::qWaitForWindowExposed(&v));
        doc.setTrace({QStringLiteral("synthetic")}, result_.trace);
        doc.setRoofline(std::make_shared<const RooflineOutput>(withNcu_));
        QCoreApplication::processEvents();
        RooflineData d = v.model()->rooflineData();
        RooflinePoint big;
        big.kind = RooflinePointKind::Measured;
        big.label = "gemm";
        big.op_class = "gemm";
        big.phase = "decode";
        big.intensity = 20;
        big.flops_per_s = 2e12;
        big.flops = 2e9;
        big.bytes = 1e8;
        big.total_ns = 1e13;   // the most measured time: the largest marker
        RooflinePoint hidden = big;
        hidden.label = "activation";
        hidden.op_class = "activation";
        hidden.phase = "prefill";   // prefill series are painted before decode ones
        hidden.total_ns = 1e3;      // the smallest marker
        d.points.push_back(big);
        d.points.push_back(hidden);
        const int rb = int(d.points.size()) - 2, rh = int(d.points.size()) - 1;
        v.model()->setRooflineData(d);
        QCoreApplication::processEvents();
        const double rBig = v.markerRadius(rb), rHidden = v.markerRadius(rh);
        QVERIFY2(rBig >= rHidden + 4, qPrintable(QStringLiteral("%1 %2").arg(rBig).arg(rHidden)));
        // The hidden marker 4 px right of the big one's centre: wholly inside it.
        const QPointF p0 = v.valueToChart(big.intensity, big.flops_per_s);
        const QPointF p10 = v.valueToChart(big.intensity * 10, big.flops_per_s);
        const double shift = rBig - rHidden - 1;
        d.points[size_t(rh)].intensity = big.intensity * std::pow(10.0, shift / (p10.x() - p0.x()));
        v.model()->setRooflineData(d);
        QCoreApplication::processEvents();
        const QPoint cb = v.viewportPosition(rb), ch = v.viewportPosition(rh);
        QVERIFY(std::abs((ch - cb).x() - int(std::lround(shift))) <= 1);
        for (int j = 0; j < int(d.points.size()) - 2; ++j) {   // nothing else near
            const QPoint o = v.viewportPosition(j);
            QVERIFY(std::hypot(double(o.x() - cb.x()), double(o.y() - cb.y())) > 30);
        }
        QSignalSpy classes(&v, &RooflineView::opClassActivated);
        // 2 px beside the big marker's right edge, on the side of the hidden one.
        const QPoint beside = cb + QPoint(int(std::ceil(rBig)) + 2, 0);
        QVERIFY(std::hypot(double(beside.x() - ch.x()), 0.0) < std::hypot(double(beside.x() - cb.x()), 0.0));
        click(v, beside);
        QCOMPARE(v.highlightedRow(), rb);
        QCOMPARE(classes.count(), 1);
        QCOMPARE(classes.at(0).at(0).toString(), QStringLiteral("gemm"));
        QCOMPARE(classes.at(0).at(1).toString(), QStringLiteral("decode"));
        // Inside the big marker, over the hidden one's centre: still the visible one; the hover says the same.
        click(v, ch);
        QCOMPARE(v.highlightedRow(), rb);
        hover(v, beside);
        QVERIFY2(v.hoverText().contains(QStringLiteral("gemm")), qPrintable(v.hoverText()));
        QVERIFY2(!v.hoverText().contains(QStringLiteral("activation")) ||
                     v.hoverText().contains(QStringLiteral("right-click")),
                 qPrintable(v.hoverText()));

        // The chooser lists both, the one on top first; choosing the hidden one selects it.
        QCOMPARE(v.pointsAt(ch), (std::vector<int>{rb, rh}));
        std::unique_ptr<QMenu> menu(v.chooserMenu(ch));
        QVERIFY(menu);
        QList<QAction*> actions;
        for (QAction* a : menu->actions())
            if (!a->isSeparator())   // (the section heading)
                actions << a;
        QCOMPARE(actions.size(), 2);
        QVERIFY2(actions[0]->text().contains(QStringLiteral("gemm")), qPrintable(actions[0]->text()));
        QVERIFY2(actions[1]->text().contains(QStringLiteral("activation")), qPrintable(actions[1]->text()));
        actions[1]->trigger();
        QCOMPARE(v.highlightedRow(), rh);
        QCOMPARE(classes.count(), 3);
        QCOMPARE(classes.at(2).at(0).toString(), QStringLiteral("activation"));
        QCOMPARE(classes.at(2).at(1).toString(), QStringLiteral("prefill"));
        // One marker alone: no chooser.
        QVERIFY(!v.chooserMenu(v.viewportPosition(isolatedRow(v, RooflinePointKind::Ncu))));
    }

    void clickSelectsNearestPoint()
    {
        Document doc;
        Selection sel;
        RooflineView v(&doc, &sel);
        v.resize(900, 600);
        v.show();
        QVERIFY(QTest::qWaitForWindowExposed(&v));
        doc.setTrace({QStringLiteral("synthetic")}, result_.trace);
        doc.setRoofline(std::make_shared<const RooflineOutput>(withNcu_));
        QCoreApplication::processEvents();
        QVERIFY(v.hasRoofline());
        const RooflineData& d = v.model()->rooflineData();
        QSignalSpy kernels(&v, &RooflineView::kernelActivated);
        QSignalSpy classes(&v, &RooflineView::opClassActivated);
        QSignalSpy names(&sel, &Selection::kernelNameChanged);

        // A kernel (ncu) point, clicked 2 px to the right of and 2 px below its centre.
        const int kr = isolatedRow(v, RooflinePointKind::Ncu);
        QVERIFY(kr >= 0);
        const RooflinePoint& kp = d.points[size_t(kr)];
        QVERIFY(kp.kernel_name != UINT32_MAX);
        click(v, pixelOf(v, kp) + QPoint(2, 2));
        QCOMPARE(sel.kernelName(), kp.kernel_name);
        QCOMPARE(names.count(), 1);
        QCOMPARE(kernels.count(), 1);
        QCOMPARE(kernels.at(0).at(0).toUInt(), uint(kp.kernel_name));
        QCOMPARE(v.highlightedRow(), kr);

        // A measured class point emits its class and phase, and leaves the kernel selection alone.
        const int cr = isolatedRow(v, RooflinePointKind::Measured);
        QVERIFY(cr >= 0);
        const RooflinePoint& cp = d.points[size_t(cr)];
        click(v, pixelOf(v, cp) + QPoint(-2, 0));
        QCOMPARE(classes.count(), 1);
        QCOMPARE(classes.at(0).at(0).toString().toStdString(), cp.op_class);
        QCOMPARE(classes.at(0).at(1).toString().toStdString(), cp.phase);
        QCOMPARE(sel.kernelName(), kp.kernel_name);
        QCOMPARE(v.highlightedRow(), cr);

        // Far from every point (the plot's top-left corner region): nothing.
        const QRectF plot = v.chart()->plotArea();
        const QPoint empty = v.chartView()->mapFromScene(v.chart()->mapToScene(plot.topLeft() + QPointF(3, 3)));
        QCOMPARE(v.pointAt(empty), -1);
        click(v, empty);
        QCOMPARE(kernels.count(), 1);
        QCOMPARE(classes.count(), 1);

        // Between two points, the nearer one wins.
        const int other = [&] {
            for (size_t i = 0; i < d.points.size(); ++i)
                if (d.points[i].kind == RooflinePointKind::Ncu && int(i) != kr)
                    return int(i);
            return -1;
        }();
        QVERIFY(other >= 0);
        // (kr has no other marker within 24 px, so 4 px towards another point is still nearest to kr.)
        const QPoint a = pixelOf(v, kp), b = pixelOf(v, d.points[size_t(other)]);
        const QPointF dir = QPointF(b - a) / std::hypot(double(b.x() - a.x()), double(b.y() - a.y()));
        QCOMPARE(v.pointAt(a + (4 * dir).toPoint(), 1000), kr);
        const int atB = v.pointAt(b, 1000);
        QVERIFY(atB >= 0 && atB != kr);
        const QPoint bb = pixelOf(v, d.points[size_t(atB)]);
        QVERIFY(std::hypot(double(bb.x() - b.x()), double(bb.y() - b.y())) <= 1.5);

        // A kernel name selected elsewhere (the kernel table) highlights its point.
        sel.setKernelName(d.points[size_t(other)].kernel_name);
        QCOMPARE(v.highlightedRow(), other);
        QCOMPARE(kernels.count(), 1);   // selection from outside does not echo back as an activation
        QVERIFY(v.grab().save(testing::scratchDir(QStringLiteral("roofline_view")) + QStringLiteral("/roofline_selected.png")));
        // A name without a point (or none) drops the kernel highlight.
        sel.setKernelName(UINT32_MAX);
        QCOMPARE(v.highlightedRow(), -1);
        // A kernel selected on the timeline highlights the point standing for it (here: its class in its phase).
        doc.setAnalysis(std::make_shared<const AnalysisResult>(result_.analysis));
        const Trace& t = *result_.trace;
        for (size_t k = 0; k < t.kernels.size(); ++k)
            if (t.str(t.kernels.name[k]).substr(0, 17) == "nvjet_tst_128x8_6") {   // the decode gate/up GEMM
                sel.setKernel(int64_t(k));
                break;
            }
        QVERIFY(v.highlightedRow() >= 0);
        QCOMPARE(d.points[size_t(v.highlightedRow())].op_class, std::string("gemm"));
        QCOMPARE(d.points[size_t(v.highlightedRow())].phase, std::string("decode"));
    }

    void hoverShowsValues()
    {
        Document doc;
        Selection sel;
        RooflineView v(&doc, &sel);
        v.resize(900, 600);
        v.show();
        QVERIFY(QTest::qWaitForWindowExposed(&v));
        doc.setTrace({QStringLiteral("synthetic")}, result_.trace);
        doc.setRoofline(std::make_shared<const RooflineOutput>(withNcu_));
        QCoreApplication::processEvents();
        const RooflineData& d = v.model()->rooflineData();
        const int row = isolatedRow(v, RooflinePointKind::Measured);
        QVERIFY(row >= 0);
        const RooflinePoint& p = d.points[size_t(row)];
        hover(v, pixelOf(v, p) + QPoint(0, 2));
        const QString text = v.hoverText();
        QVERIFY2(text.contains(QString::fromStdString(p.label)), qPrintable(text));
        QVERIFY(text.contains(RooflineModel::formatIntensity(p.intensity)));
        QVERIFY(text.contains(RooflineModel::formatFlopsPerSecond(p.flops_per_s)));
        QVERIFY(text.contains(QStringLiteral("of the roof")));
        QVERIFY(text.contains(QStringLiteral("E_roof")));
        QVERIFY(text.contains(QStringLiteral("Total time")));
        // FLOPs and bytes per pass, and the share of the trace's kernel time.
        QVERIFY2(text.contains(RooflineModel::formatSi(p.flops)), qPrintable(text));
        QVERIFY(text.contains(formatBytes(uint64_t(std::llround(p.bytes)))));
        double kernelNs = 0;
        for (size_t k = 0; k < result_.trace->kernels.size(); ++k)
            kernelNs += double(result_.trace->kernels.end[k] - result_.trace->kernels.start[k]);
        QVERIFY2(text.contains(QStringLiteral("Share of the trace's kernel time: %1").arg(formatPercent(p.total_ns / kernelNs))),
                 qPrintable(text));
        QVERIFY(p.e_roof);
        QVERIFY(text.contains(QLocale().toString(*p.e_roof, 'f', 3)));
        // Where its theory's workload came from (issue 34 §3): this planted trace records no shapes and names no
        // batch, so the defaults, said as such.
        QCOMPARE(QString::fromStdString(p.shape_source), QStringLiteral("default"));
        QVERIFY2(text.contains(QStringLiteral("Workload: batch 1")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("defaults: nothing in the trace says")), qPrintable(text));
        // The ncu point says how many launches it stands for.
        const int kr = isolatedRow(v, RooflinePointKind::Ncu);
        hover(v, pixelOf(v, d.points[size_t(kr)]));
        QVERIFY(v.hoverText().contains(QStringLiteral("1 launch")));
        // The fp32 ridge point (67 TFLOP/s over 3.35 TB/s = 20 FLOP/B; no point near it) explains itself.
        hover(v, v.chartView()->mapFromScene(v.chart()->mapToScene(v.valueToChart(67e12 / 3.35e12, 67e12))) +
                     QPoint(1, 2));
        QVERIFY2(v.hoverText().contains(QStringLiteral("Ridge point")), qPrintable(v.hoverText()));
        QVERIFY(v.hoverText().contains(QStringLiteral("FP32")));
        QVERIFY(v.hoverText().contains(QStringLiteral("20.0 FLOP/B")));
        // Off every point: no text.
        const QRectF plot = v.chart()->plotArea();
        hover(v, v.chartView()->mapFromScene(v.chart()->mapToScene(plot.topLeft() + QPointF(3, 3))));
        QVERIFY(v.hoverText().isEmpty());
    }

    // Issue 37 §2: a tooltip stays while the mouse rests on the point, as the timeline's do. The mouse moves as a
    // user's does (through the application, so its tooltip wake-up fires a QEvent::ToolTip on the viewport about
    // 0.7 s later); before the fix that event reached the chart's graphics scene, which found no item tooltip there
    // and hid the point's tooltip a second after it appeared.
    void tooltipStaysWhileHovered()
    {
        Document doc;
        Selection sel;
        RooflineView v(&doc, &sel);
        v.resize(900, 600);
        v.show();
        QVERIFY(QTest::qWaitForWindowExposed(&v));
        v.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&v));
        doc.setTrace({QStringLiteral("synthetic")}, result_.trace);
        doc.setRoofline(std::make_shared<const RooflineOutput>(withNcu_));
        QCoreApplication::processEvents();
        const RooflineData& d = v.model()->rooflineData();
        const int row = isolatedRow(v, RooflinePointKind::Measured);
        QVERIFY(row >= 0);
        const QString label = QString::fromStdString(d.points[size_t(row)].label);
        QWidget* vp = v.chartView()->viewport();
        const QPoint at = pixelOf(v, d.points[size_t(row)]) + QPoint(1, 1);
        QTest::mouseMove(vp, at - QPoint(30, 30));
        QTest::mouseMove(vp, at);
        QTRY_VERIFY(QToolTip::isVisible());
        QVERIFY2(QToolTip::text().contains(label), qPrintable(QToolTip::text()));
        QTest::qWait(3000);   // the mouse rests on the point
        QVERIFY(QToolTip::isVisible());
        QVERIFY2(QToolTip::text().contains(label), qPrintable(QToolTip::text()));
        // Off every point it goes.
        const QRectF plot = v.chart()->plotArea();
        QTest::mouseMove(vp, v.chartView()->mapFromScene(v.chart()->mapToScene(plot.topLeft() + QPointF(3, 3))));
        QTRY_VERIFY(!QToolTip::isVisible());
    }

    // Measured shape points of a real Kineto trace with shapes (the H100 Qwen trace, no model config): drawn in
    // their own series, and a click on one selects exactly that (op, shapes, dtype)'s kernels (not every instance
    // of their names), which the timeline's search index outlines one for one.
    void shapePointClickSelectsItsKernels_data()
    {
        QTest::addColumn<QSize>("size");
        QTest::addColumn<bool>("withTheory");
        QTest::newRow("900x600") << QSize(900, 600) << false;
        QTest::newRow("short dock 400x300") << QSize(400, 300) << false;
        QTest::newRow("900x600 with theory") << QSize(900, 600) << true;
    }
    void shapePointClickSelectsItsKernels()
    {
        QFETCH(QSize, size);
        QFETCH(bool, withTheory);
        const QByteArray dir = qgetenv("SIGHTLINE_SHARED_DATA");
        const std::string path =
            dir.toStdString() + "/kineto/tracelens/h100__Qwen1.5-0.5B-Chat_inference.json.gz";
        if (dir.isEmpty() || !QFile::exists(QString::fromStdString(path)))
            QSKIP("the H100 Qwen trace is not in SIGHTLINE_SHARED_DATA");
        PipelineOptions o;
        o.run_rules = false;
        const PipelineResult r = run_pipeline({path}, o);
        QVERIFY(!r.shapes.points.empty());
        const Trace& t = *r.trace;

        Document doc;
        Selection sel;
        RooflineView v(&doc, &sel);
        v.resize(size);
        v.show();
        QVERIFY(QTest::qWaitForWindowExposed(&v));
        doc.setTrace({QString::fromStdString(path)}, r.trace);
        if (withTheory)   // the sample's theory (another trace's config) next to the measured shapes
            doc.setRoofline(std::make_shared<const RooflineOutput>(result_.roofline));
        doc.setShapes(std::make_shared<const ShapeRooflineResult>(r.shapes));
        QCoreApplication::processEvents();
        QVERIFY(v.hasRoofline());
        QVERIFY(v.chart()->title().contains(QStringLiteral("H100 SXM")));
        QVERIFY(v.grab().save(testing::scratchDir(QStringLiteral("roofline_view")) +
                              QStringLiteral("/roofline_shapes_%1x%2%3.png")
                                  .arg(size.width())
                                  .arg(size.height())
                                  .arg(withTheory ? QStringLiteral("_theory") : QString())));
        // One legend entry per family present; GEMM and attention are.
        QStringList legend;
        for (QAbstractSeries* s : v.chart()->series())
            legend << s->name();
        QVERIFY(legend.contains(QStringLiteral("GEMM")));
        QVERIFY(legend.contains(QStringLiteral("Attention")));

        // The GEMM point with the most time whose kernel name also serves another shape, where a click lands on it.
        const RooflineData& d = v.model()->rooflineData();
        int row = -1;
        for (size_t i = 0; i < d.points.size() && row < 0; ++i) {
            const RooflinePoint& p = d.points[i];
            if (p.kind != RooflinePointKind::Shape || p.op_class != "gemm")
                continue;
            const StrId name = t.strings.find(p.kernel_names.front());
            size_t all = 0;
            for (size_t k = 0; k < t.kernels.size(); ++k)
                all += t.kernels.name[k] == name;
            // (and where the click below lands: of two markers on top of each other, the one painted on top takes
            // the pixel)
            if (all > p.kernels.size() && v.pointAt(v.viewportPosition(int(i)), 0) == int(i) &&
                v.pointAt(v.viewportPosition(int(i)) + QPoint(1, -1), 0) == int(i))
                row = int(i);
        }
        QVERIFY(row >= 0);
        const RooflinePoint& p = d.points[size_t(row)];
        // The analysis' own point (ShapeRooflineResult) with this op and dims: the kernels it joined.
        const ShapePoint* sp = nullptr;
        for (const ShapePoint& s : r.shapes.points)
            if (s.op == p.label && s.input_dims == p.input_dims && s.input_types == p.input_types)
                sp = &s;
        QVERIFY(sp);
        std::vector<int64_t> expected(sp->kernel_rows.begin(), sp->kernel_rows.end());
        std::sort(expected.begin(), expected.end());
        QCOMPARE(int64_t(expected.size()), sp->kernels);

        sel.setKernelName(t.strings.find(p.kernel_names.front()));   // something selected before
        QSignalSpy shapes(&v, &RooflineView::shapeActivated);
        QSignalSpy highlighted(&sel, &Selection::highlightedKernelsChanged);
        click(v, v.viewportPosition(row) + QPoint(1, -1));
        QCOMPARE(shapes.count(), 1);
        QCOMPARE(shapes.at(0).at(0).toInt(), row);
        QCOMPARE(highlighted.count(), 1);
        QCOMPARE(sel.highlightedKernels(), expected);
        QCOMPARE(sel.kernelName(), UINT32_MAX);   // a name would also mark the other shapes' instances
        QCOMPARE(v.highlightedRow(), row);
        // The selected kernel is the set's longest.
        QVERIFY(std::binary_search(expected.begin(), expected.end(), sel.kernel()));
        for (int64_t k : expected)
            QVERIFY(t.kernels.end[size_t(k)] - t.kernels.start[size_t(k)] <=
                    t.kernels.end[size_t(sel.kernel())] - t.kernels.start[size_t(sel.kernel())]);

        // The timeline's marks: one per kernel of the set, each on the lane item of that very kernel.
        const auto index = TimelineIndex::build(r.trace);
        const auto search = SearchIndex::build(index);
        const auto marks = search->kernelRows(sel.highlightedKernels(), QStringLiteral("point"));
        QCOMPARE(marks->ordered.size(), expected.size());
        QCOMPARE(marks->kernels, int(expected.size()));
        for (const SearchHit& h : marks->ordered) {
            const ItemRef ref = index->ref(index->lanes()[h.lane], h.item);
            QCOMPARE(ref.kind, ItemKind::Kernel);
            QVERIFY(std::binary_search(expected.begin(), expected.end(), int64_t(ref.row)));
        }

        // Hover: op, shape, dtype, FLOPs, bytes, TFLOP/s, TB/s, % of roof and the kernels.
        hover(v, v.viewportPosition(row));
        const QString text = v.hoverText();
        QVERIFY2(text.contains(QString::fromStdString(p.shape)), qPrintable(text));
        QVERIFY(text.contains(QString::fromStdString(p.label)));
        QVERIFY(text.contains(QStringLiteral("bf16")));
        QVERIFY(text.contains(RooflineModel::formatFlopsPerSecond(p.flops_per_s)));
        QVERIFY(text.contains(RooflineModel::formatBytesPerSecond(p.bytes_per_s)));
        QVERIFY(text.contains(RooflineModel::formatIntensity(p.intensity)));
        QVERIFY(p.pct_of_roof);
        QVERIFY(text.contains(formatPercent(*p.pct_of_roof / 100.0)));
        QVERIFY(text.contains(QStringLiteral("%1 kernel").arg(p.kernels.size())));

        // A timeline kernel of the set highlights the point; a kernel name chosen elsewhere clears the set.
        sel.setKernel(-1);
        sel.setKernel(expected.front());
        QCOMPARE(v.highlightedRow(), row);
        sel.setKernelName(t.kernels.name[size_t(expected.front())]);
        QVERIFY(sel.highlightedKernels().empty());
    }
};

QTEST_MAIN(TestRooflineView)
#include "tst_roofline_view.moc"
