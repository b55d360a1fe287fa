// merge_traces / load_traces: several per-rank files into one workspace Trace.

#include <gtest/gtest.h>

#include <fstream>
#include <map>

#include "analysis/trace/errors.h"
#include "analysis/io/kineto_reader.h"
#include "analysis/io/load.h"
#include "analysis/trace/merge.h"
#include "tests/support/test_env.h"

using namespace sl;

namespace {

// scratch_dir() empties the directory on every call: take it once per run.
const std::string& scratch()
{
    static const std::string dir = test::scratch_dir("merge");
    return dir;
}

std::string write_file(const std::string& name, const std::string& content)
{
    const std::string path = scratch() + "/" + name;
    std::ofstream(path, std::ios::binary) << content;
    return path;
}

// One rank: same pid, tid and correlation ids in both files (as on two hosts), different kernel names and base times.
std::string rank_json(int rank, const std::string& kernel, int64_t base_ns, const std::string& extra_meta = "")
{
    return R"({"schemaVersion": 1, "distributedInfo": {"rank": )" + std::to_string(rank) +
           R"(, "world_size": 2}, "deviceProperties": [{"id": 0, "name": "GPU)" + std::to_string(rank) +
           R"(", "numSms": 100}], )" + extra_meta + R"("traceEvents": [
      {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 7, "tid": 7, "ts": 10, "dur": 2, "args": {"correlation": 1}},
      {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel_)" + kernel + R"(", "pid": 7, "tid": 7, "ts": 20, "dur": 2, "args": {"correlation": 2}},
      {"ph": "X", "cat": "kernel", "name": ")" + kernel + R"(", "pid": 0, "tid": 7, "ts": 15, "dur": 3, "args": {"device": 0, "stream": 7, "correlation": 1}},
      {"ph": "X", "cat": "kernel", "name": "shared_kernel", "pid": 0, "tid": 7, "ts": 25, "dur": 1, "args": {"device": 0, "stream": 7, "correlation": 2}},
      {"ph": "X", "cat": "user_annotation", "name": "step", "pid": 7, "tid": 7, "ts": 5, "dur": 30, "args": {}},
      {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 7, "tid": 7, "ts": 9, "dur": 4, "args": {}},
      {"ph": "X", "cat": "Trace", "ts": 0, "dur": 40, "pid": "Spans", "tid": "PyTorch Profiler", "name": "PyTorch Profiler 0", "args": {}},
      {"name": "process_name", "ph": "M", "ts": 0, "pid": 7, "tid": 0, "args": {"name": "rank)" + std::to_string(rank) + R"("}}
    ], "baseTimeNanoseconds": )" + std::to_string(base_ns) + "}";
}

} // namespace

TEST(Merge, RanksKeepTheirRowsLinksAndClock)
{
    // File order is rank 1 then rank 0: ranks come from distributedInfo, not from the order.
    const std::string a = write_file("r1.json", rank_json(1, "gemm_r1", 1'000'000'500));
    const std::string b = write_file("r0.json", rank_json(0, "gemm_r0", 1'000'000'000));
    const Trace ta = read_kineto_json(a), tb = read_kineto_json(b);
    const Trace t = load_traces({a, b});

    EXPECT_EQ(t.meta.format, "kineto-json");
    EXPECT_EQ(t.meta.world_size, 2);
    EXPECT_EQ(t.meta.utc_epoch_ns, 1'000'000'000);   // the earliest base
    EXPECT_EQ(t.meta.source_path, a + ";" + b);
    ASSERT_EQ(t.meta.devices.size(), 2u);
    EXPECT_EQ(t.meta.devices[0].rank, 1);
    EXPECT_EQ(t.meta.devices[0].name, "GPU1");
    EXPECT_EQ(t.meta.devices[1].rank, 0);
    EXPECT_EQ(t.meta.devices[1].name, "GPU0");
    ASSERT_EQ(t.meta.processes.size(), 2u);
    EXPECT_EQ(t.meta.processes[0].rank, 1);
    EXPECT_EQ(t.meta.processes[0].name, "rank1");
    EXPECT_EQ(t.meta.processes[1].rank, 0);
    ASSERT_EQ(t.meta.threads.size(), 2u);
    EXPECT_EQ(t.meta.threads[0].rank, 1);
    EXPECT_EQ(t.meta.threads[1].rank, 0);
    ASSERT_EQ(t.meta.streams.size(), 2u);
    EXPECT_EQ(t.meta.streams[1].device, 1u);

    ASSERT_EQ(t.kernels.size(), 4u);
    ASSERT_EQ(t.api.size(), 4u);
    // Strings re-interned into one pool: "shared_kernel" has one id.
    EXPECT_EQ(t.kernels.name[1], t.kernels.name[3]);
    EXPECT_EQ(t.str(t.kernels.name[0]), "gemm_r1");
    EXPECT_EQ(t.str(t.kernels.name[2]), "gemm_r0");
    // Rank 1's times move by the 500 ns its base is later than rank 0's.
    EXPECT_EQ(t.kernels.start[0], ta.kernels.start[0] + 500);
    EXPECT_EQ(t.kernels.start[2], tb.kernels.start[0]);
    EXPECT_EQ(t.meta.capture_start, 0);
    EXPECT_EQ(t.meta.capture_end, 40'000 + 500);
    // Same pid and correlation ids in both files, yet every kernel stays linked to its own rank's call.
    for (size_t i = 0; i < t.kernels.size(); ++i) {
        const auto api = t.kernels.launch_api[i];
        ASSERT_NE(api, kNoIndex);
        const auto& th = t.meta.threads.at(t.api.thread.at(static_cast<size_t>(api)));
        EXPECT_EQ(th.rank, t.meta.devices.at(t.kernels.device[i]).rank);
        EXPECT_EQ(t.api.correlation.at(static_cast<size_t>(api)), t.kernels.correlation[i]);
        EXPECT_EQ(t.kernels.process[i], i < 2 ? 0u : 1u);
    }
    EXPECT_EQ(t.str(t.api.name[static_cast<size_t>(t.kernels.launch_api[2])]), "cudaLaunchKernel");
    EXPECT_EQ(t.str(t.api.name[static_cast<size_t>(t.kernels.launch_api[3])]), "cudaLaunchKernel_gemm_r0");
    // Range depths survive (computed per thread in each part).
    ASSERT_EQ(t.ranges.size(), 4u);
    std::map<std::string, int> depth;
    for (size_t i = 0; i < t.ranges.size(); ++i)
        depth[std::string(t.str(t.ranges.name[i]))] = t.ranges.depth[i];
    EXPECT_EQ(depth["step"], 0);
    EXPECT_EQ(depth["aten::add"], 1);
    EXPECT_EQ(t.kernels.blocks_per_sm.size(), 4u);
}

TEST(Merge, RanksDefaultToFileOrderAndDuplicatesWarn)
{
    const std::string no_rank = R"({"traceEvents": [
      {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1, "dur": 1, "args": {"device": 0, "stream": 7}}]})";
    const std::string a = write_file("n0.json", no_rank), b = write_file("n1.json", no_rank);
    const Trace t = load_traces({a, b});
    ASSERT_EQ(t.meta.devices.size(), 2u);
    EXPECT_EQ(t.meta.devices[0].rank, 0);
    EXPECT_EQ(t.meta.devices[1].rank, 1);
    EXPECT_EQ(t.meta.world_size, 2);
    EXPECT_EQ(t.kernels.name[0], t.kernels.name[1]);

    const std::string c = write_file("d0.json", rank_json(0, "x", 5)), d = write_file("d1.json", rank_json(0, "y", 5));
    const Trace u = load_traces({c, d});
    bool warned = false;
    for (const auto& w : u.meta.warnings)
        warned = warned || w.find("rank 0") != std::string::npos;
    EXPECT_TRUE(warned);
    EXPECT_THROW(merge_traces({}), TraceError);
}

TEST(Merge, RealMultiRankTraces)
{
    if (!test::shared_data_dir())
        GTEST_SKIP() << "no shared data";
    const std::string dir = *test::shared_data_dir() + "/kineto/hta/";
    const std::string r0 = dir + "trace_filter__sampled_rank-0.json.gz", r1 = dir + "trace_filter__sampled_rank-1.json.gz";
    if (sniff_file(r0) == InputFormat::Missing || sniff_file(r1) == InputFormat::Missing)
        GTEST_SKIP() << "sampled rank traces absent";
    const Trace a = load_trace(r0), b = load_trace(r1);
    const Trace t = load_traces({r1, r0});
    EXPECT_EQ(t.kernels.size(), a.kernels.size() + b.kernels.size());
    EXPECT_EQ(t.api.size(), a.api.size() + b.api.size());
    EXPECT_EQ(t.meta.world_size, 128);
    std::map<int32_t, size_t> per_rank, linked_per_rank;
    for (size_t i = 0; i < t.kernels.size(); ++i) {
        const int32_t rank = t.meta.devices.at(t.kernels.device[i]).rank;
        ++per_rank[rank];
        if (t.kernels.launch_api[i] != kNoIndex) {
            ++linked_per_rank[rank];
            EXPECT_EQ(t.meta.threads.at(t.api.thread.at(static_cast<size_t>(t.kernels.launch_api[i]))).rank, rank);
        }
    }
    EXPECT_EQ(per_rank[0], a.kernels.size());
    EXPECT_EQ(per_rank[1], b.kernels.size());
    size_t linked_a = 0, linked_b = 0;
    for (auto x : a.kernels.launch_api)
        linked_a += x != kNoIndex;
    for (auto x : b.kernels.launch_api)
        linked_b += x != kNoIndex;
    EXPECT_EQ(linked_per_rank[0], linked_a);
    EXPECT_EQ(linked_per_rank[1], linked_b);
    // Legacy absolute-µs files have no base time: no shift.
    EXPECT_EQ(t.kernels.start.front(), b.kernels.start.front());
}
