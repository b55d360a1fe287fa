// The Kineto reader's one-pass event parser (kineto_event_parser.h).
#include "analysis/io/kineto_event_parser.h"

#include <charconv>
#include <cstring>
#include <string_view>
#include <system_error>

#include "analysis/io/byte_masks.h"

namespace sl::kineto {

namespace {

template <size_t N> bool is_key(std::string_view k, const char (&lit)[N])
{
    return k.size() == N - 1 && std::memcmp(k.data(), lit, N - 1) == 0;
}

class OnePass {
public:
    OnePass(const char* p, const char* end) : p_(p), end_(end) {}

    // True when the event object at p was read into e (p then points one past its '}').
    bool event(Event& e)
    {
        if (!open('{'))
            return false;
        if (*p_ == '}')
            return ++p_, true;
        for (;;) {
            std::string_view k;
            if (!key(k))
                return false;
            bool ok = true;
            switch (k.size()) {
            case 2:
                if (is_key(k, "ph")) {
                    std::string_view s;
                    ok = *p_ == '"' && string(s);   // not a string: simdjson rejects the event
                    e.ph = s.empty() ? 0 : s[0];
                } else if (is_key(k, "ts")) {
                    ok = time(e.ts, e.has_ts);
                } else if (is_key(k, "id")) {
                    int64_t n = 0;
                    bool got = false;
                    ok = i64(n, got, 1);
                    if (got) {
                        e.has_id = true;
                        e.id = static_cast<uint64_t>(n);
                    }
                } else {
                    ok = skip(1);
                }
                break;
            case 3:
                if (is_key(k, "cat"))
                    ok = *p_ == '"' ? string(e.cat) : skip(1);
                else if (is_key(k, "pid"))
                    ok = id(e.pid);
                else if (is_key(k, "tid"))
                    ok = id(e.tid);
                else if (is_key(k, "dur"))
                    ok = time(e.dur, e.has_dur);
                else
                    ok = skip(1);
                break;
            case 4:
                if (is_key(k, "name"))
                    ok = *p_ == '"' ? string(e.name) : skip(1);
                else if (is_key(k, "args") && *p_ == '{')
                    ok = args(e);
                else
                    ok = skip(1);
                break;
            default:
                ok = skip(1);
                break;
            }
            if (!ok)
                return false;
            if (const After a = after_item('}'); a != After::More)
                return a == After::Closed;
        }
    }

    const char* pos() const { return p_; }

private:
    void ws()
    {
        const char* q = p_;
        while (is_ws(*q))   // stops at the padding's kOnePassStop at the latest
            ++q;
        p_ = q;
    }
    bool open(char c)
    {
        if (*p_ != c)
            return false;
        ++p_;
        ws();
        return true;
    }
    // After a member or an element: the blanks, then the container's close (passed: Closed) or a ',' and the
    // blanks after it (More); Bad for anything else.
    enum class After { More, Closed, Bad };
    After after_item(char close)
    {
        ws();
        if (*p_ == close)
            return ++p_, After::Closed;
        if (*p_ != ',')
            return After::Bad;
        ++p_;
        ws();
        return After::More;
    }
    bool digit() const { return *p_ >= '0' && *p_ <= '9'; }
    bool number_next() const { return *p_ == '-' || digit(); }
    static bool delimiter(char c) { return (kCharClass[static_cast<unsigned char>(c)] & kAfterValue) != 0; }

    // A string at p_ ('"') with nothing to unescape or validate: its text in place.
    bool string(std::string_view& s)
    {
        const char* q = p_ + 1;
        for (; q < end_; q += 16) {
            if (const unsigned m = bytes::string_stops(q)) {
                const char* c = q + __builtin_ctz(m);
                if (c >= end_ || *c != '"')
                    return false;
                s = std::string_view(p_ + 1, static_cast<size_t>(c - p_ - 1));
                p_ = c + 1;
                return true;
            }
        }
        return false;
    }

    // A key, the ':' after it and the blanks up to its value.
    bool key(std::string_view& k)
    {
        if (*p_ != '"' || !string(k))
            return false;
        ws();
        if (*p_ != ':')
            return false;
        ++p_;
        ws();
        return true;
    }

    // Digits at p_ (none is a grammar error): passed over, their count in n.
    bool digits(size_t& n)
    {
        const char* d = p_;
        while (digit())
            ++p_;
        n = static_cast<size_t>(p_ - d);
        return n > 0;
    }

    // A JSON number at p_, followed by a delimiter: passed over.
    bool number()
    {
        size_t n = 0;
        if (*p_ == '-')
            ++p_;
        if (*p_ == '0')
            ++p_;
        else if (!digits(n))
            return false;
        if (*p_ == '.') {
            ++p_;
            if (!digits(n))
                return false;
        }
        if (*p_ == 'e' || *p_ == 'E') {
            ++p_;
            if (*p_ == '+' || *p_ == '-')
                ++p_;
            if (!digits(n))
                return false;
        }
        return delimiter(*p_);
    }

    // "ts"/"dur": us_text_to_ns() of a number's text; has is false for any other value. The usual "123.456" is
    // converted here as us_text_to_ns() would (the integer part x 1000 + three fractional digits, the fourth rounds
    // half away from zero); anything else goes through it.
    bool time(int64_t& out, bool& has)
    {
        if (!number_next()) {
            has = false;
            return skip(1);
        }
        const char* const from = p_;
        const char* q = p_;
        const bool neg = *q == '-';
        q += neg;
        uint64_t ip = 0;
        int64_t frac = 0;
        bool round_up = false;
        if (*q == '0') {
            ++q;
        } else {
            const char* d = q;
            for (unsigned c; (c = static_cast<unsigned char>(*q) - '0') < 10; ++q)
                ip = ip * 10 + c;
            if (q == d)
                return false;
            if (q - d > 16)
                return slow_time(from, out, has);
        }
        if (*q == '.') {
            ++q;
            const char* d = q;
            for (unsigned c; (c = static_cast<unsigned char>(*q) - '0') < 10; ++q) {
                const auto k = q - d;
                if (k < 3)
                    frac = frac * 10 + c;
                else if (k == 3)
                    round_up = c >= 5;
            }
            if (q == d)
                return false;
            for (auto k = q - d; k < 3; ++k)
                frac *= 10;
        }
        if (*q == 'e' || *q == 'E')
            return slow_time(from, out, has);
        if (!delimiter(*q))
            return false;
        if (!plain_us_to_ns(neg, ip, frac, round_up, out))
            return slow_time(from, out, has);
        p_ = q;
        has = true;
        return true;
    }

    bool slow_time(const char* from, int64_t& out, bool& has)
    {
        p_ = from;
        if (!number())
            return false;
        has = us_text_to_ns(std::string_view(from, static_cast<size_t>(p_ - from)), out);
        return true;
    }

    bool literal(std::string_view lit)
    {
        // *p_ is a letter, so p_ is before end_ and the padding holds the rest.
        if (std::memcmp(p_, lit.data(), lit.size()) != 0 || !delimiter(p_[lit.size()]))
            return false;
        p_ += lit.size();
        return true;
    }

    // Any JSON value at p_, checked and passed over; depth is that of the object or array holding it.
    bool skip(int depth)
    {
        switch (*p_) {
        case '"': {
            std::string_view s;
            return string(s);
        }
        case '{':
        case '[': {
            const char close = *p_ == '{' ? '}' : ']';
            if (depth + 1 > kMaxDepth || !open(*p_))
                return false;
            if (*p_ == close)
                return ++p_, true;
            for (;;) {
                std::string_view k;
                if ((close == '}' && !key(k)) || !skip(depth + 1))
                    return false;
                if (const After a = after_item(close); a != After::More)
                    return a == After::Closed;
            }
        }
        case 't': return literal("true");
        case 'f': return literal("false");
        case 'n': return literal("null");
        default: return number();
        }
    }

    // value_to_i64(): got says whether an integer was read (false for other types, which are passed over; depth is
    // that of the object or array holding the value).
    bool i64(int64_t& out, bool& got, int depth = 2)
    {
        got = false;
        if (number_next()) {
            const char* q = p_;
            const bool neg = *q == '-';
            q += neg;
            uint64_t u = 0;   // unsigned: a long run of digits wraps (defined) before the length check refuses it
            if (*q == '0') {
                ++q;
            } else {
                const char* d = q;
                for (unsigned c; (c = static_cast<unsigned char>(*q) - '0') < 10; ++q)
                    u = u * 10 + c;
                if (q == d || q - d > 18)
                    return false;   // what simdjson makes of a huge number is left to it
            }
            if (!delimiter(*q))
                return false;   // a fraction or an exponent is left to simdjson too
            p_ = q;
            const int64_t v = static_cast<int64_t>(u);   // at most 18 digits: fits
            out = neg ? -v : v;
            got = true;
            return true;
        }
        if (*p_ == '"') {
            std::string_view s;
            if (!string(s))
                return false;
            got = string_to_i64(s, out);
            return true;
        }
        return skip(depth);
    }

    // value_to_id().
    bool id(IdValue& v)
    {
        v = IdValue();
        if (*p_ == '"') {
            std::string_view s;
            if (!string(s))
                return false;
            v = string_to_id(s);
            return true;
        }
        int64_t n = 0;
        bool got = false;
        if (!i64(n, got, 1))
            return false;
        if (got) {
            v.present = true;
            v.num = n;
        }
        return true;
    }

    // A string arg: its text, or empty when the value is not a string.
    bool str(std::string_view& s)
    {
        s = {};
        return *p_ == '"' ? string(s) : skip(2);
    }

    // value_to_double().
    bool dbl(double& out)
    {
        if (!number_next())
            return skip(2);
        const char* from = p_;
        if (!number())
            return false;
        double d = 0;
        const auto [ptr, ec] = std::from_chars(from, p_, d);
        if (ec != std::errc() || ptr != p_)
            return false;   // beyond double: left to simdjson
        out = d;
        return true;
    }

    // value_to_dim3().
    bool dim3(int64_t out[3])
    {
        if (!open('['))
            return skip(2);
        if (*p_ == ']')
            return ++p_, true;
        for (int i = 0;; ++i) {
            int64_t n = 0;
            bool got = false;
            if (!i64(n, got, 3))
                return false;
            if (i < 3 && got)
                out[i] = n;
            if (const After a = after_item(']'); a != After::More)
                return a == After::Closed;
        }
    }

    // raw_array(): the array's text from '[' up to the next token, as simdjson gives it (trailing blanks included).
    bool raw_array(std::string_view& s)
    {
        s = {};
        if (*p_ != '[')
            return skip(2);
        const char* from = p_;
        if (!skip(2))
            return false;
        ws();
        s = std::string_view(from, static_cast<size_t>(p_ - from));
        return true;
    }

    // parse_args().
    bool args(Event& e)
    {
        open('{');
        if (*p_ == '}')
            return ++p_, true;
        for (;;) {
            std::string_view k;
            if (!key(k))
                return false;
            bool ok = true, got = false;
            switch (k.empty() ? 0 : k[0]) {
            case 'c':
                if (is_key(k, "correlation")) ok = i64(e.corr, e.has_corr);
                else if (is_key(k, "cuda_sync_kind")) ok = str(e.sync_kind);
                else ok = skip(2);
                break;
            case 's':
                if (is_key(k, "stream")) ok = i64(e.stream, e.has_stream);
                else if (is_key(k, "shared memory")) ok = i64(e.smem, got);
                else ok = skip(2);
                break;
            case 'd':
                if (is_key(k, "device")) ok = i64(e.device, e.has_device);
                else if (is_key(k, "dtype")) ok = str(e.dtype);
                else ok = skip(2);
                break;
            case 'g':
                if (is_key(k, "grid")) ok = dim3(e.grid);
                else if (is_key(k, "graph id")) { e.graph = true; ok = skip(2); }
                else ok = skip(2);
                break;
            case 'b':
                if (is_key(k, "block")) ok = dim3(e.block);
                else if (is_key(k, "bytes")) ok = i64(e.bytes, got);
                else if (is_key(k, "blocks per SM")) ok = dbl(e.blocks_per_sm);
                else ok = skip(2);
                break;
            case 'r':
                ok = is_key(k, "registers per thread") ? i64(e.regs, got) : skip(2);
                break;
            case 'w':
                ok = is_key(k, "warps per SM") ? dbl(e.warps_per_sm) : skip(2);
                break;
            case 'e':
                ok = is_key(k, "est. achieved occupancy %") ? dbl(e.occupancy) : skip(2);
                break;
            case 'n':
                ok = is_key(k, "name") ? str(e.arg_name) : skip(2);
                break;
            case 'k':
                ok = is_key(k, "kernel") ? str(e.launch_kernel) : skip(2);
                break;
            case 'E':
                ok = is_key(k, "External id") ? i64(e.ext, e.has_ext) : skip(2);
                break;
            case 'I':
                if (is_key(k, "Input Dims")) ok = raw_array(e.in_dims);
                else if (is_key(k, "Input type")) ok = raw_array(e.in_types);
                else if (is_key(k, "In msg nelems")) ok = i64(e.in_nelems, got);
                else ok = skip(2);
                break;
            case 'C':
                if (is_key(k, "Concrete Inputs")) ok = raw_array(e.concrete);
                else if (is_key(k, "Collective name")) ok = str(e.coll);
                else ok = skip(2);
                break;
            case 'O':
                ok = is_key(k, "Out msg nelems") ? i64(e.out_nelems, got) : skip(2);
                break;
            case 'G':
                ok = is_key(k, "Group size") ? i64(e.group_size, got) : skip(2);
                break;
            case 'P':
                if (is_key(k, "Process Group Name")) ok = str(e.pg_name);
                else if (is_key(k, "Process Group Ranks")) ok = str(e.pg_ranks);
                else ok = skip(2);
                break;
            default:
                ok = skip(2);
                break;
            }
            if (!ok)
                return false;
            if (const After a = after_item('}'); a != After::More)
                return a == After::Closed;
        }
    }

    const char* p_;
    const char* end_;
};

} // namespace

const char* parse_plain_event(const char* p, const char* end, Event& e)
{
    OnePass one(p, end);
    return one.event(e) ? one.pos() : nullptr;
}

} // namespace sl::kineto
