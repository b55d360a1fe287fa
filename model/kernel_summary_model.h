#pragma once
// A table over a duration summary section (the kernel summary; the same shape serves the API and NVTX summaries):
// nsys cuda_gpu_kern_sum columns. DisplayRole shows formatted text, SortRole gives the raw number so sorting is
// numeric, ToolTipRole gives the full name.

#include <QAbstractTableModel>
#include <memory>

#include "analysis/timeline/summary.h"

namespace sl {

class KernelSummaryModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { TimePercent, Total, Instances, Avg, Med, Min, Max, StdDev, Name, ColumnCount };
    enum Role { SortRole = Qt::UserRole + 1 };

    explicit KernelSummaryModel(QObject* parent = nullptr);

    // Shows summary->kernels (or clears when null). The summary is kept alive by the model.
    void setSummary(std::shared_ptr<const Summary> summary);
    // Shows an arbitrary section of `summary` (e.g. &summary->api).
    void setSection(std::shared_ptr<const Summary> summary, const StatSection* section);

    const StatRow* rowAt(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const Summary> summary_;
    const StatSection* section_ = nullptr;
};

} // namespace sl
