#pragma once
// The trace model: one columnar table (struct of arrays) per activity kind, all times int64 nanoseconds on one
// clock, every name interned once in a StringPool. Readers (nsys SQLite, Kineto JSON) fill a Trace; analyses read
// it and never modify it.
//
// Memory budget (issue 2, issue 18): <= 48 bytes per kernel and <= 40 bytes per API call beyond the shared strings.
// KernelTable::bytes_per_row() and ApiTable::bytes_per_row() state what a row costs; a test checks them.

#include "analysis/trace/string_pool.h"

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

namespace sl {

inline constexpr int32_t kNoIndex = -1;

// ---- Kernels ---------------------------------------------------------------------------------------------------
// How a kernel was launched. A trace has few distinct shapes (a decode step repeats the same few dozen launches), so
// the kernel table stores a 4-byte id into a shared table of them instead of 20 bytes per row (issue 18).
struct LaunchShape {
    uint32_t grid_x = 1;
    uint16_t grid_y = 1, grid_z = 1;
    uint16_t block_x = 1, block_y = 1, block_z = 1;
    uint16_t registers_per_thread = 0;
    uint32_t shared_memory = 0;               // static + dynamic, bytes
    bool operator==(const LaunchShape&) const = default;
};
struct LaunchShapeHash {
    size_t operator()(const LaunchShape& s) const;
};

struct KernelTable {
    std::vector<int64_t> start, end;          // GPU execution, ns
    std::vector<StrId> name;                  // demangled name (nsys demangledName / Kineto event name)
    std::vector<StrId> short_name;            // nsys shortName; equals name where the source has no short form
    std::vector<uint32_t> correlation;        // correlation id of the launching API call (0 = none)
    std::vector<int32_t> launch_api;          // index into Trace::api of the launching call, kNoIndex if unknown
    std::vector<uint16_t> device;             // index into TraceMeta::devices
    std::vector<uint16_t> process;            // index into TraceMeta::processes
    std::vector<uint32_t> stream;             // CUDA stream id as the trace gives it
    std::vector<uint32_t> shape;              // index into shapes
    std::vector<uint8_t> flags;               // KernelFlag bits

    // Distinct launch shapes in order of first use (so the ids do not depend on thread count), and their ids.
    // Fill them only through intern_shape() / set_shape(); append() gives a row the default shape.
    std::vector<LaunchShape> shapes;
    std::unordered_map<LaunchShape, uint32_t, LaunchShapeHash> shape_ids;

    // Kineto-only launch statistics; empty when the source does not give them (nsys).
    std::vector<float> blocks_per_sm, warps_per_sm, est_occupancy_pct;

    enum KernelFlag : uint8_t { kGraphNode = 1, kCooperative = 2 };

    size_t size() const { return start.size(); }
    void reserve(size_t n);
    // Appends a row with every column defaulted; callers then set the columns they know.
    size_t append(int64_t start_ns, int64_t end_ns, StrId name_id);
    const LaunchShape& launch_shape(size_t row) const { return shapes[shape[row]]; }
    uint32_t intern_shape(const LaunchShape& s);
    void set_shape(size_t row, const LaunchShape& s) { shape[row] = intern_shape(s); }
    // Heap bytes of the shape table and its hash index (shared by all rows, not part of bytes_per_row()).
    size_t shape_table_bytes() const;
    static constexpr size_t bytes_per_row()
    {
        return 2 * sizeof(int64_t) + 2 * sizeof(StrId) + sizeof(uint32_t) + sizeof(int32_t) + 2 * sizeof(uint16_t) +
               sizeof(uint32_t) + sizeof(uint32_t) + sizeof(uint8_t);
    }
};

// ---- Memory copies and sets ------------------------------------------------------------------------------------
enum class CopyKind : uint8_t {
    Unknown = 0, HtoD = 1, DtoH = 2, HtoA = 3, AtoH = 4, AtoA = 5, AtoD = 6, DtoA = 7, DtoD = 8, HtoH = 9, PtoP = 10,
    UnifiedHtoD = 11, UnifiedDtoH = 12, UnifiedDtoD = 13
};
// CUPTI memory kinds (ENUM_CUDA_MEM_KIND).
enum class MemKind : uint8_t {
    Pageable = 0, Pinned = 1, Device = 2, Array = 3, Managed = 4, DeviceStatic = 5, ManagedStatic = 6, Unknown = 7
};
// nsys' operation label, e.g. "[CUDA memcpy Host-to-Device]".
const char* copy_kind_label(CopyKind k);

struct MemcpyTable {
    std::vector<int64_t> start, end;
    std::vector<uint64_t> bytes;
    std::vector<CopyKind> copy_kind;
    std::vector<MemKind> src_kind, dst_kind;
    std::vector<uint16_t> device, process;
    std::vector<uint32_t> stream, correlation;
    std::vector<int32_t> launch_api;
    size_t size() const { return start.size(); }
    size_t append(int64_t start_ns, int64_t end_ns, uint64_t nbytes, CopyKind kind);
};

struct MemsetTable {
    std::vector<int64_t> start, end;
    std::vector<uint64_t> bytes;
    std::vector<MemKind> mem_kind;
    std::vector<uint16_t> device, process;
    std::vector<uint32_t> stream, correlation;
    std::vector<int32_t> launch_api;
    size_t size() const { return start.size(); }
    size_t append(int64_t start_ns, int64_t end_ns, uint64_t nbytes);
};

// ---- CUDA runtime / driver API calls (host side) ---------------------------------------------------------------
enum class ApiClass : uint8_t { Runtime = 0, Driver = 1, Other = 2 };
// What an API call does, derived once per distinct name by classify_api_name().
enum ApiFlag : uint8_t {
    kApiLaunch = 1,        // launches a kernel (cudaLaunchKernel*, cuLaunchKernel*, hipLaunchKernel, ...)
    kApiGraphLaunch = 2,   // cudaGraphLaunch / cuGraphLaunch
    kApiSync = 4,          // blocks the host until GPU work completes (cudaDeviceSynchronize, cudaStreamSynchronize,
                           // cudaEventSynchronize, synchronous cudaMemcpy, ...)
    kApiMemcpy = 8,        // any memcpy API
    kApiMemset = 16,       // any memset API
    kApiAsync = 32,        // the *Async variant
};
uint8_t classify_api_name(std::string_view name);

struct ApiTable {
    std::vector<int64_t> start, end;
    std::vector<StrId> name;
    std::vector<uint32_t> correlation;
    std::vector<uint32_t> thread;             // index into TraceMeta::threads
    std::vector<ApiClass> api_class;
    std::vector<uint8_t> flags;               // ApiFlag bits
    size_t size() const { return start.size(); }
    void reserve(size_t n);
    size_t append(int64_t start_ns, int64_t end_ns, StrId name_id, uint32_t correlation_id, uint32_t thread_index,
                  ApiClass cls, uint8_t api_flags);
    static constexpr size_t bytes_per_row()
    {
        return 2 * sizeof(int64_t) + sizeof(StrId) + 2 * sizeof(uint32_t) + sizeof(ApiClass) + sizeof(uint8_t);
    }
};

// ---- Synchronization records (CUPTI_ACTIVITY_KIND_SYNCHRONIZATION / Kineto cuda_sync) -------------------------
struct SyncTable {
    std::vector<int64_t> start, end;
    std::vector<uint16_t> device, process;
    std::vector<uint32_t> stream, correlation;
    std::vector<uint8_t> sync_type;           // as the source gives it; classify by API name, not by this
    std::vector<int32_t> api;                 // index into Trace::api of the call, kNoIndex if unknown
    size_t size() const { return start.size(); }
    size_t append(int64_t start_ns, int64_t end_ns);
};

// ---- Host ranges: NVTX ranges, Kineto user annotations, CPU ops and Python frames -------------------------------
// PyModule: a Kineto python_function "nn.Module: Name" frame, named Name; read only for the trace of a graph capture,
// where it names the module a captured kernel ran under (analysis/io/graph_join.h).
// PythonFunction: any other Kineto python_function frame (with_stack / with_modules; in an ordinary trace also the
// "nn.Module: Name_N" frames, named as written), for the CPU flame chart and the module a CPU op ran in.
// Neither CPU ops nor Python frames are NVTX ranges: analyses that read NVTX skip them.
enum class RangeKind : uint8_t { PushPop = 0, StartEnd = 1, UserAnnotation = 2, CpuOp = 3, PyModule = 4, PythonFunction = 5 };
// NVTX ranges and Kineto user annotations (what NVTX analyses read), not CPU ops or Python frames.
inline bool is_nvtx_like(RangeKind k)
{
    return k != RangeKind::CpuOp && k != RangeKind::PyModule && k != RangeKind::PythonFunction;
}
struct RangeTable {
    std::vector<int64_t> start, end;          // end is the trace end for ranges that never closed
    std::vector<StrId> name;                  // text (with "domain:" prefix for non-default NVTX domains)
    std::vector<uint32_t> thread;             // index into TraceMeta::threads
    std::vector<RangeKind> kind;
    std::vector<uint8_t> depth;               // nesting depth on its thread, 0 = outermost (computed by finish())
    size_t size() const { return start.size(); }
    size_t append(int64_t start_ns, int64_t end_ns, StrId name_id, uint32_t thread_index, RangeKind k);
};

struct MarkTable {
    std::vector<int64_t> time;
    std::vector<StrId> name;
    std::vector<uint32_t> thread;
    size_t size() const { return time.size(); }
};

// GPU-side ranges (Kineto gpu_user_annotation): on a device and stream.
struct GpuRangeTable {
    std::vector<int64_t> start, end;
    std::vector<StrId> name;
    std::vector<uint16_t> device;
    std::vector<uint32_t> stream;
    size_t size() const { return start.size(); }
};

// ---- Kineto operator arguments (side table) --------------------------------------------------------------------
// What record_shapes and the NCCL/RCCL instrumentation write into Kineto "args" and the columnar tables do not hold:
// input shapes/dtypes of CPU ops, collective metadata, and the "External id" that joins a CPU op to its launches.
// Rows come in three kinds: a CPU op (with shapes or collective args), a launch (cuda_runtime/cuda_driver call
// carrying an External id: its (pid, correlation) -> External id; its name is the kernel it launched when the trace
// says so in args "kernel", as ROCm traces and graph-capture traces do, else 0), and a kernel that itself carries
// collective args.
// Keyed by (rank, pid, correlation / External id) so it needs no index into the other tables. Empty for nsys.
struct OpArgsTable {
    enum Source : uint8_t { kCpuOp = 0, kLaunch = 1, kKernel = 2 };
    std::vector<uint8_t> source;
    std::vector<int64_t> start, end;          // ns, same clock as the other tables
    std::vector<StrId> name;
    std::vector<int32_t> rank;                // set by merge (0 from the reader)
    std::vector<int64_t> pid;                 // host pid (CPU op, launch); device id the event names (kernel)
    std::vector<int64_t> external_id;         // 0 = none
    std::vector<uint32_t> correlation;        // launch / kernel correlation id (0 = none)
    // Raw JSON text of the args (empty when absent): "Input Dims", "Input type", "Concrete Inputs".
    std::vector<std::string> input_dims, input_types, concrete_inputs;
    // Collective metadata (empty / -1 when absent).
    std::vector<std::string> collective, dtype, pg_name, pg_ranks;
    std::vector<int64_t> in_nelems, out_nelems, group_size;
    size_t size() const { return source.size(); }
    size_t append(uint8_t src, int64_t start_ns, int64_t end_ns, StrId name_id);
};

// ---- Graph-replayed kernels joined to their capture (side table: rows only for joined kernels) -------------------
// A kernel replayed from a CUDA/HIP graph has no CPU op of its own: its launch is the graph launch, shared by every
// kernel of the graph. The capture join (analysis/io/graph_join.h) matches it to its twin in the trace of the graph's
// capture and records here the CPU op that launched the twin (copied into op_args as a kCpuOp row, with its shapes),
// the chain of CPU ops around it and the module it ran under. 16 bytes per joined kernel. Read it through
// KernelOps (analysis/trace/kernel_ops.h), which answers the same question for eager kernels.
struct GraphOpTable {
    std::vector<uint32_t> kernel;   // Trace::kernels row, ascending
    std::vector<int32_t> op;        // Trace::op_args row (kCpuOp) of the twin's CPU op; kNoIndex when it had none
    std::vector<StrId> chain;       // the CPU ops around the launch, outermost first, " > " between ("" = none)
    std::vector<StrId> module;      // the module path it ran under, outermost first, " > " between ("" = unknown)
    size_t size() const { return kernel.size(); }
    // Row of this table for a kernel row, or kNoIndex (binary search).
    int32_t find(size_t kernel_row) const;
    void append(uint32_t kernel_row, int32_t op_row, StrId chain_id, StrId module_id);
};

// One capture trace joined to the replay (what the join used and found; the output says it).
struct GraphCaptureJoin {
    std::string path;               // the capture trace file
    std::string source;             // "option" (--capture-trace) | "beside" (a capture_traces/ folder beside the trace)
                                    // | "input" (given as a trace file and recognised as a capture) | "graph-nodes"
                                    // (an nsys export's own graph-node creation events; path is the trace itself)
    int64_t batch_size = 0;         // from execution_details.json beside it (0 = not named)
    std::string mode;               // "FULL", "PIECEWISE", ... from execution_details.json ("" = not named)
    int64_t graphs = 0;             // capture windows (BeginCapture .. EndCapture) in it
    int64_t captured_launches = 0;  // kernel launches inside them
    int64_t replays = 0;            // graph launches of the replay joined to it
    int64_t kernels_replayed = 0;   // kernels of those replays
    int64_t kernels_matched = 0;    // of them, matched to a captured twin
    bool used = false;              // false: read but no replay matched it (another capture fit better)
};

// ---- Metadata ----------------------------------------------------------------------------------------------------
struct DeviceInfo {
    int32_t id = 0;                 // the device id the trace uses (nsys deviceId / Kineto "device")
    std::string name;               // e.g. "NVIDIA H100 80GB HBM3"; empty when the trace does not say
    int32_t rank = 0;               // distributed rank of the file this device came from
    int32_t sm_count = 0;           // 0 = unknown
    double memory_bandwidth_Bps = 0;
    int64_t clock_hz = 0;
    int64_t total_memory_bytes = 0;
    int64_t l2_cache_bytes = 0;
    int32_t compute_major = 0, compute_minor = 0;
    std::string chip;               // e.g. "GH100"
    int32_t warp_size = 0;          // threads per warp / wavefront (32 NVIDIA, 64 AMD Instinct); 0 = unknown
    // Where the properties above came from when the trace's own record for this device id was missing: e.g.
    // "deviceProperties entry id 0, by order (1st of 1 visible device)". Empty when they matched by id (or none).
    std::string properties_from;
};

struct ProcessInfo {
    int64_t pid = 0;
    std::string name;
    int32_t rank = 0;
};

struct ThreadInfo {
    int64_t global_tid = 0;         // nsys globalTid, or a synthesised id for Kineto
    int64_t pid = 0, tid = 0;
    std::string name;
    int32_t rank = 0;               // distributed rank of the file this thread came from (set by merge)
};

struct StreamInfo {
    uint16_t device = 0;            // index into devices
    uint32_t stream = 0;
    int32_t priority = 0;
    std::string label;              // e.g. "Default", "Non-blocking"
};

struct TraceMeta {
    std::string format;             // "nsys-sqlite" | "kineto-json"
    std::string source_path;
    std::string tool_version;       // nsys EXPORT_PRODUCT_VERSION, Kineto/PyTorch version
    std::string schema_version;     // nsys EXPORT_SCHEMA_VERSION, Kineto schemaVersion
    int64_t capture_start = 0, capture_end = 0;   // ns; the profiler's capture window (0/0 when unknown)
    int64_t utc_epoch_ns = 0;       // session start on the UTC clock, when known
    int32_t world_size = 1;
    std::vector<DeviceInfo> devices;
    std::vector<ProcessInfo> processes;
    std::vector<ThreadInfo> threads;
    std::vector<StreamInfo> streams;
    std::map<std::string, std::string> environment;   // driver/CUDA/framework versions found in the trace
    std::vector<std::string> warnings;                // things the reader tolerated but the user should know
    // Time base (issue 13). capture_source names where [capture_start, capture_end] came from: "nsys
    // ANALYSIS_DETAILS.duration from session start", "kineto Trace span", "events" (first to last event), ...
    std::string capture_source;
    int64_t reported_capture_ns = 0;  // the capture length the profiler itself reports (0 = it does not say)
    int64_t clock_shift_ns = 0;       // added by the reader to every GPU time to put it on the host clock
    std::string clock_shift_reason;   // the evidence for that shift (empty when none)
    // The capture window before that shift: the profiler's span, which covered the GPU ops on their own clock.
    // [capture_start, capture_end] is the window after the correction (every time in the trace lies on the host
    // clock then). Equal to capture_* when nothing was shifted.
    int64_t uncorrected_capture_start = 0, uncorrected_capture_end = 0;
    std::map<std::string, int64_t> dropped_events;   // event kinds the reader does not understand -> count dropped
    std::vector<GraphCaptureJoin> captures;          // graph-capture traces joined to this one (graph_join.h)
};

struct Trace {
    TraceMeta meta;
    StringPool strings;
    KernelTable kernels;
    MemcpyTable memcpy;
    MemsetTable memset;
    ApiTable api;
    SyncTable syncs;
    RangeTable ranges;              // NVTX ranges, user annotations, CPU ops, Python frames
    MarkTable marks;
    GpuRangeTable gpu_ranges;
    OpArgsTable op_args;            // Kineto record_shapes / collective args (see OpArgsTable)
    GraphOpTable graph_ops;         // graph-replayed kernels joined to their capture (see GraphOpTable)

    std::string_view str(StrId id) const { return strings.view(id); }

    // Called by every reader once the tables are filled: sorts nothing the reader already ordered, links kernels,
    // copies and syncs to their API calls by (process, correlation id), computes range depths, and fills the
    // capture window from the data when the source gave none. Idempotent.
    void finish();

    // Index helpers used by analyses.
    uint16_t device_index(int32_t device_id, int32_t rank = 0);   // creates the device row when missing
    uint16_t process_index(int64_t pid, int32_t rank = 0);        // creates the process row when missing
    uint32_t thread_index(int64_t global_tid, int64_t pid, int64_t tid);

    // Approximate heap bytes held by the tables and strings.
    size_t memory_bytes() const;
};

} // namespace sl
