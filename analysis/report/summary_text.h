#pragma once
// A readable, nsys-stats-like text rendering of a Summary: one table per report (cuda_gpu_kern_sum, cuda_api_sum,
// cuda_gpu_mem_time_sum, cuda_gpu_mem_size_sum, nvtx_sum) plus per-device utilisation, gap histogram and the
// largest gaps. Numbers are grouped with commas; Time (%) and avg/med/stddev have one decimal, as nsys prints them.
// For machines use summary_to_json(); this text is for people and may change.

#include <string>

#include "analysis/timeline/summary.h"

namespace sl {

std::string summary_to_text(const Trace& trace, const Summary& summary);

// Helpers (exposed for tests): 1234567 -> "1,234,567"; 1234.56 with one decimal -> "1,234.6".
std::string group_digits(int64_t v);
std::string group_digits(double v, int decimals);

} // namespace sl
