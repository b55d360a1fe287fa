#pragma once
// Progress reporting and cancellation for long work (readers, analyses). Readers call tick() inside their row loops.

#include <atomic>
#include <functional>
#include <string_view>

#include "analysis/trace/errors.h"

namespace sl {

struct LoadControl {
    // fraction in [0,1], stage names what is being done ("kernels", "API calls", ...). May be empty.
    std::function<void(double fraction, std::string_view stage)> progress;
    const std::atomic<bool>* cancel = nullptr;

    bool cancelled() const { return cancel && cancel->load(std::memory_order_relaxed); }
    void check() const
    {
        if (cancelled())
            throw Cancelled();
    }
    void report(double fraction, std::string_view stage) const
    {
        if (progress)
            progress(fraction, stage);
    }
};

} // namespace sl
