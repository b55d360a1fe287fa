// bench_summary: `sightline-cli summary`'s work (load an nsys export + summarize) against the floor — the time
// sqlite3 itself needs to step through the same rows and columns — on a generated 1,000,000-kernel /
// ~1,000,000-API-call / ~200,000-NVTX export. Prints the median of 3 runs of each, the ratio (target <= 2x), the
// peak RSS of this process (the file is generated in a child process so it does not count) and Trace::memory_bytes().
// Each run measures, back to back so they see the same machine load: the floor in this process (the SQLite library
// stepping through the rows and columns the reader reads), the same scan by the sqlite3 command-line tool (when it
// is on PATH), and load + summary with the reader single-threaded (SIGHTLINE_LOAD_THREADS=1) and with its default
// threads (one per hardware thread, issue 18).
//
// usage: bench_summary [KERNELS] [NVTX] [--file EXPORT]   (defaults 1000000 200000; --file reads an existing export)
#include <sqlite3.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <ctime>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "analysis/io/load.h"
#include "analysis/io/nsys_writer.h"
#include "analysis/io/parallel.h"
#include "analysis/timeline/summary.h"
#include "analysis/io/synthetic.h"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

double cpu_clock(clockid_t id)
{
    timespec ts{};
    clock_gettime(id, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

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

// The tables and columns the nsys reader reads (nsys_reader.cpp), for the two floors.
struct Q {
    const char* table;
    const char* columns;
};
const Q kQueries[] = {
    {"StringIds", "id, value"},
    {"CUPTI_ACTIVITY_KIND_KERNEL",
     "start, end, deviceId, streamId, correlationId, globalPid, demangledName, shortName, gridX, gridY, gridZ, "
     "blockX, blockY, blockZ, registersPerThread, staticSharedMemory, dynamicSharedMemory, graphNodeId, launchType"},
    {"CUPTI_ACTIVITY_KIND_RUNTIME", "start, end, eventClass, globalTid, correlationId, nameId"},
    {"CUPTI_ACTIVITY_KIND_MEMCPY", "start, end, deviceId, streamId, correlationId, globalPid, bytes, copyKind, srcKind, dstKind"},
    {"CUPTI_ACTIVITY_KIND_MEMSET", "start, end, deviceId, streamId, correlationId, globalPid, bytes, memKind"},
    {"CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "start, end, deviceId, streamId, correlationId, globalPid, syncType"},
    {"NVTX_EVENTS", "start, end, eventType, text, textId, globalTid, domainId"},
};

// The floor: step through every row the reader reads, fetching each column the reader fetches.
int64_t scan_floor(const std::string& path, size_t& rows_out)
{
    sqlite3* db = nullptr;
    if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nullptr) != SQLITE_OK) {
        std::fprintf(stderr, "cannot open %s\n", path.c_str());
        std::exit(1);
    }
    int64_t checksum = 0;
    size_t rows = 0;
    for (const Q& q : kQueries) {
        if (!table_exists(db, q.table))
            continue;
        sqlite3_stmt* st = nullptr;
        const std::string sql = std::string("SELECT ") + q.columns + " FROM " + q.table;
        if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) {
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

// The same scan as a script for the sqlite3 command-line tool: one aggregate per column (so every value is decoded
// and nothing is printed per row), over the tables the export has.
std::string cli_floor_script(const std::string& path)
{
    sqlite3* db = nullptr;
    sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nullptr);
    std::string sql;
    for (const Q& q : kQueries) {
        if (!table_exists(db, q.table))
            continue;
        std::string cols = q.columns, agg;
        for (size_t pos = 0; pos <= cols.size();) {
            size_t comma = cols.find(", ", pos);
            if (comma == std::string::npos)
                comma = cols.size();
            const std::string c = cols.substr(pos, comma - pos);
            agg += (agg.empty() ? "" : ", ") + ((c == "value" || c == "text") ? "total(length(" + c + "))" : "total(" + c + ")");
            pos = comma + 2;
        }
        sql += "SELECT count(*), " + agg + " FROM " + q.table + ";\n";
    }
    sqlite3_close(db);
    return sql;
}

double run_shell(const std::string& cmd)
{
    const auto t0 = Clock::now();
    if (std::system(cmd.c_str()) != 0) {
        std::fprintf(stderr, "failed: %s\n", cmd.c_str());
        return -1;
    }
    return seconds_since(t0);
}

} // namespace

int main(int argc, char** argv)
{
    int64_t kernels = 1'000'000, nvtx = 200'000;
    std::string file;
    for (int i = 1, pos = 0; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--file" && i + 1 < argc)
            file = argv[++i];
        else if (pos++ == 0)
            kernels = std::atoll(argv[i]);
        else
            nvtx = std::atoll(argv[i]);
    }
    const auto dir = std::filesystem::temp_directory_path() / ("sightline_bench_summary_" + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    std::string path = file;
    if (path.empty()) {
        path = (dir / "scale.sqlite").string();
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
    }
    const std::string script = (dir / "floor.sql").string();
    {
        FILE* f = std::fopen(script.c_str(), "w");
        const std::string sql = cli_floor_script(path);
        std::fwrite(sql.data(), 1, sql.size(), f);
        std::fclose(f);
    }
    const bool have_cli = std::system("command -v sqlite3 >/dev/null 2>&1") == 0;
    const std::string cli_cmd = "sqlite3 -readonly '" + path + "' < '" + script + "' > /dev/null";
    const char* env = std::getenv("SIGHTLINE_LOAD_THREADS");
    const std::string parallel_threads = env && *env ? env : "";
    const unsigned hw = std::max(1u, std::thread::hardware_concurrency());

    std::vector<double> floor_s, cli_s, load1_s, total1_s, load_s, summary_s, total_s, caller_cpu, all_cpu;
    std::vector<double> floor_cpu, load1_cpu, summary_cpu;   // CPU seconds (load1_cpu: load + summary, 1 thread)
    double load1_cpu_load = 0;
    size_t rows = 0;
    size_t mem = 0, nk = 0, na = 0, nr = 0, groups = 0;
    int64_t checksum = 0;
    auto load_and_summary = [&](const char* threads, std::vector<double>& load_v, std::vector<double>& total_v) {
        if (threads)
            setenv("SIGHTLINE_LOAD_THREADS", threads, 1);
        else if (parallel_threads.empty())
            unsetenv("SIGHTLINE_LOAD_THREADS");
        else
            setenv("SIGHTLINE_LOAD_THREADS", parallel_threads.c_str(), 1);
        auto t0 = Clock::now();
        const double c0 = cpu_clock(CLOCK_THREAD_CPUTIME_ID), p0 = cpu_clock(CLOCK_PROCESS_CPUTIME_ID);
        const sl::Trace t = sl::load_trace(path);
        load_v.push_back(seconds_since(t0));
        if (!threads) {
            caller_cpu.push_back(cpu_clock(CLOCK_THREAD_CPUTIME_ID) - c0);
            all_cpu.push_back(cpu_clock(CLOCK_PROCESS_CPUTIME_ID) - p0);
        } else {
            load1_cpu_load = cpu_clock(CLOCK_THREAD_CPUTIME_ID) - c0;
        }
        const auto t1 = Clock::now();
        const double s0 = cpu_clock(CLOCK_THREAD_CPUTIME_ID);
        const sl::Summary s = sl::summarize(t);
        summary_s.push_back(seconds_since(t1));
        (threads ? load1_cpu : summary_cpu).push_back(cpu_clock(CLOCK_THREAD_CPUTIME_ID) - s0);
        if (threads)
            load1_cpu.back() += load1_cpu_load;
        total_v.push_back(seconds_since(t0));
        mem = t.memory_bytes();
        nk = t.kernels.size();
        na = t.api.size();
        nr = t.ranges.size();
        groups = s.kernels.by_name.size();
    };
    for (int run = 0; run < 3; ++run) {
        auto t0 = Clock::now();
        const double f0 = cpu_clock(CLOCK_THREAD_CPUTIME_ID);
        checksum += scan_floor(path, rows);
        floor_s.push_back(seconds_since(t0));
        floor_cpu.push_back(cpu_clock(CLOCK_THREAD_CPUTIME_ID) - f0);
        if (have_cli)
            cli_s.push_back(run_shell(cli_cmd));
        load_and_summary("1", load1_s, total1_s);
        load_and_summary(nullptr, load_s, total_s);
    }
    const double fl = median(floor_s), tot = median(total_s), tot1 = median(total1_s);
    auto runs = [](const std::vector<double>& v) {
        for (double x : v)
            std::printf(" %.3f", x);
        std::printf("\n");
    };
    std::printf("rows scanned by the floor: %zu (checksum %lld)\n", rows, static_cast<long long>(checksum));
    std::printf("trace: %zu kernels (%zu names), %zu API calls, %zu ranges\n", nk, groups, na, nr);
    std::printf("machine: %u hardware threads, %u in this process's affinity mask; reader threads: %s\n", hw,
                sl::reader_threads(),
                parallel_threads.empty() ? "default (the affinity mask's CPUs)" : parallel_threads.c_str());
    std::printf("sqlite3 scan, library (floor)   median %.3f s   runs:", fl);
    runs(floor_s);
    if (have_cli) {
        std::printf("sqlite3 scan, CLI tool          median %.3f s   runs:", median(cli_s));
        runs(cli_s);
    }
    std::printf("load, 1 thread                  median %.3f s\n", median(load1_s));
    std::printf("load + summary, 1 thread        median %.3f s   runs:", tot1);
    runs(total1_s);
    std::printf("load, parallel                  median %.3f s\n", median(load_s));
    std::printf("summarize                       median %.3f s\n", median(summary_s));
    std::printf("load + summary, parallel        median %.3f s   runs:", tot);
    runs(total_s);
    // On a busy machine wall time says little about the split of the work; CPU time does. With two threads the
    // parallel load cannot take less wall time than its busier thread's CPU time, which it approaches on idle cores.
    const double caller = median(caller_cpu), all = median(all_cpu);
    std::printf("parallel load CPU: %.3f s on the calling thread, %.3f s on the others (%.3f s in all); on 2 idle "
                "cores its wall time would be about the busier one, %.3f s (plus summarize)\n",
                caller, all - caller, all, std::max(caller, all - caller));
    const double fl_cpu = median(floor_cpu), sum_cpu = median(summary_cpu);
    std::printf("CPU time: floor %.3f s, load + summary 1 thread %.3f s, parallel critical path %.3f s "
                "(busier load thread + summarize)\n", fl_cpu, median(load1_cpu), std::max(caller, all - caller) + sum_cpu);
    std::printf("ratio by CPU time (what an idle 2-core machine would show), 1 thread: %.2fx, parallel: %.2fx\n",
                median(load1_cpu) / fl_cpu, (std::max(caller, all - caller) + sum_cpu) / fl_cpu);
    std::printf("ratio (load+summary, 1 thread)/floor: %.2fx\n", tot1 / fl);
    std::printf("ratio (load+summary, parallel)/floor: %.2fx  (target <= 2x on 2 cores)\n", tot / fl);
    if (have_cli)
        std::printf("ratio (load+summary, parallel)/sqlite3 CLI scan: %.2fx\n", tot / median(cli_s));
    std::printf("Trace::memory_bytes: %.1f MiB (%.1f B per kernel+API row)\n", static_cast<double>(mem) / (1 << 20),
                static_cast<double>(mem) / static_cast<double>(std::max<size_t>(1, nk + na)));
    std::printf("peak RSS: %.1f MiB\n", static_cast<double>(peak_rss_kib()) / 1024.0);
    std::filesystem::remove_all(dir);
    return 0;
}
