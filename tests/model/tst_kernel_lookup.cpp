// KernelLookup (built with the timeline index, on the worker) against brute-force scans of the same generated trace:
// per-name count / total / min / median / p90 / max, the percentile of an instance, the longest instance (the loop
// the main window used to run), the kernel an API call launched, and name search; plus ties on a hand-made trace.
#include <QTest>
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "analysis/io/synthetic.h"
#include "model/kernel_lookup.h"
#include "model/timeline_index.h"

using namespace sl;

namespace {

std::string lower(std::string_view s)
{
    std::string o(s);
    for (char& c : o)
        if (c >= 'A' && c <= 'Z')
            c = char(c - 'A' + 'a');
    return o;
}

} // namespace

class TestKernelLookup : public QObject {
    Q_OBJECT
private slots:
    void equalsBruteForce()
    {
        SynthOptions so = synth_preset("decode");
        so.nccl = true;   // a second stream and a second launch API
        auto trace = std::make_shared<const Trace>(make_synthetic_trace(so));
        const auto index = TimelineIndex::build(trace);
        const KernelLookup& lk = *index->kernelLookup();
        const auto& k = trace->kernels;
        QVERIFY(k.size() > 1000);

        std::map<StrId, std::vector<int64_t>> durations;
        for (size_t i = 0; i < k.size(); ++i)
            durations[k.name[i]].push_back(k.end[i] - k.start[i]);
        QCOMPARE(lk.names().size(), durations.size());
        for (size_t i = 1; i < lk.names().size(); ++i)
            QVERIFY(lk.names()[i - 1].total >= lk.names()[i].total);

        for (auto& [name, d] : durations) {
            std::sort(d.begin(), d.end());
            const NameDistribution dist = lk.distribution(name);
            QCOMPARE(dist.count, int64_t(d.size()));
            int64_t total = 0;
            for (int64_t v : d)
                total += v;
            QCOMPARE(dist.total, total);
            QCOMPARE(dist.min, d.front());
            QCOMPARE(dist.max, d.back());
            // nearest rank on the sorted sample: element round(q * (n - 1))
            QCOMPARE(dist.median, d[size_t(std::llround(0.5 * double(d.size() - 1)))]);
            QCOMPARE(dist.p90, d[size_t(std::llround(0.9 * double(d.size() - 1)))]);
            QCOMPARE(lk.instances(name).size(), d.size());

            // the main window's former loop: first kernel with a strictly longer duration
            int64_t best = -1, bestDur = -1;
            for (size_t j = 0; j < k.size(); ++j)
                if (k.name[j] == name && k.end[j] - k.start[j] > bestDur) {
                    best = int64_t(j);
                    bestDur = k.end[j] - k.start[j];
                }
            QCOMPARE(lk.longestInstance(name), best);
            // the scan a caller falls back to while its timeline index is coarse (no lookup yet)
            QCOMPARE(KernelLookup::scanLongestInstance(*trace, name), best);
        }
        QCOMPARE(KernelLookup::scanLongestInstance(*trace, StrId(trace->strings.size() + 5)), int64_t(-1));
        QCOMPARE(lk.longestInstance(StrId(trace->strings.size() + 5)), int64_t(-1));
        QVERIFY(lk.distribution(UINT32_MAX).count == 0);

        // percentile of every 97th kernel: share of same-name instances strictly shorter, over n - 1
        for (size_t i = 0; i < k.size(); i += 97) {
            const auto& d = durations[k.name[i]];
            const int64_t mine = k.end[i] - k.start[i];
            const auto shorter = std::count_if(d.begin(), d.end(), [&](int64_t v) { return v < mine; });
            const double expected = d.size() > 1 ? double(shorter) / double(d.size() - 1) : 1.0;
            QCOMPARE(lk.percentileOf(int64_t(i)), expected);
        }

        // API call -> first kernel it launched
        for (size_t a = 0; a < trace->api.size(); a += 13) {
            int64_t first = -1;
            for (size_t j = 0; j < k.size(); ++j)
                if (k.launch_api[j] == int32_t(a)) {
                    first = int64_t(j);
                    break;
                }
            QCOMPARE(lk.kernelOfApi(int64_t(a)), first);
            QCOMPARE(KernelLookup::scanKernelOfApi(*trace, int64_t(a)), first);
        }
        int launched = 0;
        for (size_t a = 0; a < trace->api.size(); ++a)
            launched += lk.kernelOfApi(int64_t(a)) >= 0;
        QVERIFY(launched > 100);
        QCOMPARE(KernelLookup::scanKernelOfApi(*trace, -1), int64_t(-1));
        QCOMPARE(KernelLookup::scanKernelOfApi(*trace, int64_t(trace->api.size())), int64_t(-1));
        // the longest range of each name, indexed and scanned
        std::set<StrId> rangeNames(trace->ranges.name.begin(), trace->ranges.name.end());
        QVERIFY(!rangeNames.empty());
        for (StrId nm : rangeNames)
            QCOMPARE(KernelLookup::scanLongestRange(*trace, nm), lk.longestRange(nm));

        // search: case-insensitive substring over full and short names
        for (const char* needle : {"GEMM", "rms", "nccl", "no-such-kernel"}) {
            std::set<StrId> expected;
            for (size_t j = 0; j < k.size(); ++j)
                if (lower(trace->str(k.name[j])).find(lower(needle)) != std::string::npos ||
                    lower(trace->str(k.short_name[j])).find(lower(needle)) != std::string::npos)
                    expected.insert(k.name[j]);
            const auto found = lk.search(needle, 100000);
            QCOMPARE(std::set<StrId>(found.begin(), found.end()), expected);
        }
        QVERIFY(!lk.search("gemm", 1000).empty());
        QVERIFY(lk.memoryBytes() < trace->memory_bytes() / 4);
    }

    void tiesPickTheFirstRow()
    {
        auto t = std::make_shared<Trace>();
        const uint16_t dev = t->device_index(0);
        const StrId a = t->strings.intern("a"), b = t->strings.intern("b");
        // a: 100, 300, 300, 200 ns (rows 0, 2, 3, 5); b: 50, 50 (rows 1, 4)
        const int64_t spans[][2] = {{0, 100}, {200, 250}, {300, 600}, {700, 1000}, {1100, 1150}, {1200, 1400}};
        const StrId names[] = {a, b, a, a, b, a};
        for (int i = 0; i < 6; ++i) {
            const size_t r = t->kernels.append(spans[i][0], spans[i][1], names[i]);
            t->kernels.device[r] = dev;
        }
        t->finish();
        auto lk = KernelLookup::build(t);
        QCOMPARE(lk->longestInstance(a), int64_t(2));
        QCOMPARE(lk->longestInstance(b), int64_t(1));
        QCOMPARE(KernelLookup::scanLongestInstance(*t, a), int64_t(2));
        QCOMPARE(KernelLookup::scanLongestInstance(*t, b), int64_t(1));
        const NameDistribution d = lk->distribution(a);
        QCOMPARE(d.count, int64_t(4));
        QCOMPARE(d.min, int64_t(100));
        QCOMPARE(d.median, int64_t(300));   // sorted 100 200 300 300, element round(1.5) = 2
        QCOMPARE(d.max, int64_t(300));
        QCOMPARE(lk->percentileOf(0), 0.0);
        QCOMPARE(lk->percentileOf(5), 1.0 / 3.0);
        QCOMPARE(lk->percentileOf(3), 2.0 / 3.0);   // two instances strictly shorter
        QCOMPARE(lk->percentileOf(1), 0.0);          // b: neither is shorter
        QCOMPARE(lk->names().front().name, a);       // 900 ns before b's 100 ns
    }

    // Groups big enough for the radix sort (one name with 20,000 instances, durations spread over 2^0..2^31 ns with
    // many ties) and one with a duration past 2^32 ns (the comparison sort): instances in (duration, -row) order.
    void bigGroupsSortLikeTheComparison()
    {
        auto t = std::make_shared<Trace>();
        const uint16_t dev = t->device_index(0);
        const StrId big = t->strings.intern("big"), huge = t->strings.intern("huge");
        uint64_t x = 12345;
        for (int i = 0; i < 20000; ++i) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            const int64_t d = i % 3 == 0 ? int64_t(x >> 61) : int64_t((x >> 33) >> (x >> 59));
            const size_t r = t->kernels.append(int64_t(i) * 10, int64_t(i) * 10 + d, i % 7 == 0 ? huge : big);
            t->kernels.device[r] = dev;
        }
        t->kernels.end[7] = t->kernels.start[7] + (int64_t(1) << 33);   // a "huge" instance past 2^32 ns
        t->finish();
        auto lk = KernelLookup::build(t);
        for (StrId name : {big, huge}) {
            std::vector<std::pair<int64_t, int64_t>> expected;   // (duration, -row)
            for (uint32_t i = 0; i < t->kernels.size(); ++i)
                if (t->kernels.name[i] == name)
                    expected.emplace_back(t->kernels.end[i] - t->kernels.start[i], -int64_t(i));
            std::sort(expected.begin(), expected.end());
            const auto rows = lk->instances(name);
            QCOMPARE(rows.size(), expected.size());
            for (size_t j = 0; j < rows.size(); ++j)
                QCOMPARE(int64_t(rows[j]), -expected[j].second);
        }
        QCOMPARE(lk->longestInstance(huge), int64_t(7));
    }
};

QTEST_GUILESS_MAIN(TestKernelLookup)
#include "tst_kernel_lookup.moc"
