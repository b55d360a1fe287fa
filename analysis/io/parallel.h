#pragma once
// Parallel reading (issue 18): how many threads a reader may use, and running a fixed list of independent tasks on
// them. Results must not depend on the thread count: readers give each task its own output and merge the outputs in
// task order afterwards, so a parallel read and a single-threaded one build the same Trace (tests/analysis/io/
// tst_parallel_determinism.cpp).

#ifdef __linux__
#include <sched.h>
#endif

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <exception>
#include <functional>
#include <thread>
#include <vector>

namespace sl {

// Threads a reader may use: SIGHTLINE_LOAD_THREADS when set to a number >= 1 (1 = single-threaded, everything on
// the calling thread), else the CPUs this process may run on (its affinity mask: `taskset`, a container's cpuset;
// std::thread::hardware_concurrency() counts every online CPU, so a reader pinned to 2 of 16 cores started 16
// threads that competed for two); never more than 64.
inline unsigned reader_threads()
{
    if (const char* e = std::getenv("SIGHTLINE_LOAD_THREADS"); e && *e) {
        char* endp = nullptr;
        const long v = std::strtol(e, &endp, 10);
        if (endp && *endp == '\0' && v >= 1)
            return static_cast<unsigned>(std::min<long>(v, 64));
    }
    unsigned n = std::thread::hardware_concurrency();
#ifdef __linux__
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        n = static_cast<unsigned>(CPU_COUNT(&set));
#endif
    return std::clamp(n, 1u, 64u);
}

// Runs task(i, slot) for every i in [0, n), each once, on min(threads, n) threads: the calling thread (slot 0) and
// threads it starts (slots 1..). Tasks are started in index order. A task that throws has its exception stored at
// its index; the others still run (a task can look at first_failed to stop early). Returns when every task is done.
struct TaskRun {
    std::vector<std::exception_ptr> errors;   // by task index, null where the task finished
    std::atomic<size_t> first_failed{SIZE_MAX};
};

inline void run_tasks(size_t n, unsigned threads, TaskRun& run, const std::function<void(size_t task, unsigned slot)>& task)
{
    run.errors.assign(n, nullptr);
    run.first_failed.store(SIZE_MAX);
    std::atomic<size_t> next{0};
    auto work = [&](unsigned slot) {
        for (size_t i; (i = next.fetch_add(1)) < n;) {
            try {
                task(i, slot);
            } catch (...) {
                run.errors[i] = std::current_exception();
                size_t cur = run.first_failed.load();
                while (i < cur && !run.first_failed.compare_exchange_weak(cur, i)) {
                }
            }
        }
    };
    const unsigned helpers = static_cast<unsigned>(std::min<size_t>(threads == 0 ? 1 : threads, n)) - (n ? 1 : 0);
    std::vector<std::thread> pool;
    pool.reserve(helpers);
    try {
        for (unsigned s = 1; s <= helpers; ++s)
            pool.emplace_back(work, s);
    } catch (...) {
        // No more threads to be had (a resource limit): the threads that did start and this one do the work.
    }
    work(0);
    for (auto& t : pool)
        t.join();
}

} // namespace sl
