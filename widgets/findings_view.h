#pragma once
// The Findings pane: the ranked findings of the Document's diagnosis as an expandable tree (evidence, suggestions,
// links to the trace), a toolbar with a severity filter and a search box, a detail area for the current finding
// (explanation, evidence table, expected gain and its basis, confidence and its reasons, suggestions with their
// verify commands) and a footer that says when rules could not load or run.
//
// Activating a link row (click, double-click or Enter) moves the shared Selection: a kernel link selects the
// kernel, a time-range link selects the range; a finding about a kernel name selects that name.
//
// The optional LLM reviewer (startReview; Tools › Review Findings with LLM…) sends the findings and their evidence to
// the endpoint of the settings asynchronously, with a Cancel button beside its status line; its verdicts show in the
// LLM review column and the detail area. A failed review (timeout, HTTP error, malformed answer) is a status line
// only: the findings, and any earlier review, stay as they were. The rule engine's output never changes.

#include <QHash>
#include <QPersistentModelIndex>
#include <QString>
#include <QWidget>
#include <cstdint>
#include <memory>

#include "analysis/diagnosis/findings.h"
#include "analysis/diagnosis/review.h"
#include "analysis/diagnosis/metrics_binding.h"
#include "model/selection.h"
#include "model/workbench_settings.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QTextBrowser;
class QTreeView;
class QToolButton;
class QModelIndex;
class QUrl;

namespace sl {

class Document;
class LlmReviewer;
class FindingsModel;
class FindingsFilterModel;

class FindingsView : public QWidget {
    Q_OBJECT
public:
    // document and selection must outlive the view; selection may be null (then only the signals are emitted).
    FindingsView(Document* document, Selection* selection, QWidget* parent = nullptr);

    FindingsModel* model() const { return model_; }
    FindingsFilterModel* proxy() const { return proxy_; }
    QTreeView* tree() const { return tree_; }

    // "en" or "zh_CN" (default: WorkbenchSettings::load().langCode()).
    void setLanguage(const QString& lang);
    // Suggestion states from the knowledge-base session, keyed by suggestionStateKey(); shown in the State column
    // (hidden while there are none) and in the detail area.
    void setSuggestionStates(const QHash<QString, QString>& states);
    static QString suggestionStateKey(const Finding& f, const Suggestion& s);

    // Makes the finding at `row` (FindingsModel row = rank - 1) current, expanded and visible, clearing the
    // filters when they hide it.
    void selectFinding(int row);
    // FindingsModel row of the current finding, or -1.
    int currentFindingRow() const;
    // Does what clicking the row does (index of model() or proxy()).
    void activate(const QModelIndex& index);

    QString detailHtml() const;
    QString detailText() const;
    QString footerText() const;

    // Sends the current findings for review (nothing is sent when no endpoint is set, the endpoint is not an http(s)
    // URL or there is no finding: then false, and reviewStatusText() says why). reviewFinished() follows.
    bool startReview(const ReviewerSettings& settings);
    void cancelReview();
    bool isReviewing() const;
    QString reviewStatusText() const;
    LlmReviewer* reviewer() const { return reviewer_; }
    // Why a review cannot be asked for with these settings, or "" when it can (the menu action's tooltip).
    static QString reviewUnavailableReason(const ReviewerSettings& settings);

public slots:
    // Re-reads the Document's diagnosis and trace.
    void refresh();

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

signals:
    void kernelRequested(qint64 index);
    void rangeRequested(sl::TimeRange range);
    void nvtxRequested(const QString& name);
    // The current finding changed (FindingsModel row, -1 for none).
    void currentFindingChanged(int row);
    // The current row is a suggestion (its suggestionStateKey), or empty when it is not.
    void currentSuggestionChanged(const QString& stateKey);
    // The review ended: ok when its verdicts are shown; false for a failure, a cancel or stale findings.
    void reviewFinished(bool ok);
    void reviewStatusChanged(const QString& text);

private:
    void onCurrentChanged(const QModelIndex& current);
    void onAnchor(const QUrl& url);
    void onActivated(const QModelIndex& proxyIndex);
    void updateDetail();
    void updateCount();
    void copyCurrentCommand();
    void showContextMenu(const QPoint& pos);
    void selectFirst();
    void adaptColumns();
    QModelIndex sourceIndex(const QModelIndex& index) const;
    void onReviewed(std::shared_ptr<const Review> review, std::shared_ptr<const Diagnosis> diagnosis);
    void setReviewStatus(const QString& text, bool error = false);
    QString reviewDetailHtml(int row) const;

    Document* document_;
    Selection* selection_;
    FindingsModel* model_;
    FindingsFilterModel* proxy_;
    QComboBox* severity_;
    QLineEdit* search_;
    QToolButton* copyButton_;
    QLabel* count_;
    QTreeView* tree_;
    QTextBrowser* detail_;
    QLabel* footer_;
    QWidget* reviewBar_;
    QLabel* reviewStatus_;
    QToolButton* cancelReview_;
    LlmReviewer* reviewer_;
    bool statesShown_ = false;
    bool reviewShown_ = false;
    int widths_[8] = {};   // preferred width per FindingsModel column
    int detailRow_ = -1;
    int detailSuggestion_ = -1;
    QPersistentModelIndex lastActivated_;
    qint64 lastActivatedMs_ = 0;
};

} // namespace sl
