#pragma once
// A readable plain-text summary of an AnalysisResult (sightline-cli analyze --format text).

#include <string>

#include "analysis/timeline/analysis.h"

namespace sl {

std::string analysis_to_text(const Trace& trace, const AnalysisResult& result);

// "1.23 ms", "456.7 µs", "89 ns" — shared formatting for durations in text output.
std::string format_ns(double ns);

} // namespace sl
