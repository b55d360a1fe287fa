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

#include "analysis/trace/errors.h"

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

// Inflated content of a .gz (a 37 MB .json.gz inflating to 10 GB ended in a bare bad_alloc): after `compressed`
// bytes of the file, at most 64 MiB plus `ratio` times those bytes (default 64; real traces inflate 5-30 times),
// and never more than the cap (default 64 GiB). Checked as the content comes, so a file that inflates far more than
// that is stopped after about 64 MiB, however large it would grow. Overrides: --max-inflate-ratio N /
// SIGHTLINE_MAX_INFLATE_RATIO, --max-inflated-size SIZE / SIGHTLINE_MAX_INFLATED_SIZE ("none" lifts either).
uint64_t inflated_size_limit(uint64_t compressed);
void set_inflate_ratio_override(uint64_t ratio);      // 0 restores the default, UINT64_MAX lifts it
void set_inflated_size_override(uint64_t bytes);      // 0 restores the default, UINT64_MAX lifts it
// The message part that says what the limit is after `compressed` bytes and how to raise it.
std::string inflated_limit_text(uint64_t compressed);

// Names (kernels, API calls, NVTX ranges, CPU ops): one name keeps at most kMaxNameBytes bytes (longer ones are cut
// at a character boundary and end in " [... N more bytes]", counted in one warning by the reader); the distinct
// names of one trace take at most name_bytes_limit() bytes (default 128 MiB; --max-name-bytes SIZE /
// SIGHTLINE_MAX_NAME_BYTES), past which the file is refused with a located error.
inline constexpr size_t kMaxNameBytes = 16384;
uint64_t name_bytes_limit();
void set_name_bytes_override(uint64_t bytes);         // 0 restores the default, UINT64_MAX lifts it
// s itself when it is short enough, else the cut name written into scratch (true when cut). A cut name is short
// enough, so bounding twice changes nothing.
bool bound_name(std::string_view& s, std::string& scratch);
// Throws TraceError(file, where, ...) naming the limit when `total` bytes of distinct names exceed it.
void check_name_bytes(const std::string& file, const std::string& where, uint64_t total);

// Memory budget while loading: readers check it every few thousand rows, so a trace that does not fit is refused
// with the file, the place and the limit instead of a bare std::bad_alloc (or the OOM killer). Default: 90 % of the
// smallest of physical memory, the cgroup's memory.max and RLIMIT_DATA (resident memory is compared), and of
// RLIMIT_AS (address space is compared). Override: --max-memory SIZE / SIGHTLINE_MAX_MEMORY.
uint64_t memory_budget();
void set_memory_budget_override(uint64_t bytes);      // 0 restores the default, UINT64_MAX lifts it
// Resident bytes of this process now (0 when unknown).
uint64_t resident_memory_bytes();
// Throws TraceError(file, where, ...) when the process is over its budget. Cheap (one read of /proc/self/statm).
void check_memory_budget(const std::string& file, const std::string& where);
// What ran out and where, for a std::bad_alloc caught while loading or analysing `file`: the last place a reader
// checked the budget in that file, the memory in use and the budget. A TraceError to throw in its place.
TraceError out_of_memory_error(const std::string& file);

// Text safe to print on a terminal: control characters (C0, DEL, C1) and bytes that are not UTF-8 are written as
// \xNN (\n, \t and \r as such), so a file or kernel name can neither print a fake line nor move the cursor.
std::string terminal_safe(std::string_view s);

// True when s holds a control character (C0, DEL, or a C1 control encoded in UTF-8).
bool has_control_chars(std::string_view s);
// s with each control character escaped by the rule of terminal_safe() (\n, \t, \r as such, others as \xNN, a C1
// control as its two bytes); the rest unchanged. Readers (and load_trace, for GPU names) pass names through it.
std::string escape_control_chars(std::string_view s);

// stat() before open: the path must name a regular file (a FIFO, device, socket or directory is refused before
// anything could block on it) no larger than the kind's limit. Throws TraceError naming the file, what was expected
// (`expected`) and what was found; the size-limit message names the limit and the flag that raises it.
// The file is noted as an input of this process (output_file.h), so no output can overwrite it. Returns its size.
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
