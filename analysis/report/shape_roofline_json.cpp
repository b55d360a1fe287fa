#include "analysis/report/shape_roofline_json.h"
#include "analysis/io/json_input.h"

#include <cstdio>

namespace sl {

using json = nlohmann::json;

json shape_roofline_to_json(const ShapeRooflineResult& r)
{
    json pts = json::array();
    for (const auto& p : r.points) {
        json j;
        j["op"] = p.op;
        j["family"] = p.family;
        j["shape"] = p.shape;
        // The trace's own text where it is not JSON a report can carry (a discarded value would not print as JSON).
        const auto shapes = [](const std::string& text) {
            json v = parse_json_lenient(text);
            return v.is_discarded() ? json(text) : v;
        };
        j["input_dims"] = shapes(p.input_dims);
        j["input_types"] = shapes(p.input_types);
        j["dtype"] = p.dtype;
        j["calls"] = p.calls;
        j["kernels"] = p.kernels;
        j["kernel_ns"] = p.kernel_ns;
        j["flops_per_call"] = p.flops_per_call;
        j["bytes_per_call"] = p.bytes_per_call;
        j["tflops"] = p.tflops;
        j["tbps"] = p.tbps;
        j["min_call_tflops"] = p.min_call_tflops;
        j["max_call_tflops"] = p.max_call_tflops;
        j["intensity"] = p.intensity > 0 ? json(p.intensity) : json(nullptr);
        j["bound"] = p.bound.empty() ? json(nullptr) : json(p.bound);
        j["pct_of_roof"] = p.pct_of_roof ? json(*p.pct_of_roof) : json(nullptr);
        j["roof_inconsistent"] = p.roof_inconsistent;
        j["kernel_names"] = p.kernel_names;
        if (p.family == "moe")
            j["moe"] = {{"tokens", p.moe_tokens}, {"hidden", p.moe_hidden}, {"inter", p.moe_inter},
                        {"experts", p.moe_experts}, {"topk", p.moe_topk}, {"gated", p.moe_gated},
                        {"weight_dtype", p.moe_weight_dtype}, {"active_experts", p.moe_active_experts}};
        pts.push_back(std::move(j));
    }
    json out;
    out["ops_with_shapes"] = r.ops_with_shapes;
    out["calls_joined"] = r.calls_joined;
    out["kernels_joined"] = r.kernels_joined;
    out["kernel_ns_joined"] = r.kernel_ns_joined;
    out["kernels_from_capture"] = r.kernels_from_capture;
    out["gpu"] = r.gpu.empty() ? json(nullptr) : json(r.gpu);
    out["mem_bw_Bps"] = r.mem_bw_Bps ? json(*r.mem_bw_Bps) : json(nullptr);
    out["points"] = std::move(pts);
    out["warnings"] = r.warnings;
    return out;
}

std::string shape_roofline_to_text(const ShapeRooflineResult& r, size_t max_rows)
{
    std::string out = "Measured throughput from the trace's shapes";
    out += r.gpu.empty() ? " (GPU unknown: no roof)\n" : " on " + r.gpu + "\n";
    char buf[512];
    std::snprintf(buf, sizeof buf, "  %lld CPU ops with shapes, %lld calls joined to %lld kernels\n",
                  static_cast<long long>(r.ops_with_shapes), static_cast<long long>(r.calls_joined),
                  static_cast<long long>(r.kernels_joined));
    out += buf;
    std::snprintf(buf, sizeof buf, "  %-34s %-38s %6s %10s %9s %8s %8s %8s\n", "op", "shape", "calls", "time ms",
                  "TFLOP/s", "TB/s", "bound", "% roof");
    out += buf;
    size_t n = 0;
    for (const auto& p : r.points) {
        if (n++ >= max_rows)
            break;
        char pct[16] = "-";
        if (p.pct_of_roof)
            std::snprintf(pct, sizeof pct, "%.0f", *p.pct_of_roof);
        else if (p.roof_inconsistent)
            std::snprintf(pct, sizeof pct, "(!)");
        std::snprintf(buf, sizeof buf, "  %-34.34s %-38.38s %6lld %10.3f %9.1f %8.2f %8s %8s\n", p.op.c_str(),
                      p.shape.c_str(), static_cast<long long>(p.calls), static_cast<double>(p.kernel_ns) / 1e6,
                      p.tflops, p.tbps, p.bound.empty() ? "-" : p.bound.c_str(), pct);
        out += buf;
    }
    for (const auto& w : r.warnings)
        out += "  note: " + w + "\n";
    return out;
}

} // namespace sl
