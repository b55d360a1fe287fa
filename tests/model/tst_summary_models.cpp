// KernelSummaryModel and DeviceModel over a hand-built trace: values, formatting, numeric sorting through the
// SortRole (where text order would differ), and QAbstractItemModelTester on the models and their proxies.
#include <QAbstractItemModelTester>
#include <QSortFilterProxyModel>
#include <QTest>

#include "analysis/timeline/summary.h"
#include "model/device_model.h"
#include "model/kernel_summary_model.h"

using namespace sl;

namespace {

// gemm: 100, 100, 100 ns (300 total); norm: 9 ns once. GPU 0 busy [0,100) [50,150) [300,400); GPU 1 idle.
std::shared_ptr<const Summary> makeSummary(std::shared_ptr<Trace>* keep = nullptr)
{
    auto t = std::make_shared<Trace>();
    const uint16_t d0 = t->device_index(0);
    const uint16_t d1 = t->device_index(1);
    (void)d1;
    const StrId gemm = t->strings.intern("gemm_kernel");
    const StrId norm = t->strings.intern("rms_norm");
    const std::pair<int64_t, int64_t> spans[] = {{0, 100}, {50, 150}, {300, 400}};
    for (auto [s, e] : spans) {
        const size_t i = t->kernels.append(s, e, gemm);
        t->kernels.device[i] = d0;
    }
    const size_t n = t->kernels.append(391, 400, norm);
    t->kernels.device[n] = d0;
    t->finish();
    if (keep)
        *keep = t;
    return std::make_shared<const Summary>(summarize(*t));
}

} // namespace

class TestSummaryModels : public QObject {
    Q_OBJECT
private slots:
    void kernelRows()
    {
        KernelSummaryModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.rowCount(), 0);
        model.setSummary(makeSummary());
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.columnCount(), int(KernelSummaryModel::ColumnCount));
        auto cell = [&](int r, int c, int role = Qt::DisplayRole) { return model.data(model.index(r, c), role); };
        QCOMPARE(cell(0, KernelSummaryModel::Name).toString(), QStringLiteral("gemm_kernel"));
        QCOMPARE(cell(0, KernelSummaryModel::Total, KernelSummaryModel::SortRole).toLongLong(), 300LL);
        QCOMPARE(cell(0, KernelSummaryModel::Total).toString(), QStringLiteral("300 ns"));
        QCOMPARE(cell(0, KernelSummaryModel::Instances).toString(), QStringLiteral("3"));
        QCOMPARE(cell(1, KernelSummaryModel::Med).toString(), QStringLiteral("9 ns"));
        // Time % of summed kernel time: 300 / 309
        QCOMPARE(cell(0, KernelSummaryModel::TimePercent).toString(), QStringLiteral("97.1"));
        QVERIFY(qAbs(cell(1, KernelSummaryModel::TimePercent, KernelSummaryModel::SortRole).toDouble() -
                     100.0 * 9 / 309) < 1e-9);
        QVERIFY(!model.headerData(KernelSummaryModel::Name, Qt::Horizontal).toString().isEmpty());
        QCOMPARE(model.rowAt(2), nullptr);
        model.setSummary(nullptr);
        QCOMPARE(model.rowCount(), 0);
    }

    void sortsNumericallyThroughProxy()
    {
        KernelSummaryModel model;
        model.setSummary(makeSummary());
        QSortFilterProxyModel proxy;
        QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        proxy.setSourceModel(&model);
        proxy.setSortRole(KernelSummaryModel::SortRole);
        proxy.sort(KernelSummaryModel::Total, Qt::AscendingOrder);
        // As text "300 ns" < "9 ns"; as numbers 9 < 300.
        QCOMPARE(proxy.data(proxy.index(0, KernelSummaryModel::Name)).toString(), QStringLiteral("rms_norm"));
        proxy.sort(KernelSummaryModel::Total, Qt::DescendingOrder);
        QCOMPARE(proxy.data(proxy.index(0, KernelSummaryModel::Name)).toString(), QStringLiteral("gemm_kernel"));
        proxy.setFilterKeyColumn(KernelSummaryModel::Name);
        proxy.setFilterFixedString(QStringLiteral("norm"));
        QCOMPARE(proxy.rowCount(), 1);
    }

    void deviceRows()
    {
        DeviceModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setSummary(makeSummary());
        QCOMPARE(model.rowCount(), 2);
        auto raw = [&](int r, int c) { return model.data(model.index(r, c), DeviceModel::SortRole); };
        auto text = [&](int r, int c) { return model.data(model.index(r, c)).toString(); };
        // busy = [0,150) + [300,400) = 250 of a 400 ns window; one 150 ns gap.
        QCOMPARE(raw(0, DeviceModel::Window).toLongLong(), 400LL);
        QCOMPARE(raw(0, DeviceModel::Busy).toLongLong(), 250LL);
        QCOMPARE(raw(0, DeviceModel::Idle).toLongLong(), 150LL);
        QCOMPARE(raw(0, DeviceModel::Utilization).toDouble(), 0.625);
        QCOMPARE(text(0, DeviceModel::Utilization), QStringLiteral("62.5 %"));
        QCOMPARE(raw(0, DeviceModel::Gaps).toLongLong(), 1LL);
        QCOMPARE(raw(0, DeviceModel::GapTime).toLongLong(), 150LL);
        QCOMPARE(raw(0, DeviceModel::Kernels).toLongLong(), 4LL);
        QVERIFY(text(0, DeviceModel::Device).contains(QStringLiteral("0")));
        // the idle device is listed with zeros and a tooltip saying why
        QCOMPARE(raw(1, DeviceModel::Busy).toLongLong(), 0LL);
        QVERIFY(!model.data(model.index(1, DeviceModel::Device), Qt::ToolTipRole).toString().isEmpty());
        QVERIFY(!model.data(model.index(0, DeviceModel::Device), Qt::ToolTipRole).isValid());
    }
};

QTEST_GUILESS_MAIN(TestSummaryModels)
#include "tst_summary_models.moc"
