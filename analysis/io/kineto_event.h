#pragma once
// One trace event as the Kineto reader's two event parsers give it (kineto_event_parser.h reads a plain event in one
// pass, kineto_simdjson.h any other with simdjson On-Demand), and the conversions of JSON text both share. Internal to
// the reader: analysis/io/kineto_reader.h is its interface.

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace sl::kineto {

inline constexpr int kMaxDepth = 64;           // JSON nesting deeper than this inside an event is garbage

// Character classes by table (one load, where four compares were a tenth of the event parser's instructions):
// JSON blanks, and the bytes that may follow a number or a literal.
inline constexpr uint8_t kBlank = 1, kAfterValue = 2;
inline constexpr auto kCharClass = [] {
    std::array<uint8_t, 256> t{};
    for (unsigned char c : {' ', '\n', '\r', '\t'})
        t[c] = kBlank | kAfterValue;
    for (unsigned char c : {',', '}', ']'})
        t[c] = kAfterValue;
    return t;
}();

inline bool is_ws(char c) { return (kCharClass[static_cast<unsigned char>(c)] & kBlank) != 0; }

// ---- number text -> integer ns ---------------------------------------------------------------------------------
// The integer part x 1000 + three fractional digits (+1 when the fourth rounds up), negated when neg; false when it
// overflows int64 (the caller then goes through strtod, which refuses such times).
inline bool plain_us_to_ns(bool neg, uint64_t ip, int64_t frac, bool round_up, int64_t& out)
{
    int64_t v = 0;
    if (ip > 9'000'000'000'000'000ull || __builtin_mul_overflow(static_cast<int64_t>(ip), int64_t{1000}, &v) ||
        __builtin_add_overflow(v, frac + (round_up ? 1 : 0), &v))
        return false;
    out = neg ? -v : v;
    return true;
}

// Parses a JSON number given in microseconds into nanoseconds without going through double when the text is a plain
// Parses a JSON number given in microseconds into nanoseconds without going through double when the text is a plain
// decimal. Returns false when the text is not a number.
bool us_text_to_ns(std::string_view s, int64_t& out);

// ---- one event, as parsed ----------------------------------------------------------------------------------------
struct IdValue {
    bool present = false;
    bool is_string = false;
    int64_t num = 0;
    std::string_view str;
};

struct Event {
    char ph = 0;
    std::string_view cat, name;
    IdValue pid, tid;
    bool has_ts = false, has_dur = false, has_id = false;
    int64_t ts = 0, dur = 0;
    uint64_t id = 0;
    // args
    bool has_corr = false, has_stream = false, has_device = false, graph = false;
    int64_t corr = 0, stream = 0, device = 0, regs = 0, smem = 0, bytes = 0;
    int64_t grid[3] = {0, 0, 0}, block[3] = {0, 0, 0};   // 0: the trace does not record the launch shape
    double blocks_per_sm = NAN, warps_per_sm = NAN, occupancy = NAN;
    std::string_view arg_name, sync_kind;
    std::string_view launch_kernel;   // args "kernel" of a launch call: the kernel it launched (ROCm, graph capture)
    // record_shapes and collective args (kept in Trace::op_args); raw JSON text for the arrays.
    bool has_ext = false;
    int64_t ext = 0, in_nelems = -1, out_nelems = -1, group_size = -1;
    std::string_view in_dims, in_types, concrete, coll, dtype, pg_name, pg_ranks;
    // An integer field given as a fraction or beyond int64 ("device": 1.5): the event is skipped and counted.
    const char* bad_field = nullptr;
    double bad_number = 0;
    bool has_op_args() const { return !in_dims.empty() || !coll.empty(); }
};

// Integer from a numeric string ("0x0", "2560"), as strtoll reads it; out is left alone when it is not one.
bool string_to_i64(std::string_view s, int64_t& out);

// A pid/tid given as a string: numeric strings ("25738") are the same id as the number.
IdValue string_to_id(std::string_view s);

} // namespace sl::kineto
