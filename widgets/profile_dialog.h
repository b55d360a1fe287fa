#pragma once
// File › Profile…: runs the user's inference command under `nsys profile` N times (analysis/profile_loop.h through
// model/loop_job.h, the same code as `sightline-cli profile`), with a live log of nsys's and the command's output,
// "run i of N" progress and Cancel, which stops the running tools and keeps the finished runs. When at least one
// run finished, resultReady() carries the representative run's SQLite export for the workbench to open.
//
// The output folder gets what `sightline-cli profile` writes there: run<i>.{nsys-rep,sqlite,analysis.json},
// profile.json and report.md of the run nearest the median (model/loop_job.h's markdownReportWriter: the same
// pipeline and report as `sightline-cli report --format md`), analysed with the workbench's options (setSettings:
// the model config, GPU and shape of Preferences, like --model/--gpu/--batch/--prompt/--context).

#include "analysis/profile_loop.h"
#include "analysis/report_pipeline.h"
#include "widgets/loop_dialog_base.h"

class QCheckBox;
class QLineEdit;
class QPlainTextEdit;
class QProgressBar;
class QSpinBox;

namespace sl {

struct WorkbenchSettings;

class ProfileDialog : public LoopDialogBase {
    Q_OBJECT
public:
    // kbPath: the knowledge base the runs are recorded in (empty = the default one).
    explicit ProfileDialog(const QString& kbPath, QWidget* parent = nullptr);

    // The analysis options of the runs and their report (Preferences); without it, the CLI's defaults.
    void setSettings(const WorkbenchSettings& settings);

    // The request the fields describe; an empty request.command and a message in `error` when they are incomplete.
    ProfileRequest request(QString* error = nullptr) const;
    // The output folder used when the field is empty: the first free "sightline-profile-N" in the working folder.
    QString defaultOutDir() const;

public slots:
    void start() override;   // the Run button

protected:
    void runningChanged(bool running) override;

private:
    QLineEdit* command_;
    QLineEdit* workDir_;
    QPlainTextEdit* env_;
    QSpinBox* runs_;
    QLineEdit* nsysArgs_;
    QLineEdit* outDir_;
    QCheckBox* record_;
    QProgressBar* progress_;
    QString kbPath_;
    PipelineOptions pipeline_;              // the runs' analysis (run<i>.analysis.json)
    report::PipelineOptions report_;        // report.md
    report::Lang lang_ = report::Lang::En;
};

} // namespace sl
