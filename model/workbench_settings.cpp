#include "model/workbench_settings.h"

#include <QFileInfo>
#include <QSettings>

#include "analysis/diagnosis/knowledge_base.h"
#include "analysis/diagnosis/rules.h"
#include "analysis/timeline/op_classes.h"

namespace sl {

namespace {
const char* kGroup = "workbench";
const char* kReviewerGroup = "reviewer";
} // namespace

WorkbenchSettings WorkbenchSettings::load()
{
    QSettings s;
    return load(s);
}

WorkbenchSettings WorkbenchSettings::load(QSettings& s)
{
    WorkbenchSettings w;
    // The language key predates this struct and lives at the top level (main.cpp reads it before any window).
    w.language = s.value(QStringLiteral("language"), w.language).toString();
    s.beginGroup(QLatin1String(kGroup));
    w.gpu = s.value(QStringLiteral("gpu"), w.gpu).toString();
    w.modelConfig = s.value(QStringLiteral("modelConfig"), w.modelConfig).toString();
    // Out-of-range values (a hand-edited file) fall back to the defaults instead of reaching the cost model.
    auto intIn = [&](const char* key, int def, int lo, int hi) {
        bool ok = false;
        const int v = s.value(QLatin1String(key), def).toInt(&ok);
        return ok && v >= lo && v <= hi ? v : def;
    };
    w.batch = intIn("batch", w.batch, 1, 1 << 20);
    w.prompt = intIn("prompt", w.prompt, 1, 1 << 24);
    w.context = intIn("context", w.context, 1, 1 << 24);
    w.topK = intIn("topK", w.topK, 1, 1000);
    bool ok = false;
    qint64 v = s.value(QStringLiteral("kernelWaitNs"), w.kernelWaitNs).toLongLong(&ok);
    if (ok && v >= 0)
        w.kernelWaitNs = v;
    v = s.value(QStringLiteral("shortKernelNs"), w.shortKernelNs).toLongLong(&ok);
    if (ok && v >= 0)
        w.shortKernelNs = v;
    const double tau = s.value(QStringLiteral("tau"), w.tau).toDouble(&ok);
    if (ok && tau > 0 && tau <= 1)
        w.tau = tau;
    w.rulesDir = s.value(QStringLiteral("rulesDir"), w.rulesDir).toString();
    w.kbPath = s.value(QStringLiteral("kbPath"), w.kbPath).toString();
    const QString theme = s.value(QStringLiteral("theme"), w.theme).toString();
    if (theme == QLatin1String("light") || theme == QLatin1String("dark") || theme == QLatin1String("system"))
        w.theme = theme;
    s.endGroup();
    s.beginGroup(QLatin1String(kReviewerGroup));
    ReviewerSettings& r = w.reviewer;
    r.endpoint = s.value(QStringLiteral("endpoint"), r.endpoint).toString();
    r.model = s.value(QStringLiteral("model"), r.model).toString();
    r.keyEnv = s.value(QStringLiteral("keyEnv"), r.keyEnv).toString();
    r.timeoutS = intIn("timeoutS", r.timeoutS, 1, 600);
    r.allowPaths = s.value(QStringLiteral("allowPaths"), r.allowPaths).toBool();
    s.endGroup();
    return w;
}

void WorkbenchSettings::save() const
{
    QSettings s;
    save(s);
}

void WorkbenchSettings::save(QSettings& s) const
{
    s.setValue(QStringLiteral("language"), language);
    s.beginGroup(QLatin1String(kGroup));
    s.setValue(QStringLiteral("gpu"), gpu);
    s.setValue(QStringLiteral("modelConfig"), modelConfig);
    s.setValue(QStringLiteral("batch"), batch);
    s.setValue(QStringLiteral("prompt"), prompt);
    s.setValue(QStringLiteral("context"), context);
    s.setValue(QStringLiteral("kernelWaitNs"), kernelWaitNs);
    s.setValue(QStringLiteral("shortKernelNs"), shortKernelNs);
    s.setValue(QStringLiteral("topK"), topK);
    s.setValue(QStringLiteral("tau"), tau);
    s.setValue(QStringLiteral("rulesDir"), rulesDir);
    s.setValue(QStringLiteral("kbPath"), kbPath);
    s.setValue(QStringLiteral("theme"), theme);
    s.endGroup();
    s.beginGroup(QLatin1String(kReviewerGroup));
    s.setValue(QStringLiteral("endpoint"), reviewer.endpoint);
    s.setValue(QStringLiteral("model"), reviewer.model);
    s.setValue(QStringLiteral("keyEnv"), reviewer.keyEnv);
    s.setValue(QStringLiteral("timeoutS"), reviewer.timeoutS);
    s.setValue(QStringLiteral("allowPaths"), reviewer.allowPaths);
    s.endGroup();
    s.sync();
}

QString WorkbenchSettings::effectiveKbPath() const
{
    return kbPath.isEmpty() ? QString::fromStdString(KnowledgeBase::default_path()) : kbPath;
}

PipelineOptions WorkbenchSettings::pipelineOptions(const QString& modelOverride, const QString& ncuFile) const
{
    PipelineOptions o;
    o.analysis.idle.kernel_wait_threshold_ns = kernelWaitNs;
    o.analysis.launch.short_kernel_api_cutoff_ns = shortKernelNs;
    o.analysis.focus.top_k = static_cast<size_t>(topK);
    const QString model = modelOverride.isEmpty() ? modelConfig : modelOverride;
    o.roofline.model = model.toStdString();
    o.roofline.gpu = gpu.toStdString();
    o.roofline.ncu = ncuFile.toStdString();
    o.roofline.cost.batch = batch;
    o.roofline.cost.prompt = prompt;
    o.roofline.cost.context = context;
    o.roofline.roofline.top_k = topK;
    o.roofline.roofline.tau = tau;
    o.rules_dir = rulesDir.toStdString();
    o.lang = langCode();
    // The knowledge base only adjusts confidence from history; reading it must not create one as a side effect.
    if (QFileInfo::exists(effectiveKbPath()))
        o.kb_path = effectiveKbPath().toStdString();
    return o;
}

report::PipelineOptions WorkbenchSettings::reportOptions(const QString& modelOverride, const QString& ncuFile) const
{
    const PipelineOptions p = pipelineOptions(modelOverride, ncuFile);
    report::PipelineOptions r;
    r.analysis = p.analysis;
    r.model_config = p.roofline.model;
    r.gpu = p.roofline.gpu;
    r.cost = p.roofline.cost;
    r.roofline = p.roofline.roofline;
    r.ncu_file = p.roofline.ncu;
    if (!p.rules_dir.empty())
        r.rule_dirs = {shipped_rules_dir(), p.rules_dir};
    r.lang = p.lang;
    r.kb_path = p.kb_path;
    return r;
}

namespace {
QString& runningLanguage()
{
    static QString lang;
    return lang;
}
} // namespace

void setInterfaceLanguage(const QString& language) { runningLanguage() = language; }

QString interfaceLanguage()
{
    return runningLanguage().isEmpty() ? WorkbenchSettings::load().language : runningLanguage();
}

QString opClassLabel(const OpClassTotals& c)
{
    const QString lang = interfaceLanguage();
    return QString::fromStdString(c.label_for(lang.startsWith(QLatin1String("zh")) ? "zh_CN" : "en"));
}

} // namespace sl
