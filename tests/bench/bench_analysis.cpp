// All analyses of issue 4 together at 10^6 kernels against the load time of the same trace (target: <= 1x).
//
// The trace is the generator's "scale" preset (1,000,000 kernels, ~200,000 NVTX ranges), written as an nsys SQLite
// export, loaded back with the nsys reader (timed), then analysed (timed). Run: bench_analysis [kernels] [reps].
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "analysis/timeline/analysis.h"
#include "analysis/io/load.h"
#include "analysis/io/nsys_writer.h"
#include "analysis/io/synthetic.h"

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
    const std::string path =
        (std::filesystem::temp_directory_path() / ("bench_analysis_" + std::to_string(o.total_kernels) + ".sqlite")).string();
    {
        const Trace gen = make_synthetic_trace(o);
        std::filesystem::remove(path);
        write_nsys_sqlite(gen, path);
    }
    double load_s = 1e30, analyze_s = 1e30;
    size_t kernels = 0, ranges = 0;
    const OpClassifier classifier = OpClassifier::load();
    for (int r = 0; r < reps; ++r) {
        auto t0 = Clock::now();
        const Trace t = load_trace(path);
        load_s = std::min(load_s, seconds_since(t0));
        kernels = t.kernels.size();
        ranges = t.ranges.size();
        // Per-stage times through the progress callback (each report closes the previous stage).
        std::string stage_names[16];
        double stage_s[16] = {};
        int stages = 0;
        Clock::time_point last = Clock::now();
        LoadControl control;
        control.progress = [&](double, std::string_view name) {
            const auto now = Clock::now();
            if (stages > 0 && stages <= 16)
                stage_s[stages - 1] = std::chrono::duration<double>(now - last).count();
            if (stages < 16)
                stage_names[stages] = std::string(name);
            ++stages;
            last = now;
        };
        t0 = Clock::now();
        const AnalysisResult a = analyze(t, classifier, AnalysisOptions{}, control);
        const double s = seconds_since(t0);
        if (s < analyze_s) {
            analyze_s = s;
            for (int i = 0; i + 1 < stages && i < 16; ++i)
                std::printf("  stage %-17s %.3f s\n", stage_names[i].c_str(), stage_s[i]);
        }
        if (a.idle.devices.empty())
            std::fprintf(stderr, "no devices?\n");
    }
    std::printf("kernels %zu, NVTX ranges %zu\nload    %.3f s (best of %d)\nanalyze %.3f s (best of %d)\nratio   %.2fx of load time (target <= 1x)\n",
                kernels, ranges, load_s, reps, analyze_s, reps, analyze_s / load_s);
    std::filesystem::remove(path);
    return 0;
}
