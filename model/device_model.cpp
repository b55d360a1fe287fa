#include "model/device_model.h"

#include <QLocale>

#include "model/units.h"

namespace sl {

DeviceModel::DeviceModel(QObject* parent) : QAbstractTableModel(parent) {}

void DeviceModel::setSummary(std::shared_ptr<const Summary> summary)
{
    beginResetModel();
    summary_ = std::move(summary);
    endResetModel();
}

const DeviceSummary* DeviceModel::deviceAt(int row) const
{
    if (!summary_ || row < 0 || row >= static_cast<int>(summary_->devices.size()))
        return nullptr;
    return &summary_->devices[static_cast<size_t>(row)];
}

int DeviceModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() || !summary_ ? 0 : static_cast<int>(summary_->devices.size());
}

int DeviceModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

static QString deviceLabel(const DeviceSummary& d)
{
    QString s = DeviceModel::tr("GPU %1").arg(d.id);
    if (d.rank != 0)
        s = DeviceModel::tr("Rank %1 · GPU %2").arg(d.rank).arg(d.id);
    if (!d.name.empty())
        s += QStringLiteral(" — ") + QString::fromStdString(d.name);
    return s;
}

QVariant DeviceModel::data(const QModelIndex& index, int role) const
{
    const DeviceSummary* d = index.isValid() ? deviceAt(index.row()) : nullptr;
    if (!d)
        return {};
    const int col = index.column();
    if (role == SortRole) {
        switch (col) {
        case Device: return (qlonglong(d->rank) << 32) | qlonglong(uint32_t(d->id));
        case Window: return qlonglong(d->window_ns);
        case Busy: return qlonglong(d->busy_ns);
        case Idle: return qlonglong(d->idle_ns);
        case Utilization: return d->utilization;
        case Gaps: return qlonglong(d->gaps.count);
        case GapTime: return qlonglong(d->gaps.total_ns);
        case Kernels: return qlonglong(d->kernels);
        }
        return {};
    }
    if (role == Qt::DisplayRole) {
        switch (col) {
        case Device: return deviceLabel(*d);
        case Window: return formatDuration(d->window_ns);
        case Busy: return formatDuration(d->busy_ns);
        case Idle: return formatDuration(d->idle_ns);
        case Utilization: return formatPercent(d->utilization);
        case Gaps: return QLocale().toString(qlonglong(d->gaps.count));
        case GapTime: return formatDuration(d->gaps.total_ns);
        case Kernels: return QLocale().toString(qlonglong(d->kernels));
        }
        return {};
    }
    if (role == Qt::TextAlignmentRole)
        return col == Device ? QVariant(Qt::AlignLeft | Qt::AlignVCenter) : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole && col == Device && d->kernels + d->memcpys + d->memsets == 0)
        return tr("This device did no GPU work in the trace");
    return {};
}

QVariant DeviceModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::DisplayRole) {
        switch (section) {
        case Device: return tr("Device");
        case Window: return tr("GPU activity window");
        case Busy: return tr("Busy");
        case Idle: return tr("Idle");
        case Utilization: return tr("Utilization");
        case Gaps: return tr("Gaps");
        case GapTime: return tr("Gap time");
        case Kernels: return tr("Kernels");
        }
    }
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case Window: return tr("From the first GPU operation to the end of the last one");
        case Busy: return tr("Union of kernel, memcpy and memset intervals");
        case Idle: return tr("Window minus busy time");
        case Utilization: return tr("Busy time as a share of the window");
        case Gaps: return tr("Idle intervals between busy periods");
        default: break;
        }
    }
    return {};
}

} // namespace sl
