// Dark (and light) theme of the Gaps pane and the timeline's overlays: after applyTheme() the gap histogram's chart
// takes its background, plot area, title, legend and axis colours from the palette (re-applied on the palette
// change, and kept when the chart is rebuilt for fine bins), readable at WCAG AA; the timeline's rendered image has
// the theme's background, and its range tint, range-statistics box, selected-kernel outline and highlighted-gap
// marks are drawn in colours derived from the palette (widgets/palette.h viewColors), found by sampling the pixels.
#include <QAbstractAxis>
#include <QApplication>
#include <QChart>
#include <QChartView>
#include <QDir>
#include <QLegend>
#include <QTest>

#include "analysis/timeline/analysis.h"
#include "analysis/io/synthetic.h"
#include "model/gap_histogram.h"
#include "model/selection.h"
#include "model/theme.h"
#include "model/timeline_index.h"
#include "widgets/gap_histogram_view.h"
#include "widgets/palette.h"
#include "widgets/timeline_view.h"

using namespace sl;

namespace {

constexpr double kWcagAA = 4.5;

#define VERIFY_CONTRAST(fg, bg, min)                                                                                 \
    do {                                                                                                             \
        const double r_ = contrastRatio((fg), (bg));                                                                 \
        QVERIFY2(r_ >= (min), qPrintable(QStringLiteral("%1 on %2: contrast %3 < %4")                                 \
                                             .arg((fg).name(), (bg).name()).arg(r_, 0, 'f', 2).arg(min)));          \
    } while (0)

// `over` with alpha composited on opaque `under`.
QColor blend(const QColor& over, const QColor& under)
{
    const double a = over.alphaF();
    return QColor::fromRgbF(float(over.redF() * a + under.redF() * (1 - a)), float(over.greenF() * a + under.greenF() * (1 - a)),
                            float(over.blueF() * a + under.blueF() * (1 - a)));
}

bool near(const QColor& a, const QColor& b, int tol)
{
    return std::abs(a.red() - b.red()) <= tol && std::abs(a.green() - b.green()) <= tol && std::abs(a.blue() - b.blue()) <= tol;
}

int countPixels(const QImage& img, const QRect& area, const QColor& c)
{
    int n = 0;
    const QRect r = area.intersected(img.rect());
    for (int y = r.top(); y <= r.bottom(); ++y)
        for (int x = r.left(); x <= r.right(); ++x)
            n += QColor(img.pixel(x, y)).rgb() == c.rgb();
    return n;
}

QString screensDir()
{
    const QString dir = qEnvironmentVariable("SIGHTLINE_TEST_TMP", QDir::tempPath()) + QStringLiteral("/screens");
    QDir().mkpath(dir);
    return dir;
}

std::shared_ptr<const Trace> decodeTrace()
{
    SynthOptions o = synth_preset("decode");
    o.decode_steps = 4;
    o.host_starved = true;
    return std::make_shared<const Trace>(make_synthetic_trace(o));
}

QPalette themePalette(const QString& mode) { return mode == QLatin1String("dark") ? darkPalette() : lightPalette(); }

void verifyChartColors(QChart* chart, const QPalette& p)
{
    QVERIFY(chart);
    const ViewColors c = viewColors(p);
    QCOMPARE(chart->backgroundBrush().color(), c.header);
    QCOMPARE(chart->plotAreaBackgroundBrush().color(), c.background);
    QVERIFY(chart->isPlotAreaBackgroundVisible());
    QCOMPARE(chart->titleBrush().color(), c.headerText);
    VERIFY_CONTRAST(chart->titleBrush().color(), chart->backgroundBrush().color(), kWcagAA);
    QCOMPARE(chart->legend()->labelColor(), c.headerText);
    VERIFY_CONTRAST(chart->legend()->labelColor(), chart->backgroundBrush().color(), kWcagAA);
    QCOMPARE(chart->axes().size(), 2);
    for (QAbstractAxis* a : chart->axes()) {
        QCOMPARE(a->labelsColor(), c.headerText);
        QCOMPARE(a->titleBrush().color(), c.headerText);
        VERIFY_CONTRAST(a->labelsColor(), chart->backgroundBrush().color(), kWcagAA);
        VERIFY_CONTRAST(a->titleBrush().color(), chart->backgroundBrush().color(), kWcagAA);
    }
}

} // namespace

class TestDarkTheme : public QObject {
    Q_OBJECT
private slots:
    void cleanup() { applyTheme(QStringLiteral("system")); }

    void gapHistogramFollowsTheTheme()
    {
        const auto trace = decodeTrace();
        const auto analysis = std::make_shared<const AnalysisResult>(analyze(*trace, AnalysisOptions{}));
        applyTheme(QStringLiteral("light"));
        GapHistogramView view;
        view.resize(800, 420);
        view.setAnalysis(analysis);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        verifyChartColors(view.chartView()->chart(), lightPalette());

        // switch at run time: the chart built under the light theme is recoloured on the palette change
        QChart* before = view.chartView()->chart();
        applyTheme(QStringLiteral("dark"));
        QTRY_COMPARE(view.palette().color(QPalette::Window), darkPalette().color(QPalette::Window));
        QCOMPARE(view.chartView()->chart(), before);
        verifyChartColors(view.chartView()->chart(), darkPalette());
        // and what is drawn is dark: the chart's corner shows the header colour, the plot area the base colour
        const QImage img = view.chartView()->grab().toImage();
        img.save(screensDir() + QStringLiteral("/gaps_dark.png"));
        QCOMPARE(QColor(img.pixel(2, 2)), viewColors(darkPalette()).header);
        const QRectF plot = view.chartView()->chart()->plotArea();
        const QPoint inPlot = view.chartView()->mapFromScene(view.chartView()->chart()->mapToScene(plot.topRight() + QPointF(-3, 3)));
        QCOMPARE(QColor(img.pixel(inPlot)), viewColors(darkPalette()).background);
        QVERIFY(relativeLuminance(QColor(img.pixel(2, 2))) < 0.05);

        // a rebuilt chart (fine bins) is born with the palette's colours
        view.setFineBins(true);
        QVERIFY(view.chartView()->chart() != before);
        verifyChartColors(view.chartView()->chart(), darkPalette());
        view.grab().save(screensDir() + QStringLiteral("/gaps_fine_dark.png"));

        // and back to light
        applyTheme(QStringLiteral("light"));
        QTRY_COMPARE(view.palette().color(QPalette::Window), lightPalette().color(QPalette::Window));
        verifyChartColors(view.chartView()->chart(), lightPalette());
    }

    void timelineOverlaysFollowTheTheme_data()
    {
        QTest::addColumn<QString>("mode");
        QTest::newRow("dark") << QStringLiteral("dark");
        QTest::newRow("light") << QStringLiteral("light");
    }
    void timelineOverlaysFollowTheTheme()
    {
        QFETCH(QString, mode);
        const auto trace = decodeTrace();
        const auto analysis = std::make_shared<const AnalysisResult>(analyze(*trace, AnalysisOptions{}));
        applyTheme(mode);
        const QPalette pal = themePalette(mode);
        Selection sel;
        TimelineView view(&sel);
        view.setIndex(TimelineIndex::build(trace));
        view.setAnalysis(analysis);
        view.resize(1000, 520);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QTRY_COMPARE(view.palette().color(QPalette::Base), pal.color(QPalette::Base));
        const ViewColors c = viewColors(view.palette());
        QCOMPARE(c.dark, mode == QLatin1String("dark"));

        // a range in the middle of the window, a kernel in it selected, the gaps of one summary bucket highlighted
        const timeline::Window w = view.window();
        const TimeRange range{w.start + w.duration() / 3, w.start + 2 * w.duration() / 3};
        sel.setRange(range);
        int64_t kernel = -1;
        for (size_t k = 0; k < trace->kernels.size() && kernel < 0; ++k)
            if (trace->kernels.start[k] > range.start && trace->kernels.end[k] - trace->kernels.start[k] > 20'000)
                kernel = int64_t(k);
        QVERIFY(kernel >= 0);
        sel.setKernel(kernel);
        view.setWindow(w);   // selecting may reveal the kernel: keep the whole trace in view
        const GapBins buckets = summaryGapBins(analysis->idle);
        std::vector<int64_t> highlighted;
        for (size_t b = 0; b < buckets.size() && highlighted.size() < 3; ++b)
            highlighted = buckets.gapsIn(int(b));
        QVERIFY(!highlighted.empty());
        sel.setHighlightedGaps(highlighted);

        const QImage img = view.grab().toImage();
        img.save(screensDir() + QStringLiteral("/timeline_overlays_%1.png").arg(mode));
        const QRect plot = view.plotRect();

        // background: the empty plot area below the lanes, outside the range, is the palette's base
        const QColor bottomRight(img.pixel(plot.right() - 3, plot.bottom() - 3));
        QCOMPARE(bottomRight, c.background);
        if (c.dark)
            QVERIFY2(relativeLuminance(bottomRight) < 0.05, qPrintable(bottomRight.name()));
        else
            QVERIFY2(relativeLuminance(bottomRight) > 0.8, qPrintable(bottomRight.name()));

        // range tint: the selection fill over the base, below the lanes inside the range
        const double xMid = plot.left() + timeline::timeToX((range.start + range.end) / 2, view.window(), plot.width());
        const QColor tint(img.pixel(int(xMid), plot.bottom() - 60));
        QVERIFY2(near(tint, blend(c.selectionFill, c.background), 2),
                 qPrintable(tint.name() + QStringLiteral(" vs ") + blend(c.selectionFill, c.background).name()));
        VERIFY_CONTRAST(c.text, tint, kWcagAA);

        // range-statistics box at the bottom left: the tooltip colours, its text readable
        const int fh = QFontMetrics(view.font()).height();
        const QRect box(plot.left() + 8, plot.bottom() - fh - 12, 200, fh + 8);
        const QColor boxFill(img.pixel(box.left() + 3, box.top() + 2));
        QVERIFY2(near(boxFill, c.tooltipBackground, 14), qPrintable(boxFill.name() + QStringLiteral(" vs ") + c.tooltipBackground.name()));
        VERIFY_CONTRAST(c.tooltipText, boxFill, kWcagAA);
        int textPixels = 0;
        for (int y = box.top(); y < box.bottom(); ++y)
            for (int x = box.left() + 8; x < box.right(); ++x)
                textPixels += contrastRatio(QColor(img.pixel(x, y)), boxFill) > 3.0;
        QVERIFY2(textPixels > 40, qPrintable(QString::number(textPixels)));

        // selected kernel outlined (and linked to its launch) in the focus colour
        QVERIFY2(countPixels(img, plot, c.focus) > 8, qPrintable(c.focus.name()));
        // highlighted gaps: the strip on top of the idle lane in the (dark: lifted) highlight colour
        const QColor mark = c.dark ? c.selectionEdge.lighter(135) : c.selectionEdge;
        const int gapLane = view.index()->laneOfGaps(0);
        QVERIFY(gapLane >= 0);
        QVERIFY2(countPixels(img, plot, mark) > 3, qPrintable(mark.name()));
        VERIFY_CONTRAST(mark, c.background, 3.0);
    }
};

QTEST_MAIN(TestDarkTheme)
#include "tst_dark_theme.moc"
