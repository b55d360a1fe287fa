#pragma once
// One heat map of the rank view (issue 38 §4): a RankHeatModel's cells, rank rows × step or collective columns,
// coloured from light (as fast as the others, on time) to dark red (slower than the step's median rank, late) by
// the model's shade (RankHeatModel::shade). Wider than the widget, a pixel column shows the largest value of the cells
// it covers. Hover: the cell's tooltip; click: cellClicked.

#include <QWidget>

namespace sl {

class RankHeatModel;

class RankHeatMap : public QWidget {
    Q_OBJECT
public:
    explicit RankHeatMap(RankHeatModel* model, QWidget* parent = nullptr);

    RankHeatModel* model() const { return model_; }
    // The cell under a widget point, or (-1, -1); and a cell's centre (tests click it).
    QPoint cellAt(const QPoint& pos) const;
    QPoint cellCentre(int row, int column) const;
    QRect plotRect() const;
    QSize minimumSizeHint() const override;
    QSize sizeHint() const override;

signals:
    void cellClicked(int row, int column);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    bool event(QEvent* event) override;

private:
    RankHeatModel* model_;
};

} // namespace sl
