#pragma once
// The gaps of one Gaps-pane bin as a table to step through (issue 37 §6): start (from the timeline's origin), length,
// cause, and the operations before and after it (kernels by their short name, the full name in the tooltip). Rows
// in time order until the view sorts them; sorting works on raw numbers (SortRole), in the model.

#include <QAbstractTableModel>
#include <QString>
#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "analysis/timeline/analysis.h"
#include "analysis/trace/trace.h"

namespace sl {

class GapListModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { StartColumn, LengthColumn, CauseColumn, BeforeColumn, AfterColumn, ColumnCount };
    static constexpr int SortRole = Qt::UserRole + 1;   // raw number (ns, cause) or the text
    static constexpr int GapRole = Qt::UserRole + 2;    // index into AnalysisResult::idle.gaps (qint64)

    explicit GapListModel(QObject* parent = nullptr);

    // The analysis whose gaps the rows index, and its trace (names of the operations around a gap; may be null).
    // `origin`: where Start is measured from (TimelineIndex::origin / timeOrigin). Clears the rows.
    void setSource(std::shared_ptr<const AnalysisResult> analysis, std::shared_ptr<const Trace> trace, int64_t origin);
    // Cause labels as the rest of the workbench says them (TimelineView::causeLabel), indexed by GapCause.
    void setCauseLabels(const std::array<QString, kGapCauses>& labels);
    // The rows: these gaps (indices into idle.gaps), shown in time order.
    void setGaps(std::vector<int64_t> gaps);

    int64_t gapAt(int row) const { return row >= 0 && size_t(row) < rows_.size() ? rows_[size_t(row)] : -1; }
    int rowOfGap(int64_t gap) const;
    const std::vector<int64_t>& gaps() const { return rows_; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;

private:
    // The operation on one side of a gap: the kernel's short name, "copy", "memset"; full = the whole name.
    QString opText(OpKind kind, int32_t row, bool full) const;
    QVariant sortKey(int64_t gap, int column) const;

    std::shared_ptr<const AnalysisResult> analysis_;
    std::shared_ptr<const Trace> trace_;
    int64_t origin_ = 0;
    std::array<QString, kGapCauses> causeLabels_;
    std::vector<int64_t> rows_;
};

} // namespace sl
