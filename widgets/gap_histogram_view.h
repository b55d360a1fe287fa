#pragma once
// The Gaps pane: idle gaps by size bin, stacked by cause (Qt Charts). By default the summary's 7 buckets
// (<1us ... >1ms); the "Fine bins" button switches to log-spaced bins, 4 per decade from 100 ns up to the largest
// gap (model/gap_histogram.h). The count axis is logarithmic (a bin of 3 gaps beside one of 30,000 stays visible):
// a bar is log10(1 + count) high and its causes share that height in proportion to their counts. Hovering a column
// gives the bin's count and total time per cause; clicking anywhere in a bin's column highlights its gaps in the
// timeline (through the shared Selection), selects the largest of them and zooms the timeline to span them (F fits
// them again), and the line under the chart sums the bin up. Chart colours follow the palette (light / dark theme).

#include <QWidget>
#include <memory>
#include <vector>

#include "analysis/timeline/analysis.h"
#include "model/gap_histogram.h"

class QChartView;
class QLabel;
class QToolButton;

namespace sl {

class Selection;

class GapHistogramView : public QWidget {
    Q_OBJECT
public:
    explicit GapHistogramView(QWidget* parent = nullptr);
    // `binned`: the analysis's bins computed off the GUI thread (binGapHistogram); used when they are of this
    // analysis, else the view bins the gaps itself.
    void setAnalysis(std::shared_ptr<const AnalysisResult> analysis,
                     std::shared_ptr<const GapHistogramData> binned = nullptr);
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
    // -60 when the bin labels would not fit side by side under their bars at the view's width, else 0.
    int labelAngleFor(const QStringList& labels, const QFont& font) const;

    QChartView* view_ = nullptr;
    QLabel* info_ = nullptr;
    QToolButton* fineButton_ = nullptr;
    Selection* selection_ = nullptr;
    std::shared_ptr<const AnalysisResult> analysis_;
    std::shared_ptr<const GapHistogramData> binned_;   // of analysis_, or null
    GapHistogram histogram_;
    std::shared_ptr<const GapBins> bins_ = std::make_shared<const GapBins>();
    bool fine_ = false;
    int selectedBucket_ = -1;
};

} // namespace sl
