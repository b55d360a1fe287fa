// sightline-cli summary on Kineto JSON: the same JSON contract as for nsys, with trace.format = "kineto-json";
// several files (one per rank) as one workspace; bad input exits 2 with one clear message.

#include <gtest/gtest.h>

#include <fstream>
#include <zlib.h>

#include <nlohmann/json.hpp>

#include "tests/support/test_env.h"

using nlohmann::json;

namespace {

const std::string& scratch()
{
    static const std::string dir = sl::test::scratch_dir("cli_kineto");
    return dir;
}

std::string write_file(const std::string& name, const std::string& content)
{
    const std::string path = scratch() + "/" + name;
    std::ofstream(path, std::ios::binary) << content;
    return path;
}

std::string cli() { return SIGHTLINE_CLI; }

// Device 0: kernel A [10, 20] us on stream 7, kernel B [15, 30] on stream 8, a memcpy [40, 45], kernel C [50, 51].
// Busy = 20 + 5 + 1 = 26 us.
std::string rank_trace(int rank)
{
    return R"({"schemaVersion": 1, "distributedInfo": {"rank": )" + std::to_string(rank) +
           R"J(, "world_size": 2}, "deviceProperties": [{"id": 0, "name": "NVIDIA A100-SXM4-80GB", "numSms": 108}],
  "traceEvents": [
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 9, "tid": 9, "ts": 10, "dur": 1, "args": {"correlation": 1}},
  {"ph": "X", "cat": "kernel", "name": "A", "pid": 0, "tid": 7, "ts": 10, "dur": 10, "args": {"device": 0, "stream": 7, "correlation": 1}},
  {"ph": "X", "cat": "kernel", "name": "B", "pid": 0, "tid": 8, "ts": 15.000, "dur": 15.000, "args": {"device": 0, "stream": 8}},
  {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pinned -> Device)", "pid": 0, "tid": 7, "ts": 40, "dur": 5, "args": {"device": 0, "stream": 7, "bytes": 1024}},
  {"ph": "X", "cat": "kernel", "name": "C", "pid": 0, "tid": 7, "ts": 50, "dur": 1, "args": {"device": 0, "stream": 7}}
  ], "baseTimeNanoseconds": 1700000000000000000})J";
}

json summary_json(const std::string& args, int* rc = nullptr)
{
    std::string out;
    const int code = sl::test::run_command("'" + cli() + "' summary " + args + " --format json", &out);
    if (rc)
        *rc = code;
    EXPECT_EQ(code, 0) << out;
    return code == 0 ? json::parse(out) : json();
}

} // namespace

TEST(CliKineto, SummaryJsonContract)
{
    const std::string p = write_file("r0.json", rank_trace(0));
    const json j = summary_json("'" + p + "'");
    ASSERT_TRUE(j.is_object());
    EXPECT_EQ(j["trace"]["format"], "kineto-json");
    EXPECT_EQ(j["trace"]["source"], p);
    EXPECT_EQ(j["kernels"]["count"], 3);
    EXPECT_EQ(j["kernels"]["total_ns"], 26000);   // 10 + 15 + 1 us
    EXPECT_EQ(j["memops"]["count"], 1);
    ASSERT_EQ(j["devices"].size(), 1u);
    const json& d = j["devices"][0];
    EXPECT_EQ(d["name"], "NVIDIA A100-SXM4-80GB");
    EXPECT_EQ(d["busy_ns"], 26000);
    EXPECT_EQ(d["kernels"], 3);
    EXPECT_EQ(d["memcpys"], 1);
    EXPECT_EQ(d["busy_ns"].get<int64_t>() + d["idle_ns"].get<int64_t>(), d["window_ns"].get<int64_t>());
}

TEST(CliKineto, SeveralRanksAsOneWorkspace)
{
    const std::string a = write_file("m0.json", rank_trace(0)), b = write_file("m1.json", rank_trace(1));
    const json all = summary_json("'" + a + "' '" + b + "'");
    ASSERT_TRUE(all.is_object());
    EXPECT_EQ(all["trace"]["format"], "kineto-json");
    EXPECT_EQ(all["kernels"]["count"], 6);
    ASSERT_EQ(all["devices"].size(), 2u);
    EXPECT_EQ(all["devices"][0]["busy_ns"], 26000);
    EXPECT_EQ(all["devices"][1]["busy_ns"], 26000);
    const json one = summary_json("'" + a + "' '" + b + "' --rank 1");
    ASSERT_TRUE(one.is_object());
    ASSERT_EQ(one["devices"].size(), 1u);
    EXPECT_EQ(one["devices"][0]["rank"], 1);
    EXPECT_EQ(one["kernels"]["count"], 3);
}

TEST(CliKineto, BadInputExitsTwoWithOneMessage)
{
    const std::string ok = write_file("src.json", rank_trace(0));
    const std::string gz = scratch() + "/src.json.gz";
    {
        const std::string s = rank_trace(0);
        gzFile g = gzopen(gz.c_str(), "wb");
        gzwrite(g, s.data(), static_cast<unsigned>(s.size()));
        gzclose(g);
    }
    std::string bytes;
    {
        std::ifstream in(gz, std::ios::binary);
        bytes.assign(std::istreambuf_iterator<char>(in), {});
    }
    const std::string cases[][2] = {
        {write_file("trunc.json.gz", bytes.substr(0, bytes.size() / 2)), "truncated"},
        {write_file("trunc.json", rank_trace(0).substr(0, 300)), "truncated JSON"},
        {write_file("notrace.json", R"({"a": 1})"), "traceEvents"},
        {write_file("empty.json", ""), "empty"},
        {write_file("deep.json", "{\"traceEvents\": [{\"x\": " + std::string(1000000, '[')), "nested"},
    };
    for (const auto& c : cases) {
        std::string out;
        const int rc = sl::test::run_command("'" + cli() + "' summary '" + c[0] + "' --format json", &out, true);
        EXPECT_EQ(rc, 2) << c[0] << ": " << out;
        EXPECT_NE(out.find(c[1]), std::string::npos) << out;
        EXPECT_NE(out.find(c[0]), std::string::npos) << out;
    }
}

TEST(CliKineto, RealTracesSummarize)
{
    if (!sl::test::shared_data_dir())
        GTEST_SKIP() << "no shared data";
    const auto files = sl::test::shared_files("kineto", {".json.gz"});
    if (files.empty())
        GTEST_SKIP() << "no Kineto traces";
    for (const auto& f : files) {
        if (f.find("h100__") == std::string::npos && f.find("sampled_rank") == std::string::npos)
            continue;
        const json j = summary_json("'" + f + "'");
        ASSERT_TRUE(j.is_object()) << f;
        EXPECT_EQ(j["trace"]["format"], "kineto-json");
        EXPECT_GT(j["kernels"]["count"].get<int64_t>(), 1000);
    }
}
