// Values read with their type checked, in the three readers. The ground truth of each case is the same file without
// the bad row or event: the summary of what the reader kept must equal that file's summary exactly, and the bad
// value must give the documented warning (or, where a required column is mostly bad, the documented error).
//  - nsys: one TEXT 'hello' in a kernel's start was read as 0 (361 ms of kernel time in a 61 ms capture); columns
//    declared TEXT gave 10.2 s of kernel time; a NULL StringIds.value became "".
//  - ncu: "1,2,3" was read as 123; nan/inf/n/a were dropped silently; negative durations were kept.
//  - Kineto: device 2^31 became -2147483648, 1.5 became 1, ts beyond +/-2^61 ns was clamped without the promised
//    warning and larger ones dropped as "lacks a numeric ts".
#include <gtest/gtest.h>

#include <sqlite3.h>

#include <filesystem>
#include <fstream>

#include "analysis/io/input_bounds.h"
#include "analysis/io/kineto_reader.h"
#include "analysis/io/ncu_reader.h"
#include "analysis/io/nsys_reader.h"
#include "analysis/io/nsys_writer.h"
#include "analysis/io/synthetic.h"
#include "analysis/report/summary_json.h"
#include "analysis/timeline/summary.h"
#include "analysis/trace/checked_math.h"
#include "analysis/trace/errors.h"
#include "tests/support/test_env.h"

using namespace sl;
namespace fs = std::filesystem;

namespace {

const std::string& dir()
{
    static const std::string d = test::scratch_dir("typed_values");
    return d;
}

void exec(const std::string& path, const std::string& sql)
{
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    char* err = nullptr;
    EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err), SQLITE_OK) << (err ? err : "") << "\n" << sql;
    sqlite3_free(err);
    sqlite3_close(db);
}

// A small decode export, edited by sql.
std::string nsys_export(const std::string& name, const std::string& sql)
{
    static const Trace base = [] {
        SynthOptions o = synth_preset("decode");
        o.prefill_steps = 1;
        o.decode_steps = 3;
        o.layers = 2;
        return make_synthetic_trace(o);
    }();
    const std::string path = dir() + "/" + name + ".sqlite";
    fs::remove(path);
    write_nsys_sqlite(base, path);
    if (!sql.empty())
        exec(path, sql);
    return path;
}

// The summary without what names the file or the warnings: the numbers only.
nlohmann::json numbers(const Trace& t)
{
    nlohmann::json j = summary_to_json(t, summarize(t));
    j.erase("warnings");
    j["trace"].erase("path");
    j["trace"].erase("source");
    return j;
}

std::vector<std::string> warnings_with(const Trace& t, const std::string& needle)
{
    std::vector<std::string> w;
    for (const auto& s : t.meta.warnings)
        if (s.find(needle) != std::string::npos)
            w.push_back(s);
    return w;
}

const char* kKernel = "CUPTI_ACTIVITY_KIND_KERNEL";

// The writer declares columns NOT NULL, as nsys does; a damaged or hand-made file need not. The same table without
// its constraints (rows and rowids in the same order).
std::string unconstrained(const std::string& t)
{
    return "CREATE TABLE tmp_copy AS SELECT * FROM " + t + " ORDER BY rowid; DROP TABLE " + t +
           "; ALTER TABLE tmp_copy RENAME TO " + t + ";";
}
const std::string kFifth = "(SELECT rowid FROM CUPTI_ACTIVITY_KIND_KERNEL ORDER BY rowid LIMIT 1 OFFSET 4)";

} // namespace

// One bad value in one kernel row: the row is skipped, one warning names table, column, rowid and the value, and
// everything else is read as if the row were not there.
TEST(TypedValues, NsysWrongTypedKernelValueSkipsTheRow)
{
    struct Case {
        const char* column;
        const char* value;
        const char* found;   // the warning's words for it
    };
    for (const Case& c : {Case{"start", "'hello'", "the TEXT 'hello'"}, Case{"end", "1.5", "the REAL 1.5"},
                          Case{"deviceId", "2147483648", "the integer 2147483648 (outside -2147483648..2147483647)"},
                          Case{"streamId", "4294967296", "the integer 4294967296 (outside -2147483648..4294967295)"},
                          Case{"start", "NULL", "NULL"}, Case{"gridX", "x'00'", "a BLOB"}}) {
        SCOPED_TRACE(std::string(c.column) + " = " + c.value);
        const int64_t rowid = 5;
        const std::string bad = nsys_export("bad", unconstrained(kKernel) + "UPDATE " + kKernel + " SET \"" + c.column +
                                                       "\" = " + c.value + " WHERE rowid = " + kFifth);
        const std::string without =
            nsys_export("without", unconstrained(kKernel) + "DELETE FROM " + kKernel + " WHERE rowid = " + kFifth);
        const Trace tb = read_nsys_sqlite(bad), tw = read_nsys_sqlite(without);
        EXPECT_EQ(tb.kernels.size(), tw.kernels.size());
        EXPECT_EQ(numbers(tb), numbers(tw));
        const auto w = warnings_with(tb, std::string(kKernel) + "." + c.column);
        ASSERT_EQ(w.size(), 1u);
        EXPECT_EQ(w[0], std::string(kKernel) + "." + c.column + ": 1 row skipped for a value that is not an integer in range "
                                                                "(first at rowid " + std::to_string(rowid) + ": " + c.found + ")");
    }
}

// Every kernel's start stored as TEXT (a table declared TEXT): the file is refused, naming the column and a rowid,
// instead of 10 s of kernel time in a 0.4 s capture.
TEST(TypedValues, NsysRequiredColumnMostlyBadRefusesTheFile)
{
    const std::string path = nsys_export("text", std::string("UPDATE ") + kKernel + " SET start = CAST(start AS TEXT) || ' ns'");
    try {
        read_nsys_sqlite(path);
        FAIL() << "read a kernel table whose starts are all text";
    } catch (const TraceError& e) {
        EXPECT_EQ(e.where().rfind(std::string(kKernel) + ".start, rowid ", 0), 0u) << e.what();
        EXPECT_NE(std::string(e.found()).find("the TEXT '"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.found()).find("a bad value in "), std::string::npos) << e.what();
    }
}

// A NULL string is no name: its kernels read "[unknown string N]" and one warning says so.
TEST(TypedValues, NsysNullStringIdsValue)
{
    const std::string path = nsys_export("nullname", unconstrained("StringIds") +
                                                         "UPDATE StringIds SET value = NULL WHERE id = (SELECT demangledName "
                                                         "FROM CUPTI_ACTIVITY_KIND_KERNEL ORDER BY rowid LIMIT 1)");
    const auto id = test::sqlite_rows(path, "SELECT demangledName FROM CUPTI_ACTIVITY_KIND_KERNEL ORDER BY rowid LIMIT 1")[0][0];
    const Trace t = read_nsys_sqlite(path);
    EXPECT_EQ(t.str(t.kernels.name[0]), "[unknown string " + id + "]");
    const auto w = warnings_with(t, "StringIds.value");
    ASSERT_EQ(w.size(), 1u);
    EXPECT_EQ(w[0], "StringIds.value: 1 NULL string (first id " + id + "); the names that use them read \"[unknown string N]\"");
}

namespace {

std::string kineto_file(const std::string& name, const std::string& events)
{
    const std::string path = dir() + "/" + name + ".json";
    std::ofstream(path) << R"({"schemaVersion":1,"traceEvents":[)" << events << "]}";
    return path;
}

std::string kernel_event(int i, const std::string& args_extra = "", const std::string& ts = "")
{
    return R"({"ph":"X","cat":"kernel","name":"gemm_)" + std::to_string(i % 3) + R"(","pid":0,"tid":7,"ts":)" +
           (ts.empty() ? std::to_string(100 + 10 * i) : ts) + R"(,"dur":4,"args":{"device":0,"stream":7,"correlation":)" +
           std::to_string(i + 1) + args_extra + "}}";
}

std::string events(int n, int bad_at, const std::string& bad)
{
    std::string s;
    for (int i = 0; i < n; ++i) {
        if (i == bad_at && bad.empty())
            continue;
        if (!s.empty())
            s += ",\n";
        s += i == bad_at ? bad : kernel_event(i);
    }
    return s;
}

} // namespace

// Kineto integer fields: out of range or with a fraction, the event is skipped and counted per field.
TEST(TypedValues, KinetoIdsInRangeAndIntegral)
{
    struct Case {
        std::string event, warning;
    };
    const std::string gemm4 = "in kernel 'gemm_1'";
    const Case cases[] = {
        {R"({"ph":"X","cat":"kernel","name":"gemm_1","pid":0,"tid":7,"ts":140,"dur":4,"args":{"device":2147483648,"stream":7,"correlation":5}})",
         "1 event skipped for args.device that is not an integer in range (first: 2147483648, " + gemm4 + ")"},
        {R"({"ph":"X","cat":"kernel","name":"gemm_1","pid":0,"tid":7,"ts":140,"dur":4,"args":{"device":1.5,"stream":7,"correlation":5}})",
         "1 event skipped for args.device that is not an integer in range (first: 1.5, " + gemm4 + ")"},
        {R"({"ph":"X","cat":"kernel","name":"gemm_1","pid":0,"tid":7,"ts":140,"dur":4,"args":{"device":0,"stream":4294967296,"correlation":5}})",
         "1 event skipped for args.stream that is not an integer in range (first: 4294967296, " + gemm4 + ")"},
        {R"({"ph":"X","cat":"kernel","name":"gemm_1","pid":0,"tid":7,"ts":140,"dur":4,"args":{"device":0,"stream":7,"correlation":5,"grid":[1.5,1,1]}})",
         "1 event skipped for args.grid that is not an integer in range (first: 1.5, " + gemm4 + ")"},
    };
    const Trace without = read_kineto_json(kineto_file("without", events(12, 4, "")));
    for (const Case& c : cases) {
        SCOPED_TRACE(c.event);
        const Trace t = read_kineto_json(kineto_file("bad", events(12, 4, c.event)));
        EXPECT_EQ(t.kernels.size(), 11u);
        EXPECT_EQ(numbers(t), numbers(without));
        EXPECT_EQ(warnings_with(t, "skipped for args."), std::vector<std::string>{c.warning});
    }
}

// ts beyond +/-2^61 ns (73 years) of the origin, and beyond int64 ns, is no event of a capture: it is dropped with a
// warning naming it, never clamped (a clamped kernel stretched the trace to 2.31e+09 s; issue 36 §5). So is a dur
// that takes the end there (1e308).
TEST(TypedValues, KinetoHugeTimesAreDroppedWithAWarning)
{
    for (const std::string ts : {"3000000000000000", "1e20", "-1e20"}) {
        SCOPED_TRACE(ts);
        const Trace t = read_kineto_json(kineto_file("huge", events(6, 2, kernel_event(2, "", ts))));
        EXPECT_EQ(t.kernels.size(), 5u);
        EXPECT_TRUE(warnings_with(t, "lack a numeric ts").empty());
        const auto w = warnings_with(t, "beyond +/-2^61 ns");
        ASSERT_EQ(w.size(), 1u);
        EXPECT_NE(w[0].find("1 event dropped: its time lies beyond +/-2^61 ns (73 years) of the origin"),
                  std::string::npos) << w[0];
        for (size_t i = 0; i < t.kernels.size(); ++i) {
            EXPECT_GT(t.kernels.start[i], -kMaxTraceTimeNs);
            EXPECT_LT(t.kernels.end[i], kMaxTraceTimeNs);
        }
    }
    // One kernel of dur 1e308 among the others: dropped (as a dur no integer holds, or a time past the range).
    std::string ev = kernel_event(2);
    ev.replace(ev.find("\"dur\":4"), 7, "\"dur\":1e308");
    const Trace t = read_kineto_json(kineto_file("hugedur", events(6, 2, ev)));
    EXPECT_EQ(t.kernels.size(), 5u);
    int64_t hi = INT64_MIN;
    for (size_t i = 0; i < t.kernels.size(); ++i)
        hi = std::max(hi, t.kernels.end[i]);
    EXPECT_LT(hi, 1'000'000'000);   // the others end within a microsecond-scale capture
}

namespace {

// A raw-page ncu CSV with three launches; `dur` is launch 1's gpu__time_duration.sum as printed.
std::string ncu_csv(const std::string& name, const std::string& dur)
{
    const std::string path = dir() + "/" + name + ".csv";
    std::ofstream(path) << "\"ID\",\"Kernel Name\",\"gpu__time_duration.sum\",\"dram__bytes_read.sum\"\n"
                           "\"\",\"\",\"nsecond\",\"byte\"\n"
                           "\"0\",\"k0\",\"1,234\",\"100\"\n"
                           "\"1\",\"k1\",\"" << dur << "\",\"200\"\n"
                           "\"2\",\"k2\",\"2,000,000\",\"300\"\n";
    return path;
}

} // namespace

TEST(TypedValues, NcuNumbersAreChecked)
{
    struct Case {
        const char* text;
        const char* warning;
    };
    const Case cases[] = {
        {"1,2,3", "1 value with misplaced digit-group or decimal separators was not read as a number (first at line 4, "
                  "gpu__time_duration.sum: '1,2,3'; digits group by three, as in 1,234,567)"},
        {"12,34", "1 value with misplaced digit-group or decimal separators was not read as a number (first at line 4, "
                  "gpu__time_duration.sum: '12,34'; digits group by three, as in 1,234,567)"},
        {"nan", "1 value is nan or infinite and counts as missing (first at line 4, gpu__time_duration.sum: 'nan')"},
        {"inf", "1 value is nan or infinite and counts as missing (first at line 4, gpu__time_duration.sum: 'inf')"},
        {"n/a", "1 value is n/a and counts as missing (first at line 4, gpu__time_duration.sum: 'n/a')"},
        {"-5", "1 negative duration was dropped (first at line 4, gpu__time_duration.sum: '-5 nsecond')"},
    };
    NcuReadOptions o;
    o.decimal_separator = '.';
    const NcuReport clean = read_ncu(ncu_csv("clean", "5"), o);
    ASSERT_EQ(clean.launches.size(), 3u);
    EXPECT_EQ(clean.launches[0].number("gpu__time_duration.sum"), 1234.0);
    EXPECT_EQ(clean.launches[2].number("gpu__time_duration.sum"), 2000000.0);
    for (const Case& c : cases) {
        SCOPED_TRACE(c.text);
        const NcuReport r = read_ncu(ncu_csv("bad", c.text), o);
        ASSERT_EQ(r.launches.size(), 3u);
        EXPECT_FALSE(r.launches[1].number("gpu__time_duration.sum")) << "'" << c.text << "' read as a number";
        EXPECT_EQ(r.launches[1].number("dram__bytes_read.sum"), 200.0);
        for (size_t i : {0u, 2u})
            EXPECT_EQ(r.launches[i].number("gpu__time_duration.sum"), clean.launches[i].number("gpu__time_duration.sum"));
        std::vector<std::string> w;
        for (const auto& s : r.warnings)
            if (s.find("line 4") != std::string::npos)
                w.push_back(s);
        EXPECT_EQ(w, std::vector<std::string>{c.warning});
    }
    // The digit-group rule itself.
    EXPECT_EQ(parse_ncu_number("1,234,567.5"), 1234567.5);
    EXPECT_FALSE(parse_ncu_number("1,2,3"));
    EXPECT_FALSE(parse_ncu_number("1234,567"));
    EXPECT_FALSE(parse_ncu_number("1,234.5,6"));
    EXPECT_FALSE(parse_ncu_number("1.2.3"));
    EXPECT_EQ(parse_ncu_number("1.234.567,5", ','), 1234567.5);
    EXPECT_FALSE(parse_ncu_number("1.2.3", ','));
    EXPECT_FALSE(parse_ncu_number("1e5000"));
}
