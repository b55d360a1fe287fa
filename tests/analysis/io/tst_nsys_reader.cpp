// The nsys SQLite reader on files we build ourselves: writer round trip (every column), hand-made exports covering
// schema drift (text vs textId NVTX, domains, open ranges, marks, several GPUs, old metadata table, extra columns,
// graph-level rows), hostile files, every kind of bad input, cancel and progress.
#include <gtest/gtest.h>

#include <sqlite3.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>

#include "analysis/trace/errors.h"
#include "analysis/io/nsys_reader.h"
#include "analysis/io/nsys_writer.h"
#include "analysis/io/synthetic.h"
#include "tests/support/test_env.h"

using namespace sl;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> names(const Trace& t, const std::vector<StrId>& ids)
{
    std::vector<std::string> v;
    v.reserve(ids.size());
    for (StrId id : ids)
        v.emplace_back(t.str(id));
    return v;
}

std::vector<int64_t> gtids(const Trace& t, const std::vector<uint32_t>& thr)
{
    std::vector<int64_t> v;
    for (uint32_t i : thr)
        v.push_back(t.meta.threads[i].global_tid);
    return v;
}

void exec(sqlite3* db, const std::string& sql)
{
    char* err = nullptr;
    ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err), SQLITE_OK) << (err ? err : "") << "\n" << sql;
}

// Builds an SQLite file from SQL statements.
std::string make_db(const std::string& path, const std::string& sql)
{
    fs::remove(path);
    sqlite3* db = nullptr;
    EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    exec(db, sql);
    sqlite3_close(db);
    return path;
}

std::string read_bytes(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

void write_bytes(const std::string& path, const std::string& bytes)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << bytes;
}

// Expects read_nsys_sqlite to throw a TraceError whose text mentions every fragment.
void expect_error(const std::string& path, std::vector<std::string> fragments)
{
    try {
        read_nsys_sqlite(path);
        ADD_FAILURE() << "no error for " << path;
    } catch (const TraceError& e) {
        const std::string what = e.what();
        EXPECT_EQ(e.file(), path);
        for (const auto& f : fragments)
            EXPECT_NE(what.find(f), std::string::npos) << "'" << f << "' not in: " << what;
    }
}

Trace planted_trace()
{
    SynthOptions o = synth_preset("decode");
    o.decode_steps = 6;
    o.sync_every_step = true;
    o.nccl = true;
    o.pageable_copies = true;
    Trace t = make_synthetic_trace(o);
    // Rows the generator does not make: memsets, marks, a start/end range, a driver call without correlation.
    for (int i = 0; i < 3; ++i) {
        const size_t m = t.memset.append(o.start_ns + 1000 * i, o.start_ns + 1000 * i + 500, 4096u * (i + 1));
        t.memset.device[m] = 0;
        t.memset.stream[m] = kSynthComputeStream;
        t.memset.mem_kind[m] = MemKind::Device;
        t.memset.correlation[m] = 0;
    }
    t.marks.time.push_back(o.start_ns + 77);
    t.marks.name.push_back(t.strings.intern("request 1 arrived"));
    t.marks.thread.push_back(0);
    t.ranges.append(o.start_ns + 5, o.start_ns + 900'000, t.strings.intern("async request"), 0, RangeKind::StartEnd);
    t.finish();
    return t;
}

} // namespace

TEST(NsysReader, WriterRoundTripKeepsEveryColumn)
{
    const Trace a = planted_trace();
    const std::string path = test::scratch_dir("nsys_roundtrip") + "/rt.sqlite";
    write_nsys_sqlite(a, path);
    const Trace b = read_nsys_sqlite(path);

    EXPECT_EQ(b.meta.format, "nsys-sqlite");
    EXPECT_EQ(b.meta.tool_version, "2024.6.2.25");
    EXPECT_EQ(b.meta.schema_version, "3.16.1");
    EXPECT_EQ(b.meta.capture_start, a.meta.capture_start);
    EXPECT_EQ(b.meta.capture_end, a.meta.capture_end);
    EXPECT_EQ(b.meta.utc_epoch_ns, a.meta.utc_epoch_ns);

    const auto &ka = a.kernels, &kb = b.kernels;
    ASSERT_EQ(kb.size(), ka.size());
    EXPECT_EQ(kb.start, ka.start);
    EXPECT_EQ(kb.end, ka.end);
    EXPECT_EQ(names(b, kb.name), names(a, ka.name));
    EXPECT_EQ(names(b, kb.short_name), names(a, ka.short_name));
    EXPECT_EQ(kb.correlation, ka.correlation);
    EXPECT_EQ(kb.launch_api, ka.launch_api);
    EXPECT_EQ(kb.device, ka.device);
    EXPECT_EQ(kb.process, ka.process);
    EXPECT_EQ(kb.stream, ka.stream);
    for (size_t i = 0; i < ka.size(); ++i)   // grid, block, registers, shared memory
        ASSERT_TRUE(kb.launch_shape(i) == ka.launch_shape(i)) << "kernel " << i;
    EXPECT_EQ(kb.flags, ka.flags);

    ASSERT_EQ(b.api.size(), a.api.size());
    EXPECT_EQ(b.api.start, a.api.start);
    EXPECT_EQ(b.api.end, a.api.end);
    EXPECT_EQ(names(b, b.api.name), names(a, a.api.name));
    EXPECT_EQ(b.api.correlation, a.api.correlation);
    EXPECT_EQ(gtids(b, b.api.thread), gtids(a, a.api.thread));
    EXPECT_EQ(b.api.api_class, a.api.api_class);
    EXPECT_EQ(b.api.flags, a.api.flags);

    ASSERT_EQ(b.memcpy.size(), a.memcpy.size());
    EXPECT_EQ(b.memcpy.start, a.memcpy.start);
    EXPECT_EQ(b.memcpy.end, a.memcpy.end);
    EXPECT_EQ(b.memcpy.bytes, a.memcpy.bytes);
    EXPECT_EQ(b.memcpy.copy_kind, a.memcpy.copy_kind);
    EXPECT_EQ(b.memcpy.src_kind, a.memcpy.src_kind);
    EXPECT_EQ(b.memcpy.dst_kind, a.memcpy.dst_kind);
    EXPECT_EQ(b.memcpy.device, a.memcpy.device);
    EXPECT_EQ(b.memcpy.process, a.memcpy.process);
    EXPECT_EQ(b.memcpy.stream, a.memcpy.stream);
    EXPECT_EQ(b.memcpy.correlation, a.memcpy.correlation);
    EXPECT_EQ(b.memcpy.launch_api, a.memcpy.launch_api);

    ASSERT_EQ(b.memset.size(), 3u);
    EXPECT_EQ(b.memset.start, a.memset.start);
    EXPECT_EQ(b.memset.end, a.memset.end);
    EXPECT_EQ(b.memset.bytes, a.memset.bytes);
    EXPECT_EQ(b.memset.mem_kind, a.memset.mem_kind);
    EXPECT_EQ(b.memset.stream, a.memset.stream);

    ASSERT_EQ(b.syncs.size(), a.syncs.size());
    EXPECT_EQ(b.syncs.start, a.syncs.start);
    EXPECT_EQ(b.syncs.end, a.syncs.end);
    EXPECT_EQ(b.syncs.stream, a.syncs.stream);
    EXPECT_EQ(b.syncs.correlation, a.syncs.correlation);
    EXPECT_EQ(b.syncs.sync_type, a.syncs.sync_type);
    EXPECT_EQ(b.syncs.api, a.syncs.api);

    ASSERT_EQ(b.ranges.size(), a.ranges.size());
    EXPECT_EQ(b.ranges.start, a.ranges.start);
    EXPECT_EQ(b.ranges.end, a.ranges.end);
    EXPECT_EQ(names(b, b.ranges.name), names(a, a.ranges.name));
    EXPECT_EQ(gtids(b, b.ranges.thread), gtids(a, a.ranges.thread));
    EXPECT_EQ(b.ranges.kind, a.ranges.kind);
    EXPECT_EQ(b.ranges.depth, a.ranges.depth);
    ASSERT_EQ(b.marks.size(), 1u);
    EXPECT_EQ(b.marks.time, a.marks.time);
    EXPECT_EQ(names(b, b.marks.name), names(a, a.marks.name));

    ASSERT_EQ(b.meta.devices.size(), 1u);
    const auto &da = a.meta.devices[0], &db = b.meta.devices[0];
    EXPECT_EQ(db.id, da.id);
    EXPECT_EQ(db.name, da.name);
    EXPECT_EQ(db.sm_count, da.sm_count);
    EXPECT_DOUBLE_EQ(db.memory_bandwidth_Bps, da.memory_bandwidth_Bps);
    EXPECT_EQ(db.clock_hz, da.clock_hz);
    EXPECT_EQ(db.total_memory_bytes, da.total_memory_bytes);
    EXPECT_EQ(db.l2_cache_bytes, da.l2_cache_bytes);
    EXPECT_EQ(db.compute_major, da.compute_major);
    EXPECT_EQ(db.chip, da.chip);
    ASSERT_EQ(b.meta.processes.size(), 1u);
    EXPECT_EQ(b.meta.processes[0].pid, a.meta.processes[0].pid);
    EXPECT_EQ(b.meta.processes[0].name, a.meta.processes[0].name);
    ASSERT_EQ(b.meta.threads.size(), 1u);
    EXPECT_EQ(b.meta.threads[0].global_tid, a.meta.threads[0].global_tid);
    EXPECT_EQ(b.meta.threads[0].pid, a.meta.threads[0].pid);
    EXPECT_EQ(b.meta.threads[0].tid, a.meta.threads[0].tid);
    EXPECT_EQ(b.meta.threads[0].name, a.meta.threads[0].name);
    std::set<std::tuple<uint16_t, uint32_t, int32_t, std::string>> sa, sb;
    for (const auto& s : a.meta.streams)
        sa.emplace(s.device, s.stream, s.priority, s.label);
    for (const auto& s : b.meta.streams)
        sb.emplace(s.device, s.stream, s.priority, s.label);
    EXPECT_EQ(sb, sa);
}

TEST(NsysReader, WriterFollowsTheNsysDdl)
{
    const std::string path = test::scratch_dir("nsys_ddl") + "/s.sqlite";
    write_nsys_sqlite(make_synthetic_trace(synth_preset("decode")), path);
    // Lazy: no memset or sync rows in the decode preset, so no such tables.
    const auto tables = test::sqlite_rows(path, "SELECT name FROM sqlite_master WHERE type='table' ORDER BY name");
    std::set<std::string> t;
    for (const auto& r : tables)
        t.insert(r[0]);
    EXPECT_TRUE(t.count("StringIds") && t.count("CUPTI_ACTIVITY_KIND_KERNEL") && t.count("NVTX_EVENTS") &&
                t.count("META_DATA_EXPORT") && t.count("TARGET_INFO_GPU") && t.count("ANALYSIS_DETAILS"));
    EXPECT_FALSE(t.count("CUPTI_ACTIVITY_KIND_MEMSET"));
    EXPECT_FALSE(t.count("CUPTI_ACTIVITY_KIND_SYNCHRONIZATION"));
    // Same kernel column list, in the same order, as a real nsys 2024.5 export.
    const auto real = test::shared_data_dir();
    if (real) {
        const std::string ref = *real + "/nsys/pipit_perlmutter-cloverleaf-cuda.sqlite";
        for (const char* table : {"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_RUNTIME",
                                  "CUPTI_ACTIVITY_KIND_MEMCPY", "TARGET_INFO_GPU", "StringIds", "ThreadNames"}) {
            const std::string q = std::string("SELECT name, type, \"notnull\" FROM pragma_table_info('") + table + "')";
            EXPECT_EQ(test::sqlite_rows(path, q), test::sqlite_rows(ref, q)) << table;
        }
    }
    // The kernel -> API join nsys' own scripts use works on our file.
    const auto joined = test::sqlite_rows(
        path, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN CUPTI_ACTIVITY_KIND_RUNTIME r ON "
              "k.correlationId = r.correlationId AND k.globalPid = (r.globalTid & 0xFFFFFFFFFF000000)");
    EXPECT_EQ(joined[0][0], "3094");
}

// The export is opened read-only through a SQLite "file:" URI (io/sqlite_uri.h): a path with the bytes a URI reads
// otherwise ('%', '?', '#', a space, UTF-8) still opens the file it names, with the same rows as a plain path.
TEST(NsysReader, APathAUriWouldMisreadOpensTheFileItNames)
{
    const std::string dir = test::scratch_dir("nsys_uri");
    const Trace t = make_synthetic_trace(synth_preset("decode"));
    const std::string plain = dir + "/plain.sqlite";
    const std::string odd = dir + "/a 100%25 b?mode=rw#x \xc3\xa9.sqlite";
    write_nsys_sqlite(t, plain);
    write_nsys_sqlite(t, odd);
    const Trace a = read_nsys_sqlite(plain);
    const Trace b = read_nsys_sqlite(odd);
    EXPECT_EQ(b.kernels.size(), 3094u);
    EXPECT_EQ(b.kernels.size(), a.kernels.size());
    EXPECT_EQ(b.api.size(), a.api.size());
    EXPECT_EQ(b.meta.source_path, odd);
}

// A hand-made export: the schema-drift cases the reader must tolerate.
TEST(NsysReader, SchemaDriftCases)
{
    const std::string dir = test::scratch_dir("nsys_drift");
    const int64_t gpid = (int64_t{1} << 48) | (int64_t{4321} << 24);
    const std::string g = std::to_string(gpid), tid = std::to_string(gpid | 4321);
    const std::string path = make_db(dir + "/drift.sqlite", R"(
CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO StringIds VALUES (1,'gemm_kernel(float*)'),(2,'gemm_kernel'),(3,'cudaLaunchKernel_v7000'),
  (4,'cuLaunchKernel'),(5,'registered range'),(6,'MyDomain'),(7,'main'),(8,'cudaStreamSynchronize_v3020');
CREATE TABLE EXPORT_META_DATA (name TEXT NOT NULL, value TEXT);
INSERT INTO EXPORT_META_DATA VALUES ('EXPORT_PRODUCT_VERSION','2022.1.3.3'),('EXPORT_SCHEMA_VERSION','2.9.1');
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
  demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL, mangledName INTEGER, launchType INTEGER,
  cacheConfig INTEGER, registersPerThread INTEGER NOT NULL, gridX INTEGER NOT NULL, gridY INTEGER NOT NULL,
  gridZ INTEGER NOT NULL, blockX INTEGER NOT NULL, blockY INTEGER NOT NULL, blockZ INTEGER NOT NULL,
  staticSharedMemory INTEGER NOT NULL, dynamicSharedMemory INTEGER NOT NULL, localMemoryPerThread INTEGER NOT NULL,
  localMemoryTotal INTEGER NOT NULL, gridId INTEGER NOT NULL, sharedMemoryExecuted INTEGER, graphNodeId INTEGER,
  sharedMemoryLimitConfig INTEGER, kernel_name TEXT, long_kernel_name TEXT);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES
  (1000,2000,1,1,7,10,)" + g + R"(,1,2,NULL,1,0,32,4,1,1,128,1,1,16,1024,0,0,1,NULL,NULL,0,'x','y'),
  (3000,3500,1,1,7,11,)" + g + R"(,1,2,NULL,2,0,32,4,1,1,128,1,1,0,0,0,0,2,NULL,5,0,'x','y'),
  (4000,4100,1,1,7,12,)" + g + R"(,1,2,NULL,1,0,32,4,1,1,128,1,1,0,0,0,0,3,NULL,6,0,'x','y');
CREATE TABLE CUPTI_ACTIVITY_KIND_GRAPH_TRACE (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER,
  globalPid INTEGER, graphId INTEGER, graphExecId INTEGER);
INSERT INTO CUPTI_ACTIVITY_KIND_GRAPH_TRACE VALUES (3000,4100,1,1,NULL,7,11,)" + g + R"(,1,1),
  (5000,6000,1,1,NULL,7,13,)" + g + R"(,2,2);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL,
  globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL,
  callchainId INTEGER, name TEXT);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (900,950,0,)" + tid + R"(,10,3,0,NULL,'x'),
  (2900,2950,1,)" + tid + R"(,11,4,0,NULL,'x'),(3900,3950,1,)" + tid + R"(,12,4,0,NULL,'x'),
  (4900,4950,0,)" + tid + R"(,13,3,0,NULL,'x'),(6100,6500,0,)" + tid + R"(,14,8,0,NULL,'x');
CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, rangeId INTEGER,
  category INTEGER, color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER,
  domainId INTEGER, uint64Value INTEGER, int64Value INTEGER, doubleValue REAL, uint32Value INTEGER,
  int32Value INTEGER, floatValue REAL, jsonTextId INTEGER, jsonText TEXT);
INSERT INTO NVTX_EVENTS (start,end,eventType,text,globalTid,textId,domainId) VALUES
  (100,NULL,75,'MyDomain',)" + tid + R"(,NULL,5),
  (800,2500,59,'inline text',)" + tid + R"(,NULL,0),
  (850,2400,59,NULL,)" + tid + R"(,5,NULL),
  (860,2300,60,'in domain',)" + tid + R"(,NULL,5),
  (870,NULL,34,'a mark',)" + tid + R"(,NULL,0),
  (880,NULL,59,'never closed',)" + tid + R"(,NULL,0),
  (890,NULL,39,'thread name event',)" + tid + R"(,NULL,0);
CREATE TABLE ThreadNames (nameId INTEGER NOT NULL, priority INTEGER, globalTid INTEGER);
INSERT INTO ThreadNames VALUES (7,0,)" + tid + R"();
CREATE TABLE PROCESSES (globalPid INTEGER, pid INTEGER, name TEXT);
INSERT INTO PROCESSES VALUES ()" + g + R"(,4321,'python3');
CREATE TABLE TARGET_INFO_GPU (vmId INTEGER NOT NULL, id INTEGER NOT NULL, name TEXT, smCount INTEGER,
  memoryBandwidth INTEGER, cuDevice INTEGER);
INSERT INTO TARGET_INFO_GPU VALUES (1,0,'NVIDIA A40',84,695968000000,1),(1,1,'NVIDIA A100-PCIE-40GB',108,1555200000000,0);
CREATE TABLE ANALYSIS_DETAILS (globalVid INTEGER NOT NULL, duration INTEGER NOT NULL, startTime INTEGER NOT NULL,
  stopTime INTEGER NOT NULL);
INSERT INTO ANALYSIS_DETAILS VALUES (1,9500,0,9500);
)");
    const Trace t = read_nsys_sqlite(path);
    EXPECT_EQ(t.meta.tool_version, "2022.1.3.3");
    EXPECT_EQ(t.meta.schema_version, "2.9.1");
    // Only the GPU that ran work is kept, with its own row (id 1, not cuDevice 1).
    ASSERT_EQ(t.meta.devices.size(), 1u);
    EXPECT_EQ(t.meta.devices[0].id, 1);
    EXPECT_EQ(t.meta.devices[0].name, "NVIDIA A100-PCIE-40GB");
    EXPECT_EQ(t.meta.devices[0].sm_count, 108);
    // 3 node-level kernels + 1 graph-level execution whose nodes were not traced (the other one is not doubled).
    ASSERT_EQ(t.kernels.size(), 4u);
    EXPECT_EQ(t.str(t.kernels.name[0]), "gemm_kernel(float*)");
    EXPECT_EQ(t.str(t.kernels.short_name[0]), "gemm_kernel");
    EXPECT_EQ(t.kernels.launch_shape(0).shared_memory, 16u + 1024u);
    EXPECT_EQ(t.kernels.flags[0], 0);
    EXPECT_EQ(t.kernels.flags[1], KernelTable::kGraphNode | KernelTable::kCooperative);
    EXPECT_EQ(t.str(t.kernels.name[3]), "[CUDA graph 2]");
    EXPECT_EQ(t.kernels.start[3], 5000);
    // API: driver vs runtime, flags by name, kernel links through correlation id within the process.
    ASSERT_EQ(t.api.size(), 5u);
    EXPECT_EQ(t.api.api_class[0], ApiClass::Runtime);
    EXPECT_EQ(t.api.api_class[1], ApiClass::Driver);
    EXPECT_TRUE(t.api.flags[1] & kApiLaunch);
    EXPECT_TRUE(t.api.flags[4] & kApiSync);
    EXPECT_EQ(t.kernels.launch_api[0], 0);
    EXPECT_EQ(t.kernels.launch_api[1], 1);
    EXPECT_EQ(t.kernels.launch_api[3], 3);
    ASSERT_EQ(t.meta.threads.size(), 1u);
    EXPECT_EQ(t.meta.threads[0].pid, 4321);
    EXPECT_EQ(t.meta.threads[0].tid, 4321);
    EXPECT_EQ(t.meta.threads[0].name, "main");
    ASSERT_EQ(t.meta.processes.size(), 1u);
    EXPECT_EQ(t.meta.processes[0].name, "python3");
    // NVTX: inline text, registered text, domain prefix, open range closed at capture end, marks apart.
    ASSERT_EQ(t.ranges.size(), 4u);
    EXPECT_EQ(t.str(t.ranges.name[0]), "inline text");
    EXPECT_EQ(t.str(t.ranges.name[1]), "registered range");
    EXPECT_EQ(t.str(t.ranges.name[2]), "MyDomain:in domain");
    EXPECT_EQ(t.ranges.kind[2], RangeKind::StartEnd);
    EXPECT_EQ(t.str(t.ranges.name[3]), "never closed");
    EXPECT_EQ(t.ranges.end[3], 9500);
    EXPECT_EQ(t.ranges.depth[1], 1);
    ASSERT_EQ(t.marks.size(), 1u);
    EXPECT_EQ(t.str(t.marks.name[0]), "a mark");
    EXPECT_EQ(t.marks.time[0], 870);
    EXPECT_EQ(t.meta.capture_start, 0);
    EXPECT_EQ(t.meta.capture_end, 9500);
}

TEST(NsysReader, NoKernelTableIsNotAnError)
{
    const std::string path = make_db(test::scratch_dir("nsys_nokernel") + "/cpu.sqlite", R"(
CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO StringIds VALUES (1,'cudaGetDeviceCount');
CREATE TABLE META_DATA_EXPORT (name TEXT NOT NULL, value TEXT);
INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_PRODUCT_VERSION','2025.5.1.121');
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL,
  globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL, callchainId INTEGER);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (10,20,0,281474976710657,1,1,0,NULL);
)");
    const Trace t = read_nsys_sqlite(path);
    EXPECT_EQ(t.kernels.size(), 0u);
    EXPECT_EQ(t.api.size(), 1u);
    ASSERT_FALSE(t.meta.warnings.empty());
    EXPECT_NE(t.meta.warnings.back().find("no GPU activity"), std::string::npos);
}

TEST(NsysReader, HostileFileRunsNothingAndWritesNothing)
{
    const std::string dir = test::scratch_dir("nsys_hostile");
    const std::string path = dir + "/hostile.sqlite";
    write_nsys_sqlite(make_synthetic_trace(synth_preset("decode")), path);
    {
        sqlite3* db = nullptr;
        ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
        exec(db, "CREATE TABLE pwned (x TEXT);"
                 "CREATE TRIGGER t1 AFTER INSERT ON StringIds BEGIN INSERT INTO pwned VALUES ('trigger'); END;"
                 "CREATE TRIGGER t2 BEFORE DELETE ON CUPTI_ACTIVITY_KIND_KERNEL BEGIN INSERT INTO pwned VALUES ('d'); END;"
                 // A view posing as an nsys table: must not be read as data.
                 "CREATE VIEW CUPTI_ACTIVITY_KIND_MEMSET AS SELECT start, end, deviceId, contextId, streamId, "
                 "correlationId, globalPid, 0 AS value, 1 AS bytes, NULL AS graphNodeId, 2 AS memKind "
                 "FROM CUPTI_ACTIVITY_KIND_KERNEL;"
                 // WAL mode: a careless read-only open would create -wal and -shm files beside it.
                 "PRAGMA journal_mode=WAL;");
        sqlite3_close(db);
    }
    struct stat before {};
    ASSERT_EQ(::stat(path.c_str(), &before), 0);
    const std::string bytes_before = read_bytes(path);
    const auto listing = [&] {
        std::set<std::string> s;
        for (const auto& e : fs::directory_iterator(dir))
            s.insert(e.path().filename().string());
        return s;
    };
    const auto files_before = listing();

    const Trace t = read_nsys_sqlite(path);
    EXPECT_EQ(t.kernels.size(), 3094u);
    EXPECT_EQ(t.memset.size(), 0u) << "a view must not be read as an activity table";

    struct stat after {};
    ASSERT_EQ(::stat(path.c_str(), &after), 0);
    EXPECT_EQ(after.st_mtim.tv_sec, before.st_mtim.tv_sec);
    EXPECT_EQ(after.st_mtim.tv_nsec, before.st_mtim.tv_nsec);
    EXPECT_EQ(read_bytes(path), bytes_before);
    EXPECT_EQ(listing(), files_before) << "no journal or WAL file may appear";
    EXPECT_EQ(test::sqlite_rows(path, "SELECT count(*) FROM pwned")[0][0], "0");
}

TEST(NsysReader, BadInputGivesOneClearError)
{
    const std::string dir = test::scratch_dir("nsys_bad");
    const std::string good = dir + "/good.sqlite";
    write_nsys_sqlite(make_synthetic_trace(synth_preset("decode")), good);
    const std::string bytes = read_bytes(good);

    write_bytes(dir + "/truncated.sqlite", bytes.substr(0, bytes.size() / 2));
    expect_error(dir + "/truncated.sqlite", {"truncated", std::to_string(bytes.size() / 2) + " bytes"});

    write_bytes(dir + "/header_only.sqlite", bytes.substr(0, 60));
    expect_error(dir + "/header_only.sqlite", {"truncated"});

    std::mt19937 rng(42);
    std::string noise(8192, '\0');
    for (auto& c : noise)
        c = static_cast<char>(rng());
    write_bytes(dir + "/random.bin", noise);
    expect_error(dir + "/random.bin", {"not SQLite", "Nsight Systems SQLite export"});

    // SQLite header, then garbage over every page after the first: SQLite must report corruption, not crash.
    std::string corrupt = bytes;
    for (size_t i = 4096; i < corrupt.size(); ++i)
        corrupt[i] = static_cast<char>(rng());
    write_bytes(dir + "/corrupt.sqlite", corrupt);
    expect_error(dir + "/corrupt.sqlite", {"SQLite"});

    {
        sqlite3* db = nullptr;
        ASSERT_EQ(sqlite3_open((dir + "/empty.sqlite").c_str(), &db), SQLITE_OK);
        exec(db, "PRAGMA user_version=1");   // forces the header to be written; no tables
        sqlite3_close(db);
    }
    expect_error(dir + "/empty.sqlite", {"no tables"});

    make_db(dir + "/other.sqlite", "CREATE TABLE customers (id INTEGER, name TEXT); INSERT INTO customers VALUES (1,'a');");
    expect_error(dir + "/other.sqlite", {"not an nsys export", "customers"});

    expect_error(dir, {"a directory"});
    expect_error(dir + "/does_not_exist.sqlite", {"no such file"});
    write_bytes(dir + "/zero.sqlite", "");
    expect_error(dir + "/zero.sqlite", {"empty"});

    // A required column missing: names the table and what it has.
    make_db(dir + "/nocols.sqlite", "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);"
                                    "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (begin INTEGER, finish INTEGER);");
    expect_error(dir + "/nocols.sqlite", {"CUPTI_ACTIVITY_KIND_KERNEL", "start", "begin"});
}

TEST(NsysReader, ReportWithoutNsysNamesTheExportCommand)
{
    const std::string dir = test::scratch_dir("nsys_rep");
    const std::string rep = dir + "/run.nsys-rep";
    write_bytes(rep, std::string("NVIDIA Tegra Profiler Report 2024@6@2@25") + std::string(64, '\0'));
    const char* old_path = std::getenv("PATH");
    const std::string saved = old_path ? old_path : "";
    setenv("PATH", dir.c_str(), 1);   // no nsys here
    try {
        read_nsys_report(rep);
        ADD_FAILURE() << "expected an error";
    } catch (const TraceError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("nsys export --type sqlite --force-overwrite true -o '" + dir + "/run.sqlite' '" + rep + "'"),
                  std::string::npos)
            << what;
    }
    setenv("PATH", saved.c_str(), 1);
}

TEST(NsysReader, ReportIsExportedOnceThroughNsysIntoTheCache)
{
    const std::string dir = test::scratch_dir("nsys_rep_fake");
    const std::string export_src = dir + "/prepared.sqlite";
    write_nsys_sqlite(make_synthetic_trace(synth_preset("decode")), export_src);
    const std::string rep = dir + "/run.nsys-rep";
    write_bytes(rep, std::string("NVIDIA Tegra Profiler Report 2024@6@2@25") + std::string(64, '\0'));
    // A stand-in for nsys: records its arguments and writes the prepared export to "<-o value>.sqlite".
    fs::create_directories(dir + "/bin");
    write_bytes(dir + "/bin/nsys", "#!/bin/sh\necho \"$@\" >> '" + dir + "/calls.txt'\nout=\"\"\nprev=\"\"\n"
                                   "for a in \"$@\"; do [ \"$prev\" = \"-o\" ] && out=\"$a\"; prev=\"$a\"; done\n"
                                   "cp '" + export_src + "' \"$out.sqlite\"\n");
    fs::permissions(dir + "/bin/nsys", fs::perms::owner_all);
    const std::string saved_path = std::getenv("PATH") ? std::getenv("PATH") : "";
    const char* saved_cache = std::getenv("XDG_CACHE_HOME");
    const std::string saved_cache_s = saved_cache ? saved_cache : "";
    setenv("PATH", (dir + "/bin:/usr/bin:/bin").c_str(), 1);
    setenv("XDG_CACHE_HOME", (dir + "/cache").c_str(), 1);
    const Trace t1 = read_nsys_report(rep);
    const Trace t2 = read_nsys_report(rep);
    setenv("PATH", saved_path.c_str(), 1);
    if (saved_cache)
        setenv("XDG_CACHE_HOME", saved_cache_s.c_str(), 1);
    else
        unsetenv("XDG_CACHE_HOME");
    EXPECT_EQ(t1.kernels.size(), 3094u);
    EXPECT_EQ(t2.kernels.size(), 3094u);
    EXPECT_EQ(t1.meta.source_path, rep);
    const std::string calls = read_bytes(dir + "/calls.txt");
    EXPECT_EQ(std::count(calls.begin(), calls.end(), '\n'), 1) << "the second open must come from the cache: " << calls;
    EXPECT_NE(calls.find("export --type sqlite --force-overwrite true -o " + dir + "/cache/sightline/"), std::string::npos)
        << calls;
    EXPECT_NE(calls.find(rep), std::string::npos);
}

TEST(NsysReader, CancelAndProgress)
{
    SynthOptions o;
    o.prefill_steps = 0;
    o.layers = 8;
    o.total_kernels = 60'000;
    const std::string path = test::scratch_dir("nsys_cancel") + "/big.sqlite";
    write_nsys_sqlite(make_synthetic_trace(o), path);

    std::atomic<bool> cancel{true};
    LoadControl c;
    c.cancel = &cancel;
    EXPECT_THROW(read_nsys_sqlite(path, c), Cancelled);

    // Cancel raised from the progress callback once a tenth of the rows are read. The tables are read on parallel
    // threads and only the calling thread reports, naming the table it reads, so which stage that is depends on
    // scheduling: the cancel is asked for at any stage (asking for it at "kernels" only made this test flaky).
    std::atomic<bool> late{false};
    LoadControl c2;
    c2.cancel = &late;
    size_t calls = 0;
    c2.progress = [&](double f, std::string_view) {
        ++calls;
        if (f > 0.1)
            late = true;
    };
    EXPECT_THROW(read_nsys_sqlite(path, c2), Cancelled);
    EXPECT_GT(calls, 1u);

    std::vector<double> fractions;
    LoadControl c3;
    c3.progress = [&](double f, std::string_view) { fractions.push_back(f); };
    const Trace t = read_nsys_sqlite(path, c3);
    EXPECT_EQ(t.kernels.size(), 60'000u);
    ASSERT_GT(fractions.size(), 4u);
    EXPECT_TRUE(std::is_sorted(fractions.begin(), fractions.end()));
    EXPECT_DOUBLE_EQ(fractions.back(), 1.0);
}
