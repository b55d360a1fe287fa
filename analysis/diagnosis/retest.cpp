#include "analysis/diagnosis/retest.h"

#include "analysis/roofline/roofline.h"

namespace sl {

std::optional<RetestCheck> retest_check(const RooflineReport& report, const std::string& phase, double min_share)
{
    if (!report.measured)
        return std::nullopt;
    double total_theory = 0;
    for (const auto& c : report.classes)
        if (c.phase == phase && c.t_theory_ns)
            total_theory += *c.t_theory_ns;
    if (total_theory <= 0)
        return std::nullopt;
    RetestCheck r;
    r.phase = phase;
    for (const auto& c : report.classes) {
        if (c.phase != phase || !c.t_theory_ns || *c.t_theory_ns < min_share * total_theory)
            continue;
        if (!c.t_actual_ns || *c.t_actual_ns <= 0)
            continue;   // the theory expects it, the trace does not show it: no pair to compare
        r.theory_ns += *c.t_theory_ns;
        r.measured_ns += *c.t_actual_ns;
        r.classes.push_back(c.op_class);
    }
    if (r.classes.empty() || r.theory_ns <= 0)
        return std::nullopt;
    r.delta = r.measured_ns / r.theory_ns - 1.0;
    return r;
}

} // namespace sl
