#include "analysis/report/kernel_verdicts_json.h"

#include <cstdio>

#include "analysis/roofline/roofline.h"
#include "analysis/trace/trace.h"

namespace sl {

namespace {

nlohmann::json opt(const std::optional<double>& x) { return x ? nlohmann::json(*x) : nlohmann::json(); }

nlohmann::json dim3_or_null(bool recorded, uint32_t x, uint16_t y, uint16_t z)
{
    return recorded ? nlohmann::json::array({x, y, z}) : nlohmann::json();
}

std::string shape_text(const LaunchShape& sh)
{
    if (sh.grid_x == 0 || sh.block_x == 0)
        return "launch shape not recorded";
    char b[128];
    std::snprintf(b, sizeof b, "grid %u×%u×%u, block %u×%u×%u", unsigned(sh.grid_x), unsigned(sh.grid_y),
                  unsigned(sh.grid_z), unsigned(sh.block_x), unsigned(sh.block_y), unsigned(sh.block_z));
    return b;
}

} // namespace

nlohmann::json kernel_verdict_to_json(const Trace&, const KernelVerdict& v)
{
    nlohmann::json j;
    j["verdict"] = verdict_kind_name(v.kind);
    j["source"] = verdict_source_name(v.source);
    j["reason"] = verdict_reason_name(v.reason);
    j["fraction"] = opt(v.fraction);
    j["side"] = v.side;
    j["host"] = host_clause_name(v.host);
    j["text"] = kernel_verdict_text(v);
    nlohmann::json e;
    e["duration_ns"] = v.duration_ns;
    e["latency_floor_ns"] = kLatencyFloorNs;
    e["shape_recorded"] = v.shape_recorded;
    e["blocks"] = v.shape_recorded ? nlohmann::json(v.blocks) : nlohmann::json();
    e["threads_per_block"] = v.shape_recorded ? nlohmann::json(v.threads_per_block) : nlohmann::json();
    e["sm_count"] = v.sm_count > 0 ? nlohmann::json(v.sm_count) : nlohmann::json();
    e["waves"] = opt(v.waves);
    if (v.source == VerdictSource::Ncu) {
        e["ncu_launch"] = v.ncu_launch;
        e["ncu_same_name_only"] = v.ncu_same_name_only;
        e["sm_throughput_pct"] = opt(v.sm_pct);
        e["memory_throughput_pct"] = opt(v.memory_pct);
    }
    if (!v.op.empty() || !v.shape.empty()) {
        e["op"] = v.op;
        e["shape"] = v.shape;
        e["dtype"] = v.dtype;
    }
    if (!v.op_class.empty()) {
        e["op_class"] = v.op_class;
        e["phase"] = v.phase;
        e["e_roof_inconsistent"] = opt(v.e_roof_inconsistent);
        if (v.e_roof_inconsistent)   // as every e_roof_inconsistent of the JSON: it says why
            e["consistency_warning"] = "T_theory / T_actual above 1.05: measured above the roof, a data inconsistency "
                                       "(wrong dtype, parallelism, shape or GPU), not an efficiency";
    }
    if (v.host != HostClause::None) {
        e["idle_before_ns"] = v.idle_ns;
        e["idle_cause"] = v.idle_ns > 0 ? nlohmann::json(gap_cause_name(v.idle_cause)) : nlohmann::json();
        e["launch_call_ns"] = v.launch_call_ns;
        e["graph_node"] = v.graph_node >= 0 ? nlohmann::json(v.graph_node) : nlohmann::json();
        e["graph_nodes"] = v.graph_node >= 0 ? nlohmann::json(v.graph_nodes) : nlohmann::json();
    }
    j["evidence"] = std::move(e);
    j["would_tell"] = v.would_tell;
    return j;
}

nlohmann::json kernel_summary_to_json(const Trace& t, const KernelVerdictSummary& s)
{
    nlohmann::json j;
    j["name"] = s.name;
    j["display_name"] = kernel_display_name(s.name);
    const LaunchShape& sh = s.shape_id < t.kernels.shapes.size() ? t.kernels.shapes[s.shape_id] : LaunchShape{};
    const bool rec = sh.grid_x > 0 && sh.block_x > 0;
    j["grid"] = dim3_or_null(rec, sh.grid_x, sh.grid_y, sh.grid_z);
    j["block"] = dim3_or_null(rec, sh.block_x, sh.block_y, sh.block_z);
    j["launches"] = s.launches;
    j["total_ns"] = s.total_ns;
    j["kernel_id"] = s.first_kernel;
    j["example_kernel_id"] = s.example_kernel;
    nlohmann::json v = kernel_verdict_to_json(t, s.verdict);
    for (auto it = v.begin(); it != v.end(); ++it)
        j[it.key()] = it.value();
    nlohmann::json by_kind = nlohmann::json::object();
    for (const auto& [k, ns] : s.by_kind)
        by_kind[verdict_kind_name(k)] = ns;
    j["time_by_verdict_ns"] = std::move(by_kind);
    nlohmann::json by_host = nlohmann::json::object();
    for (const auto& [h, n] : s.by_host)
        by_host[host_clause_name(h)] = n;
    j["launches_by_host"] = std::move(by_host);
    return j;
}

nlohmann::json kernel_summaries_to_json(const Trace& t, const std::vector<KernelVerdictSummary>& all, size_t limit)
{
    nlohmann::json a = nlohmann::json::array();
    for (size_t i = 0; i < all.size() && i < limit; ++i)
        a.push_back(kernel_summary_to_json(t, all[i]));
    return a;
}

std::string kernel_summaries_to_text(const Trace& t, const std::vector<KernelVerdictSummary>& all, size_t limit)
{
    int64_t total = 0;
    for (const auto& s : all)
        total += s.total_ns;
    std::string out = "Kernel verdicts (largest time first; `sightline-cli explain TRACE --kernel NAME` for one)\n";
    for (size_t i = 0; i < all.size() && i < limit; ++i) {
        const KernelVerdictSummary& s = all[i];
        char head[96];
        std::snprintf(head, sizeof head, "  %5.1f %%  %6lld×  ", total > 0 ? 100.0 * double(s.total_ns) / double(total) : 0.0,
                      static_cast<long long>(s.launches));
        out += head + kernel_display_name(s.name) + "\n           " + kernel_verdict_text(s.verdict) + "\n";
    }
    if (all.size() > limit)
        out += "  … " + std::to_string(all.size() - limit) + " more distinct kernels\n";
    (void)t;
    return out;
}

std::string kernel_summary_to_text(const Trace& t, const KernelVerdictSummary& s)
{
    const LaunchShape& sh = s.shape_id < t.kernels.shapes.size() ? t.kernels.shapes[s.shape_id] : LaunchShape{};
    std::string out = kernel_display_name(s.name) + "\n";
    out += "  name:     " + s.name + "\n";
    out += "  launch:   " + shape_text(sh) + "\n";
    out += "  launches: " + std::to_string(s.launches) + ", " + verdict_duration(s.total_ns) + " in all (kernel ids " +
           std::to_string(s.first_kernel) + "…)\n";
    out += "  verdict:  " + kernel_verdict_text(s.verdict) + "\n";
    out += "            (launch " + std::to_string(s.example_kernel) + ", typical of its verdict; source " +
           verdict_source_name(s.verdict.source) + ")\n";
    if (s.by_kind.size() > 1 || !s.by_host.empty()) {
        out += "  over all its launches:";
        for (const auto& [k, ns] : s.by_kind)
            out += std::string(" ") + verdict_kind_name(k) + " " + verdict_duration(ns) + ";";
        for (const auto& [h, n] : s.by_host)
            out += std::string(" ") + host_clause_name(h) + " " + std::to_string(n) + " launches;";
        out.back() = '\n';
    }
    return out;
}

} // namespace sl
