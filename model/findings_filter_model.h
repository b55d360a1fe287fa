#pragma once
// Filters the findings tree: a minimum severity, and a text that keeps a finding when its own texts or any row
// below it match (case-insensitive). A row kept for its own text shows everything below it; a row kept only for
// some descendants shows just the branches leading to them. Sorting uses FindingsModel::SortRole, so children keep
// their order.

#include <QSortFilterProxyModel>

#include "analysis/diagnosis/findings.h"

namespace sl {

class FindingsFilterModel : public QSortFilterProxyModel {
    Q_OBJECT
public:
    explicit FindingsFilterModel(QObject* parent = nullptr);

    void setMinimumSeverity(Severity s);
    Severity minimumSeverity() const { return minSeverity_; }
    void setSearchText(const QString& text);
    const QString& searchText() const { return text_; }

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

private:
    bool matches(const QModelIndex& sourceIndex) const;
    bool subtreeMatches(const QModelIndex& sourceIndex) const;

    Severity minSeverity_ = Severity::Info;
    QString text_;
};

} // namespace sl
