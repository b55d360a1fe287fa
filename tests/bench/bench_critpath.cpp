// The dependency graph, its critical path and the findings' what-if replays (issue 35) against `analyze` on the same
// trace (target: analyze + all of them <= 2x analyze at 10^7 kernels). What the pipeline runs: one graph, the
// critical path summary on it (whole path, one path per step, top entries), and one replay per change the findings
// suggest (cuda-graphs, remove-sync). The trace is the generator's "scale" preset built in memory.
// Run: bench_critpath [kernels] [reps] [graph] ("graph": only analyze, the graph and the summary on it, for profiling).
//
// Two ratios to analyze: one after the other (analyze, then graph, then path: the CPU the critical path costs), and
// the pipeline's way (analyze with the graph built beside it on a second core, critpath/graph_beside.h, then the
// path: the wall time a user waits). The CPU analyze used is printed: what the second core had free.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <sys/resource.h>

#include "analysis/critpath/critpath_summary.h"
#include "analysis/critpath/graph_beside.h"
#include "analysis/critpath/whatif.h"
#include "analysis/io/synthetic.h"
#include "analysis/timeline/analysis.h"

using namespace sl;
using Clock = std::chrono::steady_clock;

static double seconds_since(Clock::time_point t0)
{
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

// A digest of everything a summary holds (its JSON, the steps' and the whole path's events), to check that a faster
// build gives the same result.
static uint64_t digest_of(const critpath::CriticalPathSummary& s)
{
    const std::string text = critpath::to_json(s).dump();
    uint64_t h = 1469598103934665603ull;
    auto mix = [&](uint64_t x) { h = (h ^ x) * 1099511628211ull; };
    for (char c : text)
        mix(static_cast<unsigned char>(c));
    for (const critpath::StepPath& sp : s.steps)
        for (const critpath::PathEntry& e : sp.events)
            mix((uint64_t(e.kind) << 56) ^ (uint64_t(e.row) << 20) ^ uint64_t(e.ns));
    for (const critpath::PathEntry& e : s.events)
        mix((uint64_t(e.kind) << 56) ^ (uint64_t(e.row) << 20) ^ uint64_t(e.ns));
    return h;
}

static double cpu_seconds()
{
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

int main(int argc, char** argv)
{
    SynthOptions o = synth_preset("scale");
    if (argc > 1)
        o.total_kernels = std::atoll(argv[1]);
    const int reps = argc > 2 ? std::max(1, std::atoi(argv[2])) : 3;
    const bool graph_only = argc > 3 && std::string(argv[3]) == "graph";
    const Trace t = make_synthetic_trace(o);
    const OpClassifier classifier = OpClassifier::load();
    double analyze_s = 1e30, analyze_cpu_s = 0, graph_s = 1e30, path_s = 1e30, summary_s = 1e30, on_graph_s = 1e30;
    double beside_s = 1e30, beside_both_s = 1e30;   // the pipeline's way: analyze with the graph beside it, then the path
    double replay_s[2] = {1e30, 1e30}, each_s = 1e30;
    bool each_same = true;
    const char* const change_texts[2] = {"cuda-graphs", "remove-sync"};
    int64_t predicted[2] = {-1, -1}, baseline = 0;
    size_t steps = 0;
    uint64_t digest = 0, beside_digest = 0;
    size_t graph_bytes = 0, edges = 0;
    int64_t length = 0;
    for (int r = 0; r < reps; ++r) {
        auto t0 = Clock::now();
        const double cpu0 = cpu_seconds();
        const AnalysisResult a = analyze(t, classifier, AnalysisOptions{});
        if (const double s = seconds_since(t0); s < analyze_s) {
            analyze_s = s;
            analyze_cpu_s = cpu_seconds() - cpu0;
        }
        {
            // The pipeline's way (right after analyze alone, before the graph below is built): analyze with the graph built beside it, then the path.
            t0 = Clock::now();
            AnalysisResult beside_a;
            const critpath::GraphBeside beside = critpath::build_graph_beside(
                t, true, [&] { beside_a = analyze(t, classifier, AnalysisOptions{}); });
            beside_both_s = std::min(beside_both_s, seconds_since(t0));
            const critpath::CriticalPathSummary s = critpath::summarise_critical_path(
                t, *beside.graph, beside.prep.get(), &beside_a.classes, {}, 10, &beside_a.phases.steps);
            beside_s = std::min(beside_s, seconds_since(t0));
            beside_digest = digest_of(s);
        }
        t0 = Clock::now();
        const critpath::DependencyGraph g = critpath::build_dependency_graph(t);
        graph_s = std::min(graph_s, seconds_since(t0));
        graph_bytes = g.memory_bytes();
        edges = g.edges();
        if (graph_only) {
            t0 = Clock::now();
            const critpath::CriticalPathSummary on_graph =
                critpath::summarise_critical_path(t, g, &a.classes, {}, 10, &a.phases.steps);
            on_graph_s = std::min(on_graph_s, seconds_since(t0));
            steps = on_graph.steps.size();
            length = on_graph.length_ns;
            digest = digest_of(on_graph);
            continue;
        }
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
        // The pipeline's way: the summary on the graph built above, then the findings' replays on the same graph.
        t0 = Clock::now();
        const critpath::CriticalPathSummary on_graph =
            critpath::summarise_critical_path(t, g, &a.classes, {}, 10, &a.phases.steps);
        on_graph_s = std::min(on_graph_s, seconds_since(t0));
        critpath::WhatIfInputs in;
        in.classes = &a.classes;
        in.phases = &a.phases;
        for (int c = 0; c < 2; ++c) {
            critpath::Change ch;
            std::string error;
            if (!critpath::parse_change(change_texts[c], ch, error))
                return 1;
            t0 = Clock::now();
            try {
                const critpath::WhatIfResult w = critpath::replay_what_if(t, g, {ch}, in);
                predicted[c] = w.predicted_step_ns;
                baseline = w.baseline_step_ns;
            } catch (const critpath::WhatIfError&) {   // nothing to replay (no host sync): not run by the pipeline
                predicted[c] = -1;
            }
            replay_s[c] = std::min(replay_s[c], seconds_since(t0));
        }
        // The pipeline's way: both changes on one replayer (replay_each); the same predictions.
        std::vector<critpath::Change> both(2);
        for (int c = 0; c < 2; ++c) {
            std::string error;
            critpath::parse_change(change_texts[c], both[static_cast<size_t>(c)], error);
        }
        t0 = Clock::now();
        const std::vector<critpath::EachReplay> each = critpath::replay_each(t, g, both, in);
        each_s = std::min(each_s, seconds_since(t0));
        for (int c = 0; c < 2; ++c) {
            const auto& e = each[static_cast<size_t>(c)];
            if ((e.result ? e.result->predicted_step_ns : -1) != predicted[c])
                each_same = false;
        }
    }
    std::printf("analyze used %.2f s of CPU in %.2f s (%.2f cores)\n", analyze_cpu_s, analyze_s,
                analyze_cpu_s / analyze_s);
    std::printf("pipeline's way: analyze with the graph beside it %.3f s, then the path %.3f s: %.3f s = %.2fx analyze "
                "(target <= 2x)\n",
                beside_both_s, beside_s - beside_both_s, beside_s, beside_s / analyze_s);
    if (graph_only) {
        std::printf("kernels %zu, graph edges %zu, graph %.1f MB\nanalyze %.3f s\ngraph   %.3f s\nsummary on it %.3f s "
                    "(%zu step paths)\ngraph + summary = %.3f s; one after the other: analyze + graph + summary = "
                    "%.2fx analyze; path length %lld ns; summary digest %016llx\n",
                    t.kernels.size(), edges, static_cast<double>(graph_bytes) / 1e6, analyze_s, graph_s, on_graph_s,
                    steps, graph_s + on_graph_s, (analyze_s + graph_s + on_graph_s) / analyze_s,
                    static_cast<long long>(length), static_cast<unsigned long long>(digest));
        std::printf("the pipeline's way gives the same summary: %s\n", digest == beside_digest ? "yes" : "NO");
        return digest == beside_digest ? 0 : 1;
    }
    std::printf("kernels %zu, api calls %zu, graph edges %zu, graph %.1f MB\nanalyze %.3f s\ngraph   %.3f s\npath    %.3f s\n"
                "summary %.3f s (graph, path, %zu step paths, top)\n"
                "analyze + summary = %.2fx analyze; path length %lld ns\n",
                t.kernels.size(), t.api.size(), edges, static_cast<double>(graph_bytes) / 1e6, analyze_s, graph_s,
                path_s, summary_s, steps, (analyze_s + summary_s) / analyze_s, static_cast<long long>(length));
    double replays = 0;
    for (int c = 0; c < 2; ++c) {
        std::printf("replay %-12s %.3f s: step %.3f ms -> %s\n", change_texts[c], replay_s[c], double(baseline) / 1e6,
                    predicted[c] < 0 ? "nothing to replay" : (std::to_string(double(predicted[c]) / 1e6) + " ms").c_str());
        if (predicted[c] >= 0)
            replays += replay_s[c];
    }
    std::printf("both on one replayer (replay_each, the pipeline's way) %.3f s; the same predictions: %s\n", each_s,
                each_same ? "yes" : "NO");
    const double pipeline = graph_s + on_graph_s + each_s;
    std::printf("pipeline's critical path: graph %.3f s + summary on it %.3f s + replays %.3f s = %.3f s\n"
                "analyze + graph + path + replays = %.2fx analyze (one after the other; separate replays %.3f s)\n",
                graph_s, on_graph_s, each_s, pipeline, (analyze_s + pipeline) / analyze_s, replays);
    return each_same ? 0 : 1;
}
