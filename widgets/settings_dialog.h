#pragma once
// Settings › Preferences: edits a WorkbenchSettings (GPU override, model config and shape, analysis thresholds,
// rules directory, knowledge base, language, theme, and the optional LLM reviewer: endpoint, model, the name of
// the environment variable holding the API key, timeout, whether file paths may be sent). The dialog only edits a value: the caller saves it
// (WorkbenchSettings::save), hands it to the JobRunner and re-runs the analysis of the open files.
//
//   WorkbenchSettings s = runner->settings();
//   if (SettingsDialog::edit(s, this)) { s.save(); runner->setSettings(s); ... }

#include <QDialog>
#include <memory>

#include "model/workbench_settings.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QSpinBox;
class QTabWidget;

namespace sl {

class GpuDatabase;

class SettingsDialog : public QDialog {
    Q_OBJECT
public:
    explicit SettingsDialog(const WorkbenchSettings& settings, QWidget* parent = nullptr);

    // Fills every widget from `settings`.
    void setSettings(const WorkbenchSettings& settings);
    // The values the widgets show now.
    WorkbenchSettings settings() const;

    // Modal: shows the dialog for `settings`; on OK writes the edited values back and returns true.
    static bool edit(WorkbenchSettings& settings, QWidget* parent = nullptr);

    // What the inline checks say (for tests): the model config's check, the GPU override's check.
    QString modelConfigStatus() const;
    QString gpuStatus() const;

public slots:
    // Every field back to its default, except the language (changing it needs a restart; do not flip it silently).
    void restoreDefaults();

private:
    QWidget* createModelPage();
    QWidget* createThresholdPage();
    QWidget* createLocationsPage();
    QWidget* createAppearancePage();
    QWidget* createReviewerPage();
    void checkModelConfig();
    void checkGpu();
    void browseModelConfig();
    void browseRulesDir();
    void browseKb();

    QTabWidget* tabs_ = nullptr;
    QComboBox* gpu_ = nullptr;
    QLabel* gpuStatus_ = nullptr;
    QLineEdit* modelConfig_ = nullptr;
    QLabel* modelStatus_ = nullptr;
    QSpinBox* batch_ = nullptr;
    QSpinBox* prompt_ = nullptr;
    QSpinBox* context_ = nullptr;
    QDoubleSpinBox* kernelWaitUs_ = nullptr;
    QDoubleSpinBox* shortKernelUs_ = nullptr;
    QSpinBox* topK_ = nullptr;
    QDoubleSpinBox* tau_ = nullptr;
    QLineEdit* rulesDir_ = nullptr;
    QLineEdit* kbPath_ = nullptr;
    QComboBox* language_ = nullptr;
    QComboBox* theme_ = nullptr;
    QLineEdit* llmEndpoint_ = nullptr;
    QLineEdit* llmModel_ = nullptr;
    QLineEdit* llmKeyEnv_ = nullptr;
    QSpinBox* llmTimeout_ = nullptr;
    QCheckBox* llmAllowPaths_ = nullptr;
    std::shared_ptr<const GpuDatabase> gpuDb_;   // null when resources/gpus.json could not be read
    QString gpuDbError_;
};

} // namespace sl
