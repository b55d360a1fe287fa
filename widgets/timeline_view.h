#pragma once
// The custom-painted timeline: an overview track of the whole capture (GPU utilisation per pixel column, coloured by
// operator-class share, with the visible window marked), then lanes per device/stream, idle gaps, and per CPU thread
// its API calls and a flame chart of its host ranges (NVTX, annotations and CPU operators nested; Python frames in a
// group of their own, collapsed at first), drawn from the immutable TimelineIndex. Runs narrower than a pixel are
// merged; a merged block of a stream lane shows, per pixel column, how busy it is and its class mix (ClassDensity)
// and counts what is visible. Rectangles are filled in batches per colour with antialiasing off, and hover /
// selection / range are drawn as overlays.
//
// Keys: W/S zoom, A/D pan, F fit, Z zoom to the selected range, Esc clears. Ctrl+wheel zooms at the cursor, drag pans,
// Shift+drag selects a range (rangeSelected: its aggregate table), a click selects a kernel (linked to its launch call
// and CPU operator) or a CPU operator (linked to its kernels); a click on a group's label folds it; the label
// column's edge drags wider; a click or drag in the overview moves the window.

#include <QWidget>
#include <memory>

#include "analysis/critpath/critpath_summary.h"
#include "analysis/timeline/analysis.h"
#include "model/search_index.h"
#include "model/selection.h"
#include "model/timeline_density.h"
#include "model/timeline_index.h"
#include "model/timeline_math.h"

class QScrollBar;

namespace sl {

class ClassDensity;
class Selection;

class TimelineView : public QWidget {
    Q_OBJECT
public:
    explicit TimelineView(Selection* selection, QWidget* parent = nullptr);

    void setIndex(std::shared_ptr<const TimelineIndex> index);
    // Colours kernels by operator class and gaps by cause (null: by kernel name, one gap colour).
    void setAnalysis(std::shared_ptr<const AnalysisResult> analysis);
    // Class times per pixel column (merged blocks' class mix, the overview track); used when it matches the index and
    // the analysis shown, else merged blocks take their dominant class's colour and the overview its busy fraction.
    void setClassDensity(std::shared_ptr<const ClassDensity> density);
    std::shared_ptr<const ClassDensity> classDensity() const { return density_; }
    static QColor causeColor(GapCause cause);
    static QString causeLabel(GapCause cause);
    // Legend (rich text) for the classes present and the gap causes.
    static QString legendHtml(const AnalysisResult& analysis);
    std::shared_ptr<const TimelineIndex> index() const { return index_; }

    timeline::Window window() const { return window_; }
    void setWindow(timeline::Window w);
    void fitToWindow();
    // F: fit the selected range, kernel, CPU operator, the highlighted gaps or the selected gap (in that order), or
    // everything when nothing is selected.
    void fitSelection();
    // From the first to the last highlighted gap (Selection::highlightedGaps); empty without any.
    timeline::Window highlightedGapsExtent() const;
    void zoomToRange();

    // Layout, exposed for tests and the benchmark. From the top: the overview track (overviewHeight(), 0 without a
    // trace), the axis (kAxisHeight), the lanes (plotRect()).
    static constexpr int kAxisHeight = 26;
    int overviewHeight() const;
    QRect overviewRect() const;
    int labelWidth() const { return labelWidth_; }
    // The label column's width (the lane titles; dragging its edge does the same), kept between sessions.
    void setLabelWidth(int width);
    int laneHeight() const { return laneHeight_; }
    QRect plotRect() const;
    // Lane index at widget y, or -1.
    int laneAt(int y) const;
    // Item of lane under widget point (tolerance 2 px), or -1.
    int64_t itemAt(const QPoint& pos, int* lane = nullptr) const;
    QString laneTitle(int lane) const;
    // The height that shows every lane without scrolling (axis, lanes and a little air); the minimum without lanes.
    int preferredHeight() const;
    // Lanes shown whole in the current height and scroll position, of laneCount() (a folded group's lanes are not).
    int visibleLaneCount() const;
    int laneCount() const { return int(laneY_.size()); }
    // Flame-chart groups (a thread's host-range depths, or its Python frames): the first lane of each carries the
    // fold. A folded group shows its first lane only.
    bool isGroupHead(int lane) const;
    bool isFolded(int groupHead) const;
    void setFolded(int groupHead, bool folded);
    bool isLaneShown(int lane) const;
    // The height lane `lane` is drawn with (0 when folded away).
    int laneHeightOf(int lane) const;
    // The overview track's columns of the last frame (busy fraction and class shares per pixel column of the whole
    // capture), for tests.
    struct OverviewColumns {
        timeline::Window window;            // what the track spans (the capture)
        std::vector<float> busy;            // [x]
        std::vector<float> share;           // [x * classes + c]
        int classes = 0;
    };
    const OverviewColumns& overviewColumns() const { return overview_; }

    // Renders one frame into `painter` (the benchmark draws into a QImage).
    void render(QPainter& painter);

    // What the last frame drew in each lane: runs of `count` consecutive lane items from `first`, merged when
    // narrower than a pixel, with their time span. Hover reads it, so a tooltip describes the block under the cursor.
    struct DrawnRun {
        int64_t start = 0, end = 0;
        uint32_t first = 0, count = 0;
        int x0 = 0, x1 = 0;   // widget x, [x0, x1)
        uint32_t visible = 0;  // of count, the items inside the visible window (what its label counts)
    };
    const std::vector<DrawnRun>& drawnRuns(int lane) const;
    // The run drawn under widget point pos (within 2 px), or null.
    const DrawnRun* runAt(const QPoint& pos, int* lane = nullptr) const;
    // The tooltip (rich text) at widget point pos; empty when nothing is there. Needs a frame drawn first.
    QString tooltipAt(const QPoint& pos) const;
    // Analysis gap (index into AnalysisResult::idle.gaps) of a gap-lane item, or -1; and back. Found when asked (no
    // per-gap table is built when an index or an analysis arrives): a binary search of the analysis's gaps, which
    // analyze_idle lists in (device, start) order, matched on the device and the start.
    int64_t analysisGapOf(int lane, uint32_t item) const;
    // The analysis gap of `device` starting at `start`, or -1. O(log gaps); with `hint` (a position in the gap list,
    // start at 0) queries in increasing (device, start) order, as a frame's runs come, gallop forward from it.
    int64_t analysisGapAt(uint16_t device, int64_t start, size_t* hint = nullptr) const;
    // Highlighted gaps (Selection::highlightedGaps) as the timeline outlines them in the idle lanes, by start.
    struct GapMark {
        int lane = -1;
        int64_t start = 0, end = 0;
        int64_t gap = -1;
    };
    const std::vector<GapMark>& highlightMarks() const { return highlightMarks_; }

    // The axis ticks of the last frame: time, widget x and label, measured from TimelineIndex::origin() (the
    // capture start, the origin of Details, tooltips and range statistics too).
    struct AxisTick {
        int64_t time = 0;
        int x = 0;
        QString label;
    };
    const std::vector<AxisTick>& axisTicks() const { return axisTicks_; }
    // How the last frame labelled its ticks: absolute, or (deep in) a reference tick and offsets from it
    // (timeline::axisLabelMode).
    const timeline::AxisLabelMode& axisLabelMode() const { return axisMode_; }
    // The idle fraction of each pixel column the last frame painted in a gap lane (the alpha of its ink: an idle
    // lane shows idle density, not a solid bar, where gaps are narrower than a pixel); empty for other lanes.
    const std::vector<float>& idleColumns(int lane) const;
    // The colour a merged "N kernels" block of a stream lane is painted in: its dominant operator class's colour
    // (the neutral merged colour only without an analysis). With a class density the block is painted per pixel
    // column instead (mergedColumns).
    QColor mergedColor(int lane, uint32_t first, uint32_t count) const;
    // The label of a merged block: "N kernels", "N copies" (a stream of copies and memsets), "N ops" (both), "N API
    // calls", "N ranges", "N idle gaps", N counting what is visible.
    QString mergedLabel(int lane, uint32_t visible) const;
    // Per pixel column of the last frame, for a stream lane drawn from the class density: the GPU time per class
    // (ns, [x * classes + c] over the plot's columns); empty when the lane was drawn without one.
    const std::vector<int64_t>& mergedColumns(int lane) const;
    // The range statistics line drawn for Selection::range() (empty without a range).
    QString rangeStatsText() const;
    // Search marks (SearchBar): every match outlined in its lane, the current one emphasised and centred in the view
    // (a current kernel is selected too, so Details shows it).
    void setSearchMatches(std::shared_ptr<const SearchMatches> matches);
    std::shared_ptr<const SearchMatches> searchMatches() const { return searchMatches_; }
    void setCurrentMatch(int64_t ordered);
    int64_t currentMatch() const { return currentMatch_; }
    // Outlines the last frame drew for search matches (at most one per pixel column and lane).
    int searchMarksDrawn() const { return searchMarksDrawn_; }
    // The critical path overlay (View › Critical Path, issue 35): the events of a path (analysis/critpath/) outlined in
    // their lanes and joined in path order, as HTA overlays its critical path in Perfetto. The path is the step's
    // that holds the selected kernel, else the steady steps' (the whole trace's when it has no steps).
    void setCriticalPath(std::shared_ptr<const critpath::CriticalPathSummary> path);
    void setCriticalPathShown(bool shown);
    bool criticalPathShown() const { return pathShown_; }
    struct PathMark {
        int lane = -1;
        uint32_t item = 0;
    };
    // The overlay's items in path order; the step they are of (-1: the steady steps, or the whole trace); and how
    // many of the path's events the timeline has no item for (left out).
    const std::vector<PathMark>& criticalPathMarks() const { return pathMarks_; }
    int criticalPathStep() const { return pathStep_; }
    int64_t criticalPathUnplaced() const { return pathUnplaced_; }
    // Pans (or zooms out) so the item is visible and scrolls its lane into view. With `centre` (a search hit, as
    // Perfetto and Nsight Systems place one) the item's centre goes to the view's centre even when it was already
    // visible, as far as the trace's bounds allow; without it an item already in view stays where it is.
    void revealItem(int lane, uint32_t item, bool centre = false);
    // Scrolls the lanes so that `lane` is the first one under the axis (as far as the scroll range allows).
    void scrollToLane(int lane);

    QSize sizeHint() const override { return {900, 400}; }

signals:
    void kernelActivated(int64_t kernel);
    // A Shift+drag ended: the range it selected (Selection::range()), for the aggregate table.
    void rangeSelected(sl::TimeRange range);

protected:
    void paintEvent(QPaintEvent*) override;
    void resizeEvent(QResizeEvent*) override;
    void wheelEvent(QWheelEvent*) override;
    void mousePressEvent(QMouseEvent*) override;
    void mouseMoveEvent(QMouseEvent*) override;
    void mouseReleaseEvent(QMouseEvent*) override;
    void keyPressEvent(QKeyEvent*) override;
    void leaveEvent(QEvent*) override;
    bool event(QEvent*) override;

private:
    void drawLane(QPainter& p, int lane, const QRect& r, double nsPerPx);
    void drawOverview(QPainter& p);
    void drawAxis(QPainter& p, const QRect& plot, double nsPerPx);
    void relayout();
    int lanesTop() const;
    int64_t overviewTimeAt(int x) const;
    void refreshOverview();
    // The lane and item of a Trace::ranges row in the flame chart; false when it has none.
    bool findRange(uint32_t row, int* lane, uint32_t* item) const;
    void drawOverlays(QPainter& p, const QRect& plot);
    QColor itemColor(const TimelineLane& lane, uint32_t i) const;
    // Where the last gap lookup of a frame landed: the next run's gap is predicted from it (a lane's gaps and the
    // analysis's gaps of that device correspond nearly one to one), so a frame's lookups are O(1) each.
    struct GapCursor {
        uint32_t item = UINT32_MAX;
        size_t gap = 0;
    };
    QColor gapColor(const TimelineLane& lane, uint32_t i, GapCursor* cursor) const;
    QString itemName(const TimelineLane& lane, uint32_t i) const;
    QString tooltipFor(int lane, int64_t item) const;
    QString mergedTooltip(int lane, const DrawnRun& run) const;
    void rebuildHighlights();
    void rebuildPathMarks();
    void drawCriticalPath(QPainter& p, const QRect& plot);
    void drawSearchMarks(QPainter& p, const QRect& plot);
    void revealGap(int64_t gap);
    int laneTop(int lane) const;
    void updateScrollBar();
    timeline::Window bounds() const;

    Selection* selection_;
    std::shared_ptr<const TimelineIndex> index_;
    std::shared_ptr<const AnalysisResult> analysis_;
    std::vector<std::vector<DrawnRun>> drawn_;     // per lane: the runs of the last frame
    std::vector<GapMark> highlightMarks_;          // highlighted gaps, by start
    std::shared_ptr<const critpath::CriticalPathSummary> path_;
    bool pathShown_ = false;
    int pathStep_ = -1;
    int64_t pathUnplaced_ = 0;
    std::vector<PathMark> pathMarks_;              // the overlay's items, in path order
    std::vector<AxisTick> axisTicks_;              // the last frame's axis ticks
    timeline::AxisLabelMode axisMode_;             // the last frame's label mode
    std::shared_ptr<const SearchMatches> searchMatches_;
    int64_t currentMatch_ = -1;
    int searchMarksDrawn_ = 0;
    std::vector<QColor> classColor_;
    std::shared_ptr<const ClassDensity> density_;
    const ClassDensity* usableDensity() const;   // density_ when it matches index_ and analysis_
    std::vector<std::vector<int64_t>> mergedColumns_;   // per lane: the last frame's class times per column
    OverviewColumns overview_;
    int overviewWidth_ = -1;                     // the plot width overview_ was computed for
    std::vector<int> groupHead_;                 // per lane: the first lane of its flame-chart group, or -1
    std::vector<uint8_t> folded_;                // per lane (group heads): folded
    std::vector<uint8_t> groupKinds_;            // per lane (group heads): the range kinds of the whole group
    std::vector<int> laneH_;                     // per lane: drawn height (0: folded away)
    // The selected kernel's origin (its CPU op) and the selected CPU op's kernels: found when the selection
    // changes, drawn every frame.
    int64_t originOfKernel_ = -1;
    int32_t originOp_ = -1;
    std::vector<uint32_t> opKernels_;
    std::vector<GapDensity> gapDensity_;           // per lane (gap lanes only): idle time in any time range
    std::vector<std::vector<float>> idleColumns_;  // per lane (gap lanes only): the last frame's idle fractions
    void mapAnalysis();
    timeline::Window window_;
    QScrollBar* vscroll_;
    int labelWidth_ = 190;
    int laneHeight_ = 20;
    std::vector<int> laneY_;   // top of each lane in content coordinates
    int contentHeight_ = 0;

    // interaction
    bool resizingLabels_ = false;
    bool overviewDrag_ = false;
    int64_t overviewAnchor_ = 0;
    QPoint pressPos_;
    timeline::Window pressWindow_;
    bool dragging_ = false;
    bool selectingRange_ = false;
    int64_t rangeAnchor_ = 0;
    int hoverLane_ = -1;
    int64_t hoverItem_ = -1;
};

} // namespace sl
