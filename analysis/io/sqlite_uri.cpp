#include "analysis/io/sqlite_uri.h"

#include <cstdio>

namespace sl {

std::string sqlite_file_uri(const std::string& path, const std::string& query)
{
    std::string out = "file:";
    for (unsigned char c : path) {
        if (c == '%' || c == '?' || c == '#' || c < 0x20 || c >= 0x7F) {
            char buf[4];
            std::snprintf(buf, sizeof buf, "%%%02X", c);
            out += buf;
        } else {
            out += static_cast<char>(c);
        }
    }
    return out + "?" + query;
}

} // namespace sl
