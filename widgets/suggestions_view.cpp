#include "widgets/suggestions_view.h"

#include "analysis/critpath/whatif.h"
#include "model/findings_model.h"
#include "model/units.h"

#include <QApplication>
#include <QComboBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QPainter>
#include <QPainterPath>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QScrollArea>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStyledItemDelegate>
#include <QTableView>
#include <QTextCursor>
#include <QTime>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

namespace sl {

namespace {

QColor stateColor(const QString& state)
{
    if (state == QLatin1String("accepted"))
        return QColor(0x2e, 0x7d, 0x32);
    if (state == QLatin1String("rejected"))
        return QColor(0xc6, 0x28, 0x28);
    if (state == QLatin1String("verified"))
        return QColor(0x00, 0x69, 0x7c);
    if (state == QLatin1String("failed"))
        return QColor(0xb2, 0x5a, 0x00);
    return QColor(0x5f, 0x6b, 0x7a);   // proposed
}

// The state column: a rounded badge in the state's colour; a dashed outline while the write is in flight.
class StateBadgeDelegate : public QStyledItemDelegate {
public:
    using QStyledItemDelegate::QStyledItemDelegate;

    void paint(QPainter* p, const QStyleOptionViewItem& option, const QModelIndex& index) const override
    {
        QStyleOptionViewItem opt = option;
        initStyleOption(&opt, index);
        const QString label = opt.text;
        opt.text.clear();
        QStyle* style = opt.widget ? opt.widget->style() : QApplication::style();
        style->drawControl(QStyle::CE_ItemViewItem, &opt, p, opt.widget);

        const QFontMetrics fm(opt.font);
        const int h = fm.height() + 4;
        const int w = std::min(opt.rect.width() - 8, fm.horizontalAdvance(label) + 16);
        const QRect badge(opt.rect.left() + 4, opt.rect.center().y() - h / 2 + 1, std::max(w, 8), h);
        const bool pending = index.data(SuggestionModel::PendingRole).toBool();
        p->save();
        p->setRenderHint(QPainter::Antialiasing, true);
        const QColor c = stateColor(index.data(SuggestionModel::StateRole).toString());
        if (pending) {
            p->setPen(QPen(c, 1.5, Qt::DashLine));
            p->setBrush(c.lighter(170));
        } else {
            p->setPen(Qt::NoPen);
            p->setBrush(c);
        }
        p->drawRoundedRect(QRectF(badge).adjusted(0.5, 0.5, -0.5, -0.5), h / 2.0, h / 2.0);
        p->setPen(pending ? c.darker(150) : QColor(Qt::white));
        p->drawText(badge, Qt::AlignCenter, fm.elidedText(label, Qt::ElideRight, badge.width() - 8));
        p->restore();
    }

    QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override
    {
        QSize s = QStyledItemDelegate::sizeHint(option, index);
        const QFontMetrics fm(option.font);
        s.setWidth(fm.horizontalAdvance(index.data().toString()) + 28);
        s.setHeight(std::max(s.height(), fm.height() + 10));
        return s;
    }
};

// A box that does not pass its children's height-for-width on: its parent sizes it by its minimum and the room
// there is, and its own layout still gives each word-wrapped label the height its width needs.
class FitBox : public QWidget {
public:
    using QWidget::QWidget;
    bool hasHeightForWidth() const override { return false; }
};

} // namespace

SuggestionsView::SuggestionsView(Document* document, KbSession* session, QWidget* parent)
    : QWidget(parent), document_(document), session_(session)
{
    model_ = new SuggestionModel(session, this);
    proxy_ = new QSortFilterProxyModel(this);
    proxy_->setSourceModel(model_);
    proxy_->setSortRole(SuggestionModel::SortRole);
    proxy_->setFilterRole(SuggestionModel::StateRole);
    proxy_->setFilterKeyColumn(SuggestionModel::State);

    // Toolbar: filter on the left, actions on the right.
    filter_ = new QComboBox(this);
    filter_->addItem(tr("All states"), QString());
    for (SuggestionState s : {SuggestionState::Proposed, SuggestionState::Accepted, SuggestionState::Rejected,
                              SuggestionState::Verified, SuggestionState::Failed})
        filter_->addItem(SuggestionModel::stateLabel(s), QString::fromLatin1(suggestion_state_name(s)));
    filter_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    accept_ = new QPushButton(tr("Accept"), this);
    reject_ = new QPushButton(tr("Reject"), this);
    reset_ = new QPushButton(tr("Reset to proposed"), this);
    accept_->setToolTip(tr("Mark the selected suggestion as accepted: you mean to apply it. Saved at once."));
    reject_->setToolTip(tr("Mark the selected suggestion as rejected. Saved at once."));
    reset_->setToolTip(tr("Put the selected suggestion back to proposed. Saved at once."));
    filter_->setObjectName(QStringLiteral("stateFilter"));
    accept_->setObjectName(QStringLiteral("acceptButton"));
    reject_->setObjectName(QStringLiteral("rejectButton"));
    reset_->setObjectName(QStringLiteral("resetButton"));
    reload_ = new QToolButton(this);
    reload_->setObjectName(QStringLiteral("reloadButton"));
    reload_->setText(tr("Reload"));
    reload_->setToolTip(tr("Read the states again from the knowledge base (changes made by another Sightline)"));
    auto* filterLabel = new QLabel(tr("Show:"), this);
    filterLabel->setBuddy(filter_);

    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(0, 0, 0, 0);
    bar->addWidget(filterLabel);
    bar->addWidget(filter_);
    bar->addWidget(reload_);
    bar->addStretch(1);
    bar->addWidget(accept_);
    bar->addWidget(reject_);
    bar->addWidget(reset_);

    hint_ = new QLabel(this);
    hint_->setWordWrap(true);
    hint_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    hint_->setContentsMargins(4, 4, 4, 4);

    table_ = new QTableView(this);
    table_->setModel(proxy_);
    table_->setItemDelegateForColumn(SuggestionModel::State, new StateBadgeDelegate(table_));
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);   // edits go through the buttons and the editor
    table_->setWordWrap(false);
    table_->setTextElideMode(Qt::ElideRight);
    table_->setAlternatingRowColors(true);
    table_->verticalHeader()->hide();
    table_->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 10);
    QHeaderView* header = table_->horizontalHeader();
    header->setSortIndicator(-1, Qt::AscendingOrder);   // the knowledge base's order until a header is clicked
    header->setSortIndicatorShown(true);
    header->setSectionsClickable(true);
    header->setHighlightSections(false);
    header->setSectionResizeMode(QHeaderView::Interactive);
    header->setSectionResizeMode(SuggestionModel::Text, QHeaderView::Stretch);
    header->setMinimumSectionSize(60);
    const QFontMetrics fm = table_->fontMetrics();
    table_->setColumnWidth(SuggestionModel::State, fm.horizontalAdvance(SuggestionModel::stateLabel(SuggestionState::Proposed)) + 36);
    // Subjects are often kernel names: give them the room; metric names are short apart from a few.
    table_->setColumnWidth(SuggestionModel::Subject, fm.horizontalAdvance(QLatin1Char('M')) * 16);
    table_->setColumnWidth(SuggestionModel::Metric, fm.horizontalAdvance(SuggestionModel::metricLabel(QStringLiteral("pageable_async_memcpy_ns")) + QStringLiteral(" ↓")) + 20);
    table_->setColumnWidth(SuggestionModel::Annotation, fm.horizontalAdvance(QLatin1Char('M')) * 12);
    table_->setColumnWidth(SuggestionModel::Updated, fm.horizontalAdvance(QStringLiteral("2026-11-22 07:25")) + 16);
    table_->setSortingEnabled(true);

    // Details of the selected suggestion, and its annotation.
    details_ = new QLabel(this);
    details_->setWordWrap(true);
    details_->setTextFormat(Qt::RichText);
    details_->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    details_->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    details_->setContentsMargins(4, 2, 4, 2);
    details_->setMinimumWidth(120);
    // The details scroll inside their own area: a long verify command or a Chinese text never pushes the note away.
    detailsScroll_ = new QScrollArea(this);
    detailsScroll_->setObjectName(QStringLiteral("detailsScroll"));
    detailsScroll_->setWidget(details_);
    detailsScroll_->setWidgetResizable(true);
    detailsScroll_->setFrameShape(QFrame::NoFrame);
    detailsScroll_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    detailsScroll_->setMinimumHeight(fontMetrics().height() * 2);
    annotationLabel_ = new QLabel(tr("Note (saved as you type)"), this);
    annotationLabel_->setToolTip(tr("Saved to the knowledge base a moment after each change, and when you leave the "
                                    "field, press Ctrl+Enter or select another suggestion."));
    annotation_ = new QPlainTextEdit(this);
    annotation_->setObjectName(QStringLiteral("annotationEdit"));
    annotation_->setPlaceholderText(tr("Why you accepted or rejected it, what you tried, what happened…"));
    annotation_->setTabChangesFocus(true);
    annotation_->installEventFilter(this);
    // Two lines at least, whatever the pane's height: the note is always there to type in.
    annotation_->setMinimumHeight(annotation_->fontMetrics().lineSpacing() * 2 + 2 * annotation_->frameWidth() +
                                  int(annotation_->document()->documentMargin() * 2));
    annotationLabel_->setBuddy(annotation_);
    // Saved as typed (issue 37 §1): a moment after the last key, so a crash or a kill loses at most that moment.
    saveTimer_ = new QTimer(this);
    saveTimer_->setSingleShot(true);
    saveTimer_->setInterval(kSaveDelayMs);
    connect(saveTimer_, &QTimer::timeout, this, &SuggestionsView::commitAnnotation);
    connect(annotation_, &QPlainTextEdit::textChanged, this, [this] {
        if (editingId_ > 0 && annotation_->toPlainText() != editingBaseline_)
            saveTimer_->start();
    });

    // The selected suggestion's side: its details (scrolling) above its note (never folded away).
    side_ = new QWidget(this);
    side_->setObjectName(QStringLiteral("suggestionSide"));
    auto* sideLayout = new QVBoxLayout(side_);
    sideLayout->setContentsMargins(0, 0, 0, 0);
    sideLayout->setSpacing(2);
    sideLayout->addWidget(detailsScroll_, 3);
    sideLayout->addWidget(annotationLabel_);
    sideLayout->addWidget(annotation_, 2);

    // Wide and short (a bottom pane under the timeline): the table beside the details and the note, each with the
    // pane's whole height; narrow and tall: the table above them (resizeEvent). Neither side folds away.
    split_ = new QSplitter(Qt::Horizontal, this);
    split_->setObjectName(QStringLiteral("suggestionsSplit"));
    split_->setChildrenCollapsible(false);
    split_->addWidget(table_);
    split_->addWidget(side_);
    table_->setMinimumHeight(fontMetrics().height() * 3);
    table_->setMinimumWidth(fontMetrics().horizontalAdvance(QLatin1Char('M')) * 16);
    split_->setStretchFactor(0, 3);
    split_->setStretchFactor(1, 2);

    status_ = new QLabel(this);
    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    status_->setWordWrap(true);

    // The word-wrapped hint and status lines make a layout's height depend on its width, and a QScrollArea (the
    // bottom dock's) then sizes its widget to that height for the width instead of to the viewport: the pane grew
    // taller than the dock and the details and the note were scrolled out of sight as soon as a suggestion was
    // selected (issue 37 §1). The body keeps that dependence inside; the pane fits the dock down to its minimum.
    auto* body = new FitBox(this);
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    outer->addWidget(body);
    auto* layout = new QVBoxLayout(body);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->setSpacing(4);
    layout->addLayout(bar);
    layout->addWidget(hint_);
    layout->addWidget(split_, 1);
    layout->addWidget(status_);

    connect(filter_, &QComboBox::currentIndexChanged, this,
            [this] { setStateFilter(filter_->currentData().toString()); });
    connect(accept_, &QPushButton::clicked, this, &SuggestionsView::acceptCurrent);
    connect(reject_, &QPushButton::clicked, this, &SuggestionsView::rejectCurrent);
    connect(reset_, &QPushButton::clicked, this, &SuggestionsView::resetCurrent);
    connect(reload_, &QToolButton::clicked, this, [this] {
        commitAnnotation();
        if (session_)
            session_->refresh();
    });
    connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            &SuggestionsView::onCurrentChanged);
    // New rows (a refresh, or the same run attached again) keep the selected suggestion and the editor's text.
    connect(model_, &QAbstractItemModel::modelAboutToBeReset, this, [this] {
        commitAnnotation();
        resetting_ = true;
    });
    connect(model_, &QAbstractItemModel::modelReset, this, [this] {
        resetting_ = false;
        if (editingId_ <= 0 || !selectSuggestion(editingId_))
            onCurrentChanged();
        updateHint();
    });
    // Back in Sightline after working elsewhere (maybe in another instance): show the states as stored now.
    connect(qApp, &QGuiApplication::applicationStateChanged, this, [this](Qt::ApplicationState state) {
        if (state == Qt::ApplicationActive && session_ && model_->hasRun() && session_->pending() == 0 &&
            !annotation_->hasFocus())
            session_->refresh();
    });
    // The proxy re-filters and re-sorts a changed row by itself (dynamicSortFilter).
    connect(model_, &QAbstractItemModel::dataChanged, this, [this] {
        updateButtons();
        updateDetails();
    });
    if (session_) {
        connect(session_, &KbSession::suggestionsReady, this, &SuggestionsView::onSuggestionsReady);
        connect(session_, &KbSession::saved, this, [this](qint64 id) { onSaved(id); });
        connect(session_, &KbSession::failed, this, &SuggestionsView::onFailed);
    }
    if (document_) {
        connect(document_, &Document::diagnosisChanged, this, &SuggestionsView::onDiagnosisChanged);
        connect(document_, &Document::cleared, this, &SuggestionsView::onDiagnosisChanged);
    }
    if (!session_)
        attachError_ = tr("No knowledge base is configured.");
    updateHint();
    onCurrentChanged();
    if (document_ && document_->diagnosis())
        onDiagnosisChanged();
}

void SuggestionsView::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    const Qt::Orientation o = width() >= 2 * height() || width() >= 900 ? Qt::Horizontal : Qt::Vertical;
    // Beside the details the table has 3/5 of the pane: the note and the time of the last change are in the details
    // already, so their columns give their room to the suggestion's text (it was elided to "Capture the …").
    const bool beside = o == Qt::Horizontal;
    if (table_->isColumnHidden(SuggestionModel::Annotation) != beside) {
        table_->setColumnHidden(SuggestionModel::Annotation, beside);
        table_->setColumnHidden(SuggestionModel::Updated, beside);
        table_->setColumnWidth(SuggestionModel::Subject,
                               table_->fontMetrics().horizontalAdvance(QLatin1Char('M')) * (beside ? 10 : 16));
    }
    if (split_->orientation() == o)
        return;
    split_->setOrientation(o);
    const int total = o == Qt::Horizontal ? split_->width() : split_->height();
    const int first = total * 3 / 5;
    split_->setSizes({first, total - first});
}

SuggestionsView::~SuggestionsView()
{
    // Text typed and not yet saved goes to the knowledge base (the session runs it before it stops).
    commitAnnotation();
}

void SuggestionsView::setLanguage(const QString& code)
{
    lang_ = code;
    model_->setLanguage(code);
    updateDetails();
}

void SuggestionsView::onDiagnosisChanged()
{
    commitAnnotation();
    const auto diagnosis = document_ ? document_->diagnosis() : nullptr;
    model_->clear();
    model_->setDiagnosis(diagnosis, document_ ? document_->analysis() : nullptr);
    attachError_.clear();
    attaching_ = false;
    if (!session_) {
        attachError_ = tr("No knowledge base is configured.");
    } else if (diagnosis && document_->trace() && document_->analysis()) {
        attaching_ = true;
        session_->attach(document_->inputs(), document_->trace(), document_->analysis(), diagnosis);
    } else {
        session_->detach();
    }
    updateHint();
}

void SuggestionsView::onSuggestionsReady(quint64, qint64, SuggestionList)
{
    attaching_ = false;
    attachError_.clear();
    updateHint();
    if (session_)
        setStatus(tr("Knowledge base: %1").arg(session_->path()), false);
}

void SuggestionsView::onSaved(qint64 id)
{
    if (editingId_ == id && !annotation_->hasFocus()) {
        // Keep the editor in step with what is stored (unless the user is typing in it).
        const int row = model_->rowOfId(id);
        if (const SuggestionRecord* r = model_->record(row)) {
            editingBaseline_ = QString::fromStdString(r->annotation);
            if (annotation_->toPlainText() != editingBaseline_)
                annotation_->setPlainText(editingBaseline_);
        }
    }
    setStatus(tr("Saved to %1 at %2").arg(session_ ? session_->path() : QString(),
                                           QLocale().toString(QTime::currentTime(), QLocale::ShortFormat)),
              false);
}

void SuggestionsView::onFailed(qint64 id, const QString& message)
{
    if (id == 0 && attaching_) {
        attaching_ = false;
        attachError_ = message;
        updateHint();
    }
    if (id == editingId_ && id > 0) {
        // The note did not reach the knowledge base: keep the text in the editor and mark it unsaved.
        editingBaseline_.clear();
        if (const SuggestionRecord* r = model_->record(model_->rowOfId(id)))
            editingBaseline_ = QString::fromStdString(r->annotation);
    }
    setStatus(id > 0 ? tr("Not saved: %1").arg(message) : tr("Knowledge base unavailable: %1").arg(message), true);
}

void SuggestionsView::setStatus(const QString& text, bool error)
{
    status_->setText(text);
    status_->setStyleSheet(error ? QStringLiteral("color: #c62828;") : QString());
}

void SuggestionsView::updateHint()
{
    QString hint;
    if (!attachError_.isEmpty())
        hint = tr("The knowledge base could not be used, so states cannot be shown or saved: %1").arg(attachError_);
    else if (!document_ || !document_->diagnosis())
        hint = tr("Suggestions appear here once a trace has been opened and its analysis has finished.");
    else if (attaching_)
        hint = tr("Reading this trace's suggestions from the knowledge base…");
    else if (model_->rowCount() == 0)
        hint = tr("No suggestions for this trace: none of the rules that fired proposes a change.");
    hint_->setText(hint);
    hint_->setVisible(!hint.isEmpty());
    hint_->setStyleSheet(attachError_.isEmpty() ? QString() : QStringLiteral("color: #c62828;"));
}

int SuggestionsView::currentSourceRow() const
{
    const QModelIndex cur = table_->selectionModel()->currentIndex();
    if (!cur.isValid())
        return -1;
    return proxy_->mapToSource(cur).row();
}

qint64 SuggestionsView::currentId() const
{
    const SuggestionRecord* r = model_->record(currentSourceRow());
    return r ? r->id : 0;
}

bool SuggestionsView::selectSuggestion(qint64 id)
{
    const int row = model_->rowOfId(id);
    if (row < 0)
        return false;
    const QModelIndex p = proxy_->mapFromSource(model_->index(row, SuggestionModel::Text));
    if (!p.isValid())
        return false;
    table_->selectionModel()->setCurrentIndex(p, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    // Selecting saved the previous note, which may have moved rows: look the row up again.
    const QModelIndex now = proxy_->mapFromSource(model_->index(model_->rowOfId(id), SuggestionModel::Text));
    if (now.isValid())
        table_->scrollTo(now);
    return now.isValid() && currentId() == id;
}

bool SuggestionsView::selectSuggestionByKey(const QString& stateKey)
{
    const SuggestionRecord* r = model_->record(model_->rowOfKey(stateKey));
    if (!r)
        return false;
    const qint64 id = r->id;
    if (!selectSuggestion(id) && !filter_->currentData().toString().isEmpty()) {
        setStateFilter(QString());
        return selectSuggestion(id);
    }
    return currentId() == id;
}

void SuggestionsView::reattach() { onDiagnosisChanged(); }

void SuggestionsView::setStateFilter(const QString& stateName)
{
    const qint64 keep = currentId();
    proxy_->setFilterRegularExpression(stateName.isEmpty()
                                           ? QString()
                                           : QLatin1Char('^') + QRegularExpression::escape(stateName) + QLatin1Char('$'));
    const int i = filter_->findData(stateName);
    if (i >= 0 && i != filter_->currentIndex())
        filter_->setCurrentIndex(i);
    if (keep && !selectSuggestion(keep))
        onCurrentChanged();
}

void SuggestionsView::onCurrentChanged()
{
    if (resetting_)
        return;
    const qint64 id = currentId();
    if (id != editingId_) {
        commitAnnotation();
        editingId_ = id;
        const SuggestionRecord* r = model_->record(currentSourceRow());
        editingBaseline_ = r ? QString::fromStdString(r->annotation) : QString();
        annotation_->setPlainText(editingBaseline_);
        annotation_->moveCursor(QTextCursor::End);   // typing adds to the note
        emit currentSuggestionChanged(id);
    }
    annotation_->setEnabled(id > 0);
    updateButtons();
    updateDetails();
}

void SuggestionsView::updateButtons()
{
    const SuggestionRecord* r = model_->record(currentSourceRow());
    accept_->setEnabled(r && r->state != SuggestionState::Accepted);
    reject_->setEnabled(r && r->state != SuggestionState::Rejected);
    reset_->setEnabled(r && r->state != SuggestionState::Proposed);
    reload_->setEnabled(model_->hasRun());
}

QString SuggestionsView::replayLine(const Finding* f, const Suggestion* s)
{
    // Issue 35 §4: the step time the replay of the dependency graph gives for this suggestion's change; the gain
    // computed from the trace stays the ceiling.
    if (!f || !s || !f->replayed_step || critpath::change_for_suggestion(s->id) != f->replayed_step->change)
        return {};
    const ReplayedStep& r = *f->replayed_step;
    const QString change = r.change == "cuda-graphs" ? tr("graph replay")
                           : r.change == "remove-sync" ? tr("without the per-step syncs")
                                                       : QString::fromStdString(r.change).toHtmlEscaped();
    const QString step = r.step_source == "capture" ? tr("capture") : r.step_source == "steps" ? tr("TPOT") : tr("step");
    QString line = tr("%1: %2 %3 → %4 (%5 – %6)")
                       .arg(change, step, formatDuration(r.baseline_step_ns), formatDuration(r.predicted_step_ns),
                            formatDuration(r.predicted_lo_ns), formatDuration(r.predicted_hi_ns));
    if (f->expected_gain.computed)
        line += QStringLiteral("; ") + tr("the bound, up to %1 %, stays the ceiling")
                                           .arg(QLocale().toString(f->expected_gain.fraction * 100, 'f', 1));
    return line;
}

void SuggestionsView::updateDetails()
{
    const int row = currentSourceRow();
    const SuggestionRecord* r = model_->record(row);
    if (!r) {
        details_->setText(model_->rowCount() ? tr("Select a suggestion to see how to verify it.") : QString());
        return;
    }
    const std::string lang = lang_.toStdString();
    QString html;
    const Suggestion* s = model_->suggestionFor(row);
    const Finding* f = model_->findingFor(row);
    const QString text = s ? QString::fromStdString(s->text.get(lang)) : QString::fromStdString(r->text);
    html += QStringLiteral("<p><b>%1</b></p>").arg(text.toHtmlEscaped());
    QStringList facts;
    if (f)
        facts << tr("Finding: %1").arg(QString::fromStdString(f->title.get(lang)).toHtmlEscaped());
    facts << tr("Subject: %1")
                 .arg(model_->data(model_->index(row, SuggestionModel::Subject)).toString().toHtmlEscaped());
    if (s) {
        if (s->gain_high > 0)
            facts << tr("Expected gain: %1 of %2")
                         .arg(formatGainRange(s->gain_low, s->gain_high),
                              s->metric.empty() ? tr("the run") : SuggestionModel::metricLabel(QString::fromStdString(s->metric)).toHtmlEscaped());
        if (f && f->expected_gain.computed)
            facts << tr("Computed from this trace: %1 % of the end-to-end time")
                         .arg(QLocale().toString(f->expected_gain.fraction * 100, 'f', 1));
        if (const QString replay = replayLine(f, s); !replay.isEmpty())
            facts << replay;
        if (!s->risk.empty())
            facts << tr("Risk: %1").arg(FindingsModel::riskLabel(s->risk).toHtmlEscaped());
    }
    html += QStringLiteral("<p>") + facts.join(QStringLiteral("<br>")) + QStringLiteral("</p>");
    if (s && !s->verify.empty())
        html += QStringLiteral("<p>%1<br><code>%2</code></p>")
                    .arg(tr("Verify with:"), QString::fromStdString(s->verify).toHtmlEscaped());
    else if (!s)
        html += QStringLiteral("<p><i>%1</i></p>")
                    .arg(tr("The current analysis does not contain this suggestion (it was recorded by an earlier "
                            "run of the rules), so its verification command is not known."));
    details_->setText(html);
}

void SuggestionsView::setCurrentState(SuggestionState state)
{
    const int row = currentSourceRow();
    if (row < 0)
        return;
    commitAnnotation();
    model_->setData(model_->index(row, SuggestionModel::State), QString::fromLatin1(suggestion_state_name(state)));
}

void SuggestionsView::acceptCurrent() { setCurrentState(SuggestionState::Accepted); }
void SuggestionsView::rejectCurrent() { setCurrentState(SuggestionState::Rejected); }
void SuggestionsView::resetCurrent() { setCurrentState(SuggestionState::Proposed); }

void SuggestionsView::commitAnnotation()
{
    saveTimer_->stop();
    if (editingId_ <= 0)
        return;
    const QString text = annotation_->toPlainText();
    if (text == editingBaseline_)
        return;
    editingBaseline_ = text;
    const int row = model_->rowOfId(editingId_);
    if (row >= 0)
        model_->setData(model_->index(row, SuggestionModel::Annotation), text);
    else if (session_)
        session_->annotate(editingId_, text);   // the rows were replaced under the editor: save it all the same
}

bool SuggestionsView::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == annotation_) {
        if (event->type() == QEvent::FocusOut) {
            commitAnnotation();
        } else if (event->type() == QEvent::KeyPress) {
            auto* key = static_cast<QKeyEvent*>(event);
            if ((key->key() == Qt::Key_Return || key->key() == Qt::Key_Enter) &&
                (key->modifiers() & Qt::ControlModifier)) {
                commitAnnotation();
                return true;
            }
        }
    }
    return QWidget::eventFilter(watched, event);
}

void SuggestionsView::hideEvent(QHideEvent* event)
{
    commitAnnotation();
    QWidget::hideEvent(event);
}

QString SuggestionsView::statusText() const { return status_->text(); }
QString SuggestionsView::hintText() const { return hint_->text(); }
QString SuggestionsView::detailsText() const { return details_->text(); }

} // namespace sl
