#include "analysis/roofline/gpu_specs.h"

#include "analysis/io/input_bounds.h"
#include "analysis/trace/errors.h"
#include "analysis/io/resources.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <regex>

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
    if (j.contains("peaks_tflops_dense")) {
        const json& p = j.at("peaks_tflops_dense");
        if (!p.is_object())
            throw TraceError(file, where + ".peaks_tflops_dense", "an object of TFLOPS per precision", describe_json(p));
        for (auto it = p.begin(); it != p.end(); ++it) {
            const auto prec = parse_precision(it.key());
            if (!prec)
                throw TraceError(file, where + ".peaks_tflops_dense." + it.key(),
                                 "one of fp32, tf32, fp16, bf16, fp16_fp16acc, fp8, int8", it.key());
            std::optional<double> v;
            if (!it.value().is_null()) {
                if (!it.value().is_number() || it.value().get<double>() <= 0)
                    throw TraceError(file, where + ".peaks_tflops_dense." + it.key(), "a positive number or null",
                                     describe_json(it.value()));
                v = it.value().get<double>() * 1e12;
            }
            switch (*prec) {
            case Precision::FP32: s.peaks.fp32 = v; break;
            case Precision::TF32: s.peaks.tf32 = v; break;
            case Precision::FP16: s.peaks.fp16 = v; break;
            case Precision::BF16: s.peaks.bf16 = v; break;
            case Precision::FP16_FP16ACC: s.peaks.fp16_fp16acc = v; break;
            case Precision::FP8: s.peaks.fp8 = v; break;
            case Precision::INT8: s.peaks.int8 = v; break;
            }
        }
    }
    for (const auto& pat : s.match) {
        try {
            std::regex re(pat, std::regex::ECMAScript | std::regex::icase);
        } catch (const std::regex_error&) {
            throw TraceError(file, where + ".match", "a valid regular expression", pat);
        }
    }
}

bool pattern_matches(const GpuSpec& s, std::string_view text)
{
    const std::string t(text);
    for (const auto& pat : s.match) {
        std::regex re(pat, std::regex::ECMAScript | std::regex::icase);
        if (std::regex_search(t, re))
            return true;
    }
    return false;
}

} // namespace

GpuDatabase GpuDatabase::load_default() { return load(resource_path("gpus.json")); }

GpuDatabase GpuDatabase::load(const std::string& path)
{
    GpuDatabase db;
    const std::string text = read_input_file(path, InputKind::DataFile, "a readable GPU spec file (gpus.json)");
    json doc;
    try {
        doc = json::parse(text);
    } catch (const json::parse_error& e) {
        throw TraceError(path, "byte " + std::to_string(e.byte), "valid JSON", e.what());
    } catch (const json::exception& e) {
        throw TraceError(path, "", "valid JSON with finite numbers", e.what());
    }
    db.merge_json(doc, path);   // rows keep their file order
    return db;
}

void GpuDatabase::merge_file(const std::string& path)
{
    const std::string text = read_input_file(path, InputKind::DataFile, "a readable GPU spec file");
    json doc;
    try {
        doc = json::parse(text);
    } catch (const json::parse_error& e) {
        throw TraceError(path, "byte " + std::to_string(e.byte), "valid JSON", e.what());
    } catch (const json::exception& e) {
        throw TraceError(path, "", "valid JSON with finite numbers", e.what());
    }
    merge_json(doc, path);
}

void GpuDatabase::merge_json(const json& doc, const std::string& origin)
{
    const json* list = &doc;
    if (doc.is_object()) {
        if (!doc.contains("gpus"))
            throw TraceError(origin, "top level", "an object with a \"gpus\" array (or an array of rows)", "no \"gpus\"");
        list = &doc.at("gpus");
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
    s.source = "the trace's own device record";
    s.from_trace = true;
    return s;
}

GpuResolution resolve_gpu(const GpuDatabase& db, const std::string& override_name, const DeviceInfo* device)
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
        r.how = "--gpu " + override_name + " -> " + s->name;
        note_uncertain(*s);
        return r;
    }
    if (!device)
        throw TraceError("--gpu", "", "a GPU name (no trace device to match)", "nothing");
    if (const GpuSpec* s = db.match_device(device->name)) {
        r.spec = *s;
        r.known = true;
        r.how = "trace device '" + device->name + "' -> " + s->name;
        note_uncertain(*s);
        return r;
    }
    r.spec = spec_from_device(*device);
    r.known = false;
    r.how = "unknown GPU '" + (device->name.empty() ? std::string("(unnamed)") : device->name) +
            "': using the trace's own device record";
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

} // namespace sl
