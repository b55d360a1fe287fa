#pragma once
// Internal to analysis/critpath: two independent halves of a phase (task 0 and task 1) on up to two threads (one with
// SIGHTLINE_LOAD_THREADS=1), each under the calling thread's cancel flag (cancel_point() stops either); the first
// failure in task order is rethrown once both are done.

#include "analysis/io/parallel.h"
#include "analysis/trace/cancel_point.h"

#include <algorithm>
#include <exception>
#include <functional>

namespace sl::critpath {

inline void run_two_tasks(const std::function<void(size_t task)>& task)
{
    TaskRun tasks;
    const std::atomic<bool>* cancel = current_cancel_flag();
    run_tasks(2, std::min(2u, reader_threads()), tasks, [&](size_t t, unsigned) {
        const CancelScope scope(cancel);
        task(t);
    });
    for (const auto& e : tasks.errors)
        if (e)
            std::rethrow_exception(e);
}

} // namespace sl::critpath
