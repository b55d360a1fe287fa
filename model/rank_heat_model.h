#pragma once
// The rank view's two maps as table models (issue 38 §4): rows are ranks, columns steps (step time) or collectives
// matched on every rank (lateness of arrival: the rank's start less the earliest rank's). Display: the formatted
// value; ValueRole: the raw nanoseconds (NaN where the rank has no such step); the tooltip says rank, column and
// value. Data from RankJob (rank_job.h); the drawing is widgets/rank_heat_map.h.

#include "model/rank_job.h"

#include <QAbstractTableModel>

#include <memory>
#include <vector>

namespace sl {

class RankHeatModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum class Map { StepTime, Lateness };
    enum Role { ValueRole = Qt::UserRole + 1, StartRole, EndRole };

    explicit RankHeatModel(Map map, QObject* parent = nullptr);

    void setData(std::shared_ptr<const RankViewData> data);
    std::shared_ptr<const RankViewData> rankData() const { return data_; }
    Map map() const { return map_; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // Raw value of a cell (NaN when none), and the largest finite value.
    double value(int row, int column) const;
    // The cell's shade in [0, 1] (NaN when none). Step time: against the step's median rank, 0 at or below it and 1
    // at kStepShadeSpan or more above it, so a rank slower than the others in that step stands out whatever the
    // step's kind (a prefill step is long on every rank). Lateness: against the largest lateness of the map.
    static constexpr double kStepShadeSpan = 0.2;
    double shade(int row, int column) const;
    double maxValue() const { return max_; }
    double minValue() const { return min_; }
    int32_t rankOfRow(int row) const;
    // Where the cell is in its rank's own trace clock: the step, or the rank's collective kernel.
    int64_t cellStart(int row, int column) const;
    int64_t cellEnd(int row, int column) const;
    QString columnLabel(int column) const;

private:
    Map map_;
    std::shared_ptr<const RankViewData> data_;
    double max_ = 0, min_ = 0;
    std::vector<double> columnMedian_;   // step time: each step's median over ranks
};

} // namespace sl
