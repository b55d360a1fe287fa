#include "analysis/timeline/focus.h"

namespace sl {

FocusResult focus_top_k(const OpClassResult& c, const FocusOptions& o)
{
    FocusResult r;
    r.options = o;
    const double total = static_cast<double>(c.kernel_time_ns);
    double cum = 0;
    for (size_t i = 0; i < c.names.size() && i < o.top_k; ++i) {
        const NameClass& n = c.names[i];
        FocusEntry e;
        e.name = n.name;
        e.cls = n.cls;
        e.time_ns = n.time_ns;
        e.count = n.count;
        e.share = total > 0 ? static_cast<double>(n.time_ns) / total : 0;
        cum += e.share;
        e.cumulative_share = cum;
        r.entries.push_back(e);
    }
    r.covered_share = cum;
    return r;
}

} // namespace sl
