#include "model/rank_heat_model.h"

#include "model/units.h"

#include <algorithm>
#include <cmath>

namespace sl {

RankHeatModel::RankHeatModel(Map map, QObject* parent) : QAbstractTableModel(parent), map_(map) {}

void RankHeatModel::setData(std::shared_ptr<const RankViewData> data)
{
    beginResetModel();
    data_ = std::move(data);
    max_ = 0;
    min_ = 0;
    bool first = true;
    for (int r = 0; r < rowCount(); ++r)
        for (int c = 0; c < columnCount(); ++c) {
            const double v = value(r, c);
            if (!std::isfinite(v))
                continue;
            max_ = first ? v : std::max(max_, v);
            min_ = first ? v : std::min(min_, v);
            first = false;
        }
    columnMedian_.assign(static_cast<size_t>(columnCount()), std::nan(""));
    if (map_ == Map::StepTime)
        for (int c = 0; c < columnCount(); ++c) {
            std::vector<double> v;
            for (int r = 0; r < rowCount(); ++r)
                if (std::isfinite(value(r, c)))
                    v.push_back(value(r, c));
            if (v.empty())
                continue;
            std::sort(v.begin(), v.end());
            const size_t n = v.size();
            columnMedian_[static_cast<size_t>(c)] = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
        }
    endResetModel();
}

int RankHeatModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() || !data_ ? 0 : static_cast<int>(data_->grid.ranks.size());
}

int RankHeatModel::columnCount(const QModelIndex& parent) const
{
    if (parent.isValid() || !data_)
        return 0;
    return static_cast<int>(map_ == Map::StepTime ? data_->grid.steps : data_->grid.collectives);
}

double RankHeatModel::value(int row, int column) const
{
    if (!data_ || row < 0 || column < 0 || row >= rowCount() || column >= columnCount())
        return std::nan("");
    const RankGrid& g = data_->grid;
    if (map_ == Map::StepTime)
        return g.step_ns[g.cell(static_cast<size_t>(row), static_cast<size_t>(column), g.steps)];
    return g.lateness_ns[g.cell(static_cast<size_t>(row), static_cast<size_t>(column), g.collectives)];
}

double RankHeatModel::shade(int row, int column) const
{
    const double v = value(row, column);
    if (!std::isfinite(v))
        return v;
    if (map_ == Map::Lateness)
        return max_ > 0 ? std::clamp(v / max_, 0.0, 1.0) : 0.0;
    const double median = columnMedian_[static_cast<size_t>(column)];
    return median > 0 ? std::clamp((v / median - 1.0) / kStepShadeSpan, 0.0, 1.0) : 0.0;
}

int32_t RankHeatModel::rankOfRow(int row) const
{
    return data_ && row >= 0 && row < rowCount() ? data_->grid.ranks[static_cast<size_t>(row)] : -1;
}

int64_t RankHeatModel::cellStart(int row, int column) const
{
    if (!std::isfinite(value(row, column)))
        return 0;
    const RankGrid& g = data_->grid;
    if (map_ == Map::StepTime)
        return g.step_start_ns[g.cell(static_cast<size_t>(row), static_cast<size_t>(column), g.steps)];
    return g.collective_start_ns[g.cell(static_cast<size_t>(row), static_cast<size_t>(column), g.collectives)];
}

int64_t RankHeatModel::cellEnd(int row, int column) const
{
    if (!std::isfinite(value(row, column)))
        return 0;
    const RankGrid& g = data_->grid;
    if (map_ == Map::StepTime)
        return cellStart(row, column) + static_cast<int64_t>(value(row, column));
    return g.collective_end_ns[g.cell(static_cast<size_t>(row), static_cast<size_t>(column), g.collectives)];
}

QString RankHeatModel::columnLabel(int column) const
{
    if (!data_ || column < 0 || column >= columnCount())
        return {};
    if (map_ == Map::StepTime)
        return tr("step %1").arg(column);
    return tr("%1 #%2").arg(QString::fromStdString(data_->grid.collective_kind[static_cast<size_t>(column)])).arg(column);
}

QVariant RankHeatModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= columnCount())
        return {};
    const double v = value(index.row(), index.column());
    switch (role) {
    case Qt::DisplayRole:
        return std::isfinite(v) ? formatDuration(static_cast<int64_t>(v)) : QString();
    case ValueRole:
        return v;
    case StartRole:
        return static_cast<qlonglong>(cellStart(index.row(), index.column()));
    case EndRole:
        return static_cast<qlonglong>(cellEnd(index.row(), index.column()));
    case Qt::ToolTipRole: {
        if (!std::isfinite(v))
            return tr("rank %1, %2: none").arg(rankOfRow(index.row())).arg(columnLabel(index.column()));
        if (map_ == Map::StepTime)
            return tr("rank %1, %2: %3 (click: open this rank at this step)")
                .arg(rankOfRow(index.row()))
                .arg(columnLabel(index.column()), formatDuration(static_cast<int64_t>(v)));
        return tr("rank %1, %2: arrives %3 after the first rank (click: open this rank there)")
            .arg(rankOfRow(index.row()))
            .arg(columnLabel(index.column()), formatDuration(static_cast<int64_t>(v)));
    }
    default:
        return {};
    }
}

QVariant RankHeatModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (role != Qt::DisplayRole || section < 0)
        return {};
    if (orientation == Qt::Vertical)
        return section < rowCount() ? QVariant(tr("rank %1").arg(rankOfRow(section))) : QVariant();
    return section < columnCount() ? QVariant(columnLabel(section)) : QVariant();
}

} // namespace sl
