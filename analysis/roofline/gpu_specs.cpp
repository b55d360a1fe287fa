#include "analysis/roofline/gpu_specs.h"

#include "analysis/io/input_bounds.h"
#include "analysis/io/json_input.h"
#include "analysis/io/regex.h"
#include "analysis/trace/errors.h"
#include "analysis/io/resources.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <fstream>

namespace sl {

using nlohmann::json;

const char* precision_name(Precision p)
{
    switch (p) {
    case Precision::FP32: return "fp32";
    case Precision::TF32: return "tf32";
    case Precision::FP16: return "fp16";
    case Precision::BF16: return "bf16";
    case Precision::FP16_FP16ACC: return "fp16_fp16acc";
    case Precision::FP8: return "fp8";
    case Precision::INT8: return "int8";
    }
    return "?";
}

std::optional<Precision> parse_precision(std::string_view s)
{
    for (Precision p : {Precision::FP32, Precision::TF32, Precision::FP16, Precision::BF16, Precision::FP16_FP16ACC,
                        Precision::FP8, Precision::INT8})
        if (s == precision_name(p))
            return p;
    return std::nullopt;
}

std::optional<double> GpuPeaks::get(Precision p) const
{
    switch (p) {
    case Precision::FP32: return fp32;
    case Precision::TF32: return tf32;
    case Precision::FP16: return fp16;
    case Precision::BF16: return bf16;
    case Precision::FP16_FP16ACC: return fp16_fp16acc ? fp16_fp16acc : fp16;
    case Precision::FP8: return fp8;
    case Precision::INT8: return int8;
    }
    return std::nullopt;
}

bool GpuSpec::uncertain(std::string_view field) const
{
    return std::find(uncertain_fields.begin(), uncertain_fields.end(), field) != uncertain_fields.end();
}

std::string GpuSpec::runtime_version() const
{
    if (!compute_version.empty())
        return compute_version;
    // "9.0", "10.0", "12.0": a CUDA compute capability reads as the runtime's major.minor.
    const auto dot = compute_capability.find('.');
    if (dot == std::string::npos || dot == 0 || dot + 1 >= compute_capability.size())
        return {};
    for (size_t i = 0; i < compute_capability.size(); ++i)
        if (i != dot && !std::isdigit(static_cast<unsigned char>(compute_capability[i])))
            return {};
    return compute_capability;
}

int32_t GpuSpec::expected_warp_size() const
{
    if (warp_size > 0)
        return warp_size;
    return vendor == "AMD" ? 64 : 32;
}

std::string normalize_gpu_name(std::string_view s)
{
    std::string out;
    for (char c : s) {
        if (c == ' ' || c == '-' || c == '_' || c == '(' || c == ')')
            continue;
        out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    return out;
}

namespace {

// Reads one row; `fields_set` receives the keys present so a user row can correct only those.
void read_row(const json& j, GpuSpec& s, const std::string& file, const std::string& where)
{
    auto num = [&](const char* key, double scale, double& dst) {
        if (!j.contains(key))
            return;
        const json& v = j.at(key);
        if (v.is_null()) {
            dst = 0;
            return;
        }
        if (!v.is_number() || v.get<double>() < 0)
            throw TraceError(file, where + "." + key, "a non-negative number", describe_json(v));
        dst = v.get<double>() * scale;
    };
    auto str = [&](const char* key, std::string& dst) {
        if (!j.contains(key))
            return;
        const json& v = j.at(key);
        if (v.is_null())
            return;
        if (!v.is_string())
            throw TraceError(file, where + "." + key, "a string", describe_json(v));
        dst = v.get<std::string>();
    };
    auto strs = [&](const char* key, std::vector<std::string>& dst) {
        if (!j.contains(key))
            return;
        const json& v = j.at(key);
        if (!v.is_array())
            throw TraceError(file, where + "." + key, "an array of strings", describe_json(v));
        dst.clear();
        for (const auto& e : v) {
            if (!e.is_string())
                throw TraceError(file, where + "." + key, "an array of strings", describe_json(e));
            dst.push_back(e.get<std::string>());
        }
    };
    str("name", s.name);
    str("vendor", s.vendor);
    str("arch", s.arch);
    str("compute_capability", s.compute_capability);
    strs("match", s.match);
    strs("aliases", s.aliases);
    strs("uncertain_fields", s.uncertain_fields);
    str("source", s.source);
    str("notes", s.notes);
    double sm = s.sm_count;
    num("sm_count", 1, sm);
    s.sm_count = static_cast<int32_t>(sm);
    num("boost_clock_mhz", 1e6, s.boost_clock_hz);
    num("mem_bw_gbs", 1e9, s.mem_bw_Bps);
    num("mem_gb", 1e9, s.mem_bytes);
    num("l2_mb", 1e6, s.l2_bytes);
    if (j.contains("checked_against_stored_source") && j.at("checked_against_stored_source").is_boolean())
        s.checked_against_stored_source = j.at("checked_against_stored_source").get<bool>();
    auto peaks = [&](const json& p, const std::string& at, GpuPeaks& dst) {
        if (!p.is_object())
            throw TraceError(file, at, "an object of TFLOPS per precision", describe_json(p));
        for (auto it = p.begin(); it != p.end(); ++it) {
            const auto prec = parse_precision(it.key());
            if (!prec)
                throw TraceError(file, at + "." + it.key(), "one of fp32, tf32, fp16, bf16, fp16_fp16acc, fp8, int8",
                                 it.key());
            std::optional<double> v;
            if (!it.value().is_null()) {
                if (!it.value().is_number() || it.value().get<double>() <= 0)
                    throw TraceError(file, at + "." + it.key(), "a positive number or null", describe_json(it.value()));
                v = it.value().get<double>() * 1e12;
            }
            switch (*prec) {
            case Precision::FP32: dst.fp32 = v; break;
            case Precision::TF32: dst.tf32 = v; break;
            case Precision::FP16: dst.fp16 = v; break;
            case Precision::BF16: dst.bf16 = v; break;
            case Precision::FP16_FP16ACC: dst.fp16_fp16acc = v; break;
            case Precision::FP8: dst.fp8 = v; break;
            case Precision::INT8: dst.int8 = v; break;
            }
        }
    };
    if (j.contains("peaks_tflops_dense"))
        peaks(j.at("peaks_tflops_dense"), where + ".peaks_tflops_dense", s.peaks);
    str("compute_version", s.compute_version);
    if (!s.compute_version.empty() && !Regex(R"(\d+\.\d+)").full_match(s.compute_version))
        throw TraceError(file, where + ".compute_version", "the runtime's major.minor, e.g. \"9.4\"", s.compute_version);
    num("min_kernel_us", 1e3, s.min_kernel_ns);
    str("min_kernel_source", s.min_kernel_source);
    if (s.min_kernel_ns > 0 && s.min_kernel_source.empty())
        throw TraceError(file, where + ".min_kernel_source", "where min_kernel_us came from (a measurement, a source)",
                         "none");
    double warp = s.warp_size;
    num("warp_size", 1, warp);
    if (warp != 0 && warp != 32 && warp != 64)
        throw TraceError(file, where + ".warp_size", "32 or 64", describe_json(j.at("warp_size")));
    s.warp_size = static_cast<int32_t>(warp);
    // "achievable": {"peaks_tflops_dense": {...}, "mem_bw_gbs": N, "source": "..."}: the vendor's measured peaks.
    if (j.contains("achievable") && !j.at("achievable").is_null()) {
        const json& a = j.at("achievable");
        const std::string at = where + ".achievable";
        if (!a.is_object())
            throw TraceError(file, at, "an object {peaks_tflops_dense, mem_bw_gbs, source}", describe_json(a));
        if (!a.contains("source") || !a.at("source").is_string() || a.at("source").get<std::string>().empty())
            throw TraceError(file, at + ".source", "the source of the achievable figures", "none");
        s.achievable_source = a.at("source").get<std::string>();
        if (a.contains("peaks_tflops_dense"))
            peaks(a.at("peaks_tflops_dense"), at + ".peaks_tflops_dense", s.achievable);
        if (a.contains("mem_bw_gbs") && !a.at("mem_bw_gbs").is_null()) {
            const json& v = a.at("mem_bw_gbs");
            if (!v.is_number() || v.get<double>() <= 0)
                throw TraceError(file, at + ".mem_bw_gbs", "a positive number or null", describe_json(v));
            s.achievable_mem_bw_Bps = v.get<double>() * 1e9;
        }
    }
    for (const auto& pat : s.match) {
        try {
            Regex re(pat, Regex::Options{.icase = true});
        } catch (const RegexError& e) {
            throw TraceError(file, where + ".match", kRegexExpected, e.what());
        }
    }
}

bool pattern_matches(const GpuSpec& s, std::string_view text)
{
    for (const auto& pat : s.match) {
        try {
            if (Regex(pat, Regex::Options{.icase = true}).search(text))
                return true;
        } catch (const RegexError&) {
            // A pattern of a row that was not validated by the loader (a GpuSpec built in code) matches nothing.
        }
    }
    return false;
}

} // namespace

GpuDatabase GpuDatabase::load_default() { return load(resource_path("gpus.json")); }

GpuDatabase GpuDatabase::load(const std::string& path)
{
    GpuDatabase db;
    const std::string text = read_input_file(path, InputKind::DataFile, "a readable GPU spec file (gpus.json)");
    db.merge_json(parse_json_input(text, path), path);   // rows keep their file order
    return db;
}

void GpuDatabase::merge_file(const std::string& path)
{
    const std::string text = read_input_file(path, InputKind::DataFile, "a readable GPU spec file");
    merge_json(parse_json_input(text, path), path);
}

void GpuDatabase::merge_json(const json& doc, const std::string& origin)
{
    const json* list = &doc;
    if (doc.is_object()) {
        if (!doc.contains("gpus"))
            throw TraceError(origin, "top level", "an object with a \"gpus\" array (or an array of rows)", "no \"gpus\"");
        list = &doc.at("gpus");
        if (doc.contains("default_min_kernel_us") && !doc.at("default_min_kernel_us").is_null()) {
            const json& v = doc.at("default_min_kernel_us");
            if (!v.is_number() || v.get<double>() <= 0)
                throw TraceError(origin, "default_min_kernel_us", "a positive number of microseconds", describe_json(v));
            if (!doc.contains("default_min_kernel_source") || !doc.at("default_min_kernel_source").is_string())
                throw TraceError(origin, "default_min_kernel_source", "where default_min_kernel_us came from", "none");
            default_min_kernel_ns_ = v.get<double>() * 1e3;
            default_min_kernel_source_ = doc.at("default_min_kernel_source").get<std::string>();
        }
    }
    if (!list->is_array())
        throw TraceError(origin, "gpus", "an array of GPU rows", list->type_name());
    std::vector<GpuSpec> added;
    for (size_t i = 0; i < list->size(); ++i) {
        const json& r = (*list)[i];
        const std::string where = "gpus[" + std::to_string(i) + "]";
        if (!r.is_object() || !r.contains("name") || !r.at("name").is_string() || r.at("name").get<std::string>().empty())
            throw TraceError(origin, where, "an object with a non-empty \"name\"", describe_json(r));
        const std::string name = r.at("name").get<std::string>();
        auto existing = std::find_if(rows_.begin(), rows_.end(), [&](const GpuSpec& s) {
            return normalize_gpu_name(s.name) == normalize_gpu_name(name);
        });
        if (existing != rows_.end()) {
            read_row(r, *existing, origin, where);   // corrects only the fields the user row sets
            existing->origin = origin;
        } else {
            GpuSpec s;
            read_row(r, s, origin, where);
            s.origin = origin;
            added.push_back(std::move(s));
        }
    }
    // New rows are tried first, in their file order.
    std::reverse(added.begin(), added.end());
    for (auto& s : added)
        rows_.insert(rows_.begin(), std::move(s));
}

const GpuSpec* GpuDatabase::find(std::string_view name) const
{
    const std::string n = normalize_gpu_name(name);
    if (n.empty())
        return nullptr;
    for (const auto& s : rows_) {
        if (normalize_gpu_name(s.name) == n)
            return &s;
        for (const auto& a : s.aliases)
            if (normalize_gpu_name(a) == n)
                return &s;
    }
    return match_device(name);
}

const GpuSpec* GpuDatabase::match_device(std::string_view device_name) const
{
    if (device_name.empty())
        return nullptr;
    for (const auto& s : rows_)
        if (pattern_matches(s, device_name))
            return &s;
    return nullptr;
}

namespace {

std::string gib_text(double bytes)
{
    char b[32];
    std::snprintf(b, sizeof b, "%.1f GiB", bytes / 1073741824.0);
    return b;
}

// Peaks and bandwidth agree within 2 %: two rows that fit the same device give the same roofs.
bool same_roofs(const GpuSpec& a, const GpuSpec& b)
{
    auto close = [](double x, double y) { return x > 0 && y > 0 ? std::fabs(x - y) <= 0.02 * std::max(x, y) : x == y; };
    auto close_opt = [&](const std::optional<double>& x, const std::optional<double>& y) {
        return x.has_value() == y.has_value() && (!x || close(*x, *y));
    };
    const GpuPeaks& p = a.peaks;
    const GpuPeaks& q = b.peaks;
    return close(a.mem_bw_Bps, b.mem_bw_Bps) && close_opt(p.fp32, q.fp32) && close_opt(p.tf32, q.tf32) &&
           close_opt(p.fp16, q.fp16) && close_opt(p.bf16, q.bf16) && close_opt(p.fp8, q.fp8) &&
           close_opt(p.int8, q.int8);
}

} // namespace

GpuIdentification GpuDatabase::identify(const DeviceInfo& d) const
{
    GpuIdentification id;
    if (const GpuSpec* s = match_device(d.name)) {
        id.spec = s;
        id.how = "name";
        id.summary = "trace device '" + d.name + "' -> " + s->name;
        id.evidence.push_back("name '" + d.name + "' matches row " + s->name);
        return id;
    }
    const std::string version =
        d.compute_major > 0 ? std::to_string(d.compute_major) + "." + std::to_string(d.compute_minor) : std::string();
    std::string have;
    if (!version.empty())
        have += "compute " + version;
    if (d.sm_count > 0)
        have += (have.empty() ? "" : ", ") + std::to_string(d.sm_count) + " SMs/CUs";
    if (d.total_memory_bytes > 0)
        have += (have.empty() ? "" : ", ") + gib_text(double(d.total_memory_bytes));
    if (d.warp_size > 0)
        have += (have.empty() ? "" : ", ") + std::string("warp ") + std::to_string(d.warp_size);
    const std::string named = d.name.empty() ? std::string("an unnamed device") : "device '" + d.name + "'";
    if (version.empty() || d.sm_count <= 0) {
        id.summary = named + ": no row matches its name, and the trace gives too few properties to identify it (" +
                     (have.empty() ? std::string("none") : have) + "; compute version and unit count are needed)";
        return id;
    }
    std::vector<const GpuSpec*> fit;
    for (const auto& s : rows_) {
        if (s.runtime_version() != version || s.sm_count != d.sm_count)
            continue;
        if (d.warp_size > 0 && s.expected_warp_size() != d.warp_size)
            continue;
        if (d.total_memory_bytes > 0 && s.mem_bytes > 0) {
            // Rows give memory in the vendor's round figure (80, 141, 192): GiB in practice; the device reports a
            // little less (reserved memory), never more.
            const double ratio = double(d.total_memory_bytes) / (s.mem_bytes / 1e9 * 1073741824.0);
            if (ratio < 0.90 || ratio > 1.03)
                continue;
        }
        fit.push_back(&s);
    }
    if (fit.empty()) {
        id.summary = named + ": no row matches its name or its properties (" + have + ")";
        return id;
    }
    for (const GpuSpec* s : fit)
        id.candidates.push_back(s->name);
    const GpuSpec& f = *fit.front();
    id.evidence.push_back("compute " + version + " = " + f.name + "'s " + f.runtime_version() +
                          (f.compute_capability != f.runtime_version() && !f.compute_capability.empty()
                               ? " (" + f.compute_capability + ")"
                               : std::string()));
    id.evidence.push_back(std::to_string(d.sm_count) + (f.vendor == "AMD" ? " compute units" : " SMs") + " = " +
                          f.name + "'s " + std::to_string(f.sm_count));
    if (d.total_memory_bytes > 0 && f.mem_bytes > 0)
        id.evidence.push_back(gib_text(double(d.total_memory_bytes)) + " of memory ~ " + f.name + "'s " +
                              std::to_string(static_cast<int64_t>(std::lround(f.mem_bytes / 1e9))) + " GB");
    if (d.warp_size > 0)
        id.evidence.push_back("warp " + std::to_string(d.warp_size) + " = " + f.vendor + "'s");
    bool same = true;
    for (size_t i = 1; i < fit.size(); ++i)
        same = same && same_roofs(f, *fit[i]);
    if (!same) {
        std::string list;
        for (const GpuSpec* s : fit)
            list += (list.empty() ? "" : ", ") + s->name;
        id.summary = named + ": its properties (" + have + ") fit " + list +
                     ", whose peaks differ: not guessed (pass --gpu NAME)";
        id.evidence.push_back("rows that fit with different peaks: " + list);
        return id;
    }
    id.spec = &f;
    id.how = "properties";
    id.summary = named + " identified by its properties (" + have + ") -> " + f.name;
    if (fit.size() > 1) {
        std::string others;
        for (size_t i = 1; i < fit.size(); ++i)
            others += (others.empty() ? "" : ", ") + fit[i]->name;
        id.summary += " (or " + others + ": same peaks)";
        id.evidence.push_back("also fits " + others + ", with the same peaks and bandwidth");
    }
    return id;
}

std::vector<std::string> GpuDatabase::names() const
{
    std::vector<std::string> out;
    for (const auto& s : rows_)
        out.push_back(s.name);
    return out;
}

GpuSpec spec_from_device(const DeviceInfo& d)
{
    GpuSpec s;
    s.name = d.name.empty() ? "GPU " + std::to_string(d.id) : d.name;
    s.sm_count = d.sm_count;
    s.mem_bw_Bps = d.memory_bandwidth_Bps;
    s.boost_clock_hz = static_cast<double>(d.clock_hz);
    s.mem_bytes = static_cast<double>(d.total_memory_bytes);
    s.l2_bytes = static_cast<double>(d.l2_cache_bytes);
    if (d.compute_major > 0)
        s.compute_capability = std::to_string(d.compute_major) + "." + std::to_string(d.compute_minor);
    s.arch = d.chip;
    s.warp_size = d.warp_size == 32 || d.warp_size == 64 ? d.warp_size : 0;
    s.source = "the trace's own device record";
    s.from_trace = true;
    return s;
}

namespace {

// A row without its own minimum kernel duration takes the database's default, marked as assumed.
void assume_min_kernel(const GpuDatabase& db, GpuSpec& s)
{
    if (s.min_kernel_ns > 0 || db.default_min_kernel_ns() <= 0)
        return;
    s.min_kernel_ns = db.default_min_kernel_ns();
    s.min_kernel_source = db.default_min_kernel_source();
    s.min_kernel_assumed = true;
}

GpuResolution resolve_gpu_row(const GpuDatabase& db, const std::string& override_name, const DeviceInfo* device);

} // namespace

GpuResolution resolve_gpu(const GpuDatabase& db, const std::string& override_name, const DeviceInfo* device)
{
    GpuResolution r = resolve_gpu_row(db, override_name, device);
    assume_min_kernel(db, r.spec);
    return r;
}

namespace {

GpuResolution resolve_gpu_row(const GpuDatabase& db, const std::string& override_name, const DeviceInfo* device)
{
    GpuResolution r;
    auto note_uncertain = [&](const GpuSpec& s) {
        if (!s.uncertain_fields.empty()) {
            std::string f;
            for (const auto& u : s.uncertain_fields)
                f += (f.empty() ? "" : ", ") + u;
            r.warnings.push_back("GPU spec row '" + s.name + "' has uncertain fields: " + f);
        }
    };
    if (!override_name.empty()) {
        const GpuSpec* s = db.find(override_name);
        if (!s) {
            std::string known;
            for (const auto& n : db.names())
                known += (known.empty() ? "" : ", ") + n;
            throw TraceError("--gpu", "", "a GPU from the spec database (" + known + ")", "'" + override_name + "'");
        }
        r.spec = *s;
        r.known = true;
        r.identified_by = "option";
        r.how = "--gpu " + override_name + " -> " + s->name;
        note_uncertain(*s);
        return r;
    }
    if (!device)
        throw TraceError("--gpu", "", "a GPU name (no trace device to match)", "nothing");
    const GpuIdentification id = db.identify(*device);
    r.evidence = id.evidence;
    if (!device->properties_from.empty())
        r.evidence.push_back("properties: " + device->properties_from);
    if (id.spec) {
        r.spec = *id.spec;
        r.known = true;
        r.identified_by = id.how;
        r.how = id.summary;
        note_uncertain(*id.spec);
        return r;
    }
    r.spec = spec_from_device(*device);
    r.known = false;
    r.how = "unknown GPU '" + (device->name.empty() ? std::string("(unnamed)") : device->name) +
            "': using the trace's own device record (" + id.summary + ")";
    std::string have;
    if (device->sm_count > 0)
        have += "SM count";
    if (device->memory_bandwidth_Bps > 0)
        have += std::string(have.empty() ? "" : ", ") + "memory bandwidth";
    if (device->clock_hz > 0)
        have += std::string(have.empty() ? "" : ", ") + "clock";
    r.warnings.push_back("GPU '" + device->name + "' is not in the spec database; " +
                         (have.empty() ? std::string("the trace gives no specs either") : "the trace gives " + have) +
                         "; peak FLOP/s are unknown (pass --gpu NAME or add a row with --gpu-file)");
    return r;
}

} // namespace

} // namespace sl
