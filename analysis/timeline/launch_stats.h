#pragma once
// Launch statistics: per kernel name and overall, how long the launching API call took, how long the kernel then
// waited in the queue, which kernels are shorter than their own launch, the launch rate and η_launch.
//
//   api_ns     = launch call end - start (cudaLaunchKernel, cuLaunchKernel, cudaGraphLaunch, ...)
//   queue_ns   = max(0, kernel start - launch call end)      (nsys cuda_kern_exec_trace "Queue Dur", HTA launch_delay)
//   short      = kernel duration < its launch call's duration, and the call ≤ short_kernel_api_cutoff_ns
//                (HTA get_cuda_kernel_launch_stats: runtime_cutoff 50 µs)
//   η_launch   = Σ launch-call time on the host / T_total, T_total = first kernel start .. last kernel end (seed 004)
//   launch rate = launch calls / T_total (per second)
// Kernels launched through a CUDA graph (kernel flag kGraphNode, or linked to a kApiGraphLaunch call) share one
// launch call: the call's duration counts once in the totals; per kernel only the queue delay is meaningful.
// HTA matches only cudaLaunchKernel/cudaLaunchKernelExC by name and misses cuLaunchKernel (Triton) and graph
// launches; Sightline uses the API flags and covers both.

#include <cstdint>
#include <vector>

#include "analysis/trace/stats.h"
#include "analysis/trace/trace.h"

namespace sl {

struct LaunchOptions {
    int64_t short_kernel_api_cutoff_ns = 50'000;   // HTA runtime_cutoff
    int64_t api_outlier_ns = 50'000;               // launch calls longer than this are outliers (HTA runtime_cutoff)
    int64_t queue_outlier_ns = 100'000;            // queue delays longer than this are outliers (HTA launch_delay_cutoff)
};

struct KernelLaunchStats {
    StrId name = 0;
    int64_t count = 0;            // kernels of this name
    int64_t linked = 0;           // ... with a known launch call
    int64_t graph = 0;            // ... launched through a CUDA graph
    int64_t kernel_ns = 0;        // Σ kernel durations
    Stats api;                    // launch call durations (linked, non-graph kernels)
    Stats queue;                  // queue delays (linked kernels)
    int64_t short_count = 0;
};

struct LaunchResult {
    LaunchOptions options;
    int64_t window_ns = 0;              // T_total
    int64_t kernels = 0, linked = 0;
    int64_t launch_calls = 0;           // kApiLaunch calls
    int64_t graph_launch_calls = 0;     // kApiGraphLaunch calls
    int64_t graph_kernels = 0;          // kernels launched by a graph
    int64_t launch_api_ns = 0;          // Σ durations of launch + graph-launch calls
    Stats api;                          // over all launch calls (kApiLaunch | kApiGraphLaunch)
    Stats queue;                        // over all linked kernels
    int64_t short_kernels = 0;
    int64_t api_outliers = 0, queue_outliers = 0;
    double launch_rate_per_s = 0;
    double eta_launch = 0;
    std::vector<KernelLaunchStats> per_name;   // largest Σ kernel time first
};

// O(kernels + API calls).
LaunchResult analyze_launches(const Trace& trace, const LaunchOptions& options = {});

} // namespace sl
