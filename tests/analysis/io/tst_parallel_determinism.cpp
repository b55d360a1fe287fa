// Issue 18: the readers read on parallel threads, and what they build must not depend on it. Each trace is loaded
// single-threaded (SIGHTLINE_LOAD_THREADS=1) and with 2 and 7 threads (more threads than the nsys reader has
// tables); the summary JSON and the analysis JSON (`sightline-cli summary/analyze --format json`) must be the same
// bytes, and the Trace itself the same column for column (string ids included, so the pool's order is checked, not
// only what the JSON shows). Inputs: the bundled sample's recipe, generated traces with every table the nsys reader
// reads (graph-level rows, copies, sets, syncs, NVTX domains come from the generator's options) in both formats, and
// every real trace under ../shared/data. Bad input must fail with the same error whatever the thread count.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sched.h>
#include <zlib.h>

#include <algorithm>
#include <string>

#include "analysis/io/kineto_writer.h"
#include "analysis/io/load.h"
#include "analysis/io/nsys_writer.h"
#include "analysis/io/parallel.h"
#include "analysis/io/synthetic.h"
#include "analysis/pipeline.h"
#include "analysis/report/summary_json.h"
#include "analysis/timeline/summary.h"
#include "analysis/trace/errors.h"
#include "tests/support/test_env.h"

using namespace sl;

namespace {

class ThreadsEnv {
public:
    explicit ThreadsEnv(const std::string& n) { ::setenv("SIGHTLINE_LOAD_THREADS", n.c_str(), 1); }
    ~ThreadsEnv() { ::unsetenv("SIGHTLINE_LOAD_THREADS"); }
};

struct Loaded {
    std::shared_ptr<const Trace> trace;
    std::string summary_json, analysis_json;
};

Loaded load_with(const std::string& path, const std::string& threads)
{
    ThreadsEnv env(threads);
    PipelineOptions options;
    const PipelineResult r = run_pipeline({path}, options);
    Loaded out;
    out.trace = r.trace;
    const auto dump = [](const nlohmann::json& j) { return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace); };
    out.summary_json = dump(summary_to_json(*r.trace, summarize(*r.trace)));
    out.analysis_json = dump(pipeline_to_json(r));
    return out;
}

#define SAME_COLUMN(table, column) EXPECT_TRUE(a.table.column == b.table.column) << #table "." #column

void expect_same_trace(const Trace& a, const Trace& b)
{
    ASSERT_EQ(a.strings.size(), b.strings.size());
    for (StrId i = 0; i < a.strings.size(); ++i)
        ASSERT_EQ(a.strings.view(i), b.strings.view(i)) << "string id " << i;
    SAME_COLUMN(kernels, start); SAME_COLUMN(kernels, end); SAME_COLUMN(kernels, name);
    SAME_COLUMN(kernels, short_name); SAME_COLUMN(kernels, correlation); SAME_COLUMN(kernels, launch_api);
    SAME_COLUMN(kernels, device); SAME_COLUMN(kernels, process); SAME_COLUMN(kernels, stream);
    SAME_COLUMN(kernels, shape); SAME_COLUMN(kernels, shapes); SAME_COLUMN(kernels, flags);
    SAME_COLUMN(api, start); SAME_COLUMN(api, end); SAME_COLUMN(api, name); SAME_COLUMN(api, correlation);
    SAME_COLUMN(api, thread); SAME_COLUMN(api, api_class); SAME_COLUMN(api, flags);
    SAME_COLUMN(memcpy, start); SAME_COLUMN(memcpy, end); SAME_COLUMN(memcpy, bytes); SAME_COLUMN(memcpy, copy_kind);
    SAME_COLUMN(memcpy, src_kind); SAME_COLUMN(memcpy, dst_kind); SAME_COLUMN(memcpy, device);
    SAME_COLUMN(memcpy, process); SAME_COLUMN(memcpy, stream); SAME_COLUMN(memcpy, correlation);
    SAME_COLUMN(memcpy, launch_api);
    SAME_COLUMN(memset, start); SAME_COLUMN(memset, end); SAME_COLUMN(memset, bytes); SAME_COLUMN(memset, mem_kind);
    SAME_COLUMN(memset, device); SAME_COLUMN(memset, process); SAME_COLUMN(memset, launch_api);
    SAME_COLUMN(syncs, start); SAME_COLUMN(syncs, end); SAME_COLUMN(syncs, device); SAME_COLUMN(syncs, process);
    SAME_COLUMN(syncs, stream); SAME_COLUMN(syncs, sync_type); SAME_COLUMN(syncs, api);
    SAME_COLUMN(ranges, start); SAME_COLUMN(ranges, end); SAME_COLUMN(ranges, name); SAME_COLUMN(ranges, thread);
    SAME_COLUMN(ranges, kind); SAME_COLUMN(ranges, depth);
    SAME_COLUMN(marks, time); SAME_COLUMN(marks, name); SAME_COLUMN(marks, thread);
    SAME_COLUMN(gpu_ranges, start); SAME_COLUMN(gpu_ranges, name); SAME_COLUMN(op_args, name);
    SAME_COLUMN(op_args, start); SAME_COLUMN(op_args, correlation);
    SAME_COLUMN(op_args, source); SAME_COLUMN(op_args, pid); SAME_COLUMN(op_args, external_id);
    SAME_COLUMN(op_args, input_dims); SAME_COLUMN(op_args, collective); SAME_COLUMN(op_args, group_size);
    SAME_COLUMN(gpu_ranges, device); SAME_COLUMN(gpu_ranges, stream);
    // Bit for bit: unknown launch statistics are NaN, which == never matches.
    const auto same_bits = [](const std::vector<float>& x, const std::vector<float>& y) {
        return x.size() == y.size() && (x.empty() || std::memcmp(x.data(), y.data(), x.size() * sizeof(float)) == 0);
    };
    EXPECT_TRUE(same_bits(a.kernels.blocks_per_sm, b.kernels.blocks_per_sm));
    EXPECT_TRUE(same_bits(a.kernels.warps_per_sm, b.kernels.warps_per_sm));
    EXPECT_TRUE(same_bits(a.kernels.est_occupancy_pct, b.kernels.est_occupancy_pct));
    EXPECT_EQ(a.memory_bytes(), b.memory_bytes()) << "column capacities differ";
    ASSERT_EQ(a.meta.devices.size(), b.meta.devices.size());
    for (size_t i = 0; i < a.meta.devices.size(); ++i) {
        EXPECT_EQ(a.meta.devices[i].id, b.meta.devices[i].id);
        EXPECT_EQ(a.meta.devices[i].name, b.meta.devices[i].name);
    }
    ASSERT_EQ(a.meta.processes.size(), b.meta.processes.size());
    for (size_t i = 0; i < a.meta.processes.size(); ++i)
        EXPECT_EQ(a.meta.processes[i].pid, b.meta.processes[i].pid);
    ASSERT_EQ(a.meta.threads.size(), b.meta.threads.size());
    for (size_t i = 0; i < a.meta.threads.size(); ++i) {
        EXPECT_EQ(a.meta.threads[i].global_tid, b.meta.threads[i].global_tid);
        EXPECT_EQ(a.meta.threads[i].pid, b.meta.threads[i].pid);
        EXPECT_EQ(a.meta.threads[i].tid, b.meta.threads[i].tid);
        EXPECT_EQ(a.meta.threads[i].name, b.meta.threads[i].name);
    }
    for (size_t i = 0; i < a.meta.processes.size(); ++i)
        EXPECT_EQ(a.meta.processes[i].name, b.meta.processes[i].name);
    ASSERT_EQ(a.meta.streams.size(), b.meta.streams.size());
    for (size_t i = 0; i < a.meta.streams.size(); ++i) {
        EXPECT_EQ(a.meta.streams[i].device, b.meta.streams[i].device);
        EXPECT_EQ(a.meta.streams[i].stream, b.meta.streams[i].stream);
    }
    EXPECT_EQ(a.meta.warnings, b.meta.warnings);
    EXPECT_EQ(a.meta.capture_start, b.meta.capture_start);
    EXPECT_EQ(a.meta.capture_end, b.meta.capture_end);
    EXPECT_EQ(a.meta.capture_source, b.meta.capture_source);
    EXPECT_EQ(a.meta.dropped_events, b.meta.dropped_events);
}

void expect_deterministic(const std::string& path)
{
    SCOPED_TRACE(path);
    const Loaded one = load_with(path, "1");
    ASSERT_GT(one.trace->kernels.size() + one.trace->api.size() + one.trace->ranges.size(), 0u) << "an empty trace proves nothing";
    for (const char* threads : {"2", "7"}) {
        SCOPED_TRACE(std::string("threads ") + threads);
        const Loaded many = load_with(path, threads);
        EXPECT_TRUE(one.summary_json == many.summary_json) << "summary JSON differs";
        EXPECT_TRUE(one.analysis_json == many.analysis_json) << "analysis JSON differs";
        expect_same_trace(*one.trace, *many.trace);
    }
}

// Every table the nsys reader reads, with names shared between kernels and API calls and several devices,
// processes and threads, so that the order of first use matters.
SynthOptions rich_options(uint64_t seed)
{
    SynthOptions o = synth_preset("decode");
    o.seed = seed;
    o.decode_steps = 24;
    o.cuda_graphs = true;
    o.nccl = true;
    o.host_starved = true;
    o.sync_every_step = true;
    o.mixed_every = 5;
    return o;
}

std::string error_of(const std::string& path, const std::string& threads)
{
    ThreadsEnv env(threads);
    try {
        (void)load_trace(path);
    } catch (const TraceError& e) {
        return e.what();
    }
    return "(no error)";
}

} // namespace

TEST(ParallelDeterminism, BundledSampleRecipe)
{
    const std::string dir = test::scratch_dir("parallel_determinism_sample");
    const std::string path = dir + "/llm_decode_sample.sqlite";
    write_nsys_sqlite(make_synthetic_trace(synth_preset("decode")), path);   // what `generate --preset decode` writes
    expect_deterministic(path);
}

TEST(ParallelDeterminism, GeneratedNsysAndKineto)
{
    const std::string dir = test::scratch_dir("parallel_determinism_generated");
    for (uint64_t seed : {1u, 7u}) {
        const Trace t = make_synthetic_trace(rich_options(seed));
        ASSERT_GT(t.memcpy.size(), 0u);
        ASSERT_GT(t.syncs.size(), 0u);
        const std::string db = dir + "/rich" + std::to_string(seed) + ".sqlite";
        write_nsys_sqlite(t, db);
        expect_deterministic(db);
        const std::string json = dir + "/rich" + std::to_string(seed) + ".json";
        write_kineto_json(t, json);
        expect_deterministic(json);
    }
}

TEST(ParallelDeterminism, RealTraces)
{
    if (!test::shared_data_dir())
        GTEST_SKIP() << "SIGHTLINE_SHARED_DATA not available";
    const auto nsys = test::shared_files("nsys", {".sqlite"});
    const auto kineto = test::shared_files("kineto", {".json", ".json.gz"});
    ASSERT_FALSE(nsys.empty());
    for (const auto& f : nsys)
        expect_deterministic(f);
    for (const auto& f : kineto) {
        // A few real Kineto files carry no GPU or CPU events the reader keeps; those are checked by the other tests.
        ThreadsEnv env("1");
        Trace probe;
        try {
            probe = load_trace(f);
        } catch (const TraceError&) {
            continue;
        }
        if (probe.kernels.size() + probe.api.size() + probe.ranges.size() == 0)
            continue;
        expect_deterministic(f);
    }
}

// A corrupt export fails with the same message whatever the thread count: the first failure in table order, as the
// single-threaded read meets it, even when a later table is read (and fails) first on another thread.
TEST(ParallelDeterminism, SameErrorForCorruptExport)
{
    const std::string dir = test::scratch_dir("parallel_determinism_corrupt");
    const std::string good = dir + "/good.sqlite";
    SynthOptions o = rich_options(3);
    write_nsys_sqlite(make_synthetic_trace(o), good);
    const auto size = std::filesystem::file_size(good);
    int failing = 0;
    // Overwrite one page at a time in the second half of the file (activity tables) and compare the errors.
    for (int k = 1; k <= 6; ++k) {
        const std::string bad = dir + "/bad" + std::to_string(k) + ".sqlite";
        std::filesystem::copy_file(good, bad, std::filesystem::copy_options::overwrite_existing);
        {
            std::fstream f(bad, std::ios::in | std::ios::out | std::ios::binary);
            const auto at = static_cast<std::streamoff>((size / 2 + size * static_cast<uintmax_t>(k) / 14) & ~uintmax_t{4095});
            f.seekp(at);
            const std::string junk(4096, '\xA5');
            f.write(junk.data(), static_cast<std::streamsize>(junk.size()));
        }
        const std::string e1 = error_of(bad, "1");
        failing += e1 != "(no error)";
        EXPECT_EQ(e1, error_of(bad, "2")) << bad;
        EXPECT_EQ(e1, error_of(bad, "7")) << bad;
    }
    EXPECT_GT(failing, 0) << "no corruption was detected; the test proves nothing";
}

// Two tables broken at once (the kernels' and the API calls' root pages): the kernel table comes first in the
// sequential read, so its error is the one reported, even when the API calls (read on another thread) fail first.
TEST(ParallelDeterminism, FirstTableInOrderWinsWhenTwoAreCorrupt)
{
    const std::string dir = test::scratch_dir("parallel_determinism_two_corrupt");
    const std::string path = dir + "/two.sqlite";
    write_nsys_sqlite(make_synthetic_trace(rich_options(5)), path);
    const auto root = [&](const std::string& table) {
        return std::stoll(test::sqlite_rows(path, "SELECT rootpage FROM sqlite_master WHERE name='" + table + "'")[0][0]);
    };
    const long long page_size = std::stoll(test::sqlite_rows(path, "PRAGMA page_size")[0][0]);
    const long long kernel_root = root("CUPTI_ACTIVITY_KIND_KERNEL"), api_root = root("CUPTI_ACTIVITY_KIND_RUNTIME");
    {
        std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
        const std::string junk(static_cast<size_t>(page_size), '\xA5');
        for (long long page : {kernel_root, api_root}) {
            f.seekp(static_cast<std::streamoff>((page - 1) * page_size));
            f.write(junk.data(), static_cast<std::streamsize>(junk.size()));
        }
    }
    const std::string e1 = error_of(path, "1");
    EXPECT_NE(e1.find("CUPTI_ACTIVITY_KIND_KERNEL"), std::string::npos) << e1;
    for (int run = 0; run < 5; ++run) {
        EXPECT_EQ(e1, error_of(path, "2"));
        EXPECT_EQ(e1, error_of(path, "7"));
    }
}

// Kineto: events are found on one thread and parsed in batches on all of them, then handled in file order. A bad
// event must give the single-threaded error (its byte offset and event index), the first bad one winning even when a
// later one is parsed first on another thread, and an event error before a truncation must win over the truncation.
TEST(ParallelDeterminism, KinetoErrorsInFileOrder)
{
    const std::string dir = test::scratch_dir("parallel_determinism_kineto_errors");
    const std::string good = dir + "/good.json";
    write_kineto_json(make_synthetic_trace(rich_options(11)), good);
    std::vector<std::string> lines;
    {
        std::ifstream in(good);
        for (std::string l; std::getline(in, l);)
            lines.push_back(l);
    }
    std::vector<size_t> events;   // lines holding one complete event
    for (size_t i = 0; i < lines.size(); ++i)
        if (lines[i].rfind("  {\"ph\": \"X\"", 0) == 0 && lines[i].find("\"name\": \"") != std::string::npos)
            events.push_back(i);
    ASSERT_GT(events.size(), 3000u) << "too few events to span several parse chunks";
    const size_t l1 = events[events.size() / 3], l2 = events[events.size() * 2 / 3], l3 = events[events.size() * 5 / 6];
    auto bad_utf8 = [](std::string l) { return l.replace(l.find("\"name\": \"") + 9, 0, "\xff"); };
    auto no_colon = [](std::string l) { return l.replace(l.find("\"ph\":"), 5, "\"ph\""); };
    auto write = [&](const std::string& name, const std::map<size_t, std::string>& changed, size_t truncate_at) {
        const std::string path = dir + "/" + name + ".json";
        std::ofstream out(path, std::ios::binary);
        for (size_t i = 0; i < lines.size() && i < truncate_at; ++i)
            out << (changed.count(i) ? changed.at(i) : lines[i]) << '\n';
        return path;
    };
    const std::string utf8 = write("utf8", {{l1, bad_utf8(lines[l1])}}, SIZE_MAX);
    const std::string two = write("two", {{l1, bad_utf8(lines[l1])}, {l2, no_colon(lines[l2])}}, SIZE_MAX);
    const std::string colon_trunc = write("colon_trunc", {{l2, no_colon(lines[l2])}}, l3);
    const std::string trunc = write("trunc", {}, l3);
    const auto strip = [](const std::string& e, const std::string& path) {
        const size_t at = e.find(path);
        return at == std::string::npos ? e : e.substr(at + path.size());
    };
    for (const auto& path : {utf8, two, colon_trunc, trunc}) {
        SCOPED_TRACE(path);
        const std::string e1 = error_of(path, "1");
        EXPECT_NE(e1, "(no error)");
        for (int run = 0; run < 3; ++run) {
            EXPECT_EQ(e1, error_of(path, "2"));
            EXPECT_EQ(e1, error_of(path, "7"));
        }
    }
    EXPECT_EQ(strip(error_of(two, "2"), two), strip(error_of(utf8, "1"), utf8)) << "the first bad event wins";
    EXPECT_NE(error_of(colon_trunc, "2").find("a valid JSON event object"), std::string::npos)
        << "a bad event before the truncation wins over it";
    EXPECT_NE(error_of(trunc, "2").find("truncated"), std::string::npos);
}

// Kineto traces larger than the reader's 8 MB buffer: each fill is split among the threads at guessed event starts,
// the chunks' parts are merged in file order while the next fill is scanned, and an event cut by the end of a fill
// is read on its own. Kernel names ending in "},{" put a false event start ('}' ',' '{' '"') inside most names, so
// most guesses are wrong and must be caught; string pids/tids (numbered in the order of first use over the whole
// file) and a numeric pid in the range the reader uses for its local codes must come out as one pass numbers them.
// The counts are checked against the file's own lines, the rest against the single-threaded read.
TEST(ParallelDeterminism, KinetoLargerThanTheReadBuffer)
{
    const std::string dir = test::scratch_dir("parallel_determinism_kineto_large");
    SynthOptions o = synth_preset("scale");
    o.total_kernels = 30000;
    o.total_nvtx = 6000;
    o.nccl = true;
    const std::string plain = dir + "/plain.json";
    write_kineto_json(make_synthetic_trace(o), plain);
    std::vector<std::string> lines;
    {
        std::ifstream in(plain);
        for (std::string l; std::getline(in, l);)
            lines.push_back(l);
    }
    const std::string host = "\"pid\": 48213, \"tid\": 48213";
    size_t kernel_lines = 0, api_lines = 0, strings = 0;
    for (size_t i = 0; i < lines.size(); ++i) {
        std::string& l = lines[i];
        if (l.find("\"cat\": \"kernel\"") != std::string::npos) {
            ++kernel_lines;
            const size_t name = l.find("\"name\": \"");
            ASSERT_NE(name, std::string::npos);
            l.insert(l.find('"', name + 9), "},{");
        }
        if (l.find("\"cat\": \"cuda_runtime\"") != std::string::npos ||
            l.find("\"cat\": \"cuda_driver\"") != std::string::npos)
            ++api_lines;
        const size_t at = l.find(host);
        if (at != std::string::npos && i % 53 == 0) {
            static const char* const named[] = {"\"pid\": \"Spans\", \"tid\": \"worker 2\"",
                                                "\"pid\": 48213, \"tid\": \"stream 9\"",
                                                "\"pid\": \"Traces\", \"tid\": \"worker 1\"",
                                                "\"pid\": -9223372036854775807, \"tid\": 48213"};
            l.replace(at, host.size(), named[strings++ % 4]);
        }
    }
    ASSERT_GT(strings, 40u);
    const std::string path = dir + "/large.json";
    {
        std::ofstream out(path, std::ios::binary);
        for (const auto& l : lines)
            out << l << '\n';
    }
    ASSERT_GT(std::filesystem::file_size(path), 20u << 20) << "not larger than two buffer fills";
    expect_deterministic(path);

    // The same as .json.gz: inflated in blocks, ahead on a thread of its own when there are threads.
    const std::string gz = dir + "/large.json.gz";
    {
        gzFile g = gzopen(gz.c_str(), "wb1");
        ASSERT_NE(g, nullptr);
        for (const auto& l : lines) {
            ASSERT_EQ(gzwrite(g, l.data(), static_cast<unsigned>(l.size())), static_cast<int>(l.size()));
            ASSERT_EQ(gzputc(g, '\n'), '\n');
        }
        ASSERT_EQ(gzclose(g), Z_OK);
    }
    expect_deterministic(gz);
    expect_same_trace(*load_with(path, "1").trace, *load_with(gz, "2").trace);
    {
        // Cut in the middle of a deflate block: every thread count names the same place.
        const std::string cut = dir + "/cut.json.gz";
        std::filesystem::copy_file(gz, cut, std::filesystem::copy_options::overwrite_existing);
        std::filesystem::resize_file(cut, std::filesystem::file_size(gz) * 3 / 5);
        const std::string e1 = error_of(cut, "1");
        EXPECT_NE(e1.find("truncated"), std::string::npos) << e1;
        EXPECT_EQ(e1, error_of(cut, "2"));
        EXPECT_EQ(e1, error_of(cut, "7"));
    }

    const Loaded two = load_with(path, "2");
    EXPECT_EQ(two.trace->kernels.size(), kernel_lines);
    EXPECT_EQ(two.trace->api.size(), api_lines);
    size_t named_threads = 0;
    for (const auto& t : two.trace->meta.threads)
        named_threads += t.pid <= -1000000 && t.pid > -1000010 ? 1 : 0;
    EXPECT_EQ(named_threads, 2u) << "threads of \"Spans\" and \"Traces\"";

    // A bad event past the first fills names its index as the file's lines count it.
    size_t first_event = 0;
    while (first_event < lines.size() && lines[first_event].rfind("  {\"", 0) != 0)
        ++first_event;
    const size_t bad = lines.size() * 3 / 4;
    ASSERT_EQ(lines[bad].rfind("  {\"ph\": ", 0), 0u);
    lines[bad].replace(lines[bad].find("\"ph\":"), 5, "\"ph\"");
    const std::string broken = dir + "/broken.json";
    {
        std::ofstream out(broken, std::ios::binary);
        for (const auto& l : lines)
            out << l << '\n';
    }
    const std::string e1 = error_of(broken, "1");
    EXPECT_NE(e1.find("event " + std::to_string(bad - first_event)), std::string::npos) << e1;
    EXPECT_EQ(e1, error_of(broken, "2"));
    EXPECT_EQ(e1, error_of(broken, "7"));
}

// Without SIGHTLINE_LOAD_THREADS the readers use the CPUs the process may run on (taskset, a container's cpuset),
// not every online CPU; the variable still wins.
TEST(ParallelDeterminism, ThreadsFollowTheAffinityMask)
{
    cpu_set_t saved;
    CPU_ZERO(&saved);
    ASSERT_EQ(sched_getaffinity(0, sizeof saved, &saved), 0);
    const char* env = std::getenv("SIGHTLINE_LOAD_THREADS");
    const std::string saved_env = env ? env : "";
    unsetenv("SIGHTLINE_LOAD_THREADS");
    EXPECT_EQ(reader_threads(), std::clamp(unsigned(CPU_COUNT(&saved)), 1u, 64u));
    int first = 0;
    while (!CPU_ISSET(first, &saved))
        ++first;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(first, &one);
    ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);
    EXPECT_EQ(reader_threads(), 1u);
    setenv("SIGHTLINE_LOAD_THREADS", "3", 1);
    EXPECT_EQ(reader_threads(), 3u);
    ASSERT_EQ(sched_setaffinity(0, sizeof saved, &saved), 0);
    if (env)
        setenv("SIGHTLINE_LOAD_THREADS", saved_env.c_str(), 1);
    else
        unsetenv("SIGHTLINE_LOAD_THREADS");
}
