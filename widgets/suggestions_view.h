#pragma once
// The Suggestions pane: the open trace's suggestions from the knowledge base, each with its state as a coloured
// badge. Accept / Reject / Reset to proposed and the annotation editor write to the knowledge base at once (through
// KbSession, off the GUI thread); the status line says where it was saved, or why it could not be. The selected
// suggestion's verification command, expected gain and risk come from the current diagnosis.
//
// The note (annotation) is saved as typed, kSaveDelayMs after the last change, and at once when the editor loses
// focus, with Ctrl+Enter, when another suggestion is selected, when the trace changes and when the pane is hidden or
// destroyed: typed text is never dropped, and a crash loses at most the last moment of typing.
//
// Layout: the table beside the selected suggestion's details (which scroll) and its note in a wide, short pane (the
// bottom dock under the timeline), above them in a narrow one; the note field keeps two lines whatever the height.

#include <QPointer>
#include <QWidget>
#include <memory>

#include "model/document.h"
#include "model/kb_session.h"
#include "model/suggestion_model.h"

class QComboBox;
class QLabel;
class QPlainTextEdit;
class QPushButton;
class QScrollArea;
class QSplitter;
class QTimer;
class QSortFilterProxyModel;
class QTableView;
class QToolButton;

namespace sl {

class SuggestionsView : public QWidget {
    Q_OBJECT
public:
    // Attaches `session` to the document's trace whenever Document::diagnosisChanged brings a diagnosis.
    SuggestionsView(Document* document, KbSession* session, QWidget* parent = nullptr);
    ~SuggestionsView() override;

    SuggestionModel* model() const { return model_; }
    QTableView* table() const { return table_; }
    // Language of the suggestion texts and details ("en" | "zh_CN").
    void setLanguage(const QString& code);

    // The selected suggestion's id (0 when none).
    qint64 currentId() const;
    // Selects the row of a suggestion; false when it is not shown (filtered out or absent).
    bool selectSuggestion(qint64 id);
    // Selects "<rule>/<suggestion id>|<subject>" (FindingsView::currentSuggestionChanged), clearing a state filter
    // that hides it; false when the run has no such suggestion.
    bool selectSuggestionByKey(const QString& stateKey);
    // Attaches again to the document's current diagnosis (after KbSession::setPath changed the file).
    void reattach();
    // Shows only suggestions in this state (a SuggestionState name), or all when empty.
    void setStateFilter(const QString& stateName);

    // Buttons (also what the toolbar buttons call): change the selected suggestion's state.
    void acceptCurrent();
    void rejectCurrent();
    void resetCurrent();
    // Saves the annotation editor's text for the suggestion it belongs to, if it changed.
    void commitAnnotation();

    QString statusText() const;
    QString hintText() const;
    QString detailsText() const;   // rich text of the selected suggestion's details
    // The details' line with the replayed step time of the suggestion's what-if ("graph replay: TPOT 14.1 ms →
    // 1.76 ms ..."); empty when the finding has no replay for this suggestion's change (Finding::replayed_step).
    static QString replayLine(const Finding* finding, const Suggestion* suggestion);
    // Child object names for tests and style sheets: stateFilter, acceptButton, rejectButton, resetButton,
    // reloadButton, annotationEdit, detailsScroll, suggestionSide, suggestionsSplit.
    static constexpr int kSaveDelayMs = 600;

signals:
    // The selection moved to another suggestion (0 = none).
    void currentSuggestionChanged(qint64 id);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
    // Wide and short: the table beside the details and the note; else above them.
    void resizeEvent(QResizeEvent* event) override;
    // Closing the window (or the dock) saves a note still being typed, whatever is destroyed first afterwards.
    void hideEvent(QHideEvent* event) override;

private:
    void onDiagnosisChanged();
    void onSuggestionsReady(quint64 generation, qint64 runId, sl::SuggestionList list);
    void onSaved(qint64 id);
    void onFailed(qint64 id, const QString& message);
    void onCurrentChanged();
    void setCurrentState(SuggestionState state);
    void updateButtons();
    void updateDetails();
    void updateHint();
    void setStatus(const QString& text, bool error);
    int currentSourceRow() const;

    QPointer<Document> document_;
    QPointer<KbSession> session_;
    SuggestionModel* model_;
    QSortFilterProxyModel* proxy_;
    QComboBox* filter_;
    QPushButton* accept_;
    QPushButton* reject_;
    QPushButton* reset_;
    QToolButton* reload_;
    QLabel* hint_;
    QTableView* table_;
    QLabel* details_;
    QScrollArea* detailsScroll_;
    QWidget* side_;
    QSplitter* split_;
    QTimer* saveTimer_;
    QLabel* annotationLabel_;
    QPlainTextEdit* annotation_;
    QLabel* status_;

    qint64 editingId_ = 0;        // the suggestion the annotation editor holds
    QString editingBaseline_;     // its text when loaded or last saved
    QString lang_ = QStringLiteral("en");
    QString attachError_;
    bool attaching_ = false;
    bool resetting_ = false;      // between the model's aboutToBeReset and reset
};

} // namespace sl
