#include "model/selection.h"

namespace sl {

Selection::Selection(QObject* parent) : QObject(parent) { qRegisterMetaType<sl::TimeRange>(); }

void Selection::setKernel(int64_t index)
{
    if (index < -1)
        index = -1;
    if (index == kernel_)
        return;
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
    emit kernelNameChanged(kernelName_);
}

void Selection::clear()
{
    setKernel(-1);
    setRange({});
    setKernelName(UINT32_MAX);
}

} // namespace sl
