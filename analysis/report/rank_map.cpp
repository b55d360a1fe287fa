#include "analysis/report/rank_map.h"

#include "analysis/io/parallel.h"

#include <mutex>

namespace sl {

std::vector<RankPartial> map_ranks(const std::vector<std::string>& paths, const LoadOptions& load,
                                   const AnalysisOptions& options, unsigned max_in_memory,
                                   const std::function<void(size_t, size_t)>& on_done, const std::atomic<bool>* cancel)
{
    LoadControl control;
    control.cancel = cancel;
    std::vector<RankPartial> out(paths.size());
    std::mutex m;
    size_t done = 0;
    TaskRun run;
    // One task per rank; as many threads as ranks may be in memory: a task holds its trace only until its partial
    // is made. Readers inside a task split their own work over reader_threads() as usual.
    run_tasks(paths.size(), std::max(1u, max_in_memory), run, [&](size_t i, unsigned) {
        if (run.first_failed.load() != SIZE_MAX)
            return;   // a rank failed: the merge will not run, stop reading the others
        RankPartial p;
        {
            control.check();
            const Trace t = load_workspace({paths[i]}, load, control);
            const AnalysisResult r = analyze(t, options, control);
            p = make_rank_partial(t, r, paths[i]);
        }
        p.source = paths[i];
        out[i] = std::move(p);
        if (on_done) {
            const std::lock_guard<std::mutex> lock(m);
            on_done(++done, paths.size());
        }
    });
    if (run.first_failed.load() != SIZE_MAX)
        std::rethrow_exception(run.errors[run.first_failed.load()]);
    return out;
}

} // namespace sl
