// Placeholder until the Kineto reader lands (issue 3).
#include "analysis/kineto_reader.h"
#include "analysis/errors.h"
namespace sl {
Trace read_kineto_json(const std::string& path, const LoadControl&) { throw TraceError(path, "", "Kineto reader", "not built yet"); }
}
