#include "analysis/trace/intervals.h"

#include <algorithm>

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

// Sweeps rows sorted by op_less into busy periods: appends them to `out` when given, and returns how many there are.
// sweep() calls it twice, to count and then to fill a list allocated once: at 10^7 kernels a list grown by doubling
// held up to 537 MB plus the copy of each growth (issue 18: the summary's peak memory).
size_t sweep_into(const OpRow* rows, size_t n, std::vector<BusyPeriod>* out)
{
    size_t count = 0;
    bool open = false;
    BusyPeriod cur;
    for (size_t i = 0; i < n; ++i) {
        const OpRow& r = rows[i];
        if (r.end <= r.start)
            continue;   // empty: not busy
        const GpuOpRef ref{r.kind, r.index};
        if (open && r.start <= cur.end) {
            if (r.end >= cur.end) {
                cur.end = r.end;
                cur.last = ref;
            }
            continue;
        }
        if (open && out)
            out->push_back(cur);
        cur = BusyPeriod{r.start, r.end, ref, ref};
        open = true;
        ++count;
    }
    if (open && out)
        out->push_back(cur);
    return count;
}

void sweep(const OpRow* rows, size_t n, std::vector<BusyPeriod>& out)
{
    out.reserve(out.size() + sweep_into(rows, n, nullptr));
    sweep_into(rows, n, &out);
}

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
    std::vector<BusyPeriod> out;
    sweep(rows.data(), rows.size(), out);
    return out;
}

int64_t DeviceActivity::busy_ns() const
{
    int64_t s = 0;
    for (const auto& p : busy)
        s += p.end - p.start;
    return s;
}

std::vector<DeviceActivity> device_activity(const Trace& t)
{
    const size_t nd = t.meta.devices.size();
    std::vector<DeviceActivity> out(nd);
    for (size_t d = 0; d < nd; ++d)
        out[d].device = static_cast<uint16_t>(d);
    if (nd == 0)
        return out;

    // Bucket the ops by device (counting sort), keeping kernel, memcpy, memset row order inside a bucket.
    std::vector<size_t> offset(nd + 1, 0);
    auto count = [&](const std::vector<uint16_t>& dev) {
        for (uint16_t d : dev)
            if (d < nd)
                ++offset[d + 1];
    };
    count(t.kernels.device);
    count(t.memcpy.device);
    count(t.memset.device);
    for (size_t d = 0; d < nd; ++d)
        offset[d + 1] += offset[d];
    std::vector<OpRow> rows(offset[nd]);
    std::vector<size_t> fill(offset.begin(), offset.end() - 1);
    auto place = [&](const std::vector<int64_t>& s, const std::vector<int64_t>& e, const std::vector<uint16_t>& dev,
                     GpuOpKind kind, int64_t DeviceActivity::*counter) {
        for (size_t i = 0; i < s.size(); ++i) {
            const uint16_t d = dev[i];
            if (d >= nd)
                continue;
            rows[fill[d]++] = OpRow{s[i], e[i], static_cast<uint32_t>(i), kind};
            ++(out[d].*counter);
        }
    };
    place(t.kernels.start, t.kernels.end, t.kernels.device, GpuOpKind::Kernel, &DeviceActivity::kernels);
    place(t.memcpy.start, t.memcpy.end, t.memcpy.device, GpuOpKind::Memcpy, &DeviceActivity::memcpys);
    place(t.memset.start, t.memset.end, t.memset.device, GpuOpKind::Memset, &DeviceActivity::memsets);

    for (size_t d = 0; d < nd; ++d) {
        OpRow* b = rows.data() + offset[d];
        OpRow* e = rows.data() + offset[d + 1];
        if (b == e)
            continue;
        if (!std::is_sorted(b, e, op_less))
            std::sort(b, e, op_less);
        DeviceActivity& a = out[d];
        a.window_start = b->start;
        a.window_end = b->start;
        for (const OpRow* r = b; r != e; ++r)
            a.window_end = std::max(a.window_end, std::max(r->start, r->end));
        sweep(b, static_cast<size_t>(e - b), a.busy);
    }
    return out;
}

} // namespace sl
