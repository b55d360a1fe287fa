#pragma once
// Run-to-run variance over N repeated runs of the same command (seed 004: warm-up, several rounds, median and
// spread; sampling variance should stay under about 10 %). A before/after change smaller than the spread of the
// runs is noise, and a verdict on it is inconclusive.

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace sl {

struct MetricSpread {
    std::string metric;
    size_t runs = 0;              // runs that had the metric
    double median = 0, min = 0, max = 0;
    double stdev = 0;             // sample standard deviation (n - 1); 0 for one run
    double rel_spread = 0;        // (max - min) / median; 0 when the median is 0
    double rel_stdev = 0;         // stdev / |mean|
};

// One entry per metric present in at least one run, in name order.
std::vector<MetricSpread> run_variance(const std::vector<std::map<std::string, double>>& runs);

// The index of the run whose `metric` is nearest its median (the run to analyse and report on); 0 when no run has it.
size_t representative_run(const std::vector<std::map<std::string, double>>& runs, const std::string& metric);

// The headline metric a verdict is judged on: tpot_median_ns when the runs have decode steps, else wall_ns.
std::string end_to_end_metric(const std::vector<std::map<std::string, double>>& runs);

nlohmann::json run_variance_to_json(const std::vector<MetricSpread>& v);
// "tpot_median_ns  median 1.47 ms  spread 0.8 % (min … max) over 3 runs" lines for the metrics in `only` (all if empty).
std::string run_variance_to_text(const std::vector<MetricSpread>& v, const std::vector<std::string>& only = {});

} // namespace sl
