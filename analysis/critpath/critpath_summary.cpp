#include "analysis/critpath/critpath_summary.h"

#include <algorithm>
#include <map>

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

} // namespace

CriticalPathSummary summarise_critical_path(const Trace& trace, const OpClassResult* classes,
                                            const GraphOptions& options, size_t top)
{
    CriticalPathSummary s;
    const DependencyGraph g = build_dependency_graph(trace, options);
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
    const CriticalPath p = longest_path(g, po);
    s.computed = true;
    s.window_begin = options.begin;
    s.window_end = options.end;
    s.length_ns = p.length_ns;
    s.graph_events = static_cast<int64_t>(g.events());
    s.graph_edges = static_cast<int64_t>(g.edges());
    s.path_nodes = static_cast<int64_t>(p.nodes.size());
    s.path_events = static_cast<int64_t>(p.events().size());
    s.shares = p.shares;
    s.event_waits_inferred = g.event_waits_inferred;
    s.unordered_nodes = p.unordered_nodes;
    std::map<std::pair<EventKind, std::string_view>, TopEntry> by_name;
    for (const PathEntry& e : path_entries(g, p, SIZE_MAX)) {
        const std::string_view name = event_name(trace, e.kind, e.row);
        TopEntry& t = by_name[{e.kind, name}];
        if (t.kind.empty()) {
            t.kind = event_kind_name(e.kind);
            t.name = std::string(name);
        }
        t.ns += e.ns;
        ++t.count;
    }
    for (auto& [k, t] : by_name)
        s.top.push_back(std::move(t));
    std::sort(s.top.begin(), s.top.end(), [](const TopEntry& a, const TopEntry& b) {
        return a.ns != b.ns ? a.ns > b.ns : (a.kind != b.kind ? a.kind < b.kind : a.name < b.name);
    });
    if (s.top.size() > top)
        s.top.resize(top);
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
    return json{{"length_ns", s.length_ns},
                {"nodes", s.path_nodes},
                {"events", s.path_events},
                {"graph_events", s.graph_events},
                {"graph_edges", s.graph_edges},
                {"shares", shares},
                {"gpu_kernels_by_class", by_class},
                {"sync", {{"edges", s.shares.sync_edges}, {"host_blocked_ns", s.shares.sync_blocked_ns}}},
                {"event_waits_inferred", s.event_waits_inferred},
                {"top", top}};
}

} // namespace sl::critpath
