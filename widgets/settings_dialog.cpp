#include "widgets/settings_dialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTabWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "analysis/trace/errors.h"
#include "analysis/roofline/gpu_specs.h"
#include "analysis/diagnosis/knowledge_base.h"
#include "analysis/io/load.h"
#include "analysis/io/model_config.h"
#include "analysis/diagnosis/rules.h"

namespace sl {

namespace {

QString qs(const std::string& s) { return QString::fromStdString(s); }

// A line edit with a Browse… button beside it.
QWidget* withBrowse(QLineEdit* edit, QPushButton* button)
{
    auto* w = new QWidget;
    auto* h = new QHBoxLayout(w);
    h->setContentsMargins(0, 0, 0, 0);
    h->addWidget(edit, 1);
    h->addWidget(button);
    return w;
}

// A one-line hint under a field. Not word-wrapped: a wrapped label in a form asks for the height of its narrowest
// layout and leaves gaps at the real width; the dialog grows to fit the line instead.
QLabel* note(const QString& text = {}, bool wrap = false)
{
    auto* l = new QLabel(text);
    l->setWordWrap(wrap);
    l->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    l->setTextInteractionFlags(Qt::TextSelectableByMouse);
    l->setForegroundRole(QPalette::PlaceholderText);
    return l;
}

// Thresholds are kept in ns and shown in µs.
double toUs(qint64 ns) { return double(ns) / 1000.0; }
qint64 toNs(double us) { return static_cast<qint64>(std::llround(us * 1000.0)); }

} // namespace

SettingsDialog::SettingsDialog(const WorkbenchSettings& settings, QWidget* parent) : QDialog(parent)
{
    setWindowTitle(tr("Preferences"));
    setObjectName(QStringLiteral("settingsDialog"));
    try {
        gpuDb_ = std::make_shared<const GpuDatabase>(GpuDatabase::load_default());
    } catch (const std::exception& e) {
        gpuDbError_ = QString::fromStdString(e.what());
    }

    tabs_ = new QTabWidget(this);
    tabs_->addTab(createModelPage(), tr("Model && GPU"));
    tabs_->addTab(createThresholdPage(), tr("Analysis"));
    tabs_->addTab(createLocationsPage(), tr("Locations"));
    tabs_->addTab(createAppearancePage(), tr("Appearance"));
    tabs_->addTab(createReviewerPage(), tr("Reviewer"));

    auto* buttons = new QDialogButtonBox(
        QDialogButtonBox::Ok | QDialogButtonBox::Cancel | QDialogButtonBox::RestoreDefaults, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(buttons->button(QDialogButtonBox::RestoreDefaults), &QPushButton::clicked, this,
            &SettingsDialog::restoreDefaults);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(tabs_);
    layout->addWidget(note(tr("Changes re-run the analysis of the open files when you press OK.")));
    layout->addWidget(buttons);

    setSettings(settings);
    // Wide enough for the longest hint and a full path; then exactly as tall as that width needs.
    const int width = std::max(sizeHint().width(), 640);
    const int height = layout->hasHeightForWidth() ? layout->totalHeightForWidth(width) : sizeHint().height();
    resize(width, std::max(height, sizeHint().height()));
}

QWidget* SettingsDialog::createModelPage()
{
    auto* page = new QWidget;
    auto* v = new QVBoxLayout(page);

    auto* gpuBox = new QGroupBox(tr("GPU"));
    auto* gpuForm = new QFormLayout(gpuBox);
    gpu_ = new QComboBox;
    gpu_->setObjectName(QStringLiteral("gpu"));
    gpu_->setEditable(true);
    gpu_->setInsertPolicy(QComboBox::NoInsert);
    gpu_->addItem(tr("From the trace"), QString());
    if (gpuDb_)
        for (const GpuSpec& row : gpuDb_->rows())
            gpu_->addItem(qs(row.name), qs(row.name));
    gpu_->setToolTip(tr("The GPU whose peaks the Roofline uses. \"From the trace\" matches the device the trace "
                        "names; pick or type a row of the GPU database to override it (like --gpu)."));
    gpuStatus_ = note();
    gpuStatus_->setObjectName(QStringLiteral("gpuStatus"));
    gpuForm->addRow(tr("GPU override:"), gpu_);
    gpuForm->addRow(QString(), gpuStatus_);
    connect(gpu_, &QComboBox::currentTextChanged, this, &SettingsDialog::checkGpu);
    v->addWidget(gpuBox);

    auto* modelBox = new QGroupBox(tr("Model"));
    auto* modelForm = new QFormLayout(modelBox);
    modelConfig_ = new QLineEdit;
    modelConfig_->setObjectName(QStringLiteral("modelConfig"));
    modelConfig_->setPlaceholderText(tr("Hugging Face config.json (optional)"));
    modelConfig_->setClearButtonEnabled(true);
    auto* browse = new QPushButton(tr("Browse…"));
    connect(browse, &QPushButton::clicked, this, &SettingsDialog::browseModelConfig);
    modelStatus_ = note({}, true);
    modelStatus_->setObjectName(QStringLiteral("modelStatus"));
    connect(modelConfig_, &QLineEdit::textChanged, this, &SettingsDialog::checkModelConfig);
    modelForm->addRow(tr("Model config:"), withBrowse(modelConfig_, browse));
    modelForm->addRow(QString(), modelStatus_);

    auto spin = [](const char* name, int max, const QString& tip) {
        auto* s = new QSpinBox;
        s->setObjectName(QLatin1String(name));
        s->setRange(1, max);
        s->setGroupSeparatorShown(true);
        s->setToolTip(tip);
        return s;
    };
    batch_ = spin("batch", 1 << 20, tr("Sequences decoded together (b of the cost model)."));
    prompt_ = spin("prompt", 1 << 24, tr("Prompt tokens per prefill pass (s)."));
    context_ = spin("context", 1 << 24, tr("KV-cache length at decode (L)."));
    modelForm->addRow(tr("Batch size:"), batch_);
    modelForm->addRow(tr("Prompt tokens:"), prompt_);
    modelForm->addRow(tr("Context length:"), context_);
    v->addWidget(modelBox);
    v->addStretch(1);
    return page;
}

QWidget* SettingsDialog::createThresholdPage()
{
    auto* page = new QWidget;
    auto* v = new QVBoxLayout(page);

    auto* gaps = new QGroupBox(tr("Idle gaps and launches"));
    auto* gf = new QFormLayout(gaps);
    auto us = [](const char* name, const QString& tip) {
        auto* s = new QDoubleSpinBox;
        s->setObjectName(QLatin1String(name));
        s->setDecimals(1);
        s->setRange(0.0, 1e7);
        s->setSingleStep(5.0);
        s->setSuffix(QStringLiteral(" µs"));
        s->setGroupSeparatorShown(true);
        s->setToolTip(tip);
        return s;
    };
    kernelWaitUs_ = us("kernelWait", tr("A gap shorter than this between back-to-back launches counts as kernel "
                                        "wait (HTA's consecutive-kernel delay)."));
    shortKernelUs_ = us("shortKernel", tr("Launch calls up to this long whose kernel ran shorter than the call count "
                                          "as launch-bound short kernels (HTA's runtime cutoff)."));
    gf->addRow(tr("Kernel wait gap threshold:"), kernelWaitUs_);
    gf->addRow(tr("Short-kernel cutoff:"), shortKernelUs_);
    v->addWidget(gaps);

    auto* focus = new QGroupBox(tr("Operators to look at first"));
    auto* ff = new QFormLayout(focus);
    topK_ = new QSpinBox;
    topK_->setObjectName(QStringLiteral("topK"));
    topK_->setRange(1, 1000);
    topK_->setToolTip(tr("The K operators with the most time are always in focus."));
    tau_ = new QDoubleSpinBox;
    tau_->setObjectName(QStringLiteral("tau"));
    tau_->setDecimals(2);
    tau_->setRange(0.01, 1.0);
    tau_->setSingleStep(0.05);
    tau_->setToolTip(tr("Operators whose Roofline efficiency E_roof is below τ are in focus too."));
    ff->addRow(tr("The operators with the most time, how many:"), topK_);
    ff->addRow(tr("And any with Roofline efficiency (E_roof) below:"), tau_);
    v->addWidget(focus);
    v->addWidget(note(tr("The defaults are the command line's: 30 µs, 50 µs, 10 operators, E_roof 0.3.")));
    v->addStretch(1);
    return page;
}

QWidget* SettingsDialog::createLocationsPage()
{
    auto* page = new QWidget;
    auto* v = new QVBoxLayout(page);

    auto* rules = new QGroupBox(tr("Rules"));
    auto* rf = new QFormLayout(rules);
    rulesDir_ = new QLineEdit;
    rulesDir_->setObjectName(QStringLiteral("rulesDir"));
    rulesDir_->setPlaceholderText(qs(default_user_rules_dir()));
    rulesDir_->setToolTip(tr("Empty: %1").arg(rulesDir_->placeholderText()));
    rulesDir_->setClearButtonEnabled(true);
    auto* browseRules = new QPushButton(tr("Browse…"));
    connect(browseRules, &QPushButton::clicked, this, &SettingsDialog::browseRulesDir);
    rf->addRow(tr("Your rules folder:"), withBrowse(rulesDir_, browseRules));
    rf->addRow(QString(), note(tr("Added to the shipped rules; a rule with the same id replaces the shipped one.")));
    v->addWidget(rules);

    auto* kb = new QGroupBox(tr("Knowledge base"));
    auto* kf = new QFormLayout(kb);
    kbPath_ = new QLineEdit;
    kbPath_->setObjectName(QStringLiteral("kbPath"));
    kbPath_->setPlaceholderText(qs(KnowledgeBase::default_path()));
    kbPath_->setToolTip(tr("Empty: %1").arg(kbPath_->placeholderText()));
    kbPath_->setClearButtonEnabled(true);
    auto* browseKb = new QPushButton(tr("Browse…"));
    connect(browseKb, &QPushButton::clicked, this, &SettingsDialog::browseKb);
    kf->addRow(tr("File:"), withBrowse(kbPath_, browseKb));
    kf->addRow(QString(), note(tr("Suggestion states, notes and A/B verdicts live here. Empty: the default shown.")));
    v->addWidget(kb);
    v->addStretch(1);
    return page;
}

QWidget* SettingsDialog::createAppearancePage()
{
    auto* page = new QWidget;
    auto* v = new QVBoxLayout(page);
    auto* box = new QGroupBox(tr("Appearance"));
    auto* f = new QFormLayout(box);
    language_ = new QComboBox;
    language_->setObjectName(QStringLiteral("language"));
    // Each language in its own words, so a user who cannot read the current one still finds theirs.
    language_->addItem(QStringLiteral("English"), QStringLiteral("en"));
    language_->addItem(QStringLiteral("简体中文"), QStringLiteral("zh_CN"));
    theme_ = new QComboBox;
    theme_->setObjectName(QStringLiteral("theme"));
    theme_->addItem(tr("Follow system"), QStringLiteral("system"));
    theme_->addItem(tr("Light"), QStringLiteral("light"));
    theme_->addItem(tr("Dark"), QStringLiteral("dark"));
    f->addRow(tr("Language:"), language_);
    f->addRow(QString(), note(tr("A new language applies when Sightline is restarted.")));
    f->addRow(tr("Theme:"), theme_);
    v->addWidget(box);
    v->addStretch(1);
    return page;
}

QWidget* SettingsDialog::createReviewerPage()
{
    auto* page = new QWidget;
    auto* v = new QVBoxLayout(page);
    auto* box = new QGroupBox(tr("LLM reviewer (optional, off by default)"));
    auto* f = new QFormLayout(box);
    llmEndpoint_ = new QLineEdit;
    llmEndpoint_->setObjectName(QStringLiteral("llmEndpoint"));
    llmEndpoint_->setPlaceholderText(QStringLiteral("http://localhost:8080/v1"));
    llmEndpoint_->setClearButtonEnabled(true);
    llmEndpoint_->setToolTip(tr("An OpenAI-compatible endpoint (llama.cpp server, vLLM, Ollama), like the CLI's "
                                "--llm-endpoint. Empty: the reviewer is off and nothing is sent anywhere."));
    llmModel_ = new QLineEdit;
    llmModel_->setObjectName(QStringLiteral("llmModel"));
    llmModel_->setPlaceholderText(tr("the server's default"));
    llmKeyEnv_ = new QLineEdit;
    llmKeyEnv_->setObjectName(QStringLiteral("llmKeyEnv"));
    llmKeyEnv_->setPlaceholderText(QStringLiteral("SIGHTLINE_LLM_KEY"));
    llmKeyEnv_->setToolTip(tr("The name of the environment variable that holds the API key (like the CLI's "
                              "--llm-key-env). The key itself is never stored by Sightline."));
    llmTimeout_ = new QSpinBox;
    llmTimeout_->setObjectName(QStringLiteral("llmTimeout"));
    llmTimeout_->setRange(1, 600);
    llmTimeout_->setSuffix(QStringLiteral(" s"));
    llmAllowPaths_ = new QCheckBox(tr("Allow file paths in what is sent"));
    llmAllowPaths_->setObjectName(QStringLiteral("llmAllowPaths"));
    llmAllowPaths_->setToolTip(tr("Off: every absolute path in a finding's text is replaced by <path> before it is "
                                  "sent."));
    f->addRow(tr("Endpoint URL:"), llmEndpoint_);
    f->addRow(tr("Model:"), llmModel_);
    f->addRow(tr("API key variable:"), llmKeyEnv_);
    f->addRow(QString(), note(tr("Only the variable's name is stored; set the key in the environment Sightline "
                                 "starts in. Empty: no key is sent."), true));
    f->addRow(tr("Timeout:"), llmTimeout_);
    f->addRow(QString(), llmAllowPaths_);
    v->addWidget(box);
    v->addWidget(note(tr("Tools › Review Findings with LLM… sends the findings and their evidence as JSON (never the "
                         "trace) and shows the verdicts beside them. Verdicts that cite no evidence or contradict it "
                         "are dropped. The findings themselves never change."),
                      true));
    v->addStretch(1);
    return page;
}

void SettingsDialog::setSettings(const WorkbenchSettings& s)
{
    const int gpuIndex = s.gpu.isEmpty() ? 0 : gpu_->findData(s.gpu);
    if (gpuIndex >= 0)
        gpu_->setCurrentIndex(gpuIndex);
    else
        gpu_->setEditText(s.gpu);
    modelConfig_->setText(s.modelConfig);
    batch_->setValue(s.batch);
    prompt_->setValue(s.prompt);
    context_->setValue(s.context);
    kernelWaitUs_->setValue(toUs(s.kernelWaitNs));
    shortKernelUs_->setValue(toUs(s.shortKernelNs));
    topK_->setValue(s.topK);
    tau_->setValue(s.tau);
    rulesDir_->setText(s.rulesDir);
    kbPath_->setText(s.kbPath);
    const int lang = language_->findData(s.langCode() == "zh_CN" ? QStringLiteral("zh_CN") : QStringLiteral("en"));
    language_->setCurrentIndex(std::max(0, lang));
    theme_->setCurrentIndex(std::max(0, theme_->findData(s.theme)));
    llmEndpoint_->setText(s.reviewer.endpoint);
    llmModel_->setText(s.reviewer.model);
    llmKeyEnv_->setText(s.reviewer.keyEnv);
    llmTimeout_->setValue(s.reviewer.timeoutS);
    llmAllowPaths_->setChecked(s.reviewer.allowPaths);
    checkGpu();
    checkModelConfig();
}

WorkbenchSettings SettingsDialog::settings() const
{
    WorkbenchSettings s;
    const QString gpuText = gpu_->currentText().trimmed();
    // The "From the trace" entry (in whatever language) means no override.
    if (gpuText.isEmpty() || gpuText == gpu_->itemText(0))
        s.gpu.clear();
    else
        s.gpu = gpuText;
    s.modelConfig = modelConfig_->text().trimmed();
    s.batch = batch_->value();
    s.prompt = prompt_->value();
    s.context = context_->value();
    s.kernelWaitNs = toNs(kernelWaitUs_->value());
    s.shortKernelNs = toNs(shortKernelUs_->value());
    s.topK = topK_->value();
    s.tau = tau_->value();
    s.rulesDir = rulesDir_->text().trimmed();
    s.kbPath = kbPath_->text().trimmed();
    s.language = language_->currentData().toString();
    s.theme = theme_->currentData().toString();
    s.reviewer.endpoint = llmEndpoint_->text().trimmed();
    s.reviewer.model = llmModel_->text().trimmed();
    s.reviewer.keyEnv = llmKeyEnv_->text().trimmed();
    s.reviewer.timeoutS = llmTimeout_->value();
    s.reviewer.allowPaths = llmAllowPaths_->isChecked();
    return s;
}

bool SettingsDialog::edit(WorkbenchSettings& settings, QWidget* parent)
{
    SettingsDialog dialog(settings, parent);
    if (dialog.exec() != QDialog::Accepted)
        return false;
    settings = dialog.settings();
    return true;
}

QString SettingsDialog::modelConfigStatus() const { return modelStatus_->text(); }
QString SettingsDialog::gpuStatus() const { return gpuStatus_->text(); }

void SettingsDialog::restoreDefaults()
{
    WorkbenchSettings d;
    d.language = language_->currentData().toString();
    setSettings(d);
}

void SettingsDialog::checkModelConfig()
{
    const QString path = modelConfig_->text().trimmed();
    if (path.isEmpty()) {
        modelStatus_->setText(tr("None: no Roofline, unless a config.json is opened with the trace."));
        return;
    }
    const std::string p = path.toStdString();
    const InputFormat f = sniff_file(p);
    if (f == InputFormat::Missing) {
        modelStatus_->setText(tr("⚠ The file does not exist or cannot be read."));
        return;
    }
    if (f != InputFormat::ModelConfig) {
        modelStatus_->setText(tr("⚠ Not a Hugging Face config.json (this looks like: %1).")
                                  .arg(QString::fromLatin1(input_format_name(f))));
        return;
    }
    try {
        const ModelConfig m = load_model_config(p);
        const QString kind = qs(m.architecture.empty() ? m.model_type : m.architecture);
        QString text = tr("✓ Model config: %1, %2 layers, hidden size %3").arg(kind).arg(m.num_layers).arg(m.hidden_size);
        if (m.num_experts > 0)
            text += tr(", %1 experts (%2 per token)").arg(m.num_experts).arg(m.experts_per_token);
        modelStatus_->setText(text);
    } catch (const std::exception& e) {
        modelStatus_->setText(tr("⚠ A config.json, but it cannot be used: %1").arg(QString::fromStdString(e.what())));
    }
}

void SettingsDialog::checkGpu()
{
    const QString text = gpu_->currentText().trimmed();
    if (text.isEmpty() || text == gpu_->itemText(0)) {
        gpuStatus_->setText(tr("The GPU is matched from the device name in the trace."));
        return;
    }
    if (!gpuDb_) {
        gpuStatus_->setText(tr("⚠ The GPU database cannot be read: %1").arg(gpuDbError_));
        return;
    }
    if (const GpuSpec* row = gpuDb_->find(text.toStdString())) {
        QString line = tr("✓ %1").arg(qs(row->name));
        if (row->mem_bw_Bps > 0)
            line += tr(": %1 SMs, %2 TB/s").arg(row->sm_count).arg(row->mem_bw_Bps / 1e12, 0, 'f', 2);
        gpuStatus_->setText(line);
    } else {
        gpuStatus_->setText(tr("⚠ Unknown GPU: the Roofline will fail. Pick a row from the list."));
    }
}

void SettingsDialog::browseModelConfig()
{
    const QString start = modelConfig_->text().isEmpty() ? QString() : QFileInfo(modelConfig_->text()).absolutePath();
    const QString file = QFileDialog::getOpenFileName(this, tr("Model config"), start,
                                                      tr("Model config (config.json *.json);;All files (*)"));
    if (!file.isEmpty())
        modelConfig_->setText(file);
}

void SettingsDialog::browseRulesDir()
{
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Rules folder"), rulesDir_->text());
    if (!dir.isEmpty())
        rulesDir_->setText(dir);
}

void SettingsDialog::browseKb()
{
    // The file need not exist yet: the knowledge base creates it on first use.
    const QString start = kbPath_->text().isEmpty() ? kbPath_->placeholderText() : kbPath_->text();
    const QString file = QFileDialog::getSaveFileName(this, tr("Knowledge base"), start,
                                                      tr("Knowledge base (*.db);;All files (*)"), nullptr,
                                                      QFileDialog::DontConfirmOverwrite);
    if (!file.isEmpty())
        kbPath_->setText(file);
}

} // namespace sl
