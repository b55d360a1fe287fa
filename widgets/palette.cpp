#include "widgets/palette.h"

#include <QAbstractAxis>
#include <QChart>
#include <QHash>
#include <QLegend>

#include "model/theme.h"

namespace sl {

QColor colorForKey(const QString& key)
{
    // FNV-1a over the UTF-16 code units: the same colour in every run (qHash is seeded per process).
    uint32_t h = 2166136261u;
    for (const QChar ch : key) {
        h ^= ch.unicode();
        h *= 16777619u;
    }
    h ^= h >> 15;
    h *= 0x2c1b3c6du;
    h ^= h >> 12;
    const int hue = static_cast<int>(h % 360);
    const int sat = 140 + static_cast<int>((h >> 9) % 80);
    const int val = 170 + static_cast<int>((h >> 17) % 60);
    return QColor::fromHsv(hue, sat, val);
}

namespace {

// a·(1 - t) + b·t per channel, opaque.
QColor mix(const QColor& a, const QColor& b, double t)
{
    return QColor::fromRgbF(float(a.redF() * (1 - t) + b.redF() * t), float(a.greenF() * (1 - t) + b.greenF() * t),
                            float(a.blueF() * (1 - t) + b.blueF() * t));
}

} // namespace

ViewColors viewColors(const QPalette& p)
{
    ViewColors c;
    c.dark = isDark(p);
    c.background = p.color(QPalette::Base);
    c.laneAlternate = p.color(QPalette::AlternateBase);
    c.header = p.color(QPalette::Window);
    c.text = p.color(QPalette::Text);
    c.headerText = p.color(QPalette::WindowText);
    c.mutedText = p.color(QPalette::PlaceholderText);
    // Mid alone is too faint on some platform palettes (Fusion's #b8b8b8 on white): lean it towards the text.
    c.tick = mix(p.color(QPalette::Mid), c.text, 0.35);
    c.grid = mix(c.background, c.tick, 0.45);
    c.selectionEdge = p.color(QPalette::Highlight);
    c.selectionFill = c.selectionEdge;
    c.selectionFill.setAlpha(c.dark ? 70 : 45);
    c.focus = c.dark ? QColor(255, 204, 0) : QColor(214, 150, 0);
    c.mergedRun = mix(c.background, c.text, c.dark ? 0.42 : 0.5);
    c.tooltipBackground = p.color(QPalette::ToolTipBase);
    c.tooltipText = p.color(QPalette::ToolTipText);
    return c;
}

QColor textOn(const QColor& fill)
{
    const QColor black(20, 20, 20), white(250, 250, 250);
    return contrastRatio(fill, black) >= contrastRatio(fill, white) ? black : white;
}

void applyChartColors(QChart* chart, const QPalette& p)
{
    if (!chart)
        return;
    const ViewColors c = viewColors(p);
    chart->setBackgroundBrush(c.header);
    chart->setBackgroundPen(Qt::NoPen);
    chart->setPlotAreaBackgroundBrush(c.background);
    chart->setPlotAreaBackgroundVisible(true);
    chart->setTitleBrush(c.headerText);
    if (QLegend* legend = chart->legend()) {
        legend->setLabelColor(c.headerText);
        legend->setBrush(Qt::NoBrush);
    }
    for (QAbstractAxis* axis : chart->axes()) {
        axis->setLabelsColor(c.headerText);
        axis->setTitleBrush(c.headerText);
        axis->setLinePenColor(c.tick);
        axis->setGridLineColor(c.grid);
        axis->setMinorGridLineColor(c.laneAlternate);
    }
}

} // namespace sl
