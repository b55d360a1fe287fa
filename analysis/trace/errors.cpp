#include "analysis/trace/errors.h"

namespace sl {

static std::string compose(const std::string& file, const std::string& where, const std::string& expected,
                           const std::string& found)
{
    std::string msg = file.empty() ? std::string("input") : file;
    if (!where.empty())
        msg += " (" + where + ")";
    msg += ": expected " + expected;
    if (!found.empty())
        msg += ", found " + found;
    return msg;
}

TraceError::TraceError(std::string file, std::string where, std::string expected, std::string found)
    : std::runtime_error(compose(file, where, expected, found)), file_(std::move(file)), where_(std::move(where)),
      expected_(std::move(expected)), found_(std::move(found))
{
}

} // namespace sl
