#pragma once
// The dependency graph built beside other work (issue 35 §6: graph and path within 2x of analyze at 10^7 kernels).
//
// The graph needs the trace alone, not the analyses; analyze() keeps one core busy (10^7 kernels: 4.26 s of CPU in
// 4.26 s of wall, tests/bench/bench_critpath), so on a machine with a second core the graph is built there while the
// analyses run, with what the longest-path pass needs of it (path_prep.h), and only the pass itself (which needs the
// analyses' steps and classes) follows them. With one thread (SIGHTLINE_LOAD_THREADS=1, or one CPU) the two run one
// after the other: the same graph, the same results.
//
// Errors: work()'s exception is rethrown first (a Cancelled raised in it stops the graph too, which shares the
// calling thread's cancel flag), then the graph's.

#include "analysis/critpath/dependency_graph.h"
#include "analysis/critpath/path_prep.h"
#include "analysis/io/parallel.h"
#include "analysis/trace/cancel_point.h"

#include <exception>
#include <functional>
#include <optional>
#include <system_error>
#include <thread>

namespace sl::critpath {

// An upper bound of the bytes the critical path holds beyond the trace and the analyses (the graph, the longest-path
// pass's records and out-edges, the paths; measured at 10^7 kernels: 865 MB + 1.6 GB + the paths for 20.1 M events,
// under 150 bytes an event): what the pipeline checks against the memory budget before it builds one.
inline uint64_t critical_path_bytes(const Trace& t)
{
    const uint64_t events = t.ranges.size() + t.api.size() + t.kernels.size() + t.memcpy.size() + t.memset.size();
    return events * 160;
}

struct GraphBeside {
    std::optional<DependencyGraph> graph;
    std::unique_ptr<PathPrep> prep;            // the longest-path pass's arrays (path_prep.h), used up by it
};

inline GraphBeside build_graph_beside(const Trace& trace, bool build, const std::function<void()>& work,
                                      const GraphOptions& options = {})
{
    GraphBeside out;
    if (!build) {
        work();
        return out;
    }
    // work() stays on the calling thread (its progress callbacks and thread-local state are the caller's); the graph
    // gets a thread of its own, with the caller's cancel flag.
    std::exception_ptr graph_error;
    const std::atomic<bool>* cancel = current_cancel_flag();
    auto build_graph = [&] {
        try {
            const CancelScope scope(cancel);
            out.graph.emplace(build_dependency_graph(trace, options));
            out.prep = prepare_paths(*out.graph);
        } catch (...) {
            graph_error = std::current_exception();
        }
    };
    std::thread helper;
    if (reader_threads() > 1) {
        try {
            helper = std::thread(build_graph);
        } catch (const std::system_error&) {   // no thread to be had: one after the other
        }
    }
    try {
        work();
    } catch (...) {
        if (helper.joinable())
            helper.join();
        throw;
    }
    if (helper.joinable())
        helper.join();
    else
        build_graph();
    if (graph_error)
        std::rethrow_exception(graph_error);
    return out;
}

} // namespace sl::critpath
