// Placeholder until the nsys reader lands (issue 2).
#include "analysis/nsys_reader.h"
#include "analysis/errors.h"
namespace sl {
Trace read_nsys_sqlite(const std::string& path, const LoadControl&) { throw TraceError(path, "", "nsys reader", "not built yet"); }
Trace read_nsys_report(const std::string& path, const LoadControl&) { throw TraceError(path, "", "nsys reader", "not built yet"); }
}
