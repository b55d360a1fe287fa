#pragma once
// The Gaps pane: idle gaps by size bucket, stacked by cause (Qt Charts; at most 7 x 4 bars).

#include <QWidget>
#include <memory>

#include "analysis/analysis.h"
#include "model/gap_histogram.h"

class QChartView;

namespace sl {

class GapHistogramView : public QWidget {
    Q_OBJECT
public:
    explicit GapHistogramView(QWidget* parent = nullptr);
    void setAnalysis(std::shared_ptr<const AnalysisResult> analysis);
    const GapHistogram& histogram() const { return histogram_; }

private:
    QChartView* view_;
    GapHistogram histogram_;
};

} // namespace sl
