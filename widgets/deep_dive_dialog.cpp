#include "widgets/deep_dive_dialog.h"

#include <QComboBox>
#include <QDir>
#include <QFileInfo>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>

#include "model/loop_job.h"

namespace sl {

namespace {

// The command an earlier `profile` ran, when the trace is one of its runs (profile.json beside it).
QString profiledCommand(const QString& trace)
{
    const QFileInfo fi(trace);
    const QString dir = fi.isDir() ? fi.absoluteFilePath() : fi.absolutePath();
    if (!QFileInfo::exists(QDir(dir).filePath(QStringLiteral("profile.json"))))
        return {};
    try {
        return QString::fromStdString(shell_quote_command(read_profile_manifest(dir.toStdString()).command));
    } catch (const std::exception&) {
        return {};
    }
}

// The trace's own folder when it can be written, else a folder in the user's data directory.
QString defaultOutDir(const QString& trace)
{
    const QFileInfo fi(trace);
    const QString dir = fi.isDir() ? fi.absoluteFilePath() : fi.absolutePath();
    if (QFileInfo(dir).isWritable())
        return dir;
    return QDir::home().filePath(QStringLiteral("sightline-deep-dive"));
}

} // namespace

DeepDiveDialog::DeepDiveDialog(const QString& trace, const PipelineOptions& pipeline, QWidget* parent)
    : LoopDialogBase(tr("Cancelling: stopping ncu and the command…"), 180, parent), trace_(trace), pipeline_(pipeline)
{
    setWindowTitle(tr("Deep-dive Focus Set"));
    auto* form = new QFormLayout;
    auto* traceLabel = new QLabel(QDir::toNativeSeparators(trace), this);
    traceLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    set_ = new QComboBox(this);
    set_->setObjectName(QStringLiteral("set"));
    set_->addItem(tr("roofline (fast: the Roofline counters)"), QStringLiteral("roofline"));
    set_->addItem(tr("full (every section: slow)"), QStringLiteral("full"));
    command_ = new QLineEdit(profiledCommand(trace), this);
    command_->setObjectName(QStringLiteral("command"));
    command_->setPlaceholderText(tr("the inference command, run under ncu"));
    workDir_ = new QLineEdit(this);
    workDir_->setObjectName(QStringLiteral("workDir"));
    workDir_->setPlaceholderText(QDir::homePath());
    ncuArgs_ = new QLineEdit(this);
    ncuArgs_->setObjectName(QStringLiteral("ncuArgs"));
    ncuArgs_->setPlaceholderText(tr("extra ncu flags"));
    outDir_ = new QLineEdit(defaultOutDir(trace), this);
    outDir_->setObjectName(QStringLiteral("outDir"));
    focus_ = new QLabel(tr("Forming the focus set…"), this);
    focus_->setObjectName(QStringLiteral("focus"));
    focus_->setWordWrap(true);
    preview_ = new QPlainTextEdit(this);
    preview_->setObjectName(QStringLiteral("preview"));
    preview_->setReadOnly(true);
    preview_->setMaximumHeight(90);
    form->addRow(tr("Trace:"), traceLabel);
    form->addRow(tr("Section set:"), set_);
    form->addRow(tr("Command:"), command_);
    form->addRow(tr("Working folder:"), workDir_);
    form->addRow(tr("ncu flags:"), ncuArgs_);
    form->addRow(tr("Output folder:"), outDir_);
    form->addRow(tr("Focus set:"), focus_);
    form->addRow(tr("Will run:"), preview_);

    run_->setEnabled(false);
    for (QWidget* w : {static_cast<QWidget*>(set_), static_cast<QWidget*>(command_), static_cast<QWidget*>(workDir_),
                       static_cast<QWidget*>(ncuArgs_), static_cast<QWidget*>(outDir_)})
        addInput(w);
    finishLayout(form);

    for (QLineEdit* e : {command_, ncuArgs_, outDir_})
        connect(e, &QLineEdit::textChanged, this, &DeepDiveDialog::updatePreview);
    connect(set_, &QComboBox::currentIndexChanged, this, &DeepDiveDialog::updatePreview);

    connect(job(), &LoopJob::failed, this, [this](const QString& m) {
        appendLog(m);
        setStatus(m, true);
        if (!plan_)
            focus_->setText(tr("No focus set: %1").arg(m));
    });
    connect(job(), &LoopJob::planReady, this, [this](std::shared_ptr<const DeepDivePlan> plan, const QString& toolError) {
        plan_ = std::move(plan);
        ncuPath_ = QString::fromStdString(plan_->profile_argv.empty() ? std::string() : plan_->profile_argv.front());
        toolOk_ = toolError.isEmpty();
        QStringList names;
        for (const auto& n : plan_->target.names)
            names << QString::fromStdString(n);
        focus_->setText(names.isEmpty() ? tr("The trace has no kernels: there is no focus set to profile.")
                                        : tr("%n kernel(s): %1", nullptr, int(names.size())).arg(names.join(QStringLiteral(", "))));
        updatePreview();
        if (!toolOk_)
            setStatus(toolError, true);
        else if (!names.isEmpty())
            setStatus(tr("Check the command, then Run."));
    });
    connect(job(), &LoopJob::deepDiveFinished, this,
            [this](bool ok, const QString& trace, const QString& csv, const QString& message) {
                if (!ok) {
                    setStatus(message, true);
                    return;
                }
                setStatus(tr("Done: %1").arg(message.trimmed()));
                emit resultReady({trace, csv});
            });
    DeepDiveRequest req = request();
    setRunning(true);
    job()->startPlan(req);
}

DeepDiveRequest DeepDiveDialog::request() const
{
    DeepDiveRequest req;
    req.trace = trace_.toStdString();
    req.out_dir = outDir_->text().trimmed().toStdString();
    req.set = set_->currentData().toString().toStdString();
    req.ncu_args = split_words(ncuArgs_->text().toStdString());
    req.command = split_words(command_->text().toStdString());
    req.cwd = workDir_->text().trimmed().toStdString();
    req.pipeline = pipeline_;
    return req;
}

void DeepDiveDialog::updatePreview()
{
    if (!plan_) {
        preview_->clear();
        return;
    }
    DeepDivePlan p = *plan_;
    // The output folder decides the file names: plan them again from the field.
    const DeepDiveRequest req = request();
    if (!req.out_dir.empty())
        set_deep_dive_dir(p, req.out_dir);
    ToolInfo ncu;
    ncu.path = ncuPath_.toStdString();
    set_ncu_commands(p, req, ncu);
    preview_->setPlainText(QString::fromStdString(shell_quote_command(p.profile_argv) + "\n" +
                                                  shell_quote_command(p.import_argv) + " > " + p.csv));
    if (!job()->isRunning())
        run_->setEnabled(toolOk_ && !p.target.names.empty() && !req.command.empty());
}

QString DeepDiveDialog::commandPreview() const { return preview_->toPlainText(); }

void DeepDiveDialog::start()
{
    if (!plan_ || job()->isRunning())
        return;
    const DeepDiveRequest req = request();
    if (req.command.empty()) {
        setStatus(tr("Give the inference command to run under ncu."), true);
        return;
    }
    auto p = std::make_shared<DeepDivePlan>(*plan_);
    if (!req.out_dir.empty())
        set_deep_dive_dir(*p, req.out_dir);
    clearLog();
    setStatus(tr("Running ncu on the focus set…"));
    setRunning(true);
    job()->startDeepDive(req, p);
}

void DeepDiveDialog::runningChanged(bool running)
{
    if (running)
        run_->setEnabled(false);
    else
        updatePreview();
}

} // namespace sl
