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

bool FindingsFilterModel::findingMatches(int sourceRow) const
{
    const QModelIndex finding = sourceModel()->index(sourceRow, 0);
    return matches(finding);
}

bool FindingsFilterModel::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const
{
    const QAbstractItemModel* m = sourceModel();
    if (!m)
        return false;
    if (!sourceParent.isValid()) {
        const QModelIndex finding = m->index(sourceRow, 0);
        if (finding.data(FindingsModel::SeverityRole).toInt() < int(minSeverity_))
            return false;
        if (text_.isEmpty() || matches(finding))
            return true;
        const int children = m->rowCount(finding);
        for (int r = 0; r < children; ++r)
            if (matches(m->index(r, 0, finding)))
                return true;
        return false;
    }
    // A child: all of them when the finding matched by itself, otherwise only those that match.
    if (text_.isEmpty() || findingMatches(sourceParent.row()))
        return true;
    return matches(m->index(sourceRow, 0, sourceParent));
}

} // namespace sl
