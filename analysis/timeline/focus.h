#pragma once
// Focus set, first channel: the Top-K kernel names by total GPU time (seed 004 S_focus; default K = 10). The
// low-Roofline-efficiency channel (E_roof < τ) joins in the Roofline issue through FocusEntry::in_low_efficiency.

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/timeline/op_classes.h"

namespace sl {

struct FocusOptions {
    size_t top_k = 10;
};

struct FocusEntry {
    StrId name = 0;
    int cls = 0;                   // op class index
    int64_t time_ns = 0, count = 0;
    double share = 0;              // of Σ kernel time (nsys convention)
    double cumulative_share = 0;
    bool in_top_k = true;
    bool in_low_efficiency = false;   // set by the Roofline analysis
};

struct FocusResult {
    FocusOptions options;
    std::vector<FocusEntry> entries;   // time order
    double covered_share = 0;          // share of kernel time the Top-K names hold
};

// O(names log names) (the names come sorted from classify_ops).
FocusResult focus_top_k(const OpClassResult& classes, const FocusOptions& options = {});

} // namespace sl
