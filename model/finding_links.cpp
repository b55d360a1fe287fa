#include "model/finding_links.h"

#include "model/kernel_lookup.h"

#include <algorithm>
#include <climits>
#include <string_view>

#include "analysis/timeline/analysis.h"
#include "analysis/diagnosis/metrics_binding.h"
#include "analysis/trace/trace.h"

namespace sl {

int64_t stepAt(const AnalysisResult& analysis, int64_t t)
{
    const auto& steps = analysis.phases.steps;
    // Steps are in time order; their GPU windows do not overlap.
    auto it = std::upper_bound(steps.begin(), steps.end(), t, [](int64_t v, const StepInfo& s) { return v < s.start; });
    if (it == steps.begin())
        return -1;
    --it;
    return t >= it->start && t < it->end ? int64_t(it - steps.begin()) : -1;
}

namespace {

// The integer a step range's name ends with ("decode_step 14" -> 14), or -1.
int64_t trailingNumber(std::string_view name)
{
    size_t i = name.size();
    while (i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9')
        --i;
    if (i == name.size() || name.size() - i > 12)
        return -1;
    int64_t v = 0;
    for (size_t j = i; j < name.size(); ++j)
        v = v * 10 + (name[j] - '0');
    return v;
}

const char* stepPhase(const StepInfo& s) { return s.mixed ? "mixed" : s.prefill ? "prefill" : "decode"; }

} // namespace

StepLabel stepLabel(const AnalysisResult& analysis, const Trace& trace, int64_t step)
{
    const auto& steps = analysis.phases.steps;
    const StepInfo& st = steps[size_t(step)];
    StepLabel l;
    l.phase = stepPhase(st);
    l.warmup = st.warmup;
    if (st.range != kNoIndex && size_t(st.range) < trace.ranges.size())
        l.range = std::string(trace.str(trace.ranges.name[size_t(st.range)]));
    // Position among the steps of its phase, and whether the range names count from one base throughout.
    int64_t ordinal = -1, total = 0, base = INT64_MIN;
    bool consistent = true;
    for (size_t j = 0; j < steps.size(); ++j) {
        if (std::string_view(stepPhase(steps[j])) != l.phase)
            continue;
        if (j == size_t(step))
            ordinal = total;
        const int32_t r = steps[j].range;
        const int64_t n = r != kNoIndex && size_t(r) < trace.ranges.size() ? trailingNumber(trace.str(trace.ranges.name[size_t(r)])) : -1;
        if (n < 0)
            consistent = false;
        else if (base == INT64_MIN)
            base = n - total;
        else if (n - total != base)
            consistent = false;
        ++total;
    }
    l.first = consistent && base != INT64_MIN && base >= 0 ? base : 0;
    l.number = l.first + ordinal;
    l.last = l.first + total - 1;
    return l;
}

std::string phaseOfKernel(const AnalysisResult& analysis, const Trace& trace, int64_t kernel)
{
    if (kernel < 0 || size_t(kernel) >= trace.kernels.size())
        return {};
    const int64_t s = stepAt(analysis, trace.kernels.start[size_t(kernel)]);
    if (s < 0)
        return {};
    return stepPhase(analysis.phases.steps[size_t(s)]);
}

int64_t longestKernelOfClass(const Trace& trace, const AnalysisResult& analysis, const std::string& opClass,
                             const std::string& phase, const KernelLookup* lookup)
{
    const OpClassResult& c = analysis.classes;
    int cls = -1;
    for (size_t i = 0; i < c.classes.size(); ++i)
        if (c.classes[i].id == opClass)
            cls = int(i);
    int64_t best = -1, bestDur = -1;
    auto inPhase = [&](size_t k) {
        if (phase.empty())
            return true;
        const int64_t step = stepAt(analysis, trace.kernels.start[k]);
        return step >= 0 && phase == stepPhase(analysis.phases.steps[size_t(step)]);
    };
    if (lookup && &lookup->trace() == &trace && c.kernel_class.size() == trace.kernels.size()) {
        for (const NameClass& nc : c.names) {
            if (nc.cls != cls)
                continue;
            // Longest first; among equal durations the smallest row first (the lookup's order, reversed).
            const auto rows = lookup->instances(nc.name);
            for (auto it = rows.rbegin(); it != rows.rend(); ++it) {
                const int64_t d = trace.kernels.end[*it] - trace.kernels.start[*it];
                if (d < bestDur || (d == bestDur && int64_t(*it) > best))
                    break;   // nothing further down this name can win
                if (!inPhase(*it))
                    continue;
                best = int64_t(*it);
                bestDur = d;
                break;
            }
        }
        return best;
    }
    for (size_t k = 0; cls >= 0 && k < c.kernel_class.size() && k < trace.kernels.size(); ++k) {
        if (c.kernel_class[k] != cls)
            continue;
        const int64_t d = trace.kernels.end[k] - trace.kernels.start[k];
        if (d <= bestDur)
            continue;
        if (!phase.empty()) {
            const int64_t step = stepAt(analysis, trace.kernels.start[k]);
            if (step < 0 || phase != stepPhase(analysis.phases.steps[size_t(step)]))
                continue;
        }
        best = int64_t(k);
        bestDur = d;
    }
    return best;
}

std::string classOfKernel(const AnalysisResult* analysis, int64_t kernel)
{
    if (!analysis || kernel < 0 || size_t(kernel) >= analysis->classes.kernel_class.size())
        return {};
    const int c = analysis->classes.kernel_class[size_t(kernel)];
    if (c < 0 || size_t(c) >= analysis->classes.classes.size())
        return {};
    return analysis->classes.classes[size_t(c)].id;
}

std::vector<size_t> findingsForKernel(const Diagnosis& diagnosis, const Trace& trace, const AnalysisResult* analysis,
                                      int64_t kernel)
{
    std::vector<size_t> out;
    if (kernel < 0 || size_t(kernel) >= trace.kernels.size())
        return out;
    const std::string_view name = trace.str(trace.kernels.name[size_t(kernel)]);
    const std::string cls = classOfKernel(analysis, kernel);
    const std::string phase = analysis ? phaseOfKernel(*analysis, trace, kernel) : std::string();
    const std::string clsPhase = cls.empty() || phase.empty() ? std::string() : cls + " (" + phase + ")";
    const auto& findings = diagnosis.eval.findings;
    for (size_t i = 0; i < findings.size(); ++i) {
        const Finding& f = findings[i];
        bool hit = std::find(f.links.kernel_ids.begin(), f.links.kernel_ids.end(), kernel) != f.links.kernel_ids.end();
        if (!hit) {
            switch (f.scope) {
            case ScopeKind::Kernel: hit = f.subject == name; break;
            case ScopeKind::OpClass: hit = !cls.empty() && (f.subject == cls || (!clsPhase.empty() && f.subject == clsPhase)); break;
            case ScopeKind::Phase: hit = !phase.empty() && f.subject == phase; break;
            default: break;
            }
        }
        if (hit)
            out.push_back(i);
    }
    return out;
}

std::vector<size_t> findingsForRange(const Diagnosis& diagnosis, const Trace& trace, const AnalysisResult* analysis,
                                     int64_t start, int64_t end)
{
    (void)trace;
    std::vector<size_t> out;
    if (end < start)
        std::swap(start, end);
    // Phases of the steps overlapping the range.
    bool prefill = false, decode = false;
    if (analysis) {
        for (const StepInfo& s : analysis->phases.steps)
            if (s.start < std::max(end, start + 1) && s.end > start)
                (s.prefill ? prefill : decode) = true;
    }
    const auto& findings = diagnosis.eval.findings;
    for (size_t i = 0; i < findings.size(); ++i) {
        const Finding& f = findings[i];
        bool hit = false;
        for (const LinkedRange& r : f.links.time_ranges)
            if (r.start < std::max(end, start + 1) && r.end > start) {
                hit = true;
                break;
            }
        if (!hit && f.scope == ScopeKind::Phase)
            hit = (prefill && f.subject == "prefill") || (decode && f.subject == "decode");
        if (hit)
            out.push_back(i);
    }
    return out;
}

} // namespace sl
