// SuggestionModel over a real knowledge base: rows are the run KbSession attached (the real pipeline's findings on a
// generated decode trace written to disk), edits through setData reach the file at once (checked with a second
// connection), the row shows an edit immediately and goes back when the write fails, stateByKey follows every
// change, and re-attaching the same trace (even from a new session, as after a restart) keeps the states.
#include <QAbstractItemModelTester>
#include <QDir>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include "analysis/io/fingerprint.h"
#include "analysis/diagnosis/knowledge_base.h"
#include "analysis/io/nsys_writer.h"
#include "analysis/pipeline.h"
#include "analysis/diagnosis/rules.h"
#include "analysis/io/synthetic.h"
#include "model/findings_model.h"
#include "model/kb_session.h"
#include "model/suggestion_model.h"
#include "model/units.h"
#include "tests/support/qt_fixtures.h"

using namespace sl;

namespace {

std::optional<SuggestionRecord> stored(const QString& kbPath, int64_t id) { return testing::storedSuggestion(kbPath, id); }

QString state(const SuggestionModel& m, int row)
{
    return m.data(m.index(row, SuggestionModel::State), SuggestionModel::StateRole).toString();
}

} // namespace

class TestSuggestionModel : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        dir_ = testing::scratchTempDir(QStringLiteral("suggestion_model_XXXXXX"));
        QVERIFY(dir_->isValid());
        SynthOptions so = testing::plantedDecode();
        so.decode_steps = 12;
        run_ = testing::analyseToFile(dir_->filePath(QStringLiteral("decode.sqlite")), so);
        QVERIFY(run_.result->diagnosis.eval.findings.size() >= 2);
    }

    void init()
    {
        kbPath_ = dir_->filePath(QStringLiteral("%1.db").arg(QString::fromLatin1(QTest::currentTestFunction())));
    }

    void metricLabelsReadAsWords()
    {
        QCOMPARE(SuggestionModel::metricLabel(QStringLiteral("subject_time_ns")), QStringLiteral("Subject time"));
        QCOMPARE(SuggestionModel::metricLabel(QStringLiteral("tpot_median_ns")), QStringLiteral("Median TPOT"));
        // A metric a user rule names and we do not know: its name without unit suffix and underscores.
        QCOMPARE(SuggestionModel::metricLabel(QStringLiteral("my_custom_wait_ns")), QStringLiteral("My custom wait"));
        QCOMPARE(formatGainRange(0.15, 0.35), QStringLiteral("15–35 %"));
        QCOMPARE(formatGainRange(0.15, 0.149), QStringLiteral("15 %"));   // not "15–15 %"
        QVERIFY(formatGainRange(0, 0).isEmpty());                          // a profiling step promises no gain
    }

    void rowsAreTheRunsSuggestions()
    {
        KbSession session;
        session.setPath(kbPath_);
        SuggestionModel model(&session);
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setDiagnosis(diagnosis());
        QSignalSpy states(&model, &SuggestionModel::statesChanged);
        attach(session);
        QTRY_VERIFY_WITH_TIMEOUT(model.rowCount() > 0, 30000);
        QCOMPARE(states.count(), 1);
        QVERIFY(model.hasRun());
        QCOMPARE(model.runId(), session.runId());
        QCOMPARE(model.columnCount(), int(SuggestionModel::ColumnCount));

        KnowledgeBase kb(kbPath_.toStdString());
        const auto rows = kb.suggestions(model.runId());
        QCOMPARE(model.rowCount(), int(rows.size()));
        for (int r = 0; r < model.rowCount(); ++r) {
            QCOMPARE(model.data(model.index(r, 0), SuggestionModel::IdRole).value<qint64>(), rows[size_t(r)].id);
            QCOMPARE(model.data(model.index(r, 0), SuggestionModel::KeyRole).toString(),
                     QString::fromStdString(rows[size_t(r)].key));
            QCOMPARE(state(model, r), QStringLiteral("proposed"));
            QCOMPARE(model.data(model.index(r, SuggestionModel::State)).toString(), QStringLiteral("Proposed"));
            QCOMPARE(model.data(model.index(r, SuggestionModel::Subject)).toString(),
                     FindingsModel::subjectLabel(rows[size_t(r)].subject));
            QCOMPARE(model.data(model.index(r, SuggestionModel::Subject), SuggestionModel::SubjectRole).toString(),
                     QString::fromStdString(rows[size_t(r)].subject));
            // Every row is matched back to the finding and suggestion of the diagnosis it came from.
            const Finding* f = model.findingFor(r);
            const Suggestion* s = model.suggestionFor(r);
            QVERIFY(f && s);
            QCOMPARE(f->rule + "/" + s->id, rows[size_t(r)].key);
            QCOMPARE(f->subject, rows[size_t(r)].subject);
            QCOMPARE(model.data(model.index(r, SuggestionModel::Text)).toString(), QString::fromStdString(s->text.en));
            const QString metric = model.data(model.index(r, SuggestionModel::Metric)).toString();
            // The metric reads as words, never as the internal name ("subject_time_ns ↓"); the name stays in the tip.
            QVERIFY(metric.startsWith(SuggestionModel::metricLabel(QString::fromStdString(s->metric))));
            QVERIFY2(!metric.contains(QLatin1Char('_')), qPrintable(metric));
            QVERIFY(model.data(model.index(r, SuggestionModel::Metric), Qt::ToolTipRole)
                        .toString()
                        .contains(QString::fromStdString(s->metric)));
            QVERIFY(metric.endsWith(s->direction == "decrease" ? QStringLiteral("↓") : QStringLiteral("↑")));
        }
        // Chinese texts come from the same diagnosis.
        model.setLanguage(QStringLiteral("zh_CN"));
        const Suggestion* s0 = model.suggestionFor(0);
        QVERIFY(!s0->text.zh_CN.empty());
        QCOMPARE(model.data(model.index(0, SuggestionModel::Text)).toString(), QString::fromStdString(s0->text.zh_CN));

        // Only state and annotation are editable.
        QVERIFY(model.flags(model.index(0, SuggestionModel::State)) & Qt::ItemIsEditable);
        QVERIFY(model.flags(model.index(0, SuggestionModel::Annotation)) & Qt::ItemIsEditable);
        QVERIFY(!(model.flags(model.index(0, SuggestionModel::Text)) & Qt::ItemIsEditable));
        QVERIFY(!model.setData(model.index(0, SuggestionModel::Text), QStringLiteral("x")));
        QVERIFY(!model.setData(model.index(0, SuggestionModel::State), QStringLiteral("maybe")));
        QCOMPARE(state(model, 0), QStringLiteral("proposed"));

        model.clear();
        QCOMPARE(model.rowCount(), 0);
        QVERIFY(!model.hasRun());
    }

    // The Subject column in the interface's language (issue 37 §7): an operator class by its label ("gemm (decode)"
    // read as "GEMM / GEMV（解码）" under zh_CN, not the id), a phase and the whole trace in words. The rows are the
    // planted decode's (phases and the trace); the class subjects are checked on every class the analysis has.
    void subjectColumnNamesClassesByTheirLabels()
    {
        KbSession session;
        session.setPath(kbPath_);
        SuggestionModel model(&session);
        model.setDiagnosis(diagnosis(), run_.analysis());
        attach(session);
        QTRY_VERIFY_WITH_TIMEOUT(model.rowCount() > 0, 30000);
        const OpClassResult& classes = run_.analysis()->classes;
        for (const QString& lang : {QStringLiteral("en"), QStringLiteral("zh_CN")}) {
            model.setLanguage(lang);
            for (int r = 0; r < model.rowCount(); ++r) {
                const std::string subject =
                    model.data(model.index(r, SuggestionModel::Subject), SuggestionModel::SubjectRole).toString().toStdString();
                const QString shown = model.data(model.index(r, SuggestionModel::Subject)).toString();
                QCOMPARE(shown, FindingsModel::subjectLabel(subject, &classes, lang));
                if (subject == "trace")   // never the id (the words are the catalogue's: see tst_language under zh_CN)
                    QVERIFY(shown != QString::fromStdString(subject));
            }
        }
        QVERIFY(!classes.classes.empty());
        int labelled = 0;
        for (const auto& c : classes.classes) {
            const QString zh = QString::fromStdString(c.label_for("zh_CN"));
            const QString shown = FindingsModel::subjectLabel(c.id + " (decode)", &classes, QStringLiteral("zh_CN"));
            QVERIFY2(shown.startsWith(zh), qPrintable(shown + QStringLiteral(" / ") + zh));
            if (zh != QString::fromStdString(c.id)) {
                ++labelled;
                QVERIFY2(!shown.contains(QString::fromStdString(c.id)), qPrintable(shown));
            }
            QVERIFY(FindingsModel::subjectLabel(c.id + " (decode)", &classes, QStringLiteral("en"))
                        .startsWith(QString::fromStdString(c.label_for("en"))));
        }
        QVERIFY(labelled > 0);
    }

    void setDataWritesThroughAndSurvivesReattach()
    {
        KbSession session;
        session.setPath(kbPath_);
        SuggestionModel model(&session);
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setDiagnosis(diagnosis());
        attach(session);
        QTRY_VERIFY_WITH_TIMEOUT(model.rowCount() >= 2, 30000);
        QSignalSpy saved(&session, &KbSession::saved);
        QSignalSpy states(&model, &SuggestionModel::statesChanged);
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        const qint64 id0 = model.record(0)->id, id1 = model.record(1)->id;
        const QString key0 = model.data(model.index(0, 0), SuggestionModel::KeyRole).toString() + QLatin1Char('|') +
                             model.data(model.index(0, 0), SuggestionModel::SubjectRole).toString();

        // Accept row 0 (by state name) and annotate it: shown at once, pending until the session answers.
        QVERIFY(model.setData(model.index(0, SuggestionModel::State), QStringLiteral("accepted")));
        QCOMPARE(state(model, 0), QStringLiteral("accepted"));
        QVERIFY(model.data(model.index(0, 0), SuggestionModel::PendingRole).toBool());
        QCOMPARE(model.stateByKey().value(key0), QStringLiteral("accepted"));
        QCOMPARE(states.count(), 1);
        QVERIFY(changed.count() >= 1);
        QVERIFY(model.setData(model.index(0, SuggestionModel::Annotation), QStringLiteral("graphs on in v2 of the server")));
        // The translated label works as well (a combo-box editor gives it).
        QVERIFY(model.setData(model.index(1, SuggestionModel::State), SuggestionModel::stateLabel(SuggestionState::Rejected)));
        QTRY_COMPARE(saved.count(), 3);
        QVERIFY(!model.data(model.index(0, 0), SuggestionModel::PendingRole).toBool());

        // Committed: a separate connection sees both the state and the note right away.
        auto s0 = stored(kbPath_, id0);
        QCOMPARE(s0->state, SuggestionState::Accepted);
        QCOMPARE(s0->annotation, std::string("graphs on in v2 of the server"));
        QCOMPARE(stored(kbPath_, id1)->state, SuggestionState::Rejected);
        QCOMPARE(model.data(model.index(0, SuggestionModel::Annotation)).toString(),
                 QStringLiteral("graphs on in v2 of the server"));
        QVERIFY(!model.data(model.index(0, SuggestionModel::Updated)).toString().isEmpty());
        // Writing the same value again is a no-op, not a write.
        QVERIFY(model.setData(model.index(0, SuggestionModel::State), QStringLiteral("accepted")));
        QVERIFY(session.waitForIdle());
        QCOMPARE(saved.count(), 3);

        // stateByKey covers every row with "<rule>/<id>|<subject>".
        const auto byKey = model.stateByKey();
        QCOMPARE(byKey.size(), model.rowCount());
        QCOMPARE(byKey.value(key0), QStringLiteral("accepted"));
        // ... the very keys the Findings pane looks its badges up by.
        QSet<QString> findingsKeys;
        for (const Finding& f : run_.result->diagnosis.eval.findings)
            for (const Suggestion& sg : f.suggestions)
                findingsKeys.insert(FindingsModel::suggestionStateKey(f, sg));
        QCOMPARE(QSet<QString>(byKey.keyBegin(), byKey.keyEnd()), findingsKeys);
        FindingsModel findings;
        findings.setDiagnosis(diagnosis(), run_.trace());
        findings.setSuggestionStates(byKey);
        bool badgeSeen = false;
        for (int r = 0; r < findings.rowCount(); ++r) {
            const QModelIndex p = findings.index(r, 0);
            for (int c = 0; c < findings.rowCount(p); ++c) {
                const QModelIndex ch = findings.index(c, 0, p);
                if (ch.data(FindingsModel::SuggestionStateRole).toString() == QLatin1String("accepted"))
                    badgeSeen = true;
            }
        }
        QVERIFY(badgeSeen);

        // A restart: a new session and model on the same file and trace find the same run and its states.
        KbSession again;
        again.setPath(kbPath_);
        SuggestionModel model2(&again);
        QAbstractItemModelTester tester2(&model2, QAbstractItemModelTester::FailureReportingMode::QtTest);
        attach(again);
        QTRY_COMPARE_WITH_TIMEOUT(model2.rowCount(), model.rowCount(), 30000);
        QCOMPARE(model2.runId(), model.runId());
        QCOMPARE(state(model2, model2.rowOfId(id0)), QStringLiteral("accepted"));
        QCOMPARE(state(model2, model2.rowOfId(id1)), QStringLiteral("rejected"));
        QCOMPARE(model2.data(model2.index(model2.rowOfId(id0), SuggestionModel::Annotation)).toString(),
                 QStringLiteral("graphs on in v2 of the server"));
        QCOMPARE(model2.stateByKey(), model.stateByKey());
        QCOMPARE(KnowledgeBase(kbPath_.toStdString()).count("runs"), int64_t(1));
    }

    void failedWriteReverts()
    {
        KbSession session;
        session.setPath(kbPath_);
        SuggestionModel model(&session);
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        attach(session);
        QTRY_VERIFY_WITH_TIMEOUT(model.rowCount() > 0, 30000);

        // The file becomes unusable (a regular file where its directory should be).
        const QString blocker = dir_->filePath(QStringLiteral("blocker"));
        QFile f(blocker);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.close();
        const QString bad = blocker + QStringLiteral("/kb.db");
        session.setPath(bad);
        QSignalSpy failed(&session, &KbSession::failed);
        QSignalSpy states(&model, &SuggestionModel::statesChanged);
        const qint64 id = model.record(0)->id;
        QVERIFY(model.setData(model.index(0, SuggestionModel::State), QStringLiteral("accepted")));
        QVERIFY(model.setData(model.index(0, SuggestionModel::Annotation), QStringLiteral("lost?")));
        QCOMPARE(state(model, 0), QStringLiteral("accepted"));
        QTRY_COMPARE(failed.count(), 2);
        QCOMPARE(failed.at(0).at(0).value<qint64>(), id);
        QVERIFY(failed.at(0).at(1).toString().contains(bad));
        // Back to what the knowledge base holds.
        QCOMPARE(state(model, 0), QStringLiteral("proposed"));
        QCOMPARE(model.data(model.index(0, SuggestionModel::Annotation)).toString(), QString());
        QVERIFY(!model.data(model.index(0, 0), SuggestionModel::PendingRole).toBool());
        QCOMPARE(model.stateByKey().value(model.data(model.index(0, 0), SuggestionModel::KeyRole).toString() +
                                          QLatin1Char('|') +
                                          model.data(model.index(0, 0), SuggestionModel::SubjectRole).toString()),
                 QStringLiteral("proposed"));
        QCOMPARE(states.count(), 2);   // accepted, then back to proposed
        QCOMPARE(stored(kbPath_, id)->state, SuggestionState::Proposed);
    }

    void sortRoleOrdersStatesAndTimes()
    {
        KbSession session;
        session.setPath(kbPath_);
        SuggestionModel model(&session);
        attach(session);
        QTRY_VERIFY_WITH_TIMEOUT(model.rowCount() >= 2, 30000);
        QVERIFY(model.setData(model.index(1, SuggestionModel::State), QStringLiteral("rejected")));
        QVERIFY(session.waitForIdle());
        const auto sortKey = [&](int row) { return model.data(model.index(row, SuggestionModel::State), SuggestionModel::SortRole).toInt(); };
        QCOMPARE(sortKey(0), int(SuggestionState::Proposed));
        QCOMPARE(sortKey(1), int(SuggestionState::Rejected));
        QVERIFY(model.data(model.index(1, SuggestionModel::Updated), SuggestionModel::SortRole).value<qint64>() >=
                model.data(model.index(0, SuggestionModel::Updated), SuggestionModel::SortRole).value<qint64>());
    }

private:
    std::shared_ptr<const Diagnosis> diagnosis() const { return run_.diagnosis(); }
    void attach(KbSession& s) const { s.attach(run_.inputs(), run_.trace(), run_.analysis(), run_.diagnosis()); }

    std::unique_ptr<QTemporaryDir> dir_;
    testing::AnalysedFile run_;
    QString kbPath_;
};

QTEST_GUILESS_MAIN(TestSuggestionModel)
#include "tst_suggestion_model.moc"
