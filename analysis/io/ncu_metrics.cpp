#include "analysis/io/ncu_metrics.h"
#include "analysis/io/regex.h"

#include <algorithm>
#include <cctype>
#include <cmath>

namespace sl {

std::string ncu_metric_key(const std::string& section, const std::string& name, const std::string& base_unit)
{
    if (name.find("__") != std::string::npos)
        return name;   // raw metric name
    struct Label {
        const char* label;
        const char* unit;   // base unit it must have ("*" = any)
        const char* raw;
    };
    static const Label labels[] = {
        {"Duration", "ns", "gpu__time_duration.sum"},
        {"Elapsed Cycles", "*", "gpc__cycles_elapsed.max"},
        {"SM Frequency", "*", "gpc__cycles_elapsed.avg.per_second"},
        {"DRAM Frequency", "*", "dram__cycles_elapsed.avg.per_second"},
        {"SM Active Cycles", "*", "sm__cycles_active.avg"},
        {"Memory Throughput", "%", "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"},
        {"Memory Throughput", "byte/second", "dram__bytes.sum.per_second"},
        {"DRAM Throughput", "%", "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"},
        {"Duration", "*", "gpu__time_duration.sum"},
        {"L1/TEX Cache Throughput", "*", "l1tex__throughput.avg.pct_of_peak_sustained_active"},
        {"L2 Cache Throughput", "*", "lts__throughput.avg.pct_of_peak_sustained_elapsed"},
        {"Compute (SM) Throughput", "*", "sm__throughput.avg.pct_of_peak_sustained_elapsed"},
        {"SM [%]", "*", "sm__throughput.avg.pct_of_peak_sustained_elapsed"},
        {"Memory [%]", "*", "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"},
        {"Block Size", "*", "launch__block_size"},
        {"Grid Size", "*", "launch__grid_size"},
        {"Registers Per Thread", "*", "launch__registers_per_thread"},
        {"Shared Memory Configuration Size", "*", "launch__shared_mem_config_size"},
        {"Driver Shared Memory Per Block", "*", "launch__shared_mem_per_block_driver"},
        {"Dynamic Shared Memory Per Block", "*", "launch__shared_mem_per_block_dynamic"},
        {"Static Shared Memory Per Block", "*", "launch__shared_mem_per_block_static"},
        {"Threads", "*", "launch__thread_count"},
        {"Waves Per SM", "*", "launch__waves_per_multiprocessor"},
        {"# SMs", "*", "launch__sm_count"},
        {"Function Cache Configuration", "*", "launch__func_cache_config"},
        {"Cluster Size", "*", "launch__cluster_size"},
        {"Block Limit SM", "*", "launch__occupancy_limit_blocks"},
        {"Block Limit Registers", "*", "launch__occupancy_limit_registers"},
        {"Block Limit Shared Mem", "*", "launch__occupancy_limit_shared_mem"},
        {"Block Limit Warps", "*", "launch__occupancy_limit_warps"},
        {"Block Limit Barriers", "*", "launch__occupancy_limit_barriers"},
        {"Theoretical Active Warps per SM", "*", "sm__maximum_warps_avg_per_active_cycle"},
        {"Theoretical Occupancy", "*", "sm__maximum_warps_per_active_cycle_pct"},
        {"Achieved Occupancy", "*", "sm__warps_active.avg.pct_of_peak_sustained_active"},
        {"Achieved Active Warps Per SM", "*", "sm__warps_active.avg.per_cycle_active"},
        {"L1/TEX Hit Rate", "*", "l1tex__t_sector_hit_rate.pct"},
        {"L2 Hit Rate", "*", "lts__t_sector_hit_rate.pct"},
        {"Executed Ipc Active", "*", "sm__inst_executed.avg.per_cycle_active"},
        {"Issue Slots Busy", "*", "sm__inst_issued.avg.pct_of_peak_sustained_active"},
        {"Average DRAM Active Cycles", "*", "dram__cycles_active.avg"},
        {"Total DRAM Elapsed Cycles", "*", "dram__cycles_elapsed.sum"},
        {"Average L1 Active Cycles", "*", "l1tex__cycles_active.avg"},
        {"Total L1 Elapsed Cycles", "*", "l1tex__cycles_elapsed.sum"},
        {"Average L2 Active Cycles", "*", "lts__cycles_active.avg"},
        {"Total L2 Elapsed Cycles", "*", "lts__cycles_elapsed.sum"},
        {"Average SM Active Cycles", "*", "sm__cycles_active.avg"},
        {"Total SM Elapsed Cycles", "*", "sm__cycles_elapsed.sum"},
        {"Average SMSP Active Cycles", "*", "smsp__cycles_active.avg"},
        {"Total SMSP Elapsed Cycles", "*", "smsp__cycles_elapsed.sum"},
    };
    for (const auto& l : labels)
        if (name == l.label && (std::string(l.unit) == "*" || base_unit == l.unit))
            return l.raw;
    return "label:" + section + "/" + name;
}

namespace {

std::optional<double> first(const NcuLaunch& l, std::initializer_list<const char*> names)
{
    for (const char* n : names)
        if (auto v = l.number(n))
            return v;
    return std::nullopt;
}

std::optional<double> sass(const NcuLaunch& l, const char* op)
{
    const std::string a = std::string("sm__sass_thread_inst_executed_op_") + op + "_pred_on.sum";
    const std::string b = std::string("smsp__sass_thread_inst_executed_op_") + op + "_pred_on.sum";
    if (auto v = l.number(a))
        return v;
    return l.number(b);
}

std::optional<double> combo(const NcuLaunch& l, const char* add, const char* mul, const char* fma, double wa,
                            double wm, double wf)
{
    const auto a = sass(l, add), m = sass(l, mul), f = sass(l, fma);
    if (!a || !m || !f)
        return std::nullopt;
    return wa * *a + wm * *m + wf * *f;
}

// Parses "(128, 1, 1)" or "128" into the product of its dimensions. Dimensions are separated by ", "; digit
// group separators inside a dimension ("1,024" or "1.024") are dropped.
std::optional<double> dims_product(const std::string& s)
{
    double p = 1;
    bool any = false;
    std::string cur;
    auto flush = [&]() {
        if (cur.empty())
            return;
        p *= std::stod(cur);
        any = true;
        cur.clear();
    };
    for (size_t i = 0; i < s.size(); ++i) {
        const char c = s[i];
        if (std::isdigit(static_cast<unsigned char>(c)))
            cur += c;
        else if ((c == ',' || c == '.') && i + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[i + 1])) &&
                 !cur.empty())
            continue;   // digit group separator
        else
            flush();
    }
    flush();
    return any ? std::optional<double>(p) : std::nullopt;
}

} // namespace

std::optional<double> derived_duration_ns(const NcuLaunch& l)
{
    const std::pair<const char*, const char*> pairs[] = {
        {"sm__cycles_elapsed.avg", "sm__cycles_elapsed.avg.per_second"},
        {"gpc__cycles_elapsed.max", "gpc__cycles_elapsed.avg.per_second"},
        {"smsp__cycles_elapsed.avg", "smsp__cycles_elapsed.avg.per_second"},
        {"sm__cycles_elapsed.max", "sm__cycles_elapsed.avg.per_second"},
    };
    for (const auto& [c, f] : pairs) {
        const auto cy = l.number(c), hz = l.number(f);
        if (cy && hz && *hz > 0)
            return *cy / *hz * 1e9;
    }
    return std::nullopt;
}

std::optional<double> derived_theoretical_warps(const NcuLaunch& l)
{
    const auto block = l.number("launch__block_size") ? l.number("launch__block_size") : dims_product(l.block);
    std::optional<double> lim;
    for (const char* n : {"launch__occupancy_limit_blocks", "launch__occupancy_limit_registers",
                          "launch__occupancy_limit_shared_mem", "launch__occupancy_limit_warps",
                          "launch__occupancy_limit_barriers"})
        if (auto v = l.number(n))
            lim = lim ? std::min(*lim, *v) : *v;
    if (!block || !lim)
        return std::nullopt;
    return *lim * std::ceil(*block / 32.0);
}

std::optional<double> derived_waves_per_sm(const NcuLaunch& l, int sm_count)
{
    const auto grid = l.number("launch__grid_size") ? l.number("launch__grid_size") : dims_product(l.grid);
    std::optional<double> lim;
    for (const char* n : {"launch__occupancy_limit_blocks", "launch__occupancy_limit_registers",
                          "launch__occupancy_limit_shared_mem", "launch__occupancy_limit_warps",
                          "launch__occupancy_limit_barriers"})
        if (auto v = l.number(n))
            lim = lim ? std::min(*lim, *v) : *v;
    std::optional<double> sms = sm_count > 0 ? std::optional<double>(sm_count)
                                             : first(l, {"launch__sm_count", "device__attribute_multiprocessor_count"});
    if (!grid || !lim || !sms || *lim <= 0 || *sms <= 0)
        return std::nullopt;
    return *grid / (*lim * *sms);
}

NcuLaunchMetrics compute_ncu_metrics(const NcuLaunch& l)
{
    NcuLaunchMetrics m;
    auto need = [&](std::optional<double>& dst, std::optional<double> v, const char* what) {
        dst = v;
        if (!v)
            m.missing.push_back(what);
    };
    m.sm_clock_hz = first(l, {"sm__cycles_elapsed.avg.per_second", "gpc__cycles_elapsed.avg.per_second",
                              "smsp__cycles_elapsed.avg.per_second"});
    m.dram_clock_hz = first(l, {"dram__cycles_elapsed.avg.per_second"});
    m.elapsed_cycles = first(l, {"gpc__cycles_elapsed.max", "sm__cycles_elapsed.avg", "sm__cycles_elapsed.max"});
    m.duration_ns = l.number("gpu__time_duration.sum");
    if (!m.duration_ns) {
        m.duration_ns = derived_duration_ns(l);
        m.duration_derived = m.duration_ns.has_value();
        if (!m.duration_ns)
            m.missing.push_back("duration (no gpu__time_duration.sum and no elapsed cycles with a clock)");
    }
    // DRAM bytes
    if (auto v = l.number("dram__bytes.sum")) {
        m.dram_bytes = v;
    } else if (auto r = l.number("dram__bytes_read.sum"), w = l.number("dram__bytes_write.sum"); r && w) {
        m.dram_bytes = *r + *w;
    } else if (auto sr = l.number("dram__sectors_read.sum"), sw = l.number("dram__sectors_write.sum"); sr && sw) {
        m.dram_bytes = (*sr + *sw) * 32;
    } else if (auto ps = l.number("dram__bytes.sum.per_second"); ps && m.duration_ns) {
        m.dram_bytes = *ps * *m.duration_ns * 1e-9;
    } else {
        m.missing.push_back("DRAM bytes (dram__bytes.sum or read/write)");
    }
    m.dram_bytes_per_s = l.number("dram__bytes.sum.per_second");
    if (!m.dram_bytes_per_s && m.dram_bytes && m.duration_ns && *m.duration_ns > 0)
        m.dram_bytes_per_s = *m.dram_bytes / (*m.duration_ns * 1e-9);
    // FLOPs
    m.flops_fp64 = combo(l, "dadd", "dmul", "dfma", 1, 1, 2);
    m.flops_fp32 = combo(l, "fadd", "fmul", "ffma", 1, 1, 2);
    m.flops_fp16 = combo(l, "hadd", "hmul", "hfma", 2, 2, 4);
    if (!m.flops_fp64)
        m.missing.push_back("FP64 FLOPs (sm__sass_thread_inst_executed_op_d{add,mul,fma}_pred_on.sum)");
    if (!m.flops_fp32)
        m.missing.push_back("FP32 FLOPs (sm__sass_thread_inst_executed_op_f{add,mul,fma}_pred_on.sum)");
    if (!m.flops_fp16)
        m.missing.push_back("FP16 FLOPs (sm__sass_thread_inst_executed_op_h{add,mul,fma}_pred_on.sum)");
    {
        double t = 0;
        bool any = false;
        for (const auto& [k, v] : l.metrics)
            if (k.rfind("sm__ops_path_tensor_", 0) == 0 && k.size() > 4 && k.compare(k.size() - 4, 4, ".sum") == 0 &&
                v.number) {
                t += *v.number;
                any = true;
            }
        if (any)
            m.flops_tensor = t;
        m.tensor_instructions = l.number("sm__inst_executed_pipe_tensor.sum");
        if (!any)
            m.missing.push_back(m.tensor_instructions
                                    ? "tensor FLOPs (only tensor instruction counts; the MMA shape is not in the file)"
                                    : "tensor FLOPs (sm__ops_path_tensor_*.sum)");
    }
    if (m.flops_fp64 || m.flops_fp32 || m.flops_fp16 || m.flops_tensor)
        m.flops_total = m.flops_fp64.value_or(0) + m.flops_fp32.value_or(0) + m.flops_fp16.value_or(0) +
                        m.flops_tensor.value_or(0);
    if (m.flops_total && m.duration_ns && *m.duration_ns > 0)
        m.achieved_flops_per_s = *m.flops_total / (*m.duration_ns * 1e-9);
    if (m.flops_total && m.dram_bytes && *m.dram_bytes > 0)
        m.intensity = *m.flops_total / *m.dram_bytes;
    // Throughputs
    need(m.sm_throughput_pct, first(l, {"sm__throughput.avg.pct_of_peak_sustained_elapsed"}), "SM throughput %");
    need(m.memory_throughput_pct, first(l, {"gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"}),
         "memory throughput %");
    need(m.dram_throughput_pct,
         first(l, {"gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed",
                   "dram__throughput.avg.pct_of_peak_sustained_elapsed"}),
         "DRAM throughput %");
    m.l1_throughput_pct = first(l, {"l1tex__throughput.avg.pct_of_peak_sustained_active",
                                    "l1tex__throughput.avg.pct_of_peak_sustained_elapsed"});
    m.l2_throughput_pct = first(l, {"lts__throughput.avg.pct_of_peak_sustained_elapsed"});
    need(m.achieved_occupancy_pct, first(l, {"sm__warps_active.avg.pct_of_peak_sustained_active"}), "achieved occupancy");
    need(m.theoretical_occupancy_pct, first(l, {"sm__maximum_warps_per_active_cycle_pct"}), "theoretical occupancy");
    m.achieved_warps_per_sm = first(l, {"sm__warps_active.avg.per_cycle_active"});
    m.theoretical_warps_per_sm = first(l, {"sm__maximum_warps_avg_per_active_cycle"});
    need(m.l1_hit_rate_pct, first(l, {"l1tex__t_sector_hit_rate.pct"}), "L1 hit rate");
    need(m.l2_hit_rate_pct, first(l, {"lts__t_sector_hit_rate.pct"}), "L2 hit rate");
    for (const auto& [k, v] : l.metrics) {
        if (k.rfind("sm__pipe_tensor", 0) == 0 && k.find("pct_of_peak") != std::string::npos && v.number) {
            m.tensor_pipe_pct = m.tensor_pipe_pct ? std::max(*m.tensor_pipe_pct, *v.number) : *v.number;
        }
    }
    if (!m.tensor_pipe_pct)
        if (auto v = first(l, {"sm__inst_executed_pipe_tensor_op_hmma.avg.pct_of_peak_sustained_active",
                               "sm__inst_executed_pipe_tensor_op_hmma.avg.pct_of_peak_sustained_elapsed"}))
            m.tensor_pipe_pct = v;
    if (!m.tensor_pipe_pct)
        m.missing.push_back("tensor pipe utilisation");
    // Stalls
    static const Regex stall_re(
        R"(^smsp__(?:average_warps_issue_stalled_(\w+?)_per_issue_active\.ratio|average_warp_latency_issue_stalled_(\w+?)\.ratio|pcsamp_warps_issue_stalled_(\w+))$)");
    std::vector<NcuStall> stalls;
    for (const auto& [k, v] : l.metrics) {
        std::vector<std::string_view> sm;
        if (!v.number || !stall_re.full_match(k, sm))
            continue;
        std::string reason(sm[1].data() ? sm[1] : sm[2].data() ? sm[2] : sm[3]);
        if (reason.size() > 11 && reason.compare(reason.size() - 11, 11, "_not_issued") == 0)
            continue;
        stalls.push_back({reason, *v.number});
    }
    std::sort(stalls.begin(), stalls.end(), [](const NcuStall& a, const NcuStall& b) { return a.value > b.value; });
    if (stalls.size() > 3)
        stalls.resize(3);
    m.top_stalls = stalls;
    if (stalls.empty())
        m.missing.push_back("stall reasons (smsp__average_warps_issue_stalled_*)");
    // Shared-memory bank conflicts
    if (auto ld = l.number("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"),
        st = l.number("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum");
        ld && st)
        m.shared_bank_conflicts = *ld + *st;
    else
        m.shared_bank_conflicts = l.number("l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum");
    m.shared_wavefronts = l.number("l1tex__data_pipe_lsu_wavefronts_mem_shared.sum");
    if (!m.shared_bank_conflicts)
        m.missing.push_back("shared-memory bank conflicts");
    // Launch
    m.registers_per_thread = l.number("launch__registers_per_thread");
    m.block_size = l.number("launch__block_size") ? l.number("launch__block_size") : dims_product(l.block);
    m.grid_size = l.number("launch__grid_size") ? l.number("launch__grid_size") : dims_product(l.grid);
    m.threads = l.number("launch__thread_count");
    m.waves_per_sm = l.number("launch__waves_per_multiprocessor");
    // ncu prints Waves Per SM with two decimals, so a small grid's 0.004 waves reads "0.00" (72 of the 200 launches of
    // the H100 decode sample) and a finding would say "fills only 0 waves". ncu's own definition from the launch's
    // counters (grid / (blocks per SM x SMs)) gives the digits back where it agrees with the printed value.
    if (const auto d = derived_waves_per_sm(l); d && m.waves_per_sm && std::fabs(*d - *m.waves_per_sm) <= 0.005 + 1e-9)
        m.waves_per_sm = d;
    m.sm_count = first(l, {"launch__sm_count", "device__attribute_multiprocessor_count"});
    return m;
}

} // namespace sl
