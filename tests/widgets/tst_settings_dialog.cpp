// SettingsDialog: what the widgets show is what settings() returns, the inline checks of the model config and the
// GPU override tell a config.json from other files and a known GPU from a typo, Restore Defaults restores, and
// edit() writes back only on OK.
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLineEdit>
#include <QSpinBox>
#include <QTest>
#include <QTimer>

#include "analysis/roofline/gpu_specs.h"
#include "analysis/io/model_config.h"
#include "widgets/settings_dialog.h"

using namespace sl;

namespace {

QString dataFile(const QString& rel)
{
    return qEnvironmentVariable("SIGHTLINE_SOURCE_DIR", QStringLiteral(".")) + QStringLiteral("/tests/data/") + rel;
}

template <typename T>
T* child(QWidget& w, const char* name)
{
    T* c = w.findChild<T*>(QLatin1String(name));
    if (!c)
        qFatal("no child %s", name);
    return c;
}

} // namespace

class TestSettingsDialog : public QObject {
    Q_OBJECT
private slots:
    void showsAndReturnsEveryField()
    {
        WorkbenchSettings w;
        const GpuDatabase db = GpuDatabase::load_default();
        QVERIFY(db.rows().size() > 2);
        w.gpu = QString::fromStdString(db.rows()[1].name);
        w.modelConfig = dataFile(QStringLiteral("models/llama_tiny_config.json"));
        w.batch = 16;
        w.prompt = 777;
        w.context = 8192;
        w.kernelWaitNs = 12'500;
        w.shortKernelNs = 80'000;
        w.topK = 25;
        w.tau = 0.55;
        w.rulesDir = QStringLiteral("/tmp/my-rules");
        w.kbPath = QStringLiteral("/tmp/kb.db");
        w.language = QStringLiteral("zh_CN");
        w.theme = QStringLiteral("dark");
        w.reviewer.endpoint = QStringLiteral("http://127.0.0.1:11434/v1");
        w.reviewer.model = QStringLiteral("llama3");
        w.reviewer.keyEnv = QStringLiteral("OLLAMA_KEY");
        w.reviewer.timeoutS = 45;
        w.reviewer.allowPaths = true;
        SettingsDialog d(w);
        QCOMPARE(child<QLineEdit>(d, "llmEndpoint")->text(), w.reviewer.endpoint);
        QCOMPARE(child<QSpinBox>(d, "llmTimeout")->value(), 45);
        QVERIFY(child<QCheckBox>(d, "llmAllowPaths")->isChecked());
        QCOMPARE(child<QComboBox>(d, "gpu")->currentText(), w.gpu);
        QCOMPARE(child<QSpinBox>(d, "batch")->value(), 16);
        QCOMPARE(child<QDoubleSpinBox>(d, "kernelWait")->value(), 12.5);   // shown in µs
        QCOMPARE(child<QDoubleSpinBox>(d, "shortKernel")->value(), 80.0);
        QCOMPARE(child<QComboBox>(d, "theme")->currentData().toString(), QStringLiteral("dark"));
        QVERIFY(d.settings() == w);

        // A default value round-trips too.
        SettingsDialog d2(WorkbenchSettings{});
        QVERIFY(d2.settings() == WorkbenchSettings{});
        QCOMPARE(child<QComboBox>(d2, "gpu")->currentIndex(), 0);   // "From the trace"
        // The reviewer is off by default and sends no file paths.
        QVERIFY(child<QLineEdit>(d2, "llmEndpoint")->text().isEmpty());
        QVERIFY(!child<QCheckBox>(d2, "llmAllowPaths")->isChecked());
    }

    void reviewerEditsReachSettings()
    {
        SettingsDialog d(WorkbenchSettings{});
        child<QLineEdit>(d, "llmEndpoint")->setText(QStringLiteral("  http://localhost:8080/v1 "));
        child<QLineEdit>(d, "llmModel")->setText(QStringLiteral("qwen"));
        child<QLineEdit>(d, "llmKeyEnv")->setText(QStringLiteral("MY_KEY"));
        child<QSpinBox>(d, "llmTimeout")->setValue(5);
        child<QCheckBox>(d, "llmAllowPaths")->setChecked(true);
        const ReviewerSettings r = d.settings().reviewer;
        QCOMPARE(r.endpoint, QStringLiteral("http://localhost:8080/v1"));   // trimmed
        QCOMPARE(r.model, QStringLiteral("qwen"));
        QCOMPARE(r.keyEnv, QStringLiteral("MY_KEY"));
        QCOMPARE(r.timeoutS, 5);
        QVERIFY(r.allowPaths);
        QVERIFY(r.enabled());
        d.restoreDefaults();
        QVERIFY(d.settings().reviewer == ReviewerSettings{});
    }

    void widgetEditsReachSettings()
    {
        SettingsDialog d(WorkbenchSettings{});
        auto* gpu = child<QComboBox>(d, "gpu");
        gpu->setCurrentIndex(2);
        const QString gpuName = gpu->currentText();
        child<QSpinBox>(d, "batch")->setValue(4);
        child<QSpinBox>(d, "prompt")->setValue(2048);
        child<QSpinBox>(d, "context")->setValue(3000);
        child<QDoubleSpinBox>(d, "kernelWait")->setValue(2.5);
        child<QDoubleSpinBox>(d, "shortKernel")->setValue(100.0);
        child<QSpinBox>(d, "topK")->setValue(5);
        child<QDoubleSpinBox>(d, "tau")->setValue(0.2);
        child<QLineEdit>(d, "rulesDir")->setText(QStringLiteral("  /r  "));
        child<QLineEdit>(d, "kbPath")->setText(QStringLiteral("/k.db"));
        child<QComboBox>(d, "language")->setCurrentIndex(1);
        child<QComboBox>(d, "theme")->setCurrentIndex(1);
        const WorkbenchSettings s = d.settings();
        QCOMPARE(s.gpu, gpuName);
        QCOMPARE(s.batch, 4);
        QCOMPARE(s.prompt, 2048);
        QCOMPARE(s.context, 3000);
        QCOMPARE(s.kernelWaitNs, qint64(2'500));
        QCOMPARE(s.shortKernelNs, qint64(100'000));
        QCOMPARE(s.topK, 5);
        QCOMPARE(s.tau, 0.2);
        QCOMPARE(s.rulesDir, QStringLiteral("/r"));    // trimmed
        QCOMPARE(s.kbPath, QStringLiteral("/k.db"));
        QCOMPARE(s.language, QStringLiteral("zh_CN"));
        QCOMPARE(s.theme, QStringLiteral("light"));
        QCOMPARE(s.pipelineOptions().analysis.idle.kernel_wait_threshold_ns, int64_t(2'500));

        // Back to "From the trace": no override.
        gpu->setCurrentIndex(0);
        QCOMPARE(d.settings().gpu, QString());
        // The spin boxes keep the ranges WorkbenchSettings::load accepts.
        QCOMPARE(child<QSpinBox>(d, "topK")->maximum(), 1000);
        QVERIFY(child<QDoubleSpinBox>(d, "tau")->minimum() > 0);
        QCOMPARE(child<QDoubleSpinBox>(d, "tau")->maximum(), 1.0);
    }

    void gpuOverrideIsChecked()
    {
        SettingsDialog d(WorkbenchSettings{});
        auto* gpu = child<QComboBox>(d, "gpu");
        QVERIFY(!d.gpuStatus().contains(QStringLiteral("⚠")));
        // A typed name is resolved like --gpu (normalised: case, spaces and dashes do not matter).
        const GpuDatabase db = GpuDatabase::load_default();
        const std::string row = db.rows().front().name;
        gpu->setEditText(QString::fromStdString(row).toLower());
        QVERIFY2(d.gpuStatus().startsWith(QStringLiteral("✓")), qPrintable(d.gpuStatus()));
        QVERIFY(d.gpuStatus().contains(QString::fromStdString(row)));
        gpu->setEditText(QStringLiteral("Voodoo 3 3000"));
        QVERIFY2(d.gpuStatus().startsWith(QStringLiteral("⚠")), qPrintable(d.gpuStatus()));
        QCOMPARE(d.settings().gpu, QStringLiteral("Voodoo 3 3000"));
    }

    void modelConfigIsChecked()
    {
        SettingsDialog d(WorkbenchSettings{});
        auto* edit = child<QLineEdit>(d, "modelConfig");
        QVERIFY(!d.modelConfigStatus().isEmpty());   // says the Roofline needs one

        const QString llama = dataFile(QStringLiteral("models/llama_tiny_config.json"));
        edit->setText(llama);
        const ModelConfig m = load_model_config(llama.toStdString());
        QVERIFY2(d.modelConfigStatus().startsWith(QStringLiteral("✓")), qPrintable(d.modelConfigStatus()));
        QVERIFY(d.modelConfigStatus().contains(QStringLiteral("%1 layers").arg(m.num_layers)));

        const QString moe = dataFile(QStringLiteral("models/mixtral_tiny_config.json"));
        edit->setText(moe);
        QVERIFY(d.modelConfigStatus().contains(QStringLiteral("experts")));

        // A trace is not a model config: the check names what it is instead.
        const QString notConfig = QStringLiteral(__FILE__);
        edit->setText(notConfig);
        QVERIFY2(d.modelConfigStatus().startsWith(QStringLiteral("⚠")), qPrintable(d.modelConfigStatus()));
        edit->setText(QStringLiteral("/nonexistent/config.json"));
        QVERIFY2(d.modelConfigStatus().contains(QStringLiteral("does not exist")), qPrintable(d.modelConfigStatus()));
    }

    void restoreDefaultsKeepsLanguage()
    {
        WorkbenchSettings w;
        w.batch = 99;
        w.tau = 0.9;
        w.theme = QStringLiteral("dark");
        w.kbPath = QStringLiteral("/x.db");
        w.language = QStringLiteral("zh_CN");
        SettingsDialog d(w);
        d.restoreDefaults();
        WorkbenchSettings expected;
        expected.language = QStringLiteral("zh_CN");
        QVERIFY(d.settings() == expected);
    }

    void editWritesBackOnlyOnOk()
    {
        WorkbenchSettings w;
        // Cancel: unchanged.
        QTimer::singleShot(0, this, [] {
            auto* dlg = qobject_cast<SettingsDialog*>(QApplication::activeModalWidget());
            QVERIFY(dlg);
            dlg->findChild<QSpinBox*>(QStringLiteral("batch"))->setValue(42);
            dlg->reject();
        });
        QVERIFY(!SettingsDialog::edit(w));
        QCOMPARE(w.batch, 1);
        // OK: the edited value comes back.
        QTimer::singleShot(0, this, [] {
            auto* dlg = qobject_cast<SettingsDialog*>(QApplication::activeModalWidget());
            QVERIFY(dlg);
            dlg->findChild<QSpinBox*>(QStringLiteral("batch"))->setValue(42);
            dlg->accept();
        });
        QVERIFY(SettingsDialog::edit(w));
        QCOMPARE(w.batch, 42);
    }
};

QTEST_MAIN(TestSettingsDialog)
#include "tst_settings_dialog.moc"
