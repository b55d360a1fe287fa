#pragma once
// The Gaps pane: idle gaps by size bin and cause (Qt Charts), and the gaps of the clicked bin as a list to step
// through. By default the summary's 7 buckets (<1us ... >1ms); the "Fine bins" button switches to log-spaced bins, 4
// per decade from 100 ns up to the largest gap (model/gap_histogram.h). The count axis is logarithmic (a bin of 3 gaps
// beside one of 30,000 stays visible), so the causes are not stacked (a stacked bar on a log axis misstates their
// shares): each cause has its own bar beside the others in its bin, log10(1 + its count) high, readable on the axis
// as Nsight Systems' and Perfetto's users read a histogram. Hovering a column gives the bin's count and total time per
// cause; clicking anywhere in a bin's column highlights its gaps in the timeline (through the shared Selection),
// selects the largest of them and zooms the timeline to span them (F fits them again), sums the bin up under the
// chart and lists its gaps (start, length, cause, the operations before and after) beside it. Selecting a row, or
// Previous / Next, centres the timeline on that gap with the operations around it in view. Chart colours follow the
// palette (light / dark theme).

#include <QWidget>
#include <memory>
#include <vector>

#include "analysis/timeline/analysis.h"
#include "model/gap_histogram.h"

class QChartView;
class QLabel;
class QTableView;
class QToolButton;

namespace sl {

class GapListModel;
class Selection;

class GapHistogramView : public QWidget {
    Q_OBJECT
public:
    explicit GapHistogramView(QWidget* parent = nullptr);
    // `binned`: the analysis's bins computed off the GUI thread (binGapHistogram); used when they are of this
    // analysis, else the view bins the gaps itself.
    void setAnalysis(std::shared_ptr<const AnalysisResult> analysis,
                     std::shared_ptr<const GapHistogramData> binned = nullptr);
    // The trace of the analysis (names of the operations around a gap) and the time origin Start is measured from
    // (the timeline's: TimelineIndex::origin).
    void setTrace(std::shared_ptr<const Trace> trace, int64_t origin);
    // Bin clicks set Selection::highlightedGaps and Selection::gap (the largest gap of the bin).
    void setSelection(Selection* selection);
    // The summary's 7 buckets by cause (whatever the mode).
    const GapHistogram& histogram() const { return histogram_; }

    // false: the summary's 7 buckets; true: log-spaced fine bins. Switching clears the highlighted bin.
    void setFineBins(bool fine);
    bool fineBins() const { return fine_; }
    // The bins the chart shows now (summary buckets or fine bins); a bar's index is its bin.
    const GapBins& bins() const { return *bins_; }
    QToolButton* fineBinsButton() const { return fineButton_; }

    // Indices into AnalysisResult::idle.gaps of the gaps in bin b of the current mode, ascending.
    std::vector<int64_t> gapsInBucket(int bucket) const;
    // What a click on bin b does; -1 clears the highlight.
    void selectBucket(int bucket);
    int selectedBucket() const { return selectedBucket_; }
    // Rich text: range, count and total time of bin b, per cause (tooltip and the line under the chart).
    QString bucketSummary(int bucket) const;
    // The axis label of bin b: "0-1us", "1-5us", ...; fine bins by their lower edge, the unit on decades only
    // ("0", "100ns", "178", "316", "562", "1µs", "1.78", ...).
    QString binLabel(int bucket) const;
    QChartView* chartView() const { return view_; }
    // The clicked bin's gaps, one row each, and the table showing them; the buttons step through its rows.
    GapListModel* gapList() const { return list_; }
    QTableView* gapTable() const { return table_; }
    QToolButton* previousGapButton() const { return prevButton_; }
    QToolButton* nextGapButton() const { return nextButton_; }
    // Selects the gap of list row `row`, makes it the current row and centres the timeline on it: a window three
    // times the gap's length, so the operations before and after it are in view.
    void showGapRow(int row);
    void stepGap(int direction);
    // The bin whose column holds viewport point `pos` of chartView() (anywhere from the axis to the top of the plot),
    // or -1.
    int binAt(const QPoint& viewportPos) const;
    // The height a bin's bar is drawn with on the log axis: log10(1 + count).
    static double logHeight(int64_t count);

signals:
    void bucketSelected(int bucket);
    void fineBinsChanged(bool fine);

protected:
    void changeEvent(QEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    void rebuildChart();
    void updateListButtons();
    // -60 when the bin labels would not fit side by side under their bars at the view's width, else 0.
    int labelAngleFor(const QStringList& labels, const QFont& font) const;

    QChartView* view_ = nullptr;
    QLabel* info_ = nullptr;
    QToolButton* fineButton_ = nullptr;
    GapListModel* list_ = nullptr;
    QTableView* table_ = nullptr;
    QLabel* listTitle_ = nullptr;
    QToolButton* prevButton_ = nullptr;
    QToolButton* nextButton_ = nullptr;
    Selection* selection_ = nullptr;
    std::shared_ptr<const Trace> trace_;
    int64_t origin_ = 0;
    std::shared_ptr<const AnalysisResult> analysis_;
    std::shared_ptr<const GapHistogramData> binned_;   // of analysis_, or null
    GapHistogram histogram_;
    std::shared_ptr<const GapBins> bins_ = std::make_shared<const GapBins>();
    bool fine_ = false;
    int selectedBucket_ = -1;
};

} // namespace sl
