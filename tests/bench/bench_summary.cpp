// bench_summary: `sightline-cli summary`'s work (load an nsys export + summarize) against the floor — the time
// sqlite3 itself needs to step through the same rows and columns — on a generated 1,000,000-kernel /
// ~1,000,000-API-call / ~200,000-NVTX export. Prints the median of 3 runs of each, the ratio (target <= 2x), the
// peak RSS of this process (the file is generated in a child process so it does not count) and Trace::memory_bytes().
//
// usage: bench_summary [KERNELS] [NVTX]     (defaults 1000000 200000)
#include <sqlite3.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "analysis/io/load.h"
#include "analysis/io/nsys_writer.h"
#include "analysis/timeline/summary.h"
#include "analysis/io/synthetic.h"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

long peak_rss_kib()
{
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return u.ru_maxrss;
}

bool table_exists(sqlite3* db, const char* name)
{
    sqlite3_stmt* st = nullptr;
    sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type='table' AND name=?", -1, &st, nullptr);
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    const bool yes = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    return yes;
}

// The floor: step through every row the reader reads, fetching each column the reader fetches.
int64_t scan_floor(const std::string& path, size_t& rows_out)
{
    sqlite3* db = nullptr;
    if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nullptr) != SQLITE_OK) {
        std::fprintf(stderr, "cannot open %s\n", path.c_str());
        std::exit(1);
    }
    struct Q {
        const char* table;
        const char* sql;
    };
    const Q queries[] = {
        {"StringIds", "SELECT id, value FROM StringIds"},
        {"CUPTI_ACTIVITY_KIND_KERNEL",
         "SELECT start, end, deviceId, streamId, correlationId, globalPid, demangledName, shortName, gridX, gridY, gridZ, "
         "blockX, blockY, blockZ, registersPerThread, staticSharedMemory, dynamicSharedMemory, graphNodeId, launchType "
         "FROM CUPTI_ACTIVITY_KIND_KERNEL"},
        {"CUPTI_ACTIVITY_KIND_RUNTIME",
         "SELECT start, end, eventClass, globalTid, correlationId, nameId FROM CUPTI_ACTIVITY_KIND_RUNTIME"},
        {"CUPTI_ACTIVITY_KIND_MEMCPY",
         "SELECT start, end, deviceId, streamId, correlationId, globalPid, bytes, copyKind, srcKind, dstKind "
         "FROM CUPTI_ACTIVITY_KIND_MEMCPY"},
        {"CUPTI_ACTIVITY_KIND_MEMSET",
         "SELECT start, end, deviceId, streamId, correlationId, globalPid, bytes, memKind FROM CUPTI_ACTIVITY_KIND_MEMSET"},
        {"CUPTI_ACTIVITY_KIND_SYNCHRONIZATION",
         "SELECT start, end, deviceId, streamId, correlationId, globalPid, syncType FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION"},
        {"NVTX_EVENTS", "SELECT start, end, eventType, text, textId, globalTid, domainId FROM NVTX_EVENTS"},
    };
    int64_t checksum = 0;
    size_t rows = 0;
    for (const Q& q : queries) {
        if (!table_exists(db, q.table))
            continue;
        sqlite3_stmt* st = nullptr;
        if (sqlite3_prepare_v2(db, q.sql, -1, &st, nullptr) != SQLITE_OK) {
            std::fprintf(stderr, "%s: %s\n", q.table, sqlite3_errmsg(db));
            std::exit(1);
        }
        const int n = sqlite3_column_count(st);
        while (sqlite3_step(st) == SQLITE_ROW) {
            ++rows;
            for (int c = 0; c < n; ++c) {
                if (sqlite3_column_type(st, c) == SQLITE_TEXT)
                    checksum += sqlite3_column_bytes(st, c) + (sqlite3_column_text(st, c) != nullptr);
                else
                    checksum += sqlite3_column_int64(st, c);
            }
        }
        sqlite3_finalize(st);
    }
    sqlite3_close(db);
    rows_out = rows;
    return checksum;
}

} // namespace

int main(int argc, char** argv)
{
    const int64_t kernels = argc > 1 ? std::atoll(argv[1]) : 1'000'000;
    const int64_t nvtx = argc > 2 ? std::atoll(argv[2]) : 200'000;
    const auto dir = std::filesystem::temp_directory_path() / ("sightline_bench_summary_" + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    const std::string path = (dir / "scale.sqlite").string();

    // Generate in a child so the generator's memory does not count in this process's peak RSS.
    const auto tg = Clock::now();
    const pid_t child = fork();
    if (child == 0) {
        sl::SynthOptions o = sl::synth_preset("scale");
        o.total_kernels = kernels;
        o.total_nvtx = nvtx;
        sl::write_nsys_sqlite(sl::make_synthetic_trace(o), path);
        std::_Exit(0);
    }
    int status = 0;
    waitpid(child, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        std::fprintf(stderr, "generating the export failed\n");
        return 1;
    }
    std::printf("generated %s (%.1f MiB) in %.1f s\n", path.c_str(),
                static_cast<double>(std::filesystem::file_size(path)) / (1 << 20), seconds_since(tg));

    std::vector<double> floor_s, load_s, summary_s, total_s;
    size_t rows = 0;
    size_t mem = 0, nk = 0, na = 0, nr = 0, groups = 0;
    int64_t checksum = 0;
    for (int run = 0; run < 3; ++run) {
        auto t0 = Clock::now();
        checksum += scan_floor(path, rows);
        floor_s.push_back(seconds_since(t0));

        t0 = Clock::now();
        const sl::Trace t = sl::load_trace(path);
        load_s.push_back(seconds_since(t0));
        const auto t1 = Clock::now();
        const sl::Summary s = sl::summarize(t);
        summary_s.push_back(seconds_since(t1));
        total_s.push_back(seconds_since(t0));
        mem = t.memory_bytes();
        nk = t.kernels.size();
        na = t.api.size();
        nr = t.ranges.size();
        groups = s.kernels.by_name.size();
    }
    const double fl = median(floor_s), tot = median(total_s);
    std::printf("rows scanned by the floor: %zu (checksum %lld)\n", rows, static_cast<long long>(checksum));
    std::printf("trace: %zu kernels (%zu names), %zu API calls, %zu ranges\n", nk, groups, na, nr);
    std::printf("sqlite3 scan (floor)     median %.3f s   runs:", fl);
    for (double x : floor_s)
        std::printf(" %.3f", x);
    std::printf("\nload_trace               median %.3f s\n", median(load_s));
    std::printf("summarize                median %.3f s\n", median(summary_s));
    std::printf("load + summary           median %.3f s   runs:", tot);
    for (double x : total_s)
        std::printf(" %.3f", x);
    std::printf("\nratio (load+summary)/floor: %.2fx  (target <= 2x)\n", tot / fl);
    std::printf("Trace::memory_bytes: %.1f MiB (%.1f B per kernel+API row)\n", static_cast<double>(mem) / (1 << 20),
                static_cast<double>(mem) / static_cast<double>(std::max<size_t>(1, nk + na)));
    std::printf("peak RSS: %.1f MiB\n", static_cast<double>(peak_rss_kib()) / 1024.0);
    std::filesystem::remove_all(dir);
    return 0;
}
