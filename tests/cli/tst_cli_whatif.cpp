// `sightline-cli whatif` (issue 35 §3): the dependency graph replayed under a change, on the real pairs recorded on a
// GPU (tests/data/real_traces.json "whatif_pairs": a run before a change and one after it, tests/data/device/), and
// its errors. What a human sees in the pairs:
//   - decode-eager -> decode-graph: the same decode step, eager (host-bound, 14.1 ms a step under the profiler) and
//     replayed from a CUDA graph (GPU-bound, 1.73 ms): cuda-graphs on the eager trace must land within 25 %;
//   - decode-sync -> decode-eager: the per-step `.item()` sync removed bought nothing (each sync waited ~1.5 us for
//     GPU that had long finished when the host asked): remove-sync must predict less than 10 %.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <string>

#include "tests/support/test_env.h"

using namespace sl;

namespace {
std::string cli() { return SIGHTLINE_CLI; }
std::string data(const std::string& p) { return test::source_dir() + "/tests/data/" + p; }

int run(const std::string& args, std::string* out, bool merge = false)
{
    out->clear();
    return test::run_command(cli() + " " + args, out, merge);
}

nlohmann::json pairs()
{
    std::ifstream in(data("real_traces.json"));
    return nlohmann::json::parse(in).at("whatif_pairs").at("pairs");
}
} // namespace

TEST(CliWhatIf, RealPairsRecordedOnAGpu)
{
    const nlohmann::json ps = pairs();
    ASSERT_EQ(ps.size(), 2u);
    for (const auto& p : ps) {
        const std::string before = data(p["before"].get<std::string>());
        const std::string change = p["change"].get<std::string>();
        std::string out;
        ASSERT_EQ(run("whatif " + before + " --change " + change + " --format json", &out), 0) << out;
        const auto j = nlohmann::json::parse(out);
        EXPECT_EQ(j["schema"], "sightline.whatif/1");
        const auto& w = j["whatif"];
        // The baseline is analyze's TPOT, and the replay without a change gives it back.
        std::string a;
        ASSERT_EQ(run("analyze " + before + " --format json", &a), 0);
        const auto aj = nlohmann::json::parse(a);
        // (the TPOT median of an even count of steps may end in half a nanosecond; whatif rounds it)
        EXPECT_NEAR(w["baseline_step_ns"].get<double>(), aj["phases"]["tpot_median_ns"].get<double>(), 1.0);
        EXPECT_LT(w["baseline_replay_max_error"].get<double>(), 0.01) << before;
        EXPECT_EQ(w["graph"]["unexplained_nodes"], 0) << before;
        const double base = w["baseline_step_ns"].get<double>();
        const double pred = w["predicted_step_ns"].get<double>();
        const auto& range = w["predicted_range_ns"];
        ASSERT_EQ(range.size(), 2u);
        EXPECT_LE(range[0].get<double>(), pred);
        EXPECT_GE(range[1].get<double>(), pred);
        ASSERT_EQ(w["changes"].size(), 1u);
        EXPECT_EQ(w["changes"][0]["change"], change);
        EXPECT_FALSE(w["changes"][0]["changed"].get<std::string>().empty());
        EXPECT_FALSE(w["changes"][0]["kept"].empty());
        // The after run, as analyze reads it, is what the table says.
        std::string b;
        ASSERT_EQ(run("analyze " + data(p["after"].get<std::string>()) + " --format json", &b), 0);
        const double after = nlohmann::json::parse(b)["phases"]["tpot_median_ns"].get<double>();
        EXPECT_NEAR(after, p["after_tpot_ns"].get<double>(), 0.01 * after);
        std::printf("whatif %s --change %s: measured %.3f ms, predicted %.3f ms [%.3f, %.3f], after run %.3f ms\n",
                    p["before"].get<std::string>().c_str(), change.c_str(), base / 1e6, pred / 1e6,
                    range[0].get<double>() / 1e6, range[1].get<double>() / 1e6, after / 1e6);
        if (p.contains("max_error")) {
            EXPECT_LT(std::fabs(pred - after) / after, p["max_error"].get<double>()) << pred << " vs " << after;
        }
        if (p.contains("max_gain")) {
            EXPECT_LT((base - pred) / base, p["max_gain"].get<double>()) << pred << " vs " << base;
        }
    }
}

TEST(CliWhatIf, TextAndSeveralChanges)
{
    std::string out;
    ASSERT_EQ(run("whatif " + data("device/decode-sync.pt.trace.json.gz") +
                      " --change cuda-graphs --change remove-sync:cudaStreamSynchronize --change class:gemm=2",
                  &out),
              0)
        << out;
    for (const char* s : {"measured step:", "predicted step:", "cuda-graphs:", "remove-sync:cudaStreamSynchronize:",
                          "class:gemm=2:", "alone:", "kept:"})
        EXPECT_NE(out.find(s), std::string::npos) << s << "\n" << out;
}

TEST(CliWhatIf, BadChangesAreBadInput)
{
    const std::string t = data("device/decode-eager.pt.trace.json.gz");
    std::string out;
    // Not a change: exit 2 naming it and the grammar.
    EXPECT_EQ(run("whatif " + t + " --change graphs", &out, true), 2);
    EXPECT_NE(out.find("'graphs'"), std::string::npos) << out;
    EXPECT_NE(out.find("expected cuda-graphs, remove-sync"), std::string::npos) << out;
    EXPECT_EQ(run("whatif " + t + " --change class:gemm=0", &out, true), 2);
    EXPECT_NE(out.find("a number K > 0"), std::string::npos) << out;
    // A change the trace cannot support: exit 2 naming what it has.
    EXPECT_EQ(run("whatif " + t + " --change class:gemms=2", &out, true), 2);
    EXPECT_NE(out.find("no operator class 'gemms'"), std::string::npos) << out;
    EXPECT_NE(out.find("gemm"), std::string::npos) << out;
    EXPECT_EQ(run("whatif " + t + " --change fuse:elementwise", &out, true), 2);
    EXPECT_NE(out.find("--config"), std::string::npos) << out;
    EXPECT_EQ(run("whatif " + t + " --change remove-sync:cudaMemcpy", &out, true), 2);
    EXPECT_NE(out.find("cudaDeviceSynchronize"), std::string::npos) << out;   // the host syncs it has
    // No change at all: a usage error.
    EXPECT_EQ(run("whatif " + t, &out, true), 64);
    EXPECT_NE(out.find("--change C is required"), std::string::npos) << out;
}

// fuse:NAME with the model's config: the Roofline gives the elementwise chain's floor.
TEST(CliWhatIf, FuseToTheRooflineFloor)
{
    std::string out;
    ASSERT_EQ(run("whatif " + data("device/decode-graph.pt.trace.json.gz") + " --config " +
                      data("device/config.json") + " --change fuse:norm --format json",
                  &out),
              0)
        << out;
    const auto w = nlohmann::json::parse(out)["whatif"];
    const std::string changed = w["changes"][0]["changed"].get<std::string>();
    EXPECT_NE(changed.find("floor"), std::string::npos) << changed;
    // GPU-bound: fusing the chain of small kernels shortens the step.
    EXPECT_LT(w["predicted_step_ns"].get<double>(), 0.9 * w["baseline_step_ns"].get<double>());
}

// Issue 35 §4: findings whose suggestion maps to a what-if carry the replayed step time (the bound stays their gain).
TEST(CliWhatIf, FindingsCarryTheReplayedStep)
{
    std::string out;
    ASSERT_EQ(run("analyze " + data("device/decode-sync.pt.trace.json.gz") + " --format json", &out), 0);
    const auto j = nlohmann::json::parse(out);
    bool graphs = false, sync = false;
    for (const auto& f : j["findings"]) {
        if (!f.contains("replayed_step"))
            continue;
        const auto& rs = f["replayed_step"];
        EXPECT_TRUE(f.contains("expected_gain"));
        if (f["rule"] == "decode-host-bound") {
            graphs = true;
            EXPECT_EQ(rs["change"], "cuda-graphs");
            EXPECT_LT(rs["predicted_step_ns"].get<double>(), 0.25 * rs["baseline_step_ns"].get<double>());
        }
        if (f["rule"] == "decode-sync-every-step") {
            sync = true;
            EXPECT_EQ(rs["change"], "remove-sync");
            EXPECT_GT(rs["change_fraction"].get<double>(), -0.10);
        }
    }
    EXPECT_TRUE(graphs && sync) << "decode-host-bound and decode-sync-every-step fire on decode-sync";
    ASSERT_EQ(run("analyze " + data("device/decode-sync.pt.trace.json.gz"), &out), 0);
    EXPECT_NE(out.find("What the suggested changes would give"), std::string::npos);
    EXPECT_NE(out.find("remove-sync: step"), std::string::npos) << out;
}
