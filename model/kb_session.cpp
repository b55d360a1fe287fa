#include "model/kb_session.h"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QEventLoop>
#include <QFileInfo>
#include <QPointer>
#include <QThread>
#include <QTimer>
#include <exception>

#include "analysis/diagnosis/compare.h"
#include "analysis/trace/errors.h"
#include "analysis/io/fingerprint.h"
#include "analysis/diagnosis/metrics_binding.h"

namespace sl {

// Lives on the session's worker thread; only that thread touches it (every call arrives as a queued functor).
class KbWorker : public QObject {
public:
    // The knowledge base at `path`, opened (and migrated) on first use or when the path changed. Throws KbError.
    KnowledgeBase& open(const std::string& path)
    {
        if (!kb_ || kb_->path() != path) {
            kb_.reset();
            kb_ = std::make_unique<KnowledgeBase>(path);
        }
        return *kb_;
    }
    void drop() { kb_.reset(); }

    // The stored row of suggestion `id` (the attached run first, then every run), or nullopt.
    std::optional<SuggestionRecord> find(KnowledgeBase& kb, int64_t id) const
    {
        if (runId_ > 0)
            for (auto& s : kb.suggestions(runId_))
                if (s.id == id)
                    return s;
        for (auto& s : kb.suggestions())
            if (s.id == id)
                return s;
        return std::nullopt;
    }

    int64_t runId_ = 0;

private:
    std::unique_ptr<KnowledgeBase> kb_;
};

namespace {

// A message that always says which file: SQLite's own errors from KnowledgeBase already start with the path.
QString describe(const std::string& path, const std::exception& e)
{
    const QString what = QString::fromStdString(e.what());
    const QString p = QString::fromStdString(path);
    if (what.startsWith(p))
        return what;
    return KbSession::tr("%1: %2").arg(p, what);
}

} // namespace

KbSession::KbSession(QObject* parent)
    : QObject(parent), latest_(std::make_shared<std::atomic<quint64>>(0))
{
    qRegisterMetaType<sl::SuggestionList>("sl::SuggestionList");
    qRegisterMetaType<sl::EnvironmentHistoryPtr>("sl::EnvironmentHistoryPtr");
    qRegisterMetaType<sl::SuggestionState>("sl::SuggestionState");
    thread_ = new QThread(this);
    thread_->setObjectName(QStringLiteral("knowledge-base"));
    worker_ = new KbWorker;
    worker_->moveToThread(thread_);
    thread_->start();
}

KbSession::~KbSession()
{
    // The quit is queued behind every write still waiting, so closing the window never drops an accept or a note.
    QThread* t = thread_;
    QMetaObject::invokeMethod(worker_, [t] { t->quit(); }, Qt::QueuedConnection);
    thread_->wait();
    delete worker_;
}

template <typename F>
void KbSession::post(F&& f)
{
    ++pending_;
    QMetaObject::invokeMethod(worker_, std::forward<F>(f), Qt::QueuedConnection);
}

void KbSession::finishOne()
{
    if (pending_ > 0 && --pending_ == 0)
        emit idle();
}

void KbSession::setPath(const QString& path) { path_ = path; }

QString KbSession::traceHash(const QStringList& traces)
{
    if (traces.isEmpty())
        return {};
    if (traces.size() == 1)
        return QString::fromStdString(file_hash(traces.front().toStdString()));
    std::string hashes;
    for (const QString& t : traces) {
        const std::string h = file_hash(t.toStdString());
        if (h.empty())
            return {};
        hashes += h;
        hashes += '\n';
    }
    return QString::fromStdString(text_hash(hashes));
}

quint64 KbSession::attach(const DocumentInputs& inputs, std::shared_ptr<const Trace> trace,
                          std::shared_ptr<const AnalysisResult> analysis, std::shared_ptr<const Diagnosis> diagnosis)
{
    const quint64 gen = ++generation_;
    latest_->store(gen);
    runId_ = 0;
    const std::string path = path_.toStdString();
    QPointer<KbSession> self(this);
    KbWorker* w = worker_;
    auto latest = latest_;
    post([=] {
        SuggestionList list;
        EnvironmentHistoryPtr history;
        int64_t run_id = 0;
        QString error;
        if (latest->load() == gen) {
            try {
                if (!trace || !analysis || !diagnosis)
                    throw KbError(tr("the trace has not been analysed yet").toStdString());
                if (inputs.traces.isEmpty())
                    throw KbError(tr("the trace has no file to identify its run by").toStdString());
                const QString hash = traceHash(inputs.traces);
                if (hash.isEmpty())
                    throw KbError(tr("cannot read the trace file(s) %1 to identify the run")
                                      .arg(inputs.traces.join(QStringLiteral(", ")))
                                      .toStdString());
                KnowledgeBase& kb = w->open(path);
                if (latest->load() == gen) {
                    if (auto run = kb.find_run_by_hash(hash.toStdString())) {
                        run_id = run->id;
                    } else {
                        // The same record as `sightline-cli kb record`.
                        QStringList abs;
                        for (const QString& t : inputs.traces)
                            abs << QFileInfo(t).absoluteFilePath();
                        RunRecord rec;
                        rec.trace_path = abs.join(QLatin1Char(';')).toStdString();
                        rec.trace_hash = hash.toStdString();
                        rec.env_id = kb.upsert_environment(diagnosis->env);
                        rec.metrics = headline_metrics(*trace, *analysis);
                        // Found-or-recorded atomically: another instance may be recording the same trace now.
                        run_id = kb.find_or_record_run(rec, operator_measurements(*trace, *analysis),
                                                       diagnosis->eval.findings);
                    }
                    w->runId_ = run_id;
                    list = std::make_shared<const std::vector<SuggestionRecord>>(kb.suggestions(run_id));
                    history = std::make_shared<const EnvironmentHistory>(
                        lookup_environment(kb, diagnosis->env, 0.5, {hash.toStdString()}));
                }
            } catch (const KbError& e) {
                w->drop();
                error = describe(path, e);
            } catch (const TraceError& e) {
                error = describe(path, e);
            } catch (const std::exception& e) {
                w->drop();
                error = describe(path, e);
            }
        }
        QMetaObject::invokeMethod(
            self.data(),
            [=] {
                if (!self)
                    return;
                if (self->generation_ == gen) {
                    if (!error.isEmpty()) {
                        emit self->failed(0, error);
                    } else if (list) {
                        self->runId_ = run_id;
                        if (history)
                            emit self->environmentHistoryReady(gen, history);
                        emit self->suggestionsReady(gen, run_id, list);
                    }
                }
                self->finishOne();
            },
            Qt::QueuedConnection);
    });
    return gen;
}

void KbSession::detach()
{
    const quint64 gen = ++generation_;
    latest_->store(gen);
    runId_ = 0;
    KbWorker* w = worker_;
    QPointer<KbSession> self(this);
    post([=] {
        w->runId_ = 0;
        QMetaObject::invokeMethod(
            self.data(), [self] { if (self) self->finishOne(); }, Qt::QueuedConnection);
    });
}

void KbSession::refresh()
{
    if (runId_ <= 0)
        return;
    const quint64 gen = generation_;
    const int64_t run_id = runId_;
    const std::string path = path_.toStdString();
    KbWorker* w = worker_;
    QPointer<KbSession> self(this);
    post([=] {
        SuggestionList list;
        QString error;
        try {
            list = std::make_shared<const std::vector<SuggestionRecord>>(w->open(path).suggestions(run_id));
        } catch (const std::exception& e) {
            w->drop();
            error = describe(path, e);
        }
        QMetaObject::invokeMethod(
            self.data(),
            [=] {
                if (!self)
                    return;
                if (self->generation_ == gen) {
                    if (list)
                        emit self->suggestionsReady(gen, run_id, list);
                    else
                        emit self->failed(0, error);
                }
                self->finishOne();
            },
            Qt::QueuedConnection);
    });
}

void KbSession::setState(qint64 id, SuggestionState state, std::optional<QString> annotation)
{
    std::optional<std::string> note;
    if (annotation)
        note = annotation->toStdString();
    write(id, [=](KnowledgeBase& kb) { kb.set_suggestion_state(id, state, note); });
}

void KbSession::annotate(qint64 id, const QString& text)
{
    // One UPDATE of the note alone: a state another instance set meanwhile is kept.
    write(id, [id, note = text.toStdString()](KnowledgeBase& kb) { kb.set_suggestion_annotation(id, note); });
}

void KbSession::write(qint64 id, std::function<void(KnowledgeBase&)> change)
{
    const std::string path = path_.toStdString();
    KbWorker* w = worker_;
    QPointer<KbSession> self(this);
    post([=] {
        std::optional<SuggestionRecord> stored;
        QString error;
        try {
            KnowledgeBase& kb = w->open(path);
            change(kb);   // commits before returning; throws KbError for an unknown id
            stored = w->find(kb, id);
            if (!stored)   // deleted in between by someone else: report what was written
                stored = SuggestionRecord{};
            stored->id = id;
        } catch (const std::exception& e) {
            w->drop();
            error = describe(path, e);
        }
        QMetaObject::invokeMethod(
            self.data(),
            [=] {
                if (!self)
                    return;
                if (stored)
                    emit self->saved(id, stored->state, QString::fromStdString(stored->annotation),
                                     stored->updated_at);
                else
                    emit self->failed(id, error);
                self->finishOne();
            },
            Qt::QueuedConnection);
    });
}

bool KbSession::waitForIdle(int timeoutMs)
{
    QDeadlineTimer deadline(timeoutMs);
    while (pending_ > 0 && !deadline.hasExpired()) {
        QEventLoop loop;
        QTimer::singleShot(20, &loop, &QEventLoop::quit);
        connect(this, &KbSession::idle, &loop, &QEventLoop::quit);
        loop.exec();
    }
    return pending_ == 0;
}

} // namespace sl
