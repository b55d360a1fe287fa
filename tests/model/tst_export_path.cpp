// Export Report: the filter chosen in the save dialog decides the format when the typed name has no report suffix
// (the issue: "Markdown" + "sample_report" wrote HTML into a file without extension), and MainWindow's writer picks
// the format from the suffix, so the suffix added here is the format written.
#include <QTest>

#include "model/export_path.h"

using namespace sl;

class TstExportPath : public QObject {
    Q_OBJECT
private slots:
    void suffixOfEachFilter()
    {
        // The filters of MainWindow::exportReport, in English and as the zh_CN catalogue words them.
        QCOMPARE(filterSuffix(QStringLiteral("PDF (*.pdf)")), QStringLiteral("pdf"));
        QCOMPARE(filterSuffix(QStringLiteral("Markdown (*.md)")), QStringLiteral("md"));
        QCOMPARE(filterSuffix(QStringLiteral("HTML (*.html)")), QStringLiteral("html"));
        QCOMPARE(filterSuffix(QStringLiteral("JSON (*.json)")), QStringLiteral("json"));
        QCOMPARE(filterSuffix(QStringLiteral("Markdown 文档 (*.md)")), QStringLiteral("md"));
        QCOMPARE(filterSuffix(QStringLiteral("All files (*)")), QString());
    }

    void bareNameGetsTheFilterSuffix_data()
    {
        QTest::addColumn<QString>("typed");
        QTest::addColumn<QString>("filter");
        QTest::addColumn<QString>("expected");
        QTest::newRow("markdown, bare name (the issue)")
            << "/tmp/sample_report" << "Markdown (*.md)" << "/tmp/sample_report.md";
        QTest::newRow("pdf") << "/tmp/r" << "PDF (*.pdf)" << "/tmp/r.pdf";
        QTest::newRow("html") << "/tmp/r" << "HTML (*.html)" << "/tmp/r.html";
        QTest::newRow("json") << "/tmp/r" << "JSON (*.json)" << "/tmp/r.json";
        QTest::newRow("dot in the name is not a suffix") << "/tmp/run.v2" << "PDF (*.pdf)" << "/tmp/run.v2.pdf";
        QTest::newRow("dotted directory") << "/tmp/a.b/report" << "Markdown (*.md)" << "/tmp/a.b/report.md";
        QTest::newRow("trailing dot") << "/tmp/report." << "JSON (*.json)" << "/tmp/report.json";
    }
    void bareNameGetsTheFilterSuffix()
    {
        QFETCH(QString, typed);
        QFETCH(QString, filter);
        QFETCH(QString, expected);
        QCOMPARE(reportPathForFilter(typed, filter), expected);
    }

    void typedReportSuffixIsKept()
    {
        QCOMPARE(reportPathForFilter(QStringLiteral("/tmp/r.md"), QStringLiteral("Markdown (*.md)")),
                 QStringLiteral("/tmp/r.md"));
        QCOMPARE(reportPathForFilter(QStringLiteral("/tmp/r.PDF"), QStringLiteral("Markdown (*.md)")),
                 QStringLiteral("/tmp/r.PDF"));
        QCOMPARE(reportPathForFilter(QStringLiteral("/tmp/r.html"), QStringLiteral("JSON (*.json)")),
                 QStringLiteral("/tmp/r.html"));
        // A filter without a suffix (or none chosen) leaves the name alone; so does an empty name (cancel).
        QCOMPARE(reportPathForFilter(QStringLiteral("/tmp/r"), QString()), QStringLiteral("/tmp/r"));
        QCOMPARE(reportPathForFilter(QString(), QStringLiteral("PDF (*.pdf)")), QString());
    }
};

QTEST_GUILESS_MAIN(TstExportPath)
#include "tst_export_path.moc"
