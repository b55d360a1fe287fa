#include "analysis/critpath/critpath_summary.h"
#include "analysis/critpath/path_prep.h"
#include "analysis/critpath/steady_path.h"
#include "analysis/critpath/path_times_batch.h"

#include <algorithm>

namespace sl::critpath {

namespace {

std::string_view event_name(const Trace& t, EventKind k, uint32_t row)
{
    switch (k) {
    case EventKind::CpuOp: return t.str(t.ranges.name[row]);
    case EventKind::Api: return t.str(t.api.name[row]);
    case EventKind::Kernel: return t.str(t.kernels.name[row]);
    case EventKind::Memcpy: return copy_kind_label(t.memcpy.copy_kind[row]);
    case EventKind::Memset: return "[CUDA memset]";
    }
    return {};
}

int64_t launch_start(const Trace& t, EventKind k, uint32_t row)
{
    int32_t a = kNoIndex;
    if (k == EventKind::Kernel) a = t.kernels.launch_api[row];
    else if (k == EventKind::Memcpy) a = t.memcpy.launch_api[row];
    else if (k == EventKind::Memset) a = t.memset.launch_api[row];
    return a == kNoIndex ? INT64_MAX : t.api.start[static_cast<size_t>(a)];
}

} // namespace

std::vector<int32_t> step_of_event(const DependencyGraph& g, const Trace& trace, const std::vector<StepInfo>& steps)
{
    std::vector<int32_t> w(g.events(), -1);
    if (steps.empty())
        return w;
    std::vector<uint32_t> by_start(steps.size());
    for (uint32_t i = 0; i < steps.size(); ++i)
        by_start[i] = i;
    std::sort(by_start.begin(), by_start.end(), [&](uint32_t a, uint32_t b) {
        return steps[a].start != steps[b].start ? steps[a].start < steps[b].start : a < b;
    });
    // GPU ops: the step whose GPU window holds their start; each step's host window opens at its first launch.
    std::vector<int64_t> host_begin(steps.size(), INT64_MAX);
    // Events come mostly in time order: the step found last (or the next one) is tried before a binary search.
    std::vector<int64_t> step_start(by_start.size());
    for (size_t i = 0; i < by_start.size(); ++i)
        step_start[i] = steps[by_start[i]].start;
    auto last_at_or_before = [](const std::vector<int64_t>& v, int64_t ts, size_t& hint) -> int64_t {
        for (size_t h = hint; h < hint + 2 && h < v.size(); ++h)
            if (v[h] <= ts && (h + 1 == v.size() || v[h + 1] > ts))
                return static_cast<int64_t>(hint = h);
        const auto it = std::upper_bound(v.begin(), v.end(), ts);
        if (it == v.begin())
            return -1;
        hint = static_cast<size_t>(it - v.begin()) - 1;
        return static_cast<int64_t>(hint);
    };
    size_t hint = 0;
    for (size_t ev = g.cpu_events; ev < g.events(); ++ev) {
        const int64_t ts = g.node_ts[2 * ev];
        const int64_t at = last_at_or_before(step_start, ts, hint);
        if (at < 0)
            continue;
        const uint32_t st = by_start[static_cast<size_t>(at)];
        if (ts >= steps[st].end)
            continue;
        w[ev] = static_cast<int32_t>(st);
        host_begin[st] = std::min(host_begin[st], launch_start(trace, g.event_kind[ev], g.event_row[ev]));
    }
    // CPU events: from a step's first launch to the next step's (the last step's: to its GPU end).
    std::vector<std::pair<int64_t, uint32_t>> opens;
    for (uint32_t i = 0; i < steps.size(); ++i)
        if (host_begin[i] != INT64_MAX)
            opens.push_back({host_begin[i], i});
    std::sort(opens.begin(), opens.end());
    if (opens.empty())
        return w;
    std::vector<int64_t> open_ts(opens.size());
    for (size_t i = 0; i < opens.size(); ++i)
        open_ts[i] = opens[i].first;
    hint = 0;
    for (size_t ev = 0; ev < g.cpu_events; ++ev) {
        const int64_t ts = g.node_ts[2 * ev];
        // The last open at or before ts (of equal opens, the last: upper_bound on (ts, UINT32_MAX) as before).
        const int64_t at = last_at_or_before(open_ts, ts, hint);
        if (at < 0)
            continue;
        const auto k = static_cast<size_t>(at);
        const int64_t close = k + 1 < opens.size() ? opens[k + 1].first : steps[opens[k].second].end;
        if (ts < close)
            w[ev] = static_cast<int32_t>(opens[k].second);
    }
    return w;
}

CriticalPathSummary summarise_critical_path(const Trace& trace, const OpClassResult* classes,
                                            const GraphOptions& options, size_t top,
                                            const std::vector<StepInfo>* steps)
{
    return summarise_critical_path(trace, build_dependency_graph(trace, options), classes, options, top, steps);
}

CriticalPathSummary summarise_critical_path(const Trace& trace, const DependencyGraph& g, const OpClassResult* classes,
                                            const GraphOptions& options, size_t top,
                                            const std::vector<StepInfo>* steps)
{
    return summarise_critical_path(trace, g, nullptr, classes, options, top, steps);
}

CriticalPathSummary summarise_critical_path(const Trace& trace, const DependencyGraph& g, PathPrep* prep,
                                            const OpClassResult* classes, const GraphOptions& options, size_t top,
                                            const std::vector<StepInfo>* steps)
{
    CriticalPathSummary s;
    PathOptions po;
    if (classes && classes->kernel_class.size() == trace.kernels.size()) {
        po.kernel_class = &classes->kernel_class;
        po.class_count = classes->classes.size();
        for (size_t i = 0; i < classes->classes.size(); ++i) {
            s.class_ids.push_back(classes->classes[i].id);
            if (classes->classes[i].id == "communication")
                po.communication_class = static_cast<int>(i);
        }
    }
    if (s.class_ids.empty()) {
        po.class_count = 1;
        s.class_ids.push_back("all");
    }
    std::vector<int32_t> window;
    const size_t windows = steps ? steps->size() : 0;
    if (windows)
        window = step_of_event(g, trace, *steps);
    std::vector<CriticalPath> paths = longest_path_and_windows(g, prep, window, windows, po);
    std::vector<int32_t>().swap(window);
    // Path time per event of every path (the steps' and the whole one) with one scratch array.
    std::vector<std::vector<PathEntry>> times = path_times_batch(g, paths);
    const CriticalPath& p = paths.back();
    s.computed = true;
    s.window_begin = options.begin;
    s.window_end = options.end;
    s.length_ns = p.length_ns;
    s.graph_events = static_cast<int64_t>(g.events());
    s.graph_edges = static_cast<int64_t>(g.edges());
    s.path_nodes = static_cast<int64_t>(p.nodes.size());
    {
        // Distinct events on the path (CriticalPath::events().size() without sorting the whole path's nodes).
        std::vector<uint8_t> seen(g.events(), 0);
        int64_t distinct = 0;
        for (uint32_t n : p.nodes)
            if (!seen[n / 2]) {
                seen[n / 2] = 1;
                ++distinct;
            }
        s.path_events = distinct;
    }
    s.shares = p.shares;
    s.event_waits_inferred = g.event_waits_inferred;
    s.unordered_nodes = p.unordered_nodes;
    // Path time by (kind, name): names are interned, so the key is the StrId (memcpy: its copy kind).
    struct Acc {
        EventKind kind;
        uint32_t row;
        int64_t ns = 0, count = 0;
    };
    // One slot per (kind, name id), indexed densely: the whole path holds millions of entries but few names.
    std::vector<PathEntry> whole = std::move(times.back());
    std::vector<Acc> acc;
    std::vector<int32_t> slot_of[5];
    for (const PathEntry& e : whole) {
        uint32_t id = 0;
        switch (e.kind) {
        case EventKind::CpuOp: id = trace.ranges.name[e.row]; break;
        case EventKind::Api: id = trace.api.name[e.row]; break;
        case EventKind::Kernel: id = trace.kernels.name[e.row]; break;
        case EventKind::Memcpy: id = static_cast<uint32_t>(trace.memcpy.copy_kind[e.row]); break;
        case EventKind::Memset: id = 0; break;
        }
        std::vector<int32_t>& slots = slot_of[static_cast<size_t>(e.kind)];
        if (id >= slots.size())
            slots.resize(static_cast<size_t>(id) + 1, -1);
        if (slots[id] < 0) {
            slots[id] = static_cast<int32_t>(acc.size());
            acc.push_back(Acc{e.kind, e.row});
        }
        Acc& a = acc[static_cast<size_t>(slots[id])];
        a.ns += e.ns;
        ++a.count;
    }
    std::sort(acc.begin(), acc.end(), [&](const Acc& x, const Acc& y) {
        if (x.ns != y.ns) return x.ns > y.ns;
        if (x.kind != y.kind) return x.kind < y.kind;
        return event_name(trace, x.kind, x.row) < event_name(trace, y.kind, y.row);
    });
    if (acc.size() > top)
        acc.resize(top);
    for (const Acc& a : acc)
        s.top.push_back({event_kind_name(a.kind), std::string(event_name(trace, a.kind, a.row)), a.ns, a.count});
    for (size_t i = 0; i < windows; ++i) {
        const StepInfo& si = (*steps)[i];
        StepPath sp;
        sp.step = static_cast<int32_t>(i);
        sp.length_ns = paths[i].length_ns;
        sp.nodes = static_cast<int64_t>(paths[i].nodes.size());
        sp.shares = std::move(paths[i].shares);
        sp.steady = !si.prefill && !si.warmup;
        sp.events = std::move(times[i]);
        s.steps.push_back(std::move(sp));
    }
    if (windows == 0)
        s.events = std::move(whole);
    return s;
}
nlohmann::json to_json(const CriticalPathSummary& s)
{
    using nlohmann::json;
    if (!s.computed)
        return json(nullptr);
    const double len = static_cast<double>(s.length_ns);
    auto share = [&](int64_t ns) { return json{{"ns", ns}, {"fraction", len > 0 ? static_cast<double>(ns) / len : 0.0}}; };
    json shares = {
        {"host", share(s.shares.host_ns)},
        {"launch", share(s.shares.launch_ns)},
        {"gpu_kernels", share(s.shares.gpu_kernel_ns)},
        {"memcpy_memset", share(s.shares.memcpy_memset_ns)},
        {"communication", share(s.shares.communication_ns)},
        {"gpu_gap", share(s.shares.gpu_gap_ns)},
    };
    json by_class = json::object();
    for (size_t i = 0; i < s.shares.kernel_class_ns.size() && i < s.class_ids.size(); ++i)
        if (s.shares.kernel_class_ns[i] > 0)
            by_class[s.class_ids[i]] = share(s.shares.kernel_class_ns[i]);
    json top = json::array();
    for (const TopEntry& t : s.top)
        top.push_back({{"kind", t.kind}, {"name", t.name}, {"ns", t.ns}, {"count", t.count},
                       {"fraction", len > 0 ? static_cast<double>(t.ns) / len : 0.0}});
    auto flat = [&](const PathShares& sh, int64_t length) {
        auto f = [&](int64_t ns) { return length > 0 ? static_cast<double>(ns) / static_cast<double>(length) : 0.0; };
        return json{{"host_ns", sh.host_ns}, {"launch_ns", sh.launch_ns}, {"gpu_kernels_ns", sh.gpu_kernel_ns},
                    {"memcpy_memset_ns", sh.memcpy_memset_ns}, {"communication_ns", sh.communication_ns},
                    {"gpu_gap_ns", sh.gpu_gap_ns}, {"host_fraction", f(sh.host_ns)},
                    {"launch_fraction", f(sh.launch_ns)}, {"gpu_kernels_fraction", f(sh.gpu_kernel_ns)},
                    {"sync_edges", sh.sync_edges}, {"sync_host_blocked_ns", sh.sync_blocked_ns}};
    };
    json steps = json::array();
    for (const StepPath& sp : s.steps) {
        json o = flat(sp.shares, sp.length_ns);
        o["step"] = sp.step;
        o["length_ns"] = sp.length_ns;
        o["nodes"] = sp.nodes;
        o["steady"] = sp.steady;
        steps.push_back(std::move(o));
    }
    json steady_json = nullptr;
    if (const SteadyPath sp = steady_path(s); sp.per_step) {
        steady_json = flat(sp.shares, sp.total_ns);
        steady_json["steps"] = sp.steps;
        steady_json["length_ns"] = sp.total_ns;
        steady_json["median_step_length_ns"] = sp.median_ns;
    }
    return json{{"length_ns", s.length_ns},
                {"nodes", s.path_nodes},
                {"events", s.path_events},
                {"graph_events", s.graph_events},
                {"graph_edges", s.graph_edges},
                {"shares", shares},
                {"gpu_kernels_by_class", by_class},
                {"sync", {{"edges", s.shares.sync_edges}, {"host_blocked_ns", s.shares.sync_blocked_ns}}},
                {"event_waits_inferred", s.event_waits_inferred},
                {"top", top},
                {"steps", steps},
                {"steady_state", steady_json}};
}

} // namespace sl::critpath
