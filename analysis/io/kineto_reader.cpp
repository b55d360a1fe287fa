// PyTorch profiler (Kineto) Chrome-trace JSON reader.
//
// Design: the file (inflated on the fly when gzipped) is read in pieces into one buffer. A small structural scanner
// walks the top-level object, captures the small metadata values (deviceProperties, distributedInfo, ...) and finds
// the byte range of each object inside "traceEvents" (respecting strings, escapes and nesting, with a depth limit for
// garbage). Each event object is then parsed in place by simdjson On-Demand and mapped straight into the columnar
// Trace. Nothing but the buffer and the tables grows with the input: no DOM, no copy of the file.
//
// Timestamps are decimal microseconds; they are converted from the number's text to integer nanoseconds exactly
// (integer part x 1000 + three fractional digits, the fourth rounds half away from zero), so start + duration never
// drifts and no duration turns negative. Times stay relative to baseTimeNanoseconds (TraceMeta::utc_epoch_ns).

#include "analysis/io/kineto_reader.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <numeric>
#include <string_view>
#include <unordered_map>

#include <emmintrin.h>
#include <nlohmann/json.hpp>
#include <simdjson.h>

#include "analysis/trace/checked_math.h"
#include "analysis/trace/clock_offset.h"
#include "analysis/trace/errors.h"
#include "analysis/io/gzip_stream.h"
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

bool is_ws(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

// ---- number text -> integer ns ---------------------------------------------------------------------------------
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
    if (plain && i == n && int_digits > 0 && ip <= 9'000'000'000'000'000ull) {
        int64_t v = static_cast<int64_t>(ip) * 1000 + frac + (round_up ? 1 : 0);
        out = neg ? -v : v;
        return true;
    }
    // Exponent notation or a huge value: go through strtod (rare; Kineto never writes these).
    std::string tmp(s);
    char* endp = nullptr;
    const double d = std::strtod(tmp.c_str(), &endp);
    if (endp == tmp.c_str() || *endp != '\0' || !std::isfinite(d) || std::fabs(d) > 9.0e15)
        return false;
    out = std::llround(d * 1000.0);
    return true;
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
    // record_shapes and collective args (kept in Trace::op_args); raw JSON text for the arrays.
    bool has_ext = false;
    int64_t ext = 0, in_nelems = -1, out_nelems = -1, group_size = -1;
    std::string_view in_dims, in_types, concrete, coll, dtype, pg_name, pg_ranks;
    bool has_op_args() const { return !in_dims.empty() || !coll.empty(); }
};

// Integer from a number or a numeric string ("0x0", "2560").
bool value_to_i64(od::value v, int64_t& out)
{
    od::json_type t;
    if (v.type().get(t) != simdjson::SUCCESS)
        return false;
    if (t == od::json_type::number) {
        od::number num;
        if (v.get_number().get(num) != simdjson::SUCCESS)
            return false;
        if (num.is_int64())
            out = num.get_int64();
        else if (num.is_uint64())
            out = static_cast<int64_t>(num.get_uint64());
        else {
            const double d = num.get_double();
            if (!std::isfinite(d))
                return false;
            out = static_cast<int64_t>(d);
        }
        return true;
    }
    if (t == od::json_type::string) {
        std::string_view s;
        if (v.get_string().get(s) != simdjson::SUCCESS || s.empty() || s.size() > 30)
            return false;
        std::string tmp(s);
        char* endp = nullptr;
        const long long x = std::strtoll(tmp.c_str(), &endp, 0);
        if (*endp != '\0')
            return false;
        out = x;
        return true;
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

void value_to_dim3(od::value v, int64_t out[3])
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
        if (i < 3 && value_to_i64(x, n))
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
        if (v.get_string().get(s) == simdjson::SUCCESS) {
            r.present = true;
            // Numeric strings ("25738") are the same id as the number.
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
        }
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
    for (auto field : args) {
        od::field f;
        if (std::move(field).get(f) != simdjson::SUCCESS)
            throw simdjson::simdjson_error(simdjson::TAPE_ERROR);
        const std::string_view k = field_key(f);
        od::value v = f.value();
        switch (k.empty() ? 0 : k[0]) {
        case 'c':
            if (key_is(k, "correlation")) e.has_corr = value_to_i64(v, e.corr);
            else if (key_is(k, "cuda_sync_kind") && v.get_string().get(e.sync_kind) != simdjson::SUCCESS) e.sync_kind = {};
            break;
        case 's':
            if (key_is(k, "stream")) e.has_stream = value_to_i64(v, e.stream);
            else if (key_is(k, "shared memory")) value_to_i64(v, e.smem);
            break;
        case 'd':
            if (key_is(k, "device")) e.has_device = value_to_i64(v, e.device);
            else if (key_is(k, "dtype") && v.get_string().get(e.dtype) != simdjson::SUCCESS) e.dtype = {};
            break;
        case 'g':
            if (key_is(k, "grid")) value_to_dim3(v, e.grid);
            else if (key_is(k, "graph id")) e.graph = true;
            break;
        case 'b':
            if (key_is(k, "block")) value_to_dim3(v, e.block);
            else if (key_is(k, "bytes")) value_to_i64(v, e.bytes);
            else if (key_is(k, "blocks per SM")) value_to_double(v, e.blocks_per_sm);
            break;
        case 'r':
            if (key_is(k, "registers per thread")) value_to_i64(v, e.regs);
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
        case 'E':
            if (key_is(k, "External id")) e.has_ext = value_to_i64(v, e.ext);
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
        const size_t close = raw.find_first_of("\"\\", 1);
        if (close != std::string_view::npos && raw[close] == '"')
            return raw.substr(1, close - 1);
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

// ---- parallel parsing (issue 18) -----------------------------------------------------------------------------------
// simdjson writes unescaped strings into its parser's buffer, which the next document overwrites. Events parsed
// ahead of handling (on other threads) keep theirs in an Arena: blocks that never move, freed after the batch.
class Arena {
public:
    std::string_view copy(std::string_view s)
    {
        if (s.empty())
            return {};
        if (blocks_.empty() || s.size() > cap_ - used_) {
            cap_ = std::max<size_t>(s.size(), size_t{1} << 20);
            blocks_.push_back(std::make_unique<char[]>(cap_));
            used_ = 0;
        }
        char* p = blocks_.back().get() + used_;
        std::memcpy(p, s.data(), s.size());
        used_ += s.size();
        return {p, s.size()};
    }
    void clear()
    {
        blocks_.clear();
        used_ = cap_ = 0;
    }

private:
    std::vector<std::unique_ptr<char[]>> blocks_;
    size_t used_ = 0, cap_ = 0;
};

// Moves every string of e that is not in [lo, hi) (the read buffer, stable until the batch is handled) into arena.
void stabilize(Event& e, Arena& arena, const char* lo, const char* hi)
{
    for (std::string_view* s : {&e.cat, &e.name, &e.pid.str, &e.tid.str, &e.arg_name, &e.sync_kind, &e.in_dims,
                                &e.in_types, &e.concrete, &e.coll, &e.dtype, &e.pg_name, &e.pg_ranks}) {
        if (!s->empty() && (s->data() < lo || s->data() + s->size() > hi))
            *s = arena.copy(*s);
    }
}

// ---- the reader ----------------------------------------------------------------------------------------------------
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

class KinetoReader {
public:
    KinetoReader(const std::string& path, const LoadControl& control)
        : path_(path), control_(control), in_(path)
    {
        // A small file gets a buffer its size (a compressed one eight times its size) rather than a zero-filled
        // 8 MB chunk; the first refill that does not reach the end grows it to the chunk.
        const uint64_t hint = in_.compressed() ? in_.file_size() * 8 : in_.file_size() + 1;
        buf_.resize(static_cast<size_t>(std::clamp<uint64_t>(hint, kMinChunk, kChunk)) + simdjson::SIMDJSON_PADDING);
        trace_.meta.format = "kineto-json";
        trace_.meta.source_path = path;
    }

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
        flush_batch();   // parsed-ahead events point into the buffer, which moves below
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
        std::memset(buf_.data() + end_, ' ', simdjson::SIMDJSON_PADDING);
        return got > 0;
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
    // Objects and arrays are walked 64 bytes at a time: SSE2 compares give bit masks of quotes, backslashes and
    // brackets, and only those positions are visited, so long kernel names cost a few instructions per 64 bytes.
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
            const __m128i vq = _mm_set1_epi8('"'), vb = _mm_set1_epi8('\\');
            const __m128i v20 = _mm_set1_epi8(0x20), vo = _mm_set1_epi8(0x7B), vc = _mm_set1_epi8(0x7D);
            for (size_t i = p; i < end_; i += 64) {
                uint64_t mq = 0, mb = 0, mo = 0, mc = 0;
                for (int k = 0; k < 4; ++k) {
                    // buf_ has SIMDJSON_PADDING (>= 64) readable bytes past end_.
                    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + i + 16 * k));
                    const __m128i lower = _mm_or_si128(v, v20);   // '[' -> '{', ']' -> '}'
                    const int sh = 16 * k;
                    mq |= static_cast<uint64_t>(static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, vq)))) << sh;
                    mb |= static_cast<uint64_t>(static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, vb)))) << sh;
                    mo |= static_cast<uint64_t>(static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(lower, vo))))
                          << sh;
                    mc |= static_cast<uint64_t>(static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(lower, vc))))
                          << sh;
                }
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
        } catch (const std::exception& ex) {
            fail("valid JSON for top-level key \"" + key + "\"", ex.what());
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
    // Events are parsed as they are found (one thread), or, with threads, found here and parsed in batches on all
    // threads, then handled in file order (flush_batch): the Trace is the same either way. An error met while finding
    // events comes after every event before it was handled, as on one thread: an earlier event's error wins.
    void parse_events()
    {
        try {
            scan_events();
        } catch (...) {
            const std::exception_ptr ex = std::current_exception();
            flush_batch();
            std::rethrow_exception(ex);
        }
        flush_batch();
    }

    void scan_events()
    {
        in_events_ = true;
        for (;;) {
            char c = peek_required("an event object or ']' in \"traceEvents\"");
            if (c == ']') {   // only reachable for an empty array: after ',' a ']' is refused below
                ++pos_;
                break;
            }
            if (c != '{')
                fail("an event object ('{') in \"traceEvents\"", describe_byte(c));
            const size_t e = complete_value("the rest of the event object");
            if (parse_threads_ > 1) {
                batch_.push_back({pos_, e, event_index_});
                if (batch_.size() >= kBatchEvents)
                    flush_batch();
            } else {
                parse_one_event(pos_, e);
            }
            pos_ = e;
            ++event_index_;
            if ((event_index_ & 0xFFFF) == 0) {
                control_.check();
                if (control_.progress) {
                    const double total = static_cast<double>(std::max<uint64_t>(1, in_.file_size()));
                    control_.report(std::min(1.0, static_cast<double>(in_.file_position()) / total), "events");
                }
            }
            c = peek_required("',' or ']' after an event");
            if (c == ']') {
                ++pos_;
                break;
            }
            if (c != ',')
                fail("',' or ']' after an event", describe_byte(c));
            ++pos_;
            c = peek_required("an event object after ','");
            if (c == ']')
                fail("an event object after ','", "']'");
        }
        in_events_ = false;
    }

    void flush_batch()
    {
        const size_t n = batch_.size();
        if (n == 0)
            return;
        // Reused from batch to batch (a fresh 20 MB of Events each time costs page faults).
        events_.resize(std::max(events_.size(), n));
        errors_.resize(std::max(errors_.size(), n));
        std::vector<Event>& events = events_;
        std::vector<std::string>& errors = errors_;   // simdjson's message for an event that does not parse
        const size_t per_chunk = std::max<size_t>(256, (n + parse_threads_ - 1) / parse_threads_);
        const size_t chunks = (n + per_chunk - 1) / per_chunk;
        if (parsers_.size() < parse_threads_)
            parsers_.resize(parse_threads_);
        if (arenas_.size() < chunks)
            arenas_.resize(chunks);
        const char* lo = buf_.data();
        const char* hi = buf_.data() + buf_.size();
        TaskRun run;
        run_tasks(chunks, parse_threads_, run, [&](size_t c, unsigned slot) {
            od::parser& parser = slot == 0 ? parser_ : parsers_[slot];
            for (size_t i = c * per_chunk; i < std::min(n, (c + 1) * per_chunk); ++i) {
                const Pending& pe = batch_[i];
                events[i] = Event{};
                errors[i].clear();
                try {
                    od::document doc = parser.iterate(buf_.data() + pe.b, pe.e - pe.b, buf_.size() - pe.b);
                    od::object obj = doc.get_object();
                    parse_event_fields(obj, events[i]);
                } catch (const simdjson::simdjson_error& ex) {
                    errors[i] = ex.error() == simdjson::UTF8_ERROR ? std::string("invalid UTF-8 in a string")
                                                                  : std::string(simdjson::error_message(ex.error()));
                    return;   // nothing after the first bad event is handled
                }
                stabilize(events[i], arenas_[c], lo, hi);
            }
        });
        for (size_t c = 0; c < chunks; ++c)
            if (run.errors[c])
                std::rethrow_exception(run.errors[c]);   // not a parse error (out of memory)
        std::vector<Pending> batch;
        batch.swap(batch_);   // handle_event() does not read the buffer, but an error below must not flush twice
        for (size_t i = 0; i < n; ++i) {
            if (!errors[i].empty()) {
                for (auto& a : arenas_)
                    a.clear();
                throw TraceError(path_, "byte " + std::to_string(offset_of(batch[i].b)) + ", event " +
                                            std::to_string(batch[i].index),
                                 "a valid JSON event object", errors[i]);
            }
            handle_event(events[i]);
        }
        for (auto& a : arenas_)
            a.clear();
    }

    void parse_one_event(size_t b, size_t e)
    {
        Event ev;
        try {
            od::document doc = parser_.iterate(buf_.data() + b, e - b, buf_.size() - b);
            od::object obj = doc.get_object();
            parse_event_fields(obj, ev);
        } catch (const simdjson::simdjson_error& ex) {
            std::string msg = simdjson::error_message(ex.error());
            if (ex.error() == simdjson::UTF8_ERROR)
                msg = "invalid UTF-8 in a string";
            throw TraceError(path_, "byte " + std::to_string(offset_of(b)) + ", event " + std::to_string(event_index_),
                             "a valid JSON event object", msg);
        }
        handle_event(ev);
    }

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

    // Non-numeric pid/tid strings ("Spans", "stream 7") get stable synthetic negative ids.
    int64_t id_number(const IdValue& v)
    {
        if (!v.present)
            return 0;
        if (!v.is_string)
            return v.num;
        auto it = string_ids_.find(std::string(v.str));
        if (it != string_ids_.end())
            return it->second;
        const int64_t id = -1000000 - static_cast<int64_t>(string_ids_.size());
        string_ids_.emplace(std::string(v.str), id);
        return id;
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

    StrId intern_name(std::string_view n) { return trace_.strings.intern(n); }

    void note_missing_time()
    {
        if (missing_time_++ == 0)
            trace_.meta.warnings.push_back("some complete events lack a numeric ts or dur and were skipped");
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
                const uint64_t key =
                    e.ph == 's' ? static_cast<uint64_t>(id_number(e.pid)) * 0x9E3779B97F4A7C15ull ^
                                      static_cast<uint64_t>(id_number(e.tid))
                                : static_cast<uint64_t>(e.has_device ? e.device : id_number(e.pid)) *
                                          0x9E3779B97F4A7C15ull ^
                                      static_cast<uint64_t>(stream_of(e));
                flows_.push_back({e.ts, key, static_cast<uint32_t>(e.id), e.ph});
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
            // python_function stacks are not kept, but the packages they run in name the framework (issue 13).
            static constexpr std::pair<std::string_view, std::string_view> kPkgs[] = {
                {"transformers/", "transformers"}, {"vllm/", "vllm"}, {"sglang/", "sglang"},
                {"tensorrt_llm/", "tensorrt_llm"}};
            for (const auto& [needle, pkg] : kPkgs)
                if (e.name.find(needle) != std::string_view::npos)
                    python_packages_.insert(std::string(pkg));
        }
        if (e.ph != 'X' || cat == Cat::Other || cat == Cat::Python)
            return;
        if (!e.has_ts || !e.has_dur) {
            note_missing_time();
            return;
        }
        if (e.dur < 0) {
            if (negative_dur_++ == 0)
                trace_.meta.warnings.push_back("some events have a negative duration; it was set to 0");
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
                add_op_args(e, OpArgsTable::kKernel, start, end, e.has_device ? e.device : id_number(e.pid), corr);
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
        const size_t i = a.append(source, start, end, source == OpArgsTable::kLaunch ? StrId{0} : intern_name(e.name));
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

        // Devices: rank and the properties the trace gives.
        for (auto& d : m.devices) {
            d.rank = rank_;
            for (const auto& p : device_props_) {
                if (!p.is_object() || !p.contains("id") || !p["id"].is_number_integer() ||
                    p["id"].get<int32_t>() != d.id)
                    continue;
                auto geti = [&](const char* k) -> int64_t {
                    return p.contains(k) && p[k].is_number() ? p[k].get<int64_t>() : 0;
                };
                if (p.contains("name") && p["name"].is_string())
                    d.name = p["name"].get<std::string>();
                d.sm_count = static_cast<int32_t>(geti("numSms"));
                d.total_memory_bytes = geti("totalGlobalMem");
                d.compute_major = static_cast<int32_t>(geti("computeMajor"));
                d.compute_minor = static_cast<int32_t>(geti("computeMinor"));
            }
        }
        // Streams used by GPU rows.
        {
            std::vector<std::pair<uint16_t, uint32_t>> used;
            auto collect = [&](const std::vector<uint16_t>& dev, const std::vector<uint32_t>& str) {
                for (size_t i = 0; i < dev.size(); ++i)
                    used.emplace_back(dev[i], str[i]);
                std::sort(used.begin(), used.end());
                used.erase(std::unique(used.begin(), used.end()), used.end());
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
        sort_tables();
        trace_.finish();
        // Host/device clock offset (issue 13): put the GPU ops on the host clock and say so, so the offset never
        // reads as queue delay or idle time.
        if (const ClockOffset off = detect_clock_offset(trace_); off.detected) {
            shift_gpu_times(trace_, off.shift_ns);
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
    }

    std::string path_;
    const LoadControl& control_;
    GzipStream in_;
    std::vector<char> buf_;
    size_t pos_ = 0, end_ = 0;
    uint64_t base_offset_ = 0;
    bool eof_ = false;
    bool in_events_ = false, saw_events_ = false, expect_key_ = false;
    uint64_t event_index_ = 0;
    od::parser parser_;
    // Parallel parsing: events found but not yet parsed (byte range in buf_, index), one parser per extra thread,
    // one string arena per chunk of a batch.
    struct Pending {
        size_t b, e;
        uint64_t index;
    };
    static constexpr size_t kBatchEvents = 1u << 16;
    unsigned parse_threads_ = reader_threads();
    std::vector<Pending> batch_;
    std::vector<od::parser> parsers_;
    std::vector<Arena> arenas_;
    std::vector<Event> events_;
    std::vector<std::string> errors_;

    Trace trace_;
    int32_t rank_ = 0;
    nlohmann::json device_props_;
    std::unordered_map<std::pair<int64_t, int64_t>, uint32_t, PairHash> threads_;
    int64_t last_pid_ = 0, last_tid_ = 0;
    uint32_t last_thread_ = UINT32_MAX;
    std::unordered_map<std::string, int64_t> string_ids_;
    std::unordered_map<int64_t, std::string> process_names_;
    std::unordered_map<std::pair<int64_t, int64_t>, std::string, PairHash> thread_names_;
    uint16_t device_cache_[256] = {};
    std::vector<uint8_t> api_flags_;
    std::vector<FlowEnd> flows_;
    bool gpu_without_corr_ = false, api_without_corr_ = false;
    uint64_t missing_time_ = 0, negative_dur_ = 0;
    int64_t window_lo_ = INT64_MAX, window_hi_ = INT64_MIN;
    std::map<std::string, int64_t, std::less<>> dropped_;
    std::set<std::string> python_packages_;
};

} // namespace

Trace read_kineto_json(const std::string& path, const LoadControl& control)
{
    KinetoReader reader(path, control);
    return reader.run();
}

} // namespace sl
