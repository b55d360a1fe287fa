// summarize(), summary_to_json() and summary_to_text() on hand-built traces with hand-computed answers.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <sstream>

#include "analysis/io/load.h"
#include "analysis/io/nsys_writer.h"
#include "analysis/timeline/summary.h"
#include "analysis/report/summary_json.h"
#include "analysis/report/summary_text.h"
#include "analysis/io/synthetic.h"
#include "tests/support/test_env.h"

using namespace sl;

namespace {

// Rank 0: device 0 (busy) and device 1 (listed, no work). Rank 1: device 0 of the second file, one kernel.
//
// device 0 / rank 0 timeline (ns):
//   stream 7: A[100,200) B[300,400) A[1000,1100) D[1100,1200)
//   stream 8: C[150,350)
//   memcpy HtoD [380,500) 1000 B, memcpy HtoD [1050,1080) 500 B (inside kernel time), memset [3000,3010) 64 B
//   busy periods [100,500) [1000,1200) [3000,3010) -> busy 610, window [100,3010) = 2910, idle 2300
//   gaps: [500,1000) 500 ns (<1us), [1200,3000) 1800 ns (1-5us)
Trace hand_trace()
{
    Trace t;
    t.meta.format = "nsys-sqlite";
    t.meta.tool_version = "2024.6.2.25";
    t.meta.schema_version = "3.16.1";
    t.meta.source_path = "hand.sqlite";
    const uint16_t d0 = t.device_index(0, 0);
    t.device_index(1, 0);
    const uint16_t r1 = t.device_index(0, 1);
    t.meta.devices[d0].name = "NVIDIA H100 80GB HBM3";
    t.meta.devices[d0].sm_count = 132;
    t.meta.devices[d0].memory_bandwidth_Bps = 3.35e12;
    t.meta.devices[d0].clock_hz = 1980000000;
    const uint32_t th0 = t.thread_index(100, 1, 1);
    const uint32_t th1 = t.thread_index(200, 2, 2);
    t.meta.threads[th1].rank = 1;
    t.process_index(1, 0);
    t.process_index(2, 1);

    const StrId a = t.strings.intern("A"), b = t.strings.intern("B"), c = t.strings.intern("C"),
                d = t.strings.intern("D"), e = t.strings.intern("E");
    auto k = [&](int64_t s, int64_t en, StrId n, uint32_t stream, uint16_t dev) {
        const size_t i = t.kernels.append(s, en, n);
        t.kernels.device[i] = dev;
        t.kernels.stream[i] = stream;
    };
    k(100, 200, a, 7, d0);
    k(300, 400, b, 7, d0);
    k(1000, 1100, a, 7, d0);
    k(150, 350, c, 8, d0);
    k(1100, 1200, d, 7, d0);
    k(50, 90, e, 7, r1);
    t.memcpy.append(380, 500, 1000, CopyKind::HtoD);
    t.memcpy.append(1050, 1080, 500, CopyKind::HtoD);
    t.memcpy.stream[0] = t.memcpy.stream[1] = 9;
    t.memset.append(3000, 3010, 64);

    // API: an even count of cudaLaunchKernel (10, 20, 40, 100 ns) and one cudaMemcpyAsync (7 ns) on rank 0;
    // one cudaLaunchKernel of 1000 ns on rank 1.
    const StrId launch = t.strings.intern("cudaLaunchKernel"), copy = t.strings.intern("cudaMemcpyAsync");
    t.api.append(0, 10, launch, 1, th0, ApiClass::Runtime, classify_api_name("cudaLaunchKernel"));
    t.api.append(20, 40, launch, 2, th0, ApiClass::Runtime, classify_api_name("cudaLaunchKernel"));
    t.api.append(50, 90, launch, 3, th0, ApiClass::Runtime, classify_api_name("cudaLaunchKernel"));
    t.api.append(100, 200, launch, 4, th0, ApiClass::Runtime, classify_api_name("cudaLaunchKernel"));
    t.api.append(300, 307, copy, 5, th0, ApiClass::Runtime, classify_api_name("cudaMemcpyAsync"));
    t.api.append(0, 1000, launch, 1, th1, ApiClass::Runtime, classify_api_name("cudaLaunchKernel"));

    // NVTX: "layer" PushPop 500 + 300, "layer" StartEnd 10 (a separate group), "step" PushPop 5000; a CPU op that
    // is not NVTX.
    const StrId layer = t.strings.intern("layer"), step = t.strings.intern("step"), mm = t.strings.intern("aten::mm");
    t.ranges.append(0, 5000, step, th0, RangeKind::PushPop);
    t.ranges.append(100, 600, layer, th0, RangeKind::PushPop);
    t.ranges.append(1000, 1300, layer, th0, RangeKind::PushPop);
    t.ranges.append(0, 10, layer, th0, RangeKind::StartEnd);
    t.ranges.append(0, 99999, mm, th0, RangeKind::CpuOp);
    t.finish();
    return t;
}

// The whitespace-separated fields of the first line of text that contains needle.
std::vector<std::string> tokens_of_line(const std::string& text, const std::string& needle)
{
    const size_t at = text.find(needle);
    if (at == std::string::npos)
        return {};
    const size_t b = text.rfind('\n', at) + 1, e = text.find('\n', at);
    std::istringstream line(text.substr(b, e - b));
    std::vector<std::string> out;
    for (std::string w; line >> w;)
        out.push_back(w);
    return out;
}

} // namespace

TEST(Summary, KernelGroupsFollowNsysDefinitionsAndOrder)
{
    const Trace t = hand_trace();
    SummaryOptions o;
    o.rank = 0;
    const Summary s = summarize(t, o);
    EXPECT_EQ(s.kernels.count, 5);
    EXPECT_EQ(s.kernels.total_ns, 600);
    ASSERT_EQ(s.kernels.by_name.size(), 4u);
    // total DESC, then instances ASC (C: 200 in 1 before A: 200 in 2), then name (B before D).
    EXPECT_EQ(s.kernels.by_name[0].name, "C");
    EXPECT_EQ(s.kernels.by_name[1].name, "A");
    EXPECT_EQ(s.kernels.by_name[2].name, "B");
    EXPECT_EQ(s.kernels.by_name[3].name, "D");
    const StatRow& A = s.kernels.by_name[1];
    EXPECT_EQ(A.instances, 2);
    EXPECT_EQ(A.total_ns, 200);
    EXPECT_DOUBLE_EQ(A.avg_ns, 100);
    EXPECT_DOUBLE_EQ(A.med_ns, 100);
    EXPECT_EQ(A.min_ns, 100);
    EXPECT_EQ(A.max_ns, 100);
    EXPECT_DOUBLE_EQ(A.stddev_ns, 0);
    EXPECT_NEAR(A.percent, 100.0 / 3.0, 1e-9);
    const StatRow& C = s.kernels.by_name[0];
    EXPECT_EQ(C.instances, 1);
    EXPECT_DOUBLE_EQ(C.stddev_ns, 0);   // single instance
    EXPECT_NEAR(s.kernels.by_name[3].percent, 100.0 / 6.0, 1e-9);
}

TEST(Summary, ApiGroupsHaveTrueMedianAndSampleStddev)
{
    const Trace t = hand_trace();
    SummaryOptions o;
    o.rank = 0;
    const Summary s = summarize(t, o);
    EXPECT_EQ(s.api.count, 5);
    EXPECT_EQ(s.api.total_ns, 177);
    ASSERT_EQ(s.api.by_name.size(), 2u);
    const StatRow& L = s.api.by_name[0];
    EXPECT_EQ(L.name, "cudaLaunchKernel");
    EXPECT_EQ(L.instances, 4);
    EXPECT_EQ(L.total_ns, 170);
    EXPECT_DOUBLE_EQ(L.avg_ns, 42.5);
    EXPECT_DOUBLE_EQ(L.med_ns, 30);   // (20 + 40) / 2
    EXPECT_EQ(L.min_ns, 10);
    EXPECT_EQ(L.max_ns, 100);
    EXPECT_NEAR(L.stddev_ns, std::sqrt(4875.0 / 3.0), 1e-9);
    EXPECT_NEAR(L.percent, 17000.0 / 177.0, 1e-9);
    EXPECT_EQ(s.api.by_name[1].name, "cudaMemcpyAsync");
    EXPECT_DOUBLE_EQ(s.api.by_name[1].stddev_ns, 0);
}

TEST(Summary, MemopsGroupByOperationWithTimeAndSize)
{
    const Trace t = hand_trace();
    const Summary s = summarize(t);
    ASSERT_EQ(s.memops.by_operation.size(), 2u);
    const MemopRow& h = s.memops.by_operation[0];
    EXPECT_EQ(h.operation, "[CUDA memcpy Host-to-Device]");
    EXPECT_EQ(h.count, 2);
    EXPECT_EQ(h.total_ns, 150);
    EXPECT_DOUBLE_EQ(h.med_ns, 75);
    EXPECT_EQ(h.min_ns, 30);
    EXPECT_EQ(h.max_ns, 120);
    EXPECT_NEAR(h.stddev_ns, std::sqrt(2 * 45.0 * 45.0), 1e-9);
    EXPECT_EQ(h.bytes, 1500);
    EXPECT_DOUBLE_EQ(h.avg_bytes, 750);
    EXPECT_EQ(h.min_bytes, 500);
    EXPECT_EQ(h.max_bytes, 1000);
    EXPECT_DOUBLE_EQ(h.percent, 93.75);
    const MemopRow& m = s.memops.by_operation[1];
    EXPECT_EQ(m.operation, "[CUDA memset]");
    EXPECT_EQ(m.count, 1);
    EXPECT_EQ(m.bytes, 64);
    EXPECT_DOUBLE_EQ(m.stddev_bytes, 0);
    EXPECT_EQ(s.memops.count, 3);
    EXPECT_EQ(s.memops.total_ns, 160);
    EXPECT_EQ(s.memops.bytes, 1564);
}

TEST(Summary, NvtxGroupsByNameAndStyleAndLeavesCpuOpsOut)
{
    const Trace t = hand_trace();
    const Summary s = summarize(t);
    ASSERT_EQ(s.nvtx.by_name.size(), 3u);
    EXPECT_EQ(s.nvtx.by_name[0].name, "step");
    EXPECT_EQ(s.nvtx.by_name[1].name, "layer");
    EXPECT_EQ(s.nvtx.by_name[1].style, "PushPop");
    EXPECT_EQ(s.nvtx.by_name[1].instances, 2);
    EXPECT_EQ(s.nvtx.by_name[1].total_ns, 800);
    EXPECT_DOUBLE_EQ(s.nvtx.by_name[1].med_ns, 400);
    EXPECT_EQ(s.nvtx.by_name[2].style, "StartEnd");
    EXPECT_EQ(s.nvtx.total_ns, 5810);
    EXPECT_EQ(s.nvtx.count, 4);
}

TEST(Summary, DeviceBusyIdleAndGaps)
{
    const Trace t = hand_trace();
    SummaryOptions o;
    o.rank = 0;
    const Summary s = summarize(t, o);
    ASSERT_EQ(s.devices.size(), 2u);
    const DeviceSummary& d = s.devices[0];
    EXPECT_EQ(d.name, "NVIDIA H100 80GB HBM3");
    EXPECT_EQ(d.window_start_ns, 100);
    EXPECT_EQ(d.window_end_ns, 3010);
    EXPECT_EQ(d.window_ns, 2910);
    EXPECT_EQ(d.busy_ns, 610);
    EXPECT_EQ(d.idle_ns, 2300);
    EXPECT_DOUBLE_EQ(d.utilization, 610.0 / 2910.0);
    EXPECT_EQ(d.busy_periods, 3);
    EXPECT_EQ(d.gaps.count, 2);
    EXPECT_EQ(d.gaps.total_ns, 2300);
    EXPECT_EQ(d.gaps.histogram[0].label, "<1us");
    EXPECT_EQ(d.gaps.histogram[0].count, 1);
    EXPECT_EQ(d.gaps.histogram[0].total_ns, 500);
    EXPECT_EQ(d.gaps.histogram[1].count, 1);
    EXPECT_EQ(d.gaps.histogram[1].total_ns, 1800);
    for (size_t b = 2; b < kGapBuckets; ++b)
        EXPECT_EQ(d.gaps.histogram[b].count, 0);
    ASSERT_EQ(d.gaps.largest.size(), 2u);
    const DeviceGap& g0 = d.gaps.largest[0];
    EXPECT_EQ(g0.start_ns, 1200);
    EXPECT_EQ(g0.duration_ns, 1800);
    EXPECT_EQ(g0.before.name, "D");
    EXPECT_EQ(g0.before.end_ns, 1200);
    EXPECT_EQ(g0.after.name, "[CUDA memset]");
    EXPECT_EQ(g0.after.start_ns, 3000);
    const DeviceGap& g1 = d.gaps.largest[1];
    EXPECT_EQ(g1.start_ns, 500);
    EXPECT_EQ(g1.before.name, "[CUDA memcpy Host-to-Device]");
    EXPECT_EQ(g1.before.stream, 9u);
    EXPECT_EQ(g1.after.name, "A");
    EXPECT_EQ(g1.after.start_ns, 1000);

    const DeviceSummary& idle = s.devices[1];
    EXPECT_EQ(idle.id, 1);
    EXPECT_EQ(idle.window_ns, 0);
    EXPECT_EQ(idle.busy_ns, 0);
    EXPECT_EQ(idle.utilization, 0);
    EXPECT_EQ(idle.gaps.count, 0);
    EXPECT_TRUE(idle.gaps.largest.empty());

    SummaryOptions one;
    one.rank = 0;
    one.top_gaps = 1;
    const Summary s1 = summarize(t, one);
    ASSERT_EQ(s1.devices[0].gaps.largest.size(), 1u);
    EXPECT_EQ(s1.devices[0].gaps.largest[0].duration_ns, 1800);
}

TEST(Summary, RankFilterSelectsDevicesAndThreadsOfOneRank)
{
    const Trace t = hand_trace();
    const Summary all = summarize(t);
    EXPECT_EQ(all.kernels.count, 6);
    EXPECT_EQ(all.api.count, 6);
    EXPECT_EQ(all.devices.size(), 3u);

    SummaryOptions o;
    o.rank = 1;
    const Summary r1 = summarize(t, o);
    ASSERT_EQ(r1.kernels.by_name.size(), 1u);
    EXPECT_EQ(r1.kernels.by_name[0].name, "E");
    EXPECT_DOUBLE_EQ(r1.kernels.by_name[0].percent, 100.0);
    ASSERT_EQ(r1.api.by_name.size(), 1u);
    EXPECT_EQ(r1.api.by_name[0].total_ns, 1000);
    EXPECT_EQ(r1.memops.count, 0);
    EXPECT_TRUE(r1.nvtx.by_name.empty());
    ASSERT_EQ(r1.devices.size(), 1u);
    EXPECT_EQ(r1.devices[0].rank, 1);
    EXPECT_EQ(r1.devices[0].busy_ns, 40);
    EXPECT_DOUBLE_EQ(r1.devices[0].utilization, 1.0);

    o.rank = 5;
    const Summary none = summarize(t, o);
    EXPECT_EQ(none.kernels.count, 0);
    EXPECT_TRUE(none.devices.empty());
    ASSERT_GE(none.warnings.size(), 2u);
    EXPECT_NE(none.warnings[0].find("rank 5"), std::string::npos);
}

TEST(Summary, EmptyTraceSaysThereIsNoGpuActivity)
{
    Trace t;
    t.finish();
    const Summary s = summarize(t);
    EXPECT_EQ(s.kernels.count, 0);
    EXPECT_TRUE(s.devices.empty());
    ASSERT_EQ(s.warnings.size(), 1u);
    EXPECT_NE(s.warnings[0].find("no GPU activity"), std::string::npos);
    const auto j = summary_to_json(t, s);
    EXPECT_EQ(j["kernels"]["count"], 0);
    EXPECT_TRUE(j["kernels"]["by_name"].is_array());
    EXPECT_NE(summary_to_text(t, s).find("no GPU activity"), std::string::npos);
}

TEST(Summary, GapBucketsAreLowerInclusive)
{
    EXPECT_EQ(gap_bucket_of(1), 0u);
    EXPECT_EQ(gap_bucket_of(999), 0u);
    EXPECT_EQ(gap_bucket_of(1000), 1u);
    EXPECT_EQ(gap_bucket_of(4999), 1u);
    EXPECT_EQ(gap_bucket_of(5000), 2u);
    EXPECT_EQ(gap_bucket_of(10000), 3u);
    EXPECT_EQ(gap_bucket_of(50000), 4u);
    EXPECT_EQ(gap_bucket_of(99999), 4u);
    EXPECT_EQ(gap_bucket_of(100000), 5u);
    EXPECT_EQ(gap_bucket_of(999999), 5u);
    EXPECT_EQ(gap_bucket_of(1000000), 6u);
    EXPECT_EQ(gap_bucket_of(INT64_MAX), 6u);
}

TEST(SummaryJson, KeysUnitsAndRounding)
{
    const Trace t = hand_trace();
    SummaryOptions o;
    o.rank = 0;
    const auto j = summary_to_json(t, summarize(t, o));
    EXPECT_EQ(j["schema"], "sightline.summary/1");
    EXPECT_EQ(j["trace"]["format"], "nsys-sqlite");
    EXPECT_EQ(j["trace"]["tool_version"], "2024.6.2.25");
    EXPECT_EQ(j["trace"]["schema_version"], "3.16.1");
    EXPECT_EQ(j["trace"]["source"], "hand.sqlite");
    EXPECT_EQ(j["trace"]["capture"]["start_ns"], 0);
    EXPECT_EQ(j["trace"]["capture"]["end_ns"], 99999);
    ASSERT_EQ(j["trace"]["devices"].size(), 2u);   // rank 0 only
    EXPECT_EQ(j["trace"]["devices"][0]["sm_count"], 132);
    EXPECT_EQ(j["trace"]["devices"][0]["memory_bandwidth_bps"], 3350000000000LL);
    EXPECT_EQ(j["trace"]["devices"][0]["clock_hz"], 1980000000LL);
    EXPECT_EQ(j["options"]["rank"], 0);

    const auto& launch = j["api"]["by_name"][0];
    EXPECT_EQ(launch["name"], "cudaLaunchKernel");
    EXPECT_TRUE(launch["avg_ns"].is_number_integer());
    EXPECT_EQ(launch["avg_ns"], 43);      // 42.5 rounds half away from zero
    EXPECT_EQ(launch["med_ns"], 30);
    EXPECT_EQ(launch["stddev_ns"], 40);   // 40.31
    EXPECT_NEAR(launch["percent"].get<double>(), 17000.0 / 177.0, 1e-9);

    const auto& memop = j["memops"]["by_operation"][0];
    EXPECT_EQ(memop["operation"], "[CUDA memcpy Host-to-Device]");
    EXPECT_EQ(memop["bytes"], 1500);
    EXPECT_EQ(memop["med_bytes"], 750);
    EXPECT_EQ(j["nvtx"]["by_name"][1]["style"], "PushPop");

    const auto& dev = j["devices"][0];
    EXPECT_EQ(dev["window_ns"], 2910);
    EXPECT_EQ(dev["busy_ns"], 610);
    EXPECT_EQ(dev["idle_ns"], 2300);
    EXPECT_EQ(dev["gaps"]["count"], 2);
    EXPECT_EQ(dev["gaps"]["histogram"].size(), kGapBuckets);
    EXPECT_EQ(dev["gaps"]["histogram"][1]["bucket"], "1-5us");
    EXPECT_EQ(dev["gaps"]["histogram"][1]["lo_ns"], 1000);
    EXPECT_EQ(dev["gaps"]["histogram"][1]["hi_ns"], 5000);
    EXPECT_TRUE(dev["gaps"]["histogram"][6]["hi_ns"].is_null());
    EXPECT_EQ(dev["gaps"]["largest"][0]["before"]["name"], "D");
    EXPECT_EQ(dev["gaps"]["largest"][0]["before"]["kind"], "kernel");
    EXPECT_EQ(dev["gaps"]["largest"][0]["after"]["kind"], "memset");
    EXPECT_TRUE(j["warnings"].is_array());
}

TEST(SummaryText, NsysLikeTables)
{
    EXPECT_EQ(group_digits(int64_t{0}), "0");
    EXPECT_EQ(group_digits(int64_t{999}), "999");
    EXPECT_EQ(group_digits(int64_t{1000}), "1,000");
    EXPECT_EQ(group_digits(int64_t{-1234567}), "-1,234,567");
    EXPECT_EQ(group_digits(1234.56, 1), "1,234.6");
    EXPECT_EQ(group_digits(42.5, 1), "42.5");
    EXPECT_EQ(group_digits(-0.01, 1), "0.0");

    const Trace t = hand_trace();
    SummaryOptions o;
    o.rank = 0;
    const std::string text = summary_to_text(t, summarize(t, o));
    EXPECT_NE(text.find("cuda_gpu_kern_sum"), std::string::npos);
    EXPECT_NE(text.find("cuda_api_sum"), std::string::npos);
    EXPECT_NE(text.find("cuda_gpu_mem_time_sum"), std::string::npos);
    EXPECT_NE(text.find("cuda_gpu_mem_size_sum"), std::string::npos);
    EXPECT_NE(text.find("nvtx_sum"), std::string::npos);
    // The cudaLaunchKernel row: 96.0 %, 170 ns total, 4 calls, avg 42.5, med 30.0, min 10, max 100, stddev 40.3.
    EXPECT_EQ(tokens_of_line(text, "cudaLaunchKernel"),
              (std::vector<std::string>{"96.0", "170", "4", "42.5", "30.0", "10", "100", "40.3", "cudaLaunchKernel"}))
        << text;
    EXPECT_EQ(tokens_of_line(text, "1-5us"), (std::vector<std::string>{"1-5us", "1", "1,800", "78.3"})) << text;
    EXPECT_EQ(tokens_of_line(text, "NVIDIA H100"),
              (std::vector<std::string>{"0", "0", "8", "2,910", "610", "2,300", "21.0", "2", "2,300", "NVIDIA", "H100",
                                        "80GB", "HBM3"}))
        << text;
}

// ---- Golden tests: real nsys exports (and a generated one), expected numbers computed by SQL -------------------
//
// Every expected figure below comes from SQL run by the test against the file itself (test::sqlite_rows): group
// statistics with window functions for the median and a two-pass sum of squares for the standard deviation, and
// device busy time from a sorted sweep over (deviceId, start, end) rows. None of it goes through the reader or
// summarize().

namespace {

struct SqlGroup {
    std::string name;
    int64_t count = 0, total = 0, min = 0, max = 0;
    double median = 0, stddev = 0;
};

bool has_table(const std::string& db, const std::string& table)
{
    return !test::sqlite_rows(db, "SELECT 1 FROM sqlite_master WHERE type='table' AND name='" + table + "'").empty();
}

// rows_sql yields (name, v); groups come back in nsys order: total DESC, count ASC, name ASC (BINARY collation).
std::vector<SqlGroup> sql_groups(const std::string& db, const std::string& rows_sql)
{
    const std::string sql =
        "WITH d(name, v) AS (" + rows_sql +
        "),"
        " a AS (SELECT name, count(*) AS c, sum(v) AS t, min(v) AS lo, max(v) AS hi, avg(v) AS m FROM d GROUP BY name),"
        " r AS (SELECT name, v, row_number() OVER (PARTITION BY name ORDER BY v) AS rn FROM d),"
        " med AS (SELECT r.name, avg(r.v) AS md FROM r JOIN a ON a.name IS r.name"
        "         WHERE r.rn IN ((a.c + 1) / 2, (a.c + 2) / 2) GROUP BY r.name),"
        " var AS (SELECT d.name, sum((d.v - a.m) * (d.v - a.m)) AS ss FROM d JOIN a ON a.name IS d.name GROUP BY d.name)"
        " SELECT a.name, a.c, a.t, a.lo, a.hi, med.md, var.ss FROM a JOIN med ON med.name IS a.name"
        " JOIN var ON var.name IS a.name ORDER BY a.t DESC, a.c, a.name";
    std::vector<SqlGroup> out;
    for (const auto& r : test::sqlite_rows(db, sql)) {
        SqlGroup g;
        g.name = r[0];
        g.count = std::stoll(r[1]);
        g.total = std::stoll(r[2]);
        g.min = std::stoll(r[3]);
        g.max = std::stoll(r[4]);
        g.median = std::stod(r[5]);
        g.stddev = g.count > 1 ? std::sqrt(std::stod(r[6]) / static_cast<double>(g.count - 1)) : 0.0;
        out.push_back(g);
    }
    return out;
}

template <typename Row> void expect_groups(const std::vector<SqlGroup>& want, const std::vector<Row>& got,
                                           const std::string& what)
{
    ASSERT_EQ(got.size(), want.size()) << what;
    int64_t sum = 0;
    for (const auto& g : want)
        sum += g.total;
    for (size_t i = 0; i < want.size(); ++i) {
        const SqlGroup& w = want[i];
        const Row& r = got[i];
        SCOPED_TRACE(what + " row " + std::to_string(i) + " " + w.name);
        EXPECT_EQ(r.name, w.name);
        EXPECT_EQ(r.instances, w.count);
        EXPECT_EQ(r.total_ns, w.total);
        EXPECT_EQ(r.min_ns, w.min);
        EXPECT_EQ(r.max_ns, w.max);
        EXPECT_DOUBLE_EQ(r.med_ns, w.median);
        EXPECT_NEAR(r.avg_ns, static_cast<double>(w.total) / static_cast<double>(w.count), 1e-6);
        EXPECT_NEAR(r.stddev_ns, w.stddev, 1e-6 * std::max(1.0, w.stddev));
        EXPECT_NEAR(r.percent, 100.0 * static_cast<double>(w.total) / static_cast<double>(sum), 1e-9);
    }
}

const char* kStr = "(SELECT value FROM StringIds WHERE id = ";

void check_against_sql(const std::string& db)
{
    SCOPED_TRACE(db);
    const Trace t = load_trace(db);
    const Summary s = summarize(t);

    // cuda_gpu_kern_sum
    std::vector<SqlGroup> kern;
    if (has_table(db, "CUPTI_ACTIVITY_KIND_KERNEL"))
        kern = sql_groups(db, std::string("SELECT ") + kStr + "k.demangledName), k.end - k.start "
                                                                "FROM CUPTI_ACTIVITY_KIND_KERNEL k");
    expect_groups(kern, s.kernels.by_name, "kernels");

    // cuda_api_sum
    std::vector<SqlGroup> api;
    if (has_table(db, "CUPTI_ACTIVITY_KIND_RUNTIME"))
        api = sql_groups(db, std::string("SELECT ") + kStr + "r.nameId), r.end - r.start FROM CUPTI_ACTIVITY_KIND_RUNTIME r");
    expect_groups(api, s.api.by_name, "api");

    // cuda_gpu_mem_time_sum / cuda_gpu_mem_size_sum: group key = copyKind, or 'memset'.
    std::vector<std::string> parts_t, parts_b;
    if (has_table(db, "CUPTI_ACTIVITY_KIND_MEMCPY")) {
        parts_t.push_back("SELECT CAST(copyKind AS TEXT), end - start FROM CUPTI_ACTIVITY_KIND_MEMCPY");
        parts_b.push_back("SELECT CAST(copyKind AS TEXT), bytes FROM CUPTI_ACTIVITY_KIND_MEMCPY");
    }
    if (has_table(db, "CUPTI_ACTIVITY_KIND_MEMSET")) {
        parts_t.push_back("SELECT 'memset', end - start FROM CUPTI_ACTIVITY_KIND_MEMSET");
        parts_b.push_back("SELECT 'memset', bytes FROM CUPTI_ACTIVITY_KIND_MEMSET");
    }
    auto join = [](const std::vector<std::string>& p) {
        std::string s;
        for (const auto& x : p)
            s += (s.empty() ? "" : " UNION ALL ") + x;
        return s;
    };
    std::vector<SqlGroup> mt, mb;
    if (!parts_t.empty()) {
        mt = sql_groups(db, join(parts_t));
        mb = sql_groups(db, join(parts_b));
    }
    auto label = [](const std::string& key) {
        return key == "memset" ? std::string("[CUDA memset]")
                               : std::string(copy_kind_label(static_cast<CopyKind>(std::stoi(key))));
    };
    ASSERT_EQ(s.memops.by_operation.size(), mt.size());
    for (const SqlGroup& w : mt) {
        SCOPED_TRACE("memop " + label(w.name));
        const MemopRow* r = nullptr;
        for (const auto& x : s.memops.by_operation)
            if (x.operation == label(w.name))
                r = &x;
        ASSERT_NE(r, nullptr);
        EXPECT_EQ(r->count, w.count);
        EXPECT_EQ(r->total_ns, w.total);
        EXPECT_EQ(r->min_ns, w.min);
        EXPECT_EQ(r->max_ns, w.max);
        EXPECT_DOUBLE_EQ(r->med_ns, w.median);
        EXPECT_NEAR(r->stddev_ns, w.stddev, 1e-6 * std::max(1.0, w.stddev));
        for (const SqlGroup& b : mb) {
            if (b.name != w.name)
                continue;
            EXPECT_EQ(r->bytes, b.total);
            EXPECT_EQ(r->min_bytes, b.min);
            EXPECT_EQ(r->max_bytes, b.max);
            EXPECT_DOUBLE_EQ(r->med_bytes, b.median);
            EXPECT_NEAR(r->stddev_bytes, b.stddev, 1e-6 * std::max(1.0, b.stddev));
        }
    }

    // nvtx_sum: closed push/pop (59, 70) and start/end (60, 71) ranges; name = registered or inline text, prefixed
    // "domain:" for a non-default domain (its eventType 75 row in the same process).
    if (has_table(db, "NVTX_EVENTS")) {
        const std::string nm = std::string("COALESCE(") + kStr + "e.textId), e.text)";
        const std::string rows =
            "WITH dom AS (SELECT domainId, globalTid >> 24 AS p, " + nm +
            " AS dn FROM NVTX_EVENTS e WHERE eventType = 75),"
            " r AS (SELECT e.start, e.end, e.eventType, " + nm + " AS nm, e.domainId, e.globalTid >> 24 AS p"
            "       FROM NVTX_EVENTS e WHERE e.eventType IN (59, 60, 70, 71) AND e.end IS NOT NULL)"
            " SELECT (CASE WHEN r.eventType IN (59, 70) THEN 'PushPop' ELSE 'StartEnd' END) || char(31) ||"
            "        (CASE WHEN dom.dn IS NULL THEN r.nm ELSE dom.dn || ':' || r.nm END), r.end - r.start"
            " FROM r LEFT JOIN dom ON dom.domainId = r.domainId AND dom.p = r.p AND r.domainId <> 0";
        const auto want = sql_groups(db, rows);
        ASSERT_EQ(s.nvtx.by_name.size(), want.size());
        for (const SqlGroup& w : want) {
            const auto sep = w.name.find('\x1f');
            const std::string style = w.name.substr(0, sep), name = w.name.substr(sep + 1);
            SCOPED_TRACE("nvtx " + style + " " + name);
            const NvtxRow* r = nullptr;
            for (const auto& x : s.nvtx.by_name)
                if (x.name == name && x.style == style)
                    r = &x;
            ASSERT_NE(r, nullptr);
            EXPECT_EQ(r->instances, w.count);
            EXPECT_EQ(r->total_ns, w.total);
            EXPECT_EQ(r->min_ns, w.min);
            EXPECT_EQ(r->max_ns, w.max);
            EXPECT_DOUBLE_EQ(r->med_ns, w.median);
        }
    } else {
        EXPECT_TRUE(s.nvtx.by_name.empty());
    }

    // Per-device busy time: a sweep over GPU op rows sorted by SQL.
    std::vector<std::string> ops;
    for (const char* tb : {"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET"})
        if (has_table(db, tb))
            ops.push_back(std::string("SELECT deviceId, start, end FROM ") + tb);
    struct Busy {
        int64_t first = INT64_MAX, last = INT64_MIN, busy = 0, periods = 0, cur_start = 0, cur_end = INT64_MIN;
    };
    std::map<int64_t, Busy> want;
    if (!ops.empty()) {
        for (const auto& r : test::sqlite_rows(db, join(ops) + " ORDER BY 1, 2")) {
            Busy& b = want[std::stoll(r[0])];
            const int64_t st = std::stoll(r[1]), en = std::stoll(r[2]);
            b.first = std::min(b.first, st);
            b.last = std::max(b.last, en);
            if (en <= st)
                continue;
            if (b.periods > 0 && st <= b.cur_end) {
                b.cur_end = std::max(b.cur_end, en);
                continue;
            }
            if (b.periods > 0)
                b.busy += b.cur_end - b.cur_start;
            ++b.periods;
            b.cur_start = st;
            b.cur_end = en;
        }
        for (auto& [id, b] : want)
            if (b.periods > 0)
                b.busy += b.cur_end - b.cur_start;
    }
    size_t active = 0;
    for (const DeviceSummary& d : s.devices) {
        SCOPED_TRACE("device " + std::to_string(d.id));
        const auto it = want.find(d.id);
        if (it == want.end()) {
            EXPECT_EQ(d.busy_ns, 0);
            EXPECT_EQ(d.window_ns, 0);
            continue;
        }
        ++active;
        EXPECT_EQ(d.busy_ns, it->second.busy);
        EXPECT_EQ(d.window_start_ns, it->second.first);
        EXPECT_EQ(d.window_end_ns, it->second.last);
        EXPECT_EQ(d.idle_ns, it->second.last - it->second.first - it->second.busy);
        EXPECT_EQ(d.busy_periods, it->second.periods);
        EXPECT_EQ(d.gaps.count, std::max<int64_t>(0, it->second.periods - 1));
        int64_t hist_count = 0, hist_total = 0;
        for (const auto& b : d.gaps.histogram) {
            hist_count += b.count;
            hist_total += b.total_ns;
        }
        EXPECT_EQ(hist_count, d.gaps.count);
        EXPECT_EQ(hist_total, d.idle_ns);
    }
    EXPECT_EQ(active, want.size()) << "every device with GPU work is summarised";

    // The JSON carries the same numbers.
    const auto j = summary_to_json(t, s);
    EXPECT_EQ(j["kernels"]["by_name"].size(), kern.size());
    if (!kern.empty()) {
        EXPECT_EQ(j["kernels"]["by_name"][0]["name"], kern[0].name);
        EXPECT_EQ(j["kernels"]["by_name"][0]["total_ns"], kern[0].total);
        EXPECT_EQ(j["kernels"]["by_name"][0]["med_ns"], std::llround(kern[0].median));
    }
}

} // namespace

TEST(SummaryGolden, RealNsysExportsMatchSql)
{
    const auto files = test::shared_files("nsys", {".sqlite"});
    if (files.empty())
        GTEST_SKIP() << "no ../shared/data/nsys";
    for (const auto& f : files)
        check_against_sql(f);
}

TEST(SummaryGolden, GeneratedExportMatchesSql)
{
    SynthOptions o = synth_preset("decode");
    o.nccl = true;                 // a third stream, overlapping compute
    o.sync_every_step = true;      // D2H copies
    const std::string path = test::scratch_dir("summary_golden") + "/decode.sqlite";
    write_nsys_sqlite(make_synthetic_trace(o), path);
    check_against_sql(path);
}
