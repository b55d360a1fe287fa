#pragma once
// Per-device busy / idle / utilisation figures from the summary, one row per device. DisplayRole formatted,
// SortRole raw numbers.

#include <QAbstractTableModel>
#include <memory>

#include "analysis/timeline/summary.h"

namespace sl {

class DeviceModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Device, Window, Busy, Idle, Utilization, Gaps, GapTime, Kernels, ColumnCount };
    enum Role { SortRole = Qt::UserRole + 1 };

    explicit DeviceModel(QObject* parent = nullptr);

    void setSummary(std::shared_ptr<const Summary> summary);
    const DeviceSummary* deviceAt(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const Summary> summary_;
};

} // namespace sl
