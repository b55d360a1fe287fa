#include "analysis/report/collectives_json.h"

#include <cstdio>

namespace sl {

using json = nlohmann::json;

namespace {
json opt(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }
} // namespace

json collectives_to_json(const CollectiveStats& s)
{
    json groups = json::array();
    for (const auto& g : s.groups) {
        json j;
        j["kind"] = g.kind;
        j["process_group"] = g.process_group;
        j["group_size"] = g.group_size > 0 ? json(g.group_size) : json(nullptr);
        j["dtype"] = g.dtype;
        j["count"] = g.count;
        j["with_size"] = g.with_size;
        j["bytes"] = g.bytes;
        j["time_ns"] = g.time_ns;
        j["exposed_ns"] = g.exposed_ns;
        j["hidden_ns"] = g.hidden_ns;
        j["algbw_Bps"] = opt(g.algbw_Bps);
        j["busbw_Bps"] = opt(g.busbw_Bps);
        j["median_algbw_Bps"] = opt(g.median_algbw_Bps);
        groups.push_back(std::move(j));
    }
    json ranks = json::array();
    for (const auto& r : s.ranks)
        ranks.push_back({{"rank", r.rank}, {"count", r.count}, {"time_ns", r.time_ns}, {"exposed_ns", r.exposed_ns},
                         {"last_arrivals", r.last_arrivals}, {"wait_ns", r.wait_ns},
                         {"exposed_wait_ns", r.exposed_wait_ns}});
    json out;
    out["kernels"] = s.kernels;
    out["kernels_with_metadata"] = s.kernels_with_metadata;
    out["bytes"] = s.bytes;
    out["time_ns"] = s.time_ns;
    out["exposed_ns"] = s.exposed_ns;
    out["groups"] = std::move(groups);
    out["ranks"] = std::move(ranks);
    out["matched_across_ranks"] = s.matched;
    out["mean_skew_ns"] = opt(s.mean_skew_ns);
    out["max_skew_ns"] = opt(s.max_skew_ns);
    out["straggler_rank"] = s.straggler_rank ? json(*s.straggler_rank) : json(nullptr);
    out["straggler_makes_others_wait"] = s.straggler_makes_others_wait;
    out["straggler"] = s.straggler_text;
    out["straggler_wait_ns"] = s.straggler_wait_ns;
    out["straggler_exposed_wait_ns"] = s.straggler_exposed_wait_ns;
    out["match_method"] = s.match_method.empty() ? json(nullptr) : json(s.match_method);
    out["unmatched_kernels"] = s.unmatched;
    out["warnings"] = s.warnings;
    return out;
}

std::string collectives_to_text(const CollectiveStats& s)
{
    std::string out = "Collectives (NCCL/RCCL)\n";
    char buf[512];
    std::snprintf(buf, sizeof buf, "  %lld kernels (%lld with size metadata), %.3f ms, %.3f ms exposed\n",
                  static_cast<long long>(s.kernels), static_cast<long long>(s.kernels_with_metadata),
                  static_cast<double>(s.time_ns) / 1e6, static_cast<double>(s.exposed_ns) / 1e6);
    out += buf;
    for (const auto& g : s.groups) {
        std::snprintf(buf, sizeof buf, "  %-14s pg %-6s n=%-4lld %-9s %6lld x  %10.3f MB  %9.3f ms  algbw %8s  busbw %8s\n",
                      g.kind.c_str(), g.process_group.empty() ? "-" : g.process_group.c_str(),
                      static_cast<long long>(g.group_size), g.dtype.empty() ? "-" : g.dtype.c_str(),
                      static_cast<long long>(g.count), g.bytes / 1e6, static_cast<double>(g.time_ns) / 1e6,
                      g.algbw_Bps ? (std::to_string(static_cast<int>(*g.algbw_Bps / 1e9)) + " GB/s").c_str() : "-",
                      g.busbw_Bps ? (std::to_string(static_cast<int>(*g.busbw_Bps / 1e9)) + " GB/s").c_str() : "-");
        out += buf;
    }
    if (!s.straggler_text.empty())
        out += "  straggler: " + s.straggler_text + "\n";
    for (const auto& w : s.warnings)
        out += "  note: " + w + "\n";
    return out;
}

} // namespace sl
