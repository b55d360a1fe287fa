#pragma once
// A sortable, filterable table for the summary models (kernels, devices): a filter field above a QTableView, sorting
// on the models' raw-number SortRole through a proxy (summary tables hold one row per distinct name, so a proxy
// is cheap here).

#include <QWidget>

class QAbstractItemModel;
class QLineEdit;
class QSortFilterProxyModel;
class QTableView;

namespace sl {

class SummaryTableView : public QWidget {
    Q_OBJECT
public:
    // filterColumn < 0: no filter field.
    SummaryTableView(QAbstractItemModel* model, int sortRole, int filterColumn, QWidget* parent = nullptr);

    QTableView* view() const { return view_; }
    QSortFilterProxyModel* proxy() const { return proxy_; }
    QLineEdit* filterEdit() const { return filter_; }
    // The source-model row of the current index, or -1.
    int currentSourceRow() const;

signals:
    void currentSourceRowChanged(int row);

private:
    QTableView* view_ = nullptr;
    QSortFilterProxyModel* proxy_ = nullptr;
    QLineEdit* filter_ = nullptr;
};

} // namespace sl
