#include "model/suggestion_model.h"

#include "analysis/timeline/analysis.h"
#include "model/findings_model.h"

#include <QDateTime>
#include <QLocale>

namespace sl {

namespace {

constexpr SuggestionState kStates[] = {SuggestionState::Proposed, SuggestionState::Accepted,
                                       SuggestionState::Rejected, SuggestionState::Verified,
                                       SuggestionState::Failed};

QString keyOf(const SuggestionRecord& r)
{
    return QString::fromStdString(r.key) + QLatin1Char('|') + QString::fromStdString(r.subject);
}

// A state from a name: the knowledge base's ("accepted") or the translated label shown in the table.
std::optional<SuggestionState> stateFromText(const QString& s)
{
    if (auto st = parse_suggestion_state(s.trimmed().toLower().toStdString()))
        return st;
    for (SuggestionState st : kStates)
        if (SuggestionModel::stateLabel(st).compare(s.trimmed(), Qt::CaseInsensitive) == 0)
            return st;
    return std::nullopt;
}

} // namespace

SuggestionModel::SuggestionModel(KbSession* session, QObject* parent) : QAbstractTableModel(parent), session_(session)
{
    if (!session)
        return;
    connect(session, &KbSession::suggestionsReady, this, &SuggestionModel::reset);
    connect(session, &KbSession::saved, this, &SuggestionModel::onSaved);
    connect(session, &KbSession::failed, this, &SuggestionModel::onFailed);
}

QString SuggestionModel::metricLabel(const QString& metric)
{
    static const struct {
        const char* name;
        const char* label;
    } kLabels[] = {
        {"subject_time_ns", QT_TR_NOOP("Subject time")},
        {"tpot_median_ns", QT_TR_NOOP("Median TPOT")},
        {"idle_fraction", QT_TR_NOOP("GPU idle share")},
        {"kernel_count", QT_TR_NOOP("Kernel count")},
        {"kernel_ns", QT_TR_NOOP("Kernel time")},
        {"launch_api_ns", QT_TR_NOOP("Launch call time")},
        {"nccl_ns", QT_TR_NOOP("NCCL time")},
        {"pageable_async_memcpy_ns", QT_TR_NOOP("Pageable async copy time")},
        {"sync_api_ns", QT_TR_NOOP("Synchronising call time")},
        {"sync_memcpy_ns", QT_TR_NOOP("Synchronous copy time")},
        {"wall_ns", QT_TR_NOOP("Wall time")},
    };
    for (const auto& l : kLabels)
        if (metric == QLatin1String(l.name))
            return tr(l.label);
    QString s = metric;
    for (const char* suffix : {"_ns", "_us", "_ms", "_fraction", "_pct"})
        if (s.endsWith(QLatin1String(suffix))) {
            s.chop(int(qstrlen(suffix)));
            break;
        }
    s.replace(QLatin1Char('_'), QLatin1Char(' '));
    if (!s.isEmpty())
        s[0] = s[0].toUpper();
    return s;
}

QString SuggestionModel::stateLabel(SuggestionState s)
{
    switch (s) {
    case SuggestionState::Proposed: return tr("Proposed");
    case SuggestionState::Accepted: return tr("Accepted");
    case SuggestionState::Rejected: return tr("Rejected");
    case SuggestionState::Verified: return tr("Verified");
    case SuggestionState::Failed: return tr("Failed");
    }
    return {};
}

void SuggestionModel::setDiagnosis(std::shared_ptr<const Diagnosis> diagnosis,
                                   std::shared_ptr<const AnalysisResult> analysis)
{
    diagnosis_ = std::move(diagnosis);
    analysis_ = std::move(analysis);
    if (!rows_.empty())
        emit dataChanged(index(0, 0), index(int(rows_.size()) - 1, ColumnCount - 1));
}

void SuggestionModel::setLanguage(const QString& code)
{
    lang_ = code;
    if (!rows_.empty())
        emit dataChanged(index(0, Text), index(int(rows_.size()) - 1, Subject));
}

void SuggestionModel::clear()
{
    if (rows_.empty() && runId_ == 0)
        return;
    beginResetModel();
    rows_.clear();
    runId_ = 0;
    endResetModel();
    emit statesChanged();
}

void SuggestionModel::reset(quint64 /*generation*/, qint64 runId, SuggestionList list)
{
    beginResetModel();
    rows_.clear();
    runId_ = runId;
    if (list) {
        rows_.reserve(list->size());
        for (const auto& s : *list)
            rows_.push_back(Row{s, s, 0});
    }
    endResetModel();
    emit statesChanged();
}

int SuggestionModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(rows_.size()); }
int SuggestionModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

const SuggestionRecord* SuggestionModel::record(int row) const
{
    return row >= 0 && row < int(rows_.size()) ? &rows_[size_t(row)].shown : nullptr;
}

int SuggestionModel::rowOfId(qint64 id) const
{
    for (size_t i = 0; i < rows_.size(); ++i)
        if (rows_[i].stored.id == id)
            return int(i);
    return -1;
}

int SuggestionModel::rowOfKey(const QString& stateKey) const
{
    for (size_t i = 0; i < rows_.size(); ++i)
        if (keyOf(rows_[i].stored) == stateKey)
            return int(i);
    return -1;
}

const Finding* SuggestionModel::findingFor(int row) const
{
    const SuggestionRecord* r = record(row);
    if (!r || !diagnosis_)
        return nullptr;
    for (const Finding& f : diagnosis_->eval.findings)
        if (f.subject == r->subject)
            for (const Suggestion& s : f.suggestions)
                if (f.rule + "/" + s.id == r->key)
                    return &f;
    return nullptr;
}

const Suggestion* SuggestionModel::suggestionFor(int row) const
{
    const SuggestionRecord* r = record(row);
    const Finding* f = findingFor(row);
    if (!r || !f)
        return nullptr;
    for (const Suggestion& s : f->suggestions)
        if (f->rule + "/" + s.id == r->key)
            return &s;
    return nullptr;
}

QVariant SuggestionModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Row& row = rows_[size_t(index.row())];
    const SuggestionRecord& r = row.shown;
    switch (role) {
    case IdRole: return QVariant::fromValue<qint64>(r.id);
    case KeyRole: return QString::fromStdString(r.key);
    case StateRole: return QString::fromLatin1(suggestion_state_name(r.state));
    case SubjectRole: return QString::fromStdString(r.subject);
    case PendingRole: return row.pending > 0;
    default: break;
    }
    const int col = index.column();
    if (role == Qt::DisplayRole || role == Qt::EditRole || role == SortRole || role == Qt::ToolTipRole) {
        switch (col) {
        case State:
            if (role == SortRole)
                return int(r.state);
            if (role == Qt::EditRole)
                return QString::fromLatin1(suggestion_state_name(r.state));
            return stateLabel(r.state);
        case Text: {
            QString text = QString::fromStdString(r.text);
            if (const Suggestion* s = suggestionFor(index.row()))
                text = QString::fromStdString(s->text.get(lang_.toStdString()));
            return text;
        }
        case Subject:
            // Operator classes and phases in the interface's words, not ids ("gemm (decode)", "trace").
            return role == Qt::EditRole || role == SortRole
                       ? QString::fromStdString(r.subject)
                       : FindingsModel::subjectLabel(r.subject, analysis_ ? &analysis_->classes : nullptr, lang_);
        case Metric: {
            if (r.metric.empty())
                return QString();
            const QString arrow = r.direction == "decrease" ? QStringLiteral(" ↓")
                                  : r.direction == "increase" ? QStringLiteral(" ↑")
                                                              : QString();
            const QString metric = QString::fromStdString(r.metric);
            if (role == Qt::ToolTipRole)
                return tr("%1 should %2 (%3)")
                    .arg(metricLabel(metric), r.direction == "increase" ? tr("increase") : tr("decrease"), metric);
            return metricLabel(metric) + arrow;
        }
        case Annotation: return QString::fromStdString(r.annotation);
        case Updated:
            if (role == SortRole)
                return QVariant::fromValue<qint64>(r.updated_at);
            if (r.updated_at <= 0)
                return QString();
            return QLocale().toString(QDateTime::fromSecsSinceEpoch(r.updated_at), QStringLiteral("yyyy-MM-dd HH:mm"));
        default: break;
        }
    }
    if (role == Qt::ToolTipRole)
        return {};
    if (role == Qt::TextAlignmentRole && col == Updated)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

Qt::ItemFlags SuggestionModel::flags(const QModelIndex& index) const
{
    if (!index.isValid())
        return Qt::NoItemFlags;
    Qt::ItemFlags f = Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemNeverHasChildren;
    if (index.column() == State || index.column() == Annotation)
        f |= Qt::ItemIsEditable;
    return f;
}

bool SuggestionModel::setData(const QModelIndex& index, const QVariant& value, int role)
{
    if (role != Qt::EditRole || !session_ || !checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return false;
    Row& row = rows_[size_t(index.row())];
    if (index.column() == State) {
        const auto st = stateFromText(value.toString());
        if (!st)
            return false;
        if (*st == row.shown.state)
            return true;
        row.shown.state = *st;
        ++row.pending;
        session_->setState(row.stored.id, *st);
        emitRow(index.row());
        emit statesChanged();
        return true;
    }
    if (index.column() == Annotation) {
        const std::string text = value.toString().toStdString();
        if (text == row.shown.annotation)
            return true;
        row.shown.annotation = text;
        ++row.pending;
        session_->annotate(row.stored.id, value.toString());
        emitRow(index.row());
        return true;
    }
    return false;
}

void SuggestionModel::emitRow(int row)
{
    emit dataChanged(index(row, 0), index(row, ColumnCount - 1));
}

void SuggestionModel::onSaved(qint64 id, SuggestionState state, const QString& annotation, qint64 updatedAt)
{
    const int i = rowOfId(id);
    if (i < 0)
        return;
    Row& row = rows_[size_t(i)];
    const SuggestionState before = row.shown.state;
    row.stored.state = state;
    row.stored.annotation = annotation.toStdString();
    if (updatedAt > 0)
        row.stored.updated_at = updatedAt;
    if (row.pending > 0)
        --row.pending;
    // While later edits of this row are still in flight, keep showing them; the last answer settles the row.
    if (row.pending == 0)
        row.shown = row.stored;
    else
        row.shown.updated_at = row.stored.updated_at;
    emitRow(i);
    if (row.shown.state != before)
        emit statesChanged();
}

void SuggestionModel::onFailed(qint64 id, const QString& /*message*/)
{
    const int i = id > 0 ? rowOfId(id) : -1;
    if (i < 0)
        return;
    Row& row = rows_[size_t(i)];
    const SuggestionState before = row.shown.state;
    if (row.pending > 0)
        --row.pending;
    row.shown = row.stored;   // back to what the knowledge base holds
    emitRow(i);
    if (row.shown.state != before)
        emit statesChanged();
}

QVariant SuggestionModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case State: return tr("State");
    case Text: return tr("Suggestion");
    case Subject: return tr("Subject");
    case Metric: return tr("Metric");
    case Annotation: return tr("Annotation");
    case Updated: return tr("Updated");
    default: return {};
    }
}

QHash<QString, QString> SuggestionModel::annotationByKey() const
{
    QHash<QString, QString> out;
    for (const Row& r : rows_)
        if (!r.shown.annotation.empty())
            out.insert(keyOf(r.shown), QString::fromStdString(r.shown.annotation));
    return out;
}

QHash<QString, QString> SuggestionModel::stateByKey() const
{
    QHash<QString, QString> out;
    out.reserve(int(rows_.size()));
    for (const Row& r : rows_)
        out.insert(keyOf(r.shown), QString::fromLatin1(suggestion_state_name(r.shown.state)));
    return out;
}

} // namespace sl
