#include "widgets/gap_histogram_view.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QStackedBarSeries>
#include <QValueAxis>
#include <QVBoxLayout>
#include <algorithm>

#include "widgets/timeline_view.h"

namespace sl {

GapHistogramView::GapHistogramView(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    view_ = new QChartView(this);
    view_->setRenderHint(QPainter::Antialiasing);
    layout->addWidget(view_);
    setAnalysis(nullptr);
}

void GapHistogramView::setAnalysis(std::shared_ptr<const AnalysisResult> analysis)
{
    histogram_ = analysis ? binGapsByCause(analysis->idle) : GapHistogram{};
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
