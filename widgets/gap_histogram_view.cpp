#include "widgets/gap_histogram_view.h"

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QCategoryAxis>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QSplitter>
#include <QTableView>
#include <QMouseEvent>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QCursor>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QToolButton>
#include <QToolTip>
#include <QValueAxis>
#include <QVBoxLayout>
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "model/gap_list_model.h"
#include "model/selection.h"
#include "model/units.h"
#include "widgets/palette.h"
#include "widgets/timeline_view.h"

namespace sl {

namespace {

constexpr GapCause kCauses[] = {GapCause::HostWait, GapCause::KernelWait, GapCause::SyncWait, GapCause::DependencyWait,
                                GapCause::Other};

// A short axis label for a bin edge: "178ns", "1.78µs", "31.6ms" (three significant digits, no trailing zeros).
QString shortDuration(int64_t ns)
{
    static const struct {
        double scale;
        const char* unit;
    } units[] = {{1e9, "s"}, {1e6, "ms"}, {1e3, "µs"}, {1, "ns"}};
    for (const auto& u : units)
        if (double(ns) >= u.scale || u.scale == 1)
            return QString::number(double(ns) / u.scale, 'g', 3) + QString::fromUtf8(u.unit);
    return {};
}

} // namespace

GapHistogramView::GapHistogramView(QWidget* parent) : QWidget(parent)
{
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    auto* splitter = new QSplitter(Qt::Horizontal, this);
    splitter->setChildrenCollapsible(false);
    outer->addWidget(splitter);
    auto* chartSide = new QWidget(splitter);
    auto* layout = new QVBoxLayout(chartSide);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    view_ = new QChartView(chartSide);
    view_->setRenderHint(QPainter::Antialiasing);
    layout->addWidget(view_, 1);
    auto* bottom = new QHBoxLayout;
    bottom->setContentsMargins(0, 0, 4, 0);
    info_ = new QLabel(this);
    info_->setMargin(4);
    info_->setWordWrap(true);
    info_->setTextFormat(Qt::RichText);
    bottom->addWidget(info_, 1);
    fineButton_ = new QToolButton(this);
    fineButton_->setText(tr("Fine bins"));
    fineButton_->setCheckable(true);
    fineButton_->setToolTip(tr("Log-spaced bins, 4 per decade from 100 ns up to the largest gap, instead of the "
                               "summary's 7 buckets"));
    bottom->addWidget(fineButton_, 0, Qt::AlignVCenter);
    layout->addLayout(bottom);

    // The clicked bin's gaps: a table to step through, beside the chart.
    auto* listSide = new QWidget(splitter);
    auto* listLayout = new QVBoxLayout(listSide);
    listLayout->setContentsMargins(2, 0, 0, 0);
    listLayout->setSpacing(2);
    auto* listHead = new QHBoxLayout;
    listTitle_ = new QLabel(listSide);
    listHead->addWidget(listTitle_, 1);
    prevButton_ = new QToolButton(listSide);
    prevButton_->setArrowType(Qt::UpArrow);
    prevButton_->setToolTip(tr("Previous gap of the bin: centre it in the timeline"));
    prevButton_->setAccessibleName(tr("Previous gap"));
    nextButton_ = new QToolButton(listSide);
    nextButton_->setArrowType(Qt::DownArrow);
    nextButton_->setToolTip(tr("Next gap of the bin: centre it in the timeline"));
    nextButton_->setAccessibleName(tr("Next gap"));
    listHead->addWidget(prevButton_);
    listHead->addWidget(nextButton_);
    listLayout->addLayout(listHead);
    list_ = new GapListModel(this);
    std::array<QString, kGapCauses> causes;
    for (size_t c = 0; c < kGapCauses; ++c)
        causes[c] = TimelineView::causeLabel(GapCause(c));
    list_->setCauseLabels(causes);
    table_ = new QTableView(listSide);
    table_->setModel(list_);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->setSortingEnabled(true);
    table_->sortByColumn(GapListModel::StartColumn, Qt::AscendingOrder);
    table_->verticalHeader()->hide();
    table_->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 4);
    table_->horizontalHeader()->setStretchLastSection(true);
    table_->setWordWrap(false);
    table_->setTextElideMode(Qt::ElideMiddle);
    listLayout->addWidget(table_, 1);
    // the chart gets the larger share; the list's first three columns are as wide as their longest text needs
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    splitter->setSizes({3000, 2000});
    const QFontMetrics fm(font());
    const int pad = 3 * fm.averageCharWidth();
    table_->setColumnWidth(GapListModel::StartColumn, fm.horizontalAdvance(QStringLiteral("888.8888 ms")) + pad);
    table_->setColumnWidth(GapListModel::LengthColumn, fm.horizontalAdvance(QStringLiteral("888 µs")) + pad);
    table_->setColumnWidth(GapListModel::CauseColumn, fm.horizontalAdvance(TimelineView::causeLabel(GapCause::DependencyWait)) + pad);
    connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                if (current.isValid())
                    showGapRow(current.row());
            });
    connect(prevButton_, &QToolButton::clicked, this, [this] { stepGap(-1); });
    connect(nextButton_, &QToolButton::clicked, this, [this] { stepGap(+1); });
    connect(fineButton_, &QToolButton::toggled, this, &GapHistogramView::setFineBins);
    view_->viewport()->installEventFilter(this);
    view_->viewport()->setMouseTracking(true);
    setAnalysis(nullptr);
}

double GapHistogramView::logHeight(int64_t count) { return count > 0 ? std::log10(1.0 + double(count)) : 0.0; }

int GapHistogramView::binAt(const QPoint& pos) const
{
    QChart* chart = view_->chart();
    if (!chart || chart->series().isEmpty() || bins_->size() == 0)
        return -1;
    const QPointF scene = view_->mapToScene(pos);
    const QPointF inChart = chart->mapFromScene(scene);
    const QRectF plot = chart->plotArea();
    // The whole column counts, from the axis up to the top of the plot, not only the painted bar.
    if (inChart.x() < plot.left() || inChart.x() > plot.right() || inChart.y() < plot.top() - 2 ||
        inChart.y() > plot.bottom() + 2)
        return -1;
    const QPointF value = chart->mapToValue(inChart, chart->series().first());
    const int bin = int(std::lround(value.x()));
    return bin >= 0 && size_t(bin) < bins_->size() ? bin : -1;
}

bool GapHistogramView::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == view_->viewport()) {
        // Qt Charts 6.4 dereferences the item under a press without checking it: a press where the scene has none
        // (outside the chart) goes no further.
        if (event->type() == QEvent::MouseButtonPress &&
            !view_->itemAt(static_cast<QMouseEvent*>(event)->position().toPoint()))
            return true;
        if (event->type() == QEvent::MouseButtonRelease) {
            auto* me = static_cast<QMouseEvent*>(event);
            if (me->button() == Qt::LeftButton) {
                const int bin = binAt(me->position().toPoint());
                if (bin >= 0)
                    selectBucket(bin);
            }
        } else if (event->type() == QEvent::MouseMove) {
            auto* me = static_cast<QMouseEvent*>(event);
            const int bin = binAt(me->position().toPoint());
            if (bin >= 0)
                QToolTip::showText(me->globalPosition().toPoint(), bucketSummary(bin), view_);
            else
                QToolTip::hideText();
        }
    }
    return QWidget::eventFilter(watched, event);
}

void GapHistogramView::setSelection(Selection* selection) { selection_ = selection; }

void GapHistogramView::setTrace(std::shared_ptr<const Trace> trace, int64_t origin)
{
    trace_ = std::move(trace);
    origin_ = origin;
    list_->setSource(analysis_, trace_, origin_);
    if (selectedBucket_ >= 0)
        list_->setGaps(gapsInBucket(selectedBucket_));
    updateListButtons();
}

void GapHistogramView::showGapRow(int row)
{
    const int64_t g = list_->gapAt(row);
    if (g < 0 || !analysis_)
        return;
    const QModelIndex current = table_->currentIndex();
    if (!current.isValid() || current.row() != row) {
        // re-enters through currentRowChanged
        table_->setCurrentIndex(list_->index(row, GapListModel::StartColumn));
        return;
    }
    table_->scrollTo(current);
    updateListButtons();
    if (!selection_)
        return;
    const Gap& gap = analysis_->idle.gaps[size_t(g)];
    selection_->setGap(g);
    // The gap in the middle third of the view: the operations before and after it on either side.
    const int64_t span = std::max<int64_t>(3 * gap.duration(), 3);
    const int64_t centre = gap.start + gap.duration() / 2;
    selection_->setWindow({centre - span / 2, centre - span / 2 + span});
}

void GapHistogramView::stepGap(int direction)
{
    const int n = list_->rowCount();
    if (n == 0)
        return;
    const QModelIndex current = table_->currentIndex();
    int row = current.isValid() ? current.row() + direction : (direction > 0 ? 0 : n - 1);
    row = std::clamp(row, 0, n - 1);
    showGapRow(row);
}

void GapHistogramView::updateListButtons()
{
    const int n = list_->rowCount();
    const QModelIndex current = table_->currentIndex();
    prevButton_->setEnabled(n > 0 && (!current.isValid() || current.row() > 0));
    nextButton_->setEnabled(n > 0 && (!current.isValid() || current.row() + 1 < n));
    if (selectedBucket_ < 0 || !analysis_)
        listTitle_->setText(analysis_ ? tr("Click a bar to list its gaps.") : QString());
    else if (current.isValid())
        listTitle_->setText(tr("Gap %1 of %2").arg(current.row() + 1).arg(n));
    else
        listTitle_->setText(tr("%n gap(s) in this bin", nullptr, n));
}

std::vector<int64_t> GapHistogramView::gapsInBucket(int bucket) const { return bins_->gapsIn(bucket); }

QString GapHistogramView::binLabel(int bucket) const
{
    if (bucket < 0 || size_t(bucket) >= bins_->size())
        return {};
    if (!fine_) {
        // By its start in microseconds, the unit said once in the axis title ("0", "10", "100", "1k"), as the fine
        // bins are: with a range and a unit on every label ("10–50µs", "0.1–1ms") a docked chart turned and cut them
        // ("10–5…" at 1366×768). The hover text and the gap list give each bin's range with its units.
        const GapBucketDef& d = gap_bucket_defs()[size_t(bucket)];
        const int64_t u = d.lo_ns / 1000;
        return u >= 1000 && u % 1000 == 0 ? QString::number(u / 1000) + QLatin1Char('k') : QString::number(u);
    }
    // fine bins by their lower edge (the axis says so); the first starts at 0. As on a log axis, only the decades
    // carry a unit ("1µs", then "1.78", "3.16", "5.62", "10µs"): short enough to stand side by side in a dock
    if (bucket == 0)
        return QStringLiteral("0");
    const int64_t lo = bins_->lo(size_t(bucket));
    int64_t m = lo;
    while (m >= 10 && m % 10 == 0)
        m /= 10;
    QString label = shortDuration(lo);
    if (m != 1) {
        while (!label.isEmpty() && !label.back().isDigit())
            label.chop(1);
        // QBarCategoryAxis merges equal categories: "178" (ns) and "178" (µs) differ by invisible zero-width spaces
        label += QString((bucket - 1) / 4, QChar(0x200B));
    }
    return label;
}

QString GapHistogramView::bucketSummary(int bucket) const
{
    if (bucket < 0 || size_t(bucket) >= bins_->size())
        return {};
    const size_t b = size_t(bucket);
    QString range;
    if (!fine_) {
        // With its units (the axis labels carry none).
        const GapBucketDef& d = gap_bucket_defs()[b];
        range = d.hi_ns < 0 ? QStringLiteral("\u2265 %1").arg(formatDuration(d.lo_ns))
                            : QStringLiteral("%1 \u2013 %2").arg(formatDuration(d.lo_ns), formatDuration(d.hi_ns));
    } else if (bins_->hi(b) == std::numeric_limits<int64_t>::max())
        range = QStringLiteral("≥ %1").arg(formatDuration(bins_->lo(b)));
    else
        range = QStringLiteral("%1 – %2").arg(formatDuration(bins_->lo(b)), formatDuration(bins_->hi(b)));
    const int64_t n = bins_->binCount(b);
    QString h = tr("<b>%1</b>: %n gap(s), %2 in all", nullptr, int(n)).arg(range.toHtmlEscaped(), formatDuration(bins_->binTotal(b)));
    for (GapCause c : kCauses) {
        const int64_t cn = bins_->count[b][size_t(c)];
        if (cn == 0)
            continue;
        h += QStringLiteral("<br><span style=\"color:%1\">■</span>&nbsp;").arg(TimelineView::causeColor(c).name()) +
             tr("%1: %2 · %3").arg(TimelineView::causeLabel(c).toHtmlEscaped()).arg(cn).arg(
                 formatDuration(bins_->total_ns[b][size_t(c)]));
    }
    return h;
}

void GapHistogramView::selectBucket(int bucket)
{
    if (bucket < 0 || size_t(bucket) >= bins_->size())
        bucket = -1;
    selectedBucket_ = bucket;
    const std::vector<int64_t> gaps = gapsInBucket(bucket);
    list_->setGaps(gaps);
    updateListButtons();
    if (bucket < 0) {
        info_->setText(analysis_ ? tr("Click a bar to highlight its gaps in the timeline.") : QString());
    } else {
        info_->setText(bucketSummary(bucket).replace(QStringLiteral("<br>"), QStringLiteral(" &nbsp; ")) +
                       (gaps.empty() ? QString() : QStringLiteral(" &nbsp; <i>%1</i>").arg(tr("highlighted; the largest is selected").toHtmlEscaped())));
    }
    if (selection_) {
        selection_->setHighlightedGaps(gaps);
        if (!gaps.empty() && analysis_) {
            int64_t best = gaps.front();
            int64_t lo = INT64_MAX, hi = INT64_MIN;
            for (int64_t g : gaps) {
                const Gap& gap = analysis_->idle.gaps[size_t(g)];
                if (gap.duration() > analysis_->idle.gaps[size_t(best)].duration())
                    best = g;
                lo = std::min(lo, gap.start);
                hi = std::max(hi, gap.end);
            }
            selection_->setGap(best);
            // The timeline spans the bin's gaps, from the first to the last, with a margin (what F fits).
            const int64_t margin = std::max<int64_t>(1, (hi - lo) / 10);
            selection_->setWindow({lo - margin, hi + margin});
        }
    }
    emit bucketSelected(bucket);
}

void GapHistogramView::setFineBins(bool fine)
{
    if (fineButton_->isChecked() != fine) {
        fineButton_->setChecked(fine);   // re-enters through toggled()
        return;
    }
    if (fine_ == fine)
        return;
    fine_ = fine;
    rebuildChart();
    // bin indices of one mode mean nothing in the other: drop the highlight
    if (selectedBucket_ >= 0)
        selectBucket(-1);
    emit fineBinsChanged(fine_);
}

void GapHistogramView::setAnalysis(std::shared_ptr<const AnalysisResult> analysis,
                                   std::shared_ptr<const GapHistogramData> binned)
{
    analysis_ = std::move(analysis);
    binned_ = binned && analysis_ && binned->analysis == analysis_ ? std::move(binned) : nullptr;
    histogram_ = binned_ ? binned_->byCause : analysis_ ? binGapsByCause(analysis_->idle) : GapHistogram{};
    selectedBucket_ = -1;
    list_->setSource(analysis_, trace_ && analysis_ ? trace_ : nullptr, origin_);
    updateListButtons();
    // Gap indices belong to one analysis: a new one makes the highlighted / selected ones meaningless.
    if (selection_) {
        selection_->setHighlightedGaps({});
        selection_->setGap(-1);
    }
    info_->setText(analysis_ ? tr("Click a bar to highlight its gaps in the timeline.") : QString());
    rebuildChart();
}

void GapHistogramView::rebuildChart()
{
    if (!analysis_)
        bins_ = std::make_shared<const GapBins>();
    else if (!fine_ && binned_)
        bins_ = std::shared_ptr<const GapBins>(binned_, &binned_->summary);   // binned on the worker
    else
        bins_ = std::make_shared<const GapBins>(fine_ ? fineGapBins(analysis_->idle) : summaryGapBins(analysis_->idle));
    auto* chart = new QChart;
    // The title says what is scaled (the axes have no room for it in a short dock): each cause's own count, log scale.
    chart->setTitle(fine_ ? tr("Gaps per cause (log scale) by length, 4 bins per decade") : tr("Gaps per cause (log scale) by length"));
    // beside the plot, not under it: a bottom pane is short, and the bars need its height
    chart->legend()->setAlignment(Qt::AlignRight);
    chart->setMargins(QMargins(4, 4, 4, 4));
    // Side by side, not stacked: on a log axis a stacked bar cannot show shares (the top cause of a 10 + 10 bin would
    // get a sliver). Each cause present in the trace has its own bar in every bin, log10(1 + its count) high.
    auto* series = new QBarSeries;
    // fine bins are many and narrow: no gap between the groups, as in a histogram
    series->setBarWidth(fine_ ? 0.9 : 0.8);
    for (GapCause c : kCauses) {
        bool present = false;
        for (size_t b = 0; b < bins_->size() && !present; ++b)
            present = bins_->count[b][size_t(c)] > 0;
        if (!present)
            continue;
        auto* set = new QBarSet(TimelineView::causeLabel(c));
        set->setColor(TimelineView::causeColor(c));
        set->setBorderColor(TimelineView::causeColor(c).darker(130));
        for (size_t b = 0; b < bins_->size(); ++b)
            *set << logHeight(bins_->count[b][size_t(c)]);
        series->append(set);
    }
    if (series->count() == 0)   // no gaps: an empty set keeps the axes
        series->append(new QBarSet(QString()));
    chart->addSeries(series);
    // Clicks and hover are taken for the whole column by the viewport's event filter (binAt).
    QStringList categories;
    for (size_t b = 0; b < bins_->size(); ++b)
        categories << binLabel(int(b));
    auto* x = new QBarCategoryAxis;
    x->append(categories);
    x->setTitleText(fine_ ? tr("bin start") : tr("bin start (µs)"));
    // turned when they would not fit side by side (set before the axis is attached, or Qt Charts ignores it)
    x->setLabelsAngle(labelAngleFor(categories, x->labelsFont()));
    // The count axis: decades (1, 10, 100, 1k, ...) at their log heights.
    auto* y = new QCategoryAxis;
    y->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
    int64_t tallest = 1;
    for (size_t b = 0; b < bins_->size(); ++b)
        for (GapCause c : kCauses)
            tallest = std::max(tallest, bins_->count[b][size_t(c)]);
    int64_t top = 1;
    while (top < tallest)
        top *= 10;
    y->setStartValue(0.0);
    for (int64_t v = 1; v <= top; v *= 10)
        y->append(v >= 1000000 ? QStringLiteral("%1M").arg(v / 1000000) : v >= 1000 ? QStringLiteral("%1k").arg(v / 1000)
                                                                                     : QString::number(v),
                  logHeight(v));
    y->setRange(0, logHeight(top));
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    series->attachAxis(x);
    series->attachAxis(y);
    applyChartColors(chart, palette());
    QChart* old = view_->chart();
    view_->setChart(chart);
    delete old;
}

int GapHistogramView::labelAngleFor(const QStringList& labels, const QFont& font) const
{
    if (labels.isEmpty())
        return 0;
    const QFontMetrics fm(font);
    int widest = 0;
    for (const QString& l : labels)
        widest = std::max(widest, fm.horizontalAdvance(l));
    // the plot is about the view less the y axis, the legend on the right and the margins; Qt Charts elides a label
    // that does not have some 20 px to spare in its category
    int legend = 0;
    for (GapCause c : kCauses)
        legend = std::max(legend, fm.horizontalAdvance(TimelineView::causeLabel(c)));
    const double perBar = std::max(1.0, double(view_->width() - 90 - legend - 40)) / labels.size();
    return widest + 20 > perBar ? -60 : 0;
}

void GapHistogramView::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    // Qt Charts does not lay out again for a label angle changed on an attached axis: rebuild (a few dozen bars)
    auto* x = qobject_cast<QBarCategoryAxis*>(view_->chart()->axes(Qt::Horizontal).value(0));
    if (x && x->labelsAngle() != labelAngleFor(x->categories(), x->labelsFont()))
        rebuildChart();
}

void GapHistogramView::changeEvent(QEvent* event)
{
    QWidget::changeEvent(event);
    // Qt Charts ignore the widget palette: recolour the chart when the theme changes
    if (view_ && (event->type() == QEvent::PaletteChange || event->type() == QEvent::ApplicationPaletteChange))
        applyChartColors(view_->chart(), palette());
}

} // namespace sl
