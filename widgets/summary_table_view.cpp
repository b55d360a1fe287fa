#include "widgets/summary_table_view.h"

#include <QHeaderView>
#include <QLineEdit>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

namespace sl {

SummaryTableView::SummaryTableView(QAbstractItemModel* model, int sortRole, int filterColumn, QWidget* parent)
    : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    proxy_ = new QSortFilterProxyModel(this);
    proxy_->setSourceModel(model);
    proxy_->setSortRole(sortRole);
    proxy_->setFilterCaseSensitivity(Qt::CaseInsensitive);
    if (filterColumn >= 0) {
        proxy_->setFilterKeyColumn(filterColumn);
        filter_ = new QLineEdit(this);
        filter_->setPlaceholderText(tr("Filter by name…"));
        filter_->setClearButtonEnabled(true);
        connect(filter_, &QLineEdit::textChanged, proxy_, &QSortFilterProxyModel::setFilterFixedString);
        layout->addWidget(filter_);
    }
    view_ = new QTableView(this);
    view_->setModel(proxy_);
    view_->setSortingEnabled(true);
    view_->sortByColumn(-1, Qt::AscendingOrder);   // keep the model's own order (nsys order) until a header is clicked
    view_->setSelectionBehavior(QAbstractItemView::SelectRows);
    view_->setSelectionMode(QAbstractItemView::SingleSelection);
    view_->setAlternatingRowColors(true);
    view_->setWordWrap(false);
    view_->setTextElideMode(Qt::ElideMiddle);
    view_->verticalHeader()->hide();
    view_->verticalHeader()->setDefaultSectionSize(view_->fontMetrics().height() + 6);
    view_->horizontalHeader()->setStretchLastSection(true);
    view_->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    layout->addWidget(view_);
    connect(view_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this] { emit currentSourceRowChanged(currentSourceRow()); });
    connect(model, &QAbstractItemModel::modelReset, this, [this] { view_->resizeColumnsToContents(); });
}

int SummaryTableView::currentSourceRow() const
{
    const QModelIndex i = proxy_->mapToSource(view_->currentIndex());
    return i.isValid() ? i.row() : -1;
}

} // namespace sl
