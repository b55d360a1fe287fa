#include "model/findings_model.h"

#include "analysis/timeline/op_classes.h"
#include "analysis/trace/kernel_short_name.h"

#include <QFont>
#include <QStringList>
#include <algorithm>
#include <map>
#include <set>

#include "analysis/report/report_strings.h"
#include "model/suggestion_model.h"
#include "model/units.h"

namespace sl {

namespace {

// internalId: 0 for a finding; ((finding row + 1) << 2) for its children; ((finding row + 1) << 2) | (group + 1)
// for the links under one of its link groups (0 kernels, 1 time ranges, 2 NVTX ranges).
constexpr quintptr kTopLevel = 0;
constexpr quintptr childId(int findingRow) { return quintptr(findingRow + 1) << 2; }
constexpr quintptr linkId(int findingRow, int group) { return childId(findingRow) | quintptr(group + 1); }
constexpr int findingOf(quintptr id) { return int(id >> 2) - 1; }
constexpr int groupOf(quintptr id) { return int(id & 3) - 1; }   // -1: not a link

size_t linkCount(const Finding& f, int group)
{
    switch (group) {
    case 0: return f.links.kernel_ids.size();
    case 1: return f.links.time_ranges.size();
    case 2: return f.links.nvtx_ranges.size();
    default: return 0;
    }
}

FindingsModel::RowKind linkKind(int group)
{
    return group == 0 ? FindingsModel::KernelLinkRow : group == 1 ? FindingsModel::RangeLinkRow : FindingsModel::NvtxLinkRow;
}

QString qs(const std::string& s) { return QString::fromStdString(s); }

} // namespace

FindingsModel::FindingsModel(QObject* parent) : QAbstractItemModel(parent) {}

void FindingsModel::setDiagnosis(std::shared_ptr<const Diagnosis> diagnosis, std::shared_ptr<const Trace> trace)
{
    beginResetModel();
    if (diagnosis != diagnosis_)
        review_.reset();   // a review judged other findings
    diagnosis_ = std::move(diagnosis);
    trace_ = std::move(trace);
    endResetModel();
}

void FindingsModel::setReview(std::shared_ptr<const Review> review)
{
    if (review == review_)
        return;
    review_ = std::move(review);
    const int n = findingCount();
    if (n > 0)
        emit dataChanged(index(0, ReviewColumn), index(n - 1, ReviewColumn));
}

namespace {
// "f3" -> 2; -1 when it names no row.
int reviewRow(const std::string& id)
{
    if (id.size() < 2 || id[0] != 'f')
        return -1;
    bool ok = false;
    const int n = QString::fromStdString(id.substr(1)).toInt(&ok);
    return ok && n >= 1 ? n - 1 : -1;
}
} // namespace

const ReviewVerdict* FindingsModel::reviewVerdict(int row) const
{
    if (!review_ || !finding(row))
        return nullptr;
    for (const ReviewVerdict& v : review_->verdicts)
        if (reviewRow(v.finding) == row)
            return &v;
    return nullptr;
}

QStringList FindingsModel::reviewDrops(int row) const
{
    QStringList reasons;
    if (!review_ || !finding(row))
        return reasons;
    for (const ReviewDrop& d : review_->dropped)
        if (reviewRow(d.finding) == row)
            reasons << qs(d.reason);
    return reasons;
}

QString FindingsModel::citedEvidenceText(int row, const std::string& id) const
{
    const Finding* f = finding(row);
    const std::string prefix = "f" + std::to_string(row + 1) + ".e";
    if (!f || id.rfind(prefix, 0) != 0)
        return {};
    bool ok = false;
    const int j = QString::fromStdString(id.substr(prefix.size())).toInt(&ok) - 1;
    return ok && j >= 0 && size_t(j) < f->evidence.size() ? evidenceText(f->evidence[size_t(j)], lang_) : QString();
}

void FindingsModel::setLanguage(const std::string& lang)
{
    if (lang == lang_)
        return;
    lang_ = lang;
    const int n = findingCount();
    if (n == 0)
        return;
    // Texts change, the structure does not.
    emit dataChanged(index(0, 0), index(n - 1, ColumnCount - 1));
    for (int r = 0; r < n; ++r) {
        const QModelIndex p = index(r, 0);
        const int c = rowCount(p);
        if (c > 0)
            emit dataChanged(index(0, 0, p), index(c - 1, ColumnCount - 1, p));
    }
}

void FindingsModel::setSuggestionStates(const QHash<QString, QString>& states)
{
    if (states == states_)
        return;
    states_ = states;
    for (int r = 0; r < findingCount(); ++r) {
        const Finding& f = *finding(r);
        if (f.suggestions.empty())
            continue;
        const QModelIndex p = index(r, 0);
        const int first = 1 + int(f.evidence.size());
        const int last = first + int(f.suggestions.size()) - 1;
        emit dataChanged(index(first, 0, p), index(last, ColumnCount - 1, p));
    }
}

QString FindingsModel::suggestionStateKey(const Finding& f, const Suggestion& s)
{
    return qs(f.rule) + QLatin1Char('/') + qs(s.id) + QLatin1Char('|') + qs(f.subject);
}

int FindingsModel::findingCount() const { return diagnosis_ ? int(diagnosis_->eval.findings.size()) : 0; }

const Finding* FindingsModel::finding(int row) const
{
    if (row < 0 || row >= findingCount())
        return nullptr;
    return &diagnosis_->eval.findings[size_t(row)];
}

const Finding* FindingsModel::findingAt(const QModelIndex& index) const
{
    if (!index.isValid() || index.model() != this)
        return nullptr;
    return finding(index.internalId() == kTopLevel ? index.row() : findingOf(index.internalId()));
}

QModelIndex FindingsModel::suggestionIndex(int findingRow, int i, int column) const
{
    const Finding* f = finding(findingRow);
    if (!f || i < 0 || size_t(i) >= f->suggestions.size())
        return {};
    return index(1 + int(f->evidence.size()) + i, column, index(findingRow, 0));
}

int FindingsModel::groupRow(const Finding& f, int group) const
{
    if (linkCount(f, group) == 0)
        return -1;
    int row = 1 + int(f.evidence.size() + f.suggestions.size());
    for (int g = 0; g < group; ++g)
        row += linkCount(f, g) > 0 ? 1 : 0;
    return row;
}

QModelIndex FindingsModel::linkIndex(int findingRow, RowKind kind, int i, int column) const
{
    const Finding* f = finding(findingRow);
    const int group = kind == KernelLinkRow ? 0 : kind == RangeLinkRow ? 1 : kind == NvtxLinkRow ? 2 : -1;
    if (!f || group < 0 || i < 0 || size_t(i) >= linkCount(*f, group))
        return {};
    return index(i, column, index(groupRow(*f, group), 0, index(findingRow, 0)));
}

QModelIndex FindingsModel::findingIndex(int row, int column) const
{
    return finding(row) ? index(row, column) : QModelIndex();
}

QColor FindingsModel::severityColor(Severity s)
{
    switch (s) {
    case Severity::High: return QColor(0xd6, 0x27, 0x28);
    case Severity::Medium: return QColor(0xf0, 0x8a, 0x0e);
    case Severity::Low: return QColor(0xc9, 0xb2, 0x12);
    case Severity::Info: break;
    }
    return QColor(0x6f, 0x86, 0xa0);
}

QString FindingsModel::severityLabel(Severity s)
{
    switch (s) {
    case Severity::High: return tr("High");
    case Severity::Medium: return tr("Medium");
    case Severity::Low: return tr("Low");
    case Severity::Info: break;
    }
    return tr("Info");
}

QString FindingsModel::scopeLabel(ScopeKind k)
{
    switch (k) {
    case ScopeKind::Trace: return tr("trace");
    case ScopeKind::Device: return tr("device");
    case ScopeKind::Phase: return tr("phase");
    case ScopeKind::OpClass: return tr("operator class");
    case ScopeKind::Kernel: return tr("kernel");
    case ScopeKind::NcuLaunch: return tr("ncu launch");
    case ScopeKind::HostCause: return tr("host-side cause");
    }
    return {};
}

QString FindingsModel::kindLabel(RowKind k)
{
    switch (k) {
    case FindingRow: return tr("Finding");
    case ExplanationRow: return tr("Why");
    case EvidenceRow: return tr("Evidence");
    case SuggestionRow: return tr("Suggestion");
    case KernelLinkRow: return tr("Kernel");
    case RangeLinkRow: return tr("Time range");
    case NvtxLinkRow: return tr("NVTX");
    case LinkGroupRow: return tr("Links");
    }
    return {};
}

QString FindingsModel::gainText(const ExpectedGain& g)
{
    if (g.computed) {
        QString s = formatPercent(g.fraction);
        if (g.ns)
            s += QStringLiteral(" · ") + formatDuration(int64_t(*g.ns));
        return s;
    }
    return tr("%1–%2").arg(formatPercent(g.low), formatPercent(g.high));
}

QString FindingsModel::basisText(const ExpectedGain& g)
{
    QString s = qs(g.basis);
    // analysis/diagnosis/ledger.cpp appends "; bounded by " and the time-ledger entry that caps the gain.
    s.replace(QStringLiteral("bounded by "), tr("bounded by") + QLatin1Char(' '));
    return s;
}

QString FindingsModel::subjectLabel(const std::string& subject, const OpClassResult* classes, const QString& lang)
{
    // An operator class by its label in the interface's language when the analysis is at hand.
    auto label = [&](const QString& id) {
        if (classes)
            for (const auto& c : classes->classes)
                if (qs(c.id) == id)
                    return qs(c.label_for(lang == QLatin1String("zh_CN") ? "zh_CN" : "en"));
        return id;
    };
    auto phase = [](const QString& p) {
        return p == QLatin1String("prefill") ? tr("prefill")
               : p == QLatin1String("decode") ? tr("decode")
               : p == QLatin1String("mixed")  ? tr("mixed")
               : p == QLatin1String("training") ? tr("training")
                                              : p;
    };
    const QString s = qs(subject);
    if (s == QLatin1String("trace"))
        return tr("whole trace");
    if (s == QLatin1String("prefill") || s == QLatin1String("decode") || s == QLatin1String("mixed") ||
        s == QLatin1String("training"))
        return phase(s);
    // "gemm (decode)": the class as it is (an id), the phase in words.
    if (s.endsWith(QLatin1Char(')'))) {
        const qsizetype open = s.lastIndexOf(QStringLiteral(" ("));
        if (open > 0) {
            const QString p = s.mid(open + 2, s.size() - open - 3);
            if (p == QLatin1String("prefill") || p == QLatin1String("decode") || p == QLatin1String("mixed") ||
                p == QLatin1String("training"))
                return tr("%1 (%2)").arg(label(s.left(open)), phase(p));
        }
    }
    return label(s);
}

QString FindingsModel::riskLabel(const std::string& risk)
{
    return risk == "low" ? tr("low") : risk == "medium" ? tr("medium") : risk == "high" ? tr("high") : qs(risk);
}

QString FindingsModel::confidenceText(const Confidence& c)
{
    QString label;
    if (c.label == "high")
        label = tr("high");
    else if (c.label == "medium")
        label = tr("medium");
    else if (c.label == "low")
        label = tr("low");
    else
        label = qs(c.label);
    return QStringLiteral("%1 · %2").arg(label, QString::number(c.value, 'f', 2));
}

QString FindingsModel::sourceLabel(const std::string& source)
{
    if (source == "analysis:idle")
        return tr("idle attribution");
    if (source == "analysis:launch")
        return tr("launch statistics");
    if (source == "analysis:sync")
        return tr("synchronisation analysis");
    if (source == "analysis:phases")
        return tr("prefill/decode phases");
    if (source == "trace:kernels")
        return tr("kernels in the trace");
    if (source == "trace:api")
        return tr("API calls in the trace");
    if (source == "analysis:overlap")
        return tr("overlap analysis");
    if (source == "analysis:collectives")
        return tr("collectives across ranks");
    if (source == "analysis:classes")
        return tr("operator classes");
    if (source == "analysis:weights")
        return tr("weight-streaming analysis");
    if (source == "analysis:weights (NVTX)")
        return tr("weight-streaming analysis (NVTX)");
    if (source == "analysis:idle/overlap")
        return tr("idle attribution and overlap");
    if (source == "analysis:host_causes")
        return tr("host-side causes (compilation, module loading, allocator)");
    if (source == "roofline")
        return tr("Roofline model");
    if (source == "trace (measured)")
        return tr("trace (measured)");
    if (source == "ncu")
        return tr("Nsight Compute");
    if (source == "trace (joined by name)")
        return tr("trace (joined by kernel name)");
    if (source == "metrics")
        return tr("metrics");
    return qs(source);
}

QString FindingsModel::evidenceText(const Evidence& e, const std::string& lang)
{
    // The metric in words (the core's table, as the reports say it), the rule's condition on its key.
    const QString label = qs(report::metric_label(e.metric, lang.rfind("zh", 0) == 0 ? report::Lang::ZhCN
                                                                                      : report::Lang::En));
    const QString value = qs(format_metric(e.metric, e.value));
    if (e.op.empty() || !e.threshold)
        return QStringLiteral("%1 = %2").arg(label, value);
    return tr("%1 = %2  (rule: %3 %4 %5)")
        .arg(label, value, qs(e.metric), qs(e.op), qs(format_metric(e.metric, *e.threshold)));
}

QString FindingsModel::problemsText(const Diagnosis& d)
{
    QStringList parts;
    if (!d.rule_errors.empty()) {
        const RuleError& e = d.rule_errors.front();
        QString what = qs(e.rule_id.empty() ? e.file : e.rule_id);
        parts << tr("%n rule(s) could not be loaded (%1: %2)", nullptr, int(d.rule_errors.size()))
                     .arg(what, qs(e.message));
    }
    if (!d.eval.errors.empty()) {
        std::set<std::string> rules;
        for (const RuleError& e : d.eval.errors)
            rules.insert(e.rule_id);
        parts << tr("%n rule(s) failed to evaluate (%1)", nullptr, int(rules.size())).arg(qs(d.eval.errors.front().message));
    }
    if (!d.eval.not_run.empty()) {
        // Only the rules that ran on none of their scopes: a rule that lacked a metric for one operator class but
        // was evaluated on the others did run.
        const std::set<std::string> rules(d.eval.not_run.begin(), d.eval.not_run.end());
        std::map<std::string, int> metrics;   // metric -> how often a rule that did not run missed it
        for (const MissingData& m : d.eval.missing) {
            if (!rules.count(m.rule))
                continue;
            for (const std::string& name : m.metrics)
                ++metrics[name];
        }
        std::vector<std::pair<std::string, int>> byUse(metrics.begin(), metrics.end());
        std::stable_sort(byUse.begin(), byUse.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
        QStringList names;
        for (size_t i = 0; i < byUse.size() && i < 4; ++i)
            names << qs(byUse[i].first);
        if (byUse.size() > 4)
            names << QStringLiteral("…");
        parts << tr("%n rule(s) could not run: missing %1", nullptr, int(rules.size())).arg(names.join(QStringLiteral(", ")));
    }
    return parts.join(QStringLiteral(" · "));
}

FindingsModel::Child FindingsModel::childAt(const Finding& f, int row) const
{
    if (row == 0)
        return {ExplanationRow, -1};
    int r = row - 1;
    if (r < int(f.evidence.size()))
        return {EvidenceRow, r};
    r -= int(f.evidence.size());
    if (r < int(f.suggestions.size()))
        return {SuggestionRow, r};
    r -= int(f.suggestions.size());
    for (int g = 0; g < 3; ++g)
        if (linkCount(f, g) > 0 && r-- == 0)
            return {LinkGroupRow, g};
    return {LinkGroupRow, -1};
}

int FindingsModel::childCount(const Finding& f) const
{
    int n = 1 + int(f.evidence.size() + f.suggestions.size());
    for (int g = 0; g < 3; ++g)
        n += linkCount(f, g) > 0 ? 1 : 0;
    return n;
}

QString FindingsModel::text(const LocalText& t) const { return qs(t.get(lang_)); }

QString FindingsModel::reasonText(const std::string& reason) const
{
    // The rule engine's reasons are English with numbers; the core's report table says them in both languages, so
    // the GUI and the report use the same words (as they do for the rules' own texts).
    return qs(report::confidence_reason_text(reason, lang_.rfind("zh", 0) == 0 ? report::Lang::ZhCN
                                                                                 : report::Lang::En));
}

QModelIndex FindingsModel::index(int row, int column, const QModelIndex& parent) const
{
    if (row < 0 || column < 0 || column >= ColumnCount)
        return {};
    if (!parent.isValid())
        return row < findingCount() ? createIndex(row, column, kTopLevel) : QModelIndex();
    if (parent.model() != this || parent.column() != 0)
        return {};
    if (parent.internalId() == kTopLevel) {
        const Finding* f = finding(parent.row());
        if (!f || row >= childCount(*f))
            return {};
        return createIndex(row, column, childId(parent.row()));
    }
    if (groupOf(parent.internalId()) >= 0)
        return {};   // links have no children
    const int fr = findingOf(parent.internalId());
    const Finding* f = finding(fr);
    if (!f || parent.row() >= childCount(*f))
        return {};
    const Child c = childAt(*f, parent.row());
    if (c.kind != LinkGroupRow || row >= int(linkCount(*f, c.index)))
        return {};
    return createIndex(row, column, linkId(fr, c.index));
}

QModelIndex FindingsModel::parent(const QModelIndex& child) const
{
    if (!child.isValid() || child.internalId() == kTopLevel)
        return {};
    const int fr = findingOf(child.internalId());
    const int group = groupOf(child.internalId());
    if (group < 0)
        return createIndex(fr, 0, kTopLevel);
    const Finding* f = finding(fr);
    return f ? createIndex(groupRow(*f, group), 0, childId(fr)) : QModelIndex();
}

int FindingsModel::rowCount(const QModelIndex& parent) const
{
    if (!parent.isValid())
        return findingCount();
    if (parent.column() != 0 || parent.model() != this)
        return 0;
    if (parent.internalId() == kTopLevel) {
        const Finding* f = finding(parent.row());
        return f ? childCount(*f) : 0;
    }
    if (groupOf(parent.internalId()) >= 0)
        return 0;
    const Finding* f = finding(findingOf(parent.internalId()));
    if (!f || parent.row() >= childCount(*f))
        return 0;
    const Child c = childAt(*f, parent.row());
    return c.kind == LinkGroupRow ? int(linkCount(*f, c.index)) : 0;
}

int FindingsModel::columnCount(const QModelIndex&) const { return ColumnCount; }

Qt::ItemFlags FindingsModel::flags(const QModelIndex& index) const
{
    if (!index.isValid())
        return Qt::NoItemFlags;
    return Qt::ItemIsEnabled | Qt::ItemIsSelectable;
}

QVariant FindingsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case RankColumn: return tr("Rank");
    case SeverityColumn: return tr("Severity");
    case TitleColumn: return tr("Finding");
    case SubjectColumn: return tr("Subject");
    case GainColumn: return tr("Expected gain");
    case ConfidenceColumn: return tr("Confidence");
    case StateColumn: return tr("State");
    case ReviewColumn: return tr("LLM review");
    default: break;
    }
    return {};
}

QVariant FindingsModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.model() != this)
        return {};
    if (index.internalId() == kTopLevel) {
        const Finding* f = finding(index.row());
        return f ? findingData(index.row(), *f, index.column(), role) : QVariant();
    }
    const int row = findingOf(index.internalId());
    const int group = groupOf(index.internalId());
    const Finding* f = finding(row);
    if (!f)
        return {};
    Child c{LinkGroupRow, -1};
    if (group >= 0) {
        if (size_t(index.row()) >= linkCount(*f, group))
            return {};
        c = {linkKind(group), index.row()};
    } else {
        if (index.row() >= childCount(*f))
            return {};
        c = childAt(*f, index.row());
    }
    switch (role) {
    case FindingRowRole: return row;
    case FindingSubjectRole: return qs(f->subject);
    case SeverityRole: return int(f->severity);
    case SortRole: return index.row();   // children keep their order whatever the sort column
    default: break;
    }
    return childData(*f, c, index.column(), role);
}

QVariant FindingsModel::findingData(int row, const Finding& f, int column, int role) const
{
    // The review's own roles; every other role (row kind, kernel index, ...) stays the finding's, in every column.
    const bool reviewRole = role == ReviewVerdictRole ||
                            (column == ReviewColumn && (role == SortRole || role == Qt::DisplayRole ||
                                                        role == Qt::ForegroundRole || role == Qt::ToolTipRole));
    if (reviewRole) {
        const ReviewVerdict* v = reviewVerdict(row);
        const QStringList drops = v ? QStringList() : reviewDrops(row);
        const QString verdict = v ? (v->agree ? QStringLiteral("agree") : QStringLiteral("disagree"))
                                  : !drops.isEmpty() ? QStringLiteral("dropped")
                                                     : QString();
        switch (role) {
        case ReviewVerdictRole: return verdict;
        case SortRole: return verdict;
        case Qt::DisplayRole:
            if (!v)
                return drops.isEmpty() ? QVariant() : QVariant(tr("dropped"));
            return v->agree ? tr("✓ agrees") : tr("✗ disagrees");
        case Qt::ForegroundRole:
            if (!v)
                return drops.isEmpty() ? QVariant() : QVariant(QColor(0x9a, 0x9a, 0x9a));
            return v->agree ? QColor(0x2c, 0xa0, 0x2c) : QColor(0xd6, 0x27, 0x28);
        case Qt::ToolTipRole: {
            QStringList lines;
            if (v) {
                lines << (v->agree ? tr("The LLM reviewer agrees (advisory):") : tr("The LLM reviewer disagrees (advisory):"))
                      << qs(v->explanation) << tr("Cited evidence:");
                for (const std::string& id : v->cites) {
                    const QString e = citedEvidenceText(row, id);
                    lines << QStringLiteral("  %1: %2").arg(qs(id), e.isEmpty() ? tr("unknown") : e);
                }
            }
            for (const QString& d : reviewDrops(row))
                lines << tr("A claim of the reviewer was dropped: %1").arg(d);
            return lines.isEmpty() ? QVariant() : QVariant(lines.join(QLatin1Char('\n')));
        }
        default: return {};
        }
    }
    switch (role) {
    case RowKindRole: return int(FindingRow);
    case FindingRowRole: return row;
    case FindingSubjectRole: return qs(f.subject);
    case SeverityRole: return int(f.severity);
    case KernelIndexRole: return qint64(-1);
    case ChildIndexRole: return -1;
    case SearchTextRole:
        return QStringList{text(f.title), text(f.explanation), qs(f.subject), qs(f.rule), qs(f.verdict),
                           severityLabel(f.severity), scopeLabel(f.scope)}
            .join(QLatin1Char('\n'));
    case SortRole:
        switch (column) {
        case RankColumn: return row + 1;
        case SeverityColumn: return int(f.severity);
        case TitleColumn: return text(f.title);
        case SubjectColumn: return qs(f.subject);
        case GainColumn: return f.expected_gain.fraction;
        case ConfidenceColumn: return f.confidence.value;
        default: return row;
        }
    case Qt::DisplayRole:
        switch (column) {
        case RankColumn: return row + 1;
        case SeverityColumn: return severityLabel(f.severity);
        case TitleColumn: return text(f.title);
        case SubjectColumn: {
            if (f.scope == ScopeKind::Trace)
                return scopeLabel(f.scope);
            // A kernel by its function's own name (a Kineto trace's subject is the demangled name; the tooltip has
            // it whole).
            const QString subject =
                f.scope == ScopeKind::Kernel ? qs(std::string(shorten_kernel_name(f.subject))) : subjectLabel(f.subject);
            return QStringLiteral("%1 (%2)").arg(subject, scopeLabel(f.scope));
        }
        case GainColumn: return gainText(f.expected_gain);
        case ConfidenceColumn: return confidenceText(f.confidence);
        default: return {};
        }
    case Qt::DecorationRole:
        if (column == SeverityColumn)
            return severityColor(f.severity);
        return {};
    case Qt::FontRole:
        if (column == GainColumn && !f.expected_gain.computed) {
            QFont font;
            font.setItalic(true);
            return font;
        }
        return {};
    case Qt::TextAlignmentRole:
        if (column == RankColumn)
            return int(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case Qt::ToolTipRole:
        switch (column) {
        case TitleColumn: return text(f.explanation);
        case SubjectColumn: return tr("%1: %2").arg(scopeLabel(f.scope), subjectLabel(f.subject));
        case GainColumn:
            return f.expected_gain.computed ? tr("Computed from the metrics: %1").arg(basisText(f.expected_gain))
                                            : tr("The rule's range (the metrics did not give a number)");
        case ConfidenceColumn: {
            QStringList lines{tr("prior %1 × data quality %2 × history %3")
                                  .arg(f.confidence.prior, 0, 'f', 2)
                                  .arg(f.confidence.data_quality, 0, 'f', 2)
                                  .arg(f.confidence.kb_factor, 0, 'f', 2)};
            for (const std::string& r : f.confidence.reasons)
                lines << reasonText(r);
            return lines.join(QLatin1Char('\n'));
        }
        default: return QStringLiteral("%1 · %2").arg(qs(f.rule), qs(f.verdict));
        }
    default: break;
    }
    return {};
}

QVariant FindingsModel::childData(const Finding& f, const Child& c, int column, int role) const
{
    const Trace* t = trace_.get();
    const int64_t origin = t ? t->meta.capture_start : 0;
    switch (role) {
    case RowKindRole: return int(c.kind);
    case ChildIndexRole: return c.index;
    case KernelIndexRole:
        return c.kind == KernelLinkRow ? qint64(f.links.kernel_ids[size_t(c.index)]) : qint64(-1);
    case TimeRangeStartRole:
    case TimeRangeEndRole: {
        const bool start = role == TimeRangeStartRole;
        if (c.kind == RangeLinkRow) {
            const LinkedRange& r = f.links.time_ranges[size_t(c.index)];
            return qint64(start ? r.start : r.end);
        }
        if (c.kind == KernelLinkRow && t) {
            const int64_t k = f.links.kernel_ids[size_t(c.index)];
            if (k >= 0 && size_t(k) < t->kernels.size())
                return qint64(start ? t->kernels.start[size_t(k)] : t->kernels.end[size_t(k)]);
        }
        return {};
    }
    case SuggestionKeyRole:
        if (c.kind == SuggestionRow)
            return qs(f.rule) + QLatin1Char('/') + qs(f.suggestions[size_t(c.index)].id);
        return {};
    case SuggestionStateRole:
        if (c.kind == SuggestionRow)
            return states_.value(suggestionStateKey(f, f.suggestions[size_t(c.index)]));
        return {};
    case NvtxNameRole:
        if (c.kind == NvtxLinkRow)
            return qs(f.links.nvtx_ranges[size_t(c.index)]);
        return {};
    default: break;
    }

    // Display, tooltip and search texts, per kind and column.
    QString main, subject, gain, conf, state, tip;
    switch (c.kind) {
    case FindingRow: break;
    case ExplanationRow:
        main = text(f.explanation);
        tip = main;
        break;
    case EvidenceRow: {
        const Evidence& e = f.evidence[size_t(c.index)];
        main = evidenceText(e, lang_);
        subject = sourceLabel(e.source);
        tip = tr("%1 (value %2) from %3").arg(qs(e.metric)).arg(e.value, 0, 'g', 6).arg(subject);
        break;
    }
    case SuggestionRow: {
        const Suggestion& s = f.suggestions[size_t(c.index)];
        main = text(s.text);
        gain = formatGainRange(s.gain_low, s.gain_high);
        if (gain.isEmpty())
            gain = tr("no direct gain");
        conf = tr("risk: %1").arg(s.risk == "low" ? tr("low") : s.risk == "medium" ? tr("medium")
                                                          : s.risk == "high"   ? tr("high")
                                                                               : qs(s.risk));
        // Shown in the interface's language; SuggestionStateRole keeps the stored name.
        state = states_.value(suggestionStateKey(f, s));
        if (const auto st = parse_suggestion_state(state.toStdString()))
            state = SuggestionModel::stateLabel(*st);
        tip = main + QLatin1Char('\n') + tr("Knowledge-base key: %1/%2").arg(qs(f.rule), qs(s.id));
        if (!s.verify.empty())
            tip += QLatin1Char('\n') + tr("Verify: %1").arg(qs(verify_for(s.verify, lang_)));
        break;
    }
    case KernelLinkRow: {
        const int64_t k = f.links.kernel_ids[size_t(c.index)];
        if (t && k >= 0 && size_t(k) < t->kernels.size()) {
            const size_t i = size_t(k);
            main = QString::fromUtf8(t->str(t->kernels.short_name[i]));
            subject = tr("at %1").arg(formatDuration(t->kernels.start[i] - origin));
            gain = formatDuration(t->kernels.end[i] - t->kernels.start[i]);
            tip = QString::fromUtf8(t->str(t->kernels.name[i]));
        } else {
            main = tr("kernel #%1").arg(k);
        }
        break;
    }
    case RangeLinkRow: {
        const LinkedRange& r = f.links.time_ranges[size_t(c.index)];
        main = r.label.empty() ? tr("time range") : qs(r.label);
        subject = tr("%1 – %2").arg(formatDuration(r.start - origin), formatDuration(r.end - origin));
        gain = formatDuration(r.end - r.start);
        tip = main;
        break;
    }
    case NvtxLinkRow:
        main = qs(f.links.nvtx_ranges[size_t(c.index)]);
        tip = main;
        break;
    case LinkGroupRow: {
        const int n = int(linkCount(f, c.index));
        main = c.index == 0 ? tr("%n kernel(s), longest first", nullptr, n)
             : c.index == 1 ? tr("%n time range(s)", nullptr, n)
                            : tr("%n NVTX range(s)", nullptr, n);
        tip = tr("Click a row below to select it in the other panes");
        break;
    }
    }

    switch (role) {
    case Qt::DisplayRole:
        switch (column) {
        case RankColumn:
            if (c.kind == LinkGroupRow)
                return c.index == 0 ? tr("Kernels") : c.index == 1 ? tr("Ranges") : tr("NVTX");
            return kindLabel(c.kind);
        case TitleColumn: return main;
        case SubjectColumn: return subject;
        case GainColumn: return gain;
        case ConfidenceColumn: return conf;
        case StateColumn: return state;
        default: return {};
        }
    case Qt::ToolTipRole: return tip.isEmpty() ? QVariant() : QVariant(tip);
    default: break;
    }
    if (role == SearchTextRole)
        return QStringList{main, subject, tip, state}.join(QLatin1Char('\n'));
    if (role == Qt::ForegroundRole && column == StateColumn && !state.isEmpty()) {
        if (state == QLatin1String("accepted") || state == QLatin1String("verified"))
            return QColor(0x2c, 0xa0, 0x2c);
        if (state == QLatin1String("rejected") || state == QLatin1String("failed"))
            return QColor(0x9a, 0x9a, 0x9a);
    }
    return {};
}

} // namespace sl
