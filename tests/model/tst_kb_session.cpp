// KbSession against a real knowledge-base file: a generated decode trace written to disk and analysed by the real
// pipeline is attached, its run is recorded exactly once (as `kb record` would) with every suggestion of its
// findings, writes are visible to a second connection as soon as `saved` arrives, a second session sees them, a
// child process that aborts right after `saved` loses nothing, and an unusable path fails with its name, no crash.
#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <cstdlib>
#include <set>
#include <sqlite3.h>

#include "analysis/diagnosis/compare.h"
#include "analysis/io/fingerprint.h"
#include "analysis/diagnosis/knowledge_base.h"
#include "analysis/io/nsys_writer.h"
#include "analysis/pipeline.h"
#include "analysis/diagnosis/rules.h"
#include "analysis/io/synthetic.h"
#include "model/kb_session.h"
#include "tests/support/qt_fixtures.h"

using namespace sl;

namespace {

const char* kChildEnv = "SL_KB_SESSION_CRASH_CHILD";

// A decode trace with planted host starvation and per-step syncs (many findings with suggestions), on disk.
using Analysed = testing::AnalysedFile;

Analysed analyse(const QString& file, uint64_t seed)
{
    SynthOptions so = testing::plantedDecode();
    so.decode_steps = 12;
    so.seed = seed;
    return testing::analyseToFile(file, so);
}

size_t suggestionCount(const Diagnosis& d)
{
    size_t n = 0;
    for (const auto& f : d.eval.findings)
        n += f.suggestions.size();
    return n;
}

std::optional<SuggestionRecord> stored(const QString& kbPath, int64_t id) { return testing::storedSuggestion(kbPath, id); }

// Child mode: attach to the run the parent recorded, accept one suggestion, abort as soon as `saved` arrives.
int crashChild(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    const QString kbPath = qEnvironmentVariable(kChildEnv);
    const QString file = qEnvironmentVariable("SL_KB_SESSION_TRACE");
    const qint64 id = qEnvironmentVariable("SL_KB_SESSION_ID").toLongLong();
    const Analysed a = analyse(file + QStringLiteral(".child.sqlite"), 7);   // any analysis; the run is found by hash
    KbSession session;
    session.setPath(kbPath);
    QObject::connect(&session, &KbSession::saved, [](qint64, SuggestionState, const QString&, qint64) { std::abort(); });
    QObject::connect(&session, &KbSession::failed, [](qint64, const QString& m) {
        fprintf(stderr, "child failed: %s\n", qPrintable(m));
        std::exit(3);
    });
    QObject::connect(&session, &KbSession::suggestionsReady, [&](quint64, qint64, SuggestionList list) {
        bool found = false;
        for (const auto& s : *list)
            found = found || s.id == id;
        if (!found)
            std::exit(4);
        session.setState(id, SuggestionState::Accepted, QStringLiteral("accepted by a process that then crashed"));
    });
    session.attach(DocumentInputs{{file}, {}, {}}, a.trace(), a.analysis(), a.diagnosis());
    return app.exec();   // never returns normally: abort() in `saved`
}

} // namespace

class TestKbSession : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        dir_ = testing::scratchTempDir(QStringLiteral("kb_session_XXXXXX"));
        QVERIFY(dir_->isValid());
        a_ = analyse(dir_->filePath(QStringLiteral("a.sqlite")), 1);
        b_ = analyse(dir_->filePath(QStringLiteral("b.sqlite")), 2);
        QVERIFY(suggestionCount(*a_.diagnosis()) >= 3);
    }

    void traceHashIdentifiesFiles()
    {
        const QString a = a_.file, b = b_.file;
        QCOMPARE(KbSession::traceHash({a}), QString::fromStdString(file_hash(a.toStdString())));
        QCOMPARE(KbSession::traceHash({a}).size(), 16);
        const QString ab = KbSession::traceHash({a, b});
        QCOMPARE(ab.size(), 16);
        QVERIFY(ab != KbSession::traceHash({a}));
        QVERIFY(ab != KbSession::traceHash({b}));
        QVERIFY(ab != KbSession::traceHash({b, a}));   // order matters: the merge depends on it
        QCOMPARE(KbSession::traceHash({a, b}), ab);
        QVERIFY(KbSession::traceHash({a, dir_->filePath(QStringLiteral("missing.sqlite"))}).isEmpty());
        QVERIFY(KbSession::traceHash({}).isEmpty());
    }

    void attachRecordsTheRunOnce()
    {
        const QString kbPath = dir_->filePath(QStringLiteral("attach.db"));
        KbSession session;
        session.setPath(kbPath);
        QSignalSpy ready(&session, &KbSession::suggestionsReady);
        QSignalSpy failed(&session, &KbSession::failed);
        const quint64 gen = session.attach(a_.inputs(), a_.trace(), a_.analysis(), a_.diagnosis());
        QTRY_COMPARE_WITH_TIMEOUT(ready.count(), 1, 30000);
        QCOMPARE(failed.count(), 0);
        QCOMPARE(ready.at(0).at(0).value<quint64>(), gen);
        const qint64 runId = ready.at(0).at(1).value<qint64>();
        QVERIFY(runId > 0);
        QCOMPARE(session.runId(), runId);
        const auto list = ready.at(0).at(2).value<SuggestionList>();
        QVERIFY(list);

        // What the diagnosis proposes, spelled independently: "<rule>/<id>|<subject>" for every suggestion.
        std::multiset<std::string> expected, got;
        for (const auto& f : a_.diagnosis()->eval.findings)
            for (const auto& s : f.suggestions)
                expected.insert(f.rule + "/" + s.id + "|" + f.subject);
        for (const auto& s : *list) {
            QVERIFY(s.id > 0);
            QCOMPARE(s.run_id, runId);
            QCOMPARE(s.state, SuggestionState::Proposed);
            got.insert(s.key + "|" + s.subject);
        }
        QCOMPARE(got, expected);

        // Another connection sees the run as `kb record` writes it: hash, environment, metrics, measurements.
        {
            KnowledgeBase kb(kbPath.toStdString());
            QCOMPARE(kb.count("runs"), int64_t(1));
            const auto run = kb.find_run_by_hash(file_hash(a_.file.toStdString()));
            QVERIFY(run);
            QCOMPARE(run->id, runId);
            QCOMPARE(QString::fromStdString(run->trace_path), QFileInfo(a_.file).absoluteFilePath());
            const auto env = kb.environment(run->env_id);
            QVERIFY(env);
            QCOMPARE(env->key(), a_.diagnosis()->env.key());
            QCOMPARE(env->gpu, std::string("NVIDIA H100 80GB HBM3"));
            const auto metrics = headline_metrics(*a_.trace(), *a_.analysis());
            QCOMPARE(run->metrics.at("kernel_count"), metrics.at("kernel_count"));
            QCOMPARE(run->metrics.at("idle_ns"), metrics.at("idle_ns"));
            QCOMPARE(kb.operator_measurements(runId).size(), operator_measurements(*a_.trace(), *a_.analysis()).size());
            QCOMPARE(kb.count("findings"), int64_t(a_.diagnosis()->eval.findings.size()));
            QCOMPARE(kb.suggestions(runId).size(), list->size());
        }

        // Attaching the same trace again finds the run: no second run, same ids.
        session.attach(a_.inputs(), a_.trace(), a_.analysis(), a_.diagnosis());
        QTRY_COMPARE_WITH_TIMEOUT(ready.count(), 2, 30000);
        QCOMPARE(ready.at(1).at(1).value<qint64>(), runId);
        QCOMPARE(ready.at(1).at(2).value<SuggestionList>()->size(), list->size());
        QCOMPARE(KnowledgeBase(kbPath.toStdString()).count("runs"), int64_t(1));
    }

    void writesAreCommittedAtOnce()
    {
        const QString kbPath = dir_->filePath(QStringLiteral("write.db"));
        KbSession session;
        session.setPath(kbPath);
        QSignalSpy ready(&session, &KbSession::suggestionsReady);
        QSignalSpy saved(&session, &KbSession::saved);
        session.attach(a_.inputs(), a_.trace(), a_.analysis(), a_.diagnosis());
        QTRY_COMPARE_WITH_TIMEOUT(ready.count(), 1, 30000);
        const auto list = ready.at(0).at(2).value<SuggestionList>();
        const qint64 id = list->at(1).id, other = list->at(2).id;

        session.setState(id, SuggestionState::Accepted, QStringLiteral("try it on the 8B model first"));
        QTRY_COMPARE(saved.count(), 1);
        QCOMPARE(saved.at(0).at(0).value<qint64>(), id);
        QCOMPARE(saved.at(0).at(1).value<SuggestionState>(), SuggestionState::Accepted);
        QCOMPARE(saved.at(0).at(2).toString(), QStringLiteral("try it on the 8B model first"));
        QVERIFY(saved.at(0).at(3).value<qint64>() > 0);
        auto s = stored(kbPath, id);   // the moment `saved` arrived, a second connection sees it
        QVERIFY(s);
        QCOMPARE(s->state, SuggestionState::Accepted);
        QCOMPARE(s->annotation, std::string("try it on the 8B model first"));

        // annotate keeps the stored state; setState without annotation keeps the note; others stay untouched.
        session.annotate(id, QStringLiteral("helped: −12 % TPOT"));
        QTRY_COMPARE(saved.count(), 2);
        s = stored(kbPath, id);
        QCOMPARE(s->state, SuggestionState::Accepted);
        QCOMPARE(QString::fromStdString(s->annotation), QStringLiteral("helped: −12 % TPOT"));
        session.setState(id, SuggestionState::Rejected);
        QTRY_COMPARE(saved.count(), 3);
        QCOMPARE(saved.at(2).at(2).toString(), QStringLiteral("helped: −12 % TPOT"));
        s = stored(kbPath, id);
        QCOMPARE(s->state, SuggestionState::Rejected);
        QCOMPARE(QString::fromStdString(s->annotation), QStringLiteral("helped: −12 % TPOT"));
        QCOMPARE(stored(kbPath, other)->state, SuggestionState::Proposed);

        // Operations run in the order asked, even when queued back to back.
        session.setState(other, SuggestionState::Accepted);
        session.setState(other, SuggestionState::Rejected);
        session.annotate(other, QStringLiteral("last"));
        QVERIFY(session.waitForIdle());
        QCOMPARE(stored(kbPath, other)->state, SuggestionState::Rejected);
        QCOMPARE(stored(kbPath, other)->annotation, std::string("last"));

        // A second session on the same file (another Sightline) sees the states.
        KbSession second;
        second.setPath(kbPath);
        QSignalSpy ready2(&second, &KbSession::suggestionsReady);
        second.attach(a_.inputs(), a_.trace(), a_.analysis(), a_.diagnosis());
        QTRY_COMPARE_WITH_TIMEOUT(ready2.count(), 1, 30000);
        QCOMPARE(ready2.at(0).at(1).value<qint64>(), session.runId());
        for (const auto& r : *ready2.at(0).at(2).value<SuggestionList>()) {
            if (r.id == id || r.id == other) {
                QCOMPARE(r.state, SuggestionState::Rejected);
            } else {
                QCOMPARE(r.state, SuggestionState::Proposed);
            }
        }
        // ... and what it writes, the first session reads on refresh.
        second.setState(id, SuggestionState::Verified);
        QVERIFY(second.waitForIdle());
        session.refresh();
        QTRY_COMPARE(ready.count(), 2);
        for (const auto& r : *ready.at(1).at(2).value<SuggestionList>())
            if (r.id == id)
                QCOMPARE(r.state, SuggestionState::Verified);
    }

    void waitsForAnotherWriterWithoutBlockingTheCaller()
    {
        const QString kbPath = dir_->filePath(QStringLiteral("locked.db"));
        KbSession session;
        session.setPath(kbPath);
        QSignalSpy ready(&session, &KbSession::suggestionsReady);
        QSignalSpy saved(&session, &KbSession::saved);
        QSignalSpy failed(&session, &KbSession::failed);
        session.attach(a_.inputs(), a_.trace(), a_.analysis(), a_.diagnosis());
        QTRY_COMPARE_WITH_TIMEOUT(ready.count(), 1, 30000);
        const qint64 id = ready.at(0).at(2).value<SuggestionList>()->front().id;

        // Another "instance" holds the write lock.
        sqlite3* other = nullptr;
        QCOMPARE(sqlite3_open(kbPath.toUtf8().constData(), &other), SQLITE_OK);
        QCOMPARE(sqlite3_exec(other, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);
        session.setState(id, SuggestionState::Accepted);   // returns at once; the worker waits for the lock
        QCOMPARE(session.pending(), 1);
        QTest::qWait(400);                                  // this thread's event loop keeps running meanwhile
        QCOMPARE(saved.count(), 0);
        QCOMPARE(failed.count(), 0);
        QCOMPARE(session.pending(), 1);
        QCOMPARE(sqlite3_exec(other, "COMMIT", nullptr, nullptr, nullptr), SQLITE_OK);
        sqlite3_close(other);
        QTRY_COMPARE_WITH_TIMEOUT(saved.count(), 1, 15000);
        QCOMPARE(failed.count(), 0);
        QCOMPARE(stored(kbPath, id)->state, SuggestionState::Accepted);
    }

    void newerAttachSupersedesOlder()
    {
        KbSession session;
        session.setPath(dir_->filePath(QStringLiteral("supersede.db")));
        QSignalSpy ready(&session, &KbSession::suggestionsReady);
        const quint64 g1 = session.attach(a_.inputs(), a_.trace(), a_.analysis(), a_.diagnosis());
        const quint64 g2 = session.attach(b_.inputs(), b_.trace(), b_.analysis(), b_.diagnosis());
        QVERIFY(g2 > g1);
        QVERIFY(session.waitForIdle());
        QCOMPARE(ready.count(), 1);
        QCOMPARE(ready.at(0).at(0).value<quint64>(), g2);
        KnowledgeBase kb(session.path().toStdString());
        const auto run = kb.find_run_by_hash(file_hash(b_.file.toStdString()));
        QVERIFY(run);
        QCOMPARE(ready.at(0).at(1).value<qint64>(), run->id);

        // detach: a result still in flight is dropped.
        session.attach(a_.inputs(), a_.trace(), a_.analysis(), a_.diagnosis());
        session.detach();
        QVERIFY(session.waitForIdle());
        QCOMPARE(ready.count(), 1);
        QCOMPARE(session.runId(), qint64(0));
    }

    void unusablePathFailsWithItsName()
    {
        // A regular file where the directory should be: cannot be created, even by root.
        const QString blocker = dir_->filePath(QStringLiteral("not-a-dir"));
        {
            QFile f(blocker);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("x");
        }
        const QString kbPath = blocker + QStringLiteral("/knowledge.db");
        KbSession session;
        session.setPath(kbPath);
        QSignalSpy ready(&session, &KbSession::suggestionsReady);
        QSignalSpy failed(&session, &KbSession::failed);
        session.attach(a_.inputs(), a_.trace(), a_.analysis(), a_.diagnosis());
        QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 30000);
        QCOMPARE(ready.count(), 0);
        QCOMPARE(failed.at(0).at(0).value<qint64>(), qint64(0));
        const QString msg = failed.at(0).at(1).toString();
        QVERIFY2(msg.contains(kbPath), qPrintable(msg));
        QVERIFY2(msg.contains(QStringLiteral("cannot open")), qPrintable(msg));

        session.setState(5, SuggestionState::Accepted);
        QTRY_COMPARE(failed.count(), 2);
        QCOMPARE(failed.at(1).at(0).value<qint64>(), qint64(5));
        QVERIFY(failed.at(1).at(1).toString().contains(kbPath));

        // A newer schema than this build knows is refused with a message, not a crash.
        const QString newer = dir_->filePath(QStringLiteral("newer.db"));
        { KnowledgeBase kb(newer.toStdString()); }
        {
            sqlite3* db = nullptr;
            QCOMPARE(sqlite3_open(newer.toUtf8().constData(), &db), SQLITE_OK);
            QCOMPARE(sqlite3_exec(db, "PRAGMA user_version=99", nullptr, nullptr, nullptr), SQLITE_OK);
            sqlite3_close(db);
        }
        session.setPath(newer);
        session.attach(a_.inputs(), a_.trace(), a_.analysis(), a_.diagnosis());
        QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 3, 30000);
        QVERIFY2(failed.at(2).at(1).toString().contains(newer), qPrintable(failed.at(2).at(1).toString()));
        QVERIFY2(failed.at(2).at(1).toString().contains(QStringLiteral("newer than this build")),
                 qPrintable(failed.at(2).at(1).toString()));

        // A good path afterwards works again (the session retries opening).
        session.setPath(dir_->filePath(QStringLiteral("recovered.db")));
        session.attach(a_.inputs(), a_.trace(), a_.analysis(), a_.diagnosis());
        QTRY_COMPARE_WITH_TIMEOUT(ready.count(), 1, 30000);
    }

    void unknownIdFails()
    {
        const QString kbPath = dir_->filePath(QStringLiteral("unknown.db"));
        KbSession session;
        session.setPath(kbPath);
        QSignalSpy failed(&session, &KbSession::failed);
        QSignalSpy saved(&session, &KbSession::saved);
        session.setState(987654, SuggestionState::Accepted);
        session.annotate(987655, QStringLiteral("x"));
        QVERIFY(session.waitForIdle());
        QCOMPARE(saved.count(), 0);
        QCOMPARE(failed.count(), 2);
        QCOMPARE(failed.at(0).at(0).value<qint64>(), qint64(987654));
        QVERIFY(failed.at(0).at(1).toString().contains(QStringLiteral("987654")));
        QVERIFY(failed.at(1).at(1).toString().contains(kbPath));
    }

    void realNsysTraceRoundTrip()
    {
        const QString data = qEnvironmentVariable("SIGHTLINE_SHARED_DATA");
        // The DLProf PyTorch run: host-bound with sync and idle findings (the CUTLASS benchmark, used before, is
        // GPU-bound with no finding at all since its one-off setup copies are no longer called hideable).
        const QString file = data + QStringLiteral("/nsys/dlprof_pytorch_wrelu_nsys_profile.sqlite");
        if (data.isEmpty() || !QFileInfo::exists(file))
            QSKIP("../shared/data is not available");
        PipelineOptions o;
        o.rule_dirs = {shipped_rules_dir()};
        auto r = std::make_shared<const PipelineResult>(run_pipeline({file.toStdString()}, o));
        const Analysed a{file, r};
        const QString kbPath = dir_->filePath(QStringLiteral("real.db"));
        KbSession session;
        session.setPath(kbPath);
        QSignalSpy ready(&session, &KbSession::suggestionsReady);
        session.attach(a.inputs(), a.trace(), a.analysis(), a.diagnosis());
        QTRY_COMPARE_WITH_TIMEOUT(ready.count(), 1, 60000);
        const auto list = ready.at(0).at(2).value<SuggestionList>();
        QCOMPARE(list->size(), suggestionCount(*a.diagnosis()));
        KnowledgeBase kb(kbPath.toStdString());
        const auto run = kb.find_run_by_hash(file_hash(file.toStdString()));
        QVERIFY(run);
        QCOMPARE(run->id, session.runId());
        QCOMPARE(run->metrics.at("kernel_count"), double(a.trace()->kernels.size()));
        QCOMPARE(kb.count("findings"), int64_t(a.diagnosis()->eval.findings.size()));
        QVERIFY(!list->empty());
        session.setState(list->front().id, SuggestionState::Rejected, QStringLiteral("not for this conv net"));
        QVERIFY(session.waitForIdle());
        QCOMPARE(stored(kbPath, list->front().id)->state, SuggestionState::Rejected);
    }

    void crashRightAfterSavedLosesNothing()
    {
        const QString kbPath = dir_->filePath(QStringLiteral("crash.db"));
        qint64 id = 0;
        {
            KbSession session;
            session.setPath(kbPath);
            QSignalSpy ready(&session, &KbSession::suggestionsReady);
            session.attach(a_.inputs(), a_.trace(), a_.analysis(), a_.diagnosis());
            QTRY_COMPARE_WITH_TIMEOUT(ready.count(), 1, 30000);
            id = ready.at(0).at(2).value<SuggestionList>()->back().id;
        }
        QProcess child;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QString::fromLatin1(kChildEnv), kbPath);
        env.insert(QStringLiteral("SL_KB_SESSION_TRACE"), a_.file);
        env.insert(QStringLiteral("SL_KB_SESSION_ID"), QString::number(id));
        child.setProcessEnvironment(env);
        child.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        child.start(QCoreApplication::applicationFilePath(), {});
        QVERIFY(child.waitForFinished(120000));
        QCOMPARE(child.exitStatus(), QProcess::CrashExit);   // abort(), not a clean exit or a failure code

        const auto s = stored(kbPath, id);
        QVERIFY(s);
        QCOMPARE(s->state, SuggestionState::Accepted);
        QCOMPARE(s->annotation, std::string("accepted by a process that then crashed"));
        KnowledgeBase kb(kbPath.toStdString());
        QCOMPARE(kb.count("runs"), int64_t(1));   // the child found the parent's run by hash
    }

private:
    std::unique_ptr<QTemporaryDir> dir_;
    Analysed a_, b_;
};

int main(int argc, char** argv)
{
    if (qEnvironmentVariableIsSet(kChildEnv))
        return crashChild(argc, argv);
    QCoreApplication app(argc, argv);
    TestKbSession t;
    return QTest::qExec(&t, argc, argv);
}

#include "tst_kb_session.moc"
