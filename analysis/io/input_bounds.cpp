#include "analysis/io/input_bounds.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <mutex>

#include <nlohmann/json.hpp>

#include "analysis/io/input_errors.h"
#include "analysis/io/output_file.h"
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

uint64_t env_size(const char* name)
{
    const char* e = std::getenv(name);
    uint64_t b = 0;
    return e && parse_size(e, b) ? b : uint64_t{0};
}

// A plain count (a ratio), or "none".
uint64_t env_count(const char* name)
{
    const char* e = std::getenv(name);
    if (!e)
        return 0;
    const std::string_view v(e);
    if (v == "none" || v == "unlimited")
        return std::numeric_limits<uint64_t>::max();
    uint64_t x = 0;
    for (char c : v) {
        if (c < '0' || c > '9' || x > std::numeric_limits<uint64_t>::max() / 10 - 1)
            return 0;
        x = x * 10 + static_cast<uint64_t>(c - '0');
    }
    return x;
}

std::atomic<uint64_t> g_inflate_ratio{0}, g_inflated_size{0}, g_name_bytes{0}, g_memory{0};

uint64_t pick(const std::atomic<uint64_t>& set, const char* env, uint64_t def, bool count = false)
{
    if (const uint64_t v = set.load(std::memory_order_relaxed))
        return v;
    const uint64_t e = count ? env_count(env) : env_size(env);
    return e ? e : def;
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
    // What happened, said as such (input_errors.h): a symbolic-link loop, no permission, a FIFO or /dev/stdin.
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0)
        throw TraceError(path, "", expected, open_error_text(errno));
    if (!S_ISREG(st.st_mode))
        throw TraceError(path, "", expected + " (a regular file)", not_regular_file_text(st.st_mode));
    note_input_file(path);   // before the size check: an input refused for its size is still no output
    // stat() does not say whether this user may read the file; open() does (a regular file: it does not block).
    if (const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY); fd >= 0)
        ::close(fd);
    else
        throw TraceError(path, "", expected, open_error_text(errno));
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
        throw TraceError(path, "", expected, open_error_text(errno));
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


// ---- inflated .gz content ------------------------------------------------------------------------------------------

namespace {
constexpr uint64_t kDefaultInflateRatio = 64;
constexpr uint64_t kInflateFloor = uint64_t{64} << 20;
constexpr uint64_t kDefaultInflatedCap = uint64_t{64} << 30;

std::string approx_bytes(uint64_t b)
{
    if (b == std::numeric_limits<uint64_t>::max())
        return "no limit";
    static const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
    double v = static_cast<double>(b);
    int u = 0;
    while (u < 4 && v >= 1024) {
        v /= 1024;
        ++u;
    }
    char buf[48];
    if (u == 0 || v >= 100 || v == static_cast<double>(static_cast<uint64_t>(v)))
        std::snprintf(buf, sizeof buf, "%.0f %s", v, units[u]);
    else
        std::snprintf(buf, sizeof buf, "%.1f %s", v, units[u]);
    return buf;
}
} // namespace

void set_inflate_ratio_override(uint64_t ratio) { g_inflate_ratio.store(ratio, std::memory_order_relaxed); }
void set_inflated_size_override(uint64_t bytes) { g_inflated_size.store(bytes, std::memory_order_relaxed); }

uint64_t inflated_size_limit(uint64_t compressed_size)
{
    const uint64_t ratio = pick(g_inflate_ratio, "SIGHTLINE_MAX_INFLATE_RATIO", kDefaultInflateRatio, true);
    const uint64_t cap = pick(g_inflated_size, "SIGHTLINE_MAX_INFLATED_SIZE", kDefaultInflatedCap);
    const uint64_t max = std::numeric_limits<uint64_t>::max();
    uint64_t by_ratio = max;
    if (ratio != max)
        by_ratio = compressed_size > (max - kInflateFloor) / ratio ? max : kInflateFloor + compressed_size * ratio;
    return std::min(by_ratio, cap);
}

std::string inflated_limit_text(uint64_t compressed_size)
{
    const uint64_t ratio = pick(g_inflate_ratio, "SIGHTLINE_MAX_INFLATE_RATIO", kDefaultInflateRatio, true);
    const uint64_t limit = inflated_size_limit(compressed_size);
    std::string how;
    if (ratio != std::numeric_limits<uint64_t>::max() && limit < pick(g_inflated_size, "SIGHTLINE_MAX_INFLATED_SIZE", kDefaultInflatedCap))
        how = "64 MiB plus " + std::to_string(ratio) + " times the " + approx_bytes(compressed_size) +
              " of compressed data read; raise it with --max-inflate-ratio N or SIGHTLINE_MAX_INFLATE_RATIO=N";
    else
        how = "the inflated-size cap; raise it with --max-inflated-size SIZE or SIGHTLINE_MAX_INFLATED_SIZE=SIZE";
    return "at most " + approx_bytes(limit) + " of inflated content (" + how + ")";
}

// ---- names ---------------------------------------------------------------------------------------------------------

void set_name_bytes_override(uint64_t bytes) { g_name_bytes.store(bytes, std::memory_order_relaxed); }

uint64_t name_bytes_limit() { return pick(g_name_bytes, "SIGHTLINE_MAX_NAME_BYTES", uint64_t{128} << 20); }

bool bound_name(std::string_view& s, std::string& scratch)
{
    if (s.size() <= kMaxNameBytes)
        return false;
    // The marker's length depends on the count it holds; 40 bytes hold any.
    size_t keep = kMaxNameBytes - 40;
    while (keep > 0 && (static_cast<unsigned char>(s[keep]) & 0xC0) == 0x80)
        --keep;   // never cut a UTF-8 sequence in two
    scratch.assign(s.substr(0, keep));
    scratch += " [... " + std::to_string(s.size() - keep) + " more bytes]";
    s = scratch;
    return true;
}

void check_name_bytes(const std::string& file, const std::string& where, uint64_t total)
{
    const uint64_t limit = name_bytes_limit();
    if (total <= limit)
        return;
    throw TraceError(file, where,
                     "at most " + approx_bytes(limit) + " of distinct names (kernels, API calls, ranges, operators; "
                     "the name limit, raise it with --max-name-bytes SIZE or SIGHTLINE_MAX_NAME_BYTES=SIZE)",
                     "more than that (" + std::to_string(total) + " bytes so far)");
}

// ---- memory budget -------------------------------------------------------------------------------------------------

namespace {

struct MemoryLimits {
    uint64_t resident = std::numeric_limits<uint64_t>::max();   // 90 % of RAM / cgroup / RLIMIT_DATA
    uint64_t address_space = std::numeric_limits<uint64_t>::max();   // 90 % of RLIMIT_AS
    std::string resident_source = "physical memory";
};

uint64_t read_number_file(const std::string& path)
{
    std::ifstream in(path);
    std::string v;
    if (!(in >> v) || v == "max")
        return std::numeric_limits<uint64_t>::max();
    uint64_t x = 0;
    for (char c : v) {
        if (c < '0' || c > '9')
            return std::numeric_limits<uint64_t>::max();
        x = x * 10 + static_cast<uint64_t>(c - '0');
    }
    return x ? x : std::numeric_limits<uint64_t>::max();
}

const MemoryLimits& default_memory_limits()
{
    static const MemoryLimits m = [] {
        MemoryLimits r;
        uint64_t lim = std::numeric_limits<uint64_t>::max();
        {
            std::ifstream in("/proc/meminfo");
            std::string key;
            uint64_t kb = 0;
            std::string unit;
            while (in >> key >> kb) {
                std::getline(in, unit);
                if (key == "MemTotal:") {
                    lim = kb * 1024;
                    break;
                }
            }
        }
        // cgroup v2: the memory.max of this process's group.
        {
            std::ifstream in("/proc/self/cgroup");
            std::string line;
            while (std::getline(in, line))
                if (line.rfind("0::", 0) == 0) {
                    const uint64_t c = read_number_file("/sys/fs/cgroup" + line.substr(3) + "/memory.max");
                    if (c < lim) {
                        lim = c;
                        r.resident_source = "the cgroup's memory.max";
                    }
                }
        }
        struct rlimit rl {};
        if (::getrlimit(RLIMIT_DATA, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < lim) {
            lim = rl.rlim_cur;
            r.resident_source = "the data-size limit (ulimit -d)";
        }
        if (lim != std::numeric_limits<uint64_t>::max())
            r.resident = lim / 10 * 9;
        if (::getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
            r.address_space = rl.rlim_cur / 10 * 9;
        return r;
    }();
    return m;
}

std::mutex g_place_mutex;
std::string g_place_file, g_place;

bool read_statm(uint64_t& vm, uint64_t& rss)
{
    static const int fd = ::open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
    static const uint64_t page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
    if (fd < 0)
        return false;
    char buf[128];
    const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
    if (n <= 0)
        return false;
    buf[n] = '\0';
    unsigned long long a = 0, b = 0;
    if (std::sscanf(buf, "%llu %llu", &a, &b) != 2)
        return false;
    vm = a * page;
    rss = b * page;
    return true;
}

std::string budget_text()
{
    const uint64_t set = pick(g_memory, "SIGHTLINE_MAX_MEMORY", 0);
    if (set)
        return "the memory budget of " + approx_bytes(set) + " (--max-memory or SIGHTLINE_MAX_MEMORY)";
    const auto& d = default_memory_limits();
    return "the memory budget of " + approx_bytes(d.resident) + " (90 % of " + d.resident_source +
           "; raise it with --max-memory SIZE or SIGHTLINE_MAX_MEMORY=SIZE)";
}

} // namespace

void set_memory_budget_override(uint64_t bytes) { g_memory.store(bytes, std::memory_order_relaxed); }

uint64_t memory_budget()
{
    const uint64_t set = pick(g_memory, "SIGHTLINE_MAX_MEMORY", 0);
    return set ? set : default_memory_limits().resident;
}

uint64_t resident_memory_bytes()
{
    uint64_t vm = 0, rss = 0;
    return read_statm(vm, rss) ? rss : 0;
}

void check_memory_budget(const std::string& file, const std::string& where)
{
    {
        std::lock_guard<std::mutex> lock(g_place_mutex);
        g_place_file = file;
        g_place = where;
    }
    uint64_t vm = 0, rss = 0;
    if (!read_statm(vm, rss))
        return;
    const uint64_t budget = memory_budget();
    if (rss > budget)
        throw TraceError(file, where, "a trace that fits in " + budget_text(),
                         approx_bytes(rss) + " in use at this point of the file");
    const uint64_t as = default_memory_limits().address_space;
    if (vm > as)
        throw TraceError(file, where,
                         "a trace that fits in 90 % of the address-space limit (ulimit -v) of " + approx_bytes(as / 9 * 10),
                         approx_bytes(vm) + " of address space in use at this point of the file");
}

TraceError out_of_memory_error(const std::string& file)
{
    std::string where;
    {
        std::lock_guard<std::mutex> lock(g_place_mutex);
        if (g_place_file == file)
            where = "after " + g_place;
    }
    const uint64_t rss = resident_memory_bytes();
    return TraceError(file, where, "a trace that fits in " + budget_text(),
                      "an allocation that failed (out of memory" +
                          (rss ? ", " + approx_bytes(rss) + " in use" : std::string()) + ")");
}

// ---- terminal safety -----------------------------------------------------------------------------------------------

std::string terminal_safe(std::string_view s)
{
    bool plain = true;
    for (char ch : s) {
        const auto c = static_cast<unsigned char>(ch);
        if (c < 0x20 || c == 0x7F || c >= 0x80) {
            plain = false;
            break;
        }
    }
    if (plain)
        return std::string(s);
    std::string out;
    out.reserve(s.size() + 16);
    auto hex = [&](unsigned char c) {
        char b[8];
        std::snprintf(b, sizeof b, "\\x%02X", c);
        out += b;
    };
    for (size_t i = 0; i < s.size();) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c == '\n') {
            out += "\\n";
            ++i;
        } else if (c == '\t') {
            out += "\\t";
            ++i;
        } else if (c == '\r') {
            out += "\\r";
            ++i;
        } else if (c < 0x20 || c == 0x7F) {
            hex(c);
            ++i;
        } else if (c < 0x80) {
            out += static_cast<char>(c);
            ++i;
        } else {
            const size_t n = utf8_seq(s, i);
            if (!n) {
                hex(c);
                ++i;
                continue;
            }
            // C1 controls (U+0080..U+009F) and the bidirectional overrides and isolates (U+202A..U+202E,
            // U+2066..U+2069), which reorder what follows them on a terminal.
            const auto b1 = n >= 2 ? static_cast<unsigned char>(s[i + 1]) : 0;
            const auto b2 = n >= 3 ? static_cast<unsigned char>(s[i + 2]) : 0;
            const bool c1 = n == 2 && c == 0xC2 && b1 < 0xA0;
            const bool bidi = n == 3 && c == 0xE2 &&
                              ((b1 == 0x80 && b2 >= 0xAA && b2 <= 0xAE) || (b1 == 0x81 && b2 >= 0xA6 && b2 <= 0xA9));
            if (c1 || bidi) {
                for (size_t k = 0; k < n; ++k)
                    hex(static_cast<unsigned char>(s[i + k]));
            } else {
                out.append(s.substr(i, n));
            }
            i += n;
        }
    }
    return out;
}

bool has_control_chars(std::string_view s)
{
    for (size_t i = 0; i < s.size(); ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c < 0x20 || c == 0x7F || (c == 0xC2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) < 0xA0 &&
                                      static_cast<unsigned char>(s[i + 1]) >= 0x80))
            return true;
    }
    return false;
}

std::string escape_control_chars(std::string_view s)
{
    std::string out;
    out.reserve(s.size() + 16);
    auto hex = [&](unsigned char c) {
        char b[8];
        std::snprintf(b, sizeof b, "\\x%02X", c);
        out += b;
    };
    for (size_t i = 0; i < s.size(); ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        // The one rule of terminal_safe(): \n, \t and \r as such, every other control character as \xNN.
        if (c == '\n') {
            out += "\\n";
        } else if (c == '\t') {
            out += "\\t";
        } else if (c == '\r') {
            out += "\\r";
        } else if (c < 0x20 || c == 0x7F) {
            hex(c);
        } else if (c == 0xC2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) >= 0x80 &&
                   static_cast<unsigned char>(s[i + 1]) < 0xA0) {
            hex(c);
            hex(static_cast<unsigned char>(s[++i]));
        } else {
            out += static_cast<char>(c);
        }
    }
    return out;
}

} // namespace sl
