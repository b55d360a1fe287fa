#pragma once
// Cancel points for inner loops that carry no LoadControl (issue 36 §7: "cancel means cancel").
//
// Long work — a load, the analyses, the capture join, the pipeline — opens a CancelScope with its LoadControl's flag
// on its own thread. Loops inside call cancel_point(), which throws Cancelled once that flag is raised, so a Cancel
// in the workbench stops a stage within one loop iteration, not at the end of the stage. Every regex match is a
// cancel point (sl::Regex calls it), so a pattern run over many names stops too. On a thread with no scope open, or
// a scope with no flag, cancel_point() does nothing: the CLI and the tests pay one thread-local load.
//
// Callers must let Cancelled through: a `catch (const std::exception&)` around a cancel point needs a
// `catch (const Cancelled&) { throw; }` before it.

#include <atomic>
#include <cstddef>

#include "analysis/trace/errors.h"

namespace sl {

namespace detail {
inline constinit thread_local const std::atomic<bool>* cancel_flag = nullptr;
}

// Makes `flag` the calling thread's cancel flag until the scope ends (then the one before is back). A null flag
// keeps the enclosing scope's.
class CancelScope {
public:
    explicit CancelScope(const std::atomic<bool>* flag) : saved_(detail::cancel_flag)
    {
        if (flag)
            detail::cancel_flag = flag;
    }
    ~CancelScope() { detail::cancel_flag = saved_; }
    CancelScope(const CancelScope&) = delete;
    CancelScope& operator=(const CancelScope&) = delete;

private:
    const std::atomic<bool>* saved_;
};

// The calling thread's cancel flag (null when none): work split over threads opens a CancelScope with it on each.
inline const std::atomic<bool>* current_cancel_flag()
{
    return detail::cancel_flag;
}

// True once the calling thread's cancel flag is raised.
inline bool cancel_requested()
{
    const std::atomic<bool>* f = detail::cancel_flag;
    return f && f->load(std::memory_order_relaxed);
}

// Throws Cancelled when the calling thread's cancel flag is raised.
inline void cancel_point()
{
    if (cancel_requested())
        throw Cancelled();
}

// The same, every 4,096th iteration of a loop over `i` (for loops of 10^7 iterations of a few nanoseconds).
inline void cancel_point(size_t i)
{
    if ((i & 0xfffu) == 0)
        cancel_point();
}

} // namespace sl
