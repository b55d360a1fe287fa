#pragma once
// Overflow-checked time arithmetic (issue 17). Timestamps from a file are untrusted: -2^63 and 2^63-1 are valid
// int64 values, and end - start of those overflows (undefined behaviour, caught by UBSan). Readers bring every
// timestamp into a range where the differences and sums the analyses form cannot overflow.

#include <algorithm>
#include <cstdint>

namespace sl {

// |t| <= 2^61 ns (73 years either side of the trace's origin): any difference of two such times, and any sum of
// two such differences, fits in int64.
inline constexpr int64_t kMaxTraceTimeNs = int64_t{1} << 61;

inline bool time_in_range(int64_t t) { return t >= -kMaxTraceTimeNs && t <= kMaxTraceTimeNs; }
inline int64_t clamp_time(int64_t t) { return std::clamp(t, -kMaxTraceTimeNs, kMaxTraceTimeNs); }

// a + b / a - b; false (out untouched) on overflow.
inline bool checked_add(int64_t a, int64_t b, int64_t& out) { return !__builtin_add_overflow(a, b, &out); }
inline bool checked_sub(int64_t a, int64_t b, int64_t& out) { return !__builtin_sub_overflow(a, b, &out); }

} // namespace sl
