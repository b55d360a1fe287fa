#include "widgets/gap_histogram_view.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QLabel>
#include <QToolTip>
#include <QCursor>
#include <QStackedBarSeries>
#include <QValueAxis>
#include <QVBoxLayout>
#include <algorithm>

#include "model/selection.h"
#include "model/units.h"
#include "widgets/timeline_view.h"

namespace sl {

GapHistogramView::GapHistogramView(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    view_ = new QChartView(this);
    view_->setRenderHint(QPainter::Antialiasing);
    layout->addWidget(view_);
    info_ = new QLabel(this);
    info_->setMargin(4);
    info_->setWordWrap(true);
    info_->setTextFormat(Qt::RichText);
    layout->addWidget(info_);
    setAnalysis(nullptr);
}

void GapHistogramView::setSelection(Selection* selection) { selection_ = selection; }

std::vector<int64_t> GapHistogramView::gapsInBucket(int bucket) const
{
    std::vector<int64_t> out;
    if (!analysis_ || bucket < 0 || size_t(bucket) >= kGapBuckets)
        return out;
    const auto& gaps = analysis_->idle.gaps;
    for (size_t i = 0; i < gaps.size(); ++i)
        if (gap_bucket_of(gaps[i].duration()) == size_t(bucket))
            out.push_back(int64_t(i));
    return out;
}

QString GapHistogramView::bucketSummary(int bucket) const
{
    if (bucket < 0 || size_t(bucket) >= kGapBuckets)
        return {};
    const GapBucketDef& d = gap_bucket_defs()[size_t(bucket)];
    int64_t n = 0, ns = 0;
    for (size_t c = 0; c < 4; ++c) {
        n += histogram_.count[size_t(bucket)][c];
        ns += histogram_.total_ns[size_t(bucket)][c];
    }
    const QString label = d.lo_ns == 0 ? QStringLiteral("0-1us") : QString::fromUtf8(d.label);
    QString h = tr("<b>%1</b>: %n gap(s), %2 in all", nullptr, int(n)).arg(label.toHtmlEscaped(), formatDuration(ns));
    for (GapCause c : {GapCause::HostWait, GapCause::KernelWait, GapCause::SyncWait, GapCause::Other}) {
        const int64_t cn = histogram_.count[size_t(bucket)][size_t(c)];
        if (cn == 0)
            continue;
        h += QStringLiteral("<br><span style=\"color:%1\">■</span>&nbsp;").arg(TimelineView::causeColor(c).name()) +
             tr("%1: %2 · %3").arg(TimelineView::causeLabel(c).toHtmlEscaped()).arg(cn).arg(
                 formatDuration(histogram_.total_ns[size_t(bucket)][size_t(c)]));
    }
    return h;
}

void GapHistogramView::selectBucket(int bucket)
{
    if (bucket < 0 || size_t(bucket) >= kGapBuckets)
        bucket = -1;
    selectedBucket_ = bucket;
    const std::vector<int64_t> gaps = gapsInBucket(bucket);
    if (bucket < 0) {
        info_->setText(tr("Click a bar to highlight its gaps in the timeline."));
    } else {
        info_->setText(bucketSummary(bucket).replace(QStringLiteral("<br>"), QStringLiteral(" &nbsp; ")) +
                       (gaps.empty() ? QString() : QStringLiteral(" &nbsp; <i>%1</i>").arg(tr("highlighted; the largest is selected").toHtmlEscaped())));
    }
    if (selection_) {
        selection_->setHighlightedGaps(gaps);
        if (!gaps.empty() && analysis_) {
            int64_t best = gaps.front();
            for (int64_t g : gaps)
                if (analysis_->idle.gaps[size_t(g)].duration() > analysis_->idle.gaps[size_t(best)].duration())
                    best = g;
            selection_->setGap(best);
        }
    }
    emit bucketSelected(bucket);
}

void GapHistogramView::setAnalysis(std::shared_ptr<const AnalysisResult> analysis)
{
    analysis_ = std::move(analysis);
    histogram_ = analysis_ ? binGapsByCause(analysis_->idle) : GapHistogram{};
    selectedBucket_ = -1;
    // Gap indices belong to one analysis: a new one makes the highlighted / selected ones meaningless.
    if (selection_) {
        selection_->setHighlightedGaps({});
        selection_->setGap(-1);
    }
    info_->setText(analysis_ ? tr("Click a bar to highlight its gaps in the timeline.") : QString());
    auto* chart = new QChart;
    chart->setTitle(tr("Idle gaps by size and cause"));
    chart->legend()->setAlignment(Qt::AlignBottom);
    chart->setMargins(QMargins(4, 4, 4, 4));
    auto* series = new QStackedBarSeries;
    for (GapCause c : {GapCause::HostWait, GapCause::KernelWait, GapCause::SyncWait, GapCause::Other}) {
        auto* set = new QBarSet(TimelineView::causeLabel(c));
        set->setColor(TimelineView::causeColor(c));
        set->setBorderColor(TimelineView::causeColor(c).darker(130));
        for (size_t b = 0; b < kGapBuckets; ++b)
            *set << double(histogram_.count[b][size_t(c)]);
        series->append(set);
    }
    chart->addSeries(series);
    connect(series, &QStackedBarSeries::clicked, this, [this](int index, QBarSet*) { selectBucket(index); });
    connect(series, &QStackedBarSeries::hovered, this, [this](bool on, int index, QBarSet*) {
        if (on)
            QToolTip::showText(QCursor::pos(), bucketSummary(index), view_);
        else
            QToolTip::hideText();
    });
    QStringList categories;
    // "<1us" would be read as rich text by the axis: name the first bucket by its range.
    for (const GapBucketDef& d : gap_bucket_defs())
        categories << (d.lo_ns == 0 ? QStringLiteral("0-1us") : QString::fromUtf8(d.label));
    auto* x = new QBarCategoryAxis;
    x->append(categories);
    x->setTitleText(tr("Gap length"));
    auto* y = new QValueAxis;
    y->setTitleText(tr("Gaps"));
    y->setLabelFormat(QStringLiteral("%d"));
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    series->attachAxis(x);
    series->attachAxis(y);
    int64_t tallest = 1;
    for (size_t b = 0; b < kGapBuckets; ++b) {
        int64_t stack = 0;
        for (size_t c = 0; c < 4; ++c)
            stack += histogram_.count[b][c];
        tallest = std::max(tallest, stack);
    }
    y->setRange(0, double(tallest));
    y->applyNiceNumbers();
    QChart* old = view_->chart();
    view_->setChart(chart);
    delete old;
}

} // namespace sl
