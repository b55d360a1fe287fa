#pragma once
// The Range pane: the aggregate table of the time range selected by Shift+drag on the timeline (per operator class,
// per kernel name, copies, API calls: count, time inside the range, average, share), sortable, with a line that sums
// the range up and a button (and Ctrl+C) that copies the table as tab-separated values.

#include <QWidget>
#include <memory>

#include "model/range_stats_model.h"
#include "model/selection.h"

class QLabel;
class QSortFilterProxyModel;
class QTableView;
class QToolButton;

namespace sl {

class RangeStatsView : public QWidget {
    Q_OBJECT
public:
    explicit RangeStatsView(QWidget* parent = nullptr);

    // Sums `range` of `index` (on a worker); the table fills when done.
    void showRange(std::shared_ptr<const TimelineIndex> index, std::shared_ptr<const AnalysisResult> analysis,
                   TimeRange range);
    RangeStatsModel* model() const { return model_; }
    QTableView* view() const { return view_; }
    QToolButton* copyButton() const { return copy_; }
    QString summaryText() const;
    // Puts the table on the clipboard as TSV.
    void copyTsv();

signals:
    void ready();

protected:
    void keyPressEvent(QKeyEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void updateSummary();
    RangeStatsModel* model_;
    QSortFilterProxyModel* proxy_;
    QTableView* view_;
    QLabel* summary_;
    QToolButton* copy_;
    std::shared_ptr<const TimelineIndex> index_;
    TimeRange range_;
};

} // namespace sl
