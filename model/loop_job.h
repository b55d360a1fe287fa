#pragma once
// Runs the analysis loop's external tools (analysis/profile_loop.h: nsys profile N times, the ncu deep-dive of a
// focus set) on a worker thread for the GUI's Profile… and Deep-dive focus set… dialogs. What the loop says comes
// back as logText() chunks and "run i of N" as runStarted(), all by queued signals; cancel() raises the flag the
// process layer polls, which stops the running tool's whole process group (SIGINT, then SIGKILL after a grace
// period) and keeps what is done. One job at a time; the destructor cancels and waits.

#include <QObject>
#include <QString>
#include <QThreadPool>
#include <atomic>
#include <functional>
#include <memory>

#include "analysis/profile_loop.h"
#include "analysis/report_pipeline.h"

namespace sl {

// For ProfileRequest::write_report: the representative run's report.md exactly as `sightline-cli report TRACE
// --format md -o FILE` writes it (load the trace, report::run_pipeline with `options`, describe_workload,
// build_report with md's default detail, the summary, to_markdown with the charts as PNG files in "<stem>_files/"
// beside it), in `lang`. It runs on the loop's worker; false when the trace cannot be read or the file cannot be
// written.
std::function<bool(const std::string& trace, const std::string& md)> markdownReportWriter(report::PipelineOptions options,
                                                                                         report::Lang lang);

class LoopJob : public QObject {
    Q_OBJECT
public:
    explicit LoopJob(QObject* parent = nullptr);
    ~LoopJob() override;

    // Checks nsys, then profile_command(). Ends with profileFinished() or failed(), then finished().
    void startProfile(const ProfileRequest& request);
    // deep_dive_plan(): the focus set and the ncu command lines, without running anything (planReady / failed).
    // Also checks ncu: planReady's toolError is empty when it is usable.
    void startPlan(const DeepDiveRequest& request);
    // Runs the planned ncu commands (set_ncu_commands() is applied with the ncu found and `request`), joins the CSV
    // and re-runs the rules. Ends with deepDiveFinished() or failed(), then finished().
    void startDeepDive(const DeepDiveRequest& request, std::shared_ptr<const DeepDivePlan> plan);

    void cancel();
    bool isRunning() const { return running_; }
    void waitForDone();
    // SIGINT → SIGKILL delay when a tool is stopped (default 5 s).
    void setGraceMs(int64_t ms) { graceMs_ = ms; }

signals:
    void logText(const QString& text);
    void runStarted(int run, int runs);
    // result: the profile's outcome; representative is the SQLite file to open ("" when no run finished).
    void profileFinished(const QString& representative, const QString& manifest, bool interrupted, bool toolFailed);
    void planReady(std::shared_ptr<const sl::DeepDivePlan> plan, const QString& toolError);
    void deepDiveFinished(bool ok, const QString& trace, const QString& csv, const QString& message);
    // The tool is missing or too old, the trace or knowledge base is bad: one message.
    void failed(const QString& message);
    void finished();

private:
    void launch(std::function<void(const LoopIo&)> work);
    void post(std::function<void()> fn);

    QThreadPool pool_;
    std::shared_ptr<std::atomic<bool>> cancel_;
    bool running_ = false;
    quint64 generation_ = 0;
    int64_t graceMs_ = 5000;
};

} // namespace sl
