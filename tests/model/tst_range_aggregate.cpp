// The aggregate table of a time range (Shift+drag on the timeline): per operator class and per kernel name (count,
// time inside the range, average, share), copies and memsets per kind, API calls per name — checked against a brute
// force over the trace's tables, on the generator's decode preset; the item model (QAbstractItemModelTester), its
// worker and its TSV.
#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTest>

#include <map>

#include "analysis/io/synthetic.h"
#include "analysis/timeline/analysis.h"
#include "model/range_stats_model.h"
#include "model/timeline_index.h"
#include "model/workbench_settings.h"

using namespace sl;

class TestRangeAggregate : public QObject {
    Q_OBJECT
    std::shared_ptr<const Trace> trace_;
    std::shared_ptr<const TimelineIndex> index_;
    std::shared_ptr<const AnalysisResult> analysis_;

    struct Acc {
        int64_t count = 0, ns = 0, bytes = 0;
    };
    static int64_t inside(int64_t s, int64_t e, int64_t from, int64_t to)
    {
        return std::max<int64_t>(0, std::min(e, to) - std::max(s, from));
    }
    static bool overlaps(int64_t s, int64_t e, int64_t from, int64_t to)
    {
        return (s < to && e > from) || (s == e && s >= from && s < to);
    }

private slots:
    void initTestCase()
    {
        trace_ = std::make_shared<const Trace>(make_synthetic_trace(synth_preset("decode")));
        index_ = TimelineIndex::build(trace_);
        analysis_ = std::make_shared<const AnalysisResult>(analyze(*trace_, AnalysisOptions{}));
    }

    void equalsBruteForce_data()
    {
        QTest::addColumn<double>("from");
        QTest::addColumn<double>("to");
        QTest::newRow("everything") << -0.1 << 1.1;
        QTest::newRow("a third") << 0.3 << 0.63;
        QTest::newRow("a sliver") << 0.5 << 0.5004;
    }
    void equalsBruteForce()
    {
        QFETCH(double, from);
        QFETCH(double, to);
        const Trace& t = *trace_;
        const int64_t span = index_->end() - index_->start();
        const int64_t a0 = index_->start() + int64_t(from * double(span)), a1 = index_->start() + int64_t(to * double(span));
        const RangeAggregate a = aggregateRange(*index_, analysis_.get(), a0, a1);
        std::map<std::string, Acc> names, classes, copies, api;
        int64_t kernelNs = 0, kernels = 0;
        for (size_t i = 0; i < t.kernels.size(); ++i) {
            if (!overlaps(t.kernels.start[i], t.kernels.end[i], a0, a1))
                continue;
            const int64_t ns = inside(t.kernels.start[i], t.kernels.end[i], a0, a1);
            ++kernels;
            kernelNs += ns;
            Acc& n = names[std::string(t.str(t.kernels.short_name[i]))];
            ++n.count;
            n.ns += ns;
            Acc& c = classes[analysis_->classes.classes[size_t(analysis_->classes.kernel_class[i])].id];
            ++c.count;
            c.ns += ns;
        }
        for (size_t i = 0; i < t.memcpy.size(); ++i)
            if (overlaps(t.memcpy.start[i], t.memcpy.end[i], a0, a1)) {
                Acc& c = copies[copy_kind_label(t.memcpy.copy_kind[i])];
                ++c.count;
                c.ns += inside(t.memcpy.start[i], t.memcpy.end[i], a0, a1);
                c.bytes += int64_t(t.memcpy.bytes[i]);
            }
        for (size_t i = 0; i < t.api.size(); ++i)
            if (overlaps(t.api.start[i], t.api.end[i], a0, a1)) {
                Acc& c = api[std::string(t.str(t.api.name[i]))];
                ++c.count;
                c.ns += inside(t.api.start[i], t.api.end[i], a0, a1);
            }
        QCOMPARE(a.kernels, kernels);
        QCOMPARE(a.kernel_ns, kernelNs);
        std::map<std::string, Acc>* groups[] = {&classes, &names, &copies, &api};
        size_t rows = 0;
        for (const auto* g : groups)
            rows += g->size();
        QCOMPARE(a.rows.size(), rows);
        int64_t last[4] = {INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX};
        int lastGroup = 0;
        for (const RangeAggregate::Row& r : a.rows) {
            const int g = int(r.group);
            QVERIFY(g >= lastGroup);   // classes, kernels, copies, API calls
            if (g != lastGroup)
                lastGroup = g;
            QVERIFY(r.time_ns <= last[g]);   // largest first within a group
            last[g] = r.time_ns;
            const auto it = groups[g]->find(r.name);
            QVERIFY2(it != groups[g]->end(), r.name.c_str());
            QCOMPARE(r.count, it->second.count);
            QCOMPARE(r.time_ns, it->second.ns);
            QCOMPARE(r.bytes, it->second.bytes);
            QCOMPARE(r.average_ns(), r.count ? r.time_ns / r.count : 0);
            const int64_t total = g <= 1 ? a.kernel_ns : g == 2 ? a.copy_ns : a.api_ns;
            QVERIFY(std::fabs(r.share - (total ? double(r.time_ns) / double(total) : 0.0)) < 1e-12);
        }
        if (from < 0)
            QVERIFY(classes.size() >= 3 && copies.size() >= 1 && api.size() >= 1);
    }

    // The model: QAbstractItemModelTester through a computation on the worker and a reset; the TSV has a header and
    // one line per row with the raw numbers.
    void modelAndTsv()
    {
        RangeStatsModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy ready(&model, &RangeStatsModel::ready);
        const int64_t span = index_->end() - index_->start();
        const int64_t a0 = index_->start() + span / 4, a1 = index_->start() + span / 2;
        model.setRange(index_, analysis_, a0, a1);
        QVERIFY(model.isComputing());
        QTRY_COMPARE(ready.count(), 1);
        // Classes by their label in the interface's language, as the model names them.
        std::vector<std::string> labels;
        for (const OpClassTotals& c : analysis_->classes.classes)
            labels.push_back(opClassLabel(c).toStdString());
        const RangeAggregate want = aggregateRange(*index_, analysis_.get(), a0, a1, labels);
        QCOMPARE(model.rowCount(), int(want.rows.size()));
        QCOMPARE(model.data(model.index(0, RangeStatsModel::Group)).toString(), RangeStatsModel::groupLabel(RangeAggregate::Group::Class));
        QVERIFY(model.rowCount() > 5);
        for (int r = 0; r < model.rowCount(); ++r) {
            QCOMPARE(model.data(model.index(r, RangeStatsModel::Count), RangeStatsModel::SortRole).toLongLong(),
                     qlonglong(want.rows[size_t(r)].count));
            QCOMPARE(model.data(model.index(r, RangeStatsModel::Time), RangeStatsModel::SortRole).toLongLong(),
                     qlonglong(want.rows[size_t(r)].time_ns));
        }
        const QStringList lines = model.toTsv().trimmed().split(QLatin1Char('\n'));
        QCOMPARE(lines.size(), model.rowCount() + 1);
        for (int r = 0; r < model.rowCount(); ++r) {
            const QStringList cells = lines[r + 1].split(QLatin1Char('\t'));
            QCOMPARE(cells.size(), 7);
            QCOMPARE(cells[1], QString::fromStdString(want.rows[size_t(r)].name));
            QCOMPARE(cells[2].toLongLong(), qlonglong(want.rows[size_t(r)].count));
            QCOMPARE(cells[3].toLongLong(), qlonglong(want.rows[size_t(r)].time_ns));
        }
        // A newer range supersedes one still being summed; a null index clears.
        model.setRange(index_, analysis_, a0, a1);
        model.setRange(index_, analysis_, a0, a0 + span / 100);
        QTRY_COMPARE(ready.count(), 2);
        QCOMPARE(model.aggregate().to, a0 + span / 100);
        QTest::qWait(50);
        QCOMPARE(ready.count(), 2);
        model.setRange(nullptr, nullptr, 0, 0);
        QCOMPARE(model.rowCount(), 0);
    }
};

QTEST_MAIN(TestRangeAggregate)
#include "tst_range_aggregate.moc"
