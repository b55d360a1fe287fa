#include "model/kernel_lookup.h"

#include <tuple>

#include <algorithm>
#include <cmath>

namespace sl {

namespace {

bool containsNoCase(std::string_view hay, std::string_view needle)
{
    if (needle.empty())
        return true;
    auto lower = [](char c) { return (c >= 'A' && c <= 'Z') ? char(c - 'A' + 'a') : c; };
    const auto it = std::search(hay.begin(), hay.end(), needle.begin(), needle.end(),
                                [&](char a, char b) { return lower(a) == lower(b); });
    return it != hay.end();
}

// Sorts 64-bit keys ascending: std::sort for small arrays, else an LSD radix sort by 16-bit digits that skips the
// digits every key shares (the high bits of durations, mostly).
void radixSort(std::vector<uint64_t>& keys, std::vector<uint64_t>& scratch)
{
    if (keys.size() < 4096) {
        std::sort(keys.begin(), keys.end());
        return;
    }
    uint64_t allOr = 0, allAnd = ~uint64_t(0);
    for (uint64_t k : keys) {
        allOr |= k;
        allAnd &= k;
    }
    scratch.resize(keys.size());
    std::vector<uint32_t> count(65536);
    for (int shift = 0; shift < 64; shift += 16) {
        if (((allOr ^ allAnd) >> shift & 0xffff) == 0)
            continue;   // this digit is the same in every key
        std::fill(count.begin(), count.end(), 0u);
        for (uint64_t k : keys)
            ++count[k >> shift & 0xffff];
        uint32_t sum = 0;
        for (uint32_t& c : count) {
            const uint32_t v = c;
            c = sum;
            sum += v;
        }
        for (uint64_t k : keys)
            scratch[count[k >> shift & 0xffff]++] = k;
        keys.swap(scratch);
    }
}

} // namespace

std::shared_ptr<const KernelLookup> KernelLookup::build(std::shared_ptr<const Trace> tracePtr, const LoadControl& control)
{
    auto lk = std::make_shared<KernelLookup>();
    lk->trace_ = std::move(tracePtr);
    const Trace& t = *lk->trace_;
    const KernelTable& k = t.kernels;
    const uint32_t n = static_cast<uint32_t>(k.size());

    // Counting sort by name, then sort each group by duration.
    std::vector<uint32_t> counts(t.strings.size() + 1, 0);
    for (uint32_t i = 0; i < n; ++i)
        if (k.name[i] < t.strings.size())
            ++counts[k.name[i]];
    std::vector<uint32_t> offset(counts.size() + 1, 0);
    for (size_t s = 0; s < counts.size(); ++s)
        offset[s + 1] = offset[s] + counts[s];
    lk->rows_.resize(offset.back());
    {
        std::vector<uint32_t> fill(offset.begin(), offset.end() - 1);
        for (uint32_t i = 0; i < n; ++i)
            if (k.name[i] < t.strings.size())
                lk->rows_[fill[k.name[i]]++] = i;
    }
    control.check();
    lk->nameSlot_.assign(t.strings.size(), UINT32_MAX);
    std::vector<std::pair<int64_t, uint32_t>> keyed;
    std::vector<uint64_t> keys, scratch;
    for (size_t s = 0; s < counts.size(); ++s) {
        if (counts[s] == 0)
            continue;
        // Sort (duration, ~row) keys: contiguous, so the sort does not chase rows through the trace's columns.
        const auto b = lk->rows_.begin() + offset[s], e = lk->rows_.begin() + offset[s + 1];
        int64_t total = 0;
        bool small = true;   // every duration in [0, 2^32): (duration, ~row) fits one 64-bit key
        for (auto it = b; it != e && small; ++it) {
            const int64_t d = lk->duration(*it);
            small = d >= 0 && d <= int64_t(UINT32_MAX);
        }
        if (small) {
            // The same order as sorting the pairs, on one integer key: radix-sorted for the big groups (a 10^7-kernel
            // trace has groups of millions, where the comparison sort was most of the timeline index's build).
            keys.clear();
            for (auto it = b; it != e; ++it)
                keys.push_back(uint64_t(lk->duration(*it)) << 32 | uint32_t(~*it));
            radixSort(keys, scratch);
            auto out = b;
            for (uint64_t key : keys) {
                total += int64_t(key >> 32);
                *out++ = ~uint32_t(key);
            }
        } else {
            keyed.clear();
            for (auto it = b; it != e; ++it)
                keyed.emplace_back(lk->duration(*it), ~*it);
            std::sort(keyed.begin(), keyed.end());
            auto out = b;
            for (const auto& [d, notRow] : keyed) {
                total += d;
                *out++ = ~notRow;
            }
        }
        lk->names_.push_back({StrId(s), offset[s], offset[s + 1], total});
        if ((lk->names_.size() & 1023) == 0)
            control.check();
    }
    std::sort(lk->names_.begin(), lk->names_.end(), [](const Name& a, const Name& b) {
        return a.total != b.total ? a.total > b.total : a.name < b.name;
    });
    lk->shortOf_.reserve(lk->names_.size());
    for (uint32_t i = 0; i < lk->names_.size(); ++i) {
        lk->nameSlot_[lk->names_[i].name] = i;
        lk->shortOf_.push_back(k.short_name[lk->rows_[lk->names_[i].begin]]);
    }

    lk->apiKernel_.assign(t.api.size(), -1);
    for (uint32_t i = 0; i < n; ++i) {
        const int32_t a = k.launch_api[i];
        if (a >= 0 && size_t(a) < t.api.size() && lk->apiKernel_[size_t(a)] < 0)
            lk->apiKernel_[size_t(a)] = int32_t(i);
    }
    lk->rows_.shrink_to_fit();

    const RangeTable& r = t.ranges;
    {
        std::vector<int32_t> longest(t.strings.size(), -1);
        for (uint32_t i = 0; i < r.size(); ++i) {
            const StrId nm = r.name[i];
            if (nm >= longest.size())
                continue;
            const int32_t b = longest[nm];
            if (b < 0 || r.end[i] - r.start[i] > r.end[size_t(b)] - r.start[size_t(b)])
                longest[nm] = int32_t(i);
        }
        for (StrId s = 0; s < longest.size(); ++s)
            if (longest[s] >= 0)
                lk->longestRange_.emplace_back(s, longest[s]);
    }
    control.check();

    // Kernel -> the op_args row of its CPU op: (rank, pid, correlation) of the launch -> External id -> (rank, pid,
    // External id) of the op; an inner op with the same External id wins (as in shape_roofline).
    const OpArgsTable& a = t.op_args;
    if (a.size() > 0) {
        using Key = std::tuple<int32_t, int64_t, int64_t>;
        std::vector<std::pair<Key, int32_t>> ops, launches;
        for (size_t i = 0; i < a.size(); ++i) {
            if (a.source[i] == OpArgsTable::kCpuOp && a.external_id[i] != 0)
                ops.push_back({{a.rank[i], a.pid[i], a.external_id[i]}, int32_t(i)});
            else if (a.source[i] == OpArgsTable::kLaunch && a.correlation[i] != 0)
                launches.push_back({{a.rank[i], a.pid[i], int64_t(a.correlation[i])}, int32_t(i)});
        }
        // Sorted by key, the later row last among equals: upper_bound - 1 finds it.
        std::sort(ops.begin(), ops.end());
        std::sort(launches.begin(), launches.end());
        auto last = [](const std::vector<std::pair<Key, int32_t>>& v, const Key& key) {
            auto it = std::upper_bound(v.begin(), v.end(), std::make_pair(key, INT32_MAX));
            return it != v.begin() && std::prev(it)->first == key ? std::prev(it)->second : -1;
        };
        control.check();
        for (uint32_t i = 0; i < n; ++i) {
            if (k.correlation[i] == 0)
                continue;
            const int32_t rank = k.device[i] < t.meta.devices.size() ? t.meta.devices[k.device[i]].rank : 0;
            const int64_t pid = k.process[i] < t.meta.processes.size() ? t.meta.processes[k.process[i]].pid : 0;
            const int32_t l = last(launches, {rank, pid, int64_t(k.correlation[i])});
            if (l < 0)
                continue;
            const int32_t op = last(ops, {rank, pid, a.external_id[size_t(l)]});
            if (op >= 0)
                lk->opArgs_.emplace_back(i, op);
        }
        lk->opArgs_.shrink_to_fit();
    }
    return lk;
}

int32_t KernelLookup::opArgsOfKernel(uint32_t row) const
{
    auto it = std::lower_bound(opArgs_.begin(), opArgs_.end(), std::make_pair(row, INT32_MIN));
    return it != opArgs_.end() && it->first == row ? it->second : -1;
}

int32_t KernelLookup::scanOpArgsOfKernel(const Trace& t, uint32_t row)
{
    const OpArgsTable& a = t.op_args;
    const KernelTable& k = t.kernels;
    if (row >= k.size() || k.correlation[row] == 0 || a.size() == 0)
        return -1;
    const int32_t rank = k.device[row] < t.meta.devices.size() ? t.meta.devices[k.device[row]].rank : 0;
    const int64_t pid = k.process[row] < t.meta.processes.size() ? t.meta.processes[k.process[row]].pid : 0;
    int64_t ext = 0;
    bool found = false;
    for (size_t i = 0; i < a.size(); ++i)
        if (a.source[i] == OpArgsTable::kLaunch && a.rank[i] == rank && a.pid[i] == pid &&
            a.correlation[i] == k.correlation[row]) {
            ext = a.external_id[i];
            found = true;
        }
    if (!found)
        return -1;
    int32_t op = -1;
    for (size_t i = 0; i < a.size(); ++i)
        if (a.source[i] == OpArgsTable::kCpuOp && a.external_id[i] == ext && ext != 0 && a.rank[i] == rank &&
            a.pid[i] == pid)
            op = int32_t(i);
    return op;
}

const KernelLookup::Name* KernelLookup::find(StrId name) const
{
    if (name >= nameSlot_.size() || nameSlot_[name] == UINT32_MAX)
        return nullptr;
    return &names_[nameSlot_[name]];
}

std::span<const uint32_t> KernelLookup::instances(StrId name) const
{
    const Name* e = find(name);
    if (!e)
        return {};
    return std::span<const uint32_t>(rows_.data() + e->begin, e->end - e->begin);
}

int64_t KernelLookup::longestInstance(StrId name) const
{
    const auto rows = instances(name);
    return rows.empty() ? -1 : int64_t(rows.back());
}

size_t KernelLookup::quantileIndex(size_t n, double q)
{
    if (n == 0)
        return 0;
    q = std::clamp(q, 0.0, 1.0);
    return std::min(n - 1, size_t(std::llround(q * double(n - 1))));
}

NameDistribution KernelLookup::distribution(StrId name) const
{
    NameDistribution d;
    const Name* e = find(name);
    if (!e)
        return d;
    const auto rows = instances(name);
    d.count = int64_t(rows.size());
    d.total = e->total;
    d.min = duration(rows.front());
    d.max = duration(rows.back());
    d.median = duration(rows[quantileIndex(rows.size(), 0.5)]);
    d.p90 = duration(rows[quantileIndex(rows.size(), 0.9)]);
    return d;
}

double KernelLookup::percentileOf(int64_t row) const
{
    if (row < 0 || size_t(row) >= trace_->kernels.size())
        return 0;
    const auto rows = instances(trace_->kernels.name[size_t(row)]);
    if (rows.size() <= 1)
        return 1.0;
    const int64_t d = duration(uint32_t(row));
    const auto it = std::partition_point(rows.begin(), rows.end(), [&](uint32_t r) { return duration(r) < d; });
    return double(it - rows.begin()) / double(rows.size() - 1);
}

int64_t KernelLookup::kernelOfApi(int64_t api) const
{
    if (api < 0 || size_t(api) >= apiKernel_.size())
        return -1;
    return apiKernel_[size_t(api)];
}

namespace {

// The first longest row named `name` of a table with name, start and end columns; -1 when none.
template <class Table>
int64_t scanLongestNamed(const Table& t, StrId name)
{
    int64_t best = -1;
    for (size_t i = 0; i < t.size(); ++i)
        if (t.name[i] == name && (best < 0 || t.end[i] - t.start[i] > t.end[size_t(best)] - t.start[size_t(best)]))
            best = int64_t(i);
    return best;
}

} // namespace

int64_t KernelLookup::scanLongestInstance(const Trace& trace, StrId name)
{
    return scanLongestNamed(trace.kernels, name);
}

int64_t KernelLookup::scanKernelOfApi(const Trace& trace, int64_t api)
{
    if (api < 0 || size_t(api) >= trace.api.size())
        return -1;
    const KernelTable& k = trace.kernels;
    for (size_t i = 0; i < k.size(); ++i)
        if (k.launch_api[i] == api)
            return int64_t(i);
    return -1;
}

int64_t KernelLookup::scanLongestRange(const Trace& trace, StrId name)
{
    return scanLongestNamed(trace.ranges, name);
}

std::vector<StrId> KernelLookup::search(std::string_view needle, size_t limit) const
{
    std::vector<StrId> out;
    for (size_t i = 0; i < names_.size() && out.size() < limit; ++i)
        if (containsNoCase(trace_->str(names_[i].name), needle) || containsNoCase(trace_->str(shortOf_[i]), needle))
            out.push_back(names_[i].name);
    return out;
}

int64_t KernelLookup::longestRange(StrId name) const
{
    const auto it = std::lower_bound(longestRange_.begin(), longestRange_.end(), std::make_pair(name, INT32_MIN));
    return it != longestRange_.end() && it->first == name ? it->second : -1;
}

size_t KernelLookup::memoryBytes() const
{
    return sizeof(*this) + rows_.capacity() * sizeof(uint32_t) + names_.capacity() * sizeof(Name) +
           nameSlot_.capacity() * sizeof(uint32_t) + apiKernel_.capacity() * sizeof(int32_t) +
           shortOf_.capacity() * sizeof(StrId) + longestRange_.capacity() * sizeof(longestRange_[0]) +
           opArgs_.capacity() * sizeof(opArgs_[0]);
}

} // namespace sl
