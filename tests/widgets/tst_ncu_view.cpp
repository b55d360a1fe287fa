// An Nsight Compute export opened alone (widgets/ncu_view.h): the real A100 GPT-2 details CSV read on the worker,
// one row per launch with the figures `sightline-cli ncu` prints (compute_ncu_metrics), sorting on the raw numbers,
// the Roofline of the launches (no roofs: the file's 108 SMs fit two A100 rows with different bandwidths), and
// row ↔ point selection both ways. QAbstractItemModelTester watches the launch model.
#include <QAbstractItemModelTester>
#include <QChartView>
#include <QFile>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QtTest>

#include "analysis/io/ncu_metrics.h"
#include "analysis/io/ncu_reader.h"
#include "analysis/roofline/ncu_match.h"
#include "model/ncu_launch_model.h"
#include "model/roofline_model.h"
#include "model/units.h"
#include "tests/support/qt_fixtures.h"
#include "widgets/ncu_view.h"
#include "widgets/roofline_view.h"

using namespace sl;

class TestNcuView : public QObject {
    Q_OBJECT
private:
    static QString a100()
    {
        const QByteArray dir = qgetenv("SIGHTLINE_SHARED_DATA");
        const QString p = QString::fromUtf8(dir) + QStringLiteral("/ncu/a100_gpt2_flashattn_details_ncu2021.csv");
        return dir.isEmpty() || !QFile::exists(p) ? QString() : p;
    }

private slots:
    void opensTheFileWithItsTableAndRoofline()
    {
        const QString path = a100();
        if (path.isEmpty())
            QSKIP("the A100 ncu CSV is not in SIGHTLINE_SHARED_DATA");
        NcuView view;
        QAbstractItemModelTester tester(view.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        view.resize(1280, 720);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QSignalSpy loaded(&view, &NcuView::loaded);
        view.open(path);
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 20000);
        QVERIFY(loaded.at(0).at(0).toBool());

        // One row per launch, as the reader gives them, with compute_ncu_metrics' figures.
        const NcuReport ncu = read_ncu(path.toStdString());
        NcuLaunchModel* m = view.model();
        QCOMPARE(m->rowCount(), int(ncu.launches.size()));
        for (int r = 0; r < m->rowCount(); ++r) {
            const NcuLaunchMetrics x = compute_ncu_metrics(ncu.launches[size_t(r)]);
            QCOMPARE(m->data(m->index(r, NcuLaunchModel::Id), NcuLaunchModel::SortRole).toLongLong(),
                     qlonglong(ncu.launches[size_t(r)].id));
            if (x.duration_ns)
                QCOMPARE(m->data(m->index(r, NcuLaunchModel::Duration)).toString(),
                         formatDuration(int64_t(std::llround(*x.duration_ns))));
            if (x.sm_throughput_pct)
                QCOMPARE(m->data(m->index(r, NcuLaunchModel::SmThroughput), NcuLaunchModel::SortRole).toDouble(),
                         *x.sm_throughput_pct);
        }
        // Sorting by duration is numeric (the table sorts on SortRole).
        view.table()->sortByColumn(NcuLaunchModel::Duration, Qt::DescendingOrder);
        auto* proxy = qobject_cast<QSortFilterProxyModel*>(view.table()->model());
        QVERIFY(proxy);
        for (int r = 1; r < proxy->rowCount(); ++r)
            QVERIFY(proxy->index(r - 1, NcuLaunchModel::Duration).data(NcuLaunchModel::SortRole).toDouble() >=
                    proxy->index(r, NcuLaunchModel::Duration).data(NcuLaunchModel::SortRole).toDouble());

        // The Roofline: a point per launch that has FLOPs, DRAM bytes and a duration. The file names no device and
        // no compute capability; its launches imply 108 SMs, which both A100 rows have (40GB PCIe, 1555 GB/s; 80GB
        // SXM, 2039 GB/s): the spec database never guesses between rows whose roofs differ, so no roofs are drawn,
        // and the line above the table says so rather than naming a GPU.
        RooflineView* roof = view.roofline();
        QVERIFY(roof->hasRoofline());
        const RooflineData& d = roof->model()->rooflineData();
        QCOMPARE(ncu_device_info(ncu).sm_count, 108);
        QVERIFY2(d.gpu_name.empty(), d.gpu_name.c_str());
        QVERIFY(d.roofs.empty());
        QVERIFY2(view.summaryText().contains(NcuView::tr("GPU not identified: no roofs")), qPrintable(view.summaryText()));
        int drawable = 0;
        for (const NcuLaunch& l : ncu.launches) {
            const NcuLaunchMetrics x = compute_ncu_metrics(l);
            drawable += x.flops_total && x.dram_bytes && x.duration_ns && *x.flops_total > 0 && *x.dram_bytes > 0 &&
                        *x.duration_ns > 0;
        }
        QCOMPARE(int(d.points.size()), drawable);
        QVERIFY(drawable > 0);

        // A point clicked selects its row; a row selected highlights its point.
        const int pointRow = 0;
        const int64_t launchId = d.points[size_t(pointRow)].ncu_launch;
        QVERIFY(launchId >= 0);
        QTest::mouseClick(roof->chartView()->viewport(), Qt::LeftButton, Qt::NoModifier, roof->viewportPosition(pointRow));
        const QModelIndex current = view.table()->selectionModel()->currentIndex();
        QVERIFY(current.isValid());
        QCOMPARE(current.siblingAtColumn(0).data(NcuLaunchModel::LaunchIdRole).toLongLong(), qlonglong(launchId));
        const int other = d.points.size() > 1 ? 1 : 0;
        const int otherRow = m->rowOfLaunch(d.points[size_t(other)].ncu_launch);
        view.table()->selectionModel()->setCurrentIndex(proxy->mapFromSource(m->index(otherRow, 0)),
                                                        QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        QCOMPARE(roof->highlightedRow(), other);
        QVERIFY(view.grab().save(testing::scratchDir(QStringLiteral("ncu_view")) + QStringLiteral("/ncu_view_1280x720.png")));
    }

    void aBadFileSaysWhy()
    {
        const QString dir = testing::scratchDir(QStringLiteral("ncu_view"));
        NcuView view;
        QSignalSpy loaded(&view, &NcuView::loaded);
        view.open(dir + QStringLiteral("/missing.csv"));
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 10000);
        QVERIFY(!loaded.at(0).at(0).toBool());
        QVERIFY2(loaded.at(0).at(1).toString().contains(QStringLiteral("missing.csv")),
                 qPrintable(loaded.at(0).at(1).toString()));
    }
};

QTEST_MAIN(TestNcuView)
#include "tst_ncu_view.moc"
