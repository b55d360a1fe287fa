#include "model/range_stats_model.h"

#include <QLocale>
#include <QPointer>
#include <QtConcurrent/QtConcurrentRun>

#include "model/units.h"
#include "model/workbench_settings.h"

namespace sl {

RangeStatsModel::RangeStatsModel(QObject* parent) : QAbstractTableModel(parent) {}

RangeStatsModel::~RangeStatsModel() = default;

void RangeStatsModel::setRange(std::shared_ptr<const TimelineIndex> index, std::shared_ptr<const AnalysisResult> analysis,
                               int64_t from, int64_t to)
{
    const quint64 gen = ++generation_;
    setAggregate({});
    if (!index) {
        computing_ = false;
        return;
    }
    computing_ = true;
    std::vector<std::string> labels;
    if (analysis)
        for (const OpClassTotals& c : analysis->classes.classes)
            labels.push_back(opClassLabel(c).toStdString());
    auto* watcher = new QFutureWatcher<RangeAggregate>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, gen] {
        watcher->deleteLater();
        if (gen != generation_)
            return;   // a newer range is being summed
        computing_ = false;
        setAggregate(watcher->result());
        emit ready();
    });
    watcher->setFuture(QtConcurrent::run([index, analysis, from, to, labels] {
        return aggregateRange(*index, analysis.get(), from, to, labels);
    }));
}

void RangeStatsModel::setAggregate(RangeAggregate aggregate)
{
    beginResetModel();
    aggregate_ = std::move(aggregate);
    endResetModel();
}

QString RangeStatsModel::groupLabel(RangeAggregate::Group g)
{
    switch (g) {
    case RangeAggregate::Group::Class: return tr("Class");
    case RangeAggregate::Group::Kernel: return tr("Kernel");
    case RangeAggregate::Group::Copy: return tr("Copy");
    case RangeAggregate::Group::Api: return tr("API call");
    }
    return {};
}

int RangeStatsModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(aggregate_.rows.size());
}

int RangeStatsModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant RangeStatsModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount)
        return {};
    const RangeAggregate::Row& r = aggregate_.rows[size_t(index.row())];
    if (role == SortRole) {
        switch (index.column()) {
        case Group: return int(r.group);
        case Name: return QString::fromStdString(r.name);
        case Count: return qlonglong(r.count);
        case Time: return qlonglong(r.time_ns);
        case Average: return qlonglong(r.average_ns());
        case Share: return r.share;
        }
    }
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case Group: return groupLabel(r.group);
        case Name: return QString::fromStdString(r.name);
        case Count: return QLocale().toString(qlonglong(r.count));
        case Time:
            return r.bytes > 0 ? tr("%1 (%2)").arg(formatDuration(r.time_ns), formatBytes(r.bytes)) : formatDuration(r.time_ns);
        case Average: return formatDuration(r.average_ns());
        case Share: return formatPercent(r.share);
        }
    }
    if (role == Qt::ToolTipRole && index.column() == Name)
        return QString::fromStdString(r.name);
    if (role == Qt::TextAlignmentRole && index.column() >= Count)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

QVariant RangeStatsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Group: return tr("Group");
    case Name: return tr("Name");
    case Count: return tr("Count");
    case Time: return tr("Time in range");
    case Average: return tr("Average");
    case Share: return tr("Share");
    }
    return {};
}

QString RangeStatsModel::toTsv() const
{
    auto clean = [](QString s) {
        s.replace(QLatin1Char('\t'), QLatin1Char(' '));
        s.replace(QLatin1Char('\n'), QLatin1Char(' '));
        return s;
    };
    QStringList lines;
    lines << QStringList{tr("Group"), tr("Name"), tr("Count"), tr("Time in range (ns)"), tr("Average (ns)"),
                         tr("Share"), tr("Bytes")}
                 .join(QLatin1Char('\t'));
    for (const RangeAggregate::Row& r : aggregate_.rows)
        lines << QStringList{groupLabel(r.group), clean(QString::fromStdString(r.name)), QString::number(r.count),
                             QString::number(r.time_ns), QString::number(r.average_ns()), QString::number(r.share, 'g', 6),
                             QString::number(r.bytes)}
                     .join(QLatin1Char('\t'));
    return lines.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

} // namespace sl
