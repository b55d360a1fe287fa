#pragma once
// Find by name on the timeline: kernels, NVTX ranges and API calls whose name contains a text or matches a regular
// expression. Built once per timeline index (one pass over the lanes' items, grouping them by kind and name), so a
// query walks the distinct names, not the rows: each keystroke on a 10^6-kernel trace tests a few thousand strings.
//
// A query's answer, SearchMatches, is immutable: per lane the matching item positions (ascending, i.e. by start),
// and every match in time order for stepping with Enter / Shift+Enter.

#include <QString>
#include <cstdint>
#include <memory>
#include <vector>

#include "model/timeline_index.h"

namespace sl {

enum class SearchKind : uint8_t { Kernel = 0, Range = 1, Api = 2 };

struct SearchHit {
    int64_t start = 0;
    uint32_t lane = 0;
    uint32_t item = 0;   // position in the lane's items
};

struct SearchMatches {
    QString text;                              // what was searched
    std::vector<std::vector<uint32_t>> perLane; // lane -> matching item positions, ascending
    std::vector<SearchHit> ordered;            // all matches by start (then lane)
    int names = 0;                             // distinct names that matched
    int kernels = 0, ranges = 0, apiCalls = 0; // matches per kind
    bool invalidPattern = false;               // the regular expression does not compile
    bool empty() const { return ordered.empty(); }
    // Index into `ordered` of the first match starting at or after t (wraps to 0); -1 when there is none.
    int64_t firstAtOrAfter(int64_t t) const;
};

class SearchIndex {
public:
    // One pass over every lane's items (kernels, API calls, NVTX ranges).
    static std::shared_ptr<const SearchIndex> build(std::shared_ptr<const TimelineIndex> index);

    // Words a kernel name is also found by: its operator class's id and labels ("attention Attention 注意力"), so a
    // search for "attention" finds FlashAttention and fmha kernels alike (issue 37 §7). Indexed by the name's StrId.
    using KernelTags = std::vector<QString>;
    struct Options {
        bool regex = false;
        bool caseSensitive = false;
        bool kernels = true, ranges = true, apiCalls = true;
        const KernelTags* kernelTags = nullptr;   // may be null: names only
    };
    // Every instance whose name contains `text` (or matches it as a regular expression), and every kernel whose
    // tags do. O(distinct names + matches).
    std::shared_ptr<const SearchMatches> find(const QString& text, const Options& options) const;
    // Every instance of one kernel name (a row of the Kernels table).
    std::shared_ptr<const SearchMatches> kernelInstances(StrId name) const;
    // Exactly the given kernels (indices into Trace::kernels, e.g. Selection::highlightedKernels: every kernel of one
    // Roofline shape point), found among the instances of their names; `text` names the set. O(instances of those
    // names · log rows).
    std::shared_ptr<const SearchMatches> kernelRows(const std::vector<int64_t>& rows, const QString& text) const;

    size_t distinctNames() const { return names_.size(); }
    const TimelineIndex& timeline() const { return *index_; }

private:
    struct Name {
        StrId id = 0;
        SearchKind kind = SearchKind::Kernel;
        uint32_t begin = 0, end = 0;   // range in hits_
        QString text;                  // the name, decoded once
    };
    std::shared_ptr<SearchMatches> collect(const std::vector<const Name*>& names, const QString& text) const;

    std::shared_ptr<const TimelineIndex> index_;
    std::vector<Name> names_;               // grouped by kind, then name id
    std::vector<SearchHit> hits_;           // grouped by name; within a name by start
    std::vector<uint32_t> kernelName_;      // StrId -> index into names_ for kernels (UINT32_MAX: none)
};

} // namespace sl
