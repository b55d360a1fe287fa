// Errors that say what happened (issue 36 §10), through sightline-cli, each hostile input built here:
//  - a symbolic-link loop, a file the user may not read, a FIFO and /dev/stdin under a pipe are named as such
//    (ELOOP, "permission denied", "not a regular file"), exit 2;
//  - a reader that closes the pipe early (`analyze BIG --format json | head -c 10`) is exit 4 with one line on stderr,
//    not a silent death by SIGPIPE (rc 141);
//  - `kb record` with the knowledge base on a full file system is exit 4 (an output not written), not 2, and the
//    runs recorded before are still there.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/support/helpers.h"
#include "tests/support/test_env.h"

using namespace sl;
namespace fs = std::filesystem;

namespace {

std::string cli() { return SIGHTLINE_CLI; }

int shell(const std::string& cmd, std::string* out, bool merge_stderr = true)
{
    out->clear();
    return test::run_command(cmd, out, merge_stderr);
}

std::string slurp(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

size_t lines_of(const std::string& s) { return static_cast<size_t>(std::count(s.begin(), s.end(), '\n')); }

// A generated nsys export in the test's scratch folder: `steps` decode steps of `layers` layers.
std::string generated(const std::string& dir, const std::string& name, int steps, int layers)
{
    const std::string p = dir + "/" + name;
    std::string log;
    EXPECT_EQ(shell(cli() + " generate --steps " + std::to_string(steps) + " --layers " + std::to_string(layers) +
                        " --prefill 1 --quiet -o " + test::shell_quote(p), &log), 0)
        << log;
    return p;
}

} // namespace

TEST(CliErrors, InputsThatCannotBeReadAreNamedAsSuch)
{
    const std::string d = test::scratch_dir("cli_errors_inputs");
    std::string log;
    // A symbolic-link loop: ELOOP.
    fs::remove(d + "/a.sqlite");
    fs::remove(d + "/b.sqlite");
    fs::create_symlink("b.sqlite", d + "/a.sqlite");
    fs::create_symlink("a.sqlite", d + "/b.sqlite");
    EXPECT_EQ(shell(cli() + " analyze " + test::shell_quote(d + "/a.sqlite"), &log), 2) << log;
    EXPECT_NE(log.find(d + "/a.sqlite"), std::string::npos) << log;
    EXPECT_NE(log.find("a symbolic link loop (too many levels of symbolic links)"), std::string::npos) << log;
    EXPECT_EQ(log.find("no such file"), std::string::npos) << log;
    EXPECT_EQ(lines_of(log), 1u) << log;

    // A FIFO, and /dev/stdin under a pipe: not a regular file (and nothing blocks on them).
    const std::string fifo = d + "/pipe.json";
    ::unlink(fifo.c_str());
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    EXPECT_EQ(shell("timeout 60 " + cli() + " analyze " + test::shell_quote(fifo), &log), 2) << log;
    EXPECT_NE(log.find("a FIFO (named pipe), not a regular file"), std::string::npos) << log;
    EXPECT_EQ(shell("echo '{}' | timeout 60 " + cli() + " analyze /dev/stdin", &log), 2) << log;
    EXPECT_NE(log.find("/dev/stdin"), std::string::npos) << log;
    EXPECT_NE(log.find("not a regular file"), std::string::npos) << log;
    EXPECT_EQ(log.find("no such file"), std::string::npos) << log;

    // A file this user may not read. Root reads every file, so as root the command runs as uid 65534.
    const std::string trace = generated(d, "unreadable.sqlite", 1, 1);
    ASSERT_EQ(::chmod(trace.c_str(), 0), 0);
    std::string as_user;
    if (::geteuid() == 0) {
        if (shell("setpriv --reuid=65534 --regid=65534 --clear-groups true", &log) != 0)
            GTEST_SKIP() << "running as root without setpriv: " << log;
        as_user = "setpriv --reuid=65534 --regid=65534 --clear-groups ";
    }
    const int rc = shell(as_user + cli() + " analyze " + test::shell_quote(trace), &log);
    ::chmod(trace.c_str(), 0644);
    EXPECT_EQ(rc, 2) << log;
    EXPECT_NE(log.find(trace), std::string::npos) << log;
    EXPECT_NE(log.find("permission denied"), std::string::npos) << log;
    EXPECT_EQ(log.find("no such file"), std::string::npos) << log;
    EXPECT_EQ(log.find("another kind"), std::string::npos) << log;
}

// `analyze BIG --format json | head -c 10`: the JSON (hundreds of KB, more than a pipe holds) meets a closed pipe.
TEST(CliErrors, AClosedStandardOutputIsExit4)
{
    const std::string d = test::scratch_dir("cli_errors_pipe");
    const std::string big = generated(d, "big.sqlite", 200, 4);
    for (const std::string format : {"json", "text"}) {
        const std::string err = d + "/err-" + format, rc = d + "/rc-" + format;
        std::string log;
        ASSERT_EQ(shell("{ timeout 120 " + cli() + " analyze " + test::shell_quote(big) + " --format " + format + " 2>" + test::shell_quote(err) +
                            "; echo $? >" + test::shell_quote(rc) + "; } | head -c 10 >/dev/null",
                        &log),
                  0)
            << log;
        const std::string code = slurp(rc), msg = slurp(err);
        if (format == "text" && code == "0\n")
            continue;   // the text may fit in the pipe before head closes it; the JSON does not
        EXPECT_EQ(code, "4\n") << format << ": " << msg;
        EXPECT_EQ(msg, "sightline-cli: cannot write standard output: Broken pipe\n") << format;
    }
}

// The knowledge base on a small tmpfs (a private mount namespace; skipped where mounting is not allowed): a run
// recorded, the disk filled, the next record is exit 4 naming the file and the reason; the first run is still listed.
TEST(CliErrors, KbRecordOnAFullDiskIsExit4)
{
    std::string probe;
    if (shell("unshare -m --propagation private sh -c 'd=$(mktemp -d) && mount -t tmpfs -o size=64k tmpfs $d "
              "&& umount $d && rmdir $d' 2>&1",
              &probe, false) != 0)
        GTEST_SKIP() << "cannot mount a tmpfs in a private mount namespace here (" << probe << ")";
    const std::string d = test::scratch_dir("cli_errors_kb_full");
    const std::string trace = generated(d, "t.sqlite", 2, 1);
    const std::string script = d + "/kbfull.sh";
    std::ofstream(script) << "set -u\nd=$(mktemp -d)\nmount -t tmpfs -o size=512k tmpfs \"$d\" || exit 77\n"
                          << "echo '== first'; " << cli() << " kb record " << test::shell_quote(trace) << " --kb \"$d/kb.db\" 2>&1; echo \"rc=$?\"\n"
                          << "cat /dev/zero > \"$d/fill\" 2>/dev/null\n"
                          << "echo '== full'; " << cli() << " kb record " << test::shell_quote(trace) << " --kb \"$d/kb.db\" 2>&1; echo \"rc=$?\"\n"
                          << "echo '== compare'; " << cli() << " compare " << test::shell_quote(trace) << " " << test::shell_quote(trace)
                          << " --record --kb \"$d/kb.db\" 2>&1 >/dev/null; echo \"rc=$?\"\n"
                          << "rm \"$d/fill\"\n"
                          << "echo '== list'; " << cli() << " kb list --kb \"$d/kb.db\" 2>&1; echo \"rc=$?\"\n"
                          << "umount \"$d\"\n";
    std::string log;
    const int rc = shell("unshare -m --propagation private sh " + test::shell_quote(script), &log);
    if (rc == 77)
        GTEST_SKIP() << "cannot mount a tmpfs: " << log;
    ASSERT_EQ(rc, 0) << log;
    auto part = [&](const std::string& name) {
        const size_t at = log.find("== " + name + "\n");
        const size_t end = log.find("== ", at + 3);
        return at == std::string::npos ? std::string() : log.substr(at, end - at);
    };
    EXPECT_NE(part("first").find("rc=0"), std::string::npos) << log;
    for (const char* p : {"full", "compare"}) {
        const std::string s = part(p);
        EXPECT_NE(s.find("rc=4"), std::string::npos) << p << "\n" << log;
        EXPECT_NE(s.find("kb.db: cannot write the knowledge base: No space left on device"), std::string::npos)
            << p << "\n" << log;
    }
    const std::string list = part("list");
    EXPECT_NE(list.find("rc=0"), std::string::npos) << log;
    EXPECT_NE(list.find("run 1"), std::string::npos) << log;   // the run recorded before the disk filled
}
