// Timeline rendering benchmark: a generated 10^6-kernel trace, 200 frames rendered offscreen at random zoom levels
// and positions; prints median and p99 frame time (target p99 <= 16 ms) and the level-of-detail index memory
// against the trace memory (target <= 20 %), and the index build time single-threaded and parallel (target <= 3 s at
// 10^7 kernels), with the index's size per lane. Then the same frames with the class density (merged blocks drawn
// per pixel column by operator class, and the overview track), its build time and memory as ratios of the index's;
// and frames of the same trace with a CPU-operator flame chart (two CPU ops around every launch call and three
// Python frames around them), built and drawn from the same kind of index.
//   bench_timeline [kernels=1000000] [frames=200] [width=1920] [height=1080]
#include <QApplication>
#include <QElapsedTimer>
#include <QImage>
#include <QPainter>
#include <algorithm>
#include <cstdio>
#include <random>
#include <time.h>

#include "analysis/io/synthetic.h"
#include "analysis/timeline/analysis.h"
#include "model/class_density.h"
#include "model/selection.h"
#include "model/timeline_index.h"
#include "widgets/timeline_view.h"

namespace {
double cpuMs(clockid_t clock)
{
    timespec ts{};
    clock_gettime(clock, &ts);
    return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
}
} // namespace

int main(int argc, char** argv)
{
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    const long long kernels = argc > 1 ? std::atoll(argv[1]) : 1'000'000;
    const int frames = argc > 2 ? std::atoi(argv[2]) : 200;
    const int width = argc > 3 ? std::atoi(argv[3]) : 1920;
    const int height = argc > 4 ? std::atoi(argv[4]) : 1080;

    QElapsedTimer timer;
    timer.start();
    sl::SynthOptions o = sl::synth_preset("scale");
    o.total_kernels = kernels;
    auto trace = std::make_shared<const sl::Trace>(sl::make_synthetic_trace(o));
    const double genMs = timer.nsecsElapsed() / 1e6;
    // The index single-threaded (SIGHTLINE_LOAD_THREADS=1) then on the default threads, back to back.
    const QByteArray threadsEnv = qgetenv("SIGHTLINE_LOAD_THREADS");
    qputenv("SIGHTLINE_LOAD_THREADS", "1");
    timer.restart();
    double cpu0 = cpuMs(CLOCK_PROCESS_CPUTIME_ID);
    auto single = sl::TimelineIndex::build(trace);
    const double buildOneMs = timer.nsecsElapsed() / 1e6;
    const double buildOneCpu = cpuMs(CLOCK_PROCESS_CPUTIME_ID) - cpu0;
    single.reset();
    if (threadsEnv.isEmpty())
        qunsetenv("SIGHTLINE_LOAD_THREADS");
    else
        qputenv("SIGHTLINE_LOAD_THREADS", threadsEnv);
    timer.restart();
    cpu0 = cpuMs(CLOCK_PROCESS_CPUTIME_ID);
    auto index = sl::TimelineIndex::build(trace);
    const double buildMs = timer.nsecsElapsed() / 1e6;
    const double buildCpu = cpuMs(CLOCK_PROCESS_CPUTIME_ID) - cpu0;
    // Coarse first (what the GUI publishes for a large trace), then the finer levels, on the same threads.
    timer.restart();
    cpu0 = cpuMs(CLOCK_PROCESS_CPUTIME_ID);
    auto coarse = sl::TimelineIndex::buildCoarse(trace);
    const double coarseMs = timer.nsecsElapsed() / 1e6;
    const double coarseCpu = cpuMs(CLOCK_PROCESS_CPUTIME_ID) - cpu0;
    timer.restart();
    cpu0 = cpuMs(CLOCK_PROCESS_CPUTIME_ID);
    auto refined = sl::TimelineIndex::refine(*coarse);
    const double refineMs = timer.nsecsElapsed() / 1e6;
    const double refineCpu = cpuMs(CLOCK_PROCESS_CPUTIME_ID) - cpu0;
    const double coarseMb = double(coarse->memoryBytes()) / 1048576.0;
    refined.reset();
    // The coarse view's frames: the same random windows drawn from the coarse index (before the finer levels).
    std::vector<double> coarseFrames;
    {
        sl::Selection sel;
        sl::TimelineView cview(&sel);
        cview.resize(width, height);
        cview.setIndex(coarse);
        QImage img(width, height, QImage::Format_RGB32);
        std::mt19937_64 r(43);
        const int64_t a0 = coarse->start(), a1 = coarse->end();
        std::uniform_real_distribution<double> lz(std::log(2e3), std::log(double(std::max<int64_t>(a1 - a0, 3000))));
        std::uniform_real_distribution<double> ps(0, 1);
        for (int f = 0; f < std::min(frames, 100); ++f) {
            const auto dur = int64_t(std::exp(lz(r)));
            const int64_t s0 = a0 + int64_t(ps(r) * double(std::max<int64_t>(1, a1 - a0 - dur)));
            cview.setWindow({s0, s0 + dur});
            timer.restart();
            QPainter p(&img);
            cview.render(p);
            p.end();
            coarseFrames.push_back(timer.nsecsElapsed() / 1e6);
        }
        std::sort(coarseFrames.begin(), coarseFrames.end());
    }
    coarse.reset();

    sl::Selection selection;
    sl::TimelineView view(&selection);
    view.resize(width, height);
    view.setIndex(index);
    QImage image(width, height, QImage::Format_RGB32);

    std::mt19937_64 rng(42);
    const int64_t t0 = index->start(), t1 = index->end();
    std::uniform_real_distribution<double> logZoom(std::log(2e3), std::log(double(t1 - t0)));
    std::uniform_real_distribution<double> pos(0, 1);
    std::vector<double> ms, cpu;   // wall and this thread's CPU time per frame (CPU time: what a busy machine hides)
    ms.reserve(size_t(frames));
    cpu.reserve(size_t(frames));
    for (int f = 0; f < frames; ++f) {
        const auto dur = int64_t(std::exp(logZoom(rng)));
        const int64_t start = t0 + int64_t(pos(rng) * double(std::max<int64_t>(1, t1 - t0 - dur)));
        view.setWindow({start, start + dur});
        if (f % 10 == 0)
            selection.setKernel(int64_t(pos(rng) * double(trace->kernels.size())));
        timer.restart();
        const double c0 = cpuMs(CLOCK_THREAD_CPUTIME_ID);
        QPainter p(&image);
        view.render(p);
        p.end();
        ms.push_back(timer.nsecsElapsed() / 1e6);
        cpu.push_back(cpuMs(CLOCK_THREAD_CPUTIME_ID) - c0);
        if (qEnvironmentVariableIsSet("BENCH_VERBOSE") && ms.back() > 16)
            std::printf("slow frame: %.1f ms, window %lld ns\n", ms.back(), static_cast<long long>(dur));
    }
    std::sort(ms.begin(), ms.end());
    std::sort(cpu.begin(), cpu.end());
    const double median = ms[ms.size() / 2];
    const double p99 = ms[std::min(ms.size() - 1, size_t(double(ms.size()) * 0.99))];
    const double idxMb = double(index->memoryBytes()) / 1048576.0;
    const double traceMb = double(trace->memory_bytes()) / 1048576.0;
    std::printf("trace: %zu kernels, %zu API calls, %zu ranges (generated in %.0f ms)\n", trace->kernels.size(),
                trace->api.size(), trace->ranges.size(), genMs);
    std::printf("index: %zu lanes, built in %.0f ms (%.0f ms CPU) on %s threads, %.0f ms (%.0f ms CPU) on 1 thread "
                "(target <= 3000 ms at 10^7 kernels)\n",
                index->lanes().size(), buildMs, buildCpu, threadsEnv.isEmpty() ? "all hardware" : threadsEnv.constData(),
                buildOneMs, buildOneCpu);
    std::printf("ratio: index build parallel / single-threaded = %.2f (the same index; baseline measured first)\n",
                buildMs / std::max(buildOneMs, 1e-3));
    std::printf("coarse index: built in %.0f ms (%.0f ms CPU) = %.2f of the full build, %.1f MiB; finer levels added in "
                "%.0f ms (%.0f ms CPU); coarse + refine / full build = %.2f (target: coarse view <= 1000 ms)\n",
                coarseMs, coarseCpu, coarseMs / std::max(buildMs, 1e-3), coarseMb, refineMs, refineCpu,
                (coarseMs + refineMs) / std::max(buildMs, 1e-3));
    if (!coarseFrames.empty())
        std::printf("coarse frames: %zu  median %.2f ms  p99 %.2f ms  max %.2f ms\n", coarseFrames.size(),
                    coarseFrames[coarseFrames.size() / 2],
                    coarseFrames[std::min(coarseFrames.size() - 1, size_t(double(coarseFrames.size()) * 0.99))],
                    coarseFrames.back());
    {
        const sl::KernelTable& k = trace->kernels;
        auto vb = [](const auto& v) { return double(v.capacity() * sizeof(v[0])); };
        const double kb = vb(k.start) + vb(k.end) + vb(k.name) + vb(k.short_name) + vb(k.correlation) +
                          vb(k.launch_api) + vb(k.device) + vb(k.process) + vb(k.stream) + vb(k.shape) + vb(k.flags) +
                          double(k.shape_table_bytes());
        std::printf("trace model: %.1f MiB; kernel table %.1f B per kernel (row %zu B, %zu distinct launch shapes; "
                    "target <= 48), %.1f B per kernel + API row overall; index = %.1f %% of the trace\n",
                    traceMb, kb / double(std::max<size_t>(1, k.size())), sl::KernelTable::bytes_per_row(), k.shapes.size(),
                    double(trace->memory_bytes()) / double(std::max<size_t>(1, k.size() + trace->api.size())),
                    100.0 * idxMb / traceMb);
    }
    std::printf("frames: %d at %dx%d  median %.2f ms  p99 %.2f ms  max %.2f ms  (target p99 <= 16 ms)\n", frames,
                width, height, median, p99, ms.back());
    for (const sl::TimelineLane& lane : index->lanes()) {
        size_t spans = 0, stored = 0, levelBytes = 0;
        for (const auto& lv : lane.levels) {
            spans += lv.size();
            stored += !lv.empty();
            levelBytes += lv.memoryBytes();
        }
        std::printf("  lane kind %d: %zu items, %zu gap refs, %zu spans in %zu stored of %zu levels = %.1f MiB\n",
                    int(lane.kind), lane.items.size(), lane.gapBefore.size(), spans, stored, lane.levels.size(),
                    double(lane.items.memoryBytes() + lane.gapBefore.memoryBytes() + levelBytes) /
                        1048576.0);
    }
    std::printf("frames CPU: median %.2f ms  p99 %.2f ms  max %.2f ms\n", cpu[cpu.size() / 2],
                cpu[std::min(cpu.size() - 1, size_t(double(cpu.size()) * 0.99))], cpu.back());
    std::printf("memory: index %.1f MiB vs trace %.1f MiB = %.1f %% (target <= 20 %%)\n", idxMb, traceMb,
                100.0 * idxMb / traceMb);

    // The same random windows drawn again: returns sorted frame times.
    auto drawFrames = [&](sl::TimelineView& v, const sl::TimelineIndex& idx, uint64_t seed, int n) {
        std::mt19937_64 r(seed);
        const int64_t a0 = idx.start(), a1 = idx.end();
        std::uniform_real_distribution<double> lz(std::log(2e3), std::log(double(std::max<int64_t>(a1 - a0, 3000))));
        std::uniform_real_distribution<double> ps(0, 1);
        std::vector<double> out;
        for (int f = 0; f < n; ++f) {
            const auto dur = int64_t(std::exp(lz(r)));
            const int64_t s0 = a0 + int64_t(ps(r) * double(std::max<int64_t>(1, a1 - a0 - dur)));
            v.setWindow({s0, s0 + dur});
            timer.restart();
            QPainter p(&image);
            v.render(p);
            p.end();
            out.push_back(timer.nsecsElapsed() / 1e6);
        }
        std::sort(out.begin(), out.end());
        return out;
    };
    auto p99Of = [](const std::vector<double>& v) { return v[std::min(v.size() - 1, size_t(double(v.size()) * 0.99))]; };

    // ---- Class density: merged blocks per pixel column by class, and the overview track.
    {
        timer.restart();
        auto analysis = std::make_shared<const sl::AnalysisResult>(sl::analyze(*trace, sl::AnalysisOptions{}));
        const double analyzeMs = timer.nsecsElapsed() / 1e6;
        timer.restart();
        auto density = sl::ClassDensity::build(index, analysis);
        const double densityMs = timer.nsecsElapsed() / 1e6;
        sl::TimelineView plain(&selection), mixed(&selection);
        for (sl::TimelineView* v : {&plain, &mixed}) {
            v->resize(width, height);
            v->setIndex(index);
            v->setAnalysis(analysis);
        }
        mixed.setClassDensity(density);
        const std::vector<double> base = drawFrames(plain, *index, 7, frames);   // the baseline first
        const std::vector<double> withMix = drawFrames(mixed, *index, 7, frames);
        std::printf("class density: built in %.0f ms = %.2f of the index build (analysis %.0f ms), %.1f MiB = %.1f %% of "
                    "the index\n",
                    densityMs, densityMs / std::max(buildMs, 1e-3), analyzeMs, double(density->memoryBytes()) / 1048576.0,
                    100.0 * double(density->memoryBytes()) / double(std::max<size_t>(1, index->memoryBytes())));
        std::printf("frames with classes (dominant colour): median %.2f ms  p99 %.2f ms\n", base[base.size() / 2],
                    p99Of(base));
        std::printf("frames with the class mix and overview: median %.2f ms  p99 %.2f ms  max %.2f ms; ratio p99 mix / "
                    "dominant colour = %.2f (target p99 <= 16 ms)\n",
                    withMix[withMix.size() / 2], p99Of(withMix), withMix.back(), p99Of(withMix) / std::max(p99Of(base), 1e-3));
    }

    // ---- CPU operators: the same trace with two CPU ops around each launch call and three Python frames around
    // each pair, on the launching thread (a record_shapes + with_stack Kineto trace's shape).
    {
        sl::Trace withOps = sl::make_synthetic_trace(o);   // the same trace again (the generator is deterministic)
        const sl::StrId linear = withOps.strings.intern("aten::linear"), mm = withOps.strings.intern("aten::mm");
        const sl::StrId mod = withOps.strings.intern("nn.Module: Linear_0"), fwd = withOps.strings.intern("linear.py(125): forward");
        const sl::StrId call = withOps.strings.intern("module.py(1750): _call_impl");
        for (size_t a = 0; a < trace->api.size(); ++a) {
            const int64_t s = trace->api.start[a], e = trace->api.end[a];
            const uint32_t th = trace->api.thread[a];
            withOps.ranges.append(s - 600, e + 300, call, th, sl::RangeKind::PythonFunction);
            withOps.ranges.append(s - 500, e + 250, mod, th, sl::RangeKind::PythonFunction);
            withOps.ranges.append(s - 400, e + 200, fwd, th, sl::RangeKind::PythonFunction);
            withOps.ranges.append(s - 300, e + 150, linear, th, sl::RangeKind::CpuOp);
            withOps.ranges.append(s - 100, e + 50, mm, th, sl::RangeKind::CpuOp);
        }
        withOps.finish();
        auto opsTrace = std::make_shared<const sl::Trace>(std::move(withOps));
        timer.restart();
        auto opsIndex = sl::TimelineIndex::build(opsTrace);
        const double opsBuildMs = timer.nsecsElapsed() / 1e6;
        sl::Selection sel;
        sl::TimelineView v(&sel);
        v.resize(width, height);
        v.setIndex(opsIndex);
        // Every lane unfolded (the Python frames too), so the flame chart is drawn.
        for (int l = 0; l < v.laneCount(); ++l)
            if (v.isGroupHead(l))
                v.setFolded(l, false);
        int flameLanes = 0;
        for (const sl::TimelineLane& l : opsIndex->lanes())
            flameLanes += l.kind == sl::LaneKind::HostRanges || l.kind == sl::LaneKind::Python;
        const std::vector<double> f = drawFrames(v, *opsIndex, 9, frames);
        std::printf("CPU ops: %zu ranges in %d flame-chart lanes; index built in %.0f ms = %.2f of the index without them, "
                    "%.1f MiB; frames median %.2f ms  p99 %.2f ms  max %.2f ms (target p99 <= 16 ms)\n",
                    opsTrace->ranges.size(), flameLanes, opsBuildMs, opsBuildMs / std::max(buildMs, 1e-3),
                    double(opsIndex->memoryBytes()) / 1048576.0, f[f.size() / 2], p99Of(f), f.back());
    }
    return 0;
}
