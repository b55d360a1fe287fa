#pragma once
// The Roofline pane (Qt Charts): log-log axes, the memory roof and one compute roof per precision of the GPU, the
// ridge points, theory points per cost-model operator (prefill and decode marked differently), measured points per
// operator class and phase (size by total time), ncu-measured points per launch or kernel name, and measured shape
// points per (op, shapes, dtype) of a Kineto trace with shapes (one series per family: GEMM, attention, norm, other;
// drawn with or without a model config; with one, theory and measured sit side by side on the same axes).
//
// Axes: the chart plots log10(intensity) against log10(FLOP/s) on QCategoryAxis with one label per decade, so the
// ticks read "1k", "10T" (QLogValueAxis in Qt 6.4 only takes printf formats: "1e+12"). valueToChart() gives the
// chart position of a point in real units.
//
// Hover shows the point's values, in a tooltip that stays while the mouse rests there; a click picks the marker drawn
// under the cursor, or the nearest beside it, never one wholly covered by another (pointAt; QXYSeries::clicked picks
// the first marker under the cursor, whatever is painted over it); where markers overlap, a right click opens a
// chooser listing them all (chooserMenu). A kernel point sets Selection::setKernelName, a class or operator point
// emits opClassActivated, a shape point sets Selection::highlightedKernels to exactly its kernels (the timeline
// outlines them) and Selection::kernel to the longest. A kernel name selected elsewhere is highlighted here; a kernel selected elsewhere (the
// timeline) highlights its ncu point, or the measured point of its operator class and phase.

#include <QPointF>
#include <QRectF>
#include <QString>
#include <QWidget>
#include <cstdint>
#include <vector>

class QCategoryAxis;
class QChart;
class QChartView;
class QLabel;
class QMenu;
class QScatterSeries;
class QStackedWidget;
class QGraphicsSimpleTextItem;
class QGraphicsLineItem;
class QXYSeries;

namespace sl {

class Document;
class Selection;
class RooflineModel;
struct RooflinePoint;

class RooflineView : public QWidget {
    Q_OBJECT
public:
    RooflineView(Document* document, Selection* selection, QWidget* parent = nullptr);
    ~RooflineView() override;

    RooflineModel* model() const { return model_; }
    QChart* chart() const;
    QChartView* chartView() const { return view_; }

    // True when the chart is shown; false when the message is (no model config, or an error).
    bool hasRoofline() const;
    // The text shown instead of the chart (empty while the chart is shown).
    QString message() const;

    // Chart-item coordinates (as QChart::mapToPosition) of a point given in FLOP/byte and FLOP/s.
    QPointF valueToChart(double intensity, double flopsPerSecond) const;
    // Pixel position of a model row in chartView()->viewport(); (-1, -1) when the row is not drawn.
    QPoint viewportPosition(int row) const;
    // The drawn marker's radius of a model row in px (0 when not drawn).
    double markerRadius(int row) const
    {
        return row >= 0 && size_t(row) < markerRadius_.size() ? markerRadius_[size_t(row)] : 0;
    }
    // The rectangles (chart coordinates) of the compute roofs' labels shown (the memory roof's runs along it).
    std::vector<QRectF> roofLabelRects() const;
    // The model row a click at a viewport pixel picks, or -1: the marker painted on top there (by its shape), else
    // the marker whose edge is within radiusPx and nearest (ties to the one painted on top). A marker wholly
    // covered by one painted over it is never picked.
    int pointAt(const QPoint& viewportPos, double radiusPx = 4) const;
    // Every row whose marker reaches within radiusPx of a viewport pixel, covered ones included, painted on top
    // first: what the chooser (right click) lists.
    std::vector<int> pointsAt(const QPoint& viewportPos, double radiusPx = 4) const;
    // What hovering row shows: operator (and shape), kind and phase, FLOPs, bytes, intensity, achieved FLOP/s, % of
    // roof, E_roof, total time and its share of the trace's kernel time.
    QString toolTipText(int row) const;
    // What hovering a viewport pixel shows: the picked point's toolTipText (and how many more are there), a ridge
    // point's text, or "".
    QString hoverTextAt(const QPoint& viewportPos) const;
    // The chooser a right click opens where markers overlap: one action per point of pointsAt (painted on top
    // first), each activating its point as a click does. nullptr where fewer than two points are; the caller owns it.
    QMenu* chooserMenu(const QPoint& viewportPos);
    // Shows row's tooltip as hovering its marker does (a screenshot or a test of the hover).
    void showHover(int row);
    // The text of the last hover tooltip ("" when the cursor is over no point).
    QString hoverText() const { return hoverText_; }
    // The rows that carry a label on the chart (the points with the most time, up to kMaxPointLabels; a label that
    // finds no free place is hidden), and the label's rectangle in chart coordinates (empty when hidden).
    std::vector<int> labelledRows() const;
    QRectF labelRect(int row) const;
    // The short text a point's label shows ("attention (decode)", "mm 8944×2816×1024").
    QString pointLabelText(int row) const;
    static constexpr int kMaxPointLabels = 12;
    // The row drawn highlighted (the clicked point or the selected kernel name), or -1.
    int highlightedRow() const { return highlighted_; }
    // Draws row highlighted (-1: none) without activating it (a table beside the chart selected it).
    void setHighlightedRow(int row) { setHighlight(row); }

signals:
    // A kernel point (ncu) was clicked; Selection::kernelName was set to nameId (UINT32_MAX when the launch has no
    // trace kernel).
    void kernelActivated(uint32_t nameId, const QString& kernelName);
    // A measured class point or a theory operator point was clicked.
    void opClassActivated(const QString& opClass, const QString& phase);
    // A measured shape point was clicked: Selection::highlightedKernels holds exactly its kernels, and
    // Selection::kernel its longest one.
    void shapeActivated(int row);
    // Any point was clicked (model row).
    void pointActivated(int row);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    void rebuild();
    void updateMessage();
    void placeLabels();
    void updateAxisLabels();
    void setHighlight(int row);
    void followKernelName(uint32_t nameId);
    void followKernel(int64_t kernelIndex);
    void activate(int row);
    QString ridgeTextAt(const QPoint& viewportPos) const;
    QString shapeToolTipText(const RooflinePoint& p) const;

    Document* document_;
    Selection* selection_;
    RooflineModel* model_ = nullptr;
    QStackedWidget* stack_ = nullptr;
    QLabel* messageLabel_ = nullptr;
    QChartView* view_ = nullptr;
    QScatterSeries* highlightSeries_ = nullptr;
    std::vector<QPointF> logPoints_;              // per model row: (log10 intensity, log10 FLOP/s)
    std::vector<double> markerRadius_;            // per model row, px
    std::vector<int64_t> drawOrder_;              // per model row: larger is painted later (on top)
    std::vector<int> markerShape_;                // per model row: its series' QScatterSeries::MarkerShape
    struct Hit {
        int row;
        QPointF at;                               // the marker's centre, chart coordinates
        QPointF offset;                           // the cursor from the centre, px
        double dist;                              // from the cursor, px
        bool hidden;                              // wholly covered by a marker painted over it
    };
    std::vector<Hit> hitsAt(const QPoint& viewportPos, double radiusPx) const;
    // Whether row's marker, as painted, covers the point `d` px from its centre.
    bool markerContains(size_t row, QPointF d) const;
    struct RoofLabel {
        QGraphicsSimpleTextItem* item;
        QPointF at;                               // log-space anchor (compute roofs: the right end)
        bool diagonal;                            // the memory roof: placed along and above the line
        QPointF from, to;                         // the memory roof's visible segment, log space (compute roofs:
                                                  // `from` is the left end of the flat part, at the ridge)
        bool gemm = false;                        // the GEMM precision's roof: labelled first
    };
    QCategoryAxis* axisX_ = nullptr;
    QCategoryAxis* axisY_ = nullptr;
    int xlo_ = 0, xhi_ = 0, ylo_ = 0, yhi_ = 0;   // decades shown
    int stepX_ = 1, stepY_ = 1;                   // decades per label
    std::vector<RoofLabel> roofLabels_;
    struct PointLabel {
        int row;
        QGraphicsSimpleTextItem* text;
        QGraphicsLineItem* leader;
    };
    std::vector<PointLabel> pointLabels_;         // most time first
    double kernelTimeNs_ = 0;                     // the trace's summed kernel time (time shares)
    struct Ridge {
        QPointF at;                               // log space
        QString text;                             // hover text
    };
    std::vector<Ridge> ridges_;
    int highlighted_ = -1;
    QString hoverText_;
};

} // namespace sl
