#include "model/timeline_index.h"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace sl {

namespace {

constexpr uint32_t kRowBits = 29;
constexpr uint32_t kRowMask = (1u << kRowBits) - 1;

uint32_t pack(ItemKind k, uint32_t row) { return (static_cast<uint32_t>(k) << kRowBits) | (row & kRowMask); }

bool mergeable(int64_t start, int64_t end, uint32_t count, int64_t bucket)
{
    return count > 1 || end - start < bucket;
}

} // namespace

int64_t timeOrigin(const Trace& trace, int64_t fallback)
{
    const TraceMeta& m = trace.meta;
    return m.capture_end > m.capture_start ? m.capture_start : fallback;
}

ItemRef TimelineIndex::ref(const TimelineLane& lane, uint32_t i) const
{
    if (lane.kind == LaneKind::Gaps)
        return {ItemKind::Gap, i};
    const uint32_t p = lane.items[i];
    return {static_cast<ItemKind>(p >> kRowBits), p & kRowMask};
}

static int64_t packedStart(const Trace& t, uint32_t p)
{
    const uint32_t row = p & kRowMask;
    switch (static_cast<ItemKind>(p >> kRowBits)) {
    case ItemKind::Kernel: return t.kernels.start[row];
    case ItemKind::Memcpy: return t.memcpy.start[row];
    case ItemKind::Memset: return t.memset.start[row];
    case ItemKind::Api: return t.api.start[row];
    case ItemKind::Range: return t.ranges.start[row];
    case ItemKind::Gap: break;
    }
    return 0;
}

static int64_t packedEnd(const Trace& t, uint32_t p)
{
    const uint32_t row = p & kRowMask;
    switch (static_cast<ItemKind>(p >> kRowBits)) {
    case ItemKind::Kernel: return t.kernels.end[row];
    case ItemKind::Memcpy: return t.memcpy.end[row];
    case ItemKind::Memset: return t.memset.end[row];
    case ItemKind::Api: return t.api.end[row];
    case ItemKind::Range: return t.ranges.end[row];
    case ItemKind::Gap: break;
    }
    return 0;
}

int64_t TimelineIndex::itemStart(const TimelineLane& lane, uint32_t i) const
{
    return lane.kind == LaneKind::Gaps ? packedEnd(*trace_, lane.gapBefore[i]) : packedStart(*trace_, lane.items[i]);
}

int64_t TimelineIndex::itemEnd(const TimelineLane& lane, uint32_t i) const
{
    return lane.kind == LaneKind::Gaps ? packedStart(*trace_, lane.items[i]) : packedEnd(*trace_, lane.items[i]);
}

uint32_t TimelineIndex::firstEndingAfter(const TimelineLane& lane, int64_t t) const
{
    // blockMaxEnd is non-decreasing: find the first block that reaches past t, then scan inside it.
    const auto b = std::upper_bound(lane.blockMaxEnd.begin(), lane.blockMaxEnd.end(), t);
    if (b == lane.blockMaxEnd.end())
        return static_cast<uint32_t>(lane.items.size());
    uint32_t i = static_cast<uint32_t>(b - lane.blockMaxEnd.begin()) * kBlock;
    const uint32_t n = static_cast<uint32_t>(lane.items.size());
    while (i < n && itemEnd(lane, i) <= t)
        ++i;
    return i;
}

uint32_t TimelineIndex::endStartingBefore(const TimelineLane& lane, int64_t t) const
{
    uint32_t lo = 0, hi = static_cast<uint32_t>(lane.items.size());
    while (lo < hi) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (itemStart(lane, mid) < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int64_t TimelineIndex::hitTest(const TimelineLane& lane, int64_t t, int64_t tolerance) const
{
    const uint32_t a = firstEndingAfter(lane, t - tolerance);
    const uint32_t b = endStartingBefore(lane, t + tolerance + 1);
    int64_t best = -1, bestDist = INT64_MAX, bestLen = INT64_MAX;
    for (uint32_t i = a; i < b; ++i) {
        const int64_t s = itemStart(lane, i), e = itemEnd(lane, i);
        const int64_t dist = t < s ? s - t : (t >= e ? t - e + 1 : 0);
        if (dist > tolerance)
            continue;
        // Containing items win; among them the shortest (the innermost); else the nearest.
        if (dist < bestDist || (dist == bestDist && e - s < bestLen)) {
            best = i;
            bestDist = dist;
            bestLen = e - s;
        }
    }
    return best;
}

int TimelineIndex::laneOfKernel(uint32_t kernel) const
{
    if (kernel >= trace_->kernels.size())
        return -1;
    const uint64_t key = (uint64_t(trace_->kernels.device[kernel]) << 32) | trace_->kernels.stream[kernel];
    const auto it = std::lower_bound(streamLanes_.begin(), streamLanes_.end(), std::make_pair(key, INT32_MIN));
    return it != streamLanes_.end() && it->first == key ? it->second : -1;
}

int TimelineIndex::laneOfApi(uint32_t api) const
{
    if (api >= trace_->api.size())
        return -1;
    const uint32_t th = trace_->api.thread[api];
    const auto it = std::lower_bound(apiLanes_.begin(), apiLanes_.end(), std::make_pair(th, INT32_MIN));
    return it != apiLanes_.end() && it->first == th ? it->second : -1;
}

void TimelineIndex::addLevels(TimelineLane& lane) const
{
    const uint32_t n = static_cast<uint32_t>(lane.items.size());
    if (n < 64)
        return;   // small lanes are drawn directly at every zoom
    std::vector<LodSpan> prev;   // the last stored level, to build the next from
    for (int level = 0; level <= kMaxLevel; ++level) {
        const int64_t bucket = int64_t(1) << level;
        std::vector<LodSpan> spans;
        auto push = [&](int64_t s, int64_t e, uint32_t first, uint32_t count) {
            if (!spans.empty()) {
                LodSpan& c = spans.back();
                if (mergeable(c.start, c.end, c.count, bucket) && mergeable(s, e, count, bucket) &&
                    s - c.end < bucket) {
                    c.end = std::max(c.end, e);
                    c.count += count;
                    return;
                }
            }
            spans.push_back({s, e, first, count});
        };
        if (prev.empty()) {
            spans.reserve(n / 4);
            for (uint32_t i = 0; i < n; ++i)
                push(itemStart(lane, i), itemEnd(lane, i), i, 1);
        } else {
            for (const LodSpan& p : prev)
                push(p.start, p.end, p.first, p.count);
        }
        if (spans.size() * 4 > n) {
            lane.levels.emplace_back();   // not worth storing: the view merges the items itself
            continue;
        }
        spans.shrink_to_fit();
        const bool done = spans.size() <= 1;
        prev = spans;
        lane.levels.push_back(std::move(spans));
        if (done)
            break;   // higher levels would be the same single span: the view uses the last level
    }
    // Drop trailing empty levels (never merged enough to be stored).
    while (!lane.levels.empty() && lane.levels.back().empty())
        lane.levels.pop_back();
}

std::shared_ptr<const TimelineIndex> TimelineIndex::build(std::shared_ptr<const Trace> tracePtr, const LoadControl& control)
{
    auto idx = std::make_shared<TimelineIndex>();
    idx->trace_ = std::move(tracePtr);
    const Trace& t = *idx->trace_;
    const KernelTable& k = t.kernels;

    // ---- GPU lanes: one per (device, stream), then the device's gap lane ---------------------------------------
    std::map<std::pair<uint16_t, uint32_t>, std::vector<uint32_t>> streams;
    for (uint32_t i = 0; i < k.size(); ++i)
        streams[{k.device[i], k.stream[i]}].push_back(pack(ItemKind::Kernel, i));
    for (uint32_t i = 0; i < t.memcpy.size(); ++i)
        streams[{t.memcpy.device[i], t.memcpy.stream[i]}].push_back(pack(ItemKind::Memcpy, i));
    for (uint32_t i = 0; i < t.memset.size(); ++i)
        streams[{t.memset.device[i], t.memset.stream[i]}].push_back(pack(ItemKind::Memset, i));
    control.check();

    int64_t lo = INT64_MAX, hi = INT64_MIN;
    auto finishLane = [&](TimelineLane& lane) {
        // sort by (start, packed ref); gap lanes are built in order already
        if (lane.kind != LaneKind::Gaps) {
            std::vector<std::pair<int64_t, uint32_t>> keyed(lane.items.size());
            for (uint32_t i = 0; i < lane.items.size(); ++i)
                keyed[i] = {idx->itemStart(lane, i), lane.items[i]};
            std::sort(keyed.begin(), keyed.end());
            for (uint32_t i = 0; i < keyed.size(); ++i)
                lane.items[i] = keyed[i].second;
        }
        int64_t running = INT64_MIN;
        lane.blockMaxEnd.clear();
        for (uint32_t i = 0; i < lane.items.size(); ++i) {
            running = std::max(running, idx->itemEnd(lane, i));
            if ((i + 1) % kBlock == 0 || i + 1 == lane.items.size())
                lane.blockMaxEnd.push_back(running);
        }
        if (!lane.items.empty()) {
            lo = std::min(lo, idx->itemStart(lane, 0));
            hi = std::max(hi, running);
        }
        lane.items.shrink_to_fit();
        idx->addLevels(lane);
        control.check();
    };

    struct Busy {
        int64_t start, end;
        uint32_t ref;
        bool operator<(const Busy& o) const { return start != o.start ? start < o.start : ref < o.ref; }
    };
    std::map<uint16_t, std::vector<Busy>> busyByDevice;
    uint16_t currentDevice = UINT16_MAX;
    auto addGapLane = [&](uint16_t device) {
        auto& iv = busyByDevice[device];
        std::sort(iv.begin(), iv.end());
        TimelineLane gl;
        gl.kind = LaneKind::Gaps;
        gl.device = device;
        int64_t curEnd = INT64_MIN;
        uint32_t curRef = 0;
        for (const Busy& b : iv) {
            if (b.end <= b.start)
                continue;
            if (curEnd != INT64_MIN && b.start > curEnd) {
                gl.gapBefore.push_back(curRef);
                gl.items.push_back(b.ref);
            }
            if (b.end > curEnd) {
                curEnd = b.end;
                curRef = b.ref;
            }
        }
        gl.gapBefore.shrink_to_fit();
        iv.clear();
        iv.shrink_to_fit();
        finishLane(gl);
        idx->lanes_.push_back(std::move(gl));
    };
    for (auto& [key, items] : streams) {
        if (key.first != currentDevice && currentDevice != UINT16_MAX)
            addGapLane(currentDevice);
        currentDevice = key.first;
        TimelineLane lane;
        lane.kind = LaneKind::Stream;
        lane.device = key.first;
        lane.stream = key.second;
        lane.items = std::move(items);
        auto& iv = busyByDevice[key.first];
        for (uint32_t i = 0; i < lane.items.size(); ++i)
            iv.push_back({idx->itemStart(lane, i), idx->itemEnd(lane, i), lane.items[i]});
        finishLane(lane);
        idx->streamLanes_.emplace_back((uint64_t(key.first) << 32) | key.second, int(idx->lanes_.size()));
        idx->lanes_.push_back(std::move(lane));
    }
    if (currentDevice != UINT16_MAX)
        addGapLane(currentDevice);
    streams.clear();
    const int64_t gpuLo = lo, gpuHi = hi;
    control.report(0.5, "timeline");

    // ---- CPU lanes: per thread, API calls then NVTX depths ---------------------------------------------------
    std::map<uint32_t, std::vector<uint32_t>> apiByThread;
    for (uint32_t i = 0; i < t.api.size(); ++i)
        apiByThread[t.api.thread[i]].push_back(pack(ItemKind::Api, i));
    std::map<std::pair<uint32_t, uint8_t>, std::vector<uint32_t>> nvtx;
    for (uint32_t i = 0; i < t.ranges.size(); ++i)
        if (t.ranges.kind[i] != RangeKind::CpuOp)
            nvtx[{t.ranges.thread[i], t.ranges.depth[i]}].push_back(pack(ItemKind::Range, i));
    std::vector<uint32_t> threads;
    for (const auto& [th, v] : apiByThread)
        threads.push_back(th);
    for (const auto& [key, v] : nvtx)
        threads.push_back(key.first);
    std::sort(threads.begin(), threads.end());
    threads.erase(std::unique(threads.begin(), threads.end()), threads.end());
    for (uint32_t th : threads) {
        if (auto it = apiByThread.find(th); it != apiByThread.end()) {
            TimelineLane lane;
            lane.kind = LaneKind::ApiThread;
            lane.thread = th;
            lane.items = std::move(it->second);
            finishLane(lane);
            idx->apiLanes_.emplace_back(th, int(idx->lanes_.size()));
            idx->lanes_.push_back(std::move(lane));
        }
        for (auto it = nvtx.lower_bound({th, 0}); it != nvtx.end() && it->first.first == th; ++it) {
            TimelineLane lane;
            lane.kind = LaneKind::Nvtx;
            lane.thread = th;
            lane.depth = it->first.second;
            lane.items = std::move(it->second);
            finishLane(lane);
            idx->lanes_.push_back(std::move(lane));
        }
    }
    std::sort(idx->streamLanes_.begin(), idx->streamLanes_.end());
    std::sort(idx->apiLanes_.begin(), idx->apiLanes_.end());
    if (lo == INT64_MAX) {
        lo = t.meta.capture_start;
        hi = t.meta.capture_end;
    }
    idx->start_ = lo;
    idx->end_ = std::max(hi, lo);
    idx->gpuStart_ = gpuLo == INT64_MAX ? idx->start_ : gpuLo;
    idx->gpuEnd_ = gpuLo == INT64_MAX ? idx->end_ : gpuHi;
    idx->origin_ = timeOrigin(t, idx->start_);
    idx->lookup_ = KernelLookup::build(idx->trace_, control);
    control.report(1.0, "timeline");
    return idx;
}

RangeStats TimelineIndex::rangeStats(int64_t from, int64_t to) const
{
    RangeStats st;
    if (to <= from)
        return st;
    st.duration = to - from;
    std::map<uint16_t, std::vector<std::pair<int64_t, int64_t>>> busy;
    // Each device's GPU activity window (its stream lanes' first start .. last end): idle is counted inside it.
    std::map<uint16_t, std::pair<int64_t, int64_t>> active;
    for (const TimelineLane& lane : lanes_) {
        if (lane.kind != LaneKind::Stream || lane.items.empty() || lane.blockMaxEnd.empty())
            continue;
        auto [it, fresh] = active.try_emplace(lane.device, itemStart(lane, 0), lane.blockMaxEnd.back());
        if (!fresh) {
            it->second.first = std::min(it->second.first, itemStart(lane, 0));
            it->second.second = std::max(it->second.second, lane.blockMaxEnd.back());
        }
    }
    for (const TimelineLane& lane : lanes_) {
        if (lane.kind != LaneKind::Stream && lane.kind != LaneKind::ApiThread)
            continue;
        const uint32_t a = firstEndingAfter(lane, from), b = endStartingBefore(lane, to);
        for (uint32_t i = a; i < b; ++i) {
            const int64_t s = std::max(itemStart(lane, i), from), e = std::min(itemEnd(lane, i), to);
            if (e <= s && !(itemStart(lane, i) == itemEnd(lane, i) && s >= from && s < to))
                continue;
            const ItemRef r = ref(lane, i);
            if (r.kind == ItemKind::Api) {
                ++st.apiCalls;
                continue;
            }
            if (r.kind == ItemKind::Kernel) {
                ++st.kernels;
                st.kernelTime += std::max<int64_t>(0, e - s);
            }
            busy[lane.device].emplace_back(s, e);
        }
    }
    for (const auto& [dev, window] : active) {
        auto& iv = busy[dev];
        std::sort(iv.begin(), iv.end());
        int64_t cs = INT64_MIN, ce = INT64_MIN, total = 0;
        for (const auto& [s, e] : iv) {
            if (s > ce) {
                if (ce > cs)
                    total += ce - cs;
                cs = s;
                ce = e;
            } else {
                ce = std::max(ce, e);
            }
        }
        if (ce > cs)
            total += ce - cs;
        st.busy += total;
        const int64_t inside = std::min(to, window.second) - std::max(from, window.first);
        st.idle += std::max<int64_t>(0, inside - total);
    }
    return st;
}

uint32_t TimelineIndex::itemOfKernel(uint32_t kernel) const
{
    const int li = laneOfKernel(kernel);
    if (li < 0)
        return UINT32_MAX;
    const TimelineLane& lane = lanes_[size_t(li)];
    const int64_t ks = trace_->kernels.start[kernel];
    for (uint32_t i = endStartingBefore(lane, ks); i < lane.items.size() && itemStart(lane, i) == ks; ++i)
        if (ref(lane, i) == ItemRef{ItemKind::Kernel, kernel})
            return i;
    return UINT32_MAX;
}

int TimelineIndex::laneOfGaps(uint16_t device) const
{
    for (size_t i = 0; i < lanes_.size(); ++i)
        if (lanes_[i].kind == LaneKind::Gaps && lanes_[i].device == device)
            return int(i);
    return -1;
}

int64_t TimelineIndex::gapItemAt(int laneIdx, int64_t start) const
{
    if (laneIdx < 0 || size_t(laneIdx) >= lanes_.size() || lanes_[size_t(laneIdx)].kind != LaneKind::Gaps)
        return -1;
    const TimelineLane& lane = lanes_[size_t(laneIdx)];
    const uint32_t i = endStartingBefore(lane, start);
    return i < lane.items.size() && itemStart(lane, i) == start ? int64_t(i) : -1;
}

TimelineIndex::MergedSummary TimelineIndex::summarize(const TimelineLane& lane, uint32_t first, uint32_t count,
                                                      size_t topN, uint32_t sample) const
{
    MergedSummary m;
    const uint32_t n = static_cast<uint32_t>(lane.items.size());
    if (first >= n || count == 0)
        return m;
    count = std::min(count, n - first);
    m.count = count;
    m.start = itemStart(lane, first);
    // Items are sorted by start; within a lane of one stream they rarely overlap, but take the block maxima into
    // account only through the last item (the run was merged from consecutive items).
    m.end = itemEnd(lane, first + count - 1);
    const uint32_t step = std::max<uint32_t>(1, count / std::max<uint32_t>(1, sample));
    std::unordered_map<StrId, uint32_t> freq;
    for (uint32_t i = first; i < first + count; i += step) {
        m.end = std::max(m.end, itemEnd(lane, i));
        const ItemRef r = ref(lane, i);
        ++m.sampled;
        StrId name = UINT32_MAX;
        switch (r.kind) {
        case ItemKind::Kernel: name = trace_->kernels.short_name[r.row]; break;
        case ItemKind::Api: name = trace_->api.name[r.row]; break;
        case ItemKind::Range: name = trace_->ranges.name[r.row]; break;
        default: break;
        }
        if (name != UINT32_MAX)
            ++freq[name];
    }
    m.topNames.assign(freq.begin(), freq.end());
    std::sort(m.topNames.begin(), m.topNames.end(),
              [](const auto& a, const auto& b) { return a.second != b.second ? a.second > b.second : a.first < b.first; });
    if (m.topNames.size() > topN)
        m.topNames.resize(topN);
    return m;
}

size_t TimelineIndex::memoryBytes() const
{
    size_t b = sizeof(*this) + lanes_.capacity() * sizeof(TimelineLane);
    for (const TimelineLane& l : lanes_) {
        b += l.items.capacity() * sizeof(uint32_t) + l.blockMaxEnd.capacity() * sizeof(int64_t) +
             l.gapBefore.capacity() * sizeof(uint32_t) +
             l.levels.capacity() * sizeof(std::vector<LodSpan>);
        for (const auto& lv : l.levels)
            b += lv.capacity() * sizeof(LodSpan);
    }
    b += streamLanes_.capacity() * sizeof(streamLanes_[0]) + apiLanes_.capacity() * sizeof(apiLanes_[0]);
    return b;
}

} // namespace sl
