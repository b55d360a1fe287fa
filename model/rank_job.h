#pragma once
// Opens a folder of ranks for the rank view (issue 38 §4), on a worker thread as JobRunner loads one trace: each
// rank's trace is read and reduced to its partial on the readers' task runner (analysis/report/rank_map.h; a
// *.partial.json[.gz] in the folder is read as it is), then merged (rank_merge.h) with the rank view's grids
// (rank_grid.h) and the cross-rank findings. Progress (ranks done) and the result come back as queued signals with
// immutable values; cancel() raises the job's flag, which the readers and analyses poll. Every open() starts a new
// generation: an older job's results are dropped.

#include "analysis/report/rank_grid.h"
#include "analysis/report/rank_merge.h"

#include <QObject>
#include <QStringList>
#include <QThreadPool>

#include <atomic>
#include <memory>

namespace sl {

struct RankViewData {
    QString folder;
    RankMerge merge;
    RankGrid grid;
};

class RankJob : public QObject {
    Q_OBJECT
public:
    explicit RankJob(QObject* parent = nullptr);
    ~RankJob() override;

    // The rank files of a folder: traces (Kineto JSON, optionally gzip-compressed; Nsight Systems reports and their
    // SQLite exports) and partials, in natural order of their names ("rank2" before "rank10"). A model config.json
    // and other JSON that is not a trace are left out by their names only when they say "config".
    static QStringList rankFiles(const QString& folder);

    // Starts on `folder`; supersedes (and cancels) a job still running. Returns the job's generation.
    quint64 open(const QString& folder);
    void cancel();
    bool isRunning() const { return running_; }
    void waitForDone();

signals:
    void started(const QString& folder, int ranks);
    void progress(int done, int total);
    void finished(std::shared_ptr<const sl::RankViewData> data);
    void failed(const QString& message);
    void cancelled();

private:
    QThreadPool pool_;
    quint64 generation_ = 0;
    std::shared_ptr<std::atomic<bool>> cancel_;
    bool running_ = false;
};

} // namespace sl

Q_DECLARE_METATYPE(std::shared_ptr<const sl::RankViewData>)
