#pragma once
// The Overview pane: headline numbers (window, busy / idle per device, idle by cause, top operator classes) built
// from the summary and, once it arrives, the analysis.

#include <QScrollArea>
#include <memory>

#include "analysis/analysis.h"
#include "analysis/summary.h"

class QLabel;

namespace sl {

class OverviewPanel : public QScrollArea {
    Q_OBJECT
public:
    explicit OverviewPanel(QWidget* parent = nullptr);
    void setData(std::shared_ptr<const Summary> summary, std::shared_ptr<const AnalysisResult> analysis);
    QString text() const;

private:
    QLabel* label_;
};

} // namespace sl
