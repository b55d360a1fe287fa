#include "widgets/findings_view.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QDateTime>
#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QSplitter>
#include <QTextBrowser>
#include <QToolButton>
#include <QTreeView>
#include <QUrl>
#include <QVBoxLayout>
#include <map>
#include <set>

#include "analysis/report/report_strings.h"
#include "model/document.h"
#include "model/findings_filter_model.h"
#include "model/findings_model.h"
#include "model/llm_reviewer.h"
#include "model/timeline_index.h"
#include "model/units.h"
#include "model/workbench_settings.h"

namespace sl {

namespace {

QString qs(const std::string& s) { return QString::fromStdString(s); }
QString esc(const std::string& s) { return QString::fromStdString(s).toHtmlEscaped(); }

} // namespace

FindingsView::FindingsView(Document* document, Selection* selection, QWidget* parent)
    : QWidget(parent), document_(document), selection_(selection)
{
    model_ = new FindingsModel(this);
    model_->setLanguage(WorkbenchSettings::load().langCode());
    proxy_ = new FindingsFilterModel(this);
    proxy_->setSourceModel(model_);

    // Toolbar: severity filter, search, copy command, count.
    severity_ = new QComboBox(this);
    severity_->setObjectName(QStringLiteral("severityFilter"));
    severity_->addItem(tr("All severities"), int(Severity::Info));
    severity_->addItem(tr("Low and above"), int(Severity::Low));
    severity_->addItem(tr("Medium and above"), int(Severity::Medium));
    severity_->addItem(tr("High only"), int(Severity::High));
    severity_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    search_ = new QLineEdit(this);
    search_->setObjectName(QStringLiteral("findingsSearch"));
    search_->setPlaceholderText(tr("Search findings, evidence, suggestions…"));
    search_->setClearButtonEnabled(true);
    search_->setMinimumWidth(160);
    auto* copy = new QAction(tr("Copy command"), this);
    copy->setToolTip(tr("Copy the verify command of the selected suggestion"));
    copy->setShortcut(QKeySequence::Copy);
    copy->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    copy->setEnabled(false);
    connect(copy, &QAction::triggered, this, &FindingsView::copyCurrentCommand);
    copyButton_ = new QToolButton(this);
    copyButton_->setObjectName(QStringLiteral("copyCommand"));
    copyButton_->setDefaultAction(copy);
    copyButton_->setToolButtonStyle(Qt::ToolButtonTextOnly);
    count_ = new QLabel(this);
    count_->setObjectName(QStringLiteral("findingsCount"));
    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(4, 4, 4, 0);
    auto* severityLabel = new QLabel(tr("Severity:"), this);
    severityLabel->setBuddy(severity_);
    bar->addWidget(severityLabel);
    bar->addWidget(severity_);
    bar->addWidget(search_, 1);
    bar->addWidget(copyButton_);
    bar->addWidget(count_);

    tree_ = new QTreeView(this);
    tree_->setObjectName(QStringLiteral("findingsTree"));
    tree_->setModel(proxy_);
    tree_->setUniformRowHeights(true);
    tree_->setAlternatingRowColors(true);
    tree_->setSortingEnabled(true);
    tree_->sortByColumn(FindingsModel::RankColumn, Qt::AscendingOrder);
    tree_->setSelectionBehavior(QAbstractItemView::SelectRows);
    tree_->setSelectionMode(QAbstractItemView::SingleSelection);
    tree_->setContextMenuPolicy(Qt::CustomContextMenu);
    tree_->addAction(copy);
    tree_->setIndentation(14);
    QHeaderView* h = tree_->header();
    h->setStretchLastSection(false);
    h->setSectionResizeMode(QHeaderView::Interactive);
    h->setSectionResizeMode(FindingsModel::TitleColumn, QHeaderView::Stretch);
    h->setMinimumSectionSize(40);
    const QFontMetrics fm = fontMetrics();
    auto widthFor = [&fm](const QStringList& samples, int extra) {
        int w = 0;
        for (const QString& s : samples)
            w = std::max(w, fm.horizontalAdvance(s));
        return w + extra;
    };
    // Column 0 shows the rank on findings and the kind of a child row (indented one level).
    h->resizeSection(FindingsModel::RankColumn,
                     widthFor({FindingsModel::kindLabel(FindingsModel::SuggestionRow),
                               FindingsModel::kindLabel(FindingsModel::RangeLinkRow), tr("Rank")},
                              tree_->indentation() * 2 + 16));
    h->resizeSection(FindingsModel::SeverityColumn,
                     widthFor({FindingsModel::severityLabel(Severity::Medium), tr("Severity")}, 40));
    h->resizeSection(FindingsModel::SubjectColumn, fm.horizontalAdvance(QLatin1Char('x')) * 26);
    h->resizeSection(FindingsModel::GainColumn, widthFor({QStringLiteral("88.8 % · 888 ms"), tr("Expected gain")}, 16));
    h->resizeSection(FindingsModel::ConfidenceColumn,
                     widthFor({QStringLiteral("medium · 0.88"), tr("risk: %1").arg(tr("medium")), tr("Confidence")}, 16));
    h->resizeSection(FindingsModel::StateColumn, widthFor({QStringLiteral("accepted"), tr("State")}, 16));
    h->resizeSection(FindingsModel::ReviewColumn, widthFor({tr("✗ disagrees"), tr("LLM review")}, 16));
    static_assert(FindingsModel::ColumnCount <= int(sizeof(widths_) / sizeof(widths_[0])));
    for (int c = 0; c < FindingsModel::ColumnCount; ++c)
        widths_[c] = h->sectionSize(c);
    tree_->setColumnHidden(FindingsModel::StateColumn, true);
    tree_->setColumnHidden(FindingsModel::ReviewColumn, true);
    tree_->viewport()->installEventFilter(this);

    detail_ = new QTextBrowser(this);
    detail_->setObjectName(QStringLiteral("findingDetail"));
    detail_->setOpenLinks(false);
    detail_->setOpenExternalLinks(false);
    detail_->setFrameShape(QFrame::NoFrame);
    connect(detail_, &QTextBrowser::anchorClicked, this, &FindingsView::onAnchor);

    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(tree_);
    split->addWidget(detail_);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    // The list never collapses; the detail may (a short pane, under a timeline given half the window, keeps its
    // rows of findings rather than a sliver of each).
    split->setChildrenCollapsible(false);
    split->setCollapsible(1, true);
    detail_->setMinimumHeight(0);
    tree_->setMinimumHeight(fontMetrics().height() * 3);

    footer_ = new QLabel(this);
    footer_->setObjectName(QStringLiteral("findingsFooter"));
    footer_->setWordWrap(true);
    footer_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    footer_->setContentsMargins(6, 2, 6, 4);
    footer_->hide();

    // The LLM reviewer's status line, with Cancel while it waits for the endpoint.
    reviewer_ = new LlmReviewer(this);
    connect(reviewer_, &LlmReviewer::reviewed, this, &FindingsView::onReviewed);
    reviewBar_ = new QWidget(this);
    reviewBar_->setObjectName(QStringLiteral("reviewBar"));
    auto* rb = new QHBoxLayout(reviewBar_);
    rb->setContentsMargins(6, 0, 4, 0);
    reviewStatus_ = new QLabel(reviewBar_);
    reviewStatus_->setObjectName(QStringLiteral("reviewStatus"));
    reviewStatus_->setWordWrap(true);
    reviewStatus_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    cancelReview_ = new QToolButton(reviewBar_);
    cancelReview_->setObjectName(QStringLiteral("cancelReview"));
    cancelReview_->setText(tr("Cancel"));
    cancelReview_->setToolTip(tr("Stop waiting for the LLM reviewer; the findings stay as they are"));
    cancelReview_->hide();
    connect(cancelReview_, &QToolButton::clicked, this, &FindingsView::cancelReview);
    rb->addWidget(reviewStatus_, 1);
    rb->addWidget(cancelReview_);
    reviewBar_->hide();

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(4);
    layout->addLayout(bar);
    layout->addWidget(reviewBar_);
    layout->addWidget(split, 1);
    layout->addWidget(footer_);

    connect(severity_, &QComboBox::currentIndexChanged, this, [this](int i) {
        proxy_->setMinimumSeverity(Severity(severity_->itemData(i).toInt()));
        updateCount();
    });
    connect(search_, &QLineEdit::textChanged, this, [this](const QString& t) {
        proxy_->setSearchText(t);
        if (!t.trimmed().isEmpty())
            tree_->expandAll();   // show the children that matched
        updateCount();
    });
    connect(tree_->selectionModel(), &QItemSelectionModel::currentChanged, this,
            [this](const QModelIndex& current) { onCurrentChanged(current); });
    connect(tree_, &QTreeView::clicked, this, &FindingsView::onActivated);
    connect(tree_, &QTreeView::activated, this, &FindingsView::onActivated);
    connect(tree_, &QWidget::customContextMenuRequested, this, &FindingsView::showContextMenu);
    connect(proxy_, &QAbstractItemModel::modelReset, this, &FindingsView::updateCount);
    connect(proxy_, &QAbstractItemModel::rowsInserted, this, &FindingsView::updateCount);
    connect(proxy_, &QAbstractItemModel::rowsRemoved, this, &FindingsView::updateCount);

    if (document_) {
        connect(document_, &Document::diagnosisChanged, this, &FindingsView::refresh);
        connect(document_, &Document::traceChanged, this, &FindingsView::refresh);
        connect(document_, &Document::cleared, this, &FindingsView::refresh);
    }
    refresh();
}

QString FindingsView::suggestionStateKey(const Finding& f, const Suggestion& s)
{
    return FindingsModel::suggestionStateKey(f, s);
}

void FindingsView::setLanguage(const QString& lang)
{
    model_->setLanguage(lang.startsWith(QLatin1String("zh")) ? "zh_CN" : "en");
    updateDetail();
}

void FindingsView::setSuggestionStates(const QHash<QString, QString>& states)
{
    model_->setSuggestionStates(states);
    statesShown_ = !states.isEmpty();
    adaptColumns();
    updateDetail();
}

bool FindingsView::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == tree_->viewport() && event->type() == QEvent::Resize)
        adaptColumns();
    return QWidget::eventFilter(watched, event);
}

void FindingsView::adaptColumns()
{
    // In a narrow dock the title keeps room: the subject (also in the title and the detail area), then the
    // confidence, give way first.
    const int available = tree_->viewport()->width();
    const int minTitle = fontMetrics().horizontalAdvance(QLatin1Char('x')) * 36;
    int fixed = 0;
    for (int c : {FindingsModel::RankColumn, FindingsModel::SeverityColumn, FindingsModel::SubjectColumn,
                  FindingsModel::GainColumn, FindingsModel::ConfidenceColumn})
        fixed += widths_[c];
    if (statesShown_)
        fixed += widths_[FindingsModel::StateColumn];
    if (reviewShown_)
        fixed += widths_[FindingsModel::ReviewColumn];
    const bool hideSubject = available - fixed < minTitle;
    const bool hideConfidence = available - (fixed - widths_[FindingsModel::SubjectColumn]) < minTitle;
    tree_->setColumnHidden(FindingsModel::SubjectColumn, hideSubject);
    tree_->setColumnHidden(FindingsModel::ConfidenceColumn, hideConfidence);
    tree_->setColumnHidden(FindingsModel::StateColumn, !statesShown_);
    tree_->setColumnHidden(FindingsModel::ReviewColumn, !reviewShown_);
}

void FindingsView::refresh()
{
    std::shared_ptr<const Diagnosis> d = document_ ? document_->diagnosis() : nullptr;
    if (d != model_->diagnosis()) {
        // Other findings: a review of the old ones (or one under way) no longer applies.
        reviewer_->abort();
        cancelReview_->hide();
        reviewBar_->hide();
        reviewStatus_->clear();
        reviewShown_ = false;
    }
    model_->setDiagnosis(d, document_ ? document_->trace() : nullptr);
    adaptColumns();
    const QString problems = d ? FindingsModel::problemsText(*d) : QString();
    footer_->setText(problems.isEmpty() ? QString() : QStringLiteral("⚠ ") + problems);
    footer_->setVisible(!problems.isEmpty());
    if (d) {
        QStringList tip;
        for (const RuleError& e : d->rule_errors)
            tip << QStringLiteral("%1 %2: %3").arg(qs(e.file), qs(e.rule_id), qs(e.message));
        for (const RuleError& e : d->eval.errors)
            tip << QStringLiteral("%1: %2").arg(qs(e.rule_id), qs(e.message));
        // One line per rule: what it missed, on how many subjects.
        struct Missing {
            std::set<std::string> metrics;
            int scopes = 0;
            std::string example;
        };
        std::map<std::string, Missing> byRule;
        for (const MissingData& m : d->eval.missing) {
            Missing& x = byRule[m.rule];
            x.metrics.insert(m.metrics.begin(), m.metrics.end());
            if (x.scopes++ == 0)
                x.example = m.subject;
        }
        for (const auto& [rule, x] : byRule) {
            QStringList metrics;
            for (const std::string& s : x.metrics)
                metrics << qs(s);
            tip << tr("%1: missing %2 (%n subject(s), e.g. %3)", nullptr, x.scopes)
                       .arg(qs(rule), metrics.join(QStringLiteral(", ")), qs(x.example));
        }
        footer_->setToolTip(tip.join(QLatin1Char('\n')));
    }
    detailRow_ = -1;
    detailSuggestion_ = -1;
    lastActivated_ = QPersistentModelIndex();
    updateCount();
    selectFirst();
    updateDetail();
}

void FindingsView::selectFirst()
{
    // The first finding is current (the detail area shows its evidence and suggestions) but stays collapsed, so the
    // ranked list shows every finding at first sight; its rows are one click away.
    const QModelIndex first = proxy_->index(0, 0);
    if (!first.isValid())
        return;
    tree_->selectionModel()->setCurrentIndex(
        first, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
}

void FindingsView::updateCount()
{
    const int total = model_->findingCount();
    const int shown = proxy_->rowCount();
    if (!model_->diagnosis())
        count_->clear();
    else if (shown == total)
        count_->setText(tr("%n finding(s)", nullptr, total));
    else
        count_->setText(tr("%1 of %n finding(s)", nullptr, total).arg(shown));
}

QModelIndex FindingsView::sourceIndex(const QModelIndex& index) const
{
    if (index.model() == proxy_)
        return proxy_->mapToSource(index);
    if (index.model() == model_)
        return index;
    return {};
}

void FindingsView::selectFinding(int row)
{
    const QModelIndex src = model_->findingIndex(row);
    if (!src.isValid())
        return;
    QModelIndex p = proxy_->mapFromSource(src);
    if (!p.isValid()) {   // filtered out: show everything again
        severity_->setCurrentIndex(0);
        search_->clear();
        p = proxy_->mapFromSource(src);
    }
    if (!p.isValid())
        return;
    tree_->expand(p);
    tree_->selectionModel()->setCurrentIndex(p, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    tree_->scrollTo(p, QAbstractItemView::PositionAtTop);
}

int FindingsView::currentFindingRow() const
{
    const QModelIndex src = sourceIndex(tree_->currentIndex());
    return src.isValid() ? src.data(FindingsModel::FindingRowRole).toInt() : -1;
}

void FindingsView::onCurrentChanged(const QModelIndex& current)
{
    const QModelIndex src = sourceIndex(current);
    const int row = src.isValid() ? src.data(FindingsModel::FindingRowRole).toInt() : -1;
    int suggestion = -1;
    if (src.isValid() && src.data(FindingsModel::RowKindRole).toInt() == FindingsModel::SuggestionRow)
        suggestion = src.data(FindingsModel::ChildIndexRole).toInt();
    const bool findingChanged = row != detailRow_;
    const bool suggestionChanged = suggestion != detailSuggestion_ || findingChanged;
    detailRow_ = row;
    detailSuggestion_ = suggestion;
    const Finding* f = model_->finding(row);
    copyButton_->defaultAction()->setEnabled(f && suggestion >= 0 && !f->suggestions[size_t(suggestion)].verify.empty());
    updateDetail();
    if (findingChanged)
        emit currentFindingChanged(row);
    if (suggestionChanged)
        emit currentSuggestionChanged(f && suggestion >= 0 ? suggestionStateKey(*f, f->suggestions[size_t(suggestion)])
                                                           : QString());
}

void FindingsView::onActivated(const QModelIndex& proxyIndex)
{
    // clicked and activated both arrive for one double-click: act once.
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    if (lastActivated_ == QPersistentModelIndex(proxyIndex) && now - lastActivatedMs_ < QApplication::doubleClickInterval())
        return;
    lastActivated_ = QPersistentModelIndex(proxyIndex);
    lastActivatedMs_ = now;
    activate(proxyIndex);
}

void FindingsView::activate(const QModelIndex& index)
{
    const QModelIndex src = sourceIndex(index);
    if (!src.isValid())
        return;
    const Finding* f = model_->findingAt(src);
    if (!f)
        return;
    switch (src.data(FindingsModel::RowKindRole).toInt()) {
    case FindingsModel::FindingRow:
        if (f->scope == ScopeKind::Kernel && selection_) {
            if (const auto trace = model_->trace()) {
                const StrId id = trace->strings.find(f->subject);
                if (id != StringPool::kNotFound) {
                    selection_->setKernelName(id);
                    // And its longest instance, as the Kernels table does, so the timeline and Details follow.
                    if (const auto index = document_->timeline()) {
                        const KernelLookup* lookup = index->kernelLookup();   // null until the index is complete
                        selection_->setKernel(lookup ? lookup->longestInstance(id)
                                                     : KernelLookup::scanLongestInstance(index->trace(), id));
                    }
                }
            }
        }
        break;
    case FindingsModel::KernelLinkRow: {
        const qint64 k = src.data(FindingsModel::KernelIndexRole).toLongLong();
        if (selection_)
            selection_->setKernel(k);
        emit kernelRequested(k);
        break;
    }
    case FindingsModel::RangeLinkRow: {
        const TimeRange r{src.data(FindingsModel::TimeRangeStartRole).toLongLong(),
                          src.data(FindingsModel::TimeRangeEndRole).toLongLong()};
        if (selection_)
            selection_->setRange(r);
        emit rangeRequested(r);
        break;
    }
    case FindingsModel::NvtxLinkRow:
        emit nvtxRequested(src.data(FindingsModel::NvtxNameRole).toString());
        break;
    default: break;
    }
}

void FindingsView::onAnchor(const QUrl& url)
{
    // Links of the detail area: copy:<suggestion>, kernel:<link>, range:<link>, nvtx:<link> of the shown finding.
    const Finding* f = model_->finding(detailRow_);
    if (!f)
        return;
    bool ok = false;
    const int i = url.path().toInt(&ok);
    if (!ok || i < 0)
        return;
    const QString scheme = url.scheme();
    if (scheme == QLatin1String("copy") && size_t(i) < f->suggestions.size())
        QApplication::clipboard()->setText(qs(verify_for(f->suggestions[size_t(i)].verify, model_->language())));
    else if (scheme == QLatin1String("kernel"))
        activate(model_->linkIndex(detailRow_, FindingsModel::KernelLinkRow, i));
    else if (scheme == QLatin1String("range"))
        activate(model_->linkIndex(detailRow_, FindingsModel::RangeLinkRow, i));
    else if (scheme == QLatin1String("nvtx"))
        activate(model_->linkIndex(detailRow_, FindingsModel::NvtxLinkRow, i));
}

void FindingsView::copyCurrentCommand()
{
    const Finding* f = model_->finding(detailRow_);
    if (f && detailSuggestion_ >= 0 && size_t(detailSuggestion_) < f->suggestions.size())
        QApplication::clipboard()->setText(qs(verify_for(f->suggestions[size_t(detailSuggestion_)].verify, model_->language())));
}

void FindingsView::showContextMenu(const QPoint& pos)
{
    const QModelIndex idx = tree_->indexAt(pos);
    if (!idx.isValid())
        return;
    QMenu menu(this);
    const QModelIndex src = sourceIndex(idx);
    const int kind = src.data(FindingsModel::RowKindRole).toInt();
    if (kind == FindingsModel::SuggestionRow)
        menu.addAction(copyButton_->defaultAction());
    if (kind == FindingsModel::KernelLinkRow)
        menu.addAction(tr("Select kernel"), this, [this, src] { activate(src); });
    if (kind == FindingsModel::RangeLinkRow)
        menu.addAction(tr("Select time range"), this, [this, src] { activate(src); });
    menu.addAction(tr("Copy text"), this, [src] {
        const QModelIndex title = src.siblingAtColumn(FindingsModel::TitleColumn);
        QApplication::clipboard()->setText(title.data(Qt::DisplayRole).toString());
    });
    menu.addSeparator();
    menu.addAction(tr("Expand all"), tree_, &QTreeView::expandAll);
    menu.addAction(tr("Collapse all"), tree_, &QTreeView::collapseAll);
    menu.exec(tree_->viewport()->mapToGlobal(pos));
}

QString FindingsView::reviewUnavailableReason(const ReviewerSettings& settings)
{
    if (!settings.enabled())
        return tr("No LLM endpoint is set: give one in Settings › Preferences › Reviewer. Until then nothing is sent "
                  "anywhere.");
    const QUrl url(settings.endpoint.trimmed());
    if (!url.isValid() || (url.scheme() != QLatin1String("http") && url.scheme() != QLatin1String("https")))
        return tr("The LLM endpoint %1 is not an http:// or https:// URL.").arg(settings.endpoint.trimmed());
    return {};
}

bool FindingsView::startReview(const ReviewerSettings& settings)
{
    const QString why = reviewUnavailableReason(settings);
    const std::shared_ptr<const Diagnosis> d = model_->diagnosis();
    if (!why.isEmpty() || !d || d->eval.findings.empty()) {
        setReviewStatus(!why.isEmpty() ? why : tr("There are no findings to review."), true);
        return false;
    }
    reviewer_->setSettings(settings);
    if (!reviewer_->review(d)) {
        setReviewStatus(tr("The review could not be sent to %1.").arg(settings.endpoint.trimmed()), true);
        return false;
    }
    const int n = std::min(int(d->eval.findings.size()), int(ReviewRequestOptions{}.max_findings));
    setReviewStatus(tr("Asking the LLM reviewer at %1 about %n finding(s)…", nullptr, n).arg(settings.endpoint.trimmed()));
    cancelReview_->show();
    return true;
}

void FindingsView::cancelReview()
{
    if (!reviewer_->isRunning())
        return;
    reviewer_->abort();
    cancelReview_->hide();
    setReviewStatus(tr("LLM review cancelled; the findings are unchanged."));
    emit reviewFinished(false);
}

bool FindingsView::isReviewing() const { return reviewer_->isRunning(); }
QString FindingsView::reviewStatusText() const { return reviewStatus_->text(); }

void FindingsView::setReviewStatus(const QString& text, bool error)
{
    reviewStatus_->setText(text);
    reviewStatus_->setStyleSheet(error ? QStringLiteral("color: #c62828;") : QString());
    reviewBar_->setVisible(!text.isEmpty());
    emit reviewStatusChanged(text);
}

void FindingsView::onReviewed(std::shared_ptr<const Review> review, std::shared_ptr<const Diagnosis> diagnosis)
{
    cancelReview_->hide();
    if (!review || diagnosis != model_->diagnosis()) {
        setReviewStatus(tr("The findings changed while the reviewer answered; its review was discarded."), true);
        emit reviewFinished(false);
        return;
    }
    if (review->status != "ok") {
        setReviewStatus(tr("LLM review failed: %1. The findings are unchanged.").arg(qs(review->error)), true);
        reviewStatus_->setToolTip(qs(review->endpoint));
        emit reviewFinished(false);
        return;
    }
    model_->setReview(review);
    reviewShown_ = true;
    adaptColumns();
    int agree = 0, disagree = 0;
    for (const ReviewVerdict& v : review->verdicts)
        (v.agree ? agree : disagree) += 1;
    QString text = tr("LLM review (advisory) by %1: %2 agree, %3 disagree, %4 dropped")
                       .arg(qs(review->model.empty() ? review->endpoint : review->model))
                       .arg(agree)
                       .arg(disagree)
                       .arg(review->dropped.size());
    QStringList tip{qs(review->endpoint)};
    for (const ReviewDrop& d : review->dropped)
        tip << tr("dropped %1: %2").arg(d.finding.empty() ? tr("a review") : qs(d.finding), qs(d.reason));
    setReviewStatus(text);
    reviewStatus_->setToolTip(tip.join(QLatin1Char('\n')));
    updateDetail();
    emit reviewFinished(true);
}

QString FindingsView::reviewDetailHtml(int row) const
{
    const ReviewVerdict* v = model_->reviewVerdict(row);
    const QStringList drops = model_->reviewDrops(row);
    if (!v && drops.isEmpty())
        return {};
    QString h = QStringLiteral("<h4>%1</h4>").arg(tr("LLM review (advisory)"));
    if (v) {
        h += QStringLiteral("<p><b style=\"color:%1\">%2</b> %3</p>")
                 .arg(v->agree ? QStringLiteral("#2ca02c") : QStringLiteral("#d62728"),
                      (v->agree ? tr("Agrees:") : tr("Disagrees:")).toHtmlEscaped(), esc(v->explanation));
        QStringList cites;
        for (const std::string& id : v->cites) {
            const QString e = model_->citedEvidenceText(row, id);
            cites << QStringLiteral("<code>%1</code> %2").arg(esc(id), e.toHtmlEscaped());
        }
        h += QStringLiteral("<p><small>%1 %2</small></p>").arg(tr("Cited evidence:"), cites.join(QStringLiteral("; ")));
    }
    for (const QString& d : drops)
        h += QStringLiteral("<p><small>%1</small></p>").arg(tr("A claim of the reviewer was dropped: %1").arg(d).toHtmlEscaped());
    return h;
}

QString FindingsView::detailHtml() const { return detail_->toHtml(); }
QString FindingsView::detailText() const { return detail_->toPlainText(); }
QString FindingsView::footerText() const { return footer_->text(); }

void FindingsView::updateDetail()
{
    const std::shared_ptr<const Diagnosis> d = model_->diagnosis();
    if (!d) {
        const bool hasTrace = document_ && document_->trace();
        detail_->setHtml(QStringLiteral("<p><i>%1</i></p>")
                             .arg(hasTrace ? tr("Findings appear when the rules have run.")
                                           : tr("Open a trace to see its findings.")));
        return;
    }
    const Finding* f = model_->finding(detailRow_);
    if (!f) {
        detail_->setHtml(QStringLiteral("<p><i>%1</i></p>")
                             .arg(d->eval.findings.empty()
                                      ? tr("No rule fired on this trace (%n rule(s) evaluated).", nullptr,
                                           d->eval.rules_evaluated)
                                      : tr("Select a finding to see its evidence and suggestions.")));
        return;
    }
    const std::string& lang = model_->language();
    const int64_t origin = model_->trace() ? model_->trace()->meta.capture_start : 0;
    QString h;
    h += QStringLiteral("<h3><span style=\"color:%1\">■</span> %2. %3</h3>")
             .arg(FindingsModel::severityColor(f->severity).name())
             .arg(detailRow_ + 1)
             .arg(esc(f->title.get(lang)));
    // The scope and its subject in the interface's words ("phase: decode" reads "阶段：解码").
    h += QStringLiteral("<p>%1 · %2 · <span style=\"white-space:nowrap\">%3</span></p>")
             .arg(FindingsModel::severityLabel(f->severity).toHtmlEscaped(),
                  (f->scope == ScopeKind::Trace
                       ? FindingsModel::scopeLabel(f->scope)   // not "whole trace: whole trace"
                       : tr("%1: %2").arg(FindingsModel::scopeLabel(f->scope), FindingsModel::subjectLabel(f->subject)))
                      .toHtmlEscaped(),
                  tr("rule %1").arg(qs(f->rule)).toHtmlEscaped());   // the rule file's id (not the JSON verdict token)
    h += QStringLiteral("<p>%1</p>").arg(esc(f->explanation.get(lang)));
    h += reviewDetailHtml(detailRow_);

    // Evidence.
    if (!f->evidence.empty()) {
        h += QStringLiteral("<h4>%1</h4><table cellspacing=0 cellpadding=3>").arg(tr("Evidence"));
        h += QStringLiteral("<tr><th align=left>%1</th><th align=right>%2</th><th align=left>%3</th>"
                            "<th align=left>%4</th></tr>")
                 .arg(tr("Metric"), tr("Value"), tr("Rule"), tr("Source"));
        // The metric in words (as the reports say it); the rule column keeps its key, what rules are written in.
        const report::Lang rl = lang == "zh_CN" ? report::Lang::ZhCN : report::Lang::En;
        for (const Evidence& e : f->evidence) {
            const QString rule = e.op.empty() || !e.threshold
                                     ? qs(e.metric)
                                     : QStringLiteral("%1 %2 %3").arg(qs(e.metric), qs(e.op),
                                                                      qs(format_metric(e.metric, *e.threshold)));
            h += QStringLiteral("<tr><td>%1</td><td align=right><b>%2</b></td><td><code>%3</code></td><td>%4</td></tr>")
                     .arg(qs(report::metric_label(e.metric, rl)).toHtmlEscaped(),
                          esc(format_metric(e.metric, e.value)), rule.toHtmlEscaped(),
                          FindingsModel::sourceLabel(e.source).toHtmlEscaped());
        }
        h += QStringLiteral("</table>");
    }

    // Expected gain and confidence.
    const ExpectedGain& g = f->expected_gain;
    h += QStringLiteral("<h4>%1</h4><p>").arg(tr("Expected gain"));
    if (g.computed) {
        h += tr("<b>%1</b> of the end-to-end time").arg(formatPercent(g.fraction));
        if (g.ns)
            h += QStringLiteral(" (<b>%1</b>)").arg(formatDuration(int64_t(*g.ns)));
        h += QStringLiteral("<br>") + tr("computed: %1").arg(QStringLiteral("<code>%1</code>").arg(FindingsModel::basisText(g).toHtmlEscaped()));
    } else {
        h += tr("<b>%1 to %2</b> of the end-to-end time").arg(formatPercent(g.low), formatPercent(g.high));
        h += QStringLiteral("<br>") + tr("the rule's range: the metrics did not give a number");
    }
    h += QStringLiteral("</p>");
    const Confidence& c = f->confidence;
    h += QStringLiteral("<h4>%1</h4><p><b>%2</b> = %3</p>")
             .arg(tr("Confidence"), FindingsModel::confidenceText(c).toHtmlEscaped(),
                  tr("prior %1 × data quality %2 × history %3")
                      .arg(c.prior, 0, 'f', 2)
                      .arg(c.data_quality, 0, 'f', 2)
                      .arg(c.kb_factor, 0, 'f', 2)
                      .toHtmlEscaped());
    if (!c.reasons.empty()) {
        h += QStringLiteral("<ul>");
        for (const std::string& r : c.reasons)
            h += QStringLiteral("<li>%1</li>").arg(model_->reasonText(r).toHtmlEscaped());
        h += QStringLiteral("</ul>");
    }

    // Suggestions.
    if (!f->suggestions.empty()) {
        h += QStringLiteral("<h4>%1</h4>").arg(tr("Suggestions"));
        for (size_t i = 0; i < f->suggestions.size(); ++i) {
            const Suggestion& s = f->suggestions[i];
            const QModelIndex idx = model_->suggestionIndex(detailRow_, int(i), FindingsModel::ConfidenceColumn);
            const QString state = idx.siblingAtColumn(FindingsModel::StateColumn).data().toString();   // localised
            const bool current = int(i) == detailSuggestion_;
            h += QStringLiteral("<p>%1<b>%2.</b> %3<br>")
                     .arg(current ? QStringLiteral("▶ ") : QString())
                     .arg(i + 1)
                     .arg(esc(s.text.get(lang)));
            const QString range = formatGainRange(s.gain_low, s.gain_high);
            QStringList meta{range.isEmpty() ? tr("no direct gain") : tr("gain %1").arg(range),
                             idx.data(Qt::DisplayRole).toString()};
            if (!s.metric.empty())
                meta << tr("measured by %1 (%2)")
                            .arg(qs(s.metric), s.direction == "increase" ? tr("increase")
                                               : s.direction == "decrease" ? tr("decrease")
                                                                           : qs(s.direction));
            if (!state.isEmpty())
                meta << tr("state: <b>%1</b>").arg(state.toHtmlEscaped());
            h += QStringLiteral("<small>%1</small></p>").arg(meta.join(QStringLiteral(" · ")));
            if (!s.verify.empty())
                h += QStringLiteral("<table width=\"100%\" cellspacing=0 cellpadding=4><tr><td bgcolor=\"%1\">"
                                    "<code style=\"white-space:pre-wrap\">%2</code></td></tr></table>"
                                    "<p><a href=\"copy:%3\">%4</a></p>")
                         .arg(palette().color(QPalette::AlternateBase).name(), esc(verify_for(s.verify, lang)))
                         .arg(i)
                         .arg(tr("Copy command"));
        }
    }

    // Links to the trace.
    const ScopeLinks& l = f->links;
    if (!l.kernel_ids.empty() || !l.time_ranges.empty() || !l.nvtx_ranges.empty()) {
        h += QStringLiteral("<h4>%1</h4><p>").arg(tr("In the trace"));
        QStringList links;
        const auto trace = model_->trace();
        for (size_t i = 0; i < l.kernel_ids.size() && i < 8; ++i) {
            const int64_t k = l.kernel_ids[i];
            QString label = tr("kernel #%1").arg(k);
            if (trace && k >= 0 && size_t(k) < trace->kernels.size())
                label = tr("%1 at %2").arg(QString::fromUtf8(trace->str(trace->kernels.short_name[size_t(k)])),
                                           formatDuration(trace->kernels.start[size_t(k)] - origin));
            links << QStringLiteral("<a href=\"kernel:%1\">%2</a>").arg(i).arg(label.toHtmlEscaped());
        }
        if (l.kernel_ids.size() > 8)
            links << tr("%n more kernel(s) in the tree", nullptr, int(l.kernel_ids.size() - 8));
        for (size_t i = 0; i < l.time_ranges.size() && i < 8; ++i) {
            const LinkedRange& r = l.time_ranges[i];
            links << QStringLiteral("<a href=\"range:%1\">%2</a>")
                         .arg(i)
                         .arg(QStringLiteral("%1 (%2 – %3)")
                                  .arg(r.label.empty() ? tr("time range") : qs(r.label),
                                       formatDuration(r.start - origin), formatDuration(r.end - origin))
                                  .toHtmlEscaped());
        }
        if (l.time_ranges.size() > 8)
            links << tr("%n more range(s) in the tree", nullptr, int(l.time_ranges.size() - 8));
        for (size_t i = 0; i < l.nvtx_ranges.size() && i < 8; ++i)
            links << QStringLiteral("<a href=\"nvtx:%1\">%2</a>").arg(i).arg(esc(l.nvtx_ranges[i]));
        h += links.join(QStringLiteral("<br>")) + QStringLiteral("</p>");
    }
    if (!f->references.empty()) {
        QStringList refs;
        for (const std::string& r : f->references)
            refs << esc(r);
        h += QStringLiteral("<p><small>%1 %2</small></p>").arg(tr("References:"), refs.join(QStringLiteral("; ")));
    }
    detail_->setHtml(h);
}

} // namespace sl
