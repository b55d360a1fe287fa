#pragma once
// Idle gaps binned by size and by cause, for the Gaps pane: the summary's 7 buckets (<1us ... >1ms), or finer
// log-spaced bins on demand. Plain functions over IdleResult, testable without widgets.

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "analysis/timeline/analysis.h"
#include "analysis/timeline/idle.h"
#include "analysis/timeline/summary.h"

namespace sl {

struct GapHistogram {
    // [bucket][cause]: count and total ns; bucket as gap_bucket_of(), cause as GapCause.
    std::array<std::array<int64_t, kGapCauses>, kGapBuckets> count{}, total_ns{};
};

GapHistogram binGapsByCause(const IdleResult& idle);

// Gaps in contiguous bins [edges[b], edges[b + 1]), stacked by cause. edges[0] = 0; the last edge is INT64_MAX when
// the last bin is open (the summary's ">1ms"). Every gap of the IdleResult falls in exactly one bin.
struct GapBins {
    std::vector<int64_t> edges;                            // size() + 1 ascending edges, or empty (no bins)
    std::vector<std::array<int64_t, kGapCauses>> count, total_ns;   // [bin][cause], cause as GapCause
    std::vector<int32_t> bin_of_gap;                       // per index into IdleResult::gaps: its bin

    size_t size() const { return count.size(); }
    int64_t lo(size_t bin) const { return edges[bin]; }
    int64_t hi(size_t bin) const { return edges[bin + 1]; }   // exclusive; INT64_MAX: open
    int64_t binCount(size_t bin) const;
    int64_t binTotal(size_t bin) const;
    // Bin of a gap length, or -1 when no bin holds it (no bins, or beyond the last closed edge).
    int binOf(int64_t duration_ns) const;
    // Indices into IdleResult::gaps of the gaps in `bin`, ascending; empty for a bin out of range.
    std::vector<int64_t> gapsIn(int bin) const;
};

// Bins with the given edges (ascending, edges[0] = 0, last edge above every gap or INT64_MAX).
GapBins binGaps(const IdleResult& idle, std::vector<int64_t> edges);
// The summary's 7 buckets (gap_bucket_defs()) as bins: equal to idle.histogram.
GapBins summaryGapBins(const IdleResult& idle);

// The Gaps pane's default figures for one analysis, binned once on the worker that produced the analysis
// (JobRunner), so an analysis of 10^7 gaps costs the GUI thread no pass over them when it arrives (issue 18).
struct GapHistogramData {
    std::shared_ptr<const AnalysisResult> analysis;   // what was binned
    GapHistogram byCause;                             // binGapsByCause(analysis->idle)
    GapBins summary;                                  // summaryGapBins(analysis->idle)
};
std::shared_ptr<const GapHistogramData> binGapHistogram(std::shared_ptr<const AnalysisResult> analysis);

// Log-spaced edges: 0, then first_ns·10^(k / per_decade) for k = 0, 1, ... (rounded to the ns) until an edge lies
// above max_gap_ns; the first bin [0, first_ns) holds the shorter gaps. Only {0, first_ns} when max_gap_ns < first_ns.
std::vector<int64_t> logGapEdges(int64_t max_gap_ns, int per_decade = 4, int64_t first_ns = 100);
// Finer bins on demand: logGapEdges() up to the largest gap. No gaps: no bins.
GapBins fineGapBins(const IdleResult& idle, int per_decade = 4, int64_t first_ns = 100);

} // namespace sl
