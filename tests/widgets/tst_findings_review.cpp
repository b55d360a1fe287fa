// The LLM reviewer in the workbench (Tools › Review Findings with LLM… → FindingsView::startReview) against a local
// stub endpoint (tests/support/llm_stub_server.h): verdicts that agree or disagree and cite their finding's evidence
// show in the LLM review column, with the explanation and the cited evidence (resolved to its metric and value) in
// the tooltip and the detail area; a claim that cites nothing or misquotes a value shows as dropped with its reason;
// a malformed answer, an HTTP 500, a server that never answers and a Cancel are a status line only and leave the
// findings (and the model) as they were; with no endpoint set nothing connects anywhere. The rule engine's findings
// are the same object, unchanged, after every review. QAbstractItemModelTester watches the findings model throughout.
#include <QAbstractItemModelTester>
#include <QLabel>
#include <QSignalSpy>
#include <QTest>
#include <QToolButton>
#include <QTreeView>

#include <nlohmann/json.hpp>

#include "model/document.h"
#include "model/findings_model.h"
#include "model/llm_reviewer.h"
#include "tests/support/llm_stub_server.h"
#include "widgets/findings_view.h"

using namespace sl;
using nlohmann::json;
using Stub = sl::testing::LlmStubServer;

namespace {

// Four findings with known evidence values: the oracle the stub's answers are written against.
std::shared_ptr<const Diagnosis> fourFindings()
{
    auto d = std::make_shared<Diagnosis>();
    auto finding = [](const char* rule, Severity sev, const char* title, Evidence e) {
        Finding f;
        f.rule = rule;
        f.severity = sev;
        f.subject = "decode";
        f.title.en = title;
        f.title.zh_CN = title;
        f.explanation.en = std::string(title) + ": see /home/alice/run1.sqlite";
        f.evidence = {std::move(e)};
        return f;
    };
    d->eval.findings = {
        finding("decode-host-bound", Severity::High, "Decode is host-bound", {"decode_idle_fraction", 0.38, ">", 0.2, "analysis:idle"}),
        finding("elementwise-fusion", Severity::Medium, "Elementwise kernels dominate",
                {"elementwise_copy_fraction", 0.63, ">=", 0.4, "analysis:classes"}),
        finding("sync-stalls", Severity::Low, "Synchronisation stalls", {"sync_fraction", 0.12, ">", 0.05, "analysis:sync"}),
        finding("short-kernels", Severity::Low, "Short kernels", {"short_kernel_fraction", 0.5, ">", 0.3, "analysis:launch"}),
    };
    return d;
}

ReviewerSettings settingsFor(const Stub& stub, int timeoutS = 20)
{
    ReviewerSettings s;
    s.endpoint = stub.url();
    s.timeoutS = timeoutS;
    return s;
}

// The finding rows' verdicts, e.g. {"agree", "disagree", "dropped", ""}.
QStringList verdicts(const FindingsModel& m)
{
    QStringList v;
    for (int r = 0; r < m.findingCount(); ++r)
        v << m.index(r, FindingsModel::RankColumn).data(FindingsModel::ReviewVerdictRole).toString();
    return v;
}

struct Fixture {
    Document doc;
    FindingsView view{&doc, nullptr};
    QAbstractItemModelTester tester{view.model(), QAbstractItemModelTester::FailureReportingMode::QtTest};
    std::shared_ptr<const Diagnosis> diagnosis = fourFindings();
    Fixture()
    {
        doc.setDiagnosis(diagnosis);
        view.resize(1400, 600);
    }
    // Starts a review and waits for its end; returns what reviewFinished said.
    std::optional<bool> review(const ReviewerSettings& s, int waitMs = 20000)
    {
        QSignalSpy done(&view, &FindingsView::reviewFinished);
        if (!view.startReview(s))
            return std::nullopt;
        if (!done.wait(waitMs))
            return std::nullopt;
        return done.at(0).at(0).toBool();
    }
    void unchanged() const
    {
        // The rule engine's output is the same object with the same findings.
        QVERIFY(doc.diagnosis() == diagnosis);
        QCOMPARE(view.model()->findingCount(), 4);
        QCOMPARE(view.model()->index(0, FindingsModel::TitleColumn).data().toString(), QStringLiteral("Decode is host-bound"));
        QCOMPARE(diagnosis->eval.findings[1].evidence[0].value, 0.63);
    }
};

} // namespace

class TestFindingsReview : public QObject {
    Q_OBJECT
private slots:
    void verdictsShowBesideTheFindings()
    {
        Fixture fx;
        Stub stub;
        stub.body = Stub::chat(
            {{"reviews",
              {{{"finding", "f1"}, {"verdict", "agree"}, {"explanation", "38 % idle in decode is host-side."},
                {"cites", {{{"id", "f1.e1"}, {"value", 0.38}}}}},
               {{"finding", "f2"}, {"verdict", "disagree"}, {"explanation", "Copies, not elementwise math."},
                {"cites", {"f2.e1"}}},
               {{"finding", "f3"}, {"verdict", "agree"}, {"explanation", "Trust me."}, {"cites", json::array()}},
               {{"finding", "f4"}, {"verdict", "disagree"}, {"explanation", "Only 20 % are short."},
                {"cites", {{{"id", "f4.e1"}, {"value", 0.2}}}}}}}});
        QVERIFY(fx.view.tree()->isColumnHidden(FindingsModel::ReviewColumn));   // nothing to show before a review
        QCOMPARE(fx.review(settingsFor(stub)), std::optional<bool>(true));
        QCOMPARE(stub.heads.size(), 1);
        // What was sent: the findings with evidence ids, no path (allowPaths is off by default).
        const json sent = json::parse(stub.bodies[0].toStdString());
        QVERIFY(sent.dump().find("f4.e1") != std::string::npos);
        QVERIFY(sent.dump().find("/home/alice") == std::string::npos);

        FindingsModel* m = fx.view.model();
        QCOMPARE(verdicts(*m), (QStringList{QStringLiteral("agree"), QStringLiteral("disagree"), QStringLiteral("dropped"),
                                           QStringLiteral("dropped")}));
        QVERIFY(!fx.view.tree()->isColumnHidden(FindingsModel::ReviewColumn));
        QCOMPARE(m->index(0, FindingsModel::ReviewColumn).data().toString(), FindingsModel::tr("✓ agrees"));
        QCOMPARE(m->index(1, FindingsModel::ReviewColumn).data().toString(), FindingsModel::tr("✗ disagrees"));
        QCOMPARE(m->index(2, FindingsModel::ReviewColumn).data().toString(), FindingsModel::tr("dropped"));
        // The explanation and the cited evidence, resolved to the metric and its value, in the tooltip.
        const QString tip1 = m->index(1, FindingsModel::ReviewColumn).data(Qt::ToolTipRole).toString();
        QVERIFY2(tip1.contains(QStringLiteral("Copies, not elementwise math.")), qPrintable(tip1));
        QVERIFY2(tip1.contains(QStringLiteral("f2.e1: elementwise and copy share of kernel time = ")), qPrintable(tip1));
        // Dropped claims say why: no citation; a value that is not what Sightline measured.
        const QString tip3 = m->index(2, FindingsModel::ReviewColumn).data(Qt::ToolTipRole).toString();
        QVERIFY2(tip3.contains(QStringLiteral("cites no evidence")), qPrintable(tip3));
        const QString tip4 = m->index(3, FindingsModel::ReviewColumn).data(Qt::ToolTipRole).toString();
        QVERIFY2(tip4.contains(QStringLiteral("contradicts the evidence")), qPrintable(tip4));
        // The review column is still the finding's row for every other role.
        QCOMPARE(m->index(0, FindingsModel::ReviewColumn).data(FindingsModel::RowKindRole).toInt(), int(FindingsModel::FindingRow));
        QCOMPARE(m->index(0, FindingsModel::ReviewColumn).data(FindingsModel::KernelIndexRole).toLongLong(), qint64(-1));
        // The other columns are the rule engine's, untouched.
        QCOMPARE(m->index(3, FindingsModel::SeverityColumn).data().toString(), FindingsModel::severityLabel(Severity::Low));
        fx.unchanged();

        // The status line counts them; the detail area of a finding shows its verdict and citations.
        QVERIFY2(fx.view.reviewStatusText().contains(QStringLiteral("1 agree, 1 disagree, 2 dropped")),
                 qPrintable(fx.view.reviewStatusText()));
        fx.view.selectFinding(1);
        QVERIFY2(fx.view.detailText().contains(QStringLiteral("Copies, not elementwise math.")), qPrintable(fx.view.detailText()));
        QVERIFY(fx.view.detailText().contains(QStringLiteral("f2.e1")));
        fx.view.selectFinding(2);
        QVERIFY2(fx.view.detailText().contains(QStringLiteral("cites no evidence")), qPrintable(fx.view.detailText()));

        // New findings (a re-analysis) clear the review: it judged the old ones.
        fx.doc.setDiagnosis(fourFindings());
        QCOMPARE(verdicts(*fx.view.model()), (QStringList{QString(), QString(), QString(), QString()}));
        QVERIFY(fx.view.tree()->isColumnHidden(FindingsModel::ReviewColumn));
    }

    void failuresLeaveTheFindingsAsTheyWere_data()
    {
        QTest::addColumn<int>("status");
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<bool>("silent");
        QTest::addColumn<QString>("why");
        QTest::newRow("malformed JSON") << 200 << QByteArray("{\"choices\": [ this is not json") << false
                                        << QStringLiteral("not JSON");
        QTest::newRow("no reviews key") << 200 << Stub::chat({{"opinion", "fine"}}) << false
                                        << QStringLiteral("did not answer with the JSON asked for");
        QTest::newRow("HTTP 500") << 500 << Stub::chat({{"reviews", json::array()}}) << false << QStringLiteral("HTTP 500");
        QTest::newRow("timeout") << 200 << QByteArray() << true << QStringLiteral("no answer within 1 s");
    }

    void failuresLeaveTheFindingsAsTheyWere()
    {
        QFETCH(int, status);
        QFETCH(QByteArray, body);
        QFETCH(bool, silent);
        QFETCH(QString, why);
        Fixture fx;
        Stub stub;
        stub.status = status;
        stub.body = body;
        stub.silent = silent;
        QSignalSpy reset(fx.view.model(), &QAbstractItemModel::modelReset);
        QSignalSpy changed(fx.view.model(), &QAbstractItemModel::dataChanged);
        QCOMPARE(fx.review(settingsFor(stub, 1)), std::optional<bool>(false));
        QCOMPARE(stub.heads.size(), 1);   // it was asked
        QVERIFY2(fx.view.reviewStatusText().contains(why), qPrintable(fx.view.reviewStatusText()));
        QVERIFY(fx.view.reviewStatusText().contains(QStringLiteral("unchanged")));
        QCOMPARE(verdicts(*fx.view.model()), (QStringList{QString(), QString(), QString(), QString()}));
        QVERIFY(!fx.view.model()->review());
        QVERIFY(fx.view.tree()->isColumnHidden(FindingsModel::ReviewColumn));
        QCOMPARE(reset.count(), 0);
        QCOMPARE(changed.count(), 0);
        QVERIFY(!fx.view.isReviewing());
        fx.unchanged();
    }

    void failureKeepsAnEarlierReview()
    {
        Fixture fx;
        Stub stub;
        stub.body = Stub::chat({{"reviews", {{{"finding", "f1"}, {"verdict", "agree"}, {"explanation", "ok"}, {"cites", {"f1.e1"}}}}}});
        QCOMPARE(fx.review(settingsFor(stub)), std::optional<bool>(true));
        const auto first = fx.view.model()->review();
        QVERIFY(first);
        stub.status = 500;
        QCOMPARE(fx.review(settingsFor(stub)), std::optional<bool>(false));
        QVERIFY(fx.view.model()->review() == first);
        QCOMPARE(verdicts(*fx.view.model()).value(0), QStringLiteral("agree"));
    }

    void cancelStopsWaiting()
    {
        Fixture fx;
        Stub stub;
        stub.silent = true;
        QSignalSpy done(&fx.view, &FindingsView::reviewFinished);
        QVERIFY(fx.view.startReview(settingsFor(stub, 60)));
        QVERIFY(fx.view.isReviewing());
        auto* cancel = fx.view.findChild<QToolButton*>(QStringLiteral("cancelReview"));
        QVERIFY(cancel);
        QVERIFY(!cancel->isHidden());
        QTRY_COMPARE_WITH_TIMEOUT(stub.heads.size(), 1, 10000);   // the request is out; the server never answers
        QTest::mouseClick(cancel, Qt::LeftButton);                 // the GUI thread was never blocked
        QCOMPARE(done.count(), 1);
        QCOMPARE(done.at(0).at(0).toBool(), false);
        QVERIFY(!fx.view.isReviewing());
        QVERIFY(cancel->isHidden());
        QVERIFY(fx.view.reviewStatusText().contains(QStringLiteral("cancelled")));
        QTest::qWait(200);
        QCOMPARE(done.count(), 1);   // no late verdict
        QVERIFY(!fx.view.model()->review());
        fx.unchanged();
    }

    void noEndpointConnectsNowhere()
    {
        Fixture fx;
        Stub stub;
        const ReviewerSettings off;   // the default: no endpoint
        QVERIFY(!off.enabled());
        QVERIFY(!FindingsView::reviewUnavailableReason(off).isEmpty());
        QSignalSpy done(&fx.view, &FindingsView::reviewFinished);
        QVERIFY(!fx.view.startReview(off));
        ReviewerSettings blank;
        blank.endpoint = QStringLiteral("   ");
        QVERIFY(!fx.view.startReview(blank));
        ReviewerSettings notHttp;
        notHttp.endpoint = QStringLiteral("ftp://127.0.0.1:%1/v1").arg(stub.server.serverPort());
        QVERIFY(!FindingsView::reviewUnavailableReason(notHttp).isEmpty());
        QVERIFY(!fx.view.startReview(notHttp));
        QTest::qWait(300);
        QCOMPARE(stub.connections, 0);
        QCOMPARE(done.count(), 0);
        QVERIFY(!fx.view.isReviewing());
        QVERIFY(fx.view.reviewStatusText().contains(QStringLiteral("http")));
        // With an endpoint the reason is gone; without findings nothing is sent either.
        QVERIFY(FindingsView::reviewUnavailableReason(settingsFor(stub)).isEmpty());
        fx.doc.setDiagnosis(std::make_shared<Diagnosis>());
        QVERIFY(!fx.view.startReview(settingsFor(stub)));
        QTest::qWait(200);
        QCOMPARE(stub.connections, 0);
    }
};

QTEST_MAIN(TestFindingsReview)
#include "tst_findings_review.moc"
