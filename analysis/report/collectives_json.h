#pragma once
// JSON and text renderings of collective communication (analysis/timeline/collectives.h). Layout:
// resources/schemas/analysis.md, "collectives".

#include "analysis/timeline/collectives.h"

#include <nlohmann/json.hpp>

#include <string>

namespace sl {

nlohmann::json collectives_to_json(const CollectiveStats& s);
std::string collectives_to_text(const CollectiveStats& s);

} // namespace sl
