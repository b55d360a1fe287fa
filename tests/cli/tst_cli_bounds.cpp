// What an input may become in memory, end to end through sightline-cli:
//  - a .json.gz that inflates to 10 GB (built here: a few MB of repeated gzip members) is refused with the file, the
//    byte offsets and the limit, in bounded memory and without inflating it all (it ended in a bare std::bad_alloc);
//  - 10^5 distinct 20 KB kernel names stay inside the documented bound (one name 16 KiB, the names 128 MiB: the
//    file is refused at the limit, under 1 GiB resident);
//  - the knowledge base: a typo'd directory is an error and creates nothing, a foreign database is refused with a
//    sentence and left as it was, a read-only knowledge base can still be listed.
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/support/helpers.h"
#include "tests/support/test_env.h"

using namespace sl;
namespace fs = std::filesystem;

namespace {

std::string cli() { return SIGHTLINE_CLI; }

int run(const std::string& args, std::string* out)
{
    out->clear();
    return test::run_command("timeout 120 " + cli() + " " + args, out, true);
}

const std::string& dir()
{
    static const std::string d = test::scratch_dir("cli_bounds");
    return d;
}

std::string slurp(const std::string& p)
{
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// One gzip member holding `text` (gzip allows any number of members one after another; they inflate to the
// concatenation of their contents).
std::string gzip_member(const std::string& text)
{
    z_stream z{};
    EXPECT_EQ(deflateInit2(&z, 9, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY), Z_OK);
    std::string out(deflateBound(&z, static_cast<uLong>(text.size())) + 64, '\0');
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
    z.avail_in = static_cast<uInt>(text.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
    out.resize(z.total_out);
    deflateEnd(&z);
    return out;
}

// Peak resident memory of the largest child this test process has waited for, in bytes.
uint64_t children_peak_rss()
{
    struct rusage ru {};
    getrusage(RUSAGE_CHILDREN, &ru);
    return static_cast<uint64_t>(ru.ru_maxrss) * 1024;
}

} // namespace

// Run first in this file, so the children's peak memory is this command's.
TEST(CliBounds, A10GBInflatingGzIsRefusedEarlyInBoundedMemory)
{
    // Python-function events with a 1 MB argument each: a profiler trace's kind of event, read and let go. One
    // gzip member repeated: about a thousandth of the content on disk.
    const std::string chunk = R"({"ph":"X","cat":"python_function","name":"forward","pid":1,"tid":1,"ts":1,"dur":1,)"
                              R"("args":{"Python id":1,"pad":")" + std::string(1 << 20, 'a') + "\"}},\n";
    const std::string member = gzip_member(chunk);
    const uint64_t copies = (uint64_t{10} << 30) / chunk.size();
    const std::string path = dir() + "/bomb.json.gz";
    {
        std::ofstream out(path, std::ios::binary);
        out << gzip_member(R"({"schemaVersion":1,"traceEvents":[)" "\n");
        for (uint64_t i = 0; i < copies; ++i)
            out << member;
        out << gzip_member(R"({"ph":"X","cat":"python_function","name":"end","pid":1,"tid":1,"ts":2,"dur":1}]})");
    }
    const uint64_t size = fs::file_size(path);
    EXPECT_LT(size, uint64_t{16} << 20) << "a few MB on disk";
    std::string log;
    const int rc = run("summary " + test::shell_quote(path), &log);
    EXPECT_EQ(rc, 2) << log;
    EXPECT_NE(log.find(path + " (inflated byte "), std::string::npos) << log;
    EXPECT_NE(log.find("of inflated content (64 MiB plus 64 times the"), std::string::npos) << log;
    EXPECT_NE(log.find("--max-inflate-ratio"), std::string::npos) << log;
    EXPECT_EQ(log.find("bad_alloc"), std::string::npos) << log;
    EXPECT_LT(children_peak_rss(), uint64_t{512} << 20) << "peak resident memory of the reader";
    // The limits are the user's to raise: a ratio that lets the whole file through is refused at the cap instead.
    EXPECT_EQ(run("summary --max-inflate-ratio none --max-inflated-size 100M " + test::shell_quote(path), &log), 2) << log;
    EXPECT_NE(log.find("at most 100 MiB of inflated content (the inflated-size cap"), std::string::npos) << log;
}

// 10^5 distinct kernel names of 20 KB each (2 GB of names): each is cut at 16 KiB and the names stop at the 128 MiB
// limit with a located error, well inside the documented memory bound.
TEST(CliBounds, HundredThousandLongNamesStayInsideTheBound)
{
    const std::string common = gzip_member(std::string(20000, 'n'));
    const std::string tail = gzip_member(R"(","pid":0,"tid":7,"ts":10,"dur":1,"args":{"device":0,"stream":7}})");
    const std::string comma = gzip_member(",\n");
    const std::string path = dir() + "/names.json.gz";
    {
        std::ofstream out(path, std::ios::binary);
        out << gzip_member(R"({"schemaVersion":1,"traceEvents":[)" "\n");
        for (int i = 0; i < 100000; ++i) {
            if (i)
                out << comma;
            out << gzip_member(R"({"ph":"X","cat":"kernel","name":"kernel_)" + std::to_string(i) + "_") << common << tail;
        }
        out << gzip_member("]}");
    }
    std::string log;
    const int rc = run("summary --max-inflate-ratio none " + test::shell_quote(path), &log);
    EXPECT_EQ(rc, 2) << log;
    EXPECT_NE(log.find(path + " (names (kernel, API, range and operator names)): expected at most 128 MiB of distinct names"),
              std::string::npos)
        << log;
    EXPECT_NE(log.find("--max-name-bytes"), std::string::npos) << log;
    EXPECT_LT(children_peak_rss(), uint64_t{1} << 30);
    // Under a higher limit the names are kept, each cut at 16 KiB and counted in one warning.
    std::string small;
    {
        std::ofstream out(dir() + "/few.json.gz", std::ios::binary);
        out << gzip_member(R"({"schemaVersion":1,"traceEvents":[)" "\n");
        for (int i = 0; i < 3; ++i)
            out << (i ? comma : std::string()) << gzip_member(R"({"ph":"X","cat":"kernel","name":"kernel_)" + std::to_string(i) + "_")
                << common << tail;
        out << gzip_member("]}");
    }
    ASSERT_EQ(run("summary --format json " + test::shell_quote(dir() + "/few.json.gz"), &log), 0) << log.substr(0, 2000);
    EXPECT_NE(log.find("3 names were longer than 16384 bytes; each was cut there and ends in \\\"[... N more bytes]\\\""),
              std::string::npos)
        << log.substr(0, 3000);
    EXPECT_NE(log.find("more bytes]"), std::string::npos);
}

TEST(CliBounds, KnowledgeBaseTypoDirectoryIsAnError)
{
    const std::string trace = dir() + "/t.sqlite";
    std::string log;
    ASSERT_EQ(run("generate --steps 2 --layers 1 --prefill 1 --quiet -o " + test::shell_quote(trace), &log), 0) << log;
    const std::string typo = dir() + "/typo/dir/k.db";
    for (const std::string& args : {"kb list --kb " + test::shell_quote(typo), "kb record " + test::shell_quote(trace) + " --kb " + test::shell_quote(typo),
                                    "analyze " + test::shell_quote(trace) + " --kb " + test::shell_quote(typo)}) {
        EXPECT_EQ(run(args, &log), 2) << args << "\n" << log;
        EXPECT_NE(log.find("the directory " + dir() + "/typo/dir does not exist"), std::string::npos) << args << "\n" << log;
    }
    EXPECT_FALSE(fs::exists(dir() + "/typo"));
    // A foreign SQLite file (the trace itself) as the knowledge base: a sentence, and the file as it was.
    const std::string before = slurp(trace);
    for (const std::string& args : {"kb list --kb " + test::shell_quote(trace), "kb record " + test::shell_quote(trace) + " --kb " + test::shell_quote(trace)}) {
        EXPECT_EQ(run(args, &log), 2) << args << "\n" << log;
        EXPECT_NE(log.find(trace + " is not a Sightline knowledge base: it is an SQLite database with other tables"),
                  std::string::npos)
            << log;
        EXPECT_EQ(log.find("SELECT"), std::string::npos) << log;
        EXPECT_EQ(log.find("PRAGMA"), std::string::npos) << log;
    }
    EXPECT_EQ(slurp(trace), before);
    EXPECT_FALSE(fs::exists(trace + "-wal"));
}

// A knowledge base on a read-only file system (a read-only bind mount in a private mount namespace; skipped where
// that is not allowed) still lists its suggestions; a command that must write says why it cannot.
TEST(CliBounds, AReadOnlyKnowledgeBaseCanBeListed)
{
    const std::string d = test::scratch_dir("cli_bounds_rokb");
    const std::string trace = d + "/t.sqlite", kb = d + "/kb/k.db";
    fs::create_directories(d + "/kb");
    std::string log;
    ASSERT_EQ(run("generate --steps 4 --layers 2 --prefill 1 --host-starved --quiet -o " + test::shell_quote(trace), &log), 0) << log;
    ASSERT_EQ(run("kb record " + test::shell_quote(trace) + " --kb " + test::shell_quote(kb), &log), 0) << log;
    std::string listed;
    ASSERT_EQ(test::run_command(cli() + " kb list --kb " + test::shell_quote(kb), &listed, false), 0);
    const std::string script = "mount --bind " + test::shell_quote(d + "/kb") + " " + test::shell_quote(d + "/kb") + " && mount -o remount,ro,bind " +
                               test::shell_quote(d + "/kb") + " || exit 77\n" + cli() + " kb list --kb " + test::shell_quote(kb) + "; echo \"rc=$?\"\n" +
                               cli() + " kb accept 1 --kb " + test::shell_quote(kb) + " 2>&1; echo \"rc=$?\"\n";
    log.clear();
    const int rc = test::run_command("unshare -m --propagation private sh -c " + test::shell_quote(script), &log, true);
    if (rc == 77 || log.find("rc=") == std::string::npos)
        GTEST_SKIP() << "cannot make a read-only bind mount here: " << log;
    const size_t first = log.find("rc=");
    EXPECT_EQ(log.substr(0, first), listed) << log;
    EXPECT_EQ(log.substr(first, 5), "rc=0\n") << log;
    EXPECT_NE(log.find("cannot be written (a read-only file or file system)"), std::string::npos) << log;
    EXPECT_NE(log.find("rc=2"), std::string::npos) << log;
}
