#pragma once
// What ncu's own sections compute, recomputed per launch from the metrics a file holds (reference ncu_roofline.md
// §b). Every figure is std::optional: a figure the file cannot give stays nullopt and is listed in `missing`.
//
//  * FLOPs (an FMA is two FLOPs, as ncu's roofline counts them), from the SASS thread-instruction counters
//    (`sm__sass_thread_inst_executed_op_<op>_pred_on.sum`, also with the smsp__ prefix):
//      fp64 = dadd + dmul + 2*dfma;  fp32 = fadd + fmul + 2*ffma;  fp16 = 2*hadd + 2*hmul + 4*hfma (HADD2/HMUL2/
//      HFMA2 are 2-wide); tensor = sum of `sm__ops_path_tensor_*.sum` (already ops). Tensor *instruction* counts
//      (`sm__inst_executed_pipe_tensor.sum`) are kept but not converted: the MMA shape is not in the file.
//  * Duration: `gpu__time_duration.sum`; without it, elapsed cycles / the measured SM clock
//    (`sm__cycles_elapsed.avg` / `sm__cycles_elapsed.avg.per_second`, or `gpc__cycles_elapsed.max` /
//    `gpc__cycles_elapsed.avg.per_second`), flagged duration_derived. Achieved FLOP/s = FLOPs / duration.
//  * DRAM bytes: `dram__bytes.sum`, or read + write, or sectors x 32. Intensity = FLOPs / DRAM bytes.
//  * Throughput % (SM, memory, DRAM, L1, L2), occupancy (achieved, theoretical), hit rates, tensor pipe %,
//    top stall reasons (warp cycles per issued instruction), shared-memory bank conflicts.

#include "analysis/io/ncu_reader.h"

#include <optional>
#include <string>
#include <vector>

namespace sl {

// Key a details-page metric is stored under: the raw name when the file prints raw names (contains "__"), the
// raw name a known label stands for (e.g. "Duration" -> gpu__time_duration.sum; "Memory Throughput" in % ->
// gpu__compute_memory_throughput..., in bytes/second -> dram__bytes.sum.per_second), else "label:<section>/<label>".
std::string ncu_metric_key(const std::string& section, const std::string& name, const std::string& base_unit);

struct NcuStall {
    std::string reason;     // "long_scoreboard", "barrier", ...
    double value = 0;       // warp cycles per issued instruction (or PC samples for sampling metrics)
};

struct NcuLaunchMetrics {
    std::optional<double> duration_ns;
    bool duration_derived = false;
    std::optional<double> sm_clock_hz, dram_clock_hz, elapsed_cycles;
    std::optional<double> dram_bytes;
    std::optional<double> flops_fp64, flops_fp32, flops_fp16, flops_tensor;
    std::optional<double> tensor_instructions;
    std::optional<double> flops_total;          // sum of the precisions present
    std::optional<double> achieved_flops_per_s;
    std::optional<double> intensity;            // FLOP per DRAM byte
    std::optional<double> dram_bytes_per_s;
    std::optional<double> sm_throughput_pct, memory_throughput_pct, dram_throughput_pct, l1_throughput_pct,
        l2_throughput_pct;
    std::optional<double> achieved_occupancy_pct, theoretical_occupancy_pct;
    std::optional<double> achieved_warps_per_sm, theoretical_warps_per_sm;
    std::optional<double> l1_hit_rate_pct, l2_hit_rate_pct;
    std::optional<double> tensor_pipe_pct;
    std::vector<NcuStall> top_stalls;           // up to 3, largest first
    std::optional<double> shared_bank_conflicts, shared_wavefronts;
    std::optional<double> registers_per_thread, block_size, grid_size, threads, waves_per_sm, sm_count;
    std::vector<std::string> missing;           // figures the file cannot give
};

NcuLaunchMetrics compute_ncu_metrics(const NcuLaunch& launch);

// Independent recomputations of figures ncu prints, for cross-checks:
// theoretical warps per SM = min(block limits) x warps per block;
std::optional<double> derived_theoretical_warps(const NcuLaunch& l);
// waves per SM = grid / (min(block limits) x SM count); sm_count 0 = take "# SMs" from the file;
std::optional<double> derived_waves_per_sm(const NcuLaunch& l, int sm_count = 0);
// elapsed cycles / SM clock, in ns.
std::optional<double> derived_duration_ns(const NcuLaunch& l);

} // namespace sl
