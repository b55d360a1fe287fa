#include "analysis/timeline/op_classes.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "analysis/io/input_bounds.h"
#include "analysis/io/json_input.h"
#include "analysis/trace/errors.h"
#include "analysis/io/resources.h"
#include "analysis/trace/cancel_point.h"

namespace sl {

static std::string lower(std::string_view s)
{
    std::string r(s);
    for (char& c : r)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return r;
}

OpClassifier OpClassifier::from_json(const nlohmann::json& doc, const std::string& source)
{
    OpClassifier c;
    c.source_ = source;
    if (!doc.is_object() || !doc.contains("classes") || !doc["classes"].is_array())
        throw TraceError(source, "top level", "an object with a \"classes\" array", doc.is_object() ? "no classes" : "not an object");
    if (!doc.contains("patterns") || !doc["patterns"].is_array())
        throw TraceError(source, "top level", "a \"patterns\" array", "none");
    size_t i = 0;
    for (const auto& cl : doc["classes"]) {
        if (!cl.is_object() || !cl.contains("id") || !cl["id"].is_string())
            throw TraceError(source, "classes[" + std::to_string(i) + "]", "an object with a string \"id\"", describe_json(cl));
        c.ids_.push_back(cl["id"].get<std::string>());
        c.labels_.push_back(cl.value("label", c.ids_.back()));
        c.labels_zh_.push_back(cl.value("label_zh_CN", c.labels_.back()));
        ++i;
    }
    if (c.class_index("other") < 0) {
        c.ids_.push_back("other");
        c.labels_.push_back("Other");
        c.labels_zh_.push_back("其他");
    }
    c.other_ = c.class_index("other");
    c.memcpy_ = c.class_index("memcpy_memset");
    c.comm_ = c.class_index("communication");
    i = 0;
    for (const auto& p : doc["patterns"]) {
        const std::string where = "patterns[" + std::to_string(i++) + "]";
        if (!p.is_object() || !p.contains("class") || !p.contains("match") || !p["class"].is_string() ||
            !p["match"].is_string())
            throw TraceError(source, where, "an object with string \"class\" and \"match\"", describe_json(p));
        Pattern pat;
        const std::string cls = p["class"].get<std::string>();
        pat.cls = c.class_index(cls);
        if (pat.cls < 0)
            throw TraceError(source, where, "a class listed under \"classes\"", cls);
        pat.text = p["match"].get<std::string>();
        if (pat.text.empty())
            throw TraceError(source, where, "a non-empty \"match\"", "\"\"");
        pat.framework = p.value("framework", std::string());
        const std::string kind = p.value("kind", std::string("contains"));
        if (kind == "contains")
            pat.kind = PatternKind::Contains;
        else if (kind == "prefix")
            pat.kind = PatternKind::Prefix;
        else if (kind == "regex")
            pat.kind = PatternKind::Regex;
        else
            throw TraceError(source, where, "kind contains|prefix|regex", kind);
        pat.lower = lower(pat.text);
        if (p.contains("after")) {
            if (!p["after"].is_string() || c.class_index(p["after"].get<std::string>()) < 0)
                throw TraceError(source, where, "\"after\": a class listed under \"classes\"", describe_json(p["after"]));
            pat.after = c.class_index(p["after"].get<std::string>());
            const nlohmann::json w = p.value("within", nlohmann::json(2));
            if (!w.is_number_integer() || w.get<int64_t>() < 1 || w.get<int64_t>() > 16)
                throw TraceError(source, where, "\"within\": an integer 1..16", describe_json(w));
            pat.within = static_cast<int>(w.get<int64_t>());
        }
        if (pat.kind == PatternKind::Regex) {
            try {
                pat.re = Regex(pat.text, Regex::Options{.icase = true});
            } catch (const RegexError& e) {
                throw TraceError(source, where, kRegexExpected, e.what());
            }
        }
        c.patterns_.push_back(std::move(pat));
    }
    return c;
}

OpClassifier OpClassifier::load_file(const std::string& path)
{
    const std::string text = read_input_file(path, InputKind::DataFile, "a readable kernel-classes JSON file");
    return from_json(parse_json_input(text, path), path);
}

OpClassifier OpClassifier::load(const std::string& user_file)
{
    return load_file(user_file.empty() ? resource_path("kernel_classes.json") : user_file);
}

int OpClassifier::class_index(std::string_view id) const
{
    for (size_t i = 0; i < ids_.size(); ++i)
        if (ids_[i] == id)
            return static_cast<int>(i);
    return -1;
}

bool OpClassifier::matches(size_t i, std::string_view name) const
{
    if (i >= patterns_.size())
        return false;
    const Pattern& p = patterns_[i];
    const std::string low = lower(name);
    std::string_view base = low;
    if (base.substr(0, 5) == "void ")
        base.remove_prefix(5);
    switch (p.kind) {
    case PatternKind::Contains: return low.find(p.lower) != std::string::npos;
    case PatternKind::Prefix: return base.substr(0, p.lower.size()) == p.lower;
    case PatternKind::Regex: return p.re.search(name);
    }
    return false;
}

OpClassifier::Match OpClassifier::classify(std::string_view name) const
{
    const std::string low = lower(name);
    std::string_view base = low;
    if (base.substr(0, 5) == "void ")
        base.remove_prefix(5);
    for (size_t i = 0; i < patterns_.size(); ++i) {
        const Pattern& p = patterns_[i];
        if (p.after >= 0)   // a sequence pattern: per kernel, in classify_ops
            continue;
        bool hit = false;
        switch (p.kind) {
        case PatternKind::Contains: hit = low.find(p.lower) != std::string::npos; break;
        case PatternKind::Prefix: hit = base.substr(0, p.lower.size()) == p.lower; break;
        case PatternKind::Regex: hit = p.re.search(name); break;
        }
        if (hit)
            return {p.cls, static_cast<int>(i)};
    }
    return {other_, -1};
}

bool runs_once_per_layer(int64_t launches, int64_t attention_launches, int64_t gemm_launches)
{
    if (launches <= 0)
        return false;
    if (attention_launches > 0)
        return 2 * launches >= attention_launches;
    return gemm_launches > 0 && 8 * launches > gemm_launches;
}

OpClassResult classify_ops(const Trace& t, const OpClassifier& c, const OpClassOptions& o)
{
    OpClassResult r;
    r.source = c.source();
    const auto& ids = c.class_ids();
    r.classes.resize(ids.size());
    for (size_t i = 0; i < ids.size(); ++i) {
        r.classes[i].id = ids[i];
        r.classes[i].label = c.class_labels()[i];
        r.classes[i].label_zh_CN = c.class_labels_zh_CN()[i];
    }
    const auto& k = t.kernels;
    // Dense per-StrId slot: -1 = not seen yet, else index into r.names.
    std::vector<int32_t> slot(t.strings.size(), -1);
    r.kernel_class.resize(k.size());
    for (size_t i = 0; i < k.size(); ++i) {
        cancel_point(i);
        const StrId n = k.name[i];
        int32_t s = n < slot.size() ? slot[n] : -1;
        if (s < 0) {
            const auto m = c.classify(t.str(n));
            NameClass nc;
            nc.name = n;
            nc.cls = m.cls;
            nc.pattern = m.pattern;
            s = static_cast<int32_t>(r.names.size());
            r.names.push_back(nc);
            if (n < slot.size())
                slot[n] = s;
        }
        NameClass& nc = r.names[static_cast<size_t>(s)];
        const int64_t d = k.end[i] - k.start[i];
        nc.time_ns += d;
        nc.count += 1;
        r.kernel_class[i] = static_cast<int16_t>(nc.cls);
        r.kernel_time_ns += d;
    }
    // A top-k that runs once per layer is a MoE router, not the sampler (which runs once per step): a kernel name of
    // the sampling class launched at least half as often as the attention kernels goes to moe_routing. The real
    // MoE decode sample's router (gatherTopK, bitonicSortKVInPlace: 64 launches beside 64 attention kernels) was
    // counted as sampling; its argmax (16, one per step) stays.
    const int sampling = c.class_index("sampling"), attention = c.class_index("attention"),
              routing = c.class_index("moe_routing");
    if (sampling >= 0 && attention >= 0 && routing >= 0) {
        int64_t attention_kernels = 0;
        for (const auto& nc : r.names)
            attention_kernels += nc.cls == attention ? nc.count : 0;
        std::vector<uint8_t> moved(r.names.size(), 0);
        bool any = false;
        for (size_t j = 0; j < r.names.size(); ++j)
            if (r.names[j].cls == sampling && runs_once_per_layer(r.names[j].count, attention_kernels, 0)) {
                r.names[j].cls = routing;
                moved[j] = 1;
                any = true;
            }
        if (any)
            for (size_t i = 0; i < k.size(); ++i) {
                cancel_point(i);
                const StrId n = k.name[i];
                if (n < slot.size() && slot[n] >= 0 && moved[static_cast<size_t>(slot[n])])
                    r.kernel_class[i] = static_cast<int16_t>(routing);
            }
    }
    // Sequence patterns: a kernel of a name a sequence pattern matches goes to the pattern's class when one of the
    // `within` kernels before it on its stream (device, stream; start order) is of class `after`.
    struct Moved {
        int64_t ns = 0, count = 0;
        std::set<StrId> names;
    };
    std::map<std::pair<int, int>, Moved> moved_by;   // (from, to) class
    {
        std::vector<int> seq(r.names.size(), -1);
        bool any = false;
        const auto& pats = c.patterns();
        for (size_t j = 0; j < r.names.size(); ++j)
            for (size_t pi = 0; pi < pats.size(); ++pi)
                if (pats[pi].after >= 0 && pats[pi].cls != r.names[j].cls && c.matches(pi, t.str(r.names[j].name))) {
                    seq[j] = static_cast<int>(pi);
                    any = true;
                    break;
                }
        if (any) {
            std::vector<uint32_t> order(k.size());
            for (size_t i = 0; i < k.size(); ++i)
                order[i] = static_cast<uint32_t>(i);
            std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
                if (k.device[a] != k.device[b]) return k.device[a] < k.device[b];
                if (k.stream[a] != k.stream[b]) return k.stream[a] < k.stream[b];
                return k.start[a] < k.start[b];
            });
            std::vector<int16_t> recent;   // classes of the last kernels on the current stream, newest last
            for (size_t o = 0; o < order.size(); ++o) {
                const uint32_t i = order[o];
                if (o > 0 && (k.device[i] != k.device[order[o - 1]] || k.stream[i] != k.stream[order[o - 1]]))
                    recent.clear();
                const StrId n = k.name[i];
                const int32_t sl = n < slot.size() ? slot[n] : -1;
                const int16_t before = r.kernel_class[i];
                if (sl >= 0 && seq[static_cast<size_t>(sl)] >= 0) {
                    const auto& p = pats[static_cast<size_t>(seq[static_cast<size_t>(sl)])];
                    const size_t w = std::min(recent.size(), static_cast<size_t>(p.within));
                    for (size_t b = recent.size() - w; b < recent.size(); ++b)
                        if (recent[b] == p.after) {
                            r.kernel_class[i] = static_cast<int16_t>(p.cls);
                            Moved& m = moved_by[{before, p.cls}];
                            m.ns += k.end[i] - k.start[i];
                            m.count += 1;
                            m.names.insert(n);
                            break;
                        }
                }
                recent.push_back(before);   // the name's class: a moved mul does not make the next one move
                if (recent.size() > 16)
                    recent.erase(recent.begin());
            }
        }
    }
    for (const auto& nc : r.names) {
        auto& ct = r.classes[static_cast<size_t>(nc.cls)];
        ct.time_ns += nc.time_ns;
        ct.count += nc.count;
        ct.distinct_names += 1;
        if (nc.pattern < 0)
            r.unmatched.push_back(nc);
    }
    for (const auto& [fromto, m] : moved_by) {
        auto& from = r.classes[static_cast<size_t>(fromto.first)];
        auto& to = r.classes[static_cast<size_t>(fromto.second)];
        from.time_ns -= m.ns;
        from.count -= m.count;
        to.time_ns += m.ns;
        to.count += m.count;
        to.distinct_names += static_cast<int64_t>(m.names.size());
    }
    if (c.memcpy_index() >= 0) {
        auto& ct = r.classes[static_cast<size_t>(c.memcpy_index())];
        for (size_t i = 0; i < t.memcpy.size(); ++i)
            ct.time_ns += t.memcpy.end[i] - t.memcpy.start[i];
        for (size_t i = 0; i < t.memset.size(); ++i)
            ct.time_ns += t.memset.end[i] - t.memset.start[i];
        ct.count += static_cast<int64_t>(t.memcpy.size() + t.memset.size());
    }
    auto by_time = [](const NameClass& a, const NameClass& b) {
        return a.time_ns != b.time_ns ? a.time_ns > b.time_ns : a.name < b.name;
    };
    std::sort(r.names.begin(), r.names.end(), by_time);
    std::sort(r.unmatched.begin(), r.unmatched.end(), by_time);
    r.unmatched_names_total = static_cast<int64_t>(r.unmatched.size());
    if (r.unmatched.size() > o.max_unmatched_names)
        r.unmatched.resize(o.max_unmatched_names);
    return r;
}

} // namespace sl
