#pragma once
// The GPU vendor a trace comes from, and the name of its runtime: the one place the Overview, the timeline's lanes,
// the report and the rules learn whether to say CUDA or HIP (issue 37 §7: an AMD trace read "CUDA graphs").

#include <string>
#include <string_view>
#include <vector>

namespace sl {

struct Trace;

struct GpuVendor {
    std::string vendor;                  // "NVIDIA" or "AMD"; empty when the trace does not say (a tie)
    std::vector<std::string> evidence;   // what says so, strongest first; "against: ..." for the other side's signs
};

// From what the trace says, strongest sign first: the devices (name, warp size, chip), the runtime's API names
// (hip* / cuda*, cu*), the tracer's version keys (roctracer / CUPTI), the format (an nsys export is NVIDIA's).
// Each sign votes once; the larger vote wins, a tie leaves the vendor unknown. One pass over the API calls'
// distinct names. WorkloadResult::vendor is this.
GpuVendor detect_gpu_vendor(const Trace& trace);

// The runtime's name for a vendor: "HIP" for "AMD", "CUDA" otherwise (NVIDIA, or unknown: the name users know).
inline const char* gpu_runtime_name(std::string_view vendor) { return vendor == "AMD" ? "HIP" : "CUDA"; }

} // namespace sl
