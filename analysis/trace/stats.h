#pragma once
// Duration/size statistics with the definitions of `nsys stats` summaries: total, count, mean, true median (mean of
// the two middle values for an even count), min, max, sample standard deviation (n-1; 0 for a single value).

#include <cstdint>
#include <vector>

namespace sl {

struct Stats {
    int64_t count = 0;
    int64_t total = 0;
    double avg = 0;
    double median = 0;
    int64_t min = 0;
    int64_t max = 0;
    double stddev = 0;
};

// Reorders `values` (uses nth_element); O(n).
Stats compute_stats(std::vector<int64_t>& values);

// Linear-interpolated percentile (p in [0,100]) of unsorted values; reorders them. Returns 0 for no values.
double percentile(std::vector<int64_t>& values, double p);

} // namespace sl
