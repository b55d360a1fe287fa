#pragma once
// Paints report charts with QPainter: the same layout as the HTML writer's SVG (analysis/chart_svg), rendered as a
// high-resolution image for the PDF report and as PNG files for the Markdown report.

#include "analysis/report/chart_svg.h"
#include "analysis/report/report_model.h"

#include <QImage>
#include <QSize>
#include <QString>
#include <QStringList>

#include <functional>
#include <string>

class QPainter;

namespace sl {

// Font families for report text and charts: Latin first for English, the CJK font first for Chinese, so glyphs
// never fall back to a missing font.
QStringList reportFontFamilies(report::Lang lang);

// Paints a laid-out scene with its (0,0) at the painter's origin; scene units are multiplied by `scale`.
void paintChartScene(QPainter& painter, const report::ChartScene& scene, qreal scale,
                     const QStringList& families = reportFontFamilies(report::Lang::En));

// The chart as an image of logical size `size` rendered at `scale` x resolution (white background).
QImage renderChart(const report::Chart& chart, QSize size, qreal scale,
                   report::Lang lang = report::Lang::En);
// Logical chart size used by every report writer (Roofline is taller).
QSize reportChartSize(const report::Chart& chart);

// Writes the chart as PNG; returns false and fills *error when the file cannot be written.
bool writeChartPng(const report::Chart& chart, const QString& path, report::Lang lang, QString* error = nullptr);

// For report::MarkdownOptions::write_image: writes "<md stem>_files/<chart id>.png" next to the Markdown file and
// returns that path relative to it ("" when writing failed, so the Markdown falls back to a data table).
std::function<std::string(const report::Chart&)> markdownPngWriter(const QString& markdownPath, report::Lang lang);

} // namespace sl
