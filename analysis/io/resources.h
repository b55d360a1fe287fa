#pragma once
// Locates shipped data files (GPU specs, rules, kernel classes): $SIGHTLINE_RESOURCES, then
// <exe>/../share/sightline, then the source tree's resources/ (development builds).

#include <string>
#include <string_view>

namespace sl {

// Returns the absolute path of resources/<relative>; the first candidate that exists, else the source-tree path.
std::string resource_path(std::string_view relative);

} // namespace sl
