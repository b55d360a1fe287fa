#include "analysis/critpath/critical_path.h"
#include "analysis/trace/cancel_point.h"

#include <algorithm>
#include <unordered_map>

namespace sl::critpath {

std::vector<uint32_t> CriticalPath::events() const
{
    std::vector<uint32_t> v;
    v.reserve(nodes.size());
    for (uint32_t n : nodes)
        v.push_back(n / 2);
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    return v;
}

namespace {

constexpr uint32_t kNoEdge = UINT32_MAX;

// Offsets and edge ids grouped by `key` (src or dst), each group in edge insertion order (a stable counting sort).
void group_edges(const std::vector<uint32_t>& key, size_t nodes, std::vector<uint32_t>& offset,
                 std::vector<uint32_t>& ids)
{
    offset.assign(nodes + 1, 0);
    for (uint32_t k : key)
        ++offset[k + 1];
    for (size_t i = 0; i < nodes; ++i)
        offset[i + 1] += offset[i];
    ids.resize(key.size());
    std::vector<uint32_t> fill(offset.begin(), offset.end() - 1);
    for (uint32_t e = 0; e < key.size(); ++e)
        ids[fill[key[e]]++] = e;
}

// The event an edge's time belongs to (see PathEntry).
uint32_t attributed_event(const DependencyGraph& g, uint32_t e)
{
    const uint32_t s = g.edge_src[e], d = g.edge_dst[e];
    switch (g.edge_kind[e]) {
    case EdgeKind::Launch: return s / 2;
    case EdgeKind::KernelGap:
    case EdgeKind::Graph: return s / 2;
    default: break;
    }
    if (s % 2 == 0) return s / 2;     // from a start: inside that event
    if (d % 2 == 1) return d / 2;     // end -> end: unwinding into the outer event
    // end -> start: between two children, in their parent (HTA's case 4).
    if (d / 2 < g.cpu_events && g.cpu_parent[d / 2] != UINT32_MAX) return g.cpu_parent[d / 2];
    return s / 2;
}

} // namespace

namespace {

void add_shares(const DependencyGraph& g, CriticalPath& p, const PathOptions& options)
{
    PathShares& s = p.shares;
    const std::vector<int16_t>* cls = options.kernel_class;
    size_t classes = options.class_count;
    if (classes == 0) {
        classes = 1;
        if (cls)
            for (int16_t c : *cls)
                classes = std::max(classes, static_cast<size_t>(std::max<int16_t>(c, 0)) + 1);
    }
    s.kernel_class_ns.assign(classes, 0);
    for (uint32_t e : p.edges) {
        const int64_t w = g.weight(e);
        const uint32_t src_ev = g.edge_src[e] / 2, dst_ev = g.edge_dst[e] / 2;
        switch (g.edge_kind[e]) {
        case EdgeKind::Launch: s.launch_ns += w; break;
        case EdgeKind::KernelGap:
        case EdgeKind::Graph: s.gpu_gap_ns += w; break;
        case EdgeKind::Sync: {
            ++s.sync_edges;
            const uint32_t d = g.edge_dst[e];
            if (d % 2 == 1 && g.event_kind[dst_ev] == EventKind::Api)
                s.sync_blocked_ns += g.node_ts[d] - g.node_ts[d - 1];
            break;
        }
        case EdgeKind::Dependency: break;
        case EdgeKind::Span: {
            const EventKind k = g.event_kind[src_ev];
            if (!is_gpu(k)) {
                s.host_ns += w;
            } else if (k == EventKind::Kernel) {
                s.gpu_kernel_ns += w;
                const uint32_t row = g.event_row[src_ev];
                int c = cls && row < cls->size() ? (*cls)[row] : 0;
                if (c < 0 || static_cast<size_t>(c) >= classes)
                    c = 0;
                s.kernel_class_ns[static_cast<size_t>(c)] += w;
                if (c == options.communication_class)
                    s.communication_ns += w;
            } else {
                s.memcpy_memset_ns += w;
            }
            break;
        }
        }
    }
}

// One pass for the whole graph and every window: nodes in Kahn's generations over the whole graph (the sources in
// time order, then successors as their last predecessor is done); a node's length is final when it is taken, and it
// relaxes its out-edges (for a window: those that stay in its window). Of equal candidates the edge inserted first
// wins, which is the predecessor networkx's dag_longest_path keeps (the first of the best in G.pred order); a path
// ends at the first node (in that order) of greatest length. Returns the windows' paths, then the whole graph's when
// `whole` is set.
std::vector<CriticalPath> longest_paths(const DependencyGraph& g, const std::vector<int32_t>* window, size_t windows,
                                        bool whole, const PathOptions& options)
{
    if (!window)
        windows = 0;
    std::vector<CriticalPath> paths(windows + (whole ? 1 : 0));
    const size_t n = g.nodes();
    if (n == 0 || paths.empty())
        return paths;
    std::vector<uint32_t> out_off, out_ids;
    group_edges(g.edge_src, n, out_off, out_ids);
    std::vector<uint32_t> order;
    order.reserve(n);
    std::vector<uint32_t> indegree(n, 0);
    for (uint32_t d : g.edge_dst)
        ++indegree[d];
    for (size_t v = 0; v < n; ++v)
        if (indegree[v] == 0)
            order.push_back(static_cast<uint32_t>(v));
    std::stable_sort(order.begin(), order.end(),
                     [&](uint32_t a, uint32_t b) { return g.node_ts[a] < g.node_ts[b]; });
    struct Dp {
        std::vector<int64_t> dist;
        std::vector<uint32_t> via;
        std::vector<int64_t> best;
        std::vector<uint32_t> best_node;
        void init(size_t nodes, size_t slots)
        {
            dist.assign(nodes, 0);
            via.assign(nodes, kNoEdge);
            best.assign(slots, -1);
            best_node.assign(slots, UINT32_MAX);
        }
        void take(uint32_t v, size_t slot)
        {
            if (dist[v] > best[slot]) {
                best[slot] = dist[v];
                best_node[slot] = v;
            }
        }
        void relax(uint32_t e, uint32_t from, uint32_t to, int64_t w)
        {
            const int64_t c = dist[from] + w;
            if (via[to] == kNoEdge || c > dist[to] || (c == dist[to] && e < via[to])) {
                dist[to] = c;
                via[to] = e;
            }
        }
    };
    Dp all, per;
    if (whole)
        all.init(n, 1);
    if (windows)
        per.init(n, windows);
    for (size_t i = 0; i < order.size(); ++i) {
        cancel_point(i);
        const uint32_t v = order[i];
        const int32_t wv = windows ? (*window)[v / 2] : -1;
        const bool in_window = wv >= 0 && static_cast<size_t>(wv) < windows;
        if (whole)
            all.take(v, 0);
        if (in_window)
            per.take(v, static_cast<size_t>(wv));
        for (uint32_t k = out_off[v]; k < out_off[v + 1]; ++k) {
            const uint32_t e = out_ids[k];
            const uint32_t w = g.edge_dst[e];
            const int64_t wt = g.weight(e);
            if (whole)
                all.relax(e, v, w, wt);
            if (in_window && (*window)[w / 2] == wv)
                per.relax(e, v, w, wt);
            if (--indegree[w] == 0)
                order.push_back(w);
        }
    }
    const auto unordered = static_cast<int64_t>(n - order.size());
    auto trace_back = [&](const Dp& dp, size_t slot, CriticalPath& p) {
        p.unordered_nodes = unordered;
        if (dp.best_node[slot] == UINT32_MAX)
            return;
        p.length_ns = std::max<int64_t>(dp.best[slot], 0);
        for (uint32_t v = dp.best_node[slot];;) {
            p.nodes.push_back(v);
            if (dp.via[v] == kNoEdge)
                break;
            p.edges.push_back(dp.via[v]);
            v = g.edge_src[dp.via[v]];
        }
        std::reverse(p.nodes.begin(), p.nodes.end());
        std::reverse(p.edges.begin(), p.edges.end());
        add_shares(g, p, options);
    };
    for (size_t w = 0; w < windows; ++w)
        trace_back(per, w, paths[w]);
    if (whole)
        trace_back(all, 0, paths[windows]);
    return paths;
}

} // namespace

CriticalPath longest_path(const DependencyGraph& g, const PathOptions& options)
{
    std::vector<CriticalPath> v = longest_paths(g, nullptr, 0, true, options);
    return std::move(v.front());
}

std::vector<CriticalPath> longest_path_per_window(const DependencyGraph& g, const std::vector<int32_t>& event_window,
                                                  size_t windows, const PathOptions& options)
{
    return longest_paths(g, &event_window, windows, false, options);
}

std::vector<CriticalPath> longest_path_and_windows(const DependencyGraph& g, const std::vector<int32_t>& event_window,
                                                   size_t windows, const PathOptions& options)
{
    return longest_paths(g, &event_window, windows, true, options);
}

std::vector<PathEntry> path_times(const DependencyGraph& g, const CriticalPath& p)
{
    // Events in first-seen order with their summed time (a path visits an event's edges close together, but a
    // parent's around its children: an index per event, not a map). A step's path is a small part of the trace's
    // graph: a map then, so that the paths of every step together stay linear in the events.
    std::vector<PathEntry> v;
    auto add = [&](auto& slot_of) {
        for (uint32_t e : p.edges) {
            const int64_t w = g.weight(e);
            if (w <= 0)
                continue;
            const uint32_t ev = attributed_event(g, e);
            uint32_t& slot = slot_of(ev);
            if (slot == UINT32_MAX) {
                slot = static_cast<uint32_t>(v.size());
                v.push_back({g.event_kind[ev], g.event_row[ev], 0});
            }
            v[slot].ns += w;
        }
    };
    if (p.edges.size() * 8 >= g.events()) {
        std::vector<uint32_t> slot(g.events(), UINT32_MAX);
        auto at = [&](uint32_t ev) -> uint32_t& { return slot[ev]; };
        add(at);
    } else {
        std::unordered_map<uint32_t, uint32_t> slot;
        slot.reserve(p.edges.size());
        auto at = [&](uint32_t ev) -> uint32_t& { return slot.try_emplace(ev, UINT32_MAX).first->second; };
        add(at);
    }
    return v;
}

std::vector<PathEntry> path_entries(const DependencyGraph& g, const CriticalPath& p, size_t limit)
{
    std::vector<PathEntry> v = path_times(g, p);
    const auto n = static_cast<std::ptrdiff_t>(std::min(limit, v.size()));
    std::partial_sort(v.begin(), v.begin() + n, v.end(), [](const PathEntry& a, const PathEntry& b) {
        return a.ns != b.ns ? a.ns > b.ns : (a.kind != b.kind ? a.kind < b.kind : a.row < b.row);
    });
    v.resize(static_cast<size_t>(n));
    return v;
}

} // namespace sl::critpath
