// The Overview's "Seen before on this environment" block: with a temporary knowledge base holding an A/B-verified
// suggestion on the open trace's environment and another on a different GPU and driver, KbSession::attach answers
// with the matching record only (the trace's own run left out), and the Overview shows it with its verdicts,
// measured change and confidence; null hides the block.
#include <QLabel>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include "analysis/diagnosis/knowledge_base.h"
#include "analysis/io/fingerprint.h"
#include "model/kb_session.h"
#include "tests/support/qt_fixtures.h"
#include "widgets/overview_panel.h"

using namespace sl;

namespace {

int64_t addRun(KnowledgeBase& kb, const EnvFingerprint& env, const std::string& path)
{
    RunRecord r;
    r.trace_path = path;
    r.trace_hash = "hash-of-" + path;
    r.env_id = kb.upsert_environment(env);
    return kb.record_run(r);
}

void addVerdict(KnowledgeBase& kb, const std::string& key, int64_t before, int64_t after, double delta)
{
    VerificationRecord v;
    v.suggestion_key = key;
    v.before_run = before;
    v.after_run = after;
    v.metric = "tpot_median_ns";
    v.delta = delta;
    v.verdict = "verified";
    kb.record_verification(v);
}

} // namespace

class TestOverviewSeenBefore : public QObject {
    Q_OBJECT
private slots:
    void showsTheMatchingRecordOnly()
    {
        QTemporaryDir dir;
        const auto a = testing::analyseToFile(dir.filePath(QStringLiteral("t.sqlite")), testing::plantedDecode());
        const QString kbPath = dir.filePath(QStringLiteral("kb.db"));
        {
            KnowledgeBase kb(kbPath.toStdString());
            const EnvFingerprint same = a.diagnosis()->env;
            EnvFingerprint other = same;
            other.gpu = "NVIDIA A10G";
            other.driver = "470.01";
            other.cuda = "11.0";
            other.libraries = {{"torch", "1.0"}};
            addVerdict(kb, "idle-host-bound/cuda-graphs", addRun(kb, same, "/runs/b.sqlite"),
                       addRun(kb, same, "/runs/a.sqlite"), -0.12);
            addVerdict(kb, "launch-overhead/other-env-only", addRun(kb, other, "/else/b.sqlite"),
                       addRun(kb, other, "/else/a.sqlite"), -0.30);
        }
        KbSession session;
        session.setPath(kbPath);
        QSignalSpy history(&session, &KbSession::environmentHistoryReady);
        QSignalSpy ready(&session, &KbSession::suggestionsReady);
        const quint64 gen = session.attach(a.inputs(), a.trace(), a.analysis(), a.diagnosis());
        QTRY_COMPARE_WITH_TIMEOUT(ready.count(), 1, 60000);
        QCOMPARE(history.count(), 1);
        QCOMPARE(history.at(0).at(0).value<quint64>(), gen);
        const auto h = history.at(0).at(1).value<EnvironmentHistoryPtr>();
        QVERIFY(h);
        // The two runs of the same environment; the trace itself (recorded by attach) and the other GPU left out.
        QCOMPARE(h->runs.size(), size_t(2));
        QCOMPARE(h->verified.size(), size_t(1));
        QCOMPARE(QString::fromStdString(h->verified[0].suggestion_key), QStringLiteral("idle-host-bound/cuda-graphs"));
        QCOMPARE(h->verified[0].similarity, environment_similarity(a.diagnosis()->env, a.diagnosis()->env));

        OverviewPanel panel;
        panel.show();
        QVERIFY(panel.seenBeforeText().isEmpty());
        panel.setEnvironmentHistory(h);
        const QString text = panel.seenBeforeText();
        QVERIFY(text.contains(QStringLiteral("Seen before on this environment")));
        QVERIFY(text.contains(QStringLiteral("idle-host-bound/cuda-graphs")));
        QVERIFY(!text.contains(QStringLiteral("other-env-only")));
        QVERIFY2(text.contains(QStringLiteral("-12.0 % tpot_median_ns")), qPrintable(text));
        QVERIFY(text.contains(QString::number(h->verified[0].confidence, 'f', 2)));
        QVERIFY(text.contains(QStringLiteral("1 verified, 0 failed, 0 inconclusive")));
        QVERIFY(text.contains(QStringLiteral("2 earlier run(s) on a similar environment")));
        QVERIFY(panel.findChild<QLabel*>(QStringLiteral("seenBefore"))->isVisible());
        panel.setEnvironmentHistory(nullptr);
        QVERIFY(panel.seenBeforeText().isEmpty());

        // An environment nobody has seen: "nothing yet".
        panel.setEnvironmentHistory(std::make_shared<const EnvironmentHistory>());
        QVERIFY(panel.seenBeforeText().contains(QStringLiteral("Nothing yet")));
    }
};

QTEST_MAIN(TestOverviewSeenBefore)
#include "tst_overview_seen_before.moc"
