#pragma once
// The Overview pane opens with the trace-level verdict (Diagnosis::headline: what bounds the run, the verdict, a
// statement in the findings' language, the top three actions with their bounded gains), the workload (kind,
// execution, framework) and the trace-level warnings; then the top findings of the diagnosis, each a link that
// emits findingActivated(row) so the window can raise the Findings pane on it; then the numbers (GPU activity
// window, busy / idle per device, idle by cause, top operator classes) built from the summary and, once it
// arrives, the analysis.

#include <QScrollArea>
#include <memory>

#include "analysis/critpath/critpath_summary.h"
#include "analysis/diagnosis/kb_lookup.h"
#include "analysis/timeline/analysis.h"
#include "analysis/diagnosis/metrics_binding.h"
#include "analysis/timeline/summary.h"

class QLabel;

namespace sl {

class OverviewPanel : public QScrollArea {
    Q_OBJECT
public:
    explicit OverviewPanel(QWidget* parent = nullptr);
    // trace: for the time origin of the warnings (the capture start); may be null.
    void setData(std::shared_ptr<const Summary> summary, std::shared_ptr<const AnalysisResult> analysis,
                 std::shared_ptr<const Trace> trace = nullptr);
    QString text() const;
    // The headline block (verdict, statement, actions, workload, warnings) as rich text; empty before any result.
    QString headlineText() const;
    // Height of the headline and the top findings wrapped at `width`: what the first view should show unscrolled.
    int firstViewHeight(int width) const;
    // The headline lies whole inside the visible part of the pane (no scrolling needed).
    bool headlineVisible() const;
    // Plain words for Headline::bound and verdict ("gpu-memory" -> "Limited by GPU memory bandwidth").
    static QString boundLabel(const std::string& bound, const std::string& verdict = {});

    // Top findings (at most kTopFindings, in rank order); null hides the block.
    static constexpr int kTopFindings = 5;
    void setDiagnosis(std::shared_ptr<const Diagnosis> diagnosis);
    // "en" or "zh_CN" for the findings' titles (default: WorkbenchSettings::load().langCode()).
    void setLanguage(const QString& lang);
    QString findingsText() const;
    // Rows (FindingsModel rows = rank - 1) of the findings listed, in order.
    QList<int> topFindingRows() const;

    // "Seen before on this environment" (step 1 of the analysis loop): the knowledge base's A/B-verified
    // suggestions on similar environments with their confidence and measured change; null hides the block.
    void setEnvironmentHistory(std::shared_ptr<const EnvironmentHistory> history);
    QString seenBeforeText() const;

    // "What sets the step" (issue 35): the critical path per steady step and its largest shares; null hides it.
    void setCriticalPath(std::shared_ptr<const critpath::CriticalPathSummary> path);
    QString criticalPathText() const;

signals:
    // A finding of the top-findings block was clicked; row indexes Diagnosis::eval.findings.
    void findingActivated(int row);

private:
    void updateFindings();
    void updateHeadline();

    QLabel* headlineLabel_;
    QLabel* label_;
    QLabel* findingsLabel_;
    QLabel* seenBeforeLabel_ = nullptr;
    std::shared_ptr<const Diagnosis> diagnosis_;
    std::shared_ptr<const critpath::CriticalPathSummary> criticalPath_;
    QLabel* criticalPathLabel_ = nullptr;
    std::shared_ptr<const AnalysisResult> analysis_;
    std::shared_ptr<const Trace> trace_;
    std::string lang_;
};

} // namespace sl
