#include "analysis/trace/stats.h"

#include <algorithm>
#include <cmath>

namespace sl {

namespace {

using u128 = unsigned __int128;

// Compares L * 2^-k with q + r / den (0 <= r < den, den > 0): -1, 0 or 1. Only integers: L < 2^110.
int compare_dyadic(u128 L, int k, u128 q, u128 r, u128 den)
{
    if (k <= 0) {
        if (L != 0 && (-k >= 128 || (L >> (127 + k)) != 0))
            return 1;   // L * 2^-k is beyond anything q can hold
        const u128 a = L << (-k);
        if (a != q)
            return a < q ? -1 : 1;
        return r > 0 ? -1 : 0;
    }
    // L against (q + r / den) * 2^k = (q << k) + floor(r 2^k / den) + a remainder.
    if (q != 0 && (k >= 127 || (q >> (127 - k)) != 0))
        return -1;
    const u128 a = q << k;
    if (a > L)
        return -1;
    u128 f = 0;
    for (int i = 0; i < k; ++i) {   // long division, one bit a step
        r <<= 1;                     // r < den = n (n - 1) < 2^126: no overflow
        f <<= 1;
        if (r >= den) {
            r -= den;
            f |= 1;
        }
        if (f > L)                   // already beyond L
            return -1;
    }
    const u128 total = a + f;
    if (total != L)
        return total > L ? -1 : 1;
    return r > 0 ? -1 : 0;
}

// The double nearest to sqrt(q + r / den) (ties to even): libm's sqrt of the variance rounded to double would round
// twice and miss the nearest double about one time in seven; the square of each candidate's rounding boundary is
// compared with the exact variance instead.
double sqrt_rounded(u128 q, u128 r, u128 den)
{
    if (q == 0 && r == 0)
        return 0.0;
    double s = std::sqrt(static_cast<double>(q) + static_cast<double>(r) / static_cast<double>(den));
    for (int step = 0; step < 4; ++step) {
        int e2 = 0;
        const double f = std::frexp(s, &e2);   // s = f 2^e2, f in [0.5, 1)
        const uint64_t m = static_cast<uint64_t>(std::ldexp(f, 53));   // s = m 2^(e2 - 53), 2^52 <= m < 2^53
        const int e = e2 - 53;
        // Upper boundary (2m + 1) 2^(e - 1); lower (2m - 1) 2^(e - 1), or (4m - 1) 2^(e - 2) when m = 2^52 (the double
        // below s has the smaller exponent). Squared: L 2^-k with k = 2 - 2e (or 4 - 2e).
        const u128 up = 2 * static_cast<u128>(m) + 1;
        const int cu = compare_dyadic(up * up, 2 - 2 * e, q, r, den);
        if (cu < 0 || (cu == 0 && (m & 1))) {
            s = std::nextafter(s, HUGE_VAL);
            continue;
        }
        const bool pow2 = m == (uint64_t{1} << 52);
        const u128 lo = pow2 ? 4 * static_cast<u128>(m) - 1 : 2 * static_cast<u128>(m) - 1;
        const int cl = compare_dyadic(lo * lo, pow2 ? 4 - 2 * e : 2 - 2 * e, q, r, den);
        if (cl > 0 || (cl == 0 && (m & 1))) {
            s = std::nextafter(s, 0.0);
            continue;
        }
        break;
    }
    return s;
}

// The median, by selection (reorders v).
Stats finish_median(std::vector<int64_t>& v, Stats s)
{
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

} // namespace

Stats compute_stats(std::vector<int64_t>& v)
{
    Stats s;
    s.count = static_cast<int64_t>(v.size());
    if (v.empty())
        return s;
    s.min = v[0];
    s.max = v[0];
    // Integers throughout where they fit, so the numbers are the same on every host: long double (used here
    // before) is 80-bit on x86-64 and 128-bit on AArch64, and the same trace gave a stddev that differed in its last
    // bit between the two.
    __int128 sum = 0;
    for (int64_t x : v) {
        sum += x;
        s.min = std::min(s.min, x);
        s.max = std::max(s.max, x);
    }
    s.total = static_cast<int64_t>(sum);
    const uint64_t n = v.size();
    // mean = q + r / n exactly (sum = q n + r, 0 <= |r| < n): q's double plus a fraction below 1.
    const __int128 q = sum / static_cast<__int128>(n), r = sum % static_cast<__int128>(n);
    s.avg = static_cast<double>(q) + static_cast<double>(r) / static_cast<double>(n);
    if (n < 2)
        return finish_median(v, s);
    // The variance is shift-invariant: with y = x - min >= 0, (n Σy² - (Σy)²) / (n (n - 1)) exactly in unsigned
    // 128-bit integers when that fits (durations under about a second's spread and fewer than ~2^30 values), else
    // a compensated double sum in a fixed order.
    const u128 kMax = ~static_cast<u128>(0);
    const uint64_t span = static_cast<uint64_t>(s.max) - static_cast<uint64_t>(s.min);
    bool exact = span < (uint64_t{1} << 62);
    u128 sy = 0, syy = 0;
    for (size_t i = 0; exact && i < v.size(); ++i) {
        const u128 y = static_cast<uint64_t>(v[i]) - static_cast<uint64_t>(s.min);
        const u128 yy = y * y;
        if (syy > kMax - yy) {
            exact = false;
            break;
        }
        sy += y;
        syy += yy;
    }
    if (exact && syy <= kMax / n) {
        const u128 num = static_cast<u128>(n) * syy - sy * sy;   // >= 0 (Cauchy-Schwarz); sy <= n max y fits
        const u128 den = static_cast<u128>(n) * (n - 1);
        s.stddev = sqrt_rounded(num / den, num % den, den);
    } else {
        double m2 = 0, comp = 0;
        for (int64_t x : v) {
            const double d = static_cast<double>(x) - s.avg;
            const double term = d * d;
            const double t = m2 + term;
            comp += std::fabs(m2) >= std::fabs(term) ? (m2 - t) + term : (term - t) + m2;
            m2 = t;
        }
        s.stddev = std::sqrt((m2 + comp) / static_cast<double>(n - 1));
    }
    return finish_median(v, s);
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
