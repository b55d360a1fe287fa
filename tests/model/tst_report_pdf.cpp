// The PDF report: renders the generated decode trace's report in English and Chinese, checks the page count, that
// the text layer (pdftotext) holds the key numbers, and turns page 1 into a PNG (pdftoppm) for review.
#include "analysis/report/report_markdown.h"
#include "analysis/report/report_model.h"
#include "analysis/report_pipeline.h"
#include "analysis/diagnosis/headline.h"
#include "analysis/io/load.h"
#include "analysis/io/synthetic.h"
#include "model/chart_render.h"
#include "model/report_pdf.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTest>

#include <memory>
#include <set>

using namespace sl;
using namespace sl::report;

class TestReportPdf : public QObject {
    Q_OBJECT

    Trace trace_;
    PipelineResults results_;
    QString dir_;

    Report build(Lang lang, int max_steps = 64)
    {
        ReportOptions o;
        o.lang = lang;
        o.generated_at = "2026-01-01T00:00:00Z";
        o.run_id = "r-pdf-test";
        o.max_step_rows = max_steps;
        return build_report(report_inputs(trace_, results_, o, {}));
    }

    static QString run(const QString& program, const QStringList& args)
    {
        QProcess p;
        p.start(program, args);
        if (!p.waitForFinished(60000) || p.exitCode() != 0)
            return {};
        return QString::fromUtf8(p.readAllStandardOutput());
    }

private slots:
    void initTestCase()
    {
        SynthOptions so = synth_preset("decode");
        so.host_starved = true;          // a finding-worthy trace: the GPU waits for the host
        trace_ = make_synthetic_trace(so);
        PipelineOptions po;
        const QByteArray src = qgetenv("SIGHTLINE_SOURCE_DIR");
        po.model_config = QString::fromUtf8(src).toStdString() + "/tests/data/models/qwen3_gqa_config.json";
        po.gpu = "H100 SXM";
        po.cost.batch = 8;
        po.cost.prompt = 512;
        po.cost.context = 512;
        results_ = run_pipeline(trace_, po);
        const QByteArray tmp = qgetenv("SIGHTLINE_TEST_TMP");
        dir_ = QDir(tmp.isEmpty() ? QDir::tempPath() : QString::fromUtf8(tmp)).filePath(QStringLiteral("report_pdf"));
        QDir().mkpath(dir_);
    }

    void chartPngHasTheLogicalAspect()
    {
        const Report r = build(Lang::En);
        const auto charts = r.charts();
        QVERIFY(charts.size() >= 4);
        for (const Chart* c : charts) {
            const QString path = QDir(dir_).filePath(QString::fromStdString(c->id) + QStringLiteral(".png"));
            QVERIFY(writeChartPng(*c, path, Lang::En));
            QImage img(path);
            QVERIFY(!img.isNull());
            const QSize logical = reportChartSize(*c);
            QCOMPARE(img.width(), logical.width() * 2);
            QCOMPARE(img.height(), logical.height() * 2);
            // Something was drawn: not a blank white image.
            int dark = 0;
            for (int y = 0; y < img.height(); y += 4)
                for (int x = 0; x < img.width(); x += 4)
                    if (qGray(img.pixel(x, y)) < 128)
                        ++dark;
            QVERIFY2(dark > 50, qPrintable(QString::fromStdString(c->id)));
        }
    }

    void markdownWriterLinksPngFiles()
    {
        const Report r = build(Lang::En);
        const QString md = QDir(dir_).filePath(QStringLiteral("links/report.md"));
        QDir().mkpath(QFileInfo(md).absolutePath());
        MarkdownOptions mo;
        mo.write_image = markdownPngWriter(md, Lang::En);
        const std::string text = to_markdown(r, mo);
        for (const Chart* c : r.charts()) {
            const std::string rel = "report_files/" + c->id + ".png";
            QVERIFY2(text.find("](" + rel + ")") != std::string::npos, rel.c_str());
            QVERIFY(QFile::exists(QDir(QFileInfo(md).absolutePath()).filePath(QString::fromStdString(rel))));
        }
    }

    void pdfEnglish() { checkPdf(Lang::En, QStringLiteral("report_en")); }
    void pdfChinese() { checkPdf(Lang::ZhCN, QStringLiteral("report_zh_CN")); }

    void longTablesAddPages()
    {
        // All 34 step rows vs none: the longer document has at least as many pages, and both render.
        const QString a = QDir(dir_).filePath(QStringLiteral("few.pdf"));
        const QString b = QDir(dir_).filePath(QStringLiteral("many.pdf"));
        const PdfResult ra = writeReportPdf(build(Lang::En, 0), a);
        const PdfResult rb = writeReportPdf(build(Lang::En, 1000), b);
        QVERIFY(ra.ok && rb.ok);
        QVERIFY(rb.pages >= ra.pages);
    }

    // Issue 37 §8, the PDF to forward: the short PDF of the real H100 graph-replay decode with its config put the
    // executive summary's chart alone on page 2 (it did not fit on page 1; the Overview's page break followed it).
    // No page holds a chart without text now (pdfimages lists the pages with images, pdftotext each page's lines),
    // and no two actions give the same advice.
    void realGraphTraceShortPdfHasNoChartAlone()
    {
        if (QStandardPaths::findExecutable(QStringLiteral("pdfimages")).isEmpty() ||
            QStandardPaths::findExecutable(QStringLiteral("pdftotext")).isEmpty())
            QSKIP("poppler-utils not installed");
        const QString src = qEnvironmentVariable("SIGHTLINE_SOURCE_DIR", QStringLiteral("."));
        const Trace trace = load_trace((src + QStringLiteral("/tests/data/device/decode-graph.pt.trace.json.gz")).toStdString());
        PipelineOptions po;
        po.model_config = (src + QStringLiteral("/tests/data/device/config.json")).toStdString();
        const PipelineResults results = run_pipeline(trace, po);
        ReportOptions o;
        o.detail = Detail::Summary;
        o.generated_at = "2026-01-01T00:00:00Z";
        o.run_id = "r-pdf-graph";
        o.hash_inputs = false;
        const Report r = build_report(report_inputs(trace, results, o, {}));
        const QString pdf = QDir(dir_).filePath(QStringLiteral("graph_summary.pdf"));
        const PdfResult res = writeReportPdf(r, pdf);
        QVERIFY2(res.ok, qPrintable(res.error));
        // "page num type ..." rows: the pages that hold an image (every chart is one).
        const QStringList list = run(QStringLiteral("pdfimages"), {QStringLiteral("-list"), pdf}).split(QLatin1Char('\n'));
        std::set<int> chartPages;
        for (const QString& line : list.mid(2)) {
            const QStringList cols = line.simplified().split(QLatin1Char(' '));
            if (cols.size() > 2 && cols[2] == QLatin1String("image"))
                chartPages.insert(cols[0].toInt());
        }
        QVERIFY(!chartPages.empty());
        for (int p : chartPages) {
            const QString text = run(QStringLiteral("pdftotext"), {QStringLiteral("-f"), QString::number(p),
                                                                   QStringLiteral("-l"), QString::number(p), pdf,
                                                                   QStringLiteral("-")});
            int lines = 0;
            for (const QString& l : text.split(QLatin1Char('\n')))
                lines += l.trimmed().isEmpty() ? 0 : 1;
            // The footer is one or two lines; a chart's page carries text of its own.
            QVERIFY2(lines >= 8, qPrintable(QStringLiteral("page %1 of %2 holds a chart and %3 lines:\n%4")
                                                .arg(p).arg(res.pages).arg(lines).arg(text)));
        }
        QVERIFY(results.headline);
        std::set<std::string> texts;
        for (const HeadlineAction& a : results.headline->actions)
            QVERIFY2(texts.insert(a.text.en).second, a.text.en.c_str());
    }

    void unwritablePathIsAnError()
    {
        const PdfResult r = writeReportPdf(build(Lang::En), QStringLiteral("/proc/definitely/not/here.pdf"));
        QVERIFY(!r.ok);
        QVERIFY(!r.error.isEmpty());
    }

private:
    // Issue 16: page 1 is the executive summary alone — the title, the headline's statement, every action (at most
    // three) with its bounded gain and time, the verify commands and the key chart; the detail ("Overview" onwards)
    // starts on page 2.
    void checkFirstPage(Lang lang, const QString& pdf)
    {
        const Headline* h = results_.headline ? &*results_.headline : nullptr;
        QVERIFY2(h, "the pipeline gave no headline");
        QVERIFY(!h->actions.empty());
        const QString page1 = run(QStringLiteral("pdftotext"), {QStringLiteral("-f"), QStringLiteral("1"),
                                                                QStringLiteral("-l"), QStringLiteral("1"), pdf,
                                                                QStringLiteral("-")});
        const QString page2 = run(QStringLiteral("pdftotext"), {QStringLiteral("-f"), QStringLiteral("2"),
                                                                QStringLiteral("-l"), QStringLiteral("2"), pdf,
                                                                QStringLiteral("-")});
        // pdftotext wraps lines, may use ligatures and maps some CJK glyphs to Kangxi radicals (行 -> U+2F8F):
        // compare NFKC-normalised with whitespace removed and "fi"/"fl" folded.
        auto norm = [](QString s) {
            s = s.normalized(QString::NormalizationForm_KC);
            s.replace(QChar(0xFB01), QStringLiteral("fi"));
            s.replace(QChar(0xFB02), QStringLiteral("fl"));
            s.remove(QRegularExpression(QStringLiteral("\\s+")));
            return s;
        };
        const QString p1 = norm(page1), p2 = norm(page2);
        const std::string code = lang_code(lang);
        QVERIFY2(p1.contains(norm(lang == Lang::En ? QStringLiteral("Executive summary") : QString::fromUtf8("执行摘要"))),
                 qPrintable(page1));
        QVERIFY2(p1.contains(norm(QString::fromStdString(h->statement.get(code)).left(40))), qPrintable(page1));
        for (const HeadlineAction& a : h->actions) {
            QVERIFY2(p1.contains(norm(QString::fromStdString(a.text.get(code)).left(30))), qPrintable(page1));
            QVERIFY2(p1.contains(norm(QString::fromStdString(fmt_percent(a.gain_fraction)))), qPrintable(page1));
            if (lang == Lang::En)   // (Noto CJK's digits in a duration sometimes lose their ToUnicode mapping)
                QVERIFY2(p1.contains(norm(QString::fromStdString(fmt_duration(a.gain_ns)))), qPrintable(page1));
            if (!a.removes.empty())
                QVERIFY2(!p1.contains(norm(QString::fromStdString(a.removes))), qPrintable(page1));
        }
        QVERIFY(p1.contains(QStringLiteral("nsysprofile")) || p1.contains(QStringLiteral("ncu")));
        const QString overview = lang == Lang::En ? QStringLiteral("Overview") : QString::fromUtf8("概览");
        QVERIFY2(!p1.contains(overview), qPrintable(page1));
        QVERIFY2(p2.startsWith(overview), qPrintable(page2));
    }

    void checkPdf(Lang lang, const QString& stem)
    {
        const Report r = build(lang);
        const QString pdf = QDir(dir_).filePath(stem + QStringLiteral(".pdf"));
        const PdfResult res = writeReportPdf(r, pdf);
        QVERIFY2(res.ok, qPrintable(res.error));
        QVERIFY(res.pages >= 4);
        QVERIFY(QFileInfo(pdf).size() > 20000);
        if (QStandardPaths::findExecutable(QStringLiteral("pdfinfo")).isEmpty())
            QSKIP("poppler-utils not installed");
        const QString info = run(QStringLiteral("pdfinfo"), {pdf});
        QVERIFY(info.contains(QStringLiteral("Pages:")));
        const int pages = info.section(QStringLiteral("Pages:"), 1).trimmed().section(QLatin1Char('\n'), 0, 0).toInt();
        QCOMPARE(pages, res.pages);
        QVERIFY(info.contains(QStringLiteral("A4")));

        const QString text = run(QStringLiteral("pdftotext"), {QStringLiteral("-layout"), pdf, QStringLiteral("-")});
        QVERIFY(!text.isEmpty());
        // Key numbers, formatted independently from the results.
        const Summary& sm = results_.summary;
        const double util = sm.devices.at(0).utilization;
        const QString kernels = QString::fromStdString(fmt_count(int64_t(trace_.kernels.size())));
        QVERIFY2(text.contains(kernels), qPrintable(kernels));
        const QString idle = QString::number((1.0 - util) * 100.0, 'f', 1);
        QVERIFY2(text.contains(idle), qPrintable(idle));
        const QString tpot = QString::fromStdString(fmt_duration(results_.analysis.phases.tpot_median_ns));
        QVERIFY2(text.contains(tpot), qPrintable(tpot));
        QVERIFY(text.contains(QStringLiteral("ncu -k regex:")));
        QVERIFY(text.contains(QStringLiteral("r-pdf-test")));
        checkFirstPage(lang, pdf);
        if (lang == Lang::ZhCN) {
            // Noto CJK's ToUnicode maps 页 to the radical U+2EDA in some builds: accept either.
            QVERIFY(text.contains(QString::fromUtf8("第 1 页")) || text.contains(QString::fromUtf8("第 1 \u2EDA")));
        } else {
            QVERIFY(text.contains(QStringLiteral("Page 1 of %1").arg(res.pages)));
        }
        // Page 1 (and 2) as PNG for review.
        const QString png = QDir(dir_).filePath(stem);
        run(QStringLiteral("pdftoppm"), {QStringLiteral("-png"), QStringLiteral("-r"), QStringLiteral("80"),
                                         QStringLiteral("-f"), QStringLiteral("1"), QStringLiteral("-l"),
                                         QStringLiteral("3"), pdf, png});
        QVERIFY(QFile::exists(png + QStringLiteral("-1.png")) || QFile::exists(png + QStringLiteral("-01.png")));
    }
};

QTEST_MAIN(TestReportPdf)
#include "tst_report_pdf.moc"
