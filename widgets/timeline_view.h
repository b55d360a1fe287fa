#pragma once
// The custom-painted timeline: lanes per device/stream, idle gaps, CPU threads (API calls) and NVTX depths, drawn
// from the immutable TimelineIndex. Runs narrower than a pixel are merged ("N kernels"), rectangles are filled in
// batches per colour with antialiasing off, and hover / selection / range are drawn as overlays.
//
// Keys: W/S zoom, A/D pan, F fit, Z zoom to the selected range, Esc clears. Wheel zooms at the cursor, drag pans,
// Shift+drag selects a range (its statistics are shown), click selects a kernel and links it to its launch call.

#include <QWidget>
#include <memory>

#include "analysis/timeline/analysis.h"
#include "model/search_index.h"
#include "model/timeline_density.h"
#include "model/timeline_index.h"
#include "model/timeline_math.h"

class QScrollBar;

namespace sl {

class Selection;

class TimelineView : public QWidget {
    Q_OBJECT
public:
    explicit TimelineView(Selection* selection, QWidget* parent = nullptr);

    void setIndex(std::shared_ptr<const TimelineIndex> index);
    // Colours kernels by operator class and gaps by cause (null: by kernel name, one gap colour).
    void setAnalysis(std::shared_ptr<const AnalysisResult> analysis);
    static QColor causeColor(GapCause cause);
    static QString causeLabel(GapCause cause);
    // Legend (rich text) for the classes present and the gap causes.
    static QString legendHtml(const AnalysisResult& analysis);
    std::shared_ptr<const TimelineIndex> index() const { return index_; }

    timeline::Window window() const { return window_; }
    void setWindow(timeline::Window w);
    void fitToWindow();
    // F: fit the selected range, kernel or gap (in that order), or everything when nothing is selected.
    void fitSelection();
    void zoomToRange();

    // Layout, exposed for tests and the benchmark.
    static constexpr int kAxisHeight = 26;
    int labelWidth() const { return labelWidth_; }
    int laneHeight() const { return laneHeight_; }
    QRect plotRect() const;
    // Lane index at widget y, or -1.
    int laneAt(int y) const;
    // Item of lane under widget point (tolerance 2 px), or -1.
    int64_t itemAt(const QPoint& pos, int* lane = nullptr) const;
    QString laneTitle(int lane) const;
    // The height that shows every lane without scrolling (axis, lanes and a little air); the minimum without lanes.
    int preferredHeight() const;
    // Lanes shown whole in the current height and scroll position, of laneCount().
    int visibleLaneCount() const;
    int laneCount() const { return int(laneY_.size()); }

    // Renders one frame into `painter` (the benchmark draws into a QImage).
    void render(QPainter& painter);

    // What the last frame drew in each lane: runs of `count` consecutive lane items from `first`, merged when
    // narrower than a pixel, with their time span. Hover reads it, so a tooltip describes the block under the cursor.
    struct DrawnRun {
        int64_t start = 0, end = 0;
        uint32_t first = 0, count = 0;
        int x0 = 0, x1 = 0;   // widget x, [x0, x1)
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
    // The idle fraction of each pixel column the last frame painted in a gap lane (the alpha of its ink: an idle
    // lane shows idle density, not a solid bar, where gaps are narrower than a pixel); empty for other lanes.
    const std::vector<float>& idleColumns(int lane) const;
    // The colour a merged "N kernels" block of a stream lane is painted in: its dominant operator class's colour
    // (the neutral merged colour only without an analysis).
    QColor mergedColor(int lane, uint32_t first, uint32_t count) const;
    // The range statistics line drawn for Selection::range() (empty without a range).
    QString rangeStatsText() const;
    // Search marks (SearchBar): every match outlined in its lane, the current one emphasised and brought into view
    // (a current kernel is selected too, so Details shows it).
    void setSearchMatches(std::shared_ptr<const SearchMatches> matches);
    std::shared_ptr<const SearchMatches> searchMatches() const { return searchMatches_; }
    void setCurrentMatch(int64_t ordered);
    int64_t currentMatch() const { return currentMatch_; }
    // Outlines the last frame drew for search matches (at most one per pixel column and lane).
    int searchMarksDrawn() const { return searchMarksDrawn_; }
    // Pans (or zooms out) so the item is visible and scrolls its lane into view.
    void revealItem(int lane, uint32_t item);

    QSize sizeHint() const override { return {900, 400}; }

signals:
    void kernelActivated(int64_t kernel);

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
    void drawAxis(QPainter& p, const QRect& plot, double nsPerPx);
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
    std::vector<AxisTick> axisTicks_;              // the last frame's axis ticks
    std::shared_ptr<const SearchMatches> searchMatches_;
    int64_t currentMatch_ = -1;
    int searchMarksDrawn_ = 0;
    std::vector<QColor> classColor_;
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
    QPoint pressPos_;
    timeline::Window pressWindow_;
    bool dragging_ = false;
    bool selectingRange_ = false;
    int64_t rangeAnchor_ = 0;
    int hoverLane_ = -1;
    int64_t hoverItem_ = -1;
};

} // namespace sl
