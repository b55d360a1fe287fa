#include "widgets/range_stats_view.h"

#include <QApplication>
#include <QClipboard>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

#include "model/units.h"

namespace sl {

namespace {
int count(int64_t n) { return int(std::min<int64_t>(n, INT32_MAX)); }
} // namespace

RangeStatsView::RangeStatsView(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    auto* top = new QHBoxLayout;
    top->setContentsMargins(6, 2, 4, 0);
    summary_ = new QLabel(this);
    summary_->setWordWrap(true);
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    summary_->setMinimumWidth(1);
    top->addWidget(summary_, 1);
    copy_ = new QToolButton(this);
    copy_->setText(tr("Copy as TSV"));
    copy_->setToolTip(tr("Copy the table as tab-separated values (times in ns), for a spreadsheet"));
    copy_->setEnabled(false);
    top->addWidget(copy_, 0, Qt::AlignTop);
    layout->addLayout(top);
    model_ = new RangeStatsModel(this);
    proxy_ = new QSortFilterProxyModel(this);
    proxy_->setSourceModel(model_);
    proxy_->setSortRole(RangeStatsModel::SortRole);
    view_ = new QTableView(this);
    view_->setModel(proxy_);
    view_->setSortingEnabled(true);
    view_->sortByColumn(-1, Qt::AscendingOrder);   // the model's order (group, then time) until a header is clicked
    view_->setSelectionBehavior(QAbstractItemView::SelectRows);
    view_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    view_->verticalHeader()->hide();
    view_->verticalHeader()->setDefaultSectionSize(view_->fontMetrics().height() + 4);
    view_->horizontalHeader()->setSectionResizeMode(RangeStatsModel::Name, QHeaderView::Stretch);
    view_->setWordWrap(false);
    view_->setTextElideMode(Qt::ElideMiddle);
    layout->addWidget(view_, 1);
    view_->installEventFilter(this);
    connect(copy_, &QToolButton::clicked, this, &RangeStatsView::copyTsv);
    connect(model_, &RangeStatsModel::ready, this, [this] {
        updateSummary();
        copy_->setEnabled(model_->rowCount() > 0);
        view_->resizeColumnToContents(RangeStatsModel::Group);
        for (int c = RangeStatsModel::Count; c < RangeStatsModel::ColumnCount; ++c)
            view_->resizeColumnToContents(c);
        emit ready();
    });
    updateSummary();
}

void RangeStatsView::showRange(std::shared_ptr<const TimelineIndex> index, std::shared_ptr<const AnalysisResult> analysis,
                               TimeRange range)
{
    index_ = index;
    range_ = range;
    copy_->setEnabled(false);
    model_->setRange(std::move(index), std::move(analysis), range.start, range.end);
    updateSummary();
}

void RangeStatsView::updateSummary()
{
    if (!index_ || range_.isEmpty()) {
        summary_->setText(tr("Shift+drag on the timeline to sum up a time range here."));
        return;
    }
    const int64_t origin = index_->origin();
    const int64_t resolution = std::max<int64_t>(1, range_.duration() / 10);
    QString text = tr("<b>Range %1</b> (%2 – %3)")
                       .arg(formatDuration(range_.duration()), formatTimeAt(range_.start - origin, resolution),
                            formatTimeAt(range_.end - origin, resolution));
    if (model_->isComputing()) {
        text += QStringLiteral(" · ") + tr("summing…");
    } else {
        const RangeAggregate& a = model_->aggregate();
        text += QStringLiteral(" · ") +
                tr("%Ln kernel(s), %1", nullptr, count(a.kernels)).arg(formatDuration(a.kernel_ns)) +
                QStringLiteral(" · ") + tr("%Ln copies, %1", nullptr, count(a.copies)).arg(formatDuration(a.copy_ns)) +
                QStringLiteral(" · ") + tr("%Ln API call(s), %1", nullptr, count(a.api_calls)).arg(formatDuration(a.api_ns));
    }
    summary_->setText(text);
}

QString RangeStatsView::summaryText() const { return summary_->text(); }

void RangeStatsView::copyTsv() { QApplication::clipboard()->setText(model_->toTsv()); }

void RangeStatsView::keyPressEvent(QKeyEvent* event)
{
    if (event->matches(QKeySequence::Copy)) {
        copyTsv();
        event->accept();
        return;
    }
    QWidget::keyPressEvent(event);
}

bool RangeStatsView::eventFilter(QObject* watched, QEvent* event)
{
    // Ctrl+C in the table copies the whole table (the view alone would copy one cell).
    if (watched == view_ && event->type() == QEvent::KeyPress && static_cast<QKeyEvent*>(event)->matches(QKeySequence::Copy)) {
        copyTsv();
        return true;
    }
    return QWidget::eventFilter(watched, event);
}

} // namespace sl
