#include "model/gap_list_model.h"

#include <algorithm>

#include "analysis/trace/kernel_short_name.h"
#include "model/units.h"

namespace sl {

namespace {

QString qs(std::string_view s) { return QString::fromUtf8(s.data(), qsizetype(s.size())); }

} // namespace

GapListModel::GapListModel(QObject* parent) : QAbstractTableModel(parent)
{
    for (size_t c = 0; c < kGapCauses; ++c)
        causeLabels_[c] = QString::fromUtf8(gap_cause_name(GapCause(c)));
}

void GapListModel::setSource(std::shared_ptr<const AnalysisResult> analysis, std::shared_ptr<const Trace> trace,
                             int64_t origin)
{
    beginResetModel();
    analysis_ = std::move(analysis);
    trace_ = std::move(trace);
    origin_ = origin;
    rows_.clear();
    endResetModel();
}

void GapListModel::setCauseLabels(const std::array<QString, kGapCauses>& labels)
{
    causeLabels_ = labels;
    if (!rows_.empty())
        emit dataChanged(index(0, CauseColumn), index(rowCount() - 1, CauseColumn));
}

void GapListModel::setGaps(std::vector<int64_t> gaps)
{
    beginResetModel();
    rows_.clear();
    if (analysis_) {
        const auto& all = analysis_->idle.gaps;
        for (int64_t g : gaps)
            if (g >= 0 && size_t(g) < all.size())
                rows_.push_back(g);
        // time order (the analysis lists gaps by device, then start)
        std::stable_sort(rows_.begin(), rows_.end(),
                         [&](int64_t a, int64_t b) { return all[size_t(a)].start < all[size_t(b)].start; });
    }
    endResetModel();
}

int GapListModel::rowOfGap(int64_t gap) const
{
    const auto it = std::find(rows_.begin(), rows_.end(), gap);
    return it == rows_.end() ? -1 : int(it - rows_.begin());
}

int GapListModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(rows_.size()); }

int GapListModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QString GapListModel::opText(OpKind kind, int32_t row, bool full) const
{
    if (row < 0 || !trace_)
        return full ? QString() : tr("(none)");
    const Trace& t = *trace_;
    switch (kind) {
    case OpKind::Kernel: {
        if (size_t(row) >= t.kernels.size())
            return {};
        const std::string_view name = t.str(t.kernels.name[size_t(row)]);
        return qs(full ? name : shorten_kernel_name(name));
    }
    case OpKind::Memcpy:
        return size_t(row) < t.memcpy.size() ? tr("%1 copy, %2").arg(qs(copy_kind_label(t.memcpy.copy_kind[size_t(row)])),
                                                                       formatBytes(t.memcpy.bytes[size_t(row)]))
                                             : QString();
    case OpKind::Memset: return tr("memset");
    }
    return {};
}

QVariant GapListModel::sortKey(int64_t g, int column) const
{
    const Gap& gap = analysis_->idle.gaps[size_t(g)];
    switch (column) {
    case StartColumn: return qint64(gap.start);
    case LengthColumn: return qint64(gap.duration());
    case CauseColumn: return causeLabels_[size_t(gap.cause)];
    case BeforeColumn: return opText(gap.prev_kind, gap.prev_row, false);
    case AfterColumn: return opText(gap.next_kind, gap.next_row, false);
    }
    return {};
}

QVariant GapListModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || !analysis_ || index.row() >= rowCount() || index.column() >= ColumnCount)
        return {};
    const int64_t g = rows_[size_t(index.row())];
    const Gap& gap = analysis_->idle.gaps[size_t(g)];
    const int col = index.column();
    if (role == GapRole)
        return qint64(g);
    if (role == SortRole)
        return sortKey(g, col);
    if (role == Qt::TextAlignmentRole)
        return col <= LengthColumn ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant(Qt::AlignLeft | Qt::AlignVCenter);
    if (role == Qt::DisplayRole) {
        switch (col) {
        case StartColumn: return formatStart(gap.start - origin_, gap.duration());
        case LengthColumn: return formatDuration(gap.duration());
        case CauseColumn: return causeLabels_[size_t(gap.cause)];
        case BeforeColumn: return opText(gap.prev_kind, gap.prev_row, false);
        case AfterColumn: return opText(gap.next_kind, gap.next_row, false);
        }
    }
    if (role == Qt::ToolTipRole) {
        if (col == BeforeColumn && gap.prev_kind == OpKind::Kernel)
            return opText(gap.prev_kind, gap.prev_row, true);
        if (col == AfterColumn && gap.next_kind == OpKind::Kernel)
            return opText(gap.next_kind, gap.next_row, true);
    }
    return {};
}

QVariant GapListModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case StartColumn: return tr("Start");
    case LengthColumn: return tr("Length");
    case CauseColumn: return tr("Cause");
    case BeforeColumn: return tr("Before");
    case AfterColumn: return tr("After");
    }
    return {};
}

void GapListModel::sort(int column, Qt::SortOrder order)
{
    if (!analysis_ || column < 0 || column >= ColumnCount || rows_.size() < 2)
        return;
    emit layoutAboutToBeChanged({}, QAbstractItemModel::VerticalSortHint);
    const QModelIndexList before = persistentIndexList();
    std::vector<int64_t> gapsBefore;
    for (const QModelIndex& i : before)
        gapsBefore.push_back(gapAt(i.row()));
    const auto& all = analysis_->idle.gaps;
    auto less = [&](int64_t a, int64_t b) {
        const Gap &x = all[size_t(a)], &y = all[size_t(b)];
        switch (column) {
        case StartColumn: return x.start < y.start;
        case LengthColumn: return x.duration() < y.duration();
        default: {
            const QString sa = sortKey(a, column).toString(), sb = sortKey(b, column).toString();
            return sa != sb ? QString::localeAwareCompare(sa, sb) < 0 : x.start < y.start;
        }
        }
    };
    if (order == Qt::AscendingOrder)
        std::stable_sort(rows_.begin(), rows_.end(), less);
    else
        std::stable_sort(rows_.begin(), rows_.end(), [&](int64_t a, int64_t b) { return less(b, a); });
    QModelIndexList after;
    for (qsizetype i = 0; i < before.size(); ++i)
        after.push_back(index(rowOfGap(gapsBefore[size_t(i)]), before[i].column()));
    changePersistentIndexList(before, after);
    emit layoutChanged({}, QAbstractItemModel::VerticalSortHint);
}

} // namespace sl
