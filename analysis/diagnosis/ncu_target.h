#pragma once
// The kernels an `ncu` command should profile, as ncu filters them: a kernel-name regex built from real kernel names
// of the trace and a launch window on a steady-state step. One function for every place that writes an ncu command
// (`sightline-cli deep-dive`, the rules' {ncu_kernels} placeholder, the report's focus-set command).
//
//   names         ncu's default --kernel-name-base "function": the kernel name without return type, template
//                 arguments or parameters (kernel_base_name), and without any namespace prefix, which differs by ncu
//                 version; distinct, in the order given (callers give the longest total time first)
//   regex         ECMAScript, anchored: ^(.*::)?(n1|n2|…)$ with every name regex-escaped; it matches the base name
//                 of those kernels with or without a namespace, and nothing else
//   launch_skip   the matched launches before the first steady step (not warm-up) of the phase: decode unless
//                 the phase is "prefill"; 0 when there is no such step
//   launch_count  the matched launches inside that step (one steady step), else min(total, names), in [1, 200]

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/timeline/analysis.h"
#include "analysis/trace/trace.h"

namespace sl {

// The scope's ncu filter travels in MetricScope::sources under this key (not a metric name: no metric is named
// with braces); the rules write it with the {ncu_kernels} placeholder.
inline constexpr const char* kNcuKernelsKey = "{ncu_kernels}";
// The same kernels as a shell-quoted, unanchored regex of their base names ('(n1|n2)'), for AMD's tools
// (rocprofv3 --kernel-include-regex, rocprof-compute -k); the rules write it with {kernel_regex}.
inline constexpr const char* kKernelRegexKey = "{kernel_regex}";

struct NcuTarget {
    std::vector<std::string> names;
    std::string regex;                 // without ncu's "regex:" prefix; empty when there are no names
    int64_t launch_skip = 0, launch_count = 0;
    // "-k regex:'…' --launch-skip N --launch-count M", shell-quoted; empty when there are no names.
    std::string ncu_args() const;
    // "'(n1|n2)'": the names regex-escaped, unanchored, shell-quoted; empty when there are no names.
    std::string include_regex() const;
};

// include_regex() of a list of base names.
std::string kernel_include_regex(const std::vector<std::string>& base_names);

// Backslash before every ECMAScript metacharacter.
std::string ncu_regex_escape(std::string_view s);
// kernel_base_name without a namespace prefix: the name ncu's filter sees.
std::string ncu_base_name(std::string_view kernel_name);

// For the given kernel names (StrIds of Trace::kernels.name), in priority order; `phase` picks the steady step.
NcuTarget ncu_target(const Trace& trace, const AnalysisResult& analysis, const std::vector<StrId>& names,
                     std::string_view phase = "decode");
// For an operator class (kernel_classes.json id) and phase ("prefill" / "decode"; "" = any): the class's kernel
// names by total time in that phase, at most max_names distinct base names.
NcuTarget ncu_target_for_class(const Trace& trace, const AnalysisResult& analysis, std::string_view class_id,
                               std::string_view phase, size_t max_names = 3);

} // namespace sl
