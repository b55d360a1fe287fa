#include "analysis/critpath/critical_path.h"

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

// One pass for every window: nodes in Kahn's generations over the whole graph (the sources in time order, then
// successors as their last predecessor is done); a node's length is final when it is taken, and it relaxes the
// out-edges that stay in its window. Of equal candidates the edge inserted first wins, which is the predecessor
// networkx's dag_longest_path keeps (the first of the best in G.pred order); each window's path ends at its first
// node (in that order) of greatest length. window == nullptr: one window, the whole graph.
std::vector<CriticalPath> longest_paths(const DependencyGraph& g, const std::vector<int32_t>* window, size_t windows,
                                        const PathOptions& options)
{
    std::vector<CriticalPath> paths(windows);
    const size_t n = g.nodes();
    if (n == 0 || windows == 0)
        return paths;
    auto win = [&](uint32_t node) -> int32_t { return window ? (*window)[node / 2] : 0; };
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
    std::vector<int64_t> dist(n, 0);
    std::vector<uint32_t> via(n, kNoEdge);
    std::vector<int64_t> best(windows, -1);
    std::vector<uint32_t> best_node(windows, UINT32_MAX);
    for (size_t i = 0; i < order.size(); ++i) {
        const uint32_t v = order[i];
        const int32_t wv = win(v);
        const int64_t d = dist[v];
        if (wv >= 0 && static_cast<size_t>(wv) < windows && d > best[static_cast<size_t>(wv)]) {
            best[static_cast<size_t>(wv)] = d;
            best_node[static_cast<size_t>(wv)] = v;
        }
        for (uint32_t k = out_off[v]; k < out_off[v + 1]; ++k) {
            const uint32_t e = out_ids[k];
            const uint32_t w = g.edge_dst[e];
            if (wv >= 0 && win(w) == wv) {
                const int64_t c = d + g.weight(e);
                if (via[w] == kNoEdge || c > dist[w] || (c == dist[w] && e < via[w])) {
                    dist[w] = c;
                    via[w] = e;
                }
            }
            if (--indegree[w] == 0)
                order.push_back(w);
        }
    }
    const auto unordered = static_cast<int64_t>(n - order.size());
    for (size_t w = 0; w < windows; ++w) {
        CriticalPath& p = paths[w];
        p.unordered_nodes = unordered;
        if (best_node[w] == UINT32_MAX)
            continue;
        p.length_ns = std::max<int64_t>(best[w], 0);
        for (uint32_t v = best_node[w];;) {
            p.nodes.push_back(v);
            if (via[v] == kNoEdge)
                break;
            p.edges.push_back(via[v]);
            v = g.edge_src[via[v]];
        }
        std::reverse(p.nodes.begin(), p.nodes.end());
        std::reverse(p.edges.begin(), p.edges.end());
        add_shares(g, p, options);
    }
    return paths;
}

} // namespace

CriticalPath longest_path(const DependencyGraph& g, const PathOptions& options)
{
    std::vector<CriticalPath> v = longest_paths(g, nullptr, 1, options);
    return std::move(v.front());
}

std::vector<CriticalPath> longest_path_per_window(const DependencyGraph& g, const std::vector<int32_t>& event_window,
                                                  size_t windows, const PathOptions& options)
{
    return longest_paths(g, &event_window, windows, options);
}

std::vector<PathEntry> path_entries(const DependencyGraph& g, const CriticalPath& p, size_t limit)
{
    std::unordered_map<uint32_t, int64_t> by_event;
    for (uint32_t e : p.edges) {
        const int64_t w = g.weight(e);
        if (w > 0)
            by_event[attributed_event(g, e)] += w;
    }
    std::vector<PathEntry> v;
    v.reserve(by_event.size());
    for (const auto& [ev, ns] : by_event)
        v.push_back({g.event_kind[ev], g.event_row[ev], ns});
    std::sort(v.begin(), v.end(), [](const PathEntry& a, const PathEntry& b) {
        return a.ns != b.ns ? a.ns > b.ns : (a.kind != b.kind ? a.kind < b.kind : a.row < b.row);
    });
    if (v.size() > limit)
        v.resize(limit);
    return v;
}

} // namespace sl::critpath
