#pragma once
// bind::link_largest_gaps (binders.h), a template shared by the trace and device binders.
#include "analysis/timeline/idle.h"
#include "analysis/trace/top_k.h"

namespace sl::bind {

template <class Keep>
void link_largest_gaps(const std::vector<Gap>& gaps, Keep keep, size_t max_links, ScopeLinks& links)
{
    auto ahead = [&](uint32_t a, uint32_t b) {
        const int64_t x = gaps[a].duration(), y = gaps[b].duration();
        return x != y ? x > y : a < b;
    };
    TopK<uint32_t, decltype(ahead)> top(max_links, ahead);
    for (size_t i = 0; i < gaps.size(); ++i)
        if (keep(gaps[i]))
            top.offer(static_cast<uint32_t>(i));
    for (uint32_t i : top.take()) {
        const Gap& g = gaps[i];
        links.time_ranges.push_back({g.start, g.end, std::string("gap (") + gap_cause_name(g.cause) + ")"});
    }
}

} // namespace sl::bind
