// The layer every external tool (nsys, ncu) runs through: output streamed line by line, exit codes, timeouts and
// cancel stopping the whole process group (grandchildren included), missing and too-old tools explained.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <thread>

#include <signal.h>
#include <sys/stat.h>

#include "analysis/io/process.h"
#include "tests/support/test_env.h"

using namespace sl;

namespace {

std::string write_script(const std::string& dir, const std::string& name, const std::string& body)
{
    const std::string p = dir + "/" + name;
    std::ofstream(p) << "#!/bin/sh\n" << body;
    ::chmod(p.c_str(), 0755);
    return p;
}

bool pid_alive(const std::string& pid_file)
{
    std::ifstream in(pid_file);
    long pid = 0;
    if (!(in >> pid) || pid <= 0)
        return false;
    // A killed process whose parent is gone may linger as a zombie until its new parent reaps it: not alive.
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(stat, line))
        return false;
    const auto close_paren = line.rfind(')');
    return close_paren != std::string::npos && close_paren + 2 < line.size() && line[close_paren + 2] != 'Z';
}

} // namespace

TEST(Process, StreamsStdoutAndStderrLinesAndExitCode)
{
    const auto dir = sl::test::scratch_dir("process_stream");
    const auto s = write_script(dir, "tool", "echo one\necho two >&2\nprintf 'no newline'\nexit 3\n");
    std::vector<std::pair<std::string, bool>> lines;
    ProcessOptions o;
    o.on_line = [&](const std::string& l, bool err) { lines.emplace_back(l, err); };
    const auto r = run_process({s}, o);
    EXPECT_TRUE(r.started);
    EXPECT_EQ(r.exit_code, 3);
    EXPECT_FALSE(r.ok());
    ASSERT_EQ(lines.size(), 3u);
    EXPECT_EQ(lines[0], std::make_pair(std::string("one"), false));
    EXPECT_EQ(lines[1], std::make_pair(std::string("two"), true));
    EXPECT_EQ(lines[2], std::make_pair(std::string("no newline"), false));
}

TEST(Process, ArgumentsPassedVerbatimAndCwdEnvApplied)
{
    const auto dir = sl::test::scratch_dir("process_args");
    const auto s = write_script(dir, "tool", "for a in \"$@\"; do echo \"[$a]\"; done\npwd\necho \"$SL_TEST_VAR\"\n");
    std::vector<std::string> lines;
    ProcessOptions o;
    o.cwd = dir;
    o.env["SL_TEST_VAR"] = "from-env";
    o.on_line = [&](const std::string& l, bool) { lines.push_back(l); };
    const auto r = run_process({s, "a b", "$HOME", "it's"}, o);
    ASSERT_TRUE(r.ok()) << r.error;
    ASSERT_EQ(lines.size(), 5u);
    EXPECT_EQ(lines[0], "[a b]");
    EXPECT_EQ(lines[1], "[$HOME]");   // no shell in between
    EXPECT_EQ(lines[2], "[it's]");
    EXPECT_EQ(lines[3], dir);
    EXPECT_EQ(lines[4], "from-env");
    EXPECT_EQ(shell_quote_command({"nsys", "profile", "-o", "a b", "it's"}), "nsys profile -o 'a b' 'it'\\''s'");
}

TEST(Process, StdoutToFile)
{
    const auto dir = sl::test::scratch_dir("process_file");
    const auto s = write_script(dir, "tool", "echo '\"ID\",\"Kernel Name\"'\necho progress >&2\n");
    std::vector<std::string> err_lines;
    ProcessOptions o;
    o.stdout_file = dir + "/out.csv";
    o.on_line = [&](const std::string& l, bool e) { EXPECT_TRUE(e); err_lines.push_back(l); };
    ASSERT_TRUE(run_process({s}, o).ok());
    std::ifstream in(dir + "/out.csv");
    std::string line;
    std::getline(in, line);
    EXPECT_EQ(line, "\"ID\",\"Kernel Name\"");
    EXPECT_EQ(err_lines, std::vector<std::string>{"progress"});
}

TEST(Process, MissingExecutableIsOneClearError)
{
    const auto r = run_process({"sightline-no-such-tool-xyz", "--version"});
    EXPECT_FALSE(r.started);
    EXPECT_NE(r.error.find("'sightline-no-such-tool-xyz' was not found on PATH"), std::string::npos) << r.error;
}

TEST(Process, TimeoutStopsTheWholeGroupAndKeepsOutputSoFar)
{
    const auto dir = sl::test::scratch_dir("process_timeout");
    // A background grandchild (which ignores SIGINT, as a non-interactive shell's background jobs do) and a
    // foreground sleep: both must be gone after the timeout.
    const auto s = write_script(dir, "tool",
                                "sleep 60 &\necho $! > " + dir + "/grandchild.pid\necho started\nsleep 60\necho never\n");
    std::vector<std::string> lines;
    ProcessOptions o;
    o.timeout_ms = 500;
    o.grace_ms = 300;
    o.on_line = [&](const std::string& l, bool) { lines.push_back(l); };
    const auto t0 = std::chrono::steady_clock::now();
    const auto r = run_process({s}, o);
    const auto took = std::chrono::steady_clock::now() - t0;
    EXPECT_TRUE(r.timed_out);
    EXPECT_FALSE(r.cancelled);
    EXPECT_FALSE(r.ok());
    EXPECT_LT(took, std::chrono::seconds(10));
    EXPECT_EQ(lines, std::vector<std::string>{"started"});
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    EXPECT_FALSE(pid_alive(dir + "/grandchild.pid"));
}

TEST(Process, CancelFlagSendsSigintThenKills)
{
    const auto dir = sl::test::scratch_dir("process_cancel");
    // Like nsys: on SIGINT it finishes writing its partial output, then exits.
    const auto s = write_script(dir, "tool",
                                "trap 'echo partial > " + dir + "/partial.txt; exit 130' INT\necho running\n"
                                "while :; do sleep 0.05; done\n");
    std::atomic<bool> cancel{false};
    ProcessOptions o;
    o.cancel = &cancel;
    o.on_line = [&](const std::string& l, bool) {
        if (l == "running")
            cancel = true;
    };
    const auto r = run_process({s}, o);
    EXPECT_TRUE(r.cancelled);
    EXPECT_TRUE(r.exit_code == 130 || r.signal != 0) << r.exit_code;
    std::ifstream in(dir + "/partial.txt");
    std::string partial;
    in >> partial;
    EXPECT_EQ(partial, "partial");   // the tool's own SIGINT handling ran: partial results are kept
}

TEST(Process, VersionParsingAndComparison)
{
    EXPECT_EQ(parse_version("NVIDIA Nsight Systems version 2024.5.1.113-245134619542v0"),
              (std::vector<int>{2024, 5, 1, 113}));
    EXPECT_EQ(parse_version("Version 2023.2.0.0 (build 32895467) (public-release)"),
              (std::vector<int>{2023, 2, 0, 0}));
    EXPECT_TRUE(parse_version("no digits here").empty());
    EXPECT_TRUE(version_less({2021, 5}, {2022, 1}));
    EXPECT_FALSE(version_less({2022, 1}, {2022, 1, 0}));
    EXPECT_FALSE(version_less({2024, 1}, {2022, 4, 9}));
}

TEST(Process, FindToolExplainsMissingOldAndSilentTools)
{
    const auto dir = sl::test::scratch_dir("process_tools");
    write_script(dir, "newtool", "echo 'NVIDIA Nsight Systems version 2024.5.1.113-245134619542v0'\n");
    write_script(dir, "oldtool", "echo 'NVIDIA Nsight Systems version 2020.3.4.32'\n");
    write_script(dir, "mutetool", "exit 1\n");
    const std::string old_path = std::getenv("PATH") ? std::getenv("PATH") : "";
    ::setenv("PATH", (dir + ":" + old_path).c_str(), 1);
    const auto ok = find_tool("newtool", {2022, 1}, "see developer.nvidia.com");
    EXPECT_TRUE(ok.usable()) << ok.error;
    EXPECT_EQ(ok.version, (std::vector<int>{2024, 5, 1, 113}));
    const auto old = find_tool("oldtool", {2022, 1}, "get it from developer.nvidia.com/nsight-systems");
    EXPECT_FALSE(old.usable());
    EXPECT_NE(old.error.find("version 2020.3.4.32, older than the 2022.1"), std::string::npos) << old.error;
    EXPECT_NE(old.error.find("developer.nvidia.com/nsight-systems"), std::string::npos);
    const auto mute = find_tool("mutetool", {2022, 1}, "x");
    EXPECT_FALSE(mute.usable());
    EXPECT_NE(mute.error.find("gave no version"), std::string::npos) << mute.error;
    const auto none = find_tool("sightline-absent-tool", {2022, 1}, "get it there");
    EXPECT_NE(none.error.find("was not found on PATH. Sightline needs sightline-absent-tool 2022.1 or newer"),
              std::string::npos)
        << none.error;
    ::setenv("PATH", old_path.c_str(), 1);
}
