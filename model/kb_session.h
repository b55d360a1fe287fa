#pragma once
// The workbench's connection to the knowledge base (analysis/diagnosis/knowledge_base.h). Every access — opening the file,
// finding or recording the run of the open trace, reading its suggestions, each accept / reject / annotate — runs
// on ONE worker thread, in the order asked, never on the GUI thread: another Sightline instance may hold SQLite's
// write lock for seconds, and the GUI must not freeze meanwhile. Results come back as signals on the thread that
// owns the session.
//
// Each write is its own transaction (KnowledgeBase commits per call), so what `saved` reports is on disk: a crash
// right after it, or a second instance reading the file, sees it.
//
// The run of a trace is found by content hash (file_hash of the one trace file; several files: the hash of their
// hashes, in order). When the knowledge base has none, the run is recorded exactly as `sightline-cli kb record`
// records it: environment from Diagnosis::env, headline metrics, per-operator measurements and the findings, whose
// suggestions are stored as "proposed" and get their ids.

#include <QObject>
#include <QString>
#include <QVector>
#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "analysis/diagnosis/kb_lookup.h"
#include "analysis/diagnosis/knowledge_base.h"
#include "model/document.h"

class QThread;

namespace sl {

class KbWorker;

using SuggestionList = std::shared_ptr<const std::vector<SuggestionRecord>>;
using EnvironmentHistoryPtr = std::shared_ptr<const EnvironmentHistory>;

class KbSession : public QObject {
    Q_OBJECT
public:
    explicit KbSession(QObject* parent = nullptr);
    // Runs every operation still queued (no write is dropped), then stops the worker.
    ~KbSession() override;

    // The knowledge-base file (WorkbenchSettings::effectiveKbPath()). Operations queued after this call use it; the
    // file is opened (created, migrated) lazily by the first of them, and again by the next one when it failed.
    void setPath(const QString& path);
    QString path() const { return path_; }

    // Finds or records the run of this trace and reads its suggestions: suggestionsReady, or failed(0, why).
    // Supersedes any earlier attach: the result of an older generation is never emitted. Returns the generation.
    quint64 attach(const DocumentInputs& inputs, std::shared_ptr<const Trace> trace,
                   std::shared_ptr<const AnalysisResult> analysis, std::shared_ptr<const Diagnosis> diagnosis);
    // Forgets the attached run (the document was closed); results still in flight are dropped.
    void detach();
    // Reads the attached run's suggestions again (e.g. to see what another instance changed).
    void refresh();

    // Writes a suggestion's state (and annotation when given) at once: saved, or failed(id, why).
    void setState(qint64 id, SuggestionState state, std::optional<QString> annotation = std::nullopt);
    // Writes a suggestion's annotation, keeping its state as stored: saved, or failed(id, why).
    void annotate(qint64 id, const QString& text);

    quint64 generation() const { return generation_; }
    // The attached run's id in the knowledge base; 0 until suggestionsReady.
    qint64 runId() const { return runId_; }
    // Operations queued and not yet finished.
    int pending() const { return pending_; }
    // Blocks until every queued operation ran and its signal was delivered (tests, shutdown).
    bool waitForIdle(int timeoutMs = 30'000);

    // "<16 hex digits>" identifying a set of trace files as the knowledge base does; "" when one cannot be read.
    static QString traceHash(const QStringList& traces);

signals:
    // The attached run's suggestions (ids assigned), in KnowledgeBase::suggestions order (by id).
    void suggestionsReady(quint64 generation, qint64 runId, sl::SuggestionList suggestions);
    // What the knowledge base knows about the attached trace's environment (diagnosis/kb_lookup.h; the trace's own
    // run left out): emitted by attach just before suggestionsReady. The Overview's "Seen before" block.
    void environmentHistoryReady(quint64 generation, sl::EnvironmentHistoryPtr history);
    // A write committed. `annotation` and `updatedAt` are the values now stored.
    void saved(qint64 id, sl::SuggestionState state, const QString& annotation, qint64 updatedAt);
    // An operation failed: id is the suggestion (0 for opening the file or attaching). The message names the
    // knowledge-base path and SQLite's reason.
    void failed(qint64 id, const QString& message);
    // Emitted when pending() drops to 0.
    void idle();

private:
    template <typename F>
    void post(F&& f);
    void finishOne();
    // Runs `change` on the worker, then reports the stored row by saved(), or failed() with the path and reason.
    void write(qint64 id, std::function<void(KnowledgeBase&)> change);

    QThread* thread_ = nullptr;
    KbWorker* worker_ = nullptr;
    QString path_;
    quint64 generation_ = 0;
    std::shared_ptr<std::atomic<quint64>> latest_;   // newest attach generation, read by the worker to skip stale ones
    qint64 runId_ = 0;
    int pending_ = 0;
};

} // namespace sl
