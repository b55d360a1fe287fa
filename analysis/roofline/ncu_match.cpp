#include "analysis/roofline/ncu_match.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

#include "analysis/io/ncu_metrics.h"
#include "analysis/io/ncu_reader.h"
#include "analysis/roofline/gpu_specs.h"
#include "analysis/roofline/roofline.h"
#include "analysis/trace/trace.h"

namespace sl {

namespace {

std::string lower_alnum(std::string_view s)
{
    std::string out;
    for (char c : s)
        if (std::isalnum(static_cast<unsigned char>(c)))
            out += char(std::tolower(static_cast<unsigned char>(c)));
    // "NVIDIA A100-SXM4-40GB" and "A100 SXM4 40GB" read alike.
    if (out.rfind("nvidia", 0) == 0)
        out.erase(0, 6);
    return out;
}

// "8.0", "8,0", "sm_80" -> (8, 0).
std::optional<std::pair<int, int>> parse_cc(std::string_view s)
{
    int major = -1, minor = 0;
    size_t i = 0;
    while (i < s.size() && !std::isdigit(static_cast<unsigned char>(s[i])))
        ++i;
    if (i == s.size())
        return std::nullopt;
    major = s[i++] - '0';
    if (i < s.size() && (s[i] == '.' || s[i] == ',') && i + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[i + 1])))
        minor = s[i + 1] - '0';
    else if (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])))
        minor = s[i] - '0';
    return std::make_pair(major, minor);
}

std::string cc_text(std::pair<int, int> cc) { return std::to_string(cc.first) + "." + std::to_string(cc.second); }

} // namespace

std::optional<int> ncu_implied_sm_count(const NcuReport& ncu)
{
    std::vector<double> est;
    for (const NcuLaunch& l : ncu.launches) {
        if (const auto n = l.number("launch__sm_count"))
            if (*n > 0)
                return int(std::lround(*n));
        if (const auto n = l.number("device__attribute_multiprocessor_count"))
            if (*n > 0)
                return int(std::lround(*n));
        const NcuLaunchMetrics m = compute_ncu_metrics(l);
        if (!m.waves_per_sm || *m.waves_per_sm < 0.5)
            continue;
        const auto grid = l.number("launch__grid_size") ? l.number("launch__grid_size") : m.grid_size;
        std::optional<double> lim;
        for (const char* n : {"launch__occupancy_limit_blocks", "launch__occupancy_limit_registers",
                              "launch__occupancy_limit_shared_mem", "launch__occupancy_limit_warps",
                              "launch__occupancy_limit_barriers"})
            if (auto v = l.number(n); v && *v > 0)
                lim = lim ? std::min(*lim, *v) : *v;
        if (!grid || !lim || *grid <= 0)
            continue;
        est.push_back(*grid / (*lim * *m.waves_per_sm));
    }
    if (est.empty())
        return std::nullopt;
    std::sort(est.begin(), est.end());
    const double median = est[est.size() / 2];
    if (est.front() < median * 0.97 || est.back() > median * 1.03)
        return std::nullopt;
    return int(std::lround(median));
}

DeviceInfo ncu_device_info(const NcuReport& ncu)
{
    DeviceInfo d;
    for (const NcuLaunch& l : ncu.launches) {
        if (d.name.empty() && !l.device.empty())
            d.name = l.device;
        if (d.compute_major == 0 && !l.cc.empty())
            if (const auto cc = parse_cc(l.cc)) {
                d.compute_major = cc->first;
                d.compute_minor = cc->second;
            }
    }
    if (const auto sms = ncu_implied_sm_count(ncu))
        d.sm_count = *sms;
    return d;
}

NcuTraceMatch match_ncu_to_trace(const NcuReport& ncu, const Trace& trace, const std::vector<int64_t>& join,
                                 const GpuDatabase* db)
{
    NcuTraceMatch m;
    m.launches = int64_t(ncu.launches.size());
    std::set<std::string> seen;
    for (size_t i = 0; i < ncu.launches.size(); ++i) {
        if (i < join.size() && join[i] >= 0) {
            ++m.joined;
            continue;
        }
        const std::string name = kernel_display_name(ncu.launches[i].name);
        if (seen.insert(name).second && m.unmatched_names.size() < 5)
            m.unmatched_names.push_back(name);
    }
    m.unmatched_distinct = int64_t(seen.size());
    m.kernel_mismatch = m.joined < m.launches;

    // The trace's device and what the file says about its own.
    const DeviceInfo* dev = trace.meta.devices.empty() ? nullptr : &trace.meta.devices.front();
    const GpuSpec* trace_row = nullptr;
    if (dev) {
        m.trace_device = dev->name;
        if (db)
            trace_row = db->identify(*dev).spec;
        if (dev->sm_count > 0)
            m.trace_sm_count = dev->sm_count;
        else if (trace_row && trace_row->sm_count > 0)
            m.trace_sm_count = trace_row->sm_count;
    }
    std::string ncu_name, ncu_cc;
    for (const NcuLaunch& l : ncu.launches) {
        if (ncu_name.empty() && !l.device.empty())
            ncu_name = l.device;
        if (ncu_cc.empty() && !l.cc.empty())
            ncu_cc = l.cc;
    }
    m.ncu_sm_count = ncu_implied_sm_count(ncu);
    if (!ncu_name.empty())
        m.ncu_device = ncu_name;
    else if (!ncu_cc.empty())
        m.ncu_device = "compute capability " + ncu_cc;
    else if (m.ncu_sm_count)
        m.ncu_device = "a GPU with " + std::to_string(*m.ncu_sm_count) + " SMs";

    if (dev) {
        if (!ncu_name.empty() && !dev->name.empty()) {
            const GpuSpec* ncu_row = nullptr;
            if (db) {
                DeviceInfo probe;
                probe.name = ncu_name;
                ncu_row = db->identify(probe).spec;
            }
            const bool differ = ncu_row && trace_row ? ncu_row != trace_row
                                                     : lower_alnum(ncu_name) != lower_alnum(dev->name);
            if (differ)
                m.device_evidence.push_back("name " + ncu_name + " ≠ " + dev->name);
        }
        if (const auto cc = parse_cc(ncu_cc); cc && dev->compute_major > 0 &&
                                              (cc->first != dev->compute_major || cc->second != dev->compute_minor))
            m.device_evidence.push_back("compute capability " + cc_text(*cc) + " ≠ " +
                                        cc_text({dev->compute_major, dev->compute_minor}));
        if (m.ncu_sm_count && m.trace_sm_count &&
            std::abs(*m.ncu_sm_count - *m.trace_sm_count) > std::max(1, *m.trace_sm_count / 50))
            m.device_evidence.push_back(std::to_string(*m.ncu_sm_count) + " SMs" +
                                        (ncu_name.empty() ? " (grid ÷ waves per SM ÷ blocks per SM)" : "") + " ≠ " +
                                        std::to_string(*m.trace_sm_count) + " SMs");
    }
    m.device_mismatch = !m.device_evidence.empty();

    if (m.device_mismatch) {
        std::string evidence;
        for (const std::string& e : m.device_evidence)
            evidence += (evidence.empty() ? "" : "; ") + e;
        const std::string trace_dev = m.trace_device.empty() ? "the trace's GPU" : m.trace_device;
        WorkloadWarning w;
        w.code = "ncu_device_mismatch";
        w.args = {{"ncu_device", m.ncu_device}, {"trace_device", trace_dev}, {"evidence", evidence}};
        w.message = "the Nsight Compute file " + ncu.source_path + " was profiled on another GPU than the trace's (" +
                    evidence + "): its counters describe " + (m.ncu_device.empty() ? "another GPU" : m.ncu_device) +
                    ", not " + trace_dev + "; joined anyway, read them with care";
        m.warnings.push_back(std::move(w));
    }
    if (m.kernel_mismatch) {
        std::string names;
        for (const std::string& n : m.unmatched_names)
            names += (names.empty() ? "" : ", ") + n;
        if (m.unmatched_distinct > int64_t(m.unmatched_names.size()))
            names += ", …";
        const int64_t unmatched = m.launches - m.joined;
        WorkloadWarning w;
        w.code = "ncu_kernels_unmatched";
        w.args = {{"unmatched", std::to_string(unmatched)},
                  {"launches", std::to_string(m.launches)},
                  {"names", names}};
        w.message = m.joined == 0
                        ? "none of the " + std::to_string(m.launches) + " launches of the Nsight Compute file " +
                              ncu.source_path + " matches a kernel of the trace (" + names +
                              "): the file is of another run; its counters are joined to no kernel"
                        : std::to_string(unmatched) + " of the " + std::to_string(m.launches) +
                              " launches of the Nsight Compute file " + ncu.source_path +
                              " match no kernel of the trace (" + names + "): their counters are joined to no kernel";
        m.warnings.push_back(std::move(w));
    }
    return m;
}

} // namespace sl
