#pragma once
// The Gaps pane: idle gaps by size bucket, stacked by cause (Qt Charts; at most 7 x 4 bars). Hovering a bar gives
// the bucket's count and total time per cause; clicking a bucket highlights its gaps in the timeline (through the
// shared Selection) and selects the largest of them, and the line under the chart sums the bucket up.

#include <QWidget>
#include <memory>
#include <vector>

#include "analysis/analysis.h"
#include "model/gap_histogram.h"

class QChartView;
class QLabel;

namespace sl {

class Selection;

class GapHistogramView : public QWidget {
    Q_OBJECT
public:
    explicit GapHistogramView(QWidget* parent = nullptr);
    void setAnalysis(std::shared_ptr<const AnalysisResult> analysis);
    // Bucket clicks set Selection::highlightedGaps and Selection::gap (the largest gap of the bucket).
    void setSelection(Selection* selection);
    const GapHistogram& histogram() const { return histogram_; }

    // Indices into AnalysisResult::idle.gaps of the gaps in bucket b (gap_bucket_of), ascending.
    std::vector<int64_t> gapsInBucket(int bucket) const;
    // What a click on bucket b does; -1 clears the highlight.
    void selectBucket(int bucket);
    int selectedBucket() const { return selectedBucket_; }
    // Rich text: count and total time of bucket b, per cause (tooltip and the line under the chart).
    QString bucketSummary(int bucket) const;
    QChartView* chartView() const { return view_; }

signals:
    void bucketSelected(int bucket);

private:
    QChartView* view_;
    QLabel* info_;
    Selection* selection_ = nullptr;
    std::shared_ptr<const AnalysisResult> analysis_;
    GapHistogram histogram_;
    int selectedBucket_ = -1;
};

} // namespace sl
