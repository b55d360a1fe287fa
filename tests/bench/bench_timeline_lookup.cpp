// Kernel lookup benchmark: on a generated 10^6-kernel trace, the time to build KernelLookup (done on the worker with
// the timeline index) and, per selected kernel, the Details pane's distribution + percentile + longest instance from
// the lookup against the full scan the GUI thread used to do.
//   bench_timeline_lookup [kernels=1000000] [queries=200]
#include <QElapsedTimer>
#include <algorithm>
#include <cstdio>
#include <random>
#include <vector>

#include "analysis/io/synthetic.h"
#include "model/kernel_lookup.h"

int main(int argc, char** argv)
{
    const long long kernels = argc > 1 ? std::atoll(argv[1]) : 1'000'000;
    const int queries = argc > 2 ? std::atoi(argv[2]) : 200;
    sl::SynthOptions o = sl::synth_preset("scale");
    o.total_kernels = kernels;
    auto trace = std::make_shared<const sl::Trace>(sl::make_synthetic_trace(o));
    const auto& k = trace->kernels;

    QElapsedTimer timer;
    timer.start();
    auto lookup = sl::KernelLookup::build(trace);
    const double buildMs = double(timer.nsecsElapsed()) / 1e6;

    std::mt19937_64 rng(7);
    std::uniform_int_distribution<size_t> pick(0, k.size() - 1);
    std::vector<size_t> rows(static_cast<size_t>(queries));
    for (size_t& r : rows)
        r = pick(rng);

    int64_t sink = 0;
    timer.restart();
    for (size_t r : rows) {
        const auto d = lookup->distribution(k.name[r]);
        sink += d.median + int64_t(lookup->percentileOf(int64_t(r)) * 100) + lookup->longestInstance(k.name[r]);
    }
    const double lookupUs = double(timer.nsecsElapsed()) / 1e3 / queries;

    timer.restart();
    for (size_t r : rows) {
        std::vector<int64_t> same;
        int64_t best = -1, bestDur = -1;
        for (size_t j = 0; j < k.size(); ++j)
            if (k.name[j] == k.name[r]) {
                const int64_t d = k.end[j] - k.start[j];
                same.push_back(d);
                if (d > bestDur) {
                    best = int64_t(j);
                    bestDur = d;
                }
            }
        std::sort(same.begin(), same.end());
        sink += same[same.size() / 2] + best;
    }
    const double scanUs = double(timer.nsecsElapsed()) / 1e3 / queries;

    std::printf("kernels %zu, distinct names %zu\n", k.size(), lookup->names().size());
    std::printf("build %.1f ms, memory %.1f MB (%.1f %% of the trace)\n", buildMs, double(lookup->memoryBytes()) / 1e6,
                100.0 * double(lookup->memoryBytes()) / double(trace->memory_bytes()));
    std::printf("per selected kernel: lookup %.2f us, full scan %.1f us (x%.0f)\n", lookupUs, scanUs, scanUs / std::max(lookupUs, 1e-3));
    return sink == 42 ? 1 : 0;
}
