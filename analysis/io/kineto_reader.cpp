// PyTorch profiler (Kineto) Chrome-trace JSON reader.
//
// Design: the file (inflated on the fly when gzipped) is read in pieces into one buffer. A small structural scanner
// walks the top-level object and captures the small metadata values (deviceProperties, distributedInfo, ...). The
// events inside "traceEvents" are read a buffer fill at a time on all threads (issue 18): each thread reads the
// events of its chunk in place, a plain event in one pass (OnePass), any other by finding its byte range (respecting
// strings, escapes and nesting, with a depth limit for garbage) and parsing it with simdjson On-Demand, handles them
// into a Part, and the parts are merged into the columnar Trace in file order (see parallel_step). Nothing but the
// buffer, the parts of two fills and the tables grows with the input: no DOM, no copy of the file.
//
// Timestamps are decimal microseconds; they are converted from the number's text to integer nanoseconds exactly
// (integer part x 1000 + three fractional digits, the fourth rounds half away from zero), so start + duration never
// drifts and no duration turns negative. Times stay relative to baseTimeNanoseconds (TraceMeta::utc_epoch_ns).

#include "analysis/io/kineto_reader.h"

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <numeric>
#include <optional>
#include <string_view>
#include <system_error>
#include <thread>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>

#include <cerrno>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <nlohmann/json.hpp>
#include <simdjson.h>

#include "analysis/trace/checked_math.h"
#include "analysis/trace/clock_offset.h"
#include "analysis/trace/errors.h"
#include "analysis/io/byte_masks.h"
#include "analysis/io/gzip_stream.h"
#include "analysis/io/input_bounds.h"
#include "analysis/io/parallel.h"

namespace sl {

namespace {

namespace od = simdjson::ondemand;

constexpr size_t kChunk = 8u << 20;            // bytes read per refill
constexpr size_t kMinChunk = 4u << 10;          // the smallest first buffer
constexpr size_t kMaxEventBytes = 64u << 20;   // one event larger than this is garbage, not a trace (issue 17:
                                                // 256 MB let one 1 GB string in a 1 MB .gz reach 548 MB)
constexpr size_t kMaxMetaBytes = 64u << 20;    // a top-level metadata value we keep (bigger ones are skipped)
constexpr int kMaxDepth = 64;                  // JSON nesting deeper than this inside an event is garbage
constexpr size_t kNpos = static_cast<size_t>(-1);

std::string describe_byte(char c)
{
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f)
        return std::string("'") + c + "'";
    char buf[16];
    std::snprintf(buf, sizeof buf, "byte 0x%02x", u);
    return buf;
}

// Character classes by table (one load, where four compares were a tenth of the event parser's instructions):
// JSON blanks, and the bytes that may follow a number or a literal.
constexpr uint8_t kBlank = 1, kAfterValue = 2;
constexpr auto kCharClass = [] {
    std::array<uint8_t, 256> t{};
    for (unsigned char c : {' ', '\n', '\r', '\t'})
        t[c] = kBlank | kAfterValue;
    for (unsigned char c : {',', '}', ']'})
        t[c] = kAfterValue;
    return t;
}();

bool is_ws(char c) { return (kCharClass[static_cast<unsigned char>(c)] & kBlank) != 0; }

// ---- number text -> integer ns ---------------------------------------------------------------------------------
// The integer part x 1000 + three fractional digits (+1 when the fourth rounds up), negated when neg; false when it
// overflows int64 (the caller then goes through strtod, which refuses such times).
bool plain_us_to_ns(bool neg, uint64_t ip, int64_t frac, bool round_up, int64_t& out)
{
    int64_t v = 0;
    if (ip > 9'000'000'000'000'000ull || __builtin_mul_overflow(static_cast<int64_t>(ip), int64_t{1000}, &v) ||
        __builtin_add_overflow(v, frac + (round_up ? 1 : 0), &v))
        return false;
    out = neg ? -v : v;
    return true;
}

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

// What a simdjson error means, in the reader's words (the "found" part of a message).
std::string describe_json_error(simdjson::error_code e)
{
    switch (e) {
    case simdjson::UTF8_ERROR: return "invalid UTF-8 in a string";
    case simdjson::INCORRECT_TYPE: return "a value of another type than the field needs (e.g. a number for a name)";
    case simdjson::NUMBER_ERROR: return "a malformed number";
    case simdjson::NUMBER_OUT_OF_RANGE: return "a number out of range";
    case simdjson::STRING_ERROR:
    case simdjson::UNCLOSED_STRING: return "a malformed string (a bad escape or no closing quote)";
    case simdjson::T_ATOM_ERROR:
    case simdjson::F_ATOM_ERROR:
    case simdjson::N_ATOM_ERROR: return "a misspelt true, false or null";
    case simdjson::DEPTH_ERROR: return "nesting deeper than the parser allows";
    case simdjson::INCOMPLETE_ARRAY_OR_OBJECT: return "an object or array cut short";
    case simdjson::TRAILING_CONTENT: return "more after the end of the event";
    case simdjson::MEMALLOC: return "no memory to parse it";
    case simdjson::UNESCAPED_CHARS: return "a control character inside a string";
    default: return "malformed JSON (a missing comma, colon, brace or bracket)";
    }
}

// ---- categories ------------------------------------------------------------------------------------------------
enum class Cat : uint8_t {
    Other, Kernel, Memcpy, Memset, Runtime, Driver, Sync, UserAnnotation, GpuUserAnnotation, CpuOp, Python, Trace, Flow
};

Cat classify_cat(std::string_view c)
{
    switch (c.size()) {
    case 4:
        if (c == "ac2g") return Cat::Flow;
        break;
    case 5:
        if (c == "Trace") return Cat::Trace;
        if (c == "async") return Cat::Flow;
        break;
    case 6:
        if (c == "kernel" || c == "Kernel") return Cat::Kernel;
        if (c == "cpu_op") return Cat::CpuOp;
        if (c == "Memcpy") return Cat::Memcpy;
        if (c == "Memset") return Cat::Memset;
        break;
    case 7:
        if (c == "Runtime") return Cat::Runtime;
        break;
    case 8:
        if (c == "Operator") return Cat::CpuOp;
        break;
    case 9:
        if (c == "cuda_sync") return Cat::Sync;
        if (c == "async_gpu") return Cat::Flow;
        break;
    case 10:
        if (c == "gpu_memcpy") return Cat::Memcpy;
        if (c == "gpu_memset") return Cat::Memset;
        break;
    case 11:
        if (c == "cuda_driver") return Cat::Driver;
        break;
    case 12:
        if (c == "cuda_runtime") return Cat::Runtime;
        break;
    case 15:
        if (c == "user_annotation") return Cat::UserAnnotation;
        if (c == "python_function") return Cat::Python;
        break;
    case 16:
        if (c == "async_cpu_to_gpu") return Cat::Flow;
        break;
    case 19:
        if (c == "gpu_user_annotation") return Cat::GpuUserAnnotation;
        break;
    default:
        break;
    }
    return Cat::Other;
}

// "Memcpy HtoD (Pageable -> Device)" -> HtoD, Pageable, Device.
MemKind mem_kind_of(std::string_view w)
{
    if (w == "Pageable") return MemKind::Pageable;
    if (w == "Pinned") return MemKind::Pinned;
    if (w == "Device") return MemKind::Device;
    if (w == "Array") return MemKind::Array;
    if (w == "Managed") return MemKind::Managed;
    if (w == "Host") return MemKind::Pageable;   // ROCm writes "Host"; the memory kind is not known beyond that
    return MemKind::Unknown;
}

void parse_copy_name(std::string_view name, CopyKind& kind, MemKind& src, MemKind& dst)
{
    kind = CopyKind::Unknown;
    src = dst = MemKind::Unknown;
    auto has = [&](std::string_view p) { return name.find(p) != std::string_view::npos; };
    if (has("HtoD")) kind = CopyKind::HtoD;
    else if (has("DtoH")) kind = CopyKind::DtoH;
    else if (has("DtoD")) kind = CopyKind::DtoD;
    else if (has("HtoH")) kind = CopyKind::HtoH;
    else if (has("PtoP")) kind = CopyKind::PtoP;
    else if (has("HtoA")) kind = CopyKind::HtoA;
    else if (has("AtoH")) kind = CopyKind::AtoH;
    else if (has("AtoA")) kind = CopyKind::AtoA;
    else if (has("AtoD")) kind = CopyKind::AtoD;
    else if (has("DtoA")) kind = CopyKind::DtoA;
    const size_t open = name.find('(');
    const size_t arrow = name.find(" -> ");
    const size_t close = name.rfind(')');
    if (open != std::string_view::npos && arrow != std::string_view::npos && close != std::string_view::npos &&
        open < arrow && arrow < close) {
        src = mem_kind_of(name.substr(open + 1, arrow - open - 1));
        dst = mem_kind_of(name.substr(arrow + 4, close - arrow - 4));
    }
}

uint8_t sync_type_of(std::string_view n)
{
    // CUPTI CUpti_ActivitySynchronizationType numbering.
    if (n == "Event Sync") return 1;
    if (n == "Stream Wait Event") return 2;
    if (n == "Stream Sync") return 3;
    if (n == "Context Sync") return 4;
    return 0;
}

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
    int64_t grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
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

// Integer from a number or a numeric string ("0x0", "2560"). A number with a fraction or beyond int64 sets
// *not_integer (when given) and gives false: 1.5 is not 1.
bool value_to_i64(od::value v, int64_t& out, double* not_integer = nullptr)
{
    od::json_type t;
    if (v.type().get(t) != simdjson::SUCCESS)
        return false;
    if (t == od::json_type::number) {
        od::number num;
        if (v.get_number().get(num) != simdjson::SUCCESS) {
            // An integer beyond 64 bits (simdjson has no number for it): not an integer the trace can keep.
            if (not_integer) {
                const std::string raw(v.raw_json_token());
                const double d = std::strtod(raw.c_str(), nullptr);
                *not_integer = d != 0 ? d : 1e300;
            }
            return false;
        }
        if (num.is_int64())
            out = num.get_int64();
        else if (num.is_uint64())
            out = static_cast<int64_t>(num.get_uint64());
        else {
            const double d = num.get_double();
            if (!std::isfinite(d) || d != std::floor(d) || std::fabs(d) >= 9.2e18) {
                if (not_integer)
                    *not_integer = d;
                return false;
            }
            out = static_cast<int64_t>(d);
        }
        return true;
    }
    if (t == od::json_type::string) {
        std::string_view s;
        return v.get_string().get(s) == simdjson::SUCCESS && string_to_i64(s, out);
    }
    return false;
}

bool value_to_double(od::value v, double& out)
{
    od::json_type t;
    if (v.type().get(t) != simdjson::SUCCESS || t != od::json_type::number)
        return false;
    return v.get_double().get(out) == simdjson::SUCCESS;
}

void value_to_dim3(od::value v, int64_t out[3], double* not_integer = nullptr)
{
    od::array arr;
    if (v.get_array().get(arr) != simdjson::SUCCESS)
        return;
    int i = 0;
    for (auto el : arr) {
        od::value x;
        if (el.get(x) != simdjson::SUCCESS)
            return;
        int64_t n = 0;
        if (i < 3 && value_to_i64(x, n, not_integer))
            out[i] = n;
        ++i;
    }
}

IdValue value_to_id(od::value v)
{
    IdValue r;
    od::json_type t;
    if (v.type().get(t) != simdjson::SUCCESS)
        return r;
    if (t == od::json_type::number) {
        int64_t n = 0;
        if (value_to_i64(v, n)) {
            r.present = true;
            r.num = n;
        }
    } else if (t == od::json_type::string) {
        std::string_view s;
        if (v.get_string().get(s) == simdjson::SUCCESS)
            r = string_to_id(s);
    }
    return r;
}

bool key_is(std::string_view k, const char* lit) { return k == lit; }

// The key of a field as written (Kineto keys carry no escapes); falls back to unescaping when one does.
std::string_view field_key(od::field& field)
{
    const char* r = field.key().raw();
    size_t n = 0;
    while (r[n] != '"' && r[n] != '\\')
        ++n;
    if (r[n] == '"')
        return {r, n};
    std::string_view k;
    if (field.unescaped_key().get(k) != simdjson::SUCCESS)
        throw simdjson::simdjson_error(simdjson::STRING_ERROR);
    return k;
}

// Raw JSON text of an array value (record_shapes' "Input Dims", ...); empty when it is not an array.
std::string_view raw_array(od::value v)
{
    od::array arr;
    std::string_view out;
    if (v.get_array().get(arr) != simdjson::SUCCESS || arr.raw_json().get(out) != simdjson::SUCCESS)
        return {};
    return out;
}

void parse_args(od::object args, Event& e)
{
    // Integer args checked for a fraction (the first such field names the event's problem).
    const auto int_arg = [&e](od::value v, int64_t& out, const char* name) {
        double d = 0;
        const bool ok = value_to_i64(v, out, &d);
        if (!ok && d != 0 && !e.bad_field) {
            e.bad_field = name;
            e.bad_number = d;
        }
        return ok;
    };
    const auto dim3_arg = [&e](od::value v, int64_t out[3], const char* name) {
        double d = 0;
        value_to_dim3(v, out, &d);
        if (d != 0 && !e.bad_field) {
            e.bad_field = name;
            e.bad_number = d;
        }
    };
    for (auto field : args) {
        od::field f;
        if (std::move(field).get(f) != simdjson::SUCCESS)
            throw simdjson::simdjson_error(simdjson::TAPE_ERROR);
        const std::string_view k = field_key(f);
        od::value v = f.value();
        switch (k.empty() ? 0 : k[0]) {
        case 'c':
            if (key_is(k, "correlation")) e.has_corr = int_arg(v, e.corr, "args.correlation");
            else if (key_is(k, "cuda_sync_kind") && v.get_string().get(e.sync_kind) != simdjson::SUCCESS) e.sync_kind = {};
            break;
        case 's':
            if (key_is(k, "stream")) e.has_stream = int_arg(v, e.stream, "args.stream");
            else if (key_is(k, "shared memory")) int_arg(v, e.smem, "args.shared memory");
            break;
        case 'd':
            if (key_is(k, "device")) e.has_device = int_arg(v, e.device, "args.device");
            else if (key_is(k, "dtype") && v.get_string().get(e.dtype) != simdjson::SUCCESS) e.dtype = {};
            break;
        case 'g':
            if (key_is(k, "grid")) dim3_arg(v, e.grid, "args.grid");
            else if (key_is(k, "graph id")) e.graph = true;
            break;
        case 'b':
            if (key_is(k, "block")) dim3_arg(v, e.block, "args.block");
            else if (key_is(k, "bytes")) int_arg(v, e.bytes, "args.bytes");
            else if (key_is(k, "blocks per SM")) value_to_double(v, e.blocks_per_sm);
            break;
        case 'r':
            if (key_is(k, "registers per thread")) int_arg(v, e.regs, "args.registers per thread");
            break;
        case 'w':
            if (key_is(k, "warps per SM")) value_to_double(v, e.warps_per_sm);
            break;
        case 'e':
            if (key_is(k, "est. achieved occupancy %")) value_to_double(v, e.occupancy);
            break;
        case 'n':
            if (key_is(k, "name") && v.get_string().get(e.arg_name) != simdjson::SUCCESS) e.arg_name = {};
            break;
        case 'k':
            if (key_is(k, "kernel") && v.get_string().get(e.launch_kernel) != simdjson::SUCCESS) e.launch_kernel = {};
            break;
        case 'E':
            if (key_is(k, "External id")) e.has_ext = int_arg(v, e.ext, "args.External id");
            break;
        case 'I':
            if (key_is(k, "Input Dims")) e.in_dims = raw_array(v);
            else if (key_is(k, "Input type")) e.in_types = raw_array(v);
            else if (key_is(k, "In msg nelems")) value_to_i64(v, e.in_nelems);
            break;
        case 'C':
            if (key_is(k, "Concrete Inputs")) e.concrete = raw_array(v);
            else if (key_is(k, "Collective name") && v.get_string().get(e.coll) != simdjson::SUCCESS) e.coll = {};
            break;
        case 'O':
            if (key_is(k, "Out msg nelems")) value_to_i64(v, e.out_nelems);
            break;
        case 'G':
            if (key_is(k, "Group size")) value_to_i64(v, e.group_size);
            break;
        case 'P':
            if (key_is(k, "Process Group Name")) { if (v.get_string().get(e.pg_name) != simdjson::SUCCESS) e.pg_name = {}; }
            else if (key_is(k, "Process Group Ranks") && v.get_string().get(e.pg_ranks) != simdjson::SUCCESS) e.pg_ranks = {};
            break;
        default:
            break;
        }
    }
}

// A string value's text in place in the read buffer when it has no escapes (almost every name and category), so
// it is not copied into the parser's string buffer (nor, when parsed ahead on another thread, into an Arena);
// unescaped by simdjson otherwise. Stage 1 has validated the UTF-8 of the whole event either way.
std::string_view string_in_place(od::value v)
{
    const std::string_view raw = v.raw_json_token();
    if (raw.size() >= 2 && raw[0] == '"') {
        // Two memchr calls, not find_first_of (which calls memchr on its two-byte set for every byte of a name).
        const char* close = static_cast<const char*>(std::memchr(raw.data() + 1, '"', raw.size() - 1));
        if (close && !std::memchr(raw.data() + 1, '\\', static_cast<size_t>(close - raw.data() - 1)))
            return raw.substr(1, static_cast<size_t>(close - raw.data() - 1));
    }
    return v.get_string();
}

void parse_event_fields(od::object obj, Event& e)
{
    for (auto field : obj) {
        od::field f;
        if (std::move(field).get(f) != simdjson::SUCCESS)
            throw simdjson::simdjson_error(simdjson::TAPE_ERROR);
        const std::string_view k = field_key(f);
        od::value v = f.value();
        if (k.size() == 2) {
            if (k == "ph") {
                std::string_view s = v.get_string();
                e.ph = s.empty() ? 0 : s[0];
            } else if (k == "ts") {
                std::string_view raw = v.raw_json_token();
                e.has_ts = us_text_to_ns(raw, e.ts);
            } else if (k == "id") {
                int64_t n = 0;
                if (value_to_i64(v, n)) {
                    e.has_id = true;
                    e.id = static_cast<uint64_t>(n);
                }
            }
        } else if (k.size() == 3) {
            if (k == "cat") {
                od::json_type t = v.type();
                if (t == od::json_type::string)
                    e.cat = string_in_place(v);
            } else if (k == "pid") {
                e.pid = value_to_id(v);
            } else if (k == "tid") {
                e.tid = value_to_id(v);
            } else if (k == "dur") {
                std::string_view raw = v.raw_json_token();
                e.has_dur = us_text_to_ns(raw, e.dur);
            }
        } else if (k.size() == 4) {
            if (k == "name") {
                od::json_type t = v.type();
                if (t == od::json_type::string)
                    e.name = string_in_place(v);
            } else if (k == "args") {
                od::json_type t = v.type();
                if (t == od::json_type::object)
                    parse_args(v.get_object(), e);
            }
        }
    }
}

// ---- one event in one pass (issue 18) ------------------------------------------------------------------------------
// Most events are plain: ASCII strings without escapes, integers where integers are read. OnePass reads such an
// event in one walk over its bytes, checking the JSON grammar as it goes, into the same Event that
// parse_event_fields() makes. Before, every event was walked three times (scan_value() to find its end, simdjson's
// stage 1 to index it, On-Demand to read it), about half the reader's CPU time. Whatever OnePass is not sure of (an
// escape, a byte outside ASCII or a control byte in a string, a fraction or 19+ digits where an integer is read, an
// exponent, a number beyond double, nesting deeper than kMaxDepth, a grammar error, the end of the buffer) makes it
// give up, and the event goes the old way, so results and error messages stay those of simdjson.
//
// It reads from p up to end, and relies on the buffer's padding after end: blanks ending in a NUL (kOnePassStop), so
// a run of blanks stops inside the padding and nothing there reads as a token; no position is checked against end
// but in strings.
constexpr char kOnePassStop = '\0';

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

// ---- handling events (issue 18) -----------------------------------------------------------------------------------
// The events of one piece of the file are handled into a Part: tables, names, devices and threads numbered in the
// order the piece first uses them. Pieces are handled on parallel threads and merged into the trace in file order
// (Part::absorb, then KinetoReader::copy_column), which numbers everything as one pass over the whole file would; a
// single-threaded read goes through the same parts and merge, so both build the same Trace.

// A pid/tid given as a string gets its synthetic id only at the merge; until then it is a local code, a number in
// [kCodeBase, kCodeBase + 2^32) (a number from the file in that range gets a code too, so none is mistaken).
constexpr int64_t kCodeBase = INT64_MIN;
bool is_code(int64_t v) { return v < kCodeBase + (int64_t{1} << 32); }

struct PairHash {
    size_t operator()(const std::pair<int64_t, int64_t>& p) const
    {
        return std::hash<int64_t>()(p.first * 0x9E3779B97F4A7C15ull ^ static_cast<uint64_t>(p.second));
    }
};

struct FlowEnd {
    int64_t ts;
    uint64_t key;   // hash of (pid, tid) of the event the flow binds to
    uint32_t id;
    char ph;
};

// A flow end whose key uses a local code: its key is hashed again at the merge.
struct CodedFlow {
    size_t index;   // in Part::flows_
    int64_t a, b;   // 's': pid, tid; 'f': device (or pid), stream
};

const char* const kMissingTimeWarning = "some complete events lack a numeric ts or dur and were skipped";
const char* const kNegativeDurWarning = "some events have a negative duration; it was set to 0";

uint64_t flow_key(int64_t a, int64_t b)
{
    return static_cast<uint64_t>(a) * 0x9E3779B97F4A7C15ull ^ static_cast<uint64_t>(b);
}

class Part {
public:
    uint32_t thread_of(const Event& e)
    {
        const int64_t pid = id_number(e.pid), tid = id_number(e.tid);
        if (last_thread_ != UINT32_MAX && pid == last_pid_ && tid == last_tid_)
            return last_thread_;
        auto [it, inserted] = threads_.try_emplace({pid, tid}, 0u);
        if (inserted) {
            ThreadInfo t;
            t.pid = pid;
            t.tid = tid;
            t.global_tid = static_cast<int64_t>((static_cast<uint64_t>(pid) << 32) ^ static_cast<uint32_t>(tid));
            if (e.tid.is_string)
                t.name = std::string(e.tid.str);
            it->second = static_cast<uint32_t>(trace_.meta.threads.size());
            trace_.meta.threads.push_back(std::move(t));
        }
        last_pid_ = pid;
        last_tid_ = tid;
        last_thread_ = it->second;
        return it->second;
    }

    // Non-numeric pid/tid strings ("Spans", "stream 7") get stable synthetic negative ids, numbered in the order of
    // first use over the whole file: here a local code, which absorb() turns into the trace's id.
    int64_t id_number(const IdValue& v)
    {
        if (!v.present)
            return 0;
        if (!v.is_string)
            return local_num(v.num);
        auto it = string_ids_.find(std::string(v.str));
        if (it != string_ids_.end())
            return it->second;
        const int64_t id = kCodeBase + static_cast<int64_t>(ids_.size());
        ids_.push_back({true, std::string(v.str), 0});
        string_ids_.emplace(std::string(v.str), id);
        return id;
    }

    // A number used as a pid/tid/device id: as it is, unless it falls among the local codes (then it gets one).
    int64_t local_num(int64_t v)
    {
        if (!is_code(v))
            return v;
        auto [it, inserted] = num_ids_.try_emplace(v, kCodeBase + static_cast<int64_t>(ids_.size()));
        if (inserted)
            ids_.push_back({false, {}, v});
        return it->second;
    }

    uint16_t device_of(const Event& e)
    {
        int64_t id = 0;
        if (e.has_device)
            id = e.device;
        else if (e.pid.present && !e.pid.is_string)
            id = e.pid.num;
        if (id >= 0 && id < 256) {
            auto& slot = device_cache_[static_cast<size_t>(id)];
            if (slot == 0)
                slot = static_cast<uint16_t>(trace_.device_index(static_cast<int32_t>(id), 0) + 1);
            return static_cast<uint16_t>(slot - 1);
        }
        return trace_.device_index(static_cast<int32_t>(id), 0);
    }

    uint32_t stream_of(const Event& e) const
    {
        if (e.has_stream)
            return static_cast<uint32_t>(e.stream);
        if (e.tid.present && !e.tid.is_string)
            return static_cast<uint32_t>(e.tid.num);
        if (e.tid.is_string) {
            // Legacy "stream 7".
            std::string_view s = e.tid.str;
            const size_t sp = s.rfind(' ');
            int64_t n = 0;
            bool ok = sp != std::string_view::npos && sp + 1 < s.size();
            for (size_t i = sp + 1; ok && i < s.size(); ++i) {
                ok = s[i] >= '0' && s[i] <= '9';
                n = n * 10 + (s[i] - '0');
            }
            if (ok)
                return static_cast<uint32_t>(n);
        }
        return 0;
    }

    // Names as the trace keeps them (input_bounds.h): control characters as \xNN text, at most kMaxNameBytes bytes
    // (cut names counted), and the distinct names' bytes counted against the name limit.
    StrId intern_name(std::string_view n)
    {
        const StrId found = trace_.strings.find(n);
        if (found != StringPool::kNotFound)
            return found;
        std::string escaped, cut;
        if (has_control_chars(n)) {
            escaped = escape_control_chars(n);
            n = escaped;
        }
        if (bound_name(n, cut))
            ++truncated_names_;
        const size_t before = trace_.strings.size();
        const StrId id = trace_.strings.intern(n);
        if (trace_.strings.size() > before)
            add_name_bytes(n.size());
        return id;
    }
    void add_name_bytes(size_t n)
    {
        name_bytes_ += n;
        if (name_bytes_ > name_limit_)
            check_name_bytes(path_ ? *path_ : std::string(), "names (kernel, API, range and operator names)",
                             name_bytes_);
    }

    // Integer fields out of range or not integral: the event is skipped, counted per field with the first case.
    bool bad_event(const Event& e)
    {
        const char* field = e.bad_field;
        std::string value;
        if (field) {
            char buf[48];
            std::snprintf(buf, sizeof buf, "%.17g", e.bad_number);
            value = buf;
        } else if (e.has_device && (e.device < INT32_MIN || e.device > INT32_MAX)) {
            field = "args.device";
            value = std::to_string(e.device);
        } else if (e.has_stream && (e.stream < INT32_MIN || e.stream > UINT32_MAX)) {   // -1: "any stream" (syncs)
            field = "args.stream";
            value = std::to_string(e.stream);
        } else {   // a correlation id beyond 32 bits is kept as before (ROCm numbers them with 64)
            return false;
        }
        auto& b = bad_fields_[field];
        if (b.count++ == 0)
            b.first = value + ", in " + (e.cat.empty() ? std::string("an event") : std::string(e.cat)) + " " +
                      quote_prefix(e.name);
        return true;
    }
    struct BadField {
        uint64_t count = 0;
        std::string first;
    };
    std::map<std::string, BadField> bad_fields_;   // by field, e.g. "args.device"
    uint64_t clamped_times_ = 0, truncated_names_ = 0, name_bytes_ = 0;
    uint64_t name_limit_ = name_bytes_limit();
    const std::string* path_ = nullptr;           // for the name-limit error

    void note_missing_time()
    {
        if (missing_time_++ == 0)
            trace_.meta.warnings.push_back(kMissingTimeWarning);
    }

    void handle_event(Event& e)
    {
        if (e.ph == 'M') {
            handle_metadata_event(e);
            return;
        }
        const Cat cat = classify_cat(e.cat);
        if (cat == Cat::Flow) {
            if ((e.ph == 's' || e.ph == 'f') && e.has_id && e.has_ts) {
                // 's' sits on the launching thread (pid, tid); 'f' on the GPU row (device, stream).
                const int64_t a = e.ph == 's' || !e.has_device ? id_number(e.pid) : local_num(e.device);
                const int64_t b = e.ph == 's' ? id_number(e.tid) : static_cast<int64_t>(stream_of(e));
                if (is_code(a) || (e.ph == 's' && is_code(b)))
                    coded_flows_.push_back({flows_.size(), a, b});
                flows_.push_back({e.ts, flow_key(a, b), static_cast<uint32_t>(e.id), e.ph});
            }
            return;
        }
        if (e.ph == 'X' && cat == Cat::Other) {
            // Complete events of a kind Sightline does not read (MTIA runtime, CUPTI range-profiler ranges, ...):
            // counted per category so the user hears what was left out (issue 13).
            auto it = dropped_.find(e.cat);
            if (it == dropped_.end())
                it = dropped_.emplace(e.cat.empty() ? std::string("(no category)") : std::string(e.cat), 0).first;
            ++it->second;
        }
        if (cat == Cat::Python && e.ph == 'X') {
            // The packages python_function frames run in name the framework (issue 13).
            static constexpr std::pair<std::string_view, std::string_view> kPkgs[] = {
                {"transformers/", "transformers"}, {"vllm/", "vllm"}, {"sglang/", "sglang"},
                {"tensorrt_llm/", "tensorrt_llm"}};
            for (const auto& [needle, pkg] : kPkgs)
                if (e.name.find(needle) != std::string_view::npos)
                    python_packages_.insert(std::string(pkg));
            // The module frames, for a graph-capture trace: they name the module each captured kernel ran under.
            static constexpr std::string_view kModule = "nn.Module: ";
            if (python_modules_ && e.has_ts && e.has_dur && e.dur >= 0 && e.name.substr(0, kModule.size()) == kModule) {
                const int64_t start = clamp_time(e.ts);
                const int64_t end = clamp_time(start + std::min(e.dur, 2 * kMaxTraceTimeNs));
                trace_.ranges.append(start, end, intern_name(e.name.substr(kModule.size())), thread_of(e),
                                     RangeKind::PyModule);
                return;   // kept once, as the module
            }
        }
        if (e.ph != 'X' || cat == Cat::Other)
            return;
        if (!e.has_ts || !e.has_dur) {
            note_missing_time();
            return;
        }
        if (bad_event(e))
            return;
        if (!time_in_range(e.ts) || !time_in_range(clamp_time(e.ts) + std::clamp(e.dur, int64_t{0}, 2 * kMaxTraceTimeNs)))
            ++clamped_times_;
        if (e.dur < 0) {
            if (negative_dur_++ == 0)
                trace_.meta.warnings.push_back(kNegativeDurWarning);
            e.dur = 0;
        }
        // Clamped into +/-2^61 ns so end - start and later sums cannot overflow (ts and dur are untrusted).
        const int64_t start = clamp_time(e.ts), end = clamp_time(start + std::min(e.dur, 2 * kMaxTraceTimeNs));
        const uint32_t corr = e.has_corr && e.corr > 0 ? static_cast<uint32_t>(e.corr) : 0;
        switch (cat) {
        case Cat::Kernel: {
            auto& k = trace_.kernels;
            const size_t i = k.append(start, end, intern_name(e.name));
            k.correlation[i] = corr;
            k.device[i] = device_of(e);
            k.stream[i] = stream_of(e);
            k.set_shape(i, {static_cast<uint32_t>(std::clamp<int64_t>(e.grid[0], 0, UINT32_MAX)),
                            static_cast<uint16_t>(std::clamp<int64_t>(e.grid[1], 0, UINT16_MAX)),
                            static_cast<uint16_t>(std::clamp<int64_t>(e.grid[2], 0, UINT16_MAX)),
                            static_cast<uint16_t>(std::clamp<int64_t>(e.block[0], 0, UINT16_MAX)),
                            static_cast<uint16_t>(std::clamp<int64_t>(e.block[1], 0, UINT16_MAX)),
                            static_cast<uint16_t>(std::clamp<int64_t>(e.block[2], 0, UINT16_MAX)),
                            static_cast<uint16_t>(std::clamp<int64_t>(e.regs, 0, UINT16_MAX)),
                            static_cast<uint32_t>(std::clamp<int64_t>(e.smem, 0, UINT32_MAX))});
            if (e.graph)
                k.flags[i] |= KernelTable::kGraphNode;
            k.blocks_per_sm.push_back(static_cast<float>(e.blocks_per_sm));
            k.warps_per_sm.push_back(static_cast<float>(e.warps_per_sm));
            k.est_occupancy_pct.push_back(static_cast<float>(e.occupancy));
            if (corr == 0)
                gpu_without_corr_ = true;
            if (e.has_op_args())
                add_op_args(e, OpArgsTable::kKernel, start, end, e.has_device ? local_num(e.device) : id_number(e.pid),
                            corr);
            break;
        }
        case Cat::Memcpy: {
            CopyKind kind;
            MemKind src, dst;
            parse_copy_name(e.name, kind, src, dst);
            auto& m = trace_.memcpy;
            const size_t i = m.append(start, end, static_cast<uint64_t>(std::max<int64_t>(0, e.bytes)), kind);
            m.src_kind[i] = src;
            m.dst_kind[i] = dst;
            m.device[i] = device_of(e);
            m.stream[i] = stream_of(e);
            m.correlation[i] = corr;
            if (corr == 0)
                gpu_without_corr_ = true;
            break;
        }
        case Cat::Memset: {
            auto& m = trace_.memset;
            const size_t i = m.append(start, end, static_cast<uint64_t>(std::max<int64_t>(0, e.bytes)));
            const size_t open = e.name.find('('), close = e.name.rfind(')');
            if (open != std::string_view::npos && close != std::string_view::npos && open < close)
                m.mem_kind[i] = mem_kind_of(e.name.substr(open + 1, close - open - 1));
            m.device[i] = device_of(e);
            m.stream[i] = stream_of(e);
            m.correlation[i] = corr;
            if (corr == 0)
                gpu_without_corr_ = true;
            break;
        }
        case Cat::Runtime:
        case Cat::Driver: {
            const StrId name = intern_name(e.name);
            if (name >= api_flags_.size())
                api_flags_.resize(name + 1, 0xFF);
            if (api_flags_[name] == 0xFF)
                api_flags_[name] = classify_api_name(e.name);
            trace_.api.append(start, end, name, corr, thread_of(e),
                              cat == Cat::Driver ? ApiClass::Driver : ApiClass::Runtime, api_flags_[name]);
            if (corr == 0)
                api_without_corr_ = true;
            if (e.has_ext && e.ext != 0 && corr != 0)
                add_op_args(e, OpArgsTable::kLaunch, start, end, id_number(e.pid), corr);
            break;
        }
        case Cat::Sync: {
            auto& s = trace_.syncs;
            const size_t i = s.append(start, end);
            s.device[i] = device_of(e);
            s.stream[i] = e.has_stream ? static_cast<uint32_t>(e.stream) : stream_of(e);
            s.correlation[i] = corr;
            s.sync_type[i] = sync_type_of(e.sync_kind.empty() ? e.name : e.sync_kind);
            break;
        }
        case Cat::UserAnnotation:
            trace_.ranges.append(start, end, intern_name(e.name), thread_of(e), RangeKind::UserAnnotation);
            break;
        case Cat::Python:
            // Kept (the CPU flame chart, the nn.Module a CPU op ran in); capped in finalize() by keep_python_frames().
            trace_.ranges.append(start, end, intern_name(e.name), thread_of(e), RangeKind::PythonFunction);
            break;
        case Cat::CpuOp:
            trace_.ranges.append(start, end, intern_name(e.name), thread_of(e), RangeKind::CpuOp);
            if (e.has_op_args())
                add_op_args(e, OpArgsTable::kCpuOp, start, end, id_number(e.pid), corr);
            break;
        case Cat::GpuUserAnnotation: {
            auto& g = trace_.gpu_ranges;
            g.start.push_back(start);
            g.end.push_back(end);
            g.name.push_back(intern_name(e.name));
            g.device.push_back(device_of(e));
            g.stream.push_back(stream_of(e));
            break;
        }
        case Cat::Trace:
            window_lo_ = std::min(window_lo_, start);
            window_hi_ = std::max(window_hi_, end);
            break;
        default:
            break;
        }
    }

    // One row of Trace::op_args (record_shapes / collective args, or a launch's External id).
    void add_op_args(const Event& e, uint8_t source, int64_t start, int64_t end, int64_t pid, uint32_t corr)
    {
        auto& a = trace_.op_args;
        const StrId name = source != OpArgsTable::kLaunch ? intern_name(e.name)
                           : e.launch_kernel.empty()       ? StrId{0}
                                                           : intern_name(e.launch_kernel);
        const size_t i = a.append(source, start, end, name);
        a.pid[i] = pid;
        a.external_id[i] = e.has_ext ? e.ext : 0;
        a.correlation[i] = corr;
        if (source == OpArgsTable::kLaunch)
            return;
        a.input_dims[i] = std::string(e.in_dims);
        a.input_types[i] = std::string(e.in_types);
        a.concrete_inputs[i] = std::string(e.concrete);
        a.collective[i] = std::string(e.coll);
        a.dtype[i] = std::string(e.dtype);
        a.pg_name[i] = std::string(e.pg_name);
        a.pg_ranks[i] = std::string(e.pg_ranks);
        a.in_nelems[i] = e.in_nelems;
        a.out_nelems[i] = e.out_nelems;
        a.group_size[i] = e.group_size;
    }

    void handle_metadata_event(const Event& e)
    {
        if (e.arg_name.empty())
            return;
        if (e.name == "process_name") {
            process_names_[id_number(e.pid)] = std::string(e.arg_name);
        } else if (e.name == "thread_name") {
            thread_names_[{id_number(e.pid), id_number(e.tid)}] = std::string(e.arg_name);
        }
    }

    // The reader's own part (the trace itself, which handles no events): numbers p's names, devices, threads and
    // string ids as one pass over the file would (in the order of first use) and takes its small state;
    // KinetoReader::copy_column() then copies its rows over.
    void absorb(Part& p)
    {
        Trace& s = p.trace_;
        p.merged_ids_.resize(p.ids_.size());
        for (size_t i = 0; i < p.ids_.size(); ++i) {
            const auto& en = p.ids_[i];
            if (!en.is_string) {
                p.merged_ids_[i] = en.num;
                continue;
            }
            auto it = string_ids_.find(en.str);
            if (it == string_ids_.end())
                it = string_ids_.emplace(en.str, -1000000 - static_cast<int64_t>(string_ids_.size())).first;
            p.merged_ids_[i] = it->second;
        }
        auto id = [&](int64_t v) { return is_code(v) ? p.merged_ids_[static_cast<size_t>(v - kCodeBase)] : v; };
        p.names_.resize(s.strings.size());
        for (size_t i = 0; i < p.names_.size(); ++i) {
            const size_t before = trace_.strings.size();
            p.names_[i] = trace_.strings.intern(s.strings.view(static_cast<StrId>(i)));
            if (trace_.strings.size() > before)
                add_name_bytes(s.strings.view(static_cast<StrId>(i)).size());
        }
        clamped_times_ += p.clamped_times_;
        truncated_names_ += p.truncated_names_;
        for (const auto& [f, b] : p.bad_fields_) {
            auto& m = bad_fields_[f];
            if (m.count == 0)
                m.first = b.first;
            m.count += b.count;
        }
        p.shapes_.resize(s.kernels.shapes.size());
        for (size_t i = 0; i < p.shapes_.size(); ++i)
            p.shapes_[i] = trace_.kernels.intern_shape(s.kernels.shapes[i]);
        p.devices_.resize(s.meta.devices.size());
        for (size_t i = 0; i < p.devices_.size(); ++i)
            p.devices_[i] = trace_.device_index(s.meta.devices[i].id, 0);
        p.threads_of_.resize(s.meta.threads.size());
        for (size_t i = 0; i < p.threads_of_.size(); ++i) {
            const ThreadInfo& lt = s.meta.threads[i];
            const int64_t pid = id(lt.pid), tid = id(lt.tid);
            auto [it, inserted] = threads_.try_emplace({pid, tid}, 0u);
            if (inserted) {
                ThreadInfo t;
                t.pid = pid;
                t.tid = tid;
                t.global_tid = static_cast<int64_t>((static_cast<uint64_t>(pid) << 32) ^ static_cast<uint32_t>(tid));
                t.name = lt.name;
                it->second = static_cast<uint32_t>(trace_.meta.threads.size());
                trace_.meta.threads.push_back(std::move(t));
            }
            p.threads_of_[i] = it->second;
        }
        for (const auto& f : p.coded_flows_)
            p.flows_[f.index].key = flow_key(id(f.a), p.flows_[f.index].ph == 's' ? id(f.b) : f.b);
        for (const auto& [pid, name] : p.process_names_)
            process_names_[id(pid)] = name;
        for (const auto& [key, name] : p.thread_names_)
            thread_names_[{id(key.first), id(key.second)}] = name;
        for (const auto& w : s.meta.warnings)
            if ((w == kMissingTimeWarning && missing_time_ == 0) || (w == kNegativeDurWarning && negative_dur_ == 0))
                trace_.meta.warnings.push_back(w);
        missing_time_ += p.missing_time_;
        negative_dur_ += p.negative_dur_;
        gpu_without_corr_ = gpu_without_corr_ || p.gpu_without_corr_;
        api_without_corr_ = api_without_corr_ || p.api_without_corr_;
        window_lo_ = std::min(window_lo_, p.window_lo_);
        window_hi_ = std::max(window_hi_, p.window_hi_);
        for (const auto& [c, n] : p.dropped_)
            dropped_[c] += n;
        python_packages_.insert(p.python_packages_.begin(), p.python_packages_.end());
    }

    // What a merge reads. trace_ holds the tables, names (strings), devices (meta.devices), threads (meta.threads,
    // pid/tid as local codes) and the two warnings in the order they first came up.
    Trace trace_;
    struct IdEntry {
        bool is_string;
        std::string str;
        int64_t num;
    };
    std::vector<IdEntry> ids_;   // by local code - kCodeBase
    std::unordered_map<int64_t, std::string> process_names_;
    std::unordered_map<std::pair<int64_t, int64_t>, std::string, PairHash> thread_names_;
    std::vector<FlowEnd> flows_;
    std::vector<CodedFlow> coded_flows_;
    // Set by the merge: the part's names, devices, threads and ids as the trace numbers them.
    std::vector<StrId> names_;
    std::vector<uint16_t> devices_;
    std::vector<uint32_t> threads_of_;
    std::vector<uint32_t> shapes_;   // launch shape ids (interned in part order: first use in file order)
    std::vector<int64_t> merged_ids_;
    bool gpu_without_corr_ = false, api_without_corr_ = false;
    bool python_modules_ = false;   // KinetoReadOptions::python_modules
    uint64_t missing_time_ = 0, negative_dur_ = 0;
    int64_t window_lo_ = INT64_MAX, window_hi_ = INT64_MIN;
    std::map<std::string, int64_t, std::less<>> dropped_;
    std::set<std::string> python_packages_;

private:
    std::unordered_map<std::pair<int64_t, int64_t>, uint32_t, PairHash> threads_;
    int64_t last_pid_ = 0, last_tid_ = 0;
    uint32_t last_thread_ = UINT32_MAX;
    std::unordered_map<std::string, int64_t> string_ids_;
    std::unordered_map<int64_t, int64_t> num_ids_;
    uint16_t device_cache_[256] = {};
    std::vector<uint8_t> api_flags_;
};

// ---- the reader ----------------------------------------------------------------------------------------------------
class KinetoReader {
public:
    KinetoReader(const std::string& path, const LoadControl& control, const KinetoReadOptions& options)
        : path_(path), control_(control), options_(options), in_(path)
    {
        main_.python_modules_ = options.python_modules;
        main_.path_ = &path_;
        // A small file gets a buffer its size (a compressed one eight times its size) rather than a zero-filled
        // 8 MB chunk; the first refill that does not reach the end grows it to the chunk.
        const uint64_t hint = in_.compressed() ? in_.file_size() * 8 : in_.file_size() + 1;
        buf_.resize(static_cast<size_t>(std::clamp<uint64_t>(hint, kMinChunk, kChunk)) + simdjson::SIMDJSON_PADDING);
        trace_.meta.format = "kineto-json";
        trace_.meta.source_path = path;
        if (!in_.compressed())
            fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);   // when it fails, in_ reads on
    }
    ~KinetoReader()
    {
        if (inflater_ && inflater_->thread.joinable())
            inflater_->thread.join();
        if (fd_ >= 0)
            ::close(fd_);
    }
    KinetoReader(const KinetoReader&) = delete;
    KinetoReader& operator=(const KinetoReader&) = delete;

    Trace run()
    {
        parse_document();
        finalize();
        return std::move(trace_);
    }

private:
    // ---- buffer --------------------------------------------------------------------------------------------------
    size_t avail() const { return end_ - pos_; }
    uint64_t offset_of(size_t p) const { return base_offset_ + p; }

    // Reads more content; keeps [keep_from, end_) (moved to the front). Returns false at the end of content.
    bool refill(size_t& keep_from)
    {
        if (eof_)
            return false;
        if (keep_from > 0) {
            std::memmove(buf_.data(), buf_.data() + keep_from, end_ - keep_from);
            end_ -= keep_from;
            pos_ -= keep_from;
            base_offset_ += keep_from;
            keep_from = 0;
        }
        const size_t data_cap = buf_.size() - simdjson::SIMDJSON_PADDING;
        if (data_cap < kChunk && base_offset_ + end_ > 0) {
            buf_.resize(kChunk + simdjson::SIMDJSON_PADDING);   // a small first buffer did not hold the file
        } else if (end_ == data_cap) {
            if (data_cap >= kMaxEventBytes + kChunk)
                throw TraceError(path_, where(), "JSON values (events) smaller than 64 MB",
                                 "a single value larger than that");
            buf_.resize(std::min(data_cap * 2, kMaxEventBytes + kChunk) + simdjson::SIMDJSON_PADDING);
        }
        const size_t cap = buf_.size() - simdjson::SIMDJSON_PADDING;
        size_t got = 0;
        if (fd_ >= 0 && base_offset_ + end_ > 0) {
            const size_t want = cap - end_;
            got = read_plain(want);
            end_ += got;
            eof_ = got < want;
        } else if (in_.compressed() && base_offset_ + end_ > 0) {
            got = read_inflated(cap - end_);
            end_ += got;
            eof_ = got == 0;
        } else {
            while (end_ < cap) {
                const size_t k = in_.read(buf_.data() + end_, cap - end_);
                if (k == 0) {
                    eof_ = true;
                    break;
                }
                end_ += k;
                got += k;
                if (got >= kChunk)
                    break;
            }
            file_pos_ = in_.file_position();
        }
        // Padding: blanks, then the NUL that stops OnePass's runs of blanks.
        std::memset(buf_.data() + end_, ' ', simdjson::SIMDJSON_PADDING - 1);
        buf_[end_ + simdjson::SIMDJSON_PADDING - 1] = kOnePassStop;
        return got > 0;
    }

    // Plain JSON after the first fill: n bytes at the content offset (the file offset) read straight into the
    // buffer by pread, in one piece per thread, so copying file pages is not one thread's job. Fewer at the end.
    size_t read_plain(size_t n)
    {
        const uint64_t off = base_offset_ + end_;
        const size_t pieces = std::min<size_t>(parse_threads_, std::max<size_t>(1, n / (1u << 20)));
        const size_t per = (n + pieces - 1) / pieces;
        std::vector<size_t> got(pieces, 0);
        std::vector<int> err(pieces, 0);
        TaskRun run;
        run_tasks(pieces, parse_threads_, run, [&](size_t i, unsigned) {
            const size_t lo = i * per, hi = std::min(n, lo + per);
            while (lo + got[i] < hi) {
                const ssize_t k = ::pread(fd_, buf_.data() + end_ + lo + got[i], hi - lo - got[i],
                                          static_cast<off_t>(off + lo + got[i]));
                if (k < 0 && errno == EINTR)
                    continue;
                if (k <= 0) {
                    err[i] = k < 0 ? errno : 0;
                    break;
                }
                got[i] += static_cast<size_t>(k);
            }
        });
        size_t total = 0;
        for (size_t i = 0; i < pieces; ++i) {
            if (err[i] != 0)
                throw TraceError(path_, "byte " + std::to_string(off + i * per + got[i]), "readable data",
                                 std::strerror(err[i]));
            total += got[i];
            if (got[i] < std::min(n, (i + 1) * per) - i * per)
                break;   // the end of the file
        }
        file_pos_ = off + total;
        return total;
    }

    // .json.gz after the first fill: content is inflated in blocks of kInflateBlock; with threads the next block is
    // inflated on a thread of its own while the events of this one are handled (inflating was serial work of the
    // calling thread), so reading goes at zlib's speed. A block whose data is corrupt raises its error when it is
    // taken, whatever the thread count. Appends up to room bytes at end_; 0 at the end of the content.
    struct Inflater {
        std::vector<char> data;
        size_t got = 0, used = 0;
        bool filled = false, eof = false;
        uint64_t file_pos = 0;
        std::exception_ptr error;
        std::thread thread;
    };

    void inflate_block(Inflater& f)
    {
        f.got = f.used = 0;
        f.error = nullptr;
        try {
            while (f.got < f.data.size()) {
                const size_t k = in_.read(f.data.data() + f.got, f.data.size() - f.got);
                if (k == 0) {
                    f.eof = true;
                    break;
                }
                f.got += k;
            }
            f.file_pos = in_.file_position();
        } catch (...) {
            f.error = std::current_exception();
        }
        f.filled = true;
    }

    size_t read_inflated(size_t room)
    {
        if (!inflater_) {
            inflater_ = std::make_unique<Inflater>();
            inflater_->data.resize(kInflateBlock);
        }
        Inflater& f = *inflater_;
        if (f.thread.joinable())
            f.thread.join();
        if (!f.filled)
            inflate_block(f);
        if (f.error)
            std::rethrow_exception(f.error);
        file_pos_ = f.file_pos;
        const size_t n = std::min(room, f.got - f.used);
        std::memcpy(buf_.data() + end_, f.data.data() + f.used, n);
        f.used += n;
        if (f.used == f.got && !f.eof) {
            f.filled = false;
            if (parse_threads_ > 1) {
                try {
                    f.thread = std::thread([this, &f] { inflate_block(f); });
                } catch (const std::system_error&) {
                    // No thread to be had: the next block is inflated when it is needed.
                }
            }
        }
        return n;
    }

    std::string where() const
    {
        std::string w = "byte " + std::to_string(offset_of(pos_));
        if (in_events_)
            w += ", event " + std::to_string(event_index_);
        return w;
    }

    [[noreturn]] void fail(const std::string& expected, const std::string& found) const
    {
        throw TraceError(path_, where(), expected, found);
    }

    // Skips whitespace; returns false at the end of content.
    bool skip_ws()
    {
        for (;;) {
            while (pos_ < end_ && is_ws(buf_[pos_]))
                ++pos_;
            if (pos_ < end_)
                return true;
            size_t keep = pos_;
            if (!refill(keep))
                return false;
        }
    }

    char peek_required(const char* expected)
    {
        if (!skip_ws())
            fail(expected, "the end of the file (truncated JSON?)");
        return buf_[pos_];
    }

    // End (one past) of the string starting at p (buf_[p] == '"') within [p, end_), or kNpos when incomplete.
    size_t scan_string(size_t p) const
    {
        const char* b = buf_.data();
        size_t i = p + 1;
        for (;;) {
            const void* q = std::memchr(b + i, '"', end_ - i);
            if (!q)
                return kNpos;
            const size_t j = static_cast<size_t>(static_cast<const char*>(q) - b);
            size_t k = j;
            while (k > p + 1 && b[k - 1] == '\\')
                --k;
            if (((j - k) & 1) == 0)
                return j + 1;
            i = j + 1;
        }
    }

    // End (one past) of the JSON value starting at p, kNpos when the buffer ends first. Throws on nesting deeper
    // than kMaxDepth. Bracket mismatches are left to the JSON parser that reads the value.
    //
    // Objects and arrays are walked 64 bytes at a time: vector compares (byte_masks.h) give bit masks of quotes,
    // backslashes and brackets, and only those positions are visited, so long kernel names cost a few instructions
    // per 64 bytes.
    size_t scan_value(size_t p) const
    {
        const char* b = buf_.data();
        const char c = b[p];
        if (c == '"')
            return scan_string(p);
        if (c == '{' || c == '[') {
            int depth = 0;
            bool in_string = false;
            size_t skip = kNpos;   // position of a character escaped by a backslash
            for (size_t i = p; i < end_; i += 64) {
                // buf_ has SIMDJSON_PADDING (>= 64) readable bytes past end_.
                const bytes::StructureMasks bm = bytes::json_structure(b + i);
                const uint64_t mq = bm.quote, mb = bm.backslash, mo = bm.open, mc = bm.close;
                uint64_t m = mq | mb | mo | mc;
                if (end_ - i < 64)
                    m &= (uint64_t(1) << (end_ - i)) - 1;
                while (m) {
                    const int bit = __builtin_ctzll(m);
                    m &= m - 1;
                    const size_t q = i + static_cast<size_t>(bit);
                    if (q == skip)
                        continue;
                    const uint64_t one = uint64_t(1) << bit;
                    if (in_string) {
                        if (mb & one)
                            skip = q + 1;
                        else if (mq & one)
                            in_string = false;
                    } else if (mq & one) {
                        in_string = true;
                    } else if (mo & one) {
                        if (++depth > kMaxDepth)
                            throw TraceError(path_, "byte " + std::to_string(offset_of(q)) +
                                                        (in_events_ ? ", event " + std::to_string(event_index_) : ""),
                                             "JSON nested at most " + std::to_string(kMaxDepth) + " levels deep",
                                             "deeper nesting (garbage, not a trace)");
                    } else if (mc & one) {
                        if (--depth == 0)
                            return q + 1;
                    }
                }
            }
            return kNpos;
        }
        size_t i = p;
        while (i < end_) {
            const char ch = b[i];
            if (ch == ',' || ch == '}' || ch == ']' || is_ws(ch))
                return i;
            ++i;
        }
        return eof_ ? i : kNpos;
    }

    // Finds the complete value at pos_ (refilling as needed); returns its end.
    size_t complete_value(const char* what)
    {
        for (;;) {
            const size_t e = scan_value(pos_);
            if (e != kNpos)
                return e;
            size_t keep = pos_;
            if (!refill(keep))
                fail(what, "the end of the file (truncated JSON?)");
        }
    }

    // ---- document ------------------------------------------------------------------------------------------------
    void parse_document()
    {
        size_t keep = 0;
        refill(keep);
        if (end_ >= 3 && static_cast<unsigned char>(buf_[0]) == 0xEF && static_cast<unsigned char>(buf_[1]) == 0xBB &&
            static_cast<unsigned char>(buf_[2]) == 0xBF)
            pos_ = 3;
        if (!skip_ws())
            fail("a Kineto/Chrome trace (a JSON object with \"traceEvents\")", "no content (empty file)");
        const char c = buf_[pos_];
        if (c == '[') {
            ++pos_;
            saw_events_ = true;
            parse_events();
        } else if (c == '{') {
            ++pos_;
            parse_top_object();
        } else {
            fail("a Kineto/Chrome trace (a JSON object with \"traceEvents\")", describe_byte(c));
        }
        if (skip_ws())
            fail("the end of the JSON document", describe_byte(buf_[pos_]));
        if (!saw_events_)
            throw TraceError(path_, "top-level object", "a Kineto/Chrome trace with a \"traceEvents\" array",
                             "a JSON object without \"traceEvents\" (not a profiler trace)");
    }

    void parse_top_object()
    {
        bool first = true;
        for (;;) {
            char c = peek_required("a key or '}' in the top-level object");
            if (c == '}') {
                if (!first && expect_key_)
                    fail("a key after ','", "'}'");
                ++pos_;
                return;
            }
            if (!first && !expect_key_) {
                if (c != ',')
                    fail("',' or '}' in the top-level object", describe_byte(c));
                ++pos_;
                expect_key_ = true;
                continue;
            }
            if (c != '"')
                fail("a key (a string) in the top-level object", describe_byte(c));
            const size_t kend = complete_value("the rest of a key");
            std::string key(buf_.data() + pos_ + 1, kend - pos_ - 2);
            pos_ = kend;
            c = peek_required("':' after a key in the top-level object");
            if (c != ':')
                fail("':' after key \"" + key + "\"", describe_byte(c));
            ++pos_;
            c = peek_required("a value after ':' in the top-level object");
            if (key == "traceEvents") {
                if (c != '[')
                    fail("an array for \"traceEvents\"", describe_byte(c));
                ++pos_;
                saw_events_ = true;
                parse_events();
            } else {
                capture_meta_value(key);
            }
            first = false;
            expect_key_ = false;
        }
    }

    // Captures a top-level value (scanned across refills, copied piecewise so the buffer need not hold it whole).
    void capture_meta_value(const std::string& key)
    {
        // Scalars and small values: find the end within the buffer (refilling as needed).
        std::string text;
        bool keep = true;
        const char c = buf_[pos_];
        if (c != '{' && c != '[') {
            const size_t e = complete_value("the rest of a top-level value");
            text.assign(buf_.data() + pos_, e - pos_);
            pos_ = e;
        } else {
            // Nested value: walk it with a running depth, copying (up to kMaxMetaBytes) as we go.
            int depth = 0;
            bool in_string = false, escape = false;
            for (;;) {
                size_t i = pos_;
                const char* b = buf_.data();
                bool done = false;
                for (; i < end_; ++i) {
                    const char ch = b[i];
                    if (in_string) {
                        if (escape) escape = false;
                        else if (ch == '\\') escape = true;
                        else if (ch == '"') in_string = false;
                        continue;
                    }
                    if (ch == '"') in_string = true;
                    else if (ch == '{' || ch == '[') {
                        if (++depth > kMaxDepth) {
                            pos_ = i;
                            fail("JSON nested at most " + std::to_string(kMaxDepth) + " levels deep",
                                 "deeper nesting (garbage, not a trace)");
                        }
                    } else if (ch == '}' || ch == ']') {
                        if (--depth == 0) {
                            ++i;
                            done = true;
                            break;
                        }
                    }
                }
                if (keep) {
                    if (text.size() + (i - pos_) > kMaxMetaBytes) {
                        keep = false;
                        text.clear();
                        text.shrink_to_fit();
                    } else {
                        text.append(b + pos_, i - pos_);
                    }
                }
                pos_ = i;
                if (done)
                    break;
                size_t k = pos_;
                if (!refill(k))
                    fail("the rest of the value of \"" + key + "\"", "the end of the file (truncated JSON?)");
            }
        }
        if (!keep) {
            trace_.meta.warnings.push_back("top-level key \"" + key + "\" is larger than 64 MB and was skipped");
            return;
        }
        nlohmann::json j;
        try {
            j = nlohmann::json::parse(text);
        } catch (const nlohmann::json::parse_error& ex) {
            // Our words, not the JSON library's ("[json.exception.parse_error.101] ...").
            fail("valid JSON for top-level key \"" + key + "\"",
                 "malformed JSON at byte " + std::to_string(ex.byte) + " of its value");
        } catch (const std::exception&) {
            fail("valid JSON for top-level key \"" + key + "\"", "malformed JSON");
        }
        apply_meta(key, j);
    }

    static std::string scalar_text(const nlohmann::json& v)
    {
        if (v.is_string())
            return v.get<std::string>();
        if (v.is_number_integer() || v.is_number_unsigned() || v.is_number_float() || v.is_boolean())
            return v.dump();
        return {};
    }

    void apply_meta(const std::string& key, const nlohmann::json& j)
    {
        auto& m = trace_.meta;
        if (key == "schemaVersion") {
            m.schema_version = scalar_text(j);
        } else if (key == "baseTimeNanoseconds") {
            if (j.is_number_integer() || j.is_number_unsigned())
                m.utc_epoch_ns = j.get<int64_t>();
            else if (j.is_number_float())
                m.utc_epoch_ns = static_cast<int64_t>(j.get<double>());
        } else if (key == "deviceProperties" || key == "computeProperties") {
            if (j.is_array())
                device_props_ = j;
        } else if (key == "distributedInfo") {
            if (j.is_object()) {
                if (j.contains("rank") && j["rank"].is_number_integer()) {
                    rank_ = j["rank"].get<int32_t>();
                    m.environment["distributed.rank"] = std::to_string(rank_);
                }
                if (j.contains("world_size") && j["world_size"].is_number_integer())
                    m.world_size = std::max(1, j["world_size"].get<int32_t>());
                for (const char* k : {"backend", "nccl_version"})
                    if (j.contains(k) && !scalar_text(j[k]).empty())
                        m.environment[std::string("distributed.") + k] = scalar_text(j[k]);
            }
        } else if (j.is_string() || j.is_number() || j.is_boolean()) {
            // Versions and flags (cupti_version, cuda_runtime_version, hip_runtime_version, record_shapes, ...).
            static const char* const known[] = {
                "cupti_version", "cuda_runtime_version", "cuda_driver_version", "roctracer_version",
                "hip_runtime_version", "hip_driver_version", "pytorch_version", "torch_version", "kineto_version",
                "record_shapes", "with_stack", "with_flops", "with_modules", "profile_memory", "trace_id",
                "host_name", "displayTimeUnit"};
            for (const char* k : known)
                if (key == k)
                    m.environment[key] = scalar_text(j);
            if (key == "pytorch_version" || key == "torch_version")
                m.tool_version = "PyTorch " + scalar_text(j);
        } else if (key == "metadata" && j.is_object()) {
            // TraceLens-style user metadata: keep the scalar entries that name versions.
            for (auto it = j.begin(); it != j.end(); ++it)
                if (it.key().find("version") != std::string::npos && !scalar_text(it.value()).empty())
                    m.environment["metadata." + it.key()] = scalar_text(it.value());
        }
    }


    // ---- events --------------------------------------------------------------------------------------------------
    // The events in the buffer are handled in steps: a step splits what the buffer holds from pos_ on into one chunk
    // per thread at guessed event starts, scans, parses and handles each chunk into its own Part on its own thread,
    // and merges the parts in file order for as long as each chunk's scan ended exactly where the next chunk began
    // (so a wrong guess costs time, never a wrong result). What a chunk cannot do alone (an event cut by the end of
    // the buffer, the end of the array, anything malformed) is left to sequential_step(), which refills the buffer
    // and gives the errors the reader always gave, naming the first bad event's byte and index.
    enum class Sep : uint8_t { First, AfterEvent, AfterComma };   // where between events a scan is

    struct ChunkEnd {
        size_t pos = 0;          // where the scan stopped
        Sep sep = Sep::First;
        uint64_t events = 0;     // events handled
        bool at_start = false;   // stopped at an event start at or after its stop_at
    };

    void parse_events()
    {
        in_events_ = true;
        sep_ = Sep::First;
        for (;;) {
            const uint64_t before = event_index_;
            parallel_step();
            if ((before >> 16) != (event_index_ >> 16)) {
                control_.check();
                check_memory_budget(path_, "event " + std::to_string(event_index_) + " (byte " +
                                               std::to_string(file_pos_) + ")");
                if (control_.progress) {
                    const double total = static_cast<double>(std::max<uint64_t>(1, in_.file_size()));
                    const double done = static_cast<double>(file_pos_);
                    control_.report(std::min(1.0, done / total), "events");
                }
            }
            if (sequential_step())
                break;
        }
        flush_pending();
        in_events_ = false;
    }

    // Parses the event object in [b, e) into ev; on failure returns false and, when msg is given, says why.
    bool parse_event(od::parser& parser, size_t b, size_t e, Event& ev, std::string* msg) const
    {
        try {
            od::document doc = parser.iterate(buf_.data() + b, e - b, buf_.size() - b);
            od::object obj = doc.get_object();
            parse_event_fields(obj, ev);
            return true;
        } catch (const simdjson::simdjson_error& ex) {
            if (msg)
                *msg = describe_json_error(ex.error());
            return false;
        }
    }

    // Scans, parses and handles the events from p (scan state sep) into part, inside the buffer: stops at the first
    // event starting at or after stop_at, and before anything it cannot do alone (see above). Reads buf_ only, so
    // chunks run on several threads at once.
    ChunkEnd scan_chunk(size_t p, Sep sep, size_t stop_at, od::parser& parser, Part& part) const
    {
        const char* b = buf_.data();
        ChunkEnd r;
        for (;;) {
            while (p < end_ && is_ws(b[p]))
                ++p;
            r.pos = p;
            r.sep = sep;
            if (p >= end_)
                return r;
            if (sep == Sep::AfterEvent) {
                if (b[p] != ',')
                    return r;
                ++p;
                sep = Sep::AfterComma;
                continue;
            }
            if (b[p] != '{')
                return r;
            if (p >= stop_at) {
                r.at_start = true;
                return r;
            }
            Event ev;
            OnePass one(b + p, b + end_);
            if (one.event(ev)) {
                part.handle_event(ev);
                ++r.events;
                p = static_cast<size_t>(one.pos() - b);
                sep = Sep::AfterEvent;
                continue;
            }
            ev = Event();
            size_t e = kNpos;
            try {
                e = scan_value(p);
            } catch (const TraceError&) {   // nested too deep: sequential_step() says so with the event's index
                return r;
            }
            if (e == kNpos)
                return r;
            if (!parse_event(parser, p, e, ev, nullptr))
                return r;
            part.handle_event(ev);
            ++r.events;
            p = e;
            sep = Sep::AfterEvent;
        }
    }

    // A likely event start at or after p: a '{' after "}," and before '"' (whitespace allowed between). Only a guess
    // (it could sit inside a string or a nested value): the scan of the chunk before it confirms it or not.
    size_t guess_event_start(size_t p) const
    {
        const char* b = buf_.data();
        while (p < end_) {
            const void* q = std::memchr(b + p, '{', end_ - p);
            if (!q)
                return kNpos;
            const size_t i = static_cast<size_t>(static_cast<const char*>(q) - b);
            size_t j = i;
            while (j > pos_ && is_ws(b[j - 1]))
                --j;
            if (j > pos_ && b[j - 1] == ',') {
                --j;
                while (j > pos_ && is_ws(b[j - 1]))
                    --j;
                size_t n = i + 1;
                while (n < end_ && is_ws(b[n]))
                    ++n;
                if (j > pos_ && b[j - 1] == '}' && n < end_ && b[n] == '"')
                    return i;
            }
            p = i + 1;
        }
        return kNpos;
    }

    // An empty part; its columns keep their capacity from step to step (fresh ones would fault in their pages anew).
    Part* acquire_part()
    {
        if (free_.empty()) {
            parts_.push_back(std::make_unique<Part>());
            parts_.back()->python_modules_ = options_.python_modules;
            parts_.back()->path_ = &path_;
            return parts_.back().get();
        }
        Part* p = free_.back();
        free_.pop_back();
        Trace tables = std::move(p->trace_);
        *p = Part();
        p->python_modules_ = options_.python_modules;
        p->path_ = &path_;
        for_columns(tables, tables, [](auto& col, auto&) { col.clear(); });
        tables.kernels.shapes.clear();        // a part's shapes are its own, numbered from 0 again
        tables.kernels.shape_ids.clear();
        p->trace_.kernels = std::move(tables.kernels);
        p->trace_.memcpy = std::move(tables.memcpy);
        p->trace_.memset = std::move(tables.memset);
        p->trace_.syncs = std::move(tables.syncs);
        p->trace_.api = std::move(tables.api);
        p->trace_.ranges = std::move(tables.ranges);
        p->trace_.gpu_ranges = std::move(tables.gpu_ranges);
        p->trace_.op_args = std::move(tables.op_args);
        return p;
    }

    // A step: the chunks of the buffer are scanned into parts while, in the same run of tasks, the parts absorbed in
    // the step before have their rows copied into the trace (so the copying fills the threads' idle time). Then the
    // confirmed parts are absorbed (numbered, in file order) and wait for the next run.
    void parallel_step()
    {
        const size_t len = end_ - pos_;
        const size_t want = std::min<size_t>(parse_threads_, std::max<size_t>(1, len / kMinChunkBytes));
        std::vector<size_t> starts{pos_};
        for (size_t k = 1; k < want; ++k) {
            const size_t g = guess_event_start(pos_ + len / want * k);
            if (g != kNpos && g > starts.back())
                starts.push_back(g);
        }
        const size_t chunks = starts.size();
        std::vector<ChunkEnd> ends(chunks);
        std::vector<Part*> scan(chunks);
        for (size_t k = 0; k < chunks; ++k)
            scan[k] = acquire_part();
        if (parsers_.size() < parse_threads_)
            parsers_.resize(parse_threads_);
        const size_t copies = pending_.empty() ? 0 : columns() + 1;
        TaskRun run;
        run_tasks(chunks + copies, parse_threads_, run, [&](size_t k, unsigned slot) {
            if (k >= chunks) {
                copy_column(k - chunks);
                return;
            }
            const size_t stop = k + 1 < chunks ? starts[k + 1] : kNpos;
            ends[k] = scan_chunk(starts[k], k == 0 ? sep_ : Sep::AfterComma, stop, parsers_[slot], *scan[k]);
        });
        rethrow_first(run);   // not a parse error (out of memory)
        free_.insert(free_.end(), pending_.begin(), pending_.end());
        pending_.clear();
        size_t merged = 0;
        while (merged < chunks) {
            const ChunkEnd& r = ends[merged];
            main_.absorb(*scan[merged]);
            pending_.push_back(scan[merged]);
            ++merged;
            event_index_ += r.events;
            pos_ = r.pos;
            sep_ = r.sep;
            const bool next_confirmed =
                merged < chunks && r.at_start && r.pos == starts[merged] && r.sep == Sep::AfterComma;
            if (!next_confirmed)
                break;
        }
        free_.insert(free_.end(), scan.begin() + static_cast<std::ptrdiff_t>(merged), scan.end());
    }

    // Copies the rows of the absorbed parts still pending into the trace.
    void flush_pending()
    {
        if (pending_.empty())
            return;
        TaskRun run;
        run_tasks(columns() + 1, parse_threads_, run, [&](size_t c, unsigned) { copy_column(c); });
        rethrow_first(run);
        free_.insert(free_.end(), pending_.begin(), pending_.end());
        pending_.clear();
    }

    // One step through the event array on the calling thread, refilling the buffer as needed: a separator, the end
    // of the array or one event. Returns true at the end of the array.
    bool sequential_step()
    {
        if (sep_ == Sep::AfterEvent) {
            const char c = peek_required("',' or ']' after an event");
            if (c == ']') {
                ++pos_;
                return true;
            }
            if (c != ',')
                fail("',' or ']' after an event", describe_byte(c));
            ++pos_;
            sep_ = Sep::AfterComma;
            return false;
        }
        const bool first = sep_ == Sep::First;
        const char c = peek_required(first ? "an event object or ']' in \"traceEvents\"" : "an event object after ','");
        if (c == ']') {
            if (!first)
                fail("an event object after ','", "']'");
            ++pos_;
            return true;
        }
        if (c != '{')
            fail("an event object ('{') in \"traceEvents\"", describe_byte(c));
        const size_t e = complete_value("the rest of the event object");
        if (parsers_.empty())
            parsers_.resize(1);
        Event ev;
        std::string msg;
        if (!parse_event(parsers_[0], pos_, e, ev, &msg))
            throw TraceError(path_,
                             "byte " + std::to_string(offset_of(pos_)) + ", event " + std::to_string(event_index_),
                             "a valid JSON event object", msg);
        Part* part = acquire_part();
        part->handle_event(ev);
        main_.absorb(*part);
        pending_.push_back(part);
        pos_ = e;
        ++event_index_;
        sep_ = Sep::AfterEvent;
        return false;
    }

    // ---- merging a part into the trace, in file order ------------------------------------------------------------
    // Makes room in v for add more elements. Capacity grows to the next power of two, as push_back grows it, so a
    // column's capacity (Trace::memory_bytes) does not depend on how its rows came in pieces. The pages about to be
    // written are faulted in with one madvise (in a VM a page fault costs more than copying the page).
    template <typename T> static void grow(std::vector<T>& v, size_t add)
    {
        const size_t need = v.size() + add;
        if (need > v.capacity()) {
            std::vector<T> bigger;
            bigger.reserve(std::bit_ceil(need));
            populate(bigger.data(), need * sizeof(T));
            if constexpr (std::is_same_v<T, std::string>)
                bigger.insert(bigger.end(), std::make_move_iterator(v.begin()), std::make_move_iterator(v.end()));
            else
                bigger.insert(bigger.end(), v.begin(), v.end());
            v.swap(bigger);
        } else {
            populate(v.data() + v.size(), add * sizeof(T));
        }
    }

    static void populate(const void* p, size_t bytes)
    {
#ifdef MADV_POPULATE_WRITE
        constexpr uintptr_t kPage = 4096;
        if (bytes < 16 * kPage)
            return;
        const uintptr_t lo = (reinterpret_cast<uintptr_t>(p) + kPage - 1) & ~(kPage - 1);
        const uintptr_t hi = (reinterpret_cast<uintptr_t>(p) + bytes) & ~(kPage - 1);
        if (hi > lo)
            ::madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_POPULATE_WRITE);   // advice: errors change nothing
#else
        (void)p;
        (void)bytes;
#endif
    }

    template <typename T> static void cat(std::vector<T>& dst, std::vector<T>& src)
    {
        if constexpr (std::is_same_v<T, std::string>)
            dst.insert(dst.end(), std::make_move_iterator(src.begin()), std::make_move_iterator(src.end()));
        else
            dst.insert(dst.end(), src.begin(), src.end());
    }

    template <typename T, typename Map> static void remap(std::vector<T>& col, size_t from, const Map& m)
    {
        for (size_t i = from; i < col.size(); ++i)
            col[i] = static_cast<T>(m[col[i]]);
    }

    // Every column of every table the reader fills (beside sort_tables(), which permutes the same columns):
    // f(column of t, the same column of s).
    template <typename F> static void for_columns(Trace& t, Trace& s, F&& f)
    {
        auto& k = t.kernels;
        auto& ks = s.kernels;
        f(k.start, ks.start); f(k.end, ks.end); f(k.name, ks.name); f(k.short_name, ks.short_name);
        f(k.correlation, ks.correlation); f(k.launch_api, ks.launch_api); f(k.device, ks.device);
        f(k.process, ks.process); f(k.stream, ks.stream); f(k.shape, ks.shape);
        f(k.flags, ks.flags); f(k.blocks_per_sm, ks.blocks_per_sm); f(k.warps_per_sm, ks.warps_per_sm);
        f(k.est_occupancy_pct, ks.est_occupancy_pct);
        auto& m = t.memcpy;
        auto& ms = s.memcpy;
        f(m.start, ms.start); f(m.end, ms.end); f(m.bytes, ms.bytes); f(m.copy_kind, ms.copy_kind);
        f(m.src_kind, ms.src_kind); f(m.dst_kind, ms.dst_kind); f(m.device, ms.device);
        f(m.process, ms.process); f(m.stream, ms.stream); f(m.correlation, ms.correlation);
        f(m.launch_api, ms.launch_api);
        auto& z = t.memset;
        auto& zs = s.memset;
        f(z.start, zs.start); f(z.end, zs.end); f(z.bytes, zs.bytes); f(z.mem_kind, zs.mem_kind);
        f(z.device, zs.device); f(z.process, zs.process); f(z.stream, zs.stream);
        f(z.correlation, zs.correlation); f(z.launch_api, zs.launch_api);
        auto& y = t.syncs;
        auto& ys = s.syncs;
        f(y.start, ys.start); f(y.end, ys.end); f(y.device, ys.device); f(y.process, ys.process);
        f(y.stream, ys.stream); f(y.correlation, ys.correlation); f(y.sync_type, ys.sync_type);
        f(y.api, ys.api);
        auto& a = t.api;
        auto& as = s.api;
        f(a.start, as.start); f(a.end, as.end); f(a.name, as.name); f(a.correlation, as.correlation);
        f(a.thread, as.thread); f(a.api_class, as.api_class); f(a.flags, as.flags);
        auto& r = t.ranges;
        auto& rs = s.ranges;
        f(r.start, rs.start); f(r.end, rs.end); f(r.name, rs.name); f(r.thread, rs.thread);
        f(r.kind, rs.kind); f(r.depth, rs.depth);
        auto& g = t.gpu_ranges;
        auto& gs = s.gpu_ranges;
        f(g.start, gs.start); f(g.end, gs.end); f(g.name, gs.name); f(g.device, gs.device);
        f(g.stream, gs.stream);
        auto& o = t.op_args;
        auto& os = s.op_args;
        f(o.source, os.source); f(o.start, os.start); f(o.end, os.end); f(o.name, os.name);
        f(o.rank, os.rank); f(o.pid, os.pid); f(o.external_id, os.external_id);
        f(o.correlation, os.correlation); f(o.input_dims, os.input_dims); f(o.input_types, os.input_types);
        f(o.concrete_inputs, os.concrete_inputs); f(o.collective, os.collective); f(o.dtype, os.dtype);
        f(o.pg_name, os.pg_name); f(o.pg_ranks, os.pg_ranks); f(o.in_nelems, os.in_nelems);
        f(o.out_nelems, os.out_nelems); f(o.group_size, os.group_size);
    }

    // Columns for_columns() visits, and what each holds that a part numbers its own way.
    enum class Numbered : uint8_t { No, Name, Device, Thread, Pid, Shape };
    size_t columns()
    {
        if (column_kinds_.empty()) {
            auto is = [](const void* col, std::initializer_list<const void*> of) {
                return std::find(of.begin(), of.end(), col) != of.end();
            };
            const Trace& t = trace_;
            for_columns(trace_, trace_, [&](auto& col, auto&) {
                const void* c = &col;
                column_kinds_.push_back(
                    is(c, {&t.kernels.name, &t.kernels.short_name, &t.api.name, &t.ranges.name, &t.gpu_ranges.name,
                           &t.op_args.name})                                           ? Numbered::Name
                    : is(c, {&t.kernels.device, &t.memcpy.device, &t.memset.device, &t.syncs.device,
                             &t.gpu_ranges.device})                                    ? Numbered::Device
                    : is(c, {&t.api.thread, &t.ranges.thread})                          ? Numbered::Thread
                    : is(c, {&t.op_args.pid})                                          ? Numbered::Pid
                    : is(c, {&t.kernels.shape})                                        ? Numbered::Shape
                                                                                       : Numbered::No);
            });
        }
        return column_kinds_.size();
    }

    // Task c of a copy: column c of every pending part appended to the trace's in file order, renumbered; task
    // columns() copies the flow ends.
    void copy_column(size_t c)
    {
        if (c == column_kinds_.size()) {
            size_t add = 0;
            for (const Part* p : pending_)
                add += p->flows_.size();
            grow(flows_, add);
            for (const Part* p : pending_)
                flows_.insert(flows_.end(), p->flows_.begin(), p->flows_.end());
            return;
        }
        const Numbered kind = column_kinds_[c];
        for (size_t k = 0; k < pending_.size(); ++k) {
            Part& p = *pending_[k];
            size_t i = 0;
            for_columns(trace_, p.trace_, [&](auto& dst, auto& src) {
                if (i++ != c)
                    return;
                using T = typename std::decay_t<decltype(dst)>::value_type;
                if (k == 0) {
                    size_t add = 0;
                    for (Part* q : pending_) {
                        size_t j = 0;
                        for_columns(q->trace_, q->trace_, [&](auto& col, auto&) {
                            if (j++ == c)
                                add += col.size();
                        });
                    }
                    grow(dst, add);
                }
                const size_t from = dst.size();
                cat(dst, src);
                if constexpr (std::is_integral_v<T>) {
                    if (kind == Numbered::Name)
                        remap(dst, from, p.names_);
                    else if (kind == Numbered::Device)
                        remap(dst, from, p.devices_);
                    else if (kind == Numbered::Shape)
                        remap(dst, from, p.shapes_);
                    else if (kind == Numbered::Thread)
                        remap(dst, from, p.threads_of_);
                    else if (kind == Numbered::Pid && !p.merged_ids_.empty())
                        for (size_t r = from; r < dst.size(); ++r) {
                            const auto v = static_cast<int64_t>(dst[r]);
                            if (is_code(v))
                                dst[r] = static_cast<T>(p.merged_ids_[static_cast<size_t>(v - kCodeBase)]);
                        }
                }
            });
        }
    }

    static void rethrow_first(const TaskRun& run)
    {
        for (const auto& e : run.errors)
            if (e)
                std::rethrow_exception(e);
    }

    // ---- after the last event ------------------------------------------------------------------------------------
    template <typename T> static void permute(std::vector<T>& v, const std::vector<uint32_t>& order)
    {
        if (v.size() != order.size())
            return;
        std::vector<T> out;
        out.reserve(v.size());
        for (uint32_t i : order)
            out.push_back(v[i]);
        v.swap(out);
    }

    static bool needs_sort(const std::vector<int64_t>& start)
    {
        return !std::is_sorted(start.begin(), start.end());
    }

    static std::vector<uint32_t> order_by_start(const std::vector<int64_t>& start)
    {
        std::vector<uint32_t> order(start.size());
        std::iota(order.begin(), order.end(), 0u);
        std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return start[a] < start[b]; });
        return order;
    }

    void sort_tables()
    {
        auto& k = trace_.kernels;
        if (needs_sort(k.start)) {
            const auto o = order_by_start(k.start);
            permute(k.start, o); permute(k.end, o); permute(k.name, o); permute(k.short_name, o);
            permute(k.correlation, o); permute(k.launch_api, o); permute(k.device, o); permute(k.process, o);
            permute(k.stream, o); permute(k.shape, o); permute(k.flags, o); permute(k.blocks_per_sm, o);
            permute(k.warps_per_sm, o); permute(k.est_occupancy_pct, o);
        }
        auto& m = trace_.memcpy;
        if (needs_sort(m.start)) {
            const auto o = order_by_start(m.start);
            permute(m.start, o); permute(m.end, o); permute(m.bytes, o); permute(m.copy_kind, o);
            permute(m.src_kind, o); permute(m.dst_kind, o); permute(m.device, o); permute(m.process, o);
            permute(m.stream, o); permute(m.correlation, o); permute(m.launch_api, o);
        }
        auto& s = trace_.memset;
        if (needs_sort(s.start)) {
            const auto o = order_by_start(s.start);
            permute(s.start, o); permute(s.end, o); permute(s.bytes, o); permute(s.mem_kind, o);
            permute(s.device, o); permute(s.process, o); permute(s.stream, o); permute(s.correlation, o);
            permute(s.launch_api, o);
        }
        auto& y = trace_.syncs;
        if (needs_sort(y.start)) {
            const auto o = order_by_start(y.start);
            permute(y.start, o); permute(y.end, o); permute(y.device, o); permute(y.process, o);
            permute(y.stream, o); permute(y.correlation, o); permute(y.sync_type, o); permute(y.api, o);
        }
        auto& a = trace_.api;
        if (needs_sort(a.start)) {
            const auto o = order_by_start(a.start);
            permute(a.start, o); permute(a.end, o); permute(a.name, o); permute(a.correlation, o);
            permute(a.thread, o); permute(a.api_class, o); permute(a.flags, o);
        }
        auto& g = trace_.gpu_ranges;
        if (needs_sort(g.start)) {
            const auto o = order_by_start(g.start);
            permute(g.start, o); permute(g.end, o); permute(g.name, o); permute(g.device, o); permute(g.stream, o);
        }
    }

    // python_function frames beyond kMaxPythonFrames (a with_stack trace of a long run records every call): the
    // longest are kept (they are the outer frames, visible at every zoom), and every "nn.Module: " frame (the
    // module path of the CPU ops); a warning counts the rest. Decided on the merged table (file order), so
    // the result does not depend on the thread count.
    static constexpr size_t kMaxPythonFrames = 1'000'000;
    void keep_python_frames()
    {
        auto& r = trace_.ranges;
        std::vector<uint32_t> python;
        for (size_t i = 0; i < r.size(); ++i)
            if (r.kind[i] == RangeKind::PythonFunction)
                python.push_back(static_cast<uint32_t>(i));
        if (python.size() <= kMaxPythonFrames)
            return;
        std::vector<uint8_t> keep(r.size(), 1);
        std::vector<uint32_t> rest;
        for (uint32_t i : python) {
            keep[i] = 0;
            if (trace_.str(r.name[i]).starts_with("nn.Module: "))
                keep[i] = 1;
            else
                rest.push_back(i);
        }
        const size_t modules = python.size() - rest.size();
        const size_t budget = kMaxPythonFrames > modules ? kMaxPythonFrames - modules : 0;
        if (budget < rest.size()) {
            // Longest first; ties by row (file order).
            std::nth_element(rest.begin(), rest.begin() + static_cast<ptrdiff_t>(budget), rest.end(),
                             [&](uint32_t a, uint32_t b) {
                                 const int64_t da = r.end[a] - r.start[a], db = r.end[b] - r.start[b];
                                 return da != db ? da > db : a < b;
                             });
            rest.resize(budget);
        }
        for (uint32_t i : rest)
            keep[i] = 1;
        size_t out = 0;
        for (size_t i = 0; i < r.size(); ++i) {
            if (!keep[i])
                continue;
            r.start[out] = r.start[i];
            r.end[out] = r.end[i];
            r.name[out] = r.name[i];
            r.thread[out] = r.thread[i];
            r.kind[out] = r.kind[i];
            r.depth[out] = r.depth[i];
            ++out;
        }
        const int64_t dropped = static_cast<int64_t>(r.size() - out);
        for (auto* v : {&r.start, &r.end})
            v->resize(out);
        r.name.resize(out);
        r.thread.resize(out);
        r.kind.resize(out);
        r.depth.resize(out);
        trace_.meta.warnings.push_back(std::to_string(dropped) + " short python_function frames were left out (the " +
                                       std::to_string(kMaxPythonFrames) +
                                       " longest and every nn.Module frame are kept)");
    }

    // Events that carry no "correlation" arg are linked through their ac2g / async flow instead: the flow's start
    // sits on the launching call (same pid, tid, ts), its finish on the GPU activity.
    void link_by_flows()
    {
        if (flows_.empty() || (!gpu_without_corr_ && !api_without_corr_))
            return;
        auto cmp = [](const FlowEnd& a, const FlowEnd& b) {
            return a.ph != b.ph ? a.ph < b.ph : a.key != b.key ? a.key < b.key : a.ts < b.ts;
        };
        std::sort(flows_.begin(), flows_.end(), cmp);
        auto find = [&](char ph, uint64_t key, int64_t ts) -> uint32_t {
            const FlowEnd probe{ts, key, 0, ph};
            auto it = std::lower_bound(flows_.begin(), flows_.end(), probe, cmp);
            if (it != flows_.end() && it->ph == ph && it->key == key && it->ts == ts)
                return it->id;
            return 0;
        };
        auto gpu_key = [](int64_t device_id, uint32_t stream) {
            return static_cast<uint64_t>(device_id) * 0x9E3779B97F4A7C15ull ^ static_cast<uint64_t>(stream);
        };
        const auto& devs = trace_.meta.devices;
        auto fix = [&](auto& t) {
            for (size_t i = 0; i < t.size(); ++i)
                if (t.correlation[i] == 0)
                    t.correlation[i] = find('f', gpu_key(devs[t.device[i]].id, t.stream[i]), t.start[i]);
        };
        if (gpu_without_corr_) {
            fix(trace_.kernels);
            fix(trace_.memcpy);
            fix(trace_.memset);
        }
        if (api_without_corr_) {
            auto& a = trace_.api;
            const auto& th = trace_.meta.threads;
            for (size_t i = 0; i < a.size(); ++i)
                if (a.correlation[i] == 0) {
                    const auto& t = th[a.thread[i]];
                    a.correlation[i] = find(
                        's', static_cast<uint64_t>(t.pid) * 0x9E3779B97F4A7C15ull ^ static_cast<uint64_t>(t.tid),
                        a.start[i]);
                }
        }
        std::vector<FlowEnd>().swap(flows_);
    }

    // Devices: rank and the properties the trace gives. deviceProperties lists the devices the process saw, numbered
    // from 0, while the GPU ops may carry another numbering (ROCm: the node's agent, e.g. 9 or 2 for the one device a
    // process saw). An op's device takes the entry with its id; failing that for every device, the entries in order
    // (the k-th device the ops use, by id, takes the k-th entry) when there are enough; failing that, any entry when
    // all are alike but for their id. properties_from says which, when not by id.
    void map_device_properties()
    {
        auto& m = trace_.meta;
        std::vector<const nlohmann::json*> props;
        for (const auto& p : device_props_)
            if (p.is_object())
                props.push_back(&p);
        auto id_of = [](const nlohmann::json& p) -> std::optional<int64_t> {
            if (p.contains("id") && p["id"].is_number_integer())
                return p["id"].get<int64_t>();
            return std::nullopt;
        };
        auto apply = [](DeviceInfo& d, const nlohmann::json& p) {
            auto geti = [&](const char* k) -> int64_t {
                return p.contains(k) && p[k].is_number() ? p[k].get<int64_t>() : 0;
            };
            if (p.contains("name") && p["name"].is_string())
                d.name = p["name"].get<std::string>();
            d.sm_count = static_cast<int32_t>(geti("numSms"));
            d.total_memory_bytes = geti("totalGlobalMem");
            d.compute_major = static_cast<int32_t>(geti("computeMajor"));
            d.compute_minor = static_cast<int32_t>(geti("computeMinor"));
            d.warp_size = static_cast<int32_t>(geti("warpSize"));
        };
        std::vector<size_t> unmatched;
        for (size_t i = 0; i < m.devices.size(); ++i) {
            DeviceInfo& d = m.devices[i];
            d.rank = rank_;
            auto it = std::find_if(props.begin(), props.end(), [&](const nlohmann::json* p) { return id_of(*p) == d.id; });
            if (it != props.end())
                apply(d, **it);
            else
                unmatched.push_back(i);
        }
        if (unmatched.empty() || props.empty())
            return;
        auto ordinal = [](size_t k) {
            const char* suffix = k % 10 == 1 && k % 100 != 11 ? "st" : k % 10 == 2 && k % 100 != 12 ? "nd"
                                 : k % 10 == 3 && k % 100 != 13 ? "rd" : "th";
            return std::to_string(k) + suffix;
        };
        auto entry_name = [&](const nlohmann::json& p) {
            const auto id = id_of(p);
            return "deviceProperties entry " + (id ? "id " + std::to_string(*id) : std::string("without id"));
        };
        if (unmatched.size() == m.devices.size() && m.devices.size() <= props.size()) {
            std::vector<size_t> by_id(m.devices.size());
            std::iota(by_id.begin(), by_id.end(), size_t{0});
            std::sort(by_id.begin(), by_id.end(), [&](size_t a, size_t b) { return m.devices[a].id < m.devices[b].id; });
            std::vector<const nlohmann::json*> listed = props;
            std::stable_sort(listed.begin(), listed.end(), [&](const nlohmann::json* a, const nlohmann::json* b) {
                return id_of(*a).value_or(INT64_MAX) < id_of(*b).value_or(INT64_MAX);
            });
            for (size_t k = 0; k < by_id.size(); ++k) {
                DeviceInfo& d = m.devices[by_id[k]];
                apply(d, *listed[k]);
                d.properties_from = entry_name(*listed[k]) + ", by order: device " + std::to_string(d.id) +
                                    " is the " + ordinal(k + 1) + " of the " + std::to_string(by_id.size()) +
                                    " device(s) the GPU ops use, and no entry has its id";
            }
            return;
        }
        auto alike = [&](const nlohmann::json& a, const nlohmann::json& b) {
            nlohmann::json x = a, y = b;
            x.erase("id");
            y.erase("id");
            return x == y;
        };
        const bool all_alike = std::all_of(props.begin(), props.end(), [&](const nlohmann::json* p) {
            return alike(*p, *props.front());
        });
        for (size_t i : unmatched) {
            DeviceInfo& d = m.devices[i];
            if (all_alike) {
                apply(d, *props.front());
                d.properties_from = entry_name(*props.front()) + ": no entry has id " + std::to_string(d.id) +
                                    ", and all " + std::to_string(props.size()) + " are alike but for their id";
            } else {
                m.warnings.push_back("device " + std::to_string(d.id) + " of the GPU ops has no deviceProperties entry "
                                     "(the " + std::to_string(props.size()) + " entries differ and cannot be matched "
                                     "by order): its name and properties are unknown");
            }
        }
    }

    void finalize()
    {
        auto& m = trace_.meta;
        control_.report(1.0, "linking");
        link_by_flows();
        std::vector<FlowEnd>().swap(flows_);

        // Thread and process names, processes for every host pid, the rank everywhere.
        for (auto& t : m.threads) {
            auto it = thread_names_.find({t.pid, t.tid});
            if (it != thread_names_.end())
                t.name = it->second;
            t.rank = rank_;
        }
        std::unordered_map<int64_t, uint16_t> proc_of_pid;
        for (const auto& t : m.threads)
            if (!proc_of_pid.count(t.pid))
                proc_of_pid[t.pid] = trace_.process_index(t.pid, rank_);
        for (auto& p : m.processes) {
            auto it = process_names_.find(p.pid);
            if (it != process_names_.end())
                p.name = it->second;
        }
        const bool gpu_rows = trace_.kernels.size() + trace_.memcpy.size() + trace_.memset.size() +
                                  trace_.syncs.size() > 0;
        if (m.processes.empty() && gpu_rows)
            trace_.process_index(0, rank_);

        // GPU rows belong to the host process whose API call launched them (by correlation); unlinked ones to the
        // process that made the most API calls.
        if (m.processes.size() > 1) {
            std::vector<uint32_t> calls(m.processes.size(), 0);
            std::vector<uint16_t> proc_of_thread(m.threads.size());
            for (size_t t = 0; t < m.threads.size(); ++t)
                proc_of_thread[t] = proc_of_pid[m.threads[t].pid];
            for (uint32_t t : trace_.api.thread)
                ++calls[proc_of_thread[t]];
            const auto main_proc =
                static_cast<uint16_t>(std::max_element(calls.begin(), calls.end()) - calls.begin());
            std::vector<uint32_t> by_corr(trace_.api.size());
            std::iota(by_corr.begin(), by_corr.end(), 0u);
            const auto& ac = trace_.api.correlation;
            std::sort(by_corr.begin(), by_corr.end(), [&](uint32_t a, uint32_t b) { return ac[a] < ac[b]; });
            auto assign = [&](auto& t) {
                for (size_t i = 0; i < t.size(); ++i) {
                    t.process[i] = main_proc;
                    const uint32_t c = t.correlation[i];
                    if (c == 0)
                        continue;
                    auto it = std::lower_bound(by_corr.begin(), by_corr.end(), c,
                                               [&](uint32_t idx, uint32_t v) { return ac[idx] < v; });
                    if (it != by_corr.end() && ac[*it] == c)
                        t.process[i] = proc_of_thread[trace_.api.thread[*it]];
                }
            };
            assign(trace_.kernels);
            assign(trace_.memcpy);
            assign(trace_.memset);
            assign(trace_.syncs);
        }

        map_device_properties();
        // Streams used by GPU rows.
        {
            // Distinct pairs through a hash set (sorting a pair per row was a tenth of the calling thread's serial
            // work after the events), then sorted.
            std::vector<std::pair<uint16_t, uint32_t>> used;
            std::unordered_set<uint64_t> seen;
            auto collect = [&](const std::vector<uint16_t>& dev, const std::vector<uint32_t>& str) {
                uint64_t last = UINT64_MAX;
                for (size_t i = 0; i < dev.size(); ++i) {
                    const uint64_t key = static_cast<uint64_t>(dev[i]) << 32 | str[i];
                    if (key != last && seen.insert(key).second)
                        used.emplace_back(dev[i], str[i]);
                    last = key;
                }
                std::sort(used.begin(), used.end());
            };
            collect(trace_.kernels.device, trace_.kernels.stream);
            collect(trace_.memcpy.device, trace_.memcpy.stream);
            collect(trace_.memset.device, trace_.memset.stream);
            for (const auto& [dev, str] : used) {
                StreamInfo s;
                s.device = dev;
                s.stream = str;
                m.streams.push_back(s);
            }
        }
        if (window_lo_ <= window_hi_) {
            m.capture_start = window_lo_;
            m.capture_end = window_hi_;
        }
        if (m.tool_version.empty())
            m.tool_version = m.schema_version.empty() ? "Kineto" : "Kineto schema " + m.schema_version;
        if (m.world_size < 1)
            m.world_size = 1;
        if (trace_.kernels.blocks_per_sm.size() != trace_.kernels.size()) {
            trace_.kernels.blocks_per_sm.clear();
            trace_.kernels.warps_per_sm.clear();
            trace_.kernels.est_occupancy_pct.clear();
        }
        keep_python_frames();
        sort_tables();
        trace_.finish();
        // Host/device clock offset (issue 13): put the GPU ops on the host clock and say so, so the offset never
        // reads as queue delay or idle time.
        if (const ClockOffset off = detect_clock_offset(trace_); off.detected) {
            shift_gpu_times_and_capture(trace_, off.shift_ns);   // the Trace span with them: it held their clock too
            m.clock_shift_ns = off.shift_ns;
            m.clock_shift_reason = off.reason;
            m.warnings.push_back("host and device clocks disagree: " + off.reason + "; GPU times were moved by " +
                                 std::to_string(off.shift_ns) + " ns onto the host clock");
        }
        if (!dropped_.empty()) {
            int64_t total = 0;
            std::string list;
            for (const auto& [c, n] : dropped_) {
                total += n;
                list += (list.empty() ? "" : ", ") + c + " " + std::to_string(n);
            }
            m.dropped_events = std::map<std::string, int64_t>(dropped_.begin(), dropped_.end());
            m.warnings.push_back(std::to_string(total) + " events of kinds Sightline does not read were dropped (" +
                                 list + ")");
        }
        // Values the events carried that the trace could not keep as they were (input_bounds.h, checked_math.h).
        if (main_.clamped_times_)
            m.warnings.push_back(std::to_string(main_.clamped_times_) +
                                 (main_.clamped_times_ == 1 ? " event has a timestamp" : " events have timestamps") +
                                 " beyond +/-2^61 ns (73 years) from the origin; " +
                                 (main_.clamped_times_ == 1 ? "it was" : "they were") + " clamped to that range");
        for (const auto& [field, b] : main_.bad_fields_)
            m.warnings.push_back(std::to_string(b.count) + " event" + (b.count == 1 ? "" : "s") + " skipped for " + field +
                                 " that is not an integer in range (first: " + b.first + ")");
        if (main_.truncated_names_)
            m.warnings.push_back(std::to_string(main_.truncated_names_) + " names were longer than " +
                                 std::to_string(kMaxNameBytes) + " bytes; each was cut there and ends in \"[... N more "
                                 "bytes]\"");
        if (!python_packages_.empty()) {
            std::string list;
            for (const auto& pkg : python_packages_)
                list += (list.empty() ? "" : ",") + pkg;
            m.environment["python_frameworks"] = list;
        }
        m.capture_source = window_lo_ <= window_hi_ ? "kineto Trace span" : "events";
        if (window_lo_ <= window_hi_)
            m.reported_capture_ns = window_hi_ - window_lo_;
        // A capture window from the "Trace" span must still cover every event.
        int64_t lo = m.capture_start, hi = m.capture_end;
        auto widen = [&](const std::vector<int64_t>& s, const std::vector<int64_t>& e) {
            for (size_t i = 0; i < s.size(); ++i) {
                lo = std::min(lo, s[i]);
                hi = std::max(hi, e[i]);
            }
        };
        widen(trace_.kernels.start, trace_.kernels.end);
        widen(trace_.memcpy.start, trace_.memcpy.end);
        widen(trace_.memset.start, trace_.memset.end);
        m.capture_start = lo;
        m.capture_end = hi;
        if (m.clock_shift_ns != 0 &&
            (m.capture_start != m.uncorrected_capture_start || m.capture_end != m.uncorrected_capture_end))
            m.capture_source += ", corrected with the GPU clock";
    }

    std::string path_;
    const LoadControl& control_;
    KinetoReadOptions options_;
    GzipStream in_;
    int fd_ = -1;              // plain JSON: read with pread after the first fill (read_plain)
    uint64_t file_pos_ = 0;    // bytes of the file read so far (in_ is busy on another thread while inflating)
    static constexpr size_t kInflateBlock = 4u << 20;
    std::unique_ptr<Inflater> inflater_;
    std::vector<char> buf_;
    size_t pos_ = 0, end_ = 0;
    uint64_t base_offset_ = 0;
    bool eof_ = false;
    bool in_events_ = false, saw_events_ = false, expect_key_ = false;
    uint64_t event_index_ = 0;
    // Event parsing (issue 18): one parser per thread, one Part per chunk of a step.
    static constexpr size_t kMinChunkBytes = 64u << 10;   // a step splits the buffer into chunks at least this big
    unsigned parse_threads_ = reader_threads();
    Sep sep_ = Sep::First;
    std::vector<od::parser> parsers_;
    std::vector<std::unique_ptr<Part>> parts_;   // every part made; each is free, scanned into or pending
    std::vector<Part*> free_, pending_;           // pending: absorbed, rows not yet copied into the trace

    // The trace and what finalize() reads, held by the reader's own part, which absorbs the chunks' parts.
    Part main_;
    Trace& trace_ = main_.trace_;
    std::unordered_map<int64_t, std::string>& process_names_ = main_.process_names_;
    std::unordered_map<std::pair<int64_t, int64_t>, std::string, PairHash>& thread_names_ = main_.thread_names_;
    std::vector<FlowEnd>& flows_ = main_.flows_;
    bool& gpu_without_corr_ = main_.gpu_without_corr_;
    bool& api_without_corr_ = main_.api_without_corr_;
    int64_t& window_lo_ = main_.window_lo_;
    int64_t& window_hi_ = main_.window_hi_;
    std::map<std::string, int64_t, std::less<>>& dropped_ = main_.dropped_;
    std::set<std::string>& python_packages_ = main_.python_packages_;
    int32_t rank_ = 0;
    nlohmann::json device_props_;
    std::vector<Numbered> column_kinds_;   // see columns()
};

} // namespace

Trace read_kineto_json(const std::string& path, const LoadControl& control)
{
    return read_kineto_json(path, control, KinetoReadOptions{});
}

Trace read_kineto_json(const std::string& path, const LoadControl& control, const KinetoReadOptions& options)
{
    KinetoReader reader(path, control, options);
    return reader.run();
}

} // namespace sl
