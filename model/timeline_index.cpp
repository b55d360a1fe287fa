#include "model/timeline_index.h"

#include <algorithm>
#include <functional>
#include <map>
#include <tuple>
#include <unordered_map>

#include "analysis/io/parallel.h"
#include "analysis/timeline/gpu_vendor.h"

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

// Greedy merge of a lane's items at one bucket size, the rule the view applies when it draws items directly: a run
// grows while both it and the next item are mergeable (several items, or narrower than a bucket) and the gap to the
// next item is under a bucket. A coarser bucket merges everything a finer one does (the run so far only grows, its
// end only moves right), so the number of spans never grows with the level and level L + 1 can be built from the
// spans of level L instead of from the items.
namespace {

template <class Times>
size_t countSpans(const Times& times, uint32_t n, int64_t bucket, size_t limit)
{
    size_t count = 0;
    int64_t cs = 0, ce = 0;
    uint32_t cc = 0;
    for (uint32_t i = 0; i < n; ++i) {
        const int64_t s = times.start(i), e = times.end(i);
        if (cc > 0 && mergeable(cs, ce, cc, bucket) && e - s < bucket && s - ce < bucket) {
            ce = std::max(ce, e);
            ++cc;
            continue;
        }
        if (++count > limit)
            return count;   // already too many to be worth storing
        cs = s;
        ce = e;
        cc = 1;
    }
    return count;
}

template <class Times>
std::vector<LodSpan> spansFromItems(const Times& times, uint32_t n, int64_t bucket, size_t expected)
{
    std::vector<LodSpan> spans;
    spans.reserve(expected);
    for (uint32_t i = 0; i < n; ++i) {
        const int64_t s = times.start(i), e = times.end(i);
        if (!spans.empty()) {
            LodSpan& c = spans.back();
            if (mergeable(c.start, c.end, c.count, bucket) && e - s < bucket && s - c.end < bucket) {
                c.end = std::max(c.end, e);
                ++c.count;
                continue;
            }
        }
        spans.push_back({s, e, i, 1});
    }
    return spans;
}

// The spans of the next coarser level from those of the level below. Counts first, so the level is allocated once
// at its final size.
std::vector<LodSpan> spansFromSpans(const std::vector<LodSpan>& prev, int64_t bucket)
{
    auto joins = [bucket](const LodSpan& c, const LodSpan& p) {
        return mergeable(c.start, c.end, c.count, bucket) && mergeable(p.start, p.end, p.count, bucket) &&
               p.start - c.end < bucket;
    };
    size_t count = 0;
    {
        LodSpan c{};
        for (const LodSpan& p : prev) {
            if (count > 0 && joins(c, p)) {
                c.end = std::max(c.end, p.end);
                c.count += p.count;
                continue;
            }
            ++count;
            c = p;
        }
    }
    std::vector<LodSpan> spans;
    spans.reserve(count);
    for (const LodSpan& p : prev) {
        if (!spans.empty() && joins(spans.back(), p)) {
            LodSpan& c = spans.back();
            c.end = std::max(c.end, p.end);
            c.count += p.count;
            continue;
        }
        spans.push_back(p);
    }
    return spans;
}

// Item times of one lane during the build, read from its plain reference vectors (packed into PackedRefs once the
// lane is done), without the per-item switch on the item's kind where the lane holds one kind only.
struct LaneTimes {
    const Trace& t;
    bool gaps = false;
    const uint32_t* items = nullptr;
    const uint32_t* gapBefore = nullptr;
    const int64_t* starts = nullptr;   // set when every item is a row of one table
    const int64_t* ends = nullptr;
    int64_t start(uint32_t i) const
    {
        if (gaps)
            return packedEnd(t, gapBefore[i]);
        return starts ? starts[items[i] & kRowMask] : packedStart(t, items[i]);
    }
    int64_t end(uint32_t i) const
    {
        if (gaps)
            return packedStart(t, items[i]);
        return ends ? ends[items[i] & kRowMask] : packedEnd(t, items[i]);
    }
};

LaneTimes laneTimes(const Trace& t, LaneKind kind, const std::vector<uint32_t>& items,
                    const std::vector<uint32_t>& gapBefore)
{
    LaneTimes lt{t, kind == LaneKind::Gaps, items.data(), gapBefore.data()};
    if (lt.gaps || items.empty())
        return lt;
    const uint32_t k = items.front() >> kRowBits;
    for (uint32_t p : items)
        if ((p >> kRowBits) != k)
            return lt;
    switch (static_cast<ItemKind>(k)) {
    case ItemKind::Kernel: lt.starts = t.kernels.start.data(); lt.ends = t.kernels.end.data(); break;
    case ItemKind::Memcpy: lt.starts = t.memcpy.start.data(); lt.ends = t.memcpy.end.data(); break;
    case ItemKind::Memset: lt.starts = t.memset.start.data(); lt.ends = t.memset.end.data(); break;
    case ItemKind::Api: lt.starts = t.api.start.data(); lt.ends = t.api.end.data(); break;
    case ItemKind::Range: lt.starts = t.ranges.start.data(); lt.ends = t.ranges.end.data(); break;
    case ItemKind::Gap: break;
    }
    return lt;
}

// The stored levels of a lane of n items.
std::vector<LodLevel> levelsOf(const LaneTimes& times, uint32_t n, const std::atomic<bool>* cancel)
{
    std::vector<LodLevel> levels;
    if (n < 64)
        return levels;   // small lanes are drawn directly at every zoom
    // A level is stored when it merges the lane at least 4:1; finer ones are left empty (the view merges the items
    // itself there). The span count only falls with the level, so the first stored level is found by a binary
    // search of counting passes that stop as soon as the count is too high.
    const size_t limit = n / 4;
    constexpr int kMaxLevel = TimelineIndex::kMaxLevel;
    int lo = 0, hi = kMaxLevel + 1;   // first stored level in [lo, hi]; kMaxLevel + 1 = none
    size_t firstCount = 0;
    while (lo < hi) {
        if (cancel && cancel->load(std::memory_order_relaxed))
            return levels;
        const int mid = lo + (hi - lo) / 2;
        const size_t c = countSpans(times, n, int64_t(1) << mid, limit);
        if (c <= limit) {
            hi = mid;
            firstCount = c;
        } else {
            lo = mid + 1;
        }
    }
    if (lo > kMaxLevel)
        return levels;   // never merged enough to be stored
    levels.resize(size_t(lo));
    std::vector<LodSpan> spans = spansFromItems(times, n, int64_t(1) << lo, firstCount);
    levels.emplace_back(spans);
    // Higher levels would all be the same single span once one is reached: the view uses the last level.
    for (int level = lo + 1; level <= kMaxLevel && spans.size() > 1; ++level) {
        if (cancel && cancel->load(std::memory_order_relaxed))
            return levels;
        spans = spansFromSpans(spans, int64_t(1) << level);
        levels.emplace_back(spans);
    }
    return levels;
}

// Only the levels from `coarse` up, in one pass over the items (lanes too small to merge get none, as in levelsOf).
std::vector<LodLevel> coarseLevelsOf(const LaneTimes& times, uint32_t n, int coarse)
{
    std::vector<LodLevel> levels;
    if (n < 64)
        return levels;
    levels.resize(size_t(coarse));
    std::vector<LodSpan> spans = spansFromItems(times, n, int64_t(1) << coarse, 0);
    levels.emplace_back(spans);
    for (int level = coarse + 1; level <= TimelineIndex::kMaxLevel && spans.size() > 1; ++level) {
        spans = spansFromSpans(spans, int64_t(1) << level);
        levels.emplace_back(spans);
    }
    return levels;
}

// A lane's references as plain vectors while it is built; packed into the lane once its levels are done.
struct Raw {
    std::vector<uint32_t> items, gapBefore;
};

// Running maximum of the item ends at the end of each block of kBlock items.
std::vector<int64_t> blockMaximaOf(const LaneTimes& times, uint32_t n)
{
    std::vector<int64_t> out;
    out.reserve((n + TimelineIndex::kBlock - 1) / TimelineIndex::kBlock);
    int64_t running = INT64_MIN;
    for (uint32_t i = 0; i < n; ++i) {
        running = std::max(running, times.end(i));
        if ((i + 1) % TimelineIndex::kBlock == 0 || i + 1 == n)
            out.push_back(running);
    }
    return out;
}

// A gap lane's idle time before each block of kBlock items, then its total (GapDensity's prefix sums).
std::vector<int64_t> blockSumsOf(const LaneTimes& times, uint32_t n)
{
    std::vector<int64_t> out;
    out.reserve(n / TimelineIndex::kBlock + 2);
    int64_t sum = 0;
    for (uint32_t i = 0; i < n; ++i) {
        if (i % TimelineIndex::kBlock == 0)
            out.push_back(sum);
        sum += times.end(i) - times.start(i);
    }
    out.push_back(sum);
    return out;
}

// A device's gap lane from its stream lanes (each sorted by (start, packed ref)): walk them merged in that order,
// so the device's ops never need one sorted copy. A gap opens where an op starts after everything before it ended.
// The result does not depend on the order of `streams` (the packed reference breaks ties).
void gapLaneOf(const Trace& t, const std::vector<const std::vector<uint32_t>*>& streams, Raw& gl)
{
    struct Head {
        int64_t start;
        uint32_t ref;
        uint32_t lane;   // position in streams
        uint32_t pos;
        bool operator>(const Head& o) const { return start != o.start ? start > o.start : ref > o.ref; }
    };
    std::vector<LaneTimes> times;
    std::vector<Head> heap;
    static const std::vector<uint32_t> kNone;
    for (size_t s = 0; s < streams.size(); ++s) {
        times.push_back(laneTimes(t, LaneKind::Stream, *streams[s], kNone));
        if (!streams[s]->empty())
            heap.push_back({times.back().start(0), streams[s]->front(), uint32_t(s), 0});
    }
    std::make_heap(heap.begin(), heap.end(), std::greater<>());
    int64_t curEnd = INT64_MIN;
    uint32_t curRef = 0;
    while (!heap.empty()) {
        std::pop_heap(heap.begin(), heap.end(), std::greater<>());
        Head h = heap.back();
        const std::vector<uint32_t>& sl = *streams[h.lane];
        const int64_t e = times[h.lane].end(h.pos);
        if (e > h.start) {
            if (curEnd != INT64_MIN && h.start > curEnd) {
                gl.gapBefore.push_back(curRef);
                gl.items.push_back(h.ref);
            }
            if (e > curEnd) {
                curEnd = e;
                curRef = h.ref;
            }
        }
        if (++h.pos < sl.size()) {
            heap.back() = {times[h.lane].start(h.pos), sl[h.pos], h.lane, h.pos};
            std::push_heap(heap.begin(), heap.end(), std::greater<>());
        } else {
            heap.pop_back();
        }
    }
}

// Runs work(order[i]) for every i on `threads` threads, largest-first order given by the caller; rethrows the
// first failure, throws Cancelled when cancelled.
void runLaneTasks(const std::vector<size_t>& order, unsigned threads, const LoadControl& control,
                  const std::function<void(size_t)>& work)
{
    TaskRun run;
    run_tasks(order.size(), threads, run, [&](size_t task, unsigned) {
        if (!control.cancelled())
            work(order[task]);
    });
    control.check();
    if (run.first_failed.load() != SIZE_MAX)
        std::rethrow_exception(run.errors[run.first_failed.load()]);
}

} // namespace

std::shared_ptr<const TimelineIndex> TimelineIndex::build(std::shared_ptr<const Trace> tracePtr, const LoadControl& control)
{
    return buildImpl(std::move(tracePtr), control, false);
}

std::shared_ptr<const TimelineIndex> TimelineIndex::buildCoarse(std::shared_ptr<const Trace> tracePtr,
                                                                const LoadControl& control)
{
    return buildImpl(std::move(tracePtr), control, true);
}

std::shared_ptr<const TimelineIndex> TimelineIndex::refine(const TimelineIndex& coarse, const LoadControl& control)
{
    auto idx = std::make_shared<TimelineIndex>(coarse);
    idx->coarseLevel_ = -1;
    if (coarse.complete())
        return idx;
    const Trace& t = *idx->trace_;
    std::vector<TimelineLane>& lanes = idx->lanes_;
    const unsigned threads = reader_threads();
    std::vector<Raw> raw(lanes.size());
    auto bySize = [&](std::vector<size_t> order) {
        std::stable_sort(order.begin(), order.end(),
                         [&](size_t a, size_t b) { return lanes[a].items.size() > lanes[b].items.size(); });
        return order;
    };

    // ---- The finer levels of the stream, API and NVTX lanes (their items unpacked once: the stream lanes' are
    // kept for the gap lanes), and the per-name kernel lookup beside them, as large as the largest lane.
    std::vector<size_t> itemLanes, gapLanes;
    for (size_t i = 0; i < lanes.size(); ++i)
        (lanes[i].kind == LaneKind::Gaps ? gapLanes : itemLanes).push_back(i);
    std::vector<size_t> order = bySize(itemLanes);
    order.insert(order.begin() + std::min<size_t>(1, order.size()), SIZE_MAX);
    LoadControl quiet;   // no progress from other threads: the callback belongs to the calling one
    quiet.cancel = control.cancel;
    std::shared_ptr<const KernelLookup> lookup;
    runLaneTasks(order, threads, control, [&](size_t li) {
        if (li == SIZE_MAX) {
            lookup = KernelLookup::build(idx->trace_, quiet);
            return;
        }
        TimelineLane& lane = lanes[li];
        raw[li].items = lane.items.toVector();
        const uint32_t n = static_cast<uint32_t>(raw[li].items.size());
        lane.levels = levelsOf(laneTimes(t, lane.kind, raw[li].items, raw[li].gapBefore), n, control.cancel);
        if (lane.kind != LaneKind::Stream)
            raw[li] = Raw{};
    });
    control.report(0.7, "timeline");

    // ---- The gap lanes, as build() makes them: from the device's stream lanes, then their levels.
    runLaneTasks(gapLanes, threads, control, [&](size_t li) {
        TimelineLane& lane = lanes[li];
        std::vector<const std::vector<uint32_t>*> streams;
        for (size_t s = 0; s < lanes.size(); ++s)
            if (lanes[s].kind == LaneKind::Stream && lanes[s].device == lane.device)
                streams.push_back(&raw[s].items);
        Raw gl;
        gapLaneOf(t, streams, gl);
        const uint32_t n = static_cast<uint32_t>(gl.items.size());
        const LaneTimes times = laneTimes(t, lane.kind, gl.items, gl.gapBefore);
        lane.blockMaxEnd = blockMaximaOf(times, n);
        lane.blockSum = blockSumsOf(times, n);
        lane.levels = levelsOf(times, n, control.cancel);
        lane.items = PackedRefs(gl.items);
        lane.gapBefore = PackedRefs(gl.gapBefore);
    });
    idx->lookup_ = std::move(lookup);
    control.report(1.0, "timeline");
    return idx;
}

std::shared_ptr<const TimelineIndex> TimelineIndex::buildImpl(std::shared_ptr<const Trace> tracePtr,
                                                              const LoadControl& control, bool coarse)
{
    auto idx = std::make_shared<TimelineIndex>();
    idx->trace_ = std::move(tracePtr);
    const Trace& t = *idx->trace_;
    idx->runtime_ = gpu_runtime_name(detect_gpu_vendor(t).vendor);
    const KernelTable& k = t.kernels;
    const unsigned threads = reader_threads();

    // ---- Lanes, in display order: per device its stream lanes then its gap lane; per CPU thread its API lane
    // then its NVTX depths. Filled on this thread in one pass per table; sorted, gap-scanned and levelled per lane
    // on all threads below (each lane is its own task with its own output, so the index does not depend on the
    // thread count).
    std::map<std::pair<uint16_t, uint32_t>, std::vector<uint32_t>> streams;
    for (uint32_t i = 0; i < k.size(); ++i)
        streams[{k.device[i], k.stream[i]}].push_back(pack(ItemKind::Kernel, i));
    for (uint32_t i = 0; i < t.memcpy.size(); ++i)
        streams[{t.memcpy.device[i], t.memcpy.stream[i]}].push_back(pack(ItemKind::Memcpy, i));
    for (uint32_t i = 0; i < t.memset.size(); ++i)
        streams[{t.memset.device[i], t.memset.stream[i]}].push_back(pack(ItemKind::Memset, i));
    control.check();

    struct GapLaneTask {
        size_t lane;                  // the gap lane
        std::vector<size_t> streams;  // the device's stream lanes
    };
    std::vector<GapLaneTask> gapTasks;
    std::vector<Raw> raw;
    auto addGapLane = [&](uint16_t device, std::vector<size_t> streamLanes) {
        TimelineLane gl;
        gl.kind = LaneKind::Gaps;
        gl.device = device;
        gapTasks.push_back({idx->lanes_.size(), std::move(streamLanes)});
        idx->lanes_.push_back(std::move(gl));
        raw.emplace_back();
    };
    {
        uint16_t currentDevice = UINT16_MAX;
        std::vector<size_t> deviceLanes;
        for (auto& [key, items] : streams) {
            if (key.first != currentDevice && currentDevice != UINT16_MAX)
                addGapLane(currentDevice, std::move(deviceLanes));
            if (key.first != currentDevice)
                deviceLanes.clear();
            currentDevice = key.first;
            TimelineLane lane;
            lane.kind = LaneKind::Stream;
            lane.device = key.first;
            lane.stream = key.second;
            for (uint32_t p : items) {
                const auto kind = static_cast<ItemKind>(p >> kRowBits);
                ++(kind == ItemKind::Kernel ? lane.kernels : kind == ItemKind::Memcpy ? lane.copies : lane.memsets);
            }
            raw.push_back({std::move(items), {}});
            deviceLanes.push_back(idx->lanes_.size());
            idx->streamLanes_.emplace_back((uint64_t(key.first) << 32) | key.second, int(idx->lanes_.size()));
            idx->lanes_.push_back(std::move(lane));
        }
        if (currentDevice != UINT16_MAX)
            addGapLane(currentDevice, std::move(deviceLanes));
        streams.clear();
    }
    const size_t gpuLanes = idx->lanes_.size();

    std::map<uint32_t, std::vector<uint32_t>> apiByThread;
    for (uint32_t i = 0; i < t.api.size(); ++i)
        apiByThread[t.api.thread[i]].push_back(pack(ItemKind::Api, i));
    // Host ranges by (thread, family, depth): NVTX ranges, annotations and CPU ops nest among themselves (family 0),
    // Python frames among themselves (family 1), so each family is a flame chart of its own. One sort by (thread,
    // family, start, longer first), then a stack of open ends per (thread, family), as Trace::finish() does.
    std::map<std::tuple<uint32_t, uint8_t, uint8_t>, std::vector<uint32_t>> hostRanges;
    std::map<std::tuple<uint32_t, uint8_t, uint8_t>, uint8_t> hostKinds;
    {
        const RangeTable& R = t.ranges;
        auto family = [&](uint32_t i) { return uint8_t(R.kind[i] == RangeKind::PythonFunction ? 1 : 0); };
        std::vector<uint32_t> order(R.size());
        for (uint32_t i = 0; i < order.size(); ++i)
            order[i] = i;
        std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
            if (R.thread[a] != R.thread[b])
                return R.thread[a] < R.thread[b];
            if (family(a) != family(b))
                return family(a) < family(b);
            if (R.start[a] != R.start[b])
                return R.start[a] < R.start[b];
            return R.end[a] != R.end[b] ? R.end[a] > R.end[b] : a < b;
        });
        control.check();
        std::vector<int64_t> open;
        uint64_t current = UINT64_MAX;
        for (uint32_t i : order) {
            const uint64_t group = (uint64_t(R.thread[i]) << 8) | family(i);
            if (group != current) {
                current = group;
                open.clear();
            }
            while (!open.empty() && open.back() <= R.start[i])
                open.pop_back();
            const auto depth = uint8_t(std::min<size_t>(open.size(), 255));
            const auto key = std::make_tuple(R.thread[i], family(i), depth);
            hostRanges[key].push_back(pack(ItemKind::Range, i));
            hostKinds[key] |= uint8_t(1u << uint8_t(R.kind[i]));
            open.push_back(R.end[i]);
        }
    }
    std::vector<uint32_t> threadIds;
    for (const auto& [th, v] : apiByThread)
        threadIds.push_back(th);
    for (const auto& [key, v] : hostRanges)
        threadIds.push_back(std::get<0>(key));
    std::sort(threadIds.begin(), threadIds.end());
    threadIds.erase(std::unique(threadIds.begin(), threadIds.end()), threadIds.end());
    for (uint32_t th : threadIds) {
        if (auto it = apiByThread.find(th); it != apiByThread.end()) {
            TimelineLane lane;
            lane.kind = LaneKind::ApiThread;
            lane.thread = th;
            raw.push_back({std::move(it->second), {}});
            idx->apiLanes_.emplace_back(th, int(idx->lanes_.size()));
            idx->lanes_.push_back(std::move(lane));
        }
        for (auto it = hostRanges.lower_bound({th, 0, 0}); it != hostRanges.end() && std::get<0>(it->first) == th; ++it) {
            TimelineLane lane;
            lane.kind = std::get<1>(it->first) == 0 ? LaneKind::HostRanges : LaneKind::Python;
            lane.thread = th;
            lane.depth = std::get<2>(it->first);
            lane.rangeKinds = hostKinds[it->first];
            raw.push_back({std::move(it->second), {}});
            idx->lanes_.push_back(std::move(lane));
        }
    }
    apiByThread.clear();
    hostRanges.clear();
    std::sort(idx->streamLanes_.begin(), idx->streamLanes_.end());
    std::sort(idx->apiLanes_.begin(), idx->apiLanes_.end());
    control.check();
    control.report(0.2, "timeline");

    std::vector<TimelineLane>& lanes = idx->lanes_;
    auto timesOf = [&](size_t li) { return laneTimes(t, lanes[li].kind, raw[li].items, raw[li].gapBefore); };
    auto blockMaxima = [&](size_t li) { lanes[li].blockMaxEnd = blockMaximaOf(timesOf(li), uint32_t(raw[li].items.size())); };
    // Largest lanes first, so one long lane does not start last on a busy thread.
    auto bySize = [&](std::vector<size_t> order) {
        std::stable_sort(order.begin(), order.end(),
                         [&](size_t a, size_t b) { return raw[a].items.size() > raw[b].items.size(); });
        return order;
    };
    auto runAll = [&](const std::vector<size_t>& order, const std::function<void(size_t)>& work) {
        runLaneTasks(order, threads, control, work);
    };

    // ---- Stream, API and NVTX lanes: sort by (start, packed ref) unless already in that order (the readers give
    // each table in time order, so usually they are), then the block maxima.
    std::vector<size_t> itemLanes;
    for (size_t i = 0; i < lanes.size(); ++i)
        if (lanes[i].kind != LaneKind::Gaps)
            itemLanes.push_back(i);
    runAll(bySize(itemLanes), [&](size_t li) {
        std::vector<uint32_t>& items = raw[li].items;
        const LaneTimes times = timesOf(li);
        const uint32_t n = static_cast<uint32_t>(items.size());
        bool sorted = true;
        for (uint32_t i = 1; i < n && sorted; ++i) {
            const int64_t a = times.start(i - 1), b = times.start(i);
            sorted = a < b || (a == b && items[i - 1] < items[i]);
        }
        if (!sorted) {
            std::vector<std::pair<int64_t, uint32_t>> keyed(n);
            for (uint32_t i = 0; i < n; ++i)
                keyed[i] = {times.start(i), items[i]};
            std::sort(keyed.begin(), keyed.end());
            for (uint32_t i = 0; i < n; ++i)
                items[i] = keyed[i].second;
        }
        blockMaxima(li);
    });
    control.report(0.4, "timeline");

    // ---- Gap lanes (a coarse index leaves them empty: refine() adds them): from the device's stream lanes.
    if (!coarse) {
        std::vector<size_t> order(gapTasks.size());
        for (size_t i = 0; i < order.size(); ++i)
            order[i] = i;
        runAll(order, [&](size_t g) {
            const GapLaneTask& task = gapTasks[g];
            std::vector<const std::vector<uint32_t>*> streams;
            for (size_t sl : task.streams)
                streams.push_back(&raw[sl].items);
            gapLaneOf(t, streams, raw[task.lane]);
            blockMaxima(task.lane);
            lanes[task.lane].blockSum = blockSumsOf(timesOf(task.lane), uint32_t(raw[task.lane].items.size()));
        });
    }
    control.report(0.6, "timeline");

    // ---- Levels of every lane, and the per-name kernel lookup beside them. A coarse index stores the levels from
    // the one where the whole extent of the lanes is kCoarsePixels wide, and no lookup (refine() adds it).
    int coarseLevel = -1;
    if (coarse) {
        int64_t lo = INT64_MAX, hi = INT64_MIN;
        for (size_t li = 0; li < lanes.size(); ++li) {
            if (raw[li].items.empty() || lanes[li].kind == LaneKind::Gaps)
                continue;
            lo = std::min(lo, timesOf(li).start(0));
            hi = std::max(hi, lanes[li].blockMaxEnd.back());
        }
        coarseLevel = 0;
        while (coarseLevel < kMaxLevel && hi > lo && (int64_t(1) << coarseLevel) * kCoarsePixels < hi - lo)
            ++coarseLevel;
    }
    idx->coarseLevel_ = coarseLevel;
    std::shared_ptr<const KernelLookup> lookup;
    {
        std::vector<size_t> all(lanes.size());
        for (size_t i = 0; i < all.size(); ++i)
            all[i] = i;
        std::vector<size_t> order = bySize(all);
        // The lookup sorts every kernel once: as large as the largest lane, so it goes early.
        if (!coarse)
            order.insert(order.begin() + std::min<size_t>(1, order.size()), SIZE_MAX);
        LoadControl quiet;   // no progress from other threads: the callback belongs to the calling one
        quiet.cancel = control.cancel;
        runAll(order, [&](size_t li) {
            if (li == SIZE_MAX)
                lookup = KernelLookup::build(idx->trace_, quiet);
            else {
                lanes[li].levels = coarse ? coarseLevelsOf(timesOf(li), uint32_t(raw[li].items.size()), coarseLevel)
                                          : levelsOf(timesOf(li), uint32_t(raw[li].items.size()), control.cancel);
                lanes[li].items = PackedRefs(raw[li].items);
                lanes[li].gapBefore = PackedRefs(raw[li].gapBefore);
                raw[li] = Raw{};
            }
        });
    }

    int64_t lo = INT64_MAX, hi = INT64_MIN, gpuLo = INT64_MAX, gpuHi = INT64_MIN;
    for (size_t i = 0; i < lanes.size(); ++i) {
        if (i == gpuLanes) {
            gpuLo = lo;
            gpuHi = hi;
        }
        if (lanes[i].items.empty() || lanes[i].kind == LaneKind::Gaps)
            continue;   // (a gap lane lies inside its device's stream lanes)
        lo = std::min(lo, idx->itemStart(lanes[i], 0));
        hi = std::max(hi, lanes[i].blockMaxEnd.back());
    }
    if (gpuLanes == lanes.size()) {
        gpuLo = lo;
        gpuHi = hi;
    }
    if (lo == INT64_MAX) {
        lo = t.meta.capture_start;
        hi = t.meta.capture_end;
    }
    idx->start_ = lo;
    idx->end_ = std::max(hi, lo);
    idx->gpuStart_ = gpuLo == INT64_MAX ? idx->start_ : gpuLo;
    idx->gpuEnd_ = gpuLo == INT64_MAX ? idx->end_ : gpuHi;
    idx->origin_ = timeOrigin(t, idx->start_);
    idx->lookup_ = std::move(lookup);
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

LodLevel::LodLevel(const std::vector<LodSpan>& spans)
{
    start_.reserve(spans.size());
    first_.reserve(spans.size());
    length_.reserve(spans.size());
    for (size_t j = 0; j < spans.size(); ++j) {
        const LodSpan& s = spans[j];
        start_.push_back(s.start);
        first_.push_back(s.first);
        const uint64_t len = uint64_t(s.end - s.start);
        if (len < kLong) {
            length_.push_back(uint32_t(len));
        } else {
            length_.push_back(kLong);
            longEnds_.push_back({uint32_t(j), s.end});
        }
    }
    longEnds_.shrink_to_fit();
    items_ = spans.empty() ? 0 : spans.back().first + spans.back().count;
}

int64_t LodLevel::longEnd(size_t j) const
{
    auto it = std::lower_bound(longEnds_.begin(), longEnds_.end(), j,
                               [](const LongEnd& e, size_t v) { return e.span < v; });
    return it->end;
}

size_t LodLevel::spanOfItem(uint32_t i) const
{
    auto it = std::upper_bound(first_.begin(), first_.end(), i);
    return it == first_.begin() ? 0 : size_t(it - first_.begin()) - 1;
}

std::vector<LodSpan> LodLevel::toVector() const
{
    std::vector<LodSpan> out(size());
    for (size_t j = 0; j < out.size(); ++j)
        out[j] = (*this)[j];
    return out;
}

size_t LodLevel::memoryBytes() const
{
    return start_.capacity() * sizeof(int64_t) + (first_.capacity() + length_.capacity()) * sizeof(uint32_t) +
           longEnds_.capacity() * sizeof(LongEnd);
}

size_t TimelineIndex::memoryBytes() const
{
    size_t b = sizeof(*this) + lanes_.capacity() * sizeof(TimelineLane);
    for (const TimelineLane& l : lanes_) {
        b += l.items.memoryBytes() + (l.blockMaxEnd.capacity() + l.blockSum.capacity()) * sizeof(int64_t) +
             l.gapBefore.memoryBytes() +
             l.levels.capacity() * sizeof(LodLevel);
        for (const LodLevel& lv : l.levels)
            b += lv.memoryBytes();
    }
    b += streamLanes_.capacity() * sizeof(streamLanes_[0]) + apiLanes_.capacity() * sizeof(apiLanes_[0]);
    return b;
}

} // namespace sl
