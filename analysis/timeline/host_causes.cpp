#include "analysis/timeline/host_causes.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <map>
#include <tuple>

#include <nlohmann/json.hpp>

#include "analysis/io/input_bounds.h"
#include "analysis/io/json_input.h"
#include "analysis/io/resources.h"
#include "analysis/trace/errors.h"

namespace sl {

namespace {

std::string lower(std::string_view s)
{
    std::string r(s);
    for (char& c : r)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return r;
}

using Iv = std::pair<int64_t, int64_t>;

// Sorted, disjoint union of intervals.
std::vector<Iv> merged(std::vector<Iv> v)
{
    std::sort(v.begin(), v.end());
    std::vector<Iv> m;
    for (const auto& x : v) {
        if (x.second <= x.first)
            continue;
        if (!m.empty() && x.first <= m.back().second)
            m.back().second = std::max(m.back().second, x.second);
        else
            m.push_back(x);
    }
    return m;
}

// a - b, both sorted and disjoint.
std::vector<Iv> minus(const std::vector<Iv>& a, const std::vector<Iv>& b)
{
    std::vector<Iv> out;
    size_t j = 0;
    for (auto [s, e] : a) {
        while (j < b.size() && b[j].second <= s)
            ++j;
        size_t k = j;
        while (k < b.size() && b[k].first < e) {
            if (b[k].first > s)
                out.emplace_back(s, b[k].first);
            s = std::max(s, b[k].second);
            if (s >= e)
                break;
            ++k;
        }
        if (s < e)
            out.emplace_back(s, e);
    }
    return out;
}

int64_t length(const std::vector<Iv>& v)
{
    int64_t n = 0;
    for (const auto& [s, e] : v)
        n += e - s;
    return n;
}

const char* range_source(RangeKind k)
{
    switch (k) {
    case RangeKind::PushPop:
    case RangeKind::StartEnd: return "nvtx";
    case RangeKind::UserAnnotation: return "annotation";
    case RangeKind::CpuOp: return "cpu_op";
    case RangeKind::PyModule:
    case RangeKind::PythonFunction: return "python";
    }
    return "nvtx";
}

} // namespace

HostCausePatterns HostCausePatterns::from_json(const nlohmann::json& doc, const std::string& source)
{
    HostCausePatterns p;
    p.source_ = source;
    if (!doc.is_object() || !doc.contains("causes") || !doc["causes"].is_array())
        throw TraceError(source, "top level", "an object with a \"causes\" array",
                         doc.is_object() ? "no causes" : "not an object");
    if (!doc.contains("patterns") || !doc["patterns"].is_array())
        throw TraceError(source, "top level", "a \"patterns\" array", "none");
    size_t i = 0;
    for (const auto& c : doc["causes"]) {
        const std::string where = "causes[" + std::to_string(i++) + "]";
        if (!c.is_object() || !c.contains("id") || !c["id"].is_string() || c["id"].get<std::string>().empty())
            throw TraceError(source, where, "an object with a non-empty string \"id\"", describe_json(c));
        Cause cause;
        cause.id = c["id"].get<std::string>();
        cause.label = c.value("label", cause.id);
        cause.label_zh_CN = c.value("label_zh_CN", cause.label);
        for (const auto& other : p.causes_)
            if (other.id == cause.id)
                throw TraceError(source, where, "a cause id not listed before", cause.id);
        p.causes_.push_back(std::move(cause));
    }
    i = 0;
    for (const auto& j : doc["patterns"]) {
        const std::string where = "patterns[" + std::to_string(i++) + "]";
        if (!j.is_object() || !j.contains("cause") || !j["cause"].is_string() || !j.contains("match") ||
            !j["match"].is_string())
            throw TraceError(source, where, "an object with string \"cause\" and \"match\"", describe_json(j));
        Pattern pat;
        const std::string cause = j["cause"].get<std::string>();
        pat.cause = -1;
        for (size_t c = 0; c < p.causes_.size(); ++c)
            if (p.causes_[c].id == cause)
                pat.cause = static_cast<int>(c);
        if (pat.cause < 0)
            throw TraceError(source, where, "a cause listed under \"causes\"", cause);
        pat.text = j["match"].get<std::string>();
        if (pat.text.empty())
            throw TraceError(source, where, "a non-empty \"match\"", "\"\"");
        const std::string on = j.value("on", std::string("range"));
        pat.on_ranges = on == "range" || on == "both";
        pat.on_api = on == "api" || on == "both";
        if (!pat.on_ranges && !pat.on_api)
            throw TraceError(source, where, "\"on\": range, api or both", on);
        const std::string kind = j.value("kind", std::string("contains"));
        if (kind == "regex") {
            pat.regex = true;
            try {
                pat.re = Regex(pat.text, Regex::Options{.icase = true});
            } catch (const RegexError& e) {
                throw TraceError(source, where, kRegexExpected, e.what());
            }
        } else if (kind != "contains") {
            throw TraceError(source, where, "kind contains|regex", kind);
        }
        pat.lower = lower(pat.text);
        p.patterns_.push_back(std::move(pat));
    }
    return p;
}

HostCausePatterns HostCausePatterns::load_file(const std::string& path)
{
    const std::string text = read_input_file(path, InputKind::DataFile, "a readable host-causes JSON file");
    return from_json(parse_json_input(text, path), path);
}

HostCausePatterns HostCausePatterns::load(const std::string& user_file)
{
    return load_file(user_file.empty() ? resource_path("host_causes.json") : user_file);
}

int HostCausePatterns::classify(std::string_view name, bool api) const
{
    std::string low;
    for (const auto& p : patterns_) {
        if (api ? !p.on_api : !p.on_ranges)
            continue;
        bool hit = false;
        if (p.regex) {
            hit = p.re.search(name);
        } else {
            if (low.empty())
                low = lower(name);
            hit = low.find(p.lower) != std::string::npos;
        }
        if (hit)
            return p.cause;
    }
    return -1;
}

const HostCause* HostCauseResult::find(std::string_view id) const
{
    for (const auto& c : causes)
        if (c.id == id)
            return &c;
    return nullptr;
}

HostCauseResult find_host_causes(const Trace& t, const IdleResult& idle, const HostCausePatterns& pat,
                                 const HostCauseOptions& o)
{
    HostCauseResult r;
    r.source = pat.source();
    const size_t ncause = pat.causes().size();
    if (ncause == 0)
        return r;

    // Classify each distinct name once (ranges and API calls separately: one name may be both).
    std::vector<int8_t> range_cls(t.strings.size(), -2), api_cls(t.strings.size(), -2);
    auto cls_of = [&](std::vector<int8_t>& cache, StrId n, bool api) -> int {
        if (n >= cache.size())
            return pat.classify(t.str(n), api);
        if (cache[n] == -2)
            cache[n] = static_cast<int8_t>(std::min(pat.classify(t.str(n), api), 127));
        return cache[n];
    };
    auto rank_of_thread = [&](uint32_t th) -> int32_t {
        return th < t.meta.threads.size() ? t.meta.threads[th].rank : 0;
    };

    struct Ev {
        int64_t count = 0, total = 0, longest = -1, ls = 0, le = 0;
    };
    // (cause, source, name) -> evidence
    std::map<std::tuple<int, std::string, StrId>, Ev> evidence;
    // rank -> cause -> intervals
    std::map<int32_t, std::vector<std::vector<Iv>>> intervals;
    auto add = [&](int cause, int32_t rank, int64_t s, int64_t e, StrId name, const char* source) {
        if (e <= s)
            return;
        auto& per = intervals[rank];
        if (per.empty())
            per.resize(ncause);
        per[static_cast<size_t>(cause)].emplace_back(s, e);
        Ev& ev = evidence[{cause, source, name}];
        ev.count += 1;
        ev.total += e - s;
        if (e - s > ev.longest) {
            ev.longest = e - s;
            ev.ls = s;
            ev.le = e;
        }
    };
    const auto& R = t.ranges;
    for (size_t i = 0; i < R.size(); ++i) {
        // Python frames name code, not what the host is doing for the GPU (re.compile is no JIT compile): the
        // NVTX ranges, annotations and CPU ops around them do.
        if (R.kind[i] == RangeKind::PyModule || R.kind[i] == RangeKind::PythonFunction)
            continue;
        const int c = cls_of(range_cls, R.name[i], false);
        if (c >= 0)
            add(c, rank_of_thread(R.thread[i]), R.start[i], R.end[i], R.name[i], range_source(R.kind[i]));
    }
    const auto& A = t.api;
    // The first CUDA call of a process also creates its context (PyTorch's first cudaMalloc or cudaFree(0) takes
    // seconds for that): it is start-up, but not the cause its name says, so it is not counted.
    std::map<std::pair<int32_t, int64_t>, size_t> first_call;   // (rank, pid) -> API row
    for (size_t i = 0; i < A.size(); ++i) {
        const uint32_t th = A.thread[i];
        const std::pair<int32_t, int64_t> key{rank_of_thread(th), th < t.meta.threads.size() ? t.meta.threads[th].pid : 0};
        const auto it = first_call.find(key);
        if (it == first_call.end() || A.start[i] < A.start[it->second])
            first_call[key] = i;
    }
    std::vector<bool> is_first(A.size(), false);
    for (const auto& [key, row] : first_call)
        is_first[row] = true;
    for (size_t i = 0; i < A.size(); ++i) {
        const int c = cls_of(api_cls, A.name[i], true);
        if (c >= 0 && !is_first[i])
            add(c, rank_of_thread(A.thread[i]), A.start[i], A.end[i], A.name[i], "api");
    }
    if (intervals.empty())
        return r;

    // Host-wait gaps per device, in time order.
    std::map<uint16_t, std::vector<Iv>> host_gaps;
    for (const Gap& g : idle.gaps)
        if (g.cause == GapCause::HostWait && g.end > g.start)
            host_gaps[g.device].emplace_back(g.start, g.end);
    for (auto& [d, v] : host_gaps)
        std::sort(v.begin(), v.end());
    auto device_rank = [&](uint16_t d) -> int32_t { return d < t.meta.devices.size() ? t.meta.devices[d].rank : 0; };

    r.causes.resize(ncause);
    for (size_t c = 0; c < ncause; ++c) {
        r.causes[c].id = pat.causes()[c].id;
        r.causes[c].label = pat.causes()[c].label;
        r.causes[c].label_zh_CN = pat.causes()[c].label_zh_CN;
        r.causes[c].first_start = std::numeric_limits<int64_t>::max();
        r.causes[c].last_end = std::numeric_limits<int64_t>::min();
    }
    for (auto& [rank, per] : intervals) {
        int64_t first_gpu = std::numeric_limits<int64_t>::max();
        for (const auto& d : idle.devices)
            if (device_rank(d.device) == rank && d.ops > 0)
                first_gpu = std::min(first_gpu, d.first_start);
        std::vector<Iv> taken;   // union of the causes before this one (precedence)
        for (size_t c = 0; c < ncause; ++c) {
            const std::vector<Iv> u = merged(per[c]);
            if (u.empty())
                continue;
            const std::vector<Iv> mine = minus(u, taken);
            std::vector<Iv> all = taken;
            all.insert(all.end(), u.begin(), u.end());
            taken = merged(std::move(all));
            HostCause& hc = r.causes[c];
            hc.host_ns += length(mine);
            for (const auto& [s, e] : mine) {
                hc.first_start = std::min(hc.first_start, s);
                hc.last_end = std::max(hc.last_end, e);
                if (s < first_gpu)
                    hc.before_gpu_ns += std::min(e, first_gpu) - s;
            }
            // The device idle these host intervals cover: host-wait gaps of the rank's devices.
            for (const auto& [dev, gaps] : host_gaps) {
                if (device_rank(dev) != rank)
                    continue;
                size_t j = 0;
                for (const auto& [s, e] : mine) {
                    while (j < gaps.size() && gaps[j].second <= s)
                        ++j;
                    for (size_t k = j; k < gaps.size() && gaps[k].first < e; ++k) {
                        const int64_t a = std::max(s, gaps[k].first), b = std::min(e, gaps[k].second);
                        if (b > a) {
                            hc.idle_ns += b - a;
                            hc.covered.push_back({a, b, dev});
                        }
                    }
                }
            }
        }
    }
    for (auto& [key, ev] : evidence) {
        HostCause& hc = r.causes[static_cast<size_t>(std::get<0>(key))];
        HostCauseEvidence e;
        e.name = std::string(t.str(std::get<2>(key)));
        e.source = std::get<1>(key);
        e.count = ev.count;
        e.total_ns = ev.total;
        e.longest_start = ev.ls;
        e.longest_end = ev.le;
        hc.evidence.push_back(std::move(e));
    }
    std::vector<HostCause> kept;
    for (auto& hc : r.causes) {
        if (hc.host_ns <= 0)
            continue;
        std::sort(hc.evidence.begin(), hc.evidence.end(), [](const HostCauseEvidence& a, const HostCauseEvidence& b) {
            return a.total_ns != b.total_ns ? a.total_ns > b.total_ns : a.name < b.name;
        });
        if (hc.evidence.size() > o.max_evidence)
            hc.evidence.resize(o.max_evidence);
        std::sort(hc.covered.begin(), hc.covered.end(), [](const HostCausePiece& a, const HostCausePiece& b) {
            const int64_t x = a.end - a.start, y = b.end - b.start;
            return x != y ? x > y : a.start < b.start;
        });
        if (hc.covered.size() > o.max_links)
            hc.covered.resize(o.max_links);
        r.idle_ns += hc.idle_ns;
        kept.push_back(std::move(hc));
    }
    r.causes = std::move(kept);
    return r;
}

nlohmann::json host_causes_to_json(const HostCauseResult& r, int64_t origin)
{
    using nlohmann::json;
    json causes = json::array();
    for (const auto& c : r.causes) {
        json ev = json::array();
        for (const auto& e : c.evidence)
            ev.push_back(json{{"name", e.name},
                              {"source", e.source},
                              {"count", e.count},
                              {"total_ns", e.total_ns},
                              {"longest_start_ns", e.longest_start - origin},
                              {"longest_end_ns", e.longest_end - origin}});
        causes.push_back(json{{"id", c.id},
                              {"label", c.label},
                              {"label_zh_CN", c.label_zh_CN},
                              {"host_ns", c.host_ns},
                              {"idle_ns", c.idle_ns},
                              {"before_gpu_ns", c.before_gpu_ns},
                              {"first_start_ns", c.first_start - origin},
                              {"last_end_ns", c.last_end - origin},
                              {"evidence", ev}});
    }
    return json{{"source", r.source}, {"idle_ns", r.idle_ns}, {"causes", causes}};
}

} // namespace sl
