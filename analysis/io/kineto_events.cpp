// The Kineto reader's event handling (kineto_events.h).
#include "analysis/io/kineto_events.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "analysis/trace/checked_math.h"
#include "analysis/trace/clock_offset.h"
#include "analysis/trace/device_rows.h"
#include "analysis/trace/errors.h"

namespace sl::kineto {

namespace {

// ---- categories ------------------------------------------------------------------------------------------------
enum class Cat : uint8_t {
    Other, Kernel, Memcpy, Memset, Runtime, Driver, Sync, UserAnnotation, GpuUserAnnotation, CpuOp, Python, Trace, Flow
};

Cat classify_cat(std::string_view c)
{
    switch (c.size()) {
    case 4:
        if (c == "ac2g") return Cat::Flow;
        break;
    case 5:
        if (c == "Trace") return Cat::Trace;
        if (c == "async") return Cat::Flow;
        break;
    case 6:
        if (c == "kernel" || c == "Kernel") return Cat::Kernel;
        if (c == "cpu_op") return Cat::CpuOp;
        if (c == "Memcpy") return Cat::Memcpy;
        if (c == "Memset") return Cat::Memset;
        break;
    case 7:
        if (c == "Runtime") return Cat::Runtime;
        break;
    case 8:
        if (c == "Operator") return Cat::CpuOp;
        break;
    case 9:
        if (c == "cuda_sync") return Cat::Sync;
        if (c == "async_gpu") return Cat::Flow;
        break;
    case 10:
        if (c == "gpu_memcpy") return Cat::Memcpy;
        if (c == "gpu_memset") return Cat::Memset;
        break;
    case 11:
        if (c == "cuda_driver") return Cat::Driver;
        break;
    case 12:
        if (c == "cuda_runtime") return Cat::Runtime;
        break;
    case 15:
        if (c == "user_annotation") return Cat::UserAnnotation;
        if (c == "python_function") return Cat::Python;
        break;
    case 16:
        if (c == "async_cpu_to_gpu") return Cat::Flow;
        break;
    case 19:
        if (c == "gpu_user_annotation") return Cat::GpuUserAnnotation;
        break;
    default:
        break;
    }
    return Cat::Other;
}

// "Memcpy HtoD (Pageable -> Device)" -> HtoD, Pageable, Device.
MemKind mem_kind_of(std::string_view w)
{
    if (w == "Pageable") return MemKind::Pageable;
    if (w == "Pinned") return MemKind::Pinned;
    if (w == "Device") return MemKind::Device;
    if (w == "Array") return MemKind::Array;
    if (w == "Managed") return MemKind::Managed;
    if (w == "Host") return MemKind::Pageable;   // ROCm writes "Host"; the memory kind is not known beyond that
    return MemKind::Unknown;
}

void parse_copy_name(std::string_view name, CopyKind& kind, MemKind& src, MemKind& dst)
{
    kind = CopyKind::Unknown;
    src = dst = MemKind::Unknown;
    auto has = [&](std::string_view p) { return name.find(p) != std::string_view::npos; };
    if (has("HtoD")) kind = CopyKind::HtoD;
    else if (has("DtoH")) kind = CopyKind::DtoH;
    else if (has("DtoD")) kind = CopyKind::DtoD;
    else if (has("HtoH")) kind = CopyKind::HtoH;
    else if (has("PtoP")) kind = CopyKind::PtoP;
    else if (has("HtoA")) kind = CopyKind::HtoA;
    else if (has("AtoH")) kind = CopyKind::AtoH;
    else if (has("AtoA")) kind = CopyKind::AtoA;
    else if (has("AtoD")) kind = CopyKind::AtoD;
    else if (has("DtoA")) kind = CopyKind::DtoA;
    const size_t open = name.find('(');
    const size_t arrow = name.find(" -> ");
    const size_t close = name.rfind(')');
    if (open != std::string_view::npos && arrow != std::string_view::npos && close != std::string_view::npos &&
        open < arrow && arrow < close) {
        src = mem_kind_of(name.substr(open + 1, arrow - open - 1));
        dst = mem_kind_of(name.substr(arrow + 4, close - arrow - 4));
    }
}

uint8_t sync_type_of(std::string_view n)
{
    // CUPTI CUpti_ActivitySynchronizationType numbering.
    if (n == "Event Sync") return 1;
    if (n == "Stream Wait Event") return 2;
    if (n == "Stream Sync") return 3;
    if (n == "Context Sync") return 4;
    return 0;
}

const char* const kMissingTimeWarning = "some complete events lack a numeric ts or dur and were skipped";
const char* const kNegativeDurWarning = "some events have a negative duration; it was set to 0";

uint64_t flow_key(int64_t a, int64_t b)
{
    return static_cast<uint64_t>(a) * 0x9E3779B97F4A7C15ull ^ static_cast<uint64_t>(b);
}

} // namespace

uint32_t Part::thread_of(const Event& e)
{
    const int64_t pid = id_number(e.pid), tid = id_number(e.tid);
    if (last_thread_ != UINT32_MAX && pid == last_pid_ && tid == last_tid_)
        return last_thread_;
    auto [it, inserted] = threads_.try_emplace({pid, tid}, 0u);
    if (inserted) {
        ThreadInfo t;
        t.pid = pid;
        t.tid = tid;
        t.global_tid = static_cast<int64_t>((static_cast<uint64_t>(pid) << 32) ^ static_cast<uint32_t>(tid));
        if (e.tid.is_string)
            t.name = std::string(e.tid.str);
        it->second = static_cast<uint32_t>(trace_.meta.threads.size());
        trace_.meta.threads.push_back(std::move(t));
    }
    last_pid_ = pid;
    last_tid_ = tid;
    last_thread_ = it->second;
    return it->second;
}

// Non-numeric pid/tid strings ("Spans", "stream 7") get stable synthetic negative ids, numbered in the order of
// first use over the whole file: here a local code, which absorb() turns into the trace's id.
int64_t Part::id_number(const IdValue& v)
{
    if (!v.present)
        return 0;
    if (!v.is_string)
        return local_num(v.num);
    auto it = string_ids_.find(std::string(v.str));
    if (it != string_ids_.end())
        return it->second;
    const int64_t id = kCodeBase + static_cast<int64_t>(ids_.size());
    ids_.push_back({true, std::string(v.str), 0});
    string_ids_.emplace(std::string(v.str), id);
    return id;
}

// A number used as a pid/tid/device id: as it is, unless it falls among the local codes (then it gets one).
int64_t Part::local_num(int64_t v)
{
    if (!is_code(v))
        return v;
    auto [it, inserted] = num_ids_.try_emplace(v, kCodeBase + static_cast<int64_t>(ids_.size()));
    if (inserted)
        ids_.push_back({false, {}, v});
    return it->second;
}

uint16_t Part::device_of(const Event& e)
{
    int64_t id = 0;
    if (e.has_device)
        id = e.device;
    else if (e.pid.present && !e.pid.is_string)
        id = e.pid.num;
    return device_row(id);
}

uint16_t Part::device_row(int64_t id)
{
    // Each id is looked up in O(1): Trace::device_index scans the rows, which at 10^5 distinct ids was quadratic.
    const auto add = [&] {
        try {
            return append_device_row(trace_, static_cast<int32_t>(id), 0);   // every row is made here: new
        } catch (const TraceError& e) {
            throw TraceError(path_ ? *path_ : std::string(), e.where(), e.expected(), e.found());
        }
    };
    if (id >= 0 && id < 256) {
        auto& slot = device_cache_[static_cast<size_t>(id)];
        if (slot == 0)
            slot = static_cast<uint16_t>(add() + 1);
        return static_cast<uint16_t>(slot - 1);
    }
    const auto it = device_rows_.find(id);
    if (it != device_rows_.end())
        return it->second;
    const uint16_t row = add();
    device_rows_.emplace(id, row);
    return row;
}

uint32_t Part::stream_of(const Event& e) const
{
    if (e.has_stream)
        return static_cast<uint32_t>(e.stream);
    if (e.tid.present && !e.tid.is_string)
        return static_cast<uint32_t>(e.tid.num);
    if (e.tid.is_string) {
        // Legacy "stream 7".
        std::string_view s = e.tid.str;
        const size_t sp = s.rfind(' ');
        int64_t n = 0;
        bool ok = sp != std::string_view::npos && sp + 1 < s.size();
        for (size_t i = sp + 1; ok && i < s.size(); ++i) {
            ok = s[i] >= '0' && s[i] <= '9';
            n = n * 10 + (s[i] - '0');
        }
        if (ok)
            return static_cast<uint32_t>(n);
    }
    return 0;
}

// Names as the trace keeps them (input_bounds.h): control characters as \xNN text, at most kMaxNameBytes bytes
// (cut names counted), and the distinct names' bytes counted against the name limit.
StrId Part::intern_name(std::string_view n)
{
    const StrId found = trace_.strings.find(n);
    if (found != StringPool::kNotFound)
        return found;
    std::string escaped, cut;
    if (has_control_chars(n)) {
        escaped = escape_control_chars(n);
        n = escaped;
    }
    if (bound_name(n, cut))
        ++truncated_names_;
    const size_t before = trace_.strings.size();
    const StrId id = trace_.strings.intern(n);
    if (trace_.strings.size() > before)
        add_name_bytes(n.size());
    return id;
}

void Part::add_name_bytes(size_t n)
{
    name_bytes_ += n;
    if (name_bytes_ > name_limit_)
        check_name_bytes(path_ ? *path_ : std::string(), "names (kernel, API, range and operator names)",
                         name_bytes_);
}

// Integer fields out of range or not integral: the event is skipped, counted per field with the first case.
bool Part::bad_event(const Event& e)
{
    const char* field = e.bad_field;
    std::string value;
    if (field) {
        char buf[48];
        std::snprintf(buf, sizeof buf, "%.17g", e.bad_number);
        value = buf;
    } else if (e.has_device && (e.device < INT32_MIN || e.device > INT32_MAX)) {
        field = "args.device";
        value = std::to_string(e.device);
    } else if (e.has_stream && (e.stream < INT32_MIN || e.stream > UINT32_MAX)) {   // -1: "any stream" (syncs)
        field = "args.stream";
        value = std::to_string(e.stream);
    } else if (e.has_ts && (!time_in_range(e.ts) ||
                            (e.has_dur && !time_in_range(clamp_time(e.ts) +
                                                         std::clamp(e.dur, int64_t{0}, 2 * kMaxTraceTimeNs))))) {
        // An event beyond +/-2^61 ns (73 years) of the origin is no event of a capture: dropped, not clamped (one
        // kernel of dur 1e308 clamped to 2^61 ns made a whole trace "busy 100 % of 2.31e+09 s"; issue 36 §5).
        field = "ts + dur";   // kineto_reader.cpp words its warning
        value = "ts " + std::to_string(e.ts) + " ns, dur " + std::to_string(e.has_dur ? e.dur : 0) + " ns";
    } else {   // a correlation id beyond 32 bits is kept as before (ROCm numbers them with 64)
        return false;
    }
    auto& b = bad_fields_[field];
    if (b.count++ == 0)
        b.first = value + ", in " + (e.cat.empty() ? std::string("an event") : std::string(e.cat)) + " " +
                  quote_prefix(e.name);
    return true;
}

void Part::note_missing_time()
{
    if (missing_time_++ == 0)
        trace_.meta.warnings.push_back(kMissingTimeWarning);
}

void Part::handle_event(Event& e)
{
    if (e.ph == 'M') {
        handle_metadata_event(e);
        return;
    }
    const Cat cat = classify_cat(e.cat);
    if (cat == Cat::Flow) {
        if ((e.ph == 's' || e.ph == 'f') && e.has_id && e.has_ts) {
            // 's' sits on the launching thread (pid, tid); 'f' on the GPU row (device, stream).
            const int64_t a = e.ph == 's' || !e.has_device ? id_number(e.pid) : local_num(e.device);
            const int64_t b = e.ph == 's' ? id_number(e.tid) : static_cast<int64_t>(stream_of(e));
            if (is_code(a) || (e.ph == 's' && is_code(b)))
                coded_flows_.push_back({flows_.size(), a, b});
            flows_.push_back({e.ts, flow_key(a, b), static_cast<uint32_t>(e.id), e.ph});
        }
        return;
    }
    if (e.ph == 'X' && cat == Cat::Other) {
        // Complete events of a kind Sightline does not read (MTIA runtime, CUPTI range-profiler ranges, ...):
        // counted per category so the user hears what was left out (issue 13).
        auto it = dropped_.find(e.cat);
        if (it == dropped_.end())
            it = dropped_.emplace(e.cat.empty() ? std::string("(no category)") : std::string(e.cat), 0).first;
        ++it->second;
    }
    if (cat == Cat::Python && e.ph == 'X') {
        // The packages python_function frames run in name the framework (issue 13).
        static constexpr std::pair<std::string_view, std::string_view> kPkgs[] = {
            {"transformers/", "transformers"}, {"vllm/", "vllm"}, {"sglang/", "sglang"},
            {"tensorrt_llm/", "tensorrt_llm"}};
        for (const auto& [needle, pkg] : kPkgs)
            if (e.name.find(needle) != std::string_view::npos)
                python_packages_.insert(std::string(pkg));
        // The module frames, for a graph-capture trace: they name the module each captured kernel ran under.
        static constexpr std::string_view kModule = "nn.Module: ";
        if (python_modules_ && e.has_ts && e.has_dur && e.dur >= 0 && e.name.substr(0, kModule.size()) == kModule &&
            !bad_event(e)) {
            const int64_t start = clamp_time(e.ts);
            const int64_t end = clamp_time(start + std::min(e.dur, 2 * kMaxTraceTimeNs));
            trace_.ranges.append(start, end, intern_name(e.name.substr(kModule.size())), thread_of(e),
                                 RangeKind::PyModule);
            return;   // kept once, as the module
        }
    }
    if (e.ph != 'X' || cat == Cat::Other)
        return;
    if (!e.has_ts || !e.has_dur) {
        note_missing_time();
        return;
    }
    if (bad_event(e))   // out-of-range ids and times among them
        return;
    if (e.dur < 0) {
        if (negative_dur_++ == 0)
            trace_.meta.warnings.push_back(kNegativeDurWarning);
        e.dur = 0;
    }
    // Clamped into +/-2^61 ns so end - start and later sums cannot overflow (ts and dur are untrusted).
    const int64_t start = clamp_time(e.ts), end = clamp_time(start + std::min(e.dur, 2 * kMaxTraceTimeNs));
    const uint32_t corr = e.has_corr && e.corr > 0 ? static_cast<uint32_t>(e.corr) : 0;
    switch (cat) {
    case Cat::Kernel: {
        auto& k = trace_.kernels;
        const size_t i = k.append(start, end, intern_name(e.name));
        k.correlation[i] = corr;
        k.device[i] = device_of(e);
        k.stream[i] = stream_of(e);
        k.set_shape(i, {static_cast<uint32_t>(std::clamp<int64_t>(e.grid[0], 0, UINT32_MAX)),
                        static_cast<uint16_t>(std::clamp<int64_t>(e.grid[1], 0, UINT16_MAX)),
                        static_cast<uint16_t>(std::clamp<int64_t>(e.grid[2], 0, UINT16_MAX)),
                        static_cast<uint16_t>(std::clamp<int64_t>(e.block[0], 0, UINT16_MAX)),
                        static_cast<uint16_t>(std::clamp<int64_t>(e.block[1], 0, UINT16_MAX)),
                        static_cast<uint16_t>(std::clamp<int64_t>(e.block[2], 0, UINT16_MAX)),
                        static_cast<uint16_t>(std::clamp<int64_t>(e.regs, 0, UINT16_MAX)),
                        static_cast<uint32_t>(std::clamp<int64_t>(e.smem, 0, UINT32_MAX))});
        if (e.graph)
            k.flags[i] |= KernelTable::kGraphNode;
        k.blocks_per_sm.push_back(static_cast<float>(e.blocks_per_sm));
        k.warps_per_sm.push_back(static_cast<float>(e.warps_per_sm));
        k.est_occupancy_pct.push_back(static_cast<float>(e.occupancy));
        if (corr == 0)
            gpu_without_corr_ = true;
        if (e.has_op_args())
            add_op_args(e, OpArgsTable::kKernel, start, end, e.has_device ? local_num(e.device) : id_number(e.pid),
                        corr);
        break;
    }
    case Cat::Memcpy: {
        CopyKind kind;
        MemKind src, dst;
        parse_copy_name(e.name, kind, src, dst);
        auto& m = trace_.memcpy;
        const size_t i = m.append(start, end, static_cast<uint64_t>(std::max<int64_t>(0, e.bytes)), kind);
        m.src_kind[i] = src;
        m.dst_kind[i] = dst;
        m.device[i] = device_of(e);
        m.stream[i] = stream_of(e);
        m.correlation[i] = corr;
        if (corr == 0)
            gpu_without_corr_ = true;
        break;
    }
    case Cat::Memset: {
        auto& m = trace_.memset;
        const size_t i = m.append(start, end, static_cast<uint64_t>(std::max<int64_t>(0, e.bytes)));
        const size_t open = e.name.find('('), close = e.name.rfind(')');
        if (open != std::string_view::npos && close != std::string_view::npos && open < close)
            m.mem_kind[i] = mem_kind_of(e.name.substr(open + 1, close - open - 1));
        m.device[i] = device_of(e);
        m.stream[i] = stream_of(e);
        m.correlation[i] = corr;
        if (corr == 0)
            gpu_without_corr_ = true;
        break;
    }
    case Cat::Runtime:
    case Cat::Driver: {
        const StrId name = intern_name(e.name);
        if (name >= api_flags_.size())
            api_flags_.resize(name + 1, 0xFF);
        if (api_flags_[name] == 0xFF)
            api_flags_[name] = classify_api_name(e.name);
        trace_.api.append(start, end, name, corr, thread_of(e),
                          cat == Cat::Driver ? ApiClass::Driver : ApiClass::Runtime, api_flags_[name]);
        if (corr == 0)
            api_without_corr_ = true;
        if (e.has_ext && e.ext != 0 && corr != 0)
            add_op_args(e, OpArgsTable::kLaunch, start, end, id_number(e.pid), corr);
        break;
    }
    case Cat::Sync: {
        auto& s = trace_.syncs;
        const size_t i = s.append(start, end);
        s.device[i] = device_of(e);
        s.stream[i] = e.has_stream ? static_cast<uint32_t>(e.stream) : stream_of(e);
        s.correlation[i] = corr;
        s.sync_type[i] = sync_type_of(e.sync_kind.empty() ? e.name : e.sync_kind);
        break;
    }
    case Cat::UserAnnotation:
        trace_.ranges.append(start, end, intern_name(e.name), thread_of(e), RangeKind::UserAnnotation);
        break;
    case Cat::Python:
        // Kept (the CPU flame chart, the nn.Module a CPU op ran in); capped in finalize() by keep_python_frames().
        trace_.ranges.append(start, end, intern_name(e.name), thread_of(e), RangeKind::PythonFunction);
        break;
    case Cat::CpuOp:
        trace_.ranges.append(start, end, intern_name(e.name), thread_of(e), RangeKind::CpuOp);
        if (e.has_op_args())
            add_op_args(e, OpArgsTable::kCpuOp, start, end, id_number(e.pid), corr);
        break;
    case Cat::GpuUserAnnotation: {
        auto& g = trace_.gpu_ranges;
        g.start.push_back(start);
        g.end.push_back(end);
        g.name.push_back(intern_name(e.name));
        g.device.push_back(device_of(e));
        g.stream.push_back(stream_of(e));
        break;
    }
    case Cat::Trace:
        window_lo_ = std::min(window_lo_, start);
        window_hi_ = std::max(window_hi_, end);
        break;
    default:
        break;
    }
}

// One row of Trace::op_args (record_shapes / collective args, or a launch's External id).
void Part::add_op_args(const Event& e, uint8_t source, int64_t start, int64_t end, int64_t pid, uint32_t corr)
{
    auto& a = trace_.op_args;
    const StrId name = source != OpArgsTable::kLaunch ? intern_name(e.name)
                       : e.launch_kernel.empty()       ? StrId{0}
                                                       : intern_name(e.launch_kernel);
    const size_t i = a.append(source, start, end, name);
    a.pid[i] = pid;
    a.external_id[i] = e.has_ext ? e.ext : 0;
    a.correlation[i] = corr;
    if (source == OpArgsTable::kLaunch)
        return;
    a.input_dims[i] = std::string(e.in_dims);
    a.input_types[i] = std::string(e.in_types);
    a.concrete_inputs[i] = std::string(e.concrete);
    a.collective[i] = std::string(e.coll);
    a.dtype[i] = std::string(e.dtype);
    a.pg_name[i] = std::string(e.pg_name);
    a.pg_ranks[i] = std::string(e.pg_ranks);
    a.in_nelems[i] = e.in_nelems;
    a.out_nelems[i] = e.out_nelems;
    a.group_size[i] = e.group_size;
}

void Part::handle_metadata_event(const Event& e)
{
    if (e.arg_name.empty())
        return;
    if (e.name == "process_name") {
        process_names_[id_number(e.pid)] = std::string(e.arg_name);
    } else if (e.name == "thread_name") {
        thread_names_[{id_number(e.pid), id_number(e.tid)}] = std::string(e.arg_name);
    }
}

// The reader's own part (the trace itself, which handles no events): numbers p's names, devices, threads and
// string ids as one pass over the file would (in the order of first use) and takes its small state;
// KinetoReader::copy_column() then copies its rows over.
void Part::absorb(Part& p)
{
    Trace& s = p.trace_;
    p.merged_ids_.resize(p.ids_.size());
    for (size_t i = 0; i < p.ids_.size(); ++i) {
        const auto& en = p.ids_[i];
        if (!en.is_string) {
            p.merged_ids_[i] = en.num;
            continue;
        }
        auto it = string_ids_.find(en.str);
        if (it == string_ids_.end())
            it = string_ids_.emplace(en.str, -1000000 - static_cast<int64_t>(string_ids_.size())).first;
        p.merged_ids_[i] = it->second;
    }
    auto id = [&](int64_t v) { return is_code(v) ? p.merged_ids_[static_cast<size_t>(v - kCodeBase)] : v; };
    p.names_.resize(s.strings.size());
    for (size_t i = 0; i < p.names_.size(); ++i) {
        const size_t before = trace_.strings.size();
        p.names_[i] = trace_.strings.intern(s.strings.view(static_cast<StrId>(i)));
        if (trace_.strings.size() > before)
            add_name_bytes(s.strings.view(static_cast<StrId>(i)).size());
    }
    truncated_names_ += p.truncated_names_;
    for (const auto& [f, b] : p.bad_fields_) {
        auto& m = bad_fields_[f];
        if (m.count == 0)
            m.first = b.first;
        m.count += b.count;
    }
    p.shapes_.resize(s.kernels.shapes.size());
    for (size_t i = 0; i < p.shapes_.size(); ++i)
        p.shapes_[i] = trace_.kernels.intern_shape(s.kernels.shapes[i]);
    p.devices_.resize(s.meta.devices.size());
    for (size_t i = 0; i < p.devices_.size(); ++i)
        p.devices_[i] = device_row(s.meta.devices[i].id);
    p.threads_of_.resize(s.meta.threads.size());
    for (size_t i = 0; i < p.threads_of_.size(); ++i) {
        const ThreadInfo& lt = s.meta.threads[i];
        const int64_t pid = id(lt.pid), tid = id(lt.tid);
        auto [it, inserted] = threads_.try_emplace({pid, tid}, 0u);
        if (inserted) {
            ThreadInfo t;
            t.pid = pid;
            t.tid = tid;
            t.global_tid = static_cast<int64_t>((static_cast<uint64_t>(pid) << 32) ^ static_cast<uint32_t>(tid));
            t.name = lt.name;
            it->second = static_cast<uint32_t>(trace_.meta.threads.size());
            trace_.meta.threads.push_back(std::move(t));
        }
        p.threads_of_[i] = it->second;
    }
    for (const auto& f : p.coded_flows_)
        p.flows_[f.index].key = flow_key(id(f.a), p.flows_[f.index].ph == 's' ? id(f.b) : f.b);
    for (const auto& [pid, name] : p.process_names_)
        process_names_[id(pid)] = name;
    for (const auto& [key, name] : p.thread_names_)
        thread_names_[{id(key.first), id(key.second)}] = name;
    for (const auto& w : s.meta.warnings)
        if ((w == kMissingTimeWarning && missing_time_ == 0) || (w == kNegativeDurWarning && negative_dur_ == 0))
            trace_.meta.warnings.push_back(w);
    missing_time_ += p.missing_time_;
    negative_dur_ += p.negative_dur_;
    gpu_without_corr_ = gpu_without_corr_ || p.gpu_without_corr_;
    api_without_corr_ = api_without_corr_ || p.api_without_corr_;
    window_lo_ = std::min(window_lo_, p.window_lo_);
    window_hi_ = std::max(window_hi_, p.window_hi_);
    for (const auto& [c, n] : p.dropped_)
        dropped_[c] += n;
    python_packages_.insert(p.python_packages_.begin(), p.python_packages_.end());
}

} // namespace sl::kineto
