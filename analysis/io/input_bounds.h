#pragma once
// Bounds checked before any input is read (issue 17): regular files only, a size limit per kind of input with one
// override, short quotes of user values in messages, and names kept when they are not valid UTF-8.
//
// Why: a FIFO or a device given as an input blocks or grows without end once opened; a 50 MB config.json becomes a
// 1.35 GB JSON tree; a message that dump()s a user value recurses as deep as the value is nested.

#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

namespace sl {

enum class InputKind {
    Trace,        // nsys SQLite export, .nsys-rep, Kineto JSON / .json.gz (the file on disk)
    NcuExport,    // Nsight Compute CSV
    ModelConfig,  // Hugging Face config.json
    WeightIndex,  // model.safetensors.index.json
    DataFile,     // rules, GPU specs, kernel classes
};
const char* input_kind_name(InputKind k);

// Default size limits (bytes): Trace 64 GiB, NcuExport 4 GiB, ModelConfig 16 MiB, WeightIndex 64 MiB, DataFile 16 MiB.
uint64_t default_input_limit(InputKind k);
// One process-wide override for every kind (sightline-cli --max-input-size, SIGHTLINE_MAX_INPUT_SIZE):
// 0 restores the defaults, UINT64_MAX removes the limits.
void set_input_size_override(uint64_t bytes);
uint64_t input_size_limit(InputKind k);
// Parses "123", "16M", "4G", "2T" (binary units, case-insensitive) or "none"; false when it is not a size.
bool parse_size(std::string_view text, uint64_t& bytes);

// stat() before open: the path must name a regular file (a FIFO, device, socket or directory is refused before
// anything could block on it) no larger than the kind's limit. Throws TraceError naming the file, what was expected
// (`expected`) and what was found; the size-limit message names the limit and the flag that raises it.
// Returns the file's size.
uint64_t check_input_file(const std::string& path, InputKind kind, const std::string& expected);

// check_input_file, then the whole file as bytes.
std::string read_input_file(const std::string& path, InputKind kind, const std::string& expected);

// A user value quoted for a message: at most `max_chars` printable characters (others as \xNN), "..." and the full
// length when cut. Never the whole value.
std::string quote_prefix(std::string_view s, size_t max_chars = 40);
// A JSON value described for a message without recursion: scalars quoted (short), arrays and objects by their
// type and size ("an array of 3 elements").
std::string describe_json(const nlohmann::json& v);

// True when s is valid UTF-8 (no overlongs, no surrogates, nothing above U+10FFFF).
bool is_valid_utf8(std::string_view s);
// s with every byte that is not part of a valid UTF-8 sequence written as the four characters \xNN; valid text is
// returned unchanged. Names from traces go through this, so they are kept (and still tell kernels apart) and JSON
// output never meets invalid UTF-8.
std::string escape_invalid_utf8(std::string_view s);

} // namespace sl
