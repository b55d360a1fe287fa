// The nsys reader on every real export in ../shared/data/nsys (nsys 2022.1 .. 2025.5): each number the reader
// produces is compared with the same number computed independently by SQL on the file.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "analysis/io/nsys_reader.h"
#include "tests/support/test_env.h"

using namespace sl;

namespace {

using Rows = std::vector<std::vector<std::string>>;

bool table_exists(const std::string& db, const std::string& name)
{
    return test::sqlite_rows(db, "SELECT count(*) FROM sqlite_master WHERE type='table' AND name='" + name + "'")[0][0] != "0";
}

int64_t scalar(const std::string& db, const std::string& sql)
{
    const Rows r = test::sqlite_rows(db, sql);
    return r.empty() || r[0].empty() || r[0][0].empty() ? 0 : std::stoll(r[0][0]);
}

std::vector<std::string> files()
{
    return test::shared_files("nsys", {".sqlite"});
}

} // namespace

TEST(NsysReal, EveryRealExportMatchesSql)
{
    if (!test::shared_data_dir())
        GTEST_SKIP() << "SIGHTLINE_SHARED_DATA not available";
    const auto all = files();
    ASSERT_FALSE(all.empty());
    for (const auto& f : all) {
        SCOPED_TRACE(f);
        const Trace t = read_nsys_sqlite(f);

        // Version from whichever metadata table this nsys wrote.
        const std::string meta_table = table_exists(f, "META_DATA_EXPORT") ? "META_DATA_EXPORT" : "EXPORT_META_DATA";
        const Rows ver = test::sqlite_rows(f, "SELECT value FROM " + meta_table + " WHERE name='EXPORT_PRODUCT_VERSION'");
        ASSERT_EQ(ver.size(), 1u);
        EXPECT_EQ(t.meta.tool_version, ver[0][0]);

        // Kernels: count and per-name totals (grouped by demangled name, as cuda_gpu_kern_sum does).
        const bool has_kernels = table_exists(f, "CUPTI_ACTIVITY_KIND_KERNEL");
        ASSERT_FALSE(table_exists(f, "CUPTI_ACTIVITY_KIND_GRAPH_TRACE")) << "extend this test for graph rows";
        EXPECT_EQ(static_cast<int64_t>(t.kernels.size()),
                  has_kernels ? scalar(f, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL") : 0);
        if (has_kernels) {
            std::map<std::string, std::pair<int64_t, int64_t>> mine, sql;
            for (size_t i = 0; i < t.kernels.size(); ++i) {
                auto& e = mine[std::string(t.str(t.kernels.name[i]))];
                e.first += 1;
                e.second += t.kernels.end[i] - t.kernels.start[i];
            }
            for (const auto& r : test::sqlite_rows(
                     f, "SELECT s.value, count(*), sum(k.end - k.start) FROM CUPTI_ACTIVITY_KIND_KERNEL k "
                        "JOIN StringIds s ON s.id = k.demangledName GROUP BY s.value"))
                sql[r[0]] = {std::stoll(r[1]), std::stoll(r[2])};
            EXPECT_EQ(mine, sql);
            // Kernel -> launching API call: nsys' own join (correlation id within the process).
            if (table_exists(f, "CUPTI_ACTIVITY_KIND_RUNTIME")) {
                size_t linked = 0;
                for (size_t i = 0; i < t.kernels.size(); ++i)
                    linked += t.kernels.launch_api[i] != kNoIndex;
                EXPECT_EQ(static_cast<int64_t>(linked),
                          scalar(f, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k WHERE EXISTS (SELECT 1 FROM "
                                    "CUPTI_ACTIVITY_KIND_RUNTIME r WHERE r.correlationId = k.correlationId AND "
                                    "(r.globalTid >> 24) & 16777215 = (k.globalPid >> 24) & 16777215)"));
            }
        }

        // API calls: count, and per-name call counts.
        if (table_exists(f, "CUPTI_ACTIVITY_KIND_RUNTIME")) {
            EXPECT_EQ(static_cast<int64_t>(t.api.size()), scalar(f, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME"));
            std::map<std::string, int64_t> mine, sql;
            size_t driver = 0;
            for (size_t i = 0; i < t.api.size(); ++i) {
                ++mine[std::string(t.str(t.api.name[i]))];
                driver += t.api.api_class[i] == ApiClass::Driver;
            }
            for (const auto& r : test::sqlite_rows(f, "SELECT s.value, count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME a "
                                                      "JOIN StringIds s ON s.id = a.nameId GROUP BY s.value"))
                sql[r[0]] = std::stoll(r[1]);
            EXPECT_EQ(mine, sql);
            EXPECT_EQ(static_cast<int64_t>(driver),
                      scalar(f, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE eventClass = 1"));
        } else {
            EXPECT_EQ(t.api.size(), 0u);
        }

        // Memory copies: count and bytes; memsets: count.
        if (table_exists(f, "CUPTI_ACTIVITY_KIND_MEMCPY")) {
            uint64_t bytes = 0;
            for (uint64_t b : t.memcpy.bytes)
                bytes += b;
            EXPECT_EQ(static_cast<int64_t>(t.memcpy.size()), scalar(f, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY"));
            EXPECT_EQ(static_cast<int64_t>(bytes), scalar(f, "SELECT coalesce(sum(bytes),0) FROM CUPTI_ACTIVITY_KIND_MEMCPY"));
        } else {
            EXPECT_EQ(t.memcpy.size(), 0u);
        }
        EXPECT_EQ(static_cast<int64_t>(t.memset.size()),
                  table_exists(f, "CUPTI_ACTIVITY_KIND_MEMSET") ? scalar(f, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMSET") : 0);
        EXPECT_EQ(static_cast<int64_t>(t.syncs.size()),
                  table_exists(f, "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION")
                      ? scalar(f, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION")
                      : 0);

        // NVTX: push/pop and start/end ranges (both NVTX and NVTXt flavours) vs marks.
        if (table_exists(f, "NVTX_EVENTS")) {
            EXPECT_EQ(static_cast<int64_t>(t.ranges.size()),
                      scalar(f, "SELECT count(*) FROM NVTX_EVENTS WHERE eventType IN (59,60,70,71)"));
            EXPECT_EQ(static_cast<int64_t>(t.marks.size()), scalar(f, "SELECT count(*) FROM NVTX_EVENTS WHERE eventType = 34"));
        } else {
            EXPECT_EQ(t.ranges.size(), 0u);
        }

        // Devices: exactly the GPUs that ran work, named as TARGET_INFO_GPU names them.
        std::string used;
        for (const char* tb : {"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET",
                               "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION"})
            if (table_exists(f, tb))
                used += std::string(used.empty() ? "" : " UNION ") + "SELECT deviceId FROM " + tb;
        std::set<std::string> sql_names, my_names;
        if (!used.empty())
            for (const auto& r : test::sqlite_rows(f, "SELECT name FROM TARGET_INFO_GPU WHERE id IN (" + used + ")"))
                sql_names.insert(r[0]);
        for (const auto& d : t.meta.devices)
            my_names.insert(d.name);
        EXPECT_EQ(my_names, sql_names);
        for (const auto& d : t.meta.devices) {
            EXPECT_GT(d.sm_count, 0) << d.name;
            EXPECT_GT(d.memory_bandwidth_Bps, 0) << d.name;
        }

        // The capture window covers every event.
        for (size_t i = 0; i < t.kernels.size(); ++i) {
            EXPECT_GE(t.kernels.start[i], t.meta.capture_start);
            EXPECT_LE(t.kernels.end[i], t.meta.capture_end);
        }
    }
}

TEST(NsysReal, CloverLeafSyncsAreDeviceSynchronizeByApiName)
{
    const auto dir = test::shared_data_dir();
    if (!dir)
        GTEST_SKIP() << "SIGHTLINE_SHARED_DATA not available";
    const std::string f = *dir + "/nsys/pipit_perlmutter-cloverleaf-cuda.sqlite";
    const Trace t = read_nsys_sqlite(f);
    // syncType in this file says "Event sync" (1); the API name says device synchronize. Trust the name.
    size_t device_sync = 0;
    for (size_t i = 0; i < t.syncs.size(); ++i) {
        ASSERT_NE(t.syncs.api[i], kNoIndex);
        const auto a = static_cast<size_t>(t.syncs.api[i]);
        EXPECT_TRUE(t.api.flags[a] & kApiSync);
        device_sync += t.str(t.api.name[a]).rfind("cudaDeviceSynchronize", 0) == 0;
    }
    EXPECT_EQ(static_cast<int64_t>(device_sync),
              scalar(f, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION y JOIN CUPTI_ACTIVITY_KIND_RUNTIME r "
                        "ON r.correlationId = y.correlationId JOIN StringIds s ON s.id = r.nameId "
                        "WHERE s.value LIKE 'cudaDeviceSynchronize%'"));
    EXPECT_EQ(device_sync, 1312u);
    ASSERT_EQ(t.meta.devices.size(), 1u);
    EXPECT_EQ(t.meta.devices[0].name, "NVIDIA A100-SXM4-80GB");
}

TEST(NsysReal, WeatherBenchHasNoKernelTableAndIsNotAnError)
{
    const auto dir = test::shared_data_dir();
    if (!dir)
        GTEST_SKIP() << "SIGHTLINE_SHARED_DATA not available";
    const Trace t = read_nsys_sqlite(*dir + "/nsys/weatherbench2_report1_nsys2025.5.sqlite");
    EXPECT_EQ(t.kernels.size(), 0u);
    bool warned = false;
    for (const auto& w : t.meta.warnings)
        warned |= w.find("no GPU activity") != std::string::npos;
    EXPECT_TRUE(warned);
    EXPECT_EQ(t.meta.tool_version, "2025.5.1.121");
}
