#pragma once
// The report as one self-contained HTML file: inline CSS, charts as inline SVG (analysis/chart_svg), no scripts,
// no external resources — it opens in any browser and can be mailed or attached to a ticket as is.

#include "analysis/report/report_model.h"

#include <string>

namespace sl::report {

std::string to_html(const Report& r);
std::string html_escape(std::string_view text);

} // namespace sl::report
