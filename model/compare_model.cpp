#include "model/compare_model.h"

#include <QFont>
#include <QHash>
#include <QLocale>
#include <algorithm>
#include <cmath>
#include <set>

#include "analysis/diagnosis/findings.h"
#include "model/theme.h"
#include "model/units.h"

namespace sl {

namespace {

QString qs(const std::string& s) { return QString::fromStdString(s); }

// +12.3 % / −4.0 % (a true minus sign, as in the deltas); "—" when there was nothing before.
QString changeText(double before, double after)
{
    if (before == 0)
        return after == 0 ? QStringLiteral("0.0 %") : QStringLiteral("—");
    const double rel = (after - before) / std::fabs(before) * 100.0;
    const QString v = QStringLiteral("%1 %").arg(std::fabs(rel), 0, 'f', 1);
    return rel > 0 ? QStringLiteral("+") + v : rel < 0 ? QStringLiteral("−") + v : v;
}

QString signedDuration(int64_t ns)
{
    return ns > 0 ? QStringLiteral("+") + formatDuration(ns) : ns < 0 ? QStringLiteral("−") + formatDuration(-ns)
                                                                      : formatDuration(0);
}

// A change of a fraction (utilisation 51 % -> 96 %) is in percentage points, not percent.
QString signedMetric(const std::string& key, double d)
{
    QString v = qs(format_metric(key, std::fabs(d)));
    if (v.endsWith(QStringLiteral(" %")))
        v = v.chopped(2) + QStringLiteral(" pp");
    return d > 0 ? QStringLiteral("+") + v : d < 0 ? QStringLiteral("−") + v : v;
}

const char* const kHeadline[] = {"wall_ns",        "tpot_median_ns", "tpot_p90_ns",  "utilization",   "idle_fraction",
                                 "host_wait_ns",   "kernel_wait_ns", "sync_wait_ns", "other_wait_ns", "kernel_count",
                                 "kernel_ns",      "launch_api_ns",  "sync_api_ns",  "nccl_ns",       "h2d_ns"};

} // namespace

QColor compareStatusColor(const std::string& s, bool dark)
{
    if (s == "faster" || s == "verified" || s == "better")
        return dark ? QColor(0x5f, 0xd3, 0x6e) : QColor(0x1a, 0x7f, 0x37);
    if (s == "slower" || s == "failed" || s == "worse")
        return dark ? QColor(0xff, 0x83, 0x7a) : QColor(0xc0, 0x25, 0x25);
    if (s == "added")
        return dark ? QColor(0x6c, 0xb4, 0xff) : QColor(0x0b, 0x5c, 0xb8);
    if (s == "removed")
        return dark ? QColor(0xc7, 0xa6, 0xff) : QColor(0x7a, 0x45, 0xc8);
    return {};
}

// ---- headline metrics ----------------------------------------------------------------------------------------

CompareMetricsModel::CompareMetricsModel(QObject* parent) : QAbstractTableModel(parent) {}

int CompareMetricsModel::betterDirection(const std::string& key)
{
    if (key == "utilization")
        return +1;
    if (key == "kernel_count" || key == "decode_steps")
        return 0;
    return -1;   // times, idle fraction, launch overhead: less is better
}

void CompareMetricsModel::setResult(std::shared_ptr<const CompareResult> result)
{
    beginResetModel();
    result_ = std::move(result);
    keys_.clear();
    if (result_) {
        std::set<std::string> all;
        for (const auto& [k, v] : result_->before_metrics)
            all.insert(k);
        for (const auto& [k, v] : result_->after_metrics)
            all.insert(k);
        for (const char* k : kHeadline)
            if (all.erase(k))
                keys_.emplace_back(k);
        keys_.insert(keys_.end(), all.begin(), all.end());
    }
    endResetModel();
}

int CompareMetricsModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(keys_.size());
}

int CompareMetricsModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant CompareMetricsModel::data(const QModelIndex& index, int role) const
{
    if (!result_ || !index.isValid() || index.row() >= rowCount())
        return {};
    const std::string& key = keys_[size_t(index.row())];
    const auto b = result_->before_metrics.find(key);
    const auto a = result_->after_metrics.find(key);
    const bool hasB = b != result_->before_metrics.end(), hasA = a != result_->after_metrics.end();
    const double bv = hasB ? b->second : 0, av = hasA ? a->second : 0;
    const int col = index.column();
    if (role == KeyRole)
        return qs(key);
    if (role == Qt::DisplayRole) {
        switch (col) {
        case Metric: {
            static const QHash<QString, QString> labels = {
                {QStringLiteral("wall_ns"), tr("Wall time")},
                {QStringLiteral("tpot_median_ns"), tr("TPOT (median)")},
                {QStringLiteral("tpot_p90_ns"), tr("TPOT (p90)")},
                {QStringLiteral("utilization"), tr("GPU utilisation")},
                {QStringLiteral("idle_fraction"), tr("Idle fraction")},
                {QStringLiteral("host_wait_ns"), tr("Idle: host wait")},
                {QStringLiteral("kernel_wait_ns"), tr("Idle: kernel wait")},
                {QStringLiteral("sync_wait_ns"), tr("Idle: sync wait")},
                {QStringLiteral("other_wait_ns"), tr("Idle: other")},
                {QStringLiteral("kernel_count"), tr("Kernels")},
                {QStringLiteral("kernel_ns"), tr("Kernel time")},
                {QStringLiteral("launch_api_ns"), tr("Launch API time")},
                {QStringLiteral("sync_api_ns"), tr("Sync API time")},
                {QStringLiteral("nccl_ns"), tr("NCCL time")},
                {QStringLiteral("h2d_ns"), tr("Host-to-device copies")},
                {QStringLiteral("busy_ns"), tr("Busy time")},
                {QStringLiteral("idle_ns"), tr("Idle time")},
                {QStringLiteral("decode_steps"), tr("Decode steps")},
                {QStringLiteral("prefill_ns"), tr("Prefill time")},
                {QStringLiteral("launch_overhead_fraction"), tr("Launch overhead")},
                {QStringLiteral("pageable_async_memcpy_ns"), tr("Pageable async copies")},
                {QStringLiteral("sync_memcpy_ns"), tr("Synchronous copies")},
            };
            return labels.value(qs(key), qs(key));
        }
        case Before: return hasB ? qs(format_metric(key, bv)) : QStringLiteral("—");
        case After: return hasA ? qs(format_metric(key, av)) : QStringLiteral("—");
        case Delta: return hasA && hasB ? signedMetric(key, av - bv) : QString();
        case Change: return hasA && hasB ? changeText(bv, av) : QString();
        }
        return {};
    }
    if (role == SortRole) {
        switch (col) {
        case Metric: return index.row();
        case Before: return hasB ? QVariant(bv) : QVariant();
        case After: return hasA ? QVariant(av) : QVariant();
        case Delta: return hasA && hasB ? QVariant(av - bv) : QVariant();
        case Change: return hasA && hasB && bv != 0 ? QVariant((av - bv) / std::fabs(bv)) : QVariant();
        }
        return {};
    }
    if (role == Qt::ToolTipRole && col == Metric)
        return qs(key);
    if (role == Qt::TextAlignmentRole)
        return col == Metric ? QVariant(Qt::AlignLeft | Qt::AlignVCenter) : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ForegroundRole && (col == Delta || col == Change) && hasA && hasB && bv != 0) {
        const int dir = betterDirection(key);
        const double rel = (av - bv) / std::fabs(bv);
        if (dir == 0 || std::fabs(rel) < result_->options.rel_threshold)
            return {};
        return compareStatusColor(rel * dir > 0 ? "better" : "worse", isDark());
    }
    return {};
}

QVariant CompareMetricsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Metric: return tr("Metric");
    case Before: return tr("Before");
    case After: return tr("After");
    case Delta: return tr("Delta");
    case Change: return tr("Change");
    }
    return {};
}

// ---- class / kernel deltas -----------------------------------------------------------------------------------

CompareDeltaModel::CompareDeltaModel(Rows rows, QObject* parent) : QAbstractTableModel(parent), which_(rows) {}

void CompareDeltaModel::setResult(std::shared_ptr<const CompareResult> result)
{
    beginResetModel();
    result_ = std::move(result);
    endResetModel();
}

const std::vector<DeltaRow>* CompareDeltaModel::rows() const
{
    if (!result_)
        return nullptr;
    return which_ == Rows::Classes ? &result_->classes : &result_->kernels;
}

const DeltaRow* CompareDeltaModel::rowAt(int row) const
{
    const auto* r = rows();
    return r && row >= 0 && size_t(row) < r->size() ? &(*r)[size_t(row)] : nullptr;
}

int CompareDeltaModel::rowCount(const QModelIndex& parent) const
{
    const auto* r = rows();
    return parent.isValid() || !r ? 0 : static_cast<int>(r->size());
}

int CompareDeltaModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant CompareDeltaModel::data(const QModelIndex& index, int role) const
{
    const DeltaRow* r = index.isValid() ? rowAt(index.row()) : nullptr;
    if (!r)
        return {};
    const int col = index.column();
    if (role == StatusRole)
        return qs(r->status);
    if (role == Qt::DisplayRole) {
        switch (col) {
        case Name: return qs(r->name);
        case Class: return which_ == Rows::Classes ? qs(r->name) : qs(r->op_class);
        case Status: {
            if (r->status == "added") return tr("added");
            if (r->status == "removed") return tr("removed");
            if (r->status == "faster") return tr("faster");
            if (r->status == "slower") return tr("slower");
            if (r->status == "unchanged") return tr("unchanged");
            return qs(r->status);
        }
        case BeforeCalls: return QLocale().toString(qlonglong(r->before_count));
        case AfterCalls: return QLocale().toString(qlonglong(r->after_count));
        case BeforeTime: return formatDuration(r->before_ns);
        case AfterTime: return formatDuration(r->after_ns);
        case Delta: return signedDuration(r->delta_ns());
        case Change: return changeText(double(r->before_ns), double(r->after_ns));
        }
        return {};
    }
    if (role == SortRole) {
        switch (col) {
        case Name: return qs(r->name);
        case Class: return which_ == Rows::Classes ? qs(r->name) : qs(r->op_class);
        case Status: return qs(r->status);
        case BeforeCalls: return qlonglong(r->before_count);
        case AfterCalls: return qlonglong(r->after_count);
        case BeforeTime: return qlonglong(r->before_ns);
        case AfterTime: return qlonglong(r->after_ns);
        case Delta: return qlonglong(r->delta_ns());
        case Change: return r->before_ns > 0 ? QVariant(r->relative()) : QVariant();
        }
        return {};
    }
    if (role == Qt::ToolTipRole && col == Name)
        return qs(r->name);
    if (role == Qt::TextAlignmentRole)
        return col <= Status ? QVariant(Qt::AlignLeft | Qt::AlignVCenter) : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ForegroundRole && (col == Status || col == Delta || col == Change)) {
        const QColor c = compareStatusColor(r->status, isDark());
        return c.isValid() ? QVariant(c) : QVariant();
    }
    return {};
}

QVariant CompareDeltaModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Name: return which_ == Rows::Classes ? tr("Operator class") : tr("Kernel");
    case Class: return tr("Class");
    case Status: return tr("Status");
    // Two lines: the numbers under them are short, the columns need not be as wide as the words.
    case BeforeCalls: return tr("Calls\nbefore");
    case AfterCalls: return tr("Calls\nafter");
    case BeforeTime: return tr("Time\nbefore");
    case AfterTime: return tr("Time\nafter");
    case Delta: return tr("Delta");
    case Change: return tr("Change");
    }
    return {};
}

// ---- verdicts ------------------------------------------------------------------------------------------------

CompareVerdictModel::CompareVerdictModel(QObject* parent) : QAbstractTableModel(parent) {}

void CompareVerdictModel::setResult(std::shared_ptr<const CompareResult> result)
{
    beginResetModel();
    result_ = std::move(result);
    endResetModel();
}

int CompareVerdictModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() || !result_ ? 0 : static_cast<int>(result_->verdicts.size());
}

int CompareVerdictModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant CompareVerdictModel::data(const QModelIndex& index, int role) const
{
    if (!result_ || !index.isValid() || index.row() >= rowCount())
        return {};
    const SuggestionVerdict& v = result_->verdicts[size_t(index.row())];
    const int col = index.column();
    if (role == Qt::DisplayRole || role == SortRole) {
        const bool sort = role == SortRole;
        switch (col) {
        case Suggestion: return qs(v.key);
        case Subject: return qs(v.subject);
        case Metric: return qs(v.metric);
        case Before:
            return v.before ? (sort ? QVariant(*v.before) : QVariant(qs(format_metric(v.metric, *v.before))))
                            : QVariant(sort ? QVariant() : QVariant(QStringLiteral("—")));
        case After:
            return v.after ? (sort ? QVariant(*v.after) : QVariant(qs(format_metric(v.metric, *v.after))))
                           : QVariant(sort ? QVariant() : QVariant(QStringLiteral("—")));
        case Change:
            if (sort)
                return v.delta;
            return v.before && v.after ? changeText(*v.before, *v.after) : QString();
        case Verdict:
            if (sort)
                return qs(v.verdict);
            if (v.verdict == "verified") return tr("verified");
            if (v.verdict == "failed") return tr("failed");
            if (v.verdict == "inconclusive") return tr("inconclusive");
            if (v.verdict == "unmeasurable") return tr("unmeasurable");
            return qs(v.verdict);
        case Reason: return qs(v.reason);
        }
        return {};
    }
    if (role == Qt::ToolTipRole && (col == Reason || col == Suggestion))
        return qs(col == Reason ? v.reason : v.key);
    if (role == Qt::TextAlignmentRole)
        return col == Before || col == After || col == Change ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                                                              : QVariant(Qt::AlignLeft | Qt::AlignVCenter);
    if (role == Qt::ForegroundRole && col == Verdict) {
        const QColor c = compareStatusColor(v.verdict, isDark());
        return c.isValid() ? QVariant(c) : QVariant();
    }
    if (role == Qt::FontRole && col == Verdict) {
        QFont f;
        f.setBold(v.verdict == "verified" || v.verdict == "failed");
        return f;
    }
    return {};
}

QVariant CompareVerdictModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Suggestion: return tr("Suggestion");
    case Subject: return tr("Subject");
    case Metric: return tr("Metric");
    case Before: return tr("Before");
    case After: return tr("After");
    case Change: return tr("Change");
    case Verdict: return tr("Verdict");
    case Reason: return tr("Reason");
    }
    return {};
}

} // namespace sl
