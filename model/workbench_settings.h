#pragma once
// The workbench's persisted settings (QSettings) and how they become pipeline options. One struct, so the settings
// dialog, the load job and the report export read the same values: the GUI's numbers follow from the same options
// the CLI would be given (`--gpu`, `--model`, `--batch`, `--seq`, `--rules`, `--kb`, thresholds).

#include <QString>
#include <QStringList>

#include "analysis/pipeline.h"
#include "analysis/report_pipeline.h"

class QSettings;

namespace sl {

// The optional LLM reviewer (model/llm_reviewer.h; Settings › Preferences › Reviewer). Off while the endpoint is
// empty: then nothing is sent anywhere. The API key itself is never stored: only the name of the environment
// variable that holds it (as the CLI's --llm-key-env), read when a review is sent.
struct ReviewerSettings {
    QString endpoint;                                   // e.g. http://localhost:8080/v1; empty = off
    QString model;                                      // empty = the server's default
    QString keyEnv = QStringLiteral("SIGHTLINE_LLM_KEY");   // environment variable holding the API key
    int timeoutS = 60;                                  // 1..600
    bool allowPaths = false;                            // send absolute paths found in finding texts
    bool enabled() const { return !endpoint.trimmed().isEmpty(); }
    friend bool operator==(const ReviewerSettings&, const ReviewerSettings&) = default;
};

struct WorkbenchSettings {
    // Roofline inputs.
    QString gpu;                       // GPU spec row name; empty = match the trace's device name
    QString modelConfig;               // HF config.json; empty = none (a config.json opened with the trace wins)
    int batch = 1;                     // b of the cost model
    int prompt = 1024;                 // s: prompt tokens per prefill
    int context = 2048;                // L: KV length at decode
    // Analysis thresholds (defaults = the CLI's).
    qint64 kernelWaitNs = 30'000;      // gaps shorter than this between back-to-back launches count as kernel wait
    qint64 shortKernelNs = 50'000;     // launch-bound cutoff (HTA runtime_cutoff)
    int topK = 10;                     // focus set: Top-K
    double tau = 0.3;                  // focus set: E_roof below τ
    // Where things live.
    QString rulesDir;                  // user rules added to the shipped ones; empty = the default user dir
    QString kbPath;                    // knowledge base; empty = KnowledgeBase::default_path()
    // Look.
    QString language = QStringLiteral("en");     // "en" | "zh_CN"
    QString theme = QStringLiteral("system");    // "system" | "light" | "dark"
    // The LLM reviewer (advisory; never changes the findings or the numbers).
    ReviewerSettings reviewer;

    static WorkbenchSettings load();             // from QSettings() (organisation/application set by main)
    static WorkbenchSettings load(QSettings& s);
    void save() const;
    void save(QSettings& s) const;

    friend bool operator==(const WorkbenchSettings&, const WorkbenchSettings&) = default;

    QString effectiveKbPath() const;
    std::string langCode() const { return language.startsWith(QLatin1String("zh")) ? "zh_CN" : "en"; }

    // The pipeline options for the trace files. `modelOverride` / `ncuFile` come from files opened together with
    // the trace (a config.json, an ncu CSV) and take precedence over the settings' model config.
    PipelineOptions pipelineOptions(const QString& modelOverride = {}, const QString& ncuFile = {}) const;
    // The same for the report builder (File › Export Report), so the report shows what the panes show.
    report::PipelineOptions reportOptions(const QString& modelOverride = {}, const QString& ncuFile = {}) const;
};

struct OpClassTotals;
// An operator class's name in the interface language (WorkbenchSettings::language): its label_zh_CN from the
// classes file in Chinese, its label otherwise — for the Overview, the timeline legend and tooltips, Details.
QString opClassLabel(const OpClassTotals& c);
// The language the interface runs in when it differs from the saved setting (sightline --language): main sets it
// with the translator it installs; empty = WorkbenchSettings::load().language.
void setInterfaceLanguage(const QString& language);
// The language the interface runs in: the one set above, else the saved setting (the Language menu ticks it).
QString interfaceLanguage();

} // namespace sl
