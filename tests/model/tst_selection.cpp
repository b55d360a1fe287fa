// Selection: one shared state; setters emit once per real change, ranges are normalised.
#include <QSignalSpy>
#include <QTest>

#include "model/selection.h"

using namespace sl;

class TestSelection : public QObject {
    Q_OBJECT
private slots:
    void emitsOnlyOnChange()
    {
        Selection s;
        QSignalSpy k(&s, &Selection::kernelChanged);
        s.setKernel(5);
        s.setKernel(5);
        QCOMPARE(k.count(), 1);
        QCOMPARE(k.at(0).at(0).value<int64_t>(), int64_t(5));
        s.setKernel(-7);   // anything negative means "none"
        QCOMPARE(s.kernel(), int64_t(-1));
        QCOMPARE(k.count(), 2);
    }

    void rangesAreNormalised()
    {
        Selection s;
        QSignalSpy r(&s, &Selection::rangeChanged);
        s.setRange({200, 100});
        QCOMPARE(s.range().start, int64_t(100));
        QCOMPARE(s.range().end, int64_t(200));
        s.setRange({100, 200});
        QCOMPARE(r.count(), 1);
        QSignalSpy w(&s, &Selection::windowChanged);
        s.setWindow({0, 1000});
        s.setWindow({0, 1000});
        QCOMPARE(w.count(), 1);
        QCOMPARE(s.window().duration(), int64_t(1000));
    }

    void clearResetsSelectionButNotWindow()
    {
        Selection s;
        s.setKernel(3);
        s.setRange({1, 2});
        s.setWindow({0, 10});
        s.setKernelName(4);
        s.clear();
        QCOMPARE(s.kernel(), int64_t(-1));
        QVERIFY(s.range().isEmpty());
        QCOMPARE(s.kernelName(), UINT32_MAX);
        QCOMPARE(s.window().end, int64_t(10));
    }

    void kernelAndGapExcludeEachOther()
    {
        Selection s;
        QSignalSpy k(&s, &Selection::kernelChanged);
        QSignalSpy g(&s, &Selection::gapChanged);
        s.setKernel(3);
        s.setGap(7);
        QCOMPARE(s.gap(), int64_t(7));
        QCOMPARE(s.kernel(), int64_t(-1));
        QCOMPARE(k.count(), 2);   // 3, then -1
        QCOMPARE(g.count(), 1);
        s.setKernel(4);
        QCOMPARE(s.gap(), int64_t(-1));
        QCOMPARE(s.kernel(), int64_t(4));
        QCOMPARE(g.count(), 2);
        QCOMPARE(g.last().at(0).value<int64_t>(), int64_t(-1));
        s.setKernel(-1);   // clearing the kernel does not touch the (already empty) gap
        QCOMPARE(g.count(), 2);
    }

    void highlightedGapsAreSortedAndUnique()
    {
        Selection s;
        QSignalSpy h(&s, &Selection::highlightedGapsChanged);
        s.setHighlightedGaps({9, 2, 9, 5});
        QCOMPARE(s.highlightedGaps(), (std::vector<int64_t>{2, 5, 9}));
        s.setHighlightedGaps({5, 9, 2});
        QCOMPARE(h.count(), 1);
        s.setGap(1);
        s.clear();
        QVERIFY(s.highlightedGaps().empty());
        QCOMPARE(s.gap(), int64_t(-1));
        QCOMPARE(h.count(), 2);
    }

    // A Roofline shape point's kernels: sorted, unique, no negative rows; a real kernel-name selection (another set)
    // and clear() drop them; no signal without a change.
    void highlightedKernelsAreASetClearedByAKernelName()
    {
        Selection s;
        QSignalSpy changed(&s, &Selection::highlightedKernelsChanged);
        s.setHighlightedKernels({9, 3, -1, 3, 5});
        QCOMPARE(s.highlightedKernels(), (std::vector<int64_t>{3, 5, 9}));
        QCOMPARE(changed.count(), 1);
        s.setHighlightedKernels({5, 9, 3});
        QCOMPARE(changed.count(), 1);
        s.setKernelName(UINT32_MAX);   // no name: the set stays (the Roofline clears the name before setting it)
        QCOMPARE(s.highlightedKernels().size(), size_t(3));
        s.setKernelName(7);
        QVERIFY(s.highlightedKernels().empty());
        QCOMPARE(changed.count(), 2);
        s.setHighlightedKernels({1});
        s.clear();
        QVERIFY(s.highlightedKernels().empty());
        QCOMPARE(changed.count(), 4);
    }
};

QTEST_GUILESS_MAIN(TestSelection)
#include "tst_selection.moc"
