#pragma once
// JSON and text renderings of the measured per-shape throughput (analysis/roofline/shape_throughput.h). Layout:
// resources/schemas/roofline.md, "shape_roofline".

#include "analysis/roofline/shape_throughput.h"

#include <nlohmann/json.hpp>

#include <string>

namespace sl {

nlohmann::json shape_roofline_to_json(const ShapeRooflineResult& r);
std::string shape_roofline_to_text(const ShapeRooflineResult& r, size_t max_rows = 15);

} // namespace sl
