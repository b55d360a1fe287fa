#include "model/report_pdf.h"

#include "model/chart_render.h"

#include <QAbstractTextDocumentLayout>
#include <QBuffer>
#include <QFileInfo>
#include <QDir>
#include <QFont>
#include <QPageLayout>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QTextBlock>
#include <QTextCursor>
#include <QSaveFile>
#include <QTextDocument>
#include <QTextOption>
#include <QUrl>

#include <cmath>

namespace sl {

using namespace sl::report;

namespace {

constexpr qreal kDpi = 96.0;          // layout unit: 1/96 inch
constexpr qreal kMarginMm = 16.0;
constexpr qreal kFooterPx = 26.0;

QString esc(const std::string& s) { return QString::fromStdString(s).toHtmlEscaped(); }

// Lets long kernel names wrap inside table cells: a zero-width space after separators.
QString breakable(const std::string& s)
{
    QString out = esc(s);
    out.replace(QStringLiteral("::"), QStringLiteral("::\u200B"));
    out.replace(QStringLiteral("_"), QStringLiteral("_\u200B"));
    out.replace(QStringLiteral(","), QStringLiteral(",\u200B"));
    return out;
}

void writeBlock(QString& h, const Block& b, Lang lang)
{
    std::visit(
        [&](const auto& x) {
            using T = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<T, Paragraph>) {
                h += QStringLiteral("<p>") + esc(x.text) + QStringLiteral("</p>\n");
            } else if constexpr (std::is_same_v<T, KeyValues>) {
                h += QStringLiteral("<table class=\"kv\" cellspacing=\"0\" cellpadding=\"2\">\n");
                for (const KeyValue& kv : x.items)
                    h += QStringLiteral("<tr><td class=\"k\">%1</td><td>%2</td></tr>\n")
                             .arg(esc(kv.label), breakable(kv.value.text));
                h += QStringLiteral("</table>\n");
            } else if constexpr (std::is_same_v<T, Table>) {
                // A caption is a heading of level 6: kept on the page of its table (keepHeadingsWithContent).
                if (!x.caption.empty())
                    h += QStringLiteral("<h6>") + esc(x.caption) + QStringLiteral("</h6>\n");
                h += QStringLiteral("<table class=\"grid\" width=\"100%\" cellspacing=\"0\" cellpadding=\"3\" "
                                    "border=\"1\">\n<thead><tr>");
                for (const Column& c : x.columns)
                    h += QStringLiteral("<th align=\"%1\">%2</th>")
                             .arg(c.align == Align::Right ? QStringLiteral("right") : QStringLiteral("left"),
                                  esc(c.label));
                h += QStringLiteral("</tr></thead>\n<tbody>\n");
                for (const auto& row : x.rows) {
                    h += QStringLiteral("<tr>");
                    for (size_t i = 0; i < row.size(); ++i) {
                        const Column* c = i < x.columns.size() ? &x.columns[i] : nullptr;
                        const bool right = c && c->align == Align::Right;
                        h += QStringLiteral("<td align=\"%1\">%2</td>")
                                 .arg(right ? QStringLiteral("right") : QStringLiteral("left"),
                                      breakable(shorten_text(row[i].text, c ? c->max_chars : 0)));
                    }
                    h += QStringLiteral("</tr>\n");
                }
                h += QStringLiteral("</tbody></table>\n");
                if (x.total_rows > int64_t(x.rows.size()))
                    h += QStringLiteral("<p class=\"cut\">") +
                         esc(F(lang, "txt.rows_cut", {fmt_count(int64_t(x.rows.size())), fmt_count(x.total_rows)})) +
                         QStringLiteral("</p>\n");
            } else if constexpr (std::is_same_v<T, Chart>) {
                const QSize s = reportChartSize(x);
                h += QStringLiteral("<p align=\"center\"><img src=\"chart:%1\" width=\"%2\" height=\"%3\"></p>\n")
                         .arg(esc(x.id))
                         .arg(s.width() * 0.9)
                         .arg(s.height() * 0.9);
            } else if constexpr (std::is_same_v<T, Code>) {
                // Not <pre>: it never wraps, and long command lines would run off the page.
                QString code = esc(x.text);
                code.replace(QLatin1Char('\n'), QStringLiteral("<br>"));
                h += QStringLiteral("<table width=\"100%\" cellpadding=\"4\" cellspacing=\"0\"><tr><td "
                                    "bgcolor=\"#f2f2f2\"><span style=\"font-family:'DejaVu Sans Mono','Noto Sans Mono "
                                    "CJK SC',monospace;font-size:7.5pt\">") +
                     code + QStringLiteral("</span></td></tr></table>\n");
            } else if constexpr (std::is_same_v<T, Bullets>) {
                h += QStringLiteral("<ul>\n");
                for (const auto& item : x.items)
                    h += QStringLiteral("<li>") + breakable(item) + QStringLiteral("</li>\n");
                h += QStringLiteral("</ul>\n");
            } else if constexpr (std::is_same_v<T, Note>) {
                const QString bg = x.kind == Note::Kind::Missing   ? QStringLiteral("#fff4dc")
                                   : x.kind == Note::Kind::Warning ? QStringLiteral("#fde8e8")
                                                                   : QStringLiteral("#eef2f7");
                h += QStringLiteral("<table width=\"100%\" cellpadding=\"5\" cellspacing=\"0\"><tr><td bgcolor=\"%1\">%2"
                                    "</td></tr></table>\n")
                         .arg(bg, esc(x.text));
            }
        },
        b);
}

void writeSection(QString& h, const Section& s, int level, Lang lang, bool newPage = false)
{
    const int n = std::min(level, 4);
    h += QStringLiteral("<h%1%3>%2</h%1>\n")
             .arg(n)
             .arg(esc(s.title), newPage ? QStringLiteral(" style=\"page-break-before:always\"") : QString());
    for (const Block& b : s.blocks)
        writeBlock(h, b, lang);
    for (const Section& c : s.children)
        writeSection(h, c, level + 1, lang);
}

} // namespace

QString reportToRichText(const Report& r)
{
    QString h;
    h += QStringLiteral(
        "<html><head><style>"
        "body{font-size:9.5pt;color:#222222}"
        "h1{font-size:18pt;color:#1f3b5a;margin-bottom:2px}"
        "h2{font-size:14pt;color:#1f3b5a;margin-top:16px;margin-bottom:6px}"
        "h3{font-size:11.5pt;color:#1f3b5a;margin-top:12px;margin-bottom:4px}"
        "h4{font-size:10pt;margin-top:10px;margin-bottom:4px}"
        "p{margin-top:3px;margin-bottom:5px}"
        "p.meta{color:#555555}"
        "h6{font-size:9.5pt;font-weight:bold;color:#222222;margin-top:6px;margin-bottom:3px}"
        "p.cut{color:#666666;font-style:italic}"
        "table.grid{border-collapse:collapse;border-color:#b8b8b8;border-style:solid;font-size:8pt;margin-bottom:8px}"
        "th{background-color:#e6ecf3;font-weight:bold}"
        "td.k{font-weight:bold;padding-right:12px}"
        "table.kv{margin-bottom:6px}"
        "pre.code{background-color:#f2f2f2;font-size:8pt;font-family:'DejaVu Sans Mono','Noto Sans Mono CJK SC',monospace}"
        "</style></head><body>\n");
    h += QStringLiteral("<h1>") + esc(r.title) + QStringLiteral("</h1>\n");
    h += QStringLiteral("<p class=\"meta\">%1 · %2 · Sightline %3</p>\n")
             .arg(esc(r.run_id), esc(r.generated_at), esc(r.version));
    // A report that opens with the executive summary ("headline" first) keeps it on page 1 alone: the detail
    // starts on page 2.
    const bool summaryFirst = !r.sections.empty() && r.sections.front().id == "headline";
    for (size_t i = 0; i < r.sections.size(); ++i)
        writeSection(h, r.sections[i], 2, r.lang, summaryFirst && i == 1);
    h += QStringLiteral("</body></html>");
    return h;
}

namespace {
// The whole document laid out again from the top, now. QTextDocumentLayout lays a document out lazily (the rest on
// a timer, which never fires without an event loop, as in the CLI) and, after a block format changes, only around
// that block: a page break set that way left the blocks after it without lines, and they were never drawn (the
// full report's appendix headings were missing from the PDF). Setting the page size lays out from scratch, and
// pageCount() finishes the layout.
void relayout(QTextDocument& doc)
{
    doc.setPageSize(doc.pageSize());
    (void)doc.pageCount();
}
} // namespace

int keepHeadingsWithContent(QTextDocument& doc)
{
    const qreal pageH = doc.pageSize().height();
    if (!(pageH > 0))
        return 0;
    QAbstractTextDocumentLayout* layout = doc.documentLayout();
    relayout(doc);
    auto pageOf = [&](const QTextBlock& b) { return int(std::floor(layout->blockBoundingRect(b).top() / pageH)); };
    auto isHeading = [](const QTextBlock& b) { return b.blockFormat().headingLevel() > 0; };
    auto isEmpty = [](const QTextBlock& b) {
        return b.text().trimmed().isEmpty() && !b.text().contains(QChar::ObjectReplacementCharacter);
    };
    int moved = 0;
    // Each pass moves the first heading left at the foot of a page, with the headings right above it (a section's
    // title and its first subsection's); the layout below it changes, so the scan starts again from that heading.
    QTextBlock from = doc.begin();
    for (int guard = 0; guard < 2000 && from.isValid(); ++guard) {
        QTextBlock orphan;
        for (QTextBlock b = from; b.isValid(); b = b.next()) {
            if (!isHeading(b))
                continue;
            QTextBlock next = b.next();
            while (next.isValid() && !isHeading(next) && isEmpty(next))
                next = next.next();
            if (!next.isValid())
                break;
            if (pageOf(next) > pageOf(b)) {
                orphan = b;
                break;
            }
        }
        if (!orphan.isValid())
            break;
        // The chain of headings right above it moves with it.
        QTextBlock first = orphan;
        for (QTextBlock p = orphan.previous(); p.isValid(); p = p.previous()) {
            if (isHeading(p))
                first = p;
            else if (!isEmpty(p))
                break;
        }
        // Already at the top of its page (content taller than a page follows): nothing to gain.
        const QRectF r = layout->blockBoundingRect(first);
        const qreal intoPage = r.top() - std::floor(r.top() / pageH) * pageH;
        if (intoPage < r.height() + 24 || (first.blockFormat().pageBreakPolicy() & QTextFormat::PageBreak_AlwaysBefore)) {
            from = orphan.next();
            continue;
        }
        QTextCursor c(first);
        QTextBlockFormat f = first.blockFormat();
        f.setPageBreakPolicy(f.pageBreakPolicy() | QTextFormat::PageBreak_AlwaysBefore);
        c.setBlockFormat(f);
        relayout(doc);
        ++moved;
        from = first;
    }
    return moved;
}

int keepChartsWithText(QTextDocument& doc)
{
    const qreal pageH = doc.pageSize().height();
    if (!(pageH > 0))
        return 0;
    QAbstractTextDocumentLayout* layout = doc.documentLayout();
    relayout(doc);
    auto isImage = [](const QTextBlock& b) { return b.text().contains(QChar::ObjectReplacementCharacter); };
    int freed = 0;
    for (QTextBlock b = doc.begin(); b.isValid(); b = b.next()) {
        QTextBlockFormat f = b.blockFormat();
        if (!(f.pageBreakPolicy() & QTextFormat::PageBreak_AlwaysBefore))
            continue;
        const int page = int(std::floor(layout->blockBoundingRect(b).top() / pageH + 1e-6));
        if (page < 1)
            continue;
        // What the page before the break holds: blocks that end below its top.
        bool image = false, text = false;
        for (QTextBlock p = b.previous(); p.isValid(); p = p.previous()) {
            const QRectF pr = layout->blockBoundingRect(p);
            if (pr.bottom() <= (page - 1) * pageH + 1)
                break;
            if (isImage(p))
                image = true;
            else if (!p.text().trimmed().isEmpty())
                text = true;
        }
        if (!image || text)
            continue;
        f.setPageBreakPolicy(f.pageBreakPolicy() & ~QTextFormat::PageBreak_AlwaysBefore);
        QTextCursor(b).setBlockFormat(f);
        relayout(doc);
        ++freed;
    }
    return freed;
}

std::unique_ptr<QTextDocument> buildReportDocument(const Report& r, const QSizeF& pageSize, QPaintDevice* device)
{
    auto doc = std::make_unique<QTextDocument>();
    QFont f;
    f.setFamilies(reportFontFamilies(r.lang));
    f.setPointSizeF(9.5);
    doc->setDefaultFont(f);
    QTextOption opt = doc->defaultTextOption();
    opt.setWrapMode(QTextOption::WrapAtWordBoundaryOrAnywhere);
    doc->setDefaultTextOption(opt);
    doc->setDocumentMargin(0);
    for (const Chart* c : r.charts())
        doc->addResource(QTextDocument::ImageResource, QUrl(QStringLiteral("chart:") + QString::fromStdString(c->id)),
                         renderChart(*c, reportChartSize(*c), 3.0, r.lang));
    doc->setHtml(reportToRichText(r));
    // The page ends depend on the font metrics of the device the document is drawn on: headings are kept with
    // their content once, on that device's layout (page breaks set for another device's metrics stay and leave
    // pages part empty).
    if (device)
        doc->documentLayout()->setPaintDevice(device);
    doc->setPageSize(pageSize);
    keepChartsWithText(*doc);
    keepHeadingsWithContent(*doc);
    return doc;
}

PdfResult writeReportPdf(const Report& r, const QString& path)
{
    QByteArray pdf;
    PdfResult res = renderReportPdf(r, pdf);
    if (!res.ok)
        return res;
    res.ok = false;
    QDir().mkpath(QFileInfo(path).absolutePath());
    QSaveFile out(path);
    if (!out.open(QIODevice::WriteOnly) || out.write(pdf) != pdf.size() || !out.commit()) {
        res.error = QStringLiteral("cannot write %1: %2").arg(path, out.errorString());
        return res;
    }
    res.ok = true;
    return res;
}

PdfResult renderReportPdf(const Report& r, QByteArray& pdf)
{
    PdfResult res;
    pdf.clear();
    QBuffer device(&pdf);
    device.open(QIODevice::WriteOnly);
    QPdfWriter writer(&device);
    writer.setResolution(int(kDpi));
    writer.setPageLayout(QPageLayout(QPageSize(QPageSize::A4), QPageLayout::Portrait,
                                     QMarginsF(kMarginMm, kMarginMm, kMarginMm, kMarginMm), QPageLayout::Millimeter));
    writer.setTitle(QString::fromStdString(r.title));
    writer.setCreator(QStringLiteral("Sightline ") + QString::fromStdString(r.version));

    QPainter painter;
    if (!painter.begin(&writer)) {
        res.error = QStringLiteral("cannot start the PDF");
        return res;
    }
    const QRect pageRect = writer.pageLayout().paintRectPixels(writer.resolution());
    const QSizeF body(pageRect.width(), pageRect.height() - kFooterPx);
    auto doc = buildReportDocument(r, body, &writer);
    const int pages = doc->pageCount();

    QFont footerFont;
    footerFont.setFamilies(reportFontFamilies(r.lang));
    footerFont.setPointSizeF(7.5);
    const QString footerLeft = QString::fromStdString(r.title + "  ·  " + r.run_id);
    for (int i = 0; i < pages; ++i) {
        if (i > 0)
            writer.newPage();
        painter.save();
        painter.setClipRect(QRectF(0, 0, body.width(), body.height()));
        painter.translate(0, -i * body.height());
        doc->drawContents(&painter, QRectF(0, i * body.height(), body.width(), body.height()));
        painter.restore();
        // Footer: a rule, the title and run id on the left, the page number on the right.
        painter.save();
        painter.setPen(QPen(QColor(0xbb, 0xbb, 0xbb), 0.8));
        const qreal fy = body.height() + 6;
        painter.drawLine(QPointF(0, fy), QPointF(body.width(), fy));
        painter.setFont(footerFont);
        painter.setPen(QColor(0x66, 0x66, 0x66));
        const QRectF fr(0, fy + 3, body.width(), kFooterPx - 9);
        painter.drawText(fr, Qt::AlignLeft | Qt::AlignVCenter, footerLeft);
        painter.drawText(fr, Qt::AlignRight | Qt::AlignVCenter,
                         QString::fromStdString(F(r.lang, "pdf.page", {std::to_string(i + 1), std::to_string(pages)})));
        painter.restore();
    }
    if (!painter.end()) {
        res.error = QStringLiteral("cannot finish the PDF");
        return res;
    }
    res.ok = true;
    res.pages = pages;
    return res;
}

} // namespace sl
