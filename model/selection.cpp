#include "model/selection.h"

#include <algorithm>

namespace sl {

Selection::Selection(QObject* parent) : QObject(parent) { qRegisterMetaType<sl::TimeRange>(); }

void Selection::setKernel(int64_t index)
{
    if (index < -1)
        index = -1;
    if (index == kernel_)
        return;
    if (index >= 0) {
        setGap(-1);
        setHostRange(-1);
    }
    kernel_ = index;
    emit kernelChanged(kernel_);
}

void Selection::setRange(TimeRange r)
{
    if (r.end < r.start)
        std::swap(r.start, r.end);
    if (r == range_)
        return;
    range_ = r;
    emit rangeChanged(range_);
}

void Selection::setWindow(TimeRange w)
{
    if (w.end < w.start)
        std::swap(w.start, w.end);
    if (w == window_)
        return;
    window_ = w;
    emit windowChanged(window_);
}

void Selection::setKernelName(uint32_t nameId)
{
    if (nameId == kernelName_)
        return;
    kernelName_ = nameId;
    if (nameId != UINT32_MAX)
        setHighlightedKernels({});
    emit kernelNameChanged(kernelName_);
}

void Selection::setGap(int64_t index)
{
    if (index < -1)
        index = -1;
    if (index == gap_)
        return;
    gap_ = index;
    if (index >= 0) {
        setKernel(-1);
        setHostRange(-1);
    }
    emit gapChanged(gap_);
}

void Selection::setHostRange(int64_t index)
{
    if (index < -1)
        index = -1;
    if (index == hostRange_)
        return;
    hostRange_ = index;
    if (index >= 0) {
        setKernel(-1);
        setGap(-1);
    }
    emit hostRangeChanged(hostRange_);
}

void Selection::setHighlightedGaps(std::vector<int64_t> gaps)
{
    std::sort(gaps.begin(), gaps.end());
    gaps.erase(std::unique(gaps.begin(), gaps.end()), gaps.end());
    if (gaps == highlightedGaps_)
        return;
    highlightedGaps_ = std::move(gaps);
    emit highlightedGapsChanged();
}

void Selection::setHighlightedKernels(std::vector<int64_t> kernels)
{
    std::sort(kernels.begin(), kernels.end());
    kernels.erase(std::unique(kernels.begin(), kernels.end()), kernels.end());
    kernels.erase(std::remove_if(kernels.begin(), kernels.end(), [](int64_t k) { return k < 0; }), kernels.end());
    if (kernels == highlightedKernels_)
        return;
    highlightedKernels_ = std::move(kernels);
    emit highlightedKernelsChanged();
}

void Selection::clear()
{
    setKernel(-1);
    setGap(-1);
    setHostRange(-1);
    setHighlightedGaps({});
    setHighlightedKernels({});
    setRange({});
    setKernelName(UINT32_MAX);
}

} // namespace sl
