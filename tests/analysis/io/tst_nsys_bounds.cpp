// nsys reader bounds (issue 17), on an export the writer makes from the synthetic decode trace, then edited as a
// hostile or damaged file would be:
//  - max(rowid) near 2^63 sized the kernel arrays (a bare vector::reserve / bad_alloc);
//  - timestamps -2^63 and 2^63-1 were accepted silently (end - start overflows);
//  - a kernel name that is not UTF-8 reached the JSON output raw;
//  - a stale -journal beside the export gave "attempt to write a readonly database".
#include <gtest/gtest.h>

#include <sqlite3.h>

#include <filesystem>
#include <fstream>

#include "analysis/io/input_bounds.h"
#include "analysis/io/nsys_reader.h"
#include "analysis/io/nsys_writer.h"
#include "analysis/io/synthetic.h"
#include "analysis/trace/checked_math.h"
#include "analysis/trace/errors.h"
#include "tests/support/test_env.h"

using namespace sl;
namespace fs = std::filesystem;

namespace {

// A small decode export (2 decode steps, 2 layers) at dir/name, edited by `sql` (may be empty).
std::string export_with(const std::string& name, const std::string& sql)
{
    SynthOptions o = synth_preset("decode");
    o.prefill_steps = 1;
    o.decode_steps = 2;
    o.layers = 2;
    const std::string path = test::scratch_dir("nsys_bounds_" + name) + "/" + name + ".sqlite";
    fs::remove(path);
    write_nsys_sqlite(make_synthetic_trace(o), path);
    if (!sql.empty()) {
        sqlite3* db = nullptr;
        EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
        char* err = nullptr;
        EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err), SQLITE_OK) << (err ? err : "") << sql;
        sqlite3_free(err);
        sqlite3_close(db);
    }
    return path;
}

bool has_warning(const Trace& t, const std::string& text)
{
    for (const auto& w : t.meta.warnings)
        if (w.find(text) != std::string::npos)
            return true;
    return false;
}

} // namespace

TEST(NsysBounds, HugeMaxRowidDoesNotSizeArrays)
{
    const Trace plain = read_nsys_sqlite(export_with("plain", ""));
    const std::string path = export_with("rowid", "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET rowid = 9223372036854775000 "
                                                  "WHERE rowid = (SELECT max(rowid) FROM CUPTI_ACTIVITY_KIND_KERNEL);"
                                                  "UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET rowid = 9223372036854775001 "
                                                  "WHERE rowid = (SELECT max(rowid) FROM CUPTI_ACTIVITY_KIND_RUNTIME);");
    Trace t;
    ASSERT_NO_THROW(t = read_nsys_sqlite(path));
    EXPECT_EQ(t.kernels.size(), plain.kernels.size());
    EXPECT_EQ(t.api.size(), plain.api.size());
}

// A time beyond +/-2^61 ns (73 years) of the origin belongs to no capture: its row is dropped, not clamped — one row
// clamped to 2^61 made the whole trace "busy 100 % of 2.31e+09 s" (issue 36 §5). The warning names the table, the
// column, the row and the value.
TEST(NsysBounds, ExtremeTimestampsDropTheirRowWithAWarning)
{
    const Trace plain = read_nsys_sqlite(export_with("plain-times", ""));
    const std::string path = export_with("times", "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = -9223372036854775808, "
                                                  "\"end\" = 9223372036854775807 WHERE rowid = "
                                                  "(SELECT min(rowid) FROM CUPTI_ACTIVITY_KIND_KERNEL);"
                                                  "UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET \"end\" = 9223372036854775807 "
                                                  "WHERE rowid = (SELECT max(rowid) FROM CUPTI_ACTIVITY_KIND_RUNTIME);");
    const Trace t = read_nsys_sqlite(path);
    ASSERT_GT(t.kernels.size(), 0u);
    EXPECT_EQ(t.kernels.size(), plain.kernels.size() - 1);
    EXPECT_EQ(t.api.size(), plain.api.size() - 1);
    int64_t lo = INT64_MAX, hi = INT64_MIN, plain_hi = INT64_MIN;
    for (size_t i = 0; i < t.kernels.size(); ++i) {
        lo = std::min(lo, t.kernels.start[i]);
        hi = std::max(hi, t.kernels.end[i]);
    }
    for (size_t i = 0; i < plain.kernels.size(); ++i)
        plain_hi = std::max(plain_hi, plain.kernels.end[i]);
    EXPECT_GT(lo, -kMaxTraceTimeNs);
    EXPECT_LE(hi, plain_hi);
    EXPECT_EQ(t.meta.capture_end, plain.meta.capture_end);
    EXPECT_TRUE(has_warning(t, "CUPTI_ACTIVITY_KIND_KERNEL.start: 1 row skipped"));
    EXPECT_TRUE(has_warning(t, "the integer -9223372036854775808 (outside -2305843009213693952..2305843009213693952)"));
    EXPECT_TRUE(has_warning(t, "CUPTI_ACTIVITY_KIND_RUNTIME.end: 1 row skipped"));
    EXPECT_FALSE(has_warning(t, "clamped"));
}

TEST(NsysBounds, NonUtf8NamesAreKeptEscaped)
{
    const std::string path =
        export_with("utf8", "UPDATE StringIds SET value = value || CAST(X'FF' AS TEXT) WHERE value LIKE '%gemm%';");
    const Trace t = read_nsys_sqlite(path);
    size_t escaped = 0;
    for (size_t i = 0; i < t.kernels.size(); ++i) {
        const std::string n(t.str(t.kernels.name[i]));
        EXPECT_TRUE(is_valid_utf8(n)) << n;
        if (n.size() > 4 && n.compare(n.size() - 4, 4, "\\xFF") == 0)
            ++escaped;
    }
    EXPECT_GT(escaped, 0u);   // the GEMM kernels keep their names, with the stray byte visible
}

TEST(NsysBounds, StaleJournalGivesAClearReadOnlyMessage)
{
    const std::string path = export_with("journal", "");
    {
        // A hot rollback journal: the journal magic, as an interrupted write leaves it.
        std::ofstream j(path + "-journal", std::ios::binary);
        const unsigned char magic[] = {0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7};
        j.write(reinterpret_cast<const char*>(magic), sizeof magic);
        j << std::string(504, '\0');
    }
    try {
        read_nsys_sqlite(path);
        FAIL() << "accepted";
    } catch (const TraceError& e) {
        const std::string what = e.what();
        EXPECT_EQ(e.file(), path);
        EXPECT_NE(what.find(path + "-journal"), std::string::npos) << what;
        EXPECT_NE(what.find("read-only"), std::string::npos) << what;
        EXPECT_EQ(what.find("attempt to write a readonly database"), std::string::npos) << what;
    }
    EXPECT_TRUE(fs::exists(path + "-journal"));   // left as it was
}
