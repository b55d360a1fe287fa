#include "analysis/diagnosis/ncu_target.h"

#include <algorithm>
#include <map>
#include <set>

#include "analysis/roofline/roofline.h"

namespace sl {

namespace {

// The first steady (not warm-up) step of the phase: decode unless phase is "prefill".
const StepInfo* steady_step(const AnalysisResult& a, std::string_view phase)
{
    const bool prefill = phase == "prefill";
    for (const StepInfo& st : a.phases.steps)
        if (st.prefill == prefill && !st.warmup)
            return &st;
    return nullptr;
}

// Index of the step whose window holds t, or -1. Steps are in time order.
int64_t step_of(const std::vector<StepInfo>& steps, int64_t t)
{
    auto it = std::upper_bound(steps.begin(), steps.end(), t, [](int64_t v, const StepInfo& s) { return v < s.start; });
    if (it == steps.begin())
        return -1;
    --it;
    return t < it->end ? int64_t(it - steps.begin()) : -1;
}

} // namespace

std::string ncu_regex_escape(std::string_view s)
{
    std::string out;
    for (char c : s) {
        if (std::string_view("\\^$.|?*+()[]{}").find(c) != std::string_view::npos)
            out += '\\';
        out += c;
    }
    return out;
}

std::string ncu_base_name(std::string_view kernel_name)
{
    std::string base = kernel_base_name(kernel_name);
    if (const auto colons = base.rfind("::"); colons != std::string::npos)
        base = base.substr(colons + 2);
    return base;
}

std::string NcuTarget::ncu_args() const
{
    if (regex.empty())
        return {};
    // Single quotes protect the regex from the shell; a quote inside a name is closed, escaped and reopened.
    std::string quoted;
    for (char c : regex)
        quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return "-k regex:'" + quoted + "' --launch-skip " + std::to_string(launch_skip) + " --launch-count " +
           std::to_string(launch_count);
}

std::string kernel_include_regex(const std::vector<std::string>& base_names)
{
    std::string re;
    for (const std::string& n : base_names) {
        if (n.empty())
            continue;
        if (!re.empty())
            re += '|';
        re += ncu_regex_escape(n);
    }
    if (re.empty())
        return {};
    std::string quoted = "'(";
    for (char c : re)
        quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return quoted + ")'";
}

std::string NcuTarget::include_regex() const { return kernel_include_regex(names); }

NcuTarget ncu_target(const Trace& tr, const AnalysisResult& a, const std::vector<StrId>& names, std::string_view phase)
{
    NcuTarget t;
    std::set<std::string> seen;
    std::set<StrId> ids;
    for (StrId id : names) {
        ids.insert(id);
        std::string base = ncu_base_name(tr.str(id));
        if (!base.empty() && seen.insert(base).second)
            t.names.push_back(base);
    }
    if (t.names.empty())
        return t;
    std::string alt;
    for (const auto& n : t.names) {
        if (!alt.empty())
            alt += '|';
        alt += ncu_regex_escape(n);
    }
    t.regex = "^(.*::)?(" + alt + ")$";
    // ncu counts launches that match the filter, i.e. every kernel whose base name is one of `names` (also other
    // full names sharing a base name).
    const StepInfo* steady = steady_step(a, phase);
    std::vector<int8_t> matches(tr.strings.size(), -1);   // per StrId: -1 not looked at yet, 0 / 1
    int64_t before = 0, in_step = 0, total = 0;
    for (size_t i = 0; i < tr.kernels.size(); ++i) {
        const StrId id = tr.kernels.name[i];
        if (id >= matches.size())
            continue;
        if (matches[id] < 0)
            matches[id] = ids.count(id) || seen.count(ncu_base_name(tr.str(id)));
        if (!matches[id])
            continue;
        ++total;
        if (steady && tr.kernels.start[i] < steady->start)
            ++before;
        else if (steady && tr.kernels.start[i] < steady->end)
            ++in_step;
    }
    t.launch_skip = before;
    t.launch_count =
        std::clamp<int64_t>(in_step > 0 ? in_step : std::min<int64_t>(total, int64_t(t.names.size())), 1, 200);
    return t;
}

NcuTarget ncu_target_for_class(const Trace& tr, const AnalysisResult& a, std::string_view class_id,
                               std::string_view phase, size_t max_names)
{
    int16_t cls = -1;
    for (size_t c = 0; c < a.classes.classes.size(); ++c)
        if (a.classes.classes[c].id == class_id)
            cls = int16_t(c);
    if (cls < 0 || a.classes.kernel_class.size() != tr.kernels.size())
        return {};
    const bool any_phase = phase.empty();
    const bool want_prefill = phase == "prefill";
    std::map<StrId, int64_t> time_of;
    for (size_t i = 0; i < tr.kernels.size(); ++i) {
        if (a.classes.kernel_class[i] != cls)
            continue;
        if (!any_phase) {
            const int64_t s = step_of(a.phases.steps, tr.kernels.start[i]);
            if (s < 0 || a.phases.steps[size_t(s)].prefill != want_prefill)
                continue;
        }
        time_of[tr.kernels.name[i]] += tr.kernels.end[i] - tr.kernels.start[i];
    }
    std::vector<std::pair<int64_t, StrId>> by_time;
    for (const auto& [id, ns] : time_of)
        by_time.push_back({ns, id});
    std::sort(by_time.begin(), by_time.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
    std::vector<StrId> names;
    std::set<std::string> bases;
    for (const auto& [ns, id] : by_time) {
        const std::string base = ncu_base_name(tr.str(id));
        if (!bases.count(base) && bases.size() >= max_names)
            continue;   // a further base name beyond the cap; full names of chosen base names are still kept
        bases.insert(base);
        names.push_back(id);
    }
    return ncu_target(tr, a, names, phase.empty() ? "decode" : phase);
}

} // namespace sl
