#include "analysis/io/resources.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace sl {

std::string resource_path(std::string_view relative)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    if (const char* env = std::getenv("SIGHTLINE_RESOURCES"); env && *env) {
        fs::path p = fs::path(env) / relative;
        if (fs::exists(p, ec))
            return p.string();
    }
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        fs::path p = exe.parent_path().parent_path() / "share" / "sightline" / relative;
        if (fs::exists(p, ec))
            return p.string();
    }
    return (fs::path(SIGHTLINE_RESOURCE_DIR) / relative).string();
}

} // namespace sl
