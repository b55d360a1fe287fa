#pragma once
// One row per launch of an Nsight Compute export: the table `sightline-cli ncu` prints (analysis/io/ncu_metrics.h
// computes every figure), for the ncu view of an ncu file opened without a trace. DisplayRole shows formatted text,
// SortRole the raw number (unknown figures sort first), ToolTipRole the full kernel name and ncu's rule texts.

#include <QAbstractTableModel>
#include <memory>
#include <vector>

#include "analysis/io/ncu_metrics.h"
#include "analysis/io/ncu_reader.h"

namespace sl {

class NcuLaunchModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        Id,
        Kernel,
        Duration,
        Grid,
        Block,
        DramBytes,
        Flops,
        Intensity,
        Achieved,
        SmThroughput,
        MemoryThroughput,
        DramThroughput,
        Occupancy,
        L1Hit,
        L2Hit,
        TensorPipe,
        TopStall,
        Rules,
        ColumnCount
    };
    enum Role { SortRole = Qt::UserRole + 1, LaunchIdRole };

    explicit NcuLaunchModel(QObject* parent = nullptr);

    void setReport(std::shared_ptr<const NcuReport> report);
    std::shared_ptr<const NcuReport> report() const { return report_; }
    const NcuLaunch* launchAt(int row) const;
    const NcuLaunchMetrics* metricsAt(int row) const;
    // The row of ncu launch `id`, or -1.
    int rowOfLaunch(int64_t id) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const NcuReport> report_;
    std::vector<NcuLaunchMetrics> metrics_;
};

} // namespace sl
