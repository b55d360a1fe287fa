// The GPU runtime's name comes from the trace (issue 37 §7): on the shared SGLang and vLLM traces recorded on AMD
// Instinct GPUs, the Overview, the timeline's API lanes and the report's headings say HIP (or nothing), never CUDA;
// the top-kernels table names the nsys report it matches only for an nsys export. The real H100 graph-replay trace
// of tests/data/device still says "CUDA graphs" and "CUDA API". The AMD traces skip without ../shared/data.
#include <QFile>
#include <QRegularExpression>
#include <QTest>
#include <memory>

#include "analysis/diagnosis/findings.h"
#include "analysis/io/load.h"
#include "analysis/pipeline.h"
#include "analysis/report/report_html.h"
#include "analysis/report/report_markdown.h"
#include "analysis/report_pipeline.h"
#include "model/selection.h"
#include "model/timeline_index.h"
#include "tests/support/qt_fixtures.h"
#include "widgets/overview_panel.h"
#include "widgets/timeline_view.h"

using namespace sl;

namespace {

QString sharedTrace(const QString& rel)
{
    const QString data = qEnvironmentVariable("SIGHTLINE_SHARED_DATA");
    const QString p = data + QStringLiteral("/kineto/tracelens/") + rel;
    return !data.isEmpty() && QFile::exists(p) ? p : QString();
}

struct Wording {
    QString overview;             // the Overview pane: headline, workload line, per-device text, findings
    QStringList lanes;            // the timeline's lane titles
    QStringList headings;         // the report's section, table and chart titles and its key-value labels
    QString markdownHeadings, htmlHeadings;   // the same as the Markdown and HTML writers print them
};

void collectHeadings(const report::Section& s, QStringList& out)
{
    out << QString::fromStdString(s.title);
    for (const report::Block& b : s.blocks) {
        if (const auto* t = std::get_if<report::Table>(&b))
            out << QString::fromStdString(t->caption);
        else if (const auto* c = std::get_if<report::Chart>(&b))
            out << QString::fromStdString(c->title);
        else if (const auto* kv = std::get_if<report::KeyValues>(&b))
            for (const auto& item : kv->items)
                out << QString::fromStdString(item.label);
    }
    for (const report::Section& c : s.children)
        collectHeadings(c, out);
}

Wording wordingOf(const QString& file)
{
    Wording w;
    auto trace = std::make_shared<const Trace>(load_trace(file.toStdString()));
    const auto r = testing::runShippedRules(trace);

    OverviewPanel overview;
    overview.setLanguage(QStringLiteral("en"));
    overview.setData(std::make_shared<const Summary>(r->summary), testing::analysisOf(r), trace);
    overview.setDiagnosis(testing::diagnosisOf(r));
    w.overview = overview.headlineText() + overview.text() + overview.findingsText();

    Selection sel;
    TimelineView view(&sel);
    view.resize(1200, 800);
    view.setIndex(TimelineIndex::build(trace));
    for (int l = 0; l < view.laneCount(); ++l)
        w.lanes << view.laneTitle(l);

    report::PipelineOptions po;
    const report::PipelineResults results = report::run_pipeline(*trace, po);
    report::ReportOptions ro;
    ro.detail = report::Detail::Full;
    ro.hash_inputs = false;
    const report::Report rep = report::build_report(report::report_inputs(*trace, results, ro, {}));
    for (const report::Section& s : rep.sections)
        collectHeadings(s, w.headings);
    for (const QString& line : QString::fromStdString(report::to_markdown(rep)).split(QLatin1Char('\n')))
        if (line.startsWith(QLatin1Char('#')) || line.startsWith(QLatin1String("**")) ||
            line.startsWith(QLatin1String("- **")))
            w.markdownHeadings += line + QLatin1Char('\n');
    const QString html = QString::fromStdString(report::to_html(rep));
    static const QRegularExpression heading(QStringLiteral("<(h[1-6]|caption|th)[^>]*>(.*?)</\\1>"),
                                            QRegularExpression::DotMatchesEverythingOption);
    for (auto it = heading.globalMatch(html); it.hasNext();)
        w.htmlHeadings += it.next().captured(2) + QLatin1Char('\n');
    return w;
}

// The text around the first `word` in `text` (QVERIFY2 cuts long messages).
QByteArray around(const QString& text, const QString& word)
{
    const qsizetype at = text.indexOf(word);
    return (at < 0 ? text.left(300) : text.mid(std::max<qsizetype>(0, at - 150), 300)).toUtf8();
}

} // namespace

class TestRuntimeWording : public QObject {
    Q_OBJECT
private:
    void checkAmd(const QString& file, bool graphs)
    {
        const Wording w = wordingOf(file);
        QVERIFY2(!w.overview.contains(QLatin1String("CUDA")), around(w.overview, QStringLiteral("CUDA")).constData());
        if (graphs)
            QVERIFY2(w.overview.contains(QLatin1String("HIP graphs")), qPrintable(w.overview));
        QVERIFY(!w.lanes.isEmpty());
        QVERIFY2(!w.lanes.join(QLatin1Char('\n')).contains(QLatin1String("CUDA")), qPrintable(w.lanes.join(QLatin1Char('\n'))));
        QVERIFY2(w.lanes.join(QLatin1Char('\n')).contains(QLatin1String("HIP API")), qPrintable(w.lanes.join(QLatin1Char('\n'))));
        const QString headings = w.headings.join(QLatin1Char('\n'));
        QVERIFY2(!headings.contains(QLatin1String("CUDA")), around(headings, QStringLiteral("CUDA")).constData());
        QVERIFY2(!headings.contains(QLatin1String("nsys")), qPrintable(headings));   // a Kineto trace: no nsys report
        QVERIFY2(headings.contains(QLatin1String("HIP API calls")), qPrintable(headings));
        QVERIFY2(!w.markdownHeadings.isEmpty() && !w.markdownHeadings.contains(QLatin1String("CUDA")),
                 qPrintable(w.markdownHeadings));
        QVERIFY2(!w.htmlHeadings.isEmpty() && !w.htmlHeadings.contains(QLatin1String("CUDA")), qPrintable(w.htmlHeadings));
    }

private slots:
    // SGLang serving Qwen3-8B on an AMD Instinct GPU (eager): its API lanes are HIP's, its report's API tables too.
    void amdSglangSaysHip()
    {
        const QString f = sharedTrace(QStringLiteral("sglang_prefilldecode/sglang_qwen3-8b_prefilldecode.json.gz"));
        if (f.isEmpty())
            QSKIP("../shared/data (TraceLens SGLang trace) not available");
        checkAmd(f, false);
    }

    // vLLM decode in full graph replay on an AMD Instinct GPU: the Overview says "HIP graphs".
    void amdVllmGraphsSayHip()
    {
        const QString f = sharedTrace(QStringLiteral("vllm_decode_full/graph_execution.json.gz"));
        if (f.isEmpty())
            QSKIP("../shared/data (TraceLens vLLM trace) not available");
        checkAmd(f, true);
    }

    // The H100 graph-replay decode (PyTorch profiler): still CUDA, and no nsys report named for a Kineto trace.
    void nvidiaStillSaysCuda()
    {
        const QString f = qEnvironmentVariable("SIGHTLINE_SOURCE_DIR", QStringLiteral(".")) +
                          QStringLiteral("/tests/data/device/decode-graph.pt.trace.json.gz");
        QVERIFY(QFile::exists(f));
        const Wording w = wordingOf(f);
        QVERIFY2(w.overview.contains(QLatin1String("CUDA graphs")), qPrintable(w.overview));
        QVERIFY2(w.lanes.join(QLatin1Char('\n')).contains(QLatin1String("CUDA API")), qPrintable(w.lanes.join(QLatin1Char('\n'))));
        const QString headings = w.headings.join(QLatin1Char('\n'));
        QVERIFY2(headings.contains(QLatin1String("CUDA API calls")), qPrintable(headings));
        QVERIFY2(!headings.contains(QLatin1String("nsys")), qPrintable(headings));
    }
};

QTEST_MAIN(TestRuntimeWording)
#include "tst_runtime_wording.moc"
