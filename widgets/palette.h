#pragma once
// Colours shared by the views (timeline, charts, legends). Data colours (operator classes, kernel names) are stable
// across runs and themes; everything around them (background, lanes, grid, text, selection) is derived from the
// current QPalette, so the views are readable in the light and the dark theme (model/theme.h) alike.

#include <QColor>
#include <QGuiApplication>
#include <QPalette>
#include <QString>

QT_BEGIN_NAMESPACE
class QChart;
QT_END_NAMESPACE

namespace sl {

// A stable, distinguishable colour for a name (operator class, kernel name), the same in every view.
QColor colorForKey(const QString& key);

// The colours a custom-painted view needs, from a palette (normally the widget's palette()).
struct ViewColors {
    QColor background;        // plot area (Base)
    QColor laneAlternate;     // every other lane (AlternateBase)
    QColor header;            // axis strip and label column (Window)
    QColor text;              // labels on background / laneAlternate (Text)
    QColor headerText;        // labels on header (WindowText)
    QColor mutedText;         // "No trace loaded", secondary labels (PlaceholderText)
    QColor grid;              // grid lines, separators (Mid, toned towards the background)
    QColor tick;              // axis ticks, separators (Mid leaning towards Text)
    QColor selectionFill;     // range selection (Highlight, translucent)
    QColor selectionEdge;     // its edges (Highlight)
    QColor focus;             // selected item outline (amber; darker on light backgrounds)
    QColor mergedRun;         // "N kernels" blocks
    QColor tooltipBackground; // overlay boxes (ToolTipBase)
    QColor tooltipText;       // (ToolTipText)
    bool dark = false;
};
ViewColors viewColors(const QPalette& palette = QGuiApplication::palette());

// Black or white, whichever reads better on `fill` (WCAG contrast).
QColor textOn(const QColor& fill);

// Qt Charts ignore the widget palette: colours a chart's background, plot area, title, legend and axes (labels,
// titles, grid) from the palette. Call again on QEvent::PaletteChange.
void applyChartColors(QChart* chart, const QPalette& palette = QGuiApplication::palette());

} // namespace sl
