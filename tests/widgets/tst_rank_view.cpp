// The rank view (issue 38 §4): a folder of 16 generated ranks opened in the assembled workbench window (what File ›
// Open Ranks Folder… and `sightline DIR/` call) is mapped and merged in the background; the Ranks pane's heat map has
// a row per rank and a column per step, the lateness map a column per collective, both models pass
// QAbstractItemModelTester, the planted straggler's finding is in the Findings pane, and a click on a step cell opens
// that rank's trace with the timeline showing that step.
#include <QAbstractItemModelTester>
#include <QApplication>
#include <QDockWidget>
#include <QFile>
#include <QFileInfo>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

#include "analysis/io/kineto_writer.h"
#include "analysis/io/synthetic.h"
#include "analysis/io/synthetic_ranks.h"
#include "analysis/report/rank_partial.h"
#include "analysis/timeline/analysis.h"
#include "main_window.h"
#include "model/document.h"
#include "model/rank_heat_model.h"
#include "model/rank_job.h"
#include "tests/support/planted_rank.h"
#include "tests/support/qt_fixtures.h"
#include "widgets/rank_heat_map.h"
#include "widgets/rank_view.h"
#include "widgets/timeline_view.h"

using namespace sl;

namespace {

constexpr int kWorld = 16;
constexpr int kStraggler = 5;

Trace generatedRank(int rank) { return test::planted_rank(rank, kWorld, kStraggler, 8'000, 2); }

} // namespace

class TestRankView : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QApplication::setOrganizationName(QStringLiteral("SightlineTest"));
        QApplication::setApplicationName(QStringLiteral("tst_rank_view"));
        qApp->setProperty("sightlineNoDialogs", true);   // no message boxes
        QVERIFY(dir_.isValid());
        for (int r = 0; r < kWorld; ++r)
            write_kineto_json(generatedRank(r), dir_.filePath(QStringLiteral("rank%1.json").arg(r)).toStdString());
        // What the rank view must show: a column per step of a rank, as its own analysis counts them.
        const Trace t = generatedRank(0);
        steps_ = static_cast<int>(make_rank_partial(t, analyze(t, AnalysisOptions{}), "rank0").steps.wall_ns.size());
        QVERIFY(steps_ > 0);
    }

    void rankFilesInNaturalOrder()
    {
        const QStringList files = RankJob::rankFiles(dir_.path());
        QCOMPARE(files.size(), kWorld);
        QVERIFY(files[2].endsWith(QLatin1String("rank2.json")));
        QVERIFY(files[10].endsWith(QLatin1String("rank10.json")));
    }

    void folderOpensAsHeatMapsAndClickOpensTheRankAtItsStep()
    {
        MainWindow w;
        w.resize(1366, 768);
        w.show();
        QSignalSpy opened(&w, &MainWindow::ranksOpened);
        w.openFiles({dir_.path()});   // a folder on the command line opens as ranks
        QVERIFY(opened.wait(120'000));
        QCOMPARE(opened.first().first().toBool(), true);

        RankView* view = w.rankView();
        RankHeatModel* steps = view->stepModel();
        RankHeatModel* lateness = view->latenessModel();
        QAbstractItemModelTester stepTester(steps, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester lateTester(lateness, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(steps->rowCount(), kWorld);
        QCOMPARE(steps->columnCount(), steps_);
        QCOMPARE(lateness->rowCount(), kWorld);
        QVERIFY(lateness->columnCount() > 0);
        for (int r = 0; r < kWorld; ++r) {
            QCOMPARE(steps->rankOfRow(r), r);
            QVERIFY(std::isfinite(steps->value(r, 0)));
        }
        // The straggler is late at every collective by the planted 8 µs; the others are on time.
        QVERIFY(std::abs(lateness->value(kStraggler, 0) - 8'000.0) < 400.0);
        QCOMPARE(lateness->value(0, 0), 0.0);
        // The cross-rank findings in the Findings pane, the straggler first.
        const auto diagnosis = w.document()->diagnosis();
        QVERIFY(diagnosis);
        QVERIFY(!diagnosis->eval.findings.empty());
        QCOMPARE(QString::fromStdString(diagnosis->eval.findings.front().rule), QStringLiteral("straggler-rank"));
        QVERIFY(QString::fromStdString(diagnosis->eval.findings.front().title.en).startsWith(QLatin1String("Rank 5 ")));

        // Click rank 7's step 3: rank 7's trace opens and the timeline shows that step.
        const int row = 7, column = std::min(3, steps_ - 1);
        const qint64 start = steps->cellStart(row, column), end = steps->cellEnd(row, column);
        QVERIFY(end > start);
        QSignalSpy loaded(&w, &MainWindow::jobFinished);
        RankHeatMap* map = view->stepMap();
        w.findChild<QDockWidget*>(QStringLiteral("ranksDock"))->raise();
        QTRY_VERIFY(map->isVisible());
        QTest::mouseClick(map, Qt::LeftButton, {}, map->cellCentre(row, column));
        QVERIFY(loaded.wait(60'000));
        QCOMPARE(loaded.first().first().toBool(), true);
        QVERIFY(w.document()->paths().first().endsWith(QLatin1String("rank7.json")));
        QTRY_VERIFY(w.timeline()->window().start <= start && w.timeline()->window().end >= end);
        QVERIFY(w.timeline()->window().duration() < 2 * (end - start));
    }

    // Cancel (the status bar's button) stops the job: ranksOpened(false), the status says so, no maps.
    void cancelStopsTheJob()
    {
        MainWindow w;
        QSignalSpy opened(&w, &MainWindow::ranksOpened);
        w.openRanksFolder(dir_.path());
        w.rankJob()->cancel();
        QVERIFY(opened.wait(60'000));
        QCOMPARE(opened.first().first().toBool(), false);
        QCOMPARE(w.rankView()->stepModel()->rowCount(), 0);
        QVERIFY(!w.rankJob()->isRunning());
    }

    // Partials written by `analyze --partial` beside their traces stand for them (nothing is re-read), and a click
    // still finds the trace: the partial names it as analyze was given it (here a bare file name).
    void partialsStandForTheirTraces()
    {
        QTemporaryDir folder(testing::testTmpRoot() + QStringLiteral("/rank_view_partials_XXXXXX"));
        for (int r = 0; r < 4; ++r) {
            const Trace t = generatedRank(r);
            const QString trace = folder.filePath(QStringLiteral("rank%1.json").arg(r));
            write_kineto_json(t, trace.toStdString());
            RankPartial p = make_rank_partial(t, analyze(t, AnalysisOptions{}), QStringLiteral("rank%1.json").arg(r).toStdString());
            const std::string path = folder.filePath(QStringLiteral("rank%1.partial.json").arg(r)).toStdString();
            const std::string bytes = rank_partial_file_bytes(p, path);
            QFile out(QString::fromStdString(path));
            QVERIFY(out.open(QIODevice::WriteOnly));
            out.write(bytes.data(), qint64(bytes.size()));
        }
        const QStringList files = RankJob::rankFiles(folder.path());
        QCOMPARE(files.size(), 4);
        for (const QString& f : files)
            QVERIFY2(f.endsWith(QLatin1String(".partial.json")), qPrintable(f));
        MainWindow w;
        QSignalSpy opened(&w, &MainWindow::ranksOpened);
        w.openRanksFolder(folder.path());
        QVERIFY(opened.wait(60'000));
        QCOMPARE(opened.first().first().toBool(), true);
        const auto data = w.rankView()->stepModel()->rankData();
        QVERIFY(data);
        QCOMPARE(w.rankView()->stepModel()->rowCount(), 4);
        for (const std::string& t : data->grid.traces)
            QVERIFY2(QFileInfo::exists(QString::fromStdString(t)), t.c_str());
    }

    // A folder without traces says so instead of showing empty maps.
    void emptyFolderFails()
    {
        QTemporaryDir empty(testing::testTmpRoot() + QStringLiteral("/rank_view_empty_XXXXXX"));
        MainWindow w;
        QSignalSpy opened(&w, &MainWindow::ranksOpened);
        w.openRanksFolder(empty.path());
        QVERIFY(opened.wait(10'000));
        QCOMPARE(opened.first().first().toBool(), false);
    }

private:
    QTemporaryDir dir_{testing::testTmpRoot() + QStringLiteral("/rank_view_XXXXXX")};
    int steps_ = 0;
};

QTEST_MAIN(TestRankView)
#include "tst_rank_view.moc"
