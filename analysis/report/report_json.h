#pragma once
// The report as JSON, schema "sightline.report/1" (documented in resources/schemas/report.md). Key order is fixed
// and numbers are raw (ns, bytes, fractions), so scripts and golden files can rely on it.

#include "analysis/report/report_model.h"

#include <nlohmann/json.hpp>
#include <string>

namespace sl::report {

nlohmann::ordered_json report_to_json(const Report& r);
// Pretty-printed with two-space indentation and a trailing newline.
std::string to_json_text(const Report& r);

} // namespace sl::report
