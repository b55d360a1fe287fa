// CompareJob and the compare models on real files: two synthetic LLM-decode traces written as nsys SQLite exports
// (AFTER: 20 % faster kernels, fewer decode steps, no host starvation or per-step sync). The deltas are checked
// against kernel time summed per name straight from the two Traces, the whole result against
// `sightline-cli compare --format json` on the same files, verdicts against the suggestions accepted in a
// knowledge base, and "Record Verdicts" against `sightline-cli compare --record`.
#include <QAbstractItemModelTester>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>
#include <map>
#include <set>
#include <thread>

#include "analysis/timeline/analysis.h"
#include "analysis/trace/errors.h"
#include "analysis/io/fingerprint.h"
#include "analysis/diagnosis/knowledge_base.h"
#include "analysis/io/load.h"
#include "analysis/diagnosis/metrics_binding.h"
#include "analysis/io/nsys_writer.h"
#include "analysis/pipeline.h"
#include "analysis/io/synthetic.h"
#include "model/compare_job.h"
#include "model/compare_model.h"
#include "model/units.h"
#include "tests/support/qt_fixtures.h"

using namespace sl;

namespace {

struct Agg {
    int64_t count = 0, ns = 0;
};

// Kernel count and time per full kernel name, straight from the trace's columns.
std::map<std::string, Agg> sumPerName(const Trace& t)
{
    std::map<std::string, Agg> m;
    for (size_t i = 0; i < t.kernels.size(); ++i) {
        Agg& a = m[std::string(t.str(t.kernels.name[i]))];
        a.count += 1;
        a.ns += t.kernels.end[i] - t.kernels.start[i];
    }
    return m;
}

bool near(double a, double b) { return std::fabs(a - b) <= 1e-9 * std::max(1.0, std::max(std::fabs(a), std::fabs(b))); }

} // namespace

class TestCompare : public QObject {
    Q_OBJECT
private:
    QTemporaryDir dir_;
    QString before_, after_, kb_;
    PipelineResult beforeRun_;          // what the Document would hold for BEFORE
    std::set<int64_t> accepted_, notAccepted_;

    std::shared_ptr<const CompareOutput> runJob(CompareJob& job, const QStringList& afterPaths)
    {
        QSignalSpy finished(&job, &CompareJob::finished);
        QSignalSpy failed(&job, &CompareJob::failed);
        job.start(beforeRun_.trace, std::make_shared<const AnalysisResult>(beforeRun_.analysis), {before_},
                  afterPaths);
        [&] { QTRY_VERIFY_WITH_TIMEOUT(finished.count() + failed.count() > 0, 60000); }();
        if (failed.count()) {
            qWarning() << failed.at(0).at(0).toString();
            return nullptr;
        }
        return finished.at(0).at(0).value<std::shared_ptr<const CompareOutput>>();
    }

    WorkbenchSettings settingsWithKb(const QString& kb) const
    {
        WorkbenchSettings s;
        s.kbPath = kb;
        return s;
    }

    QJsonObject cliJson(const QStringList& extra) { return cliJson(before_, after_, extra); }
    static QJsonObject cliJson(const QString& before, const QString& after, const QStringList& extra)
    {
        QProcess p;
        p.start(QStringLiteral(SIGHTLINE_CLI),
                QStringList{QStringLiteral("compare"), before, after, QStringLiteral("--format"),
                            QStringLiteral("json")} +
                    extra);
        if (!p.waitForFinished(120000) || p.exitCode() != 0) {
            qWarning() << p.readAllStandardError();
            return {};
        }
        return QJsonDocument::fromJson(p.readAllStandardOutput()).object();
    }

    static bool sameRows(const QJsonArray& rows, const std::vector<DeltaRow>& mine)
    {
        if (size_t(rows.size()) != mine.size())
            return false;
        for (size_t i = 0; i < mine.size(); ++i) {
            const QJsonObject r = rows[qsizetype(i)].toObject();
            if (r.value(QStringLiteral("name")).toString().toStdString() != mine[i].name ||
                r.value(QStringLiteral("status")).toString().toStdString() != mine[i].status ||
                r.value(QStringLiteral("op_class")).toString().toStdString() != mine[i].op_class ||
                r.value(QStringLiteral("before_count")).toInteger() != mine[i].before_count ||
                r.value(QStringLiteral("after_count")).toInteger() != mine[i].after_count ||
                r.value(QStringLiteral("before_ns")).toInteger() != mine[i].before_ns ||
                r.value(QStringLiteral("after_ns")).toInteger() != mine[i].after_ns)
                return false;
        }
        return true;
    }

private slots:
    void initTestCase()
    {
        QVERIFY(dir_.isValid());
        SynthOptions b = testing::plantedDecode(/*pageableCopies=*/false);
        b.decode_steps = 12;
        SynthOptions a = testing::improvedDecode(b, 10);
        a.seed = 2;
        before_ = testing::writeSyntheticNsys(dir_.path(), QStringLiteral("before.sqlite"), b);
        after_ = testing::writeSyntheticNsys(dir_.path(), QStringLiteral("after.sqlite"), a);

        // BEFORE as the workbench analyses it (default settings = the CLI's defaults).
        beforeRun_ = run_pipeline({before_.toStdString()}, WorkbenchSettings{}.pipelineOptions());
        QVERIFY(!beforeRun_.diagnosis.eval.findings.empty());

        // A knowledge base that knows BEFORE with its findings; accept some suggestions, reject one, leave one.
        kb_ = dir_.filePath(QStringLiteral("kb.db"));
        KnowledgeBase kb(kb_.toStdString());
        RunRecord rec;
        rec.trace_path = before_.toStdString();
        rec.trace_hash = file_hash(before_.toStdString());
        rec.env_id = kb.upsert_environment(fingerprint_from_trace(*beforeRun_.trace));
        rec.metrics = headline_metrics(*beforeRun_.trace, beforeRun_.analysis);
        const int64_t run = kb.record_run(rec, operator_measurements(*beforeRun_.trace, beforeRun_.analysis),
                                          beforeRun_.diagnosis.eval.findings);
        const auto sug = kb.suggestions(run);
        QVERIFY2(sug.size() >= 3, "the planted host starvation and syncs give several suggestions");
        for (size_t i = 0; i < sug.size(); ++i) {
            if (i == 1) {
                kb.set_suggestion_state(sug[i].id, SuggestionState::Rejected);
                notAccepted_.insert(sug[i].id);
            } else if (i == 2) {
                notAccepted_.insert(sug[i].id);
            } else {
                kb.set_suggestion_state(sug[i].id, SuggestionState::Accepted, "tried it");
                accepted_.insert(sug[i].id);
            }
        }
    }

    void deltasMatchSumsFromTheTraces()
    {
        CompareJob job;
        job.setSettings(settingsWithKb(kb_));
        const auto out = runJob(job, {after_});
        QVERIFY(out);
        const Trace afterTrace = load_trace(after_.toStdString());
        const auto b = sumPerName(*beforeRun_.trace);
        const auto a = sumPerName(afterTrace);
        std::set<std::string> names;
        for (const auto& [k, v] : b)
            names.insert(k);
        for (const auto& [k, v] : a)
            names.insert(k);
        QCOMPARE(out->result.kernels.size(), names.size());
        int faster = 0;
        const CompareOptions o;
        for (const DeltaRow& r : out->result.kernels) {
            const Agg bb = b.count(r.name) ? b.at(r.name) : Agg{};
            const Agg aa = a.count(r.name) ? a.at(r.name) : Agg{};
            QCOMPARE(r.before_count, bb.count);
            QCOMPARE(r.after_count, aa.count);
            QCOMPARE(r.before_ns, bb.ns);
            QCOMPARE(r.after_ns, aa.ns);
            const double limit = std::max(o.rel_threshold * double(bb.ns), double(o.abs_threshold_ns));
            const std::string status = bb.count == 0 ? "added"
                                       : aa.count == 0 ? "removed"
                                       : double(aa.ns - bb.ns) > limit ? "slower"
                                       : double(aa.ns - bb.ns) < -limit ? "faster"
                                                                        : "unchanged";
            QCOMPARE(r.status, status);
            faster += r.status == "faster";
        }
        // 20 % faster kernels and fewer steps: most names got faster, none slower by that much.
        QVERIFY(faster > int(names.size()) / 2);
        // Largest change first.
        for (size_t i = 1; i < out->result.kernels.size(); ++i)
            QVERIFY(std::llabs(out->result.kernels[i - 1].delta_ns()) >= std::llabs(out->result.kernels[i].delta_ns()));
        // Class rows add up to the total kernel time of each side.
        int64_t sb = 0, sa = 0, cb = 0, ca = 0;
        for (const auto& [k, v] : b)
            sb += v.ns;
        for (const auto& [k, v] : a)
            sa += v.ns;
        for (const DeltaRow& r : out->result.classes) {
            cb += r.before_ns;
            ca += r.after_ns;
        }
        // The memcpy_memset class counts copies and memsets too (op_classes.h): add them to the kernel time.
        auto copyTime = [](const Trace& t) {
            int64_t ns = 0;
            for (size_t i = 0; i < t.memcpy.size(); ++i)
                ns += t.memcpy.end[i] - t.memcpy.start[i];
            for (size_t i = 0; i < t.memset.size(); ++i)
                ns += t.memset.end[i] - t.memset.start[i];
            return ns;
        };
        QVERIFY(copyTime(*beforeRun_.trace) > 0);
        QCOMPARE(cb, sb + copyTime(*beforeRun_.trace));
        QCOMPARE(ca, sa + copyTime(afterTrace));
        QCOMPARE(out->result.before_metrics.at("kernel_ns"), double(sb));
        QCOMPARE(out->result.after_metrics.at("kernel_ns"), double(sa));
        QCOMPARE(out->result.after_metrics.at("kernel_count"), double(afterTrace.kernels.size()));
        QCOMPARE(out->result.before_path, before_.toStdString());
        QCOMPARE(out->result.after_path, after_.toStdString());
    }

    void equalsCliJson()
    {
        CompareJob job;
        job.setSettings(settingsWithKb(kb_));
        const auto out = runJob(job, {after_});
        QVERIFY(out);
        const QJsonObject cli = cliJson({QStringLiteral("--kb"), kb_});
        QVERIFY(!cli.isEmpty());
        QCOMPARE(cli.value(QStringLiteral("schema")).toString(), QStringLiteral("sightline.compare/1"));

        const QJsonObject metrics = cli.value(QStringLiteral("metrics")).toObject();
        QCOMPARE(size_t(metrics.size()), out->result.before_metrics.size());
        for (const auto& [k, v] : out->result.before_metrics) {
            const QJsonObject m = metrics.value(QString::fromStdString(k)).toObject();
            QVERIFY2(near(m.value(QStringLiteral("before")).toDouble(), v), k.c_str());
            QVERIFY2(near(m.value(QStringLiteral("after")).toDouble(), out->result.after_metrics.at(k)), k.c_str());
        }
        QVERIFY(sameRows(cli.value(QStringLiteral("op_classes")).toArray(), out->result.classes));
        QVERIFY(sameRows(cli.value(QStringLiteral("kernels")).toArray(), out->result.kernels));

        const QJsonArray verdicts = cli.value(QStringLiteral("verdicts")).toArray();
        QCOMPARE(size_t(verdicts.size()), out->result.verdicts.size());
        QVERIFY(!verdicts.isEmpty());
        for (size_t i = 0; i < out->result.verdicts.size(); ++i) {
            const SuggestionVerdict& v = out->result.verdicts[i];
            const QJsonObject j = verdicts[qsizetype(i)].toObject();
            QCOMPARE(j.value(QStringLiteral("suggestion_id")).toInteger(), v.suggestion_id);
            QCOMPARE(j.value(QStringLiteral("suggestion")).toString().toStdString(), v.key);
            QCOMPARE(j.value(QStringLiteral("verdict")).toString().toStdString(), v.verdict);
            QCOMPARE(j.value(QStringLiteral("metric")).toString().toStdString(), v.metric);
            QVERIFY(near(j.value(QStringLiteral("delta")).toDouble(), v.delta));
            if (v.before)
                QVERIFY(near(j.value(QStringLiteral("before")).toDouble(), *v.before));
            if (v.after)
                QVERIFY(near(j.value(QStringLiteral("after")).toDouble(), *v.after));
        }
    }

    void verdictsOnlyForAcceptedSuggestions()
    {
        CompareJob job;
        job.setSettings(settingsWithKb(kb_));
        const auto out = runJob(job, {after_});
        QVERIFY(out);
        QVERIFY(out->beforeRun);
        QVERIFY(out->verdictNote.isEmpty());
        std::set<int64_t> judged;
        for (const auto& v : out->result.verdicts)
            judged.insert(v.suggestion_id);
        QVERIFY(judged == accepted_);
        for (int64_t id : notAccepted_)
            QVERIFY(!judged.count(id));
        // Host starvation and the per-step sync are gone in AFTER: at least one promise was kept.
        QVERIFY(std::any_of(out->result.verdicts.begin(), out->result.verdicts.end(),
                            [](const SuggestionVerdict& v) { return v.verdict == "verified"; }));
        // Comparing wrote nothing.
        KnowledgeBase kb(kb_.toStdString());
        QCOMPARE(kb.count("runs"), int64_t(1));
        QCOMPARE(kb.count("verifications"), int64_t(0));
    }

    void noKnowledgeBaseNoVerdicts()
    {
        const QString missing = dir_.filePath(QStringLiteral("nowhere/kb.db"));
        CompareJob job;
        job.setSettings(settingsWithKb(missing));
        const auto out = runJob(job, {after_});
        QVERIFY(out);
        QVERIFY(out->result.verdicts.empty());
        QVERIFY(out->verdictNote.contains(missing));
        QVERIFY(!QFile::exists(missing));   // looking did not create one
        QVERIFY(!out->result.kernels.empty());

        // A knowledge base that does not know BEFORE.
        const QString other = dir_.filePath(QStringLiteral("other.db"));
        { KnowledgeBase kb(other.toStdString()); }
        job.setSettings(settingsWithKb(other));
        const auto out2 = runJob(job, {after_});
        QVERIFY(out2);
        QVERIFY(out2->result.verdicts.empty());
        QVERIFY(!out2->beforeRun);
        QVERIFY(!out2->verdictNote.isEmpty());
    }

    void recordEqualsCliRecord()
    {
        const QString kbGui = dir_.filePath(QStringLiteral("kb-gui.db"));
        const QString kbCli = dir_.filePath(QStringLiteral("kb-cli.db"));
        {
            // Copy the knowledge base (checkpointed: a fresh open/close leaves everything in the main file).
            KnowledgeBase kb(kb_.toStdString());
        }
        QVERIFY(QFile::copy(kb_, kbGui));
        QVERIFY(QFile::copy(kb_, kbCli));

        CompareJob job;
        job.setSettings(settingsWithKb(kbGui));
        const auto out = runJob(job, {after_});
        QVERIFY(out);
        QSignalSpy recorded(&job, &CompareJob::recorded);
        QSignalSpy recordFailed(&job, &CompareJob::recordFailed);
        job.recordVerdicts();
        QTRY_VERIFY_WITH_TIMEOUT(recorded.count() + recordFailed.count() > 0, 30000);
        QVERIFY2(recordFailed.isEmpty(), recordFailed.isEmpty() ? "" : qPrintable(recordFailed.at(0).at(0).toString()));
        QCOMPARE(recorded.at(0).at(1).toString(), kbGui);

        QVERIFY(!cliJson({QStringLiteral("--kb"), kbCli, QStringLiteral("--record")}).isEmpty());

        KnowledgeBase g(kbGui.toStdString()), c(kbCli.toStdString());
        QCOMPARE(g.count("runs"), int64_t(2));   // BEFORE was known; AFTER added
        QCOMPARE(g.count("runs"), c.count("runs"));
        const auto gv = g.verifications(), cv = c.verifications();
        QCOMPARE(gv.size(), cv.size());
        QCOMPARE(recorded.at(0).at(0).toInt(), int(gv.size()));
        QVERIFY(!gv.empty());
        for (size_t i = 0; i < gv.size(); ++i) {
            QCOMPARE(gv[i].suggestion_id, cv[i].suggestion_id);
            QCOMPARE(gv[i].suggestion_key, cv[i].suggestion_key);
            QCOMPARE(gv[i].before_run, cv[i].before_run);
            QCOMPARE(gv[i].after_run, cv[i].after_run);
            QCOMPARE(gv[i].metric, cv[i].metric);
            QVERIFY(near(gv[i].before_value, cv[i].before_value));
            QVERIFY(near(gv[i].after_value, cv[i].after_value));
            QVERIFY(near(gv[i].delta, cv[i].delta));
            QCOMPARE(gv[i].verdict, cv[i].verdict);
        }
        const auto gr = g.runs(), cr = c.runs();
        QCOMPARE(gr.back().trace_hash, cr.back().trace_hash);
        QCOMPARE(gr.back().metrics.size(), cr.back().metrics.size());
        for (const auto& [k, v] : gr.back().metrics)
            QVERIFY2(near(v, cr.back().metrics.at(k)), k.c_str());
    }

    void modelsShowTheResult()
    {
        CompareJob job;
        job.setSettings(settingsWithKb(kb_));
        const auto out = runJob(job, {after_});
        QVERIFY(out);
        const std::shared_ptr<const CompareResult> result(out, &out->result);

        CompareMetricsModel metrics;
        CompareDeltaModel classes(CompareDeltaModel::Rows::Classes), kernels(CompareDeltaModel::Rows::Kernels);
        CompareVerdictModel verdicts;
        QAbstractItemModelTester t1(&metrics, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester t2(&classes, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester t3(&kernels, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester t4(&verdicts, QAbstractItemModelTester::FailureReportingMode::QtTest);
        for (auto* m : std::initializer_list<QAbstractItemModel*>{&metrics, &classes, &kernels, &verdicts})
            QCOMPARE(m->rowCount(), 0);
        metrics.setResult(result);
        classes.setResult(result);
        kernels.setResult(result);
        verdicts.setResult(result);

        // Headline: one row per metric, wall time first, the raw values behind the text.
        QCOMPARE(size_t(metrics.rowCount()), out->result.before_metrics.size());
        QCOMPARE(metrics.keys().front(), std::string("wall_ns"));
        const double wb = out->result.before_metrics.at("wall_ns"), wa = out->result.after_metrics.at("wall_ns");
        QCOMPARE(metrics.index(0, CompareMetricsModel::Before).data(CompareMetricsModel::SortRole).toDouble(), wb);
        QCOMPARE(metrics.index(0, CompareMetricsModel::Delta).data(CompareMetricsModel::SortRole).toDouble(), wa - wb);
        QCOMPARE(metrics.index(0, CompareMetricsModel::Before).data().toString(), formatDuration(int64_t(wb)));
        QVERIFY(wa < wb);
        // Faster wall time is "better": coloured as such.
        QCOMPARE(metrics.index(0, CompareMetricsModel::Change).data(Qt::ForegroundRole).value<QColor>(),
                 compareStatusColor("better", false));
        QVERIFY(metrics.index(0, CompareMetricsModel::Change).data().toString().startsWith(QStringLiteral("−")));
        // Fractions change by percentage points.
        const auto util = std::find(metrics.keys().begin(), metrics.keys().end(), std::string("utilization"));
        QVERIFY(util != metrics.keys().end());
        const int ur = int(util - metrics.keys().begin());
        QVERIFY2(metrics.index(ur, CompareMetricsModel::Delta).data().toString().endsWith(QStringLiteral(" pp")),
                 qPrintable(metrics.index(ur, CompareMetricsModel::Delta).data().toString()));

        QCOMPARE(size_t(kernels.rowCount()), out->result.kernels.size());
        QCOMPARE(size_t(classes.rowCount()), out->result.classes.size());
        for (int r = 0; r < kernels.rowCount(); ++r) {
            const DeltaRow& d = out->result.kernels[size_t(r)];
            QCOMPARE(kernels.index(r, CompareDeltaModel::Name).data().toString().toStdString(), d.name);
            QCOMPARE(kernels.index(r, CompareDeltaModel::BeforeTime).data(CompareDeltaModel::SortRole).toLongLong(),
                     d.before_ns);
            QCOMPARE(kernels.index(r, CompareDeltaModel::AfterTime).data().toString(), formatDuration(d.after_ns));
            QCOMPARE(kernels.index(r, CompareDeltaModel::Delta).data(CompareDeltaModel::SortRole).toLongLong(),
                     d.delta_ns());
            QCOMPARE(kernels.index(r, CompareDeltaModel::Status).data(CompareDeltaModel::StatusRole).toString()
                         .toStdString(), d.status);
            const QVariant fg = kernels.index(r, CompareDeltaModel::Status).data(Qt::ForegroundRole);
            QCOMPARE(fg.isValid(), d.status != "unchanged");
        }
        QCOMPARE(size_t(verdicts.rowCount()), out->result.verdicts.size());
        for (int r = 0; r < verdicts.rowCount(); ++r)
            QCOMPARE(verdicts.index(r, CompareVerdictModel::Verdict).data(CompareVerdictModel::SortRole).toString()
                         .toStdString(), out->result.verdicts[size_t(r)].verdict);

        metrics.setResult(nullptr);
        kernels.setResult(nullptr);
        QCOMPARE(metrics.rowCount(), 0);
        QCOMPARE(kernels.rowCount(), 0);
    }

    void statusColoursReadableInBothThemes()
    {
        for (bool dark : {false, true}) {
            const QColor base = dark ? QColor(0x1e, 0x1f, 0x23) : QColor(Qt::white);
            for (const char* s : {"faster", "slower", "added", "removed", "verified", "failed"}) {
                const QColor c = compareStatusColor(s, dark);
                QVERIFY(c.isValid());
                auto lum = [](const QColor& x) {
                    auto l = [](double v) { return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4); };
                    return 0.2126 * l(x.redF()) + 0.7152 * l(x.greenF()) + 0.0722 * l(x.blueF());
                };
                const double la = lum(c), lb = lum(base);
                const double ratio = (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
                QVERIFY2(ratio >= 4.5, qPrintable(QStringLiteral("%1 %2: %3").arg(QLatin1String(s)).arg(dark).arg(ratio)));
            }
            QVERIFY(!compareStatusColor("unchanged", dark).isValid());
        }
    }

    void cancelAndSupersede()
    {
        CompareJob job;
        job.setSettings(settingsWithKb(kb_));
        std::atomic<int> calls{0};
        job.setLoader([&](const std::vector<std::string>& p, const LoadControl& c) {
            ++calls;
            for (int i = 0; i < 2000; ++i) {
                c.check();
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
            }
            return load_traces(p, c);
        });
        QSignalSpy cancelled(&job, &CompareJob::cancelled);
        QSignalSpy finished(&job, &CompareJob::finished);
        job.start(beforeRun_.trace, std::make_shared<const AnalysisResult>(beforeRun_.analysis), {before_}, {after_});
        QVERIFY(job.isRunning());
        QTRY_VERIFY(calls.load() == 1);
        job.cancel();
        QTRY_COMPARE(cancelled.count(), 1);
        QVERIFY(!job.isRunning());
        QCOMPARE(finished.count(), 0);

        // A second start supersedes the first: only the newer job's result arrives.
        job.setLoader(&load_traces);
        job.start(beforeRun_.trace, std::make_shared<const AnalysisResult>(beforeRun_.analysis), {before_}, {before_});
        job.start(beforeRun_.trace, std::make_shared<const AnalysisResult>(beforeRun_.analysis), {before_}, {after_});
        QTRY_VERIFY_WITH_TIMEOUT(finished.count() >= 1, 60000);
        job.waitForDone();
        QTest::qWait(50);
        QCOMPARE(finished.count(), 1);
        const auto out = finished.at(0).at(0).value<std::shared_ptr<const CompareOutput>>();
        QCOMPARE(out->afterPaths, QStringList{after_});
        QCOMPARE(job.output(), out);
    }

    void realTracesEqualCli()
    {
        // Two unrelated real nsys exports: kernels that exist on one side only are "added" / "removed".
        const QString data = qEnvironmentVariable("SIGHTLINE_SHARED_DATA");
        const QString b = data + QStringLiteral("/nsys/dlprof_pytorch_wrelu_nsys_profile.sqlite");
        const QString a = data + QStringLiteral("/nsys/pipit_saxpy-mpi-cuda_nsys_perlmutter0.sqlite");
        if (data.isEmpty() || !QFile::exists(b) || !QFile::exists(a))
            QSKIP("../shared/data is not available");
        const PipelineResult before = run_pipeline({b.toStdString()}, WorkbenchSettings{}.pipelineOptions());
        CompareJob job;
        job.setSettings(settingsWithKb(dir_.filePath(QStringLiteral("none.db"))));
        QSignalSpy finished(&job, &CompareJob::finished);
        QSignalSpy failed(&job, &CompareJob::failed);
        job.start(before.trace, std::make_shared<const AnalysisResult>(before.analysis), {b}, {a});
        QTRY_VERIFY_WITH_TIMEOUT(finished.count() + failed.count() > 0, 120000);
        QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.at(0).at(0).toString()));
        const auto out = finished.at(0).at(0).value<std::shared_ptr<const CompareOutput>>();
        const QJsonObject cli = cliJson(b, a, {});
        QVERIFY(!cli.isEmpty());
        QVERIFY(sameRows(cli.value(QStringLiteral("kernels")).toArray(), out->result.kernels));
        QVERIFY(sameRows(cli.value(QStringLiteral("op_classes")).toArray(), out->result.classes));
        const QJsonObject metrics = cli.value(QStringLiteral("metrics")).toObject();
        for (const auto& [k, v] : out->result.after_metrics)
            QVERIFY2(near(metrics.value(QString::fromStdString(k)).toObject().value(QStringLiteral("after")).toDouble(), v),
                     k.c_str());
        bool added = false, removed = false;
        for (const DeltaRow& r : out->result.kernels) {
            added = added || r.status == "added";
            removed = removed || r.status == "removed";
        }
        QVERIFY(added && removed);
        // The independent sums hold on real files too.
        const auto sb = sumPerName(*before.trace);
        for (const DeltaRow& r : out->result.kernels)
            if (r.before_count > 0) {
                QCOMPARE(r.before_ns, sb.at(r.name).ns);
                QCOMPARE(r.before_count, sb.at(r.name).count);
            }
        CompareDeltaModel kernels(CompareDeltaModel::Rows::Kernels);
        QAbstractItemModelTester tester(&kernels, QAbstractItemModelTester::FailureReportingMode::QtTest);
        kernels.setResult(std::shared_ptr<const CompareResult>(out, &out->result));
        QCOMPARE(size_t(kernels.rowCount()), out->result.kernels.size());
    }

    void badAfterFails()
    {
        CompareJob job;
        QSignalSpy failed(&job, &CompareJob::failed);
        const QString missing = dir_.filePath(QStringLiteral("missing.sqlite"));
        job.start(beforeRun_.trace, std::make_shared<const AnalysisResult>(beforeRun_.analysis), {before_}, {missing});
        QTRY_COMPARE(failed.count(), 1);
        QVERIFY2(failed.at(0).at(0).toString().contains(QStringLiteral("missing.sqlite")),
                 qPrintable(failed.at(0).at(0).toString()));
        // Only a model config: not a trace.
        const QString config = qEnvironmentVariable("SIGHTLINE_SOURCE_DIR") +
                               QStringLiteral("/tests/data/models/llama_tiny_config.json");
        job.start(beforeRun_.trace, std::make_shared<const AnalysisResult>(beforeRun_.analysis), {before_}, {config});
        QTRY_COMPARE(failed.count(), 2);
        // No analysed BEFORE.
        job.start(nullptr, nullptr, {}, {after_});
        QTRY_COMPARE(failed.count(), 3);
        QVERIFY(!job.output());
        QSignalSpy recordFailed(&job, &CompareJob::recordFailed);
        job.recordVerdicts();
        QCOMPARE(recordFailed.count(), 1);
    }
};

QTEST_MAIN(TestCompare)
#include "tst_compare.moc"
