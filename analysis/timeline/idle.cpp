#include "analysis/timeline/idle.h"

#include "analysis/trace/errors.h"
#include "analysis/trace/cancel_point.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <unordered_map>

namespace sl {

const char* gap_cause_name(GapCause c)
{
    switch (c) {
    case GapCause::HostWait: return "host_wait";
    case GapCause::KernelWait: return "kernel_wait";
    case GapCause::SyncWait: return "sync_wait";
    case GapCause::DependencyWait: return "dependency_wait";
    case GapCause::Other: break;
    }
    return "other";
}

namespace {

bool is_stream_wait_name(std::string_view n)
{
    return n.find("StreamWaitEvent") != std::string_view::npos || n.find("StreamWaitValue") != std::string_view::npos;
}

} // namespace

namespace {

// One device's GPU ops as 4-byte references (kind in the top two bits, row below), in (start, end) order with ties
// in kernel, memcpy, memset row order: 40 MB at 10^7 kernels where the 24-byte OpRef rows (gpu_ops_by_device, now
// built from these) were 240 MB
// beside the gap list at analyze's peak (issue 18).
class DeviceOps {
public:
    DeviceOps(const Trace& t, std::vector<uint32_t> refs) : t_(t), refs_(std::move(refs))
    {
        auto less = [&](uint32_t a, uint32_t b) {
            const OpRef x = at_ref(a), y = at_ref(b);
            return x.start != y.start ? x.start < y.start : x.end < y.end;
        };
        if (!std::is_sorted(refs_.begin(), refs_.end(), less))
            std::stable_sort(refs_.begin(), refs_.end(), less);
    }
    size_t size() const { return refs_.size(); }
    bool empty() const { return refs_.empty(); }
    OpRef operator[](size_t i) const { return at_ref(refs_[i]); }
    OpRef front() const { return at_ref(refs_.front()); }

    static constexpr uint32_t kRowMask = (1u << 30) - 1;
    static uint32_t pack(OpKind k, size_t row) { return (static_cast<uint32_t>(k) << 30) | static_cast<uint32_t>(row); }

private:
    OpRef at_ref(uint32_t r) const
    {
        const auto kind = static_cast<OpKind>(r >> 30);
        const size_t row = r & kRowMask;
        switch (kind) {
        case OpKind::Kernel: return {t_.kernels.start[row], t_.kernels.end[row], static_cast<int32_t>(row), kind};
        case OpKind::Memcpy: return {t_.memcpy.start[row], t_.memcpy.end[row], static_cast<int32_t>(row), kind};
        case OpKind::Memset: break;
        }
        return {t_.memset.start[row], t_.memset.end[row], static_cast<int32_t>(row), OpKind::Memset};
    }
    const Trace& t_;
    std::vector<uint32_t> refs_;
};

std::vector<DeviceOps> device_ops(const Trace& t)
{
    const size_t nd = std::max<size_t>(t.meta.devices.size(), 1);
    if (t.kernels.size() > DeviceOps::kRowMask || t.memcpy.size() > DeviceOps::kRowMask ||
        t.memset.size() > DeviceOps::kRowMask)
        throw TraceError("trace", "GPU activity tables", "at most 2^30 rows in one table (idle analysis)",
                         "more rows");
    std::vector<size_t> count(nd, 0);
    auto tally = [&](const auto& table) {
        for (size_t i = 0; i < table.size(); ++i)
            ++count[std::min<size_t>(table.device[i], nd - 1)];
    };
    tally(t.kernels);
    tally(t.memcpy);
    tally(t.memset);
    std::vector<std::vector<uint32_t>> refs(nd);
    for (size_t d = 0; d < nd; ++d)
        refs[d].reserve(count[d]);
    auto add = [&](const auto& table, OpKind kind) {
        for (size_t i = 0; i < table.size(); ++i)
            refs[std::min<size_t>(table.device[i], nd - 1)].push_back(DeviceOps::pack(kind, i));
    };
    add(t.kernels, OpKind::Kernel);
    add(t.memcpy, OpKind::Memcpy);
    add(t.memset, OpKind::Memset);
    std::vector<DeviceOps> out;
    out.reserve(nd);
    for (auto& r : refs)
        out.emplace_back(t, std::move(r));
    return out;
}

} // namespace

std::vector<std::vector<OpRef>> gpu_ops_by_device(const Trace& t)
{
    std::vector<std::vector<OpRef>> by;
    for (const DeviceOps& ops : device_ops(t)) {
        auto& v = by.emplace_back();
        v.reserve(ops.size());
        for (size_t i = 0; i < ops.size(); ++i)
            v.push_back(ops[i]);
    }
    return by;
}

namespace {

// Host-blocking calls of one process, sorted by start, with the running maximum of their ends: "is any sync call
// in progress during [a, b)?" in O(log n).
struct SyncIndex {
    std::vector<int64_t> start;
    std::vector<int64_t> max_end;    // max end over [0..i]
    std::vector<int32_t> arg;        // api row holding max_end
};

int32_t api_of(const Trace& t, OpKind kind, int32_t row)
{
    switch (kind) {
    case OpKind::Kernel: return t.kernels.launch_api[static_cast<size_t>(row)];
    case OpKind::Memcpy: return t.memcpy.launch_api[static_cast<size_t>(row)];
    case OpKind::Memset: return t.memset.launch_api[static_cast<size_t>(row)];
    }
    return kNoIndex;
}

uint16_t process_of(const Trace& t, OpKind kind, int32_t row)
{
    switch (kind) {
    case OpKind::Kernel: return t.kernels.process[static_cast<size_t>(row)];
    case OpKind::Memcpy: return t.memcpy.process[static_cast<size_t>(row)];
    case OpKind::Memset: return t.memset.process[static_cast<size_t>(row)];
    }
    return 0;
}

class Classifier {
public:
    Classifier(const Trace& t, const IdleOptions& o) : t_(t), o_(o)
    {
        // Stream-wait calls per thread, by start (names are classified once per string).
        std::vector<int8_t> wait_name(t.strings.size(), -1);
        for (size_t i = 0; i < t.api.size(); ++i) {
            cancel_point(i);
            const StrId n = t.api.name[i];
            if (n >= wait_name.size())
                continue;
            if (wait_name[n] < 0)
                wait_name[n] = is_stream_wait_name(t.str(n)) ? 1 : 0;
            if (wait_name[n] == 1)
                waits_[t.api.thread[i]].push_back(static_cast<int32_t>(i));
        }
        for (auto& [thr, v] : waits_)
            std::sort(v.begin(), v.end(), [&](int32_t a, int32_t b) { return t.api.start[a] < t.api.start[b]; });
        std::unordered_map<int64_t, std::vector<int32_t>> rows;
        for (size_t i = 0; i < t.api.size(); ++i)
            if (t.api.flags[i] & kApiSync)
                rows[pid_of_thread(t.api.thread[i])].push_back(static_cast<int32_t>(i));
        for (auto& [pid, v] : rows) {
            std::sort(v.begin(), v.end(), [&](int32_t a, int32_t b) { return t.api.start[a] < t.api.start[b]; });
            SyncIndex& s = sync_[pid];
            s.start.reserve(v.size());
            int64_t m = INT64_MIN;
            int32_t arg = kNoIndex;
            for (int32_t a : v) {
                s.start.push_back(t.api.start[a]);
                if (t.api.end[a] > m) {
                    m = t.api.end[a];
                    arg = a;
                }
                s.max_end.push_back(m);
                s.arg.push_back(arg);
            }
        }
    }

    // prev_launch: start of the launch call of the previous op on the next op's stream (INT64_MIN when none or
    // unknown): a stream wait issued before it belongs to that op, not to this one.
    GapCause classify(int64_t g0, int64_t g1, OpKind next_kind, int32_t next_row, int64_t prev_launch,
                      int32_t* sync_api) const
    {
        const int32_t a = api_of(t_, next_kind, next_row);
        const bool linked = a >= 0 && static_cast<size_t>(a) < t_.api.size();
        const int64_t pid = linked ? pid_of_thread(t_.api.thread[static_cast<size_t>(a)])
                                   : pid_of_process(process_of(t_, next_kind, next_row));
        const int64_t launch = linked ? t_.api.start[static_cast<size_t>(a)] : 0;
        // The next op was not queued when the GPU went idle: the host was late. Was it blocked in a sync call
        // while the GPU sat idle (between the gap start and the launch)? Unlinked ops carry no evidence either
        // way, so they are never host- or sync-wait (as in HTA).
        const bool host_late = linked && launch > g0;
        if (host_late) {
            const int64_t until = std::min(launch, g1);
            if (auto it = sync_.find(pid); it != sync_.end()) {
                const SyncIndex& s = it->second;
                const auto pos = std::lower_bound(s.start.begin(), s.start.end(), until) - s.start.begin();
                if (pos > 0) {
                    const size_t i = static_cast<size_t>(pos - 1);
                    if (s.max_end[i] > g0 && s.arg[i] != a) {
                        if (sync_api)
                            *sync_api = s.arg[i];
                        return GapCause::SyncWait;
                    }
                }
            }
        }
        // Queued, then blocked: the launch returned before the gap began, or early in it, and the op then waited
        // out most of the gap behind a stream wait the launching thread issued for it.
        if (linked) {
            const int64_t returned = t_.api.end[static_cast<size_t>(a)];
            const int64_t queued = g1 - std::max(returned, g0);
            if (queued >= o_.kernel_wait_threshold_ns && 2 * queued >= g1 - g0)
                if (const int32_t w = wait_before(t_.api.thread[static_cast<size_t>(a)], launch, prev_launch);
                    w >= 0) {
                    if (sync_api)
                        *sync_api = w;
                    return GapCause::DependencyWait;
                }
        }
        if (host_late)
            return GapCause::HostWait;
        if (g1 - g0 < o_.kernel_wait_threshold_ns)
            return GapCause::KernelWait;
        return GapCause::Other;
    }

    bool has_waits() const { return !waits_.empty(); }
    // Start of the op's launch call (INT64_MIN when unknown).
    int64_t launch_start(OpKind kind, int32_t row) const
    {
        const int32_t a = api_of(t_, kind, row);
        return a >= 0 && static_cast<size_t>(a) < t_.api.size() ? t_.api.start[static_cast<size_t>(a)] : INT64_MIN;
    }
    // The last stream-wait call of `thread` that started in [after, before), or kNoIndex.
    int32_t wait_before(uint32_t thread, int64_t before, int64_t after) const
    {
        const auto it = waits_.find(thread);
        if (it == waits_.end())
            return kNoIndex;
        const auto& v = it->second;
        const auto pos = std::lower_bound(v.begin(), v.end(), before,
                                          [&](int32_t x, int64_t b) { return t_.api.start[x] < b; });
        if (pos == v.begin())
            return kNoIndex;
        const int32_t w = *(pos - 1);
        return t_.api.start[static_cast<size_t>(w)] >= after ? w : kNoIndex;
    }

private:
    int64_t pid_of_thread(uint32_t thr) const { return thr < t_.meta.threads.size() ? t_.meta.threads[thr].pid : 0; }
    int64_t pid_of_process(uint16_t p) const
    {
        return p < t_.meta.processes.size() ? t_.meta.processes[p].pid : 0;
    }
    const Trace& t_;
    const IdleOptions& o_;
    std::unordered_map<int64_t, SyncIndex> sync_;
    std::unordered_map<uint32_t, std::vector<int32_t>> waits_;   // stream-wait calls per thread, by start
};

uint32_t stream_of(const Trace& t, const OpRef& op)
{
    switch (op.kind) {
    case OpKind::Kernel: return t.kernels.stream[static_cast<size_t>(op.row)];
    case OpKind::Memcpy: return t.memcpy.stream[static_cast<size_t>(op.row)];
    case OpKind::Memset: return t.memset.stream[static_cast<size_t>(op.row)];
    }
    return 0;
}

// The launch start of the last op seen on each stream of one device (a handful of streams: a flat list).
class LastLaunch {
public:
    int64_t get(uint32_t stream) const
    {
        for (const auto& [s, l] : v_)
            if (s == stream)
                return l;
        return INT64_MIN;
    }
    void set(uint32_t stream, int64_t launch)
    {
        for (auto& [s, l] : v_)
            if (s == stream) {
                l = launch;
                return;
            }
        v_.emplace_back(stream, launch);
    }

private:
    std::vector<std::pair<uint32_t, int64_t>> v_;
};

} // namespace

GapDependency dependency_of(const Trace& t, const Gap& g)
{
    GapDependency d;
    if (g.cause != GapCause::DependencyWait)
        return d;
    d.wait_api = g.sync_api;
    d.launch_api = g.next_row >= 0 ? api_of(t, g.next_kind, g.next_row) : kNoIndex;
    if (d.launch_api < 0 || static_cast<size_t>(d.launch_api) >= t.api.size())
        return d;
    const uint32_t thread = t.api.thread[static_cast<size_t>(d.launch_api)];
    for (size_t i = 0; i < t.api.size(); ++i) {
        cancel_point(i);
        if (!(t.api.flags[i] & kApiSync) || t.api.thread[i] != thread)
            continue;
        const int64_t ov = std::min(t.api.end[i], g.end) - std::max(t.api.start[i], g.start);
        if (ov > d.blocking_overlap_ns) {
            d.blocking_overlap_ns = ov;
            d.blocking_api = static_cast<int32_t>(i);
        }
    }
    return d;
}

namespace {

// IdleResult::dependency_under_blocking_ns: dependency_of()'s blocking overlap summed over every dependency-wait gap,
// with each thread's host-blocking calls sorted once (dependency_of scans every API call per gap: quadratic over a
// trace's gaps when the binding summed it).
int64_t dependency_under_blocking(const Trace& t, const std::vector<Gap>& gaps)
{
    if (std::none_of(gaps.begin(), gaps.end(), [](const Gap& g) { return g.cause == GapCause::DependencyWait; }))
        return 0;
    struct Calls {
        std::vector<std::pair<int64_t, int64_t>> se;   // (start, end) by start
        std::vector<int64_t> max_end;                  // running max of the ends
    };
    std::unordered_map<uint32_t, Calls> by_thread;
    for (size_t i = 0; i < t.api.size(); ++i) {
        cancel_point(i);
        if (t.api.flags[i] & kApiSync)
            by_thread[t.api.thread[i]].se.push_back({t.api.start[i], t.api.end[i]});
    }
    for (auto& [thread, c] : by_thread) {
        std::sort(c.se.begin(), c.se.end());
        c.max_end.resize(c.se.size());
        int64_t m = INT64_MIN;
        for (size_t i = 0; i < c.se.size(); ++i)
            c.max_end[i] = m = std::max(m, c.se[i].second);
    }
    int64_t sum = 0;
    for (size_t gi = 0; gi < gaps.size(); ++gi) {
        cancel_point(gi);
        const Gap& g = gaps[gi];
        if (g.cause != GapCause::DependencyWait || g.next_row < 0)
            continue;
        const int32_t launch = api_of(t, g.next_kind, g.next_row);
        if (launch < 0 || static_cast<size_t>(launch) >= t.api.size())
            continue;
        const auto it = by_thread.find(t.api.thread[static_cast<size_t>(launch)]);
        if (it == by_thread.end())
            continue;
        const Calls& c = it->second;
        // Calls starting before the gap ends, walked back while one of them may still end after it starts.
        size_t j = static_cast<size_t>(std::lower_bound(c.se.begin(), c.se.end(), std::make_pair(g.end, INT64_MIN)) -
                                       c.se.begin());
        int64_t best = 0;
        while (j > 0 && c.max_end[j - 1] > g.start) {
            --j;
            best = std::max(best, std::min(c.se[j].second, g.end) - std::max(c.se[j].first, g.start));
        }
        sum += best;
    }
    return sum;
}

} // namespace

std::vector<double> chunk_utilization(const std::vector<Gap>& gaps, uint16_t device, int64_t from, int64_t to,
                                      int chunks)
{
    std::vector<double> u;
    if (to <= from || chunks <= 0)
        return u;
    const double width = double(to - from) / chunks;
    std::vector<int64_t> edge(static_cast<size_t>(chunks) + 1);
    for (int c = 0; c <= chunks; ++c)
        edge[static_cast<size_t>(c)] = c == chunks ? to : from + static_cast<int64_t>(std::llround(c * width));
    std::vector<int64_t> idle(static_cast<size_t>(chunks), 0);
    for (const Gap& g : gaps) {
        if (g.device != device)
            continue;
        const int64_t g0 = std::max(g.start, from), g1 = std::min(g.end, to);
        if (g1 <= g0)
            continue;
        // First chunk whose end lies after the gap's start.
        size_t c = static_cast<size_t>(std::upper_bound(edge.begin() + 1, edge.end(), g0) - (edge.begin() + 1));
        for (; c < idle.size() && edge[c] < g1; ++c)
            idle[c] += std::max<int64_t>(0, std::min(g1, edge[c + 1]) - std::max(g0, edge[c]));
    }
    for (size_t c = 0; c < idle.size(); ++c) {
        const int64_t a = edge[c], b = edge[c + 1];
        u.push_back(b > a ? double(b - a - idle[c]) / double(b - a) : 1.0);
    }
    return u;
}

std::array<int64_t, kGapCauses> gap_ns_in_windows(const std::vector<Gap>& gaps,
                                                  const std::vector<std::pair<int64_t, int64_t>>& windows)
{
    std::array<int64_t, kGapCauses> out{};
    if (windows.empty())
        return out;
    for (const auto& g : gaps) {
        auto it = std::upper_bound(windows.begin(), windows.end(), g.start,
                                   [](int64_t v, const std::pair<int64_t, int64_t>& w) { return v < w.second; });
        for (; it != windows.end() && it->first < g.end; ++it) {
            const int64_t a = std::max(g.start, it->first), b = std::min(g.end, it->second);
            if (b > a)
                out[static_cast<size_t>(g.cause)] += b - a;
        }
    }
    return out;
}

IdleResult analyze_idle(const Trace& t, const IdleOptions& o)
{
    IdleResult r;
    r.options = o;
    const int64_t edges[] = {0, 1'000, 5'000, 10'000, 50'000, 100'000, 1'000'000, INT64_MAX};
    for (size_t i = 0; i + 1 < std::size(edges); ++i)
        r.histogram.push_back({edges[i], edges[i + 1], 0, 0});
    const Classifier cls(t, o);
    const auto by_dev = device_ops(t);
    // The gap list is the largest thing the analyses keep (one row per idle interval, up to one per op): count the
    // gaps first and allocate them once, exactly.
    size_t gap_count = 0;
    for (const auto& ops : by_dev) {
        if (ops.empty())
            continue;
        int64_t end = ops.front().end;
        for (size_t i = 1; i < ops.size(); ++i) {
            cancel_point(i);
            const OpRef op = ops[i];
            if (op.start > end) {
                ++gap_count;
                end = op.end;
            } else if (op.end > end) {
                end = op.end;
            }
        }
    }
    r.gaps.reserve(gap_count);
    for (size_t d = 0; d < by_dev.size(); ++d) {
        const auto& ops = by_dev[d];
        if (ops.empty())
            continue;
        DeviceIdle dev;
        dev.device = static_cast<uint16_t>(d);
        dev.ops = static_cast<int64_t>(ops.size());
        dev.first_start = ops.front().start;
        int64_t cur_end = ops.front().end;
        size_t cur_last = 0;   // op holding cur_end
        dev.busy_ns = 0;
        int64_t group_start = ops.front().start;
        // Stream waits only exist on some traces: without any, the previous launch per stream is never needed.
        const bool waits = cls.has_waits();
        LastLaunch last_launch;
        if (waits)
            last_launch.set(stream_of(t, ops.front()), cls.launch_start(ops.front().kind, ops.front().row));
        for (size_t i = 1; i < ops.size(); ++i) {
            cancel_point(i);
            const OpRef op = ops[i];
            const uint32_t op_stream = waits ? stream_of(t, op) : 0;
            const int64_t prev_launch = waits ? last_launch.get(op_stream) : INT64_MIN;
            if (waits)
                last_launch.set(op_stream, cls.launch_start(op.kind, op.row));
            if (op.start > cur_end) {
                dev.busy_ns += cur_end - group_start;
                Gap g;
                g.start = cur_end;
                g.end = op.start;
                g.device = dev.device;
                g.prev_kind = ops[cur_last].kind;
                g.prev_row = ops[cur_last].row;
                g.next_kind = op.kind;
                g.next_row = op.row;
                g.cause = cls.classify(g.start, g.end, op.kind, op.row, prev_launch, &g.sync_api);
                const auto c = static_cast<size_t>(g.cause);
                dev.breakdown.ns[c] += g.duration();
                dev.breakdown.count[c] += 1;
                for (auto& b : r.histogram)
                    if (g.duration() >= b.lo_ns && g.duration() < b.hi_ns) {
                        b.count += 1;
                        b.total_ns += g.duration();
                        break;
                    }
                r.gaps.push_back(g);
                group_start = op.start;
                cur_end = op.end;
                cur_last = i;
            } else if (op.end > cur_end) {
                cur_end = op.end;
                cur_last = i;
            }
        }
        dev.busy_ns += cur_end - group_start;
        dev.last_end = cur_end;
        dev.window_ns = dev.last_end - dev.first_start;
        dev.idle_ns = dev.window_ns - dev.busy_ns;
        dev.idle_fraction = dev.window_ns > 0 ? static_cast<double>(dev.idle_ns) / static_cast<double>(dev.window_ns) : 0;
        r.devices.push_back(dev);

        if (!o.per_stream)
            continue;
        // Per stream (HTA semantics): gap = start - max end so far on the same stream.
        struct StreamState {
            StreamIdle s;
            int64_t prev_end = INT64_MIN;
            int64_t group_start = 0;
            int64_t prev_launch = INT64_MIN;   // launch start of the stream's previous op
        };
        std::unordered_map<uint32_t, size_t> index;
        std::vector<StreamState> states;
        for (size_t oi = 0; oi < ops.size(); ++oi) {
            const OpRef op = ops[oi];
            const uint32_t sid = stream_of(t, op);
            auto [it, fresh] = index.emplace(sid, states.size());
            if (fresh) {
                StreamState st;
                st.s.device = dev.device;
                st.s.stream = sid;
                st.prev_end = op.end;
                st.group_start = op.start;
                st.s.ops = 1;
                if (waits)
                    st.prev_launch = cls.launch_start(op.kind, op.row);
                states.push_back(st);
                continue;
            }
            StreamState& st = states[it->second];
            st.s.ops += 1;
            const int64_t prev_launch = st.prev_launch;
            if (waits)
                st.prev_launch = cls.launch_start(op.kind, op.row);
            if (op.start > st.prev_end) {
                st.s.busy_ns += st.prev_end - st.group_start;
                const GapCause c = cls.classify(st.prev_end, op.start, op.kind, op.row, prev_launch, nullptr);
                st.s.breakdown.ns[static_cast<size_t>(c)] += op.start - st.prev_end;
                st.s.breakdown.count[static_cast<size_t>(c)] += 1;
                st.s.idle_ns += op.start - st.prev_end;
                st.group_start = op.start;
                st.prev_end = op.end;
            } else {
                st.prev_end = std::max(st.prev_end, op.end);
            }
        }
        for (auto& st : states) {
            st.s.busy_ns += st.prev_end - st.group_start;
            r.streams.push_back(st.s);
        }
    }
    std::sort(r.streams.begin(), r.streams.end(), [](const StreamIdle& a, const StreamIdle& b) {
        return a.device != b.device ? a.device < b.device : a.stream < b.stream;
    });
    r.dependency_under_blocking_ns = dependency_under_blocking(t, r.gaps);
    return r;
}

} // namespace sl
