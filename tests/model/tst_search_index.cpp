// SearchIndex (find on the timeline) against brute-force scans of the same generated trace: every kernel, NVTX range
// and API call whose name matches is found once, in its own lane, in time order; regular expressions and case work;
// a query costs the distinct names, not the rows.
#include <QElapsedTimer>
#include <QRegularExpression>
#include <QTest>
#include <functional>
#include <set>

#include "analysis/io/synthetic.h"
#include "model/search_index.h"
#include "model/timeline_index.h"

using namespace sl;

class TestSearchIndex : public QObject {
    Q_OBJECT

    std::shared_ptr<const Trace> trace_;
    std::shared_ptr<const TimelineIndex> index_;
    std::shared_ptr<const SearchIndex> search_;

    // Brute force: every (kind, row) whose name matches, over the trace's tables.
    std::set<std::pair<int, uint32_t>> oracle(const std::function<bool(const QString&)>& match) const
    {
        std::set<std::pair<int, uint32_t>> out;
        const Trace& t = *trace_;
        auto name = [&t](StrId id) {
            const auto v = t.strings.view(id);
            return QString::fromUtf8(v.data(), qsizetype(v.size()));
        };
        for (uint32_t i = 0; i < t.kernels.size(); ++i)
            if (match(name(t.kernels.name[i])))
                out.insert({int(ItemKind::Kernel), i});
        for (uint32_t i = 0; i < t.ranges.size(); ++i)
            if (match(name(t.ranges.name[i])))
                out.insert({int(ItemKind::Range), i});
        for (uint32_t i = 0; i < t.api.size(); ++i)
            if (match(name(t.api.name[i])))
                out.insert({int(ItemKind::Api), i});
        return out;
    }

    std::set<std::pair<int, uint32_t>> found(const SearchMatches& m) const
    {
        std::set<std::pair<int, uint32_t>> out;
        for (const SearchHit& h : m.ordered) {
            const ItemRef r = index_->ref(index_->lanes()[h.lane], h.item);
            out.insert({int(r.kind), r.row});
        }
        return out;
    }

    void checkShape(const SearchMatches& m) const
    {
        // Time order, and per lane the same items as `ordered`, ascending.
        size_t perLane = 0;
        for (size_t i = 1; i < m.ordered.size(); ++i)
            QVERIFY(m.ordered[i - 1].start <= m.ordered[i].start);
        for (size_t l = 0; l < m.perLane.size(); ++l) {
            QVERIFY(std::is_sorted(m.perLane[l].begin(), m.perLane[l].end()));
            perLane += m.perLane[l].size();
        }
        QCOMPARE(perLane, m.ordered.size());
        for (const SearchHit& h : m.ordered)
            QCOMPARE(h.start, index_->itemStart(index_->lanes()[h.lane], h.item));
        QCOMPARE(size_t(m.kernels + m.ranges + m.apiCalls), m.ordered.size());
    }

private slots:
    void initTestCase()
    {
        SynthOptions so = synth_preset("decode");
        trace_ = std::make_shared<const Trace>(make_synthetic_trace(so));
        index_ = TimelineIndex::build(trace_);
        QElapsedTimer t;
        t.start();
        search_ = SearchIndex::build(index_);
        qInfo("index over %zu kernels, %zu API calls, %zu ranges: %zu names in %lld ms", trace_->kernels.size(),
              trace_->api.size(), trace_->ranges.size(), search_->distinctNames(), t.elapsed());
        QVERIFY(trace_->kernels.size() > 1000 && trace_->ranges.size() > 0 && trace_->api.size() > 0);
    }

    void substringMatchesTheBruteForceScan_data()
    {
        QTest::addColumn<QString>("text");
        QTest::newRow("kernel family") << QStringLiteral("gemm");
        QTest::newRow("case-insensitive") << QStringLiteral("RMS_NORM");
        QTest::newRow("nvtx") << QStringLiteral("layer 3");
        QTest::newRow("api") << QStringLiteral("cudaLaunchKernel");
        QTest::newRow("nothing") << QStringLiteral("no such name qzx");
    }
    void substringMatchesTheBruteForceScan()
    {
        QFETCH(QString, text);
        const auto m = search_->find(text, {});
        const auto want = oracle([&](const QString& n) { return n.contains(text, Qt::CaseInsensitive); });
        QCOMPARE(found(*m), want);
        QCOMPARE(m->ordered.size(), want.size());   // each instance once
        checkShape(*m);
        if (text == QLatin1String("no such name qzx"))
            QVERIFY(m->empty());
        else
            QVERIFY(!m->empty());
    }

    void regexAndCase()
    {
        SearchIndex::Options o;
        o.regex = true;
        const QString pattern = QStringLiteral("^(nvjet|sm90_xmma).*TN");
        const QRegularExpression re(pattern, QRegularExpression::CaseInsensitiveOption);
        const auto m = search_->find(pattern, o);
        QCOMPARE(found(*m), oracle([&](const QString& n) { return re.match(n).hasMatch(); }));
        QVERIFY(m->kernels > 0 && m->ranges == 0 && m->apiCalls == 0);
        checkShape(*m);
        // Case-sensitive: upper case finds no lower-case kernel.
        o.regex = false;
        o.caseSensitive = true;
        QVERIFY(search_->find(QStringLiteral("GEMM"), o)->kernels <
                search_->find(QStringLiteral("GEMM"), {})->kernels);
        // A broken expression says so instead of matching nothing silently.
        o.regex = true;
        const auto bad = search_->find(QStringLiteral("(unclosed"), o);
        QVERIFY(bad->invalidPattern);
        QVERIFY(bad->empty());
    }

    void kernelInstancesAreEveryInstanceOfOneName()
    {
        const StrId name = trace_->kernels.name[40];
        const auto m = search_->kernelInstances(name);
        std::set<std::pair<int, uint32_t>> want;
        for (uint32_t i = 0; i < trace_->kernels.size(); ++i)
            if (trace_->kernels.name[i] == name)
                want.insert({int(ItemKind::Kernel), i});
        QVERIFY(want.size() > 1);   // not only the longest
        QCOMPARE(found(*m), want);
        checkShape(*m);
        QVERIFY(search_->kernelInstances(UINT32_MAX - 1)->empty());
    }

    void steppingStartsWhereTheUserLooks()
    {
        const auto m = search_->find(QStringLiteral("layer"), {});
        QVERIFY(m->ordered.size() > 2);
        const int64_t mid = m->ordered[m->ordered.size() / 2].start;
        const int64_t k = m->firstAtOrAfter(mid);
        QVERIFY(k >= 0);
        QVERIFY(m->ordered[size_t(k)].start >= mid);
        QVERIFY(k == 0 || m->ordered[size_t(k - 1)].start < mid);
        QCOMPARE(m->firstAtOrAfter(m->ordered.back().start + 1), 0);   // wraps
    }

    void aQueryCostsTheNamesNotTheRows()
    {
        // A keystroke walks the distinct names: far fewer than the rows it answers for.
        QVERIFY(search_->distinctNames() * 5 < trace_->kernels.size() + trace_->api.size() + trace_->ranges.size());
        QElapsedTimer t;
        t.start();
        for (const char* q : {"g", "ge", "gem", "gemm", "gemm_"})
            search_->find(QString::fromLatin1(q), {});
        qInfo("5 keystrokes: %lld ms", t.elapsed());
    }
};

QTEST_GUILESS_MAIN(TestSearchIndex)
#include "tst_search_index.moc"
