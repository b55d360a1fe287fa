#include "widgets/ncu_view.h"

#include <QFileInfo>
#include <algorithm>
#include <QFutureWatcher>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include "analysis/io/ncu_reader.h"
#include "analysis/report/roofline_json.h"
#include "analysis/trace/errors.h"
#include "model/document.h"
#include "model/ncu_launch_model.h"
#include "model/roofline_model.h"
#include "model/selection.h"
#include "widgets/roofline_view.h"

namespace sl {

namespace {

// Holds the read report or the reader's error.
struct NcuLoad {
    std::shared_ptr<const NcuReport> report;
    QString error;
};

} // namespace

NcuView::NcuView(QWidget* parent) : QWidget(parent)
{
    document_ = new Document(this);
    selection_ = new Selection(this);
    model_ = new NcuLaunchModel(this);
    proxy_ = new QSortFilterProxyModel(this);
    proxy_->setSourceModel(model_);
    proxy_->setSortRole(NcuLaunchModel::SortRole);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    summary_ = new QLabel(this);
    summary_->setWordWrap(true);
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(summary_);
    splitter_ = new QSplitter(Qt::Vertical, this);
    table_ = new QTableView(splitter_);
    table_->setModel(proxy_);
    table_->setSortingEnabled(true);
    table_->sortByColumn(NcuLaunchModel::Id, Qt::AscendingOrder);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->setAlternatingRowColors(true);
    table_->verticalHeader()->hide();
    table_->horizontalHeader()->setStretchLastSection(false);
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    roofline_ = new RooflineView(document_, selection_, splitter_);
    splitter_->addWidget(table_);
    splitter_->addWidget(roofline_);
    splitter_->setStretchFactor(0, 1);
    splitter_->setStretchFactor(1, 1);
    layout->addWidget(splitter_, 1);

    connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &NcuView::highlightPointOfRow);
    connect(roofline_, &RooflineView::pointActivated, this, &NcuView::selectRowOfPoint);
}

NcuView::~NcuView() = default;

void NcuView::open(const QString& path)
{
    path_ = path;
    summary_->setText(tr("Reading %1 …").arg(QFileInfo(path).fileName()));
    auto* watcher = new QFutureWatcher<NcuLoad>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, path] {
        watcher->deleteLater();
        const NcuLoad r = watcher->result();
        if (!r.report) {
            summary_->setText(tr("The Nsight Compute file could not be read:\n%1").arg(r.error));
            emit loaded(false, r.error);
            return;
        }
        setReport(r.report, path);
        emit loaded(true, QString());
    });
    watcher->setFuture(QtConcurrent::run([file = path.toStdString()] {
        NcuLoad r;
        try {
            r.report = std::make_shared<const NcuReport>(read_ncu(file));
        } catch (const std::exception& e) {
            r.error = QString::fromStdString(e.what());
        }
        return r;
    }));
}

void NcuView::setReport(std::shared_ptr<const NcuReport> report, const QString& path)
{
    path_ = path;
    model_->setReport(report);
    auto out = std::make_shared<RooflineOutput>();
    if (report)
        out->ncu = *report;
    document_->setRoofline(out);
    for (int c = 0; c < NcuLaunchModel::ColumnCount; ++c)
        table_->resizeColumnToContents(c);
    table_->setColumnWidth(NcuLaunchModel::Kernel, std::min(table_->columnWidth(NcuLaunchModel::Kernel), 360));
    summary_->setText(summaryText());
}

QString NcuView::summaryText() const
{
    const auto report = model_->report();
    if (!report)
        return {};
    const RooflineData& d = roofline_->model()->rooflineData();
    QString s = tr("<b>%1</b> · %2 · %n launch(es)", nullptr, int(report->launches.size()))
                    .arg(QFileInfo(path_).fileName().toHtmlEscaped(), QString::fromStdString(report->format));
    s += QStringLiteral(" · ") + (d.gpu_name.empty() ? tr("GPU not identified: no roofs")
                                                     : tr("roofs of %1").arg(QString::fromStdString(d.gpu_name)));
    s += QStringLiteral(" · ") + tr("no trace: the counters are not joined to kernels on a timeline");
    for (const std::string& w : report->warnings)
        s += QStringLiteral("<br>") + tr("Note: %1").arg(QString::fromStdString(w).toHtmlEscaped());
    return s;
}

void NcuView::highlightPointOfRow()
{
    const QModelIndex current = table_->selectionModel()->currentIndex();
    if (!current.isValid())
        return;
    const qlonglong id = proxy_->data(current.siblingAtColumn(0), NcuLaunchModel::LaunchIdRole).toLongLong();
    const RooflineData& d = roofline_->model()->rooflineData();
    int row = -1;
    for (size_t i = 0; i < d.points.size(); ++i)
        if (d.points[i].kind == RooflinePointKind::Ncu && d.points[i].ncu_launch == id)
            row = int(i);
    roofline_->setHighlightedRow(row);
}

void NcuView::selectRowOfPoint(int pointRow)
{
    const RooflinePoint* p = roofline_->model()->pointAt(pointRow);
    if (!p || p->ncu_launch < 0)
        return;
    const int row = model_->rowOfLaunch(p->ncu_launch);
    if (row < 0)
        return;
    const QModelIndex at = proxy_->mapFromSource(model_->index(row, 0));
    table_->selectionModel()->setCurrentIndex(at, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    table_->scrollTo(at);
}

} // namespace sl
