#pragma once
// JSON text from an input file (a data file, a GPU spec file, a weight index) parsed with the readers' one rule for
// bad JSON: a TraceError naming the file and the byte where the text stops being JSON, or a number no double holds
// (1e999). What the JSON must then hold is each caller's to check.

#include <string>

#include <nlohmann/json_fwd.hpp>

namespace sl {

// Parses text read from `source` (the file named in the error).
nlohmann::json parse_json_input(const std::string& text, const std::string& source);

} // namespace sl
