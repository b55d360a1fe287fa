#include "widgets/search_bar.h"

#include <QCheckBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QTimer>
#include <QToolButton>

#include "analysis/timeline/analysis.h"
#include "model/selection.h"
#include "widgets/timeline_view.h"

namespace sl {

SearchBar::SearchBar(TimelineView* timeline, Selection* selection, QWidget* parent)
    : QWidget(parent), timeline_(timeline), selection_(selection)
{
    setObjectName(QStringLiteral("searchBar"));
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(6, 2, 6, 2);
    edit_ = new QLineEdit(this);
    edit_->setObjectName(QStringLiteral("searchText"));
    edit_->setPlaceholderText(tr("Find kernels (by name or operator class), NVTX ranges and API calls"));
    edit_->setClearButtonEnabled(true);
    edit_->installEventFilter(this);
    regex_ = new QCheckBox(tr("Regular expression"), this);
    caseSensitive_ = new QCheckBox(tr("Match case"), this);
    prev_ = new QToolButton(this);
    prev_->setText(QStringLiteral("▲"));
    prev_->setToolTip(tr("Previous match (Shift+Enter)"));
    next_ = new QToolButton(this);
    next_->setText(QStringLiteral("▼"));
    next_->setToolTip(tr("Next match (Enter)"));
    status_ = new QLabel(this);
    status_->setObjectName(QStringLiteral("searchStatus"));
    auto* closeButton = new QToolButton(this);
    closeButton->setText(QStringLiteral("✕"));
    closeButton->setToolTip(tr("Close (Esc)"));
    layout->addWidget(new QLabel(tr("Find:"), this));
    layout->addWidget(edit_, 1);
    layout->addWidget(prev_);
    layout->addWidget(next_);
    layout->addWidget(regex_);
    layout->addWidget(caseSensitive_);
    layout->addWidget(status_);
    layout->addWidget(closeButton);

    debounce_ = new QTimer(this);
    debounce_->setSingleShot(true);
    debounce_->setInterval(150);
    connect(debounce_, &QTimer::timeout, this, &SearchBar::run);
    connect(edit_, &QLineEdit::textEdited, this, [this] { debounce_->start(); });
    connect(edit_, &QLineEdit::textChanged, this, [this](const QString& t) {
        if (t.isEmpty())   // the clear button
            run();
    });
    connect(regex_, &QCheckBox::toggled, this, &SearchBar::run);
    connect(caseSensitive_, &QCheckBox::toggled, this, &SearchBar::run);
    connect(prev_, &QToolButton::clicked, this, &SearchBar::previous);
    connect(next_, &QToolButton::clicked, this, &SearchBar::next);
    connect(closeButton, &QToolButton::clicked, this, &SearchBar::close);
    updateStatus();
    hide();
    if (selection_)
        connect(selection_, &Selection::highlightedKernelsChanged, this,
                [this] { showKernels(selection_->highlightedKernels()); });
}

void SearchBar::setIndex(std::shared_ptr<const TimelineIndex> index)
{
    if (index == index_)
        return;
    if (index_ && index && !index_->complete() && index->tracePtr() == index_->tracePtr()) {
        // The complete timeline index of the same trace: same lanes and items, so the matches shown stand; the
        // search index is rebuilt on the next query, so it does not keep the coarse index alive.
        index_ = std::move(index);
        search_.reset();
        return;
    }
    index_ = std::move(index);
    search_.reset();
    kernelName_.clear();
    kernelSet_ = false;
    setMatches(nullptr);
}

const SearchIndex* SearchBar::searchIndex()
{
    if (!search_ && index_) {
        search_ = SearchIndex::build(index_);
        ++builds_;
    }
    return search_.get();
}

void SearchBar::setKernelClasses(std::shared_ptr<const AnalysisResult> analysis)
{
    kernelTags_.clear();
    if (analysis) {
        const OpClassResult& c = analysis->classes;
        for (const NameClass& nc : c.names) {
            if (nc.cls < 0 || size_t(nc.cls) >= c.classes.size())
                continue;
            const OpClassTotals& k = c.classes[size_t(nc.cls)];
            if (kernelTags_.size() <= nc.name)
                kernelTags_.resize(size_t(nc.name) + 1);
            kernelTags_[nc.name] = QString::fromStdString(k.id + " " + k.label + " " + k.label_zh_CN);
        }
    }
    if (isVisible() && !edit_->text().isEmpty() && kernelName_.isEmpty() && !kernelSet_)
        run();   // the matches shown follow
}

void SearchBar::activate()
{
    show();
    edit_->setFocus(Qt::ShortcutFocusReason);
    edit_->selectAll();
}

void SearchBar::search(const QString& text)
{
    edit_->setText(text);
    run();
}

void SearchBar::run()
{
    debounce_->stop();
    kernelName_.clear();
    kernelSet_ = false;
    const SearchIndex* s = searchIndex();
    if (!s || edit_->text().isEmpty()) {
        setMatches(nullptr);
        return;
    }
    SearchIndex::Options o;
    o.regex = regex_->isChecked();
    o.caseSensitive = caseSensitive_->isChecked();
    o.kernelTags = kernelTags_.empty() ? nullptr : &kernelTags_;
    setMatches(s->find(edit_->text(), o));
}

void SearchBar::showKernelInstances(StrId name)
{
    const SearchIndex* s = name == UINT32_MAX ? nullptr : searchIndex();
    if (!s) {
        if (!kernelName_.isEmpty()) {
            kernelName_.clear();
            setMatches(nullptr);
        }
        return;
    }
    auto m = s->kernelInstances(name);
    kernelName_ = m->text;
    kernelSet_ = false;
    show();
    setMatches(std::move(m));
}

void SearchBar::showKernels(const std::vector<int64_t>& rows)
{
    const SearchIndex* s = rows.empty() ? nullptr : searchIndex();
    if (!s) {
        if (kernelSet_) {
            kernelSet_ = false;
            setMatches(nullptr);
        }
        return;
    }
    kernelName_.clear();
    kernelSet_ = true;
    show();
    setMatches(s->kernelRows(rows, tr("selected kernels")));
}

void SearchBar::setMatches(std::shared_ptr<const SearchMatches> m)
{
    matches_ = std::move(m);
    current_ = -1;
    if (timeline_)
        timeline_->setSearchMatches(matches_);
    updateStatus();
}

void SearchBar::next() { step(+1); }
void SearchBar::previous() { step(-1); }

void SearchBar::step(int direction)
{
    if (debounce_->isActive())
        run();
    if (!matches_ || matches_->empty())
        return;
    const int64_t n = int64_t(matches_->ordered.size());
    if (current_ < 0) {
        // The first step starts where the user is looking.
        const int64_t from = timeline_ ? timeline_->window().start : 0;
        current_ = matches_->firstAtOrAfter(from);
        if (direction < 0)
            current_ = (current_ - 1 + n) % n;
    } else {
        current_ = (current_ + direction + n) % n;
    }
    if (timeline_)
        timeline_->setCurrentMatch(current_);
    updateStatus();
}

void SearchBar::close()
{
    debounce_->stop();
    kernelName_.clear();
    kernelSet_ = false;
    setMatches(nullptr);
    hide();
    if (timeline_)
        timeline_->setFocus();
}

QString SearchBar::statusText() const { return status_->text(); }

void SearchBar::updateStatus()
{
    const bool any = matches_ && !matches_->empty();
    prev_->setEnabled(any);
    next_->setEnabled(any);
    QString text;
    if (matches_ && matches_->invalidPattern) {
        text = tr("Invalid regular expression");
    } else if (matches_ && !matches_->text.isEmpty() && !any) {
        text = tr("No match");
    } else if (any) {
        const QLocale l;
        const QString total = l.toString(qlonglong(matches_->ordered.size()));
        if (kernelSet_)
            text = current_ >= 0 ? tr("Kernel %1 of %2 of the selected point").arg(l.toString(current_ + 1), total)
                                 : tr("%n kernel(s) of the selected point", nullptr, int(matches_->ordered.size()));
        else if (!kernelName_.isEmpty())
            text = current_ >= 0 ? tr("Instance %1 of %2 of the selected kernel").arg(l.toString(current_ + 1), total)
                                 : tr("%n instance(s) of the selected kernel", nullptr, int(matches_->ordered.size()));
        else {
            QStringList kinds;
            if (matches_->kernels)
                kinds << tr("%n kernel(s)", nullptr, matches_->kernels);
            if (matches_->ranges)
                kinds << tr("%n NVTX range(s)", nullptr, matches_->ranges);
            if (matches_->apiCalls)
                kinds << tr("%n API call(s)", nullptr, matches_->apiCalls);
            text = current_ >= 0 ? tr("%1 of %2").arg(l.toString(current_ + 1), total) : kinds.join(QStringLiteral(", "));
            if (current_ >= 0)
                text += QStringLiteral(" (") + kinds.join(QStringLiteral(", ")) + QLatin1Char(')');
        }
    }
    status_->setText(text);
}

bool SearchBar::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == edit_ && event->type() == QEvent::KeyPress) {
        auto* k = static_cast<QKeyEvent*>(event);
        if (k->key() == Qt::Key_Return || k->key() == Qt::Key_Enter) {
            step(k->modifiers() & Qt::ShiftModifier ? -1 : +1);
            return true;
        }
        if (k->key() == Qt::Key_Escape) {
            close();
            return true;
        }
    }
    return QWidget::eventFilter(watched, event);
}

} // namespace sl
