// The stage a long job reports, in the interface's language (model/stage_text.h): every stage the readers, the
// analyses, the pipeline and the jobs report while a real trace loads (an nsys export and a PyTorch profiler trace,
// read directly and through the workbench's JobRunner) has a label, and with the shipped zh_CN catalogue every label
// reads in Chinese (before: the status showed "正在比较…（kernels）").
#include <QFile>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTest>
#include <QTranslator>
#include <set>

#include "analysis/io/load.h"
#include "analysis/pipeline.h"
#include "model/stage_text.h"
#include "tests/support/qt_fixtures.h"

using namespace sl;

namespace {

// The stages reported while `path` loads and runs through the pipeline (as the CLI runs it) and through a JobRunner
// wired to a Document (as the workbench runs it).
std::set<QString> stagesOf(const QString& path)
{
    std::set<QString> seen;
    LoadControl control;
    control.progress = [&](double, std::string_view stage) {
        seen.insert(QString::fromUtf8(stage.data(), static_cast<qsizetype>(stage.size())));
    };
    run_pipeline({path.toStdString()}, PipelineOptions{}, control);
    JobRunner runner;
    Document doc;
    testing::wireRunner(runner, doc);
    QObject::connect(&runner, &JobRunner::progress, [&](double, const QString& stage) { seen.insert(stage); });
    QSignalSpy finished(&runner, &JobRunner::finished);
    runner.open({path});
    if (!finished.wait(60'000) && finished.isEmpty())
        qFatal("the job did not finish");
    seen.erase(QString());
    return seen;
}

std::set<QString> stagesOfBoth()
{
    std::set<QString> all = stagesOf(testing::writeSyntheticNsys(testing::scratchDir(QStringLiteral("stage_text")),
                                                                 QStringLiteral("decode.sqlite"),
                                                                 synth_preset("decode")));
    for (const QString& s : stagesOf(qEnvironmentVariable("SIGHTLINE_SOURCE_DIR", QStringLiteral(".")) +
                                     QStringLiteral("/tests/data/device/decode-eager.pt.trace.json.gz")))
        all.insert(s);
    return all;
}

} // namespace

class TestStageText : public QObject {
    Q_OBJECT
private slots:
    void everyStageAJobReportsHasALabel()
    {
        const std::set<QString> stages = stagesOfBoth();
        // The nsys reader's tables (those read on the calling thread), both readers' linking, the analyses and the
        // workbench's own steps were all seen.
        for (const char* id : {"opening", "strings", "linking", "operator classes", "phases", "idle", "timeline",
                               "analyses", "summary", "done"})
            QVERIFY2(stages.count(QLatin1String(id)), id);
        const QStringList ids = StageText::ids();
        for (const QString& s : stages) {
            QVERIFY2(ids.contains(s), qPrintable(QStringLiteral("stage '%1' has no label").arg(s)));
            QVERIFY(StageText::label(s) != s);
        }
        // A stage without a label shows as it is.
        QCOMPARE(StageText::label(QStringLiteral("not a stage")), QStringLiteral("not a stage"));
    }

    void chineseWithTheShippedCatalogue()
    {
        QTranslator translator;
        if (!testing::loadShippedZhCatalogue(translator))
            QSKIP("the zh_CN catalogue is built with the app (build/dev/app/sightline_zh_CN.qm)");
        QCoreApplication::installTranslator(&translator);
        static const QRegularExpression han(QStringLiteral("[\\x{4e00}-\\x{9fff}]"));
        for (const QString& id : StageText::ids())
            QVERIFY2(StageText::label(id).contains(han), qPrintable(id + QStringLiteral(": ") + StageText::label(id)));
        QCoreApplication::removeTranslator(&translator);
    }
};

QTEST_GUILESS_MAIN(TestStageText)
#include "tst_stage_text.moc"
