#include "analysis/diagnosis/run_variance.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

namespace sl {
namespace {

double median_of(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::string human(const std::string& metric, double v)
{
    char buf[64];
    if (metric.size() > 3 && metric.compare(metric.size() - 3, 3, "_ns") == 0) {
        if (std::fabs(v) >= 1e9)
            std::snprintf(buf, sizeof buf, "%.3f s", v / 1e9);
        else if (std::fabs(v) >= 1e6)
            std::snprintf(buf, sizeof buf, "%.3f ms", v / 1e6);
        else
            std::snprintf(buf, sizeof buf, "%.1f us", v / 1e3);
    } else
        std::snprintf(buf, sizeof buf, "%.4g", v);
    return buf;
}

} // namespace

std::vector<MetricSpread> run_variance(const std::vector<std::map<std::string, double>>& runs)
{
    std::set<std::string> names;
    for (const auto& r : runs)
        for (const auto& [k, v] : r)
            names.insert(k);
    std::vector<MetricSpread> out;
    for (const auto& name : names) {
        std::vector<double> xs;
        for (const auto& r : runs)
            if (auto it = r.find(name); it != r.end() && std::isfinite(it->second))
                xs.push_back(it->second);
        if (xs.empty())
            continue;
        MetricSpread s;
        s.metric = name;
        s.runs = xs.size();
        s.median = median_of(xs);
        s.min = *std::min_element(xs.begin(), xs.end());
        s.max = *std::max_element(xs.begin(), xs.end());
        double mean = 0;
        for (double x : xs)
            mean += x;
        mean /= double(xs.size());
        if (xs.size() > 1) {
            double ss = 0;
            for (double x : xs)
                ss += (x - mean) * (x - mean);
            s.stdev = std::sqrt(ss / double(xs.size() - 1));
        }
        s.rel_spread = s.median != 0 ? (s.max - s.min) / std::fabs(s.median) : 0.0;
        s.rel_stdev = mean != 0 ? s.stdev / std::fabs(mean) : 0.0;
        out.push_back(s);
    }
    return out;
}

size_t representative_run(const std::vector<std::map<std::string, double>>& runs, const std::string& metric)
{
    std::vector<double> xs;
    for (const auto& r : runs)
        if (auto it = r.find(metric); it != r.end())
            xs.push_back(it->second);
    if (xs.empty())
        return 0;
    const double med = median_of(xs);
    size_t best = 0;
    double best_d = INFINITY;
    for (size_t i = 0; i < runs.size(); ++i)
        if (auto it = runs[i].find(metric); it != runs[i].end() && std::fabs(it->second - med) < best_d) {
            best_d = std::fabs(it->second - med);
            best = i;
        }
    return best;
}

std::string end_to_end_metric(const std::vector<std::map<std::string, double>>& runs)
{
    for (const auto& r : runs)
        if (r.count("tpot_median_ns"))
            return "tpot_median_ns";
    return "wall_ns";
}

nlohmann::json run_variance_to_json(const std::vector<MetricSpread>& v)
{
    nlohmann::json j = nlohmann::json::object();
    for (const auto& s : v)
        j[s.metric] = {{"runs", s.runs},           {"median", s.median},         {"min", s.min},
                       {"max", s.max},             {"stdev", s.stdev},           {"rel_spread", s.rel_spread},
                       {"rel_stdev", s.rel_stdev}};
    return j;
}

std::string run_variance_to_text(const std::vector<MetricSpread>& v, const std::vector<std::string>& only)
{
    std::string out;
    for (const auto& s : v) {
        if (!only.empty() && std::find(only.begin(), only.end(), s.metric) == only.end())
            continue;
        char buf[256];
        std::snprintf(buf, sizeof buf, "  %-24s median %-12s spread %5.1f %% (%s .. %s), stdev %.1f %% over %zu run(s)%s\n",
                      s.metric.c_str(), human(s.metric, s.median).c_str(), 100.0 * s.rel_spread,
                      human(s.metric, s.min).c_str(), human(s.metric, s.max).c_str(), 100.0 * s.rel_stdev, s.runs,
                      s.runs > 1 && s.rel_stdev > 0.10 ? "  [noisy: > 10 %]" : "");
        out += buf;
    }
    return out;
}

} // namespace sl
