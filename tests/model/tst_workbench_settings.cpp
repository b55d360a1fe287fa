// WorkbenchSettings: a round trip through QSettings keeps every field, out-of-range values in a hand-edited file
// fall back to the defaults, and pipelineOptions()/reportOptions() put every field into the right option.
#include <QDir>
#include <QFile>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>

#include "analysis/diagnosis/rules.h"
#include "model/workbench_settings.h"

using namespace sl;

namespace {

// Every field different from its default.
WorkbenchSettings custom(const QString& dir)
{
    WorkbenchSettings w;
    w.gpu = QStringLiteral("H100 SXM");
    w.modelConfig = dir + QStringLiteral("/config.json");
    w.batch = 8;
    w.prompt = 333;
    w.context = 4097;
    w.kernelWaitNs = 12'500;
    w.shortKernelNs = 7'000;
    w.topK = 17;
    w.tau = 0.45;
    w.rulesDir = dir + QStringLiteral("/rules");
    w.kbPath = dir + QStringLiteral("/kb.db");
    w.language = QStringLiteral("zh_CN");
    w.theme = QStringLiteral("dark");
    w.reviewer.endpoint = QStringLiteral("http://127.0.0.1:8080/v1");
    w.reviewer.model = QStringLiteral("qwen2.5-7b");
    w.reviewer.keyEnv = QStringLiteral("MY_LLM_KEY");
    w.reviewer.timeoutS = 17;
    w.reviewer.allowPaths = true;
    return w;
}

} // namespace

class TestWorkbenchSettings : public QObject {
    Q_OBJECT
private slots:
    void defaultsMatchTheCli()
    {
        // The documented CLI defaults (analysis/timeline/idle.h, launch_stats.h, focus.h, roofline.h).
        const WorkbenchSettings w;
        const PipelineOptions o = w.pipelineOptions();
        const PipelineOptions cli;
        QCOMPARE(o.analysis.idle.kernel_wait_threshold_ns, cli.analysis.idle.kernel_wait_threshold_ns);
        QCOMPARE(o.analysis.launch.short_kernel_api_cutoff_ns, cli.analysis.launch.short_kernel_api_cutoff_ns);
        QCOMPARE(o.analysis.focus.top_k, cli.analysis.focus.top_k);
        QCOMPARE(o.roofline.roofline.tau, 0.3);
        QCOMPARE(o.roofline.roofline.top_k, 10);
    }

    void roundTripThroughIni()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString ini = dir.filePath(QStringLiteral("s.ini"));
        const WorkbenchSettings w = custom(dir.path());
        QVERIFY(!(w == WorkbenchSettings{}));
        {
            QSettings s(ini, QSettings::IniFormat);
            w.save(s);
        }
        QVERIFY(QFile::exists(ini));
        QSettings s(ini, QSettings::IniFormat);
        const WorkbenchSettings back = WorkbenchSettings::load(s);
        QCOMPARE(back.gpu, w.gpu);
        QCOMPARE(back.modelConfig, w.modelConfig);
        QCOMPARE(back.batch, w.batch);
        QCOMPARE(back.prompt, w.prompt);
        QCOMPARE(back.context, w.context);
        QCOMPARE(back.kernelWaitNs, w.kernelWaitNs);
        QCOMPARE(back.shortKernelNs, w.shortKernelNs);
        QCOMPARE(back.topK, w.topK);
        QCOMPARE(back.tau, w.tau);
        QCOMPARE(back.rulesDir, w.rulesDir);
        QCOMPARE(back.kbPath, w.kbPath);
        QCOMPARE(back.language, w.language);
        QCOMPARE(back.theme, w.theme);
        QCOMPARE(back.reviewer.endpoint, w.reviewer.endpoint);
        QCOMPARE(back.reviewer.model, w.reviewer.model);
        QCOMPARE(back.reviewer.keyEnv, w.reviewer.keyEnv);
        QCOMPARE(back.reviewer.timeoutS, 17);
        QCOMPARE(back.reviewer.allowPaths, true);
        QVERIFY(back == w);
        // The language key stays at the top level, where main.cpp reads it before any window exists.
        QCOMPARE(s.value(QStringLiteral("language")).toString(), QStringLiteral("zh_CN"));
    }

    void emptyFileGivesDefaults()
    {
        QTemporaryDir dir;
        QSettings s(dir.filePath(QStringLiteral("empty.ini")), QSettings::IniFormat);
        QVERIFY(WorkbenchSettings::load(s) == WorkbenchSettings{});
        // The reviewer is off by default (nothing is sent anywhere) and never sends paths unless allowed.
        const WorkbenchSettings w = WorkbenchSettings::load(s);
        QVERIFY(!w.reviewer.enabled());
        QVERIFY(!w.reviewer.allowPaths);
    }

    void reviewerStoresNoKeyAndBoundsTheTimeout()
    {
        QTemporaryDir dir;
        const QString ini = dir.filePath(QStringLiteral("s.ini"));
        {
            QSettings s(ini, QSettings::IniFormat);
            custom(dir.path()).save(s);
            s.setValue(QStringLiteral("reviewer/timeoutS"), 0);
        }
        QSettings s(ini, QSettings::IniFormat);
        QCOMPARE(WorkbenchSettings::load(s).reviewer.timeoutS, ReviewerSettings{}.timeoutS);
        // Only the variable's name is written, never a key.
        QFile f(ini);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray text = f.readAll();
        QVERIFY(text.contains("keyEnv=MY_LLM_KEY"));
        QVERIFY(!text.toLower().contains("apikey"));
    }

    void outOfRangeFallsBack_data()
    {
        QTest::addColumn<QString>("key");
        QTest::addColumn<QVariant>("value");
        QTest::addColumn<bool>("accepted");
        QTest::newRow("batch 0") << "batch" << QVariant(0) << false;
        QTest::newRow("batch -3") << "batch" << QVariant(-3) << false;
        QTest::newRow("batch text") << "batch" << QVariant(QStringLiteral("many")) << false;
        QTest::newRow("batch 2^20") << "batch" << QVariant(1 << 20) << true;
        QTest::newRow("batch 2^20+1") << "batch" << QVariant((1 << 20) + 1) << false;
        QTest::newRow("prompt 0") << "prompt" << QVariant(0) << false;
        QTest::newRow("prompt 2^24") << "prompt" << QVariant(1 << 24) << true;
        QTest::newRow("context 2^24+1") << "context" << QVariant((1 << 24) + 1) << false;
        QTest::newRow("topK 0") << "topK" << QVariant(0) << false;
        QTest::newRow("topK 1000") << "topK" << QVariant(1000) << true;
        QTest::newRow("topK 1001") << "topK" << QVariant(1001) << false;
        QTest::newRow("kernelWait -1") << "kernelWaitNs" << QVariant(-1) << false;
        QTest::newRow("kernelWait 0") << "kernelWaitNs" << QVariant(0) << true;
        QTest::newRow("shortKernel text") << "shortKernelNs" << QVariant(QStringLiteral("x")) << false;
        QTest::newRow("tau 0") << "tau" << QVariant(0.0) << false;
        QTest::newRow("tau 1.5") << "tau" << QVariant(1.5) << false;
        QTest::newRow("tau 1") << "tau" << QVariant(1.0) << true;
        QTest::newRow("tau text") << "tau" << QVariant(QStringLiteral("low")) << false;
        QTest::newRow("theme purple") << "theme" << QVariant(QStringLiteral("purple")) << false;
        QTest::newRow("theme light") << "theme" << QVariant(QStringLiteral("light")) << true;
    }

    void outOfRangeFallsBack()
    {
        QFETCH(QString, key);
        QFETCH(QVariant, value);
        QFETCH(bool, accepted);
        QTemporaryDir dir;
        const QString ini = dir.filePath(QStringLiteral("s.ini"));
        {
            QSettings s(ini, QSettings::IniFormat);
            s.setValue(QStringLiteral("workbench/") + key, value);
        }
        QSettings s(ini, QSettings::IniFormat);
        const WorkbenchSettings w = WorkbenchSettings::load(s);
        const WorkbenchSettings d;
        // The field read back: the written value when accepted, else the default; the other fields stay default.
        auto field = [&](const WorkbenchSettings& x) -> QVariant {
            if (key == QLatin1String("batch")) return x.batch;
            if (key == QLatin1String("prompt")) return x.prompt;
            if (key == QLatin1String("context")) return x.context;
            if (key == QLatin1String("topK")) return x.topK;
            if (key == QLatin1String("kernelWaitNs")) return x.kernelWaitNs;
            if (key == QLatin1String("shortKernelNs")) return x.shortKernelNs;
            if (key == QLatin1String("tau")) return x.tau;
            if (key == QLatin1String("theme")) return x.theme;
            return {};
        };
        if (accepted)
            QCOMPARE(field(w).toString(), value.toString());
        else
            QCOMPARE(field(w), field(d));
        WorkbenchSettings rest = w;
        if (key == QLatin1String("batch")) rest.batch = d.batch;
        if (key == QLatin1String("prompt")) rest.prompt = d.prompt;
        if (key == QLatin1String("context")) rest.context = d.context;
        if (key == QLatin1String("topK")) rest.topK = d.topK;
        if (key == QLatin1String("kernelWaitNs")) rest.kernelWaitNs = d.kernelWaitNs;
        if (key == QLatin1String("shortKernelNs")) rest.shortKernelNs = d.shortKernelNs;
        if (key == QLatin1String("tau")) rest.tau = d.tau;
        if (key == QLatin1String("theme")) rest.theme = d.theme;
        QVERIFY(rest == d);
    }

    void pipelineOptionsMapEveryField()
    {
        QTemporaryDir dir;
        const WorkbenchSettings w = custom(dir.path());
        PipelineOptions o = w.pipelineOptions();
        QCOMPARE(o.analysis.idle.kernel_wait_threshold_ns, int64_t(12'500));
        QCOMPARE(o.analysis.launch.short_kernel_api_cutoff_ns, int64_t(7'000));
        QCOMPARE(o.analysis.focus.top_k, size_t(17));
        QCOMPARE(o.roofline.roofline.top_k, 17);
        QCOMPARE(o.roofline.roofline.tau, 0.45);
        QCOMPARE(QString::fromStdString(o.roofline.gpu), QStringLiteral("H100 SXM"));
        QCOMPARE(QString::fromStdString(o.roofline.model), w.modelConfig);
        QCOMPARE(o.roofline.ncu, std::string());
        QCOMPARE(o.roofline.cost.batch, int64_t(8));
        QCOMPARE(o.roofline.cost.prompt, int64_t(333));
        QCOMPARE(o.roofline.cost.context, int64_t(4097));
        QCOMPARE(QString::fromStdString(o.rules_dir), w.rulesDir);
        QCOMPARE(o.lang, std::string("zh_CN"));
        // The knowledge base is only passed once it exists: reading settings must not create one.
        QCOMPARE(o.kb_path, std::string());
        {
            QFile f(w.kbPath);
            QVERIFY(f.open(QIODevice::WriteOnly));
        }
        o = w.pipelineOptions();
        QCOMPARE(QString::fromStdString(o.kb_path), w.kbPath);

        // Files opened with the trace win over the settings' model config.
        o = w.pipelineOptions(QStringLiteral("/x/other.json"), QStringLiteral("/x/prof.csv"));
        QCOMPARE(o.roofline.model, std::string("/x/other.json"));
        QCOMPARE(o.roofline.ncu, std::string("/x/prof.csv"));

        // The report export reads the same values.
        const report::PipelineOptions r = w.reportOptions();
        QCOMPARE(r.analysis.idle.kernel_wait_threshold_ns, int64_t(12'500));
        QCOMPARE(r.analysis.launch.short_kernel_api_cutoff_ns, int64_t(7'000));
        QCOMPARE(QString::fromStdString(r.model_config), w.modelConfig);
        QCOMPARE(QString::fromStdString(r.gpu), w.gpu);
        QCOMPARE(r.cost.batch, int64_t(8));
        QCOMPARE(r.cost.context, int64_t(4097));
        QCOMPARE(r.roofline.tau, 0.45);
        QCOMPARE(r.rule_dirs.size(), size_t(2));
        QCOMPARE(r.rule_dirs[0], shipped_rules_dir());
        QCOMPARE(QString::fromStdString(r.rule_dirs[1]), w.rulesDir);
        QCOMPARE(r.lang, std::string("zh_CN"));
        QCOMPARE(QString::fromStdString(r.kb_path), w.kbPath);
    }

    void emptyKbPathMeansDefault()
    {
        WorkbenchSettings w;
        QVERIFY(!w.effectiveKbPath().isEmpty());
        QVERIFY(w.effectiveKbPath().endsWith(QStringLiteral("knowledge.db")));
        w.kbPath = QStringLiteral("/tmp/x.db");
        QCOMPARE(w.effectiveKbPath(), QStringLiteral("/tmp/x.db"));
        QCOMPARE(w.langCode(), std::string("en"));
    }
};

QTEST_GUILESS_MAIN(TestWorkbenchSettings)
#include "tst_workbench_settings.moc"
