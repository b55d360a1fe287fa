#pragma once
// What File › Profile… and Deep-dive Focus Set… share: a LoopJob on a worker, a live log of what the loop says, a
// status line (red for errors), Run and Cancel/Close buttons, and the rule that Cancel (or Esc, or closing the
// window) during a run stops the run and keeps the dialog, and closes it otherwise. The subclass builds its form,
// registers the fields that lock while a run goes on (addInput), and hands its layout to finishLayout().

#include <QDialog>
#include <QList>
#include <QString>
#include <QStringList>

class QFormLayout;
class QLabel;
class QPlainTextEdit;
class QPushButton;

namespace sl {

class LoopJob;

class LoopDialogBase : public QDialog {
    Q_OBJECT
public:
    ~LoopDialogBase() override;   // cancels a run and waits for its worker

    LoopJob* job() const { return job_; }
    QString logText() const;
    QString statusText() const;

public slots:
    virtual void start() = 0;   // the Run button
    void cancelOrClose();       // the Cancel button: cancels a run in progress, else closes

signals:
    // The files the workbench should open when the loop is done.
    void resultReady(const QStringList& paths);

protected:
    // cancelling: the status shown while a cancelled run stops ("Cancelling: stopping nsys and the command…").
    LoopDialogBase(const QString& cancelling, int logMinimumHeight, QWidget* parent);
    void reject() override;

    // Fields disabled while a run goes on.
    void addInput(QWidget* w) { inputs_ << w; }
    // form, log, `extra` (e.g. a progress bar; may be null), status, buttons.
    void finishLayout(QFormLayout* form, QWidget* extra = nullptr);
    void setRunning(bool running);
    // Called by setRunning after the shared part: the subclass decides when Run is enabled.
    virtual void runningChanged(bool running) = 0;
    void setStatus(const QString& text, bool error = false);
    void appendLog(const QString& text);   // one chunk; a trailing newline is dropped
    void clearLog();

    QPushButton* run_;
    QPushButton* cancel_;

private:
    LoopJob* job_;
    QPlainTextEdit* log_;
    QLabel* status_;
    QWidget* buttons_;
    QList<QWidget*> inputs_;
    QString cancelling_;
};

} // namespace sl
