// The Overview pane in a narrow dock: its text (headline, top findings, the numbers' tables) reflows to the pane's
// width — no horizontal scroll bar, nothing laid out past the right edge — at widths from a side dock's minimum
// up, on the real pipeline's results for a planted decode trace.
#include <QLabel>
#include <QLayout>
#include <QScrollBar>
#include <QTest>

#include "tests/support/qt_fixtures.h"
#include "widgets/overview_panel.h"

using namespace sl;

class TestOverviewReflow : public QObject {
    Q_OBJECT
private slots:
    void textReflowsToTheWidth()
    {
        auto result = testing::runShippedRules(testing::plantedDecode());
        OverviewPanel overview;
        overview.setData(testing::partOf(result, &result->summary), testing::analysisOf(result), result->trace);
        overview.setDiagnosis(testing::diagnosisOf(result));
        overview.show();
        int previousHeight = 0;
        for (int width : {900, 420, 300, 240}) {
            overview.resize(width, 700);
            QCoreApplication::processEvents();
            QVERIFY(!overview.horizontalScrollBar()->isVisible());
            // every label fits the viewport's width: the text wrapped instead of running past the edge
            for (const QLabel* l : overview.widget()->findChildren<QLabel*>()) {
                if (l->isHidden() || l->text().isEmpty())
                    continue;
                QVERIFY2(l->geometry().right() <= overview.viewport()->width(),
                         qPrintable(QStringLiteral("%1 at %2 px: label %3 px wide").arg(l->objectName()).arg(width).arg(l->width())));
                // the narrowest its text can be laid out (nowrap values, the longest word) fits
                QVERIFY2(l->minimumSizeHint().width() <= overview.viewport()->width(),
                         qPrintable(QStringLiteral("%1 needs %2 px at %3").arg(l->objectName()).arg(l->minimumSizeHint().width()).arg(width)));
            }
            // narrower means taller (it wrapped), not clipped
            const int h = overview.widget()->layout()->totalHeightForWidth(overview.viewport()->width());
            QVERIFY(h >= previousHeight);
            previousHeight = h;
        }
    }
};

QTEST_MAIN(TestOverviewReflow)
#include "tst_overview_reflow.moc"
