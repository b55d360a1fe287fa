#include "analysis/trace/stats.h"

#include <algorithm>
#include <cmath>

namespace sl {

Stats compute_stats(std::vector<int64_t>& v)
{
    Stats s;
    s.count = static_cast<int64_t>(v.size());
    if (v.empty())
        return s;
    s.min = v[0];
    s.max = v[0];
    long double sum = 0;
    for (int64_t x : v) {
        sum += x;
        s.min = std::min(s.min, x);
        s.max = std::max(s.max, x);
    }
    s.total = static_cast<int64_t>(sum);
    s.avg = static_cast<double>(sum / v.size());
    long double m2 = 0;
    for (int64_t x : v) {
        const long double d = x - static_cast<long double>(s.avg);
        m2 += d * d;
    }
    s.stddev = v.size() > 1 ? static_cast<double>(std::sqrt(m2 / (v.size() - 1))) : 0.0;
    const size_t mid = v.size() / 2;
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
    const int64_t upper = v[mid];
    if (v.size() % 2 == 1) {
        s.median = static_cast<double>(upper);
    } else {
        const int64_t lower = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
        s.median = (static_cast<double>(lower) + static_cast<double>(upper)) / 2.0;
    }
    return s;
}

double percentile(std::vector<int64_t>& v, double p)
{
    if (v.empty())
        return 0;
    p = std::clamp(p, 0.0, 100.0);
    const double rank = p / 100.0 * static_cast<double>(v.size() - 1);
    const size_t lo = static_cast<size_t>(std::floor(rank));
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(lo), v.end());
    const double a = static_cast<double>(v[lo]);
    if (lo + 1 >= v.size())
        return a;
    const double b = static_cast<double>(*std::min_element(v.begin() + static_cast<std::ptrdiff_t>(lo) + 1, v.end()));
    return a + (rank - static_cast<double>(lo)) * (b - a);
}

} // namespace sl
