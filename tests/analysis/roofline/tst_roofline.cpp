// The measured side of the Roofline: E_roof per operator class and phase, the focus set (Top-K by time union
// E_roof < tau), measured times from per-kernel classes, ncu launches joined to trace kernels by name and order,
// and the JSON layout (nulls where nothing was measured).
#include <gtest/gtest.h>

#include "analysis/roofline/gpu_specs.h"
#include "analysis/io/ncu_reader.h"
#include "analysis/roofline/roofline.h"
#include "analysis/report/roofline_json.h"
#include "analysis/trace/trace.h"
#include "tests/support/test_env.h"

using namespace sl;

namespace {
struct Fixture {
    ModelConfig model;
    CostModelResult cost;
};

Fixture llama()
{
    Fixture f;
    f.model = load_model_config(test::source_dir() + "/tests/data/models/llama_tiny_config.json");
    GpuSpec h100 = *GpuDatabase::load(test::source_dir() + "/resources/gpus.json").find("H100 SXM");
    // The join and the focus set on the plain Roofline bound: this tiny model's operators take a few ns, far below
    // the H100's time floor (0.832 us a kernel), which tst_cost_model checks; here the floor is left out so the
    // planted times stay far above the theory.
    h100.min_kernel_ns = 0;
    CostOptions o;
    o.batch = 2;
    o.prompt = 8;
    o.context = 16;
    f.cost = estimate_costs(f.model, h100, o);
    return f;
}

// Independent sum of the cost model's operators of one class in one phase.
double theory(const CostModelResult& c, Phase p, const std::string& cls)
{
    double t = 0;
    for (const auto& op : c.phase(p)->ops)
        if (op.op_class == cls)
            t += *op.t_theory_ns;
    return t;
}

const ClassEfficiency* cls(const RooflineReport& r, const std::string& c, const std::string& phase)
{
    for (const auto& x : r.classes)
        if (x.op_class == c && x.phase == phase)
            return &x;
    return nullptr;
}
} // namespace

TEST(Roofline, TheoryOnlyHasNoMeasurementsAndNoFocus)
{
    const Fixture f = llama();
    const RooflineReport r = make_roofline(f.cost);
    EXPECT_FALSE(r.measured);
    EXPECT_TRUE(r.focus.empty());
    const auto* g = cls(r, "gemm", "decode");
    ASSERT_NE(g, nullptr);
    EXPECT_NEAR(*g->t_theory_ns, theory(f.cost, Phase::Decode, "gemm"), 1e-9);
    EXPECT_FALSE(g->t_actual_ns.has_value());
    EXPECT_FALSE(g->e_roof.has_value());
    // q/k/v/o, gate/up/down and lm_head are the decode GEMMs
    EXPECT_EQ(g->operators.size(), 8u);
    const auto j = roofline_to_json(r, f.model);
    EXPECT_TRUE(j["operators"][0]["t_actual_ns"].is_null());
    EXPECT_TRUE(j["operators"][0]["e_roof"].is_null());
    EXPECT_EQ(j["phases"].size(), 2u);
    EXPECT_EQ(j["phases"][0]["phase"], "prefill");
    EXPECT_TRUE(j["focus"].empty());
    EXPECT_DOUBLE_EQ(j["peaks"]["bf16"].get<double>(), 989.4e12);
    EXPECT_TRUE(j["peaks"]["fp16_fp16acc"].is_null());
}

TEST(Roofline, EfficiencyPerClassAndPhaseAndFocus)
{
    const Fixture f = llama();
    MeasuredPhase pre{"prefill", 1, {{"gemm", 5000}, {"attention", 400}, {"norm", 90}, {"sampling", 300}}};
    MeasuredPhase dec{"decode", 10, {{"gemm", 200000}, {"attention", 50000}, {"norm", 1000}, {"elementwise", 900}}};
    RooflineOptions o;
    o.top_k = 2;
    o.tau = 0.3;
    const RooflineReport r = join_roofline(f.cost, {pre, dec}, o);
    EXPECT_TRUE(r.measured);
    // decode gemm: 200,000 ns over 10 steps = 20,000 ns per step; E_roof = T_theory / 20,000
    const auto* g = cls(r, "gemm", "decode");
    ASSERT_NE(g, nullptr);
    EXPECT_DOUBLE_EQ(*g->t_actual_ns, 20000);
    EXPECT_NEAR(*g->e_roof, theory(f.cost, Phase::Decode, "gemm") / 20000, 1e-12);
    // prefill attention: one pass, 400 ns
    const auto* a = cls(r, "attention", "prefill");
    EXPECT_NEAR(*a->e_roof, theory(f.cost, Phase::Prefill, "attention") / 400, 1e-12);
    // sampling is measured but not modelled: time, no E_roof
    const auto* s = cls(r, "sampling", "prefill");
    ASSERT_NE(s, nullptr);
    EXPECT_FALSE(s->t_theory_ns.has_value());
    EXPECT_FALSE(s->e_roof.has_value());
    // Focus: Top-2 by total time (decode gemm 200,000, decode attention 50,000) plus every class with
    // E_roof < 0.3 (this tiny model's theoretical times are a few ns, so every modelled class is far below).
    ASSERT_FALSE(r.focus.empty());
    EXPECT_EQ(r.focus[0].op_class, "gemm");
    EXPECT_EQ(r.focus[0].phase, "decode");
    EXPECT_TRUE(r.focus[0].top_k);
    EXPECT_EQ(r.focus[1].op_class, "attention");
    EXPECT_TRUE(r.focus[1].top_k);
    size_t low = 0;
    for (const auto& fi : r.focus) {
        if (!fi.top_k) {
            EXPECT_TRUE(fi.low_efficiency);
            ++low;
        }
        if (fi.op_class == "sampling") {
            EXPECT_FALSE(fi.low_efficiency);   // no E_roof: only Top-K can bring it in
        }
    }
    // prefill gemm, prefill attention, prefill norm, decode norm, decode elementwise
    EXPECT_EQ(low, 5u);
    // An operator alone in its class gets the class's measured time; one of several does not.
    EXPECT_DOUBLE_EQ(*r.operator_actual_ns("attention", Phase::Decode), 5000);
    EXPECT_FALSE(r.operator_actual_ns("q_proj", Phase::Decode).has_value());
    const auto j = roofline_to_json(r, f.model);
    bool found = false;
    for (const auto& op : j["operators"]) {
        if (op["name"] == "attention" && op["phase"] == "decode") {
            found = true;
            EXPECT_DOUBLE_EQ(op["t_actual_ns"].get<double>(), 5000);
            EXPECT_NEAR(op["e_roof"].get<double>(), op["t_theory_ns"].get<double>() / 5000, 1e-12);
        }
        if (op["name"] == "q_proj") {
            EXPECT_TRUE(op["e_roof"].is_null());
        }
    }
    EXPECT_TRUE(found);
    EXPECT_EQ(j["focus"][0]["reasons"][0], "top_k");
    // A huge tau puts every measured class with an E_roof in the focus; tau 0 and K 0 leave it empty.
    o.top_k = 0;
    o.tau = 0;
    EXPECT_TRUE(join_roofline(f.cost, {pre, dec}, o).focus.empty());
}

TEST(Roofline, MeasuredTimesFromKernelClasses)
{
    Trace t;
    const StrId g = t.strings.intern("gemm_kernel"), a = t.strings.intern("flash_fwd");
    t.kernels.append(0, 100, g);      // prefill gemm 100
    t.kernels.append(100, 130, a);    // prefill attention 30
    t.kernels.append(200, 210, g);    // decode gemm 10
    t.kernels.append(210, 215, a);    // decode attention 5
    t.kernels.append(300, 311, g);    // decode gemm 11
    t.kernels.append(311, 320, t.strings.intern("mystery"));   // unclassified
    const std::vector<std::string> ids = {"gemm", "attention"};
    const std::vector<int16_t> k = {0, 1, 0, 1, 0, -1};
    const std::vector<bool> pre = {true, true, false, false, false, false};
    const auto m = measured_times(t, k, ids, pre, 1, 2);
    ASSERT_EQ(m.size(), 2u);
    EXPECT_EQ(m[0].phase, "prefill");
    EXPECT_EQ(m[0].class_ns.at("gemm"), 100);
    EXPECT_EQ(m[0].class_ns.at("attention"), 30);
    EXPECT_EQ(m[1].passes, 2);
    EXPECT_EQ(m[1].class_ns.at("gemm"), 21);
    EXPECT_EQ(m[1].class_ns.at("attention"), 5);
    EXPECT_EQ(m[1].class_ns.size(), 2u);
}

// Titles name a kernel by its base name, marking left-out template arguments; plain names stay as they are.
TEST(Roofline, KernelDisplayNamesAreShortAndSayWhatWasLeftOut)
{
    EXPECT_EQ(kernel_display_name("void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 64>, true>(Params)"),
              "flash_fwd_kernel<…>");
    EXPECT_EQ(kernel_display_name("void vllm::reshape_and_cache_flash_kernel<__nv_bfloat16, __nv_bfloat16, "
                                  "(vllm::Fp8KVCacheDataType)0>(__nv_bfloat16 const*, long const*, int, int)"),
              "vllm::reshape_and_cache_flash_kernel<…>");
    EXPECT_EQ(kernel_display_name("void rms_norm(float*, std::vector<int>)"), "rms_norm");   // '<' only in the parameters
    EXPECT_EQ(kernel_display_name("ampere_fp16_s16816gemm_fp16_64x64_tn"), "ampere_fp16_s16816gemm_fp16_64x64_tn");
    EXPECT_EQ(kernel_display_name("<unnamed>"), "<unnamed>");   // nothing would be left
    EXPECT_EQ(kernel_display_name(""), "");
}

TEST(Roofline, NcuLaunchesJoinTraceKernelsByNameAndOrder)
{
    EXPECT_EQ(kernel_base_name("void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 64>, true>(Params)"),
              "flash_fwd_kernel");
    EXPECT_EQ(kernel_base_name("void at::native::vectorized_elementwise_kernel<4, F>(int, F)"),
              "at::native::vectorized_elementwise_kernel");
    EXPECT_EQ(kernel_base_name("ampere_fp16_s16816gemm_fp16_64x64_tn"), "ampere_fp16_s16816gemm_fp16_64x64_tn");
    Trace t;
    const StrId full = t.strings.intern("void rms_norm_kernel<c10::BFloat16>(float*, int)");
    const StrId gemm = t.strings.intern("sm90_xmma_gemm_bf16");
    t.kernels.append(50, 60, full);    // 0
    t.kernels.append(10, 20, gemm);    // 1 (earliest)
    t.kernels.append(30, 40, full);    // 2 (first rms by start)
    t.kernels.append(70, 80, gemm);    // 3
    NcuReport r;
    auto add = [&](const std::string& n) {
        NcuLaunch l;
        l.id = static_cast<int64_t>(r.launches.size());
        l.name = n;
        r.launches.push_back(l);
    };
    add("sm90_xmma_gemm_bf16");                                  // -> 1
    add("rms_norm_kernel");                                      // base name -> 2
    add("void rms_norm_kernel<c10::BFloat16>(float*, int)");     // exact -> 2 as well (separate counters)
    add("rms_norm_kernel");                                      // second base match -> 0
    add("sm90_xmma_gemm_bf16");                                  // -> 3
    add("sm90_xmma_gemm_bf16");                                  // no third instance -> -1
    add("unknown_kernel");                                       // -> -1
    EXPECT_EQ(join_ncu_to_trace(r, t), (std::vector<int64_t>{1, 2, 2, 0, 3, -1, -1}));
    const auto j = ncu_to_json(r, nullptr);
    EXPECT_EQ(j["launches"].size(), 7u);
    EXPECT_TRUE(j["launches"][0]["duration_ns"].is_null());   // nothing in an empty launch: all null
    EXPECT_TRUE(j["launches"][0]["flops"]["fp32"].is_null());
    EXPECT_FALSE(j["launches"][0].contains("trace_kernel"));
    const auto idx = join_ncu_to_trace(r, t);
    EXPECT_EQ(ncu_to_json(r, &idx)["launches"][0]["trace_kernel"], 1);
    EXPECT_TRUE(ncu_to_json(r, &idx)["launches"][6]["trace_kernel"].is_null());
}
