#pragma once
// Analysis › Deep-dive Focus Set…: forms the open trace's focus set (Top-K ∪ low E_roof, analysis/profile_loop.h on
// a worker), shows the exact ncu command it will run (the --set, roofline or full, the kernel regex, the
// steady-state launch window) before anything runs, then runs ncu on the user's inference command, exports the CSV
// and joins it: resultReady() carries the trace and the CSV for the workbench to open together. Same code as
// `sightline-cli deep-dive`; Cancel stops ncu and keeps its partial report.

#include <memory>

#include "analysis/profile_loop.h"
#include "widgets/loop_dialog_base.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;

namespace sl {

class DeepDiveDialog : public LoopDialogBase {
    Q_OBJECT
public:
    // trace: the open trace file (or a profile folder); pipeline: the workbench's options (model config, GPU, K, τ).
    DeepDiveDialog(const QString& trace, const PipelineOptions& pipeline, QWidget* parent = nullptr);

    DeepDiveRequest request() const;
    // The ncu command lines as they will run ("" until the focus set is formed).
    QString commandPreview() const;
    bool planned() const { return plan_ != nullptr; }

public slots:
    void start() override;

protected:
    void runningChanged(bool running) override;

private:
    void updatePreview();

    QString trace_;
    PipelineOptions pipeline_;
    QComboBox* set_;
    QLineEdit* command_;
    QLineEdit* workDir_;
    QLineEdit* ncuArgs_;
    QLineEdit* outDir_;
    QLabel* focus_;
    QPlainTextEdit* preview_;
    std::shared_ptr<const DeepDivePlan> plan_;
    QString ncuPath_;
    bool toolOk_ = false;
};

} // namespace sl
