#include "model/chart_render.h"

#include <QColor>
#include <QDir>
#include <QFileInfo>
#include <QFont>
#include <QFontMetricsF>
#include <QPainter>
#include <QPen>

#include <algorithm>

namespace sl {

QStringList reportFontFamilies(report::Lang lang)
{
    if (lang == report::Lang::ZhCN)
        return {QStringLiteral("Noto Sans CJK SC"), QStringLiteral("Source Han Sans SC"),
                QStringLiteral("WenQuanYi Micro Hei"), QStringLiteral("Droid Sans Fallback"),
                QStringLiteral("DejaVu Sans")};
    return {QStringLiteral("Noto Sans"), QStringLiteral("DejaVu Sans"), QStringLiteral("Liberation Sans"),
            QStringLiteral("Noto Sans CJK SC"), QStringLiteral("Droid Sans Fallback")};
}

static QColor color(const std::string& c) { return QColor(QString::fromStdString(c)); }

void paintChartScene(QPainter& p, const report::ChartScene& scene, qreal scale, const QStringList& families)
{
    using K = report::ScenePrim::Kind;
    p.save();
    p.setRenderHint(QPainter::Antialiasing, true);
    p.setRenderHint(QPainter::TextAntialiasing, true);
    for (const report::ScenePrim& s : scene.prims) {
        switch (s.kind) {
        case K::Rect: {
            const QRectF r(s.x * scale, s.y * scale, s.w * scale, s.h * scale);
            if (!s.fill.empty())
                p.fillRect(r, color(s.fill));
            if (!s.stroke.empty()) {
                p.setPen(QPen(color(s.stroke), scale));
                p.setBrush(Qt::NoBrush);
                p.drawRect(r);
            }
            break;
        }
        case K::Line: {
            QPen pen(color(s.stroke), s.stroke_width * scale);
            pen.setCapStyle(Qt::FlatCap);
            if (s.dashed)
                pen.setStyle(Qt::DashLine);
            p.setPen(pen);
            p.drawLine(QPointF(s.x * scale, s.y * scale), QPointF(s.w * scale, s.h * scale));
            break;
        }
        case K::Circle: {
            p.setPen(s.stroke.empty() ? QPen(Qt::NoPen) : QPen(color(s.stroke), scale));
            p.setBrush(s.fill.empty() ? QBrush(Qt::NoBrush) : QBrush(color(s.fill)));
            p.drawEllipse(QPointF(s.x * scale, s.y * scale), s.r * scale, s.r * scale);
            break;
        }
        case K::Text: {
            QFont f;
            f.setFamilies(families);
            f.setPixelSize(qMax(1, qRound(s.font_size * scale)));
            f.setBold(s.bold);
            p.setFont(f);
            p.setPen(s.fill.empty() ? QColor(Qt::black) : color(s.fill));
            QString text = QString::fromStdString(s.text);
            const QFontMetricsF fm(f);
            // The layout estimates text widths; elide what would run past the chart's edge.
            if (s.rotate == 0) {
                const qreal room = s.anchor == 2   ? s.x * scale
                                   : s.anchor == 0 ? (scene.width - s.x) * scale
                                                   : 2 * std::min(s.x, scene.width - s.x) * scale;
                if (fm.horizontalAdvance(text) > room)
                    text = fm.elidedText(text, Qt::ElideRight, room - 2 * scale);
            }
            const qreal w = fm.horizontalAdvance(text);
            const qreal dx = s.anchor == 1 ? -w / 2 : s.anchor == 2 ? -w : 0;
            p.save();
            p.translate(s.x * scale, s.y * scale);
            if (s.rotate != 0)
                p.rotate(s.rotate);
            p.drawText(QPointF(dx, 0), text);
            p.restore();
            break;
        }
        }
    }
    p.restore();
}

QSize reportChartSize(const report::Chart& chart)
{
    return chart.kind == report::ChartKind::Roofline ? QSize(720, 440) : QSize(720, 320);
}

QImage renderChart(const report::Chart& chart, QSize size, qreal scale, report::Lang lang)
{
    const report::ChartScene scene = report::layout_chart(chart, size.width(), size.height());
    QImage img(qRound(size.width() * scale), qRound(size.height() * scale), QImage::Format_RGB32);
    img.fill(Qt::white);
    // 96 dpi logical resolution at scale 1, so viewers that honour the PNG's dpi show it at its logical size.
    const int dpm = qRound(96.0 * scale / 0.0254);
    img.setDotsPerMeterX(dpm);
    img.setDotsPerMeterY(dpm);
    QPainter p(&img);
    paintChartScene(p, scene, scale, reportFontFamilies(lang));
    p.end();
    return img;
}

bool writeChartPng(const report::Chart& chart, const QString& path, report::Lang lang, QString* error)
{
    const QImage img = renderChart(chart, reportChartSize(chart), 2.0, lang);
    QDir().mkpath(QFileInfo(path).absolutePath());
    if (!img.save(path, "PNG")) {
        if (error)
            *error = QStringLiteral("cannot write %1").arg(path);
        return false;
    }
    return true;
}

std::function<std::string(const report::Chart&)> markdownPngWriter(const QString& markdownPath, report::Lang lang)
{
    const QFileInfo md(markdownPath);
    const QString dirName = md.completeBaseName() + QStringLiteral("_files");
    const QString dir = md.absoluteDir().filePath(dirName);
    return [dir, dirName, lang](const report::Chart& c) -> std::string {
        const QString file = QString::fromStdString(c.id) + QStringLiteral(".png");
        if (!writeChartPng(c, QDir(dir).filePath(file), lang))
            return {};
        return (dirName + QLatin1Char('/') + file).toStdString();
    };
}

} // namespace sl
