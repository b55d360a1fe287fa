#pragma once
// The rank view (issue 38 §4): a folder of ranks as a rank × step heat map of step time and a rank × collective map
// of lateness of arrival, with a line on what the merge found (the straggler, the step spread). A click on a cell asks
// for that rank's trace at that place (stepRequested / collectiveRequested with the rank's trace and its own clock).

#include <QWidget>

#include <memory>

class QLabel;

namespace sl {

class RankHeatMap;
class RankHeatModel;
struct RankViewData;

class RankView : public QWidget {
    Q_OBJECT
public:
    explicit RankView(QWidget* parent = nullptr);

    void setData(std::shared_ptr<const RankViewData> data);
    // While the job runs: "Reading ranks… 3 of 16"; cleared by setData.
    void setStatus(const QString& text);
    RankHeatMap* stepMap() const { return stepMap_; }
    RankHeatMap* latenessMap() const { return latenessMap_; }
    RankHeatModel* stepModel() const { return stepModel_; }
    RankHeatModel* latenessModel() const { return latenessModel_; }

signals:
    // The rank's trace file and the time range (its own clock) to show.
    void openRankRequested(const QString& trace, qint64 start, qint64 end);

private:
    void cellClicked(RankHeatModel* model, int row, int column);

    QString stepText_, latenessText_;   // the maps' captions
    QLabel* summary_ = nullptr;
    QLabel* stepCaption_ = nullptr;
    QLabel* latenessCaption_ = nullptr;
    RankHeatModel* stepModel_ = nullptr;
    RankHeatModel* latenessModel_ = nullptr;
    RankHeatMap* stepMap_ = nullptr;
    RankHeatMap* latenessMap_ = nullptr;
};

} // namespace sl
