#pragma once
// File › Profile…: runs the user's inference command under `nsys profile` N times (analysis/profile_loop.h through
// model/loop_job.h, the same code as `sightline-cli profile`), with a live log of nsys's and the command's output,
// "run i of N" progress and Cancel, which stops the running tools and keeps the finished runs. When at least one
// run finished, resultReady() carries the representative run's SQLite export for the workbench to open.

#include <QDialog>

#include "analysis/profile_loop.h"

class QCheckBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;

namespace sl {

class LoopJob;

class ProfileDialog : public QDialog {
    Q_OBJECT
public:
    // kbPath: the knowledge base the runs are recorded in (empty = the default one).
    explicit ProfileDialog(const QString& kbPath, QWidget* parent = nullptr);
    ~ProfileDialog() override;

    // The request the fields describe; an empty request.command and a message in `error` when they are incomplete.
    ProfileRequest request(QString* error = nullptr) const;
    // The output folder used when the field is empty: the first free "sightline-profile-N" in the working folder.
    QString defaultOutDir() const;

    LoopJob* job() const { return job_; }
    QString logText() const;
    QString statusText() const;

public slots:
    void start();            // the Run button
    void cancelOrClose();    // the Cancel button: cancels a run in progress, else closes

signals:
    void resultReady(const QStringList& paths);

protected:
    void reject() override;

private:
    void setRunning(bool running);
    void setStatus(const QString& text, bool error = false);

    QLineEdit* command_;
    QLineEdit* workDir_;
    QPlainTextEdit* env_;
    QSpinBox* runs_;
    QLineEdit* nsysArgs_;
    QLineEdit* outDir_;
    QCheckBox* record_;
    QPlainTextEdit* log_;
    QProgressBar* progress_;
    QLabel* status_;
    QPushButton* run_;
    QPushButton* cancel_;
    LoopJob* job_;
    QString kbPath_;
};

} // namespace sl
