#include "model/job_runner.h"

#include <QMetaObject>
#include <algorithm>
#include <QtConcurrent/QtConcurrentRun>

#include "analysis/errors.h"
#include "analysis/load.h"

namespace sl {

JobRunner::JobRunner(QObject* parent) : QObject(parent), loader_(&load_traces)
{
    // A superseded job may still be winding down while the new one starts.
    pool_.setMaxThreadCount(2);
    qRegisterMetaType<std::shared_ptr<const sl::Trace>>();
    qRegisterMetaType<std::shared_ptr<const sl::Summary>>();
    qRegisterMetaType<std::shared_ptr<const sl::TimelineIndex>>();
    qRegisterMetaType<std::shared_ptr<const sl::AnalysisResult>>();
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
    emit progress(0.0, tr("Opening"));
    auto flag = cancel_;
    (void)QtConcurrent::run(&pool_, [this, gen, paths, flag] { run(gen, paths, flag); });
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
    QMetaObject::invokeMethod(
        this,
        [this, gen, fn = std::move(fn)] {
            if (gen == generation_)
                fn();
        },
        Qt::QueuedConnection);
}

void JobRunner::run(quint64 gen, const QStringList& paths, std::shared_ptr<std::atomic<bool>> cancel)
{
    std::vector<std::string> files;
    files.reserve(static_cast<size_t>(paths.size()));
    for (const QString& p : paths)
        files.push_back(p.toStdString());

    LoadControl control;
    control.cancel = cancel.get();
    // Throttle: readers report per row block; the GUI needs a few hundred updates at most.
    // One bar for the whole job: loading fills 0..90 %, the analyses the rest, so the bar never runs backwards.
    double last = -1, base = 0, span = 0.9;
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

    try {
        auto trace = std::make_shared<const Trace>(loader_(files, control));
        control.check();
        post(gen, [this, paths, trace] { emit traceLoaded(paths, trace); });
        // Results are published stage by stage: the window shows the trace while the summary is computed.
        base = 0.9;
        span = 0.04;
        control.report(0.0, "summary");
        auto summary = std::make_shared<const Summary>(summarize(*trace));
        control.check();
        post(gen, [this, summary] { emit summaryReady(summary); });
        base = 0.92;
        span = 0.03;
        auto timeline = TimelineIndex::build(trace, control);
        post(gen, [this, timeline] { emit timelineReady(timeline); });
        base = 0.95;
        span = 0.05;
        try {
            auto result = std::make_shared<const AnalysisResult>(analyze(*trace, AnalysisOptions{}, control));
            post(gen, [this, result] { emit analysisReady(result); });
        } catch (const TraceError& e) {
            const QString msg = QString::fromStdString(e.what());
            post(gen, [this, msg] { emit analysisFailed(msg); });
        }
        control.check();
        post(gen, [this] { emit progress(1.0, tr("Done")); });
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
    } catch (const TraceError& e) {
        const QString msg = QString::fromStdString(e.what());
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
