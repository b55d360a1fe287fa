#pragma once
// The report as a paginated A4 PDF, produced in-process: the report model becomes a QTextDocument (Qt rich text;
// tables with repeating header rows that break between rows, charts as high-resolution images rendered by
// chart_render), painted page by page onto a QPdfWriter with a running footer (title, run id, page N of M).
// Needs a QGuiApplication (fonts); the CLI creates one on the offscreen platform.

#include "analysis/report/report_model.h"

#include <QSizeF>
#include <QByteArray>
#include <QString>

#include <memory>

class QPaintDevice;
class QTextDocument;

namespace sl {

struct PdfResult {
    bool ok = false;
    int pages = 0;
    QString error;
};

// Writes `path` through a temporary in its directory that replaces it only once the whole PDF is written and
// flushed (QSaveFile), so a failure leaves the previous file as it was; on failure ok == false and error says why.
PdfResult writeReportPdf(const report::Report& report, const QString& path);

// The PDF as bytes, for a caller that writes them itself (the CLI's checked outputs).
PdfResult renderReportPdf(const report::Report& report, QByteArray& pdf);

// The rich-text HTML the PDF is laid out from (charts referenced as "chart:<id>" image resources).
QString reportToRichText(const report::Report& report);

// The laid-out document for a page of `pageSize` (device-independent pixels at 96 dpi), charts added as image
// resources. Used by writeReportPdf and by the GUI's print preview. With `device`, the document is laid out with that
// paint device's font metrics (the page ends keepHeadingsWithContent works on are the ones drawn there).
std::unique_ptr<QTextDocument> buildReportDocument(const report::Report& report, const QSizeF& pageSize,
                                                   QPaintDevice* device = nullptr);

// Moves every heading (h1-h6: section titles, table captions) that would end a page to the next page, with the
// headings right above it, by a page break before it; `doc` must have its page size set. Returns how many moved.
int keepHeadingsWithContent(QTextDocument& doc);

// A page that would hold charts and no text (a chart that did not fit at the foot of the executive summary, pushed
// onto a page of its own before the next section's page break) is not left that way: the page break after it is
// dropped, so the text that follows shares its page (issue 37 §8). Run before keepHeadingsWithContent. Returns how
// many page breaks it dropped.
int keepChartsWithText(QTextDocument& doc);

} // namespace sl
