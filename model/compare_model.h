#pragma once
// Table models of an A/B comparison (model/compare_job.h): headline metrics side by side, operator-class and
// kernel deltas, and the verdicts of the suggestions accepted on BEFORE. DisplayRole shows formatted text, SortRole
// the raw number, ForegroundRole colours what got better (green) or worse (red) in the current theme's shades.

#include <QAbstractTableModel>
#include <QColor>
#include <memory>
#include <string>
#include <vector>

#include "analysis/diagnosis/compare.h"

namespace sl {

// Text colours for a status ("faster", "slower", "added", "removed", "unchanged", "verified", "failed",
// "inconclusive", "unmeasurable"), readable on the palette's Base (dark or light). Invalid for neutral states.
QColor compareStatusColor(const std::string& status, bool darkTheme);

// Headline metrics (wall time, TPOT, utilisation, idle by cause, launch and sync time...): Metric, Before, After,
// Delta, Change.
class CompareMetricsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Metric, Before, After, Delta, Change, ColumnCount };
    enum Role { SortRole = Qt::UserRole + 1, KeyRole };

    explicit CompareMetricsModel(QObject* parent = nullptr);
    void setResult(std::shared_ptr<const CompareResult> result);

    // Metric keys in row order: the headline ones of `sightline-cli compare` first, then the rest alphabetically.
    const std::vector<std::string>& keys() const { return keys_; }
    // +1: a larger value is better (utilisation), -1: smaller is better (times, idle), 0: neither (counts).
    static int betterDirection(const std::string& key);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const CompareResult> result_;
    std::vector<std::string> keys_;
};

// Per operator class or per kernel name: Name, Class, Status, Calls before/after, Time before/after, Delta, Change.
class CompareDeltaModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Name, Class, Status, BeforeCalls, AfterCalls, BeforeTime, AfterTime, Delta, Change, ColumnCount };
    enum Role { SortRole = Qt::UserRole + 1, StatusRole };
    enum class Rows { Classes, Kernels };

    explicit CompareDeltaModel(Rows rows, QObject* parent = nullptr);
    void setResult(std::shared_ptr<const CompareResult> result);
    const DeltaRow* rowAt(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    const std::vector<DeltaRow>* rows() const;
    Rows which_;
    std::shared_ptr<const CompareResult> result_;
};

// Suggestions accepted on BEFORE: Verdict, Suggestion, Subject, Metric, Before, After, Change, Reason.
class CompareVerdictModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Verdict, Suggestion, Subject, Metric, Before, After, Change, Reason, ColumnCount };
    enum Role { SortRole = Qt::UserRole + 1 };

    explicit CompareVerdictModel(QObject* parent = nullptr);
    void setResult(std::shared_ptr<const CompareResult> result);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const CompareResult> result_;
};

} // namespace sl
