// Per-device busy periods of GPU ops, against hand-computed answers and a brute-force per-nanosecond second
// computation.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <tuple>

#include "analysis/trace/intervals.h"
#include "analysis/trace/top_k.h"

using namespace sl;

namespace {

// Device 0: two streams of kernels that overlap, a copy inside kernel time, a copy extending a busy period, a
// memset alone; device 1: nothing.
Trace two_device_trace()
{
    Trace t;
    const uint16_t d0 = t.device_index(0);
    t.device_index(1);
    const StrId a = t.strings.intern("A"), b = t.strings.intern("B"), c = t.strings.intern("C"),
                d = t.strings.intern("D");
    auto k = [&](int64_t s, int64_t e, StrId n, uint32_t stream) {
        const size_t i = t.kernels.append(s, e, n);
        t.kernels.device[i] = d0;
        t.kernels.stream[i] = stream;
    };
    k(100, 200, a, 7);
    k(300, 400, b, 7);
    k(1000, 1100, a, 7);
    k(150, 350, c, 8);
    k(1100, 1200, d, 7);   // touches the previous A: one busy period
    t.memcpy.append(380, 500, 1000, CopyKind::HtoD);
    t.memcpy.append(1050, 1080, 500, CopyKind::HtoD);
    t.memset.append(3000, 3010, 64);
    t.finish();
    return t;
}

} // namespace

TEST(Intervals, DeviceActivityUnionsKernelsCopiesAndMemsets)
{
    const Trace t = two_device_trace();
    const auto act = device_activity(t);
    ASSERT_EQ(act.size(), 2u);
    const auto& a = act[0];
    EXPECT_EQ(a.kernels, 5);
    EXPECT_EQ(a.memcpys, 2);
    EXPECT_EQ(a.memsets, 1);
    EXPECT_EQ(a.window_start, 100);
    EXPECT_EQ(a.window_end, 3010);
    ASSERT_EQ(a.busy.size(), 3u);
    EXPECT_EQ(a.busy[0].start, 100);
    EXPECT_EQ(a.busy[0].end, 500);
    EXPECT_EQ(a.busy[1].start, 1000);
    EXPECT_EQ(a.busy[1].end, 1200);
    EXPECT_EQ(a.busy[2].start, 3000);
    EXPECT_EQ(a.busy[2].end, 3010);
    EXPECT_EQ(a.busy_ns(), 400 + 200 + 10);
    // The op that opens / closes each period.
    EXPECT_EQ(a.busy[0].first, (GpuOpRef{GpuOpKind::Kernel, 0}));
    EXPECT_EQ(a.busy[0].last, (GpuOpRef{GpuOpKind::Memcpy, 0}));
    EXPECT_EQ(a.busy[1].first, (GpuOpRef{GpuOpKind::Kernel, 2}));
    EXPECT_EQ(a.busy[1].last, (GpuOpRef{GpuOpKind::Kernel, 4}));
    EXPECT_EQ(a.busy[2].first, (GpuOpRef{GpuOpKind::Memset, 0}));
    EXPECT_EQ(op_name(t, a.busy[0].last), "[CUDA memcpy Host-to-Device]");
    EXPECT_EQ(op_name(t, a.busy[2].first), "[CUDA memset]");
    EXPECT_EQ(op_name(t, a.busy[1].last), "D");

    const auto& idle = act[1];
    EXPECT_FALSE(idle.active());
    EXPECT_EQ(idle.window_ns(), 0);
    EXPECT_TRUE(idle.busy.empty());
}

TEST(Intervals, BusyPeriodsOfAnOpSubsetBreakTiesDeterministically)
{
    Trace t;
    const StrId n = t.strings.intern("k");
    t.kernels.append(10, 50, n);   // 0
    t.kernels.append(10, 50, n);   // 1: same start and end as 0
    t.kernels.append(20, 50, n);   // 2: same end, later start -> closes the period
    t.kernels.append(60, 60, n);   // 3: empty, not busy
    t.kernels.append(70, 80, n);   // 4
    std::vector<GpuOpRef> ops{{GpuOpKind::Kernel, 4}, {GpuOpKind::Kernel, 2}, {GpuOpKind::Kernel, 3},
                              {GpuOpKind::Kernel, 1}, {GpuOpKind::Kernel, 0}};
    const auto p = busy_periods(t, ops);
    ASSERT_EQ(p.size(), 2u);
    EXPECT_EQ(p[0].first.index, 0u);
    EXPECT_EQ(p[0].last.index, 2u);
    EXPECT_EQ(p[0].end, 50);
    EXPECT_EQ(p[1].first.index, 4u);
    EXPECT_EQ(ops.front().index, 0u);   // reordered by start
}

TEST(Intervals, DeviceBusyTimeMatchesBruteForceOnRandomOps)
{
    std::mt19937 rng(1234);
    for (int round = 0; round < 20; ++round) {
        Trace t;
        t.device_index(0);
        t.device_index(1);
        const StrId n = t.strings.intern("k");
        constexpr int64_t kSpan = 5000;
        std::vector<std::vector<char>> covered(2, std::vector<char>(kSpan, 0));
        std::uniform_int_distribution<int64_t> start(0, kSpan - 200), len(0, 150);
        std::uniform_int_distribution<int> dev(0, 1), kind(0, 2);
        for (int i = 0; i < 120; ++i) {
            const int64_t s = start(rng), e = s + len(rng);
            const auto d = static_cast<uint16_t>(dev(rng));
            switch (kind(rng)) {
            case 0: t.kernels.device[t.kernels.append(s, e, n)] = d; break;
            case 1: t.memcpy.device[t.memcpy.append(s, e, 8, CopyKind::DtoD)] = d; break;
            default: t.memset.device[t.memset.append(s, e, 8)] = d; break;
            }
            for (int64_t x = s; x < e; ++x)
                covered[d][static_cast<size_t>(x)] = 1;
        }
        const auto act = device_activity(t);
        for (size_t d = 0; d < 2; ++d) {
            int64_t busy = 0, periods = 0;
            for (int64_t x = 0; x < kSpan; ++x) {
                busy += covered[d][static_cast<size_t>(x)];
                if (covered[d][static_cast<size_t>(x)] && (x == 0 || !covered[d][static_cast<size_t>(x - 1)]))
                    ++periods;
            }
            EXPECT_EQ(act[d].busy_ns(), busy) << "round " << round << " device " << d;
            EXPECT_EQ(static_cast<int64_t>(act[d].busy.size()), periods) << "round " << round << " device " << d;
        }
    }
}

namespace {

// The reference: every op of a device as one row, sorted by (start, kind, row), swept into busy periods.
std::vector<BusyPeriod> naive_periods(const Trace& t, uint16_t device)
{
    struct Row {
        int64_t s, e;
        GpuOpKind k;
        uint32_t i;
    };
    std::vector<Row> rows;
    for (uint32_t i = 0; i < t.kernels.size(); ++i)
        if (t.kernels.device[i] == device)
            rows.push_back({t.kernels.start[i], t.kernels.end[i], GpuOpKind::Kernel, i});
    for (uint32_t i = 0; i < t.memcpy.size(); ++i)
        if (t.memcpy.device[i] == device)
            rows.push_back({t.memcpy.start[i], t.memcpy.end[i], GpuOpKind::Memcpy, i});
    for (uint32_t i = 0; i < t.memset.size(); ++i)
        if (t.memset.device[i] == device)
            rows.push_back({t.memset.start[i], t.memset.end[i], GpuOpKind::Memset, i});
    std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
        return std::tie(a.s, a.k, a.i) < std::tie(b.s, b.k, b.i);
    });
    std::vector<BusyPeriod> out;
    for (const Row& r : rows) {
        if (r.e <= r.s)
            continue;
        const GpuOpRef ref{r.k, r.i};
        if (!out.empty() && r.s <= out.back().end) {
            if (r.e >= out.back().end) {
                out.back().end = r.e;
                out.back().last = ref;
            }
        } else {
            out.push_back({r.s, r.e, ref, ref});
        }
    }
    return out;
}

void expect_same_periods(const std::vector<BusyPeriod>& got, const std::vector<BusyPeriod>& want, const std::string& what)
{
    ASSERT_EQ(got.size(), want.size()) << what;
    for (size_t i = 0; i < got.size(); ++i) {
        EXPECT_EQ(got[i].start, want[i].start) << what << " period " << i;
        EXPECT_EQ(got[i].end, want[i].end) << what << " period " << i;
        EXPECT_EQ(got[i].first, want[i].first) << what << " period " << i;
        EXPECT_EQ(got[i].last, want[i].last) << what << " period " << i;
    }
}

} // namespace

// device_activity() and for_each_busy_period() against the reference, when each table's rows are in time order (the
// three-way merge, with equal starts across kinds and rows, empty ops, and ops touching) and when they are not (the
// sort), on two devices with their ops interleaved in the tables.
TEST(Intervals, StreamedBusyPeriodsEqualTheReferenceSortedOrNot)
{
    std::mt19937 rng(18);
    for (int round = 0; round < 60; ++round) {
        const bool sorted = round % 2 == 0;
        Trace t;
        t.device_index(0);
        t.device_index(1);
        const StrId n = t.strings.intern("k");
        std::uniform_int_distribution<int64_t> step(0, 3), len(0, 12);
        std::uniform_int_distribution<int> dev(0, 1), kind(0, 2), pick(0, 199);
        int64_t at[3] = {0, 0, 0};
        for (int i = 0; i < 200; ++i) {
            const int k = kind(rng);
            at[k] += step(rng);   // equal starts are common: a step of 0
            const int64_t s = sorted ? at[k] : pick(rng), e = s + len(rng);
            const auto d = static_cast<uint16_t>(dev(rng));
            switch (k) {
            case 0: t.kernels.device[t.kernels.append(s, e, n)] = d; break;
            case 1: t.memcpy.device[t.memcpy.append(s, e, 8, CopyKind::DtoD)] = d; break;
            default: t.memset.device[t.memset.append(s, e, 8)] = d; break;
            }
        }
        const auto act = device_activity(t);
        std::vector<std::vector<BusyPeriod>> streamed;
        std::vector<DeviceActivity> heads;
        for_each_busy_period(
            t,
            [&](const BusyPeriod& p) {
                if (streamed.size() == heads.size())
                    streamed.emplace_back();
                streamed.back().push_back(p);
            },
            [&](DeviceActivity&& a) {
                if (streamed.size() == heads.size())
                    streamed.emplace_back();
                heads.push_back(std::move(a));
            });
        ASSERT_EQ(act.size(), 2u);
        ASSERT_EQ(heads.size(), 2u);
        for (uint16_t d = 0; d < 2; ++d) {
            const std::string what = std::string(sorted ? "sorted" : "unsorted") + " round " +
                                     std::to_string(round) + " device " + std::to_string(d);
            const auto want = naive_periods(t, d);
            expect_same_periods(act[d].busy, want, what);
            expect_same_periods(streamed[d], want, what + " (streamed)");
            EXPECT_TRUE(heads[d].busy.empty()) << what;
            EXPECT_EQ(heads[d].kernels + heads[d].memcpys + heads[d].memsets,
                      act[d].kernels + act[d].memcpys + act[d].memsets) << what;
            EXPECT_EQ(heads[d].window_start, act[d].window_start) << what;
            EXPECT_EQ(heads[d].window_end, act[d].window_end) << what;
        }
    }
}

// TopK keeps what a full sort's first k would be, ties included, for k = 0, below, at and above the stream's size.
TEST(TopK, EqualsTheFirstKOfAFullSort)
{
    std::mt19937 rng(7);
    std::uniform_int_distribution<int> value(0, 9);   // many ties
    for (size_t n : {0u, 1u, 5u, 50u, 500u}) {
        std::vector<int> v(n);
        for (int& x : v)
            x = value(rng);
        auto ahead = [&](size_t a, size_t b) { return v[a] != v[b] ? v[a] > v[b] : a < b; };
        std::vector<size_t> all(n);
        for (size_t i = 0; i < n; ++i)
            all[i] = i;
        std::sort(all.begin(), all.end(), ahead);
        for (size_t k : {size_t(0), size_t(1), size_t(3), size_t(10), n, n + 2}) {
            TopK<size_t, decltype(ahead)> top(k, ahead);
            for (size_t i = 0; i < n; ++i)
                top.offer(i);
            const std::vector<size_t> want(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(std::min(k, n)));
            EXPECT_EQ(top.take(), want) << "n " << n << " k " << k;
        }
    }
}
