#include "model/class_density.h"

#include <algorithm>

#include "model/timeline_density.h"

namespace sl {

namespace {

constexpr uint32_t kB = TimelineIndex::kBlock;

// Where a sweep over increasing times stands: k items of the lane start before the last time asked, and `sums` are
// their durations per class.
struct Cursor {
    uint32_t k = 0;
    std::vector<int64_t> sums;
    bool valid = false;
};

} // namespace

std::shared_ptr<const ClassDensity> ClassDensity::build(std::shared_ptr<const TimelineIndex> index,
                                                        std::shared_ptr<const AnalysisResult> analysis,
                                                        const LoadControl& control)
{
    auto d = std::make_shared<ClassDensity>();
    d->index_ = std::move(index);
    d->analysis_ = std::move(analysis);
    if (!d->index_ || !d->analysis_)
        return d;
    const auto& classes = d->analysis_->classes.classes;
    d->classes_ = std::max<int>(1, int(classes.size()));
    for (size_t c = 0; c < classes.size(); ++c) {
        if (classes[c].id == "memcpy_memset")
            d->copySlot_ = int(c);
        if (classes[c].id == "other")
            d->otherSlot_ = int(c);
    }
    const auto& lanes = d->index_->lanes();
    const size_t K = size_t(d->classes_);
    for (size_t li = 0; li < lanes.size(); ++li) {
        const TimelineLane& lane = lanes[li];
        if (lane.kind != LaneKind::Stream)
            continue;
        control.check();
        LanePrefix p;
        p.lane = int(li);
        const uint32_t n = uint32_t(lane.items.size());
        p.sums.assign((size_t(n + kB - 1) / kB + 1) * K, 0);
        std::vector<int64_t> running(K, 0);
        for (uint32_t i = 0; i < n; ++i) {
            if (i % kB == 0)
                std::copy(running.begin(), running.end(), p.sums.begin() + ptrdiff_t(size_t(i / kB) * K));
            running[size_t(d->slotOf(lane, i))] += d->index_->itemEnd(lane, i) - d->index_->itemStart(lane, i);
        }
        std::copy(running.begin(), running.end(), p.sums.end() - ptrdiff_t(K));
        d->lanes_.push_back(std::move(p));
    }
    return d;
}

int ClassDensity::slotOf(const TimelineLane& lane, uint32_t i) const
{
    const ItemRef r = index_->ref(lane, i);
    if (r.kind == ItemKind::Kernel) {
        const auto& kc = analysis_->classes.kernel_class;
        const int c = r.row < kc.size() ? kc[r.row] : -1;
        return c >= 0 && c < classes_ ? c : otherSlot_;
    }
    return copySlot_ >= 0 ? copySlot_ : otherSlot_;
}

const ClassDensity::LanePrefix* ClassDensity::prefixOf(int lane) const
{
    auto it = std::lower_bound(lanes_.begin(), lanes_.end(), lane,
                               [](const LanePrefix& p, int l) { return p.lane < l; });
    return it != lanes_.end() && it->lane == lane ? &*it : nullptr;
}

namespace {

// Class durations of the items of `lane` starting before t (the last one clipped at t), for t not less than the
// cursor's last t.
void timeBefore(const TimelineIndex& index, const TimelineLane& lane, const std::vector<int64_t>& prefix, size_t K,
                const ClassDensity& d, int64_t t, Cursor& c, std::vector<int64_t>& out)
{
    const uint32_t n = uint32_t(lane.items.size());
    uint32_t lo = c.k, step = 1, hi = lo;
    while (hi < n && index.itemStart(lane, hi) < t) {
        lo = hi + 1;
        hi = uint32_t(std::min<uint64_t>(n, uint64_t(hi) + step));
        step *= 2;
    }
    while (lo < hi) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (index.itemStart(lane, mid) < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    const uint32_t k = lo;
    auto add = [&](uint32_t j, int64_t sign) {
        c.sums[size_t(d.slotOf(lane, j))] += sign * (index.itemEnd(lane, j) - index.itemStart(lane, j));
    };
    const uint32_t b = k / kB, inBlock = k - b * kB, blockEnd = std::min(n, (b + 1) * kB);
    if (c.valid && k - c.k <= std::min(inBlock, blockEnd - k)) {
        for (uint32_t j = c.k; j < k; ++j)
            add(j, 1);
    } else if (k == n || inBlock <= blockEnd - k) {
        const size_t row = k == n ? prefix.size() / K - 1 : b;
        std::copy(prefix.begin() + ptrdiff_t(row * K), prefix.begin() + ptrdiff_t((row + 1) * K), c.sums.begin());
        for (uint32_t j = b * kB; j < k && k != n; ++j)
            add(j, 1);
    } else {
        std::copy(prefix.begin() + ptrdiff_t((b + 1) * K), prefix.begin() + ptrdiff_t((b + 2) * K), c.sums.begin());
        for (uint32_t j = k; j < blockEnd; ++j)
            add(j, -1);
    }
    c.k = k;
    c.valid = true;
    out = c.sums;
    if (k > 0) {
        const int64_t over = index.itemEnd(lane, k - 1) - t;
        if (over > 0)
            out[size_t(d.slotOf(lane, k - 1))] -= over;
    }
}

} // namespace

void ClassDensity::laneColumns(int lane, const timeline::Window& w, int columns, std::vector<int64_t>& out) const
{
    const LanePrefix* p = prefixOf(lane);
    out.clear();
    if (!p || columns <= 0 || w.duration() <= 0)
        return;
    const size_t K = size_t(classes_);
    out.assign(size_t(columns) * K, 0);
    const TimelineLane& l = index_->lanes()[size_t(lane)];
    if (l.items.empty())
        return;
    // Only the columns the lane's items can reach: the sweep starts at its first item ending in the window.
    Cursor c;
    c.sums.assign(K, 0);
    std::vector<int64_t> before(K), after(K);
    int64_t prev = w.start;
    timeBefore(*index_, l, p->sums, K, *this, prev, c, before);
    const uint32_t n = uint32_t(l.items.size());
    for (int x = 0; x < columns; ++x) {
        const int64_t next = x + 1 == columns ? w.end : timeline::xToTime(double(x + 1), w, double(columns));
        if (next <= prev)
            continue;
        timeBefore(*index_, l, p->sums, K, *this, next, c, after);
        int64_t* o = out.data() + size_t(x) * K;
        for (size_t s = 0; s < K; ++s)
            o[s] = std::clamp<int64_t>(after[s] - before[s], 0, next - prev);
        before.swap(after);
        prev = next;
        if (c.k >= n && (n == 0 || index_->itemEnd(l, n - 1) <= prev))
            break;   // past the lane's last item: the rest stay 0
    }
}

std::vector<int64_t> ClassDensity::laneTime(int lane, int64_t t0, int64_t t1) const
{
    std::vector<int64_t> out;
    laneColumns(lane, {t0, std::max(t1, t0 + 1)}, 1, out);
    if (out.empty())
        out.assign(size_t(classes_), 0);
    return out;
}

ClassDensity::Overview ClassDensity::overview(const timeline::Window& w, int columns) const
{
    Overview o;
    if (!index_ || columns <= 0 || w.duration() <= 0)
        return o;
    const size_t K = size_t(classes_);
    o.columns = columns;
    o.classes = classes_;
    o.busy.assign(size_t(columns), 0.f);
    o.share.assign(size_t(columns) * K, 0.f);
    std::vector<double> total(size_t(columns) * K, 0.0);
    std::vector<int64_t> lane;
    for (const LanePrefix& p : lanes_) {
        laneColumns(p.lane, w, columns, lane);
        for (size_t i = 0; i < lane.size(); ++i)
            total[i] += double(lane[i]);
    }
    // Busy per device: its activity window (first op .. last op of its streams) inside the column, less its idle
    // gaps there (the gap lane's density).
    const auto& lanes = index_->lanes();
    int devices = 0;
    std::vector<double> busy(size_t(columns), 0.0);
    for (size_t li = 0; li < lanes.size(); ++li) {
        if (lanes[li].kind != LaneKind::Gaps)
            continue;
        int64_t first = INT64_MAX, last = INT64_MIN;
        for (const TimelineLane& s : lanes)
            if (s.kind == LaneKind::Stream && s.device == lanes[li].device && !s.items.empty()) {
                first = std::min(first, index_->itemStart(s, 0));
                last = std::max(last, s.blockMaxEnd.back());
            }
        if (first >= last)
            continue;
        ++devices;
        const GapDensity gaps(*index_, lanes[li]);
        const std::vector<float> idle = gaps.columnFractions(w, columns);
        int64_t prev = w.start;
        for (int x = 0; x < columns; ++x) {
            const int64_t next = x + 1 == columns ? w.end : timeline::xToTime(double(x + 1), w, double(columns));
            if (next > prev) {
                const int64_t active = std::max<int64_t>(0, std::min(next, last) - std::max(prev, first));
                const double idleNs = double(idle[size_t(x)]) * double(next - prev);
                busy[size_t(x)] += std::max(0.0, double(active) - idleNs) / double(next - prev);
            }
            prev = std::max(prev, next);
        }
    }
    for (int x = 0; x < columns; ++x) {
        double sum = 0;
        for (size_t c = 0; c < K; ++c)
            sum += total[size_t(x) * K + c];
        if (devices > 0)
            o.busy[size_t(x)] = float(std::clamp(busy[size_t(x)] / devices, 0.0, 1.0));
        if (sum > 0)
            for (size_t c = 0; c < K; ++c)
                o.share[size_t(x) * K + c] = float(total[size_t(x) * K + c] / sum);
    }
    return o;
}

size_t ClassDensity::memoryBytes() const
{
    size_t b = sizeof(*this) + lanes_.capacity() * sizeof(LanePrefix);
    for (const LanePrefix& p : lanes_)
        b += p.sums.capacity() * sizeof(int64_t);
    return b;
}

} // namespace sl
