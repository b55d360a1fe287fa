#pragma once
// The Kineto reader's one-pass event parser (the simdjson path, kineto_simdjson.h, reads what it leaves).

#include "analysis/io/kineto_event.h"

namespace sl::kineto {

// Most events are plain: ASCII strings without escapes, integers where integers are read. OnePass reads such an
// event in one walk over its bytes, checking the JSON grammar as it goes, into the same Event that
// parse_event_fields() makes. Before, every event was walked three times (scan_value() to find its end, simdjson's
// stage 1 to index it, On-Demand to read it), about half the reader's CPU time. Whatever OnePass is not sure of (an
// escape, a byte outside ASCII or a control byte in a string, a fraction or 19+ digits where an integer is read, an
// exponent, a number beyond double, nesting deeper than kMaxDepth, a grammar error, the end of the buffer) makes it
// give up, and the event goes the old way, so results and error messages stay those of simdjson.
//
// It reads from p up to end, and relies on the buffer's padding after end: blanks ending in a NUL (kOnePassStop), so
// a run of blanks stops inside the padding and nothing there reads as a token; no position is checked against end
// but in strings.
inline constexpr char kOnePassStop = '\0';

// Reads the event object at p into e in one pass: one past its '}' when it did, nullptr when the event is not plain
// (e is then to be read again, the simdjson way).
const char* parse_plain_event(const char* p, const char* end, Event& e);

} // namespace sl::kineto
