#pragma once
// The one shared selection / zoom state, injected into every view so the timeline, tables, charts and the details
// pane always agree. Setters emit only on a real change.

#include <QObject>
#include <cstdint>
#include <vector>

namespace sl {

struct TimeRange {
    int64_t start = 0, end = 0;
    bool isEmpty() const { return end <= start; }
    int64_t duration() const { return end - start; }
    friend bool operator==(const TimeRange& a, const TimeRange& b) { return a.start == b.start && a.end == b.end; }
    friend bool operator!=(const TimeRange& a, const TimeRange& b) { return !(a == b); }
};

class Selection : public QObject {
    Q_OBJECT
public:
    explicit Selection(QObject* parent = nullptr);

    // Index into Trace::kernels, or -1.
    int64_t kernel() const { return kernel_; }
    // A range the user selected (drag on the timeline); empty when none.
    TimeRange range() const { return range_; }
    // The window the timeline shows; views that follow zoom read it.
    TimeRange window() const { return window_; }
    // The kernel name the tables selected (StrId), or UINT32_MAX.
    uint32_t kernelName() const { return kernelName_; }
    // The selected idle gap: index into AnalysisResult::idle.gaps, or -1. A kernel and a gap are never selected
    // together: selecting one clears the other.
    int64_t gap() const { return gap_; }
    // The selected host range (a CPU operator, annotation, NVTX range or Python frame of the timeline's flame
    // chart): index into Trace::ranges, or -1. Exclusive with the kernel and the gap, like those two.
    int64_t hostRange() const { return hostRange_; }
    // Gaps to outline in the timeline (indices into AnalysisResult::idle.gaps, ascending), e.g. one histogram bucket.
    const std::vector<int64_t>& highlightedGaps() const { return highlightedGaps_; }
    // A set of kernels picked together (indices into Trace::kernels, ascending, unique), e.g. every instance of one
    // measured (op, shapes, dtype) point of the Roofline. The timeline outlines them; a kernel name selected
    // elsewhere (setKernelName with a real change) clears it, since that names a different set.
    const std::vector<int64_t>& highlightedKernels() const { return highlightedKernels_; }

public slots:
    void setKernel(int64_t index);
    void setRange(sl::TimeRange r);
    void setWindow(sl::TimeRange w);
    void setKernelName(uint32_t nameId);
    void setGap(int64_t index);
    void setHostRange(int64_t index);
    void setHighlightedGaps(std::vector<int64_t> gaps);
    void setHighlightedKernels(std::vector<int64_t> kernels);
    void clear();

signals:
    void kernelChanged(int64_t index);
    void rangeChanged(sl::TimeRange range);
    void windowChanged(sl::TimeRange window);
    void kernelNameChanged(uint32_t nameId);
    void gapChanged(int64_t index);
    void hostRangeChanged(int64_t index);
    void highlightedGapsChanged();
    void highlightedKernelsChanged();

private:
    int64_t kernel_ = -1;
    TimeRange range_;
    TimeRange window_;
    uint32_t kernelName_ = UINT32_MAX;
    int64_t gap_ = -1;
    int64_t hostRange_ = -1;
    std::vector<int64_t> highlightedGaps_;
    std::vector<int64_t> highlightedKernels_;
};

} // namespace sl

Q_DECLARE_METATYPE(sl::TimeRange)
