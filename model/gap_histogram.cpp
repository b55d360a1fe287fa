#include "model/gap_histogram.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace sl {

GapHistogram binGapsByCause(const IdleResult& idle)
{
    GapHistogram h;
    for (const Gap& g : idle.gaps) {
        const size_t b = gap_bucket_of(g.duration());
        const auto c = static_cast<size_t>(g.cause);
        if (b >= kGapBuckets || c >= 4)
            continue;
        ++h.count[b][c];
        h.total_ns[b][c] += g.duration();
    }
    return h;
}

int64_t GapBins::binCount(size_t bin) const
{
    const auto& c = count.at(bin);
    return c[0] + c[1] + c[2] + c[3];
}

int64_t GapBins::binTotal(size_t bin) const
{
    const auto& t = total_ns.at(bin);
    return t[0] + t[1] + t[2] + t[3];
}

int GapBins::binOf(int64_t duration_ns) const
{
    if (edges.size() < 2 || duration_ns < edges.front() || duration_ns >= edges.back())
        return -1;
    // the last edge <= duration: bins are [lo, hi)
    const auto it = std::upper_bound(edges.begin(), edges.end(), duration_ns);
    return int(it - edges.begin()) - 1;
}

std::vector<int64_t> GapBins::gapsIn(int bin) const
{
    std::vector<int64_t> out;
    if (bin < 0 || size_t(bin) >= size())
        return out;
    for (size_t i = 0; i < bin_of_gap.size(); ++i)
        if (bin_of_gap[i] == bin)
            out.push_back(int64_t(i));
    return out;
}

GapBins binGaps(const IdleResult& idle, std::vector<int64_t> edges)
{
    GapBins b;
    b.edges = std::move(edges);
    const size_t n = b.edges.size() < 2 ? 0 : b.edges.size() - 1;
    if (n == 0)
        b.edges.clear();
    b.count.assign(n, {});
    b.total_ns.assign(n, {});
    b.bin_of_gap.assign(idle.gaps.size(), -1);
    for (size_t i = 0; i < idle.gaps.size(); ++i) {
        const Gap& g = idle.gaps[i];
        const int bin = b.binOf(g.duration());
        const auto c = static_cast<size_t>(g.cause);
        if (bin < 0 || c >= 4)
            continue;
        b.bin_of_gap[i] = bin;
        ++b.count[size_t(bin)][c];
        b.total_ns[size_t(bin)][c] += g.duration();
    }
    return b;
}

GapBins summaryGapBins(const IdleResult& idle)
{
    std::vector<int64_t> edges;
    for (const GapBucketDef& d : gap_bucket_defs())
        edges.push_back(d.lo_ns);
    const int64_t last = gap_bucket_defs().back().hi_ns;
    edges.push_back(last < 0 ? std::numeric_limits<int64_t>::max() : last);
    return binGaps(idle, std::move(edges));
}

std::shared_ptr<const GapHistogramData> binGapHistogram(std::shared_ptr<const AnalysisResult> analysis)
{
    auto d = std::make_shared<GapHistogramData>();
    if (analysis) {
        d->byCause = binGapsByCause(analysis->idle);
        d->summary = summaryGapBins(analysis->idle);
    }
    d->analysis = std::move(analysis);
    return d;
}

std::vector<int64_t> logGapEdges(int64_t max_gap_ns, int per_decade, int64_t first_ns)
{
    per_decade = std::max(1, per_decade);
    first_ns = std::max<int64_t>(1, first_ns);
    std::vector<int64_t> edges{0, first_ns};
    // k counts steps from first_ns; each edge is computed from k (not from the previous edge), so rounding does not
    // accumulate, and is kept strictly increasing for tiny first_ns.
    for (int k = 1; edges.back() <= max_gap_ns; ++k) {
        const double e = double(first_ns) * std::pow(10.0, double(k) / per_decade);
        if (e >= 9.0e18) {
            edges.push_back(std::numeric_limits<int64_t>::max());
            break;
        }
        edges.push_back(std::max(edges.back() + 1, int64_t(std::llround(e))));
    }
    return edges;
}

GapBins fineGapBins(const IdleResult& idle, int per_decade, int64_t first_ns)
{
    if (idle.gaps.empty())
        return binGaps(idle, {});
    int64_t largest = 0;
    for (const Gap& g : idle.gaps)
        largest = std::max(largest, g.duration());
    return binGaps(idle, logGapEdges(largest, per_decade, first_ns));
}

} // namespace sl
