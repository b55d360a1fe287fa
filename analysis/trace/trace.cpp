#include "analysis/trace/trace.h"

#include <algorithm>
#include <numeric>
#include <unordered_map>

#include "analysis/trace/device_rows.h"
#include "analysis/trace/errors.h"

namespace sl {

const char* copy_kind_label(CopyKind k)
{
    switch (k) {
    case CopyKind::HtoD: return "[CUDA memcpy Host-to-Device]";
    case CopyKind::DtoH: return "[CUDA memcpy Device-to-Host]";
    case CopyKind::HtoA: return "[CUDA memcpy Host-to-Array]";
    case CopyKind::AtoH: return "[CUDA memcpy Array-to-Host]";
    case CopyKind::AtoA: return "[CUDA memcpy Array-to-Array]";
    case CopyKind::AtoD: return "[CUDA memcpy Array-to-Device]";
    case CopyKind::DtoA: return "[CUDA memcpy Device-to-Array]";
    case CopyKind::DtoD: return "[CUDA memcpy Device-to-Device]";
    case CopyKind::HtoH: return "[CUDA memcpy Host-to-Host]";
    case CopyKind::PtoP: return "[CUDA memcpy Peer-to-Peer]";
    case CopyKind::UnifiedHtoD: return "[CUDA Unified Memory memcpy HtoD]";
    case CopyKind::UnifiedDtoH: return "[CUDA Unified Memory memcpy DtoH]";
    case CopyKind::UnifiedDtoD: return "[CUDA Unified Memory memcpy DtoD]";
    case CopyKind::Unknown: break;
    }
    return "[CUDA memcpy Unknown]";
}

static bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
static bool contains(std::string_view s, std::string_view p) { return s.find(p) != std::string_view::npos; }

uint8_t classify_api_name(std::string_view n)
{
    uint8_t f = 0;
    const bool async = contains(n, "Async");
    if (async)
        f |= kApiAsync;
    if (contains(n, "LaunchKernel") || contains(n, "LaunchCooperativeKernel") || starts_with(n, "cudaLaunch") ||
        starts_with(n, "cuLaunch") || starts_with(n, "hipLaunch") || starts_with(n, "hipExtLaunch") ||
        starts_with(n, "hipModuleLaunch"))
        f |= kApiLaunch;
    if (starts_with(n, "cudaGraphLaunch") || starts_with(n, "cuGraphLaunch") || starts_with(n, "hipGraphLaunch")) {
        f |= kApiGraphLaunch;
        f &= static_cast<uint8_t>(~kApiLaunch);
    }
    const bool memcpy = contains(n, "Memcpy") || contains(n, "memcpy");
    const bool memset = contains(n, "Memset") || contains(n, "memset");
    if (memcpy)
        f |= kApiMemcpy;
    if (memset)
        f |= kApiMemset;
    // Host-blocking calls. Synchronous memcpy (no Async suffix) blocks the host until the copy is done.
    if (contains(n, "DeviceSynchronize") || contains(n, "StreamSynchronize") || contains(n, "EventSynchronize") ||
        contains(n, "ThreadSynchronize") || starts_with(n, "cuCtxSynchronize") ||
        (memcpy && !async && (starts_with(n, "cudaMemcpy") || starts_with(n, "cuMemcpy") || starts_with(n, "hipMemcpy"))))
        f |= kApiSync;
    return f;
}

void KernelTable::reserve(size_t n)
{
    start.reserve(n); end.reserve(n); name.reserve(n); short_name.reserve(n); correlation.reserve(n);
    launch_api.reserve(n); device.reserve(n); process.reserve(n); stream.reserve(n); shape.reserve(n);
    flags.reserve(n);
}

size_t LaunchShapeHash::operator()(const LaunchShape& s) const
{
    uint64_t h = s.grid_x;
    h = h * 0x9E3779B97F4A7C15ull ^ (uint64_t{s.grid_y} << 16 | s.grid_z);
    h = h * 0x9E3779B97F4A7C15ull ^ (uint64_t{s.block_x} << 32 | uint64_t{s.block_y} << 16 | s.block_z);
    h = h * 0x9E3779B97F4A7C15ull ^ (uint64_t{s.registers_per_thread} << 32 | s.shared_memory);
    h *= 0x9E3779B97F4A7C15ull;
    return static_cast<size_t>(h ^ (h >> 29));
}

uint32_t KernelTable::intern_shape(const LaunchShape& s)
{
    // Kernels often repeat the shape of a recent launch: check the last one interned before hashing.
    if (!shapes.empty() && shapes.back() == s)
        return static_cast<uint32_t>(shapes.size() - 1);
    if (shape_ids.size() != shapes.size()) {   // rebuild after a copy or merge that filled shapes directly
        shape_ids.clear();
        for (size_t i = 0; i < shapes.size(); ++i)
            shape_ids.emplace(shapes[i], static_cast<uint32_t>(i));
    }
    // try_emplace: a shape already known costs a lookup, not a node allocated and freed (emplace builds the node
    // before it looks; one per kernel row was a tenth of the Kineto reader's event handling).
    auto [it, added] = shape_ids.try_emplace(s, static_cast<uint32_t>(shapes.size()));
    if (added)
        shapes.push_back(s);
    return it->second;
}

size_t KernelTable::shape_table_bytes() const
{
    // The hash index: one node (key, id, next pointer, cached hash) per shape plus the bucket array.
    return shapes.capacity() * sizeof(LaunchShape) +
           shape_ids.size() * (sizeof(LaunchShape) + sizeof(uint32_t) + 2 * sizeof(void*)) +
           shape_ids.bucket_count() * sizeof(void*);
}

size_t KernelTable::append(int64_t s, int64_t e, StrId n)
{
    start.push_back(s); end.push_back(e); name.push_back(n); short_name.push_back(n); correlation.push_back(0);
    launch_api.push_back(kNoIndex); device.push_back(0); process.push_back(0); stream.push_back(0);
    shape.push_back(intern_shape(LaunchShape{})); flags.push_back(0);
    return start.size() - 1;
}

size_t MemcpyTable::append(int64_t s, int64_t e, uint64_t nbytes, CopyKind kind)
{
    start.push_back(s); end.push_back(e); bytes.push_back(nbytes); copy_kind.push_back(kind);
    src_kind.push_back(MemKind::Unknown); dst_kind.push_back(MemKind::Unknown); device.push_back(0);
    process.push_back(0); stream.push_back(0); correlation.push_back(0); launch_api.push_back(kNoIndex);
    return start.size() - 1;
}

size_t MemsetTable::append(int64_t s, int64_t e, uint64_t nbytes)
{
    start.push_back(s); end.push_back(e); bytes.push_back(nbytes); mem_kind.push_back(MemKind::Unknown);
    device.push_back(0); process.push_back(0); stream.push_back(0); correlation.push_back(0);
    launch_api.push_back(kNoIndex);
    return start.size() - 1;
}

void ApiTable::reserve(size_t n)
{
    start.reserve(n); end.reserve(n); name.reserve(n); correlation.reserve(n); thread.reserve(n);
    api_class.reserve(n); flags.reserve(n);
}

size_t ApiTable::append(int64_t s, int64_t e, StrId n, uint32_t corr, uint32_t thr, ApiClass cls, uint8_t f)
{
    start.push_back(s); end.push_back(e); name.push_back(n); correlation.push_back(corr); thread.push_back(thr);
    api_class.push_back(cls); flags.push_back(f);
    return start.size() - 1;
}

size_t SyncTable::append(int64_t s, int64_t e)
{
    start.push_back(s); end.push_back(e); device.push_back(0); process.push_back(0); stream.push_back(0);
    correlation.push_back(0); sync_type.push_back(0); api.push_back(kNoIndex);
    return start.size() - 1;
}

size_t RangeTable::append(int64_t s, int64_t e, StrId n, uint32_t thr, RangeKind k)
{
    start.push_back(s); end.push_back(e); name.push_back(n); thread.push_back(thr); kind.push_back(k);
    depth.push_back(0);
    return start.size() - 1;
}

size_t OpArgsTable::append(uint8_t src, int64_t s, int64_t e, StrId n)
{
    source.push_back(src); start.push_back(s); end.push_back(e); name.push_back(n); rank.push_back(0);
    pid.push_back(0); external_id.push_back(0); correlation.push_back(0);
    input_dims.emplace_back(); input_types.emplace_back(); concrete_inputs.emplace_back();
    collective.emplace_back(); dtype.emplace_back(); pg_name.emplace_back(); pg_ranks.emplace_back();
    in_nelems.push_back(-1); out_nelems.push_back(-1); group_size.push_back(-1);
    return source.size() - 1;
}

int32_t GraphOpTable::find(size_t kernel_row) const
{
    const auto it = std::lower_bound(kernel.begin(), kernel.end(), static_cast<uint32_t>(kernel_row));
    if (it == kernel.end() || *it != kernel_row)
        return kNoIndex;
    return static_cast<int32_t>(it - kernel.begin());
}

void GraphOpTable::append(uint32_t kernel_row, int32_t op_row, StrId chain_id, StrId module_id)
{
    kernel.push_back(kernel_row);
    op.push_back(op_row);
    chain.push_back(chain_id);
    module.push_back(module_id);
}

uint16_t Trace::device_index(int32_t device_id, int32_t rank)
{
    for (size_t i = 0; i < meta.devices.size(); ++i)
        if (meta.devices[i].id == device_id && meta.devices[i].rank == rank)
            return static_cast<uint16_t>(i);
    return append_device_row(*this, device_id, rank);
}

uint16_t append_device_row(Trace& t, int32_t device_id, int32_t rank)
{
    // A device row index is 16 bits: past 65,535 devices it wrapped, and kernels were silently counted on other
    // devices (issue 36 §8). The readers put their file's name on this error.
    if (t.meta.devices.size() >= kMaxDeviceRows)
        throw TraceError("", "device id " + std::to_string(device_id),
                         "at most " + std::to_string(kMaxDeviceRows) + " distinct devices in one trace",
                         "more distinct device ids");
    DeviceInfo d;
    d.id = device_id;
    d.rank = rank;
    t.meta.devices.push_back(std::move(d));
    return static_cast<uint16_t>(t.meta.devices.size() - 1);
}

uint16_t Trace::process_index(int64_t pid, int32_t rank)
{
    for (size_t i = 0; i < meta.processes.size(); ++i)
        if (meta.processes[i].pid == pid && meta.processes[i].rank == rank)
            return static_cast<uint16_t>(i);
    return append_process_row(*this, pid, rank);
}

uint16_t append_process_row(Trace& t, int64_t pid, int32_t rank)
{
    // 16 bits, as devices: past 65,535 processes the index wrapped and GPU rows went to other processes.
    if (t.meta.processes.size() >= kMaxProcessRows)
        throw TraceError("", "process id " + std::to_string(pid),
                         "at most " + std::to_string(kMaxProcessRows) + " distinct processes in one trace",
                         "more distinct process ids");
    ProcessInfo p;
    p.pid = pid;
    p.rank = rank;
    t.meta.processes.push_back(std::move(p));
    return static_cast<uint16_t>(t.meta.processes.size() - 1);
}

uint32_t Trace::thread_index(int64_t global_tid, int64_t pid, int64_t tid)
{
    for (size_t i = 0; i < meta.threads.size(); ++i)
        if (meta.threads[i].global_tid == global_tid)
            return static_cast<uint32_t>(i);
    return append_thread_row(*this, global_tid, pid, tid);
}

uint32_t append_thread_row(Trace& t, int64_t global_tid, int64_t pid, int64_t tid)
{
    if (t.meta.threads.size() >= UINT32_MAX)
        throw TraceError("", "thread id " + std::to_string(tid), "fewer than 2^32 threads in one trace",
                         "more distinct thread ids");
    ThreadInfo th;
    th.global_tid = global_tid;
    th.pid = pid;
    th.tid = tid;
    t.meta.threads.push_back(std::move(th));
    return static_cast<uint32_t>(t.meta.threads.size() - 1);
}

static uint64_t link_key(int64_t pid, uint32_t corr) { return (static_cast<uint64_t>(pid) << 32) ^ corr; }

void Trace::finish()
{
    // Correlation ids are unique within a process: link GPU work to its launching API call by (pid, correlation).
    std::unordered_map<uint64_t, int32_t> by_corr;
    by_corr.reserve(api.size());
    for (size_t i = 0; i < api.size(); ++i) {
        if (api.correlation[i] == 0)
            continue;
        const auto thr = api.thread[i];
        const int64_t pid = thr < meta.threads.size() ? meta.threads[thr].pid : 0;
        by_corr.emplace(link_key(pid, api.correlation[i]), static_cast<int32_t>(i));
    }
    auto pid_of = [&](uint16_t p) { return p < meta.processes.size() ? meta.processes[p].pid : 0; };
    auto link = [&](auto& table, std::vector<int32_t>& out) {
        for (size_t i = 0; i < table.size(); ++i) {
            if (table.correlation[i] == 0)
                continue;
            auto it = by_corr.find(link_key(pid_of(table.process[i]), table.correlation[i]));
            out[i] = it == by_corr.end() ? kNoIndex : it->second;
        }
    };
    link(kernels, kernels.launch_api);
    link(memcpy, memcpy.launch_api);
    link(memset, memset.launch_api);
    link(syncs, syncs.api);

    // Range nesting depth per thread: order by (thread, start, longer first), then a stack of open ends.
    std::vector<uint32_t> order(ranges.size());
    std::iota(order.begin(), order.end(), 0u);
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
        if (ranges.thread[a] != ranges.thread[b])
            return ranges.thread[a] < ranges.thread[b];
        if (ranges.start[a] != ranges.start[b])
            return ranges.start[a] < ranges.start[b];
        return ranges.end[a] > ranges.end[b];
    });
    std::vector<int64_t> open_ends;
    uint32_t cur_thread = UINT32_MAX;
    for (uint32_t i : order) {
        if (ranges.thread[i] != cur_thread) {
            cur_thread = ranges.thread[i];
            open_ends.clear();
        }
        while (!open_ends.empty() && open_ends.back() <= ranges.start[i])
            open_ends.pop_back();
        ranges.depth[i] = static_cast<uint8_t>(std::min<size_t>(open_ends.size(), 255));
        open_ends.push_back(ranges.end[i]);
    }

    if (meta.capture_start == 0 && meta.capture_end == 0) {
        int64_t lo = INT64_MAX, hi = INT64_MIN;
        auto widen = [&](const std::vector<int64_t>& s, const std::vector<int64_t>& e) {
            for (size_t i = 0; i < s.size(); ++i) {
                lo = std::min(lo, s[i]);
                hi = std::max(hi, e[i]);
            }
        };
        widen(kernels.start, kernels.end);
        widen(memcpy.start, memcpy.end);
        widen(memset.start, memset.end);
        widen(api.start, api.end);
        widen(ranges.start, ranges.end);
        if (lo <= hi) {
            meta.capture_start = lo;
            meta.capture_end = hi;
        }
    }
}

template <typename V> static size_t vbytes(const V& v) { return v.capacity() * sizeof(typename V::value_type); }

size_t Trace::memory_bytes() const
{
    size_t b = strings.memory_bytes();
    const auto& k = kernels;
    b += vbytes(k.start) + vbytes(k.end) + vbytes(k.name) + vbytes(k.short_name) + vbytes(k.correlation) +
         vbytes(k.launch_api) + vbytes(k.device) + vbytes(k.process) + vbytes(k.stream) + vbytes(k.shape) +
         k.shape_table_bytes() + vbytes(k.flags) + vbytes(k.blocks_per_sm) +
         vbytes(k.warps_per_sm) + vbytes(k.est_occupancy_pct);
    const auto& a = api;
    b += vbytes(a.start) + vbytes(a.end) + vbytes(a.name) + vbytes(a.correlation) + vbytes(a.thread) +
         vbytes(a.api_class) + vbytes(a.flags);
    b += vbytes(memcpy.start) * 9 / 2 + vbytes(memset.start) * 4 + vbytes(syncs.start) * 4;
    b += vbytes(ranges.start) * 3 + vbytes(marks.time) * 2 + vbytes(gpu_ranges.start) * 3;
    b += vbytes(graph_ops.kernel) * 4;
    return b;
}

} // namespace sl
