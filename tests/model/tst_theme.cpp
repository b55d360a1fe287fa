// Theme: applyTheme("light"/"dark") installs a complete palette under the Fusion style, "system" restores the
// platform's look; the colours the views derive from the palette (widgets/palette.h) keep text readable (WCAG
// contrast ≥ 4.5) in both themes; charts take the palette's colours.
#include <QAbstractAxis>
#include <QApplication>
#include <QChart>
#include <QLineSeries>
#include <QStyle>
#include <QTest>
#include <QValueAxis>
#include <QDir>
#include <QWidget>

#include "analysis/timeline/analysis.h"
#include "analysis/io/synthetic.h"
#include "model/selection.h"
#include "model/theme.h"
#include "model/timeline_index.h"
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

} // namespace

class TestTheme : public QObject {
    Q_OBJECT
private:
    QPalette startPalette_;
    QString startStyle_;

private slots:
    void initTestCase()
    {
        startPalette_ = QApplication::palette();
        startStyle_ = QApplication::style()->name();
    }
    void cleanup() { applyTheme(QStringLiteral("system")); }

    void wcagFormula()
    {
        // Reference values of the WCAG 2.x definition.
        QCOMPARE(relativeLuminance(Qt::white), 1.0);
        QCOMPARE(relativeLuminance(Qt::black), 0.0);
        QCOMPARE(contrastRatio(Qt::black, Qt::white), 21.0);
        QCOMPARE(contrastRatio(Qt::white, Qt::black), 21.0);
        QCOMPARE(contrastRatio(QColor(0x77, 0x77, 0x77), Qt::white) < 4.5, true);   // the classic #777 fails AA (4.48)
        QVERIFY(qAbs(contrastRatio(QColor(0x77, 0x77, 0x77), Qt::white) - 4.48) < 0.01);
        QVERIFY(qAbs(contrastRatio(QColor(0x76, 0x76, 0x76), Qt::white) - 4.54) < 0.01);
    }

    void palettesAreComplete_data()
    {
        QTest::addColumn<bool>("dark");
        QTest::newRow("light") << false;
        QTest::newRow("dark") << true;
    }
    void palettesAreComplete()
    {
        QFETCH(bool, dark);
        const QPalette p = dark ? darkPalette() : lightPalette();
        for (int g : {QPalette::Active, QPalette::Inactive, QPalette::Disabled})
            for (int r = 0; r < QPalette::NColorRoles; ++r) {
                if (r == QPalette::NoRole)
                    continue;
                QVERIFY2(p.isBrushSet(QPalette::ColorGroup(g), QPalette::ColorRole(r)),
                         qPrintable(QStringLiteral("group %1 role %2 not set").arg(g).arg(r)));
            }
        QCOMPARE(isDark(p), dark);
        // Readable pairs of the palette itself.
        VERIFY_CONTRAST(p.color(QPalette::WindowText), p.color(QPalette::Window), kWcagAA);
        VERIFY_CONTRAST(p.color(QPalette::Text), p.color(QPalette::Base), kWcagAA);
        VERIFY_CONTRAST(p.color(QPalette::Text), p.color(QPalette::AlternateBase), kWcagAA);
        VERIFY_CONTRAST(p.color(QPalette::ButtonText), p.color(QPalette::Button), kWcagAA);
        VERIFY_CONTRAST(p.color(QPalette::HighlightedText), p.color(QPalette::Highlight), kWcagAA);
        VERIFY_CONTRAST(p.color(QPalette::ToolTipText), p.color(QPalette::ToolTipBase), kWcagAA);
        VERIFY_CONTRAST(p.color(QPalette::Link), p.color(QPalette::Base), kWcagAA);
        VERIFY_CONTRAST(p.color(QPalette::LinkVisited), p.color(QPalette::Base), kWcagAA);
        VERIFY_CONTRAST(p.color(QPalette::PlaceholderText), p.color(QPalette::Base), kWcagAA);
        // Disabled text is visibly fainter than enabled text, yet not invisible.
        const double enabled = contrastRatio(p.color(QPalette::Text), p.color(QPalette::Base));
        const double disabled = contrastRatio(p.color(QPalette::Disabled, QPalette::Text),
                                              p.color(QPalette::Disabled, QPalette::Base));
        QVERIFY(disabled < enabled / 1.5);
        QVERIFY(disabled >= 2.0);
    }

    void darkSwitchesAppAndWidgets()
    {
        QWidget w;
        applyTheme(QStringLiteral("dark"));
        QCOMPARE(currentTheme(), QStringLiteral("dark"));
        const QPalette app = QApplication::palette();
        QVERIFY(app.color(QPalette::Window).lightnessF() < 0.25);
        QVERIFY(app.color(QPalette::WindowText).lightnessF() > 0.75);
        QVERIFY(app.color(QPalette::Base).lightnessF() < 0.25);
        QVERIFY(app.color(QPalette::Text).lightnessF() > 0.75);
        QVERIFY(isDark());
        QCOMPARE(QApplication::style()->name().toLower(), QStringLiteral("fusion"));
        // Widgets follow the application palette (on the next turn of the event loop, as Qt delivers it).
        QTRY_COMPARE(w.palette().color(QPalette::Base), darkPalette().color(QPalette::Base));

        applyTheme(QStringLiteral("light"));
        QVERIFY(!isDark());
        QCOMPARE(QApplication::palette().color(QPalette::Window), lightPalette().color(QPalette::Window));
        QTRY_COMPARE(w.palette().color(QPalette::Text), lightPalette().color(QPalette::Text));
    }

    void systemRestoresThePlatformLook()
    {
        applyTheme(QStringLiteral("dark"));
        applyTheme(QStringLiteral("system"));
        QCOMPARE(currentTheme(), QStringLiteral("system"));
        QCOMPARE(QApplication::style()->name(), startStyle_);
        QCOMPARE(QApplication::palette().color(QPalette::Window), startPalette_.color(QPalette::Window));
        QCOMPARE(QApplication::palette().color(QPalette::Text), startPalette_.color(QPalette::Text));
        QCOMPARE(isDark(), isDark(startPalette_));
        // Unknown modes mean "system".
        applyTheme(QStringLiteral("dark"));
        applyTheme(QStringLiteral("purple"));
        QCOMPARE(currentTheme(), QStringLiteral("system"));
        QCOMPARE(QApplication::palette().color(QPalette::Window), startPalette_.color(QPalette::Window));
    }

    void viewColorsAreReadable_data()
    {
        QTest::addColumn<QString>("mode");
        QTest::newRow("light") << QStringLiteral("light");
        QTest::newRow("dark") << QStringLiteral("dark");
        QTest::newRow("system") << QStringLiteral("system");
    }
    void viewColorsAreReadable()
    {
        QFETCH(QString, mode);
        applyTheme(mode);
        QWidget w;
        const ViewColors c = viewColors(w.palette());
        QCOMPARE(c.dark, mode == QLatin1String("dark") || (mode == QLatin1String("system") && isDark(startPalette_)));
        VERIFY_CONTRAST(c.text, c.background, kWcagAA);
        VERIFY_CONTRAST(c.text, c.laneAlternate, kWcagAA);
        VERIFY_CONTRAST(c.headerText, c.header, kWcagAA);
        VERIFY_CONTRAST(c.tooltipText, c.tooltipBackground, kWcagAA);
        // Lines and blocks need less than text (WCAG 1.4.11 non-text contrast: 3), the grid only has to show.
        VERIFY_CONTRAST(c.tick, c.background, 2.0);
        VERIFY_CONTRAST(c.focus, c.background, mode == QLatin1String("dark") ? 3.0 : 2.0);
        VERIFY_CONTRAST(c.mergedRun, c.background, 3.0);
        QVERIFY(contrastRatio(c.grid, c.background) > 1.05);
        QVERIFY(contrastRatio(c.grid, c.background) < contrastRatio(c.tick, c.background));
        // The selection tint keeps the text on it readable.
        QColor tinted = c.background;
        const double a = c.selectionFill.alphaF();
        tinted.setRgbF(float(c.background.redF() * (1 - a) + c.selectionFill.redF() * a),
                       float(c.background.greenF() * (1 - a) + c.selectionFill.greenF() * a),
                       float(c.background.blueF() * (1 - a) + c.selectionFill.blueF() * a));
        VERIFY_CONTRAST(c.text, tinted, kWcagAA);
    }

    void labelsOnDataColoursAreReadable()
    {
        // Labels drawn on kernel blocks pick black or white per block colour: readable for every class colour.
        const QStringList keys = {QStringLiteral("gemm"), QStringLiteral("attention"), QStringLiteral("norm"),
                                  QStringLiteral("elementwise"), QStringLiteral("reduction"), QStringLiteral("memcpy"),
                                  QStringLiteral("communication"), QStringLiteral("sampling"), QStringLiteral("rope"),
                                  QStringLiteral("activation"), QStringLiteral("other"), QStringLiteral("embedding")};
        for (const QString& k : keys) {
            const QColor fill = colorForKey(k);
            VERIFY_CONTRAST(textOn(fill), fill, kWcagAA);
        }
        QCOMPARE(textOn(QColor(255, 230, 0)), QColor(20, 20, 20));
        QCOMPARE(textOn(QColor(0, 0, 90)), QColor(250, 250, 250));
    }

    void timelineFollowsTheTheme_data()
    {
        QTest::addColumn<QString>("mode");
        QTest::newRow("light") << QStringLiteral("light");
        QTest::newRow("dark") << QStringLiteral("dark");
    }
    void timelineFollowsTheTheme()
    {
        // The timeline paints from its palette: after a switch its background is the theme's, and its labels are
        // drawn in the theme's text colour. The picture goes to test-tmp/screens for a look.
        QFETCH(QString, mode);
        SynthOptions o = synth_preset("decode");
        o.decode_steps = 3;
        auto trace = std::make_shared<const Trace>(make_synthetic_trace(o));
        Selection sel;
        TimelineView view(&sel);
        view.setIndex(TimelineIndex::build(trace));
        view.setAnalysis(std::make_shared<const AnalysisResult>(analyze(*trace, AnalysisOptions{})));
        view.resize(1000, 420);
        view.show();
        applyTheme(mode);
        QTRY_COMPARE(view.palette().color(QPalette::Base),
                     (mode == QLatin1String("dark") ? darkPalette() : lightPalette()).color(QPalette::Base));
        const QImage img = view.grab().toImage();
        const QString dir = qEnvironmentVariable("SIGHTLINE_TEST_TMP", QDir::tempPath()) + QStringLiteral("/screens");
        QDir().mkpath(dir);
        img.save(dir + QStringLiteral("/timeline_%1.png").arg(mode));
        const ViewColors c = viewColors(view.palette());
        // The bottom-right corner is empty plot area (below the last lane) and the lane-label column shows header.
        QCOMPARE(QColor(img.pixel(img.width() - 3, img.height() - 3)), c.background);
        // Some pixels of the label column carry the text colour (lane titles are drawn there).
        int textPixels = 0;
        for (int y = TimelineView::kAxisHeight; y < img.height(); ++y)
            for (int x = 0; x < 120; ++x)
                textPixels += contrastRatio(QColor(img.pixel(x, y)), c.header) > 3.0;
        QVERIFY2(textPixels > 50, qPrintable(QString::number(textPixels)));
    }

    void chartsTakeThePalette()
    {
        QChart chart;
        auto* series = new QLineSeries;
        series->append(0, 1);
        series->append(1, 2);
        chart.addSeries(series);
        auto* x = new QValueAxis;
        auto* y = new QValueAxis;
        chart.addAxis(x, Qt::AlignBottom);
        chart.addAxis(y, Qt::AlignLeft);
        const QPalette dark = darkPalette();
        applyChartColors(&chart, dark);
        QCOMPARE(chart.backgroundBrush().color(), dark.color(QPalette::Window));
        QCOMPARE(chart.plotAreaBackgroundBrush().color(), dark.color(QPalette::Base));
        for (QAbstractAxis* a : chart.axes()) {
            QCOMPARE(a->labelsColor(), dark.color(QPalette::WindowText));
            VERIFY_CONTRAST(a->labelsColor(), chart.backgroundBrush().color(), kWcagAA);
        }
        QCOMPARE(chart.legend()->labelColor(), dark.color(QPalette::WindowText));
    }
};

QTEST_MAIN(TestTheme)
#include "tst_theme.moc"
