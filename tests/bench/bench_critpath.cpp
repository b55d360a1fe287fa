// The dependency graph and its critical path (issue 35) against `analyze` on the same trace (target: <= 2x at 10^7
// kernels). The trace is the generator's "scale" preset built in memory. Run: bench_critpath [kernels] [reps].
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "analysis/critpath/critpath_summary.h"
#include "analysis/io/synthetic.h"
#include "analysis/timeline/analysis.h"

using namespace sl;
using Clock = std::chrono::steady_clock;

static double seconds_since(Clock::time_point t0)
{
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

int main(int argc, char** argv)
{
    SynthOptions o = synth_preset("scale");
    if (argc > 1)
        o.total_kernels = std::atoll(argv[1]);
    const int reps = argc > 2 ? std::max(1, std::atoi(argv[2])) : 3;
    const Trace t = make_synthetic_trace(o);
    const OpClassifier classifier = OpClassifier::load();
    double analyze_s = 1e30, graph_s = 1e30, path_s = 1e30, summary_s = 1e30;
    size_t steps = 0;
    size_t graph_bytes = 0, edges = 0;
    int64_t length = 0;
    for (int r = 0; r < reps; ++r) {
        auto t0 = Clock::now();
        const AnalysisResult a = analyze(t, classifier, AnalysisOptions{});
        analyze_s = std::min(analyze_s, seconds_since(t0));
        t0 = Clock::now();
        const critpath::DependencyGraph g = critpath::build_dependency_graph(t);
        graph_s = std::min(graph_s, seconds_since(t0));
        graph_bytes = g.memory_bytes();
        edges = g.edges();
        t0 = Clock::now();
        critpath::PathOptions po;
        po.kernel_class = &a.classes.kernel_class;
        po.class_count = a.classes.classes.size();
        const critpath::CriticalPath p = critpath::longest_path(g, po);
        path_s = std::min(path_s, seconds_since(t0));
        length = p.length_ns;
        // What the pipeline runs: graph, whole path, one path per step, top entries.
        t0 = Clock::now();
        const critpath::CriticalPathSummary sum =
            critpath::summarise_critical_path(t, &a.classes, {}, 10, &a.phases.steps);
        summary_s = std::min(summary_s, seconds_since(t0));
        steps = sum.steps.size();
    }
    std::printf("kernels %zu, api calls %zu, graph edges %zu, graph %.1f MB\nanalyze %.3f s\ngraph   %.3f s\npath    %.3f s\n"
                "summary %.3f s (graph, path, %zu step paths, top)\n"
                "analyze + summary = %.2fx analyze (target <= 2x); path length %lld ns\n",
                t.kernels.size(), t.api.size(), edges, static_cast<double>(graph_bytes) / 1e6, analyze_s, graph_s,
                path_s, summary_s, steps, (analyze_s + summary_s) / analyze_s, static_cast<long long>(length));
    return 0;
}
