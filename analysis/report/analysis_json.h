#pragma once
// JSON of an AnalysisResult, schema "sightline.analysis/1" (documented in resources/schemas/analysis.md).

#include <nlohmann/json.hpp>

#include "analysis/timeline/analysis.h"

namespace sl {

inline constexpr const char* kAnalysisSchema = "sightline.analysis/1";

nlohmann::json analysis_to_json(const Trace& trace, const AnalysisResult& result);

} // namespace sl
