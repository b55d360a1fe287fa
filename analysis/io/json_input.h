#pragma once
// JSON text from an input file (a data file, a GPU spec file, a weight index) parsed with the readers' one rule for
// bad JSON: a TraceError naming the file and the byte where the text stops being JSON, or a number no double holds
// (1e999). What the JSON must then hold is each caller's to check.
//
// Every JSON Sightline reads goes through here (issue 36 §2): the nesting of arrays and objects is bounded before
// the text is parsed (kMaxJsonDepth), so no later copy, dump or walk of the value — all recursive — can run out of
// stack on a 10^6-deep array; the size bound of each kind of file is read_input_file's (input_bounds.h), applied
// before the text is read.

#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

namespace sl {

// Deeper than any file Sightline reads needs (a config.json nests 4 deep, a rule file 5, a trace's shapes 4).
inline constexpr int kMaxJsonDepth = 64;

// The nesting depth of JSON text: arrays and objects, brackets inside strings not counted. The scan stops at the
// first byte that goes deeper than `limit` (returning limit + 1 and that byte's offset in *at), so it is linear and
// never recursive whatever the text.
int json_nesting(std::string_view text, int limit = kMaxJsonDepth, size_t* at = nullptr);

// Parses text read from `source` (the file named in the error). Throws TraceError naming the byte where the text
// nests deeper than kMaxJsonDepth, stops being JSON, or holds a number no double holds.
nlohmann::json parse_json_input(const std::string& text, const std::string& source);

// The same without an exception, for JSON inside a trace (an operator's shapes) or from a network answer: a
// discarded value (is_discarded()) when the text is not JSON, holds a non-finite number or nests too deep.
nlohmann::json parse_json_lenient(std::string_view text, int limit = kMaxJsonDepth);

} // namespace sl
