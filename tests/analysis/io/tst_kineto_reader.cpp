// Kineto reader on small hand-written traces: every expected value below is worked out by hand from the JSON text.

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <fstream>
#include <random>
#include <zlib.h>

#include "analysis/trace/errors.h"
#include "analysis/io/kineto_reader.h"
#include "analysis/io/kineto_writer.h"
#include "analysis/io/load.h"
#include "tests/support/test_env.h"

using namespace sl;

namespace {

// scratch_dir() empties the directory on every call: take it once per run.
const std::string& scratch()
{
    static const std::string dir = test::scratch_dir("kineto_reader");
    return dir;
}

std::string write_file(const std::string& name, const std::string& content)
{
    const std::string path = scratch() + "/" + name;
    std::ofstream out(path, std::ios::binary);
    out << content;
    return path;
}

std::string write_gz(const std::string& name, const std::string& content)
{
    const std::string path = scratch() + "/" + name;
    gzFile gz = gzopen(path.c_str(), "wb");
    gzwrite(gz, content.data(), static_cast<unsigned>(content.size()));
    gzclose(gz);
    return path;
}

std::string read_bytes(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

// Modern schema: fractional-ns timestamps relative to baseTimeNanoseconds (which comes last, as PyTorch writes it).
const char* kModern = R"J({
  "schemaVersion": 1,
  "deviceProperties": [
    {"id": 0, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85018279936, "computeMajor": 9, "computeMinor": 0,
     "maxThreadsPerBlock": 1024, "numSms": 132},
    {"id": 1, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85018279936, "computeMajor": 9, "computeMinor": 0,
     "numSms": 132}
  ],
  "distributedInfo": {"backend": "nccl", "rank": 2, "world_size": 4, "nccl_version": "2.21.5"},
  "cuda_runtime_version": 12040,
  "traceEvents": [
  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 100, "tid": 101, "ts": 999.5, "dur": 20.25, "args": {"External id": 1, "Input Dims": [[2, 3], [3, 4]]}},
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 100, "tid": 101, "ts": 999.0, "dur": 100, "args": {}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100, "tid": 101, "ts": 1000.001, "dur": 5.0005, "args": {"cbid": 211, "correlation": 7}},
  {"ph": "X", "cat": "cuda_driver", "name": "cuLaunchKernelEx", "pid": 100, "tid": 101, "ts": 1006.5, "dur": 3, "args": {"correlation": 8}},
  {"ph": "X", "cat": "kernel", "name": "gemm_kernel", "pid": 0, "tid": 7, "ts": 1010.0004, "dur": 2.0005,
   "args": {"queued": 0, "device": 0, "context": 1, "stream": 7, "correlation": 7, "registers per thread": 128,
            "shared memory": 49152, "blocks per SM": 2.0, "warps per SM": 16.0, "grid": [264, 2, 1], "block": [256, 1, 1],
            "est. achieved occupancy %": 25}},
  {"ph": "X", "cat": "kernel", "name": "triton_\u0041_\"q\"", "pid": 0, "tid": 7, "ts": 1008.25, "dur": 0.5,
   "args": {"device": 0, "stream": 7, "correlation": 8, "grid": [1, 1, 1], "block": [128, 1, 1], "graph id": 3}},
  {"ph": "s", "id": 7, "pid": 100, "tid": 101, "ts": 1000.001, "cat": "ac2g", "name": "ac2g"},
  {"ph": "f", "id": 7, "pid": 0, "tid": 7, "ts": 1010.0004, "cat": "ac2g", "name": "ac2g", "bp": "e"},
  {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pinned -> Device)", "pid": 0, "tid": 7, "ts": 1020, "dur": 1.5,
   "args": {"device": 0, "stream": 7, "correlation": 9, "bytes": 4096, "memory bandwidth (GB/s)": 2.7}},
  {"ph": "X", "cat": "gpu_memset", "name": "Memset (Device)", "pid": 0, "tid": 7, "ts": 1030, "dur": 0.25,
   "args": {"device": 0, "stream": 7, "correlation": 10, "bytes": 64}},
  {"ph": "X", "cat": "cuda_sync", "name": "Stream Sync", "pid": 0, "tid": 7, "ts": 1040, "dur": 3,
   "args": {"cuda_sync_kind": "Stream Sync", "stream": 7, "device": 0, "correlation": 11}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamSynchronize", "pid": 100, "tid": 101, "ts": 1039, "dur": 5, "args": {"correlation": 11}},
  {"ph": "X", "cat": "gpu_user_annotation", "name": "## forward ##", "pid": 0, "tid": 7, "ts": 1008, "dur": 5, "args": {}},
  {"ph": "X", "cat": "python_function", "name": "x.py(1): f", "pid": 100, "tid": 101, "ts": 999, "dur": 1, "args": {}},
  {"ph": "i", "s": "t", "cat": "cpu_instant_event", "name": "[memory]", "pid": 100, "tid": 101, "ts": 1001, "args": {"Bytes": 16}},
  {"name": "process_name", "ph": "M", "ts": 999, "pid": 100, "tid": 0, "args": {"name": "python3"}},
  {"name": "thread_name", "ph": "M", "ts": 999, "pid": 100, "tid": 101, "args": {"name": "thread 101 (python3)"}},
  {"name": "thread_name", "ph": "M", "ts": 999, "pid": 0, "tid": 7, "args": {"name": "stream 7 "}},
  {"ph": "X", "cat": "Trace", "ts": 990, "dur": 100, "pid": "Spans", "tid": "PyTorch Profiler", "name": "PyTorch Profiler (0)", "args": {"Op count": 0}},
  {"name": "Record Window End", "ph": "i", "s": "g", "pid": "", "tid": "", "ts": 1095.5}
  ],
  "traceName": "/tmp/x.json",
  "displayTimeUnit": "ms",
  "baseTimeNanoseconds": 1751410836000000000
})J";

// PyTorch 1.9 / tb_plugin schema: Operator/Runtime/Kernel/Memcpy/Memset, string tids ("stream 7", "25738"),
// integer absolute µs, "async"/"launch" flows, lowercase "external id". The second kernel has no correlation arg and
// is linked only by its flow; no schemaVersion, distributedInfo or deviceProperties.
const char* kLegacy = R"J({
  "traceEvents": [
  {"ph": "X", "cat": "Operator", "name": "aten::conv2d", "pid": 25738, "tid": "25738", "ts": 1623142623531000, "dur": 700, "args": {"Device": 25738, "External id": 544}},
  {"ph": "X", "cat": "Runtime", "name": "cudaLaunchKernel", "pid": 25738, "tid": "25738", "ts": 1623142623531100, "dur": 9, "args": {"cbid": 211, "correlation": 34441, "external id": 544}},
  {"ph": "X", "cat": "Runtime", "name": "cudaLaunchKernel", "pid": 25738, "tid": "25738", "ts": 1623142623531120, "dur": 8, "args": {"cbid": 211, "correlation": 34442, "external id": 544}},
  {"ph": "X", "cat": "Kernel", "name": "cask_cudnn::computeOffsetsKernel", "pid": 0, "tid": "stream 7", "ts": 1623142623531625, "dur": 2, "args": {"queued": 0, "device": 0, "context": 1, "stream": 7, "correlation": 34441, "external id": 544, "registers per thread": 38, "shared memory": 0, "blocks per SM": 0.625, "warps per SM": 5.0, "grid": [50, 1, 1], "block": [256, 1, 1], "est. achieved occupancy %": 8}},
  {"ph": "X", "cat": "Kernel", "name": "volta_scudnn_128x64_relu_medium_nn_v1", "pid": 0, "tid": "stream 7", "ts": 1623142623531639, "dur": 605, "args": {"grid": [3136, 1, 1], "block": [128, 1, 1]}},
  {"ph": "s", "id": 34442, "pid": 25738, "tid": 25738, "ts": 1623142623531120, "cat": "async", "name": "launch"},
  {"ph": "f", "id": 34442, "pid": 0, "tid": "stream 7", "ts": 1623142623531639, "cat": "async", "name": "launch", "bp": "e"},
  {"ph": "X", "cat": "Memcpy", "name": "Memcpy DtoH (Device -> Pageable)", "pid": 0, "tid": "stream 7", "ts": 1623142623532300, "dur": 40, "args": {"device": 0, "context": 1, "stream": 7, "correlation": 34450, "bytes": 1024}},
  {"ph": "X", "cat": "Memset", "name": "Memset (Device)", "pid": 0, "tid": "stream 7", "ts": 1623142623532400, "dur": 1, "args": {"device": 0, "stream": 7, "correlation": 34451, "bytes": 128000}},
  {"name": "thread_name", "ph": "M", "ts": 1623142623460016, "pid": 25738, "tid": "25738", "args": {"name": "thread 25738 (python)"}},
  {"name": "process_name", "ph": "M", "ts": 1623142623460016, "pid": 25738, "tid": 0, "args": {"name": "python"}}
  ]
})J";

Trace read_string(const std::string& name, const std::string& json)
{
    return read_kineto_json(write_file(name, json));
}

} // namespace

TEST(KinetoReader, ModernSchemaMapsEveryCategory)
{
    const std::string path = write_file("modern.json", kModern);
    ASSERT_EQ(sniff_file(path), InputFormat::KinetoJson);
    const Trace t = load_trace(path);

    EXPECT_EQ(t.meta.format, "kineto-json");
    EXPECT_EQ(t.meta.source_path, path);
    EXPECT_EQ(t.meta.schema_version, "1");
    EXPECT_EQ(t.meta.utc_epoch_ns, 1751410836000000000LL);
    EXPECT_EQ(t.meta.world_size, 4);
    EXPECT_EQ(t.meta.environment.at("cuda_runtime_version"), "12040");
    EXPECT_EQ(t.meta.environment.at("distributed.rank"), "2");
    EXPECT_EQ(t.meta.environment.at("distributed.nccl_version"), "2.21.5");
    // Capture window from the "Trace" span: 990 us .. 1090 us.
    EXPECT_EQ(t.meta.capture_start, 990000);
    EXPECT_EQ(t.meta.capture_end, 1090000);

    // Only device 0 has activity; its properties come from deviceProperties, its rank from distributedInfo.
    ASSERT_EQ(t.meta.devices.size(), 1u);
    const auto& d = t.meta.devices[0];
    EXPECT_EQ(d.id, 0);
    EXPECT_EQ(d.name, "NVIDIA H100 80GB HBM3");
    EXPECT_EQ(d.sm_count, 132);
    EXPECT_EQ(d.total_memory_bytes, 85018279936LL);
    EXPECT_EQ(d.compute_major, 9);
    EXPECT_EQ(d.compute_minor, 0);
    EXPECT_EQ(d.rank, 2);
    ASSERT_EQ(t.meta.streams.size(), 1u);
    EXPECT_EQ(t.meta.streams[0].stream, 7u);

    ASSERT_EQ(t.meta.processes.size(), 1u);
    EXPECT_EQ(t.meta.processes[0].pid, 100);
    EXPECT_EQ(t.meta.processes[0].name, "python3");
    EXPECT_EQ(t.meta.processes[0].rank, 2);
    ASSERT_EQ(t.meta.threads.size(), 1u);   // GPU stream rows are not host threads
    EXPECT_EQ(t.meta.threads[0].tid, 101);
    EXPECT_EQ(t.meta.threads[0].name, "thread 101 (python3)");
    EXPECT_EQ(t.meta.threads[0].rank, 2);

    // API calls, sorted by start. 1000.001 us -> 1000001 ns; 5.0005 us rounds half away -> 5001 ns.
    ASSERT_EQ(t.api.size(), 3u);
    EXPECT_EQ(t.str(t.api.name[0]), "cudaLaunchKernel");
    EXPECT_EQ(t.api.start[0], 1000001);
    EXPECT_EQ(t.api.end[0], 1005002);
    EXPECT_EQ(t.api.api_class[0], ApiClass::Runtime);
    EXPECT_TRUE(t.api.flags[0] & kApiLaunch);
    EXPECT_EQ(t.str(t.api.name[1]), "cuLaunchKernelEx");
    EXPECT_EQ(t.api.api_class[1], ApiClass::Driver);
    EXPECT_TRUE(t.api.flags[1] & kApiLaunch);
    EXPECT_EQ(t.api.correlation[1], 8u);
    EXPECT_EQ(t.str(t.api.name[2]), "cudaStreamSynchronize");
    EXPECT_TRUE(t.api.flags[2] & kApiSync);

    // Kernels sorted by start: the Triton kernel (1008.25 us) precedes the GEMM (1010.0004 us -> 1010000 ns).
    ASSERT_EQ(t.kernels.size(), 2u);
    EXPECT_EQ(t.str(t.kernels.name[0]), "triton_A_\"q\"");
    EXPECT_EQ(t.kernels.start[0], 1008250);
    EXPECT_EQ(t.kernels.end[0], 1008750);
    EXPECT_EQ(t.kernels.launch_api[0], 1);
    EXPECT_TRUE(t.kernels.flags[0] & KernelTable::kGraphNode);
    EXPECT_EQ(t.str(t.kernels.name[1]), "gemm_kernel");
    EXPECT_EQ(t.kernels.start[1], 1010000);
    EXPECT_EQ(t.kernels.end[1], 1012001);   // 2.0005 us -> 2001 ns
    EXPECT_EQ(t.kernels.correlation[1], 7u);
    EXPECT_EQ(t.kernels.launch_api[1], 0);
    EXPECT_EQ(t.kernels.stream[1], 7u);
    EXPECT_EQ(t.kernels.device[1], 0u);
    EXPECT_EQ(t.kernels.launch_shape(1).grid_x, 264u);
    EXPECT_EQ(t.kernels.launch_shape(1).grid_y, 2u);
    EXPECT_EQ(t.kernels.launch_shape(1).grid_z, 1u);
    EXPECT_EQ(t.kernels.launch_shape(1).block_x, 256u);
    EXPECT_EQ(t.kernels.launch_shape(1).registers_per_thread, 128u);
    EXPECT_EQ(t.kernels.launch_shape(1).shared_memory, 49152u);
    ASSERT_EQ(t.kernels.blocks_per_sm.size(), 2u);
    EXPECT_FLOAT_EQ(t.kernels.blocks_per_sm[1], 2.0f);
    EXPECT_FLOAT_EQ(t.kernels.warps_per_sm[1], 16.0f);
    EXPECT_FLOAT_EQ(t.kernels.est_occupancy_pct[1], 25.0f);
    EXPECT_TRUE(std::isnan(t.kernels.est_occupancy_pct[0]));   // not given
    EXPECT_EQ(t.kernels.process[1], 0u);

    ASSERT_EQ(t.memcpy.size(), 1u);
    EXPECT_EQ(t.memcpy.copy_kind[0], CopyKind::HtoD);
    EXPECT_EQ(t.memcpy.src_kind[0], MemKind::Pinned);
    EXPECT_EQ(t.memcpy.dst_kind[0], MemKind::Device);
    EXPECT_EQ(t.memcpy.bytes[0], 4096u);
    EXPECT_EQ(t.memcpy.start[0], 1020000);
    EXPECT_EQ(t.memcpy.end[0], 1021500);
    EXPECT_EQ(t.memcpy.launch_api[0], kNoIndex);   // correlation 9 has no API row

    ASSERT_EQ(t.memset.size(), 1u);
    EXPECT_EQ(t.memset.bytes[0], 64u);
    EXPECT_EQ(t.memset.mem_kind[0], MemKind::Device);
    EXPECT_EQ(t.memset.end[0] - t.memset.start[0], 250);

    ASSERT_EQ(t.syncs.size(), 1u);
    EXPECT_EQ(t.syncs.sync_type[0], 3u);   // CUPTI STREAM_SYNCHRONIZE
    EXPECT_EQ(t.syncs.api[0], 2);
    EXPECT_EQ(t.syncs.stream[0], 7u);

    // cpu_op, user_annotation and python_function become ranges; the annotation encloses the op and the Python
    // frame (same start, shorter: inside it), and the frame is still open when the op starts.
    ASSERT_EQ(t.ranges.size(), 3u);
    for (size_t i = 0; i < t.ranges.size(); ++i) {
        if (t.ranges.kind[i] == RangeKind::CpuOp) {
            EXPECT_EQ(t.str(t.ranges.name[i]), "aten::mm");
            EXPECT_EQ(t.ranges.start[i], 999500);
            EXPECT_EQ(t.ranges.end[i], 1019750);
            EXPECT_EQ(t.ranges.depth[i], 2u);
        } else if (t.ranges.kind[i] == RangeKind::PythonFunction) {
            EXPECT_EQ(t.str(t.ranges.name[i]), "x.py(1): f");
            EXPECT_EQ(t.ranges.start[i], 999000);
            EXPECT_EQ(t.ranges.end[i], 1000000);
            EXPECT_EQ(t.ranges.depth[i], 1u);
        } else {
            EXPECT_EQ(t.ranges.kind[i], RangeKind::UserAnnotation);
            EXPECT_EQ(t.str(t.ranges.name[i]), "ProfilerStep#1");
            EXPECT_EQ(t.ranges.depth[i], 0u);
        }
    }
    ASSERT_EQ(t.gpu_ranges.size(), 1u);
    EXPECT_EQ(t.str(t.gpu_ranges.name[0]), "## forward ##");
    EXPECT_EQ(t.gpu_ranges.start[0], 1008000);
    EXPECT_EQ(t.gpu_ranges.end[0], 1013000);
    EXPECT_EQ(t.gpu_ranges.stream[0], 7u);
}

TEST(KinetoReader, TimestampTextConvertsExactly)
{
    // Values a double would get wrong: 0.1 + 0.2 style fractions, 4th-digit rounding, big absolute µs.
    const std::string json = R"({"traceEvents": [
      {"ph": "X", "cat": "kernel", "name": "a", "pid": 0, "tid": 7, "ts": 1661203463029566.123, "dur": 0.0005, "args": {"device": 0, "stream": 7}},
      {"ph": "X", "cat": "kernel", "name": "b", "pid": 0, "tid": 7, "ts": 1661203463029567, "dur": 0.0004, "args": {"device": 0, "stream": 7}},
      {"ph": "X", "cat": "kernel", "name": "c", "pid": 0, "tid": 7, "ts": 4458676962674.6239, "dur": 1.9999999, "args": {"device": 0, "stream": 7}},
      {"ph": "X", "cat": "kernel", "name": "d", "pid": 0, "tid": 7, "ts": -1.5, "dur": 1e0, "args": {"device": 0, "stream": 7}}
    ]})";
    const Trace t = read_string("ts.json", json);
    ASSERT_EQ(t.kernels.size(), 4u);
    EXPECT_EQ(t.str(t.kernels.name[0]), "d");
    EXPECT_EQ(t.kernels.start[0], -1500);
    EXPECT_EQ(t.kernels.end[0], -500);
    EXPECT_EQ(t.str(t.kernels.name[2]), "a");
    EXPECT_EQ(t.kernels.start[2], 1661203463029566123LL);
    EXPECT_EQ(t.kernels.end[2] - t.kernels.start[2], 1);   // 0.0005 us rounds half away from zero
    EXPECT_EQ(t.kernels.start[3], 1661203463029567000LL);
    EXPECT_EQ(t.kernels.end[3] - t.kernels.start[3], 0);   // 0.0004 us rounds down, never negative
    EXPECT_EQ(t.kernels.start[1], 4458676962674624LL);
    EXPECT_EQ(t.kernels.end[1] - t.kernels.start[1], 2000);
}

TEST(KinetoReader, LegacySchemaAndFlowOnlyLinks)
{
    const Trace t = read_string("legacy.json", kLegacy);
    EXPECT_EQ(t.meta.format, "kineto-json");
    EXPECT_EQ(t.meta.utc_epoch_ns, 0);
    ASSERT_EQ(t.kernels.size(), 2u);
    EXPECT_EQ(t.kernels.start[0], 1623142623531625000LL);
    EXPECT_EQ(t.kernels.end[0], 1623142623531627000LL);
    EXPECT_EQ(t.kernels.stream[0], 7u);
    EXPECT_EQ(t.kernels.launch_shape(0).registers_per_thread, 38u);
    EXPECT_FLOAT_EQ(t.kernels.blocks_per_sm[0], 0.625f);
    ASSERT_EQ(t.api.size(), 2u);
    EXPECT_EQ(t.kernels.launch_api[0], 0);
    // The second kernel has no correlation arg: its async/launch flow links it to the second launch.
    EXPECT_EQ(t.kernels.correlation[1], 34442u);
    EXPECT_EQ(t.kernels.launch_api[1], 1);
    EXPECT_EQ(t.kernels.launch_shape(1).grid_x, 3136u);
    ASSERT_EQ(t.memcpy.size(), 1u);
    EXPECT_EQ(t.memcpy.copy_kind[0], CopyKind::DtoH);
    EXPECT_EQ(t.memcpy.src_kind[0], MemKind::Device);
    EXPECT_EQ(t.memcpy.dst_kind[0], MemKind::Pageable);
    ASSERT_EQ(t.memset.size(), 1u);
    EXPECT_EQ(t.memset.bytes[0], 128000u);
    ASSERT_EQ(t.ranges.size(), 1u);
    EXPECT_EQ(t.ranges.kind[0], RangeKind::CpuOp);
    // String tid "25738" is the same thread as the number 25738.
    ASSERT_EQ(t.meta.threads.size(), 1u);
    EXPECT_EQ(t.meta.threads[0].tid, 25738);
    EXPECT_EQ(t.meta.threads[0].name, "thread 25738 (python)");
    ASSERT_EQ(t.meta.processes.size(), 1u);
    EXPECT_EQ(t.meta.processes[0].name, "python");
    ASSERT_EQ(t.meta.devices.size(), 1u);
    EXPECT_EQ(t.meta.devices[0].name, "");   // no deviceProperties
    EXPECT_EQ(t.meta.world_size, 1);
}

TEST(KinetoReader, ArrayFormatAndGzipGiveTheSameTrace)
{
    // The Chrome "JSON array format": just the events.
    const std::string arr = R"([
      {"ph": "X", "cat": "cuda_runtime", "name": "hipLaunchKernel", "pid": 5, "tid": 5, "ts": 10, "dur": 2, "args": {"correlation": 1, "stream": "0x0"}},
      {"ph": "X", "cat": "kernel", "name": "Cijk_Alik_Bljk", "pid": 2, "tid": 0, "ts": 13.5, "dur": 4, "args": {"device": 2, "stream": 0, "correlation": 1, "kind": "Dispatch Kernel", "grid": [64, 1, 1], "block": [256, 1, 1]}}
    ])";
    const Trace a = read_string("array.json", arr);
    const Trace b = read_kineto_json(write_gz("array.json.gz", arr));
    for (const Trace* t : {&a, &b}) {
        ASSERT_EQ(t->kernels.size(), 1u);
        EXPECT_EQ(t->kernels.start[0], 13500);
        EXPECT_EQ(t->kernels.end[0], 17500);
        EXPECT_EQ(t->meta.devices.at(t->kernels.device[0]).id, 2);
        EXPECT_EQ(t->kernels.launch_api[0], 0);
        ASSERT_EQ(t->api.size(), 1u);
        EXPECT_TRUE(t->api.flags[0] & kApiLaunch);   // ROCm launch name
    }
}

TEST(KinetoReader, EventsSplitAcrossBufferRefillsAndConcatenatedGzipMembers)
{
    // ~20 MB of events (more than one 8 MB read), with escapes and long names straddling the refill boundaries,
    // written as two gzip members back to back.
    std::string head = R"({"schemaVersion": 1, "traceEvents": [)";
    std::string body;
    const int n = 60000;
    const std::string pad(200, 'x');
    for (int i = 0; i < n; ++i) {
        if (i)
            body += ",\n";
        body += R"({"ph": "X", "cat": "kernel", "name": "k\\\"\u00e9)" + pad + std::to_string(i % 7) +
                R"(", "pid": 0, "tid": 7, "ts": )" + std::to_string(i) + R"(.5, "dur": 0.25, "args": {"device": 0, "stream": 7, "correlation": )" +
                std::to_string(i + 1) + R"(, "grid": [1, 1, 1], "block": [32, 1, 1]}})";
    }
    const std::string json = head + body + "]}";
    const std::string plain = write_file("big.json", json);
    const std::string gz_path = scratch() + "/big.json.gz";
    {
        gzFile gz = gzopen(gz_path.c_str(), "wb");
        gzwrite(gz, json.data(), static_cast<unsigned>(json.size() / 2));
        gzclose(gz);
        gz = gzopen(gz_path.c_str(), "ab");
        gzwrite(gz, json.data() + json.size() / 2, static_cast<unsigned>(json.size() - json.size() / 2));
        gzclose(gz);
    }
    std::vector<double> fractions;
    LoadControl control;
    control.progress = [&](double f, std::string_view) { fractions.push_back(f); };
    for (const std::string& p : {plain, gz_path}) {
        fractions.clear();
        const Trace t = read_kineto_json(p, control);
        ASSERT_EQ(t.kernels.size(), static_cast<size_t>(n)) << p;
        EXPECT_EQ(t.strings.size(), 1u + 7u);   // "" + 7 distinct names
        EXPECT_EQ(t.str(t.kernels.name[3]), "k\\\"\xC3\xA9" + pad + "3");
        int64_t sum = 0;
        for (size_t i = 0; i < t.kernels.size(); ++i)
            sum += t.kernels.end[i] - t.kernels.start[i];
        EXPECT_EQ(sum, int64_t{n} * 250);
        EXPECT_EQ(t.kernels.start.back(), int64_t{n - 1} * 1000 + 500);
        EXPECT_FALSE(fractions.empty());
        EXPECT_TRUE(std::is_sorted(fractions.begin(), fractions.end()));
    }
}

TEST(KinetoReader, CancelIsHonouredInsideTheEventLoop)
{
    std::string json = R"({"traceEvents": [)";
    for (int i = 0; i < 70000; ++i)
        json += std::string(i ? "," : "") + R"({"ph": "X", "cat": "cpu_op", "name": "op", "pid": 1, "tid": 1, "ts": 1, "dur": 1})";
    json += "]}";
    const std::string path = write_file("cancel.json", json);
    std::atomic<bool> cancel{true};
    LoadControl control;
    control.cancel = &cancel;
    EXPECT_THROW(read_kineto_json(path, control), Cancelled);
    cancel = false;
    EXPECT_EQ(read_kineto_json(path, control).ranges.size(), 70000u);
}

TEST(KinetoReader, WriterRoundTripKeepsEveryColumn)
{
    const Trace a = read_string("rt_src.json", kModern);
    KinetoWriteOptions opt;
    const std::string path = scratch() + "/rt.json.gz";
    opt.gzip = true;
    write_kineto_json(a, path, opt);
    const Trace b = read_kineto_json(path);
    ASSERT_EQ(b.kernels.size(), a.kernels.size());
    EXPECT_EQ(b.kernels.start, a.kernels.start);
    EXPECT_EQ(b.kernels.end, a.kernels.end);
    EXPECT_EQ(b.kernels.launch_api, a.kernels.launch_api);
    for (size_t i = 0; i < a.kernels.size(); ++i)   // grid, block, registers, shared memory
        ASSERT_TRUE(b.kernels.launch_shape(i) == a.kernels.launch_shape(i)) << "kernel " << i;
    EXPECT_EQ(b.kernels.flags, a.kernels.flags);
    for (size_t i = 0; i < a.kernels.size(); ++i)
        EXPECT_EQ(b.str(b.kernels.name[i]), a.str(a.kernels.name[i]));
    EXPECT_EQ(b.api.start, a.api.start);
    EXPECT_EQ(b.api.end, a.api.end);
    EXPECT_EQ(b.api.api_class, a.api.api_class);
    EXPECT_EQ(b.memcpy.bytes, a.memcpy.bytes);
    EXPECT_EQ(b.memcpy.copy_kind, a.memcpy.copy_kind);
    EXPECT_EQ(b.memcpy.src_kind, a.memcpy.src_kind);
    EXPECT_EQ(b.memset.start, a.memset.start);
    EXPECT_EQ(b.syncs.sync_type, a.syncs.sync_type);
    EXPECT_EQ(b.syncs.api, a.syncs.api);
    EXPECT_EQ(b.ranges.start.size(), a.ranges.start.size());
    EXPECT_EQ(b.gpu_ranges.start, a.gpu_ranges.start);
    EXPECT_EQ(b.meta.utc_epoch_ns, a.meta.utc_epoch_ns);
    EXPECT_EQ(b.meta.capture_start, a.meta.capture_start);
    EXPECT_EQ(b.meta.capture_end, a.meta.capture_end);
    EXPECT_EQ(b.meta.devices.at(0).name, a.meta.devices.at(0).name);
    EXPECT_EQ(b.meta.devices.at(0).rank, 2);
    EXPECT_EQ(b.meta.threads.at(0).name, a.meta.threads.at(0).name);
}

// The same events, each given an escaped string in a field Sightline does not read: the one pass leaves every one of
// them to simdjson. (Events are those starting a line with two blanks, as the test traces are written.)
namespace {

std::string everyEventTheSimdjsonWay(const std::string& json)
{
    std::string slow;
    for (size_t i = 0; i < json.size(); ++i) {
        if (json.compare(i, 4, "\n  {") == 0) {
            slow += "\n  {\"note\": \"\\u00e9\",";
            i += 3;
        } else {
            slow += json[i];
        }
    }
    return slow;
}

} // namespace

TEST(KinetoReader, OnePassAndSimdjsonReadEventsAlike)
{
    // Plain events are read in one pass; an event with anything the one pass leaves alone (here an escaped string in
    // a field Sightline does not read) goes through simdjson. Both ways must build the same trace: the same events,
    // every one sent the slow way, are written back out byte for byte the same.
    for (const char* src : {kModern, kLegacy}) {
        const std::string fast = src;
        const std::string slow = everyEventTheSimdjsonWay(fast);
        ASSERT_NE(slow, fast);
        KinetoWriteOptions opt;
        opt.gzip = false;
        write_kineto_json(read_string("alike_in.json", fast), scratch() + "/alike_fast_out.json", opt);
        write_kineto_json(read_string("alike_in.json", slow), scratch() + "/alike_slow_out.json", opt);
        EXPECT_EQ(read_bytes(scratch() + "/alike_fast_out.json"), read_bytes(scratch() + "/alike_slow_out.json"));
    }
}

TEST(KinetoReader, LongIntegersAreReadAsSimdjsonReadsThem)
{
    // Integers of 19 and 20 digits where integers are read (a real ROCm trace has 9223372036854775800): the one pass
    // leaves them to simdjson, without overflowing on the way (UBSan caught the first version in the fuzzer), and
    // the trace is the one the simdjson path builds from the same events. A correlation of 20 digits is beyond any
    // 64-bit integer: that event is skipped and counted, the same way on both paths.
    const std::string events = R"J({"traceEvents": [
  {"ph": "X", "cat": "kernel", "name": "k", "pid": 9223372036854775800, "tid": 7, "ts": 10, "dur": 5, "args": {"correlation": 49371111111111111111, "device": 0, "stream": 7, "grid": [12345678901234567890, 1, 1]}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 2, "ts": 8, "dur": 1, "args": {"correlation": 1234567890123456789, "External id": 999999999999999999}},
  {"ph": "X", "cat": "kernel", "name": "k2", "pid": 0, "tid": 7, "ts": 20, "dur": 5, "args": {"correlation": 1234567890123456789, "device": 0, "stream": 7}}
]})J";
    const std::string slow = everyEventTheSimdjsonWay(events);
    ASSERT_NE(slow, events);
    const Trace a = read_string("long.json", events), b = read_string("long.json", slow);
    ASSERT_EQ(a.kernels.size(), 1u);
    ASSERT_EQ(b.kernels.size(), 1u);
    for (const Trace* t : {&a, &b}) {
        bool counted = false;
        for (const auto& w : t->meta.warnings)
            counted |= w.find("1 event skipped for args.correlation that is not an integer in range") != std::string::npos;
        EXPECT_TRUE(counted);
    }
    KinetoWriteOptions opt;
    opt.gzip = false;
    write_kineto_json(a, scratch() + "/long_fast_out.json", opt);
    write_kineto_json(b, scratch() + "/long_slow_out.json", opt);
    EXPECT_EQ(read_bytes(scratch() + "/long_fast_out.json"), read_bytes(scratch() + "/long_slow_out.json"));
    EXPECT_EQ(a.kernels.launch_api, b.kernels.launch_api);
}

// ---- bad input: one clear TraceError each, naming the file and where ------------------------------------------------

namespace {

void expect_trace_error(const std::string& path, const std::string& needle)
{
    try {
        (void)load_trace(path);
        ADD_FAILURE() << "no error for " << path;
    } catch (const TraceError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find(path), std::string::npos) << what;
        EXPECT_NE(what.find(needle), std::string::npos) << "expected '" << needle << "' in: " << what;
    }
}

} // namespace

TEST(KinetoReaderBadInput, ZeroByteFile)
{
    const std::string p = write_file("empty.json", "");
    expect_trace_error(p, "empty");
    EXPECT_THROW(read_kineto_json(p), TraceError);
}

TEST(KinetoReaderBadInput, RandomBytes)
{
    std::mt19937 rng(42);
    std::string junk(1 << 16, '\0');
    for (auto& c : junk)
        c = static_cast<char>(rng());
    junk[0] = 'Z';
    const std::string p = write_file("random.bin", junk);
    expect_trace_error(p, "expected");
    EXPECT_THROW(read_kineto_json(p), TraceError);
    // Random bytes behind a gzip magic: corrupt compressed data.
    junk[0] = '\x1f';
    junk[1] = '\x8b';
    junk[2] = '\x08';
    const std::string g = write_file("random.gz", junk);
    expect_trace_error(g, "gzip");
}

TEST(KinetoReaderBadInput, TruncatedGzip)
{
    const std::string full = write_gz("trunc_src.json.gz", kModern);
    const std::string bytes = read_bytes(full);
    const std::string p = write_file("truncated.json.gz", bytes.substr(0, bytes.size() / 2));
    expect_trace_error(p, "truncated");
}

TEST(KinetoReaderBadInput, TruncatedJson)
{
    const std::string s = kModern;
    const std::string p = write_file("truncated.json", s.substr(0, s.find("gemm_kernel") + 5));
    expect_trace_error(p, "truncated JSON");
    const std::string q = write_file("truncated2.json", s.substr(0, s.find("\"traceName\"")));
    expect_trace_error(q, "truncated JSON");
}

TEST(KinetoReaderBadInput, InvalidUtf8InAName)
{
    std::string s = kModern;
    s.replace(s.find("gemm_kernel"), 4, "g\xC3\x28m");   // 0xC3 0x28: a broken two-byte sequence
    const std::string p = write_file("utf8.json", s);
    expect_trace_error(p, "UTF-8");
    expect_trace_error(p, "event 4");
}

TEST(KinetoReaderBadInput, JsonThatIsNotATrace)
{
    expect_trace_error(write_file("notrace.json", R"({"a": 1})"), "traceEvents");
    expect_trace_error(write_file("notrace2.json", R"({"traceEvents": 5})"), "array");
    expect_trace_error(write_file("notrace3.json", R"({"traceEvents": [1, 2]})"), "event object");
    expect_trace_error(write_file("notrace4.json", R"({"traceEvents": [{"ph": "X"},]})"), "event object after ','");
    expect_trace_error(write_file("notrace5.json", R"({"traceEvents": []} trailing)"), "end of the JSON document");
}

TEST(KinetoReaderBadInput, DeeplyNestedGarbage)
{
    const std::string deep(1000000, '[');
    expect_trace_error(write_file("deep1.json", deep), "event object");
    expect_trace_error(write_file("deep2.json", "{\"traceEvents\": [{\"args\": " + deep), "nested");
    expect_trace_error(write_file("deep3.json", "{\"meta\": " + deep), "nested");
}
