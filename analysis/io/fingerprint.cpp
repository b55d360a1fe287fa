#include "analysis/io/fingerprint.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <vector>

#include "analysis/trace/trace.h"

namespace sl {

static std::string lower(std::string s)
{
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

std::string EnvFingerprint::key() const
{
    std::string k = "gpu=" + gpu + ";driver=" + driver + ";cuda=" + cuda + ";model=" + model_hash +
                    ";batch=" + std::to_string(batch) + ";seq=" + std::to_string(seq_len);
    for (const auto& [n, v] : libraries)
        k += ";" + n + "=" + v;
    return k;
}

EnvFingerprint fingerprint_from_trace(const Trace& trace)
{
    EnvFingerprint f;
    for (const auto& d : trace.meta.devices)
        if (!d.name.empty()) {
            f.gpu = d.name;
            break;
        }
    for (const auto& [k, v] : trace.meta.environment) {
        const std::string lk = lower(k);
        if (lk.find("driver") != std::string::npos && f.driver.empty())
            f.driver = v;
        else if (lk.find("cuda") != std::string::npos && lk.find("driver") == std::string::npos && f.cuda.empty())
            f.cuda = v;
        else
            f.libraries[k] = v;
    }
    return f;
}

// 1 when equal, 0 when different, 0.5 when either is unknown.
static double field(const std::string& a, const std::string& b)
{
    if (a.empty() || b.empty())
        return 0.5;
    return a == b ? 1.0 : 0.0;
}

static std::string major(const std::string& v)
{
    const auto dot = v.find('.');
    return dot == std::string::npos ? v : v.substr(0, dot);
}

double environment_similarity(const EnvFingerprint& a, const EnvFingerprint& b)
{
    double s = 0.4 * field(lower(a.gpu), lower(b.gpu)) + 0.25 * field(a.model_hash, b.model_hash);
    // Versions: equal = 1, same major = 0.5.
    auto ver = [](const std::string& x, const std::string& y) {
        if (x.empty() || y.empty())
            return 0.5;
        if (x == y)
            return 1.0;
        return major(x) == major(y) ? 0.5 : 0.0;
    };
    s += 0.075 * ver(a.driver, b.driver) + 0.075 * ver(a.cuda, b.cuda);
    // Libraries: mean over the names both know.
    double lib = 0;
    int n = 0;
    for (const auto& [k, v] : a.libraries)
        if (auto it = b.libraries.find(k); it != b.libraries.end()) {
            lib += ver(v, it->second);
            ++n;
        }
    s += 0.1 * (n ? lib / n : 0.5);
    auto shape = [](int64_t x, int64_t y) { return (x == 0 || y == 0) ? 0.5 : (x == y ? 1.0 : 0.0); };
    s += 0.05 * shape(a.batch, b.batch) + 0.05 * shape(a.seq_len, b.seq_len);
    return std::clamp(s, 0.0, 1.0);
}

std::string similarity_reason(const EnvFingerprint& ref, const EnvFingerprint& o)
{
    std::vector<std::string> parts;
    auto cmp = [&](const std::string& a, const std::string& b, const char* what) {
        if (a.empty() || b.empty())
            return;
        parts.push_back(std::string(a == b ? "same " : "different ") + what);
    };
    cmp(lower(ref.gpu), lower(o.gpu), "GPU");
    cmp(ref.model_hash, o.model_hash, "model");
    cmp(ref.driver, o.driver, "driver");
    cmp(ref.cuda, o.cuda, "CUDA");
    if (ref.batch && o.batch)
        parts.push_back(ref.batch == o.batch ? "same batch" : "different batch");
    std::string s;
    for (size_t i = 0; i < parts.size(); ++i)
        s += (i ? ", " : "") + parts[i];
    return s.empty() ? "environment unknown" : s;
}

static void fnv(uint64_t& h, const char* p, size_t n)
{
    for (size_t i = 0; i < n; ++i) {
        h ^= static_cast<unsigned char>(p[i]);
        h *= 1099511628211ull;
    }
}

static std::string hex(uint64_t h)
{
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
    return buf;
}

std::string file_hash(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return {};
    uint64_t h = 1469598103934665603ull;
    std::vector<char> buf(1 << 16);
    while (in) {
        in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
        fnv(h, buf.data(), static_cast<size_t>(in.gcount()));
    }
    return hex(h);
}

std::string text_hash(const std::string& text)
{
    uint64_t h = 1469598103934665603ull;
    fnv(h, text.data(), text.size());
    return hex(h);
}

} // namespace sl
