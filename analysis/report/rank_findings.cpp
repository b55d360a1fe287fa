#include "analysis/report/rank_findings.h"

#include "analysis/diagnosis/cross_rank_metrics.h"
#include "analysis/report/rank_merge.h"

#include <algorithm>

namespace sl {

MetricScope rank_merge_scope(const RankMerge& m)
{
    MetricScope s;
    s.kind = ScopeKind::Trace;
    s.subject = "ranks";
    double device_time = 0, longest = 0;
    for (const RankRow& r : m.ranks) {
        device_time += static_cast<double>(r.busy_ns + r.idle_ns);
        longest = std::max(longest, static_cast<double>(r.wall_ns));
    }
    s.metrics["trace_wall_ns"] = longest;
    s.sources["trace_wall_ns"] = "merge:ranks";
    bind_cross_rank_metrics(s, m.collectives, m.cross, device_time, &m.step_ranks);
    return s;
}

RankFindings rank_merge_findings(const RankMerge& m, const RankFindingsOptions& options)
{
    const std::vector<std::string> dirs =
        options.rule_dirs.empty() ? std::vector<std::string>{shipped_rules_dir(), default_user_rules_dir()}
                                  : options.rule_dirs;
    const RuleSet rules = load_rules(dirs);
    const MetricScope scope = rank_merge_scope(m);
    EvalOptions eo;
    eo.lang = options.lang;
    eo.capture_ns = static_cast<int64_t>(scope.metrics.at("trace_wall_ns"));
    RankFindings out;
    EvalResult ev = evaluate_rules(rules, {scope}, eo);
    out.findings = std::move(ev.findings);
    out.errors = rules.errors;
    out.errors.insert(out.errors.end(), ev.errors.begin(), ev.errors.end());
    return out;
}

} // namespace sl
