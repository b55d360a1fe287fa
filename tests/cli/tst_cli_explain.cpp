// Per-kernel verdicts from the CLI (issue 34): `analyze --format json` carries kernels[] (one per distinct kernel,
// name + launch shape), `explain TRACE --kernel NAME|ID` prints one, and both say what the workbench's Details says.
// On the project's own H100 samples (tests/data/device/README.md says what a human sees in each):
//   - decode-eager: batch-8 decode, shapes recorded, eager launches; the M = 8 nvjet decode GEMMs stream their
//     weights at just under 60 % of the memory roof (ncu: memory 55-58 %, latency-bound), the GQA repeat_kv copies
//     are PyTorch's strided elementwise loop (ncu: SM 73 %, compute-bound);
//   - decode-graph: the same step replayed from a CUDA graph: no replayed kernel is judged against its graph launch.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <string>

#include "tests/support/test_env.h"

using namespace sl;

namespace {
std::string cli() { return SIGHTLINE_CLI; }
std::string sample(const std::string& p) { return test::source_dir() + "/tests/data/device/" + p; }

int run(const std::string& args, std::string* out, bool merge = false)
{
    out->clear();
    return test::run_command(cli() + " " + args, out, merge);
}

const nlohmann::json& kernel_named(const nlohmann::json& kernels, const std::string& part)
{
    for (const auto& k : kernels)
        if (k["name"].get<std::string>().find(part) != std::string::npos)
            return k;
    static const nlohmann::json none;
    return none;
}
} // namespace

TEST(CliExplain, AnalyzeJsonHasAVerdictPerDistinctKernel)
{
    std::string out;
    ASSERT_EQ(run("analyze " + sample("decode-eager.pt.trace.json.gz") + " --format json", &out), 0) << out;
    const auto j = nlohmann::json::parse(out);
    ASSERT_TRUE(j.contains("kernels"));
    const auto& ks = j["kernels"];
    ASSERT_GT(ks.size(), 10u);
    EXPECT_EQ(j["kernels_total"].get<size_t>(), ks.size());
    int64_t prev = INT64_MAX, launches = 0;
    for (const auto& k : ks) {
        for (const char* key : {"name", "grid", "block", "launches", "total_ns", "kernel_id", "example_kernel_id",
                                "verdict", "source", "reason", "fraction", "side", "host", "text", "evidence",
                                "would_tell", "time_by_verdict_ns", "launches_by_host"})
            EXPECT_TRUE(k.contains(key)) << key;
        EXPECT_LE(k["total_ns"].get<int64_t>(), prev);   // largest time first
        prev = k["total_ns"].get<int64_t>();
        launches += k["launches"].get<int64_t>();
        EXPECT_TRUE(k["grid"].is_array()) << "a CUDA Kineto trace records its launch shapes";
        // No verdict without evidence: an efficiency only where something measured it.
        if (k["source"] == "trace") {
            EXPECT_TRUE(k["fraction"].is_null()) << k["text"];
        }
        EXPECT_NE(k["source"], "ncu");   // no ncu file given
    }
    EXPECT_EQ(launches, j["trace"]["kernels"].get<int64_t>());

    // The decode GEMMs: from their shapes, under 60 % of the memory roof: latency-bound, as ncu says.
    const auto& gemm = kernel_named(ks, "nvjet_sm90_tst_64x8_64x16_4x1_v_bz_TNT");
    ASSERT_FALSE(gemm.is_null());
    EXPECT_EQ(gemm["verdict"], "latency_bound") << gemm["text"];
    EXPECT_EQ(gemm["source"], "shapes");
    EXPECT_EQ(gemm["side"], "memory");
    EXPECT_LT(gemm["fraction"].get<double>(), 0.60);
    EXPECT_NE(gemm["text"].get<std::string>().find("of its memory roof, under 60 % (aten::mm"), std::string::npos)
        << gemm["text"];
    // The strided repeat_kv copy: issue-bound.
    bool strided = false;
    for (const auto& k : ks)
        if (k["reason"] == "strided_elementwise") {
            strided = true;
            EXPECT_EQ(k["verdict"], "compute_bound");
            EXPECT_NE(k["name"].get<std::string>().find("at::native::elementwise_kernel<"), std::string::npos);
            EXPECT_GE(k["evidence"]["waves"].get<double>(), 1.0);
        }
    EXPECT_TRUE(strided);
    // Eager decode at batch 8 is host-bound: many launches were waited for.
    int waited = 0;
    for (const auto& k : ks)
        for (const auto& [h, n] : k["launches_by_host"].items())
            if (h == "launch_bound" || h == "waited_for_launch")
                waited += n.get<int>();
    EXPECT_GT(waited, 100);
}

TEST(CliExplain, GraphReplayedKernelsAreNeverJudgedAgainstTheGraphLaunch)
{
    std::string out;
    ASSERT_EQ(run("analyze " + sample("decode-graph.pt.trace.json.gz") + " --format json", &out), 0) << out;
    const auto j = nlohmann::json::parse(out);
    int replayed = 0;
    for (const auto& k : j["kernels"]) {
        EXPECT_NE(k["host"], "launch_bound") << k["name"] << ": " << k["text"];
        EXPECT_EQ(k["text"].get<std::string>().find("cudaGraphLaunch"), std::string::npos);
        if (k["host"] == "graph_replay") {
            ++replayed;
            EXPECT_NE(k["text"].get<std::string>().find("of its graph replay"), std::string::npos);
            EXPECT_GT(k["evidence"]["graph_nodes"].get<int>(), 300);   // 384 kernels per replay
            // The sub-microsecond gaps between graph nodes are not news; a replayed kernel without shapes of its own
            // (no capture trace beside this one) asks for the trace of its graph's capture.
            EXPECT_EQ(k["text"].get<std::string>().find("idle 4"), std::string::npos) << k["text"];
            if (k["verdict"] == "unknown") {
                const auto& w = k["would_tell"];
                EXPECT_NE(std::find(w.begin(), w.end(), "capture_trace"), w.end()) << k["text"];
            }
        }
    }
    EXPECT_GT(replayed, 10);
}

TEST(CliExplain, ByNameAndById)
{
    std::string out;
    ASSERT_EQ(run("analyze " + sample("decode-eager.pt.trace.json.gz") + " --format json", &out), 0);
    const auto analysis = nlohmann::json::parse(out);
    const auto& first = analysis["kernels"][0];

    // By id: that launch, and its distinct kernel, with the same text as analyze's kernels[].
    const std::string id = std::to_string(first["example_kernel_id"].get<int64_t>());
    ASSERT_EQ(run("explain " + sample("decode-eager.pt.trace.json.gz") + " --kernel " + id + " --format json", &out), 0)
        << out;
    const auto j = nlohmann::json::parse(out);
    EXPECT_EQ(j["schema"], "sightline.explain/1");
    EXPECT_EQ(j["launch"]["kernel_id"].get<int64_t>(), first["example_kernel_id"].get<int64_t>());
    EXPECT_EQ(j["launch"]["text"], first["text"]);
    ASSERT_EQ(j["kernels"].size(), 1u);
    EXPECT_EQ(j["kernels"][0]["text"], first["text"]);

    // By name: every distinct kernel containing it; text output names the verdict.
    ASSERT_EQ(run("explain " + sample("decode-eager.pt.trace.json.gz") + " --kernel nvjet_sm90", &out), 0) << out;
    EXPECT_NE(out.find("verdict:  Latency-bound"), std::string::npos) << out;
    EXPECT_NE(out.find("launch:   grid "), std::string::npos) << out;

    // Unknown kernels are a clear error naming the file; a missing --kernel is a usage error.
    ASSERT_EQ(run("explain " + sample("decode-eager.pt.trace.json.gz") + " --kernel no_such_kernel_xyz", &out, true), 2);
    EXPECT_NE(out.find("decode-eager.pt.trace.json.gz"), std::string::npos) << out;
    EXPECT_NE(out.find("no kernel whose name contains 'no_such_kernel_xyz'"), std::string::npos) << out;
    ASSERT_EQ(run("explain " + sample("decode-eager.pt.trace.json.gz") + " --kernel 99999999", &out, true), 2);
    EXPECT_NE(out.find("no kernel with id 99999999"), std::string::npos) << out;
    EXPECT_EQ(run("explain " + sample("decode-eager.pt.trace.json.gz"), &out, true), 64);
    EXPECT_NE(out.find("--kernel NAME|ID is required"), std::string::npos) << out;
}
