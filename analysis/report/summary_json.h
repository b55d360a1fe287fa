#pragma once
// The stable JSON form of a Summary ("sightline.summary/1"); every key, unit and rounding rule is documented in
// resources/schemas/summary.md. Times are integer ns; avg/med/stddev are rounded to the nearest integer (halves
// away from zero); percent and utilization are unrounded doubles.

#include <nlohmann/json.hpp>

#include "analysis/timeline/summary.h"

namespace sl {

inline constexpr const char* kSummarySchema = "sightline.summary/1";

nlohmann::json summary_to_json(const Trace& trace, const Summary& summary);

} // namespace sl
