// Nsight Compute readers: the real details CSV (A100, ncu 2021) and text report (GH200, ncu 2024) from
// shared/data/ncu, crafted raw-page and locale-swapped files, and bad input. Computed figures are checked against
// what ncu itself printed in the same file (occupancy, waves, durations, memory throughput).
#include <gtest/gtest.h>

#include "analysis/trace/errors.h"
#include "analysis/io/ncu_metrics.h"
#include "analysis/io/ncu_reader.h"
#include "tests/support/test_env.h"

#include <cmath>
#include <csignal>
#include <sys/stat.h>
#include <fstream>
#include <regex>
#include <sstream>

using namespace sl;

namespace {
std::string fixture(const std::string& f) { return test::source_dir() + "/tests/data/ncu/" + f; }

std::optional<std::string> real(const std::string& f)
{
    const auto dir = test::shared_data_dir();
    if (!dir)
        return std::nullopt;
    const std::string p = *dir + "/ncu/" + f;
    if (!std::ifstream(p))
        return std::nullopt;
    return p;
}

double num(const NcuLaunch& l, const std::string& metric)
{
    const auto v = l.number(metric);
    EXPECT_TRUE(v.has_value()) << "launch " << l.id << " has no " << metric;
    return v.value_or(std::nan(""));
}
} // namespace

TEST(NcuCsv, Rfc4180Records)
{
    const std::string t = "\"a,b\",\"say \"\"hi\"\"\",plain,\"multi\nline\"\r\n\"x\",\n";
    size_t pos = 0;
    std::vector<std::string> f;
    ASSERT_TRUE(read_csv_record(t, pos, f));
    EXPECT_EQ(f, (std::vector<std::string>{"a,b", "say \"hi\"", "plain", "multi\nline"}));
    ASSERT_TRUE(read_csv_record(t, pos, f));
    EXPECT_EQ(f, (std::vector<std::string>{"x", ""}));   // a short row ends with an empty field
    EXPECT_FALSE(read_csv_record(t, pos, f));
    bool open = false;
    pos = 0;
    read_csv_record("\"never closed,", pos, f, &open);
    EXPECT_TRUE(open);
}

TEST(NcuCsv, NumbersAndUnits)
{
    EXPECT_EQ(parse_ncu_number("3,538,944"), 3538944);
    EXPECT_EQ(parse_ncu_number("927,241,882.29"), 927241882.29);
    EXPECT_EQ(parse_ncu_number("4.0e-05"), 4.0e-05);
    EXPECT_EQ(parse_ncu_number("1.234.567,5", ','), 1234567.5);
    EXPECT_EQ(parse_ncu_number("12,58", ','), 12.58);
    EXPECT_FALSE(parse_ncu_number("n/a"));
    EXPECT_FALSE(parse_ncu_number(""));
    EXPECT_FALSE(parse_ncu_number("cudaFuncCachePreferNone"));
    EXPECT_FALSE(parse_ncu_number("PolicySpread"));
    EXPECT_FALSE(parse_ncu_number("all"));
    struct U { const char* unit; double scale; const char* base; };
    for (const U& u : {U{"nsecond", 1, "ns"}, U{"ns", 1, "ns"}, U{"usecond", 1e3, "ns"}, U{"us", 1e3, "ns"},
                       U{"msecond", 1e6, "ns"}, U{"cycle/nsecond", 1e9, "hz"}, U{"cycle/usecond", 1e6, "hz"},
                       U{"cycle/second", 1, "hz"}, U{"Ghz", 1e9, "hz"}, U{"Mhz", 1e6, "hz"}, U{"hz", 1, "hz"},
                       U{"byte", 1, "byte"}, U{"Kbyte", 1e3, "byte"}, U{"Mbyte", 1e6, "byte"}, U{"Gbyte", 1e9, "byte"},
                       U{"byte/second", 1, "byte/second"}, U{"Gbyte/second", 1e9, "byte/second"},
                       U{"Tbyte/s", 1e12, "byte/second"}, U{"Gbyte/s", 1e9, "byte/second"}, U{"%", 1, "%"},
                       U{"inst", 1, "inst"}, U{"Kinst", 1e3, "inst"}, U{"cycle", 1, "cycle"}, U{"Ksector", 1e3, "sector"},
                       U{"register/thread", 1, "register/thread"}, U{"byte/block", 1, "byte/block"},
                       U{"Kbyte/block", 1e3, "byte/block"}, U{"thread", 1, "thread"}, U{"warp", 1, "warp"},
                       U{"SM", 1, "sm"}, U{"", 1, ""}}) {
        double scale = 0;
        std::string base;
        EXPECT_TRUE(normalize_ncu_unit(u.unit, scale, base)) << u.unit;
        EXPECT_DOUBLE_EQ(scale, u.scale) << u.unit;
        EXPECT_EQ(base, u.base) << u.unit;
    }
    double s;
    std::string b;
    EXPECT_FALSE(normalize_ncu_unit("furlong/fortnight", s, b));
}

// Real: A100, old ncu (2021) details page: 15-column header, 13-field short rows, thousands separators, labels.
TEST(NcuReal, A100DetailsCsv)
{
    const auto path = real("a100_gpt2_flashattn_details_ncu2021.csv");
    if (!path)
        GTEST_SKIP() << "shared data not present";
    const NcuReport r = read_ncu(*path);
    EXPECT_EQ(r.format, "ncu-details-csv");
    EXPECT_EQ(r.decimal_separator, '.');
    ASSERT_EQ(r.launches.size(), 10u);
    size_t rules = 0;
    for (size_t i = 0; i < r.launches.size(); ++i) {
        EXPECT_EQ(r.launches[i].id, static_cast<int64_t>(i));
        rules += r.launches[i].rules.size();
    }
    EXPECT_EQ(rules, 18u);   // SOURCES.md: 18 rule rows
    const NcuLaunch& fmha = r.launches[7];
    EXPECT_EQ(fmha.name.rfind("void fmha_fwd_loop_kernel<FMHA_kernel_traits<(int)128", 0), 0u);
    EXPECT_EQ(r.launches[5].name, "ampere_fp16_s16816gemm_fp16_64x64_sliced1x2_ldg8_relu_f2f_stages_64x6_tn");
    EXPECT_EQ(fmha.process, "python3.10");

    // Launch 0 (RNG kernel): fp32 FLOPs = fadd 0 + fmul 0 + 2 * ffma 3,538,944 = 7,077,888;
    // fp16 = 2 * hadd 221,184 (HADD2 is 2-wide) = 442,368; fp64 0; DRAM 512 bytes.
    const NcuLaunchMetrics m0 = compute_ncu_metrics(r.launches[0]);
    EXPECT_DOUBLE_EQ(*m0.flops_fp32, 7077888);
    EXPECT_DOUBLE_EQ(*m0.flops_fp16, 442368);
    EXPECT_DOUBLE_EQ(*m0.flops_fp64, 0);
    EXPECT_DOUBLE_EQ(*m0.dram_bytes, 512);
    EXPECT_DOUBLE_EQ(*m0.intensity, (7077888.0 + 442368) / 512);
    EXPECT_DOUBLE_EQ(*m0.sm_throughput_pct, 50.10);
    EXPECT_DOUBLE_EQ(*m0.memory_throughput_pct, 12.58);
    // No gpu__time_duration in this file: duration = sm__cycles_elapsed.avg / .avg.per_second
    //   = 12,250.44 / 1,031,877,059.00 s = 11.872 us, flagged as derived.
    EXPECT_TRUE(m0.duration_derived);
    EXPECT_NEAR(*m0.duration_ns, 12250.44 / 1031877059.00 * 1e9, 1e-6);
    EXPECT_NEAR(*m0.achieved_flops_per_s, (7077888 + 442368) / (12250.44 / 1031877059.00), 1e3);
    EXPECT_DOUBLE_EQ(*m0.achieved_occupancy_pct, 50.76);
    EXPECT_DOUBLE_EQ(*m0.theoretical_occupancy_pct, 62.50);
    EXPECT_DOUBLE_EQ(*m0.shared_bank_conflicts, 0);
    EXPECT_FALSE(m0.dram_throughput_pct.has_value());   // not in the file: null, not invented
    EXPECT_FALSE(m0.l2_hit_rate_pct.has_value());

    // FMHA: tensor work is only given as instructions (6,144), so tensor FLOPs stay unknown and are listed missing.
    const NcuLaunchMetrics m7 = compute_ncu_metrics(fmha);
    EXPECT_DOUBLE_EQ(*m7.tensor_instructions, 6144);
    EXPECT_FALSE(m7.flops_tensor.has_value());
    bool listed = false;
    for (const auto& s : m7.missing)
        listed |= s.find("tensor FLOPs") != std::string::npos;
    EXPECT_TRUE(listed);
    EXPECT_DOUBLE_EQ(*m7.dram_bytes, 295808);
    EXPECT_NEAR(*m7.duration_ns, 8664.15 / 927241882.29 * 1e9, 1e-6);
    // fp16 = 2*hadd + 2*hmul + 4*hfma from the file's counters
    const double hadd = num(fmha, "sm__sass_thread_inst_executed_op_hadd_pred_on.sum");
    const double hmul = num(fmha, "sm__sass_thread_inst_executed_op_hmul_pred_on.sum");
    const double hfma = num(fmha, "sm__sass_thread_inst_executed_op_hfma_pred_on.sum");
    EXPECT_DOUBLE_EQ(*m7.flops_fp16, 2 * hadd + 2 * hmul + 4 * hfma);
    // fp32 = 282,624 + 79,872 + 2 * 110,592 = 583,680; fp64 = dmul 6,144
    EXPECT_DOUBLE_EQ(*m7.flops_fp32, 583680);
    EXPECT_DOUBLE_EQ(*m7.flops_fp64, 6144);

    // Against what ncu printed, for every launch:
    for (const auto& l : r.launches) {
        // Theoretical Active Warps per SM = min(block limits) * warps per block
        EXPECT_DOUBLE_EQ(*derived_theoretical_warps(l), num(l, "sm__maximum_warps_avg_per_active_cycle")) << l.id;
        // Achieved Occupancy = Achieved Active Warps Per SM / 64 (A100: 64 warps per SM). Both are printed to 2
        // decimals: +-0.005 warps is +-0.0078 points, plus +-0.005 on the printed percentage.
        EXPECT_NEAR(num(l, "sm__warps_active.avg.per_cycle_active") / 64 * 100,
                    num(l, "sm__warps_active.avg.pct_of_peak_sustained_active"), 0.013)
            << l.id;
        // Threads = block size * grid size
        EXPECT_DOUBLE_EQ(num(l, "launch__block_size") * num(l, "launch__grid_size"), num(l, "launch__thread_count"))
            << l.id;
        // Waves Per SM = grid / (blocks per SM * 108 SMs), printed to 2 decimals (0 when a limit is 0)
        if (const auto w = derived_waves_per_sm(l, 108)) {
            EXPECT_NEAR(*w, num(l, "launch__waves_per_multiprocessor"), 0.005 + 1e-9) << l.id;
        } else {
            EXPECT_DOUBLE_EQ(num(l, "launch__waves_per_multiprocessor"), 0) << l.id;
        }
        // Rules that say "execute only N blocks" name the grid size the file records.
        for (const auto& ru : l.rules) {
            std::smatch mm;
            static const std::regex only(R"(execute only (\d+) blocks)");
            if (std::regex_search(ru.description, mm, only)) {
                EXPECT_EQ(std::stod(mm[1].str()), num(l, "launch__grid_size")) << l.id;
            }
            EXPECT_TRUE(ru.type == "WRN" || ru.type == "OPT" || ru.type == "INF" || ru.type == "ERR") << ru.type;
            EXPECT_FALSE(ru.name.empty());
        }
    }
}

// Real: GH200 text report (ncu 2024, default sections), with app output and ==PROF== lines interleaved.
TEST(NcuReal, Gh200TextReport)
{
    const auto path = real("gh200_silu_pytorch_details.txt");
    if (!path)
        GTEST_SKIP() << "shared data not present";
    const NcuReport r = read_ncu(*path);
    EXPECT_EQ(r.format, "ncu-details-text");
    ASSERT_EQ(r.launches.size(), 10u);
    EXPECT_NE(r.launches[0].name.find("distribution_elementwise_grid_stride_kernel"), std::string::npos);
    for (size_t i = 1; i < 10; ++i) {
        EXPECT_NE(r.launches[i].name.find("silu_kernel"), std::string::npos);
        EXPECT_EQ(r.launches[i].grid, "(524288, 1, 1)");
        EXPECT_EQ(r.launches[i].block, "(128, 1, 1)");
    }
    EXPECT_EQ(r.launches[0].cc, "9.0");
    EXPECT_EQ(r.launches[0].process, "python3.10");
    const NcuLaunch& l0 = r.launches[0];
    EXPECT_DOUBLE_EQ(num(l0, "gpc__cycles_elapsed.avg.per_second"), 1.52e9);   // "1.52 Ghz"
    EXPECT_DOUBLE_EQ(num(l0, "gpu__time_duration.sum"), 777950);              // "777.95 us"
    EXPECT_DOUBLE_EQ(num(l0, "launch__shared_mem_config_size"), 32770);       // "32.77 Kbyte"
    EXPECT_EQ(l0.find("launch__func_cache_config")->text, "CachePreferNone");
    // Rules with ncu's estimated speedups: 50% (global), 19.35% and 37.5% (local)
    ASSERT_GE(l0.rules.size(), 4u);
    EXPECT_EQ(l0.rules[0].type, "OPT");
    EXPECT_EQ(l0.rules[0].section, "GPU Speed Of Light Throughput");
    EXPECT_EQ(l0.rules[0].description.rfind("Compute is more heavily utilized than Memory", 0), 0u);
    EXPECT_FALSE(l0.rules[0].speedup_pct.has_value());
    EXPECT_DOUBLE_EQ(*l0.rules[1].speedup_pct, 50);
    EXPECT_EQ(l0.rules[1].speedup_type, "global");
    EXPECT_NE(l0.rules[1].description.find("partial wave of 397 thread blocks"), std::string::npos);
    EXPECT_DOUBLE_EQ(*l0.rules[2].speedup_pct, 19.35);
    EXPECT_EQ(l0.rules[2].speedup_type, "local");
    EXPECT_DOUBLE_EQ(*l0.rules[3].speedup_pct, 37.5);
    EXPECT_EQ(r.launches[1].rules[0].type, "INF");

    for (const auto& l : r.launches) {
        const NcuLaunchMetrics m = compute_ncu_metrics(l);
        // Duration from Elapsed Cycles / SM Frequency vs the printed Duration: within 1.5% (the frequency is printed
        // to 3 digits, +-0.35%, and elapsed cycles include the launch ramp).
        EXPECT_NEAR(*derived_duration_ns(l) / num(l, "gpu__time_duration.sum"), 1.0, 0.015) << l.id;
        EXPECT_FALSE(m.duration_derived);
        // ncu's Memory Throughput is the busiest of DRAM, L1/TEX and L2.
        EXPECT_DOUBLE_EQ(*m.memory_throughput_pct,
                         std::max({num(l, "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"),
                                   num(l, "l1tex__throughput.avg.pct_of_peak_sustained_active"),
                                   num(l, "lts__throughput.avg.pct_of_peak_sustained_elapsed")}))
            << l.id;
        EXPECT_DOUBLE_EQ(*derived_theoretical_warps(l), num(l, "sm__maximum_warps_avg_per_active_cycle")) << l.id;
        // Waves Per SM = grid / (blocks per SM * "# SMs" 132)
        EXPECT_NEAR(*derived_waves_per_sm(l), num(l, "launch__waves_per_multiprocessor"), 0.005 + 1e-9) << l.id;
        // ... so the metric keeps the digits the two printed decimals drop
        EXPECT_DOUBLE_EQ(*m.waves_per_sm, *derived_waves_per_sm(l)) << l.id;
        // Achieved Occupancy = achieved warps / 64 (Hopper: 64 warps per SM)
        EXPECT_NEAR(num(l, "sm__warps_active.avg.per_cycle_active") / 64 * 100, *m.achieved_occupancy_pct, 0.013);
        EXPECT_DOUBLE_EQ(num(l, "launch__block_size") * num(l, "launch__grid_size"), num(l, "launch__thread_count"));
        // The basic section set has no FLOP counters and no DRAM bytes: null, not invented.
        EXPECT_FALSE(m.flops_fp32.has_value());
        EXPECT_FALSE(m.intensity.has_value());
    }
}

TEST(NcuReal, NcuRepWithoutNcuNamesTheCommand)
{
    const auto path = real("gh200_rmsnorm_triton.ncu-rep");
    if (!path)
        GTEST_SKIP() << "shared data not present";
    NcuReadOptions o;
    o.ncu_binary = "ncu-definitely-not-installed";
    try {
        read_ncu(*path, o);
        FAIL() << ".ncu-rep accepted without ncu";
    } catch (const TraceError& e) {
        const std::string w = e.what();
        EXPECT_NE(w.find("ncu --import"), std::string::npos) << w;
        EXPECT_NE(w.find("--csv --page raw --print-units base"), std::string::npos) << w;
    }
    for (const char* f : {"gh200_rmsnorm_pytorch.ncu-rep", "gh200_silu_pytorch.ncu-rep"}) {
        if (const auto p = real(f)) {
            EXPECT_THROW(read_ncu(*p, o), TraceError);
        }
    }
}

// A .ncu-rep is converted by running `ncu --import` with no shell, and the child gets SIGPIPE back: sightline-cli
// ignores SIGPIPE (exit 4 on a closed output), and a popen child inherited that, so an ncu writing into a closed pipe
// spun instead of ending. The stand-in ncu prints the CSV only when SIGPIPE is not ignored in it (SigIgn bit 12).
TEST(NcuCrafted, NcuRepConvertedByAChildWithDefaultSigpipe)
{
    const std::string d = test::scratch_dir("ncu_rep_child");
    const std::string rep = d + "/k.ncu-rep", ncu = d + "/fake-ncu";
    std::ofstream(rep, std::ios::binary) << std::string("NVR\0rest", 8);
    {
        std::ofstream sh(ncu);
        sh << "#!/bin/sh\n"
              "ign=$(sed -n 's/^SigIgn:[[:space:]]*//p' /proc/self/status)\n"
              "[ $(( 0x$ign & 0x1000 )) -eq 0 ] || { echo 'SIGPIPE ignored' >&2; exit 3; }\n"
              "[ \"$1 $3 $4 $5 $6 $7\" = '--import --csv --page raw --print-units base' ] || exit 4\n"
              "cat '" << fixture("raw_base_units.csv") << "'\n";
    }
    ASSERT_EQ(::chmod(ncu.c_str(), 0755), 0);
    const auto old = ::signal(SIGPIPE, SIG_IGN);
    NcuReadOptions o;
    o.ncu_binary = ncu;
    NcuReport r;
    EXPECT_NO_THROW(r = read_ncu(rep, o));
    ::signal(SIGPIPE, old);
    EXPECT_EQ(r.launches.size(), 3u);
}

TEST(NcuCrafted, RawPageBaseUnits)
{
    const NcuReport r = read_ncu(fixture("raw_base_units.csv"));
    EXPECT_EQ(r.format, "ncu-raw-csv");
    ASSERT_EQ(r.launches.size(), 3u);
    const NcuLaunch& g = r.launches[0];
    EXPECT_EQ(g.name, "void gemm_kernel<float, 128, 64>(Params<float, int>, int, float*)");   // commas kept
    EXPECT_EQ(g.cc, "9.0");
    const NcuLaunchMetrics m = compute_ncu_metrics(g);
    EXPECT_DOUBLE_EQ(*m.duration_ns, 10240);
    EXPECT_DOUBLE_EQ(*m.dram_bytes, 1024000);            // 1,000,000 read + 24,000 written
    EXPECT_DOUBLE_EQ(*m.flops_fp32, 2300);               // 100 + 200 + 2*1,000
    EXPECT_DOUBLE_EQ(*m.flops_tensor, 2.5e6);            // already ops
    EXPECT_DOUBLE_EQ(*m.flops_total, 2502300);
    EXPECT_DOUBLE_EQ(*m.intensity, 2502300.0 / 1024000);
    EXPECT_DOUBLE_EQ(*m.achieved_flops_per_s, 2502300 / 10240e-9);
    EXPECT_DOUBLE_EQ(*m.sm_clock_hz, 1.755e9);
    EXPECT_DOUBLE_EQ(*m.block_size, 256);
    EXPECT_DOUBLE_EQ(*m.grid_size, 100);
    ASSERT_EQ(m.top_stalls.size(), 3u);
    EXPECT_EQ(m.top_stalls[0].reason, "long_scoreboard");
    EXPECT_EQ(m.top_stalls[1].reason, "math_pipe_throttle");
    EXPECT_EQ(m.top_stalls[2].reason, "barrier");
    const NcuLaunchMetrics m1 = compute_ncu_metrics(r.launches[1]);
    EXPECT_DOUBLE_EQ(*m1.sm_clock_hz, 1.7e9);            // scientific notation
    EXPECT_DOUBLE_EQ(*m1.flops_fp32, 45056);             // 4,096 + 8,192 + 2*16,384
    EXPECT_DOUBLE_EQ(*m1.flops_fp16, 180);               // 2*10 + 2*20 + 4*30
    EXPECT_DOUBLE_EQ(*m1.flops_fp64, 9);                 // 1 + 2 + 2*3
    EXPECT_EQ(m1.top_stalls[1].reason, "wait");          // math_pipe_throttle is n/a here
    const NcuLaunchMetrics m2 = compute_ncu_metrics(r.launches[2]);   // a launch with empty and n/a values
    EXPECT_DOUBLE_EQ(*m2.duration_ns, 2000);
    EXPECT_FALSE(m2.dram_bytes.has_value());
    EXPECT_FALSE(m2.flops_fp32.has_value());
    EXPECT_FALSE(m2.sm_throughput_pct.has_value());
    EXPECT_FALSE(m2.missing.empty());
}

TEST(NcuCrafted, RawPageAutoUnits)
{
    const NcuReport r = read_ncu(fixture("raw_auto_units.csv"));
    ASSERT_EQ(r.launches.size(), 2u);
    const NcuLaunch& l = r.launches[0];
    EXPECT_DOUBLE_EQ(num(l, "gpu__time_duration.sum"), 12500);        // 12.5 usecond
    EXPECT_DOUBLE_EQ(num(l, "dram__bytes.sum"), 3.5e6);               // 3.5 Mbyte
    EXPECT_DOUBLE_EQ(num(l, "dram__bytes.sum.per_second"), 2.8e11);   // 280 Gbyte/second
    EXPECT_DOUBLE_EQ(num(l, "gpc__cycles_elapsed.avg.per_second"), 1.41e9);   // 1.41 cycle/nsecond
    EXPECT_DOUBLE_EQ(num(l, "lts__t_bytes.sum"), 2048500);            // 2,048.5 Kbyte
    EXPECT_DOUBLE_EQ(num(l, "launch__shared_mem_per_block_static"), 48000);
    const NcuLaunchMetrics m = compute_ncu_metrics(l);
    EXPECT_DOUBLE_EQ(*m.l1_hit_rate_pct, 35.2);
    EXPECT_DOUBLE_EQ(*m.l2_hit_rate_pct, 78.9);
    EXPECT_DOUBLE_EQ(*m.tensor_pipe_pct, 64.5);
    EXPECT_DOUBLE_EQ(num(r.launches[1], "gpu__time_duration.sum"), 15000);   // 1.5e1 usecond
}

TEST(NcuCrafted, DetailsPageWithSwappedLocale)
{
    const NcuReport r = read_ncu(fixture("details_locale_de.csv"));
    EXPECT_EQ(r.decimal_separator, ',');
    ASSERT_EQ(r.launches.size(), 1u);
    const NcuLaunch& l = r.launches[0];
    EXPECT_DOUBLE_EQ(num(l, "dram__cycles_elapsed.avg.per_second"), 10.24e9);   // "10,24" Ghz
    EXPECT_DOUBLE_EQ(num(l, "gpc__cycles_elapsed.max"), 1234567);              // "1.234.567"
    EXPECT_DOUBLE_EQ(num(l, "gpu__time_duration.sum"), 489910);                // "489,91" us
    EXPECT_DOUBLE_EQ(num(l, "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"), 88.40);
    EXPECT_DOUBLE_EQ(num(l, "dram__bytes.sum.per_second"), 255.72e9);          // same label, other unit
    EXPECT_DOUBLE_EQ(*derived_duration_ns(l), 1234567 / 2.52e9 * 1e9);
    EXPECT_NEAR(*derived_duration_ns(l), num(l, "gpu__time_duration.sum"), 5);
    EXPECT_DOUBLE_EQ(*compute_ncu_metrics(l).grid_size, 1024);                 // "(1.024, 1, 1)"
    ASSERT_EQ(l.rules.size(), 2u);
    EXPECT_EQ(l.rules[0].name, "SOLBottleneck");
    EXPECT_EQ(l.rules[0].speedup_type, "global");
    EXPECT_DOUBLE_EQ(*l.rules[0].speedup_pct, 0);
    EXPECT_EQ(l.rules[1].name, "LaunchConfiguration");
    EXPECT_DOUBLE_EQ(*l.rules[1].speedup_pct, 33.33);
    EXPECT_NE(l.rules[1].description.find("in parallel, \"tail\" effect"), std::string::npos);
    // Forcing the separator overrides detection.
    NcuReadOptions o;
    o.decimal_separator = '.';
    const NcuReport forced = read_ncu(fixture("details_locale_de.csv"), o);
    // With '.' forced, "10,24" is a misplaced digit group (not ten hundred twenty-four, as "1,2,3" is not 123) and
    // "1.234.567" is no number at all; both are counted in the warning.
    EXPECT_FALSE(forced.launches[0].number("dram__cycles_elapsed.avg.per_second").has_value());
    EXPECT_FALSE(forced.launches[0].number("gpc__cycles_elapsed.max").has_value());
    bool warned = false;
    for (const auto& w : forced.warnings)
        warned |= w.find("with misplaced digit-group or decimal separators were not read as numbers") != std::string::npos;
    EXPECT_TRUE(warned);
}

TEST(NcuCrafted, BadFilesGiveClearErrors)
{
    struct Bad { const char* file; const char* expect; };
    for (const Bad& b : {Bad{"bad_no_header.csv", "\"ID\""}, Bad{"bad_id.csv", "line 3"},
                         Bad{"bad_unterminated_quote.csv", "closing quote"},
                         Bad{"bad_too_many_fields.csv", "at most 7 fields"},
                         Bad{"bad_no_kernel_column.csv", "Kernel Name"}, Bad{"bad_empty.csv", "empty file"},
                         Bad{"bad_binary.csv", "Nsight Compute export"}}) {
        try {
            read_ncu(fixture(b.file));
            ADD_FAILURE() << b.file << " accepted";
        } catch (const TraceError& e) {
            EXPECT_NE(std::string(e.what()).find(b.expect), std::string::npos) << b.file << ": " << e.what();
            EXPECT_NE(e.file().find(b.file), std::string::npos);
        }
    }
    EXPECT_THROW(read_ncu(fixture("does_not_exist.csv")), TraceError);
}

// Every prefix of the real CSV and text report, and byte-flipped copies, either parse or throw TraceError.
TEST(NcuCrafted, TruncatedAndCorruptedRealFilesNeverCrash)
{
    for (const char* f : {"a100_gpt2_flashattn_details_ncu2021.csv", "gh200_silu_pytorch_details.txt"}) {
        const auto path = real(f);
        if (!path)
            GTEST_SKIP() << "shared data not present";
        std::ifstream in(*path, std::ios::binary);
        std::stringstream ss;
        ss << in.rdbuf();
        const std::string full = ss.str();
        int parsed = 0, rejected = 0;
        for (size_t cut = 0; cut < full.size(); cut += full.size() / 97 + 1) {
            try {
                parse_ncu_text(full.substr(0, cut), f);
                ++parsed;
            } catch (const TraceError&) {
                ++rejected;
            }
        }
        uint32_t seed = 12345;
        for (int k = 0; k < 40; ++k) {
            std::string c = full;
            for (int j = 0; j < 20; ++j) {
                seed = seed * 1664525u + 1013904223u;
                c[seed % c.size()] = static_cast<char>(seed >> 24);
            }
            try {
                parse_ncu_text(c, f);
                ++parsed;
            } catch (const TraceError&) {
                ++rejected;
            }
        }
        EXPECT_GT(parsed, 0) << f;
        EXPECT_GT(rejected, 0) << f;
    }
}
