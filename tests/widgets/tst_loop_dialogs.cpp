// File › Profile… and Analysis › Deep-dive Focus Set… with fake `nsys` / `ncu` on PATH (tests/cli/fake_tools: shell
// scripts that check the arguments Sightline passes, run the profiled command and hand back prepared exports):
// dialog → run → the log shows the exact command and the command's own output → the result opens in the workbench
// (JobRunner loads it); Cancel mid-run stops the slow nsys (its pid is gone) and keeps the partial report; a
// missing tool is one clear message in the dialog; the deep-dive shows the ncu command (with the chosen --set) before
// it runs and hands back the trace and the joined CSV.
#include <QAbstractButton>
#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>

#include <cerrno>
#include <csignal>

#include "analysis/io/nsys_writer.h"
#include "analysis/io/synthetic.h"
#include "model/job_runner.h"
#include "model/loop_job.h"
#include "model/workbench_settings.h"
#include "widgets/deep_dive_dialog.h"
#include "widgets/profile_dialog.h"

using namespace sl;

namespace {

QString sourceDir() { return qEnvironmentVariable("SIGHTLINE_SOURCE_DIR", QStringLiteral(".")); }

template <typename T>
T* child(QWidget& w, const char* name)
{
    T* c = w.findChild<T*>(QLatin1String(name));
    if (!c)
        qFatal("no child %s", name);
    return c;
}

QString readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

// Fakes first on PATH (or nothing but an empty folder, for a missing tool), a state folder for their log.
struct FakeEnv {
    QTemporaryDir dir;
    QByteArray oldPath = qgetenv("PATH");
    QString state;
    explicit FakeEnv(bool withFakes = true)
    {
        state = dir.filePath(QStringLiteral("fake-state"));
        QDir().mkpath(state);
        const QString fakes = sourceDir() + QStringLiteral("/tests/cli/fake_tools");
        if (withFakes)
            qputenv("PATH", (fakes + QLatin1Char(':')).toUtf8() + oldPath);
        else
            qputenv("PATH", dir.filePath(QStringLiteral("empty-bin")).toUtf8() + ":/usr/bin:/bin");
        qputenv("FAKE_STATE", state.toUtf8());
        for (const char* v : {"FAKE_NSYS_FAIL", "FAKE_NSYS_SLEEP", "FAKE_NSYS_SLEEP_RUN", "FAKE_NSYS_VERSION",
                              "FAKE_NCU_VERSION", "FAKE_SQLITES", "FAKE_NCU_CSV"})
            qunsetenv(v);
    }
    ~FakeEnv() { qputenv("PATH", oldPath); }
    // A generated decode trace exported as nsys SQLite.
    QString trace(const QString& name, uint64_t seed) const
    {
        SynthOptions o;
        o.seed = seed;
        o.decode_steps = 12;
        o.layers = 4;
        o.prefill_steps = 1;
        const QString p = dir.filePath(name);
        write_nsys_sqlite(make_synthetic_trace(o), p.toStdString());
        return p;
    }
};

} // namespace

class TestLoopDialogs : public QObject {
    Q_OBJECT
private slots:
    void profileRunsLogsAndOpensTheResult()
    {
        FakeEnv env;
        const QString t1 = env.trace(QStringLiteral("a.sqlite"), 1), t2 = env.trace(QStringLiteral("b.sqlite"), 2);
        qputenv("FAKE_SQLITES", (t1 + QLatin1Char(' ') + t2).toUtf8());
        const QString kb = env.dir.filePath(QStringLiteral("kb.db"));
        const QString out = env.dir.filePath(QStringLiteral("profile"));
        ProfileDialog d(kb);
        child<QLineEdit>(d, "command")->setText(QStringLiteral("sh -c 'echo app-under-nsys $SL_TEST_VAR'"));
        child<QPlainTextEdit>(d, "environment")->setPlainText(QStringLiteral("SL_TEST_VAR=from-the-dialog\n"));
        child<QSpinBox>(d, "runs")->setValue(2);
        child<QLineEdit>(d, "nsysArgs")->setText(QStringLiteral("--delay=1"));
        child<QLineEdit>(d, "outDir")->setText(out);
        QSignalSpy runs(d.job(), &LoopJob::runStarted);
        QSignalSpy result(&d, &ProfileDialog::resultReady);
        // The workbench opens what the dialog hands back.
        JobRunner runner;
        QSignalSpy loaded(&runner, &JobRunner::traceLoaded);
        connect(&d, &ProfileDialog::resultReady, &runner, [&runner](const QStringList& p) { runner.open(p); });

        QTest::mouseClick(child<QPushButton>(d, "run"), Qt::LeftButton);
        QVERIFY(d.job()->isRunning());
        QTRY_COMPARE_WITH_TIMEOUT(result.count(), 1, 60000);
        QTRY_VERIFY_WITH_TIMEOUT(!d.job()->isRunning(), 10000);
        QCOMPARE(runs.count(), 2);
        QCOMPARE(runs.at(1).at(0).toInt(), 2);
        QCOMPARE(runs.at(1).at(1).toInt(), 2);

        const QString log = d.logText();
        const QString nsys = sourceDir() + QStringLiteral("/tests/cli/fake_tools/nsys");
        // The exact command lines, Sightline's flags, the user's flag after them, the command's own output with the
        // environment the dialog gave it.
        QVERIFY2(log.contains(QStringLiteral("$ %1 profile --trace=cuda,nvtx,osrt --cuda-graph-trace=node").arg(nsys)), qPrintable(log));
        QVERIFY2(log.contains(QStringLiteral("--output=%1/run2 --delay=1 sh -c").arg(out)), qPrintable(log));
        QVERIFY2(log.contains(QStringLiteral("[nsys] app-under-nsys from-the-dialog")), qPrintable(log));
        QVERIFY2(log.contains(QStringLiteral("$ %1 export --type=sqlite").arg(nsys)), qPrintable(log));
        QVERIFY(log.contains(QStringLiteral("== run 2 of 2 ==")));
        QVERIFY2(d.statusText().contains(out + QStringLiteral("/profile.json")), qPrintable(d.statusText()));
        QVERIFY(QFile::exists(out + QStringLiteral("/profile.json")));
        QVERIFY(QFile::exists(kb));

        const QString rep = result.at(0).at(0).toStringList().value(0);
        QVERIFY2(rep == out + QStringLiteral("/run1.sqlite") || rep == out + QStringLiteral("/run2.sqlite"), qPrintable(rep));
        QVERIFY(readAll(out + QStringLiteral("/profile.json")).contains(QStringLiteral("\"representative\": \"%1\"").arg(rep)));
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 30000);
        QCOMPARE(loaded.at(0).at(0).toStringList(), QStringList{rep});
        runner.waitForDone();
        // nsys ran twice (profile + export each run), as the fake's log says.
        QCOMPARE(readAll(env.state + QStringLiteral("/args.log")).count(QStringLiteral("nsys profile ")), 2);
    }

    void profileWritesWhatTheCliWrites()
    {
        // One run of the same prepared trace through the GUI's Profile… and through `sightline-cli profile`: the same
        // files in the output folder, with the same numbers (the folder's path and the report's timestamp aside).
        FakeEnv env;
        qputenv("FAKE_SQLITES", env.trace(QStringLiteral("a.sqlite"), 5).toUtf8());
        const QString gui = env.dir.filePath(QStringLiteral("gui")), cli = env.dir.filePath(QStringLiteral("cli"));
        ProfileDialog d(QString{});
        d.setSettings(WorkbenchSettings{});   // the Preferences' defaults are the CLI's
        child<QLineEdit>(d, "command")->setText(QStringLiteral("true"));
        child<QSpinBox>(d, "runs")->setValue(1);
        child<QLineEdit>(d, "outDir")->setText(gui);
        child<QAbstractButton>(d, "record")->setChecked(false);
        QSignalSpy result(&d, &ProfileDialog::resultReady);
        d.start();
        QTRY_COMPARE_WITH_TIMEOUT(result.count(), 1, 60000);
        QTRY_VERIFY_WITH_TIMEOUT(!d.job()->isRunning(), 10000);
        QVERIFY2(d.logText().contains(QStringLiteral("report.md")), qPrintable(d.logText()));

        QProcess p;
        p.setProcessEnvironment(QProcessEnvironment::systemEnvironment());   // the fakes on PATH, FAKE_*
        p.setProcessChannelMode(QProcess::MergedChannels);
        p.start(QStringLiteral(SIGHTLINE_CLI), {QStringLiteral("profile"), QStringLiteral("--runs"), QStringLiteral("1"),
                                                QStringLiteral("--no-record"), QStringLiteral("--out"), cli,
                                                QStringLiteral("--"), QStringLiteral("true")});
        QVERIFY(p.waitForFinished(180000));
        const QString cliLog = QString::fromUtf8(p.readAll());
        QVERIFY2(p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0, qPrintable(cliLog));

        const auto normalised = [&](const QString& file, bool fromGui) {
            QString text = readAll((fromGui ? gui : cli) + QLatin1Char('/') + file);
            if (fromGui)
                text.replace(gui, cli);
            QStringList lines = text.split(QLatin1Char('\n'));
            // The report's "*<run id> · <generated at> · Sightline <version>*" line and its "Generated at" line carry the
            // second it was written.
            lines.removeIf([](const QString& l) {
                return (l.startsWith(QLatin1Char('*')) && l.contains(QStringLiteral(" · Sightline "))) ||
                       l.contains(QStringLiteral("**Generated at:**"));
            });
            return lines;
        };
        for (const QString& file : {QStringLiteral("run1.analysis.json"), QStringLiteral("report.md")}) {
            const QStringList g = normalised(file, true), c = normalised(file, false);
            QVERIFY2(c.size() > 20, qPrintable(file + QStringLiteral(" is missing or short in the CLI's folder")));
            for (qsizetype i = 0; i < std::max(g.size(), c.size()); ++i)
                QVERIFY2(g.value(i) == c.value(i),
                         qPrintable(QStringLiteral("%1 line %2\n  GUI: %3\n  CLI: %4").arg(file).arg(i + 1).arg(g.value(i), c.value(i))));
        }
        // The manifest names the report, as the CLI's does.
        QVERIFY(readAll(gui + QStringLiteral("/profile.json")).contains(QStringLiteral("\"report\": \"%1/report.md\"").arg(gui)));
        // The charts beside the report, the same set.
        const QStringList pngs = QDir(gui + QStringLiteral("/report_files")).entryList({QStringLiteral("*.png")});
        QVERIFY(!pngs.isEmpty());
        QCOMPARE(pngs, QDir(cli + QStringLiteral("/report_files")).entryList({QStringLiteral("*.png")}));
    }

    void cancelStopsTheRunningToolAndKeepsWhatIsDone()
    {
        FakeEnv env;
        qputenv("FAKE_SQLITES", env.trace(QStringLiteral("a.sqlite"), 1).toUtf8());
        qputenv("FAKE_NSYS_SLEEP", "60");
        qputenv("FAKE_NSYS_SLEEP_RUN", "2");   // the first run finishes, the second one hangs
        const QString out = env.dir.filePath(QStringLiteral("profile"));
        ProfileDialog d(QString{});
        child<QLineEdit>(d, "command")->setText(QStringLiteral("true"));
        child<QSpinBox>(d, "runs")->setValue(3);
        child<QLineEdit>(d, "outDir")->setText(out);
        QCOMPARE(child<QAbstractButton>(d, "record")->isChecked(), true);
        child<QAbstractButton>(d, "record")->setChecked(false);   // no knowledge base outside the test's folder
        QSignalSpy result(&d, &ProfileDialog::resultReady);
        d.show();
        d.start();
        const QString pidFile = env.state + QStringLiteral("/nsys.pid");
        QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(pidFile) && !readAll(pidFile).trimmed().isEmpty(), 60000);
        const pid_t pid = pid_t(readAll(pidFile).trimmed().toLongLong());
        QVERIFY(pid > 0);
        QCOMPARE(::kill(pid, 0), 0);   // the slow nsys is running
        QCOMPARE(child<QPushButton>(d, "cancel")->text(), ProfileDialog::tr("Cancel"));
        QTest::mouseClick(child<QPushButton>(d, "cancel"), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(!d.job()->isRunning(), 20000);
        QVERIFY(d.isVisible());   // Cancel during a run stops the run, not the dialog
        errno = 0;
        QCOMPARE(::kill(pid, 0), -1);
        QCOMPARE(errno, ESRCH);
        QVERIFY2(d.logText().contains(QStringLiteral("nsys profile was stopped by Cancel")), qPrintable(d.logText()));
        QVERIFY2(d.statusText().contains(QStringLiteral("Cancelled")), qPrintable(d.statusText()));
        // The finished run is kept and opened; the partial report of the stopped one is kept too.
        QCOMPARE(result.count(), 1);
        QCOMPARE(result.at(0).at(0).toStringList(), QStringList{out + QStringLiteral("/run1.sqlite")});
        QVERIFY(QFile::exists(out + QStringLiteral("/run2.nsys-rep")));
        QVERIFY(!QFile::exists(out + QStringLiteral("/run3.nsys-rep")));
        QVERIFY(readAll(out + QStringLiteral("/profile.json")).contains(QStringLiteral("\"interrupted\": true")));
    }

    void missingToolIsOneClearMessage()
    {
        FakeEnv env(false);
        ProfileDialog d(QString{});
        child<QLineEdit>(d, "command")->setText(QStringLiteral("true"));
        child<QLineEdit>(d, "outDir")->setText(env.dir.filePath(QStringLiteral("profile")));
        QSignalSpy result(&d, &ProfileDialog::resultReady);
        QSignalSpy failed(d.job(), &LoopJob::failed);
        d.start();
        QTRY_VERIFY_WITH_TIMEOUT(!d.job()->isRunning(), 20000);
        QCOMPARE(failed.count(), 1);
        QCOMPARE(result.count(), 0);
        QVERIFY2(d.statusText().contains(QStringLiteral("nsys")), qPrintable(d.statusText()));
        QVERIFY2(d.statusText().contains(QStringLiteral("https://developer.nvidia.com/nsight-systems")),
                 qPrintable(d.statusText()));
        QVERIFY(child<QPushButton>(d, "run")->isEnabled());   // the user can fix PATH and try again
        // An empty command never starts anything.
        child<QLineEdit>(d, "command")->clear();
        d.start();
        QVERIFY(!d.job()->isRunning());
        QVERIFY(!d.statusText().isEmpty());
    }

    void deepDiveShowsTheNcuCommandThenRunsAndOpens()
    {
        FakeEnv env;
        const QString trace = env.trace(QStringLiteral("t.sqlite"), 3);
        QFile::copy(sourceDir() + QStringLiteral("/tests/data/ncu/raw_base_units.csv"), env.dir.filePath(QStringLiteral("ncu.csv")));
        qputenv("FAKE_NCU_CSV", env.dir.filePath(QStringLiteral("ncu.csv")).toUtf8());
        DeepDiveDialog d(trace, PipelineOptions{});
        QTRY_VERIFY_WITH_TIMEOUT(d.planned(), 30000);
        QTRY_VERIFY_WITH_TIMEOUT(!d.job()->isRunning(), 10000);
        const QString ncu = sourceDir() + QStringLiteral("/tests/cli/fake_tools/ncu");
        QVERIFY2(d.commandPreview().startsWith(ncu + QStringLiteral(" --set roofline -k 'regex:^(.*::)?(")),
                 qPrintable(d.commandPreview()));
        QVERIFY(!child<QPushButton>(d, "run")->isEnabled());   // no command yet
        child<QComboBox>(d, "set")->setCurrentIndex(1);
        child<QLineEdit>(d, "command")->setText(QStringLiteral("sh -c 'echo app-under-ncu'"));
        QVERIFY2(d.commandPreview().contains(QStringLiteral(" --set full -k ")), qPrintable(d.commandPreview()));
        QVERIFY2(d.commandPreview().contains(QStringLiteral("--export ") + env.dir.filePath(QStringLiteral("deep_dive")) +
                                             QStringLiteral(" sh -c 'echo app-under-ncu'")),
                 qPrintable(d.commandPreview()));
        QVERIFY(child<QPushButton>(d, "run")->isEnabled());
        const QString shown = d.commandPreview().section(QLatin1Char('\n'), 0, 0);

        QSignalSpy result(&d, &DeepDiveDialog::resultReady);
        QTest::mouseClick(child<QPushButton>(d, "run"), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(result.count(), 1, 60000);
        const QString csv = env.dir.filePath(QStringLiteral("deep_dive.csv"));
        QCOMPARE(result.at(0).at(0).toStringList(), (QStringList{trace, csv}));
        QVERIFY(QFile::exists(csv));
        QVERIFY(QFile::exists(env.dir.filePath(QStringLiteral("deep_dive.analysis.json"))));
        // What ran is what was shown.
        QVERIFY2(d.logText().contains(QStringLiteral("$ ") + shown), qPrintable(d.logText()));
        QVERIFY2(d.logText().contains(QStringLiteral("[ncu] app-under-ncu")), qPrintable(d.logText()));
        QVERIFY2(d.statusText().contains(QStringLiteral("ncu launch(es) in ") + csv), qPrintable(d.statusText()));
        QTRY_VERIFY_WITH_TIMEOUT(!d.job()->isRunning(), 10000);
        // The workbench sorts the pair into a trace and its ncu file.
        const DocumentInputs in = JobRunner::classify(result.at(0).at(0).toStringList());
        QCOMPARE(in.traces, QStringList{trace});
        QCOMPARE(in.ncu, csv);
    }

    void deepDiveWithoutNcuSaysSoAndCannotRun()
    {
        FakeEnv env(false);
        const QString trace = env.trace(QStringLiteral("t.sqlite"), 4);
        DeepDiveDialog d(trace, PipelineOptions{});
        QTRY_VERIFY_WITH_TIMEOUT(d.planned(), 30000);
        QTRY_VERIFY_WITH_TIMEOUT(!d.job()->isRunning(), 10000);
        child<QLineEdit>(d, "command")->setText(QStringLiteral("true"));
        QVERIFY(!child<QPushButton>(d, "run")->isEnabled());
        QVERIFY2(d.statusText().contains(QStringLiteral("https://developer.nvidia.com/nsight-compute")),
                 qPrintable(d.statusText()));
        QVERIFY(d.commandPreview().startsWith(QStringLiteral("ncu --set roofline")));   // still shown
    }

    void deepDiveOfABadFileFailsInTheDialog()
    {
        FakeEnv env;
        const QString bad = env.dir.filePath(QStringLiteral("bad.sqlite"));
        QFile f(bad);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("not a trace");
        f.close();
        DeepDiveDialog d(bad, PipelineOptions{});
        QTRY_VERIFY_WITH_TIMEOUT(!d.job()->isRunning(), 30000);
        QVERIFY(!d.planned());
        QVERIFY(!d.statusText().isEmpty());
        QVERIFY(!child<QPushButton>(d, "run")->isEnabled());
    }
};

QTEST_MAIN(TestLoopDialogs)
#include "tst_loop_dialogs.moc"
