#include "widgets/profile_dialog.h"

#include <QCheckBox>
#include <QDir>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include "model/loop_job.h"
#include "model/workbench_settings.h"

namespace sl {

namespace {

QLineEdit* lineEdit(QWidget* parent, const char* name, const QString& placeholder)
{
    auto* e = new QLineEdit(parent);
    e->setObjectName(QString::fromLatin1(name));
    e->setPlaceholderText(placeholder);
    return e;
}

QWidget* withBrowse(QLineEdit* edit, QWidget* parent, const QString& title, const QString& browse)
{
    auto* w = new QWidget(parent);
    auto* h = new QHBoxLayout(w);
    h->setContentsMargins(0, 0, 0, 0);
    h->addWidget(edit);
    auto* b = new QPushButton(browse, w);
    h->addWidget(b);
    QObject::connect(b, &QPushButton::clicked, w, [edit, parent, title] {
        const QString d = QFileDialog::getExistingDirectory(parent, title, edit->text());
        if (!d.isEmpty())
            edit->setText(d);
    });
    return w;
}

} // namespace

ProfileDialog::ProfileDialog(const QString& kbPath, QWidget* parent)
    : LoopDialogBase(tr("Cancelling: stopping nsys and the command…"), 220, parent), kbPath_(kbPath)
{
    setWindowTitle(tr("Profile"));
    auto* form = new QFormLayout;
    command_ = lineEdit(this, "command", tr("python generate.py --model …"));
    command_->setToolTip(tr("The inference command, run under nsys profile (quotes group words)"));
    workDir_ = lineEdit(this, "workDir", QDir::homePath());
    env_ = new QPlainTextEdit(this);
    env_->setObjectName(QStringLiteral("environment"));
    env_->setPlaceholderText(tr("NAME=value, one per line"));
    env_->setMaximumHeight(70);
    runs_ = new QSpinBox(this);
    runs_->setObjectName(QStringLiteral("runs"));
    runs_->setRange(1, 100);
    runs_->setValue(3);
    runs_->setToolTip(tr("Profile several times to measure the run-to-run spread (3 or more recommended)"));
    nsysArgs_ = lineEdit(this, "nsysArgs", tr("--delay=5 --duration=20, or --capture-range=nvtx --nvtx-capture=decode"));
    nsysArgs_->setToolTip(tr("Extra nsys profile flags, after Sightline's own (so they win)"));
    outDir_ = lineEdit(this, "outDir", tr("a new sightline-profile-N folder in the working folder"));
    record_ = new QCheckBox(tr("Record the runs in the knowledge base"), this);
    record_->setObjectName(QStringLiteral("record"));
    record_->setChecked(true);
    form->addRow(tr("Command:"), command_);
    form->addRow(tr("Working folder:"), withBrowse(workDir_, this, tr("Working folder"), tr("Browse…")));
    form->addRow(tr("Environment:"), env_);
    form->addRow(tr("Runs:"), runs_);
    form->addRow(tr("nsys flags:"), nsysArgs_);
    form->addRow(tr("Output folder:"), withBrowse(outDir_, this, tr("Output folder"), tr("Browse…")));
    form->addRow(QString(), record_);

    progress_ = new QProgressBar(this);
    progress_->setObjectName(QStringLiteral("progress"));
    progress_->setTextVisible(true);
    progress_->setValue(0);
    progress_->setFormat(QString());
    for (QWidget* w : {static_cast<QWidget*>(command_), static_cast<QWidget*>(workDir_), static_cast<QWidget*>(env_),
                       static_cast<QWidget*>(runs_), static_cast<QWidget*>(nsysArgs_), static_cast<QWidget*>(outDir_),
                       static_cast<QWidget*>(record_)})
        addInput(w);
    finishLayout(form, progress_);

    connect(job(), &LoopJob::runStarted, this, [this](int run, int runs) {
        progress_->setRange(0, runs);
        progress_->setValue(run - 1);
        progress_->setFormat(tr("run %1 of %2").arg(run).arg(runs));
        setStatus(tr("Profiling: run %1 of %2…").arg(run).arg(runs));
    });
    connect(job(), &LoopJob::failed, this, [this](const QString& m) {
        appendLog(m);
        setStatus(m, true);
    });
    connect(job(), &LoopJob::profileFinished, this,
            [this](const QString& rep, const QString& manifest, bool interrupted, bool toolFailed) {
                if (!rep.isEmpty() && !interrupted && !toolFailed)
                    progress_->setValue(progress_->maximum());
                if (interrupted)
                    setStatus(tr("Cancelled: the finished runs are kept (%1).").arg(manifest), true);
                else if (toolFailed)
                    setStatus(tr("nsys failed; the log says why. Finished runs are kept (%1).").arg(manifest), true);
                else
                    setStatus(tr("Done: %1").arg(manifest));
                if (!rep.isEmpty())
                    emit resultReady({rep});
            });
}

void ProfileDialog::setSettings(const WorkbenchSettings& settings)
{
    // As `sightline-cli profile --model … --gpu … --batch …` would be given them. Like the CLI, the runs' own
    // analyses do not read the knowledge base they are being recorded in.
    pipeline_ = settings.pipelineOptions();
    pipeline_.kb_path.clear();
    report_ = settings.reportOptions();
    report_.kb_path.clear();
    lang_ = settings.langCode() == "zh_CN" ? report::Lang::ZhCN : report::Lang::En;
}

QString ProfileDialog::defaultOutDir() const
{
    const QDir base(workDir_->text().trimmed().isEmpty() ? QDir::currentPath() : workDir_->text().trimmed());
    for (int i = 1;; ++i) {
        const QString d = base.filePath(QStringLiteral("sightline-profile-%1").arg(i));
        if (!QFileInfo::exists(d))
            return d;
    }
}

ProfileRequest ProfileDialog::request(QString* error) const
{
    ProfileRequest req;
    const auto fail = [&](const QString& m) {
        if (error)
            *error = m;
        req.command.clear();
        return req;
    };
    req.command = split_words(command_->text().toStdString());
    if (req.command.empty())
        return fail(tr("Give the inference command to profile."));
    const QString wd = workDir_->text().trimmed();
    if (!wd.isEmpty() && !QFileInfo(wd).isDir())
        return fail(tr("The working folder %1 does not exist.").arg(wd));
    req.cwd = wd.toStdString();
    for (const QString& line : env_->toPlainText().split(QLatin1Char('\n'))) {
        const QString l = line.trimmed();
        if (l.isEmpty() || l.startsWith(QLatin1Char('#')))
            continue;
        const qsizetype eq = l.indexOf(QLatin1Char('='));
        if (eq <= 0)
            return fail(tr("Environment line “%1” is not NAME=value.").arg(l));
        req.env[l.left(eq).trimmed().toStdString()] = l.mid(eq + 1).toStdString();
    }
    req.runs = runs_->value();
    req.nsys_args = split_words(nsysArgs_->text().toStdString());
    const QString out = outDir_->text().trimmed();
    req.out_dir = (out.isEmpty() ? defaultOutDir() : out).toStdString();
    req.record = record_->isChecked();
    req.kb_path = kbPath_.toStdString();
    req.pipeline = pipeline_;
    req.write_report = markdownReportWriter(report_, lang_);
    if (error)
        error->clear();
    return req;
}

void ProfileDialog::start()
{
    if (job()->isRunning())
        return;
    QString error;
    const ProfileRequest req = request(&error);
    if (req.command.empty()) {
        setStatus(error, true);
        return;
    }
    clearLog();
    progress_->setRange(0, req.runs);
    progress_->setValue(0);
    progress_->setFormat(QString());
    setStatus(tr("Starting nsys…"));
    setRunning(true);
    job()->startProfile(req);
}

void ProfileDialog::runningChanged(bool running) { run_->setEnabled(!running); }

} // namespace sl
