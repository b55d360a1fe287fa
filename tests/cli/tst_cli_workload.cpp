// Issue 13, planted traces: `sightline-cli generate` plants a host/device clock offset, a warm-up-heavy start and
// mixed (chunked-prefill) steps; `sightline-cli analyze --format json` must flag the first without turning it into
// queue-delay or idle findings, leave the warm-up out of the steady-state window, and see the mixed steps as mixed.
#include <gtest/gtest.h>

#include <cstdio>

#include <cmath>
#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#include "tests/support/test_env.h"

using namespace sl;
using nlohmann::json;

namespace {

std::string cli() { return SIGHTLINE_CLI; }

json analyze(const std::string& trace)
{
    std::string out;
    const int rc = test::run_command(cli() + " analyze '" + trace + "' --format json", &out);
    EXPECT_EQ(rc, 0) << out;
    return json::parse(out);
}

void generate(const std::string& args, const std::string& out)
{
    std::string log;
    ASSERT_EQ(test::run_command(cli() + " generate --quiet " + args + " -o '" + out + "'", &log, true), 0) << log;
}

std::set<std::string> codes(const json& warnings)
{
    std::set<std::string> s;
    for (const auto& w : warnings)
        s.insert(w["code"].get<std::string>());
    return s;
}

std::multiset<std::string> finding_rules(const json& j)
{
    std::multiset<std::string> s;
    for (const auto& f : j["findings"])
        s.insert(f["rule"].get<std::string>() + "@" + f["subject"].get<std::string>());
    return s;
}

} // namespace

TEST(CliWorkload, ClockOffsetIsFlaggedAndCorrectedNotReadAsQueueDelay)
{
    const std::string dir = test::scratch_dir("cli_workload_clock");
    // The same run twice: once on one clock, once with every GPU time 150 ms late (a Kineto trace whose device
    // clock is not synchronised with the host, as in a real MI300X vLLM trace: CPU at 0-26 ms, GPU at 151-308 ms).
    generate("--steps 24 --seed 7", dir + "/base.json");
    generate("--steps 24 --seed 7 --clock-offset-ms 150", dir + "/offset.json");
    const json base = analyze(dir + "/base.json");
    const json off = analyze(dir + "/offset.json");

    EXPECT_FALSE(codes(base["trace"]["warnings"]).count("clock_skew"));
    EXPECT_EQ(base["trace"]["clock_shift_ns"], 0);
    EXPECT_TRUE(codes(off["trace"]["warnings"]).count("clock_skew")) << off["trace"]["warnings"].dump(1);
    EXPECT_TRUE(codes(off["workload"]["warnings"]).count("clock_skew"));
    // The correction takes back the 150 ms, less the few microseconds a launch really takes.
    const double shift = off["trace"]["clock_shift_ns"].get<double>();
    EXPECT_NEAR(shift, -150e6, 0.1e6);

    // No queue-delay or idle finding comes from the offset: the findings are those of the run on one clock, with
    // the same counts in their titles (the one-clock run is GPU-bound, so its queue-delay finding is real and
    // names the same 2364 kernels in both; uncorrected, every kernel would wait 150 ms).
    EXPECT_EQ(finding_rules(off), finding_rules(base));
    std::multiset<std::string> t_base, t_off;
    for (const auto& f : base["findings"])
        t_base.insert(f["title"]["en"].get<std::string>());
    for (const auto& f : off["findings"])
        t_off.insert(f["title"]["en"].get<std::string>());
    EXPECT_EQ(t_off, t_base);
    // And the step times are those of the one-clock run.
    EXPECT_NEAR(off["phases"]["tpot_median_ns"].get<double>(), base["phases"]["tpot_median_ns"].get<double>(),
                0.01 * base["phases"]["tpot_median_ns"].get<double>());
}

TEST(CliWorkload, ClockOffsetNeedsAKinetoOutput)
{
    const std::string dir = test::scratch_dir("cli_workload_clock_usage");
    std::string log;
    EXPECT_EQ(test::run_command(cli() + " generate --clock-offset-ms 150 -o '" + dir + "/x.sqlite'", &log, true), 64);
    EXPECT_NE(log.find("Kineto"), std::string::npos) << log;
}

TEST(CliWorkload, WarmupHeavyTraceGetsItsWarmupExcluded)
{
    const std::string dir = test::scratch_dir("cli_workload_warmup");
    generate("--steps 32 --seed 3", dir + "/plain.sqlite");
    generate("--steps 32 --seed 3 --warmup-heavy 6", dir + "/warm.sqlite");
    const json plain = analyze(dir + "/plain.sqlite");
    const json warm = analyze(dir + "/warm.sqlite");

    // The first 6 decode steps run 5x slower kernels (and the first loads a module): all 6 are warm-up, the fixed
    // 2 plus 4 found slow, and the steady-state window starts after them.
    const json& P = warm["phases"];
    EXPECT_EQ(P["decode_steps"], 32);
    EXPECT_EQ(P["warmup_excluded"], 6);
    EXPECT_EQ(P["warmup_detected"], 4);
    EXPECT_EQ(P["steady_steps"], 26);
    ASSERT_FALSE(P["steady_window"].is_null());
    int64_t last_warm_end = 0;
    for (const auto& s : P["steps"])
        if (s["warmup"].get<bool>())
            last_warm_end = std::max(last_warm_end, s["end_ns"].get<int64_t>());
    EXPECT_GE(P["steady_window"]["start_ns"].get<int64_t>(), last_warm_end);
    EXPECT_EQ(warm["trace"]["windows"]["steady_state"]["start_ns"], P["steady_window"]["start_ns"]);
    const auto c = codes(warm["trace"]["warnings"]);
    EXPECT_TRUE(c.count("warmup_excluded"));
    EXPECT_TRUE(c.count("warmup_included")) << "the module load inside the capture is named";
    // The warning states the window from the capture start, the origin of every other time in the output, so its
    // numbers equal the steady window's less the capture start (the generator's clock starts far from 0).
    for (const auto& w : warm["trace"]["warnings"])
        if (w["code"] == "warmup_excluded") {
            const double origin = warm["trace"]["capture_start_ns"].get<double>();
            ASSERT_GT(origin, 1e6) << "the test needs a capture start away from 0";
            char expect[96];
            std::snprintf(expect, sizeof expect, "steady-state window %.3f ms",
                          (P["steady_window"]["start_ns"].get<double>() - origin) / 1e6);
            EXPECT_NE(w["message"].get<std::string>().find(expect), std::string::npos) << w["message"] << " vs " << expect;
            EXPECT_NE(w["message"].get<std::string>().find("from the capture start"), std::string::npos);
        }
    // With the warm-up out, TPOT is that of the run without warm-up (the same steady steps).
    EXPECT_NEAR(P["tpot_median_ns"].get<double>(), plain["phases"]["tpot_median_ns"].get<double>(),
                0.05 * plain["phases"]["tpot_median_ns"].get<double>());
    // The plain run: only the fixed 2 warm-up steps.
    EXPECT_EQ(plain["phases"]["warmup_excluded"], 2);
    EXPECT_EQ(plain["phases"]["warmup_detected"], 0);
}

TEST(CliWorkload, MixedPrefillDecodeStepsAreRecognised)
{
    const std::string dir = test::scratch_dir("cli_workload_mixed");
    generate("--steps 32 --seed 5 --mixed-every 4", dir + "/mixed.sqlite");
    const json j = analyze(dir + "/mixed.sqlite");
    const json& P = j["phases"];
    // 2 prefill passes, then 32 vLLM-named batches: every 4th runs a prefill chunk with its 8 decodes
    // (execute_context_1(512)_generation_8(8)), the others decode only (execute_context_0(0)_generation_8(8)).
    EXPECT_EQ(P["source"], "nvtx");
    EXPECT_EQ(P["mixed_steps"], 8);
    EXPECT_EQ(P["prefill_steps"], 2);
    EXPECT_EQ(P["decode_steps"], 24);
    int mixed = 0;
    for (const auto& s : P["steps"])
        mixed += s["phase"] == "mixed";
    EXPECT_EQ(mixed, 8);
    EXPECT_EQ(j["workload"]["kind"], "inference");
    EXPECT_EQ(j["workload"]["framework"], "vLLM");
    EXPECT_EQ(j["workload"]["execution"], "eager");
}

TEST(CliWorkload, DecodeSampleIsInferenceWithOneOrigin)
{
    const std::string dir = test::scratch_dir("cli_workload_sample");
    generate("--cuda-graphs --steps 16", dir + "/g.sqlite");
    const json j = analyze(dir + "/g.sqlite");
    EXPECT_EQ(j["workload"]["kind"], "inference");
    EXPECT_EQ(j["workload"]["execution"], "mixed") << "prefill eager, decode steps replayed as graphs";
    const json& w = j["trace"]["windows"];
    EXPECT_EQ(w["origin_ns"], j["trace"]["capture_start_ns"]);
    EXPECT_LE(w["capture"]["start_ns"].get<int64_t>(), w["gpu_activity"]["start_ns"].get<int64_t>());
    EXPECT_GE(w["capture"]["end_ns"].get<int64_t>(), w["gpu_activity"]["end_ns"].get<int64_t>());
    EXPECT_LE(w["gpu_activity"]["start_ns"].get<int64_t>(), w["steady_state"]["start_ns"].get<int64_t>());
    EXPECT_GE(w["gpu_activity"]["end_ns"].get<int64_t>(), w["steady_state"]["end_ns"].get<int64_t>());
    const double u = j["trace"]["gpu_utilization"].get<double>();
    EXPECT_GT(u, 0.0);
    EXPECT_LT(u, 1.0);
}
