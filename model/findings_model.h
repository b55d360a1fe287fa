#pragma once
// The findings of a Diagnosis as a tree: one top-level row per finding, in the engine's rank order (expected gain x
// confidence), and below it the explanation, one row per evidence, one per suggestion and one per link to the trace
// (kernel instances, time ranges, NVTX range names). Display strings are formatted here; raw numbers go through
// SortRole and the custom roles, so views sort and jump without parsing text.
//
// An optional LLM review (setReview; model/llm_reviewer.h) adds a verdict per finding in ReviewColumn: agree or
// disagree with the reviewer's short explanation and the evidence it cited in the tooltip, or "dropped" with the
// reason when the reviewer's claim cited nothing or contradicted the evidence. The findings themselves never change;
// a new diagnosis clears the review.

#include <QAbstractItemModel>
#include <QColor>
#include <QHash>
#include <QString>
#include <QStringList>
#include <memory>
#include <string>

#include "analysis/diagnosis/metrics_binding.h"
#include "analysis/diagnosis/review.h"
#include "analysis/trace/trace.h"

namespace sl {

struct OpClassResult;

class FindingsModel : public QAbstractItemModel {
    Q_OBJECT
public:
    enum Column { RankColumn, SeverityColumn, TitleColumn, SubjectColumn, GainColumn, ConfidenceColumn, StateColumn,
                  ReviewColumn, ColumnCount };
    // Children of a finding: its explanation, evidence, suggestions, then one LinkGroupRow per non-empty link list
    // (kernels, time ranges, NVTX ranges, in that order) holding the link rows.
    enum RowKind { FindingRow, ExplanationRow, EvidenceRow, SuggestionRow, KernelLinkRow, RangeLinkRow, NvtxLinkRow,
                   LinkGroupRow };
    enum Role {
        RowKindRole = Qt::UserRole + 1,   // RowKind (int)
        KernelIndexRole,                  // qint64 row into Trace::kernels (kernel links), else -1
        TimeRangeStartRole,               // qint64 ns, trace clock (kernel and range links)
        TimeRangeEndRole,
        SuggestionKeyRole,                // "<rule>/<suggestion id>" (the knowledge-base key), suggestion rows
        FindingSubjectRole,               // the finding's subject (every row of the finding)
        SortRole,                         // raw number or text of the column
        FindingRowRole,                   // the row of the finding the index belongs to (int)
        SeverityRole,                     // the finding's sl::Severity (int)
        ChildIndexRole,                   // index into evidence / suggestions / links of the finding (int); the link
                                          // group (0 kernels, 1 ranges, 2 NVTX) of a LinkGroupRow; -1 otherwise
        SearchTextRole,                   // every text of the row in one string, for the text filter
        SuggestionStateRole,              // state from setSuggestionStates ("accepted", ...), suggestion rows
        NvtxNameRole,                     // NVTX range name, NVTX link rows
        ReviewVerdictRole,                // "agree", "disagree", "dropped" or "" (no review), finding rows
    };

    explicit FindingsModel(QObject* parent = nullptr);

    // A new diagnosis (or none) resets the model. The trace resolves kernel links to names and times; may be null.
    void setDiagnosis(std::shared_ptr<const Diagnosis> diagnosis, std::shared_ptr<const Trace> trace);
    std::shared_ptr<const Diagnosis> diagnosis() const { return diagnosis_; }
    std::shared_ptr<const Trace> trace() const { return trace_; }
    // "en" or "zh_CN": which text of the findings is shown (both come with every finding).
    void setLanguage(const std::string& lang);
    const std::string& language() const { return lang_; }
    // A confidence reason of the rule engine in the model's language (report::confidence_reason_text).
    QString reasonText(const std::string& reason) const;
    // Suggestion states keyed by suggestionStateKey(); shown in StateColumn of the suggestion rows.
    void setSuggestionStates(const QHash<QString, QString>& states);
    static QString suggestionStateKey(const Finding& f, const Suggestion& s);
    // The LLM reviewer's verdicts on the current diagnosis' findings (the review's "f<i>" is row i - 1); null
    // clears them. Only ReviewColumn changes.
    void setReview(std::shared_ptr<const Review> review);
    std::shared_ptr<const Review> review() const { return review_; }
    // The kept verdict on the finding at `row`, or null; the reasons its dropped claims were dropped.
    const ReviewVerdict* reviewVerdict(int row) const;
    QStringList reviewDrops(int row) const;
    // "f1.e2" -> the evidence text of that item of the finding at `row` ("" when unknown).
    QString citedEvidenceText(int row, const std::string& id) const;

    int findingCount() const;
    const Finding* finding(int row) const;
    // The finding an index belongs to (its own row or one of its children), or null.
    const Finding* findingAt(const QModelIndex& index) const;
    QModelIndex findingIndex(int row, int column = 0) const;
    // The row of suggestion i of a finding, and of link i (kind KernelLinkRow / RangeLinkRow / NvtxLinkRow).
    QModelIndex suggestionIndex(int findingRow, int i, int column = 0) const;
    QModelIndex linkIndex(int findingRow, RowKind kind, int i, int column = 0) const;

    // Colour of a severity marker, the same in every view (Overview, Findings, Details).
    static QColor severityColor(Severity s);
    static QString severityLabel(Severity s);
    static QString scopeLabel(ScopeKind k);
    // A finding's subject in the interface's words: "trace" -> "whole trace", a phase ("decode") and a class in a
    // phase ("gemm (decode)") with the phase translated; kernel names and other subjects as they are. With the
    // analysis's classes, an operator class is its label in `lang` ("en" | "zh_CN": "GEMM / GEMV（解码）"), not its
    // id (issue 37 §7).
    static QString subjectLabel(const std::string& subject, const OpClassResult* classes = nullptr,
                                const QString& lang = QString());
    // A suggestion's risk ("low" | "medium" | "high") in the interface's words; other values as they are.
    static QString riskLabel(const std::string& risk);
    static QString kindLabel(RowKind k);
    // "12.3 % · 1.23 ms" (computed) or "5.0–30.0 %" (rule range).
    static QString gainText(const ExpectedGain& g);
    // How a computed gain was computed: the formula as the core writes it, its "bounded by <ledger entry>" in the
    // interface's words ("host_wait_per_step_ns / tpot_median_ns; bounded by idle:host").
    static QString basisText(const ExpectedGain& g);
    // "high · 0.72"
    static QString confidenceText(const Confidence& c);
    // "GPU idle share of the window = 34.5 %  (rule: idle_fraction > 20.0 %)", the metric named in `lang`.
    static QString evidenceText(const Evidence& e, const std::string& lang = "en");
    // Where an evidence metric came from, in words in the interface language ("analysis:idle" -> "idle
    // attribution" / 空闲归因); unknown sources as they are.
    static QString sourceLabel(const std::string& source);
    // One line for the view's footer when rules failed to load or could not run for missing data; empty when none.
    static QString problemsText(const Diagnosis& d);

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;

private:
    struct Child {
        RowKind kind;
        int index;   // into evidence / suggestions / kernel_ids / time_ranges / nvtx_ranges; -1 for the explanation
    };
    Child childAt(const Finding& f, int row) const;
    int childCount(const Finding& f) const;
    int groupRow(const Finding& f, int group) const;   // row of a link group under its finding, -1 when empty
    QVariant findingData(int row, const Finding& f, int column, int role) const;
    QVariant childData(const Finding& f, const Child& c, int column, int role) const;
    QString text(const LocalText& t) const;

    std::shared_ptr<const Diagnosis> diagnosis_;
    std::shared_ptr<const Trace> trace_;
    std::string lang_ = "en";
    QHash<QString, QString> states_;
    std::shared_ptr<const Review> review_;
};

} // namespace sl
