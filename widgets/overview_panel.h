#pragma once
// The Overview pane: headline numbers (window, busy / idle per device, idle by cause, top operator classes) built
// from the summary and, once it arrives, the analysis; then the top findings of the diagnosis, each a link that
// emits findingActivated(row) so the window can raise the Findings pane on it.

#include <QScrollArea>
#include <memory>

#include "analysis/timeline/analysis.h"
#include "analysis/diagnosis/metrics_binding.h"
#include "analysis/timeline/summary.h"

class QLabel;

namespace sl {

class OverviewPanel : public QScrollArea {
    Q_OBJECT
public:
    explicit OverviewPanel(QWidget* parent = nullptr);
    void setData(std::shared_ptr<const Summary> summary, std::shared_ptr<const AnalysisResult> analysis);
    QString text() const;

    // Top findings (at most kTopFindings, in rank order); null hides the block.
    static constexpr int kTopFindings = 5;
    void setDiagnosis(std::shared_ptr<const Diagnosis> diagnosis);
    // "en" or "zh_CN" for the findings' titles (default: WorkbenchSettings::load().langCode()).
    void setLanguage(const QString& lang);
    QString findingsText() const;
    // Rows (FindingsModel rows = rank - 1) of the findings listed, in order.
    QList<int> topFindingRows() const;

signals:
    // A finding of the top-findings block was clicked; row indexes Diagnosis::eval.findings.
    void findingActivated(int row);

private:
    void updateFindings();

    QLabel* label_;
    QLabel* findingsLabel_;
    std::shared_ptr<const Diagnosis> diagnosis_;
    std::string lang_;
};

} // namespace sl
