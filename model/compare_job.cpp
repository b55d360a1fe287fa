#include "model/compare_job.h"
#include "model/post_if_current.h"

#include <QFileInfo>
#include <QMetaObject>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>

#include "analysis/trace/errors.h"
#include "analysis/io/fingerprint.h"
#include "analysis/diagnosis/knowledge_base.h"
#include "analysis/io/load.h"
#include "analysis/diagnosis/metrics_binding.h"

namespace sl {

namespace {

std::string joined(const QStringList& paths) { return paths.join(QStringLiteral(", ")).toStdString(); }

} // namespace

std::string traceHash(const QStringList& tracePaths)
{
    return tracePaths.size() == 1 ? file_hash(tracePaths.front().toStdString()) : std::string();
}

int recordCompare(const CompareOutput& o)
{
    if (!o.before || !o.after || !o.beforeAnalysis || !o.afterAnalysis)
        throw KbError("nothing to record: the comparison has no result");
    const std::string beforeHash = traceHash(o.beforePaths);
    const std::string afterHash = traceHash(o.afterPaths);
    if (beforeHash.empty() || afterHash.empty())
        throw KbError("only traces opened from one file can be recorded (the knowledge base keys runs on the file's "
                      "content hash)");
    // Two runs that are no A/B pair record nothing, as `compare --record` (compare.h).
    if (!o.result.comparable()) {
        std::string why;
        for (const auto& w : o.result.not_comparable)
            why += (why.empty() ? "" : "; ") + w;
        throw KbError("nothing recorded: the runs are not comparable (" + why + ")");
    }
    KnowledgeBase kb(o.kbPath.toStdString());
    const int64_t b = ensure_kb_run(kb, *o.before, *o.beforeAnalysis, o.result.before_path, beforeHash);
    const int64_t a = ensure_kb_run(kb, *o.after, *o.afterAnalysis, o.result.after_path, afterHash);
    return record_verdicts(kb, o.result, b, a);
}

CompareJob::CompareJob(QObject* parent) : QObject(parent), loader_(&load_traces)
{
    pool_.setMaxThreadCount(2);
    qRegisterMetaType<std::shared_ptr<const sl::CompareOutput>>();
}

CompareJob::~CompareJob()
{
    if (cancel_)
        cancel_->store(true);
    pool_.waitForDone();
}

void CompareJob::waitForDone() { pool_.waitForDone(); }

void CompareJob::cancel()
{
    if (cancel_)
        cancel_->store(true);
}

void CompareJob::post(quint64 gen, std::function<void()> fn)
{
    postIfCurrent(this, &generation_, gen, std::move(fn));
}

quint64 CompareJob::start(std::shared_ptr<const Trace> before, std::shared_ptr<const AnalysisResult> beforeAnalysis,
                          const QStringList& beforePaths, const QStringList& afterPaths)
{
    if (cancel_)
        cancel_->store(true);
    const quint64 gen = ++generation_;
    cancel_ = std::make_shared<std::atomic<bool>>(false);
    running_ = true;
    emit started(afterPaths);
    emit progress(0.0, QStringLiteral("opening"));   // a stage id: StageText says it
    (void)QtConcurrent::run(&pool_, [this, gen, before, beforeAnalysis, beforePaths, afterPaths, s = settings_,
                                     o = options_, flag = cancel_] {
        run(gen, before, beforeAnalysis, beforePaths, afterPaths, s, o, flag);
    });
    return gen;
}

void CompareJob::run(quint64 gen, std::shared_ptr<const Trace> before,
                     std::shared_ptr<const AnalysisResult> beforeAnalysis, QStringList beforePaths,
                     QStringList afterPaths, WorkbenchSettings settings, CompareOptions options,
                     std::shared_ptr<std::atomic<bool>> cancel)
{
    LoadControl control;
    control.cancel = cancel.get();
    double last = -1, base = 0, span = 0.85;
    control.progress = [&](double f, std::string_view stage) {
        const double fraction = base + span * std::clamp(f, 0.0, 1.0);
        if (fraction - last < 0.01 && fraction < 1.0)
            return;
        last = fraction;
        const QString s = QString::fromUtf8(stage.data(), static_cast<qsizetype>(stage.size()));
        post(gen, [this, fraction, s] { emit progress(fraction, s); });
    };
    try {
        if (!before || !beforeAnalysis)
            throw TraceError(joined(beforePaths), "document", "an open trace with its analysis",
                             "no analysed trace yet");
        const DocumentInputs inputs = JobRunner::classify(afterPaths);
        if (inputs.traces.isEmpty())
            throw TraceError(joined(afterPaths), "files", "a trace to compare with (nsys SQLite, .nsys-rep, PyTorch "
                                                          "profiler JSON)",
                             "only a model config.json or an ncu file");
        std::vector<std::string> files;
        for (const QString& p : inputs.traces)
            files.push_back(p.toStdString());
        auto after = std::make_shared<const Trace>(loader_(files, control));
        control.check();

        base = 0.85;
        span = 0.1;
        control.report(0.0, "analyses");
        const PipelineOptions po = settings.pipelineOptions();
        auto afterAnalysis = std::make_shared<const AnalysisResult>(analyze(*after, po.analysis, control));
        control.check();

        auto out = std::make_shared<CompareOutput>();
        out->beforePaths = beforePaths;
        out->afterPaths = inputs.traces;
        out->before = before;
        out->after = after;
        out->beforeAnalysis = beforeAnalysis;
        out->afterAnalysis = afterAnalysis;
        out->result = compare_runs(*before, *beforeAnalysis, *after, *afterAnalysis, options);
        out->result.before_path = joined(beforePaths);
        out->result.after_path = joined(inputs.traces);

        // Verdicts: only read the knowledge base, and only when it exists (looking must not create one).
        base = 0.95;
        span = 0.05;
        control.report(0.0, "verdicts");
        out->kbPath = settings.effectiveKbPath();
        if (!QFileInfo::exists(out->kbPath)) {
            out->verdictNote = tr("No knowledge base at %1: accept suggestions first to get verdicts.").arg(out->kbPath);
        } else {
            const std::string hash = traceHash(beforePaths);
            try {
                KnowledgeBase kb(out->kbPath.toStdString());
                if (hash.empty()) {
                    out->verdictNote = tr("Verdicts need a before trace opened from one file.");
                } else if (auto run = kb.find_run_by_hash(hash)) {
                    out->beforeRun = run->id;
                    judge_suggestions(out->result, kb.suggestions(run->id, SuggestionState::Accepted), *before,
                                      *beforeAnalysis, *after, *afterAnalysis);
                    if (out->result.verdicts.empty())
                        out->verdictNote = tr("No suggestion of the before trace was accepted.");
                } else {
                    out->verdictNote = tr("The knowledge base has no run of the before trace: accept its "
                                          "suggestions first.");
                }
            } catch (const KbError& e) {
                out->verdictNote = tr("The knowledge base cannot be read: %1").arg(QString::fromStdString(e.what()));
            }
        }
        control.check();
        std::shared_ptr<const CompareOutput> done = out;
        post(gen, [this, done] {
            running_ = false;
            output_ = done;
            emit progress(1.0, QStringLiteral("done"));
            emit finished(done);
        });
    } catch (const Cancelled&) {
        post(gen, [this] {
            running_ = false;
            emit cancelled();
        });
    } catch (const std::exception& e) {
        const QString msg = QString::fromStdString(e.what());
        post(gen, [this, msg] {
            running_ = false;
            emit failed(msg);
        });
    }
}

void CompareJob::recordVerdicts()
{
    auto out = output_;
    if (!out) {
        emit recordFailed(tr("Nothing to record: compare with an after trace first."));
        return;
    }
    // Not tied to a generation: a record that was asked for is carried out even if a new comparison starts.
    (void)QtConcurrent::run(&pool_, [this, out] {
        QString error;
        int n = 0;
        try {
            n = recordCompare(*out);
        } catch (const std::exception& e) {
            error = QString::fromStdString(e.what());
        }
        QMetaObject::invokeMethod(
            this,
            [this, n, error, path = out->kbPath] {
                if (error.isEmpty())
                    emit recorded(n, path);
                else
                    emit recordFailed(error);
            },
            Qt::QueuedConnection);
    });
}

} // namespace sl
