// The workbench's LLM reviewer (model/llm_reviewer.h) against a local stub server (a QTcpServer in the test that
// answers one HTTP request the way an OpenAI-compatible endpoint would): an answer that agrees and cites evidence
// is kept as a verdict, an uncited claim is dropped and said so, a malformed answer, an HTTP 500 and a server that
// never answers are a "failed" review; with no endpoint configured nothing is sent anywhere (the server sees no
// connection). The API key comes from the environment variable the settings name.
#include <QSignalSpy>
#include <QTest>

#include <nlohmann/json.hpp>

#include "model/llm_reviewer.h"
#include "tests/support/llm_stub_server.h"

using namespace sl;
using nlohmann::json;

namespace {

using StubServer = sl::testing::LlmStubServer;

std::shared_ptr<const Diagnosis> twoFindings()
{
    auto d = std::make_shared<Diagnosis>();
    Finding a;
    a.rule = "decode-host-bound";
    a.severity = Severity::High;
    a.subject = "decode";
    a.title.en = "Decode is host-bound";
    a.explanation.en = "Launch gaps dominate; see /home/alice/trace.sqlite.";
    a.evidence = {{"decode_idle_fraction", 0.38, ">", 0.2, "idle"}};
    Finding b;
    b.rule = "elementwise-fusion";
    b.severity = Severity::Medium;
    b.title.en = "Elementwise kernels hold 63 % of kernel time";
    b.evidence = {{"elementwise_copy_fraction", 0.63, ">=", 0.4, "classes"}};
    d->eval.findings = {a, b};
    return d;
}

QByteArray chat(const json& content) { return StubServer::chat(content); }

ReviewPtr runOnce(LlmReviewer& r, const std::shared_ptr<const Diagnosis>& d, int timeoutMs = 20000)
{
    QSignalSpy spy(&r, &LlmReviewer::reviewed);
    if (!r.review(d))
        return nullptr;
    if (!spy.wait(timeoutMs))
        return nullptr;
    return spy.at(0).at(0).value<ReviewPtr>();
}

} // namespace

class TestLlmReviewer : public QObject {
    Q_OBJECT
private slots:
    void agreeIsKeptUncitedIsDropped()
    {
        StubServer stub;
        stub.body = chat({{"reviews",
                           {{{"finding", "f1"}, {"verdict", "agree"}, {"explanation", "38 % idle is host-side."},
                             {"cites", {"f1.e1"}}},
                            {{"finding", "f2"}, {"verdict", "disagree"}, {"explanation", "I feel otherwise."},
                             {"cites", json::array()}}}}});
        qputenv("SL_TEST_LLM_KEY", "secret-123");
        LlmReviewer r;
        ReviewerSettings s;
        s.endpoint = stub.url();
        s.model = QStringLiteral("tiny");
        s.keyEnv = QStringLiteral("SL_TEST_LLM_KEY");
        r.setSettings(s);
        const ReviewPtr rev = runOnce(r, twoFindings());
        QVERIFY(rev);
        QCOMPARE(QString::fromStdString(rev->status), QStringLiteral("ok"));
        QCOMPARE(rev->verdicts.size(), size_t(1));
        QCOMPARE(QString::fromStdString(rev->verdicts[0].finding), QStringLiteral("f1"));
        QVERIFY(rev->verdicts[0].agree);
        QCOMPARE(rev->verdicts[0].cites, std::vector<std::string>{"f1.e1"});
        QCOMPARE(rev->dropped.size(), size_t(1));
        QVERIFY(QString::fromStdString(rev->dropped[0].reason).contains(QStringLiteral("cites no evidence")));
        // What was sent: to /v1/chat/completions, the key from the named variable, the findings as JSON, no path.
        QCOMPARE(stub.heads.size(), 1);
        QVERIFY2(stub.heads[0].startsWith("POST /v1/chat/completions "), stub.heads[0].constData());
        QVERIFY(stub.heads[0].contains("Bearer secret-123"));
        const json sent = json::parse(stub.bodies[0].toStdString());
        QCOMPARE(QString::fromStdString(sent.value("model", "")), QStringLiteral("tiny"));
        QVERIFY(sent.dump().find("f1.e1") != std::string::npos);
        QVERIFY(sent.dump().find("/home/alice") == std::string::npos);
        qunsetenv("SL_TEST_LLM_KEY");
    }

    void malformedAnswerAndHttp500Fail()
    {
        StubServer stub;
        stub.body = QByteArrayLiteral("{\"choices\": [ this is not json");
        LlmReviewer r;
        ReviewerSettings s;
        s.endpoint = stub.url();
        r.setSettings(s);
        ReviewPtr rev = runOnce(r, twoFindings());
        QVERIFY(rev);
        QCOMPARE(QString::fromStdString(rev->status), QStringLiteral("failed"));
        QVERIFY(rev->verdicts.empty());
        QVERIFY(!rev->error.empty());

        stub.status = 500;
        stub.body = chat({{"reviews", json::array()}});
        rev = runOnce(r, twoFindings());
        QVERIFY(rev);
        QCOMPARE(QString::fromStdString(rev->status), QStringLiteral("failed"));
        QVERIFY2(QString::fromStdString(rev->error).contains(QStringLiteral("HTTP 500")), rev->error.c_str());
    }

    void timeoutFails()
    {
        StubServer stub;
        stub.silent = true;
        LlmReviewer r;
        ReviewerSettings s;
        s.endpoint = stub.url();
        s.timeoutS = 1;
        r.setSettings(s);
        const ReviewPtr rev = runOnce(r, twoFindings(), 15000);
        QVERIFY(rev);
        QCOMPARE(QString::fromStdString(rev->status), QStringLiteral("failed"));
        QVERIFY2(QString::fromStdString(rev->error).contains(QStringLiteral("no answer within 1 s")), rev->error.c_str());
    }

    void noEndpointSendsNothing()
    {
        StubServer stub;
        LlmReviewer r;   // default settings: off
        QVERIFY(!r.settings().enabled());
        QSignalSpy spy(&r, &LlmReviewer::reviewed);
        QVERIFY(!r.review(twoFindings()));
        ReviewerSettings s;
        s.endpoint = QStringLiteral("ftp://127.0.0.1:%1/v1").arg(stub.server.serverPort());   // not http(s)
        r.setSettings(s);
        QVERIFY(!r.review(twoFindings()));
        QTest::qWait(300);
        QCOMPARE(stub.connections, 0);
        QCOMPARE(spy.count(), 0);
        QVERIFY(!r.isRunning());
    }
};

QTEST_MAIN(TestLlmReviewer)
#include "tst_llm_reviewer.moc"
