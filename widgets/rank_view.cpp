#include "widgets/rank_view.h"

#include "model/rank_heat_model.h"
#include "model/units.h"
#include "widgets/rank_heat_map.h"

#include <QLabel>
#include <QVBoxLayout>

namespace sl {

RankView::RankView(QWidget* parent) : QWidget(parent)
{
    stepModel_ = new RankHeatModel(RankHeatModel::Map::StepTime, this);
    latenessModel_ = new RankHeatModel(RankHeatModel::Map::Lateness, this);
    stepMap_ = new RankHeatMap(stepModel_, this);
    stepMap_->setObjectName(QStringLiteral("rankStepMap"));
    latenessMap_ = new RankHeatMap(latenessModel_, this);
    latenessMap_->setObjectName(QStringLiteral("rankLatenessMap"));
    summary_ = new QLabel(tr("Open a folder of ranks (File › Open Ranks Folder…)."), this);
    summary_->setWordWrap(true);
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    stepText_ = tr("Step time per rank and step, against the step's median rank (darker: slower than the others in "
                   "that step; 20 % or more: darkest). Click a cell to open that rank at that step.");
    stepCaption_ = new QLabel(stepText_, this);
    stepCaption_->setWordWrap(true);
    latenessText_ = tr("Lateness of arrival at each collective matched on every rank (darker: later than the first "
                       "rank). Click a cell to open that rank there.");
    latenessCaption_ = new QLabel(latenessText_, this);
    latenessCaption_->setWordWrap(true);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(summary_);
    layout->addWidget(stepCaption_);
    layout->addWidget(stepMap_, 1);
    layout->addWidget(latenessCaption_);
    layout->addWidget(latenessMap_, 1);
    connect(stepMap_, &RankHeatMap::cellClicked, this,
            [this](int row, int column) { cellClicked(stepModel_, row, column); });
    connect(latenessMap_, &RankHeatMap::cellClicked, this,
            [this](int row, int column) { cellClicked(latenessModel_, row, column); });
}

void RankView::setStatus(const QString& text) { summary_->setText(text); }

void RankView::setData(std::shared_ptr<const RankViewData> data)
{
    stepModel_->setData(data);
    latenessModel_->setData(data);
    if (!data) {
        summary_->clear();
        return;
    }
    // A map with no columns is an empty box: say why instead.
    const bool steps = data->grid.steps > 0, collectives = data->grid.collectives > 0;
    stepMap_->setVisible(steps);
    latenessMap_->setVisible(collectives);
    stepCaption_->setText(steps ? stepText_
                                : tr("No steps in these ranks' traces (no ProfilerStep or step annotation): no step "
                                     "map."));
    latenessCaption_->setText(collectives ? latenessText_
                                          : tr("No collective matched on every rank: no lateness map."));
    const RankMerge& m = data->merge;
    QString text = tr("%n rank(s) of world size %1, %2 steps, %3 collectives matched on every rank.", nullptr,
                      static_cast<int>(m.ranks.size()))
                       .arg(m.world_size)
                       .arg(data->grid.steps)
                       .arg(data->grid.collectives_total);
    const CollectiveStats& st = m.collectives;
    if (st.straggler_rank && st.straggler_makes_others_wait && m.cross.straggler_lateness_ns)
        text += QLatin1Char(' ') + tr("Rank %1 arrives last, %2 after the others' median; they wait %3 for it.")
                                      .arg(*st.straggler_rank)
                                      .arg(formatDuration(static_cast<int64_t>(*m.cross.straggler_lateness_ns)),
                                           formatDuration(st.straggler_wait_ns));
    if (m.step_spread && m.slowest_rank && *m.step_spread >= 0.001)
        text += QLatin1Char(' ') + tr("Step time spread %1 (slowest rank %2).")
                                      .arg(formatPercent(*m.step_spread))
                                      .arg(*m.slowest_rank);
    if (data->grid.collectives < data->grid.collectives_total)
        text += QLatin1Char(' ') + tr("The lateness map shows the first %1 collectives.").arg(data->grid.collectives);
    summary_->setText(text);
}

void RankView::cellClicked(RankHeatModel* model, int row, int column)
{
    const auto data = model->rankData();
    if (!data || row < 0 || static_cast<size_t>(row) >= data->grid.traces.size())
        return;
    const QString trace = QString::fromStdString(data->grid.traces[static_cast<size_t>(row)]);
    const qint64 start = model->cellStart(row, column), end = model->cellEnd(row, column);
    if (trace.isEmpty() || end <= start)
        return;
    emit openRankRequested(trace, start, end);
}

} // namespace sl
