#include "widgets/loop_dialog_base.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>

#include "model/loop_job.h"

namespace sl {

LoopDialogBase::LoopDialogBase(const QString& cancelling, int logMinimumHeight, QWidget* parent)
    : QDialog(parent), job_(new LoopJob(this)), cancelling_(cancelling)
{
    log_ = new QPlainTextEdit(this);
    log_->setObjectName(QStringLiteral("log"));
    log_->setReadOnly(true);
    log_->setLineWrapMode(QPlainTextEdit::NoWrap);
    log_->setMinimumSize(640, logMinimumHeight);
    log_->setMaximumBlockCount(20000);
    status_ = new QLabel(this);
    status_->setObjectName(QStringLiteral("status"));
    status_->setWordWrap(true);
    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* buttons = new QDialogButtonBox(this);
    run_ = buttons->addButton(tr("Run"), QDialogButtonBox::AcceptRole);
    run_->setObjectName(QStringLiteral("run"));
    cancel_ = buttons->addButton(tr("Close"), QDialogButtonBox::RejectRole);
    cancel_->setObjectName(QStringLiteral("cancel"));
    disconnect(buttons, nullptr, this, nullptr);
    connect(run_, &QPushButton::clicked, this, &LoopDialogBase::start);
    connect(cancel_, &QPushButton::clicked, this, &LoopDialogBase::cancelOrClose);
    buttons_ = buttons;

    connect(job_, &LoopJob::logText, this, &LoopDialogBase::appendLog);
    connect(job_, &LoopJob::finished, this, [this] { setRunning(false); });
}

LoopDialogBase::~LoopDialogBase()
{
    job_->cancel();
    job_->waitForDone();
}

void LoopDialogBase::finishLayout(QFormLayout* form, QWidget* extra)
{
    auto* v = new QVBoxLayout(this);
    v->addLayout(form);
    v->addWidget(log_, 1);
    if (extra)
        v->addWidget(extra);
    v->addWidget(status_);
    v->addWidget(buttons_);
}

void LoopDialogBase::cancelOrClose()
{
    if (job_->isRunning()) {
        job_->cancel();
        setStatus(cancelling_);
        return;
    }
    QDialog::reject();
}

void LoopDialogBase::reject() { cancelOrClose(); }

void LoopDialogBase::setRunning(bool running)
{
    cancel_->setText(running ? tr("Cancel") : tr("Close"));
    for (QWidget* w : inputs_)
        w->setEnabled(!running);
    runningChanged(running);
}

void LoopDialogBase::setStatus(const QString& text, bool error)
{
    status_->setText(text);
    status_->setStyleSheet(error ? QStringLiteral("color: #c62828;") : QString());
}

void LoopDialogBase::appendLog(const QString& text)
{
    QString s = text;
    if (s.endsWith(QLatin1Char('\n')))
        s.chop(1);
    log_->appendPlainText(s);
}

void LoopDialogBase::clearLog() { log_->clear(); }

QString LoopDialogBase::logText() const { return log_->toPlainText(); }
QString LoopDialogBase::statusText() const { return status_->text(); }

} // namespace sl
