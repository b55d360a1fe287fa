#include "analysis/timeline/overlap.h"

#include <algorithm>

namespace sl {

std::vector<Interval> merge_intervals(std::vector<Interval> v)
{
    auto by_start = [](const Interval& a, const Interval& b) { return a.start < b.start; };
    if (!std::is_sorted(v.begin(), v.end(), by_start))
        std::sort(v.begin(), v.end(), by_start);
    // Merged in place: the result never outgrows the input, and a second buffer as large as the input (160 MB at
    // 10^7 kernels) would only add to the analyses' peak memory (issue 18).
    size_t n = 0;
    for (size_t i = 0; i < v.size(); ++i) {
        const Interval x = v[i];
        if (x.end <= x.start)
            continue;
        if (n > 0 && x.start <= v[n - 1].end)
            v[n - 1].end = std::max(v[n - 1].end, x.end);
        else
            v[n++] = x;
    }
    v.resize(n);
    if (n < v.capacity() / 2)
        v.shrink_to_fit();
    return v;
}

int64_t total_length(const std::vector<Interval>& m)
{
    int64_t s = 0;
    for (const auto& x : m)
        s += x.end - x.start;
    return s;
}

int64_t intersection_length(const std::vector<Interval>& a, const std::vector<Interval>& b)
{
    size_t i = 0, j = 0;
    int64_t s = 0;
    while (i < a.size() && j < b.size()) {
        const int64_t lo = std::max(a[i].start, b[j].start);
        const int64_t hi = std::min(a[i].end, b[j].end);
        if (hi > lo)
            s += hi - lo;
        if (a[i].end < b[j].end)
            ++i;
        else
            ++j;
    }
    return s;
}

BusyIndex::BusyIndex(std::vector<Interval> merged) : iv_(std::move(merged))
{
    prefix_.resize(iv_.size() + 1, 0);
    for (size_t i = 0; i < iv_.size(); ++i)
        prefix_[i + 1] = prefix_[i] + (iv_[i].end - iv_[i].start);
}

int64_t BusyIndex::busy_in(int64_t from, int64_t to) const
{
    if (to <= from || iv_.empty())
        return 0;
    // First interval ending after `from`, first interval starting at or after `to`.
    auto lo = std::upper_bound(iv_.begin(), iv_.end(), from, [](int64_t v, const Interval& x) { return v < x.end; });
    auto hi = std::lower_bound(iv_.begin(), iv_.end(), to, [](const Interval& x, int64_t v) { return x.start < v; });
    if (lo >= hi)
        return 0;
    const size_t a = static_cast<size_t>(lo - iv_.begin()), b = static_cast<size_t>(hi - iv_.begin());
    int64_t s = prefix_[b] - prefix_[a];
    s -= std::max<int64_t>(0, from - iv_[a].start);
    s -= std::max<int64_t>(0, iv_[b - 1].end - to);
    return s;
}

static void finish_copy(CopyOverlap& c, std::vector<Interval> iv, const std::vector<Interval>& compute)
{
    const auto m = merge_intervals(std::move(iv));
    c.time_ns = total_length(m);
    c.hidden_ns = intersection_length(m, compute);
    int64_t inside = 0;
    if (!compute.empty()) {
        const int64_t first = compute.front().start, last = compute.back().end;
        for (const auto& x : m)
            inside += std::max<int64_t>(0, std::min(x.end, last) - std::max(x.start, first));
    }
    c.outside_ns = c.time_ns - inside;
    c.hidden_fraction = c.time_ns > 0 ? static_cast<double>(c.hidden_ns) / static_cast<double>(c.time_ns) : -1;
}

OverlapResult analyze_overlap(const Trace& t, const std::vector<int16_t>& kernel_class, const OverlapOptions& o)
{
    OverlapResult r;
    const size_t nd = std::max<size_t>(t.meta.devices.size(), 1);
    std::vector<std::vector<Interval>> compute(nd), comm(nd), h2d(nd), d2h(nd), all(nd);
    r.devices.resize(nd);
    for (size_t d = 0; d < nd; ++d)
        r.devices[d].device = static_cast<uint16_t>(d);
    const auto& k = t.kernels;
    const bool have_class = kernel_class.size() == k.size() && o.comm_class >= 0;
    {
        // Exact sizes first (a vector grown by doubling holds up to twice its rows at 10^7 kernels).
        std::vector<size_t> n_compute(nd, 0), n_comm(nd, 0);
        for (size_t i = 0; i < k.size(); ++i) {
            const size_t d = std::min<size_t>(k.device[i], nd - 1);
            ++(have_class && kernel_class[i] == o.comm_class ? n_comm : n_compute)[d];
        }
        for (size_t d = 0; d < nd; ++d) {
            compute[d].reserve(n_compute[d]);
            comm[d].reserve(n_comm[d]);
        }
    }
    for (size_t i = 0; i < k.size(); ++i) {
        const size_t d = std::min<size_t>(k.device[i], nd - 1);
        const bool is_comm = have_class && kernel_class[i] == o.comm_class;
        (is_comm ? comm : compute)[d].push_back({k.start[i], k.end[i]});
        if (is_comm)
            r.devices[d].comm.count += 1;
    }
    const auto& m = t.memcpy;
    for (size_t i = 0; i < m.size(); ++i) {
        const size_t d = std::min<size_t>(m.device[i], nd - 1);
        auto& dev = r.devices[d];
        const Interval iv{m.start[i], m.end[i]};
        all[d].push_back(iv);
        dev.all_copies.count += 1;
        dev.all_copies.bytes += m.bytes[i];
        const CopyKind ck = m.copy_kind[i];
        if (ck == CopyKind::HtoD || ck == CopyKind::UnifiedHtoD || ck == CopyKind::HtoA) {
            h2d[d].push_back(iv);
            dev.h2d.count += 1;
            dev.h2d.bytes += m.bytes[i];
        } else if (ck == CopyKind::DtoH || ck == CopyKind::UnifiedDtoH || ck == CopyKind::AtoH) {
            d2h[d].push_back(iv);
            dev.d2h.count += 1;
            dev.d2h.bytes += m.bytes[i];
        }
        if (m.src_kind[i] == MemKind::Pageable || m.dst_kind[i] == MemKind::Pageable) {
            dev.pageable_count += 1;
            dev.pageable_time_ns += m.end[i] - m.start[i];
            dev.pageable_bytes += m.bytes[i];
            const int32_t a = m.launch_api[i];
            if (a >= 0 && static_cast<size_t>(a) < t.api.size() && (t.api.flags[static_cast<size_t>(a)] & kApiAsync))
                dev.pageable_async_api_count += 1;
        }
    }
    for (size_t d = 0; d < nd; ++d) {
        auto cm = merge_intervals(std::move(compute[d]));
        auto& dev = r.devices[d];
        dev.compute_ns = total_length(cm);
        const int64_t comm_count = dev.comm.count;
        finish_copy(dev.h2d, std::move(h2d[d]), cm);
        finish_copy(dev.d2h, std::move(d2h[d]), cm);
        finish_copy(dev.all_copies, std::move(all[d]), cm);
        finish_copy(dev.comm, std::move(comm[d]), cm);
        dev.comm.count = comm_count;
    }
    return r;
}

} // namespace sl
