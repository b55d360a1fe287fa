// Kineto JSON reader throughput, against Python's json.load on the same file, and its peak memory.
//
//   bench_kineto [--kernels N] [--dir DIR] [--keep] [--no-python] [--file TRACE.json]
//
// Builds a synthetic LLM-decode trace (analysis/io/synthetic.h) with N kernels (default 400,000, about 300 MB of JSON),
// writes it as Kineto JSON with kineto_writer (or reads --file), then times, in child processes so each has its own
// peak RSS, three rounds of, back to back so they see the same machine load:
//   - read_kineto_json single-threaded (SIGHTLINE_LOAD_THREADS=1) and with its default threads (issue 18), as MB/s
//     of uncompressed JSON (best of the 3 rounds);
//   - python3 -c 'import json; json.load(open(F))' (one run, in the first round);
// and prints peak RSS of the reader process next to Trace::memory_bytes() of what it built.
// Internal mode: bench_kineto --read FILE prints one line "wall_s cpu_s maxrss_kb memory_bytes kernels main_cpu_s".

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <string>
#include <thread>
#include <sys/resource.h>
#include <unistd.h>

#include "analysis/io/kineto_reader.h"
#include "analysis/io/kineto_writer.h"
#include "analysis/io/parallel.h"
#include "analysis/io/synthetic.h"

namespace fs = std::filesystem;

namespace {

double now_s()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double cpu_s(int who = RUSAGE_SELF)
{
    rusage ru{};
    getrusage(who, &ru);
    return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

int read_mode(const char* path)
{
    timespec m0{}, m1{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &m0);
    const double w0 = now_s(), c0 = cpu_s();
    const sl::Trace t = sl::read_kineto_json(path);
    const double wall = now_s() - w0, cpu = cpu_s() - c0;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &m1);
    const double main_cpu = static_cast<double>(m1.tv_sec - m0.tv_sec) + static_cast<double>(m1.tv_nsec - m0.tv_nsec) * 1e-9;
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    std::printf("%.6f %.6f %ld %zu %zu %.6f\n", wall, cpu, static_cast<long>(ru.ru_maxrss), t.memory_bytes(),
                t.kernels.size(), main_cpu);
    return 0;
}

std::string run_capture(const std::string& cmd)
{
    std::string out;
    if (FILE* p = ::popen(cmd.c_str(), "r")) {
        char buf[512];
        while (std::fgets(buf, sizeof buf, p))
            out += buf;
        ::pclose(p);
    }
    return out;
}

std::string self_exe()
{
    std::error_code ec;
    auto p = fs::read_symlink("/proc/self/exe", ec);
    return ec ? std::string("bench_kineto") : p.string();
}

} // namespace

int main(int argc, char** argv)
{
    if (argc == 3 && std::strcmp(argv[1], "--read") == 0)
        return read_mode(argv[2]);

    int64_t kernels = 400'000;
    std::string dir;
    bool keep = false, python = true;
    std::string given;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--kernels" && i + 1 < argc)
            kernels = std::atoll(argv[++i]);
        else if (a == "--dir" && i + 1 < argc)
            dir = argv[++i];
        else if (a == "--keep")
            keep = true;
        else if (a == "--no-python")
            python = false;
        else if (a == "--file" && i + 1 < argc)
            given = argv[++i];
        else {
            std::fprintf(stderr, "usage: bench_kineto [--kernels N] [--dir DIR] [--keep] [--no-python] [--file TRACE.json]\n");
            return 64;
        }
    }
    if (dir.empty()) {
        const char* env = std::getenv("SIGHTLINE_TEST_TMP");
        dir = env && *env ? env : fs::temp_directory_path().string();
    }
    fs::create_directories(dir);
    const std::string file = given.empty() ? dir + "/bench_kineto_" + std::to_string(::getpid()) + ".json" : given;
    if (given.empty()) {
        const double t0 = now_s();
        sl::SynthOptions o = sl::synth_preset("scale");
        o.total_kernels = kernels;
        o.total_nvtx = kernels / 5;
        o.nccl = true;
        const sl::Trace t = sl::make_synthetic_trace(o);
        const double t1 = now_s();
        sl::write_kineto_json(t, file);
        std::printf("generated %zu kernels, %zu API calls, %zu ranges in %.2f s; wrote Kineto JSON in %.2f s\n",
                    t.kernels.size(), t.api.size(), t.ranges.size(), t1 - t0, now_s() - t1);
    }
    const double mb = static_cast<double>(fs::file_size(file)) / 1e6;
    std::printf("file: %s (%.1f MB)\n", file.c_str(), mb);

    struct Best {
        double wall = 1e99, cpu = 1e99, main_cpu = 0;
        long rss_kb = 0;
        size_t mem = 0, kernels = 0;
    };
    auto read_once = [&](const char* threads, Best& b, int rep) {
        const std::string env = threads ? std::string("SIGHTLINE_LOAD_THREADS=") + threads + " " : std::string();
        const std::string out = run_capture(env + "'" + self_exe() + "' --read '" + file + "'");
        double wall = 0, cpu = 0, main_cpu = 0;
        long rss = 0;
        size_t mb_ = 0, k = 0;
        if (std::sscanf(out.c_str(), "%lf %lf %ld %zu %zu %lf", &wall, &cpu, &rss, &mb_, &k, &main_cpu) != 6) {
            std::fprintf(stderr, "reader child failed: %s\n", out.c_str());
            std::exit(2);
        }
        std::printf("  round %d, %s: wall %.3f s, cpu %.3f s, %.0f MB/s (wall), peak RSS %.1f MB\n", rep + 1,
                    threads ? "1 thread" : "parallel", wall, cpu, mb / wall, static_cast<double>(rss) / 1024.0);
        if (wall < b.wall) {
            b.wall = wall;
            b.cpu = cpu;
            b.main_cpu = main_cpu;
        }
        b.rss_kb = std::max(b.rss_kb, rss);
        b.mem = mb_;
        b.kernels = k;
    };
    Best one, par;
    double py = 0, py_cpu = 0;
    for (int rep = 0; rep < 3; ++rep) {
        read_once("1", one, rep);
        read_once(nullptr, par, rep);
        if (python && rep == 0) {
            const double t0 = now_s(), c0 = cpu_s(RUSAGE_CHILDREN);
            const std::string cmd = "python3 -c 'import json,sys; json.load(open(sys.argv[1]))' '" + file + "' 2>&1";
            const std::string out = run_capture(cmd);
            py = now_s() - t0;
            py_cpu = cpu_s(RUSAGE_CHILDREN) - c0;
            if (!out.empty())
                std::printf("python said: %s\n", out.c_str());
            std::printf("  round 1, python json.load: %.3f s wall (%.3f s cpu) = %.0f MB/s\n", py, py_cpu, mb / py);
        }
    }
    std::printf("reader, 1 thread: best %.3f s wall (%.3f s cpu) = %.0f MB/s wall; %zu kernels\n", one.wall, one.cpu,
                mb / one.wall, one.kernels);
    std::printf("reader, parallel: best %.3f s wall (%.3f s cpu) = %.0f MB/s wall (%u threads: the CPUs in this process's affinity mask)\n",
                par.wall, par.cpu, mb / par.wall, sl::reader_threads());
    // Every thread scans, parses and handles a chunk of each buffer fill and copies columns; the calling thread also
    // reads the file, numbers the chunks' names and threads and finishes the trace, so it is the critical path: the
    // parallel read cannot take less wall time than its CPU time, which it approaches on idle cores (on a busy
    // machine wall says little). The other threads are started per fill, so only their sum is known.
    std::printf("reader, parallel: %.3f s cpu on the calling thread, %.3f s on the other threads (%.3f s in all): "
                "on idle cores at least %.3f s wall = at most %.0f MB/s\n", par.main_cpu, par.cpu - par.main_cpu,
                par.cpu, par.main_cpu, mb / std::max(1e-9, par.main_cpu));
    std::printf("memory: peak RSS %.1f MB (parallel) / %.1f MB (1 thread), Trace::memory_bytes %.1f MB, ratio %.2f "
                "(RSS includes the ~8 MB read buffer, the parser and the binary)\n",
                static_cast<double>(par.rss_kb) / 1024.0, static_cast<double>(one.rss_kb) / 1024.0,
                static_cast<double>(par.mem) / 1048576.0,
                static_cast<double>(par.rss_kb) * 1024.0 / static_cast<double>(std::max<size_t>(1, par.mem)));
    if (python)
        std::printf("python json.load: %.3f s wall (%.3f s cpu) = %.0f MB/s; reader is %.1fx faster by wall time "
                    "(%.1fx single-threaded), %.1fx by cpu time\n",
                    py, py_cpu, mb / py, py / par.wall, py / one.wall, py_cpu / par.cpu);
    if (!keep && given.empty())
        fs::remove(file);
    return 0;
}
