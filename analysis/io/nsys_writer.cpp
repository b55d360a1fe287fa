#include "analysis/io/nsys_writer.h"

#include <sqlite3.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <map>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "analysis/io/output_file.h"
#include "analysis/trace/errors.h"

namespace sl {

namespace {

// Column lists and comments follow the DDL of a real nsys 2024.5 export (schema 3.13.2); NVTX_EVENTS follows the
// 2024.6 column list (binaryData added).
constexpr const char* kDdlStringIds = R"(CREATE TABLE StringIds (
    -- Consolidation of repetitive string values.

    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- ID reference value.
    value                       TEXT      NOT NULL                     -- String value.
))";

constexpr const char* kDdlKernel = R"(CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (
    start                       INTEGER   NOT NULL,                    -- Event start timestamp (ns).
    end                         INTEGER   NOT NULL,                    -- Event end timestamp (ns).
    deviceId                    INTEGER   NOT NULL,                    -- Device ID.
    contextId                   INTEGER   NOT NULL,                    -- Context ID.
    greenContextId              INTEGER,                               -- Green context ID.
    streamId                    INTEGER   NOT NULL,                    -- Stream ID.
    correlationId               INTEGER,                               -- REFERENCES CUPTI_ACTIVITY_KIND_RUNTIME(correlationId)
    globalPid                   INTEGER,                               -- Serialized GlobalId.
    demangledName               INTEGER   NOT NULL,                    -- REFERENCES StringIds(id) -- Kernel function name w/ templates
    shortName                   INTEGER   NOT NULL,                    -- REFERENCES StringIds(id) -- Base kernel function name
    mangledName                 INTEGER,                               -- REFERENCES StringIds(id) -- Raw C++ mangled kernel function name
    launchType                  INTEGER,                               -- REFERENCES ENUM_CUDA_KERNEL_LAUNCH_TYPE(id)
    cacheConfig                 INTEGER,                               -- REFERENCES ENUM_CUDA_FUNC_CACHE_CONFIG(id)
    registersPerThread          INTEGER   NOT NULL,                    -- Number of registers required for each thread executing the kernel.
    gridX                       INTEGER   NOT NULL,                    -- X-dimension grid size.
    gridY                       INTEGER   NOT NULL,                    -- Y-dimension grid size.
    gridZ                       INTEGER   NOT NULL,                    -- Z-dimension grid size.
    blockX                      INTEGER   NOT NULL,                    -- X-dimension block size.
    blockY                      INTEGER   NOT NULL,                    -- Y-dimension block size.
    blockZ                      INTEGER   NOT NULL,                    -- Z-dimension block size.
    staticSharedMemory          INTEGER   NOT NULL,                    -- Static shared memory allocated for the kernel (B).
    dynamicSharedMemory         INTEGER   NOT NULL,                    -- Dynamic shared memory reserved for the kernel (B).
    localMemoryPerThread        INTEGER   NOT NULL,                    -- Amount of local memory reserved for each thread (B).
    localMemoryTotal            INTEGER   NOT NULL,                    -- Total amount of local memory reserved for the kernel (B).
    gridId                      INTEGER   NOT NULL,                    -- Unique grid ID of the kernel assigned at runtime.
    sharedMemoryExecuted        INTEGER,                               -- Shared memory size set by the driver.
    graphNodeId                 INTEGER,                               -- REFERENCES CUDA_GRAPH_NODE_EVENTS(graphNodeId)
    sharedMemoryLimitConfig     INTEGER                                -- REFERENCES ENUM_CUDA_SHARED_MEM_LIMIT_CONFIG(id)
))";

constexpr const char* kDdlGraphNodes = R"(CREATE TABLE CUDA_GRAPH_NODE_EVENTS (
    start                       INTEGER   NOT NULL,                    -- Event start timestamp (ns).
    end                         INTEGER   NOT NULL,                    -- Event end timestamp (ns).
    eventClass                  INTEGER   NOT NULL,                    -- CUDA event class enum value.
    globalTid                   INTEGER,                               -- Serialized GlobalId.
    nameId                      INTEGER   NOT NULL,                    -- REFERENCES StringIds(id) -- Function name.
    graphNodeId                 INTEGER   NOT NULL,                    -- CUDA graph node ID.
    originalGraphNodeId         INTEGER                                -- Reference to the original graph node ID, if cloned node.
))";

constexpr const char* kDdlRuntime = R"(CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (
    start                       INTEGER   NOT NULL,                    -- Event start timestamp (ns).
    end                         INTEGER   NOT NULL,                    -- Event end timestamp (ns).
    eventClass                  INTEGER   NOT NULL,                    -- REFERENCES ENUM_NSYS_EVENT_CLASS(id)
    globalTid                   INTEGER,                               -- Serialized GlobalId.
    correlationId               INTEGER,                               -- ID used to identify events that this function call has triggered.
    nameId                      INTEGER   NOT NULL,                    -- REFERENCES StringIds(id) -- Function name
    returnValue                 INTEGER   NOT NULL,                    -- Return value of the function call.
    callchainId                 INTEGER                                -- REFERENCES CUDA_CALLCHAINS(id)
))";

constexpr const char* kDdlMemcpy = R"(CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (
    start                       INTEGER   NOT NULL,                    -- Event start timestamp (ns).
    end                         INTEGER   NOT NULL,                    -- Event end timestamp (ns).
    deviceId                    INTEGER   NOT NULL,                    -- Device ID.
    contextId                   INTEGER   NOT NULL,                    -- Context ID.
    greenContextId              INTEGER,                               -- Green context ID.
    streamId                    INTEGER   NOT NULL,                    -- Stream ID.
    correlationId               INTEGER,                               -- REFERENCES CUPTI_ACTIVITY_KIND_RUNTIME(correlationId)
    globalPid                   INTEGER,                               -- Serialized GlobalId.
    bytes                       INTEGER   NOT NULL,                    -- Number of bytes transferred (B).
    copyKind                    INTEGER   NOT NULL,                    -- REFERENCES ENUM_CUDA_MEMCPY_OPER(id)
    deprecatedSrcId             INTEGER,                               -- Deprecated, use srcDeviceId instead.
    srcKind                     INTEGER,                               -- REFERENCES ENUM_CUDA_MEM_KIND(id)
    dstKind                     INTEGER,                               -- REFERENCES ENUM_CUDA_MEM_KIND(id)
    srcDeviceId                 INTEGER,                               -- Source device ID.
    srcContextId                INTEGER,                               -- Source context ID.
    dstDeviceId                 INTEGER,                               -- Destination device ID.
    dstContextId                INTEGER,                               -- Destination context ID.
    migrationCause              INTEGER,                               -- REFERENCES ENUM_CUDA_UNIF_MEM_MIGRATION(id)
    graphNodeId                 INTEGER,                               -- REFERENCES CUDA_GRAPH_NODE_EVENTS(graphNodeId)
    virtualAddress              INTEGER                                -- Virtual base address of the page/s being transferred.
))";

constexpr const char* kDdlMemset = R"(CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (
    start                       INTEGER   NOT NULL,                    -- Event start timestamp (ns).
    end                         INTEGER   NOT NULL,                    -- Event end timestamp (ns).
    deviceId                    INTEGER   NOT NULL,                    -- Device ID.
    contextId                   INTEGER   NOT NULL,                    -- Context ID.
    greenContextId              INTEGER,                               -- Green context ID.
    streamId                    INTEGER   NOT NULL,                    -- Stream ID.
    correlationId               INTEGER,                               -- REFERENCES CUPTI_ACTIVITY_KIND_RUNTIME(correlationId)
    globalPid                   INTEGER,                               -- Serialized GlobalId.
    value                       INTEGER   NOT NULL,                    -- Value assigned to memory.
    bytes                       INTEGER   NOT NULL,                    -- Number of bytes set (B).
    graphNodeId                 INTEGER,                               -- REFERENCES CUDA_GRAPH_NODE_EVENTS(graphNodeId)
    memKind                     INTEGER                                -- REFERENCES ENUM_CUDA_MEM_KIND(id)
))";

constexpr const char* kDdlSync = R"(CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (
    start                       INTEGER   NOT NULL,                    -- Event start timestamp (ns).
    end                         INTEGER   NOT NULL,                    -- Event end timestamp (ns).
    deviceId                    INTEGER   NOT NULL,                    -- Device ID.
    contextId                   INTEGER   NOT NULL,                    -- Context ID.
    greenContextId              INTEGER,                               -- Green context ID.
    streamId                    INTEGER   NOT NULL,                    -- Stream ID.
    correlationId               INTEGER,                               -- Correlation ID of the synchronization API to which this result is associated.
    globalPid                   INTEGER,                               -- Serialized GlobalId.
    syncType                    INTEGER   NOT NULL,                    -- REFERENCES ENUM_CUPTI_SYNC_TYPE(id)
    eventId                     INTEGER   NOT NULL                     -- Event ID for which the synchronization API is called.
))";

constexpr const char* kDdlNvtx = R"(CREATE TABLE NVTX_EVENTS (
    start                       INTEGER   NOT NULL,                    -- Event start timestamp (ns).
    end                         INTEGER,                               -- Event end timestamp (ns).
    eventType                   INTEGER   NOT NULL,                    -- REFERENCES ENUM_NSYS_EVENT_TYPE(id)
    rangeId                     INTEGER,                               -- Correlation ID returned from a nvtxRangeStart call.
    category                    INTEGER,                               -- User-controlled ID that can be used to group events.
    color                       INTEGER,                               -- Encoded ARGB color value.
    text                        TEXT,                                  -- Optional text message for non registered strings.
    globalTid                   INTEGER,                               -- Serialized GlobalId.
    endGlobalTid                INTEGER,                               -- Serialized GlobalId. See docs for specifics.
    textId                      INTEGER,                               -- REFERENCES StringIds(id) -- Registered NVTX domain string.
    domainId                    INTEGER,                               -- User-controlled ID that can be used to group events.
    uint64Value                 INTEGER,                               -- One of possible payload value union members.
    int64Value                  INTEGER,                               -- One of possible payload value union members.
    doubleValue                 REAL,                                  -- One of possible payload value union members.
    uint32Value                 INTEGER,                               -- One of possible payload value union members.
    int32Value                  INTEGER,                               -- One of possible payload value union members.
    floatValue                  REAL,                                  -- One of possible payload value union members.
    jsonTextId                  INTEGER,                               -- One of possible payload value union members.
    jsonText                    TEXT,                                  -- One of possible payload value union members.
    binaryData                  TEXT                                   -- Binary payload.
))";

constexpr const char* kDdlThreadNames = R"(CREATE TABLE ThreadNames (
    nameId                      INTEGER   NOT NULL,                    -- REFERENCES StringIds(id) -- Thread name
    priority                    INTEGER,                               -- Priority of the thread.
    globalTid                   INTEGER                                -- Serialized GlobalId.
))";

constexpr const char* kDdlProcesses = R"(CREATE TABLE PROCESSES (
    -- Names and identifiers of processes captured in the report.

    globalPid                   INTEGER,                               -- Serialized GlobalId.
    pid                         INTEGER,                               -- The process ID.
    name                        TEXT                                   -- The process name.
))";

constexpr const char* kDdlGpu = R"(CREATE TABLE TARGET_INFO_GPU (
    vmId                        INTEGER   NOT NULL,                    -- Serialized GlobalId.
    id                          INTEGER   NOT NULL,                    -- Device ID.
    name                        TEXT,                                  -- Device name.
    busLocation                 TEXT,                                  -- PCI bus location.
    isDiscrete                  INTEGER,                               -- True if discrete, false if integrated.
    l2CacheSize                 INTEGER,                               -- Size of L2 cache (B).
    totalMemory                 INTEGER,                               -- Total amount of memory on the device (B).
    memoryBandwidth             INTEGER,                               -- Amount of memory transferred (B).
    clockRate                   INTEGER,                               -- Clock frequency (Hz).
    smCount                     INTEGER,                               -- Number of multiprocessors on the device.
    pwGpuId                     INTEGER,                               -- PerfWorks GPU ID.
    uuid                        TEXT,                                  -- Device UUID.
    luid                        INTEGER,                               -- Device LUID.
    chipName                    TEXT,                                  -- Chip name.
    cuDevice                    INTEGER,                               -- CUDA device ID.
    ctxswDevPath                TEXT,                                  -- GPU context switch device node path.
    ctrlDevPath                 TEXT,                                  -- GPU control device node path.
    revision                    INTEGER,                               -- Revision number.
    nodeMask                    INTEGER,                               -- Device node mask.
    constantMemory              INTEGER,                               -- Memory available on device for __constant__ variables (B).
    maxIPC                      INTEGER,                               -- Maximum instructions per count.
    maxRegistersPerBlock        INTEGER,                               -- Maximum number of 32-bit registers available per block.
    maxShmemPerBlock            INTEGER,                               -- Maximum optin shared memory per block.
    maxShmemPerBlockOptin       INTEGER,                               -- Maximum optin shared memory per block.
    maxShmemPerSm               INTEGER,                               -- Maximum shared memory available per multiprocessor (B).
    maxRegistersPerSm           INTEGER,                               -- Maximum number of 32-bit registers available per multiprocessor.
    threadsPerWarp              INTEGER,                               -- Warp size in threads.
    asyncEngines                INTEGER,                               -- Number of asynchronous engines.
    maxWarpsPerSm               INTEGER,                               -- Maximum number of warps per multiprocessor.
    maxBlocksPerSm              INTEGER,                               -- Maximum number of blocks per multiprocessor.
    maxThreadsPerBlock          INTEGER,                               -- Maximum number of threads per block.
    maxBlockDimX                INTEGER,                               -- Maximum X-dimension of a block.
    maxBlockDimY                INTEGER,                               -- Maximum Y-dimension of a block.
    maxBlockDimZ                INTEGER,                               -- Maximum Z-dimension of a block.
    maxGridDimX                 INTEGER,                               -- Maximum X-dimension of a grid.
    maxGridDimY                 INTEGER,                               -- Maximum Y-dimension of a grid.
    maxGridDimZ                 INTEGER,                               -- Maximum Z-dimension of a grid.
    computeMajor                INTEGER,                               -- Major compute capability version number.
    computeMinor                INTEGER,                               -- Minor compute capability version number.
    smMajor                     INTEGER,                               -- Major multiprocessor version number.
    smMinor                     INTEGER                                -- Minor multiprocessor version number.
))";

constexpr const char* kDdlContext = R"(CREATE TABLE TARGET_INFO_CUDA_CONTEXT_INFO (
    nullStreamId                INTEGER   NOT NULL,                    -- Stream ID.
    hwId                        INTEGER   NOT NULL,                    -- Hardware ID.
    vmId                        INTEGER   NOT NULL,                    -- VM ID.
    processId                   INTEGER   NOT NULL,                    -- Process ID.
    deviceId                    INTEGER   NOT NULL,                    -- Device ID.
    contextId                   INTEGER   NOT NULL,                    -- Context ID.
    parentContextId             INTEGER,                               -- For green context, this is the parent context id.
    isGreenContext              INTEGER                                -- Is this a Green Context?
))";

constexpr const char* kDdlStream = R"(CREATE TABLE TARGET_INFO_CUDA_STREAM (
    streamId                    INTEGER   NOT NULL,                    -- Stream ID.
    hwId                        INTEGER   NOT NULL,                    -- Hardware ID.
    vmId                        INTEGER   NOT NULL,                    -- VM ID.
    processId                   INTEGER   NOT NULL,                    -- Process ID.
    contextId                   INTEGER   NOT NULL,                    -- Context ID.
    priority                    INTEGER   NOT NULL,                    -- Priority of the stream.
    flag                        INTEGER   NOT NULL                     -- REFERENCES ENUM_CUPTI_STREAM_TYPE(id)
))";

constexpr const char* kDdlMeta = R"(CREATE TABLE META_DATA_EXPORT (
    -- information about nsys export process

    name                        TEXT      NOT NULL,                    -- Name of meta-data record
    value                       TEXT                                   -- Value of meta-data record
))";

constexpr const char* kDdlAnalysis = R"(CREATE TABLE ANALYSIS_DETAILS (
    -- Details about the analysis session.

    globalVid                   INTEGER   NOT NULL,                    -- Serialized GlobalId.
    duration                    INTEGER   NOT NULL,                    -- The total time span of the entire trace (ns).
    startTime                   INTEGER   NOT NULL,                    -- Trace start timestamp in nanoseconds.
    stopTime                    INTEGER   NOT NULL                     -- Trace stop timestamp in nanoseconds.
))";

constexpr const char* kDdlSession = R"(CREATE TABLE TARGET_INFO_SESSION_START_TIME (
    utcEpochNs                  INTEGER,                               -- UTC Epoch timestamp at start of the capture (ns).
    utcTime                     TEXT,                                  -- Start of the capture in UTC.
    localTime                   TEXT                                   -- Start of the capture in local time of target.
))";

std::string enum_ddl(const char* table, const char* what)
{
    return std::string("CREATE TABLE ") + table + " (\n    -- " + what +
           "\n\n    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.\n"
           "    name                        TEXT,                                  -- Enum symbol name.\n"
           "    label                       TEXT                                   -- Enum human name.\n)";
}

struct EnumRow {
    int id;
    const char* name;
    const char* label;
};

const EnumRow kMemcpyOper[] = {
    {0, "CUDA_MEMCPY_KIND_UNKNOWN", "Unknown"}, {1, "CUDA_MEMCPY_KIND_HTOD", "Host-to-Device"},
    {2, "CUDA_MEMCPY_KIND_DTOH", "Device-to-Host"}, {3, "CUDA_MEMCPY_KIND_HTOA", "Host-to-Array"},
    {4, "CUDA_MEMCPY_KIND_ATOH", "Array-to-Host"}, {5, "CUDA_MEMCPY_KIND_ATOA", "Array-to-Array"},
    {6, "CUDA_MEMCPY_KIND_ATOD", "Array-to-Device"}, {7, "CUDA_MEMCPY_KIND_DTOA", "Device-to-Array"},
    {8, "CUDA_MEMCPY_KIND_DTOD", "Device-to-Device"}, {9, "CUDA_MEMCPY_KIND_HTOH", "Host-to-Host"},
    {10, "CUDA_MEMCPY_KIND_PTOP", "Peer-to-Peer"}, {11, "CUDA_MEMCPY_KIND_UVM_HTOD", "Unified Host-to-Device"},
    {12, "CUDA_MEMCPY_KIND_UVM_DTOH", "Unified Device-to-Host"},
    {13, "CUDA_MEMCPY_KIND_UVM_DTOD", "Unified Device-to-Device"}};
const EnumRow kMemKind[] = {
    {0, "CUDA_MEMOPR_MEMORY_KIND_PAGEABLE", "Pageable"}, {1, "CUDA_MEMOPR_MEMORY_KIND_PINNED", "Pinned"},
    {2, "CUDA_MEMOPR_MEMORY_KIND_DEVICE", "Device"}, {3, "CUDA_MEMOPR_MEMORY_KIND_ARRAY", "Array"},
    {4, "CUDA_MEMOPR_MEMORY_KIND_MANAGED", "Managed"}, {5, "CUDA_MEMOPR_MEMORY_KIND_DEVICE_STATIC", "Device Static"},
    {6, "CUDA_MEMOPR_MEMORY_KIND_MANAGED_STATIC", "Managed Static"}, {7, "CUDA_MEMOPR_MEMORY_KIND_UNKNOWN", "Unknown"}};
const EnumRow kSyncType[] = {
    {0, "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_UNKNOWN", "Unknown"},
    {1, "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE", "Event sync"},
    {2, "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT", "Stream wait sync"},
    {3, "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE", "Stream sync"},
    {4, "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE", "Context sync"}};
const EnumRow kStreamType[] = {
    {0, "CUPTI_ACTIVITY_STREAM_CREATE_FLAG_UNKNOWN", "Unknown stream type"},
    {1, "CUPTI_ACTIVITY_STREAM_CREATE_FLAG_DEFAULT", "Default stream"},
    {2, "CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NON_BLOCKING", "Non-blocking stream"},
    {3, "CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NULL", "Null stream"}};
const EnumRow kLaunchType[] = {
    {0, "CUDA_KERNEL_LAUNCH_TYPE_UNKNOWN", "Unknown"}, {1, "CUDA_KERNEL_LAUNCH_TYPE_REGULAR", "Regular"},
    {2, "CUDA_KERNEL_LAUNCH_TYPE_COOPERATIVE_SINGLE_DEVICE", "Coop Single Device"},
    {3, "CUDA_KERNEL_LAUNCH_TYPE_COOPERATIVE_MULTI_DEVICE", "Coop Multi Device"}};
const EnumRow kCacheConfig[] = {
    {0, "CU_FUNC_CACHE_PREFER_NONE", "None"}, {1, "CU_FUNC_CACHE_PREFER_SHARED", "Shared"},
    {2, "CU_FUNC_CACHE_PREFER_L1", "L1"}, {3, "CU_FUNC_CACHE_PREFER_EQUAL", "Equal"}};
const EnumRow kShmemLimit[] = {{0, "CUDA_SHARED_MEM_LIMIT_DEFAULT", "Default"},
                               {1, "CUDA_SHARED_MEM_LIMIT_OPTIN", "Opt in"}};
const EnumRow kEventClass[] = {
    {0, "TRACE_PROCESS_EVENT_CUDA_RUNTIME", "CUDA runtime"}, {1, "TRACE_PROCESS_EVENT_CUDA_DRIVER", "CUDA driver"},
    {13, "TRACE_PROCESS_EVENT_CUDA_EGL_DRIVER", "CUDA EGL driver"}, {27, "TRACE_PROCESS_EVENT_OS_RUNTIME", "OS runtime"},
    {28, "TRACE_PROCESS_EVENT_CUDNN", "cuDNN"}, {29, "TRACE_PROCESS_EVENT_CUBLAS", "cuBLAS"}};
const EnumRow kEventType[] = {
    {33, "NvtxCategory", "NvtxCategory"}, {34, "NvtxMark", "NvtxMark"}, {39, "NvtxThread", "NvtxThread"},
    {59, "NvtxPushPopRange", "NvtxPushPopRange"}, {60, "NvtxStartEndRange", "NvtxStartEndRange"},
    {70, "NvtxtPushPopRange", "NvtxtPushPopRange"}, {71, "NvtxtStartEndRange", "NvtxtStartEndRange"},
    {75, "NvtxDomainCreate", "NvtxDomainCreate"}, {76, "NvtxDomainDestroy", "NvtxDomainDestroy"},
    {97, "NvtxNameCudaDevice", "NvtxNameCudaDevice"}, {98, "NvtxNameCudaContext", "NvtxNameCudaContext"},
    {99, "NvtxNameCudaStream", "NvtxNameCudaStream"}};

constexpr int64_t kVm = int64_t{1} << 48;

class Db {
public:
    Db(const std::string& path) : path_(path)
    {
        std::remove(path.c_str());
        if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) != SQLITE_OK) {
            const std::string msg = db_ ? sqlite3_errmsg(db_) : "out of memory";
            sqlite3_close(db_);
            db_ = nullptr;
            throw TraceError(path, "", "a writable file", msg);
        }
        // A throwing constructor runs no destructor: a full disk failing one of these closes the handle here.
        try {
            exec("PRAGMA journal_mode=OFF");
            exec("PRAGMA synchronous=OFF");
            exec("PRAGMA page_size=4096");
            // Marks the file as Sightline's (output_file.h): a later output may replace it, unlike a real export.
            exec("PRAGMA application_id=" + std::to_string(kSightlineSqliteApplicationId));
            exec("BEGIN");
        } catch (...) {
            sqlite3_close_v2(db_);
            db_ = nullptr;
            throw;
        }
    }
    ~Db()
    {
        for (auto* s : stmts_)
            sqlite3_finalize(s);
        if (db_)
            sqlite3_close_v2(db_);
    }
    void exec(const std::string& sql)
    {
        char* err = nullptr;
        if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
            std::string msg = err ? err : "unknown error";
            sqlite3_free(err);
            throw TraceError(path_, sql.substr(0, 60), "a successful write", msg);
        }
    }
    sqlite3_stmt* prepare(const std::string& sql)
    {
        sqlite3_stmt* s = nullptr;
        if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &s, nullptr) != SQLITE_OK)
            throw TraceError(path_, sql.substr(0, 60), "a valid statement", sqlite3_errmsg(db_));
        stmts_.push_back(s);
        return s;
    }
    void step(sqlite3_stmt* s)
    {
        if (sqlite3_step(s) != SQLITE_DONE)
            throw TraceError(path_, sqlite3_sql(s), "a successful insert", sqlite3_errmsg(db_));
        sqlite3_reset(s);
    }
    void commit() { exec("COMMIT"); }

private:
    std::string path_;
    sqlite3* db_ = nullptr;
    std::vector<sqlite3_stmt*> stmts_;
};

// Binds helpers: column indices are 1-based.
inline void bi(sqlite3_stmt* s, int c, int64_t v) { sqlite3_bind_int64(s, c, v); }
inline void bn(sqlite3_stmt* s, int c) { sqlite3_bind_null(s, c); }
inline void bt(sqlite3_stmt* s, int c, std::string_view v)
{
    sqlite3_bind_text(s, c, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
}

std::string insert_sql(const char* table, int ncols)
{
    std::string sql = std::string("INSERT INTO ") + table + " VALUES (";
    for (int i = 0; i < ncols; ++i)
        sql += i ? ",?" : "?";
    return sql + ")";
}

void write_enum(Db& db, const char* table, const char* what, const EnumRow* rows, size_t n)
{
    db.exec(enum_ddl(table, what));
    auto* s = db.prepare(insert_sql(table, 3));
    for (size_t i = 0; i < n; ++i) {
        bi(s, 1, rows[i].id);
        bt(s, 2, rows[i].name);
        bt(s, 3, rows[i].label);
        db.step(s);
    }
}

std::string iso_utc(int64_t epoch_ns)
{
    const std::time_t t = static_cast<std::time_t>(epoch_ns / 1'000'000'000);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
    return buf;
}

} // namespace

void write_nsys_sqlite(const Trace& trace, const std::string& path)
{
    Db db(path);
    const auto& meta = trace.meta;

    auto global_pid = [&](int64_t pid) { return kVm | ((pid & 0xFFFFFF) << 24); };
    auto pid_of = [&](uint16_t p) { return p < meta.processes.size() ? meta.processes[p].pid : 0; };
    auto device_id = [&](uint16_t d) { return d < meta.devices.size() ? meta.devices[d].id : 0; };
    std::vector<int64_t> thread_gtid(meta.threads.size());
    for (size_t i = 0; i < meta.threads.size(); ++i) {
        const auto& th = meta.threads[i];
        const int64_t g = th.global_tid;
        thread_gtid[i] = ((g >> 24) & 0xFFFFFF) == (th.pid & 0xFFFFFF) && g != 0
                             ? g
                             : global_pid(th.pid) | (th.tid & 0xFFFFFF);
    }
    auto gtid_of = [&](uint32_t t) { return t < thread_gtid.size() ? thread_gtid[t] : global_pid(0); };

    // ---- strings: pool ids are written as they are; names that are not in the pool get ids after it.
    const auto& pool = trace.strings;
    std::unordered_map<std::string, int64_t> extra;
    auto extra_id = [&](const std::string& s) -> int64_t {
        const StrId id = pool.find(s);
        if (id != StringPool::kNotFound)
            return id;
        auto [it, inserted] = extra.emplace(s, static_cast<int64_t>(pool.size() + extra.size()));
        return it->second;
    };
    std::vector<std::pair<int64_t, int64_t>> thread_names;   // (nameId, globalTid)
    for (size_t i = 0; i < meta.threads.size(); ++i)
        if (!meta.threads[i].name.empty())
            thread_names.emplace_back(extra_id(meta.threads[i].name), thread_gtid[i]);
    {
        db.exec(kDdlStringIds);
        auto* s = db.prepare("INSERT INTO StringIds VALUES (?,?)");
        for (size_t i = 0; i < pool.size(); ++i) {
            bi(s, 1, static_cast<int64_t>(i));
            bt(s, 2, pool.view(static_cast<StrId>(i)));
            db.step(s);
        }
        for (const auto& [str, id] : extra) {
            bi(s, 1, id);
            bt(s, 2, str);
            db.step(s);
        }
    }

    // ---- graph nodes: when the trace holds a stream capture (launch calls between cudaStreamBeginCapture and
    // EndCapture on one thread), each launch created node n (1, 2, ... in call order) and the instantiation cloned it
    // as node 1'000'000 + n; a replayed kernel is the node of its position in its graph launch. Otherwise replayed
    // kernels are numbered 1, 2, ... and no node rows are written.
    const auto& k = trace.kernels;
    std::vector<int64_t> kernel_node(k.size(), 0);
    struct NodeRow {
        int64_t start, gtid;
        StrId name;
        int64_t node, original;
    };
    std::vector<NodeRow> node_rows;
    {
        const auto& a = trace.api;
        std::vector<size_t> captured;   // launch calls of the first capture window, in call order
        int64_t begin = -1, end_time = 0;
        uint32_t thread = 0;
        std::vector<size_t> order(a.size());
        for (size_t i = 0; i < a.size(); ++i)
            order[i] = i;
        std::sort(order.begin(), order.end(), [&](size_t x, size_t y) { return a.start[x] < a.start[y]; });
        for (size_t i : order) {
            const std::string_view n = trace.str(a.name[i]);
            if (begin < 0 && n.find("StreamBeginCapture") != std::string_view::npos) {
                begin = a.start[i];
                thread = a.thread[i];
            } else if (begin >= 0 && end_time == 0 && a.thread[i] == thread) {
                if (n.find("StreamEndCapture") != std::string_view::npos)
                    end_time = a.end[i];
                else if (a.flags[i] & kApiLaunch)
                    captured.push_back(i);
            }
        }
        if (end_time > 0 && !captured.empty()) {
            for (size_t p = 0; p < captured.size(); ++p) {
                const size_t i = captured[p];
                node_rows.push_back({a.start[i], gtid_of(a.thread[i]), a.name[i], int64_t(p) + 1, 0});
            }
            for (size_t p = 0; p < captured.size(); ++p)
                node_rows.push_back({end_time, gtid_of(a.thread[captured[p]]), a.name[captured[p]],
                                     1'000'000 + int64_t(p) + 1, int64_t(p) + 1});
            std::map<uint32_t, std::vector<size_t>> by_launch;   // graph launch correlation -> its kernels
            for (size_t i = 0; i < k.size(); ++i)
                if (k.flags[i] & KernelTable::kGraphNode)
                    by_launch[k.correlation[i]].push_back(i);
            for (auto& [corr, rows] : by_launch) {
                std::sort(rows.begin(), rows.end(), [&](size_t x, size_t y) { return k.start[x] < k.start[y]; });
                for (size_t p = 0; p < rows.size(); ++p)
                    kernel_node[rows[p]] = p < captured.size() ? 1'000'000 + int64_t(p) + 1 : 0;
            }
        }
        int64_t next = 0;
        for (size_t i = 0; i < k.size(); ++i)
            if ((k.flags[i] & KernelTable::kGraphNode) && kernel_node[i] == 0)
                kernel_node[i] = node_rows.empty() ? ++next : 2'000'000 + int64_t(i);
    }
    if (!node_rows.empty()) {
        db.exec(kDdlGraphNodes);
        auto* s = db.prepare(insert_sql("CUDA_GRAPH_NODE_EVENTS", 7));
        for (const auto& n : node_rows) {
            bi(s, 1, n.start);
            bi(s, 2, n.start);
            bi(s, 3, 77);   // ENUM_NSYS_EVENT_CLASS: CUDA graph node creation
            bi(s, 4, n.gtid);
            bi(s, 5, n.name);
            bi(s, 6, n.node);
            if (n.original)
                bi(s, 7, n.original);
            else
                bn(s, 7);
            db.step(s);
        }
    }

    // ---- kernels
    if (k.size()) {
        db.exec(kDdlKernel);
        auto* s = db.prepare(insert_sql("CUPTI_ACTIVITY_KIND_KERNEL", 28));
        for (size_t i = 0; i < k.size(); ++i) {
            bi(s, 1, k.start[i]);
            bi(s, 2, k.end[i]);
            bi(s, 3, device_id(k.device[i]));
            bi(s, 4, 1);
            bn(s, 5);
            bi(s, 6, k.stream[i]);
            if (k.correlation[i])
                bi(s, 7, k.correlation[i]);
            else
                bn(s, 7);
            bi(s, 8, global_pid(pid_of(k.process[i])));
            bi(s, 9, k.name[i]);
            bi(s, 10, k.short_name[i]);
            bn(s, 11);
            bi(s, 12, (k.flags[i] & KernelTable::kCooperative) ? 2 : 1);
            bi(s, 13, 0);
            const LaunchShape& sh = k.launch_shape(i);
            bi(s, 14, sh.registers_per_thread);
            bi(s, 15, sh.grid_x);
            bi(s, 16, sh.grid_y);
            bi(s, 17, sh.grid_z);
            bi(s, 18, sh.block_x);
            bi(s, 19, sh.block_y);
            bi(s, 20, sh.block_z);
            bi(s, 21, 0);
            bi(s, 22, sh.shared_memory);
            bi(s, 23, 0);
            bi(s, 24, 0);
            bi(s, 25, static_cast<int64_t>(i) + 1);
            bi(s, 26, sh.shared_memory);
            if (k.flags[i] & KernelTable::kGraphNode)
                bi(s, 27, kernel_node[i]);
            else
                bn(s, 27);
            bi(s, 28, 0);
            db.step(s);
        }
    }

    // ---- API calls
    const auto& a = trace.api;
    if (a.size()) {
        db.exec(kDdlRuntime);
        auto* s = db.prepare(insert_sql("CUPTI_ACTIVITY_KIND_RUNTIME", 8));
        for (size_t i = 0; i < a.size(); ++i) {
            bi(s, 1, a.start[i]);
            bi(s, 2, a.end[i]);
            bi(s, 3, a.api_class[i] == ApiClass::Driver ? 1 : 0);
            bi(s, 4, gtid_of(a.thread[i]));
            if (a.correlation[i])
                bi(s, 5, a.correlation[i]);
            else
                bn(s, 5);
            bi(s, 6, a.name[i]);
            bi(s, 7, 0);
            bn(s, 8);
            db.step(s);
        }
    }

    // ---- memcpy
    const auto& m = trace.memcpy;
    if (m.size()) {
        db.exec(kDdlMemcpy);
        auto* s = db.prepare(insert_sql("CUPTI_ACTIVITY_KIND_MEMCPY", 20));
        for (size_t i = 0; i < m.size(); ++i) {
            const int64_t dev = device_id(m.device[i]);
            bi(s, 1, m.start[i]);
            bi(s, 2, m.end[i]);
            bi(s, 3, dev);
            bi(s, 4, 1);
            bn(s, 5);
            bi(s, 6, m.stream[i]);
            if (m.correlation[i])
                bi(s, 7, m.correlation[i]);
            else
                bn(s, 7);
            bi(s, 8, global_pid(pid_of(m.process[i])));
            bi(s, 9, static_cast<int64_t>(m.bytes[i]));
            bi(s, 10, static_cast<int64_t>(m.copy_kind[i]));
            bn(s, 11);
            bi(s, 12, static_cast<int64_t>(m.src_kind[i]));
            bi(s, 13, static_cast<int64_t>(m.dst_kind[i]));
            bi(s, 14, dev);
            bi(s, 15, 1);
            bi(s, 16, dev);
            bi(s, 17, 1);
            bn(s, 18);
            bn(s, 19);
            bn(s, 20);
            db.step(s);
        }
    }

    // ---- memset
    const auto& ms = trace.memset;
    if (ms.size()) {
        db.exec(kDdlMemset);
        auto* s = db.prepare(insert_sql("CUPTI_ACTIVITY_KIND_MEMSET", 12));
        for (size_t i = 0; i < ms.size(); ++i) {
            bi(s, 1, ms.start[i]);
            bi(s, 2, ms.end[i]);
            bi(s, 3, device_id(ms.device[i]));
            bi(s, 4, 1);
            bn(s, 5);
            bi(s, 6, ms.stream[i]);
            if (ms.correlation[i])
                bi(s, 7, ms.correlation[i]);
            else
                bn(s, 7);
            bi(s, 8, global_pid(pid_of(ms.process[i])));
            bi(s, 9, 0);
            bi(s, 10, static_cast<int64_t>(ms.bytes[i]));
            bn(s, 11);
            bi(s, 12, static_cast<int64_t>(ms.mem_kind[i]));
            db.step(s);
        }
    }

    // ---- synchronizations
    const auto& sy = trace.syncs;
    if (sy.size()) {
        db.exec(kDdlSync);
        auto* s = db.prepare(insert_sql("CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", 10));
        for (size_t i = 0; i < sy.size(); ++i) {
            bi(s, 1, sy.start[i]);
            bi(s, 2, sy.end[i]);
            bi(s, 3, device_id(sy.device[i]));
            bi(s, 4, 1);
            bn(s, 5);
            bi(s, 6, sy.stream[i]);
            if (sy.correlation[i])
                bi(s, 7, sy.correlation[i]);
            else
                bn(s, 7);
            bi(s, 8, global_pid(pid_of(sy.process[i])));
            bi(s, 9, sy.sync_type[i]);
            bi(s, 10, 4294967295LL);
            db.step(s);
        }
    }

    // ---- NVTX: ranges (push/pop or start/end) and marks, names through textId
    const auto& r = trace.ranges;
    const auto& mk = trace.marks;
    if (r.size() || mk.size()) {
        db.exec(kDdlNvtx);
        auto* s = db.prepare(
            "INSERT INTO NVTX_EVENTS (start, end, eventType, rangeId, globalTid, textId, domainId) "
            "VALUES (?,?,?,?,?,?,?)");
        int64_t range_id = 0;
        for (size_t i = 0; i < r.size(); ++i) {
            if (r.kind[i] == RangeKind::PythonFunction)
                continue;   // Python frames have no NVTX form
            const bool start_end = r.kind[i] == RangeKind::StartEnd;
            bi(s, 1, r.start[i]);
            bi(s, 2, r.end[i]);
            bi(s, 3, start_end ? 60 : 59);
            if (start_end)
                bi(s, 4, ++range_id);
            else
                bn(s, 4);
            bi(s, 5, gtid_of(r.thread[i]));
            bi(s, 6, r.name[i]);
            bi(s, 7, 0);
            db.step(s);
        }
        for (size_t i = 0; i < mk.size(); ++i) {
            bi(s, 1, mk.time[i]);
            bn(s, 2);
            bi(s, 3, 34);
            bn(s, 4);
            bi(s, 5, gtid_of(mk.thread[i]));
            bi(s, 6, mk.name[i]);
            bi(s, 7, 0);
            db.step(s);
        }
    }

    // ---- threads and processes
    if (!thread_names.empty()) {
        db.exec(kDdlThreadNames);
        auto* s = db.prepare(insert_sql("ThreadNames", 3));
        for (const auto& [name, gtid] : thread_names) {
            bi(s, 1, name);
            bi(s, 2, 0);
            bi(s, 3, gtid);
            db.step(s);
        }
    }
    if (!meta.processes.empty()) {
        db.exec(kDdlProcesses);
        auto* s = db.prepare(insert_sql("PROCESSES", 3));
        for (const auto& p : meta.processes) {
            bi(s, 1, global_pid(p.pid));
            bi(s, 2, p.pid);
            bt(s, 3, p.name);
            db.step(s);
        }
    }

    // ---- devices, contexts, streams
    if (!meta.devices.empty()) {
        db.exec(kDdlGpu);
        auto* s = db.prepare(
            "INSERT INTO TARGET_INFO_GPU (vmId, id, name, busLocation, isDiscrete, l2CacheSize, totalMemory, "
            "memoryBandwidth, clockRate, smCount, chipName, cuDevice, threadsPerWarp, computeMajor, computeMinor, "
            "smMajor, smMinor) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
        for (const auto& d : meta.devices) {
            char bus[32];
            std::snprintf(bus, sizeof bus, "0000:%02x:00.0", (0x18 + 0x10 * d.id) & 0xFF);
            bi(s, 1, kVm);
            bi(s, 2, d.id);
            bt(s, 3, d.name);
            bt(s, 4, bus);
            bi(s, 5, 1);
            bi(s, 6, d.l2_cache_bytes);
            bi(s, 7, d.total_memory_bytes);
            bi(s, 8, static_cast<int64_t>(d.memory_bandwidth_Bps));
            bi(s, 9, d.clock_hz);
            bi(s, 10, d.sm_count);
            bt(s, 11, d.chip);
            bi(s, 12, d.id);
            bi(s, 13, 32);
            bi(s, 14, d.compute_major);
            bi(s, 15, d.compute_minor);
            bi(s, 16, d.compute_major);
            bi(s, 17, d.compute_minor);
            db.step(s);
        }
        db.exec(kDdlContext);
        auto* c = db.prepare(insert_sql("TARGET_INFO_CUDA_CONTEXT_INFO", 8));
        const int64_t pid = meta.processes.empty() ? 0 : meta.processes[0].pid;
        for (const auto& d : meta.devices) {
            bi(c, 1, 7);
            bi(c, 2, 0);
            bi(c, 3, 1);
            bi(c, 4, pid);
            bi(c, 5, d.id);
            bi(c, 6, 1);
            bn(c, 7);
            bi(c, 8, 0);
            db.step(c);
        }
    }
    if (!meta.streams.empty()) {
        db.exec(kDdlStream);
        auto* s = db.prepare(insert_sql("TARGET_INFO_CUDA_STREAM", 7));
        const int64_t pid = meta.processes.empty() ? 0 : meta.processes[0].pid;
        for (const auto& st : meta.streams) {
            int flag = 0;
            for (const auto& e : kStreamType)
                if (st.label == e.label)
                    flag = e.id;
            bi(s, 1, st.stream);
            bi(s, 2, 0);
            bi(s, 3, 1);
            bi(s, 4, pid);
            bi(s, 5, 1);
            bi(s, 6, st.priority);
            bi(s, 7, flag);
            db.step(s);
        }
    }

    // ---- enums referenced by the tables above (nsys writes them whether used or not; we write the relevant ones)
    write_enum(db, "ENUM_NSYS_EVENT_TYPE", "Nsys event type labels", kEventType, std::size(kEventType));
    write_enum(db, "ENUM_NSYS_EVENT_CLASS", "Nsys event class labels", kEventClass, std::size(kEventClass));
    write_enum(db, "ENUM_CUDA_MEMCPY_OPER", "CUDA memcpy operation labels", kMemcpyOper, std::size(kMemcpyOper));
    write_enum(db, "ENUM_CUDA_MEM_KIND", "CUDA memory kind labels", kMemKind, std::size(kMemKind));
    write_enum(db, "ENUM_CUDA_KERNEL_LAUNCH_TYPE", "CUDA kernel launch type labels", kLaunchType,
               std::size(kLaunchType));
    write_enum(db, "ENUM_CUDA_SHARED_MEM_LIMIT_CONFIG", "CUDA shared memory limit config labels", kShmemLimit,
               std::size(kShmemLimit));
    write_enum(db, "ENUM_CUDA_FUNC_CACHE_CONFIG", "CUDA function cache config labels", kCacheConfig,
               std::size(kCacheConfig));
    write_enum(db, "ENUM_CUPTI_STREAM_TYPE", "CUPTI stream type labels", kStreamType, std::size(kStreamType));
    write_enum(db, "ENUM_CUPTI_SYNC_TYPE", "CUPTI synchronization type labels", kSyncType, std::size(kSyncType));

    // ---- session, export metadata
    {
        db.exec(kDdlAnalysis);
        auto* s = db.prepare(insert_sql("ANALYSIS_DETAILS", 4));
        bi(s, 1, kVm);
        bi(s, 2, meta.capture_end - meta.capture_start);
        bi(s, 3, meta.capture_start);
        bi(s, 4, meta.capture_end);
        db.step(s);
    }
    {
        db.exec(kDdlSession);
        auto* s = db.prepare(insert_sql("TARGET_INFO_SESSION_START_TIME", 3));
        bi(s, 1, meta.utc_epoch_ns);
        bt(s, 2, iso_utc(meta.utc_epoch_ns));
        bt(s, 3, iso_utc(meta.utc_epoch_ns));
        db.step(s);
    }
    {
        db.exec(kDdlMeta);
        auto* s = db.prepare(insert_sql("META_DATA_EXPORT", 2));
        const std::pair<const char*, std::string> rows[] = {
            {"EXPORT_PRODUCT_NAME", "NVIDIA Nsight Systems (schema-compatible export written by Sightline)"},
            {"EXPORT_PRODUCT_VERSION", "2024.6.2.25"},
            {"EXPORT_PRODUCT_DATE", "2024.6"},
            {"EXPORT_SCHEMA_VERSION", "3.16.1"},
            {"EXPORT_SCHEMA_VERSION_MAJOR", "3"},
            {"EXPORT_SCHEMA_VERSION_MINOR", "16"},
            {"EXPORT_SCHEMA_VERSION_MICRO", "1"},
            {"EXPORT_PARAM_LAZY", "true"},
            {"EXPORT_GENERATOR", std::string("sightline ") + SIGHTLINE_VERSION},
            {"EXPORT_SOURCE_FORMAT", meta.format},
        };
        for (const auto& [name, value] : rows) {
            bt(s, 1, name);
            bt(s, 2, value);
            db.step(s);
        }
    }
    db.commit();
}

} // namespace sl
