#include "analysis/timeline/summary.h"

#include <algorithm>
#include <unordered_map>

#include "analysis/trace/stats.h"
#include "analysis/trace/top_k.h"

namespace sl {

const std::array<GapBucketDef, kGapBuckets>& gap_bucket_defs()
{
    static const std::array<GapBucketDef, kGapBuckets> defs{{
        {"<1us", 0, 1'000},
        {"1-5us", 1'000, 5'000},
        {"5-10us", 5'000, 10'000},
        {"10-50us", 10'000, 50'000},
        {"50-100us", 50'000, 100'000},
        {"0.1-1ms", 100'000, 1'000'000},
        {">1ms", 1'000'000, -1},
    }};
    return defs;
}

size_t gap_bucket_of(int64_t gap_ns)
{
    const auto& defs = gap_bucket_defs();
    for (size_t i = 0; i + 1 < kGapBuckets; ++i)
        if (gap_ns < defs[i].hi_ns)
            return i;
    return kGapBuckets - 1;
}

namespace {

constexpr uint32_t kSkip = UINT32_MAX;

// Groups rows by a dense key and computes nsys-style statistics per group. key(i) returns the group of row i or
// kSkip; value(i) its value. Two passes: count per group, then scatter values into one flat array by group.
template <typename KeyFn, typename ValueFn>
std::vector<Stats> grouped_stats(size_t groups, size_t rows, KeyFn key, ValueFn value)
{
    std::vector<size_t> offset(groups + 1, 0);
    std::vector<uint32_t> keys(rows);
    for (size_t i = 0; i < rows; ++i) {
        const uint32_t k = key(i);
        keys[i] = k;
        if (k != kSkip)
            ++offset[k + 1];
    }
    for (size_t g = 0; g < groups; ++g)
        offset[g + 1] += offset[g];
    std::vector<int64_t> flat(offset[groups]);
    std::vector<size_t> fill(offset.begin(), offset.end() - 1);
    for (size_t i = 0; i < rows; ++i)
        if (keys[i] != kSkip)
            flat[fill[keys[i]]++] = value(i);
    keys.clear();
    keys.shrink_to_fit();

    std::vector<Stats> out(groups);
    std::vector<int64_t> scratch;
    for (size_t g = 0; g < groups; ++g) {
        scratch.assign(flat.begin() + static_cast<std::ptrdiff_t>(offset[g]),
                       flat.begin() + static_cast<std::ptrdiff_t>(offset[g + 1]));
        out[g] = compute_stats(scratch);
    }
    return out;
}

void fill_row(StatRow& r, const Stats& s)
{
    r.instances = s.count;
    r.total_ns = s.total;
    r.avg_ns = s.avg;
    r.med_ns = s.median;
    r.min_ns = s.min;
    r.max_ns = s.max;
    r.stddev_ns = s.stddev;
}

template <typename Row> void order_and_percent(std::vector<Row>& rows, int64_t& count, int64_t& total)
{
    count = 0;
    total = 0;
    for (const auto& r : rows) {
        count += r.instances;
        total += r.total_ns;
    }
    for (auto& r : rows)
        r.percent = total > 0 ? 100.0 * static_cast<double>(r.total_ns) / static_cast<double>(total) : 0.0;
    std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
        if (a.total_ns != b.total_ns)
            return a.total_ns > b.total_ns;
        if (a.instances != b.instances)
            return a.instances < b.instances;
        return a.name < b.name;
    });
}

// Summary by interned name: one group per distinct StrId among the selected rows.
StatSection by_name(const Trace& t, const std::vector<int64_t>& start, const std::vector<int64_t>& end,
                    const std::vector<StrId>& name, const std::vector<uint8_t>& selected)
{
    std::vector<uint32_t> group_of(t.strings.size(), kSkip);
    std::vector<StrId> group_name;
    const size_t n = start.size();
    for (size_t i = 0; i < n; ++i) {
        if (!selected.empty() && !selected[i])
            continue;
        const StrId s = name[i] < group_of.size() ? name[i] : 0;
        if (group_of[s] == kSkip) {
            group_of[s] = static_cast<uint32_t>(group_name.size());
            group_name.push_back(s);
        }
    }
    const auto stats = grouped_stats(
        group_name.size(), n,
        [&](size_t i) -> uint32_t {
            if (!selected.empty() && !selected[i])
                return kSkip;
            return group_of[name[i] < group_of.size() ? name[i] : 0];
        },
        [&](size_t i) { return end[i] - start[i]; });
    StatSection sec;
    sec.by_name.resize(group_name.size());
    for (size_t g = 0; g < group_name.size(); ++g) {
        sec.by_name[g].name = std::string(t.str(group_name[g]));
        fill_row(sec.by_name[g], stats[g]);
    }
    order_and_percent(sec.by_name, sec.count, sec.total_ns);
    return sec;
}

// Row selection masks for the rank filter (empty = everything).
struct Selection {
    std::vector<uint8_t> device_ok;   // per TraceMeta::devices row
    std::vector<uint8_t> thread_ok;   // per TraceMeta::threads row
    bool all = true;
};

std::vector<uint8_t> mask_by(const std::vector<uint16_t>& dev, const std::vector<uint8_t>& ok)
{
    std::vector<uint8_t> m(dev.size());
    for (size_t i = 0; i < dev.size(); ++i)
        m[i] = dev[i] < ok.size() && ok[dev[i]];
    return m;
}

std::vector<uint8_t> mask_by(const std::vector<uint32_t>& thr, const std::vector<uint8_t>& ok)
{
    std::vector<uint8_t> m(thr.size());
    for (size_t i = 0; i < thr.size(); ++i)
        m[i] = thr[i] < ok.size() && ok[thr[i]];
    return m;
}

MemopSection memops(const Trace& t, const Selection& sel)
{
    // Groups 0..13: copy kinds; 14: memset.
    constexpr size_t kMemsetGroup = 14, kGroups = 15;
    const std::vector<uint8_t> cm = sel.all ? std::vector<uint8_t>{} : mask_by(t.memcpy.device, sel.device_ok);
    const std::vector<uint8_t> sm = sel.all ? std::vector<uint8_t>{} : mask_by(t.memset.device, sel.device_ok);
    const size_t nc = t.memcpy.size(), ns = t.memset.size();
    auto key = [&](size_t i) -> uint32_t {
        if (i < nc) {
            if (!cm.empty() && !cm[i])
                return kSkip;
            const auto k = static_cast<uint32_t>(t.memcpy.copy_kind[i]);
            return k < kMemsetGroup ? k : 0;
        }
        if (!sm.empty() && !sm[i - nc])
            return kSkip;
        return kMemsetGroup;
    };
    const auto time = grouped_stats(kGroups, nc + ns, key, [&](size_t i) {
        return i < nc ? t.memcpy.end[i] - t.memcpy.start[i] : t.memset.end[i - nc] - t.memset.start[i - nc];
    });
    const auto size = grouped_stats(kGroups, nc + ns, key, [&](size_t i) {
        return static_cast<int64_t>(i < nc ? t.memcpy.bytes[i] : t.memset.bytes[i - nc]);
    });
    MemopSection sec;
    for (size_t g = 0; g < kGroups; ++g) {
        if (time[g].count == 0)
            continue;
        MemopRow r;
        r.operation = g == kMemsetGroup ? "[CUDA memset]" : copy_kind_label(static_cast<CopyKind>(g));
        r.count = time[g].count;
        r.total_ns = time[g].total;
        r.avg_ns = time[g].avg;
        r.med_ns = time[g].median;
        r.min_ns = time[g].min;
        r.max_ns = time[g].max;
        r.stddev_ns = time[g].stddev;
        r.bytes = size[g].total;
        r.avg_bytes = size[g].avg;
        r.med_bytes = size[g].median;
        r.min_bytes = size[g].min;
        r.max_bytes = size[g].max;
        r.stddev_bytes = size[g].stddev;
        sec.count += r.count;
        sec.total_ns += r.total_ns;
        sec.bytes += r.bytes;
        sec.by_operation.push_back(std::move(r));
    }
    for (auto& r : sec.by_operation)
        r.percent = sec.total_ns > 0 ? 100.0 * static_cast<double>(r.total_ns) / static_cast<double>(sec.total_ns) : 0;
    std::sort(sec.by_operation.begin(), sec.by_operation.end(), [](const MemopRow& a, const MemopRow& b) {
        if (a.total_ns != b.total_ns)
            return a.total_ns > b.total_ns;
        if (a.count != b.count)
            return a.count < b.count;
        return a.operation < b.operation;
    });
    return sec;
}

const char* range_style(RangeKind k)
{
    switch (k) {
    case RangeKind::PushPop: return "PushPop";
    case RangeKind::StartEnd: return "StartEnd";
    case RangeKind::UserAnnotation: return "Annotation";
    case RangeKind::CpuOp:
    case RangeKind::PyModule:
    case RangeKind::PythonFunction: break;
    }
    return nullptr;
}

NvtxSection nvtx(const Trace& t, const Selection& sel)
{
    const auto& r = t.ranges;
    const std::vector<uint8_t> m = sel.all ? std::vector<uint8_t>{} : mask_by(r.thread, sel.thread_ok);
    std::unordered_map<uint64_t, uint32_t> group_of;
    std::vector<std::pair<StrId, RangeKind>> groups;
    auto key_of = [&](size_t i) -> uint64_t { return (static_cast<uint64_t>(r.name[i]) << 8) | static_cast<uint8_t>(r.kind[i]); };
    for (size_t i = 0; i < r.size(); ++i) {
        if ((!m.empty() && !m[i]) || !range_style(r.kind[i]))
            continue;
        if (group_of.emplace(key_of(i), static_cast<uint32_t>(groups.size())).second)
            groups.emplace_back(r.name[i], r.kind[i]);
    }
    const auto stats = grouped_stats(
        groups.size(), r.size(),
        [&](size_t i) -> uint32_t {
            if ((!m.empty() && !m[i]) || !range_style(r.kind[i]))
                return kSkip;
            return group_of.find(key_of(i))->second;
        },
        [&](size_t i) { return r.end[i] - r.start[i]; });
    NvtxSection sec;
    sec.by_name.resize(groups.size());
    for (size_t g = 0; g < groups.size(); ++g) {
        sec.by_name[g].name = std::string(t.str(groups[g].first));
        sec.by_name[g].style = range_style(groups[g].second);
        fill_row(sec.by_name[g], stats[g]);
    }
    order_and_percent(sec.by_name, sec.count, sec.total_ns);
    // Equal name, total and instances: order by style so the result is deterministic.
    std::stable_sort(sec.by_name.begin(), sec.by_name.end(), [](const NvtxRow& a, const NvtxRow& b) {
        if (a.total_ns != b.total_ns)
            return a.total_ns > b.total_ns;
        if (a.instances != b.instances)
            return a.instances < b.instances;
        if (a.name != b.name)
            return a.name < b.name;
        return a.style < b.style;
    });
    return sec;
}

GapNeighbor gap_op(const Trace& t, GpuOpRef op)
{
    GapNeighbor g;
    g.op = op;
    g.name = std::string(op_name(t, op));
    g.stream = op_stream(t, op);
    g.start_ns = op_start(t, op);
    g.end_ns = op_end(t, op);
    return g;
}

// One device's summary from its busy periods as for_each_busy_period streams them: the gap statistics and the
// largest gaps (a bounded heap) are kept, never the periods (issue 18: at 10^7 kernels the period list and an index
// of every gap were 570 MB at the summary's peak).
class DeviceSummaryBuilder {
public:
    DeviceSummaryBuilder(const Trace& t, size_t top_gaps) : t_(t), top_(top_gaps, ahead) { reset(); }

    void period(const BusyPeriod& p)
    {
        busy_ns_ += p.end - p.start;
        if (periods_ > 0) {
            const int64_t len = p.start - prev_.end;
            ++d_.gaps.count;
            d_.gaps.total_ns += len;
            auto& bucket = d_.gaps.histogram[gap_bucket_of(len)];
            ++bucket.count;
            bucket.total_ns += len;
            offer({len, periods_ - 1, prev_.end, prev_.last, p.first});
        }
        prev_ = p;
        ++periods_;
    }

    DeviceSummary finish(const DeviceActivity& a)
    {
        const DeviceInfo& info = t_.meta.devices[a.device];
        d_.device = a.device;
        d_.id = info.id;
        d_.rank = info.rank;
        d_.name = info.name;
        d_.kernels = a.kernels;
        d_.memcpys = a.memcpys;
        d_.memsets = a.memsets;
        d_.window_start_ns = a.window_start;
        d_.window_end_ns = a.window_end;
        d_.window_ns = a.window_ns();
        d_.busy_ns = busy_ns_;
        d_.idle_ns = d_.window_ns - d_.busy_ns;
        d_.utilization =
            d_.window_ns > 0 ? static_cast<double>(d_.busy_ns) / static_cast<double>(d_.window_ns) : 0.0;
        d_.busy_periods = periods_;
        for (const Candidate& c : top_.take()) {
            DeviceGap g;
            g.start_ns = c.start;
            g.duration_ns = c.len;
            g.before = gap_op(t_, c.before);
            g.after = gap_op(t_, c.after);
            d_.gaps.largest.push_back(std::move(g));
        }
        DeviceSummary out = std::move(d_);
        reset();
        return out;
    }

private:
    struct Candidate {
        int64_t len;
        int64_t index;   // gap i lies between busy periods i and i + 1
        int64_t start;
        GpuOpRef before, after;
    };
    // Longer first; equal lengths in time order (the order the full sort of every gap gave).
    static bool ahead(const Candidate& x, const Candidate& y) { return x.len != y.len ? x.len > y.len : x.index < y.index; }
    void offer(const Candidate& c) { top_.offer(c); }

    void reset()
    {
        d_ = DeviceSummary{};
        const auto& defs = gap_bucket_defs();
        for (size_t b = 0; b < kGapBuckets; ++b) {
            d_.gaps.histogram[b].label = defs[b].label;
            d_.gaps.histogram[b].lo_ns = defs[b].lo_ns;
            d_.gaps.histogram[b].hi_ns = defs[b].hi_ns;
        }
        busy_ns_ = 0;
        periods_ = 0;
    }

    const Trace& t_;
    DeviceSummary d_;
    TopK<Candidate, bool (*)(const Candidate&, const Candidate&)> top_;
    BusyPeriod prev_;
    int64_t busy_ns_ = 0, periods_ = 0;
};

} // namespace

Summary summarize(const Trace& t, const SummaryOptions& options)
{
    Summary s;
    s.options = options;
    s.warnings = t.meta.warnings;

    Selection sel;
    if (options.rank) {
        sel.all = false;
        sel.device_ok.resize(t.meta.devices.size());
        sel.thread_ok.resize(t.meta.threads.size());
        bool any = false;
        for (size_t i = 0; i < t.meta.devices.size(); ++i)
            any |= (sel.device_ok[i] = t.meta.devices[i].rank == *options.rank) != 0;
        for (size_t i = 0; i < t.meta.threads.size(); ++i)
            any |= (sel.thread_ok[i] = t.meta.threads[i].rank == *options.rank) != 0;
        for (const auto& p : t.meta.processes)
            any |= p.rank == *options.rank;
        if (!any)
            s.warnings.push_back("rank " + std::to_string(*options.rank) + " is not in the trace");
    }

    const std::vector<uint8_t> no_mask;
    s.kernels = by_name(t, t.kernels.start, t.kernels.end, t.kernels.name,
                        sel.all ? no_mask : mask_by(t.kernels.device, sel.device_ok));
    s.api = by_name(t, t.api.start, t.api.end, t.api.name, sel.all ? no_mask : mask_by(t.api.thread, sel.thread_ok));
    s.memops = memops(t, sel);
    s.nvtx = nvtx(t, sel);

    DeviceSummaryBuilder builder(t, options.top_gaps);
    for_each_busy_period(
        t, [&](const BusyPeriod& p) { builder.period(p); },
        [&](DeviceActivity&& a) {
            DeviceSummary d = builder.finish(a);
            if (sel.all || sel.device_ok[a.device])
                s.devices.push_back(std::move(d));
        });
    if (s.kernels.count == 0 && s.memops.count == 0)
        s.warnings.push_back("no GPU activity: the trace has no kernels, memory copies or memsets" +
                             std::string(options.rank ? " on rank " + std::to_string(*options.rank) : ""));
    return s;
}

} // namespace sl
