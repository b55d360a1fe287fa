#include "main_window.h"

#include <algorithm>
#include <cmath>

#include <QAbstractSpinBox>
#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QtConcurrent/QtConcurrentRun>
#include <QHeaderView>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonArray>
#include <QLabel>
#include <QLineEdit>
#include <QComboBox>
#include <QPlainTextEdit>
#include <QTextEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QSettings>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTableView>
#include <QTreeView>
#include <QScrollArea>
#include <QScreen>
#include <QScrollBar>
#include <QSignalBlocker>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include "analysis/report/report_html.h"
#include "analysis/report/report_json.h"
#include "analysis/report/report_markdown.h"
#include "analysis/report_pipeline.h"
#include "model/stage_text.h"
#include "model/chart_render.h"
#include "model/device_model.h"
#include "model/report_pdf.h"
#include "widgets/ncu_view.h"
#include "widgets/rank_view.h"
#include "model/rank_job.h"
#include "model/document.h"
#include "model/export_path.h"
#include "model/finding_links.h"
#include "model/job_runner.h"
#include "model/kernel_summary_model.h"
#include "model/selection.h"
#include "model/timeline_index.h"
#include "model/units.h"
#include "model/workbench_settings.h"
#include "widgets/shortcuts.h"
#include "model/kb_session.h"
#include "model/suggestion_model.h"
#include "model/theme.h"
#include "widgets/compare_view.h"
#include "widgets/details_panel.h"
#include "widgets/findings_view.h"
#include "widgets/settings_dialog.h"
#include "widgets/suggestions_view.h"
#include "widgets/gap_histogram_view.h"
#include "widgets/overview_panel.h"
#include "widgets/roofline_view.h"
#include "widgets/search_bar.h"
#include "widgets/summary_table_view.h"
#include "widgets/timeline_view.h"
#include "widgets/trace_header.h"
#include "widgets/deep_dive_dialog.h"
#include "widgets/profile_dialog.h"
#include "widgets/range_stats_view.h"

namespace sl {

namespace {
constexpr int kMaxRecent = 10;
const char* kRecentKey = "recentFiles";
const char* kGeometryKey = "mainWindow/geometry";
const char* kStateKey = "mainWindow/state";
const char* kAutoLayoutKey = "mainWindow/autoLayout";
const char* kStateSizeKey = "mainWindow/stateSize";
const char* kDockShareKey = "mainWindow/dockShares";
// Bumped when panes are added (or the first view changes), so a layout saved by an older build does not hide the
// new ones.
constexpr int kLayoutVersion = 4;
// The first view gives the timeline at least this share of the window's height.
constexpr double kTimelineShare = 0.5;

// A widget that takes typed text (line edits, spin boxes, editable combo boxes and text edits).
bool takesText(const QWidget* w)
{
    if (!w)
        return false;
    if (qobject_cast<const QLineEdit*>(w) || qobject_cast<const QAbstractSpinBox*>(w))
        return true;
    if (const auto* c = qobject_cast<const QComboBox*>(w))
        return c->isEditable();
    if (const auto* t = qobject_cast<const QTextEdit*>(w))
        return !t->isReadOnly();
    if (const auto* t = qobject_cast<const QPlainTextEdit*>(w))
        return !t->isReadOnly();
    return false;
}

// Shown on screen: visible, and not behind another tab of its dock group (a tabified dock's hidden pages are
// invisible; a dock's page that is not raised has no visible region).
bool onScreen(const QWidget* w) { return w && w->isVisible() && !w->visibleRegion().isEmpty(); }
} // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent)
{
    setWindowTitle(tr("Sightline"));
    setAcceptDrops(true);
    setDockNestingEnabled(true);
    // Overview and Details run the full height on the right (they are read while any bottom pane is open).
    setCorner(Qt::BottomRightCorner, Qt::RightDockWidgetArea);

    document_ = new Document(this);
    runner_ = new JobRunner(this);
    selection_ = new Selection(this);

    connect(runner_, &JobRunner::started, this, &MainWindow::onStarted);
    connect(runner_, &JobRunner::progress, this, &MainWindow::onProgress);
    runner_->setSettings(WorkbenchSettings::load());
    connect(runner_, &JobRunner::inputsResolved, document_, &Document::setInputs);
    connect(runner_, &JobRunner::traceLoaded, document_, &Document::setTrace);
    connect(runner_, &JobRunner::rooflineReady, document_, &Document::setRoofline);
    connect(runner_, &JobRunner::rooflineFailed, document_, &Document::setRooflineError);
    connect(runner_, &JobRunner::shapesReady, document_, &Document::setShapes);
    connect(runner_, &JobRunner::diagnosisReady, document_, &Document::setDiagnosis);
    connect(runner_, &JobRunner::criticalPathReady, document_, &Document::setCriticalPath);
    connect(runner_, &JobRunner::summaryReady, document_, &Document::setSummary);
    connect(runner_, &JobRunner::timelineReady, document_, &Document::setTimeline);
    connect(runner_, &JobRunner::gapHistogramReady, document_, &Document::setGapHistogram);
    connect(runner_, &JobRunner::analysisReady, document_, &Document::setAnalysis);
    connect(runner_, &JobRunner::classDensityReady, document_, &Document::setClassDensity);
    connect(runner_, &JobRunner::analysisFailed, this,
            [this](const QString& m) { statusLabel_->setToolTip(tr("Analysis failed: %1").arg(m)); });
    connect(runner_, &JobRunner::finished, this, &MainWindow::onFinished);
    connect(runner_, &JobRunner::failed, this, &MainWindow::onFailed);
    connect(runner_, &JobRunner::cancelled, this, [this] { statusLabel_->setText(tr("Loading cancelled")); });
    connect(document_, &Document::traceChanged, this, &MainWindow::onTraceChanged);

    // Central area: a welcome page until a trace is open, then the trace overview.
    central_ = new QStackedWidget(this);
    welcome_ = new QLabel(this);
    welcome_->setAlignment(Qt::AlignCenter);
    welcome_->setWordWrap(true);
    welcome_->setText(tr("<h2>Sightline</h2><p>Open a GPU trace (Nsight Systems export, .nsys-rep, PyTorch "
                         "profiler JSON) with <b>File › Open</b>, or drop files here.</p>"));
    central_->addWidget(welcome_);
    content_ = new QWidget(this);
    auto* contentLayout = new QVBoxLayout(content_);
    contentLayout->setContentsMargins(0, 0, 0, 0);
    contentLayout->setSpacing(0);
    info_ = new QLabel(content_);
    info_->setMargin(6);
    info_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    info_->setWordWrap(true);
    timeline_ = new TimelineView(selection_, content_);
    timeline_->setToolTip(QString());
    legend_ = new QLabel(content_);
    legend_->setMargin(4);
    legend_->setWordWrap(true);
    legend_->hide();
    contentLayout->addWidget(info_);
    contentLayout->addWidget(legend_);
    searchBar_ = new SearchBar(timeline_, selection_, content_);
    contentLayout->addWidget(searchBar_);
    contentLayout->addWidget(timeline_, 1);
    connect(document_, &Document::analysisChanged, this, [this] {
        const auto a = document_->analysis();
        timeline_->setAnalysis(a);
        searchBar_->setKernelClasses(a);
        if (const auto trace = document_->trace())
            info_->setText(TraceHeader::html(*trace, a.get()));
        legend_->setVisible(a != nullptr);
        if (a)
            legend_->setText(TimelineView::legendHtml(*a));
    });
    central_->addWidget(content_);
    connect(document_, &Document::timelineChanged, this, [this] {
        timeline_->setIndex(document_->timeline());
        searchBar_->setIndex(document_->timeline());
    });
    connect(document_, &Document::classDensityChanged, this, [this] { timeline_->setClassDensity(document_->classDensity()); });
    connect(document_, &Document::criticalPathChanged, this, [this] { timeline_->setCriticalPath(document_->criticalPath()); });
    setCentralWidget(central_);

    // Panes.
    auto* kernelModel = new KernelSummaryModel(this);
    auto* deviceModel = new DeviceModel(this);
    connect(document_, &Document::summaryChanged, this, [this, kernelModel, deviceModel] {
        kernelModel->setSummary(document_->summary());
        deviceModel->setSummary(document_->summary());
    });
    auto* kernels = new SummaryTableView(kernelModel, KernelSummaryModel::SortRole, KernelSummaryModel::Name, this);
    connect(kernels, &SummaryTableView::currentSourceRowChanged, this, [this, kernelModel](int row) {
        const StatRow* r = kernelModel->rowAt(row);
        const auto trace = document_->trace();
        const uint32_t id = r && trace ? trace->strings.find(r->name) : UINT32_MAX;
        selection_->setKernelName(id);
        searchBar_->showKernelInstances(id);   // every instance outlined on the timeline, Enter steps through them
        jumpToLongest(id);
    });
    auto* devices = new SummaryTableView(deviceModel, DeviceModel::SortRole, -1, this);

    viewMenu_ = nullptr;
    createActions();
    createStatusBar();

    auto addDock = [this](QWidget* w, const QString& title, const QString& objectName, Qt::DockWidgetArea area) {
        auto* dock = new QDockWidget(title, this);
        dock->setObjectName(objectName);
        if (area == Qt::BottomDockWidgetArea) {
            // A bottom pane under a timeline given half the window may be shorter than its controls need: it scrolls
            // then, instead of holding the whole tab group (and the timeline) to its tallest tab's minimum.
            auto* scroll = new QScrollArea(dock);
            scroll->setObjectName(objectName + QStringLiteral("Scroll"));
            scroll->setFrameShape(QFrame::NoFrame);
            scroll->setWidgetResizable(true);
            scroll->setWidget(w);
            scroll->setMinimumHeight(fontMetrics().height() * 5);
            dock->setWidget(scroll);
        } else {
            dock->setWidget(w);
        }
        addDockWidget(area, dock);
        viewMenu_->addAction(dock->toggleViewAction());
        return dock;
    };
    QDockWidget* kernelDock = addDock(kernels, tr("Kernels"), QStringLiteral("kernelsDock"), Qt::BottomDockWidgetArea);
    QDockWidget* deviceDock = addDock(devices, tr("Devices"), QStringLiteral("devicesDock"), Qt::BottomDockWidgetArea);
    tabifyDockWidget(kernelDock, deviceDock);
    auto* gaps = new GapHistogramView(this);
    gaps->setSelection(selection_);
    connect(document_, &Document::analysisChanged, this,
            [this, gaps] {
                gaps->setAnalysis(document_->analysis(), document_->gapHistogram());
                const auto trace = document_->trace();
                gaps->setTrace(trace, document_->timeline() ? document_->timeline()->origin()
                                      : trace             ? timeOrigin(*trace)
                                                          : 0);
            });
    QDockWidget* gapsDock = addDock(gaps, tr("Gaps"), QStringLiteral("gapsDock"), Qt::BottomDockWidgetArea);
    tabifyDockWidget(deviceDock, gapsDock);

    auto* roofline = new RooflineView(document_, selection_, this);
    QDockWidget* rooflineDock = addDock(roofline, tr("Roofline"), QStringLiteral("rooflineDock"), Qt::BottomDockWidgetArea);
    tabifyDockWidget(gapsDock, rooflineDock);
    connect(roofline, &RooflineView::kernelActivated, this, [this](uint32_t nameId, const QString&) { jumpToLongest(nameId); });
    connect(roofline, &RooflineView::opClassActivated, this, &MainWindow::selectClassInPhase);

    findings_ = new FindingsView(document_, selection_, this);
    QDockWidget* findingsDock = addDock(findings_, tr("Findings"), QStringLiteral("findingsDock"), Qt::BottomDockWidgetArea);
    tabifyDockWidget(rooflineDock, findingsDock);
    connect(findings_, &FindingsView::rangeRequested, selection_, &Selection::setWindow);
    connect(findings_, &FindingsView::nvtxRequested, this, &MainWindow::showNvtxRange);
    connect(findings_, &FindingsView::reviewStatusChanged, this, [this](const QString& text) {
        if (!text.isEmpty())
            statusBar()->showMessage(text, 10000);
    });
    connect(findings_, &FindingsView::reviewFinished, this, &MainWindow::updateReviewAction);
    connect(document_, &Document::diagnosisChanged, this, &MainWindow::updateReviewAction);
    updateReviewAction();

    kbSession_ = new KbSession(this);
    suggestions_ = new SuggestionsView(document_, kbSession_, this);
    QDockWidget* suggestionsDock =
        addDock(suggestions_, tr("Suggestions"), QStringLiteral("suggestionsDock"), Qt::BottomDockWidgetArea);
    tabifyDockWidget(findingsDock, suggestionsDock);
    connect(suggestions_->model(), &SuggestionModel::statesChanged, findings_,
            [this] { findings_->setSuggestionStates(suggestions_->model()->stateByKey()); });
    connect(findings_, &FindingsView::currentSuggestionChanged, suggestions_, &SuggestionsView::selectSuggestionByKey);

    compareView_ = new CompareView(document_, this);
    compareDock_ = addDock(compareView_, tr("Compare"), QStringLiteral("compareDock"), Qt::BottomDockWidgetArea);
    tabifyDockWidget(suggestionsDock, compareDock_);
    compareDock_->hide();
    connect(compareView_, &CompareView::comparisonFinished, this, &MainWindow::comparisonFinished);

    // Range: the aggregate table of a Shift+drag on the timeline; shown (and raised) when a range is selected.
    rangeView_ = new RangeStatsView(this);
    rangeDock_ = addDock(rangeView_, tr("Range"), QStringLiteral("rangeDock"), Qt::BottomDockWidgetArea);
    tabifyDockWidget(compareDock_, rangeDock_);
    rangeDock_->hide();
    connect(timeline_, &TimelineView::rangeSelected, this, [this](TimeRange r) { showRange(r.start, r.end); });
    // A bin of the Gaps pane zooms the timeline to its gaps: the keys go back there, so F fits them again.
    connect(gaps, &GapHistogramView::bucketSelected, this, [this](int bin) {
        if (bin >= 0)
            timeline_->setFocus(Qt::OtherFocusReason);
    });
    // Ranks: the rank view of a folder of ranks (File › Open Ranks Folder…); shown and raised when one is opened.
    rankJob_ = new RankJob(this);
    rankView_ = new RankView(this);
    ranksDock_ = addDock(rankView_, tr("Ranks"), QStringLiteral("ranksDock"), Qt::BottomDockWidgetArea);
    tabifyDockWidget(rangeDock_, ranksDock_);
    ranksDock_->hide();
    connect(rankView_, &RankView::openRankRequested, this, &MainWindow::openRankAt);
    connect(rankJob_, &RankJob::progress, this, [this](int done, int total) {
        progress_->setValue(total > 0 ? done * 1000 / total : 0);
        rankView_->setStatus(tr("Reading ranks… %1 of %2").arg(done).arg(total));
        statusLabel_->setText(tr("Reading ranks… %1 of %2").arg(done).arg(total));
    });
    connect(rankJob_, &RankJob::finished, this, [this, findingsDock](std::shared_ptr<const RankViewData> data) {
        progress_->hide();
        cancelButton_->hide();
        rankView_->setData(data);
        ranksDock_->show();
        ranksDock_->raise();
        // No timeline yet: the maps take most of the window's height (the welcome text needs little).
        if (!document_->trace())
            resizeDocks({ranksDock_}, {height() * 3 / 5}, Qt::Vertical);
        // The cross-rank findings in the Findings pane, as one rank's are (no trace open: they link no kernels).
        if (!document_->trace()) {
            auto diagnosis = std::make_shared<Diagnosis>();
            diagnosis->eval.findings = data->merge.rule_findings;
            document_->setDiagnosis(std::move(diagnosis));
            findingsDock->show();
        }
        statusLabel_->setText(tr("%n rank(s) merged", nullptr, int(data->merge.ranks.size())));
        emit ranksOpened(true);
    });
    connect(rankJob_, &RankJob::failed, this, [this](const QString& message) {
        progress_->hide();
        cancelButton_->hide();
        rankView_->setStatus(tr("Could not open the ranks: %1").arg(message));
        statusLabel_->setText(tr("Could not open the ranks"));
        emit ranksOpened(false);
    });
    connect(rankJob_, &RankJob::cancelled, this, [this] {
        progress_->hide();
        cancelButton_->hide();
        rankView_->setStatus(tr("Cancelled"));
        statusLabel_->setText(tr("Cancelled"));
        emit ranksOpened(false);
    });
    connect(this, &MainWindow::jobFinished, this, [this](bool ok) {
        if (ok && pendingEnd_ > pendingStart_)
            selection_->setWindow({pendingStart_, pendingEnd_});
        pendingStart_ = pendingEnd_ = 0;
    });

    findingsDock->raise();   // the first view: the headline, the timeline and the findings

    overview_ = new OverviewPanel(this);
    auto refreshOverview = [this] { overview_->setData(document_->summary(), document_->analysis(), document_->trace()); };
    connect(document_, &Document::summaryChanged, this, refreshOverview);
    connect(document_, &Document::analysisChanged, this, refreshOverview);
    connect(document_, &Document::criticalPathChanged, this,
            [this] { overview_->setCriticalPath(document_->criticalPath()); });
    connect(document_, &Document::diagnosisChanged, this, [this] {
        overview_->setDiagnosis(document_->diagnosis());
        overview_->setEnvironmentHistory(nullptr);   // until the knowledge base answers for this trace
    });
    connect(kbSession_, &KbSession::environmentHistoryReady, this,
            [this](quint64 gen, sl::EnvironmentHistoryPtr h) {
                if (gen == kbSession_->generation())
                    overview_->setEnvironmentHistory(std::move(h));
            });
    connect(overview_, &OverviewPanel::findingActivated, this, [this, findingsDock](int row) {
        findingsDock->show();
        findingsDock->raise();
        findings_->selectFinding(row);
    });
    auto* details = new DetailsPanel(this);
    details->setDocument(document_);
    details->setSelection(selection_);
    QDockWidget* overviewDock = addDock(overview_, tr("Overview"), QStringLiteral("overviewDock"), Qt::RightDockWidgetArea);
    QDockWidget* detailsDock = addDock(details, tr("Details"), QStringLiteral("detailsDock"), Qt::RightDockWidgetArea);
    splitDockWidget(overviewDock, detailsDock, Qt::Vertical);
    // Minimum sizes: a layout saved at another window size (or by hand) cannot squeeze the Overview's numbers
    // ("Kernels 3,0…") or the bottom tables below what they need when it is restored.
    const QFontMetrics fm = fontMetrics();
    for (QDockWidget* d : {overviewDock, detailsDock})
        d->setMinimumWidth(std::max(280, fm.horizontalAdvance(QLatin1Char('m')) * 22));
    overviewDock->setMinimumHeight(fm.height() * 10);
    detailsDock->setMinimumHeight(fm.height() * 6);
    // The bottom panes keep a few rows; the timeline above them gets at least half the window (fitFirstView).
    for (QDockWidget* d : {kernelDock, deviceDock, gapsDock, rooflineDock, findingsDock, suggestionsDock, compareDock_, rangeDock_})
        d->setMinimumHeight(fm.height() * 7);
    defaultState_ = saveState(kLayoutVersion);
    viewMenu_->addSeparator();
    panesAction_ = viewMenu_->addAction(tr("&Hide Panes"), this, &MainWindow::togglePanes);
    panesAction_->setCheckable(true);
    panesAction_->setShortcut(QKeySequence(tr("Ctrl+B")));
    panesAction_->setToolTip(tr("Fold every docked pane away and give the timeline the whole window (again: back)"));
    viewMenu_->addAction(tr("&Reset Layout"), this, &MainWindow::resetLayout);
    // Issue 35: the critical path drawn over the timeline (the selected kernel's step, else the steady steps).
    QAction* pathAction = viewMenu_->addAction(tr("Critical &Path"), timeline_, &TimelineView::setCriticalPathShown);
    pathAction->setObjectName(QStringLiteral("criticalPathAction"));
    pathAction->setCheckable(true);
    pathAction->setToolTip(tr("Outline the chain of work that sets the step on the timeline: the selected kernel's "
                              "step, else the steady steps"));
    fitTimer_ = new QTimer(this);
    fitTimer_->setSingleShot(true);
    fitTimer_->setInterval(0);
    connect(fitTimer_, &QTimer::timeout, this, &MainWindow::fitFirstView);
    // Results change what the first view needs: the lanes, the header's warnings, the headline and findings.
    connect(document_, &Document::timelineChanged, this, &MainWindow::scheduleFit);
    connect(document_, &Document::analysisChanged, this, &MainWindow::scheduleFit);
    connect(document_, &Document::diagnosisChanged, this, &MainWindow::scheduleFit);
    for (QDockWidget* d : findChildren<QDockWidget*>())
        connect(d, &QDockWidget::topLevelChanged, this, [this](bool floating) {
            if (floating && isVisible())
                autoLayout_ = false;   // a pane dragged out: the user arranges the window now
        });
    QSettings settings;
    if (!restoreGeometry(settings.value(QLatin1String(kGeometryKey)).toByteArray())) {
        // Fit the screen it opens on: a 1280×800 window hangs off a 1366×768 laptop screen.
        const QScreen* s = screen() ? screen() : QGuiApplication::primaryScreen();
        setGeometry(defaultGeometry(s ? s->availableGeometry() : QRect(0, 0, 1280, 800), &wantsMaximised_));
    }
    if (!restoreState(settings.value(QLatin1String(kStateKey)).toByteArray(), kLayoutVersion)) {
        QTimer::singleShot(0, this, &MainWindow::applyDefaultDockSizes);   // once the window has its real size
    } else {
        autoLayout_ = settings.value(QLatin1String(kAutoLayoutKey), false).toBool();
        if (!autoLayout_)
            QTimer::singleShot(0, this, &MainWindow::scaleRestoredDocks);   // at the window's real size
    }
    updateRecentMenu();
    applySettings(runner_->settings());
    // The keyboard starts with the timeline (not the first line edit of the tab chain, which may be a dock page
    // behind another), and keys for widgets that are not on screen are taken back (eventFilter).
    timeline_->setFocus(Qt::OtherFocusReason);
    qApp->installEventFilter(this);
}

void MainWindow::showRange(qint64 start, qint64 end)
{
    const TimeRange r{std::min(start, end), std::max(start, end)};
    selection_->setRange(r);
    rangeView_->showRange(document_->timeline(), document_->analysis(), r);
    rangeDock_->show();
    rangeDock_->raise();
    timeline_->setFocus(Qt::OtherFocusReason);   // the keys stay with the timeline (Z zooms to the range)
}

void MainWindow::focusTimeline(bool force)
{
    if (QApplication::activeModalWidget() && QApplication::activeModalWidget() != this)
        return;   // a dialog still has the keys
    QWidget* f = QApplication::focusWidget();
    if (!force && f && f->window() == this && onScreen(f) && takesText(f))
        return;   // the user is typing in a field on screen
    timeline_->setFocus(Qt::OtherFocusReason);
}

bool MainWindow::eventFilter(QObject* watched, QEvent* event)
{
    const QEvent::Type type = event->type();
    if (type == QEvent::KeyPress || type == QEvent::ShortcutOverride) {
        auto* w = qobject_cast<QWidget*>(watched);
        // Only the key's first receiver, the focus widget (not the parents an unaccepted key is passed on to).
        if (w && w == QApplication::focusWidget() && w->window() == this && w != timeline_ && !onScreen(w)) {
            // A widget that is not on screen (the filter field of a dock page behind another tab): its keys go to the
            // timeline (or nowhere while the timeline is not shown), and a menu shortcut (Ctrl+E) is not overridden.
            if (type == QEvent::ShortcutOverride) {
                event->ignore();
                return true;
            }
            if (onScreen(timeline_)) {
                timeline_->setFocus(Qt::OtherFocusReason);
                QCoreApplication::sendEvent(timeline_, event);
            } else {
                w->clearFocus();
            }
            return true;
        }
    }
    return QMainWindow::eventFilter(watched, event);
}

void MainWindow::scaleRestoredDocks()
{
    // The panes' shares of the window as they were saved, applied to this window's size: a layout saved at
    // 1920×1080 keeps its proportions at 1280×720 instead of its pixel sizes.
    const QJsonObject shares =
        QJsonDocument::fromJson(QSettings().value(QLatin1String(kDockShareKey)).toByteArray()).object();
    QList<QDockWidget*> wide, tall;
    QList<int> widths, heights;
    for (QDockWidget* d : findChildren<QDockWidget*>()) {
        const QJsonArray s = shares.value(d->objectName()).toArray();
        if (s.size() != 2 || d->isFloating() || !onScreen(d))
            continue;
        const Qt::DockWidgetArea area = dockWidgetArea(d);
        if (area == Qt::LeftDockWidgetArea || area == Qt::RightDockWidgetArea) {
            wide << d;
            widths << std::max(d->minimumWidth(), int(std::lround(s[0].toDouble() * width())));
        }
        tall << d;
        heights << std::max(d->minimumHeight(), int(std::lround(s[1].toDouble() * height())));
    }
    if (!wide.isEmpty())
        resizeDocks(wide, widths, Qt::Horizontal);
    if (!tall.isEmpty())
        resizeDocks(tall, heights, Qt::Vertical);
    // resizeDocks sizes a tabbed pane's whole group, its tab bar included, while the shares are the panes' own
    // sizes (closeEvent): once the layout has run, a pane that came out short by its tab bar is asked again for its
    // share plus what the tab bar took (the bottom group: Findings got 170 px of 196 at 720 px high).
    QTimer::singleShot(0, this, [this, wide, widths, tall, heights] {
        auto again = [this](const QList<QDockWidget*>& docks, QList<int> sizes, Qt::Orientation o) {
            bool any = false;
            for (qsizetype i = 0; i < docks.size(); ++i) {
                const int got = o == Qt::Horizontal ? docks[i]->width() : docks[i]->height();
                const int chrome = sizes[i] - got;
                if (chrome > 2 && chrome <= 60 && !tabifiedDockWidgets(docks[i]).isEmpty()) {
                    sizes[i] += chrome;
                    any = true;
                }
            }
            if (any)
                resizeDocks(docks, sizes, o);
        };
        if (!wide.isEmpty())
            again(wide, widths, Qt::Horizontal);
        if (!tall.isEmpty())
            again(tall, heights, Qt::Vertical);
    });
}

MainWindow::~MainWindow() = default;

QRect MainWindow::defaultGeometry(const QRect& available, bool* maximise)
{
    const bool small = available.width() < 1440 || available.height() < 900;
    if (maximise)
        *maximise = small;
    if (small)
        return available;
    const QSize size = QSize(std::max(1280, available.width() * 85 / 100), std::max(800, available.height() * 85 / 100))
                           .boundedTo(available.size());
    QRect r(QPoint(0, 0), size);
    r.moveCenter(available.center());
    return r;
}

void MainWindow::togglePanes()
{
    if (!hiddenPanes_.isEmpty()) {
        for (QDockWidget* d : std::as_const(hiddenPanes_))
            d->show();
        for (QDockWidget* d : std::as_const(raisedPanes_))
            d->raise();
        hiddenPanes_.clear();
        raisedPanes_.clear();
    } else {
        // Every docked pane that is shown, raised or a tab behind another (its view action is checked).
        for (QDockWidget* d : findChildren<QDockWidget*>()) {
            if (d->isFloating() || !d->toggleViewAction()->isChecked())
                continue;
            hiddenPanes_ << d;
            if (d->isVisible() && !d->visibleRegion().isEmpty())
                raisedPanes_ << d;
        }
        for (QDockWidget* d : std::as_const(hiddenPanes_))
            d->hide();
    }
    if (panesAction_) {
        const QSignalBlocker block(panesAction_);
        panesAction_->setChecked(!hiddenPanes_.isEmpty());
    }
    focusTimeline(true);
}

void MainWindow::applyDefaultDockSizes()
{
    // The first layout: Overview wide enough for its headline numbers; then the first view is fitted to what the
    // trace shows (fitFirstView).
    auto* overviewDock = findChild<QDockWidget*>(QStringLiteral("overviewDock"));
    auto* detailsDock = findChild<QDockWidget*>(QStringLiteral("detailsDock"));
    auto* findingsDock = findChild<QDockWidget*>(QStringLiteral("findingsDock"));
    if (!overviewDock || !detailsDock || !findingsDock)
        return;
    resizeDocks({overviewDock}, {std::max(std::max(380, overviewDock->minimumWidth()), width() / 4)}, Qt::Horizontal);
    resizeDocks({overviewDock, detailsDock}, {height() * 3 / 5, height() * 2 / 5}, Qt::Vertical);
    resizeDocks({findingsDock}, {int(height() * (1 - kTimelineShare)) / 2}, Qt::Vertical);
    scheduleFit();
}

void MainWindow::scheduleFit()
{
    if (autoLayout_ && fitTimer_) {
        fitPasses_ = 0;
        fitTimer_->start();
    }
}

void MainWindow::fitFirstView()
{
    if (!autoLayout_ || !isVisible() || central_->currentWidget() != content_)
        return;
    // Timeline: at least half the window's height, more when its lanes need it (up to 70 % of the height it shares
    // with the bottom panes, which keep rows to read); the rest goes to the raised bottom pane (Findings on the first
    // view). The bottom pane never goes under its minimum.
    bool changed = false;
    QDockWidget* bottom = nullptr;   // the raised tab of the bottom group
    for (QDockWidget* d : findChildren<QDockWidget*>())
        if (!d->isFloating() && d->isVisible() && !d->visibleRegion().isEmpty() &&
            dockWidgetArea(d) == Qt::BottomDockWidgetArea) {
            bottom = d;
            break;
        }
    if (bottom) {
        const int shared = timeline_->height() + bottom->height();
        const int half = int(std::ceil(height() * kTimelineShare)) + 2;
        const int need = std::max({timeline_->minimumHeight(), half,
                                   std::min(timeline_->preferredHeight(), shared * 70 / 100)});
        const int target = std::max(bottom->minimumHeight(), shared - need);
        // resizeDocks sizes the tab group, tab bar included: what the last request gave the pane itself tells how
        // much of it the tab bar took.
        if (bottomAsked_ > 0 && bottomAsked_ >= bottom->height())
            bottomChrome_ = std::min(60, bottomAsked_ - bottom->height());
        if (std::abs(target - bottom->height()) > 2) {
            bottomAsked_ = target + bottomChrome_;
            resizeDocks({bottom}, {bottomAsked_}, Qt::Vertical);
            changed = true;
        } else {
            bottomAsked_ = 0;
        }
    }
    // Overview: its headline and top findings unscrolled where the column allows (Details keeps its minimum and
    // at least a third of the column; it scrolls).
    auto* overviewDock = findChild<QDockWidget*>(QStringLiteral("overviewDock"));
    auto* detailsDock = findChild<QDockWidget*>(QStringLiteral("detailsDock"));
    if (overviewDock && detailsDock && overviewDock->isVisible() && detailsDock->isVisible() &&
        !overviewDock->isFloating() && !detailsDock->isFloating() &&
        dockWidgetArea(overviewDock) == dockWidgetArea(detailsDock)) {
        const int wide = std::max(std::max(380, overviewDock->minimumWidth()), width() / 4);
        if (std::abs(overviewDock->width() - wide) > 2) {
            resizeDocks({overviewDock}, {wide}, Qt::Horizontal);   // the headline wraps at this width below
            changed = true;
        } else {
            const int column = overviewDock->height() + detailsDock->height();
            const int chrome = overviewDock->height() - overview_->viewport()->height();
            const int want = overview_->firstViewHeight(overview_->viewport()->width()) + chrome + 4;
            const int most = column - std::max(detailsDock->minimumHeight(), column / 4);
            const int h = std::clamp(want, std::min(most, column * 2 / 5), most);
            if (std::abs(h - overviewDock->height()) > 2) {
                resizeDocks({overviewDock, detailsDock}, {h, column - h}, Qt::Vertical);
                changed = true;
            }
        }
    }
    // The panes take their new sizes when the layout runs: check again then (a few passes at most, since a pane's
    // minimum can keep a size from being reached).
    if (changed && ++fitPasses_ < 4)
        fitTimer_->start();
    else
        fitPasses_ = 0;
}

void MainWindow::resetLayout()
{
    restoreState(defaultState_, kLayoutVersion);
    compareDock_->hide();
    if (auto* findingsDock = findChild<QDockWidget*>(QStringLiteral("findingsDock")))
        findingsDock->raise();
    autoLayout_ = true;
    applyDefaultDockSizes();
}

void MainWindow::resizeEvent(QResizeEvent* event)
{
    QMainWindow::resizeEvent(event);
    scheduleFit();
}

bool MainWindow::event(QEvent* event)
{
    // A dialog closed (the window is active again): the timeline takes the keys back unless a text field on screen
    // had them.
    if (event->type() == QEvent::WindowActivate)
        QTimer::singleShot(0, this, [this] { focusTimeline(false); });
    // A press on a splitter between panes (the window shows the split cursor there): dragging it makes the layout
    // the user's (kept as it is from then on, and restored as saved).
    if (event->type() == QEvent::MouseButtonPress)
        separatorPressed_ = cursor().shape() == Qt::SplitHCursor || cursor().shape() == Qt::SplitVCursor;
    else if (event->type() == QEvent::MouseMove && separatorPressed_)
        autoLayout_ = false;
    else if (event->type() == QEvent::MouseButtonRelease)
        separatorPressed_ = false;
    return QMainWindow::event(event);
}

QString MainWindow::layoutReport() const
{
    QStringList lines;
    auto add = [&lines](const QString& name, const QWidget* w, const QJsonObject& extra) {
        QJsonObject o{{QStringLiteral("name"), name},
                      {QStringLiteral("width"), w->width()},
                      {QStringLiteral("height"), w->height()},
                      {QStringLiteral("min_width"), std::max(w->minimumWidth(), w->minimumSizeHint().width())},
                      {QStringLiteral("min_height"), std::max(w->minimumHeight(), 0)}};
        for (auto it = extra.begin(); it != extra.end(); ++it)
            o.insert(it.key(), it.value());
        lines << QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Compact));
    };
    add(QStringLiteral("window"), this, {});
    // The timeline: its lanes and how many show whole without scrolling, and the height they fill.
    add(QStringLiteral("timeline"), timeline_,
        {{QStringLiteral("lanes"), timeline_->laneCount()},
         {QStringLiteral("visible_lanes"), timeline_->visibleLaneCount()},
         {QStringLiteral("preferred_height"), timeline_->preferredHeight()}});
    for (const QDockWidget* d : findChildren<QDockWidget*>()) {
        if (!d->isVisible() || d->visibleRegion().isEmpty())   // shown, and the raised tab of its group
            continue;
        QJsonObject extra;
        const auto* scroll = qobject_cast<const QScrollArea*>(d->widget());
        const QWidget* pane = scroll && scroll->objectName().endsWith(QLatin1String("Scroll")) ? scroll->widget() : d->widget();
        if (pane == overview_)
            extra.insert(QStringLiteral("headline_visible"), overview_->headlineVisible());
        if (pane == findings_) {
            // Findings (top-level rows) shown whole in the tree without scrolling.
            const QTreeView* tree = findings_->tree();
            const QAbstractItemModel* m = tree->model();
            int whole = 0;
            for (int r = 0; r < m->rowCount(); ++r) {
                const QRect rect = tree->visualRect(m->index(r, 0));
                whole += rect.isValid() && rect.top() >= 0 && rect.bottom() < tree->viewport()->height();
            }
            extra.insert(QStringLiteral("rows"), m->rowCount());
            extra.insert(QStringLiteral("visible_rows"), whole);
        }
        add(d->objectName(), d, extra);
    }
    return lines.join(QLatin1Char('\n'));
}

void MainWindow::raisePane(const QString& name)
{
    if (auto* dock = findChild<QDockWidget*>(name + QStringLiteral("Dock")))
        dock->raise();
}

void MainWindow::selectKernel(int64_t index) { selection_->setKernel(index); }

void MainWindow::compareWith(const QStringList& after)
{
    compareDock_->show();
    compareDock_->raise();
    compareView_->openAfter(after);
}

void MainWindow::selectClassInPhase(const QString& opClass, const QString& phase)
{
    // A class point of the Roofline: select the class's longest kernel of that phase, so the timeline, Details and
    // Findings show a representative instance.
    const auto trace = document_->trace();
    const auto analysis = document_->analysis();
    if (!trace || !analysis)
        return;
    const auto index = document_->timeline();
    const KernelLookup* lookup = index && &index->trace() == trace.get() ? index->kernelLookup() : nullptr;
    const int64_t best = longestKernelOfClass(*trace, *analysis, opClass.toStdString(), phase.toStdString(), lookup);
    if (best < 0) {
        statusBar()->showMessage(tr("No kernel of class %1 in %2").arg(opClass, phase), 5000);
        return;
    }
    selection_->setKernelName(trace->kernels.name[size_t(best)]);
    selection_->setKernel(best);
}

void MainWindow::showNvtxRange(const QString& name)
{
    // An NVTX link of a finding: select the longest range of that name and zoom the timeline onto it.
    const auto trace = document_->trace();
    if (!trace)
        return;
    const StrId id = trace->strings.find(name.toStdString());
    const RangeTable& r = trace->ranges;
    int64_t best = -1;
    const auto index = document_->timeline();
    const KernelLookup* lookup = index && &index->trace() == trace.get() ? index->kernelLookup() : nullptr;
    if (id != UINT32_MAX)   // indexed: no scan per click, once the complete index is there
        best = lookup ? lookup->longestRange(id) : KernelLookup::scanLongestRange(*trace, id);
    if (best < 0) {
        statusBar()->showMessage(tr("No NVTX range named %1 in this trace").arg(name), 5000);
        return;
    }
    const TimeRange range{r.start[size_t(best)], r.end[size_t(best)]};
    const int64_t pad = std::max<int64_t>(range.duration() / 20, 1);
    selection_->setRange(range);
    selection_->setWindow({range.start - pad, range.end + pad});
}

void MainWindow::jumpToLongest(uint32_t nameId)
{
    // The longest instance of a name: the timeline scrolls to it and Details shows it (an indexed lookup built on
    // the load job's worker, not a scan of every kernel).
    const auto index = document_->timeline();
    if (nameId != UINT32_MAX && index) {
        const KernelLookup* lookup = index->kernelLookup();   // null until the index is complete: one scan
        selection_->setKernel(lookup ? lookup->longestInstance(nameId)
                                     : KernelLookup::scanLongestInstance(index->trace(), nameId));
    }
}

void MainWindow::createActions()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    openAction_ = file->addAction(tr("&Open…"), this, &MainWindow::chooseFiles);
    openAction_->setShortcut(QKeySequence::Open);
    file->addAction(tr("Open Ran&ks Folder…"), this, [this] {
        QSettings settings;
        const QString dir = QFileDialog::getExistingDirectory(
            this, tr("Open Ranks Folder"), settings.value(QStringLiteral("lastDirectory")).toString());
        if (dir.isEmpty())
            return;
        settings.setValue(QStringLiteral("lastDirectory"), dir);
        openRanksFolder(dir);
    });
    recentMenu_ = file->addMenu(tr("Open &Recent"));
    closeAction_ = file->addAction(tr("&Close"), this, [this] {
        runner_->cancel();
        document_->clear();
    });
    closeAction_->setShortcut(QKeySequence::Close);
    closeAction_->setEnabled(false);
    exportAction_ = file->addAction(tr("&Export Report…"), this, &MainWindow::exportReport);
    exportAction_->setShortcut(QKeySequence(tr("Ctrl+E")));
    exportAction_->setEnabled(false);
    compareAction_ = file->addAction(tr("Compare &With…"), this, [this] {
        compareDock_->show();
        compareDock_->raise();
        compareView_->chooseAfter();
    });
    compareAction_->setToolTip(tr("Open a second trace as “after” and compare it with the open one"));
    compareAction_->setEnabled(false);
    file->addSeparator();
    QAction* profile = file->addAction(tr("&Profile…"), this, &MainWindow::profileCommand);
    profile->setToolTip(tr("Run an inference command under nsys profile, several times, and open the result"));
    deepDiveAction_ = file->addAction(tr("&Deep-dive Focus Set…"), this, &MainWindow::deepDiveFocusSet);
    deepDiveAction_->setToolTip(tr("Run ncu on the open trace's focus set and open the counters with it"));
    deepDiveAction_->setEnabled(false);
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);

    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    QAction* find = edit->addAction(tr("&Find…"), this, [this] {
        if (document_->timeline())
            searchBar_->activate();
    });
    find->setShortcuts({QKeySequence::Find, QKeySequence(Qt::Key_Slash)});
    find->setToolTip(tr("Find kernels, NVTX ranges and API calls by name or regular expression"));

    viewMenu_ = menuBar()->addMenu(tr("&View"));

    QMenu* tools = menuBar()->addMenu(tr("&Tools"));
    reviewAction_ = tools->addAction(tr("&Review Findings with LLM…"), this, &MainWindow::reviewFindings);
    reviewAction_->setEnabled(false);

    QMenu* settings = menuBar()->addMenu(tr("&Settings"));
    QAction* prefs = settings->addAction(tr("&Preferences…"), this, &MainWindow::editPreferences);
    prefs->setShortcut(QKeySequence::Preferences);
    prefs->setMenuRole(QAction::PreferencesRole);
    QMenu* language = settings->addMenu(tr("&Language"));
    auto* group = new QActionGroup(this);
    // The language the interface runs in (sightline --language overrides the saved one for this session).
    const QString current = sl::interfaceLanguage();
    const std::pair<QString, QString> languages[] = {{QStringLiteral("en"), QStringLiteral("English")},
                                                     {QStringLiteral("zh_CN"), QStringLiteral("简体中文")}};
    for (const auto& [code, name] : languages) {
        QAction* a = language->addAction(name);   // language names are shown in their own language
        a->setCheckable(true);
        a->setChecked(code == current);
        group->addAction(a);
        connect(a, &QAction::triggered, this, [this, code = code] { setLanguage(code); });
    }

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&Keyboard Shortcuts"), this, [this] { sl::ShortcutsDialog(this).exec(); });
    help->addAction(tr("&About Sightline"), this, [this] {
        QMessageBox::about(this, tr("About Sightline"),
                           tr("<b>Sightline</b> %1<p>Diagnoses GPU traces of LLM inference: where GPU time goes, "
                              "why the GPU sits idle, and what to change.</p>")
                               .arg(QStringLiteral(SIGHTLINE_VERSION)));
    });
}

void MainWindow::createStatusBar()
{
    statusLabel_ = new QLabel(tr("Ready"), this);
    progress_ = new QProgressBar(this);
    progress_->setRange(0, 1000);
    progress_->setMaximumWidth(240);
    progress_->setTextVisible(false);
    progress_->hide();
    cancelButton_ = new QToolButton(this);
    cancelButton_->setText(tr("Cancel"));
    cancelButton_->setToolTip(tr("Stop loading"));
    cancelButton_->hide();
    connect(cancelButton_, &QToolButton::clicked, runner_, &JobRunner::cancel);
    connect(cancelButton_, &QToolButton::clicked, this, [this] {
        if (rankJob_ && rankJob_->isRunning())
            rankJob_->cancel();
    });
    statusBar()->addWidget(statusLabel_, 1);
    statusBar()->addPermanentWidget(progress_);
    statusBar()->addPermanentWidget(cancelButton_);
}

void MainWindow::openFiles(const QStringList& paths)
{
    QStringList absolute;
    for (const QString& p : paths)
        absolute << QFileInfo(p).absoluteFilePath();
    if (absolute.isEmpty())
        return;
    if (absolute.size() == 1 && QFileInfo(absolute.first()).isDir()) {
        openRanksFolder(absolute.first());
        return;
    }
    // An Nsight Compute export alone (no trace): its own window with the launch table and their Roofline.
    if (const DocumentInputs in = JobRunner::classify(absolute); in.traces.isEmpty() && !in.ncu.isEmpty()) {
        openNcuView(in.ncu);
        return;
    }
    runner_->open(absolute);
    focusTimeline(true);
}

void MainWindow::openRanksFolder(const QString& folder)
{
    const QString dir = QFileInfo(folder).absoluteFilePath();
    // The folder replaces the open trace, as opening a trace does: the Findings pane then holds the ranks' findings.
    runner_->cancel();
    document_->clear();
    rankJob_->open(dir);
    statusLabel_->setText(tr("Reading ranks in %1…").arg(QDir::toNativeSeparators(dir)));
    rankView_->setStatus(tr("Reading ranks in %1…").arg(QDir::toNativeSeparators(dir)));
    progress_->setValue(0);
    progress_->show();
    cancelButton_->show();
    ranksDock_->show();
    ranksDock_->raise();
}

void MainWindow::openRankAt(const QString& trace, qint64 start, qint64 end)
{
    const qint64 pad = std::max<qint64>(1, (end - start) / 10);
    openFiles({trace});
    pendingStart_ = start - pad;   // after openFiles: a job it supersedes must not take the range
    pendingEnd_ = end + pad;
}

sl::NcuView* MainWindow::openNcuView(const QString& path)
{
    auto* view = new sl::NcuView(this);
    view->setWindowFlag(Qt::Window);
    view->setAttribute(Qt::WA_DeleteOnClose);
    view->setWindowTitle(tr("Nsight Compute — %1").arg(QFileInfo(path).fileName()));
    view->resize(std::max(900, width() * 4 / 5), std::max(600, height() * 4 / 5));
    connect(view, &sl::NcuView::loaded, this, [this, path](bool ok, const QString& message) {
        statusLabel_->setText(ok ? tr("Opened %1 (Nsight Compute, no trace)").arg(QFileInfo(path).fileName())
                                 : tr("Cannot open %1: %2").arg(QFileInfo(path).fileName(), message));
        emit ncuViewOpened(ok);
    });
    view->show();
    view->open(path);
    return view;
}

void MainWindow::chooseFiles()
{
    QSettings settings;
    const QString dir = settings.value(QStringLiteral("lastDirectory")).toString();
    const QStringList files = QFileDialog::getOpenFileNames(
        this, tr("Open Trace"), dir,
        tr("GPU traces (*.sqlite *.nsys-rep *.qdrep *.json *.json.gz *.gz);;All files (*)"));
    if (files.isEmpty())
        return;
    settings.setValue(QStringLiteral("lastDirectory"), QFileInfo(files.first()).absolutePath());
    openFiles(files);
    focusTimeline(true);   // the dialog is gone: the keys belong to the timeline, not to what had them before
}

void MainWindow::onStarted(const QStringList& paths)
{
    loadingText_ = paths.size() == 1 ? tr("Loading %1…").arg(QFileInfo(paths.first()).fileName())
                                     : tr("Loading %n file(s)…", nullptr, int(paths.size()));
    statusLabel_->setText(loadingText_);
    progress_->setValue(0);
    progress_->show();
    cancelButton_->show();
}

void MainWindow::onProgress(double fraction, const QString& stage)
{
    progress_->setValue(int(fraction * 1000));
    if (stage.isEmpty())
        return;
    // What the job is doing, in the interface's language, after what it loads ("Loading x.json… Reading kernels").
    const QString label = StageText::label(stage);
    progress_->setToolTip(label);
    statusLabel_->setText(loadingText_ + QLatin1Char(' ') + label);
}

void MainWindow::onFinished(bool ok)
{
    progress_->hide();
    cancelButton_->hide();
    if (ok) {
        const auto trace = document_->trace();
        statusLabel_->setText(trace ? tr("%n kernel(s) loaded", nullptr, int(trace->kernels.size())) : QString());
        addRecent(document_->paths());
    }
    emit jobFinished(ok);
}

void MainWindow::onFailed(const QString& message)
{
    statusLabel_->setText(tr("Could not open the trace"));
    if (qApp->property("sightlineNoDialogs").toBool())
        return;
    QMessageBox::warning(this, tr("Could not open the trace"), message);
}

void MainWindow::onTraceChanged()
{
    const auto trace = document_->trace();
    closeAction_->setEnabled(trace != nullptr);
    exportAction_->setEnabled(trace != nullptr);
    compareAction_->setEnabled(trace != nullptr);
    deepDiveAction_->setEnabled(trace != nullptr && document_->inputs().traces.size() == 1);
    selection_->clear();
    if (!trace) {
        setWindowTitle(tr("Sightline"));
        central_->setCurrentWidget(welcome_);
        return;
    }
    const QStringList& paths = document_->paths();
    // The title names the trace: a config.json or an ncu file opened with it is not a second file of the trace
    // (issue 37: "2 files — Sightline" for one trace and its config).
    const QStringList& traces = document_->inputs().traces.isEmpty() ? paths : document_->inputs().traces;
    setWindowTitle(tr("%1 — Sightline").arg(traces.size() == 1 ? QFileInfo(traces.first()).fileName()
                                                                : tr("%n files", nullptr, int(traces.size()))));
    // Which window each number refers to, CPU operators apart from NVTX, and (with the analysis) the warnings.
    info_->setText(TraceHeader::html(*trace, document_->analysis().get()));
    info_->setToolTip(TraceHeader::toolTip(*trace, paths));
    timeline_->setIndex(document_->timeline());
    central_->setCurrentWidget(content_);
    focusTimeline(false);   // the welcome page is gone: its focus was nowhere
}

void MainWindow::addRecent(const QStringList& paths)
{
    if (paths.isEmpty())
        return;
    QSettings settings;
    QStringList recent = settings.value(QLatin1String(kRecentKey)).toStringList();
    const QString entry = paths.join(QLatin1Char('\n'));   // several files opened together stay together
    recent.removeAll(entry);
    recent.prepend(entry);
    while (recent.size() > kMaxRecent)
        recent.removeLast();
    settings.setValue(QLatin1String(kRecentKey), recent);
    updateRecentMenu();
}

void MainWindow::updateRecentMenu()
{
    recentMenu_->clear();
    const QStringList recent = QSettings().value(QLatin1String(kRecentKey)).toStringList();
    for (const QString& entry : recent) {
        const QStringList paths = entry.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QStringList names;
        for (const QString& p : paths)
            names << QFileInfo(p).fileName();
        QAction* a = recentMenu_->addAction(names.join(QStringLiteral(" + ")));
        a->setToolTip(paths.join(QLatin1Char('\n')));
        connect(a, &QAction::triggered, this, [this, paths] { openFiles(paths); });
    }
    if (!recent.isEmpty()) {
        recentMenu_->addSeparator();
        recentMenu_->addAction(tr("Clear Menu"), this, [this] {
            QSettings().remove(QLatin1String(kRecentKey));
            updateRecentMenu();
        });
    }
    recentMenu_->setEnabled(!recent.isEmpty());
}

void MainWindow::exportReport()
{
    auto trace = document_->trace();
    if (!trace)
        return;
    // The format is the file's suffix: a bare name gets the suffix of the chosen filter (model/export_path.h). The
    // filter also chooses the detail: the summary to forward, or every table with the appendix.
    const QStringList summaryFilters = {tr("PDF, summary (*.pdf)"), tr("Markdown, summary (*.md)"),
                                        tr("HTML, summary (*.html)")};
    const QStringList fullFilters = {tr("PDF, full detail with the appendix (*.pdf)"),
                                     tr("Markdown, full detail with the appendix (*.md)"),
                                     tr("HTML, full detail with the appendix (*.html)"), tr("JSON (*.json)")};
    // A default name from the trace's: "<trace>-report.pdf" beside the trace (or where the last report went).
    const QString stem = QString::fromStdString(
        sl::report::report_file_stem(sl::report::trace_display_name(trace->meta.source_path)));
    QSettings settings;
    QString dir = settings.value(QStringLiteral("lastExportDirectory")).toString();
    if (dir.isEmpty() && !document_->paths().isEmpty())
        dir = QFileInfo(document_->paths().first()).absolutePath();
    QString filter = summaryFilters.first();
    const QString path = sl::reportPathForFilter(
        QFileDialog::getSaveFileName(this, tr("Export Report"), QDir(dir).filePath(stem + QStringLiteral(".pdf")),
                                     (summaryFilters + fullFilters).join(QStringLiteral(";;")), &filter),
        filter);
    if (path.isEmpty())
        return;
    settings.setValue(QStringLiteral("lastExportDirectory"), QFileInfo(path).absolutePath());
    exportReportTo(path, fullFilters.contains(filter));
}

void MainWindow::exportReportTo(const QString& path, bool full)
{
    auto trace = document_->trace();
    if (!trace) {
        emit reportWritten(false, path);
        return;
    }
    const WorkbenchSettings settings = runner_->settings();
    const QString lang = settings.language;
    const DocumentInputs docInputs = document_->inputs();
    const std::vector<std::string> inputs = [this, &docInputs] {
        std::vector<std::string> v;
        for (const QString& p : document_->paths())
            v.push_back(p.toStdString());
        for (const QString& p : {docInputs.modelConfig, docInputs.ncu})   // as sightline-cli report lists them
            if (!p.isEmpty())
                v.push_back(p.toStdString());
        return v;
    }();
    // The user's decisions on the suggestions (Suggestions pane), shown under each suggestion in the report.
    std::map<std::string, std::string> suggestionStates, suggestionNotes;
    const QHash<QString, QString> states = suggestions_->model()->stateByKey(), notes = suggestions_->model()->annotationByKey();
    for (auto it = states.begin(); it != states.end(); ++it)
        suggestionStates[it.key().toStdString()] = it.value().toStdString();
    for (auto it = notes.begin(); it != notes.end(); ++it)
        suggestionNotes[it.key().toStdString()] = it.value().toStdString();
    statusLabel_->setText(tr("Writing the report…"));
    exportAction_->setEnabled(false);
    // The report runs the same pipeline as the CLI (sightline-cli report) on a worker; the files are written here.
    auto* watcher = new QFutureWatcher<std::shared_ptr<sl::report::Report>>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, path] {
        watcher->deleteLater();
        exportAction_->setEnabled(document_->trace() != nullptr);
        std::shared_ptr<sl::report::Report> report;
        try {
            report = watcher->result();
        } catch (const std::exception& e) {
            statusLabel_->setText(tr("The report could not be written."));
            if (!qApp->property("sightlineNoDialogs").toBool())
                QMessageBox::warning(this, tr("Export Report"), QString::fromStdString(e.what()));
            emit reportWritten(false, path);
            return;
        }
        const QString suffix = QFileInfo(path).suffix().toLower();
        bool ok = true;
        QString error;
        if (suffix == QLatin1String("pdf")) {
            const sl::PdfResult r = sl::writeReportPdf(*report, path);
            ok = r.ok;
            error = r.error;
        } else {
            std::string text;
            if (suffix == QLatin1String("md")) {
                sl::report::MarkdownOptions mo;
                mo.write_image = sl::markdownPngWriter(path, report->lang);
                text = sl::report::to_markdown(*report, mo);
            } else if (suffix == QLatin1String("json")) {
                text = sl::report::to_json_text(*report);
            } else {
                text = sl::report::to_html(*report);
            }
            QFile out(path);
            ok = out.open(QIODevice::WriteOnly | QIODevice::Truncate) &&
                 out.write(text.data(), static_cast<qint64>(text.size())) == static_cast<qint64>(text.size());
            error = out.errorString();
        }
        if (ok) {
            statusLabel_->setText(tr("Report written to %1").arg(QDir::toNativeSeparators(path)));
        } else {
            statusLabel_->setText(tr("The report could not be written."));
            if (!qApp->property("sightlineNoDialogs").toBool())
                QMessageBox::warning(this, tr("Export Report"), tr("Cannot write %1: %2").arg(path, error));
        }
        emit reportWritten(ok, path);
    });
    watcher->setFuture(QtConcurrent::run([trace, inputs, lang, settings, docInputs, suggestionStates, suggestionNotes,
                                          full, path] {
        // The same options the panes were computed with (settings + the config / ncu files opened with the trace).
        sl::report::PipelineOptions po = settings.reportOptions(docInputs.modelConfig, docInputs.ncu);
        for (const QString& t : docInputs.traces)
            po.trace_files.push_back(t.toStdString());   // its own run is not "seen before"
        const sl::report::PipelineResults results = sl::report::run_pipeline(*trace, po);
        sl::report::ReportOptions ro;
        ro.lang = lang.startsWith(QLatin1String("zh")) ? sl::report::Lang::ZhCN : sl::report::Lang::En;
        // As sightline-cli report: JSON (for scripts) is always complete; the documents people read are the summary
        // unless the full detail was chosen.
        ro.detail = full || path.endsWith(QLatin1String(".json"), Qt::CaseInsensitive) ? sl::report::Detail::Full
                                                                                       : sl::report::Detail::Summary;
        // The model and shape the Roofline used (not "not given" when a config.json was opened), and the decisions.
        sl::report::describe_workload(ro, po);
        ro.suggestion_state = suggestionStates;
        ro.suggestion_note = suggestionNotes;
        return std::make_shared<sl::report::Report>(
            sl::report::build_report(sl::report::report_inputs(*trace, results, ro, inputs)));
    }));
}

void MainWindow::updateReviewAction()
{
    if (!reviewAction_ || !findings_)
        return;
    const ReviewerSettings r = runner_->settings().reviewer;
    QString why = FindingsView::reviewUnavailableReason(r);
    const auto d = document_->diagnosis();
    if (why.isEmpty() && (!d || d->eval.findings.empty()))
        why = tr("There are no findings to review yet.");
    if (why.isEmpty() && findings_->isReviewing())
        why = tr("A review is under way (Cancel in the Findings pane).");
    reviewAction_->setEnabled(why.isEmpty());
    reviewAction_->setToolTip(why.isEmpty() ? tr("Send the findings and their evidence (never the trace) to %1 for an "
                                                 "advisory second opinion")
                                                  .arg(r.endpoint.trimmed())
                                            : why);
    reviewAction_->setStatusTip(reviewAction_->toolTip());
}

void MainWindow::reviewFindings()
{
    const ReviewerSettings r = runner_->settings().reviewer;
    const auto d = document_->diagnosis();
    if (!r.enabled() || !d || d->eval.findings.empty())
        return;
    if (!qApp->property("sightlineNoDialogs").toBool()) {
        const int n = std::min(int(d->eval.findings.size()), int(ReviewRequestOptions{}.max_findings));
        const QString paths = r.allowPaths ? tr("File paths in their texts are sent as they are.")
                                           : tr("File paths in their texts are replaced by <path>.");
        if (QMessageBox::question(this, tr("Review Findings with LLM"),
                                  tr("Send %n finding(s) and their evidence as JSON to %1? The trace itself is not "
                                     "sent.", nullptr, n)
                                          .arg(r.endpoint.trimmed()) +
                                      QLatin1Char(' ') + paths) != QMessageBox::Yes)
            return;
    }
    if (auto* dock = findChild<QDockWidget*>(QStringLiteral("findingsDock"))) {
        dock->show();
        dock->raise();
    }
    findings_->startReview(r);
    updateReviewAction();
}

void MainWindow::applySettings(const WorkbenchSettings& settings)
{
    runner_->setSettings(settings);
    updateReviewAction();
    compareView_->setSettings(settings);
    const QString lang = QString::fromStdString(settings.langCode());
    findings_->setLanguage(lang);
    overview_->setLanguage(lang);
    suggestions_->setLanguage(lang);
    if (kbSession_->path() != settings.effectiveKbPath()) {
        kbSession_->setPath(settings.effectiveKbPath());
        suggestions_->reattach();
    }
}

void MainWindow::editPreferences()
{
    // From QSettings, not the runner: the Language menu writes the language key directly.
    WorkbenchSettings s = WorkbenchSettings::load();
    // The dialog shows the language this window runs in (`--language zh_CN` over a saved English showed "English",
    // issue 37), and saves a language only when one is chosen there: another change keeps the saved one.
    const QString stored = s.language;
    const QString running = interfaceLanguage();
    if (!running.isEmpty())
        s.language = running;
    const WorkbenchSettings before = s;
    if (!SettingsDialog::edit(s, this) || s == before)
        return;
    WorkbenchSettings saved = s;
    if (s.language == before.language)
        saved.language = stored;
    saved.save();
    applyTheme(s.theme);
    applySettings(s);
    // The reviewer's settings change no number: no new analysis for them alone.
    WorkbenchSettings analysisPart = s;
    analysisPart.reviewer = before.reviewer;
    if (analysisPart == before)
        return;
    // The numbers depend on the options: analyse the open files again with the new ones.
    if (!document_->paths().isEmpty())
        runner_->open(document_->paths());
}

void MainWindow::profileCommand()
{
    // Modeless: the log stays live while the workbench is used; the result opens when it is ready.
    auto* d = new ProfileDialog(runner_->settings().effectiveKbPath(), this);
    d->setSettings(runner_->settings());   // the Roofline inputs and thresholds, as the CLI's --model etc.
    d->setAttribute(Qt::WA_DeleteOnClose);
    connect(d, &ProfileDialog::resultReady, this, [this](const QStringList& paths) { openFiles(paths); });
    d->show();
}

void MainWindow::deepDiveFocusSet()
{
    const DocumentInputs in = document_->inputs();
    if (in.traces.size() != 1)
        return;
    auto* d = new DeepDiveDialog(in.traces.front(), runner_->settings().pipelineOptions(in.modelConfig), this);
    d->setAttribute(Qt::WA_DeleteOnClose);
    const QString model = in.modelConfig;
    connect(d, &DeepDiveDialog::resultReady, this, [this, model](const QStringList& paths) {
        // The trace with its joined ncu CSV (and the model config it was opened with).
        openFiles(model.isEmpty() ? paths : paths + QStringList{model});
    });
    d->show();
}

void MainWindow::setLanguage(const QString& code)
{
    QSettings().setValue(QStringLiteral("language"), code);
    QMessageBox::information(this, tr("Language"), tr("The language changes when Sightline is started again."));
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event)
{
    if (event->mimeData()->hasUrls())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event)
{
    QStringList paths;
    for (const QUrl& url : event->mimeData()->urls())
        if (url.isLocalFile())
            paths << url.toLocalFile();
    if (!paths.isEmpty()) {
        event->acceptProposedAction();
        openFiles(paths);
    }
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    if (panesHidden())
        togglePanes();   // the layout saved is the one with the panes, whatever Ctrl+B did last
    QSettings settings;
    settings.setValue(QLatin1String(kGeometryKey), saveGeometry());
    settings.setValue(QLatin1String(kStateKey), saveState(kLayoutVersion));
    settings.setValue(QLatin1String(kAutoLayoutKey), autoLayout_);
    // Each pane's share of the window, so a restore at another size keeps the proportions (scaleRestoredDocks).
    QJsonObject shares;
    for (const QDockWidget* d : findChildren<QDockWidget*>())
        if (!d->isFloating() && onScreen(d) && width() > 0 && height() > 0)
            shares.insert(d->objectName(), QJsonArray{double(d->width()) / width(), double(d->height()) / height()});
    settings.setValue(QLatin1String(kDockShareKey), QJsonDocument(shares).toJson(QJsonDocument::Compact));
    settings.setValue(QLatin1String(kStateSizeKey), size());
    settings.sync();   // on disk now: the process may end a second after the window closes (main.cpp)
    runner_->cancel();
    event->accept();
}

} // namespace sl
