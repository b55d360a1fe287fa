#include "widgets/timeline_view.h"

#include <QHelpEvent>
#include <QKeyEvent>
#include <QLocale>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QScrollBar>
#include <QSettings>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <climits>
#include <cmath>
#include <unordered_map>

#include "analysis/trace/kernel_short_name.h"
#include "model/class_density.h"
#include "model/kernel_origin.h"
#include "model/selection.h"
#include "model/units.h"
#include "model/workbench_settings.h"
#include "widgets/palette.h"

namespace sl {

using timeline::Window;

namespace {

QString qs(std::string_view s) { return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size())); }

int laneHeightFor(LaneKind k, int base)
{
    switch (k) {
    case LaneKind::Stream: return base + 4;
    case LaneKind::Gaps: return base - 2;
    case LaneKind::ApiThread: return base;
    // Flame-chart depths: thinner, so a deep stack fits.
    case LaneKind::HostRanges: return base - 3;
    case LaneKind::Python: return base - 5;
    }
    return base;
}

constexpr int kOverviewHeight = 34;

const QColor kGapColor(222, 120, 60);
const QColor kApiLaunchColor(110, 140, 190);
const QColor kApiSyncColor(200, 70, 70);
const QColor kApiOther(150, 150, 160);

} // namespace

TimelineView::TimelineView(Selection* selection, QWidget* parent) : QWidget(parent), selection_(selection)
{
    setFocusPolicy(Qt::StrongFocus);
    setMouseTracking(true);
    setAttribute(Qt::WA_OpaquePaintEvent);
    vscroll_ = new QScrollBar(Qt::Vertical, this);
    connect(vscroll_, &QScrollBar::valueChanged, this, qOverload<>(&QWidget::update));
    laneHeight_ = std::max(18, fontMetrics().height() + 4);
    // Room for the axis and six lanes (a GPU's streams and idle lane, the CPU thread and its NVTX rows), so a small
    // window or a restored layout never shrinks the timeline to two lanes.
    setMinimumHeight(kOverviewHeight + kAxisHeight + 6 * (laneHeight_ + 2));
    labelWidth_ = std::max(190, fontMetrics().horizontalAdvance(QStringLiteral("GPU 0 · Stream 0000 ")) + 24);
    if (const int saved = QSettings().value(QStringLiteral("timeline/labelWidth"), 0).toInt(); saved > 0)
        labelWidth_ = std::clamp(saved, 80, 900);
    if (selection_) {
        connect(selection_, &Selection::kernelChanged, this, [this](int64_t k) {
            originOfKernel_ = -1;
            originOp_ = -1;
            if (index_ && k >= 0 && size_t(k) < index_->trace().kernels.size()) {
                const auto& ks = index_->trace().kernels;
                const int64_t s = ks.start[size_t(k)], e = ks.end[size_t(k)];
                if (e < window_.start || s > window_.end)
                    setWindow(timeline::pan(window_, (s + e) / 2 - (window_.start + window_.end) / 2, bounds()));
                // The CPU op that launched it: outlined, with a flow to the kernel (one lookup per selection).
                originOfKernel_ = k;
                originOp_ = kernelOrigin(*index_, uint32_t(k)).op;
            }
            if (pathShown_)
                rebuildPathMarks();   // the path of the selected kernel's step
            update();
        });
        connect(selection_, &Selection::hostRangeChanged, this, [this](int64_t r) {
            opKernels_.clear();
            if (index_ && r >= 0 && size_t(r) < index_->trace().ranges.size())
                opKernels_ = kernelsOfHostRange(*index_, uint32_t(r), 200);
            update();
        });
        connect(selection_, &Selection::rangeChanged, this, qOverload<>(&QWidget::update));
        connect(selection_, &Selection::gapChanged, this, [this](int64_t g) {
            revealGap(g);
            update();
        });
        connect(selection_, &Selection::highlightedGapsChanged, this, [this] {
            rebuildHighlights();
            update();
        });
        // Other views move the timeline through the shared window (a finding's time range, an NVTX link); the
        // timeline's own moves come back here unchanged and stop in setWindow.
        connect(selection_, &Selection::windowChanged, this, [this](TimeRange w) { setWindow({w.start, w.end}); });
    }
}

void TimelineView::setIndex(std::shared_ptr<const TimelineIndex> index)
{
    // The complete index replacing the coarse one of the same trace (same lanes and items, finer levels): keep the
    // user's zoom and scroll position.
    const bool refinement = index_ && index && !index_->complete() && index->tracePtr() == index_->tracePtr() &&
                            index->lanes().size() == index_->lanes().size();
    const std::vector<uint8_t> keptFolds = refinement ? folded_ : std::vector<uint8_t>{};
    index_ = std::move(index);
    hoverItem_ = -1;
    hoverLane_ = -1;
    originOfKernel_ = -1;
    originOp_ = -1;
    opKernels_.clear();
    overviewWidth_ = -1;
    // Flame-chart groups: a thread's consecutive host-range depths, and its Python depths. The Python frames start
    // folded (a with_stack trace is dozens of frames deep above the operators); the operators start open.
    const size_t n = index_ ? index_->lanes().size() : 0;
    groupHead_.assign(n, -1);
    groupKinds_.assign(n, 0);
    folded_.assign(n, 0);
    for (size_t i = 0; i < n; ++i) {
        const TimelineLane& l = index_->lanes()[i];
        if (l.kind != LaneKind::HostRanges && l.kind != LaneKind::Python)
            continue;
        const TimelineLane* prev = i > 0 ? &index_->lanes()[i - 1] : nullptr;
        const bool continues = prev && prev->kind == l.kind && prev->thread == l.thread && groupHead_[i - 1] >= 0;
        groupHead_[i] = continues ? groupHead_[i - 1] : int(i);
        groupKinds_[size_t(groupHead_[i])] |= l.rangeKinds;
        if (!continues)
            folded_[i] = l.kind == LaneKind::Python ? 1 : 0;
    }
    if (keptFolds.size() == n)
        folded_ = keptFolds;
    relayout();
    drawn_.assign(index_ ? index_->lanes().size() : 0, {});
    mergedColumns_.assign(index_ ? index_->lanes().size() : 0, {});
    gapDensity_.assign(index_ ? index_->lanes().size() : 0, {});
    idleColumns_.assign(index_ ? index_->lanes().size() : 0, {});
    if (index_)
        for (size_t i = 0; i < index_->lanes().size(); ++i)
            if (index_->lanes()[i].kind == LaneKind::Gaps)
                gapDensity_[i] = GapDensity(*index_, index_->lanes()[i]);
    mapAnalysis();
    rebuildPathMarks();
    updateScrollBar();
    if (refinement)
        update();
    else
        fitToWindow();
}

void TimelineView::setAnalysis(std::shared_ptr<const AnalysisResult> analysis)
{
    analysis_ = std::move(analysis);
    overviewWidth_ = -1;
    mapAnalysis();
    rebuildPathMarks();
    update();
}

void TimelineView::setClassDensity(std::shared_ptr<const ClassDensity> density)
{
    density_ = std::move(density);
    overviewWidth_ = -1;
    update();
}

const ClassDensity* TimelineView::usableDensity() const
{
    return density_ && density_->matches(index_.get(), analysis_.get()) ? density_.get() : nullptr;
}

void TimelineView::relayout()
{
    laneY_.clear();
    laneH_.clear();
    int y = 0;
    if (index_) {
        int prevDevice = -1;
        bool prevCpu = false;
        uint32_t prevThread = UINT32_MAX;
        const auto& lanes = index_->lanes();
        for (size_t i = 0; i < lanes.size(); ++i) {
            const TimelineLane& l = lanes[i];
            const bool cpu = l.kind == LaneKind::ApiThread || l.kind == LaneKind::HostRanges || l.kind == LaneKind::Python;
            const bool shown = groupHead_[i] < 0 || groupHead_[i] == int(i) || !folded_[size_t(groupHead_[i])];
            if (shown && ((!cpu && int(l.device) != prevDevice) || (cpu && (!prevCpu || l.thread != prevThread))))
                y += laneY_.empty() ? 2 : 8;   // a little air between devices and between threads
            if (shown) {
                prevDevice = cpu ? -1 : int(l.device);
                prevCpu = cpu;
                prevThread = cpu ? l.thread : UINT32_MAX;
            }
            laneY_.push_back(y);
            const int h = shown ? laneHeightFor(l.kind, laneHeight_) : 0;
            laneH_.push_back(h);
            // Depths of one flame chart sit closer together than lanes of different kinds.
            const bool flame = l.kind == LaneKind::HostRanges || l.kind == LaneKind::Python;
            y += shown ? h + (flame ? 1 : 2) : 0;
        }
    }
    contentHeight_ = y;
    updateScrollBar();
}

bool TimelineView::isGroupHead(int lane) const
{
    return lane >= 0 && size_t(lane) < groupHead_.size() && groupHead_[size_t(lane)] == lane;
}

bool TimelineView::isFolded(int head) const
{
    return isGroupHead(head) && folded_[size_t(head)] != 0;
}

void TimelineView::setFolded(int head, bool folded)
{
    if (!isGroupHead(head) || bool(folded_[size_t(head)]) == folded)
        return;
    folded_[size_t(head)] = folded ? 1 : 0;
    relayout();
    update();
}

bool TimelineView::isLaneShown(int lane) const { return lane >= 0 && size_t(lane) < laneH_.size() && laneH_[size_t(lane)] > 0; }

int TimelineView::laneHeightOf(int lane) const
{
    return lane >= 0 && size_t(lane) < laneH_.size() ? laneH_[size_t(lane)] : 0;
}

int TimelineView::overviewHeight() const { return index_ ? kOverviewHeight : 0; }

QRect TimelineView::overviewRect() const
{
    const int sb = vscroll_->isVisible() ? vscroll_->width() : 0;
    return QRect(labelWidth_, 3, std::max(1, width() - labelWidth_ - sb), std::max(0, overviewHeight() - 6));
}

int TimelineView::lanesTop() const { return overviewHeight() + kAxisHeight; }

void TimelineView::setLabelWidth(int w)
{
    w = std::clamp(w, 80, std::max(80, width() / 2));
    if (w == labelWidth_)
        return;
    labelWidth_ = w;
    overviewWidth_ = -1;
    QSettings().setValue(QStringLiteral("timeline/labelWidth"), labelWidth_);
    update();
}

void TimelineView::mapAnalysis()
{
    // O(classes + highlighted gaps): a gap's analysis entry (cause, index) is looked up when drawn or clicked, so an
    // index or an analysis of 10^7 gaps arriving costs the GUI thread no pass over the gaps.
    classColor_.clear();
    if (analysis_ && index_)
        for (const OpClassTotals& c : analysis_->classes.classes)
            classColor_.push_back(colorForKey(QString::fromStdString(c.id)));
    rebuildHighlights();
}

int64_t TimelineView::analysisGapAt(uint16_t device, int64_t start, size_t* hint) const
{
    if (!analysis_)
        return -1;
    const std::vector<Gap>& gaps = analysis_->idle.gaps;
    auto before = [](const Gap& g, std::pair<uint16_t, int64_t> key) {
        return g.device != key.first ? g.device < key.first : g.start < key.second;
    };
    const std::pair<uint16_t, int64_t> key{device, start};
    size_t lo = 0, hi = gaps.size();
    if (hint && *hint < gaps.size() && (*hint == 0 || before(gaps[*hint - 1], key))) {
        // Gallop from the hint: the answer is at or after it.
        lo = *hint;
        size_t step = 1;
        while (lo + step < gaps.size() && before(gaps[lo + step], key))
            step *= 2;
        hi = std::min(gaps.size(), lo + step + 1);
        lo += step / 2;
    }
    const size_t j = size_t(std::lower_bound(gaps.begin() + ptrdiff_t(lo), gaps.begin() + ptrdiff_t(hi), key, before) -
                            gaps.begin());
    if (hint)
        *hint = j;
    return j < gaps.size() && gaps[j].device == device && gaps[j].start == start ? int64_t(j) : -1;
}

int64_t TimelineView::analysisGapOf(int lane, uint32_t item) const
{
    if (!index_ || !analysis_ || lane < 0 || size_t(lane) >= index_->lanes().size())
        return -1;
    const TimelineLane& l = index_->lanes()[size_t(lane)];
    if (l.kind != LaneKind::Gaps || item >= l.items.size())
        return -1;
    return analysisGapAt(l.device, index_->itemStart(l, item));
}

void TimelineView::rebuildHighlights()
{
    highlightMarks_.clear();
    if (!selection_ || !analysis_ || !index_)
        return;
    const auto& gaps = analysis_->idle.gaps;
    for (int64_t g : selection_->highlightedGaps()) {
        if (g < 0 || size_t(g) >= gaps.size())
            continue;
        const Gap& gap = gaps[size_t(g)];
        highlightMarks_.push_back({index_->laneOfGaps(gap.device), gap.start, gap.end, g});
    }
    std::sort(highlightMarks_.begin(), highlightMarks_.end(),
              [](const GapMark& a, const GapMark& b) { return a.start != b.start ? a.start < b.start : a.gap < b.gap; });
}

void TimelineView::revealGap(int64_t g)
{
    if (!index_ || !analysis_ || g < 0 || size_t(g) >= analysis_->idle.gaps.size())
        return;
    const Gap& gap = analysis_->idle.gaps[size_t(g)];
    Window w = window_;
    // Zoom out when the gap does not fit, so the whole gap and a little context are visible; else centre it.
    if (gap.duration() * 5 / 4 > w.duration())
        w = {gap.start - gap.duration() / 4, gap.end + gap.duration() / 4};
    else if (gap.start < w.start || gap.end > w.end)
        w = timeline::pan(w, (gap.start + gap.end) / 2 - (w.start + w.end) / 2, bounds());
    setWindow(w);
    // Scroll the idle lane into view.
    const int lane = index_->laneOfGaps(gap.device);
    if (lane >= 0 && size_t(lane) < laneY_.size()) {
        const int visible = height() - lanesTop();
        const int y = laneY_[size_t(lane)];
        if (y < vscroll_->value() || y + laneHeight_ > vscroll_->value() + visible)
            vscroll_->setValue(std::max(0, y - visible / 3));
    }
}

QColor TimelineView::causeColor(GapCause c)
{
    switch (c) {
    case GapCause::HostWait: return QColor(222, 110, 50);
    case GapCause::KernelWait: return QColor(225, 185, 60);
    case GapCause::SyncWait: return QColor(200, 50, 60);
    case GapCause::DependencyWait: return QColor(125, 95, 200);
    case GapCause::Other: break;
    }
    return QColor(150, 150, 160);
}

QString TimelineView::causeLabel(GapCause c)
{
    switch (c) {
    case GapCause::HostWait: return tr("host wait");
    case GapCause::KernelWait: return tr("kernel wait");
    case GapCause::SyncWait: return tr("sync wait");
    case GapCause::DependencyWait: return tr("dependency wait");
    case GapCause::Other: break;
    }
    return tr("other");
}

QString TimelineView::legendHtml(const AnalysisResult& a)
{
    auto swatch = [](const QColor& c, const QString& label) {
        // One entry never wraps inside itself ("KV-" / "cache write" at 1280 px): no-break spaces and hyphens.
        QString text = label.toHtmlEscaped();
        text.replace(QLatin1Char(' '), QStringLiteral("&nbsp;"));
        text.replace(QLatin1Char('-'), QChar(0x2011));
        return QStringLiteral("<span style=\"color:%1\">■</span>&nbsp;%2").arg(c.name(), text);
    };
    std::vector<const OpClassTotals*> classes;
    for (const OpClassTotals& c : a.classes.classes)
        if (c.time_ns > 0)
            classes.push_back(&c);
    std::sort(classes.begin(), classes.end(), [](auto* x, auto* y) { return x->time_ns > y->time_ns; });
    QStringList parts;
    for (const OpClassTotals* c : classes)
        parts << swatch(colorForKey(QString::fromStdString(c->id)), opClassLabel(*c));
    QStringList gaps;
    for (GapCause g : {GapCause::HostWait, GapCause::KernelWait, GapCause::SyncWait, GapCause::DependencyWait,
                       GapCause::Other})
        gaps << swatch(causeColor(g), causeLabel(g));
    return tr("<b>Kernels:</b> %1 &nbsp;&nbsp; <b>Gaps:</b> %2")
        .arg(parts.join(QStringLiteral(" &nbsp;")), gaps.join(QStringLiteral(" &nbsp;")));
}

Window TimelineView::bounds() const
{
    if (!index_)
        return {0, 1};
    // The capture window too, so the axis can show its origin (0) and end even when no event sits there.
    const Trace& t = index_->trace();
    const bool capture = t.meta.capture_end > t.meta.capture_start;
    const int64_t lo = capture ? std::min(index_->start(), t.meta.capture_start) : index_->start();
    const int64_t hi = capture ? std::max(index_->end(), t.meta.capture_end) : index_->end();
    return timeline::fit({lo, std::max(hi, lo + 1)}, 0.01);
}

void TimelineView::setWindow(Window w)
{
    if (w.duration() <= 0 || w == window_)
        return;
    window_ = w;
    if (selection_)
        selection_->setWindow({w.start, w.end});
    update();
}

void TimelineView::fitToWindow()
{
    // Fit the GPU work: host ranges often span the whole program while the GPU is busy for a fraction of it.
    if (!index_ || index_->gpuEnd() <= index_->gpuStart())
        return setWindow(bounds());
    setWindow(timeline::fit({index_->gpuStart(), index_->gpuEnd()}, 0.01));
}

void TimelineView::fitSelection()
{
    // Perfetto's F: the selected time range, else the selected kernel, else the selected CPU operator, else the
    // highlighted gaps (a histogram bin: from the first to the last of them) unless a gap outside them is selected,
    // else the selected idle gap, with a margin of a tenth of it on each side; with nothing selected, the whole GPU
    // activity.
    Window w{0, 0};
    if (selection_ && index_) {
        const Trace& t = index_->trace();
        const auto& hl = selection_->highlightedGaps();
        const int64_t g = selection_->gap();
        const bool gapInHighlight = g < 0 || std::binary_search(hl.begin(), hl.end(), g);
        if (!selection_->range().isEmpty()) {
            w = {selection_->range().start, selection_->range().end};
        } else if (selection_->kernel() >= 0 && size_t(selection_->kernel()) < t.kernels.size()) {
            const size_t k = size_t(selection_->kernel());
            w = {t.kernels.start[k], t.kernels.end[k]};
        } else if (selection_->hostRange() >= 0 && size_t(selection_->hostRange()) < t.ranges.size()) {
            const size_t r = size_t(selection_->hostRange());
            w = {t.ranges.start[r], t.ranges.end[r]};
        } else if (analysis_ && !hl.empty() && gapInHighlight) {
            w = highlightedGapsExtent();
        } else if (analysis_ && g >= 0 && size_t(g) < analysis_->idle.gaps.size()) {
            const Gap& gap = analysis_->idle.gaps[size_t(g)];
            w = {gap.start, gap.end};
        }
    }
    if (w.duration() <= 0)
        return fitToWindow();
    const int64_t margin = std::max<int64_t>(1, w.duration() / 10);
    setWindow({w.start - margin, w.end + margin});
}

bool TimelineView::findRange(uint32_t row, int* laneOut, uint32_t* itemOut) const
{
    if (!index_ || row >= index_->trace().ranges.size())
        return false;
    const RangeTable& R = index_->trace().ranges;
    const LaneKind kind = R.kind[row] == RangeKind::PythonFunction ? LaneKind::Python : LaneKind::HostRanges;
    const auto& lanes = index_->lanes();
    for (size_t li = 0; li < lanes.size(); ++li) {
        const TimelineLane& l = lanes[li];
        if (l.kind != kind || l.thread != R.thread[row])
            continue;
        for (uint32_t i = index_->endStartingBefore(l, R.start[row]);
             i < l.items.size() && index_->itemStart(l, i) == R.start[row]; ++i)
            if (index_->ref(l, i) == ItemRef{ItemKind::Range, row}) {
                *laneOut = int(li);
                *itemOut = i;
                return true;
            }
    }
    return false;
}

Window TimelineView::highlightedGapsExtent() const
{
    if (!selection_ || !analysis_)
        return {0, 0};
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (int64_t g : selection_->highlightedGaps())
        if (g >= 0 && size_t(g) < analysis_->idle.gaps.size()) {
            lo = std::min(lo, analysis_->idle.gaps[size_t(g)].start);
            hi = std::max(hi, analysis_->idle.gaps[size_t(g)].end);
        }
    return lo < hi ? Window{lo, hi} : Window{0, 0};
}

void TimelineView::zoomToRange()
{
    if (!selection_ || selection_->range().isEmpty())
        return;
    const TimeRange r = selection_->range();
    setWindow({r.start, r.end});
}

QRect TimelineView::plotRect() const
{
    const int sb = vscroll_->isVisible() ? vscroll_->width() : 0;
    return QRect(labelWidth_, lanesTop(), std::max(1, width() - labelWidth_ - sb), std::max(1, height() - lanesTop()));
}

int TimelineView::laneTop(int lane) const { return lanesTop() + laneY_[size_t(lane)] - vscroll_->value(); }

int TimelineView::preferredHeight() const
{
    return laneY_.empty() ? minimumHeight() : std::max(minimumHeight(), lanesTop() + contentHeight_ + 6);
}

int TimelineView::visibleLaneCount() const
{
    int n = 0;
    for (int i = 0; i < laneCount(); ++i) {
        const int top = laneTop(i);
        n += isLaneShown(i) && top >= lanesTop() && top + laneHeightOf(i) <= height();
    }
    return n;
}

int TimelineView::laneAt(int y) const
{
    if (!index_ || y < lanesTop())
        return -1;
    const int cy = y - lanesTop() + vscroll_->value();
    auto it = std::upper_bound(laneY_.begin(), laneY_.end(), cy);
    if (it == laneY_.begin())
        return -1;
    const int lane = int(it - laneY_.begin()) - 1;
    const int h = laneHeightOf(lane);
    return cy < laneY_[size_t(lane)] + h ? lane : -1;
}

int64_t TimelineView::itemAt(const QPoint& pos, int* laneOut) const
{
    const int lane = laneAt(pos.y());
    if (laneOut)
        *laneOut = lane;
    const QRect plot = plotRect();
    if (lane < 0 || pos.x() < plot.left())
        return -1;
    const double npp = timeline::nsPerPixel(window_, plot.width());
    const int64_t t = timeline::xToTime(pos.x() - plot.left(), window_, plot.width());
    return index_->hitTest(index_->lanes()[size_t(lane)], t, std::llround(2 * npp));
}

QString TimelineView::laneTitle(int lane) const
{
    const TimelineLane& l = index_->lanes()[size_t(lane)];
    const TraceMeta& m = index_->trace().meta;
    auto gpu = [&](uint16_t d) {
        const int id = d < m.devices.size() ? m.devices[d].id : int(d);
        return tr("GPU %1").arg(id);
    };
    auto thread = [&](uint32_t th) {
        if (th < m.threads.size()) {
            const ThreadInfo& ti = m.threads[th];
            return ti.name.empty() ? tr("Thread %1").arg(ti.tid) : qs(ti.name);
        }
        return tr("Thread %1").arg(th);
    };
    switch (l.kind) {
    case LaneKind::Stream:
        // A stream that only copies (and sets memory) says so: its merged blocks are copies, not kernels.
        if (l.kernels == 0 && l.copies + l.memsets > 0)
            return tr("%1 · Stream %2 · copies").arg(gpu(l.device)).arg(l.stream);
        return tr("%1 · Stream %2").arg(gpu(l.device)).arg(l.stream);
    case LaneKind::Gaps: return tr("%1 · Idle gaps").arg(gpu(l.device));
    case LaneKind::ApiThread: return tr("%1 · %2 API").arg(thread(l.thread), QLatin1String(index_->runtimeName()));
    case LaneKind::HostRanges: {
        // The group's first lane says what the chart holds (CPU ops when any depth has one), and names the thread
        // unless the lane above is that thread's already; the depths under it their depth.
        const int head = groupHead_[size_t(lane)];
        const bool ops = head >= 0 && size_t(head) < groupKinds_.size() && (groupKinds_[size_t(head)] & (1u << uint8_t(RangeKind::CpuOp)));
        if (!isGroupHead(lane))
            return ops ? tr("CPU ops %1").arg(l.depth) : tr("NVTX %1").arg(l.depth);
        if (lane > 0 && index_->lanes()[size_t(lane) - 1].thread == l.thread &&
            index_->lanes()[size_t(lane) - 1].kind == LaneKind::ApiThread)
            return ops ? tr("CPU ops") : tr("NVTX");
        return ops ? tr("%1 · CPU ops").arg(thread(l.thread)) : tr("%1 · NVTX").arg(thread(l.thread));
    }
    case LaneKind::Python: {
        if (!isGroupHead(lane))
            return tr("Python %1").arg(l.depth);
        int levels = 0;
        for (size_t i = size_t(lane); i < groupHead_.size() && groupHead_[i] == lane; ++i)
            ++levels;
        const TimelineLane* above = lane > 0 ? &index_->lanes()[size_t(lane) - 1] : nullptr;
        if (above && above->thread == l.thread && (above->kind == LaneKind::ApiThread || above->kind == LaneKind::HostRanges))
            return tr("Python (%n level(s))", nullptr, levels);
        return tr("%1 · Python (%n level(s))", nullptr, levels).arg(thread(l.thread));
    }
    }
    return {};
}

QColor TimelineView::itemColor(const TimelineLane& lane, uint32_t i) const
{
    const ItemRef r = index_->ref(lane, i);
    const Trace& t = index_->trace();
    switch (r.kind) {
    case ItemKind::Kernel:
        if (analysis_ && r.row < analysis_->classes.kernel_class.size()) {
            const int c = analysis_->classes.kernel_class[r.row];
            if (c >= 0 && size_t(c) < classColor_.size())
                return classColor_[size_t(c)];
        }
        return colorForKey(qs(t.str(t.kernels.short_name[r.row])));
    case ItemKind::Memcpy: {
        const CopyKind k = t.memcpy.copy_kind[r.row];
        return k == CopyKind::HtoD ? QColor(70, 170, 90) : k == CopyKind::DtoH ? QColor(160, 90, 180) : QColor(60, 150, 160);
    }
    case ItemKind::Memset: return QColor(140, 140, 140);
    case ItemKind::Api: {
        const uint8_t f = t.api.flags[r.row];
        return (f & kApiSync) ? kApiSyncColor : (f & (kApiLaunch | kApiGraphLaunch)) ? kApiLaunchColor : kApiOther;
    }
    case ItemKind::Range: {
        // By name (the same operator the same colour everywhere); Python frames paler, so the operators stand out.
        const QColor c = colorForKey(qs(t.str(t.ranges.name[r.row])));
        return t.ranges.kind[r.row] == RangeKind::PythonFunction ? c.lighter(150) : c.lighter(125);
    }
    case ItemKind::Gap: return gapColor(lane, i, nullptr);
    }
    return Qt::gray;
}

QColor TimelineView::gapColor(const TimelineLane& lane, uint32_t i, GapCursor* cursor) const
{
    // By the cause of the analysis's gap (Other where the analysis has none starting there); one colour without
    // an analysis.
    if (!analysis_)
        return kGapColor;
    // The analysis has at least the lane's gaps between two of them (it also splits a gap at a zero-length op):
    // start the search where the lane's count puts it; analysisGapAt checks the guess before galloping from it.
    size_t hint = cursor && cursor->item <= i ? cursor->gap + (i - cursor->item) : 0;
    const int64_t g = analysisGapAt(lane.device, index_->itemStart(lane, i), cursor ? &hint : nullptr);
    if (cursor && g >= 0)
        *cursor = {i, size_t(g)};
    return causeColor(g >= 0 ? analysis_->idle.gaps[size_t(g)].cause : GapCause::Other);
}

QString TimelineView::itemName(const TimelineLane& lane, uint32_t i) const
{
    const ItemRef r = index_->ref(lane, i);
    const Trace& t = index_->trace();
    switch (r.kind) {
    // The function's own name, as nsys shortens it (a Kineto trace records only the demangled one).
    case ItemKind::Kernel: return qs(shorten_kernel_name(t.str(t.kernels.short_name[r.row])));
    case ItemKind::Memcpy: return qs(copy_kind_label(t.memcpy.copy_kind[r.row]));
    case ItemKind::Memset: return tr("[CUDA memset]");
    case ItemKind::Api: return qs(t.str(t.api.name[r.row]));
    case ItemKind::Range: return qs(t.str(t.ranges.name[r.row]));
    case ItemKind::Gap: return tr("idle");
    }
    return {};
}

const std::vector<float>& TimelineView::idleColumns(int lane) const
{
    static const std::vector<float> none;
    return lane >= 0 && size_t(lane) < idleColumns_.size() ? idleColumns_[size_t(lane)] : none;
}

QColor TimelineView::mergedColor(int laneIdx, uint32_t first, uint32_t count) const
{
    const QColor neutral = viewColors(palette()).mergedRun;
    if (!index_ || !analysis_ || laneIdx < 0 || size_t(laneIdx) >= index_->lanes().size())
        return neutral;
    // A bounded sample per block keeps a fit frame at O(blocks · 48) reads.
    const int c = dominantKernelClass(*index_, index_->lanes()[size_t(laneIdx)], first, count,
                                      analysis_->classes.kernel_class, 48);
    // No classified kernel in it (a run of copies): the colour of its first item.
    return c >= 0 && size_t(c) < classColor_.size() ? classColor_[size_t(c)]
                                                     : itemColor(index_->lanes()[size_t(laneIdx)], first);
}

QString TimelineView::mergedLabel(int laneIdx, uint32_t visible) const
{
    const TimelineLane* lane = index_ && laneIdx >= 0 && size_t(laneIdx) < index_->lanes().size()
                                   ? &index_->lanes()[size_t(laneIdx)]
                                   : nullptr;
    if (!lane)
        return {};
    const int n = int(std::min<uint32_t>(visible, INT32_MAX));
    switch (lane->kind) {
    case LaneKind::Stream:
        if (lane->kernels == 0)
            return tr("%Ln copies", nullptr, n);
        if (lane->copies + lane->memsets == 0)
            return tr("%Ln kernels", nullptr, n);
        return tr("%Ln ops", nullptr, n);
    case LaneKind::Gaps: return tr("%Ln idle gaps", nullptr, n);
    case LaneKind::ApiThread: return tr("%Ln API calls", nullptr, n);
    case LaneKind::HostRanges:
    case LaneKind::Python: return tr("%Ln ranges", nullptr, n);
    }
    return {};
}

const std::vector<int64_t>& TimelineView::mergedColumns(int lane) const
{
    static const std::vector<int64_t> none;
    return lane >= 0 && size_t(lane) < mergedColumns_.size() ? mergedColumns_[size_t(lane)] : none;
}

void TimelineView::drawLane(QPainter& p, int laneIdx, const QRect& r, double npp)
{
    const TimelineLane& lane = index_->lanes()[size_t(laneIdx)];
    std::vector<DrawnRun>* drawn = size_t(laneIdx) < drawn_.size() ? &drawn_[size_t(laneIdx)] : nullptr;
    if (drawn)
        drawn->clear();
    std::vector<int64_t>* classColumns = size_t(laneIdx) < mergedColumns_.size() ? &mergedColumns_[size_t(laneIdx)] : nullptr;
    if (classColumns)
        classColumns->clear();
    const uint32_t i0 = index_->firstEndingAfter(lane, window_.start);
    const uint32_t i1 = index_->endStartingBefore(lane, window_.end);
    if (i0 >= i1)
        return;
    const double w = r.width();
    const int64_t bucket = std::max<int64_t>(1, std::llround(npp));

    struct Run {
        int64_t start, end;
        uint32_t first, count;
    };
    std::unordered_map<QRgb, QVector<QRect>> batches;
    QVector<QRect> underlay;   // merged blocks drawn per column: their extent, faintly, under the columns
    struct Label {
        QRect rect;
        uint32_t first, count, visible;
    };
    QVector<Label> labels;
    const bool kernelsLane = lane.kind == LaneKind::Stream;
    const bool gapsLane = lane.kind == LaneKind::Gaps && size_t(laneIdx) < gapDensity_.size() &&
                          !gapDensity_[size_t(laneIdx)].isNull();
    // Idle lane: each pixel column is inked in proportion to its idle fraction, so sub-pixel gaps merged into one
    // run show their density (a 4.7 % idle trace looks 4.7 % inked) and a gap wider than a pixel stays solid.
    std::vector<float>* columns = gapsLane ? &idleColumns_[size_t(laneIdx)] : nullptr;
    if (columns)
        *columns = gapDensity_[size_t(laneIdx)].columnFractions(window_, r.width());
    // Stream lane with the class density: a merged block is painted per pixel column, a bar as high as the column
    // is busy, stacked by operator class; its label counts what is visible.
    const ClassDensity* density = kernelsLane && classColumns ? usableDensity() : nullptr;
    const size_t K = density ? size_t(density->classCount()) : 0;
    bool classColumnsReady = false;
    struct Pending {
        QRect rect;
        bool open = false;
    };
    std::vector<Pending> pending(K);
    auto flushClass = [&](size_t c) {
        if (pending[c].open && c < classColor_.size())
            batches[classColor_[c].rgba()].push_back(pending[c].rect);
        pending[c].open = false;
    };
    auto paintMix = [&](int from, int to) {
        if (!classColumnsReady) {
            density->laneColumns(laneIdx, window_, r.width(), *classColumns);
            classColumnsReady = true;
        }
        const int H = r.height();
        for (int x = std::max(0, from); x < std::min(int(w), to); ++x) {
            const int64_t* col = classColumns->data() + size_t(x) * K;
            int64_t total = 0;
            for (size_t c = 0; c < K; ++c)
                total += col[c];
            if (total <= 0) {
                for (size_t c = 0; c < K; ++c)
                    flushClass(c);
                continue;
            }
            const double busy = std::min(1.0, double(total) / std::max(1.0, npp));
            const int h = std::max(1, int(std::lround(busy * H)));
            int64_t cum = 0;
            int yPrev = 0;
            for (size_t c = 0; c < K; ++c) {
                cum += col[c];
                const int y = int(std::lround(double(cum) * h / double(total)));
                const int seg = y - yPrev;
                if (seg <= 0 || col[c] == 0) {
                    flushClass(c);
                    continue;
                }
                const QRect rc(r.left() + x, r.top() + H - y, 1, seg);
                Pending& pc = pending[c];
                if (pc.open && pc.rect.right() + 1 == rc.left() && pc.rect.top() == rc.top() && pc.rect.height() == seg) {
                    pc.rect.setRight(rc.left());
                } else {
                    flushClass(c);
                    pc.rect = rc;
                    pc.open = true;
                }
                yPrev = y;
            }
        }
        for (size_t c = 0; c < K; ++c)
            flushClass(c);
    };
    GapCursor gapCursor;   // the runs come in time order: each gap lookup starts from the last one
    auto blockColor = [&](const Run& run) {
        if (lane.kind == LaneKind::Gaps)
            return gapColor(lane, run.first, &gapCursor);
        return run.count > 1 && kernelsLane ? mergedColor(laneIdx, run.first, run.count) : itemColor(lane, run.first);
    };
    std::vector<QColor> labelColor;

    auto emitRun = [&](const Run& run) {
        const double x0 = timeline::timeToX(run.start, window_, w);
        const double x1 = timeline::timeToX(run.end, window_, w);
        const int left = int(std::floor(std::max(-1.0, x0)));
        const int right = int(std::ceil(std::min(w + 1, x1)));
        QRect rect(r.left() + left, r.top(), std::max(1, right - left), r.height());
        // What the block counts: its items inside the visible window (a pre-merged span may reach beyond it).
        const uint32_t visible = std::min(run.first + run.count, i1) - std::max(run.first, std::min(i0, run.first + run.count));
        if (drawn)
            drawn->push_back({run.start, run.end, run.first, run.count, rect.left(), rect.left() + rect.width(), visible});
        if (density && run.count > 1) {
            underlay.push_back(rect);
            paintMix(left, right);
            if (rect.width() > 60) {
                labels.push_back({rect, run.first, run.count, visible});
                labelColor.push_back(palette().base().color());
            }
            return;
        }
        const QColor c = blockColor(run);
        if (columns) {
            // Runs of columns with the same ink share one rectangle; alpha in 1/64 steps keeps the batches few.
            const int from = std::max(0, left), to = std::min(int(columns->size()), right);
            int x = from;
            while (x < to) {
                const int a = int(std::lround((*columns)[size_t(x)] * 64.f));
                int x2 = x + 1;
                while (x2 < to && int(std::lround((*columns)[size_t(x2)] * 64.f)) == a)
                    ++x2;
                if (a > 0) {
                    QColor ink = c;
                    ink.setAlpha(std::min(255, a * 4));
                    batches[ink.rgba()].push_back(QRect(r.left() + x, r.top(), x2 - x, r.height()));
                }
                x = x2;
            }
        } else {
            batches[c.rgba()].push_back(rect);
        }
        if (rect.width() > 40 && (!columns || run.count <= 1)) {
            labels.push_back({rect, run.first, run.count, visible});
            labelColor.push_back(c);
        }
    };

    Run cur{0, 0, 0, 0};
    auto feed = [&](int64_t s, int64_t e, uint32_t first, uint32_t count) {
        if (cur.count > 0) {
            const bool curSmall = cur.count > 1 || cur.end - cur.start < bucket;
            const bool nextSmall = count > 1 || e - s < bucket;
            if (curSmall && nextSmall && s - cur.end < bucket) {
                cur.end = std::max(cur.end, e);
                cur.count += count;
                return;
            }
            emitRun(cur);
        }
        cur = {s, e, first, count};
    };

    // Pre-merged spans for this zoom level when the lane has them, else the items themselves.
    const int level = timeline::lodLevel(npp);
    const LodLevel* spans = nullptr;
    if (!lane.levels.empty()) {
        const int L = std::min<int>(level, int(lane.levels.size()) - 1);
        if (!lane.levels[size_t(L)].empty() && (L == level || level >= int(lane.levels.size())))
            spans = &lane.levels[size_t(L)];
        else if (!index_->complete() && level < index_->coarseLevel() &&
                 index_->coarseLevel() < int(lane.levels.size()))
            spans = &lane.levels[size_t(index_->coarseLevel())];   // coarse index: coarser blocks until it is complete
    }
    if (spans) {
        for (size_t j = spans->spanOfItem(i0); j < spans->size(); ++j) {
            const LodSpan s = (*spans)[j];
            if (s.first >= i1)
                break;
            feed(s.start, s.end, s.first, s.count);
        }
    } else {
        for (uint32_t i = i0; i < i1; ++i)
            feed(index_->itemStart(lane, i), index_->itemEnd(lane, i), i, 1);
    }
    if (cur.count > 0)
        emitRun(cur);

    p.setPen(Qt::NoPen);
    if (!underlay.isEmpty()) {
        QColor faint = viewColors(palette()).mergedRun;
        faint.setAlpha(45);
        p.setBrush(faint);
        p.drawRects(underlay.constData(), int(underlay.size()));
    }
    for (auto& [rgba, rects] : batches) {
        p.setBrush(QColor::fromRgba(rgba));
        p.drawRects(rects.constData(), int(rects.size()));
    }
    if (!labels.isEmpty()) {
        const QFontMetrics fm = p.fontMetrics();
        for (qsizetype li = 0; li < labels.size(); ++li) {
            const Label& l = labels[li];
            const QString text = l.count <= 1 ? itemName(lane, l.first) : mergedLabel(laneIdx, l.visible);
            const QRect tr = l.rect.intersected(r).adjusted(3, 0, -3, 0);
            if (tr.width() < 20)
                continue;
            const QString shown = fm.elidedText(text, Qt::ElideRight, tr.width());
            if (density && l.count > 1) {
                // Over a column mix: a plate of the lane's background behind the text, so it reads on any class.
                QRect plate = fm.boundingRect(tr, Qt::AlignVCenter | Qt::AlignLeft, shown).adjusted(-2, 0, 2, 0);
                QColor back = labelColor[size_t(li)];
                back.setAlpha(200);
                p.fillRect(plate.intersected(r), back);
                p.setPen(palette().text().color());
            } else {
                p.setPen(textOn(labelColor[size_t(li)]));
            }
            p.drawText(tr, Qt::AlignVCenter | Qt::AlignLeft, shown);
        }
    }
}

void TimelineView::drawOverview(QPainter& p)
{
    // The whole capture, whatever the zoom: per pixel column how busy the GPUs are (bar height) and which operator
    // classes they ran (the bar stacked by class share); the visible window is outlined. From the class density when
    // there is one (O(columns · lanes) when the width or the data change, cached), else the idle lanes only.
    const QRect box = overviewRect();
    if (box.height() <= 0 || !index_)
        return;
    refreshOverview();
    const ViewColors vc = viewColors(palette());
    p.fillRect(QRect(0, 0, width(), overviewHeight()), palette().window());
    p.fillRect(box, palette().base());
    const int H = box.height();
    const size_t K = size_t(overview_.classes);
    std::unordered_map<QRgb, QVector<QRect>> batches;
    const QColor plain = vc.mergedRun;
    for (int x = 0; x < int(overview_.busy.size()) && x < box.width(); ++x) {
        const float busy = overview_.busy[size_t(x)];
        const int h = busy > 0 ? std::max(1, int(std::lround(busy * H))) : 0;
        if (h == 0)
            continue;
        if (K == 0) {
            batches[plain.rgba()].push_back(QRect(box.left() + x, box.bottom() + 1 - h, 1, h));
            continue;
        }
        double cum = 0;
        int yPrev = 0;
        for (size_t c = 0; c < K; ++c) {
            const float s = overview_.share[size_t(x) * K + c];
            if (s <= 0)
                continue;
            cum += s;
            const int y = int(std::lround(cum * h));
            if (y > yPrev && c < classColor_.size())
                batches[classColor_[c].rgba()].push_back(QRect(box.left() + x, box.bottom() + 1 - y, 1, y - yPrev));
            yPrev = std::max(yPrev, y);
        }
        if (yPrev < h)   // busy with copies or classes not coloured: the plain ink
            batches[plain.rgba()].push_back(QRect(box.left() + x, box.bottom() + 1 - h, 1, h - yPrev));
    }
    p.setPen(Qt::NoPen);
    for (auto& [rgba, rects] : batches) {
        p.setBrush(QColor::fromRgba(rgba));
        p.drawRects(rects.constData(), int(rects.size()));
    }
    // The visible window.
    const double bw = box.width();
    const double x0 = timeline::timeToX(window_.start, overview_.window, bw);
    const double x1 = timeline::timeToX(window_.end, overview_.window, bw);
    const QRectF win(box.left() + std::clamp(x0, -1.0, bw), box.top(), std::max(2.0, std::min(x1, bw + 1) - std::max(x0, -1.0)),
                     box.height());
    QColor fill = vc.selectionFill;
    p.fillRect(win, fill);
    p.setPen(QPen(vc.selectionEdge, 1));
    p.setBrush(Qt::NoBrush);
    p.drawRect(win.adjusted(0, 0, -1, -1));
    p.setPen(vc.tick);
    p.drawRect(box.adjusted(0, 0, -1, -1));
    // Its label: what it shows and the GPU busy share of the whole capture.
    double sum = 0;
    for (float b : overview_.busy)
        sum += b;
    const double mean = overview_.busy.empty() ? 0 : sum / double(overview_.busy.size());
    p.setPen(palette().windowText().color());
    const QFontMetrics fm = p.fontMetrics();
    p.drawText(QRect(8, 0, labelWidth_ - 12, overviewHeight()), Qt::AlignVCenter | Qt::AlignLeft,
               fm.elidedText(tr("Overview · GPU busy %1").arg(formatPercent(mean)), Qt::ElideRight, labelWidth_ - 12));
}

void TimelineView::refreshOverview()
{
    const QRect box = overviewRect();
    if (!index_ || box.width() <= 0) {
        overview_ = {};
        return;
    }
    if (overviewWidth_ == box.width() && !overview_.busy.empty())
        return;
    overviewWidth_ = box.width();
    overview_ = {};
    // The capture as the profiler reports it (or the events' extent), without the view's fit margin: the track's
    // mean busy fraction is then the capture's.
    {
        const Trace& t = index_->trace();
        const bool capture = t.meta.capture_end > t.meta.capture_start;
        const int64_t lo = capture ? std::min(index_->start(), t.meta.capture_start) : index_->start();
        const int64_t hi = capture ? std::max(index_->end(), t.meta.capture_end) : index_->end();
        overview_.window = {lo, std::max(hi, lo + 1)};
    }
    if (const ClassDensity* d = usableDensity()) {
        ClassDensity::Overview o = d->overview(overview_.window, box.width());
        overview_.busy = std::move(o.busy);
        overview_.share = std::move(o.share);
        overview_.classes = o.classes;
        return;
    }
    // Without classes (before the analysis): the busy fraction from the idle lanes, as ClassDensity computes it.
    overview_.busy.assign(size_t(box.width()), 0.f);
    const auto& lanes = index_->lanes();
    int devices = 0;
    std::vector<double> busy(size_t(box.width()), 0.0);
    for (size_t li = 0; li < lanes.size(); ++li) {
        if (lanes[li].kind != LaneKind::Gaps || gapDensity_.size() <= li || gapDensity_[li].isNull())
            continue;
        int64_t first = INT64_MAX, last = INT64_MIN;
        for (const TimelineLane& s : lanes)
            if (s.kind == LaneKind::Stream && s.device == lanes[li].device && !s.items.empty()) {
                first = std::min(first, index_->itemStart(s, 0));
                last = std::max(last, s.blockMaxEnd.back());
            }
        if (first >= last)
            continue;
        ++devices;
        const std::vector<float> idle = gapDensity_[li].columnFractions(overview_.window, box.width());
        int64_t prev = overview_.window.start;
        for (int x = 0; x < box.width(); ++x) {
            const int64_t next = x + 1 == box.width() ? overview_.window.end
                                                      : timeline::xToTime(double(x + 1), overview_.window, box.width());
            if (next > prev) {
                const int64_t active = std::max<int64_t>(0, std::min(next, last) - std::max(prev, first));
                busy[size_t(x)] += std::max(0.0, double(active) - double(idle[size_t(x)]) * double(next - prev)) /
                                   double(next - prev);
            }
            prev = std::max(prev, next);
        }
    }
    if (devices > 0)
        for (size_t x = 0; x < busy.size(); ++x)
            overview_.busy[x] = float(std::clamp(busy[x] / devices, 0.0, 1.0));
}

int64_t TimelineView::overviewTimeAt(int x) const
{
    const QRect box = overviewRect();
    const timeline::Window w = overview_.window.duration() > 0 ? overview_.window : bounds();
    return timeline::xToTime(double(x - box.left()), w, std::max(1, box.width()));
}

void TimelineView::drawAxis(QPainter& p, const QRect& plot, double npp)
{
    const int top = overviewHeight();   // the axis sits under the overview track
    p.fillRect(QRect(0, top, width(), kAxisHeight), palette().window());
    const int64_t step = timeline::tickStep(npp, 90);
    const int64_t origin = index_ ? index_->origin() : 0;
    int64_t q = (window_.start - origin) / step;
    if ((window_.start - origin) % step < 0)
        --q;   // floor, also before the origin
    int64_t t = origin + q * step;
    while (t < window_.start)
        t += step;
    axisTicks_.clear();
    // Deep in, the first tick is the reference (its time once, in bold) and the others offsets from it.
    int64_t last = t;
    while (last + step <= window_.end)
        last += step;
    axisMode_ = timeline::axisLabelMode(t, last, origin, step);
    // ticks and labels on the header strip; grid lines over the lanes translucent so items show through
    const ViewColors vc = viewColors(palette());
    const QColor grid = vc.tick;
    const QColor gridOverLanes(grid.red(), grid.green(), grid.blue(), vc.dark ? 70 : 60);
    QFont bold = p.font();
    bold.setBold(true);
    int labelsFrom = INT_MIN;   // a label's left edge may not run into the reference's
    for (; t <= window_.end; t += step) {
        const int x = plot.left() + int(std::lround(timeline::timeToX(t, window_, plot.width())));
        p.setPen(grid);
        p.drawLine(x, top + kAxisHeight - 6, x, top + kAxisHeight);
        p.setPen(gridOverLanes);
        p.drawLine(x, top + kAxisHeight, x, plot.bottom());
        p.setPen(vc.headerText);
        const bool reference = axisMode_.offsets && t == axisMode_.reference;
        const QString label = !axisMode_.offsets ? timeline::tickLabel(t, origin, step)
                              : reference        ? axisMode_.referenceLabel
                                                 : timeline::offsetLabel(t, axisMode_.reference, step);
        axisTicks_.push_back({t, x, label});
        if (x + 3 < labelsFrom)
            continue;
        if (reference) {
            p.save();
            p.setFont(bold);
            const QRect box = p.boundingRect(QRect(x + 3, top + 2, 400, kAxisHeight - 6), Qt::AlignLeft | Qt::AlignVCenter, label);
            p.drawText(box, Qt::AlignLeft | Qt::AlignVCenter, label);
            p.restore();
            labelsFrom = box.right() + 8;
        } else {
            p.drawText(QRect(x + 3, top + 2, 120, kAxisHeight - 6), Qt::AlignLeft | Qt::AlignVCenter, label);
        }
    }
    p.setPen(grid);
    p.drawLine(0, top + kAxisHeight - 1, width(), top + kAxisHeight - 1);
    // Window length in the corner above the labels.
    p.setPen(vc.headerText);
    p.drawText(QRect(6, top + 2, labelWidth_ - 12, kAxisHeight - 6), Qt::AlignLeft | Qt::AlignVCenter,
               tr("Visible %1").arg(formatDuration(window_.duration())));
}

void TimelineView::drawOverlays(QPainter& p, const QRect& plot)
{
    const double w = plot.width();
    auto itemRect = [&](int lane, uint32_t i) {
        const TimelineLane& l = index_->lanes()[size_t(lane)];
        const double x0 = timeline::timeToX(index_->itemStart(l, i), window_, w);
        const double x1 = timeline::timeToX(index_->itemEnd(l, i), window_, w);
        const int h = laneHeightOf(lane);
        return QRectF(plot.left() + std::max(-2.0, x0), laneTop(lane), std::max(2.0, std::min(w + 2, x1) - std::max(-2.0, x0)), h);
    };
    // overlay colours from the palette: the selection's Highlight, the amber focus, the tooltip's box
    const ViewColors vc = viewColors(palette());
    p.setClipRect(plot);
    drawSearchMarks(p, plot);
    drawCriticalPath(p, plot);
    // range selection
    if (selection_ && !selection_->range().isEmpty()) {
        const TimeRange r = selection_->range();
        const double x0 = timeline::timeToX(r.start, window_, w), x1 = timeline::timeToX(r.end, window_, w);
        p.fillRect(QRectF(plot.left() + x0, plot.top(), std::max(1.0, x1 - x0), plot.height()), vc.selectionFill);
        p.setPen(vc.selectionEdge);
        p.drawLine(QPointF(plot.left() + x0, plot.top()), QPointF(plot.left() + x0, plot.bottom()));
        p.drawLine(QPointF(plot.left() + x1, plot.top()), QPointF(plot.left() + x1, plot.bottom()));
    }
    // highlighted gaps (a histogram bucket): a strip along the top of their idle lane, so the cause colours stay
    // visible, and an outline around the ones wide enough to see; at most one mark per pixel column and lane
    if (!highlightMarks_.empty()) {
        // the Highlight colour, lifted on dark backgrounds where the plain one sinks into the lane
        const QColor mark = vc.dark ? vc.selectionEdge.lighter(135) : vc.selectionEdge;
        std::vector<int> lastX(index_->lanes().size(), INT_MIN);
        p.setBrush(Qt::NoBrush);
        p.setPen(QPen(mark, 1.5));
        for (auto m = highlightMarks_.begin(); m != highlightMarks_.end() && m->start <= window_.end; ++m) {
            if (m->end < window_.start || m->lane < 0 || size_t(m->lane) >= index_->lanes().size())
                continue;
            const double x0 = timeline::timeToX(m->start, window_, w), x1 = timeline::timeToX(m->end, window_, w);
            const int px = int(std::floor(x0));
            if (px <= lastX[size_t(m->lane)])
                continue;
            lastX[size_t(m->lane)] = int(std::ceil(std::max(x0 + 2, x1)));
            const int top = laneTop(m->lane);
            const int h = laneHeightFor(LaneKind::Gaps, laneHeight_);
            const double left = plot.left() + std::max(-2.0, x0), width = std::min(w + 2, x1) - std::max(-2.0, x0);
            p.fillRect(QRectF(left - 1, top - 1, std::max(3.0, width + 2), 4), mark);
            if (width >= 4)
                p.drawRect(QRectF(left - 1, top - 1, width + 2, h + 2));
        }
    }
    // selected gap
    if (selection_ && analysis_ && selection_->gap() >= 0 && size_t(selection_->gap()) < analysis_->idle.gaps.size()) {
        const Gap& g = analysis_->idle.gaps[size_t(selection_->gap())];
        const int lane = index_->laneOfGaps(g.device);
        if (lane >= 0) {
            const double x0 = timeline::timeToX(g.start, window_, w), x1 = timeline::timeToX(g.end, window_, w);
            p.setPen(QPen(vc.focus, 2));
            p.setBrush(Qt::NoBrush);
            p.drawRect(QRectF(plot.left() + std::max(-2.0, x0) - 1, laneTop(lane) - 1,
                              std::max(3.0, std::min(w + 2, x1) - std::max(-2.0, x0)) + 2,
                              laneHeightFor(LaneKind::Gaps, laneHeight_) + 2));
        }
    }
    // hover
    if (hoverLane_ >= 0 && hoverItem_ >= 0) {
        p.setPen(QPen(palette().text().color(), 1));
        p.setBrush(Qt::NoBrush);
        p.drawRect(itemRect(hoverLane_, uint32_t(hoverItem_)));
    }
    // selected kernel, its launch call and the flow between them
    if (selection_ && selection_->kernel() >= 0 && size_t(selection_->kernel()) < index_->trace().kernels.size()) {
        const uint32_t k = uint32_t(selection_->kernel());
        const int kl = index_->laneOfKernel(k);
        if (kl >= 0) {
            const TimelineLane& lane = index_->lanes()[size_t(kl)];
            // find the kernel's position in its lane
            const int64_t ks = index_->trace().kernels.start[k];
            uint32_t pos = index_->endStartingBefore(lane, ks);
            uint32_t found = UINT32_MAX;
            for (uint32_t i = pos; i < lane.items.size() && index_->itemStart(lane, i) == ks; ++i)
                if (index_->ref(lane, i) == ItemRef{ItemKind::Kernel, k})
                    found = i;
            if (found != UINT32_MAX) {
                const QRectF kr = itemRect(kl, found);
                p.setPen(QPen(vc.focus, 2));
                p.setBrush(Qt::NoBrush);
                p.drawRect(kr.adjusted(-1, -1, 1, 1));
                const int32_t api = index_->trace().kernels.launch_api[k];
                const int al = api >= 0 ? index_->laneOfApi(uint32_t(api)) : -1;
                if (al >= 0) {
                    const TimelineLane& alane = index_->lanes()[size_t(al)];
                    const int64_t as = index_->trace().api.start[size_t(api)];
                    for (uint32_t i = index_->endStartingBefore(alane, as);
                         i < alane.items.size() && index_->itemStart(alane, i) == as; ++i) {
                        if (index_->ref(alane, i) != ItemRef{ItemKind::Api, uint32_t(api)})
                            continue;
                        const QRectF ar = itemRect(al, i);
                        p.drawRect(ar.adjusted(-1, -1, 1, 1));
                        const QPointF from(ar.left(), ar.top() < kr.top() ? ar.bottom() : ar.top());
                        const QPointF to(kr.left(), ar.top() < kr.top() ? kr.bottom() : kr.top());
                        p.setRenderHint(QPainter::Antialiasing, true);
                        QPainterPath path(from);
                        const double my = (from.y() + to.y()) / 2;
                        path.cubicTo(QPointF(from.x(), my), QPointF(to.x(), my), to);
                        p.setPen(QPen(vc.dark ? vc.focus : vc.focus.darker(120), 1.5));
                        p.drawPath(path);
                        p.setRenderHint(QPainter::Antialiasing, false);
                        break;
                    }
                }
            }
        }
    }
    // The CPU operator that launched the selected kernel (outlined, a flow from it to the kernel), and the selected
    // operator with flows to the kernels it launched (at most 200, found when it was selected).
    auto flow = [&](const QRectF& a, const QRectF& b) {
        const bool down = a.top() < b.top();
        const QPointF from(a.left() + std::min(4.0, a.width() / 2), down ? a.bottom() : a.top());
        const QPointF to(b.left(), down ? b.top() : b.bottom());
        QPainterPath path(from);
        const double my = (from.y() + to.y()) / 2;
        path.cubicTo(QPointF(from.x(), my), QPointF(to.x(), my), to);
        p.drawPath(path);
    };
    const QColor flowInk = vc.dark ? vc.focus : vc.focus.darker(120);
    if (selection_ && originOp_ >= 0 && originOfKernel_ == selection_->kernel() && originOfKernel_ >= 0) {
        int ol = -1, kl = index_->laneOfKernel(uint32_t(originOfKernel_));
        uint32_t oi = 0;
        const uint32_t ki = index_->itemOfKernel(uint32_t(originOfKernel_));
        if (findRange(uint32_t(originOp_), &ol, &oi) && isLaneShown(ol)) {
            const QRectF orc = itemRect(ol, oi);
            p.setPen(QPen(vc.focus, 1.5, Qt::DashLine));
            p.setBrush(Qt::NoBrush);
            p.drawRect(orc.adjusted(-1, -1, 1, 1));
            if (kl >= 0 && ki != UINT32_MAX && isLaneShown(kl)) {
                p.setRenderHint(QPainter::Antialiasing, true);
                p.setPen(QPen(flowInk, 1.2, Qt::DashLine));
                flow(orc, itemRect(kl, ki));
                p.setRenderHint(QPainter::Antialiasing, false);
            }
        }
    }
    if (selection_ && selection_->hostRange() >= 0) {
        int rl = -1;
        uint32_t ri = 0;
        if (findRange(uint32_t(selection_->hostRange()), &rl, &ri) && isLaneShown(rl)) {
            const QRectF rr = itemRect(rl, ri);
            p.setPen(QPen(vc.focus, 2));
            p.setBrush(Qt::NoBrush);
            p.drawRect(rr.adjusted(-1, -1, 1, 1));
            p.setRenderHint(QPainter::Antialiasing, true);
            p.setPen(QPen(flowInk, 1.2));
            int lastX = INT_MIN;
            for (uint32_t k : opKernels_) {
                const int kl = index_->laneOfKernel(k);
                const uint32_t ki = kl >= 0 ? index_->itemOfKernel(k) : UINT32_MAX;
                if (ki == UINT32_MAX || !isLaneShown(kl))
                    continue;
                const QRectF kr = itemRect(kl, ki);
                if (kr.right() < plot.left() || kr.left() > plot.right() || int(kr.left()) == lastX)
                    continue;   // off screen, or on the pixel of the last one drawn
                lastX = int(kr.left());
                p.drawRect(kr.adjusted(-1, -1, 1, 1));
                flow(rr, kr);
            }
            p.setRenderHint(QPainter::Antialiasing, false);
        }
    }
    p.setClipping(false);
    // range statistics box
    if (selection_ && !selection_->range().isEmpty()) {
        const QString text = rangeStatsText();
        const QFontMetrics fm = p.fontMetrics();
        const QRect box(plot.left() + 8, plot.bottom() - fm.height() - 12, fm.horizontalAdvance(text) + 16,
                        fm.height() + 8);
        QColor boxFill = vc.tooltipBackground;
        boxFill.setAlpha(235);
        p.fillRect(box, boxFill);
        p.setPen(vc.tick);
        p.drawRect(box.adjusted(0, 0, -1, -1));
        p.setPen(vc.tooltipText);
        p.drawText(box, Qt::AlignCenter, text);
    }
}

QString TimelineView::rangeStatsText() const
{
    if (!index_ || !selection_ || selection_->range().isEmpty())
        return {};
    const TimeRange r = selection_->range();
    const RangeStats s = index_->rangeStats(r.start, r.end);
    // From .. to on the axis's origin (the capture start), like every time the views show, precise enough to tell
    // the two ends apart.
    const int64_t resolution = std::max<int64_t>(1, r.duration() / 10);
    return tr("Range %1 (%2 – %3) · busy %4 · idle %5 · %n kernel(s)", nullptr, int(s.kernels))
        .arg(formatDuration(r.duration()), formatTimeAt(r.start - index_->origin(), resolution),
             formatTimeAt(r.end - index_->origin(), resolution), formatDuration(s.busy), formatDuration(s.idle));
}

void TimelineView::render(QPainter& p)
{
    p.setRenderHint(QPainter::Antialiasing, false);
    p.fillRect(rect(), palette().base());
    const QRect plot = plotRect();
    if (!index_) {
        p.setPen(palette().placeholderText().color());
        p.drawText(rect(), Qt::AlignCenter, tr("No trace loaded"));
        return;
    }
    const double npp = timeline::nsPerPixel(window_, plot.width());
    const auto& lanes = index_->lanes();
    // label column
    p.fillRect(QRect(0, lanesTop(), labelWidth_, height()), palette().window());
    const QFontMetrics fm = p.fontMetrics();
    for (size_t i = 0; i < lanes.size(); ++i) {
        const int top = laneTop(int(i));
        const int h = laneHeightOf(int(i));
        if (h == 0 || top + h < lanesTop() || top > height()) {
            if (i < drawn_.size())
                drawn_[i].clear();
            if (i < mergedColumns_.size())
                mergedColumns_[i].clear();
            continue;
        }
        const QRect laneRect(plot.left(), top, plot.width(), h);
        p.setClipRect(plot);
        if (i % 2 == 0)
            p.fillRect(laneRect, palette().alternateBase());
        drawLane(p, int(i), laneRect, npp);
        if (lanes[i].kind == LaneKind::Gaps && !index_->complete()) {
            // A coarse index has its gap lanes empty: say so rather than show a lane without idle time.
            p.setPen(palette().placeholderText().color());
            p.drawText(laneRect.adjusted(6, 0, -6, 0), Qt::AlignVCenter | Qt::AlignLeft,
                       tr("Finding the idle gaps…"));
        }
        p.setClipRect(QRect(0, lanesTop(), labelWidth_, height()));
        p.setPen(palette().windowText().color());
        // Depths of a flame chart after its first are indented under it; a group's first lane carries its fold.
        const bool depth = groupHead_[i] >= 0 && groupHead_[i] != int(i);
        const int indent = depth ? 18 : 8;
        QString title = laneTitle(int(i));
        if (isGroupHead(int(i)))
            title = (folded_[i] ? QStringLiteral("▸ ") : QStringLiteral("▾ ")) + title;
        p.drawText(QRect(indent, top, labelWidth_ - indent - 4, h), Qt::AlignVCenter | Qt::AlignLeft,
                   fm.elidedText(title, Qt::ElideMiddle, labelWidth_ - indent - 4));
        p.setClipping(false);
    }
    p.setPen(viewColors(palette()).tick);
    p.drawLine(labelWidth_ - 1, lanesTop(), labelWidth_ - 1, height());
    drawAxis(p, plot, npp);
    drawOverview(p);
    drawOverlays(p, plot);
}

void TimelineView::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    render(p);
}

void TimelineView::updateScrollBar()
{
    const int visible = height() - lanesTop();
    vscroll_->setGeometry(width() - vscroll_->sizeHint().width(), lanesTop(), vscroll_->sizeHint().width(), visible);
    vscroll_->setRange(0, std::max(0, contentHeight_ - visible));
    vscroll_->setPageStep(std::max(1, visible));
    vscroll_->setSingleStep(laneHeight_);
    vscroll_->setVisible(contentHeight_ > visible);
}

void TimelineView::resizeEvent(QResizeEvent*) { updateScrollBar(); }

void TimelineView::wheelEvent(QWheelEvent* e)
{
    // As in Perfetto and Nsight Systems: Ctrl+wheel zooms at the cursor, the wheel scrolls the lanes, Shift+wheel and
    // a horizontal wheel (touchpad) pan. Some platforms deliver Shift+wheel as a horizontal delta already.
    if (!index_)
        return;
    const QPoint delta = e->angleDelta();
    if (e->modifiers() & Qt::ControlModifier) {
        const QRect plot = plotRect();
        const int64_t anchor = timeline::xToTime(e->position().x() - plot.left(), window_, plot.width());
        const double steps = (delta.y() != 0 ? delta.y() : delta.x()) / 120.0;
        if (steps != 0)
            setWindow(timeline::zoom(window_, anchor, std::pow(0.8, steps), bounds()));
        e->accept();
        return;
    }
    const bool shift = e->modifiers() & Qt::ShiftModifier;
    const int pan = shift ? (delta.x() != 0 ? delta.x() : delta.y()) : delta.x();
    if (pan != 0)
        setWindow(timeline::pan(window_, -std::llround(pan / 120.0 * 0.1 * double(window_.duration())), bounds()));
    if (!shift && delta.y() != 0)
        vscroll_->setValue(vscroll_->value() - delta.y());
    e->accept();
}

void TimelineView::mousePressEvent(QMouseEvent* e)
{
    if (!index_ || e->button() != Qt::LeftButton)
        return;
    pressPos_ = e->pos();
    pressWindow_ = window_;
    dragging_ = false;
    resizingLabels_ = std::abs(e->pos().x() - labelWidth_) <= 3 && e->pos().y() >= overviewHeight();
    overviewDrag_ = !resizingLabels_ && overviewRect().contains(e->pos());
    if (overviewDrag_) {
        refreshOverview();
        overviewAnchor_ = overviewTimeAt(e->pos().x());
    }
    selectingRange_ = !resizingLabels_ && !overviewDrag_ && (e->modifiers() & Qt::ShiftModifier);
    const QRect plot = plotRect();
    rangeAnchor_ = timeline::xToTime(e->pos().x() - plot.left(), window_, plot.width());
}

void TimelineView::mouseMoveEvent(QMouseEvent* e)
{
    if (!index_)
        return;
    const QRect plot = plotRect();
    if (e->buttons() & Qt::LeftButton) {
        if ((e->pos() - pressPos_).manhattanLength() > 3)
            dragging_ = true;
        if (resizingLabels_) {
            setLabelWidth(e->pos().x());
            return;
        }
        if (!dragging_)
            return;
        if (overviewDrag_) {
            // Drag in the overview: the view shows what the drag spans.
            const int64_t t = overviewTimeAt(e->pos().x());
            const int64_t lo = std::min(overviewAnchor_, t), hi = std::max(overviewAnchor_, t);
            if (hi - lo >= 100)
                setWindow({lo, hi});
            return;
        }
        if (selectingRange_) {
            const int64_t t = timeline::xToTime(e->pos().x() - plot.left(), window_, plot.width());
            if (selection_)
                selection_->setRange({std::min(rangeAnchor_, t), std::max(rangeAnchor_, t)});
        } else {
            const double npp = timeline::nsPerPixel(pressWindow_, plot.width());
            setWindow(timeline::pan(pressWindow_, -std::llround((e->pos().x() - pressPos_.x()) * npp), bounds()));
            vscroll_->setValue(vscroll_->value() - (e->pos().y() - pressPos_.y()));
            pressPos_.setY(e->pos().y());
        }
        return;
    }
    // The label column's edge can be dragged: say so with the cursor.
    const bool onEdge = std::abs(e->pos().x() - labelWidth_) <= 3 && e->pos().y() >= overviewHeight();
    if (onEdge != (cursor().shape() == Qt::SplitHCursor)) {
        if (onEdge)
            setCursor(Qt::SplitHCursor);
        else
            unsetCursor();
    }
    int lane = -1;
    const int64_t item = itemAt(e->pos(), &lane);
    if (item != hoverItem_ || lane != hoverLane_) {
        hoverItem_ = item;
        hoverLane_ = lane;
        update();
    }
}

void TimelineView::mouseReleaseEvent(QMouseEvent* e)
{
    if (!index_ || e->button() != Qt::LeftButton)
        return;
    if (resizingLabels_) {
        resizingLabels_ = false;
        return;
    }
    if (overviewDrag_) {
        overviewDrag_ = false;
        if (!dragging_) {
            // A click in the overview centres the view there, keeping its zoom.
            const int64_t t = overviewTimeAt(e->pos().x());
            setWindow(timeline::pan(window_, t - (window_.start + window_.end) / 2, bounds()));
        }
        dragging_ = false;
        return;
    }
    if (selectingRange_ && dragging_ && selection_ && !selection_->range().isEmpty()) {
        selectingRange_ = false;
        dragging_ = false;
        emit rangeSelected(selection_->range());
        return;
    }
    if (!dragging_ && e->pos().x() < labelWidth_) {
        // A click on a flame chart's first label folds or unfolds it; the labels select nothing.
        const int lane = laneAt(e->pos().y());
        if (isGroupHead(lane))
            setFolded(lane, !isFolded(lane));
        dragging_ = false;
        selectingRange_ = false;
        return;
    }
    if (!dragging_ && selection_) {
        int lane = -1;
        const int64_t item = itemAt(e->pos(), &lane);
        if (item >= 0) {
            const ItemRef r = index_->ref(index_->lanes()[size_t(lane)], uint32_t(item));
            if (r.kind == ItemKind::Kernel) {
                selection_->setKernel(r.row);
                emit kernelActivated(r.row);
            } else if (r.kind == ItemKind::Api) {
                // a launch call selects the kernel it launched
                const KernelLookup* lookup = index_->kernelLookup();   // null until the index is complete
                const int64_t k = lookup ? lookup->kernelOfApi(r.row) : KernelLookup::scanKernelOfApi(index_->trace(), r.row);
                if (k >= 0) {
                    selection_->setKernel(k);
                    emit kernelActivated(k);
                }
            } else if (r.kind == ItemKind::Range) {
                // a CPU operator (or annotation, NVTX range, Python frame): Details shows it, flows lead to its kernels
                selection_->setHostRange(r.row);
            } else if (r.kind == ItemKind::Gap) {
                const int64_t g = analysisGapOf(lane, r.row);
                if (g >= 0)
                    selection_->setGap(g);
            }
        } else {
            selection_->setKernel(-1);
            selection_->setGap(-1);
            selection_->setHostRange(-1);
        }
    }
    dragging_ = false;
    selectingRange_ = false;
}

void TimelineView::keyPressEvent(QKeyEvent* e)
{
    if (!index_)
        return QWidget::keyPressEvent(e);
    const QRect plot = plotRect();
    const QPoint local = mapFromGlobal(QCursor::pos());
    const int64_t anchor = plot.contains(local) ? timeline::xToTime(local.x() - plot.left(), window_, plot.width())
                                                : (window_.start + window_.end) / 2;
    const int64_t step = window_.duration() / 6;
    switch (e->key()) {
    case Qt::Key_W: setWindow(timeline::zoom(window_, anchor, 0.7, bounds())); break;
    case Qt::Key_S: setWindow(timeline::zoom(window_, anchor, 1 / 0.7, bounds())); break;
    case Qt::Key_A: case Qt::Key_Left: setWindow(timeline::pan(window_, -step, bounds())); break;
    case Qt::Key_D: case Qt::Key_Right: setWindow(timeline::pan(window_, step, bounds())); break;
    case Qt::Key_F: fitSelection(); break;
    case Qt::Key_0: fitToWindow(); break;
    case Qt::Key_Z: zoomToRange(); break;
    case Qt::Key_Escape:
        if (selection_)
            selection_->clear();
        break;
    default: QWidget::keyPressEvent(e); return;
    }
    e->accept();
}

void TimelineView::leaveEvent(QEvent*)
{
    hoverItem_ = -1;
    hoverLane_ = -1;
    update();
}

QString TimelineView::tooltipFor(int laneIdx, int64_t item) const
{
    const TimelineLane& lane = index_->lanes()[size_t(laneIdx)];
    const ItemRef r = index_->ref(lane, uint32_t(item));
    const Trace& t = index_->trace();
    const int64_t s = index_->itemStart(lane, uint32_t(item)), e = index_->itemEnd(lane, uint32_t(item));
    QString html = QStringLiteral("<b>%1</b><br>").arg(itemName(lane, uint32_t(item)).toHtmlEscaped());
    html += tr("Duration: %1").arg(formatDuration(e - s)) + QStringLiteral("<br>");
    html += tr("Start: %1").arg(formatStart(s - index_->origin(), e - s));
    switch (r.kind) {
    case ItemKind::Kernel: {
        const auto& k = t.kernels;
        if (analysis_ && r.row < analysis_->classes.kernel_class.size()) {
            const int c = analysis_->classes.kernel_class[r.row];
            if (c >= 0 && size_t(c) < analysis_->classes.classes.size())
                html += QStringLiteral("<br>") +
                        tr("Class: %1").arg(opClassLabel(analysis_->classes.classes[size_t(c)]));
        }
        html += QStringLiteral("<br>") + tr("Stream %1").arg(k.stream[r.row]);
        const LaunchShape& sh = k.launch_shape(r.row);
        if (sh.grid_x > 0 && sh.block_x > 0)   // never a launch shape the trace does not record
            html += QStringLiteral("<br>") + tr("Grid %1×%2×%3 · Block %4×%5×%6")
                                                  .arg(sh.grid_x).arg(sh.grid_y).arg(sh.grid_z)
                                                  .arg(sh.block_x).arg(sh.block_y).arg(sh.block_z);
        if (sh.registers_per_thread)
            html += QStringLiteral("<br>") + tr("Registers/thread %1").arg(sh.registers_per_thread);
        if (const std::string_view full = t.str(k.name[r.row]); shorten_kernel_name(t.str(k.short_name[r.row])) != full)
            html += QStringLiteral("<br><small>%1</small>").arg(qs(full).left(300).toHtmlEscaped());
        break;
    }
    case ItemKind::Memcpy: html += QStringLiteral("<br>") + tr("Size %1").arg(formatBytes(t.memcpy.bytes[r.row])); break;
    case ItemKind::Memset: html += QStringLiteral("<br>") + tr("Size %1").arg(formatBytes(t.memset.bytes[r.row])); break;
    case ItemKind::Api: html += QStringLiteral("<br>") + tr("Correlation id %1").arg(t.api.correlation[r.row]); break;
    case ItemKind::Range: {
        const RangeKind k = t.ranges.kind[r.row];
        html += QStringLiteral("<br>") + (k == RangeKind::CpuOp            ? tr("CPU operator")
                                          : k == RangeKind::PythonFunction ? tr("Python frame")
                                          : k == RangeKind::UserAnnotation ? tr("Annotation")
                                                                           : tr("NVTX range"));
        if (k == RangeKind::CpuOp)
            html += QStringLiteral("<br><i>%1</i>").arg(tr("Click for the kernels it launched.").toHtmlEscaped());
        break;
    }
    case ItemKind::Gap:
        if (analysis_) {
            const int64_t g = analysisGapOf(laneIdx, r.row);
            html += QStringLiteral("<br>") +
                    tr("Cause: %1").arg(causeLabel(g >= 0 ? analysis_->idle.gaps[size_t(g)].cause : GapCause::Other));
        }
        html += QStringLiteral("<br><i>%1</i>").arg(tr("Click for the kernels around it and what the CPU did.").toHtmlEscaped());
        break;
    default: break;
    }
    return html;
}

const std::vector<TimelineView::DrawnRun>& TimelineView::drawnRuns(int lane) const
{
    static const std::vector<DrawnRun> none;
    return lane >= 0 && size_t(lane) < drawn_.size() ? drawn_[size_t(lane)] : none;
}

const TimelineView::DrawnRun* TimelineView::runAt(const QPoint& pos, int* laneOut) const
{
    const int lane = laneAt(pos.y());
    if (laneOut)
        *laneOut = lane;
    if (lane < 0 || pos.x() < plotRect().left())
        return nullptr;
    const auto& runs = drawnRuns(lane);
    // runs are in x order; take the one containing x, else the nearest within 2 px
    // (By index: `begin() - 1` is undefined, and UBSan flags it on an empty lane.)
    const size_t next = size_t(std::upper_bound(runs.begin(), runs.end(), pos.x(),
                                                [](int x, const DrawnRun& r) { return x < r.x0; }) - runs.begin());
    const DrawnRun* best = nullptr;
    int bestDist = 3;
    for (size_t i : {next - 1, next}) {   // next - 1 wraps to SIZE_MAX when next is 0
        if (i >= runs.size())
            continue;
        const DrawnRun* c = &runs[i];
        const int d = pos.x() < c->x0 ? c->x0 - pos.x() : pos.x() >= c->x1 ? pos.x() - c->x1 + 1 : 0;
        if (d < bestDist) {
            bestDist = d;
            best = c;
        }
    }
    return best;
}

QString TimelineView::mergedTooltip(int laneIdx, const DrawnRun& run) const
{
    const TimelineLane& lane = index_->lanes()[size_t(laneIdx)];
    // The part of the block inside the visible window: what its label counts.
    const int64_t from = std::max(run.start, window_.start), to = std::min(run.end, window_.end);
    const uint32_t first = std::max(run.first, std::min(index_->firstEndingAfter(lane, window_.start), run.first + run.count));
    const TimelineIndex::MergedSummary m = index_->summarize(lane, first, std::max<uint32_t>(1, run.visible));
    const Trace& t = index_->trace();
    const QString what = mergedLabel(laneIdx, run.visible);
    QString html = QStringLiteral("<b>%1</b><br>").arg(what.toHtmlEscaped());
    html += tr("Span: %1").arg(formatDuration(to - from)) + QStringLiteral("<br>");
    html += tr("From %1 to %2").arg(formatDuration(from - index_->origin()), formatDuration(to - index_->origin()));
    // The class mix of a stream's block: each class's share of the GPU time in it, largest first.
    if (const ClassDensity* d = lane.kind == LaneKind::Stream ? usableDensity() : nullptr; d && to > from) {
        const std::vector<int64_t> ns = d->laneTime(laneIdx, from, to);
        int64_t total = 0;
        for (int64_t v : ns)
            total += v;
        std::vector<size_t> order;
        for (size_t c = 0; c < ns.size(); ++c)
            if (ns[c] > 0)
                order.push_back(c);
        std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return ns[a] > ns[b]; });
        if (total > 0) {
            html += QStringLiteral("<br>") + tr("Busy %1 of the span").arg(formatPercent(double(total) / double(to - from)));
            for (size_t i = 0; i < order.size() && i < 5; ++i) {
                const size_t c = order[i];
                const QString label = c < analysis_->classes.classes.size() ? opClassLabel(analysis_->classes.classes[c])
                                                                            : QString();
                html += QStringLiteral("<br><span style=\"color:%1\">■</span>&nbsp;%2 %3")
                            .arg(c < classColor_.size() ? classColor_[c].name() : QStringLiteral("#888"),
                                 formatPercent(double(ns[c]) / double(total)), label.toHtmlEscaped());
            }
        }
    }
    if (!m.topNames.empty()) {
        html += QStringLiteral("<br>") +
                (m.sampled < m.count ? tr("Most frequent (sample of %1):").arg(m.sampled) : tr("Most frequent:"));
        for (const auto& [name, n] : m.topNames)
            html += QStringLiteral("<br>&nbsp;&nbsp;%1 × %2").arg(n).arg(qs(t.str(name)).left(80).toHtmlEscaped());
    }
    html += QStringLiteral("<br><i>%1</i>").arg(tr("Zoom in (W) to see them one by one.").toHtmlEscaped());
    return html;
}

QString TimelineView::tooltipAt(const QPoint& pos) const
{
    if (!index_)
        return {};
    if (const QRect box = overviewRect(); box.contains(pos) && !overview_.busy.empty()) {
        const int x = std::clamp(pos.x() - box.left(), 0, int(overview_.busy.size()) - 1);
        QString html = tr("<b>Overview</b> at %1").arg(formatDuration(overviewTimeAt(pos.x()) - index_->origin()));
        html += QStringLiteral("<br>") + tr("GPU busy %1").arg(formatPercent(overview_.busy[size_t(x)]));
        const size_t K = size_t(overview_.classes);
        std::vector<size_t> order;
        for (size_t c = 0; c < K; ++c)
            if (overview_.share[size_t(x) * K + c] > 0)
                order.push_back(c);
        std::sort(order.begin(), order.end(),
                  [&](size_t a, size_t b) { return overview_.share[size_t(x) * K + a] > overview_.share[size_t(x) * K + b]; });
        for (size_t i = 0; i < order.size() && i < 4 && analysis_; ++i) {
            const size_t c = order[i];
            if (c >= analysis_->classes.classes.size())
                continue;
            html += QStringLiteral("<br><span style=\"color:%1\">■</span>&nbsp;%2 %3")
                        .arg(c < classColor_.size() ? classColor_[c].name() : QStringLiteral("#888"),
                             formatPercent(overview_.share[size_t(x) * K + c]),
                             opClassLabel(analysis_->classes.classes[c]).toHtmlEscaped());
        }
        html += QStringLiteral("<br><i>%1</i>").arg(tr("Click to centre the view here, drag to choose what it shows.").toHtmlEscaped());
        return html;
    }
    int lane = -1;
    if (const DrawnRun* run = runAt(pos, &lane); run && run->count > 1)
        return mergedTooltip(lane, *run);
    const int64_t item = itemAt(pos, &lane);
    if (item >= 0)
        return tooltipFor(lane, item);
    if (lane >= 0 && pos.x() < labelWidth_)
        return laneTitle(lane);
    return {};
}

bool TimelineView::event(QEvent* e)
{
    if (e->type() == QEvent::ToolTip && index_) {
        auto* he = static_cast<QHelpEvent*>(e);
        const QString tip = tooltipAt(he->pos());
        if (!tip.isEmpty())
            QToolTip::showText(he->globalPos(), tip, this);
        else
            QToolTip::hideText();
        return true;
    }
    return QWidget::event(e);
}

void TimelineView::setSearchMatches(std::shared_ptr<const SearchMatches> matches)
{
    searchMatches_ = std::move(matches);
    currentMatch_ = -1;
    update();
}

void TimelineView::setCurrentMatch(int64_t ordered)
{
    if (!index_ || !searchMatches_ || ordered < 0 || size_t(ordered) >= searchMatches_->ordered.size())
        return;
    currentMatch_ = ordered;
    const SearchHit& h = searchMatches_->ordered[size_t(ordered)];
    if (h.lane >= index_->lanes().size())
        return;
    revealItem(int(h.lane), h.item, /*centre=*/true);
    const ItemRef ref = index_->ref(index_->lanes()[h.lane], h.item);
    if (selection_ && ref.kind == ItemKind::Kernel)
        selection_->setKernel(int64_t(ref.row));
    update();
}

void TimelineView::revealItem(int laneIdx, uint32_t item, bool centre)
{
    if (!index_ || laneIdx < 0 || size_t(laneIdx) >= index_->lanes().size())
        return;
    const TimelineLane& lane = index_->lanes()[size_t(laneIdx)];
    if (item >= lane.items.size())
        return;
    const int64_t s = index_->itemStart(lane, item), e = std::max(index_->itemEnd(lane, item), s + 1);
    Window w = window_;
    if ((e - s) * 5 / 4 > w.duration())
        w = {s - (e - s) / 4, e + (e - s) / 4};
    else if (centre || s < w.start || e > w.end)
        w = timeline::pan(w, (s + e) / 2 - (w.start + w.end) / 2, bounds());
    setWindow(w);
    if (size_t(laneIdx) < laneY_.size()) {
        const int visible = height() - lanesTop();
        const int y = laneY_[size_t(laneIdx)];
        if (y < vscroll_->value() || y + laneHeight_ > vscroll_->value() + visible)
            vscroll_->setValue(std::max(0, y - visible / 3));
    }
}

void TimelineView::scrollToLane(int lane)
{
    if (lane >= 0 && size_t(lane) < laneY_.size())
        vscroll_->setValue(std::max(0, laneY_[size_t(lane)] - 4));
}

void TimelineView::drawSearchMarks(QPainter& p, const QRect& plot)
{
    searchMarksDrawn_ = 0;
    if (!index_ || !searchMatches_ || searchMatches_->empty())
        return;
    const double w = plot.width();
    const double npp = timeline::nsPerPixel(window_, plot.width());
    const ViewColors vc = viewColors(palette());
    // A colour no kernel class, gap cause or selection uses: every match gets an outline and a tick above it, one
    // per pixel column (a binary search skips the matches under a drawn pixel, so a million matches cost a few
    // hundred draws).
    const QColor mark = vc.dark ? QColor(255, 90, 220) : QColor(200, 0, 150);
    p.setBrush(Qt::NoBrush);
    p.setPen(QPen(mark, 1.5));
    const auto& lanes = index_->lanes();
    for (size_t li = 0; li < lanes.size() && li < searchMatches_->perLane.size(); ++li) {
        const std::vector<uint32_t>& items = searchMatches_->perLane[li];
        if (items.empty())
            continue;
        const TimelineLane& lane = lanes[li];
        const int top = laneTop(int(li));
        const int h = laneHeightOf(int(li));
        if (h == 0 || top + h < lanesTop() || top > height())
            continue;
        const uint32_t first = index_->firstEndingAfter(lane, window_.start);
        const uint32_t last = index_->endStartingBefore(lane, window_.end);
        auto it = std::lower_bound(items.begin(), items.end(), first);
        const auto end = std::lower_bound(items.begin(), items.end(), last);
        while (it != end) {
            const int64_t s = index_->itemStart(lane, *it), e = index_->itemEnd(lane, *it);
            const double x0 = timeline::timeToX(s, window_, w), x1 = timeline::timeToX(e, window_, w);
            const double left = plot.left() + std::max(-2.0, x0), width = std::min(w + 2, x1) - std::max(-2.0, x0);
            p.fillRect(QRectF(left - 1, top - 3, std::max(3.0, width + 2), 3), mark);
            if (width >= 3)
                p.drawRect(QRectF(left - 1, top - 1, width + 2, h + 2));
            ++searchMarksDrawn_;
            // Skip every later match that starts within the pixels this mark covers.
            const int64_t next = s + std::max<int64_t>(int64_t(std::ceil(npp * std::max(2.0, x1 - x0 + 1))), 1);
            it = std::lower_bound(it + 1, end, next,
                                  [&](uint32_t item, int64_t t) { return index_->itemStart(lane, item) < t; });
        }
    }
    // The current match: the focus colour, thicker.
    if (currentMatch_ >= 0 && size_t(currentMatch_) < searchMatches_->ordered.size()) {
        const SearchHit& hit = searchMatches_->ordered[size_t(currentMatch_)];
        if (hit.lane < lanes.size()) {
            const TimelineLane& lane = lanes[hit.lane];
            const double x0 = timeline::timeToX(index_->itemStart(lane, hit.item), window_, w);
            const double x1 = timeline::timeToX(index_->itemEnd(lane, hit.item), window_, w);
            const double left = plot.left() + std::max(-2.0, x0), width = std::min(w + 2, x1) - std::max(-2.0, x0);
            p.setPen(QPen(vc.focus, 2.5));
            p.drawRect(QRectF(left - 2, laneTop(int(hit.lane)) - 2, std::max(4.0, width + 4),
                              laneHeightOf(int(hit.lane)) + 4));
        }
    }
}

void TimelineView::setCriticalPath(std::shared_ptr<const critpath::CriticalPathSummary> path)
{
    path_ = std::move(path);
    rebuildPathMarks();
    update();
}

void TimelineView::setCriticalPathShown(bool shown)
{
    pathShown_ = shown;
    rebuildPathMarks();
    update();
}

void TimelineView::rebuildPathMarks()
{
    pathMarks_.clear();
    pathStep_ = -1;
    pathUnplaced_ = 0;
    if (!pathShown_ || !path_ || !path_->computed || !index_)
        return;
    const Trace& t = index_->trace();
    // The step of the selected kernel (by its start, in the step's GPU window), else the steady steps.
    if (selection_ && analysis_ && selection_->kernel() >= 0 && size_t(selection_->kernel()) < t.kernels.size()) {
        const int64_t ks = t.kernels.start[size_t(selection_->kernel())];
        const auto& steps = analysis_->phases.steps;
        for (size_t i = 0; i < steps.size() && i < path_->steps.size(); ++i)
            if (ks >= steps[i].start && ks < steps[i].end) {
                pathStep_ = int(i);
                break;
            }
    }
    std::vector<const std::vector<critpath::PathEntry>*> parts;
    if (pathStep_ >= 0)
        parts.push_back(&path_->steps[size_t(pathStep_)].events);
    else
        for (const critpath::StepPath& sp : path_->steps)
            if (sp.steady)
                parts.push_back(&sp.events);
    if (parts.empty())
        parts.push_back(&path_->events);   // no steps (or no steady one): the whole trace's path
    // An item of a stream or thread lane: the one of `kind`/`row` among the lane's items starting at `start`.
    auto placeIn = [&](int lane, int64_t start, ItemKind kind, uint32_t row) {
        if (lane < 0)
            return false;
        const TimelineLane& l = index_->lanes()[size_t(lane)];
        for (uint32_t i = index_->endStartingBefore(l, start); i < l.items.size() && index_->itemStart(l, i) == start;
             ++i)
            if (index_->ref(l, i) == ItemRef{kind, row}) {
                pathMarks_.push_back({lane, i});
                return true;
            }
        return false;
    };
    auto streamLane = [&](uint16_t device, uint32_t stream) {
        for (size_t li = 0; li < index_->lanes().size(); ++li) {
            const TimelineLane& l = index_->lanes()[li];
            if (l.kind == LaneKind::Stream && l.device == device && l.stream == stream)
                return int(li);
        }
        return -1;
    };
    for (const auto* part : parts)
        for (const critpath::PathEntry& e : *part) {
            bool placed = false;
            switch (e.kind) {
            case critpath::EventKind::Kernel:
                if (e.row < t.kernels.size()) {
                    const int lane = index_->laneOfKernel(e.row);
                    const uint32_t item = lane >= 0 ? index_->itemOfKernel(e.row) : UINT32_MAX;
                    if ((placed = item != UINT32_MAX))
                        pathMarks_.push_back({lane, item});
                }
                break;
            case critpath::EventKind::Api:
                placed = e.row < t.api.size() && placeIn(index_->laneOfApi(e.row), t.api.start[e.row], ItemKind::Api, e.row);
                break;
            case critpath::EventKind::CpuOp: {
                int lane = -1;
                uint32_t item = 0;
                if ((placed = findRange(e.row, &lane, &item)))
                    pathMarks_.push_back({lane, item});
                break;
            }
            case critpath::EventKind::Memcpy:
                placed = e.row < t.memcpy.size() &&
                         placeIn(streamLane(t.memcpy.device[e.row], t.memcpy.stream[e.row]), t.memcpy.start[e.row],
                                 ItemKind::Memcpy, e.row);
                break;
            case critpath::EventKind::Memset:
                placed = e.row < t.memset.size() &&
                         placeIn(streamLane(t.memset.device[e.row], t.memset.stream[e.row]), t.memset.start[e.row],
                                 ItemKind::Memset, e.row);
                break;
            }
            pathUnplaced_ += placed ? 0 : 1;
        }
}

void TimelineView::drawCriticalPath(QPainter& p, const QRect& plot)
{
    if (pathMarks_.empty() || !index_)
        return;
    // As HTA overlays its path in Perfetto: every event on the path outlined in a colour of its own, consecutive
    // events joined in path order. Off-screen events are skipped; a join is drawn when either end is on screen.
    const double w = plot.width();
    const QColor ink(0xe0, 0x21, 0x8a);   // magenta: apart from the class colours and the amber focus
    QColor fill = ink;
    fill.setAlpha(60);
    auto rectOf = [&](const PathMark& m, bool* onScreen) {
        const TimelineLane& l = index_->lanes()[size_t(m.lane)];
        const int64_t s = index_->itemStart(l, m.item), e = index_->itemEnd(l, m.item);
        *onScreen = e >= window_.start && s <= window_.end && isLaneShown(m.lane);
        const double x0 = timeline::timeToX(s, window_, w), x1 = timeline::timeToX(e, window_, w);
        const double left = std::clamp(x0, -4.0, w + 4), right = std::clamp(x1, -4.0, w + 4);
        return QRectF(plot.left() + left - 1, laneTop(m.lane) - 1, std::max(3.0, right - left) + 2,
                      laneHeightOf(m.lane) + 2);
    };
    p.setRenderHint(QPainter::Antialiasing, true);
    bool prevOn = false;
    QRectF prev;
    int lastX = INT_MIN, lastLane = -1;
    for (size_t i = 0; i < pathMarks_.size(); ++i) {
        const PathMark& m = pathMarks_[i];
        if (m.lane < 0 || size_t(m.lane) >= index_->lanes().size())
            continue;
        bool on = false;
        const QRectF r = rectOf(m, &on);
        if (i > 0 && (on || prevOn)) {
            p.setPen(QPen(ink, 1.2));
            p.drawLine(QPointF(prev.right(), prev.center().y()), QPointF(r.left(), r.center().y()));
        }
        if (on && !(m.lane == lastLane && int(r.left()) == lastX)) {   // one outline per pixel column and lane
            p.setPen(QPen(ink, 2));
            p.setBrush(fill);
            p.drawRect(r);
            lastX = int(r.left());
            lastLane = m.lane;
        }
        prev = r;
        prevOn = on;
    }
    p.setBrush(Qt::NoBrush);
    p.setRenderHint(QPainter::Antialiasing, false);
}

} // namespace sl
