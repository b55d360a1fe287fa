// output_file.h: an output is never an input, is written whole or not at all, and keeps a link a link; and the
// bounds of input_bounds.h that keep an input's names, inflated content and text for the terminal in check.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "analysis/io/input_bounds.h"
#include "analysis/io/output_file.h"
#include "analysis/trace/errors.h"
#include "tests/support/test_env.h"

using namespace sl;
namespace fs = std::filesystem;

namespace {

const std::string& dir()
{
    static const std::string d = test::scratch_dir("output_file");
    return d;
}

std::string slurp(const std::string& p)
{
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

void spit(const std::string& p, const std::string& t) { std::ofstream(p, std::ios::binary) << t; }

bool no_temporaries(const std::string& d)
{
    for (const auto& e : fs::directory_iterator(d))
        if (e.path().filename().string().find(".sightline-") != std::string::npos)
            return false;
    return true;
}

} // namespace

TEST(OutputFile, WritesAndReplacesWholeFiles)
{
    const std::string p = dir() + "/a.txt";
    write_output_file(p, "first");
    EXPECT_EQ(slurp(p), "first");
    ::chmod(p.c_str(), 0640);
    write_output_file(p, "second, longer");
    EXPECT_EQ(slurp(p), "second, longer");
    struct stat st {};
    ASSERT_EQ(::stat(p.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0640u) << "the replaced file keeps its permissions";
    EXPECT_TRUE(no_temporaries(dir()));
}

TEST(OutputFile, AnInputIsNeverAnOutput)
{
    const std::string in = dir() + "/input.dat";
    spit(in, "precious");
    const std::string sym = dir() + "/input.sym", hard = dir() + "/input.hard";
    fs::remove(sym);
    fs::remove(hard);
    fs::create_symlink(in, sym);
    fs::create_hard_link(in, hard);
    fs::create_directories(dir() + "/sub");
    for (const std::string& out : {in, sym, hard, dir() + "/sub/../input.dat"}) {
        SCOPED_TRACE(out);
        try {
            write_output_file(out, "overwritten", {in});
            FAIL() << "wrote over the input";
        } catch (const OutputIsInput& e) {
            EXPECT_EQ(e.output(), out);
            EXPECT_EQ(e.input(), in);
            EXPECT_NE(std::string(e.what()).find("refusing to write " + out + ": it is the input " + in), std::string::npos);
        }
        EXPECT_EQ(slurp(in), "precious");
    }
    // An input noted by the readers' size check counts without being named again.
    const std::string noted = dir() + "/noted.dat";
    spit(noted, "also precious");
    check_input_file(noted, InputKind::DataFile, "a data file");
    EXPECT_THROW(write_output_file(noted, "x"), OutputIsInput);
    EXPECT_EQ(slurp(noted), "also precious");
}

// The knowledge base and any SQLite database Sightline did not write are never replaced (issue 36), whichever writer
// is used, unless --force (set_force_overwrite) says so; a file Sightline stamped with its application id may be.
TEST(OutputFile, AProtectedFileOrAForeignDatabaseIsNeverAnOutput)
{
    const std::string kb = dir() + "/knowledge.db";
    std::string header(100, '\0');
    header.replace(0, 16, std::string("SQLite format 3\0", 16));
    spit(kb, header + "rows the user recorded");
    const std::string kept = slurp(kb);
    protect_output_path(kb, "the knowledge base in use");
    EXPECT_THROW(write_output_file(kb, "x"), OutputProtected);
    EXPECT_THROW(TempOutput t(kb), OutputProtected);
    EXPECT_THROW(write_output_file(dir() + "/./knowledge.db", "x"), OutputProtected);
    try {
        write_output_file(kb + "-wal", "x");   // does not exist: compared by path
        ADD_FAILURE() << "the write-ahead log was written";
    } catch (const OutputProtected& e) {
        EXPECT_NE(std::string(e.what()).find("the write-ahead log of the knowledge base in use"), std::string::npos)
            << e.what();
    }
    EXPECT_FALSE(fs::exists(kb + "-wal"));
    EXPECT_EQ(slurp(kb), kept);

    // Another program's SQLite database, named by nothing but the output.
    const std::string foreign = dir() + "/notes.db";
    spit(foreign, header + "notes");
    EXPECT_THROW(write_output_file(foreign, "x"), OutputProtected);
    EXPECT_EQ(slurp(foreign), header + "notes");
    // The same header with Sightline's application id (offset 68, big-endian): ours, it may be replaced.
    std::string ours = header;
    for (int i = 0; i < 4; ++i)
        ours[68 + static_cast<size_t>(i)] = static_cast<char>((kSightlineSqliteApplicationId >> (24 - 8 * i)) & 0xFF);
    const std::string mine = dir() + "/planted.sqlite";
    spit(mine, ours);
    EXPECT_NO_THROW(write_output_file(mine, "new"));
    EXPECT_EQ(slurp(mine), "new");

    // --force lifts the guard, never the input one.
    set_force_overwrite(true);
    EXPECT_NO_THROW(write_output_file(foreign, "replaced"));
    EXPECT_EQ(slurp(foreign), "replaced");
    EXPECT_THROW(write_output_file(foreign, "x", {foreign}), OutputIsInput);
    set_force_overwrite(false);
    EXPECT_THROW(write_output_file(kb, "x"), OutputProtected);
    EXPECT_EQ(slurp(kb), kept);
}

TEST(OutputFile, ALinkToAnOutputStaysALink)
{
    const std::string target = dir() + "/real.txt", link = dir() + "/link.txt";
    spit(target, "old");
    fs::remove(link);
    fs::create_symlink("real.txt", link);   // relative, as users make them
    write_output_file(link, "new");
    EXPECT_TRUE(fs::is_symlink(link));
    EXPECT_EQ(slurp(target), "new");
}

TEST(OutputFile, FailuresNameThePathAndKeepThePreviousFile)
{
    try {
        write_output_file("/dev/full", "x");
        FAIL();
    } catch (const OutputError& e) {
        EXPECT_EQ(e.path(), "/dev/full");
        EXPECT_EQ(e.reason(), "No space left on device");
    }
    EXPECT_THROW(write_output_file(dir(), "x"), OutputError);   // a directory
    try {
        write_output_file(dir() + "/no/such/dir/out.txt", "x");
        FAIL();
    } catch (const OutputError& e) {
        EXPECT_NE(e.reason().find("No such file or directory"), std::string::npos) << e.what();
    }
    // A temporary that is never committed leaves the target as it was.
    const std::string p = dir() + "/kept.txt";
    spit(p, "previous");
    {
        TempOutput t(p);
        spit(t.path(), "half");
        EXPECT_TRUE(fs::exists(t.path()));
    }
    EXPECT_EQ(slurp(p), "previous");
    EXPECT_TRUE(no_temporaries(dir()));
    {
        TempOutput t(p);
        spit(t.path(), "whole");
        t.commit();
    }
    EXPECT_EQ(slurp(p), "whole");
    EXPECT_TRUE(no_temporaries(dir()));
}

TEST(OutputFile, SignalSafeRemovalRemovesTemporariesInFlight)
{
    const std::string p = dir() + "/signal.txt";
    TempOutput t(p);
    t.also_remove("-journal");
    spit(t.path(), "partial");
    spit(t.path() + "-journal", "journal");
    remove_temporaries_signal_safe();
    EXPECT_FALSE(fs::exists(t.path()));
    EXPECT_FALSE(fs::exists(t.path() + "-journal"));
    EXPECT_FALSE(fs::exists(p));
}

TEST(InputBounds, NamesAreBoundedAtACharacterBoundary)
{
    std::string scratch;
    std::string_view shortname = "gemm";
    EXPECT_FALSE(bound_name(shortname, scratch));
    EXPECT_EQ(shortname, "gemm");
    std::string longname;
    while (longname.size() < 70000)
        longname += "\xe5\x90\x8d";   // a three-byte character, so a cut could fall inside one
    std::string_view v = longname;
    ASSERT_TRUE(bound_name(v, scratch));
    EXPECT_LE(v.size(), kMaxNameBytes);
    EXPECT_TRUE(is_valid_utf8(v));
    const std::string kept(v.substr(0, v.find(" [... ")));
    EXPECT_EQ(longname.compare(0, kept.size(), kept), 0);
    EXPECT_NE(std::string(v).find(" [... " + std::to_string(longname.size() - kept.size()) + " more bytes]"),
              std::string::npos);
    std::string_view again = v;
    std::string scratch2;
    EXPECT_FALSE(bound_name(again, scratch2)) << "a cut name is short enough";
    EXPECT_THROW(check_name_bytes("t.json", "names", name_bytes_limit() + 1), TraceError);
    EXPECT_NO_THROW(check_name_bytes("t.json", "names", name_bytes_limit()));
}

TEST(InputBounds, InflatedLimitIsARatioWithAFloorAndACap)
{
    set_inflate_ratio_override(0);
    set_inflated_size_override(0);
    EXPECT_EQ(inflated_size_limit(0), uint64_t{64} << 20);                          // 64 MiB before anything
    EXPECT_EQ(inflated_size_limit(uint64_t{10} << 20), uint64_t{(64 + 640)} << 20);  // + 64 x what was read
    EXPECT_EQ(inflated_size_limit(uint64_t{4} << 30), uint64_t{64} << 30);           // the cap
    set_inflate_ratio_override(10);
    EXPECT_EQ(inflated_size_limit(uint64_t{10} << 20), uint64_t{(64 + 100)} << 20);
    set_inflate_ratio_override(UINT64_MAX);
    EXPECT_EQ(inflated_size_limit(uint64_t{10} << 20), uint64_t{64} << 30);
    set_inflated_size_override(UINT64_MAX);
    EXPECT_EQ(inflated_size_limit(uint64_t{10} << 20), UINT64_MAX);
    set_inflate_ratio_override(0);
    set_inflated_size_override(0);
    EXPECT_NE(inflated_limit_text(uint64_t{10} << 20).find("64 MiB plus 64 times the 10 MiB of compressed data read"),
              std::string::npos)
        << inflated_limit_text(uint64_t{10} << 20);
}

TEST(InputBounds, MemoryBudgetNamesTheFileThePlaceAndTheLimit)
{
    EXPECT_GT(resident_memory_bytes(), 0u);
    EXPECT_NO_THROW(check_memory_budget("t.sqlite", "kernels, row 16384"));
    set_memory_budget_override(1 << 20);   // 1 MiB: this process is over it
    try {
        check_memory_budget("t.sqlite", "kernels, row 16384");
        FAIL();
    } catch (const TraceError& e) {
        EXPECT_EQ(e.file(), "t.sqlite");
        EXPECT_EQ(e.where(), "kernels, row 16384");
        EXPECT_NE(e.expected().find("1 MiB"), std::string::npos) << e.what();
        EXPECT_NE(e.expected().find("--max-memory"), std::string::npos) << e.what();
    }
    const TraceError oom = out_of_memory_error("t.sqlite");
    EXPECT_EQ(oom.where(), "after kernels, row 16384");
    EXPECT_NE(oom.found().find("out of memory"), std::string::npos);
    set_memory_budget_override(0);
}

TEST(InputBounds, TextForATerminal)
{
    EXPECT_EQ(terminal_safe("plain name"), "plain name");
    EXPECT_EQ(terminal_safe("a\x1b[2J\nb\tc\rd"), "a\\x1B[2J\\nb\\tc\\rd");
    EXPECT_EQ(terminal_safe("caf\xc3\xa9 \xe5\x90\x8d"), "caf\xc3\xa9 \xe5\x90\x8d");   // text stays text
    EXPECT_EQ(terminal_safe("x\xc2\x9b" "31m"), "x\\xC2\\x9B31m");                     // C1 CSI
    EXPECT_EQ(terminal_safe("a\xe2\x80\xae" "b"), "a\\xE2\\x80\\xAEb");                   // right-to-left override
    EXPECT_EQ(terminal_safe("bad \xff byte"), "bad \\xFF byte");
    EXPECT_TRUE(has_control_chars("k\x1b"));
    EXPECT_FALSE(has_control_chars("caf\xc3\xa9"));
    EXPECT_EQ(escape_control_chars("k\x1b[31m\nx\xc2\x85y"), "k\\x1B[31m\\nx\\xC2\\x85y");
}
