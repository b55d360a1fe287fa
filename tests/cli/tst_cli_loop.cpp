// The analysis loop end to end with fake `nsys` and `ncu` on PATH (tests/cli/fake_tools: shell scripts that check
// the arguments Sightline passes, run the profiled command and hand back prepared exports made by `generate`):
// profile N runs → analyse → variance → knowledge base; deep-dive with ncu on the focus set; verify after a change;
// Ctrl-C mid-run, a failing run, a slow run past --timeout, a missing tool and a too-old one.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "tests/support/test_env.h"

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

std::string cli() { return SIGHTLINE_CLI; }
std::string fakes() { return sl::test::source_dir() + "/tests/cli/fake_tools"; }

std::string slurp(const std::string& p)
{
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

int count_of(const std::string& text, const std::string& what)
{
    int n = 0;
    for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1))
        ++n;
    return n;
}

// Environment of one test: fakes first on PATH, a state directory for their log, a private knowledge base.
struct LoopEnv {
    std::string dir, state, kb, old_path;
    explicit LoopEnv(const std::string& name)
    {
        dir = sl::test::scratch_dir(name);
        state = dir + "/fake-state";
        fs::create_directories(state);
        kb = dir + "/kb.db";
        old_path = std::getenv("PATH") ? std::getenv("PATH") : "/usr/bin:/bin";
        ::setenv("PATH", (fakes() + ":" + old_path).c_str(), 1);
        ::setenv("FAKE_STATE", state.c_str(), 1);
        for (const char* v : {"FAKE_NSYS_FAIL", "FAKE_NSYS_SLEEP", "FAKE_NSYS_SLEEP_RUN", "FAKE_NSYS_VERSION",
                              "FAKE_NCU_VERSION", "FAKE_SQLITES", "FAKE_NCU_CSV"})
            ::unsetenv(v);
    }
    ~LoopEnv() { ::setenv("PATH", old_path.c_str(), 1); }
    void reset_counter() const { fs::remove(state + "/runs"); }
    // Generated traces: host-starved decode (the "before") or the same model fed in time (the "after").
    std::string traces(const std::string& tag, const std::string& flags, int n) const
    {
        std::string list;
        for (int s = 1; s <= n; ++s) {
            const std::string p = dir + "/" + tag + std::to_string(s) + ".sqlite";
            std::string out;
            EXPECT_EQ(sl::test::run_command(cli() + " generate --steps 16 --layers 4 --prefill 1 --quiet --seed " +
                                                std::to_string(s) + " " + flags + " -o " + p,
                                            &out, true),
                      0)
                << out;
            list += (list.empty() ? "" : " ") + p;
        }
        return list;
    }
};

int run(const std::string& args, std::string* out)
{
    out->clear();   // run_command appends
    return sl::test::run_command(cli() + " " + args, out, true);
}

double analyzed_tpot(const std::string& sqlite)
{
    std::string out;   // fresh: run_command appends
    EXPECT_EQ(sl::test::run_command(cli() + " analyze " + sqlite + " --format json", &out), 0);
    return json::parse(out)["phases"]["tpot_median_ns"].get<double>();
}

} // namespace

TEST(CliLoop, ProfileDeepDiveVerifyKnowledgeBase)
{
    LoopEnv env("cli_loop_e2e");
    ::setenv("FAKE_SQLITES", env.traces("starved", "--host-starved", 3).c_str(), 1);
    const std::string P = env.dir + "/before";
    std::string out;

    // Step 3 + 5: three profiled runs of the user's command.
    ASSERT_EQ(run("profile --runs 3 --out " + P + " --kb " + env.kb + " --nsys-args '--delay=2 --duration=30' -- sh -c 'echo app-says-hello'", &out), 0)
        << out;
    // The exact command lines, the tool output and the application's output stream through.
    EXPECT_NE(out.find("$ " + fakes() + "/nsys profile --trace=cuda,nvtx,osrt --cuda-graph-trace=node --sample=none "
                       "--cpuctxsw=none --force-overwrite=true --output=" + fs::absolute(P).string() +
                       "/run1 --delay=2 --duration=30 sh -c 'echo app-says-hello'"),
              std::string::npos)
        << out;
    EXPECT_EQ(count_of(out, "  [nsys] app-says-hello"), 3) << out;
    EXPECT_NE(out.find("$ " + fakes() + "/nsys export --type=sqlite"), std::string::npos);
    // Step 1 ran first: nothing is known about this environment yet.
    EXPECT_NE(out.find("Seen before on this environment (NVIDIA H100 80GB HBM3):\n  nothing yet"), std::string::npos) << out;
    const std::string log = slurp(env.state + "/args.log");
    EXPECT_EQ(count_of(log, "nsys profile "), 3);
    EXPECT_EQ(count_of(log, "nsys export "), 3);

    // profile.json: every run exported and analysed; variance = median and spread of what `analyze` says per run.
    const json m = json::parse(slurp(P + "/profile.json"));
    ASSERT_EQ(m["runs"].size(), 3u);
    std::vector<double> tpots;
    for (const auto& r : m["runs"]) {
        EXPECT_TRUE(r["ok"].get<bool>()) << r.dump();
        EXPECT_TRUE(fs::exists(r["analysis"].get<std::string>()));
        tpots.push_back(analyzed_tpot(r["sqlite"].get<std::string>()));
        EXPECT_DOUBLE_EQ(r["metrics"]["tpot_median_ns"].get<double>(), tpots.back());
    }
    std::vector<double> sorted = tpots;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(m["e2e_metric"], "tpot_median_ns");
    const auto& v = m["variance"]["tpot_median_ns"];
    EXPECT_EQ(v["runs"], 3);
    EXPECT_DOUBLE_EQ(v["median"].get<double>(), sorted[1]);
    EXPECT_DOUBLE_EQ(v["rel_spread"].get<double>(), (sorted[2] - sorted[0]) / sorted[1]);
    EXPECT_GT(v["rel_spread"].get<double>(), 0.0);   // three seeds: three different runs
    // The representative run is the one at the median, and its report is written.
    size_t rep = 0;
    for (size_t i = 0; i < 3; ++i)
        if (tpots[i] == sorted[1])
            rep = i;
    EXPECT_EQ(m["representative"], m["runs"][rep]["sqlite"]);
    EXPECT_TRUE(fs::exists(P + "/report.md"));
    const auto runs = sl::test::sqlite_rows(env.kb, "SELECT count(*) FROM runs");
    ASSERT_EQ(runs.size(), 1u);
    EXPECT_EQ(runs[0][0], "3");

    // Step 4: ncu on exactly the focus set's kernels. The ncu CSV names two of the trace's kernels.
    std::string csv = slurp(sl::test::source_dir() + "/tests/data/ncu/raw_base_units.csv");
    csv = std::regex_replace(csv, std::regex(R"(void gemm_kernel<float, 128, 64>\(Params<float, int>, int, float\*\))"),
                             "nvjet_tst_64x8_64x16_4x1_v_bz_splitK_TNT");
    std::ofstream(env.dir + "/ncu.csv") << csv;
    ::setenv("FAKE_NCU_CSV", (env.dir + "/ncu.csv").c_str(), 1);
    ASSERT_EQ(run("deep-dive " + P + " --set full -- sh -c 'echo app-under-ncu'", &out), 0) << out;
    const std::string ncu_line = [&] {
        std::istringstream in(slurp(env.state + "/args.log"));
        std::string l, found;
        while (std::getline(in, l))
            if (l.rfind("ncu --set", 0) == 0)
                found = l;
        return found;
    }();
    // What analyze calls the focus set is what ncu is asked for, by the function names ncu matches on.
    std::string aj;
    ASSERT_EQ(sl::test::run_command(cli() + " analyze " + m["representative"].get<std::string>() + " --format json", &aj), 0);
    const json focus = json::parse(aj)["focus"];
    ASSERT_TRUE(focus.contains("kernels")) << focus.dump();
    int in_focus = 0;
    for (const auto& k : focus["kernels"]) {
        if (!k["top_k"].get<bool>() && !k["low_efficiency"].get<bool>())
            continue;
        ++in_focus;
        // ncu's default --kernel-name-base is "function": no "void ", no template arguments, no parameters.
        std::string base = k["name"].get<std::string>();
        if (base.rfind("void ", 0) == 0)
            base = base.substr(5);
        base = base.substr(0, base.find_first_of("<("));
        if (const auto c = base.rfind("::"); c != std::string::npos)
            base = base.substr(c + 2);   // unqualified: ncu versions differ in showing the namespace
        EXPECT_TRUE(ncu_line.find("(" + base + "|") != std::string::npos ||
                    ncu_line.find("|" + base + "|") != std::string::npos ||
                    ncu_line.find("|" + base + ")$") != std::string::npos)
            << base << " missing from " << ncu_line;
    }
    EXPECT_EQ(in_focus, 10);   // K = 10
    EXPECT_NE(ncu_line.find("--set full -k regex:^(.*::)?("), std::string::npos) << ncu_line;
    EXPECT_NE(ncu_line.find("nvjet_tst_64x8_64x16_4x1_v_bz_splitK_TNT"), std::string::npos) << ncu_line;
    EXPECT_NE(ncu_line.find("|flash_fwd_splitkv_kernel|"), std::string::npos) << ncu_line;   // no template args
    EXPECT_NE(ncu_line.find("--launch-skip "), std::string::npos);
    EXPECT_NE(ncu_line.find(" sh -c echo app-under-ncu"), std::string::npos) << ncu_line;
    EXPECT_NE(out.find("  [ncu] app-under-ncu"), std::string::npos) << out;
    EXPECT_NE(out.find("3 ncu launch(es) in " + fs::absolute(P).string() + "/deep_dive.csv, 1 joined to trace kernels"),
              std::string::npos)
        << out;
    const json dd = json::parse(slurp(P + "/deep_dive.analysis.json"));
    EXPECT_TRUE(dd.contains("ncu")) << "the rules re-ran with the counters joined";

    // Step 6: accept the suggestion the host-starved decode got, apply it (the "after" traces), verify.
    std::string list;
    ASSERT_EQ(sl::test::run_command(cli() + " kb list --kb " + env.kb + " --format json", &list), 0);
    int64_t id = 0;
    const int64_t rep_run = m["runs"][rep]["kb_run"].get<int64_t>();
    for (const auto& s : json::parse(list))
        if (s["suggestion"] == "decode-host-bound/cuda-graphs" && s["run"] == rep_run)
            id = s["id"].get<int64_t>();
    ASSERT_GT(id, 0) << list;
    ASSERT_EQ(run("kb accept " + std::to_string(id) + " --kb " + env.kb, &out), 0);
    env.reset_counter();
    ::setenv("FAKE_SQLITES", env.traces("fed", "", 3).c_str(), 1);
    ASSERT_EQ(run("verify " + P + " --kb " + env.kb + " -- sh -c 'echo app-after'", &out), 0) << out;
    // Step 1 again: the three earlier runs are found on this environment.
    EXPECT_NE(out.find("3 earlier run(s) on a similar environment"), std::string::npos) << out;
    EXPECT_NE(out.find("faster, outside the spread"), std::string::npos) << out;
    const auto ver = sl::test::sqlite_rows(
        env.kb, "SELECT suggestion_key, verdict FROM verifications ORDER BY suggestion_key");
    ASSERT_EQ(ver.size(), 2u);
    EXPECT_EQ(ver[0], (std::vector<std::string>{"decode-host-bound/cuda-graphs", "verified"}));
    EXPECT_EQ(ver[1], (std::vector<std::string>{"end-to-end/tpot_median_ns", "verified"}));
    EXPECT_TRUE(fs::exists(P + "/verify/profile.json"));
}

TEST(CliLoop, VerifyWithinTheSpreadIsInconclusive)
{
    LoopEnv env("cli_loop_same");
    const std::string traces = env.traces("same", "", 2);
    ::setenv("FAKE_SQLITES", traces.c_str(), 1);
    std::string out;
    ASSERT_EQ(run("profile --runs 2 --out " + env.dir + "/b --kb " + env.kb + " -- true", &out), 0) << out;
    env.reset_counter();
    // The same two runs again: whatever changed is inside their spread.
    ASSERT_EQ(run("verify " + env.dir + "/b --kb " + env.kb + " -- true", &out), 0) << out;
    EXPECT_NE(out.find("inconclusive: within the spread"), std::string::npos) << out;
    const auto ver = sl::test::sqlite_rows(env.kb, "SELECT verdict FROM verifications");
    ASSERT_EQ(ver.size(), 1u);
    EXPECT_EQ(ver[0][0], "inconclusive");
}

TEST(CliLoop, MissingAndOldToolsAreOneClearMessage)
{
    LoopEnv env("cli_loop_tools");
    std::string out;
    ::setenv("FAKE_NSYS_VERSION", "2021.3.1.54-ee9ed9b", 1);
    EXPECT_EQ(run("profile --out " + env.dir + "/p -- true", &out), 3);
    EXPECT_NE(out.find("is version 2021.3.1.54, older than the 2022.1 Sightline needs; install Nsight Systems from "
                       "https://developer.nvidia.com/nsight-systems"),
              std::string::npos)
        << out;
    ::setenv("FAKE_NCU_VERSION", "2019.5.0", 1);
    const std::string trace = env.traces("t", "", 1);
    EXPECT_EQ(run("deep-dive " + trace + " -- true", &out), 3);
    EXPECT_NE(out.find("older than the 2022.1 Sightline needs; install Nsight Compute"), std::string::npos) << out;

    // No tools on PATH at all.
    ::setenv("PATH", "/usr/bin:/bin", 1);
    EXPECT_EQ(run("profile --out " + env.dir + "/p -- true", &out), 3);
    EXPECT_NE(out.find("sightline-cli: 'nsys' was not found on PATH. Sightline needs nsys 2022.1 or newer"),
              std::string::npos)
        << out;
    EXPECT_EQ(count_of(out, "\n"), 1) << "one message, not a stack of errors:\n" << out;
    EXPECT_EQ(run("deep-dive " + trace + " -- true", &out), 3);
    EXPECT_NE(out.find("'ncu' was not found on PATH"), std::string::npos) << out;
    EXPECT_EQ(run("profile --out " + env.dir + "/p", &out), 64);   // no command after --
}

TEST(CliLoop, FailingAndSlowRuns)
{
    LoopEnv env("cli_loop_fail");
    ::setenv("FAKE_SQLITES", env.traces("f", "", 1).c_str(), 1);
    std::string out;
    ::setenv("FAKE_NSYS_FAIL", "1", 1);
    EXPECT_EQ(run("profile --runs 2 --out " + env.dir + "/fail --kb " + env.kb + " -- ./no-such-app", &out), 3);
    EXPECT_NE(out.find("[nsys] Error: failed to launch application './no-such-app'"), std::string::npos) << out;
    EXPECT_NE(out.find("sightline-cli: nsys profile exited with status 1"), std::string::npos) << out;
    json m = json::parse(slurp(env.dir + "/fail/profile.json"));
    ASSERT_EQ(m["runs"].size(), 1u) << "the second run is not tried after the first failed";
    EXPECT_FALSE(m["runs"][0]["ok"].get<bool>());
    ::unsetenv("FAKE_NSYS_FAIL");

    // A run that hangs past --timeout: stopped, its partial report kept, the earlier run kept.
    env.reset_counter();
    ::setenv("FAKE_NSYS_SLEEP", "60", 1);
    ::setenv("FAKE_NSYS_SLEEP_RUN", "2", 1);
    const auto t0 = std::chrono::steady_clock::now();
    EXPECT_EQ(run("profile --runs 2 --timeout 1 --out " + env.dir + "/slow --kb " + env.kb + " -- true", &out), 3);
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(30));
    EXPECT_NE(out.find("nsys profile timed out after 1 s and was stopped; its partial report is kept: " +
                       fs::absolute(env.dir + "/slow").string() + "/run2.nsys-rep"),
              std::string::npos)
        << out;
    EXPECT_EQ(slurp(env.dir + "/slow/run2.nsys-rep"), "partial\n");
    m = json::parse(slurp(env.dir + "/slow/profile.json"));
    ASSERT_EQ(m["runs"].size(), 2u);
    EXPECT_TRUE(m["runs"][0]["ok"].get<bool>());
    EXPECT_FALSE(m["runs"][1]["ok"].get<bool>());
}

TEST(CliLoop, CtrlCStopsTheToolAndKeepsCompletedRuns)
{
    LoopEnv env("cli_loop_sigint");
    ::setenv("FAKE_SQLITES", env.traces("c", "", 1).c_str(), 1);
    ::setenv("FAKE_NSYS_SLEEP", "60", 1);
    ::setenv("FAKE_NSYS_SLEEP_RUN", "2", 1);
    const std::string outdir = env.dir + "/p", log = env.dir + "/cli.out";
    const std::string cmd = "exec " + cli() + " profile --runs 3 --out " + outdir + " --kb " + env.kb +
                            " -- true > " + log + " 2>&1";
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        ::execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
        ::_exit(127);
    }
    // Wait until the second nsys run is under way, then press Ctrl-C (SIGINT to sightline-cli, as a terminal does
    // to its foreground process; the tool runs in its own process group).
    const std::string pid_file = env.state + "/nsys.pid";
    for (int i = 0; i < 600 && !fs::exists(pid_file); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    ASSERT_TRUE(fs::exists(pid_file)) << slurp(log);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    ::kill(pid, SIGINT);
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    const std::string out = slurp(log);
    ASSERT_TRUE(WIFEXITED(status)) << out;
    EXPECT_EQ(WEXITSTATUS(status), 130) << out;
    long nsys_pid = 0;
    std::ifstream(pid_file) >> nsys_pid;
    ASSERT_GT(nsys_pid, 0);
    // Gone, or a zombie waiting for its new parent to reap it.
    const bool alive = ::kill(static_cast<pid_t>(nsys_pid), 0) == 0 &&
                       slurp("/proc/" + std::to_string(nsys_pid) + "/stat").find(") Z") == std::string::npos;
    EXPECT_FALSE(alive) << "the profiler was left running";
    EXPECT_NE(out.find("nsys profile was stopped by Ctrl-C; its partial report is kept"), std::string::npos) << out;
    EXPECT_NE(out.find("Interrupted: 1 completed run(s) kept"), std::string::npos) << out;
    const json m = json::parse(slurp(outdir + "/profile.json"));
    EXPECT_TRUE(m["interrupted"].get<bool>());
    ASSERT_EQ(m["runs"].size(), 2u) << "run 3 never started";
    EXPECT_TRUE(m["runs"][0]["ok"].get<bool>());
    EXPECT_TRUE(fs::exists(outdir + "/run1.analysis.json"));
    EXPECT_EQ(slurp(outdir + "/run2.nsys-rep"), "partial\n");
}

TEST(CliLoop, TheModelIsPartOfTheEnvironment)
{
    LoopEnv env("cli_loop_model");
    const std::string model = sl::test::source_dir() + "/tests/data/models/llama_tiny_config.json";
    ::setenv("FAKE_SQLITES", env.traces("m", "", 2).c_str(), 1);   // two different runs of the same model
    std::string out;
    ASSERT_EQ(run("profile --out " + env.dir + "/a --kb " + env.kb + " --model " + model + " -- true", &out), 0) << out;
    EXPECT_NE(out.find("nothing yet"), std::string::npos) << out;
    ASSERT_EQ(run("profile --out " + env.dir + "/b --kb " + env.kb + " --model " + model + " -- true", &out), 0) << out;
    // Step 1 finds the first run, on the same GPU with the same model config (as `kb record --model` keys it).
    EXPECT_NE(out.find("1 earlier run(s) on a similar environment; closest: run 1 (" + fs::absolute(env.dir).string() +
                       "/a/run1.sqlite, similarity"),
              std::string::npos)
        << out;
    EXPECT_NE(out.find("same GPU, same model"), std::string::npos) << out;
    const auto envs = sl::test::sqlite_rows(env.kb, "SELECT count(*), min(model_hash) FROM environments");
    ASSERT_EQ(envs.size(), 1u);
    EXPECT_EQ(envs[0][0], "1");
    EXPECT_FALSE(envs[0][1].empty());
}
