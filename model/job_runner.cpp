#include "model/job_runner.h"
#include "model/post_if_current.h"

#include <new>
#include <thread>

#include <QMetaObject>
#include <algorithm>
#include <QtConcurrent/QtConcurrentRun>

#include "analysis/trace/errors.h"
#include "analysis/diagnosis/knowledge_base.h"
#include "analysis/io/input_bounds.h"
#include "analysis/io/load.h"
#include "analysis/pipeline.h"
#include "model/class_density.h"

namespace sl {

JobRunner::JobRunner(QObject* parent) : QObject(parent), loader_(&load_traces)
{
    // A superseded job may still be winding down while the new one starts.
    pool_.setMaxThreadCount(2);
    qRegisterMetaType<std::shared_ptr<const sl::Trace>>();
    qRegisterMetaType<std::shared_ptr<const sl::Summary>>();
    qRegisterMetaType<std::shared_ptr<const sl::TimelineIndex>>();
    qRegisterMetaType<std::shared_ptr<const sl::AnalysisResult>>();
    qRegisterMetaType<std::shared_ptr<const sl::GapHistogramData>>();
    qRegisterMetaType<std::shared_ptr<const sl::ClassDensity>>();
    qRegisterMetaType<std::shared_ptr<const sl::RooflineOutput>>();
    qRegisterMetaType<std::shared_ptr<const sl::Diagnosis>>();
    qRegisterMetaType<std::shared_ptr<const sl::critpath::CriticalPathSummary>>();
    qRegisterMetaType<sl::DocumentInputs>();
}

JobRunner::~JobRunner()
{
    if (cancel_)
        cancel_->store(true);
    pool_.waitForDone();
}

void JobRunner::setLoader(Loader loader) { loader_ = std::move(loader); }

quint64 JobRunner::open(const QStringList& paths)
{
    if (cancel_)
        cancel_->store(true);   // the older job stops at its next check and its results are dropped
    const quint64 gen = ++generation_;
    cancel_ = std::make_shared<std::atomic<bool>>(false);
    running_ = true;
    emit started(paths);
    emit progress(0.0, QStringLiteral("opening"));   // a stage id: StageText says it
    auto flag = cancel_;
    (void)QtConcurrent::run(&pool_, [this, gen, paths, flag, settings = settings_] { run(gen, paths, settings, flag); });
    return gen;
}

void JobRunner::cancel()
{
    if (cancel_)
        cancel_->store(true);
}

void JobRunner::waitForDone() { pool_.waitForDone(); }

void JobRunner::post(quint64 gen, std::function<void()> fn)
{
    postIfCurrent(this, &generation_, gen, std::move(fn));
}

DocumentInputs JobRunner::classify(const QStringList& paths)
{
    DocumentInputs in;
    for (const QString& p : paths) {
        switch (sniff_file(p.toStdString())) {
        case InputFormat::ModelConfig:
            in.modelConfig = p;
            break;
        case InputFormat::NcuCsv:
        case InputFormat::NcuReport:
            in.ncu = p;
            break;
        default:
            // Missing, empty and unknown files go to the trace loader, whose error names the file and the problem.
            in.traces << p;
        }
    }
    return in;
}

void JobRunner::run(quint64 gen, const QStringList& paths, WorkbenchSettings settings,
                    std::shared_ptr<std::atomic<bool>> cancel)
{
    LoadControl control;
    control.cancel = cancel.get();
    // Throttle: readers report per row block; the GUI needs a few hundred updates at most.
    // One bar for the whole job: loading fills 0..85 %, the analyses the rest, so the bar never runs backwards.
    double last = -1, base = 0, span = 0.85;
    std::string lastStage;
    control.progress = [&](double stageFraction, std::string_view stage) {
        const double fraction = base + span * std::clamp(stageFraction, 0.0, 1.0);
        if ((fraction - last < 0.005 && stage == lastStage) || fraction < last)
            return;
        last = fraction;
        lastStage = std::string(stage);
        const QString s = QString::fromUtf8(stage.data(), static_cast<qsizetype>(stage.size()));
        post(gen, [this, fraction, s] { emit progress(fraction, s); });
    };
    auto stage = [&](double from, double width, const char* name) {
        base = from;
        span = width;
        control.report(0.0, name);
    };

    // The complete timeline index and the analysis: the class density is built from both at the end (declared
    // before the refiner, which writes the index: it is joined first).
    std::shared_ptr<const TimelineIndex> completeIndex;
    std::shared_ptr<const AnalysisResult> analysisResult;
    // The timeline's finer levels are built on their own thread while the analyses run (coarse view first); it is
    // joined before the job ends, on every path, so nothing outlives the job.
    struct Joined {
        std::thread thread;
        ~Joined()
        {
            if (thread.joinable())
                thread.join();
        }
    } refiner;
    try {
        const DocumentInputs inputs = classify(paths);
        if (inputs.traces.isEmpty())
            throw TraceError(paths.join(QStringLiteral(", ")).toStdString(), "files",
                             "at least one trace (nsys SQLite or .nsys-rep, PyTorch profiler JSON)",
                             "only a model config.json or an ncu file");
        std::vector<std::string> files;
        for (const QString& p : inputs.traces)
            files.push_back(p.toStdString());
        auto trace = std::make_shared<const Trace>(loader_(files, control));
        control.check();
        post(gen, [this, paths, trace, inputs] {
            emit inputsResolved(inputs);
            emit traceLoaded(paths, trace);
        });

        const bool largeTrace = trace->kernels.size() + trace->memcpy.size() + trace->memset.size() +
                                    trace->api.size() + trace->ranges.size() >=
                                kCoarseTimelineItems;
        if (largeTrace) {
            // Large trace: the timeline index on its own thread beside the summary and the analyses. The coarse
            // index (lanes, items, coarse levels) is published at once, the complete one when its finer levels are
            // done; the view keeps its zoom when it swaps them.
            refiner.thread = std::thread([this, gen, trace, cancel, &completeIndex] {
                LoadControl quiet;
                quiet.cancel = cancel.get();
                try {
                    auto coarse = TimelineIndex::buildCoarse(trace, quiet);
                    post(gen, [this, coarse] { emit timelineReady(coarse); });
                    auto full = TimelineIndex::refine(*coarse, quiet);
                    post(gen, [this, full] { emit timelineReady(full); });
                    completeIndex = full;   // read after the thread is joined
                } catch (...) {
                    // Cancelled (the job reports it) or out of memory: what was published stays.
                }
            });
        }
        // The pipeline publishes stage by stage: the window shows the summary while the analyses run.
        PipelineOptions options = settings.pipelineOptions(inputs.modelConfig, inputs.ncu);
        bool analysed = false;   // whether a failure came after the analyses (then it is the Roofline's)
        auto onStage = [&](PipelineStage s, const PipelineResult& r) {
            switch (s) {
            case PipelineStage::Loaded:
                break;
            case PipelineStage::Summarised: {
                auto summary = std::make_shared<const Summary>(r.summary);
                post(gen, [this, summary] { emit summaryReady(summary); });
                if (!largeTrace) {
                    stage(0.87, 0.03, "timeline");
                    auto timeline = TimelineIndex::build(trace, control);
                    post(gen, [this, timeline] { emit timelineReady(timeline); });
                    completeIndex = timeline;
                }
                stage(0.90, 0.05, "analyses");
                break;
            }
            case PipelineStage::Analysed: {
                analysed = true;
                auto result = std::make_shared<const AnalysisResult>(r.analysis);
                analysisResult = result;
                // Bin the gaps here, not on the GUI thread when the analysis arrives (10^7 gaps: ~0.1 s).
                auto bins = binGapHistogram(result);
                post(gen, [this, result, bins] {
                    emit gapHistogramReady(bins);
                    emit analysisReady(result);
                });
                stage(0.95, 0.02, "roofline");
                break;
            }
            case PipelineStage::Roofline: {
                auto roof = std::make_shared<const RooflineOutput>(r.roofline);
                post(gen, [this, roof] { emit rooflineReady(roof); });
                stage(0.97, 0.03, "rules");
                break;
            }
            case PipelineStage::Diagnosed: {
                // The measured shape points are computed just before the rules, so they arrive with them.
                auto shapes = std::make_shared<const ShapeRooflineResult>(r.shapes);
                post(gen, [this, shapes] { emit shapesReady(shapes); });
                if (r.critical_path.computed) {
                    auto path = std::make_shared<const critpath::CriticalPathSummary>(r.critical_path);
                    post(gen, [this, path] { emit criticalPathReady(path); });
                }
                auto d = std::make_shared<const Diagnosis>(r.diagnosis);
                post(gen, [this, d] { emit diagnosisReady(d); });
                break;
            }
            }
        };
        stage(0.85, 0.02, "summary");
        try {
            (void)run_pipeline_on(trace, options, control, onStage);
        } catch (const TraceError& e) {
            const QString msg = QString::fromStdString(e.what());
            if (!analysed) {
                // The summary and timeline stay shown; the analyses (and so everything after them) failed.
                post(gen, [this, msg] { emit analysisFailed(msg); });
            } else {
                // A bad model config or ncu file: say so, and still give the findings without the Roofline.
                post(gen, [this, msg] { emit rooflineFailed(msg); });
                options.roofline.model.clear();
                options.roofline.ncu.clear();
                auto onlyRules = [&](PipelineStage s, const PipelineResult& r) {
                    if (s == PipelineStage::Diagnosed)
                        onStage(s, r);
                };
                try {
                    (void)run_pipeline_on(trace, options, control, onlyRules);
                } catch (const TraceError& e2) {
                    const QString msg2 = QString::fromStdString(e2.what());
                    post(gen, [this, msg2] { emit analysisFailed(msg2); });
                }
            }
        } catch (const KbError& e) {
            // The knowledge base only adjusts confidence: without it the findings are still right.
            const QString msg = QString::fromStdString(e.what());
            post(gen, [this, msg] { emit analysisFailed(msg); });
        }
        if (refiner.thread.joinable())
            refiner.thread.join();   // the complete timeline arrives before finished()
        control.check();
        // Per-class column sums for merged blocks and the overview track: one pass over the stream lanes.
        if (completeIndex && analysisResult) {
            auto density = ClassDensity::build(completeIndex, analysisResult, control);
            post(gen, [this, density] { emit classDensityReady(density); });
        }
        post(gen, [this] { emit progress(1.0, QStringLiteral("done")); });
        post(gen, [this] {
            running_ = false;
            emit finished(true);
        });
    } catch (const Cancelled&) {
        post(gen, [this] {
            running_ = false;
            emit cancelled();
            emit finished(false);
        });
    } catch (const std::bad_alloc&) {
        // Out of memory outside a reader (which names its place itself): the file, the memory in use and the
        // budget, never a bare "std::bad_alloc".
        const QString msg = QString::fromStdString(
            out_of_memory_error(paths.isEmpty() ? std::string() : paths.front().toStdString()).what());
        post(gen, [this, msg] {
            running_ = false;
            emit failed(msg);
            emit finished(false);
        });
    } catch (const std::exception& e) {
        const QString msg = QString::fromStdString(e.what());
        post(gen, [this, msg] {
            running_ = false;
            emit failed(msg);
            emit finished(false);
        });
    }
}

} // namespace sl
