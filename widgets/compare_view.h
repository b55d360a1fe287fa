#pragma once
// The A/B compare view: the open document is BEFORE; "Open After…" (or openAfter) loads a second trace as AFTER on
// a worker and shows, first, the end-to-end verdict in words (faster / slower / no measurable change: TPOT and
// throughput before → after against the run-to-run spread, model/compare_headline.h), then the headline metrics
// side by side, operator-class and kernel deltas (by time gained or lost), and the verdicts of the suggestions
// accepted on BEFORE (from the knowledge base). "Record Verdicts" writes them into the knowledge base
// (what `sightline-cli compare --record` does); nothing is written otherwise.
//
// When the document's trace is re-analysed (new settings, or another trace opened), the comparison re-runs with
// the same AFTER files once the new analysis is ready.

#include <QStringList>
#include <QWidget>
#include <memory>

#include "model/workbench_settings.h"

class QLabel;
class QProgressBar;
class QSplitter;
class QPushButton;
class QTabWidget;
class QTableView;
class QToolButton;

namespace sl {

class CompareDeltaModel;
class CompareJob;
class CompareMetricsModel;
class CompareVerdictModel;
class Document;
class SummaryTableView;
struct CompareOutput;
struct CompareEnvironment;

class CompareView : public QWidget {
    Q_OBJECT
public:
    explicit CompareView(Document* document, QWidget* parent = nullptr);
    ~CompareView() override;

    // Analysis options of AFTER and the knowledge base of the verdicts (give it the JobRunner's settings).
    void setSettings(const WorkbenchSettings& settings);
    // Compares the document with these trace files (now, or as soon as the document's analysis is ready).
    void openAfter(const QStringList& paths);
    QStringList afterPaths() const { return afterPaths_; }

    CompareJob* job() const { return job_; }
    CompareMetricsModel* metricsModel() const { return metrics_; }
    CompareDeltaModel* classesModel() const { return classes_; }
    CompareDeltaModel* kernelsModel() const { return kernels_; }
    CompareVerdictModel* verdictsModel() const { return verdicts_; }
    QTabWidget* tabs() const { return tabs_; }
    // The line above the tables: progress, errors, the accepted suggestions' verdicts or why there are none, what
    // was recorded.
    QString statusText() const;
    // The pane's first line once a comparison is shown: the end-to-end verdict in words (compareHeadline), and
    // the line under it (what it was judged on, kernel time gained and lost). Empty before.
    QString verdictText() const;
    QString verdictDetails() const;
    // The different-hardware warning as shown (rich text), empty when hidden.
    QString environmentWarning() const;

public slots:
    // File dialog, then openAfter.
    void chooseAfter();
    void recordVerdicts();

signals:
    // A comparison ended (ok = results shown) — for screenshots and tests.
    void comparisonFinished(bool ok);
    // A kernel row was double-clicked (its full name), e.g. to select the kernel name in the other views.
    void kernelActivated(const QString& name);

protected:
    // Wide and short (a bottom dock): headline beside the tabs; otherwise above them.
    void resizeEvent(QResizeEvent* event) override;

private:
    void startIfReady();
    void showOutput(const std::shared_ptr<const CompareOutput>& out);
    void clearResults();
    void updateHeader();
    void showEnvironment(const CompareEnvironment& env);
    void setStatus(const QString& text);

    Document* document_ = nullptr;
    CompareJob* job_ = nullptr;
    QStringList afterPaths_;
    bool recorded_ = false;

    CompareMetricsModel* metrics_ = nullptr;
    CompareDeltaModel* classes_ = nullptr;
    CompareDeltaModel* kernels_ = nullptr;
    CompareVerdictModel* verdicts_ = nullptr;

    QLabel* verdict_ = nullptr;
    QLabel* verdictDetails_ = nullptr;
    QLabel* beforeLabel_ = nullptr;
    QLabel* afterLabel_ = nullptr;
    QPushButton* openButton_ = nullptr;
    QPushButton* recordButton_ = nullptr;
    QProgressBar* progress_ = nullptr;
    QToolButton* cancel_ = nullptr;
    QLabel* status_ = nullptr;
    QTableView* headline_ = nullptr;
    QSplitter* split_ = nullptr;
    QTabWidget* tabs_ = nullptr;
    SummaryTableView* classesView_ = nullptr;
    SummaryTableView* kernelsView_ = nullptr;
    SummaryTableView* verdictsView_ = nullptr;
    QLabel* verdictNote_ = nullptr;
    QLabel* envWarning_ = nullptr;
};

} // namespace sl
