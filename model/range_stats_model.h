#pragma once
// The aggregate table of a time range (Shift+drag on the timeline): model/range_aggregate.h's rows, one table with
// a Group column (class, kernel, copy, API call), Name, Count, Time (inside the range), Average and Share. Display
// text is formatted; SortRole gives the raw number; toTsv() writes the raw numbers (ns, fractions) for a spreadsheet.
// setRange() computes on a worker; a newer range supersedes an older one still being summed (generation counter).

#include <QAbstractTableModel>
#include <QFutureWatcher>
#include <memory>

#include "model/range_aggregate.h"

namespace sl {

class RangeStatsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Group, Name, Count, Time, Average, Share, ColumnCount };
    enum Role { SortRole = Qt::UserRole + 1 };

    explicit RangeStatsModel(QObject* parent = nullptr);
    ~RangeStatsModel() override;

    // Sums [from, to) of `index` on a worker; `ready` follows (the table is empty meanwhile). A null index clears.
    void setRange(std::shared_ptr<const TimelineIndex> index, std::shared_ptr<const AnalysisResult> analysis,
                  int64_t from, int64_t to);
    // Shows an aggregate at once (tests, and the worker's result).
    void setAggregate(RangeAggregate aggregate);
    const RangeAggregate& aggregate() const { return aggregate_; }
    bool isComputing() const { return computing_; }

    // Tab-separated: a header line, then one line per row; times in ns, shares as fractions.
    QString toTsv() const;
    static QString groupLabel(RangeAggregate::Group g);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

signals:
    void ready();

private:
    RangeAggregate aggregate_;
    quint64 generation_ = 0;
    bool computing_ = false;
};

} // namespace sl
