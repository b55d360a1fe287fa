#include "model/rank_job.h"
#include "model/post_if_current.h"

#include "analysis/report/rank_map.h"
#include "analysis/trace/errors.h"
#include "analysis/trace/load_control.h"

#include <QDir>
#include <QFileInfo>
#include <QtConcurrent/QtConcurrentRun>

namespace sl {

RankJob::RankJob(QObject* parent) : QObject(parent)
{
    qRegisterMetaType<std::shared_ptr<const sl::RankViewData>>();
    pool_.setMaxThreadCount(1);
}

RankJob::~RankJob()
{
    cancel();
    pool_.waitForDone();
}

QStringList RankJob::rankFiles(const QString& folder)
{
    const QDir dir(folder);
    QStringList out;
    for (const QString& name : dir.entryList(QDir::Files | QDir::Readable, QDir::NoSort)) {
        const QString lower = name.toLower();
        const bool trace = lower.endsWith(QLatin1String(".json")) || lower.endsWith(QLatin1String(".json.gz")) ||
                           lower.endsWith(QLatin1String(".nsys-rep")) || lower.endsWith(QLatin1String(".sqlite"));
        if (trace && !lower.contains(QLatin1String("config")))
            out << dir.filePath(name);
    }
    // Natural order: runs of digits compare as numbers (QCollator's numeric mode needs ICU, absent in the C locale).
    auto natural_less = [](const QString& a, const QString& b) {
        qsizetype i = 0, j = 0;
        while (i < a.size() && j < b.size()) {
            if (a[i].isDigit() && b[j].isDigit()) {
                qsizetype i2 = i, j2 = j;
                while (i2 < a.size() && a[i2].isDigit())
                    ++i2;
                while (j2 < b.size() && b[j2].isDigit())
                    ++j2;
                const qulonglong x = a.mid(i, i2 - i).toULongLong(), y = b.mid(j, j2 - j).toULongLong();
                if (x != y)
                    return x < y;
                i = i2;
                j = j2;
            } else {
                if (a[i] != b[j])
                    return a[i] < b[j];
                ++i;
                ++j;
            }
        }
        return a.size() - i < b.size() - j;
    };
    std::sort(out.begin(), out.end(), natural_less);
    // A folder holding each rank's trace and its partial: the partial stands for the trace.
    QStringList kept;
    for (const QString& f : out) {
        const bool partial = f.contains(QLatin1String(".partial.json"));
        if (!partial) {
            QString stem = f;
            for (const char* ext : {".json.gz", ".json", ".nsys-rep", ".sqlite"})
                if (stem.endsWith(QLatin1String(ext))) {
                    stem.chop(static_cast<int>(qstrlen(ext)));
                    break;
                }
            if (out.contains(stem + QLatin1String(".partial.json")) || out.contains(stem + QLatin1String(".partial.json.gz")))
                continue;
        }
        kept << f;
    }
    return kept;
}

quint64 RankJob::open(const QString& folder)
{
    if (cancel_)
        cancel_->store(true);
    const quint64 gen = ++generation_;
    cancel_ = std::make_shared<std::atomic<bool>>(false);
    running_ = true;
    const QStringList files = rankFiles(folder);
    emit started(folder, static_cast<int>(files.size()));
    auto flag = cancel_;
    auto post = [this, gen](std::function<void()> fn) { postIfCurrent(this, &generation_, gen, std::move(fn)); };
    (void)QtConcurrent::run(&pool_, [this, folder, files, flag, post] {
        try {
            if (files.isEmpty())
                throw TraceError(folder.toStdString(), "", "a folder of rank traces or partials", "no trace file");
            std::vector<std::string> traces;
            std::vector<size_t> trace_slot;
            std::vector<RankPartial> parts(static_cast<size_t>(files.size()));
            for (qsizetype i = 0; i < files.size(); ++i) {
                if (files[i].contains(QLatin1String(".partial.json"))) {
                    RankPartial& p = parts[static_cast<size_t>(i)];
                    p = read_rank_partial(files[i].toStdString());
                    // The trace as analyze was given it, maybe relative to where it ran: a click opens it, so find it
                    // beside the partial when it is not where the path says.
                    const QString trace = QString::fromStdString(p.trace_path);
                    if (!trace.isEmpty() && !QFileInfo::exists(trace))
                        p.trace_path = QDir(folder).absoluteFilePath(QFileInfo(trace).fileName()).toStdString();
                } else {
                    traces.push_back(files[i].toStdString());
                    trace_slot.push_back(static_cast<size_t>(i));
                }
            }
            const int total = static_cast<int>(files.size());
            const int ready = total - static_cast<int>(traces.size());
            post([this, ready, total] { emit progress(ready, total); });
            // Two ranks in memory at once: the readers split each rank's parsing over their own threads as usual.
            std::vector<RankPartial> mapped = map_ranks(
                traces, LoadOptions{}, AnalysisOptions{}, 2,
                [&](size_t done, size_t) {
                    const int d = ready + static_cast<int>(done);
                    post([this, d, total] { emit progress(d, total); });
                },
                flag.get());
            for (size_t k = 0; k < mapped.size(); ++k)
                parts[trace_slot[k]] = std::move(mapped[k]);
            if (flag->load())
                throw Cancelled();
            auto data = std::make_shared<RankViewData>();
            data->folder = folder;
            data->merge = merge_partials(std::move(parts), {}, {}, &data->grid);
            std::shared_ptr<const RankViewData> result = std::move(data);
            post([this, result] {
                running_ = false;
                emit finished(result);
            });
        } catch (const Cancelled&) {
            post([this] {
                running_ = false;
                emit cancelled();
            });
        } catch (const std::exception& e) {
            const QString message = QString::fromStdString(e.what());
            post([this, message] {
                running_ = false;
                emit failed(message);
            });
        }
    });
    return gen;
}

void RankJob::cancel()
{
    if (cancel_)
        cancel_->store(true);
}

void RankJob::waitForDone() { pool_.waitForDone(); }

} // namespace sl
