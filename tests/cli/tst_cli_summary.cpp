// `sightline-cli summary`: exit codes, the JSON contract on a generated export (numbers checked by SQL against the
// file), text output, -o, and bad input.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "tests/support/test_env.h"

using nlohmann::json;
using namespace sl;

namespace {

std::string cli() { return SIGHTLINE_CLI; }

// Runs sightline-cli; *out receives this run's output only (run_command appends).
int run(const std::string& args, std::string* out, bool merge_stderr = false)
{
    out->clear();
    return test::run_command(cli() + " " + args, out, merge_stderr);
}

// A generated decode-shaped export, made once per test binary.
const std::string& generated()
{
    static const std::string path = [] {
        const std::string p = test::scratch_dir("cli_summary") + "/decode.sqlite";
        std::string out;
        const int rc = run("generate --preset decode --nccl -o " + p + " --quiet", &out, true);
        EXPECT_EQ(rc, 0) << out;
        return p;
    }();
    return path;
}

int64_t sql_int(const std::string& db, const std::string& sql)
{
    const auto rows = test::sqlite_rows(db, sql);
    return rows.empty() || rows[0].empty() || rows[0][0].empty() ? 0 : std::stoll(rows[0][0]);
}

std::string read_file(const std::string& p)
{
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

} // namespace

TEST(CliSummary, UsageErrorsExit64)
{
    std::string out;
    EXPECT_EQ(run("summary", &out, true), 64) << out;
    EXPECT_NE(out.find("usage"), std::string::npos);
    EXPECT_EQ(run("summary x.sqlite --format xml", &out, true), 64) << out;
    EXPECT_EQ(run("summary x.sqlite --rank minus1", &out, true), 64) << out;
    EXPECT_EQ(run("summary x.sqlite --rank -3", &out, true), 64) << out;
    EXPECT_EQ(run("summary x.sqlite --top-gaps", &out, true), 64) << out;
    EXPECT_EQ(run("summary x.sqlite --bogus", &out, true), 64) << out;
}

TEST(CliSummary, BadInputExits2WithAMessage)
{
    const std::string dir = test::scratch_dir("cli_summary_bad");
    std::string out;
    EXPECT_EQ(run("summary " + dir + "/absent.sqlite", &out, true), 2);
    EXPECT_NE(out.find("absent.sqlite"), std::string::npos) << out;

    const std::string junk = dir + "/junk.sqlite";
    std::ofstream(junk) << "this is not a trace at all\n";
    EXPECT_EQ(run("summary " + junk, &out, true), 2);
    EXPECT_NE(out.find("junk.sqlite"), std::string::npos) << out;

    const std::string empty = dir + "/empty.sqlite";
    std::ofstream(empty).flush();
    EXPECT_EQ(run("summary " + empty + " --format json", &out, true), 2);
    EXPECT_NE(out.find("empty"), std::string::npos) << out;
}

TEST(CliSummary, JsonOnAGeneratedExportCarriesTheContractAndTheRightNumbers)
{
    const std::string& db = generated();
    std::string out;
    ASSERT_EQ(run("summary " + db + " --format json", &out), 0) << out;
    const json j = json::parse(out);
    EXPECT_EQ(j["schema"], "sightline.summary/1");
    for (const char* k : {"trace", "options", "kernels", "api", "memops", "nvtx", "devices", "warnings"})
        EXPECT_TRUE(j.contains(k)) << k;
    for (const char* k : {"format", "tool_version", "schema_version", "source", "capture", "devices"})
        EXPECT_TRUE(j["trace"].contains(k)) << k;
    EXPECT_EQ(j["trace"]["format"], "nsys-sqlite");
    EXPECT_EQ(j["trace"]["source"], db);
    const auto& row = j["kernels"]["by_name"].at(0);
    for (const char* k : {"name", "instances", "total_ns", "avg_ns", "med_ns", "min_ns", "max_ns", "stddev_ns",
                          "percent"})
        EXPECT_TRUE(row.contains(k)) << k;
    for (const char* k : {"total_ns", "avg_ns", "med_ns", "min_ns", "max_ns", "stddev_ns", "instances"})
        EXPECT_TRUE(row[k].is_number_integer()) << k;

    // Numbers, recomputed by SQL on the file.
    EXPECT_EQ(j["kernels"]["count"], sql_int(db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"));
    EXPECT_EQ(j["kernels"]["total_ns"], sql_int(db, "SELECT sum(end - start) FROM CUPTI_ACTIVITY_KIND_KERNEL"));
    EXPECT_EQ(j["kernels"]["by_name"].size(),
              static_cast<size_t>(sql_int(db, "SELECT count(DISTINCT demangledName) FROM CUPTI_ACTIVITY_KIND_KERNEL")));
    const auto top = test::sqlite_rows(
        db, "SELECT s.value, count(*), sum(k.end - k.start), min(k.end - k.start), max(k.end - k.start) "
            "FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.demangledName "
            "GROUP BY s.value ORDER BY 3 DESC, 2, 1 LIMIT 1");
    ASSERT_EQ(top.size(), 1u);
    EXPECT_EQ(row["name"], top[0][0]);
    EXPECT_EQ(row["instances"], std::stoll(top[0][1]));
    EXPECT_EQ(row["total_ns"], std::stoll(top[0][2]));
    EXPECT_EQ(row["min_ns"], std::stoll(top[0][3]));
    EXPECT_EQ(row["max_ns"], std::stoll(top[0][4]));
    EXPECT_EQ(j["api"]["count"], sql_int(db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME"));
    EXPECT_EQ(j["api"]["total_ns"], sql_int(db, "SELECT sum(end - start) FROM CUPTI_ACTIVITY_KIND_RUNTIME"));
    EXPECT_EQ(j["memops"]["bytes"], sql_int(db, "SELECT sum(bytes) FROM CUPTI_ACTIVITY_KIND_MEMCPY"));

    // Device 0: window and busy time by SQL (busy: sum over rows of the part not covered by earlier rows, with a
    // running max of end ordered by start).
    const auto& dev = j["devices"].at(0);
    const std::string ops = "SELECT start, end FROM CUPTI_ACTIVITY_KIND_KERNEL UNION ALL "
                            "SELECT start, end FROM CUPTI_ACTIVITY_KIND_MEMCPY";
    EXPECT_EQ(dev["start_ns"], sql_int(db, "SELECT min(start) FROM (" + ops + ")"));
    EXPECT_EQ(dev["end_ns"], sql_int(db, "SELECT max(end) FROM (" + ops + ")"));
    const int64_t busy = sql_int(
        db, "WITH o AS (SELECT start, end, max(end) OVER (ORDER BY start, end ROWS BETWEEN UNBOUNDED PRECEDING AND 1 "
            "PRECEDING) AS prev FROM (" + ops + ")) "
            "SELECT sum(CASE WHEN prev IS NULL OR start >= prev THEN end - start "
            "                WHEN end > prev THEN end - prev ELSE 0 END) FROM o");
    EXPECT_EQ(dev["busy_ns"], busy);
    EXPECT_EQ(dev["idle_ns"].get<int64_t>(), dev["window_ns"].get<int64_t>() - busy);
    EXPECT_NEAR(dev["utilization"].get<double>(),
                static_cast<double>(busy) / dev["window_ns"].get<double>(), 1e-12);
    EXPECT_EQ(dev["gaps"]["histogram"].size(), 7u);
    EXPECT_LE(dev["gaps"]["largest"].size(), 10u);
    int64_t hist_total = 0;
    for (const auto& b : dev["gaps"]["histogram"])
        hist_total += b["total_ns"].get<int64_t>();
    EXPECT_EQ(hist_total, dev["idle_ns"].get<int64_t>());
    const auto& g = dev["gaps"]["largest"].at(0);
    for (const char* k : {"start_ns", "duration_ns", "before", "after"})
        EXPECT_TRUE(g.contains(k)) << k;
    EXPECT_EQ(g["before"]["end_ns"], g["start_ns"]);
    EXPECT_EQ(g["after"]["start_ns"].get<int64_t>(), g["start_ns"].get<int64_t>() + g["duration_ns"].get<int64_t>());
}

TEST(CliSummary, TextAndOutputFile)
{
    const std::string& db = generated();
    std::string out;
    ASSERT_EQ(run("summary " + db, &out), 0) << out;
    for (const char* k : {"cuda_gpu_kern_sum", "cuda_api_sum", "cuda_gpu_mem_time_sum", "cuda_gpu_mem_size_sum",
                          "nvtx_sum", "GPU Utilization", "Largest gaps"})
        EXPECT_NE(out.find(k), std::string::npos) << k;

    const std::string file = test::scratch_dir("cli_summary_out") + "/s.json";
    std::string none;
    ASSERT_EQ(run("summary " + db + " --format=json --top-gaps 3 -o " + file, &none), 0);
    EXPECT_TRUE(none.empty()) << none;
    const json j = json::parse(read_file(file));
    EXPECT_EQ(j["options"]["top_gaps"], 3);
    EXPECT_LE(j["devices"].at(0)["gaps"]["largest"].size(), 3u);
    EXPECT_TRUE(j["options"]["rank"].is_null());

    // --rank 0 on one file keeps everything; --rank 3 selects nothing and says so.
    ASSERT_EQ(run("summary " + db + " --format json --rank 3", &out), 0);
    const json r3 = json::parse(out);
    EXPECT_EQ(r3["kernels"]["count"], 0);
    EXPECT_TRUE(r3["devices"].empty());
    EXPECT_FALSE(r3["warnings"].empty());
}

TEST(CliSummary, SeveralFilesAreRanksAndRankSelectsOne)
{
    const std::string& db0 = generated();
    const std::string db1 = test::scratch_dir("cli_summary_rank1") + "/decode_seed2.sqlite";
    std::string out;
    ASSERT_EQ(run("generate --preset decode --steps 3 --seed 2 --no-copies --quiet -o " + db1, &out, true), 0) << out;
    const int64_t k0 = sql_int(db0, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL");
    const int64_t k1 = sql_int(db1, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL");
    const int64_t a1 = sql_int(db1, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME");
    ASSERT_NE(k0, k1);

    ASSERT_EQ(run("summary " + db0 + " " + db1 + " --format json", &out), 0) << out;
    const json all = json::parse(out);
    EXPECT_EQ(all["kernels"]["count"], k0 + k1);
    EXPECT_EQ(all["devices"].size(), 2u);

    ASSERT_EQ(run("summary " + db0 + " " + db1 + " --format json --rank 1", &out), 0) << out;
    const json r1 = json::parse(out);
    EXPECT_EQ(r1["options"]["rank"], 1);
    EXPECT_EQ(r1["kernels"]["count"], k1);
    EXPECT_EQ(r1["kernels"]["total_ns"], sql_int(db1, "SELECT sum(end - start) FROM CUPTI_ACTIVITY_KIND_KERNEL"));
    EXPECT_EQ(r1["api"]["count"], a1);
    EXPECT_EQ(r1["memops"]["count"], 0);   // --no-copies
    ASSERT_EQ(r1["devices"].size(), 1u);
    EXPECT_EQ(r1["devices"][0]["rank"], 1);
    EXPECT_EQ(r1["devices"][0]["kernels"], k1);
}
