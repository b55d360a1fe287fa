#include "analysis/critpath/critical_path.h"
#include "analysis/critpath/path_prep.h"
#include "analysis/critpath/path_times_batch.h"
#include "analysis/critpath/two_tasks.h"
#include "analysis/trace/cancel_point.h"

#include <algorithm>
#include <deque>
#include <memory>
#include <stdexcept>

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
//
// Memory (10^7 kernels: 40 M nodes, 40 M edges): the out-edges as CSR and one 32-byte record per node (path_prep.h);
// a node's edges were inserted close together, so their destinations are read from the graph's own column.
using NodeState = PathNode;

std::vector<CriticalPath> longest_paths(const DependencyGraph& g, PathPrep* prep,
                                        const std::vector<int32_t>* window, size_t windows, bool whole,
                                        const PathOptions& options)
{
    if (!window)
        windows = 0;
    std::vector<CriticalPath> paths(windows + (whole ? 1 : 0));
    const size_t n = g.nodes();
    if (n == 0 || paths.empty())
        return paths;
    constexpr uint32_t kZeroBit = PathPrep::kZeroWeightBit;
    std::unique_ptr<PathPrep> own;
    if (!prep) {
        own = prepare_paths(g);
        prep = own.get();
    }
    if (!prep->nodes || prep->node_count != n || prep->out_off.size() < n + 1 || prep->out_edge.size() != g.edges())
        throw std::logic_error("critical path: prepared for another graph, or used up");
    const std::unique_ptr<NodeState[]> st_mem = std::move(prep->nodes);
    NodeState* const st = st_mem.get();
    if (windows) {
        // Each node's window, in two halves.
        run_two_tasks([&](size_t t) {
            for (size_t v = t * n / 2, end = (t + 1) * n / 2; v < end; ++v) {
                const int32_t w = (*window)[v / 2];
                st[v].window = w < 0 || static_cast<size_t>(w) >= windows ? -1 : w;
            }
        });
    }
    const std::vector<uint32_t>& off = prep->out_off;
    const std::vector<uint32_t>& out_e = prep->out_edge;
    // Kahn's queue: the sources in time order, then each node as its last predecessor is taken. Only the ready
    // nodes are held (a few per thread and stream), not the whole order.
    std::deque<uint32_t> ready(prep->sources.begin(), prep->sources.end());
    std::vector<uint32_t>().swap(prep->sources);
    size_t taken = 0;
    int64_t best_all = -1;
    uint32_t best_all_node = UINT32_MAX;
    std::vector<int64_t> best_per(windows, -1);
    std::vector<uint32_t> best_per_node(windows, UINT32_MAX);
    const int64_t* ts = g.node_ts.data();
    const uint32_t* dst = g.edge_dst.data();
    for (; !ready.empty(); ++taken) {
        cancel_point(taken);
        const uint32_t v = ready.front();
        ready.pop_front();
        const NodeState sv = st[v];
        const int32_t wv = sv.window;
        if (whole && sv.dist_all > best_all) {
            best_all = sv.dist_all;
            best_all_node = v;
        }
        if (wv >= 0 && sv.dist_per > best_per[static_cast<size_t>(wv)]) {
            best_per[static_cast<size_t>(wv)] = sv.dist_per;
            best_per_node[static_cast<size_t>(wv)] = v;
        }
        const int64_t tv = ts[v];
        for (uint32_t k = off[v]; k < off[v + 1]; ++k) {
            const uint32_t raw = out_e[k];
            const uint32_t e = raw & ~kZeroBit;
            const uint32_t w = dst[e];
            NodeState& sw = st[w];
            int64_t wt = 0;
            if (!(raw & kZeroBit)) {
                wt = ts[w] - tv;
                if (wt < 0)
                    wt = 0;
            }
            if (whole) {
                const int64_t c = sv.dist_all + wt;
                if (sw.via_all == kNoEdge || c > sw.dist_all || (c == sw.dist_all && e < sw.via_all)) {
                    sw.dist_all = c;
                    sw.via_all = e;
                }
            }
            if (wv >= 0 && sw.window == wv) {
                const int64_t c = sv.dist_per + wt;
                if (sw.via_per == kNoEdge || c > sw.dist_per || (c == sw.dist_per && e < sw.via_per)) {
                    sw.dist_per = c;
                    sw.via_per = e;
                }
            }
            if (--sw.indegree == 0)
                ready.push_back(w);
        }
    }
    // The prep is used up: its out-edges go now, before the paths are written.
    std::vector<uint32_t>().swap(prep->out_off);
    std::vector<uint32_t>().swap(prep->out_edge);
    own.reset();
    const auto unordered = static_cast<int64_t>(n - taken);
    auto trace_back = [&](bool per, int64_t best, uint32_t best_node, CriticalPath& p) {
        p.unordered_nodes = unordered;
        if (best_node == UINT32_MAX)
            return;
        p.length_ns = std::max<int64_t>(best, 0);
        // One walk back (the whole path holds half the graph's nodes at 10^7 kernels: its room is reserved, address
        // space only, so that it is written once rather than regrown), then reversed.
        if (!per) {
            p.nodes.reserve(n);
            p.edges.reserve(n);
        }
        for (uint32_t v = best_node;;) {
            p.nodes.push_back(v);
            const uint32_t via = per ? st[v].via_per : st[v].via_all;
            if (via == kNoEdge)
                break;
            p.edges.push_back(via);
            v = g.edge_src[via];
        }
        std::reverse(p.nodes.begin(), p.nodes.end());
        std::reverse(p.edges.begin(), p.edges.end());
        add_shares(g, p, options);
    };
    // The windows' paths and the whole one are independent: two tasks.
    run_two_tasks([&](size_t t) {
        if (t == 0) {
            for (size_t w = 0; w < windows; ++w)
                trace_back(true, best_per[w], best_per_node[w], paths[w]);
        } else if (whole) {
            trace_back(false, best_all, best_all_node, paths[windows]);
        }
    });
    return paths;
}

} // namespace

std::unique_ptr<PathPrep> prepare_paths(const DependencyGraph& g)
{
    auto prep = std::make_unique<PathPrep>();
    const size_t n = g.nodes(), m = g.edges();
    if (m >= PathPrep::kZeroWeightBit)
        throw std::length_error("critical path: more than 2^31 dependency edges");
    prep->nodes.reset(new PathNode[n]);
    prep->node_count = n;
    PathNode* const st = prep->nodes.get();
    // Two tasks: the out-edges (count, prefix, a stable scatter), and the node records with their in-degrees.
    run_two_tasks([&](size_t t) {
        if (t == 1) {
            for (size_t v = 0; v < n; ++v)
                st[v] = PathNode{0, 0, kNoEdge, kNoEdge, 0, -1};
            for (uint32_t d : g.edge_dst)
                ++st[d].indegree;
            std::vector<uint32_t>& sources = prep->sources;
            for (size_t v = 0; v < n; ++v)
                if (st[v].indegree == 0)
                    sources.push_back(static_cast<uint32_t>(v));
            std::stable_sort(sources.begin(), sources.end(),
                             [&](uint32_t a, uint32_t b) { return g.node_ts[a] < g.node_ts[b]; });
            return;
        }
        std::vector<uint32_t>& off = prep->out_off;
        off.assign(n + 2, 0);
        for (uint32_t k : g.edge_src)
            ++off[k + 2];
        for (size_t i = 2; i < n + 2; ++i)
            off[i] += off[i - 1];
        // The offsets are shifted in place: after the scatter, node v's edges are [off[v], off[v + 1]).
        std::vector<uint32_t>& out = prep->out_edge;
        out.resize(m);
        for (uint32_t e = 0; e < m; ++e) {
            cancel_point(e);
            out[off[g.edge_src[e] + 1]++] = e | (g.edge_zero[e] ? PathPrep::kZeroWeightBit : 0u);
        }
    });
    return prep;
}

CriticalPath longest_path(const DependencyGraph& g, const PathOptions& options)
{
    std::vector<CriticalPath> v = longest_paths(g, nullptr, nullptr, 0, true, options);
    return std::move(v.front());
}

std::vector<CriticalPath> longest_path_per_window(const DependencyGraph& g, const std::vector<int32_t>& event_window,
                                                  size_t windows, const PathOptions& options)
{
    return longest_paths(g, nullptr, &event_window, windows, false, options);
}

std::vector<CriticalPath> longest_path_and_windows(const DependencyGraph& g, const std::vector<int32_t>& event_window,
                                                   size_t windows, const PathOptions& options)
{
    return longest_paths(g, nullptr, &event_window, windows, true, options);
}

std::vector<CriticalPath> longest_path_and_windows(const DependencyGraph& g, PathPrep* prep,
                                                   const std::vector<int32_t>& event_window, size_t windows,
                                                   const PathOptions& options)
{
    return longest_paths(g, prep, &event_window, windows, true, options);
}

namespace {

// Path time per event in first-seen order (a path visits an event's edges close together, but a parent's around its
// children: an index per event). `slot` is all UINT32_MAX on entry and on return, so one scratch array serves every
// path of a graph and the paths of every step together stay linear in the events.
std::vector<PathEntry> path_times_with(const DependencyGraph& g, const CriticalPath& p, std::vector<uint32_t>& slot)
{
    std::vector<PathEntry> v;
    std::vector<uint32_t> touched;
    v.reserve(p.edges.size());         // room, not memory: a path's events are at most its edges
    touched.reserve(p.edges.size());
    for (uint32_t e : p.edges) {
        const int64_t w = g.weight(e);
        if (w <= 0)
            continue;
        const uint32_t ev = attributed_event(g, e);
        uint32_t& s = slot[ev];
        if (s == UINT32_MAX) {
            s = static_cast<uint32_t>(v.size());
            v.push_back({g.event_kind[ev], g.event_row[ev], 0});
            touched.push_back(ev);
        }
        v[s].ns += w;
    }
    for (uint32_t ev : touched)
        slot[ev] = UINT32_MAX;
    return v;
}

} // namespace

std::vector<PathEntry> path_times(const DependencyGraph& g, const CriticalPath& p)
{
    std::vector<uint32_t> slot(g.events(), UINT32_MAX);
    return path_times_with(g, p, slot);
}

std::vector<std::vector<PathEntry>> path_times_batch(const DependencyGraph& g, const std::vector<CriticalPath>& paths)
{
    // Two tasks, each with its scratch array: the last path (the whole graph's, as long as all the others together),
    // and the others.
    std::vector<std::vector<PathEntry>> v(paths.size());
    if (paths.empty())
        return v;
    run_two_tasks([&](size_t t) {
        std::vector<uint32_t> slot(g.events(), UINT32_MAX);
        if (t == 0)
            v.back() = path_times_with(g, paths.back(), slot);
        else
            for (size_t i = 0; i + 1 < paths.size(); ++i)
                v[i] = path_times_with(g, paths[i], slot);
    });
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
