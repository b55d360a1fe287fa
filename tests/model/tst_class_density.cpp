// ClassDensity (model/class_density.h): the GPU time per operator class inside each pixel column of a stream lane
// (a merged timeline block's class mix) and the overview track's busy fraction and class shares — checked against
// brute-force walks that clip every item to every column, on the generator's decode preset (kernels of several
// classes, a copy stream) and a random trace with overlaps, at fit and zoomed.
#include <QTest>

#include <algorithm>
#include <map>
#include <random>

#include "analysis/io/synthetic.h"
#include "analysis/timeline/analysis.h"
#include "model/class_density.h"
#include "model/timeline_index.h"

using namespace sl;

namespace {

// Class of a stream lane's item i, the way the density defines it: the kernel's class, memcpy_memset for copies.
int classOf(const TimelineIndex& idx, const TimelineLane& lane, uint32_t i, const AnalysisResult& a)
{
    const ItemRef r = idx.ref(lane, i);
    int copy = -1, other = 0;
    for (size_t c = 0; c < a.classes.classes.size(); ++c) {
        if (a.classes.classes[c].id == "memcpy_memset")
            copy = int(c);
        if (a.classes.classes[c].id == "other")
            other = int(c);
    }
    if (r.kind == ItemKind::Kernel) {
        const int c = r.row < a.classes.kernel_class.size() ? a.classes.kernel_class[r.row] : -1;
        return c >= 0 ? c : other;
    }
    return copy >= 0 ? copy : other;
}

// Every item of the lane clipped to every column.
std::vector<int64_t> bruteColumns(const TimelineIndex& idx, int laneIdx, const AnalysisResult& a, timeline::Window w,
                                  int columns)
{
    const TimelineLane& lane = idx.lanes()[size_t(laneIdx)];
    const size_t K = a.classes.classes.size();
    std::vector<int64_t> out(size_t(columns) * K, 0);
    std::vector<int64_t> edge(size_t(columns) + 1);
    for (int x = 0; x <= columns; ++x)
        edge[size_t(x)] = x == columns ? w.end : x == 0 ? w.start : timeline::xToTime(double(x), w, double(columns));
    for (uint32_t i = 0; i < lane.items.size(); ++i) {
        const int64_t s = idx.itemStart(lane, i), e = idx.itemEnd(lane, i);
        const int c = classOf(idx, lane, i, a);
        for (int x = 0; x < columns; ++x) {
            const int64_t lo = std::max(s, edge[size_t(x)]), hi = std::min(e, edge[size_t(x) + 1]);
            if (hi > lo)
                out[size_t(x) * K + size_t(c)] += hi - lo;
        }
    }
    return out;
}

} // namespace

class TestClassDensity : public QObject {
    Q_OBJECT

    static void compareLanes(const TimelineIndex& idx, const ClassDensity& d, const AnalysisResult& a,
                             timeline::Window w, int columns)
    {
        int lanes = 0;
        for (size_t li = 0; li < idx.lanes().size(); ++li) {
            if (idx.lanes()[li].kind != LaneKind::Stream)
                continue;
            ++lanes;
            std::vector<int64_t> got;
            d.laneColumns(int(li), w, columns, got);
            const std::vector<int64_t> want = bruteColumns(idx, int(li), a, w, columns);
            QCOMPARE(got.size(), want.size());
            for (size_t j = 0; j < got.size(); ++j)
                if (got[j] != want[j])
                    QFAIL(qPrintable(QStringLiteral("lane %1 column %2 class %3: %4 ns, brute force %5 ns")
                                         .arg(li).arg(j / size_t(d.classCount())).arg(j % size_t(d.classCount()))
                                         .arg(got[j]).arg(want[j])));
        }
        QVERIFY(lanes >= 2);
    }

private slots:
    // The decode preset's streams do not overlap within a stream: the column sums are exact, at fit (many items per
    // column, the block prefix sums at work) and zoomed in (items wider than a column), and on a window that starts
    // before the trace and ends after it.
    void columnsEqualBruteForce()
    {
        auto trace = std::make_shared<const Trace>(make_synthetic_trace(synth_preset("decode")));
        auto idx = TimelineIndex::build(trace);
        auto a = std::make_shared<const AnalysisResult>(analyze(*trace, AnalysisOptions{}));
        auto d = ClassDensity::build(idx, a);
        QVERIFY(d->matches(idx.get(), a.get()));
        QCOMPARE(d->classCount(), int(a->classes.classes.size()));
        const timeline::Window all{idx->start(), idx->end()};
        compareLanes(*idx, *d, *a, all, 1200);
        compareLanes(*idx, *d, *a, {idx->start() - all.duration() / 10, idx->end() + all.duration() / 7}, 700);
        const int64_t mid = (idx->start() + idx->end()) / 2;
        compareLanes(*idx, *d, *a, {mid, mid + all.duration() / 500}, 900);
        compareLanes(*idx, *d, *a, {mid, mid + 40'000}, 1000);
        // A lane's whole time per class equals the kernel time per class the analysis reports on that stream.
        std::map<int, int64_t> total;
        for (size_t li = 0; li < idx->lanes().size(); ++li) {
            if (idx->lanes()[li].kind != LaneKind::Stream)
                continue;
            const auto ns = d->laneTime(int(li), all.start, all.end + 1);
            for (size_t c = 0; c < ns.size(); ++c)
                total[int(c)] += ns[c];
        }
        for (size_t c = 0; c < a->classes.classes.size(); ++c)
            QCOMPARE(total[int(c)], a->classes.classes[c].time_ns);
    }

    // The overview: per column, the GPUs' busy fraction is the union of their ops (the idle lanes) over the devices'
    // activity windows, and the class shares are each class's part of the summed GPU time.
    void overviewEqualsBruteForce()
    {
        auto trace = std::make_shared<const Trace>(make_synthetic_trace(synth_preset("decode")));
        auto idx = TimelineIndex::build(trace);
        auto a = std::make_shared<const AnalysisResult>(analyze(*trace, AnalysisOptions{}));
        auto d = ClassDensity::build(idx, a);
        const timeline::Window w{idx->start(), idx->end()};
        const int columns = 500;
        const ClassDensity::Overview o = d->overview(w, columns);
        QCOMPARE(int(o.busy.size()), columns);
        const size_t K = size_t(o.classes);
        // busy: union of the device's ops clipped to each column
        std::vector<std::pair<int64_t, int64_t>> ops;
        const Trace& t = *trace;
        for (size_t i = 0; i < t.kernels.size(); ++i)
            ops.emplace_back(t.kernels.start[i], t.kernels.end[i]);
        for (size_t i = 0; i < t.memcpy.size(); ++i)
            ops.emplace_back(t.memcpy.start[i], t.memcpy.end[i]);
        for (size_t i = 0; i < t.memset.size(); ++i)
            ops.emplace_back(t.memset.start[i], t.memset.end[i]);
        std::sort(ops.begin(), ops.end());
        std::vector<std::pair<int64_t, int64_t>> merged;
        for (const auto& [s, e] : ops)
            if (!merged.empty() && s <= merged.back().second)
                merged.back().second = std::max(merged.back().second, e);
            else
                merged.emplace_back(s, e);
        std::vector<double> sum(size_t(columns) * K, 0);
        for (size_t li = 0; li < idx->lanes().size(); ++li)
            if (idx->lanes()[li].kind == LaneKind::Stream) {
                const auto v = bruteColumns(*idx, int(li), *a, w, columns);
                for (size_t j = 0; j < v.size(); ++j)
                    sum[j] += double(v[j]);
            }
        int busyColumns = 0;
        for (int x = 0; x < columns; ++x) {
            const int64_t lo = x == 0 ? w.start : timeline::xToTime(double(x), w, columns);
            const int64_t hi = x + 1 == columns ? w.end : timeline::xToTime(double(x + 1), w, columns);
            int64_t busy = 0;
            for (const auto& [s, e] : merged)
                busy += std::max<int64_t>(0, std::min(e, hi) - std::max(s, lo));
            QVERIFY2(std::fabs(o.busy[size_t(x)] - double(busy) / double(hi - lo)) < 1e-3,
                     qPrintable(QStringLiteral("column %1: %2 vs %3").arg(x).arg(o.busy[size_t(x)]).arg(double(busy) / double(hi - lo))));
            double total = 0;
            for (size_t c = 0; c < K; ++c)
                total += sum[size_t(x) * K + c];
            for (size_t c = 0; c < K; ++c) {
                const double want = total > 0 ? sum[size_t(x) * K + c] / total : 0;
                QVERIFY(std::fabs(o.share[size_t(x) * K + c] - want) < 1e-4);
            }
            busyColumns += o.busy[size_t(x)] > 0.5f;
        }
        QVERIFY(busyColumns > columns / 2);   // the decode preset keeps the GPU busy (95 %)
    }

    // Items that overlap within a stream (two kernels at once on one stream, as concurrent graph nodes can show): the
    // column sums never exceed the column, and over the whole lane they add up to the items' durations.
    void overlapsStayBounded()
    {
        std::mt19937_64 rng(11);
        auto t = std::make_shared<Trace>();
        const uint16_t dev = t->device_index(0);
        const StrId names[2] = {t->strings.intern("gemm_kernel"), t->strings.intern("flash_attention")};
        int64_t at = 0;
        for (int i = 0; i < 5000; ++i) {
            const int64_t dur = 50 + int64_t(rng() % 2000);
            const size_t r = t->kernels.append(at, at + dur, names[rng() % 2]);
            t->kernels.device[r] = dev;
            t->kernels.stream[r] = 7;
            at += rng() % 4 == 0 ? -dur / 2 : dur + int64_t(rng() % 300);
            at = std::max<int64_t>(0, at);
        }
        t->finish();
        auto idx = TimelineIndex::build(t);
        auto a = std::make_shared<const AnalysisResult>(analyze(*t, AnalysisOptions{}));
        auto d = ClassDensity::build(idx, a);
        const int lane = idx->laneOfKernel(0);
        for (int columns : {37, 400, 3000}) {
            const timeline::Window w{idx->start(), idx->end()};
            std::vector<int64_t> got;
            d->laneColumns(lane, w, columns, got);
            const size_t K = size_t(d->classCount());
            for (int x = 0; x < columns; ++x) {
                const int64_t lo = x == 0 ? w.start : timeline::xToTime(double(x), w, columns);
                const int64_t hi = x + 1 == columns ? w.end : timeline::xToTime(double(x + 1), w, columns);
                for (size_t c = 0; c < K; ++c) {
                    QVERIFY(got[size_t(x) * K + c] >= 0);
                    QVERIFY(got[size_t(x) * K + c] <= hi - lo);
                }
            }
        }
        int64_t total = 0, want = 0;
        for (int64_t v : d->laneTime(lane, idx->start(), idx->end() + 1))
            total += v;
        for (size_t i = 0; i < t->kernels.size(); ++i)
            want += t->kernels.end[i] - t->kernels.start[i];
        QCOMPARE(total, want);
        // Bounded memory: one row of class sums per block of 64 items.
        QVERIFY(d->memoryBytes() < size_t(t->kernels.size() / 64 + 2) * size_t(d->classCount()) * 8 + 4096);
    }
};

QTEST_MAIN(TestClassDensity)
#include "tst_class_density.moc"
