#pragma once
// The Kineto reader's second event parser: any event the one-pass parser (kineto_event_parser.h) is not sure of (an
// escape, a byte outside ASCII, a fraction where an integer is read, an exponent, a grammar error, ...) is read with
// simdjson On-Demand, whose results and error messages stay those of the reader before the one-pass parser existed.

#include <string>

#include <simdjson.h>

#include "analysis/io/kineto_event.h"

namespace sl::kineto {

namespace od = simdjson::ondemand;

// Reads the fields of one event object into e. Throws simdjson::simdjson_error on malformed JSON.
void parse_event_fields(od::object obj, Event& e);

// What a simdjson error means, in the reader's words (the "found" part of a message).
std::string describe_json_error(simdjson::error_code e);

} // namespace sl::kineto
