#include "analysis/io/input_bounds.h"

#include <sys/stat.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>

#include <nlohmann/json.hpp>

#include "analysis/trace/errors.h"

namespace sl {

namespace {

std::atomic<uint64_t> g_override{0};

uint64_t env_override()
{
    static const uint64_t v = [] {
        const char* e = std::getenv("SIGHTLINE_MAX_INPUT_SIZE");
        uint64_t b = 0;
        return e && parse_size(e, b) ? b : uint64_t{0};
    }();
    return v;
}

std::string human_bytes(uint64_t b)
{
    static const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    uint64_t v = b;
    while (u < 4 && v >= 1024 && v % 1024 == 0) {
        v /= 1024;
        ++u;
    }
    return std::to_string(v) + " " + units[u];
}

const char* file_type_name(mode_t m)
{
    if (S_ISDIR(m))
        return "a directory";
    if (S_ISFIFO(m))
        return "a FIFO (named pipe)";
    if (S_ISCHR(m))
        return "a character device";
    if (S_ISBLK(m))
        return "a block device";
    if (S_ISSOCK(m))
        return "a socket";
    return "not a regular file";
}

} // namespace

const char* input_kind_name(InputKind k)
{
    switch (k) {
    case InputKind::Trace: return "trace";
    case InputKind::NcuExport: return "Nsight Compute export";
    case InputKind::ModelConfig: return "model config";
    case InputKind::WeightIndex: return "weight index";
    case InputKind::DataFile: return "data file";
    }
    return "input";
}

uint64_t default_input_limit(InputKind k)
{
    constexpr uint64_t MiB = uint64_t{1} << 20, GiB = uint64_t{1} << 30;
    switch (k) {
    case InputKind::Trace: return 64 * GiB;
    case InputKind::NcuExport: return 4 * GiB;
    case InputKind::ModelConfig: return 16 * MiB;
    case InputKind::WeightIndex: return 64 * MiB;
    case InputKind::DataFile: return 16 * MiB;
    }
    return 16 * MiB;
}

void set_input_size_override(uint64_t bytes) { g_override.store(bytes, std::memory_order_relaxed); }

uint64_t input_size_limit(InputKind k)
{
    const uint64_t o = g_override.load(std::memory_order_relaxed);
    if (o)
        return o;
    const uint64_t e = env_override();
    return e ? e : default_input_limit(k);
}

bool parse_size(std::string_view t, uint64_t& bytes)
{
    if (t == "none" || t == "unlimited") {
        bytes = std::numeric_limits<uint64_t>::max();
        return true;
    }
    uint64_t v = 0;
    size_t i = 0;
    for (; i < t.size() && t[i] >= '0' && t[i] <= '9'; ++i) {
        if (v > (std::numeric_limits<uint64_t>::max() - 9) / 10)
            return false;
        v = v * 10 + static_cast<uint64_t>(t[i] - '0');
    }
    if (i == 0)
        return false;
    int shift = 0;
    if (i < t.size()) {
        switch (t[i] | 0x20) {
        case 'k': shift = 10; break;
        case 'm': shift = 20; break;
        case 'g': shift = 30; break;
        case 't': shift = 40; break;
        default: return false;
        }
        ++i;
        if (i < t.size() && (t[i] | 0x20) == 'i')
            ++i;
        if (i < t.size() && (t[i] | 0x20) == 'b')
            ++i;
    }
    if (i != t.size() || v == 0 || (shift && v > (std::numeric_limits<uint64_t>::max() >> shift)))
        return false;
    bytes = v << shift;
    return true;
}

uint64_t check_input_file(const std::string& path, InputKind kind, const std::string& expected)
{
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0)
        throw TraceError(path, "", expected, std::string("no such file or it cannot be read (") + std::strerror(errno) + ")");
    if (!S_ISREG(st.st_mode))
        throw TraceError(path, "", expected + " (a regular file)",
                         std::string(file_type_name(st.st_mode)) + "; pipes and devices are not read");
    const uint64_t size = static_cast<uint64_t>(st.st_size);
    const uint64_t limit = input_size_limit(kind);
    if (size > limit)
        throw TraceError(path, "file size",
                         expected + " of at most " + human_bytes(limit) + " (the " + input_kind_name(kind) +
                             " size limit; raise it with --max-input-size SIZE or SIGHTLINE_MAX_INPUT_SIZE=SIZE)",
                         std::to_string(size) + " bytes");
    return size;
}

std::string read_input_file(const std::string& path, InputKind kind, const std::string& expected)
{
    const uint64_t size = check_input_file(path, kind, expected);
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw TraceError(path, "", expected, std::string("a file that cannot be opened (") + std::strerror(errno) + ")");
    std::string out;
    out.resize(static_cast<size_t>(size));
    in.read(out.data(), static_cast<std::streamsize>(size));
    out.resize(static_cast<size_t>(in.gcount()));   // the file may have shrunk since stat()
    return out;
}

std::string quote_prefix(std::string_view s, size_t max_chars)
{
    std::string out = "'";
    size_t shown = 0;
    for (; shown < s.size() && shown < max_chars; ++shown) {
        const auto c = static_cast<unsigned char>(s[shown]);
        if (c >= 0x20 && c < 0x7F && c != '\'') {
            out += static_cast<char>(c);
        } else {
            char b[8];
            std::snprintf(b, sizeof b, "\\x%02x", c);
            out += b;
        }
    }
    out += "'";
    if (shown < s.size())
        out += "... (" + std::to_string(s.size()) + " bytes)";
    return out;
}

std::string describe_json(const nlohmann::json& v)
{
    const auto count = [](size_t n, const char* what) {
        return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
    };
    switch (v.type()) {
    case nlohmann::json::value_t::array: return "an array of " + count(v.size(), "element");
    case nlohmann::json::value_t::object: return "an object of " + count(v.size(), "key");
    case nlohmann::json::value_t::string: return "the string " + quote_prefix(v.get_ref<const std::string&>());
    case nlohmann::json::value_t::null: return "null";
    case nlohmann::json::value_t::binary: return "binary data";
    default: return v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);   // number or boolean
    }
}

namespace {

// Length of the valid UTF-8 sequence starting at s[i], or 0 when the byte there does not start one.
size_t utf8_seq(std::string_view s, size_t i)
{
    const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned char c = b(i);
    if (c < 0x80)
        return 1;
    size_t n = 0;
    uint32_t cp = 0;
    if (c >= 0xC2 && c <= 0xDF) {
        n = 2;
        cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        cp = c & 0x07;
    } else {
        return 0;
    }
    if (i + n > s.size())
        return 0;
    for (size_t k = 1; k < n; ++k) {
        if ((b(i + k) & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (b(i + k) & 0x3F);
    }
    if ((n == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
        return 0;
    return n;
}

} // namespace

bool is_valid_utf8(std::string_view s)
{
    for (size_t i = 0; i < s.size();) {
        if (static_cast<unsigned char>(s[i]) < 0x80) {
            ++i;
            continue;
        }
        const size_t n = utf8_seq(s, i);
        if (!n)
            return false;
        i += n;
    }
    return true;
}

std::string escape_invalid_utf8(std::string_view s)
{
    if (is_valid_utf8(s))
        return std::string(s);
    std::string out;
    out.reserve(s.size() + 16);
    for (size_t i = 0; i < s.size();) {
        const size_t n = utf8_seq(s, i);
        if (n) {
            out.append(s.substr(i, n));
            i += n;
        } else {
            char b[8];
            std::snprintf(b, sizeof b, "\\x%02X", static_cast<unsigned char>(s[i]));
            out += b;
            ++i;
        }
    }
    return out;
}

} // namespace sl
