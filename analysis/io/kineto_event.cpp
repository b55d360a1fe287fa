// The conversions of JSON text the Kineto reader's event parsers share (kineto_event.h).
#include "analysis/io/kineto_event.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>

namespace sl::kineto {

// Parses a JSON number given in microseconds into nanoseconds without going through double when the text is a plain
// decimal. Returns false when the text is not a number.
bool us_text_to_ns(std::string_view s, int64_t& out)
{
    while (!s.empty() && is_ws(s.back()))
        s.remove_suffix(1);
    size_t i = 0;
    const size_t n = s.size();
    bool neg = false;
    if (i < n && (s[i] == '-' || s[i] == '+')) {
        neg = s[i] == '-';
        ++i;
    }
    uint64_t ip = 0;
    size_t int_digits = 0;
    while (i < n && s[i] >= '0' && s[i] <= '9') {
        if (int_digits >= 16) { // >= 1e16 us (317 years) would overflow int64 ns; fall back
            int_digits = 99;
            break;
        }
        ip = ip * 10 + static_cast<uint64_t>(s[i] - '0');
        ++int_digits;
        ++i;
    }
    int64_t frac = 0;
    bool round_up = false;
    bool plain = int_digits != 99;
    if (plain && i < n && s[i] == '.') {
        ++i;
        int k = 0;
        while (i < n && s[i] >= '0' && s[i] <= '9') {
            if (k < 3)
                frac = frac * 10 + (s[i] - '0');
            else if (k == 3)
                round_up = s[i] >= '5';
            ++k;
            ++i;
        }
        for (; k < 3 && k >= 0; ++k)
            frac *= 10;
    }
    if (plain && i == n && int_digits > 0 && plain_us_to_ns(neg, ip, frac, round_up, out))
        return true;
    // Exponent notation or a huge value: go through strtod (rare; Kineto never writes these).
    std::string tmp(s);
    char* endp = nullptr;
    const double d = std::strtod(tmp.c_str(), &endp);
    if (endp == tmp.c_str() || *endp != '\0' || !std::isfinite(d))
        return false;
    if (std::fabs(d) > 9.0e15) {
        // Beyond int64 nanoseconds: a time all the same, far outside +/-2^61 ns, so the reader clamps it and says
        // so (as the README promises) instead of dropping the event as one without a time.
        out = d > 0 ? INT64_MAX / 2 : -(INT64_MAX / 2);
        return true;
    }
    out = std::llround(d * 1000.0);
    return true;
}

// Integer from a numeric string ("0x0", "2560"), as strtoll reads it; out is left alone when it is not one.
bool string_to_i64(std::string_view s, int64_t& out)
{
    if (s.empty() || s.size() > 30)
        return false;
    std::string tmp(s);
    char* endp = nullptr;
    const long long x = std::strtoll(tmp.c_str(), &endp, 0);
    if (*endp != '\0')
        return false;
    out = x;
    return true;
}

// A pid/tid given as a string: numeric strings ("25738") are the same id as the number.
IdValue string_to_id(std::string_view s)
{
    IdValue r;
    r.present = true;
    bool digits = !s.empty() && s.size() < 19;
    for (char c : s)
        digits = digits && c >= '0' && c <= '9';
    if (digits) {
        int64_t n = 0;
        for (char c : s)
            n = n * 10 + (c - '0');
        r.num = n;
    } else {
        r.is_string = true;
        r.str = s;
    }
    return r;
}

} // namespace sl::kineto
