#pragma once
// The Details pane: the selected kernel — names, class, launch configuration, duration against all instances of its
// name, its launching API call with the queue delay, and the NVTX ranges open on the launching thread.

#include <QScrollArea>
#include <memory>

#include "analysis/analysis.h"
#include "analysis/trace.h"

class QLabel;

namespace sl {

class DetailsPanel : public QScrollArea {
    Q_OBJECT
public:
    explicit DetailsPanel(QWidget* parent = nullptr);
    void setTrace(std::shared_ptr<const Trace> trace);
    void setAnalysis(std::shared_ptr<const AnalysisResult> analysis);
    void showKernel(int64_t kernel);
    QString text() const;

private:
    QLabel* label_;
    std::shared_ptr<const Trace> trace_;
    std::shared_ptr<const AnalysisResult> analysis_;
    int64_t kernel_ = -1;
};

} // namespace sl
