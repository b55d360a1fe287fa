// Overview's top findings on the real pipeline's diagnosis of a planted decode trace: at most five, in rank order,
// each a link whose activation emits findingActivated(row) — and, wired as the main window does, makes that finding
// current in the Findings pane.
#include <QLabel>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTest>

#include "analysis/pipeline.h"
#include "analysis/diagnosis/rules.h"
#include "analysis/io/synthetic.h"
#include "analysis/io/load.h"
#include "model/units.h"
#include "model/document.h"
#include "model/selection.h"
#include "tests/support/qt_fixtures.h"
#include "widgets/findings_view.h"
#include "widgets/overview_panel.h"

using namespace sl;

class TestOverviewFindings : public QObject {
    Q_OBJECT
private slots:
    // Issue 35: the Overview says what sets the step: the steady steps' critical path (median length) and its largest
    // share, on the real eager decode (tests/data/device: host-bound, so host work leads).
    void whatSetsTheStep()
    {
        auto trace = std::make_shared<const Trace>(
            load_trace(qEnvironmentVariable("SIGHTLINE_SOURCE_DIR").toStdString() +
                       "/tests/data/device/decode-eager.pt.trace.json.gz"));
        PipelineOptions po;
        po.run_rules = false;
        auto r = std::make_shared<const PipelineResult>(run_pipeline_on(trace, po));
        OverviewPanel panel;
        QVERIFY(panel.criticalPathText().isEmpty());
        panel.setCriticalPath(testing::partOf(r, &r->critical_path));
        std::vector<int64_t> steady;
        for (const auto& sp : r->critical_path.steps)
            if (sp.steady && sp.nodes > 0)
                steady.push_back(sp.length_ns);
        QVERIFY(!steady.empty());
        std::sort(steady.begin(), steady.end());
        const QString text = panel.criticalPathText();
        QVERIFY2(text.contains(QStringLiteral("What sets the step")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("Critical path %1 per steady step (%2 steps): host work")
                                   .arg(formatDuration(steady[steady.size() / 2]))
                                   .arg(steady.size())),
                 qPrintable(text));
        panel.setCriticalPath(nullptr);
        QVERIFY(panel.criticalPathText().isEmpty());
    }

    void topFindings()
    {
        auto result = testing::runShippedRules(testing::plantedDecode());
        auto trace = result->trace;
        auto diagnosis = testing::diagnosisOf(result);
        const std::vector<Finding>& fs = diagnosis->eval.findings;
        QVERIFY(fs.size() >= 2);

        OverviewPanel overview;
        auto* label = overview.findChild<QLabel*>(QStringLiteral("topFindings"));
        QVERIFY(label);
        QVERIFY(overview.findingsText().isEmpty());
        overview.setDiagnosis(diagnosis);
        const int shown = std::min<int>(OverviewPanel::kTopFindings, int(fs.size()));
        QCOMPARE(overview.topFindingRows().size(), shown);
        const QString html = overview.findingsText();
        int prevPos = -1;
        for (int i = 0; i < shown; ++i) {
            const int pos = html.indexOf(QString::fromStdString(fs[size_t(i)].title.en).toHtmlEscaped());
            QVERIFY2(pos > prevPos, qPrintable(QString::fromStdString(fs[size_t(i)].title.en)));   // rank order
            prevPos = pos;
        }
        if (int(fs.size()) > shown)
            QVERIFY(!html.contains(QString::fromStdString(fs[size_t(shown)].title.en).toHtmlEscaped()) ||
                    fs[size_t(shown)].title.en == fs[0].title.en);

        // Every link the block holds activates its row; the links are exactly rows 0..shown-1.
        const QRegularExpression href(QStringLiteral("href=\"(finding:\\d+)\""));
        QStringList links;
        for (auto it = href.globalMatch(html); it.hasNext();)
            links << it.next().captured(1);
        QCOMPARE(links.size(), shown);
        QSignalSpy spy(&overview, &OverviewPanel::findingActivated);
        for (const QString& link : links)
            emit label->linkActivated(link);
        QCOMPARE(spy.count(), shown);
        for (int i = 0; i < shown; ++i)
            QCOMPARE(spy.at(i).at(0).toInt(), i);
        emit label->linkActivated(QStringLiteral("finding:9999"));   // stale link: ignored
        emit label->linkActivated(QStringLiteral("https://example.com"));
        QCOMPARE(spy.count(), shown);

        // Overview -> Findings pane.
        Document doc;
        Selection selection;
        doc.setTrace({QStringLiteral("synthetic")}, trace);
        doc.setDiagnosis(diagnosis);
        FindingsView view(&doc, &selection);
        connect(&overview, &OverviewPanel::findingActivated, &view, &FindingsView::selectFinding);
        emit label->linkActivated(links.last());
        QCOMPARE(view.currentFindingRow(), shown - 1);

        // Chinese titles.
        overview.setLanguage(QStringLiteral("zh_CN"));
        QVERIFY(overview.findingsText().contains(QString::fromStdString(fs[0].title.zh_CN).toHtmlEscaped()));

        // No diagnosis: no block.
        overview.setDiagnosis(nullptr);
        QVERIFY(overview.topFindingRows().isEmpty());
        QVERIFY(!label->isVisibleTo(&overview));
        Diagnosis none;
        overview.setDiagnosis(std::make_shared<const Diagnosis>(none));
        QVERIFY(label->isVisibleTo(&overview));
        QVERIFY(overview.topFindingRows().isEmpty());
    }
};

QTEST_MAIN(TestOverviewFindings)
#include "tst_overview_findings.moc"
