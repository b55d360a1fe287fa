#pragma once
// The attached run's suggestions as a table: state, text, subject, metric (direction), annotation, last update.
// Editable: the state column (setData with a state name: "proposed", "accepted", "rejected", "verified", "failed")
// and the annotation column. An edit is forwarded to the KbSession, which writes it to the knowledge base at once;
// the row shows the new value immediately and goes back to the stored one if the write fails.
//
// The findings pane shows a badge per suggestion: stateByKey() maps "<rule>/<suggestion id>|<subject>" to the
// state name, and statesChanged() fires whenever any of them changes.

#include <QAbstractTableModel>
#include <QHash>
#include <QPointer>
#include <QString>
#include <memory>
#include <vector>

#include "analysis/diagnosis/knowledge_base.h"
#include "analysis/diagnosis/metrics_binding.h"
#include "model/kb_session.h"

namespace sl {

class SuggestionModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { State, Text, Subject, Metric, Annotation, Updated, ColumnCount };
    enum Role {
        IdRole = Qt::UserRole + 1,   // qint64 suggestion id
        KeyRole,                     // "<rule>/<suggestion id>"
        StateRole,                   // state name, untranslated ("accepted")
        SubjectRole,                 // the finding's subject
        SortRole,                    // raw value to sort by (state order, seconds, text)
        PendingRole,                 // true while a write of this row is in flight
    };

    // Follows `session`: its suggestionsReady replaces the rows, saved/failed confirm or revert an edit.
    explicit SuggestionModel(KbSession* session, QObject* parent = nullptr);

    // The diagnosis the suggestions came from: localised texts ("en" | "zh_CN") and findSuggestion(). With the
    // analysis, the Subject column names an operator class by its label in the language ("GEMM / GEMV（解码）").
    void setDiagnosis(std::shared_ptr<const Diagnosis> diagnosis,
                      std::shared_ptr<const AnalysisResult> analysis = nullptr);
    void setLanguage(const QString& code);
    // Drops every row (document closed).
    void clear();

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // The row as shown (optimistic while a write is pending); nullptr out of range.
    const SuggestionRecord* record(int row) const;
    int rowOfId(qint64 id) const;
    // The row of "<rule>/<suggestion id>|<subject>" (FindingsModel::suggestionStateKey), or -1.
    int rowOfKey(const QString& stateKey) const;
    // The finding and suggestion of the diagnosis this row stands for (matched by key and subject); nullptr when
    // the diagnosis does not have it (e.g. the run was recorded with other rules).
    const Finding* findingFor(int row) const;
    const Suggestion* suggestionFor(int row) const;

    // "<key>|<subject>" -> state name, for every row.
    QHash<QString, QString> stateByKey() const;
    // "<rule>/<suggestion id>|<subject>" -> the user's note, for the rows that have one (the exported report).
    QHash<QString, QString> annotationByKey() const;
    bool hasRun() const { return runId_ > 0; }
    qint64 runId() const { return runId_; }

    // Translated name of a state, for display ("Accepted").
    static QString stateLabel(SuggestionState s);
    // A suggestion's metric for people: "subject_time_ns" -> "Subject time", "tpot_median_ns" -> "Median TPOT";
    // an unknown name reads without its unit suffix and underscores.
    static QString metricLabel(const QString& metric);

signals:
    void statesChanged();

private:
    struct Row {
        SuggestionRecord stored;   // what the knowledge base holds (last confirmed)
        SuggestionRecord shown;    // stored + edits in flight
        int pending = 0;
    };
    void reset(quint64 generation, qint64 runId, SuggestionList list);
    void onSaved(qint64 id, SuggestionState state, const QString& annotation, qint64 updatedAt);
    void onFailed(qint64 id, const QString& message);
    void emitRow(int row);

    QPointer<KbSession> session_;   // may go first at shutdown
    std::vector<Row> rows_;
    qint64 runId_ = 0;
    std::shared_ptr<const Diagnosis> diagnosis_;
    std::shared_ptr<const AnalysisResult> analysis_;   // the class labels of the Subject column; may be null
    QString lang_ = QStringLiteral("en");
};

} // namespace sl
