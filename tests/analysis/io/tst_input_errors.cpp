// Errors that say what happened when an input cannot be opened (issue 36 §10), each input built here:
//  - a symbolic-link loop is ELOOP ("too many levels of symbolic links"), not "no such file";
//  - a file this user may not read is "permission denied", not "no such file" or "a file of another kind (missing)";
//  - a FIFO or a device (what /dev/stdin is) is "not a regular file", not "no such file";
//  - an nsys export locked by another writer is retried for a bounded time and then refused as "locked by another
//    process", never called corrupt or truncated; a lock released within that time is waited for.
#include <gtest/gtest.h>

#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <fstream>
#include <thread>

#include "analysis/io/graph_join.h"
#include "analysis/io/input_errors.h"
#include "analysis/io/load.h"
#include "analysis/io/model_config.h"
#include "analysis/io/nsys_reader.h"
#include "analysis/io/nsys_writer.h"
#include "analysis/io/synthetic.h"
#include "analysis/trace/errors.h"
#include "tests/support/helpers.h"
#include "tests/support/test_env.h"

using namespace sl;
namespace fs = std::filesystem;

namespace {

// A small nsys export (writer of the synthetic decode trace) at dir/name.sqlite.
std::string small_export(const std::string& dir, const std::string& name)
{
    SynthOptions o = synth_preset("decode");
    o.prefill_steps = 1;
    o.decode_steps = 2;
    o.layers = 1;
    const std::string path = dir + "/" + name + ".sqlite";
    fs::remove(path);
    write_nsys_sqlite(make_synthetic_trace(o), path);
    return path;
}

// Runs f in a child process as a user who is not root (uid/gid 65534 when this test runs as root: root reads any
// file), and returns what f returned (a message), or why the child could not say.
std::string as_unprivileged(const std::function<std::string()>& f)
{
    int fds[2];
    if (::pipe(fds) != 0)
        return "(no pipe)";
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::close(fds[0]);
        if (::geteuid() == 0 && (::setgid(65534) != 0 || ::setuid(65534) != 0))
            ::_exit(3);
        const std::string msg = f();
        [[maybe_unused]] auto w = ::write(fds[1], msg.data(), msg.size());
        ::close(fds[1]);
        ::_exit(0);
    }
    ::close(fds[1]);
    std::string out;
    char buf[4096];
    for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;)
        out.append(buf, static_cast<size_t>(n));
    ::close(fds[0]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return "(the child failed: status " + std::to_string(status) + ")";
    return out;
}

} // namespace

TEST(InputErrors, OpenErrorWords)
{
    EXPECT_EQ(open_error_text(ENOENT), "no such file");
    EXPECT_EQ(open_error_text(ELOOP), "a symbolic link loop (too many levels of symbolic links)");
    EXPECT_EQ(open_error_text(EACCES), "a file this user may not read (permission denied)");
    EXPECT_EQ(not_regular_file_text(S_IFIFO), "a FIFO (named pipe), not a regular file; pipes and devices are not read");
    EXPECT_EQ(not_regular_file_text(S_IFCHR), "a character device, not a regular file; pipes and devices are not read");
    EXPECT_EQ(not_regular_file_text(S_IFDIR), "a directory");
}

// A link to a link to the first: every reader says ELOOP, with the file's name.
TEST(InputErrors, SymlinkLoopIsEloop)
{
    const std::string d = test::scratch_dir("input_errors_loop");
    const std::string a = d + "/a.sqlite", b = d + "/b.sqlite";
    fs::remove(a);
    fs::remove(b);
    fs::create_symlink("b.sqlite", a);
    fs::create_symlink("a.sqlite", b);
    EXPECT_EQ(input_file_problem(a), "a symbolic link loop (too many levels of symbolic links)");
    for (const std::string& msg : {test::error_of([&] { load_trace(a); }), test::error_of([&] { read_nsys_sqlite(a); }),
                                   test::error_of([&] { read_nsys_report(a); }), test::error_of([&] { load_model_config(a); }),
                                   test::error_of([&] { capture_inputs(a, "flag"); })}) {
        EXPECT_NE(msg.find(a), std::string::npos) << msg;
        EXPECT_NE(msg.find("too many levels of symbolic links"), std::string::npos) << msg;
        EXPECT_EQ(msg.find("no such file"), std::string::npos) << msg;
    }
}

// A file without read permission: "permission denied", from the trace loader, the nsys reader and a capture.
TEST(InputErrors, UnreadableFileIsPermissionDenied)
{
    const std::string d = test::scratch_dir("input_errors_eacces");
    fs::permissions(d, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec | fs::perms::others_read |
                           fs::perms::others_exec);
    const std::string trace = small_export(d, "locked_out");
    const std::string capture = d + "/capture.json";
    std::ofstream(capture) << R"({"traceEvents": []})";
    ASSERT_EQ(::chmod(trace.c_str(), 0), 0);
    ASSERT_EQ(::chmod(capture.c_str(), 0), 0);
    const std::string msgs = as_unprivileged([&] {
        std::string all = input_file_problem(trace) + "\n";
        all += test::error_of([&] { load_trace(trace); }) + "\n";
        all += test::error_of([&] { read_nsys_sqlite(trace); }) + "\n";
        all += test::error_of([&] { read_capture(CaptureInput{capture, "flag", 0, {}}, LoadControl{}); }) + "\n";
        return all;
    });
    size_t lines = 0;
    for (size_t at = 0, nl; (nl = msgs.find('\n', at)) != std::string::npos; at = nl + 1, ++lines) {
        const std::string m = msgs.substr(at, nl - at);
        EXPECT_NE(m.find("permission denied"), std::string::npos) << m;
        EXPECT_EQ(m.find("no such file"), std::string::npos) << m;
        EXPECT_EQ(m.find("another kind"), std::string::npos) << m;
    }
    EXPECT_EQ(lines, 4u) << msgs;
    EXPECT_NE(msgs.find(trace), std::string::npos) << msgs;
    EXPECT_NE(msgs.find(capture), std::string::npos) << msgs;
    ::chmod(trace.c_str(), 0644);
    ::chmod(capture.c_str(), 0644);
}

// A FIFO and a character device (what /dev/stdin is under a pipe or a terminal) are "not a regular file".
TEST(InputErrors, FifoAndDeviceAreNotRegularFiles)
{
    const std::string d = test::scratch_dir("input_errors_fifo");
    const std::string fifo = d + "/pipe.sqlite";
    ::unlink(fifo.c_str());
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    for (const std::string& msg : {test::error_of([&] { load_trace(fifo); }), test::error_of([&] { read_nsys_sqlite(fifo); }),
                                   test::error_of([&] { read_nsys_report(fifo); }), test::error_of([&] { capture_inputs(fifo, "flag"); })}) {
        EXPECT_NE(msg.find(fifo), std::string::npos) << msg;
        EXPECT_NE(msg.find("a FIFO (named pipe), not a regular file"), std::string::npos) << msg;
        EXPECT_EQ(msg.find("no such file"), std::string::npos) << msg;
    }
    const std::string dev = test::error_of([] { load_trace("/dev/null"); });
    EXPECT_NE(dev.find("a character device, not a regular file"), std::string::npos) << dev;
}

// Another process holds the export's lock (a writer in the middle of a transaction): the reader retries for about
// two seconds, then says the file is locked, not that it is corrupt or truncated.
TEST(InputErrors, LockedNsysExportIsRetriedThenRefusedAsLocked)
{
    const std::string path = small_export(test::scratch_dir("input_errors_locked"), "busy");
    sqlite3* writer = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &writer), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(writer, "BEGIN EXCLUSIVE", nullptr, nullptr, nullptr), SQLITE_OK);
    const auto t0 = std::chrono::steady_clock::now();
    const std::string msg = test::error_of([&] { read_nsys_sqlite(path); });
    const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    sqlite3_exec(writer, "ROLLBACK", nullptr, nullptr, nullptr);
    sqlite3_close(writer);
    EXPECT_NE(msg.find(path), std::string::npos) << msg;
    EXPECT_NE(msg.find("locked by another process"), std::string::npos) << msg;
    EXPECT_EQ(msg.find("corrupt"), std::string::npos) << msg;
    EXPECT_EQ(msg.find("truncated"), std::string::npos) << msg;
    EXPECT_GE(waited, 1.5) << "refused at once, without a busy wait";
    EXPECT_LT(waited, 30.0) << "the wait is bounded";
}

TEST(InputErrors, LockReleasedWithinTheWaitIsWaitedFor)
{
    const std::string path = small_export(test::scratch_dir("input_errors_lock_released"), "busy");
    sqlite3* writer = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &writer), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(writer, "BEGIN EXCLUSIVE", nullptr, nullptr, nullptr), SQLITE_OK);
    std::thread release([writer] {
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        sqlite3_exec(writer, "ROLLBACK", nullptr, nullptr, nullptr);
    });
    Trace t;
    EXPECT_NO_THROW(t = read_nsys_sqlite(path));
    release.join();
    sqlite3_close(writer);
    EXPECT_GT(t.kernels.size(), 0u);
}
