#pragma once
// Analysis › Deep-dive Focus Set…: forms the open trace's focus set (Top-K ∪ low E_roof, analysis/profile_loop.h on
// a worker), shows the exact ncu command it will run (the --set, roofline or full, the kernel regex, the
// steady-state launch window) before anything runs, then runs ncu on the user's inference command, exports the CSV
// and joins it: resultReady() carries the trace and the CSV for the workbench to open together. Same code as
// `sightline-cli deep-dive`; Cancel stops ncu and keeps its partial report.

#include <QDialog>
#include <memory>

#include "analysis/profile_loop.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;

namespace sl {

class LoopJob;

class DeepDiveDialog : public QDialog {
    Q_OBJECT
public:
    // trace: the open trace file (or a profile folder); pipeline: the workbench's options (model config, GPU, K, τ).
    DeepDiveDialog(const QString& trace, const PipelineOptions& pipeline, QWidget* parent = nullptr);
    ~DeepDiveDialog() override;

    DeepDiveRequest request() const;
    // The ncu command lines as they will run ("" until the focus set is formed).
    QString commandPreview() const;
    bool planned() const { return plan_ != nullptr; }

    LoopJob* job() const { return job_; }
    QString logText() const;
    QString statusText() const;

public slots:
    void start();
    void cancelOrClose();

signals:
    void resultReady(const QStringList& paths);

protected:
    void reject() override;

private:
    void updatePreview();
    void setRunning(bool running);
    void setStatus(const QString& text, bool error = false);

    QString trace_;
    PipelineOptions pipeline_;
    QComboBox* set_;
    QLineEdit* command_;
    QLineEdit* workDir_;
    QLineEdit* ncuArgs_;
    QLineEdit* outDir_;
    QLabel* focus_;
    QPlainTextEdit* preview_;
    QPlainTextEdit* log_;
    QLabel* status_;
    QPushButton* run_;
    QPushButton* cancel_;
    LoopJob* job_;
    std::shared_ptr<const DeepDivePlan> plan_;
    QString ncuPath_;
    bool toolOk_ = false;
};

} // namespace sl
