#pragma once
// The workbench window: opens traces (menu, recent files, command line, drag and drop), shows load progress with a
// cancel button in the status bar, and fills its panes as results arrive.

#include <QList>
#include <QMainWindow>
#include <QRect>
#include <QStringList>

class QAction;
class QDockWidget;
class QLabel;
class QMenu;
class QProgressBar;
class QStackedWidget;
class QTimer;
class QToolButton;

namespace sl {

class CompareView;
class Document;
class FindingsView;
class JobRunner;
class KbSession;
class NcuView;
class OverviewPanel;
class RangeStatsView;
class RankJob;
class RankView;
class SearchBar;
class Selection;
class SuggestionsView;
class TimelineView;
struct WorkbenchSettings;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // Traces (with a model config / ncu file beside them) load into the workbench; an ncu file alone opens an ncu view;
    // one folder opens as a folder of ranks (openRanksFolder).
    void openFiles(const QStringList& paths);
    // File › Open Ranks Folder… (and `sightline DIR/`): every rank's trace or partial in `folder`, mapped and merged on
    // a worker (model/rank_job.h) with progress and Cancel in the status bar; the Ranks pane shows the rank × step and
    // rank × collective maps, the Findings pane the cross-rank findings. Emits ranksOpened when done.
    void openRanksFolder(const QString& folder);
    // A rank's trace opened at [start, end] of its own clock (a click on a rank view cell): the timeline shows it
    // once loaded, a tenth of its length either side.
    void openRankAt(const QString& trace, qint64 start, qint64 end);
    RankView* rankView() const { return rankView_; }
    RankJob* rankJob() const { return rankJob_; }
    // An Nsight Compute export without a trace, in its own window (read on a worker); emits ncuViewOpened.
    sl::NcuView* openNcuView(const QString& path);
    JobRunner* jobRunner() const { return runner_; }
    Document* document() const { return document_; }
    // Raises the dock "<name>Dock" (kernels, devices, gaps, overview, details).
    void raisePane(const QString& name);
    void selectKernel(int64_t index);
    // Hands the settings to every part that uses them (load job, compare, languages of findings, knowledge base).
    void applySettings(const sl::WorkbenchSettings& settings);
    // Settings › Preferences…: the settings dialog, modal (public for the widget tests).
    void editPreferences();
    // Shows the Compare pane with `after` as the second trace (File › Compare With… without the dialog).
    void compareWith(const QStringList& after);
    // Writes the shareable report (PDF, Markdown, HTML or JSON by the file's suffix) for the open trace; the same
    // pipeline and report as `sightline-cli report`. Emits reportWritten when done.
    // full: every table and the appendix (sightline-cli report --detail full); else the summary to forward.
    void exportReportTo(const QString& path, bool full = false);
    // Selects a time range as a Shift+drag on the timeline does and shows its aggregate table (the Range pane).
    void showRange(qint64 start, qint64 end);
    // View › Reset Layout: the first-launch arrangement of the panes and their sizes.
    void resetLayout();
    // The window's first geometry on a screen whose available area is `available` (no saved geometry): 85 % of it,
    // centred, at least 1280×800 where that fits; on a screen smaller than 1440×900 (a laptop's 1366×768) the whole
    // available area, and *maximise set: the window is shown maximised.
    static QRect defaultGeometry(const QRect& available, bool* maximise = nullptr);
    // No saved geometry and a small screen: main() shows the window maximised.
    bool wantsMaximised() const { return wantsMaximised_; }
    // View › Hide Panes (Ctrl+B): every docked pane out of the way and the timeline the whole window, as Perfetto's
    // side panel folds; again: the panes back where they were, the same tabs raised.
    void togglePanes();
    bool panesHidden() const { return !hiddenPanes_.isEmpty(); }
    // Whether the layout follows the window and the trace (true until the user drags a splitter or floats a pane;
    // false: the user's, restored as saved and scaled to the window's size).
    bool automaticLayout() const { return autoLayout_; }
    void setAutomaticLayout(bool automatic) { autoLayout_ = automatic; }
    // Each shown pane's size and minimum size, one JSON object per line (used by the layout tests and --layout-report).
    QString layoutReport() const;
    // Edit › Find (Ctrl+F, /): the timeline's search bar.
    SearchBar* searchBar() const { return searchBar_; }
    TimelineView* timeline() const { return timeline_; }
    RangeStatsView* rangeView() const { return rangeView_; }
    QAction* openAction() const { return openAction_; }
    QAction* exportAction() const { return exportAction_; }
    // File › Open's dialog, and what it does once a file is chosen (openFiles, then the timeline takes the keys).
    void chooseFiles();

signals:
    // The current job ended (loaded, failed or cancelled); used by --screenshot.
    void jobFinished(bool ok);
    void reportWritten(bool ok, const QString& path);
    void ncuViewOpened(bool ok);
    void comparisonFinished(bool ok);
    void ranksOpened(bool ok);

protected:
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;
    void closeEvent(QCloseEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    bool event(QEvent* event) override;
    // Keys never reach a widget that is not on screen (a line edit of a dock tab behind another): they go to the
    // timeline, and its shortcuts are not taken from the menus (installed on the application).
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void createActions();
    void createStatusBar();
    void updateRecentMenu();
    void addRecent(const QStringList& paths);
    void onTraceChanged();
    void onStarted(const QStringList& paths);
    void onProgress(double fraction, const QString& stage);
    void onFinished(bool ok);
    void onFailed(const QString& message);
    void exportReport();
    // The timeline takes the keyboard (after an open, after a dialog closes) unless a text field on screen has it.
    void focusTimeline(bool force);
    // A layout restored from another window size: the panes keep their share of the window (kDockShareKey).
    void scaleRestoredDocks();
    void setLanguage(const QString& code);
    // File › Profile… and Deep-dive Focus Set… (the analysis loop: widgets/profile_dialog.h, deep_dive_dialog.h).
    void profileCommand();
    void deepDiveFocusSet();
    // Tools › Review Findings with LLM…: the optional reviewer (widgets/findings_view.h); enabled only with an
    // endpoint in Preferences and findings to review, otherwise its tooltip says why.
    void reviewFindings();
    void updateReviewAction();
    void jumpToLongest(uint32_t nameId);
    void showNvtxRange(const QString& name);
    void selectClassInPhase(const QString& opClass, const QString& phase);
    void applyDefaultDockSizes();
    // The first view (automatic layout only): the timeline gets the height its lanes need (within bounds), the
    // bottom panes (Findings) the rest; the Overview the height of its headline and top findings, Details the rest.
    void fitFirstView();
    void scheduleFit();

    Document* document_ = nullptr;
    JobRunner* runner_ = nullptr;
    Selection* selection_ = nullptr;

    QStackedWidget* central_ = nullptr;
    QLabel* welcome_ = nullptr;
    QWidget* content_ = nullptr;
    QLabel* info_ = nullptr;
    QLabel* legend_ = nullptr;
    TimelineView* timeline_ = nullptr;
    OverviewPanel* overview_ = nullptr;
    FindingsView* findings_ = nullptr;
    KbSession* kbSession_ = nullptr;
    SuggestionsView* suggestions_ = nullptr;
    CompareView* compareView_ = nullptr;
    QDockWidget* compareDock_ = nullptr;
    RangeStatsView* rangeView_ = nullptr;
    QDockWidget* rangeDock_ = nullptr;
    RankJob* rankJob_ = nullptr;
    RankView* rankView_ = nullptr;
    QDockWidget* ranksDock_ = nullptr;
    qint64 pendingStart_ = 0, pendingEnd_ = 0;   // openRankAt's range, shown when its trace has loaded
    QAction* openAction_ = nullptr;

    QMenu* recentMenu_ = nullptr;
    QMenu* viewMenu_ = nullptr;
    QAction* closeAction_ = nullptr;
    QAction* exportAction_ = nullptr;
    QAction* compareAction_ = nullptr;
    QAction* deepDiveAction_ = nullptr;
    QAction* reviewAction_ = nullptr;
    QLabel* statusLabel_ = nullptr;
    QString loadingText_;   // "Loading x.json…": the status line while a trace loads, before the stage
    QProgressBar* progress_ = nullptr;
    QToolButton* cancelButton_ = nullptr;
    SearchBar* searchBar_ = nullptr;
    QByteArray defaultState_;   // the panes as built, before a saved layout is restored
    // The layout follows the window size and the trace's lanes until the user drags a splitter or floats a pane
    // (then it is theirs, restored as saved); View › Reset Layout makes it automatic again.
    bool autoLayout_ = true;
    bool wantsMaximised_ = false;
    QList<QDockWidget*> hiddenPanes_, raisedPanes_;   // togglePanes: what it hid, and which tabs were raised
    QAction* panesAction_ = nullptr;
    QTimer* fitTimer_ = nullptr;
    bool separatorPressed_ = false;
    int fitPasses_ = 0;
    int bottomAsked_ = 0;    // the bottom pane's height fitFirstView asked for last (0: none pending)
    int bottomChrome_ = 0;   // what its tab group takes beside the pane (the tab bar)
};

} // namespace sl
