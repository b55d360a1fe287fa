#include "model/timeline_density.h"

#include <algorithm>
#include <map>

namespace sl {

GapDensity::GapDensity(const TimelineIndex& index, const TimelineLane& lane) : index_(&index), lane_(&lane)
{
    const uint32_t n = uint32_t(lane.items.size());
    if (lane.blockSum.size() == (n + TimelineIndex::kBlock - 1) / TimelineIndex::kBlock + 1) {
        lanePrefix_ = &lane.blockSum;
        return;
    }
    ownPrefix_.reserve(n / TimelineIndex::kBlock + 2);
    int64_t sum = 0;
    for (uint32_t i = 0; i < n; ++i) {
        if (i % TimelineIndex::kBlock == 0)
            ownPrefix_.push_back(sum);
        sum += index.itemEnd(lane, i) - index.itemStart(lane, i);
    }
    ownPrefix_.push_back(sum);
}

int64_t GapDensity::prefix(uint32_t i) const
{
    const uint32_t n = uint32_t(lane_->items.size());
    if (i >= n)
        return blockPrefix().back();
    const uint32_t b = i / TimelineIndex::kBlock;
    int64_t sum = blockPrefix()[b];
    for (uint32_t j = b * TimelineIndex::kBlock; j < i; ++j)
        sum += index_->itemEnd(*lane_, j) - index_->itemStart(*lane_, j);
    return sum;
}

int64_t GapDensity::idleIn(int64_t t0, int64_t t1) const
{
    if (!index_ || t1 <= t0 || lane_->items.empty())
        return 0;
    const uint32_t a = index_->firstEndingAfter(*lane_, t0);
    const uint32_t b = index_->endStartingBefore(*lane_, t1);
    if (a >= b)
        return 0;
    int64_t sum = prefix(b) - prefix(a);
    // Clip the first and last gap to [t0, t1) (one gap may be both).
    sum -= std::max<int64_t>(0, t0 - index_->itemStart(*lane_, a));
    sum -= std::max<int64_t>(0, index_->itemEnd(*lane_, b - 1) - t1);
    return std::max<int64_t>(0, sum);
}

int64_t GapDensity::idleBefore(int64_t t, Cursor& c) const
{
    const uint32_t n = uint32_t(lane_->items.size());
    // k: the gaps starting before t, by galloping forward from the previous boundary's (boundaries only grow).
    uint32_t lo = c.k, step = 1, hi = lo;
    while (hi < n && index_->itemStart(*lane_, hi) < t) {
        lo = hi + 1;
        hi = uint32_t(std::min<uint64_t>(n, uint64_t(hi) + step));
        step *= 2;
    }
    while (lo < hi) {   // the first of [lo, hi) starting at or after t
        const uint32_t mid = lo + (hi - lo) / 2;
        if (index_->itemStart(*lane_, mid) < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    const uint32_t k = lo;
    // Σ durations of gaps [0, k): from the previous boundary's sum when k is close, else from the nearer end of
    // k's block of prefix sums.
    auto dur = [&](uint32_t j) { return index_->itemEnd(*lane_, j) - index_->itemStart(*lane_, j); };
    constexpr uint32_t kB = TimelineIndex::kBlock;
    const uint32_t b = k / kB, inBlock = k - b * kB, blockEnd = std::min(n, (b + 1) * kB);
    int64_t sum = 0;
    if (c.valid && k - c.k <= std::min(inBlock, blockEnd - k)) {
        sum = c.sum;
        for (uint32_t j = c.k; j < k; ++j)
            sum += dur(j);
    } else if (k == n || inBlock <= blockEnd - k) {
        sum = k == n ? blockPrefix().back() : blockPrefix()[b];
        for (uint32_t j = b * kB; j < k && k != n; ++j)
            sum += dur(j);
    } else {
        sum = blockPrefix()[b + 1];
        for (uint32_t j = k; j < blockEnd; ++j)
            sum -= dur(j);
    }
    c.k = k;
    c.sum = sum;
    c.valid = true;
    // The last gap starting before t may reach past it.
    return k > 0 ? sum - std::max<int64_t>(0, index_->itemEnd(*lane_, k - 1) - t) : 0;
}

std::vector<float> GapDensity::columnFractions(const timeline::Window& w, int columns) const
{
    std::vector<float> out(size_t(std::max(0, columns)), 0.f);
    if (!index_ || columns <= 0 || w.duration() <= 0 || lane_->items.empty())
        return out;
    // Idle in [t_x, t_x+1) = idle before t_x+1 - idle before t_x: each column boundary is found once, by a forward
    // search from the previous one, instead of two binary searches and two block walks per column (idleIn()). The
    // same integers as idleIn(), so the same fractions.
    Cursor c;
    int64_t prev = w.start;
    int64_t before = idleBefore(prev, c);
    for (int x = 0; x < columns; ++x) {
        const int64_t next = x + 1 == columns ? w.end : timeline::xToTime(double(x + 1), w, double(columns));
        if (next > prev) {
            const int64_t after = idleBefore(next, c);
            out[size_t(x)] = float(std::clamp(double(std::max<int64_t>(0, after - before)) / double(next - prev), 0.0, 1.0));
            before = after;
        }
        prev = std::max(prev, next);
    }
    return out;
}

int dominantKernelClass(const TimelineIndex& index, const TimelineLane& lane, uint32_t first, uint32_t count,
                        const std::vector<int16_t>& kernelClass, uint32_t sample)
{
    const uint32_t n = uint32_t(lane.items.size());
    if (first >= n || count == 0)
        return -1;
    count = std::min(count, n - first);
    const uint32_t reads = std::max<uint32_t>(1, std::min(count, sample));
    std::map<int, int64_t> time;
    for (uint32_t k = 0; k < reads; ++k) {
        const uint32_t i = first + uint32_t(uint64_t(k) * count / reads);
        const ItemRef r = index.ref(lane, i);
        if (r.kind != ItemKind::Kernel || r.row >= kernelClass.size() || kernelClass[r.row] < 0)
            continue;
        // At least 1 ns, so zero-length kernels still count.
        time[kernelClass[r.row]] += std::max<int64_t>(1, index.itemEnd(lane, i) - index.itemStart(lane, i));
    }
    int best = -1;
    int64_t bestNs = 0;
    for (const auto& [c, ns] : time)
        if (ns > bestNs) {
            best = c;
            bestNs = ns;
        }
    return best;
}

} // namespace sl
