#pragma once
// The GPU spec database (resources/gpus.json): SM count, clocks, memory, L2 and dense peak rates per precision.
//
// Lookup order used by resolve_gpu():
//   1. an explicit name (`--gpu H100-SXM`): a row's name or alias, compared ignoring case, spaces, '-' and '_';
//      failing that, the row whose `match` pattern matches the given text. Unknown names are an error.
//   2. the trace's device name (`NVIDIA H100 80GB HBM3`, `NVIDIA A100-SXM4-80GB`): the first row whose `match`
//      pattern (case-insensitive ECMAScript regex) matches. User rows are tried before shipped rows.
//   2b. no name matches (empty, or a generic "AMD Radeon Graphics"): the device's properties (GpuDatabase::identify).
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
    // What the runtime reports for the part: CUDA compute capability or HIP gfx major.minor ("9.4" on gfx942);
    // empty = compute_capability when that reads as major.minor. Warp (wavefront) size: 0 = by vendor (32 NVIDIA,
    // 64 AMD). Both, with sm_count and mem_bytes, identify a device whose trace gives no usable name.
    std::string compute_version;
    int32_t warp_size = 0;
    // Achievable (measured by the vendor, not the datasheet's) peaks where a source gives them; nullopt / 0 = none.
    GpuPeaks achievable;
    double achievable_mem_bw_Bps = 0;
    std::string achievable_source;
    // The shortest time a kernel takes on this GPU (launch to completion on the device, a kernel that does next to
    // nothing), in ns; 0 = unknown. The cost model's time floor (cost_model.h): no operator runs faster than the
    // kernels it needs. min_kernel_source says where the number came from (a measurement on a named trace, or the
    // database's default: GpuDatabase::default_min_kernel_ns, then min_kernel_assumed).
    double min_kernel_ns = 0;
    std::string min_kernel_source;
    bool min_kernel_assumed = false;
    std::vector<std::string> uncertain_fields;
    bool checked_against_stored_source = false;
    std::string source, notes;
    std::string origin;                     // file the row came from ("" for rows built from a trace)
    bool from_trace = false;                // built from a trace's DeviceInfo because no row matched

    bool uncertain(std::string_view field) const;
    std::string runtime_version() const;    // compute_version, else compute_capability when it is "N.M"
    int32_t expected_warp_size() const;     // warp_size, else 64 for AMD and 32 otherwise
};

// How a trace's device was matched to a row, and why.
struct GpuIdentification {
    const GpuSpec* spec = nullptr;          // nullptr: no row fits (or several with different peaks)
    std::string how;                        // "name" | "properties" | "" (not identified)
    std::string summary;                    // one line for people
    std::vector<std::string> evidence;      // each property compared: "compute 9.4 = gfx942's 9.4", ...
    std::vector<std::string> candidates;    // every row the properties fit (when identified by properties)
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
    // A trace's device: its name (match patterns), else its properties (compute version, compute units, memory,
    // warp size) against every row's. By properties, a row fits when the compute version and unit count are equal,
    // the memory is within [0.90, 1.03] of the row's (GiB) and the warp size is the row's; each of these is skipped
    // only when the trace does not give it, and at least the compute version and the unit count are needed. Several
    // rows that fit: the first, when their peaks and bandwidth agree within 2 % (the others are named in evidence),
    // else none (never guessed).
    GpuIdentification identify(const DeviceInfo& device) const;

    const std::vector<GpuSpec>& rows() const { return rows_; }
    std::vector<std::string> names() const;

    // The minimum kernel duration for rows that state none (the file's top-level "default_min_kernel_us" and its
    // "default_min_kernel_source"); 0 = none. resolve_gpu gives it to such rows, and to GPUs built from a trace,
    // marked min_kernel_assumed.
    double default_min_kernel_ns() const { return default_min_kernel_ns_; }
    const std::string& default_min_kernel_source() const { return default_min_kernel_source_; }

private:
    std::vector<GpuSpec> rows_;
    double default_min_kernel_ns_ = 0;
    std::string default_min_kernel_source_;
};

// A spec made from what a trace says about its device (no peaks). sm_count/bandwidth/clock as given (0 = unknown).
GpuSpec spec_from_device(const DeviceInfo& d);

struct GpuResolution {
    GpuSpec spec;
    bool known = false;                     // a database row was found
    std::string how;                        // one line: how the spec was chosen
    std::vector<std::string> warnings;      // unknown GPU, uncertain fields used, ...
    std::string identified_by;              // "option" (--gpu), "name", "properties", or "" (unknown)
    std::vector<std::string> evidence;      // what identified the row (GpuIdentification::evidence)
};

// override_name non-empty: --gpu (unknown name -> TraceError naming the known rows). Otherwise the device's name.
// device may be null (no trace): then override_name is required (TraceError otherwise).
GpuResolution resolve_gpu(const GpuDatabase& db, const std::string& override_name, const DeviceInfo* device);

// Lower-case, with spaces, '-', '_' and '(' ')' removed: "H100-SXM" and "h100 sxm" compare equal.
std::string normalize_gpu_name(std::string_view s);

} // namespace sl
