#include "analysis/io/kineto_writer.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <tuple>
#include <zlib.h>

#include "analysis/trace/errors.h"

namespace sl {

namespace {

class Out {
public:
    explicit Out(std::function<void(const char*, size_t)> sink) : sink_(std::move(sink)) { buf_.reserve(1 << 20); }
    ~Out() = default;
    void flush()
    {
        if (!buf_.empty())
            sink_(buf_.data(), buf_.size());
        buf_.clear();
    }
    void maybe_flush()
    {
        if (buf_.size() >= (1u << 20))
            flush();
    }
    Out& raw(std::string_view s)
    {
        buf_.append(s);
        return *this;
    }
    Out& num(int64_t v)
    {
        char tmp[24];
        auto r = std::to_chars(tmp, tmp + sizeof tmp, v);
        buf_.append(tmp, static_cast<size_t>(r.ptr - tmp));
        return *this;
    }
    Out& dbl(double v)
    {
        if (!std::isfinite(v))
            return raw("0");
        char tmp[40];
        const int n = std::snprintf(tmp, sizeof tmp, "%.6g", v);
        buf_.append(tmp, static_cast<size_t>(n));
        return *this;
    }
    // ns -> µs with three decimals, exact.
    Out& us(int64_t ns)
    {
        if (ns < 0) {
            buf_.push_back('-');
            ns = -ns;
        }
        num(ns / 1000);
        const int f = static_cast<int>(ns % 1000);
        const char d[4] = {'.', static_cast<char>('0' + f / 100), static_cast<char>('0' + f / 10 % 10),
                           static_cast<char>('0' + f % 10)};
        buf_.append(d, 4);
        return *this;
    }
    Out& str(std::string_view s)
    {
        buf_.push_back('"');
        for (char c : s) {
            const auto u = static_cast<unsigned char>(c);
            if (c == '"' || c == '\\') {
                buf_.push_back('\\');
                buf_.push_back(c);
            } else if (u < 0x20) {
                char tmp[8];
                std::snprintf(tmp, sizeof tmp, "\\u%04x", u);
                buf_.append(tmp);
            } else {
                buf_.push_back(c);
            }
        }
        buf_.push_back('"');
        return *this;
    }

private:
    std::function<void(const char*, size_t)> sink_;
    std::string buf_;
};

const char* mem_kind_word(MemKind k)
{
    switch (k) {
    case MemKind::Pageable: return "Pageable";
    case MemKind::Pinned: return "Pinned";
    case MemKind::Device: return "Device";
    case MemKind::Array: return "Array";
    case MemKind::Managed: return "Managed";
    default: return "Device";
    }
}

const char* copy_kind_word(CopyKind k)
{
    switch (k) {
    case CopyKind::HtoD: case CopyKind::UnifiedHtoD: return "HtoD";
    case CopyKind::DtoH: case CopyKind::UnifiedDtoH: return "DtoH";
    case CopyKind::DtoD: case CopyKind::UnifiedDtoD: return "DtoD";
    case CopyKind::HtoH: return "HtoH";
    case CopyKind::PtoP: return "PtoP";
    case CopyKind::HtoA: return "HtoA";
    case CopyKind::AtoH: return "AtoH";
    case CopyKind::AtoA: return "AtoA";
    case CopyKind::AtoD: return "AtoD";
    case CopyKind::DtoA: return "DtoA";
    default: return "Unknown";
    }
}

void write_all(const Trace& t, Out& o, const KinetoWriteOptions& opt)
{
    const auto& m = t.meta;
    o.raw("{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [");
    for (size_t i = 0; i < m.devices.size(); ++i) {
        const auto& d = m.devices[i];
        bool dup = false;
        for (size_t j = 0; j < i; ++j)
            dup = dup || m.devices[j].id == d.id;
        if (dup)
            continue;
        o.raw(i ? ",\n    {" : "\n    {").raw("\"id\": ").num(d.id).raw(", \"name\": ").str(d.name);
        o.raw(", \"totalGlobalMem\": ").num(d.total_memory_bytes).raw(", \"computeMajor\": ").num(d.compute_major);
        o.raw(", \"computeMinor\": ").num(d.compute_minor).raw(", \"numSms\": ").num(d.sm_count).raw("}");
    }
    o.raw("\n  ],\n");
    if (opt.distributed_info)
        o.raw("  \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": ")
            .num(m.devices.empty() ? 0 : m.devices[0].rank)
            .raw(", \"world_size\": ")
            .num(m.world_size)
            .raw("},\n");
    o.raw("  \"traceEvents\": [\n");
    bool first = true;
    auto sep = [&]() {
        o.raw(first ? "  " : ",\n  ");
        first = false;
        o.maybe_flush();
    };
    auto pid_of_thread = [&](uint32_t th) { return th < m.threads.size() ? m.threads[th].pid : 0; };
    auto tid_of_thread = [&](uint32_t th) { return th < m.threads.size() ? m.threads[th].tid : 0; };
    auto dev_id = [&](uint16_t d) { return d < m.devices.size() ? m.devices[d].id : 0; };

    for (const auto& p : m.processes) {
        sep();
        o.raw("{\"name\": \"process_name\", \"ph\": \"M\", \"ts\": 0, \"pid\": ").num(p.pid);
        o.raw(", \"tid\": 0, \"args\": {\"name\": ").str(p.name).raw("}}");
    }
    for (const auto& th : m.threads) {
        sep();
        o.raw("{\"name\": \"thread_name\", \"ph\": \"M\", \"ts\": 0, \"pid\": ").num(th.pid);
        o.raw(", \"tid\": ").num(th.tid).raw(", \"args\": {\"name\": ").str(th.name).raw("}}");
    }
    // record_shapes args: a CPU op range's row in op_args (same start, name and host pid), and a launch call's row
    // (its External id, and the kernel it launched).
    const auto& A = t.op_args;
    std::map<std::tuple<int64_t, StrId, int64_t>, size_t> op_row;
    std::map<std::pair<int64_t, uint32_t>, size_t> launch_row, kernel_row;
    for (size_t i = 0; i < A.size(); ++i) {
        if (A.source[i] == OpArgsTable::kCpuOp)
            op_row[{A.start[i], A.name[i], A.pid[i]}] = i;
        else if (A.source[i] == OpArgsTable::kLaunch)
            launch_row[{A.pid[i], A.correlation[i]}] = i;
        else if (A.source[i] == OpArgsTable::kKernel && !A.collective[i].empty())
            kernel_row[{A.pid[i], A.correlation[i]}] = i;   // collective args on the kernel (device id, correlation)
    }
    const auto& r = t.ranges;
    for (size_t i = 0; i < r.size(); ++i) {
        sep();
        const bool module = r.kind[i] == RangeKind::PyModule;
        o.raw("{\"ph\": \"X\", \"cat\": ")
            .raw(r.kind[i] == RangeKind::CpuOp                      ? "\"cpu_op\""
                 : module || r.kind[i] == RangeKind::PythonFunction ? "\"python_function\""
                                                                    : "\"user_annotation\"");
        o.raw(", \"name\": ").str(module ? "nn.Module: " + std::string(t.str(r.name[i])) : std::string(t.str(r.name[i])));
        o.raw(", \"pid\": ").num(pid_of_thread(r.thread[i]));
        o.raw(", \"tid\": ").num(tid_of_thread(r.thread[i])).raw(", \"ts\": ").us(r.start[i]);
        o.raw(", \"dur\": ").us(r.end[i] - r.start[i]).raw(", \"args\": {");
        if (module) {
            o.raw("}}");
            continue;
        }
        const auto it = r.kind[i] == RangeKind::CpuOp ? op_row.find({r.start[i], r.name[i], pid_of_thread(r.thread[i])})
                                                      : op_row.end();
        if (it == op_row.end()) {
            o.raw("\"External id\": ").num(int64_t(i)).raw("}}");
            continue;
        }
        const size_t row = it->second;
        o.raw("\"External id\": ").num(A.external_id[row] != 0 ? A.external_id[row] : int64_t(i));
        if (!A.input_dims[row].empty())
            o.raw(", \"Input Dims\": ").raw(A.input_dims[row]);
        if (!A.input_types[row].empty())
            o.raw(", \"Input type\": ").raw(A.input_types[row]);
        if (!A.concrete_inputs[row].empty())
            o.raw(", \"Concrete Inputs\": ").raw(A.concrete_inputs[row]);
        o.raw("}}");
    }
    const auto& a = t.api;
    for (size_t i = 0; i < a.size(); ++i) {
        sep();
        o.raw("{\"ph\": \"X\", \"cat\": ")
            .raw(a.api_class[i] == ApiClass::Driver ? "\"cuda_driver\"" : "\"cuda_runtime\"");
        o.raw(", \"name\": ").str(t.str(a.name[i])).raw(", \"pid\": ").num(pid_of_thread(a.thread[i]));
        o.raw(", \"tid\": ").num(tid_of_thread(a.thread[i])).raw(", \"ts\": ").us(a.start[i]);
        o.raw(", \"dur\": ").us(a.end[i] - a.start[i]).raw(", \"args\": {\"cbid\": 211, \"correlation\": ");
        o.num(a.correlation[i]);
        if (const auto l = launch_row.find({pid_of_thread(a.thread[i]), a.correlation[i]}); l != launch_row.end()) {
            o.raw(", \"External id\": ").num(A.external_id[l->second]);
            if (A.name[l->second] != 0)
                o.raw(", \"kernel\": ").str(t.str(A.name[l->second]));
        }
        o.raw("}}");
    }
    const auto& k = t.kernels;
    const bool stats = k.blocks_per_sm.size() == k.size();
    for (size_t i = 0; i < k.size(); ++i) {
        sep();
        const int64_t dev = dev_id(k.device[i]);
        const LaunchShape& sh = k.launch_shape(i);
        o.raw("{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": ").str(t.str(k.name[i])).raw(", \"pid\": ").num(dev);
        o.raw(", \"tid\": ").num(k.stream[i]).raw(", \"ts\": ").us(k.start[i]).raw(", \"dur\": ");
        o.us(k.end[i] - k.start[i]).raw(", \"args\": {\"queued\": 0, \"device\": ").num(dev);
        o.raw(", \"context\": 1, \"stream\": ").num(k.stream[i]).raw(", \"correlation\": ").num(k.correlation[i]);
        o.raw(", \"registers per thread\": ").num(sh.registers_per_thread);
        o.raw(", \"shared memory\": ").num(sh.shared_memory);
        if (stats) {
            o.raw(", \"blocks per SM\": ").dbl(k.blocks_per_sm[i]);
            o.raw(", \"warps per SM\": ").dbl(k.warps_per_sm[i]);
        }
        if (sh.grid_x > 0 && sh.block_x > 0) {   // a launch shape the trace did not record is not written
            o.raw(", \"grid\": [").num(sh.grid_x).raw(", ").num(sh.grid_y).raw(", ").num(sh.grid_z);
            o.raw("], \"block\": [").num(sh.block_x).raw(", ").num(sh.block_y).raw(", ").num(sh.block_z).raw("]");
        }
        if (stats)
            o.raw(", \"est. achieved occupancy %\": ").dbl(k.est_occupancy_pct[i]);
        if (k.flags[i] & KernelTable::kGraphNode)
            o.raw(", \"graph id\": 1");
        if (const auto c = kernel_row.find({dev, k.correlation[i]}); c != kernel_row.end()) {
            const size_t row = c->second;   // as PyTorch 2.1+ writes them on NCCL kernels
            o.raw(", \"Collective name\": ").str(A.collective[row]);
            o.raw(", \"In msg nelems\": ").num(A.in_nelems[row]).raw(", \"Out msg nelems\": ").num(A.out_nelems[row]);
            o.raw(", \"Group size\": ").num(A.group_size[row]).raw(", \"dtype\": ").str(A.dtype[row]);
            o.raw(", \"Process Group Name\": ").str(A.pg_name[row]);
            if (!A.pg_ranks[row].empty())
                o.raw(", \"Process Group Ranks\": ").str(A.pg_ranks[row]);
        }
        o.raw("}}");
        if (opt.flows && k.launch_api[i] != kNoIndex) {
            const auto li = static_cast<size_t>(k.launch_api[i]);
            sep();
            o.raw("{\"ph\": \"s\", \"id\": ").num(k.correlation[i]).raw(", \"pid\": ").num(pid_of_thread(a.thread[li]));
            o.raw(", \"tid\": ").num(tid_of_thread(a.thread[li])).raw(", \"ts\": ").us(a.start[li]);
            o.raw(", \"cat\": \"ac2g\", \"name\": \"ac2g\"}");
            sep();
            o.raw("{\"ph\": \"f\", \"id\": ").num(k.correlation[i]).raw(", \"pid\": ").num(dev);
            o.raw(", \"tid\": ").num(k.stream[i]).raw(", \"ts\": ").us(k.start[i]);
            o.raw(", \"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"}");
        }
    }
    const auto& c = t.memcpy;
    for (size_t i = 0; i < c.size(); ++i) {
        sep();
        const int64_t dev = dev_id(c.device[i]);
        o.raw("{\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy ").raw(copy_kind_word(c.copy_kind[i]));
        o.raw(" (").raw(mem_kind_word(c.src_kind[i])).raw(" -> ").raw(mem_kind_word(c.dst_kind[i])).raw(")\"");
        o.raw(", \"pid\": ").num(dev).raw(", \"tid\": ").num(c.stream[i]).raw(", \"ts\": ").us(c.start[i]);
        o.raw(", \"dur\": ").us(c.end[i] - c.start[i]).raw(", \"args\": {\"device\": ").num(dev);
        o.raw(", \"context\": 1, \"stream\": ").num(c.stream[i]).raw(", \"correlation\": ").num(c.correlation[i]);
        o.raw(", \"bytes\": ").num(static_cast<int64_t>(c.bytes[i])).raw("}}");
    }
    const auto& s = t.memset;
    for (size_t i = 0; i < s.size(); ++i) {
        sep();
        const int64_t dev = dev_id(s.device[i]);
        o.raw("{\"ph\": \"X\", \"cat\": \"gpu_memset\", \"name\": \"Memset (").raw(mem_kind_word(s.mem_kind[i]));
        o.raw(")\", \"pid\": ").num(dev).raw(", \"tid\": ").num(s.stream[i]).raw(", \"ts\": ").us(s.start[i]);
        o.raw(", \"dur\": ").us(s.end[i] - s.start[i]).raw(", \"args\": {\"device\": ").num(dev);
        o.raw(", \"context\": 1, \"stream\": ").num(s.stream[i]).raw(", \"correlation\": ").num(s.correlation[i]);
        o.raw(", \"bytes\": ").num(static_cast<int64_t>(s.bytes[i])).raw("}}");
    }
    static const char* const sync_names[] = {"Unknown", "Event Sync", "Stream Wait Event", "Stream Sync",
                                             "Context Sync"};
    const auto& y = t.syncs;
    for (size_t i = 0; i < y.size(); ++i) {
        sep();
        const int64_t dev = dev_id(y.device[i]);
        const char* nm = sync_names[y.sync_type[i] <= 4 ? y.sync_type[i] : 0];
        o.raw("{\"ph\": \"X\", \"cat\": \"cuda_sync\", \"name\": \"").raw(nm).raw("\", \"pid\": ").num(dev);
        o.raw(", \"tid\": ").num(y.stream[i]).raw(", \"ts\": ").us(y.start[i]).raw(", \"dur\": ");
        o.us(y.end[i] - y.start[i]).raw(", \"args\": {\"cuda_sync_kind\": \"").raw(nm).raw("\", \"stream\": ");
        o.num(y.stream[i]).raw(", \"device\": ").num(dev).raw(", \"correlation\": ").num(y.correlation[i]).raw("}}");
    }
    const auto& g = t.gpu_ranges;
    for (size_t i = 0; i < g.size(); ++i) {
        sep();
        const int64_t dev = dev_id(g.device[i]);
        o.raw("{\"ph\": \"X\", \"cat\": \"gpu_user_annotation\", \"name\": ").str(t.str(g.name[i]));
        o.raw(", \"pid\": ").num(dev).raw(", \"tid\": ").num(g.stream[i]).raw(", \"ts\": ").us(g.start[i]);
        o.raw(", \"dur\": ").us(g.end[i] - g.start[i]).raw(", \"args\": {}}");
    }
    if (m.capture_end > m.capture_start) {
        sep();
        o.raw("{\"ph\": \"X\", \"cat\": \"Trace\", \"ts\": ").us(m.capture_start).raw(", \"dur\": ");
        o.us(m.capture_end - m.capture_start);
        o.raw(", \"pid\": \"Spans\", \"tid\": \"PyTorch Profiler\", \"name\": \"PyTorch Profiler (0)\", \"args\": {}}");
    }
    o.raw("\n  ],\n  \"traceName\": ").str(m.source_path).raw(",\n  \"displayTimeUnit\": \"ms\"");
    if (m.utc_epoch_ns != 0)
        o.raw(",\n  \"baseTimeNanoseconds\": ").num(m.utc_epoch_ns);
    o.raw("\n}\n");
    o.flush();
}

} // namespace

void write_kineto_json(const Trace& trace, const std::string& path, const KinetoWriteOptions& options)
{
    if (options.gzip) {
        gzFile gz = gzopen(path.c_str(), "wb1");
        if (!gz)
            throw TraceError(path, "", "a writable file", std::strerror(errno));
        bool ok = true;
        int err = 0;
        Out o([&](const char* p, size_t n) {
            if (ok && gzwrite(gz, p, static_cast<unsigned>(n)) != static_cast<int>(n)) {
                ok = false;
                err = errno;
            }
        });
        write_all(trace, o, options);
        errno = 0;
        const int rc = gzclose(gz);
        if (ok && rc != Z_OK)
            err = errno;
        if (rc != Z_OK || !ok)
            throw TraceError(path, "", "a writable file", err ? std::strerror(err) : "a write error");
        return;
    }
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f)
        throw TraceError(path, "", "a writable file", std::strerror(errno));
    bool ok = true;
    int err = 0;
    Out o([&](const char* p, size_t n) {
        if (ok && std::fwrite(p, 1, n, f) != n) {
            ok = false;
            err = errno;
        }
    });
    write_all(trace, o, options);
    errno = 0;
    const int rc = std::fclose(f);
    if (ok && rc != 0)
        err = errno;
    if (rc != 0 || !ok)
        throw TraceError(path, "", "a writable file", err ? std::strerror(err) : "a write error");
}

std::string kineto_json_string(const Trace& trace, const KinetoWriteOptions& options)
{
    std::string s;
    Out o([&](const char* p, size_t n) { s.append(p, n); });
    write_all(trace, o, options);
    return s;
}

} // namespace sl
