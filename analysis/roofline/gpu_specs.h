#pragma once
// The GPU spec database (resources/gpus.json): SM count, clocks, memory, L2 and dense peak rates per precision.
//
// Lookup order used by resolve_gpu():
//   1. an explicit name (`--gpu H100-SXM`): a row's name or alias, compared ignoring case, spaces, '-' and '_';
//      failing that, the row whose `match` pattern matches the given text. Unknown names are an error.
//   2. the trace's device name (`NVIDIA H100 80GB HBM3`, `NVIDIA A100-SXM4-80GB`): the first row whose `match`
//      pattern (case-insensitive ECMAScript regex) matches. User rows are tried before shipped rows.
//   3. no row: the GPU is reported as unknown and a spec is built from what the trace itself says
//      (DeviceInfo::sm_count, memory_bandwidth_Bps, clock_hz); peaks stay unknown (std::nullopt) — never guessed.
//
// All rates here are in base units: FLOP/s (or OP/s for int8), bytes/s, Hz, bytes.

#include "analysis/trace/trace.h"

#include <nlohmann/json_fwd.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sl {

// Compute precisions a peak can be asked for.
enum class Precision { FP32, TF32, FP16, BF16, FP16_FP16ACC, FP8, INT8 };
const char* precision_name(Precision p);          // "fp32", "tf32", "fp16", "bf16", "fp16_fp16acc", "fp8", "int8"
std::optional<Precision> parse_precision(std::string_view s);

struct GpuPeaks {
    // Dense peaks in FLOP/s (OP/s for int8). nullopt = the GPU has no such rate, or it is not known.
    std::optional<double> fp32, tf32, fp16, bf16, fp16_fp16acc, fp8, int8;
    std::optional<double> get(Precision p) const;
};

struct GpuSpec {
    std::string name;                       // row name, e.g. "H100 SXM"
    std::string vendor, arch, compute_capability;
    std::vector<std::string> match;         // regexes tried against trace device names
    std::vector<std::string> aliases;       // extra names accepted by --gpu
    int32_t sm_count = 0;                   // 0 = unknown
    double boost_clock_hz = 0;              // 0 = unknown
    double mem_bw_Bps = 0;                  // 0 = unknown
    double mem_bytes = 0, l2_bytes = 0;     // 0 = unknown
    GpuPeaks peaks;
    std::vector<std::string> uncertain_fields;
    bool checked_against_stored_source = false;
    std::string source, notes;
    std::string origin;                     // file the row came from ("" for rows built from a trace)
    bool from_trace = false;                // built from a trace's DeviceInfo because no row matched

    bool uncertain(std::string_view field) const;
};

class GpuDatabase {
public:
    // Loads resources/gpus.json (resource_path). Throws TraceError on a malformed file.
    static GpuDatabase load_default();
    static GpuDatabase load(const std::string& path);

    // Adds the rows of a user file; a row whose name equals an existing row's corrects the fields it sets.
    // User rows are matched before shipped rows.
    void merge_file(const std::string& path);
    void merge_json(const nlohmann::json& doc, const std::string& origin);

    // --gpu NAME: name/alias (normalised), then the match patterns. nullptr when nothing fits.
    const GpuSpec* find(std::string_view name) const;
    // A trace's device name: match patterns only. nullptr when nothing fits.
    const GpuSpec* match_device(std::string_view device_name) const;

    const std::vector<GpuSpec>& rows() const { return rows_; }
    std::vector<std::string> names() const;

private:
    std::vector<GpuSpec> rows_;
};

// A spec made from what a trace says about its device (no peaks). sm_count/bandwidth/clock as given (0 = unknown).
GpuSpec spec_from_device(const DeviceInfo& d);

struct GpuResolution {
    GpuSpec spec;
    bool known = false;                     // a database row was found
    std::string how;                        // one line: how the spec was chosen
    std::vector<std::string> warnings;      // unknown GPU, uncertain fields used, ...
};

// override_name non-empty: --gpu (unknown name -> TraceError naming the known rows). Otherwise the device's name.
// device may be null (no trace): then override_name is required (TraceError otherwise).
GpuResolution resolve_gpu(const GpuDatabase& db, const std::string& override_name, const DeviceInfo* device);

// Lower-case, with spaces, '-', '_' and '(' ')' removed: "H100-SXM" and "h100 sxm" compare equal.
std::string normalize_gpu_name(std::string_view s);

} // namespace sl
