#include "widgets/rank_heat_map.h"

#include "model/rank_heat_model.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <cmath>

namespace sl {

namespace {
constexpr int kLabelWidth = 64;
constexpr int kAxisHeight = 18;
constexpr int kMaxRowHeight = 22;

QColor heat(double t)
{
    // Light yellow -> orange -> dark red.
    t = std::clamp(t, 0.0, 1.0);
    const QColor a(255, 247, 188), b(254, 153, 41), c(153, 20, 20);
    auto mix = [](const QColor& x, const QColor& y, double u) {
        return QColor::fromRgbF(float(x.redF() + (y.redF() - x.redF()) * u), float(x.greenF() + (y.greenF() - x.greenF()) * u),
                                float(x.blueF() + (y.blueF() - x.blueF()) * u));
    };
    return t < 0.5 ? mix(a, b, t * 2) : mix(b, c, (t - 0.5) * 2);
}
} // namespace

RankHeatMap::RankHeatMap(RankHeatModel* model, QWidget* parent) : QWidget(parent), model_(model)
{
    setMouseTracking(true);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
    connect(model_, &QAbstractItemModel::modelReset, this, [this] {
        updateGeometry();
        update();
    });
}

QSize RankHeatMap::minimumSizeHint() const { return {kLabelWidth + 120, kAxisHeight + 40}; }

QSize RankHeatMap::sizeHint() const
{
    // Modest: the Ranks pane holds two maps and scrolls when their preferred heights do not fit.
    return {kLabelWidth + 600, kAxisHeight + std::clamp(model_->rowCount() * 8, 48, 160)};
}

QRect RankHeatMap::plotRect() const
{
    const int rows = std::max(1, model_->rowCount());
    const int h = std::min(height() - kAxisHeight - 2, rows * kMaxRowHeight);
    return {kLabelWidth, 2, std::max(1, width() - kLabelWidth - 4), std::max(rows, h)};
}

QPoint RankHeatMap::cellAt(const QPoint& pos) const
{
    const QRect p = plotRect();
    const int rows = model_->rowCount(), cols = model_->columnCount();
    if (rows == 0 || cols == 0 || !p.contains(pos))
        return {-1, -1};
    const int col = std::min(cols - 1, int(double(pos.x() - p.left()) * cols / p.width()));
    const int row = std::min(rows - 1, int(double(pos.y() - p.top()) * rows / p.height()));
    return {col, row};
}

QPoint RankHeatMap::cellCentre(int row, int column) const
{
    const QRect p = plotRect();
    const int rows = std::max(1, model_->rowCount()), cols = std::max(1, model_->columnCount());
    return {p.left() + int((column + 0.5) * p.width() / cols), p.top() + int((row + 0.5) * p.height() / rows)};
}

void RankHeatMap::paintEvent(QPaintEvent*)
{
    QPainter g(this);
    const QRect p = plotRect();
    const int rows = model_->rowCount(), cols = model_->columnCount();
    g.fillRect(rect(), palette().window());   // below the rows: the pane, not an empty plot
    if (rows == 0 || cols == 0)
        return;
    auto colour = [&](double t) { return std::isfinite(t) ? heat(t) : palette().window().color(); };
    const int px = p.width();
    for (int r = 0; r < rows; ++r) {
        const int y0 = p.top() + r * p.height() / rows, y1 = p.top() + (r + 1) * p.height() / rows;
        const int h = std::max(1, y1 - y0);
        if (cols <= px) {   // a cell per rectangle
            for (int c = 0; c < cols; ++c) {
                const int x0 = p.left() + c * px / cols, x1 = p.left() + (c + 1) * px / cols;
                g.fillRect(QRect(x0, y0, std::max(1, x1 - x0), h), colour(model_->shade(r, c)));
            }
            continue;
        }
        for (int x = 0; x < px; ++x) {   // a pixel column per rectangle: the largest value it covers
            const int c0 = int(double(x) * cols / px), c1 = std::max(c0 + 1, int(double(x + 1) * cols / px));
            double v = std::nan("");
            for (int c = c0; c < std::min(c1, cols); ++c) {
                const double cv = model_->shade(r, c);
                if (std::isfinite(cv) && !(v >= cv))
                    v = cv;
            }
            g.fillRect(QRect(p.left() + x, y0, 1, h), colour(v));
        }
    }
    // Cell borders when cells are large enough to read.
    if (p.width() / cols >= 6 && p.height() / rows >= 6) {
        g.setPen(QPen(palette().base().color(), 1));
        for (int c = 1; c < cols; ++c) {
            const int x = p.left() + c * p.width() / cols;
            g.drawLine(x, p.top(), x, p.top() + p.height());
        }
        for (int r = 1; r < rows; ++r) {
            const int y = p.top() + r * p.height() / rows;
            g.drawLine(p.left(), y, p.left() + p.width(), y);
        }
    }
    // Row labels: every rank, in a smaller font down to 7 px rows; below that every k-th.
    g.setPen(palette().text().color());
    const int rowH = std::max(1, p.height() / rows);
    QFont font = g.font();
    if (rowH < g.fontMetrics().height() && rowH >= 7) {
        font.setPixelSize(std::max(7, rowH - 1));
        g.setFont(font);
    }
    const int every = rowH >= 7 ? 1 : std::max(1, (g.fontMetrics().height() + rowH - 1) / rowH);
    for (int r = 0; r < rows; r += every) {
        const int y = p.top() + r * p.height() / rows;
        g.drawText(QRect(0, y, kLabelWidth - 6, std::max(rowH, g.fontMetrics().height())), Qt::AlignRight | Qt::AlignVCenter,
                   model_->headerData(r, Qt::Vertical).toString());
    }
    g.setFont(this->font());
    // Axis: first and last column.
    const int axisY = p.bottom() + 2;
    g.drawText(QRect(p.left(), axisY, p.width() / 2, kAxisHeight), Qt::AlignLeft | Qt::AlignVCenter,
               model_->headerData(0, Qt::Horizontal).toString());
    g.drawText(QRect(p.left() + p.width() / 2, axisY, p.width() / 2, kAxisHeight), Qt::AlignRight | Qt::AlignVCenter,
               model_->headerData(cols - 1, Qt::Horizontal).toString());
}

void RankHeatMap::mousePressEvent(QMouseEvent* event)
{
    const QPoint cell = cellAt(event->position().toPoint());
    if (event->button() == Qt::LeftButton && cell.x() >= 0)
        emit cellClicked(cell.y(), cell.x());
}

bool RankHeatMap::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const QPoint cell = cellAt(help->pos());
        if (cell.x() >= 0)
            QToolTip::showText(help->globalPos(), model_->data(model_->index(cell.y(), cell.x()), Qt::ToolTipRole).toString(),
                               this);
        else
            QToolTip::hideText();
        return true;
    }
    return QWidget::event(event);
}

} // namespace sl
