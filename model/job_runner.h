#pragma once
// Loads traces and runs the analyses on a worker thread: the files are sorted into traces, a model config.json and
// an ncu file, then the one pipeline (analysis/pipeline.h) runs with the workbench settings' options. Progress and results come back as queued signals carrying
// immutable values; cancel() raises the job's LoadControl flag, which the readers poll inside their row loops.
// Every open() starts a new generation: results of an older job that is still winding down are dropped silently.

#include <QObject>
#include <QStringList>
#include <QThreadPool>
#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "analysis/timeline/analysis.h"
#include "analysis/trace/load_control.h"
#include "analysis/timeline/summary.h"
#include "analysis/trace/trace.h"
#include "model/document.h"
#include "model/timeline_index.h"
#include "model/workbench_settings.h"

namespace sl {

class JobRunner : public QObject {
    Q_OBJECT
public:
    using Loader = std::function<Trace(const std::vector<std::string>& paths, const LoadControl& control)>;

    // Kernels + copies + sets + API calls + ranges from which the timeline is published coarse first.
    static constexpr size_t kCoarseTimelineItems = 2'000'000;

    explicit JobRunner(QObject* parent = nullptr);
    ~JobRunner() override;

    // Replaces sl::load_traces (tests inject generated traces or slow loaders).
    void setLoader(Loader loader);
    // Options for the jobs started after this call (thresholds, model config, GPU, rules, knowledge base).
    void setSettings(const WorkbenchSettings& settings) { settings_ = settings; }
    const WorkbenchSettings& settings() const { return settings_; }

    // Sorts files by content: HF config.json -> modelConfig, ncu CSV/.ncu-rep -> ncu, the rest are traces (the
    // last config / ncu file wins). Reads only the first bytes of each file.
    static DocumentInputs classify(const QStringList& paths);

    // Starts loading `paths`; supersedes (and cancels) any job still running. Returns the job's generation.
    quint64 open(const QStringList& paths);
    // Cancels the current job; emits cancelled() once the worker has stopped.
    void cancel();

    bool isRunning() const { return running_; }
    quint64 generation() const { return generation_; }
    // Waits for every worker to stop (used on shutdown and in tests).
    void waitForDone();

signals:
    void started(const QStringList& paths);
    void progress(double fraction, const QString& stage);
    // What the files are; emitted just before traceLoaded (Document::setInputs).
    void inputsResolved(const sl::DocumentInputs& inputs);
    void traceLoaded(const QStringList& paths, std::shared_ptr<const sl::Trace> trace);
    // Stage 2: the nsys-style summary and per-device busy/idle figures (after traceLoaded of the same job).
    void summaryReady(std::shared_ptr<const sl::Summary> summary);
    // Stage 3: the timeline's level-of-detail index. For a trace of kCoarseTimelineItems items or more it is built
    // on its own thread from the moment the trace is loaded, beside the summary and the analyses, and comes twice:
    // first a coarse index (TimelineIndex::buildCoarse, complete() false), then the complete one (before finished()).
    void timelineReady(std::shared_ptr<const sl::TimelineIndex> index);
    // Stage 4: idle attribution, operator classes, phases... (analysis/timeline/analysis.h). A failing analysis does not fail
    // the job: analysisFailed carries its message and the earlier stages stay shown.
    void analysisReady(std::shared_ptr<const sl::AnalysisResult> result);
    // The Gaps pane's bins of that analysis (binGapHistogram), binned on the worker: emitted just before it.
    void gapHistogramReady(std::shared_ptr<const sl::GapHistogramData> bins);
    // The per-class column index of the complete timeline and the analysis (ClassDensity), built on the worker after
    // both; before finished().
    void classDensityReady(std::shared_ptr<const sl::ClassDensity> density);
    void analysisFailed(const QString& message);
    // Stage 5 (only when a model config or an ncu file was given): Roofline and ncu launches. A bad config or ncu
    // file gives rooflineFailed, and the findings still come (computed without the Roofline).
    void rooflineReady(std::shared_ptr<const sl::RooflineOutput> roofline);
    void rooflineFailed(const QString& message);
    // Measured per-shape throughput (analysis/roofline/shape_throughput.h), just before diagnosisReady.
    void shapesReady(std::shared_ptr<const sl::ShapeRooflineResult> shapes);
    // Stage 6: the rule engine's ranked findings.
    void diagnosisReady(std::shared_ptr<const sl::Diagnosis> diagnosis);
    // The critical path (analysis/critpath/critpath_summary.h), just before diagnosisReady.
    void criticalPathReady(std::shared_ptr<const sl::critpath::CriticalPathSummary> path);
    // A job ended (successfully, with an error, or cancelled); `ok` is true when every stage ran.
    void finished(bool ok);
    void failed(const QString& message);
    void cancelled();

private:
    void run(quint64 gen, const QStringList& paths, WorkbenchSettings settings,
             std::shared_ptr<std::atomic<bool>> cancel);
    // Posts fn to the GUI thread; it runs only if the job is still the current generation.
    void post(quint64 gen, std::function<void()> fn);

    QThreadPool pool_;
    Loader loader_;
    WorkbenchSettings settings_;
    quint64 generation_ = 0;
    bool running_ = false;
    std::shared_ptr<std::atomic<bool>> cancel_;
};

} // namespace sl
