#include "analysis/critpath/whatif.h"

#include "analysis/critpath/critpath_summary.h"
#include "analysis/roofline/roofline.h"
#include "analysis/trace/cancel_point.h"
#include "analysis/trace/stats.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <unordered_map>

namespace sl::critpath {

const char* change_kind_name(ChangeKind k)
{
    switch (k) {
    case ChangeKind::CudaGraphs: return "cuda-graphs";
    case ChangeKind::RemoveSync: return "remove-sync";
    case ChangeKind::ClassFaster: return "class";
    case ChangeKind::Fuse: return "fuse";
    case ChangeKind::RemoveRange: return "remove-range";
    case ChangeKind::Comm: return "comm";
    }
    return "?";
}

const char* const kChangeGrammar =
    "cuda-graphs, remove-sync, remove-sync:API, class:NAME=K, fuse:NAME, remove-range:NAME or comm=K "
    "(K a number > 0, NAME an operator class or range name)";

namespace {

bool parse_factor(std::string_view s, double& out)
{
    if (s.empty() || s.size() > 32)
        return false;
    const std::string str(s);
    char* end = nullptr;
    const double v = std::strtod(str.c_str(), &end);
    if (end != str.c_str() + str.size() || !std::isfinite(v) || v <= 0 || v > 1e9)
        return false;
    out = v;
    return true;
}

} // namespace

bool parse_change(std::string_view text, Change& out, std::string& error)
{
    out = Change{};
    out.text = std::string(text);
    const std::string quoted = "'" + std::string(text) + "'";
    auto fail = [&](const std::string& why) {
        error = "--change " + quoted + ": " + why;
        return false;
    };
    auto after = [&](std::string_view prefix) { return text.substr(prefix.size()); };
    if (text == "cuda-graphs") {
        out.kind = ChangeKind::CudaGraphs;
        return true;
    }
    if (text == "remove-sync") {
        out.kind = ChangeKind::RemoveSync;
        return true;
    }
    if (text.rfind("remove-sync:", 0) == 0) {
        out.kind = ChangeKind::RemoveSync;
        out.name = std::string(after("remove-sync:"));
        if (out.name.empty())
            return fail("expected an API name after 'remove-sync:' (e.g. remove-sync:cudaStreamSynchronize)");
        return true;
    }
    if (text.rfind("class:", 0) == 0) {
        out.kind = ChangeKind::ClassFaster;
        const std::string_view rest = after("class:");
        const size_t eq = rest.rfind('=');
        if (eq == std::string_view::npos || eq == 0)
            return fail("expected class:NAME=K, an operator class and how many times faster (e.g. class:gemm=2)");
        out.name = std::string(rest.substr(0, eq));
        if (!parse_factor(rest.substr(eq + 1), out.factor))
            return fail("expected a number K > 0 after '=' (how many times faster), not '" +
                        std::string(rest.substr(eq + 1)) + "'");
        return true;
    }
    if (text.rfind("fuse:", 0) == 0) {
        out.kind = ChangeKind::Fuse;
        out.name = std::string(after("fuse:"));
        if (out.name.empty())
            return fail("expected an operator class after 'fuse:' (e.g. fuse:elementwise)");
        return true;
    }
    if (text.rfind("remove-range:", 0) == 0) {
        out.kind = ChangeKind::RemoveRange;
        out.name = std::string(after("remove-range:"));
        if (out.name.empty())
            return fail("expected a CPU op, NVTX range or runtime call name after 'remove-range:'");
        return true;
    }
    if (text.rfind("comm=", 0) == 0) {
        out.kind = ChangeKind::Comm;
        if (!parse_factor(after("comm="), out.factor))
            return fail("expected a number K > 0 after 'comm=' (collectives K times faster), not '" +
                        std::string(after("comm=")) + "'");
        return true;
    }
    return fail(std::string("not a change; expected ") + kChangeGrammar);
}

std::string change_for_suggestion(std::string_view id)
{
    auto is = [&](std::string_view s) {
        return id == s || (id.size() > s.size() && id.substr(id.size() - s.size()) == s &&
                           id[id.size() - s.size() - 1] == '/');
    };
    if (is("cuda-graphs"))
        return "cuda-graphs";
    if (is("remove-item") || is("remove-syncs"))
        return "remove-sync";
    return {};
}

namespace {

constexpr int64_t kOff = INT64_MIN / 4;   // an edge that does not count in this replay
constexpr uint32_t kNone = UINT32_MAX;

enum class RKind : uint8_t {
    Host,        // a CPU piece or a gap between top-level events on one thread: measured
    Zero,        // ordering only (runtime lock across threads)
    BlockExit,   // last node of a blocking call -> its end: the call's residual after its wait
    SyncHost,    // GPU op end -> end of the host call it held
    GpuSpan,     // GPU op start -> end
    Launch,      // launch call start -> GPU op start
    Stream,      // stream predecessor end -> GPU op start
    GpuSync,     // GPU op end -> GPU op start (event wait)
    GraphLaunch, // cuda-graphs only: the host cost of one graph launch (first launch call of a region)
    GraphStart,  // cuda-graphs only: region's first launch call start -> op start (the graph's launch delay)
};

std::string fmt_ms(int64_t ns)
{
    char b[64];
    const double v = static_cast<double>(ns);
    if (std::llabs(ns) >= 1'000'000)
        std::snprintf(b, sizeof b, "%.3f ms", v / 1e6);
    else
        std::snprintf(b, sizeof b, "%.1f us", v / 1e3);
    return b;
}

int64_t median_of(std::vector<int64_t> v)
{
    if (v.empty())
        return 0;
    return static_cast<int64_t>(std::llround(compute_stats(v).median));
}

// Per thread: sorted, merged [begin, end) intervals of host time a change removes.
struct Cuts {
    std::unordered_map<uint32_t, std::vector<std::pair<int64_t, int64_t>>> by_thread;
    void add(uint32_t th, int64_t b, int64_t e)
    {
        if (e > b)
            by_thread[th].push_back({b, e});
    }
    void finish()
    {
        for (auto& [th, v] : by_thread) {
            std::sort(v.begin(), v.end());
            std::vector<std::pair<int64_t, int64_t>> m;
            for (const auto& iv : v) {
                if (!m.empty() && iv.first <= m.back().second)
                    m.back().second = std::max(m.back().second, iv.second);
                else
                    m.push_back(iv);
            }
            v = std::move(m);
        }
    }
    bool empty() const { return by_thread.empty(); }
    int64_t overlap(uint32_t th, int64_t b, int64_t e) const
    {
        if (e <= b)
            return 0;
        const auto it = by_thread.find(th);
        if (it == by_thread.end())
            return 0;
        const auto& v = it->second;
        auto p = std::upper_bound(v.begin(), v.end(), std::make_pair(b, INT64_MAX));
        if (p != v.begin())
            --p;
        int64_t o = 0;
        for (; p != v.end() && p->first < e; ++p)
            o += std::max<int64_t>(0, std::min(e, p->second) - std::max(b, p->first));
        return o;
    }
};

class Replayer {
public:
    Replayer(const Trace& t, const DependencyGraph& g, const WhatIfInputs& in, const WhatIfOptions& o,
             const GraphOptions& go)
        : t_(t), g_(g), in_(in), o_(o), go_(go)
    {
    }

    WhatIfResult run(const std::vector<Change>& changes);
    // What every change shares, built once: the replay edges, their order and the baseline replay.
    void prepare();
    // The changes on a prepared replayer (it stays prepared: another call may follow, after reset_result()).
    WhatIfResult run_prepared(const std::vector<Change>& changes);
    const WhatIfResult& result() const { return r_; }
    void reset_result(const WhatIfResult& prepared) { r_ = prepared; }

private:
    const Trace& t_;
    const DependencyGraph& g_;
    const WhatIfInputs& in_;
    const WhatIfOptions& o_;
    const GraphOptions& go_;

    // Edges.
    std::vector<uint32_t> src_, dst_;
    std::vector<RKind> kind_;
    std::vector<int64_t> base_;       // baseline weight (kOff: inactive in the baseline)
    std::vector<uint32_t> in_off_, in_ids_;
    std::vector<uint32_t> order_;
    std::vector<uint32_t> pos_;       // node -> its place in order_ (UINT32_MAX: unordered); built when first needed
    int64_t unordered_ = 0;
    size_t shared_ = 0;               // edges every change shares; a change's own are appended after them
    std::vector<int64_t> base_t_;     // the baseline replay

    // Events.
    std::vector<uint32_t> thread_;    // CPU events: thread index
    std::vector<uint32_t> api_ev_;    // api row -> event (kNone)
    std::vector<uint32_t> launch_ev_; // GPU event -> its launch call's event
    std::vector<uint8_t> launch_bound_;
    std::vector<uint32_t> launch_edge_, stream_edge_;   // GPU event -> edge id (kNone)
    std::vector<uint32_t> span_edge_;                  // GPU event -> its span edge
    std::vector<uint8_t> blocking_;   // CPU event is a host-blocking call with a sync edge in
    std::vector<int64_t> wait_end_;   // CPU event: the latest GPU end its sync edges bring (INT64_MIN: none)
    std::vector<int32_t> step_;       // event -> step (-1)
    size_t steps_ = 0;
    bool whole_ = false;              // no steps: the capture is one step

    WhatIfResult r_;

    uint32_t cpu_thread(uint32_t ev) const
    {
        return g_.event_kind[ev] == EventKind::CpuOp ? t_.ranges.thread[g_.event_row[ev]]
                                                     : t_.api.thread[g_.event_row[ev]];
    }
    int32_t launch_row(uint32_t ev) const
    {
        const uint32_t row = g_.event_row[ev];
        switch (g_.event_kind[ev]) {
        case EventKind::Kernel: return t_.kernels.launch_api[row];
        case EventKind::Memcpy: return t_.memcpy.launch_api[row];
        case EventKind::Memset: return t_.memset.launch_api[row];
        default: return kNoIndex;
        }
    }
    uint64_t stream_key(uint32_t ev) const
    {
        const uint32_t row = g_.event_row[ev];
        switch (g_.event_kind[ev]) {
        case EventKind::Kernel: return (uint64_t(t_.kernels.device[row]) << 32) | t_.kernels.stream[row];
        case EventKind::Memcpy: return (uint64_t(t_.memcpy.device[row]) << 32) | t_.memcpy.stream[row];
        case EventKind::Memset: return (uint64_t(t_.memset.device[row]) << 32) | t_.memset.stream[row];
        default: return 0;
        }
    }
    int64_t ts(uint32_t n) const { return g_.node_ts[n]; }
    uint32_t add(uint32_t s, uint32_t d, RKind k, int64_t w)
    {
        src_.push_back(s);
        dst_.push_back(d);
        kind_.push_back(k);
        base_.push_back(w);
        return static_cast<uint32_t>(src_.size() - 1);
    }

    void build();
    void infer_syncs();
    void gpu_edges();
    void finish_edges();
    // ASAP times under weights w; edges from `extra_from` on (appended by a change, not in the in-edge index) are
    // taken by their destination's place in the order, which they must follow (appended_follow_order()).
    std::vector<int64_t> replay(const std::vector<int64_t>& w, size_t extra_from = SIZE_MAX) const;
    bool appended_follow_order();
    void truncate_to_shared();
    std::vector<StepReplay> run_changes(const std::vector<Change>& changes, const std::vector<size_t>& which,
                                        std::vector<ChangeEffect>* effects);

    // A change's weights, from the baseline's (applied in place), with its effect described.
    void apply(const Change& c, std::vector<int64_t>& w, ChangeEffect& fx);
    void apply_cuda_graphs(std::vector<int64_t>& w, ChangeEffect& fx);
    void apply_remove_sync(const Change& c, std::vector<int64_t>& w, ChangeEffect& fx);
    void apply_remove_stream_wait(const Change& c, std::vector<int64_t>& w, ChangeEffect& fx);
    void apply_kernel_factor(const std::vector<double>& factor_of_class, std::vector<int64_t>& w);
    void apply_cuts(const Cuts& cuts, std::vector<int64_t>& w, int64_t& touched) const;

    void measure_graph_constants();
    std::vector<StepReplay> steps_of(const std::vector<int64_t>& base_t, const std::vector<int64_t>& t) const;
};

void Replayer::build()
{
    const size_t events = g_.events();
    thread_.assign(g_.cpu_events, 0);
    api_ev_.assign(t_.api.size(), kNone);
    for (uint32_t ev = 0; ev < g_.cpu_events; ++ev) {
        thread_[ev] = cpu_thread(ev);
        if (g_.event_kind[ev] == EventKind::Api)
            api_ev_[g_.event_row[ev]] = ev;
    }
    launch_ev_.assign(events, kNone);
    launch_bound_.assign(events, 0);
    launch_edge_.assign(events, kNone);
    stream_edge_.assign(events, kNone);
    span_edge_.assign(events, kNone);
    blocking_.assign(g_.cpu_events, 0);
    wait_end_.assign(g_.cpu_events, INT64_MIN);
    for (uint32_t ev = static_cast<uint32_t>(g_.cpu_events); ev < events; ++ev) {
        const int32_t a = launch_row(ev);
        if (a != kNoIndex)
            launch_ev_[ev] = api_ev_[static_cast<size_t>(a)];
    }
    // Room for the graph's edges, a launch and a stream edge per op, and the edges a change appends (cuda-graphs:
    // one per op and one per region): address space until written, so that a change's edges do not move the rest.
    const size_t room = g_.edges() + 3 * events;
    src_.reserve(room);
    dst_.reserve(room);
    kind_.reserve(room);
    base_.reserve(room);
    // The graph's own edges: CPU structure, syncs and GPU spans; launch and stream edges are rebuilt below.
    std::vector<uint32_t> block_exit;   // edge ids of blocking exits (weight set once the waits are known)
    for (size_t e = 0; e < g_.edges(); ++e) {
        cancel_point(e);
        const uint32_t s = g_.edge_src[e], d = g_.edge_dst[e];
        const uint32_t se = s / 2, de = d / 2;
        const int64_t diff = std::max<int64_t>(0, ts(d) - ts(s));
        switch (g_.edge_kind[e]) {
        case EdgeKind::Launch:
            if (!g_.edge_zero[e])
                launch_bound_[de] = 1;
            break;
        case EdgeKind::KernelGap:
        case EdgeKind::Graph: break;
        case EdgeKind::Sync:
            if (de < g_.cpu_events) {
                if (ts(s) > ts(d))
                    break;   // the call ended before the op: it did not hold it
                add(s, d, RKind::SyncHost, 0);
                wait_end_[de] = std::max(wait_end_[de], ts(s));
            } else {
                add(s, d, RKind::GpuSync, diff);
            }
            break;
        case EdgeKind::Span:
            if (se >= g_.cpu_events) {
                span_edge_[se] = add(s, d, RKind::GpuSpan, diff);
            } else if (g_.edge_zero[e]) {
                block_exit.push_back(add(s, d, RKind::BlockExit, diff));
            } else {
                add(s, d, RKind::Host, diff);
            }
            break;
        case EdgeKind::Dependency:
            if (s % 2 == 1 && d % 2 == 0 && se < g_.cpu_events && de < g_.cpu_events && thread_[se] == thread_[de])
                add(s, d, RKind::Host, diff);
            else
                add(s, d, RKind::Zero, 0);
            break;
        }
    }
    infer_syncs();
    // Sync residuals: a held call ends at max(start, wait end) + residual.
    for (size_t e = 0; e < src_.size(); ++e) {
        if (kind_[e] != RKind::SyncHost)
            continue;
        const uint32_t ev = dst_[e] / 2;
        blocking_[ev] = 1;
        base_[e] = std::max<int64_t>(0, ts(dst_[e]) - std::max(wait_end_[ev], ts(2 * ev)));
    }
    for (uint32_t e : block_exit) {
        const uint32_t ev = dst_[e] / 2;
        if (wait_end_[ev] != INT64_MIN)
            base_[e] = std::max<int64_t>(0, ts(dst_[e]) - std::max(wait_end_[ev], ts(src_[e])));
    }
    gpu_edges();
    finish_edges();
}

// Host-blocking calls the trace has no sync row for (Kineto without cuda_sync events): the call waited for the op
// that ends last among those launched on its thread before it, when that op ends before the call does; otherwise
// the wait is kept as measured (syncs_unmatched).
void Replayer::infer_syncs()
{
    std::vector<uint8_t> has_sync(g_.cpu_events, 0);
    for (size_t e = 0; e < src_.size(); ++e)
        if (kind_[e] == RKind::SyncHost)
            has_sync[dst_[e] / 2] = 1;
    // Per launch call (a CPU event): the op of its that ends last (kNone: none).
    std::vector<uint32_t> last_op_of_call(g_.cpu_events, kNone);
    for (uint32_t ev = static_cast<uint32_t>(g_.cpu_events); ev < g_.events(); ++ev) {
        const uint32_t call = launch_ev_[ev];
        if (call == kNone)
            continue;
        uint32_t& last = last_op_of_call[call];
        if (last == kNone || ts(2 * ev + 1) > ts(2 * last + 1))
            last = ev;
    }
    // API events per thread in start order: the running latest-ending launched op.
    std::vector<uint32_t> calls;
    for (uint32_t ev = 0; ev < g_.cpu_events; ++ev)
        if (g_.event_kind[ev] == EventKind::Api)
            calls.push_back(ev);
    std::sort(calls.begin(), calls.end(), [&](uint32_t a, uint32_t b) {
        if (thread_[a] != thread_[b]) return thread_[a] < thread_[b];
        return ts(2 * a) != ts(2 * b) ? ts(2 * a) < ts(2 * b) : a < b;
    });
    uint32_t cur_thread = kNone, latest = kNone;
    for (size_t i = 0; i < calls.size(); ++i) {
        cancel_point(i);
        const uint32_t ev = calls[i];
        if (thread_[ev] != cur_thread) {
            cur_thread = thread_[ev];
            latest = kNone;
        }
        if (const uint32_t op = last_op_of_call[ev]; op != kNone)
            if (latest == kNone || ts(2 * op + 1) > ts(2 * latest + 1))
                latest = op;
        const size_t row = g_.event_row[ev];
        if (!(t_.api.flags[row] & kApiSync) || has_sync[ev])
            continue;
        if (latest != kNone && ts(2 * latest + 1) <= ts(2 * ev + 1)) {
            add(2 * latest + 1, 2 * ev + 1, RKind::SyncHost, 0);
            wait_end_[ev] = std::max(wait_end_[ev], ts(2 * latest + 1));
            ++r_.syncs_inferred;
        } else if (latest != kNone) {
            ++r_.syncs_unmatched;
        }
    }
    // A call given a wait above keeps its exit edge as a blocking exit: make the exit edges of those calls BlockExit.
    for (size_t e = 0; e < src_.size(); ++e) {
        const uint32_t d = dst_[e];
        if (kind_[e] == RKind::Host && d % 2 == 1 && d / 2 < g_.cpu_events && !has_sync[d / 2] &&
            wait_end_[d / 2] != INT64_MIN && (src_[e] / 2 == d / 2 || src_[e] % 2 == 1))
            kind_[e] = RKind::BlockExit;
    }
    for (size_t e = 0; e < src_.size(); ++e)
        if (kind_[e] == RKind::BlockExit) {
            const uint32_t ev = dst_[e] / 2;
            if (wait_end_[ev] != INT64_MIN)
                base_[e] = std::max<int64_t>(0, ts(dst_[e]) - std::max(wait_end_[ev], ts(src_[e])));
        }
}

void Replayer::gpu_edges()
{
    // Medians of the launch delay of ops launched onto a free stream, and of the gap of queued ops.
    std::vector<uint32_t> ops;
    for (uint32_t ev = static_cast<uint32_t>(g_.cpu_events); ev < g_.events(); ++ev)
        if (launch_ev_[ev] != kNone)
            ops.push_back(ev);
    std::stable_sort(ops.begin(), ops.end(), [&](uint32_t a, uint32_t b) {
        const uint64_t ka = stream_key(a), kb = stream_key(b);
        if (ka != kb) return ka < kb;
        return ts(2 * a) < ts(2 * b);
    });
    std::vector<int64_t> delays, gaps;
    for (size_t i = 0; i < ops.size(); ++i) {
        const uint32_t ev = ops[i];
        const bool graph = t_.api.flags[g_.event_row[launch_ev_[ev]]] & kApiGraphLaunch;
        if (graph)
            continue;
        if (launch_bound_[ev])
            delays.push_back(std::max<int64_t>(0, ts(2 * ev) - ts(2 * launch_ev_[ev])));
        else if (i > 0 && stream_key(ops[i - 1]) == stream_key(ev) && ts(2 * ev) > ts(2 * ops[i - 1] + 1))
            gaps.push_back(ts(2 * ev) - ts(2 * ops[i - 1] + 1));   // (overlaps, a dependent launch's, left out)
    }
    r_.launch_delay_ns = delays.empty() ? o_.default_launch_delay_ns : median_of(std::move(delays));
    r_.queued_gap_ns = gaps.empty() ? o_.default_queued_gap_ns : median_of(std::move(gaps));
    for (size_t i = 0; i < ops.size(); ++i) {
        cancel_point(i);
        const uint32_t ev = ops[i];
        const uint32_t call = launch_ev_[ev];
        const int64_t delay = std::max<int64_t>(0, ts(2 * ev) - ts(2 * call));
        launch_edge_[ev] = add(2 * call, 2 * ev, RKind::Launch,
                               launch_bound_[ev] ? delay : std::min(delay, r_.launch_delay_ns));
        if (i > 0 && stream_key(ops[i - 1]) == stream_key(ev)) {
            const uint32_t prev = ops[i - 1];
            // May be negative: an op that overlaps its predecessor (programmatic dependent launch) keeps its overlap.
            const int64_t gap = ts(2 * ev) - ts(2 * prev + 1);
            stream_edge_[ev] = add(2 * prev + 1, 2 * ev, RKind::Stream,
                                   launch_bound_[ev] ? std::min(gap, r_.queued_gap_ns) : gap);
            if (!launch_bound_[ev] && gap >= go_.kernel_gap_max_ns)
                ++r_.unknown_dependencies;
        }
    }
}

void Replayer::finish_edges()
{
    const size_t n = g_.nodes();
    in_off_.assign(n + 1, 0);
    for (uint32_t d : dst_)
        ++in_off_[d + 1];
    for (size_t i = 0; i < n; ++i)
        in_off_[i + 1] += in_off_[i];
    in_ids_.resize(dst_.size());
    {
        std::vector<uint32_t> fill(in_off_.begin(), in_off_.end() - 1);
        for (uint32_t e = 0; e < dst_.size(); ++e)
            in_ids_[fill[dst_[e]]++] = e;
    }
    std::vector<uint32_t> out_off(n + 1, 0), out_ids(src_.size());
    for (uint32_t s : src_)
        ++out_off[s + 1];
    for (size_t i = 0; i < n; ++i)
        out_off[i + 1] += out_off[i];
    {
        std::vector<uint32_t> fill(out_off.begin(), out_off.end() - 1);
        for (uint32_t e = 0; e < src_.size(); ++e)
            out_ids[fill[src_[e]]++] = e;
    }
    std::vector<uint32_t> indeg(n, 0);
    for (uint32_t d : dst_)
        ++indeg[d];
    order_.clear();
    order_.reserve(n);
    for (uint32_t v = 0; v < n; ++v)
        if (indeg[v] == 0)
            order_.push_back(v);
    for (size_t i = 0; i < order_.size(); ++i) {
        cancel_point(i);
        const uint32_t v = order_[i];
        for (uint32_t k = out_off[v]; k < out_off[v + 1]; ++k)
            if (--indeg[dst_[out_ids[k]]] == 0)
                order_.push_back(dst_[out_ids[k]]);
    }
    unordered_ = static_cast<int64_t>(n - order_.size());
}

std::vector<int64_t> Replayer::replay(const std::vector<int64_t>& w, size_t extra_from) const
{
    std::vector<int64_t> t(g_.node_ts.begin(), g_.node_ts.end());   // unordered nodes keep their times
    std::vector<uint32_t> extra;
    for (size_t e = extra_from; e < src_.size(); ++e)
        if (w[e] != kOff)
            extra.push_back(static_cast<uint32_t>(e));
    std::stable_sort(extra.begin(), extra.end(), [&](uint32_t a, uint32_t b) { return pos_[dst_[a]] < pos_[dst_[b]]; });
    size_t k = 0;
    for (size_t i = 0; i < order_.size(); ++i) {
        cancel_point(i);
        const uint32_t v = order_[i];
        int64_t best = INT64_MIN;
        for (uint32_t j = in_off_[v]; j < in_off_[v + 1]; ++j) {
            const uint32_t e = in_ids_[j];
            if (w[e] == kOff)
                continue;
            best = std::max(best, t[src_[e]] + w[e]);
        }
        for (; k < extra.size() && pos_[dst_[extra[k]]] == i; ++k)
            best = std::max(best, t[src_[extra[k]]] + w[extra[k]]);
        if (best != INT64_MIN)
            t[v] = best;
    }
    return t;
}

// True when every appended edge goes from an earlier node to a later one in the shared edges' order: the order
// stays topological with them, and the replay takes them beside the in-edge index instead of rebuilding both (a
// change's edges, e.g. cuda-graphs' graph launch -> op, parallel paths the shared edges already have).
bool Replayer::appended_follow_order()
{
    if (pos_.empty()) {
        pos_.assign(g_.nodes(), UINT32_MAX);
        for (size_t i = 0; i < order_.size(); ++i)
            pos_[order_[i]] = static_cast<uint32_t>(i);
    }
    for (size_t e = shared_; e < src_.size(); ++e) {
        const uint32_t a = pos_[src_[e]], b = pos_[dst_[e]];
        if (a == UINT32_MAX || b == UINT32_MAX || a >= b)
            return false;
    }
    return true;
}

void Replayer::truncate_to_shared()
{
    src_.resize(shared_);
    dst_.resize(shared_);
    kind_.resize(shared_);
    base_.resize(shared_);
}

void Replayer::apply_cuts(const Cuts& cuts, std::vector<int64_t>& w, int64_t& touched) const
{
    if (cuts.empty())
        return;
    for (size_t e = 0; e < src_.size(); ++e) {
        cancel_point(e);
        const RKind k = kind_[e];
        if (k != RKind::Host && k != RKind::BlockExit && k != RKind::SyncHost)
            continue;
        if (w[e] <= 0)
            continue;
        const uint32_t ev = dst_[e] / 2;
        const int64_t hi = ts(dst_[e]);
        const int64_t lo = hi - w[e];   // the piece this edge's weight stands for: the last w ns before its end
        const int64_t cut = cuts.overlap(thread_[ev], lo, hi);
        if (cut > 0) {
            w[e] -= cut;
            ++touched;
        }
    }
}

void Replayer::measure_graph_constants()
{
    r_.graph_node_gap_ns = o_.graph_node_gap_ns;
    r_.graph_launch_base_ns = o_.graph_launch_base_ns;
    r_.graph_launch_per_node_ns = o_.graph_launch_per_node_ns;
    r_.graph_constants_source = "decode-graph (H100) measurements (WhatIfOptions)";
    // Graph replays in the trace itself: gaps between consecutive nodes of one launch, and the call's host cost per
    // node.
    std::unordered_map<uint32_t, int64_t> nodes_of_call;
    std::vector<int64_t> gaps;
    uint32_t prev = kNone;
    std::vector<uint32_t> ops;
    for (uint32_t ev = static_cast<uint32_t>(g_.cpu_events); ev < g_.events(); ++ev)
        if (launch_ev_[ev] != kNone && (t_.api.flags[g_.event_row[launch_ev_[ev]]] & kApiGraphLaunch))
            ops.push_back(ev);
    std::stable_sort(ops.begin(), ops.end(), [&](uint32_t a, uint32_t b) {
        const uint64_t ka = stream_key(a), kb = stream_key(b);
        return ka != kb ? ka < kb : ts(2 * a) < ts(2 * b);
    });
    for (uint32_t ev : ops) {
        ++nodes_of_call[launch_ev_[ev]];
        if (prev != kNone && launch_ev_[prev] == launch_ev_[ev] && stream_key(prev) == stream_key(ev))
            gaps.push_back(std::max<int64_t>(0, ts(2 * ev) - ts(2 * prev + 1)));
        prev = ev;
    }
    std::vector<int64_t> per_node;
    for (const auto& [call, nodes] : nodes_of_call)
        if (nodes >= 8)
            per_node.push_back((ts(2 * call + 1) - ts(2 * call)) / nodes);
    if (gaps.size() >= 16 && per_node.size() >= 2) {
        int64_t sum = 0;
        for (int64_t x : gaps)
            sum += x;
        r_.graph_node_gap_ns = sum / static_cast<int64_t>(gaps.size());
        r_.graph_launch_base_ns = 0;
        r_.graph_launch_per_node_ns = median_of(std::move(per_node));
        r_.graph_constants_source = "this trace's own graph replays";
    }
}

void Replayer::apply_cuda_graphs(std::vector<int64_t>& w, ChangeEffect& fx)
{
    measure_graph_constants();
    // Regions: per (step, launching thread), first launch start .. last launch end of the step's eager ops.
    struct Region {
        int64_t begin = INT64_MAX, end = INT64_MIN;
        uint32_t first_call = kNone;
        int64_t ops = 0;
    };
    std::map<std::pair<int32_t, uint32_t>, Region> regions;
    std::vector<Region*> region_of(g_.events(), nullptr);   // map nodes stay put
    std::pair<int32_t, uint32_t> last_key{-1, kNone};        // ops come in runs of one step and thread
    Region* last = nullptr;
    int64_t graph_ops = 0;
    for (uint32_t ev = static_cast<uint32_t>(g_.cpu_events); ev < g_.events(); ++ev) {
        cancel_point(ev);
        const uint32_t call = launch_ev_[ev];
        if (call == kNone)
            continue;
        if (t_.api.flags[g_.event_row[call]] & kApiGraphLaunch) {
            ++graph_ops;
            continue;
        }
        const int32_t st = whole_ ? 0 : step_[ev];
        if (st < 0)
            continue;
        const auto key = std::make_pair(st, thread_[call]);
        if (!last || key != last_key) {
            last = &regions[key];
            last_key = key;
        }
        Region& r = *last;
        if (ts(2 * call) < r.begin) {
            r.begin = ts(2 * call);
            r.first_call = call;
        }
        r.end = std::max(r.end, ts(2 * call + 1));
        ++r.ops;
        region_of[ev] = &r;
    }
    Cuts cuts;
    for (const auto& [key, r] : regions)
        cuts.add(key.second, r.begin, r.end);
    cuts.finish();
    int64_t host_pieces = 0;
    const std::vector<int64_t> before = w;
    apply_cuts(cuts, w, host_pieces);
    int64_t removed = 0;
    for (size_t e = 0; e < w.size(); ++e)
        if (w[e] != kOff && before[e] != kOff)
            removed += before[e] - w[e];
    // Syncs inside a region: a graph cannot hold them; they stay (the graph would be split there).
    int64_t inner_syncs = 0;
    for (uint32_t ev = 0; ev < g_.cpu_events; ++ev)
        if (blocking_[ev] && cuts.overlap(thread_[ev], ts(2 * ev), ts(2 * ev) + 1) > 0)
            ++inner_syncs;
    // One graph launch per region: its host cost on the first call, and every op of the region starts after the
    // graph's launch delay from that call at the earliest, then in stream order with graph-node gaps.
    int64_t launches = 0, ops_changed = 0;
    for (const auto& [key, r] : regions) {
        if (r.first_call == kNone)
            continue;
        ++launches;
        const int64_t cost = r_.graph_launch_base_ns + r_.graph_launch_per_node_ns * r.ops;
        const uint32_t e = add(2 * r.first_call, 2 * r.first_call + 1, RKind::GraphLaunch, kOff);
        w.push_back(cost);
        (void)e;
    }
    for (uint32_t ev = static_cast<uint32_t>(g_.cpu_events); ev < g_.events(); ++ev) {
        if (!region_of[ev])
            continue;
        const Region& r = *region_of[ev];
        ++ops_changed;
        if (launch_edge_[ev] != kNone)
            w[launch_edge_[ev]] = kOff;
        add(2 * r.first_call, 2 * ev, RKind::GraphStart, kOff);
        w.push_back(r_.launch_delay_ns);
        if (const uint32_t se = stream_edge_[ev]; se != kNone && w[se] != kOff)
            w[se] = std::min(ts(dst_[se]) - ts(src_[se]), r_.graph_node_gap_ns);
    }
    fx.events_changed = ops_changed + host_pieces;
    fx.changed = std::to_string(launches) + " graph launch(es) replace " + std::to_string(ops_changed) +
                 " eager launches (" + std::to_string(regions.size()) + " step(s) x launching thread): " +
                 fmt_ms(removed) + " of host time between each step's first and last launch removed, each graph "
                 "launch costing " + fmt_ms(r_.graph_launch_base_ns) + " + " + fmt_ms(r_.graph_launch_per_node_ns) +
                 " per node on the host; ops start " + fmt_ms(r_.launch_delay_ns) +
                 " after the graph launch at the earliest (this trace's median launch delay), then in stream order "
                 "with gaps of at most " + fmt_ms(r_.graph_node_gap_ns) + " (graph-node gap, " +
                 r_.graph_constants_source + ")";
    fx.kept = {"kernel, copy and set durations (a kernel may run faster or slower once captured: not modelled)",
               "stream order and cross-stream event waits",
               "host work before each step's first launch and after its last (sampling, Python loop, syncs)",
               "host syncs (the host still waits for the GPU where the trace shows it waiting)"};
    if (graph_ops)
        fx.kept.push_back(std::to_string(graph_ops) + " ops already replayed from CUDA graphs, as they were");
    if (inner_syncs)
        fx.unknown.push_back(std::to_string(inner_syncs) +
                             " host-blocking call(s) lie between a step's launches: a graph cannot hold them, so the "
                             "replay keeps their waits (the step would need one graph per stretch between them)");
    if (regions.empty())
        fx.unknown.push_back("no eager launch to capture: nothing changed");
    else if (whole_)
        fx.unknown.push_back("no steps found: the whole capture is taken as one step in one graph, so all host work "
                             "between its first and last launch goes, which overstates what one graph can hold");
}

void Replayer::apply_remove_sync(const Change& c, std::vector<int64_t>& w, ChangeEffect& fx)
{
    if (c.name.find("StreamWaitEvent") != std::string::npos)
        return apply_remove_stream_wait(c, w, fx);
    std::set<std::string> names;
    int64_t calls = 0, edges = 0, host_ns = 0, wait_ns = 0;
    std::vector<uint8_t> removed(g_.cpu_events, 0);
    for (uint32_t ev = 0; ev < g_.cpu_events; ++ev) {
        if (g_.event_kind[ev] != EventKind::Api)
            continue;
        const size_t row = g_.event_row[ev];
        const bool sync = blocking_[ev] || (t_.api.flags[row] & kApiSync);
        if (!sync)
            continue;
        const std::string_view name = t_.str(t_.api.name[row]);
        names.insert(std::string(name));
        if (!c.name.empty() && name != c.name)
            continue;
        removed[ev] = 1;
        ++calls;
        host_ns += ts(2 * ev + 1) - ts(2 * ev);
        if (wait_end_[ev] != INT64_MIN)
            wait_ns += std::max<int64_t>(0, std::min(wait_end_[ev], ts(2 * ev + 1)) - ts(2 * ev));
    }
    if (!c.name.empty() && calls == 0) {
        std::string list;
        for (const auto& n : names)
            list += (list.empty() ? "" : ", ") + n;
        if (list.empty())
            list = "none, the trace has no host sync";
        throw WhatIfError("--change '" + c.text + "': the trace has no host-blocking call named '" + c.name +
                          "' (expected one of: " + list + ")");
    }
    for (size_t e = 0; e < src_.size(); ++e) {
        const uint32_t d = dst_[e];
        if (d / 2 >= g_.cpu_events || !removed[d / 2] || d % 2 == 0)
            continue;
        if (kind_[e] == RKind::SyncHost) {
            w[e] = kOff;
            ++edges;
        } else if (kind_[e] == RKind::BlockExit || (kind_[e] == RKind::Host && src_[e] / 2 == d / 2)) {
            if (w[e] != kOff)
                w[e] = 0;
        }
    }
    fx.events_changed = calls;
    fx.changed = std::to_string(calls) + " host-blocking call(s)" + (c.name.empty() ? "" : " named " + c.name) +
                 " removed: " + std::to_string(edges) + " GPU -> host wait(s) dropped, " + fmt_ms(host_ns) +
                 " of call time (of which " + fmt_ms(wait_ns) + " waiting for the GPU) gone";
    fx.kept = {"the copies a sync read back (the D2H copy of .item() still runs on the GPU)",
               "every GPU duration and the host's other work"};
    if (calls == 0)
        fx.unknown.push_back("the trace has no host-blocking call: nothing changed");
    if (r_.syncs_unmatched)
        fx.unknown.push_back(std::to_string(r_.syncs_unmatched) +
                             " host-blocking call(s) whose stream the trace does not record waited for no op "
                             "launched before them on their thread: their wait is kept as measured");
}

// remove-sync:cudaStreamWaitEvent: an event wait across streams removed. Every GPU -> GPU wait edge (the op a
// cudaStreamWaitEvent held on the waiting stream, after the op before the event's record) is dropped, and the calls'
// host time with them. The op that waited then starts after its launch (the median launch delay, as any op whose
// launch did not bound it) and its stream predecessor (at most the median queued gap: the measured gap held the wait).
void Replayer::apply_remove_stream_wait(const Change& c, std::vector<int64_t>& w, ChangeEffect& fx)
{
    std::vector<uint8_t> removed(g_.cpu_events, 0);
    int64_t calls = 0, host_ns = 0;
    for (uint32_t ev = 0; ev < g_.cpu_events; ++ev)
        if (g_.event_kind[ev] == EventKind::Api && t_.str(t_.api.name[g_.event_row[ev]]) == c.name) {
            removed[ev] = 1;
            ++calls;
            host_ns += ts(2 * ev + 1) - ts(2 * ev);
        }
    if (calls == 0)
        throw WhatIfError("--change '" + c.text + "': the trace has no call named '" + c.name + "'");
    int64_t waits = 0;
    std::vector<uint8_t> waited(g_.events(), 0);
    for (size_t e = 0; e < src_.size(); ++e) {
        const uint32_t d = dst_[e];
        if (kind_[e] == RKind::GpuSync) {
            if (w[e] != kOff)
                ++waits;
            w[e] = kOff;
            waited[d / 2] = 1;
        } else if (kind_[e] == RKind::Host && d / 2 < g_.cpu_events && removed[d / 2] && src_[e] / 2 == d / 2) {
            if (w[e] != kOff)
                w[e] = 0;
        }
    }
    for (uint32_t ev = static_cast<uint32_t>(g_.cpu_events); ev < g_.events(); ++ev)
        if (waited[ev] && stream_edge_[ev] != kNone && w[stream_edge_[ev]] != kOff)
            w[stream_edge_[ev]] = std::min(w[stream_edge_[ev]], r_.queued_gap_ns);
    fx.events_changed = calls;
    fx.changed = std::to_string(calls) + " call(s) named " + c.name + " removed: " + std::to_string(waits) +
                 " GPU -> GPU event wait(s) across streams dropped, " + fmt_ms(host_ns) + " of call time gone";
    fx.kept = {"every GPU duration and the order of each stream", "the host's other work and its syncs"};
    fx.unknown.push_back("whether the two streams' work may really overlap: the replay lets the waiting op start as "
                         "soon as its launch and its own stream allow");
    if (g_.event_waits_inferred > 0)
        fx.unknown.push_back(std::to_string(g_.event_waits_inferred) +
                             " event wait(s) were matched to their record by thread order (the trace does not name "
                             "the record)");
    if (waits == 0)
        fx.unknown.push_back("no event wait held a GPU op in this trace: nothing to drop");
}

void Replayer::apply_kernel_factor(const std::vector<double>& factor_of_class, std::vector<int64_t>& w)
{
    if (!in_.classes)
        return;
    const auto& kc = in_.classes->kernel_class;
    for (uint32_t ev = static_cast<uint32_t>(g_.cpu_events); ev < g_.events(); ++ev) {
        if (g_.event_kind[ev] != EventKind::Kernel || span_edge_[ev] == kNone)
            continue;
        const uint32_t row = g_.event_row[ev];
        if (row >= kc.size() || kc[row] < 0 || static_cast<size_t>(kc[row]) >= factor_of_class.size())
            continue;
        const double f = factor_of_class[static_cast<size_t>(kc[row])];
        if (f != 1.0 && w[span_edge_[ev]] != kOff)
            w[span_edge_[ev]] = static_cast<int64_t>(std::llround(static_cast<double>(w[span_edge_[ev]]) * f));
    }
}

void Replayer::apply(const Change& c, std::vector<int64_t>& w, ChangeEffect& fx)
{
    fx.change = c;
    auto class_index = [&](const std::string& name) -> int {
        if (!in_.classes || in_.classes->classes.empty())
            throw WhatIfError("--change '" + c.text + "': the trace's kernels were not classified into operator "
                              "classes, so class " + name + " cannot be found");
        std::string list;
        for (size_t i = 0; i < in_.classes->classes.size(); ++i) {
            if (in_.classes->classes[i].id == name)
                return static_cast<int>(i);
            list += (i ? ", " : "") + in_.classes->classes[i].id;
        }
        throw WhatIfError("--change '" + c.text + "': no operator class '" + name + "' (expected one of: " + list +
                          ")");
    };
    auto class_stats = [&](int ci, double f, int64_t& kernels, int64_t& ns) {
        kernels = ns = 0;
        const auto& kc = in_.classes->kernel_class;
        for (uint32_t ev = static_cast<uint32_t>(g_.cpu_events); ev < g_.events(); ++ev)
            if (g_.event_kind[ev] == EventKind::Kernel && g_.event_row[ev] < kc.size() && kc[g_.event_row[ev]] == ci) {
                ++kernels;
                ns += ts(2 * ev + 1) - ts(2 * ev);
            }
        (void)f;
    };
    const size_t nclasses = in_.classes ? in_.classes->classes.size() : 0;
    switch (c.kind) {
    case ChangeKind::CudaGraphs: apply_cuda_graphs(w, fx); break;
    case ChangeKind::RemoveSync: apply_remove_sync(c, w, fx); break;
    case ChangeKind::ClassFaster:
    case ChangeKind::Comm: {
        int ci = -1;
        if (c.kind == ChangeKind::ClassFaster) {
            ci = class_index(c.name);
        } else {
            for (size_t i = 0; i < nclasses; ++i)
                if (in_.classes->classes[i].id == "communication")
                    ci = static_cast<int>(i);
            if (ci < 0)
                throw WhatIfError("--change '" + c.text + "': the operator classes have no 'communication' class");
        }
        std::vector<double> f(nclasses, 1.0);
        f[static_cast<size_t>(ci)] = 1.0 / c.factor;
        apply_kernel_factor(f, w);
        int64_t k = 0, ns = 0;
        class_stats(ci, c.factor, k, ns);
        fx.events_changed = k;
        char b[64];
        std::snprintf(b, sizeof b, "%g", c.factor);
        fx.changed = std::to_string(k) + " kernel(s) of class " + in_.classes->classes[static_cast<size_t>(ci)].id +
                     " (" + fmt_ms(ns) + ") " + b + "x faster";
        fx.kept = {"every other kernel's duration, the host's work, launches and syncs"};
        if (k == 0)
            fx.unknown.push_back("the trace has no kernel of this class: nothing changed");
        break;
    }
    case ChangeKind::Fuse: {
        const int ci = class_index(c.name);
        if (!in_.roofline || !in_.roofline->measured)
            throw WhatIfError("--change '" + c.text + "': fusing needs the Roofline's floor for class " + c.name +
                              ": pass --config config.json (the model's config) so the trace's Roofline is computed");
        // The phase of the steady steps (decode unless every step is prefill).
        std::string phase = "decode";
        if (in_.phases && in_.phases->decode_steps == 0 && in_.phases->prefill_steps > 0)
            phase = "prefill";
        const ClassEfficiency* row = nullptr;
        for (const ClassEfficiency& ce : in_.roofline->classes)
            if (ce.op_class == c.name && ce.phase == phase)
                row = &ce;
        std::vector<double> f(nclasses, 1.0);
        std::string how;
        if (row && !row->chain.empty() && row->chain_theory_ns && row->chain_actual_ns && *row->chain_actual_ns > 0) {
            const double k = std::min(1.0, *row->chain_theory_ns / *row->chain_actual_ns);
            for (const std::string& cls : row->chain)
                for (size_t i = 0; i < nclasses; ++i)
                    if (in_.classes->classes[i].id == cls)
                        f[i] = k;
            std::string list;
            for (const std::string& cls : row->chain)
                list += (list.empty() ? "" : ", ") + cls;
            how = "fused as the unfused elementwise chain (" + list + ") to the chain's " + phase + " floor: " +
                  fmt_ms(std::llround(*row->chain_actual_ns)) + " -> " + fmt_ms(std::llround(*row->chain_theory_ns)) +
                  " per pass";
        } else if (row && row->t_theory_ns && row->t_actual_ns && *row->t_actual_ns > 0) {
            f[static_cast<size_t>(ci)] = std::min(1.0, *row->t_theory_ns / *row->t_actual_ns);
            how = "class " + c.name + " fused to its " + phase + " Roofline floor: " +
                  fmt_ms(std::llround(*row->t_actual_ns)) + " -> " + fmt_ms(std::llround(*row->t_theory_ns)) +
                  " per pass";
        } else {
            std::string list;
            for (const ClassEfficiency& ce : in_.roofline->classes)
                if (ce.phase == phase && ce.t_theory_ns && ce.t_actual_ns)
                    list += (list.empty() ? "" : ", ") + ce.op_class;
            throw WhatIfError("--change '" + c.text + "': the Roofline gives no " + phase + " floor for class " +
                              c.name + ", so it cannot say what fusing it buys (classes with a floor: " +
                              (list.empty() ? std::string("none") : list) + ")");
        }
        apply_kernel_factor(f, w);
        int64_t k = 0, ns = 0;
        for (size_t i = 0; i < nclasses; ++i)
            if (f[i] != 1.0) {
                int64_t k1 = 0, ns1 = 0;
                class_stats(static_cast<int>(i), f[i], k1, ns1);
                k += k1;
                ns += ns1;
            }
        fx.events_changed = k;
        fx.changed = how + " (" + std::to_string(k) + " kernels scaled)";
        fx.kept = {"the launches of the fused kernels (a fused kernel is launched once: not modelled, so the host "
                   "side is kept)",
                   "every other kernel's duration"};
        break;
    }
    case ChangeKind::RemoveRange: {
        Cuts cuts;
        int64_t found = 0, total = 0;
        for (size_t i = 0; i < t_.ranges.size(); ++i)
            if (t_.str(t_.ranges.name[i]) == c.name) {
                cuts.add(t_.ranges.thread[i], t_.ranges.start[i], t_.ranges.end[i]);
                ++found;
                total += t_.ranges.end[i] - t_.ranges.start[i];
            }
        for (size_t i = 0; i < t_.api.size(); ++i)
            if (t_.str(t_.api.name[i]) == c.name) {
                cuts.add(t_.api.thread[i], t_.api.start[i], t_.api.end[i]);
                ++found;
                total += t_.api.end[i] - t_.api.start[i];
            }
        if (!found)
            throw WhatIfError("--change '" + c.text + "': the trace has no CPU op, NVTX range or runtime call named '" +
                              c.name + "' (names match exactly)");
        cuts.finish();
        int64_t pieces = 0;
        const std::vector<int64_t> before = w;
        apply_cuts(cuts, w, pieces);
        int64_t removed = 0;
        for (size_t e = 0; e < w.size(); ++e)
            if (w[e] != kOff && before[e] != kOff)
                removed += before[e] - w[e];
        fx.events_changed = found;
        fx.changed = std::to_string(found) + " range(s)/call(s) named " + c.name + " (" + fmt_ms(total) +
                     "): " + fmt_ms(removed) + " of host time inside them removed";
        fx.kept = {"the GPU work they launched (launched at once)", "waits for the GPU inside them"};
        break;
    }
    }
}

std::vector<StepReplay> Replayer::steps_of(const std::vector<int64_t>& base_t, const std::vector<int64_t>& t) const
{
    std::vector<StepReplay> out;
    if (whole_) {
        int64_t lo = INT64_MAX, hi = INT64_MIN, blo = INT64_MAX, bhi = INT64_MIN, mlo = INT64_MAX, mhi = INT64_MIN;
        for (size_t n = 0; n < t.size(); ++n) {
            lo = std::min(lo, t[n]);
            hi = std::max(hi, t[n]);
            blo = std::min(blo, base_t[n]);
            bhi = std::max(bhi, base_t[n]);
            mlo = std::min(mlo, g_.node_ts[n]);
            mhi = std::max(mhi, g_.node_ts[n]);
        }
        if (t.empty())
            return out;
        StepReplay s;
        s.step = -1;
        s.steady = true;
        s.measured_ns = mhi - mlo;
        s.baseline_replay_ns = bhi - blo;
        s.changed_replay_ns = hi - lo;
        s.predicted_ns = std::max<int64_t>(0, s.measured_ns + s.changed_replay_ns - s.baseline_replay_ns);
        out.push_back(s);
        return out;
    }
    const auto& steps = in_.phases->steps;
    std::vector<int64_t> base_end(steps_, INT64_MIN), end(steps_, INT64_MIN);
    for (uint32_t ev = static_cast<uint32_t>(g_.cpu_events); ev < g_.events(); ++ev) {
        const int32_t st = step_[ev];
        if (st < 0)
            continue;
        base_end[static_cast<size_t>(st)] = std::max(base_end[static_cast<size_t>(st)], base_t[2 * ev + 1]);
        end[static_cast<size_t>(st)] = std::max(end[static_cast<size_t>(st)], t[2 * ev + 1]);
    }
    std::vector<uint32_t> by_start(steps_);
    for (uint32_t i = 0; i < steps_; ++i)
        by_start[i] = i;
    std::stable_sort(by_start.begin(), by_start.end(),
                     [&](uint32_t a, uint32_t b) { return steps[a].start < steps[b].start; });
    int64_t prev_base = INT64_MIN, prev = INT64_MIN;
    for (uint32_t i : by_start) {
        if (base_end[i] == INT64_MIN)
            continue;
        const StepInfo& si = steps[i];
        StepReplay s;
        s.step = static_cast<int32_t>(i);
        s.steady = si.decode_dominated() && !si.prefill && !si.warmup;
        s.measured_ns = si.wall_ns;
        const int64_t pb = prev_base == INT64_MIN ? si.start : prev_base;
        const int64_t pc = prev == INT64_MIN ? si.start : prev;
        s.baseline_replay_ns = base_end[i] - pb;
        s.changed_replay_ns = end[i] - pc;
        s.predicted_ns = std::max<int64_t>(0, s.measured_ns + s.changed_replay_ns - s.baseline_replay_ns);
        prev_base = base_end[i];
        prev = end[i];
        out.push_back(s);
    }
    return out;
}

struct Summary {
    int64_t median = 0, lo = 0, hi = 0, count = 0;
};

Summary summarise(const std::vector<StepReplay>& steps, int64_t StepReplay::*field, bool& all_steps)
{
    std::vector<int64_t> v;
    for (const StepReplay& s : steps)
        if (s.steady)
            v.push_back(s.*field);
    all_steps = v.empty();
    if (v.empty())
        for (const StepReplay& s : steps)
            v.push_back(s.*field);
    Summary r;
    if (v.empty())
        return r;
    r.count = static_cast<int64_t>(v.size());
    r.lo = *std::min_element(v.begin(), v.end());
    r.hi = *std::max_element(v.begin(), v.end());
    r.median = median_of(std::move(v));
    return r;
}

void Replayer::prepare()
{
    whole_ = !in_.phases || in_.phases->steps.empty();
    if (!whole_) {
        steps_ = in_.phases->steps.size();
        step_ = step_of_event(g_, t_, in_.phases->steps);
    } else {
        step_.assign(g_.events(), 0);
    }
    build();
    r_.graph_events = static_cast<int64_t>(g_.events());
    r_.graph_edges = static_cast<int64_t>(g_.edges());
    r_.replay_edges = static_cast<int64_t>(src_.size());
    base_t_ = replay(base_);
    for (size_t n = 0; n < base_t_.size(); ++n)
        if (base_t_[n] != g_.node_ts[n])
            ++r_.unexplained_nodes;
    shared_ = src_.size();
}

// The changes `which` together. Edges a change adds (cuda-graphs) are appended after the shared ones and dropped
// after the replay; when they do not follow the shared order, the order is rebuilt with them, then without.
std::vector<StepReplay> Replayer::run_changes(const std::vector<Change>& changes, const std::vector<size_t>& which,
                                              std::vector<ChangeEffect>* effects)
{
    truncate_to_shared();
    std::vector<int64_t> w = base_;
    for (size_t i : which) {
        ChangeEffect fx;
        apply(changes[i], w, fx);
        if (effects)
            effects->push_back(std::move(fx));
    }
    std::vector<int64_t> t;
    if (src_.size() == shared_) {
        t = replay(w);
    } else if (appended_follow_order()) {
        t = replay(w, shared_);
    } else {
        finish_edges();
        pos_.clear();
        t = replay(w);
        truncate_to_shared();
        finish_edges();
    }
    truncate_to_shared();
    return steps_of(base_t_, t);
}

WhatIfResult Replayer::run(const std::vector<Change>& changes)
{
    prepare();
    return run_prepared(changes);
}

WhatIfResult Replayer::run_prepared(const std::vector<Change>& changes)
{
    std::vector<size_t> all(changes.size());
    for (size_t i = 0; i < all.size(); ++i)
        all[i] = i;
    r_.steps = run_changes(changes, all, &r_.changes);
    bool all_steps = false;
    const Summary measured = summarise(r_.steps, &StepReplay::measured_ns, all_steps);
    const Summary base = summarise(r_.steps, &StepReplay::baseline_replay_ns, all_steps);
    const Summary pred = summarise(r_.steps, &StepReplay::predicted_ns, all_steps);
    r_.step_source = whole_ ? "capture" : all_steps ? "all_steps" : "steps";
    r_.steady_steps = measured.count;
    r_.baseline_step_ns = measured.median;
    r_.baseline_replay_step_ns = base.median;
    r_.predicted_step_ns = pred.median;
    r_.predicted_lo_ns = pred.lo;
    r_.predicted_hi_ns = pred.hi;
    for (const StepReplay& s : r_.steps)
        if ((s.steady || all_steps) && s.measured_ns > 0)
            r_.baseline_replay_max_error =
                std::max(r_.baseline_replay_max_error,
                         std::fabs(static_cast<double>(s.baseline_replay_ns - s.measured_ns)) /
                             static_cast<double>(s.measured_ns));
    for (size_t i = 0; i < changes.size(); ++i) {
        if (changes.size() == 1) {
            r_.changes[i].alone_step_ns = pred.median;
            r_.changes[i].alone_lo_ns = pred.lo;
            r_.changes[i].alone_hi_ns = pred.hi;
            continue;
        }
        bool a = false;
        const Summary s = summarise(run_changes(changes, {i}, nullptr), &StepReplay::predicted_ns, a);
        r_.changes[i].alone_step_ns = s.median;
        r_.changes[i].alone_lo_ns = s.lo;
        r_.changes[i].alone_hi_ns = s.hi;
    }
    r_.kept = {"GPU durations of every op no change names, measured per step (the range is their spread across the "
               "steady steps)",
               "host work between events (Python, framework) where no change removes it",
               "the trace's own launch delays, stream gaps and sync wake-ups"};
    if (r_.unknown_dependencies)
        r_.kept.push_back(std::to_string(r_.unknown_dependencies) +
                          " queued op(s) that started over " + fmt_ms(go_.kernel_gap_max_ns) +
                          " after their stream predecessor for a reason the trace does not record: that gap is kept");
    return r_;
}

} // namespace

WhatIfResult replay_what_if(const Trace& trace, const DependencyGraph& g, const std::vector<Change>& changes,
                            const WhatIfInputs& inputs, const WhatIfOptions& options, const GraphOptions& graph_options)
{
    return Replayer(trace, g, inputs, options, graph_options).run(changes);
}

std::vector<EachReplay> replay_each(const Trace& trace, const DependencyGraph& g, const std::vector<Change>& changes,
                                    const WhatIfInputs& inputs, const WhatIfOptions& options,
                                    const GraphOptions& graph_options)
{
    std::vector<EachReplay> out(changes.size());
    if (changes.empty())
        return out;
    Replayer replayer(trace, g, inputs, options, graph_options);
    replayer.prepare();
    const WhatIfResult prepared = replayer.result();
    for (size_t i = 0; i < changes.size(); ++i) {
        replayer.reset_result(prepared);
        try {
            out[i].result = replayer.run_prepared({changes[i]});
        } catch (const WhatIfError& e) {
            out[i].error = e.what();
        }
    }
    return out;
}

nlohmann::json to_json(const WhatIfResult& r)
{
    using nlohmann::json;
    auto frac = [&](int64_t ns) {
        const auto base = static_cast<double>(r.baseline_step_ns);
        return base > 0 ? static_cast<double>(ns - r.baseline_step_ns) / base : 0.0;
    };
    json changes = json::array();
    for (const ChangeEffect& c : r.changes) {
        json o = {{"change", c.change.text},
                  {"kind", change_kind_name(c.change.kind)},
                  {"changed", c.changed},
                  {"kept", c.kept},
                  {"unknown", c.unknown},
                  {"events_changed", c.events_changed},
                  {"alone_step_ns", c.alone_step_ns},
                  {"alone_range_ns", json::array({c.alone_lo_ns, c.alone_hi_ns})},
                  {"alone_change_fraction", frac(c.alone_step_ns)}};
        if (!c.change.name.empty())
            o["name"] = c.change.name;
        if (c.change.kind == ChangeKind::ClassFaster || c.change.kind == ChangeKind::Comm)
            o["factor"] = c.change.factor;
        if (c.change.kind == ChangeKind::CudaGraphs)
            o["constants"] = {{"graph_node_gap_ns", r.graph_node_gap_ns},
                              {"graph_launch_base_ns", r.graph_launch_base_ns},
                              {"graph_launch_per_node_ns", r.graph_launch_per_node_ns},
                              {"launch_delay_ns", r.launch_delay_ns},
                              {"source", r.graph_constants_source}};
        changes.push_back(std::move(o));
    }
    json steps = json::array();
    for (const StepReplay& s : r.steps)
        steps.push_back({{"step", s.step},
                         {"steady", s.steady},
                         {"measured_ns", s.measured_ns},
                         {"baseline_replay_ns", s.baseline_replay_ns},
                         {"changed_replay_ns", s.changed_replay_ns},
                         {"predicted_ns", s.predicted_ns}});
    return json{{"baseline_step_ns", r.baseline_step_ns},
                {"predicted_step_ns", r.predicted_step_ns},
                {"predicted_range_ns", json::array({r.predicted_lo_ns, r.predicted_hi_ns})},
                {"change_fraction", frac(r.predicted_step_ns)},
                {"step_source", r.step_source},
                {"steps_used", r.steady_steps},
                {"baseline_replay_step_ns", r.baseline_replay_step_ns},
                {"baseline_replay_max_error", r.baseline_replay_max_error},
                {"method", "ASAP replay of the dependency graph in topological order; predicted step = measured + "
                           "(changed replay - baseline replay), median over the steps used, range [min, max]"},
                {"changes", changes},
                {"kept", r.kept},
                {"graph", {{"events", r.graph_events},
                           {"edges", r.graph_edges},
                           {"replay_edges", r.replay_edges},
                           {"unexplained_nodes", r.unexplained_nodes},
                           {"unknown_dependencies", r.unknown_dependencies},
                           {"syncs_inferred", r.syncs_inferred},
                           {"syncs_unmatched", r.syncs_unmatched},
                           {"launch_delay_ns", r.launch_delay_ns},
                           {"queued_gap_ns", r.queued_gap_ns}}},
                {"steps", steps}};
}

std::string to_text(const WhatIfResult& r)
{
    auto pct = [&](int64_t ns) {
        char b[32];
        const double f = r.baseline_step_ns > 0 ? 100.0 * static_cast<double>(ns - r.baseline_step_ns) /
                                                      static_cast<double>(r.baseline_step_ns)
                                                : 0.0;
        std::snprintf(b, sizeof b, "%+.1f %%", f);
        return std::string(b);
    };
    std::string s;
    const std::string what = r.step_source == "capture" ? "the whole capture (no steps found)"
                             : r.step_source == "all_steps"
                                 ? std::to_string(r.steady_steps) + " step(s) (none steady)"
                                 : std::to_string(r.steady_steps) + " steady step(s)";
    char b[64];
    std::snprintf(b, sizeof b, "%.2f %%", 100.0 * r.baseline_replay_max_error);
    s += "What if (replay of the dependency graph over " + what + ")\n";
    s += "  measured step:   " + fmt_ms(r.baseline_step_ns) + " (median); baseline replay " +
         fmt_ms(r.baseline_replay_step_ns) + ", within " + b + " of every step\n";
    s += "  predicted step:  " + fmt_ms(r.predicted_step_ns) + " [" + fmt_ms(r.predicted_lo_ns) + " .. " +
         fmt_ms(r.predicted_hi_ns) + "], " + pct(r.predicted_step_ns) + "\n";
    for (const ChangeEffect& c : r.changes) {
        s += "\n  " + c.change.text + ": " + c.changed + "\n";
        if (r.changes.size() > 1)
            s += "    alone: " + fmt_ms(c.alone_step_ns) + " (" + pct(c.alone_step_ns) + ")\n";
        for (const std::string& k : c.kept)
            s += "    kept: " + k + "\n";
        for (const std::string& u : c.unknown)
            s += "    unknown: " + u + "\n";
    }
    s += "\n";
    for (const std::string& k : r.kept)
        s += "  kept: " + k + "\n";
    if (r.syncs_inferred)
        s += "  " + std::to_string(r.syncs_inferred) +
             " host-blocking call(s) have no sync record: each waited for the op launched last on its thread\n";
    if (r.unexplained_nodes)
        s += "  " + std::to_string(r.unexplained_nodes) +
             " event time(s) are not explained by a recorded dependency (the baseline replay moves them earlier)\n";
    return s;
}

} // namespace sl::critpath
