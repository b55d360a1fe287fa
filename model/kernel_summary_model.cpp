#include "model/kernel_summary_model.h"

#include <QLocale>

#include "model/units.h"

namespace sl {

KernelSummaryModel::KernelSummaryModel(QObject* parent) : QAbstractTableModel(parent) {}

void KernelSummaryModel::setSummary(std::shared_ptr<const Summary> summary)
{
    const StatSection* section = summary ? &summary->kernels : nullptr;
    setSection(std::move(summary), section);
}

void KernelSummaryModel::setSection(std::shared_ptr<const Summary> summary, const StatSection* section)
{
    beginResetModel();
    summary_ = std::move(summary);
    section_ = summary_ ? section : nullptr;
    endResetModel();
}

const StatRow* KernelSummaryModel::rowAt(int row) const
{
    if (!section_ || row < 0 || row >= static_cast<int>(section_->by_name.size()))
        return nullptr;
    return &section_->by_name[static_cast<size_t>(row)];
}

int KernelSummaryModel::rowCount(const QModelIndex& parent) const
{
    if (parent.isValid() || !section_)
        return 0;
    return static_cast<int>(section_->by_name.size());
}

int KernelSummaryModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant KernelSummaryModel::data(const QModelIndex& index, int role) const
{
    const StatRow* r = index.isValid() ? rowAt(index.row()) : nullptr;
    if (!r)
        return {};
    const int col = index.column();
    if (role == SortRole) {
        switch (col) {
        case TimePercent: return r->percent;
        case Total: return qlonglong(r->total_ns);
        case Instances: return qlonglong(r->instances);
        case Avg: return r->avg_ns;
        case Med: return r->med_ns;
        case Min: return qlonglong(r->min_ns);
        case Max: return qlonglong(r->max_ns);
        case StdDev: return r->stddev_ns;
        case Name: return QString::fromStdString(r->name);
        }
        return {};
    }
    if (role == Qt::DisplayRole) {
        switch (col) {
        case TimePercent: return QString::number(r->percent, 'f', 1);
        case Total: return formatDuration(r->total_ns);
        case Instances: return QLocale().toString(qlonglong(r->instances));
        case Avg: return formatDuration(qRound64(r->avg_ns));
        case Med: return formatDuration(qRound64(r->med_ns));
        case Min: return formatDuration(r->min_ns);
        case Max: return formatDuration(r->max_ns);
        case StdDev: return formatDuration(qRound64(r->stddev_ns));
        case Name: return QString::fromStdString(r->name);
        }
        return {};
    }
    if (role == Qt::ToolTipRole && col == Name)
        return QString::fromStdString(r->name);
    if (role == Qt::TextAlignmentRole)
        return col == Name ? QVariant(Qt::AlignLeft | Qt::AlignVCenter) : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

QVariant KernelSummaryModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::DisplayRole) {
        switch (section) {
        case TimePercent: return tr("Time %");
        case Total: return tr("Total");
        case Instances: return tr("Instances");
        case Avg: return tr("Avg");
        case Med: return tr("Med");
        case Min: return tr("Min");
        case Max: return tr("Max");
        case StdDev: return tr("StdDev");
        case Name: return tr("Name");
        }
    }
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case TimePercent: return tr("Share of the summed time of this table (not of wall time)");
        case Total: return tr("Summed duration of all instances");
        case Med: return tr("Median duration");
        case StdDev: return tr("Sample standard deviation of the duration");
        default: break;
        }
    }
    return {};
}

} // namespace sl
