#include "model/ncu_launch_model.h"

#include <QLocale>
#include <QStringList>
#include <cmath>

#include "analysis/roofline/roofline.h"
#include "model/roofline_model.h"
#include "model/units.h"

namespace sl {

namespace {

QString qs(const std::string& s) { return QString::fromStdString(s); }

QVariant num(const std::optional<double>& v) { return v ? QVariant(*v) : QVariant(-1.0); }

QString pctText(const std::optional<double>& v)
{
    return v ? QStringLiteral("%1 %").arg(QLocale().toString(*v, 'f', 1)) : QStringLiteral("—");
}

} // namespace

NcuLaunchModel::NcuLaunchModel(QObject* parent) : QAbstractTableModel(parent) {}

void NcuLaunchModel::setReport(std::shared_ptr<const NcuReport> report)
{
    beginResetModel();
    report_ = std::move(report);
    metrics_.clear();
    if (report_) {
        metrics_.reserve(report_->launches.size());
        for (const NcuLaunch& l : report_->launches)
            metrics_.push_back(compute_ncu_metrics(l));
    }
    endResetModel();
}

const NcuLaunch* NcuLaunchModel::launchAt(int row) const
{
    return report_ && row >= 0 && size_t(row) < report_->launches.size() ? &report_->launches[size_t(row)] : nullptr;
}

const NcuLaunchMetrics* NcuLaunchModel::metricsAt(int row) const
{
    return row >= 0 && size_t(row) < metrics_.size() ? &metrics_[size_t(row)] : nullptr;
}

int NcuLaunchModel::rowOfLaunch(int64_t id) const
{
    if (!report_)
        return -1;
    for (size_t i = 0; i < report_->launches.size(); ++i)
        if (report_->launches[i].id == id)
            return int(i);
    return -1;
}

int NcuLaunchModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() || !report_ ? 0 : int(report_->launches.size());
}

int NcuLaunchModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant NcuLaunchModel::data(const QModelIndex& index, int role) const
{
    const NcuLaunch* l = index.isValid() ? launchAt(index.row()) : nullptr;
    const NcuLaunchMetrics* m = l ? metricsAt(index.row()) : nullptr;
    if (!l || !m || index.column() < 0 || index.column() >= ColumnCount)
        return {};
    const Column c = Column(index.column());
    if (role == LaunchIdRole)
        return qlonglong(l->id);
    if (role == Qt::TextAlignmentRole)
        return c == Kernel || c == TopStall || c == Grid || c == Block ? QVariant()
                                                                       : QVariant(int(Qt::AlignRight | Qt::AlignVCenter));
    if (role == Qt::ToolTipRole) {
        if (c == Kernel)
            return qs(l->name);
        if (c == Rules) {
            QStringList lines;
            for (const NcuRule& r : l->rules)
                lines << QStringLiteral("%1 %2: %3").arg(qs(r.type), qs(r.name.empty() ? r.section : r.name),
                                                         qs(r.description));
            return lines.join(QLatin1Char('\n'));
        }
        if (c == Duration && m->duration_derived)
            return tr("Elapsed cycles ÷ SM clock: the file has no duration");
        return {};
    }
    if (role == SortRole) {
        switch (c) {
        case Id: return qlonglong(l->id);
        case Kernel: return qs(l->name);
        case Duration: return num(m->duration_ns);
        case Grid: return num(m->grid_size);
        case Block: return num(m->block_size);
        case DramBytes: return num(m->dram_bytes);
        case Flops: return num(m->flops_total);
        case Intensity: return num(m->intensity);
        case Achieved: return num(m->achieved_flops_per_s);
        case SmThroughput: return num(m->sm_throughput_pct);
        case MemoryThroughput: return num(m->memory_throughput_pct);
        case DramThroughput: return num(m->dram_throughput_pct);
        case Occupancy: return num(m->achieved_occupancy_pct);
        case L1Hit: return num(m->l1_hit_rate_pct);
        case L2Hit: return num(m->l2_hit_rate_pct);
        case TensorPipe: return num(m->tensor_pipe_pct);
        case TopStall: return m->top_stalls.empty() ? QVariant(-1.0) : QVariant(m->top_stalls.front().value);
        case Rules: return qlonglong(l->rules.size());
        case ColumnCount: break;
        }
        return {};
    }
    if (role != Qt::DisplayRole)
        return {};
    switch (c) {
    case Id: return QString::number(l->id);
    case Kernel: return qs(kernel_display_name(l->name));
    case Duration: return m->duration_ns ? formatDuration(int64_t(std::llround(*m->duration_ns))) : QStringLiteral("—");
    case Grid: return l->grid.empty() ? (m->grid_size ? QLocale().toString(*m->grid_size, 'f', 0) : QStringLiteral("—")) : qs(l->grid);
    case Block: return l->block.empty() ? (m->block_size ? QLocale().toString(*m->block_size, 'f', 0) : QStringLiteral("—")) : qs(l->block);
    case DramBytes: return m->dram_bytes ? formatBytes(uint64_t(std::llround(*m->dram_bytes))) : QStringLiteral("—");
    case Flops: return m->flops_total ? RooflineModel::formatSi(*m->flops_total) : QStringLiteral("—");
    case Intensity: return m->intensity ? RooflineModel::formatIntensity(*m->intensity) : QStringLiteral("—");
    case Achieved:
        return m->achieved_flops_per_s ? RooflineModel::formatFlopsPerSecond(*m->achieved_flops_per_s) : QStringLiteral("—");
    case SmThroughput: return pctText(m->sm_throughput_pct);
    case MemoryThroughput: return pctText(m->memory_throughput_pct);
    case DramThroughput: return pctText(m->dram_throughput_pct);
    case Occupancy:
        if (!m->achieved_occupancy_pct)
            return QStringLiteral("—");
        return m->theoretical_occupancy_pct ? tr("%1 of %2").arg(pctText(m->achieved_occupancy_pct), pctText(m->theoretical_occupancy_pct))
                                            : pctText(m->achieved_occupancy_pct);
    case L1Hit: return pctText(m->l1_hit_rate_pct);
    case L2Hit: return pctText(m->l2_hit_rate_pct);
    case TensorPipe: return pctText(m->tensor_pipe_pct);
    case TopStall:
        return m->top_stalls.empty() ? QStringLiteral("—")
                                     : QStringLiteral("%1 (%2)").arg(qs(m->top_stalls.front().reason),
                                                                     QLocale().toString(m->top_stalls.front().value, 'f', 1));
    case Rules: return l->rules.empty() ? QStringLiteral("—") : QString::number(l->rules.size());
    case ColumnCount: break;
    }
    return {};
}

QVariant NcuLaunchModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (Column(section)) {
    case Id: return tr("ID");
    case Kernel: return tr("Kernel");
    case Duration: return tr("Duration");
    case Grid: return tr("Grid");
    case Block: return tr("Block");
    case DramBytes: return tr("DRAM bytes");
    case Flops: return tr("FLOPs");
    case Intensity: return tr("Intensity");
    case Achieved: return tr("Achieved");
    case SmThroughput: return tr("SM %");
    case MemoryThroughput: return tr("Memory %");
    case DramThroughput: return tr("DRAM %");
    case Occupancy: return tr("Occupancy");
    case L1Hit: return tr("L1 hit");
    case L2Hit: return tr("L2 hit");
    case TensorPipe: return tr("Tensor pipe");
    case TopStall: return tr("Top stall");
    case Rules: return tr("ncu rules");
    case ColumnCount: break;
    }
    return {};
}

} // namespace sl
