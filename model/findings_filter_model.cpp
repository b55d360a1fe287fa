#include "model/findings_filter_model.h"

#include "model/findings_model.h"

namespace sl {

FindingsFilterModel::FindingsFilterModel(QObject* parent) : QSortFilterProxyModel(parent)
{
    setSortRole(FindingsModel::SortRole);
    setRecursiveFilteringEnabled(false);   // parents are kept by filterAcceptsRow itself
}

void FindingsFilterModel::setMinimumSeverity(Severity s)
{
    if (s == minSeverity_)
        return;
    minSeverity_ = s;
    invalidateFilter();
}

void FindingsFilterModel::setSearchText(const QString& text)
{
    const QString t = text.trimmed();
    if (t == text_)
        return;
    text_ = t;
    invalidateFilter();
}

bool FindingsFilterModel::matches(const QModelIndex& sourceIndex) const
{
    return sourceIndex.data(FindingsModel::SearchTextRole).toString().contains(text_, Qt::CaseInsensitive);
}

bool FindingsFilterModel::subtreeMatches(const QModelIndex& sourceIndex) const
{
    if (matches(sourceIndex))
        return true;
    const QAbstractItemModel* m = sourceModel();
    const int n = m->rowCount(sourceIndex);
    for (int r = 0; r < n; ++r)
        if (subtreeMatches(m->index(r, 0, sourceIndex)))
            return true;
    return false;
}

bool FindingsFilterModel::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const
{
    const QAbstractItemModel* m = sourceModel();
    if (!m)
        return false;
    const QModelIndex index = m->index(sourceRow, 0, sourceParent);
    if (!sourceParent.isValid() && index.data(FindingsModel::SeverityRole).toInt() < int(minSeverity_))
        return false;
    if (text_.isEmpty())
        return true;
    // Under a row that matched by itself everything shows; elsewhere only the branches that lead to a match.
    for (QModelIndex p = sourceParent; p.isValid(); p = p.parent())
        if (matches(p))
            return true;
    return subtreeMatches(index);
}

} // namespace sl
