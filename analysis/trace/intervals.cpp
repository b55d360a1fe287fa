#include "analysis/trace/intervals.h"

#include <algorithm>
#include <array>

#include "analysis/trace/errors.h"

namespace sl {

// ---- GPU operations -------------------------------------------------------------------------------------------

const char* gpu_op_kind_name(GpuOpKind k)
{
    switch (k) {
    case GpuOpKind::Kernel: return "kernel";
    case GpuOpKind::Memcpy: return "memcpy";
    case GpuOpKind::Memset: return "memset";
    }
    return "kernel";
}

int64_t op_start(const Trace& t, GpuOpRef op)
{
    switch (op.kind) {
    case GpuOpKind::Kernel: return t.kernels.start[op.index];
    case GpuOpKind::Memcpy: return t.memcpy.start[op.index];
    case GpuOpKind::Memset: return t.memset.start[op.index];
    }
    return 0;
}

int64_t op_end(const Trace& t, GpuOpRef op)
{
    switch (op.kind) {
    case GpuOpKind::Kernel: return t.kernels.end[op.index];
    case GpuOpKind::Memcpy: return t.memcpy.end[op.index];
    case GpuOpKind::Memset: return t.memset.end[op.index];
    }
    return 0;
}

uint16_t op_device(const Trace& t, GpuOpRef op)
{
    switch (op.kind) {
    case GpuOpKind::Kernel: return t.kernels.device[op.index];
    case GpuOpKind::Memcpy: return t.memcpy.device[op.index];
    case GpuOpKind::Memset: return t.memset.device[op.index];
    }
    return 0;
}

uint32_t op_stream(const Trace& t, GpuOpRef op)
{
    switch (op.kind) {
    case GpuOpKind::Kernel: return t.kernels.stream[op.index];
    case GpuOpKind::Memcpy: return t.memcpy.stream[op.index];
    case GpuOpKind::Memset: return t.memset.stream[op.index];
    }
    return 0;
}

std::string_view op_name(const Trace& t, GpuOpRef op)
{
    switch (op.kind) {
    case GpuOpKind::Kernel: return t.str(t.kernels.name[op.index]);
    case GpuOpKind::Memcpy: return copy_kind_label(t.memcpy.copy_kind[op.index]);
    case GpuOpKind::Memset: return "[CUDA memset]";
    }
    return {};
}

namespace {

// Sort key of one op; kind and row order break start ties so results do not depend on the sort algorithm.
struct OpRow {
    int64_t start, end;
    uint32_t index;
    GpuOpKind kind;
};

bool op_less(const OpRow& a, const OpRow& b)
{
    if (a.start != b.start)
        return a.start < b.start;
    if (a.kind != b.kind)
        return a.kind < b.kind;
    return a.index < b.index;
}

// Sweeps ops visited in op_less order into busy periods, handing each finished one to `emit`: ops that overlap or
// touch the open period extend it, empty ops are not busy.
class PeriodSweep {
public:
    explicit PeriodSweep(const std::function<void(const BusyPeriod&)>& emit) : emit_(emit) {}
    void add(int64_t s, int64_t e, GpuOpRef ref)
    {
        if (e <= s)
            return;   // empty: not busy
        if (open_ && s <= cur_.end) {
            if (e >= cur_.end) {
                cur_.end = e;
                cur_.last = ref;
            }
            return;
        }
        if (open_)
            emit_(cur_);
        cur_ = BusyPeriod{s, e, ref, ref};
        open_ = true;
    }
    void finish()
    {
        if (open_)
            emit_(cur_);
    }

private:
    const std::function<void(const BusyPeriod&)>& emit_;
    BusyPeriod cur_;
    bool open_ = false;
};

} // namespace

std::vector<BusyPeriod> busy_periods(const Trace& t, std::vector<GpuOpRef>& ops)
{
    std::vector<OpRow> rows;
    rows.reserve(ops.size());
    for (const GpuOpRef& op : ops)
        rows.push_back({op_start(t, op), op_end(t, op), op.index, op.kind});
    if (!std::is_sorted(rows.begin(), rows.end(), op_less))
        std::sort(rows.begin(), rows.end(), op_less);
    for (size_t i = 0; i < rows.size(); ++i)
        ops[i] = GpuOpRef{rows[i].kind, rows[i].index};
    // Twice: count the periods, then fill a list allocated once (at 10^7 kernels a list grown by doubling held up
    // to 537 MB plus the copy of each growth: issue 18).
    auto run = [&](const std::function<void(const BusyPeriod&)>& emit) {
        PeriodSweep sweep(emit);
        for (const OpRow& r : rows)
            sweep.add(r.start, r.end, GpuOpRef{r.kind, r.index});
        sweep.finish();
    };
    size_t n = 0;
    run([&](const BusyPeriod&) { ++n; });
    std::vector<BusyPeriod> out;
    out.reserve(n);
    run([&](const BusyPeriod& p) { out.push_back(p); });
    return out;
}

int64_t DeviceActivity::busy_ns() const
{
    int64_t s = 0;
    for (const auto& p : busy)
        s += p.end - p.start;
    return s;
}

namespace {

// An op as 4 bytes: the kind in the top two bits, the row below.
constexpr uint32_t kRowMask = (1u << 30) - 1;
uint32_t pack_op(GpuOpKind k, size_t row) { return (static_cast<uint32_t>(k) << 30) | static_cast<uint32_t>(row); }
GpuOpRef unpack_op(uint32_t r) { return GpuOpRef{static_cast<GpuOpKind>(r >> 30), r & kRowMask}; }

// The tables' start and end columns by kind, so a packed op reads its times with two loads.
struct OpTimes {
    const int64_t* start[3];
    const int64_t* end[3];
    explicit OpTimes(const Trace& t)
        : start{t.kernels.start.data(), t.memcpy.start.data(), t.memset.start.data()},
          end{t.kernels.end.data(), t.memcpy.end.data(), t.memset.end.data()}
    {
    }
    int64_t s(uint32_t r) const { return start[r >> 30][r & kRowMask]; }
    int64_t e(uint32_t r) const { return end[r >> 30][r & kRowMask]; }
    // op_less on packed ops: the packed value orders kind, then row.
    bool less(uint32_t a, uint32_t b) const
    {
        const int64_t x = s(a), y = s(b);
        return x != y ? x < y : a < b;
    }
};

} // namespace

void for_each_busy_period(const Trace& t, const std::function<void(const BusyPeriod&)>& on_period,
                          const std::function<void(DeviceActivity&&)>& on_device)
{
    const size_t nd = t.meta.devices.size();
    if (nd == 0)
        return;
    if (t.kernels.size() > kRowMask || t.memcpy.size() > kRowMask || t.memset.size() > kRowMask)
        throw TraceError("trace", "GPU activity tables", "at most 2^30 rows in one table (busy periods)", "more rows");

    // Bucket the ops by device (counting sort), kernels, memcpys, memsets in row order inside a bucket; `kinds`
    // remembers where each kind's run of a bucket begins.
    std::vector<size_t> offset(nd + 1, 0);
    std::vector<std::array<int64_t, 3>> counts(nd, {0, 0, 0});
    const std::vector<uint16_t>* devs[3] = {&t.kernels.device, &t.memcpy.device, &t.memset.device};
    for (size_t k = 0; k < 3; ++k)
        for (uint16_t d : *devs[k])
            if (d < nd)
                ++counts[d][k];
    for (size_t d = 0; d < nd; ++d)
        offset[d + 1] = offset[d] + size_t(counts[d][0] + counts[d][1] + counts[d][2]);
    std::vector<uint32_t> refs(offset[nd]);
    {
        std::vector<size_t> fill(offset.begin(), offset.end() - 1);
        for (size_t k = 0; k < 3; ++k) {
            const auto& dev = *devs[k];
            for (size_t i = 0; i < dev.size(); ++i)
                if (dev[i] < nd)
                    refs[fill[dev[i]]++] = pack_op(static_cast<GpuOpKind>(k), i);
        }
    }

    const OpTimes times(t);
    for (size_t d = 0; d < nd; ++d) {
        DeviceActivity a;
        a.device = static_cast<uint16_t>(d);
        a.kernels = counts[d][0];
        a.memcpys = counts[d][1];
        a.memsets = counts[d][2];
        uint32_t* b = refs.data() + offset[d];
        uint32_t* e = refs.data() + offset[d + 1];
        PeriodSweep sweep(on_period);
        bool seen = false;
        auto add = [&](uint32_t r) {
            const int64_t s = times.s(r), e = times.e(r);
            if (!seen) {
                a.window_start = a.window_end = s;
                seen = true;
            }
            a.window_end = std::max(a.window_end, std::max(s, e));
            sweep.add(s, e, unpack_op(r));
        };
        // Each kind's run is in row order; when every run is sorted by start, a three-way merge gives op_less
        // order (rows break start ties within a kind, kinds across them) without sorting.
        uint32_t* run[4] = {b, b + counts[d][0], b + counts[d][0] + counts[d][1], e};
        bool runs_sorted = true;
        for (size_t k = 0; k < 3 && runs_sorted; ++k)
            for (uint32_t* p = run[k]; p + 1 < run[k + 1]; ++p)
                if (times.s(p[1]) < times.s(p[0])) {
                    runs_sorted = false;
                    break;
                }
        if (runs_sorted) {
            uint32_t* at[3] = {run[0], run[1], run[2]};
            for (;;) {
                int best = -1;
                for (int k = 0; k < 3; ++k)
                    if (at[k] != run[k + 1] && (best < 0 || times.less(*at[k], *at[best])))
                        best = k;
                if (best < 0)
                    break;
                add(*at[best]++);
            }
        } else {
            std::sort(b, e, [&](uint32_t x, uint32_t y) { return times.less(x, y); });
            for (uint32_t* p = b; p != e; ++p)
                add(*p);
        }
        sweep.finish();
        on_device(std::move(a));
    }
}

std::vector<DeviceActivity> device_activity(const Trace& t)
{
    std::vector<DeviceActivity> out(t.meta.devices.size());
    for (size_t d = 0; d < out.size(); ++d)
        out[d].device = static_cast<uint16_t>(d);
    // Two passes: count each device's periods, then fill lists allocated once at their exact size.
    std::vector<size_t> periods;
    size_t n = 0;
    for_each_busy_period(t, [&](const BusyPeriod&) { ++n; },
                         [&](DeviceActivity&&) {
                             periods.push_back(n);
                             n = 0;
                         });
    size_t d = 0;
    if (!periods.empty())
        out[0].busy.reserve(periods[0]);
    std::vector<BusyPeriod>* into = out.empty() ? nullptr : &out[0].busy;
    for_each_busy_period(t, [&](const BusyPeriod& p) { into->push_back(p); },
                         [&](DeviceActivity&& a) {
                             a.busy = std::move(out[d].busy);
                             out[d] = std::move(a);
                             if (++d < out.size()) {
                                 out[d].busy.reserve(periods[d]);
                                 into = &out[d].busy;
                             }
                         });
    return out;
}

} // namespace sl
