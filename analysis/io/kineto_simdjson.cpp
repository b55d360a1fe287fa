// The Kineto reader's simdjson On-Demand path (kineto_simdjson.h).
#include "analysis/io/kineto_simdjson.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string_view>

namespace sl::kineto {

namespace {

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

} // namespace

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

} // namespace sl::kineto
