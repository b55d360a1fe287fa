// The search bar on the timeline (Ctrl+F, /): typing finds kernels, NVTX ranges and API calls, every visible match is
// outlined, Enter / Shift+Enter step through them in time and select the kernel, Esc clears; a Kernels-table name
// shows all its instances. The name index is built once per trace, however many keystrokes follow.
#include <QImage>
#include <QLineEdit>
#include <QPainter>
#include <QSignalSpy>
#include <QTest>

#include "analysis/io/synthetic.h"
#include "analysis/timeline/analysis.h"
#include "model/selection.h"
#include "model/timeline_index.h"
#include "widgets/search_bar.h"
#include "widgets/timeline_view.h"

using namespace sl;

class TestSearchBar : public QObject {
    Q_OBJECT

    std::shared_ptr<const Trace> trace_;
    std::shared_ptr<const TimelineIndex> index_;

    static QString nameOf(const Trace& t, StrId id)
    {
        const auto v = t.strings.view(id);
        return QString::fromUtf8(v.data(), qsizetype(v.size()));
    }
    static int drawFrame(TimelineView& view)
    {
        QImage img(view.size(), QImage::Format_ARGB32);
        QPainter p(&img);
        view.render(p);
        return view.searchMarksDrawn();
    }

private slots:
    void initTestCase()
    {
        trace_ = std::make_shared<const Trace>(make_synthetic_trace(synth_preset("decode")));
        index_ = TimelineIndex::build(trace_);
    }

    // A search finds kernels by their operator class too (issue 37 §7: "attention" found nothing while the
    // attention kernels are named flash_fwd…), in either language's label, and by name as before.
    void searchFindsKernelsByOperatorClass()
    {
        Selection selection;
        QWidget host;
        TimelineView timeline(&selection, &host);
        SearchBar bar(&timeline, &selection, &host);
        timeline.setIndex(index_);
        bar.setIndex(index_);
        const auto analysis = std::make_shared<const AnalysisResult>(analyze(*trace_, AnalysisOptions{}));
        const OpClassResult& c = analysis->classes;
        int attention = -1;
        for (size_t i = 0; i < c.classes.size(); ++i)
            if (c.classes[i].id == "attention")
                attention = int(i);
        QVERIFY(attention >= 0);
        int expected = 0;   // by class or by name, counted from the analysis's own table
        for (size_t k = 0; k < trace_->kernels.size(); ++k)
            expected += c.kernel_class[k] == attention ||
                        nameOf(*trace_, trace_->kernels.name[k]).contains(QStringLiteral("attention"), Qt::CaseInsensitive);
        QVERIFY(expected > 0);
        bar.activate();
        bar.search(QStringLiteral("attention"));
        const int byName = bar.matches() ? bar.matches()->kernels : 0;
        QVERIFY(byName < expected);   // names alone miss them
        bar.setKernelClasses(analysis);
        bar.search(QStringLiteral("attention"));
        QVERIFY(bar.matches());
        QCOMPARE(bar.matches()->kernels, expected);
        bar.search(QString::fromStdString(c.classes[size_t(attention)].label_zh_CN));
        QCOMPARE(bar.matches()->kernels, expected);
        bar.setKernelClasses(nullptr);
        bar.search(QStringLiteral("attention"));
        QCOMPARE(bar.matches() ? bar.matches()->kernels : 0, byName);
    }

    void typingFindsAndEnterSteps()
    {
        Selection selection;
        QWidget host;
        TimelineView timeline(&selection, &host);
        SearchBar bar(&timeline, &selection, &host);
        timeline.resize(1200, 500);
        timeline.setIndex(index_);
        bar.setIndex(index_);
        QVERIFY(bar.isHidden());
        bar.activate();
        QVERIFY(!bar.isHidden());

        // Typed key by key, as a user would; the search runs after a pause.
        QTest::keyClicks(bar.lineEdit(), QStringLiteral("flash"));
        QTRY_VERIFY(bar.matches() && !bar.matches()->empty());
        int expected = 0;
        for (size_t i = 0; i < trace_->kernels.size(); ++i)
            expected += nameOf(*trace_, trace_->kernels.name[i]).contains(QStringLiteral("flash"), Qt::CaseInsensitive);
        QCOMPARE(bar.matches()->kernels, expected);
        QVERIFY2(bar.statusText().contains(QLocale().toString(expected)), qPrintable(bar.statusText()));
        QCOMPARE(timeline.searchMatches(), bar.matches());
        QVERIFY(drawFrame(timeline) > 0);   // the matches in view are outlined

        // Enter: the first match at or after the window's start, selected and shown; Enter again: the next in time.
        timeline.fitToWindow();
        QTest::keyClick(bar.lineEdit(), Qt::Key_Return);
        QCOMPARE(bar.current(), 0);
        const int64_t k0 = selection.kernel();
        QVERIFY(k0 >= 0);
        QVERIFY(nameOf(*trace_, trace_->kernels.name[size_t(k0)]).contains(QStringLiteral("flash"), Qt::CaseInsensitive));
        QTest::keyClick(bar.lineEdit(), Qt::Key_Return);
        QCOMPARE(bar.current(), 1);
        const int64_t k1 = selection.kernel();
        QVERIFY(trace_->kernels.start[size_t(k1)] >= trace_->kernels.start[size_t(k0)]);
        const timeline::Window w = timeline.window();
        QVERIFY(trace_->kernels.start[size_t(k1)] <= w.end && trace_->kernels.end[size_t(k1)] >= w.start);
        QTest::keyClick(bar.lineEdit(), Qt::Key_Return, Qt::ShiftModifier);
        QCOMPARE(bar.current(), 0);
        QCOMPARE(selection.kernel(), k0);
        QTest::keyClick(bar.lineEdit(), Qt::Key_Return, Qt::ShiftModifier);   // wraps to the last
        QCOMPARE(bar.current(), int64_t(bar.matches()->ordered.size()) - 1);
        QVERIFY(bar.statusText().startsWith(QLocale().toString(bar.matches()->ordered.size()) + QLatin1Char(' ')));

        // NVTX ranges and API calls are found too.
        bar.search(QStringLiteral("layer"));
        QVERIFY(bar.matches()->ranges > 0);
        bar.search(QStringLiteral("cudaLaunch"));
        QVERIFY(bar.matches()->apiCalls > 0);
        bar.search(QStringLiteral("no such name qzx"));
        QVERIFY(bar.matches()->empty());
        QVERIFY(!bar.statusText().isEmpty());   // "No match"
        QCOMPARE(drawFrame(timeline), 0);
        QCOMPARE(bar.indexBuilds(), 1);   // one index, however many searches

        // Esc closes the bar and clears the marks.
        bar.search(QStringLiteral("gemm"));
        QVERIFY(drawFrame(timeline) > 0);
        QTest::keyClick(bar.lineEdit(), Qt::Key_Escape);
        QVERIFY(bar.isHidden());
        QVERIFY(!timeline.searchMatches());
        QCOMPARE(drawFrame(timeline), 0);
    }

    // Issue 37 §7: a search hit is placed in the middle of the view, not left where the window happened to start
    // (the first step takes the first match at or after the window's start, which sat at the left edge).
    void searchHitIsCentred()
    {
        Selection selection;
        QWidget host;
        TimelineView timeline(&selection, &host);
        SearchBar bar(&timeline, &selection, &host);
        timeline.resize(1200, 500);
        timeline.setIndex(index_);
        bar.setIndex(index_);
        bar.activate();
        bar.search(QStringLiteral("flash"));
        QVERIFY(bar.matches() && bar.matches()->kernels > 10);
        // A 2 ms window in the middle of the trace, starting just before a match: that match is the first step's.
        const auto& ordered = bar.matches()->ordered;
        const SearchHit& mid = ordered[ordered.size() / 2];
        const TimelineLane& lane = index_->lanes()[mid.lane];
        const int64_t s = index_->itemStart(lane, mid.item), e = index_->itemEnd(lane, mid.item);
        QVERIFY(e - s < 1'000'000);
        timeline.setWindow({s - 1'000, s - 1'000 + 2'000'000});
        const QRect plot = timeline.plotRect();
        QVERIFY(plot.width() > 500);
        auto centreOffsetPx = [&](int64_t from, int64_t to) {
            const timeline::Window w = timeline.window();
            const double hit = timeline::timeToX((from + to) / 2, w, plot.width());
            return std::abs(hit - plot.width() / 2.0);
        };
        QVERIFY(centreOffsetPx(s, e) > 300);   // at the left edge before the step
        QTest::keyClick(bar.lineEdit(), Qt::Key_Return);
        const int64_t k = selection.kernel();
        QVERIFY(k >= 0);
        QCOMPARE(trace_->kernels.start[size_t(k)], s);
        QCOMPARE(timeline.window().duration(), int64_t(2'000'000));   // the zoom is kept
        QVERIFY2(centreOffsetPx(s, e) <= 2.0, qPrintable(QString::number(centreOffsetPx(s, e))));
        // the next hit too, although it was already in view
        QTest::keyClick(bar.lineEdit(), Qt::Key_Return);
        const int64_t k2 = selection.kernel();
        QVERIFY(k2 != k);
        QVERIFY2(centreOffsetPx(trace_->kernels.start[size_t(k2)], trace_->kernels.end[size_t(k2)]) <= 2.0,
                 qPrintable(QString::number(centreOffsetPx(trace_->kernels.start[size_t(k2)], trace_->kernels.end[size_t(k2)]))));
    }

    void aKernelNameShowsAllItsInstances()
    {
        Selection selection;
        QWidget host;
        TimelineView timeline(&selection, &host);
        SearchBar bar(&timeline, &selection, &host);
        timeline.resize(1200, 500);
        timeline.setIndex(index_);
        bar.setIndex(index_);
        const StrId name = trace_->kernels.name[40];
        int64_t instances = 0;
        for (size_t i = 0; i < trace_->kernels.size(); ++i)
            instances += trace_->kernels.name[i] == name;
        QVERIFY(instances > 1);
        bar.showKernelInstances(name);
        QVERIFY(!bar.isHidden());
        QCOMPARE(int64_t(bar.matches()->ordered.size()), instances);
        QCOMPARE(bar.matches()->kernels, int(instances));
        timeline.fitToWindow();
        const int marks = drawFrame(timeline);
        QVERIFY2(marks > 1, qPrintable(QString::number(marks)));   // not only the longest
        bar.next();
        QCOMPARE(trace_->kernels.name[size_t(selection.kernel())], name);
        // A new trace drops the marks and the index.
        bar.setIndex(TimelineIndex::build(trace_));
        QVERIFY(!timeline.searchMatches());
    }
};

QTEST_MAIN(TestSearchBar)
#include "tst_search_bar.moc"
