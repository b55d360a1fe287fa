#pragma once
// Internal to the report builder: the context the section builders share and the builders that live in
// report_sections.cpp (time breakdown, Roofline). Not a public API; writers use report_model.h only.

#include "analysis/report/report_model.h"

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace sl::report {

struct BuildContext {
    const ReportInputs& in;
    Lang lang;
    std::vector<std::pair<std::string, std::string>> missing_data;   // (what, effect on the report), in order
    std::set<std::string> confidence_reasons;                        // from the findings
    std::map<std::string, std::string> thresholds;                   // options the analyses ran with
    std::map<std::string, std::string> file_hashes;

    // The GPU runtime's name, "CUDA" or "HIP", from the analysis's vendor (the trace's when there is no analysis):
    // the report's "CUDA API calls" read "HIP API calls" on an AMD trace (gpu_vendor.h).
    std::string runtime;
    bool from_nsys = false;   // the trace is an Nsight Systems export: tables may name the nsys report they match

    BuildContext(const ReportInputs& inputs, Lang l);

    std::string s(std::string_view id) const;
    std::string f(std::string_view id, const std::vector<std::string>& args) const;
    // Adds a "missing data" note to sec and records it for the appendix.
    void missing(Section& sec, std::string_view what_id, std::string_view effect_id);
};

Value vdur(double ns);
Value vpct(double fraction);
Value vcount(int64_t n);
Value vbytes(double b);
Value vtext(std::string t);
std::string sha256_hex_cached(BuildContext& cx, const std::string& path);

// A kernel name short enough for a chart axis, the headline or an ncu -k regex: its unqualified function name
// ("void ns::foo<T>(args)" -> "foo"; sl::kernel_base_name keeps the scope).
std::string kernel_short_name(std::string_view name);

// The exact ncu command line for the given kernels (regex of their base names).
std::string ncu_command(const std::vector<std::string>& kernel_names);

Section build_time_section(BuildContext& cx);
Section build_roofline_section(BuildContext& cx);
// Sentences about idle time and the dominant time sink for the headline (appends 0..3 sentences).
void headline_time_sentences(BuildContext& cx, std::vector<std::string>& out);

} // namespace sl::report
