// Merges per-rank traces into one workspace Trace.
//
// Each part arrives finished (its reader called Trace::finish(), so launch links are resolved within the part). The
// merge re-interns strings into one pool, appends device / process / thread / stream rows with the part's rank and
// shifts every index column by the rows already there, and shifts launch_api / sync api indices by the API rows
// already there. Correlation ids stay as the trace wrote them (users look them up in their own tools); the merged
// trace is NOT re-linked by finish(), because two ranks may reuse the same pid and correlation ids.
//
// Clocks: when every part knows its UTC epoch (Kineto baseTimeNanoseconds, nsys session start), times are shifted
// onto the earliest epoch so ranks line up; when some do not, parts with an epoch are moved to absolute UTC time and
// the others (legacy Kineto, whose ts are already absolute µs) are left as they are.

#include "analysis/trace/merge.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <string>

#include "analysis/trace/errors.h"

namespace sl {

namespace {

template <typename T, typename F> void append_mapped(std::vector<T>& dst, const std::vector<T>& src, F f)
{
    dst.reserve(dst.size() + src.size());
    for (const T& v : src)
        dst.push_back(f(v));
}

template <typename T> void append_all(std::vector<T>& dst, const std::vector<T>& src)
{
    dst.insert(dst.end(), src.begin(), src.end());
}

int32_t rank_of(const Trace& t, size_t file_index)
{
    auto it = t.meta.environment.find("distributed.rank");
    if (it != t.meta.environment.end()) {
        try {
            return std::stoi(it->second);
        } catch (const std::exception&) {
        }
    }
    return static_cast<int32_t>(file_index);
}

} // namespace

Trace merge_traces(std::vector<Trace> parts)
{
    if (parts.empty())
        throw TraceError("", "", "at least one trace to merge", "none");
    if (parts.size() == 1)
        return std::move(parts[0]);

    const size_t n = parts.size();
    std::vector<int32_t> ranks(n);
    for (size_t i = 0; i < n; ++i)
        ranks[i] = rank_of(parts[i], i);

    Trace out;
    auto& om = out.meta;
    {
        std::set<int32_t> seen;
        for (size_t i = 0; i < n; ++i)
            if (!seen.insert(ranks[i]).second)
                om.warnings.push_back("two files claim rank " + std::to_string(ranks[i]) + " (" +
                                      parts[i].meta.source_path + "); their rows share that rank");
    }

    bool all_epoch = true, any_epoch = false;
    int64_t min_epoch = INT64_MAX;
    for (const auto& p : parts) {
        const int64_t e = p.meta.utc_epoch_ns;
        all_epoch = all_epoch && e != 0;
        any_epoch = any_epoch || e != 0;
        if (e != 0)
            min_epoch = std::min(min_epoch, e);
    }
    om.utc_epoch_ns = all_epoch ? min_epoch : 0;
    if (any_epoch && !all_epoch)
        om.warnings.push_back("some files give no base time; their timestamps were taken as absolute UTC");

    bool any_launch_stats = false;
    for (const auto& p : parts)
        any_launch_stats = any_launch_stats || (!p.kernels.blocks_per_sm.empty() && p.kernels.size() > 0);

    om.format = parts[0].meta.format;
    om.tool_version = parts[0].meta.tool_version;
    om.schema_version = parts[0].meta.schema_version;
    om.world_size = 1;
    int64_t lo = INT64_MAX, hi = INT64_MIN;

    for (size_t i = 0; i < n; ++i) {
        Trace p = std::move(parts[i]);   // freed at the end of this iteration
        const auto& pm = p.meta;
        const int32_t rank = ranks[i];
        const int64_t shift = all_epoch ? pm.utc_epoch_ns - min_epoch : pm.utc_epoch_ns;
        auto t = [shift](int64_t v) { return v + shift; };

        if (pm.format != om.format && om.format.find(pm.format) == std::string::npos)
            om.format += "+" + pm.format;
        om.source_path += (i ? ";" : "") + pm.source_path;
        om.world_size = std::max({om.world_size, pm.world_size, rank + 1});
        for (const auto& [k, v] : pm.environment) {
            if (k == "distributed.rank")
                continue;
            auto [it, inserted] = om.environment.emplace(k, v);
            if (!inserted && it->second != v)
                om.warnings.push_back("files differ in " + k + ": \"" + it->second + "\" vs \"" + v + "\" (" +
                                      pm.source_path + ")");
        }
        for (const auto& w : pm.warnings)
            om.warnings.push_back(pm.source_path + ": " + w);
        for (const auto& [kind, count] : pm.dropped_events)
            om.dropped_events[kind] += count;
        if (pm.clock_shift_ns != 0 && om.clock_shift_reason.empty()) {
            om.clock_shift_ns = pm.clock_shift_ns;   // the first rank's; each rank's own is in its warning
            om.clock_shift_reason = pm.source_path + ": " + pm.clock_shift_reason;
        }
        if (om.capture_source.empty())
            om.capture_source = pm.capture_source;
        if (pm.capture_start != 0 || pm.capture_end != 0) {
            lo = std::min(lo, t(pm.capture_start));
            hi = std::max(hi, t(pm.capture_end));
        }

        // Strings.
        std::vector<StrId> sid(p.strings.size());
        for (StrId s = 0; s < sid.size(); ++s)
            sid[s] = out.strings.intern(p.strings.view(s));
        auto str = [&](StrId s) { return s < sid.size() ? sid[s] : StrId{0}; };

        // Metadata rows.
        const auto dev_off = static_cast<uint16_t>(om.devices.size());
        const auto proc_off = static_cast<uint16_t>(om.processes.size());
        const auto thr_off = static_cast<uint32_t>(om.threads.size());
        const auto api_off = static_cast<int32_t>(out.api.size());
        if (om.devices.size() + pm.devices.size() > UINT16_MAX || om.processes.size() + pm.processes.size() > UINT16_MAX)
            throw TraceError(pm.source_path, "merge", "fewer than 65536 devices and processes in all files",
                             "more");
        for (auto d : pm.devices) {
            d.rank = rank;
            om.devices.push_back(std::move(d));
        }
        for (auto pr : pm.processes) {
            pr.rank = rank;
            om.processes.push_back(std::move(pr));
        }
        for (auto th : pm.threads) {
            th.rank = rank;
            om.threads.push_back(std::move(th));
        }
        for (auto s : pm.streams) {
            s.device = static_cast<uint16_t>(s.device + dev_off);
            om.streams.push_back(std::move(s));
        }
        auto dev = [dev_off](uint16_t d) { return static_cast<uint16_t>(d + dev_off); };
        auto proc = [proc_off](uint16_t x) { return static_cast<uint16_t>(x + proc_off); };
        auto thr = [thr_off](uint32_t x) { return x + thr_off; };
        auto api = [api_off](int32_t a) { return a == kNoIndex ? kNoIndex : a + api_off; };

        // Graph-replayed kernels joined to their capture: kernel and op_args rows move by what the parts before hold.
        {
            const auto k_off = static_cast<uint32_t>(out.kernels.size());
            const auto o_off = static_cast<int32_t>(out.op_args.size());
            const GraphOpTable& g = p.graph_ops;
            for (size_t j = 0; j < g.size(); ++j)
                out.graph_ops.append(g.kernel[j] + k_off, g.op[j] == kNoIndex ? kNoIndex : g.op[j] + o_off,
                                     str(g.chain[j]), str(g.module[j]));
            om.captures.insert(om.captures.end(), pm.captures.begin(), pm.captures.end());
        }
        // Kernels.
        {
            auto& o = out.kernels;
            const auto& k = p.kernels;
            append_mapped(o.start, k.start, t);
            append_mapped(o.end, k.end, t);
            append_mapped(o.name, k.name, str);
            append_mapped(o.short_name, k.short_name, str);
            append_all(o.correlation, k.correlation);
            append_mapped(o.launch_api, k.launch_api, api);
            append_mapped(o.device, k.device, dev);
            append_mapped(o.process, k.process, proc);
            append_all(o.stream, k.stream);
            std::vector<uint32_t> shape_ids(k.shapes.size());
            for (size_t s = 0; s < k.shapes.size(); ++s)
                shape_ids[s] = o.intern_shape(k.shapes[s]);
            append_mapped(o.shape, k.shape, [&](uint32_t s) { return shape_ids[s]; });
            append_all(o.flags, k.flags);
            if (any_launch_stats) {
                const bool has = k.blocks_per_sm.size() == k.size();
                auto fill = [&](std::vector<float>& dst, const std::vector<float>& src) {
                    if (has)
                        append_all(dst, src);
                    else
                        dst.insert(dst.end(), k.size(), NAN);
                };
                fill(o.blocks_per_sm, k.blocks_per_sm);
                fill(o.warps_per_sm, k.warps_per_sm);
                fill(o.est_occupancy_pct, k.est_occupancy_pct);
            }
        }
        // Copies and sets.
        {
            auto& o = out.memcpy;
            const auto& m = p.memcpy;
            append_mapped(o.start, m.start, t);
            append_mapped(o.end, m.end, t);
            append_all(o.bytes, m.bytes);
            append_all(o.copy_kind, m.copy_kind);
            append_all(o.src_kind, m.src_kind);
            append_all(o.dst_kind, m.dst_kind);
            append_mapped(o.device, m.device, dev);
            append_mapped(o.process, m.process, proc);
            append_all(o.stream, m.stream);
            append_all(o.correlation, m.correlation);
            append_mapped(o.launch_api, m.launch_api, api);
        }
        {
            auto& o = out.memset;
            const auto& m = p.memset;
            append_mapped(o.start, m.start, t);
            append_mapped(o.end, m.end, t);
            append_all(o.bytes, m.bytes);
            append_all(o.mem_kind, m.mem_kind);
            append_mapped(o.device, m.device, dev);
            append_mapped(o.process, m.process, proc);
            append_all(o.stream, m.stream);
            append_all(o.correlation, m.correlation);
            append_mapped(o.launch_api, m.launch_api, api);
        }
        // API calls and syncs.
        {
            auto& o = out.api;
            const auto& a = p.api;
            append_mapped(o.start, a.start, t);
            append_mapped(o.end, a.end, t);
            append_mapped(o.name, a.name, str);
            append_all(o.correlation, a.correlation);
            append_mapped(o.thread, a.thread, thr);
            append_all(o.api_class, a.api_class);
            append_all(o.flags, a.flags);
        }
        {
            auto& o = out.syncs;
            const auto& s = p.syncs;
            append_mapped(o.start, s.start, t);
            append_mapped(o.end, s.end, t);
            append_mapped(o.device, s.device, dev);
            append_mapped(o.process, s.process, proc);
            append_all(o.stream, s.stream);
            append_all(o.correlation, s.correlation);
            append_all(o.sync_type, s.sync_type);
            append_mapped(o.api, s.api, api);
        }
        // Host ranges, marks, GPU ranges.
        {
            auto& o = out.ranges;
            const auto& r = p.ranges;
            append_mapped(o.start, r.start, t);
            append_mapped(o.end, r.end, t);
            append_mapped(o.name, r.name, str);
            append_mapped(o.thread, r.thread, thr);
            append_all(o.kind, r.kind);
            append_all(o.depth, r.depth);   // nesting is per thread, and threads stay distinct
        }
        {
            auto& o = out.marks;
            const auto& mk = p.marks;
            append_mapped(o.time, mk.time, t);
            append_mapped(o.name, mk.name, str);
            append_mapped(o.thread, mk.thread, thr);
        }
        {
            auto& o = out.gpu_ranges;
            const auto& g = p.gpu_ranges;
            append_mapped(o.start, g.start, t);
            append_mapped(o.end, g.end, t);
            append_mapped(o.name, g.name, str);
            append_mapped(o.device, g.device, dev);
            append_all(o.stream, g.stream);
        }
        {
            auto& o = out.op_args;
            const auto& a = p.op_args;
            append_all(o.source, a.source);
            append_mapped(o.start, a.start, t);
            append_mapped(o.end, a.end, t);
            append_mapped(o.name, a.name, str);
            o.rank.insert(o.rank.end(), a.size(), rank);
            append_all(o.pid, a.pid);
            append_all(o.external_id, a.external_id);
            append_all(o.correlation, a.correlation);
            append_all(o.input_dims, a.input_dims);
            append_all(o.input_types, a.input_types);
            append_all(o.concrete_inputs, a.concrete_inputs);
            append_all(o.collective, a.collective);
            append_all(o.dtype, a.dtype);
            append_all(o.pg_name, a.pg_name);
            append_all(o.pg_ranks, a.pg_ranks);
            append_all(o.in_nelems, a.in_nelems);
            append_all(o.out_nelems, a.out_nelems);
            append_all(o.group_size, a.group_size);
        }
    }
    if (lo <= hi) {
        om.capture_start = lo;
        om.capture_end = hi;
    }
    return out;
}

} // namespace sl
