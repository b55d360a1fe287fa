#include "analysis/critpath/dependency_graph.h"
#include "analysis/critpath/two_tasks.h"

#include "analysis/trace/cancel_point.h"

#include <algorithm>
#include <atomic>
#include <memory>
#include <string_view>
#include <unordered_map>

namespace sl::critpath {

const char* event_kind_name(EventKind k)
{
    switch (k) {
    case EventKind::CpuOp: return "cpu_op";
    case EventKind::Api: return "api";
    case EventKind::Kernel: return "kernel";
    case EventKind::Memcpy: return "memcpy";
    case EventKind::Memset: return "memset";
    }
    return "?";
}

const char* edge_kind_name(EdgeKind k)
{
    switch (k) {
    case EdgeKind::Span: return "span";
    case EdgeKind::Dependency: return "dependency";
    case EdgeKind::Launch: return "launch";
    case EdgeKind::KernelGap: return "kernel_gap";
    case EdgeKind::Sync: return "sync";
    case EdgeKind::Graph: return "graph";
    }
    return "?";
}

size_t DependencyGraph::memory_bytes() const
{
    // What the columns hold (the edge columns keep room reserved by the build for all its phases' edges: address space,
    // never written, not resident).
    return event_kind.size() * sizeof(EventKind) + event_row.size() * sizeof(uint32_t) +
           node_ts.size() * sizeof(int64_t) + (edge_src.size() + edge_dst.size()) * sizeof(uint32_t) +
           edge_kind.size() * sizeof(EdgeKind) + edge_zero.size() + cpu_parent.size() * sizeof(uint32_t);
}

namespace {

constexpr int32_t kNone = -1;

// CUPTI synchronisation types (Kineto's cuda_sync names map to the same numbers).
enum SyncType : uint8_t { kEventSync = 1, kStreamWait = 2, kStreamSync = 3, kContextSync = 4 };

uint8_t sync_type_from_name(std::string_view n)
{
    auto has = [&](std::string_view s) { return n.find(s) != std::string_view::npos; };
    if (has("StreamWaitEvent")) return kStreamWait;
    if (has("StreamSynchronize")) return kStreamSync;
    if (has("DeviceSynchronize") || has("CtxSynchronize") || has("ThreadSynchronize")) return kContextSync;
    if (has("EventSynchronize") || has("EventQuery")) return kEventSync;
    return 0;
}

// HTA's BLOCKING_SYNC_CALLS, plus whatever Sightline's API classifier calls host-blocking.
bool is_blocking_name(std::string_view n)
{
    return n == "cudaDeviceSynchronize" || n == "cudaStreamSynchronize" || n == "cudaEventQuery" ||
           n == "cudaEventSynchronize" || n == "cudaMemcpy" || n == "cudaMemcpyAsync";
}

// Calls that take the CUDA runtime lock (HTA's CUDA_RUNTIME_EVENTS, with every launch call for cudaLaunchKernel).
bool is_lock_name(std::string_view n) { return n == "cudaMemcpyAsync" || n == "cudaHostAlloc"; }

// Sorts [first, last) by `before` when it is a few sorted runs one after another (tables appended kind by kind, each
// in time order): the runs are merged; otherwise one sort.
template <class It, class Cmp>
void sort_runs(It first, It last, Cmp before)
{
    std::vector<It> cuts = {first};
    for (It i = first; i != last && i + 1 != last; ++i)
        if (before(*(i + 1), *i)) {
            cuts.push_back(i + 1);
            if (cuts.size() > 8) {
                std::sort(first, last, before);
                return;
            }
        }
    for (size_t c = 1; c < cuts.size(); ++c)
        std::inplace_merge(first, cuts[c], c + 1 < cuts.size() ? cuts[c + 1] : last, before);
}

// The indices i < count with keep(i), grouped by a small dense key(i) (a stable counting sort: placed directly, 4 bytes
// per index), each key's part then ordered by `before` on indices (sort_runs): the order `before` gives when it
// compares the key first.
template <class Keep, class Key, class Cmp>
std::vector<uint32_t> order_by_key(uint32_t count, Keep keep, Key key, Cmp before)
{
    std::vector<size_t> off(1, 0);
    size_t kept = 0;
    for (uint32_t i = 0; i < count; ++i)
        if (keep(i)) {
            const size_t k = key(i);
            if (k + 2 > off.size())
                off.resize(k + 2, 0);
            ++off[k + 1];
            ++kept;
        }
    for (size_t k = 1; k < off.size(); ++k)
        off[k] += off[k - 1];
    std::vector<uint32_t> out(kept);
    {
        std::vector<size_t> fill(off.begin(), off.end() - 1);
        for (uint32_t i = 0; i < count; ++i)
            if (keep(i))
                out[fill[key(i)]++] = i;
    }
    for (size_t k = 0; k + 1 < off.size(); ++k)
        sort_runs(out.begin() + static_cast<std::ptrdiff_t>(off[k]), out.begin() + static_cast<std::ptrdiff_t>(off[k + 1]),
                  before);
    return out;
}

class Builder {
public:
    Builder(const Trace& t, const GraphOptions& o, DependencyGraph& g) : t_(t), o_(o), g_(g) {}

    void run()
    {
        classify_api_names();
        make_events();
        // The three phases are independent. Two tasks: the runtime lock then the call stacks, appended to one list that becomes the graph's (room for
        // all the edges reserved: address space only until written), and the GPU ops into a second list appended to
        // it after. The edges are in HTA's order (runtime lock, call stacks, GPU ops) whatever the thread count.
        EdgeList lists[2];
        const size_t cpu = cpu_events_, gpu = g_.event_kind.size() - cpu_events_;
        lists[1].reserve(gpu * 2 + t_.syncs.size() + 16);
        lists[0].reserve(cpu / 2 + cpu * 2 + 32 + lists[1].src.capacity());
        run_two_tasks([&](size_t i) {   // each phase's loops check the caller's cancel flag, on either thread
            if (i == 0) {
                runtime_lock_edges(lists[0]);
                call_stack_edges(lists[0]);
            } else {
                gpu_edges(lists[1]);
            }
        });
        EdgeList& all = lists[0];
        {
            EdgeList& l = lists[1];
            all.src.insert(all.src.end(), l.src.begin(), l.src.end());
            all.dst.insert(all.dst.end(), l.dst.begin(), l.dst.end());
            all.kind.insert(all.kind.end(), l.kind.begin(), l.kind.end());
            all.zero.insert(all.zero.end(), l.zero.begin(), l.zero.end());
            all.negative += l.negative;
            all.waits += l.waits;
            l = EdgeList{};
        }
        g_.edge_src = std::move(all.src);
        g_.edge_dst = std::move(all.dst);
        g_.edge_kind = std::move(all.kind);
        g_.edge_zero = std::move(all.zero);
        g_.negative_edges = all.negative;
        g_.event_waits_inferred = all.waits;
    }

private:
    const Trace& t_;
    const GraphOptions& o_;
    DependencyGraph& g_;
    std::vector<uint8_t> name_bits_;        // per StrId: 1 lock, 2 blocking, 4 event record, sync type << 4
    std::vector<int32_t> api_event_;        // api row -> event, kNone when not in the graph
    std::vector<uint8_t> ev_lock_, ev_block_;
    size_t cpu_events_ = 0;

    bool in_window(int64_t ts) const { return ts >= o_.begin && ts < o_.end; }

    // The CPU phases and the GPU phase write their own edge lists (they run in parallel); run() concatenates them.
    struct EdgeList {
        std::vector<uint32_t> src, dst;
        std::vector<EdgeKind> kind;
        std::vector<uint8_t> zero;
        int64_t negative = 0, waits = 0;
        void reserve(size_t n)
        {
            src.reserve(n);
            dst.reserve(n);
            kind.reserve(n);
            zero.reserve(n);
        }
    };

    void add_edge(EdgeList& l, uint32_t src, uint32_t dst, EdgeKind k, bool zero)
    {
        if (src == dst)
            return;
        l.src.push_back(src);
        l.dst.push_back(dst);
        l.kind.push_back(k);
        l.zero.push_back(zero ? 1 : 0);
        if (!zero && g_.node_ts[dst] < g_.node_ts[src])
            ++l.negative;
    }

    uint8_t bits_of_api(size_t row) const { return name_bits_[t_.api.name[row]]; }

    void classify_api_names()
    {
        StrId max_id = 0;
        for (StrId n : t_.api.name)
            max_id = std::max(max_id, n);
        name_bits_.assign(t_.api.size() ? static_cast<size_t>(max_id) + 1 : 0, 0xFF);
        for (size_t i = 0; i < t_.api.size(); ++i) {
            cancel_point(i);
            uint8_t& b = name_bits_[t_.api.name[i]];
            if (b != 0xFF)
                continue;
            const std::string_view n = t_.str(t_.api.name[i]);
            const uint8_t f = t_.api.flags[i];
            b = 0;
            if (((f & kApiLaunch) && !(f & kApiGraphLaunch)) || is_lock_name(n)) b |= 1;
            if ((f & kApiSync) || is_blocking_name(n)) b |= 2;
            if (n.find("EventRecord") != std::string_view::npos) b |= 4;
            b = static_cast<uint8_t>(b | (sync_type_from_name(n) << 4));
        }
    }

    uint32_t add_event(EventKind k, size_t row, int64_t s, int64_t e)
    {
        const auto id = static_cast<uint32_t>(g_.event_kind.size());
        g_.event_kind.push_back(k);
        g_.event_row.push_back(static_cast<uint32_t>(row));
        g_.node_ts.push_back(s);
        g_.node_ts.push_back(e);
        return id;
    }

    void make_events()
    {
        const RangeTable& r = t_.ranges;
        const ApiTable& a = t_.api;
        {
            // Counted first: the event columns are allocated once, at their size.
            size_t n = 0;
            for (size_t i = 0; i < r.size(); ++i)
                n += r.kind[i] == RangeKind::CpuOp && r.end[i] > r.start[i] && in_window(r.start[i]);
            for (size_t i = 0; i < a.size(); ++i)
                n += a.end[i] > a.start[i] && in_window(a.start[i]);
            auto count_gpu = [&](const std::vector<int32_t>& launch) {
                for (int32_t l : launch)
                    if (l != kNoIndex) {
                        const auto ai = static_cast<size_t>(l);
                        n += a.end[ai] > a.start[ai] && in_window(a.start[ai]);
                    }
            };
            count_gpu(t_.kernels.launch_api);
            count_gpu(t_.memcpy.launch_api);
            count_gpu(t_.memset.launch_api);
            g_.event_kind.reserve(n);
            g_.event_row.reserve(n);
            g_.node_ts.reserve(2 * n);
        }
        // HTA keeps CPU events that start in the window and last longer than 0 (zero-length ones break its stacks).
        for (size_t i = 0; i < r.size(); ++i)
            if (r.kind[i] == RangeKind::CpuOp && r.end[i] > r.start[i] && in_window(r.start[i]))
                add_event(EventKind::CpuOp, i, r.start[i], r.end[i]);
        api_event_.assign(a.size(), kNone);
        for (size_t i = 0; i < a.size(); ++i)
            if (a.end[i] > a.start[i] && in_window(a.start[i]))
                api_event_[i] = static_cast<int32_t>(add_event(EventKind::Api, i, a.start[i], a.end[i]));
        cpu_events_ = g_.event_kind.size();
        g_.cpu_events = cpu_events_;
        g_.cpu_parent.assign(cpu_events_, UINT32_MAX);
        auto gpu = [&](EventKind k, const std::vector<int64_t>& s, const std::vector<int64_t>& e,
                       const std::vector<int32_t>& launch) {
            for (size_t i = 0; i < s.size(); ++i)
                if (launch[i] != kNoIndex && api_event_[static_cast<size_t>(launch[i])] != kNone)
                    add_event(k, i, s[i], std::max(s[i], e[i]));
        };
        gpu(EventKind::Kernel, t_.kernels.start, t_.kernels.end, t_.kernels.launch_api);
        gpu(EventKind::Memcpy, t_.memcpy.start, t_.memcpy.end, t_.memcpy.launch_api);
        gpu(EventKind::Memset, t_.memset.start, t_.memset.end, t_.memset.launch_api);
        ev_lock_.assign(cpu_events_, 0);
        ev_block_.assign(cpu_events_, 0);
        for (size_t ev = 0; ev < cpu_events_; ++ev)
            if (g_.event_kind[ev] == EventKind::Api) {
                const uint8_t b = bits_of_api(g_.event_row[ev]);
                ev_lock_[ev] = b & 1;
                ev_block_[ev] = (b >> 1) & 1;
            }
    }

    uint32_t thread_of(uint32_t ev) const
    {
        return g_.event_kind[ev] == EventKind::CpuOp ? t_.ranges.thread[g_.event_row[ev]]
                                                     : t_.api.thread[g_.event_row[ev]];
    }

    // Runtime lock: nodes of lock-taking calls in time order; each end closes every start still open (its own start
    // by a span, the others by a dependency) and follows the previous end.
    void runtime_lock_edges(EdgeList& L)
    {
        // Nodes in (time, node id) order: starts sorted (the API table is, mostly), ends merged in from a heap.
        struct Node {
            int64_t ts;
            uint32_t n;
        };
        auto before = [](const Node& x, const Node& y) { return x.ts != y.ts ? x.ts < y.ts : x.n < y.n; };
        std::vector<Node> starts;
        {
            size_t n = 0;
            for (uint32_t ev = 0; ev < cpu_events_; ++ev)
                n += ev_lock_[ev];
            starts.reserve(n);
        }
        for (uint32_t ev = 0; ev < cpu_events_; ++ev)
            if (ev_lock_[ev])
                starts.push_back({g_.node_ts[2 * ev], DependencyGraph::start_node(ev)});
        if (!std::is_sorted(starts.begin(), starts.end(), before))
            std::sort(starts.begin(), starts.end(), before);
        auto later = [&](const Node& x, const Node& y) { return before(y, x); };
        std::vector<uint32_t> open;
        int64_t last = -1;
        auto take = [&](uint32_t n) {
            if (n % 2 == 0) {
                open.push_back(n);
            } else {
                while (!open.empty()) {
                    const uint32_t s = open.back();
                    open.pop_back();
                    add_edge(L, s, n, s / 2 == n / 2 ? EdgeKind::Span : EdgeKind::Dependency, s / 2 != n / 2);
                }
                if (last >= 0 && last % 2 == 1)
                    add_edge(L, static_cast<uint32_t>(last), n, EdgeKind::Dependency, true);
            }
            last = n;
        };
        std::vector<Node> ends;
        auto take_end = [&]() {
            std::pop_heap(ends.begin(), ends.end(), later);
            take(ends.back().n);
            ends.pop_back();
        };
        for (const Node& st : starts) {
            while (!ends.empty() && before(ends.front(), st))
                take_end();
            take(st.n);
            ends.push_back({g_.node_ts[st.n + 1], st.n + 1});
            std::push_heap(ends.begin(), ends.end(), later);
        }
        while (!ends.empty())
            take_end();
    }

    bool shares_lock(uint32_t a, uint32_t b) const
    {
        return ev_lock_[a / 2] && ev_lock_[b / 2] && (a % 2 == 0 || b % 2 == 1);
    }

    // CPU nesting per thread, as HTA's call stacks: starts and ends sorted by time (at one time an end before a
    // start; of two starts the longer first; of two ends the shorter first), replayed with a stack. Entering an event
    // links the last node to its start (a dependency at the top level, a span of the parent inside it); leaving one
    // links the last node to its end (weight 0 for a blocking call).
    void call_stack_edges(EdgeList& L)
    {
        // Starts sorted per thread (at one time the longer first); ends merged in from a heap of the open events (at
        // one time before any start, the shorter first, of equal ones the later event first).
        // Event ids by thread, each thread's in (time, longer first, id) order: its CPU operators' and calls' runs
        // merged.
        const int64_t* ts = g_.node_ts.data();
        auto before = [ts](uint32_t x, uint32_t y) {
            if (ts[2 * x] != ts[2 * y]) return ts[2 * x] < ts[2 * y];
            const int64_t dx = ts[2 * x + 1] - ts[2 * x], dy = ts[2 * y + 1] - ts[2 * y];
            return dx != dy ? dx > dy : x < y;
        };
        const std::vector<uint32_t> starts = order_by_key(
            static_cast<uint32_t>(cpu_events_), [](uint32_t) { return true; },
            [this](uint32_t ev) { return static_cast<size_t>(thread_of(ev)); }, before);
        struct End {
            int64_t time;
            int64_t dur;
            uint32_t ev;
        };
        // std heap is a max-heap: "less" means "comes out later".
        auto later = [](const End& x, const End& y) {
            if (x.time != y.time) return x.time > y.time;
            return x.dur != y.dur ? x.dur > y.dur : x.ev < y.ev;
        };
        std::vector<End> ends;
        std::vector<uint32_t> stack;
        int64_t last = -1;
        auto close_one = [&]() {
            std::pop_heap(ends.begin(), ends.end(), later);
            ends.pop_back();
            if (stack.empty())
                return;
            const uint32_t ev = stack.back();
            stack.pop_back();
            const uint32_t n = DependencyGraph::end_node(ev);
            if (last >= 0 && !shares_lock(static_cast<uint32_t>(last), n))
                add_edge(L, static_cast<uint32_t>(last), n, EdgeKind::Span, ev_block_[ev] != 0);
            last = n;
        };
        for (size_t i = 0; i < starts.size(); ++i) {
            cancel_point(i);
            const uint32_t ev = starts[i];
            const int64_t time = ts[2 * ev], dur = ts[2 * ev + 1] - ts[2 * ev];
            if (i > 0 && thread_of(starts[i - 1]) != thread_of(ev)) {
                while (!ends.empty())
                    close_one();
                stack.clear();
                last = -1;
            }
            while (!ends.empty() && ends.front().time <= time)
                close_one();
            const uint32_t n = DependencyGraph::start_node(ev);
            if (last >= 0 && !shares_lock(static_cast<uint32_t>(last), n))
                add_edge(L, static_cast<uint32_t>(last), n, stack.empty() ? EdgeKind::Dependency : EdgeKind::Span,
                         stack.empty());
            if (!stack.empty())
                g_.cpu_parent[ev] = stack.back();
            stack.push_back(ev);
            last = n;
            ends.push_back({time + dur, dur, ev});
            std::push_heap(ends.begin(), ends.end(), later);
        }
        while (!ends.empty())
            close_one();
    }

    struct GpuOp {
        int64_t start, api_start;
        uint32_t ev;       // event in the graph, or UINT32_MAX for an op outside it (queue lengths only)
        uint32_t stream;   // dense (device, stream) key
        int32_t api;       // launch call row
        bool queued;       // its launch counts in HTA's queue lengths (a kernel/memcpy/memset launch, not a graph)
        bool q_ok;         // queue was 1 right after its launch and 0 right after it started
    };

    std::unordered_map<uint64_t, uint32_t> stream_key_;
    std::vector<uint16_t> stream_device_;

    uint32_t stream_key(uint16_t device, uint32_t stream)
    {
        const uint64_t k = (static_cast<uint64_t>(device) << 32) | stream;
        auto [it, fresh] = stream_key_.try_emplace(k, static_cast<uint32_t>(stream_device_.size()));
        if (fresh)
            stream_device_.push_back(device);
        return it->second;
    }

    void gpu_edges(EdgeList& L)
    {
        // Every GPU op of the trace with a launch call (queue lengths are counted over the whole trace, as HTA does).
        std::vector<GpuOp> ops;
        {
            size_t n = 0;
            for (const auto* launch : {&t_.kernels.launch_api, &t_.memcpy.launch_api, &t_.memset.launch_api})
                for (int32_t l : *launch)
                    n += l != kNoIndex;
            ops.reserve(n);
        }
        std::vector<int32_t> op_of_event(g_.event_kind.size() - cpu_events_, kNone);
        std::vector<int32_t> api_op(t_.api.size(), kNone);    // launch call -> its first op
        uint32_t next_ev = static_cast<uint32_t>(cpu_events_);
        auto collect = [&](const std::vector<int64_t>& s, const std::vector<int32_t>& launch,
                           const std::vector<uint16_t>& dev, const std::vector<uint32_t>& st) {
            for (size_t i = 0; i < s.size(); ++i) {
                cancel_point(i);
                if (launch[i] == kNoIndex)
                    continue;
                const auto a = static_cast<size_t>(launch[i]);
                GpuOp op{s[i], t_.api.start[a], UINT32_MAX, stream_key(dev[i], st[i]), launch[i], false, false};
                const uint8_t f = t_.api.flags[a];
                op.queued = !(f & kApiGraphLaunch) &&
                            ((f & kApiLaunch) || ((f & (kApiMemcpy | kApiMemset)) && (f & kApiAsync)));
                if (api_event_[a] != kNone) {
                    op.ev = next_ev++;
                    op_of_event[op.ev - cpu_events_] = static_cast<int32_t>(ops.size());
                }
                if (api_op[a] == kNone)
                    api_op[a] = static_cast<int32_t>(ops.size());
                ops.push_back(op);
            }
        };
        collect(t_.kernels.start, t_.kernels.launch_api, t_.kernels.device, t_.kernels.stream);
        collect(t_.memcpy.start, t_.memcpy.launch_api, t_.memcpy.device, t_.memcpy.stream);
        collect(t_.memset.start, t_.memset.launch_api, t_.memset.device, t_.memset.stream);
        queue_lengths(ops);

        // The sweep: ops by start, syncs by end (a stream sync can overlap the copy it waits for).
        struct Item {
            int64_t ts;
            uint32_t idx;
            bool sync;
        };
        std::vector<Item> items;
        items.reserve(next_ev - cpu_events_ + t_.syncs.size());
        for (uint32_t e = static_cast<uint32_t>(cpu_events_); e < next_ev; ++e)
            items.push_back({g_.node_ts[2 * e], static_cast<uint32_t>(op_of_event[e - cpu_events_]), false});
        for (size_t i = 0; i < t_.syncs.size(); ++i) {
            cancel_point(i);
            const int32_t a = t_.syncs.api[i];
            if (a != kNoIndex && api_event_[static_cast<size_t>(a)] != kNone)
                items.push_back({t_.syncs.end[i], static_cast<uint32_t>(i), true});
        }
        // Runs in the order they were appended (kernels, copies, sets, syncs), each sorted (usually already), then
        // merged.
        auto before = [](const Item& x, const Item& y) {
            if (x.ts != y.ts) return x.ts < y.ts;
            return x.sync != y.sync ? !x.sync : x.idx < y.idx;
        };
        {
            std::vector<size_t> cuts = {0};
            for (size_t i = 1; i < items.size(); ++i)
                if (before(items[i], items[i - 1]))
                    cuts.push_back(i);
            cuts.push_back(items.size());
            if (cuts.size() > 8) {
                std::sort(items.begin(), items.end(), before);
            } else {
                for (size_t c = 2; c < cuts.size(); ++c)
                    std::inplace_merge(items.begin(), items.begin() + static_cast<std::ptrdiff_t>(cuts[c - 1]),
                                       items.begin() + static_cast<std::ptrdiff_t>(cuts[c]), before);
            }
        }

        std::unique_ptr<EventWaits> waits;   // built on the first event wait
        std::vector<int64_t> last(stream_device_.size(), -1);        // last op end node per stream
        std::vector<int32_t> last_api(stream_device_.size(), kNone); // its launch call
        std::unordered_map<uint32_t, uint32_t> wait_src;              // op -> op it waits for (stream wait event)
        for (const Item& it : items) {
            if (it.sync) {
                sync_edges(L, it.idx, last, ops, api_op, waits, wait_src);
                continue;
            }
            const GpuOp& op = ops[it.idx];
            const uint32_t s = DependencyGraph::start_node(op.ev), e = DependencyGraph::end_node(op.ev);
            const auto api = static_cast<size_t>(op.api);
            const uint32_t launch_node = DependencyGraph::start_node(static_cast<uint32_t>(api_event_[api]));
            add_edge(L, s, e, EdgeKind::Span, false);
            int64_t sync_end = -1;
            if (auto w = wait_src.find(it.idx); w != wait_src.end()) {
                const GpuOp& src = ops[w->second];
                if (src.ev != UINT32_MAX && g_.node_ts[DependencyGraph::end_node(src.ev)] <= g_.node_ts[s]) {
                    const uint32_t src_end = DependencyGraph::end_node(src.ev);
                    add_edge(L, src_end, s, EdgeKind::Sync, true);
                    sync_end = g_.node_ts[src_end];
                }
                wait_src.erase(w);
            }
            const int64_t prev = last[op.stream];
            const int64_t prev_ts = prev >= 0 ? g_.node_ts[static_cast<size_t>(prev)] : 0;
            bool launch_added = false;
            if (t_.api.flags[api] & kApiGraphLaunch) {
                // Graph replay: the first op of this launch on a free stream waits for the launch call; the others
                // for their stream predecessor.
                if (last_api[op.stream] != op.api && (prev < 0 || prev_ts < op.api_start) &&
                    (sync_end < 0 || sync_end < op.api_start)) {
                    add_edge(L, launch_node, s, EdgeKind::Launch, false);
                    launch_added = true;
                } else if (prev >= 0) {
                    add_edge(L, static_cast<uint32_t>(prev), s, EdgeKind::Graph, false);
                }
                if (!launch_added)
                    add_edge(L, launch_node, s, EdgeKind::Graph, true);
            } else {
                if (op.q_ok && (prev < 0 || prev_ts < op.api_start) && (sync_end < 0 || sync_end < op.api_start)) {
                    add_edge(L, launch_node, s, EdgeKind::Launch, false);
                    launch_added = true;
                } else if (prev >= 0 && op.start - prev_ts < o_.kernel_gap_max_ns &&
                           (sync_end < 0 || sync_end < prev_ts)) {
                    add_edge(L, static_cast<uint32_t>(prev), s, EdgeKind::KernelGap, false);
                }
                if (!launch_added && o_.zero_weight_launch_edges)
                    add_edge(L, launch_node, s, EdgeKind::Launch, true);
            }
            last[op.stream] = e;
            last_api[op.stream] = op.api;
        }
    }

    // HTA's queue length per stream: +1 at each launch call's start, -1 at each op's start, launches first at equal
    // times. An op passes when the count is 1 right after its own launch and 0 right after its own start.
    static void queue_lengths(std::vector<GpuOp>& ops)
    {
        // Queued ops by stream, each stream's by launch time and by start time (ties by index): its kernels', copies'
        // and sets' runs merged.
        const auto count = static_cast<uint32_t>(ops.size());
        auto queued = [&](uint32_t i) { return ops[i].queued; };
        auto stream = [&](uint32_t i) { return static_cast<size_t>(ops[i].stream); };
        const std::vector<uint32_t> by_launch = order_by_key(count, queued, stream, [&](uint32_t a, uint32_t b) {
            return ops[a].api_start != ops[b].api_start ? ops[a].api_start < ops[b].api_start : a < b;
        });
        const std::vector<uint32_t> by_start = order_by_key(count, queued, stream, [&](uint32_t a, uint32_t b) {
            return ops[a].start != ops[b].start ? ops[a].start < ops[b].start : a < b;
        });
        std::vector<uint8_t> q_rt_one(ops.size(), 0);
        // After launch L (k-th launch of its stream, counting from 1): k - #(ops of the stream started before L).
        size_t j = 0;   // index into by_start
        for (size_t i = 0, first = 0, started = 0; i < by_launch.size(); ++i) {
            const GpuOp& l = ops[by_launch[i]];
            if (i == 0 || ops[by_launch[i - 1]].stream != l.stream) {
                first = i;
                started = 0;
                while (j < by_start.size() && ops[by_start[j]].stream < l.stream) ++j;
            }
            while (j < by_start.size() && ops[by_start[j]].stream == l.stream && ops[by_start[j]].start < l.api_start) {
                ++j;
                ++started;
            }
            q_rt_one[by_launch[i]] = (i - first + 1) - started == 1;
        }
        // After op S starts (k-th start of its stream): #(launches of the stream at or before S's start) - k.
        j = 0;
        for (size_t i = 0, first = 0, launched = 0; i < by_start.size(); ++i) {
            GpuOp& s = ops[by_start[i]];
            if (i == 0 || ops[by_start[i - 1]].stream != s.stream) {
                first = i;
                launched = 0;
                while (j < by_launch.size() && ops[by_launch[j]].stream < s.stream) ++j;
            }
            while (j < by_launch.size() && ops[by_launch[j]].stream == s.stream &&
                   ops[by_launch[j]].api_start <= s.start) {
                ++j;
                ++launched;
            }
            s.q_ok = q_rt_one[by_start[i]] && launched == i - first + 1;
        }
    }

    // Event record -> wait, matched by thread order (the trace model keeps no record correlation; see the header).
    class EventWaits {
    public:
        EventWaits(const Trace& t, const std::vector<uint8_t>& name_bits, const std::vector<int32_t>& api_op,
                   const std::vector<GpuOp>& ops)
            : t_(t), api_op_(api_op), ops_(ops)
        {
            const size_t threads = t.meta.threads.size();
            records_.resize(threads);
            launches_.resize(threads);
            for (size_t i = 0; i < t.api.size(); ++i) {
                const uint32_t th = t.api.thread[i];
                if (th >= threads)
                    continue;
                if (api_op[i] != kNone)
                    launches_[th].push_back(static_cast<uint32_t>(i));
                else if (name_bits[t.api.name[i]] & 4)
                    records_[th].push_back(static_cast<uint32_t>(i));
            }
            auto by_start = [&](uint32_t x, uint32_t y) {
                return t.api.start[x] != t.api.start[y] ? t.api.start[x] < t.api.start[y] : x < y;
            };
            for (auto* vs : {&records_, &launches_})
                for (auto& v : *vs)
                    if (!std::is_sorted(v.begin(), v.end(), by_start))
                        std::sort(v.begin(), v.end(), by_start);
        }

        // The op the event waited for by call `api` was recorded after: the op launched last before the last record
        // before the call, on the call's thread. -1 = none.
        int32_t source(size_t api) const
        {
            const uint32_t th = t_.api.thread[api];
            if (th >= records_.size())
                return kNone;
            const int64_t rec = last_before(records_[th], t_.api.start[api]);
            if (rec < 0)
                return kNone;
            const int64_t l = last_before(launches_[th], t_.api.start[static_cast<size_t>(rec)]);
            return l < 0 ? kNone : api_op_[static_cast<size_t>(l)];
        }

        // The op launched first after call `api` on its thread onto stream `stream` (a dense key). -1 = none.
        int32_t next_on_stream(size_t api, uint32_t stream) const
        {
            const uint32_t th = t_.api.thread[api];
            if (th >= launches_.size())
                return kNone;
            const auto& v = launches_[th];
            auto it = std::upper_bound(v.begin(), v.end(), t_.api.start[api],
                                       [&](int64_t ts, uint32_t x) { return ts < t_.api.start[x]; });
            for (size_t n = 0; it != v.end() && n < 4096; ++it, ++n) {
                const int32_t op = api_op_[*it];
                if (op != kNone && ops_[static_cast<size_t>(op)].stream == stream)
                    return op;
            }
            return kNone;
        }

    private:
        const Trace& t_;
        const std::vector<int32_t>& api_op_;
        const std::vector<GpuOp>& ops_;
        std::vector<std::vector<uint32_t>> records_, launches_;

        int64_t last_before(const std::vector<uint32_t>& v, int64_t ts) const
        {
            auto it = std::lower_bound(v.begin(), v.end(), ts,
                                       [&](uint32_t x, int64_t t) { return t_.api.start[x] < t; });
            return it == v.begin() ? -1 : static_cast<int64_t>(*(it - 1));
        }
    };

    void sync_edges(EdgeList& L, size_t row, const std::vector<int64_t>& last, const std::vector<GpuOp>& ops,
                    const std::vector<int32_t>& api_op, std::unique_ptr<EventWaits>& lazy_waits,
                    std::unordered_map<uint32_t, uint32_t>& wait_src)
    {
        const SyncTable& y = t_.syncs;
        const auto api = static_cast<size_t>(y.api[row]);
        const uint32_t call_end = DependencyGraph::end_node(static_cast<uint32_t>(api_event_[api]));
        uint8_t type = y.sync_type[row];
        if (type < kEventSync || type > kContextSync)
            type = bits_of_api(api) >> 4;
        if (type == kStreamSync) {
            const auto it = stream_key_.find((static_cast<uint64_t>(y.device[row]) << 32) | y.stream[row]);
            if (it != stream_key_.end() && last[it->second] >= 0)
                add_edge(L, static_cast<uint32_t>(last[it->second]), call_end, EdgeKind::Sync, true);
        } else if (type == kContextSync) {
            for (size_t k = 0; k < last.size(); ++k)
                if (last[k] >= 0 && stream_device_[k] == y.device[row])
                    add_edge(L, static_cast<uint32_t>(last[k]), call_end, EdgeKind::Sync, true);
        } else if (type == kEventSync || type == kStreamWait) {
            if (!lazy_waits)
                lazy_waits = std::make_unique<EventWaits>(t_, name_bits_, api_op, ops);
            const EventWaits& waits = *lazy_waits;
            const int32_t src = waits.source(api);
            if (src == kNone)
                return;
            if (type == kEventSync) {
                const GpuOp& s = ops[static_cast<size_t>(src)];
                if (s.ev != UINT32_MAX && g_.node_ts[DependencyGraph::end_node(s.ev)] <= g_.node_ts[call_end]) {
                    add_edge(L, DependencyGraph::end_node(s.ev), call_end, EdgeKind::Sync, true);
                    ++L.waits;
                }
                return;
            }
            const auto it = stream_key_.find((static_cast<uint64_t>(y.device[row]) << 32) | y.stream[row]);
            if (it == stream_key_.end())
                return;
            const int32_t dst = waits.next_on_stream(api, it->second);
            if (dst != kNone && dst != src && ops[static_cast<size_t>(dst)].stream != ops[static_cast<size_t>(src)].stream) {
                wait_src[static_cast<uint32_t>(dst)] = static_cast<uint32_t>(src);
                ++L.waits;
            }
        }
    }
};

} // namespace

namespace {
std::atomic<uint64_t> graphs_built{0};
}

DependencyGraph build_dependency_graph(const Trace& trace, const GraphOptions& options)
{
    DependencyGraph g;
    Builder(trace, options, g).run();
    graphs_built.fetch_add(1, std::memory_order_relaxed);
    return g;
}

uint64_t dependency_graphs_built()
{
    return graphs_built.load(std::memory_order_relaxed);
}

} // namespace sl::critpath
