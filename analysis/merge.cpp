// Placeholder until multi-rank merging lands (issue 3).
#include "analysis/merge.h"
#include "analysis/errors.h"
namespace sl {
Trace merge_traces(std::vector<Trace> parts) { if (parts.size() == 1) return std::move(parts[0]); throw TraceError("", "", "merge", "not built yet"); }
}
