#pragma once
// A/B comparison in the workbench: loads a second trace ("after") on a worker, analyses it with the same settings
// as the open document, and compares it with the document's trace and analysis (analysis/diagnosis/compare.h). When the
// knowledge base exists and knows the BEFORE trace (by content hash), the suggestions accepted on BEFORE get a
// verdict, exactly as `sightline-cli compare` gives them. Nothing is written until recordVerdicts(), which does what
// `sightline-cli compare --record` does: write AFTER (and BEFORE when the knowledge base does not know it) as runs,
// and every measurable verdict as a verification.
//
// Threads as in JobRunner: one generation per start(); a newer start() or cancel() makes older results vanish;
// results are immutable shared values handed to the GUI thread by queued signals.

#include <QObject>
#include <QStringList>
#include <QThreadPool>
#include <atomic>
#include <memory>
#include <optional>

#include "analysis/timeline/analysis.h"
#include "analysis/diagnosis/compare.h"
#include "analysis/trace/trace.h"
#include "model/job_runner.h"
#include "model/workbench_settings.h"

namespace sl {

struct CompareOutput {
    CompareResult result;                            // before_path / after_path: the files' paths (joined by ", ")
    QStringList beforePaths, afterPaths;
    std::shared_ptr<const Trace> before, after;
    std::shared_ptr<const AnalysisResult> beforeAnalysis, afterAnalysis;
    QString kbPath;                                  // the knowledge base looked at (may not exist)
    std::optional<int64_t> beforeRun;                // BEFORE's run in the knowledge base, when it knows it
    QString verdictNote;                             // why there are no verdicts (no knowledge base, unknown run, ...)
};

class CompareJob : public QObject {
    Q_OBJECT
public:
    explicit CompareJob(QObject* parent = nullptr);
    ~CompareJob() override;

    // Options of the after trace's analysis and the knowledge base (WorkbenchSettings::effectiveKbPath()).
    void setSettings(const WorkbenchSettings& settings) { settings_ = settings; }
    const WorkbenchSettings& settings() const { return settings_; }
    void setOptions(const CompareOptions& options) { options_ = options; }
    // Replaces sl::load_traces (tests).
    void setLoader(JobRunner::Loader loader) { loader_ = std::move(loader); }

    // Compares `afterPaths` (trace files; a config.json or ncu file among them is ignored) with `before`, whose
    // analysis is `beforeAnalysis` and whose files are `beforePaths`. Supersedes a running job. Returns the
    // generation.
    quint64 start(std::shared_ptr<const Trace> before, std::shared_ptr<const AnalysisResult> beforeAnalysis,
                  const QStringList& beforePaths, const QStringList& afterPaths);
    void cancel();
    bool isRunning() const { return running_; }
    void waitForDone();

    // The last finished comparison (null before the first).
    std::shared_ptr<const CompareOutput> output() const { return output_; }

    // `sightline-cli compare --record` for output(): on the worker; emits recorded or recordFailed.
    void recordVerdicts();

signals:
    void started(const QStringList& afterPaths);
    void progress(double fraction, const QString& stage);
    void finished(std::shared_ptr<const sl::CompareOutput> output);
    void failed(const QString& message);
    void cancelled();
    // Verdicts written (count of verifications) into the knowledge base at kbPath.
    void recorded(int verifications, const QString& kbPath);
    void recordFailed(const QString& message);

private:
    void run(quint64 gen, std::shared_ptr<const Trace> before, std::shared_ptr<const AnalysisResult> beforeAnalysis,
             QStringList beforePaths, QStringList afterPaths, WorkbenchSettings settings, CompareOptions options,
             std::shared_ptr<std::atomic<bool>> cancel);
    void post(quint64 gen, std::function<void()> fn);

    QThreadPool pool_;
    JobRunner::Loader loader_;
    WorkbenchSettings settings_;
    CompareOptions options_;
    quint64 generation_ = 0;
    bool running_ = false;
    std::shared_ptr<std::atomic<bool>> cancel_;
    std::shared_ptr<const CompareOutput> output_;
};

// The content hash the knowledge base keys a trace's runs on (file_hash of a single file; "" for several files or
// an unreadable one — such traces have no run to look up).
std::string traceHash(const QStringList& tracePaths);

// `sightline-cli compare --record`: writes BEFORE (unless known) and AFTER as runs and every verdict that is not
// "unmeasurable" as a verification. Returns the number of verifications written. Throws KbError.
int recordCompare(const CompareOutput& output);

} // namespace sl

Q_DECLARE_METATYPE(std::shared_ptr<const sl::CompareOutput>)
