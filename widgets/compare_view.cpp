#include "widgets/compare_view.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

#include "model/stage_text.h"
#include "model/compare_headline.h"
#include "model/compare_job.h"
#include "model/compare_model.h"
#include "model/document.h"
#include "widgets/summary_table_view.h"

namespace sl {

namespace {

QString fileNames(const QStringList& paths)
{
    QStringList names;
    for (const QString& p : paths)
        names << QFileInfo(p).fileName();
    return names.join(QStringLiteral(", "));
}

// Names take the room that is left; the numbers keep their fitted widths next to each other. A long name must not
// push the numbers out of sight: the name column stretches instead of fitting its widest entry.
void stretchColumn(QTableView* view, int column)
{
    QHeaderView* h = view->horizontalHeader();
    h->setStretchLastSection(false);
    h->setSectionResizeMode(column, QHeaderView::Stretch);
}

// A column with long free text (a kernel name as a subject) keeps to a readable width after each fit to contents.
void capColumn(QTableView* view, int column, int maxWidth)
{
    if (view->columnWidth(column) > maxWidth)
        view->setColumnWidth(column, maxWidth);
}

} // namespace

CompareView::CompareView(Document* document, QWidget* parent) : QWidget(parent), document_(document)
{
    setObjectName(QStringLiteral("compareView"));
    job_ = new CompareJob(this);
    metrics_ = new CompareMetricsModel(this);
    classes_ = new CompareDeltaModel(CompareDeltaModel::Rows::Classes, this);
    kernels_ = new CompareDeltaModel(CompareDeltaModel::Rows::Kernels, this);
    verdicts_ = new CompareVerdictModel(this);

    // The verdict first (issue 37 §4): faster or slower end to end, in words, then what it was judged on and the
    // kernel time gained and lost; the tables below are the evidence.
    verdict_ = new QLabel(this);
    verdict_->setObjectName(QStringLiteral("compareVerdict"));
    verdict_->setWordWrap(true);
    verdict_->setTextFormat(Qt::PlainText);
    verdict_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QFont vf = verdict_->font();
    vf.setBold(true);
    vf.setPointSizeF(vf.pointSizeF() * 1.1);
    verdict_->setFont(vf);
    verdict_->hide();
    verdictDetails_ = new QLabel(this);
    verdictDetails_->setObjectName(QStringLiteral("compareVerdictDetails"));
    verdictDetails_->setWordWrap(true);
    verdictDetails_->setTextFormat(Qt::PlainText);
    verdictDetails_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    verdictDetails_->hide();

    // Header: which files are compared, and the actions.
    beforeLabel_ = new QLabel(this);
    afterLabel_ = new QLabel(this);
    for (QLabel* l : {beforeLabel_, afterLabel_}) {
        l->setTextFormat(Qt::RichText);
        l->setMinimumWidth(80);
        l->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    }
    openButton_ = new QPushButton(tr("Open After…"), this);
    openButton_->setToolTip(tr("Open the trace of the changed run (AFTER) to compare with the open trace (BEFORE)."));
    recordButton_ = new QPushButton(tr("Record Verdicts"), this);
    recordButton_->setEnabled(false);
    connect(openButton_, &QPushButton::clicked, this, &CompareView::chooseAfter);
    connect(recordButton_, &QPushButton::clicked, this, &CompareView::recordVerdicts);

    auto* files = new QVBoxLayout;
    files->setSpacing(2);
    files->addWidget(beforeLabel_);
    files->addWidget(afterLabel_);
    auto* header = new QHBoxLayout;
    header->addLayout(files, 1);
    header->addWidget(openButton_, 0, Qt::AlignTop);
    header->addWidget(recordButton_, 0, Qt::AlignTop);

    progress_ = new QProgressBar(this);
    progress_->setRange(0, 1000);
    progress_->setMaximumHeight(fontMetrics().height() + 4);
    progress_->setTextVisible(false);
    progress_->hide();
    cancel_ = new QToolButton(this);
    cancel_->setText(tr("Cancel"));
    cancel_->hide();
    connect(cancel_, &QToolButton::clicked, job_, &CompareJob::cancel);
    status_ = new QLabel(this);
    status_->setWordWrap(true);
    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* statusRow = new QHBoxLayout;
    statusRow->addWidget(status_, 1);
    statusRow->addWidget(progress_);
    statusRow->addWidget(cancel_);

    // Headline metrics.
    headline_ = new QTableView(this);
    headline_->setObjectName(QStringLiteral("headline"));
    auto* headlineProxy = new QSortFilterProxyModel(this);
    headlineProxy->setSourceModel(metrics_);
    headlineProxy->setSortRole(CompareMetricsModel::SortRole);
    headline_->setModel(headlineProxy);
    headline_->setSortingEnabled(true);
    headline_->sortByColumn(-1, Qt::AscendingOrder);
    headline_->setSelectionBehavior(QAbstractItemView::SelectRows);
    headline_->setAlternatingRowColors(true);
    headline_->setWordWrap(false);
    headline_->verticalHeader()->hide();
    headline_->verticalHeader()->setDefaultSectionSize(headline_->fontMetrics().height() + 6);
    stretchColumn(headline_, CompareMetricsModel::Metric);
    connect(metrics_, &QAbstractItemModel::modelReset, headline_, [this] { headline_->resizeColumnsToContents(); });

    // Classes, kernels, verdicts.
    classesView_ = new SummaryTableView(classes_, CompareDeltaModel::SortRole, -1, this);
    classesView_->view()->hideColumn(CompareDeltaModel::Class);
    kernelsView_ = new SummaryTableView(kernels_, CompareDeltaModel::SortRole, CompareDeltaModel::Name, this);
    kernelsView_->filterEdit()->setPlaceholderText(tr("Filter kernels by name…"));
    verdictsView_ = new SummaryTableView(verdicts_, CompareVerdictModel::SortRole, -1, this);
    for (SummaryTableView* v : {classesView_, kernelsView_, verdictsView_})
        v->view()->setTextElideMode(Qt::ElideRight);
    stretchColumn(classesView_->view(), CompareDeltaModel::Name);
    stretchColumn(kernelsView_->view(), CompareDeltaModel::Name);
    // Verdicts: the reason (a sentence) takes the rest; a subject can be a whole kernel signature.
    stretchColumn(verdictsView_->view(), CompareVerdictModel::Reason);
    connect(verdicts_, &QAbstractItemModel::modelReset, this,
            [this] { capColumn(verdictsView_->view(), CompareVerdictModel::Subject, 220); });
    connect(kernelsView_->view(), &QTableView::doubleClicked, this, [this] {
        if (const DeltaRow* r = kernels_->rowAt(kernelsView_->currentSourceRow()))
            emit kernelActivated(QString::fromStdString(r->name));
    });
    verdictNote_ = new QLabel(this);
    verdictNote_->setWordWrap(true);
    verdictNote_->setForegroundRole(QPalette::PlaceholderText);
    auto* verdictPage = new QWidget(this);
    auto* vl = new QVBoxLayout(verdictPage);
    vl->setContentsMargins(0, 0, 0, 0);
    vl->addWidget(verdictNote_);
    vl->addWidget(verdictsView_, 1);

    tabs_ = new QTabWidget(this);
    tabs_->addTab(classesView_, tr("Operator classes"));
    tabs_->addTab(kernelsView_, tr("Kernels"));
    tabs_->addTab(verdictPage, tr("Verdicts"));

    split_ = new QSplitter(Qt::Vertical, this);
    split_->addWidget(headline_);
    split_->addWidget(tabs_);
    split_->setStretchFactor(0, 2);
    split_->setStretchFactor(1, 3);
    split_->setChildrenCollapsible(false);

    // Shown when the runs are on different hardware: then the comparison cannot verify a change.
    envWarning_ = new QLabel(this);
    envWarning_->setObjectName(QStringLiteral("environmentWarning"));
    envWarning_->setWordWrap(true);
    envWarning_->setTextFormat(Qt::RichText);
    envWarning_->hide();

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(verdict_);
    layout->addWidget(verdictDetails_);
    layout->addLayout(header);
    layout->addWidget(envWarning_);
    layout->addLayout(statusRow);
    layout->addWidget(split_, 1);

    connect(job_, &CompareJob::started, this, [this] {
        progress_->setValue(0);
        progress_->show();
        cancel_->show();
        openButton_->setEnabled(true);
        recordButton_->setEnabled(false);
        setStatus(tr("Comparing…"));
    });
    connect(job_, &CompareJob::progress, this, [this](double f, const QString& stage) {
        progress_->setValue(int(f * 1000));
        if (!stage.isEmpty())
            setStatus(tr("Comparing… (%1)").arg(StageText::label(stage)));
    });
    connect(job_, &CompareJob::finished, this, [this](const std::shared_ptr<const CompareOutput>& out) {
        progress_->hide();
        cancel_->hide();
        showOutput(out);
        emit comparisonFinished(true);
    });
    connect(job_, &CompareJob::failed, this, [this](const QString& msg) {
        progress_->hide();
        cancel_->hide();
        clearResults();
        setStatus(tr("The comparison failed: %1").arg(msg));
        emit comparisonFinished(false);
    });
    connect(job_, &CompareJob::cancelled, this, [this] {
        progress_->hide();
        cancel_->hide();
        setStatus(tr("Comparison cancelled."));
        emit comparisonFinished(false);
    });
    connect(job_, &CompareJob::recorded, this, [this](int n, const QString& path) {
        recorded_ = true;
        recordButton_->setEnabled(false);
        setStatus(tr("Recorded %n verdict(s) in %1.", nullptr, n).arg(path));
    });
    connect(job_, &CompareJob::recordFailed, this, [this](const QString& msg) {
        recordButton_->setEnabled(true);
        setStatus(tr("Recording failed: %1").arg(msg));
    });

    if (document_) {
        // A new BEFORE: the old comparison no longer holds; compare again once the new analysis is ready.
        connect(document_, &Document::traceChanged, this, [this] {
            job_->cancel();
            clearResults();
            updateHeader();
        });
        connect(document_, &Document::cleared, this, [this] {
            job_->cancel();
            clearResults();
            updateHeader();
        });
        connect(document_, &Document::analysisChanged, this, &CompareView::startIfReady);
    }
    updateHeader();
    setStatus(tr("Open the trace of the changed run with “Open After…” to compare it with the open trace."));
}

CompareView::~CompareView() = default;

void CompareView::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    const Qt::Orientation o = width() > 2 * height() ? Qt::Horizontal : Qt::Vertical;
    if (split_->orientation() == o)
        return;
    split_->setOrientation(o);
    // Beside the tabs the headline needs little width; the kernel table's names need all they can get.
    const int total = o == Qt::Horizontal ? split_->width() : split_->height();
    const int first = o == Qt::Horizontal ? total / 3 : total * 2 / 5;
    split_->setSizes({first, total - first});
}

void CompareView::setSettings(const WorkbenchSettings& settings) { job_->setSettings(settings); }

QString CompareView::statusText() const { return status_->text(); }

QString CompareView::verdictText() const { return verdict_->isHidden() ? QString() : verdict_->text(); }

QString CompareView::verdictDetails() const { return verdictDetails_->isHidden() ? QString() : verdictDetails_->text(); }

void CompareView::setStatus(const QString& text) { status_->setText(text); }

void CompareView::openAfter(const QStringList& paths)
{
    afterPaths_.clear();
    for (const QString& p : paths)
        afterPaths_ << QFileInfo(p).absoluteFilePath();
    clearResults();
    updateHeader();
    startIfReady();
}

void CompareView::startIfReady()
{
    if (afterPaths_.isEmpty())
        return;
    if (!document_ || !document_->trace() || !document_->analysis()) {
        setStatus(tr("Waiting for the open trace's analysis…"));
        return;
    }
    recorded_ = false;
    job_->start(document_->trace(), document_->analysis(), document_->inputs().traces.isEmpty()
                                                               ? document_->paths()
                                                               : document_->inputs().traces,
                afterPaths_);
}

void CompareView::chooseAfter()
{
    QSettings settings;
    const QString dir = settings.value(QStringLiteral("lastDirectory")).toString();
    const QStringList files = QFileDialog::getOpenFileNames(
        this, tr("Open After Trace"), dir,
        tr("GPU traces (*.sqlite *.nsys-rep *.qdrep *.json *.json.gz *.gz);;All files (*)"));
    if (files.isEmpty())
        return;
    settings.setValue(QStringLiteral("lastDirectory"), QFileInfo(files.first()).absolutePath());
    openAfter(files);
}

void CompareView::recordVerdicts()
{
    if (!job_->output())
        return;
    recordButton_->setEnabled(false);
    setStatus(tr("Recording in %1…").arg(job_->output()->kbPath));
    job_->recordVerdicts();
}

void CompareView::showOutput(const std::shared_ptr<const CompareOutput>& out)
{
    const std::shared_ptr<const CompareResult> result(out, &out->result);
    metrics_->setResult(result);
    classes_->setResult(result);
    kernels_->setResult(result);
    verdicts_->setResult(result);
    updateHeader();

    const CompareHeadline h = compareHeadline(*out);
    verdict_->setText(h.title);
    verdictDetails_->setText(h.details);
    const bool dark = palette().color(QPalette::Base).lightnessF() < 0.5;
    const QColor ink = compareStatusColor(h.verdict == CompareHeadline::Verdict::Faster   ? "better"
                                          : h.verdict == CompareHeadline::Verdict::Slower ? "worse"
                                                                                          : "",
                                          dark);
    verdict_->setStyleSheet(ink.isValid() ? QStringLiteral("color: %1;").arg(ink.name()) : QString());
    verdict_->setVisible(!h.title.isEmpty());
    verdictDetails_->setVisible(!h.details.isEmpty());
    showEnvironment(out->result.environment);
    const int n = int(out->result.verdicts.size());
    // The suggestions' verdicts in a line (the Verdicts tab has them one by one).
    int verified = 0, failed = 0, inconclusive = 0, unmeasurable = 0;
    for (const SuggestionVerdict& v : out->result.verdicts) {
        verified += v.verdict == "verified";
        failed += v.verdict == "failed";
        inconclusive += v.verdict == "inconclusive";
        unmeasurable += v.verdict == "unmeasurable";
    }
    setStatus(n > 0 ? tr("Accepted suggestions: %1 verified, %2 failed, %3 inconclusive, %4 unmeasurable (Verdicts "
                         "tab).")
                          .arg(verified)
                          .arg(failed)
                          .arg(inconclusive)
                          .arg(unmeasurable)
                    : out->verdictNote.isEmpty() ? tr("No suggestion of the before trace was accepted.")
                                                 : out->verdictNote);
    tabs_->setTabText(2, n > 0 ? tr("Verdicts (%1)").arg(n) : tr("Verdicts"));
    verdictNote_->setText(out->verdictNote.isEmpty()
                              ? tr("Suggestions accepted on the before trace, judged by the metric each promised to "
                                   "move. Nothing is written until you press Record Verdicts.")
                              : out->verdictNote);
    recordButton_->setEnabled(!recorded_);
    recordButton_->setToolTip(tr("Write the after run and these verdicts into the knowledge base %1 (as "
                                 "'sightline-cli compare --record' does).")
                                  .arg(out->kbPath));
}

void CompareView::clearResults()
{
    metrics_->setResult(nullptr);
    classes_->setResult(nullptr);
    kernels_->setResult(nullptr);
    verdicts_->setResult(nullptr);
    verdict_->clear();
    verdict_->hide();
    verdictDetails_->clear();
    verdictDetails_->hide();
    recordButton_->setEnabled(false);
    tabs_->setTabText(2, tr("Verdicts"));
    verdictNote_->clear();
    envWarning_->hide();
    envWarning_->clear();
}

void CompareView::showEnvironment(const CompareEnvironment& env)
{
    QStringList hardware, all;
    for (const EnvDifference& d : env.differences) {
        const QString b = QString::fromStdString(d.before), a = QString::fromStdString(d.after);
        if (d.field == "gpu")
            hardware << tr("%1 → %2").arg(b, a);
        else if (d.field == "gpu_count")
            hardware << tr("%1 → %2 GPUs").arg(b, a);
        all << tr("%1: %2 → %3").arg(QString::fromStdString(d.field), b, a);
    }
    envWarning_->setToolTip(all.isEmpty() ? QString() : tr("Environment differences:\n%1").arg(all.join(QLatin1Char('\n'))));
    if (env.same_hardware()) {
        envWarning_->hide();
        envWarning_->clear();
        return;
    }
    envWarning_->setText(tr("<b>Different hardware:</b> %1. Every difference mixes the hardware with the change, so "
                            "no suggestion is verified or failed across these runs; compare runs on the same GPUs.")
                             .arg(hardware.join(QStringLiteral(", ")).toHtmlEscaped()));
    envWarning_->show();
}

QString CompareView::environmentWarning() const { return envWarning_->isHidden() ? QString() : envWarning_->text(); }

void CompareView::updateHeader()
{
    QStringList before;
    if (document_)
        before = document_->inputs().traces.isEmpty() ? document_->paths() : document_->inputs().traces;
    const QString none = tr("(none)");
    beforeLabel_->setText(tr("<b>Before:</b> %1").arg(before.isEmpty() ? none : fileNames(before).toHtmlEscaped()));
    beforeLabel_->setToolTip(before.join(QLatin1Char('\n')));
    afterLabel_->setText(
        tr("<b>After:</b> %1").arg(afterPaths_.isEmpty() ? none : fileNames(afterPaths_).toHtmlEscaped()));
    afterLabel_->setToolTip(afterPaths_.join(QLatin1Char('\n')));
}

} // namespace sl
