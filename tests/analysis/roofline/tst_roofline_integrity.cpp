// Roofline integrity (issue 15): an E_roof above the roof is a data-consistency warning, never an efficiency; weight
// bytes follow quantization_config; tensor parallelism divides one rank's work.
#include <gtest/gtest.h>

#include "analysis/io/model_config.h"
#include "analysis/report/roofline_json.h"
#include "analysis/roofline/cost_model.h"
#include "analysis/roofline/gpu_specs.h"
#include "analysis/roofline/roofline.h"
#include "analysis/trace/errors.h"
#include "tests/support/test_env.h"

#include <fstream>
#include <sstream>

using namespace sl;

namespace {

ModelConfig llama() { return load_model_config(test::source_dir() + "/tests/data/models/llama_tiny_config.json"); }

GpuSpec h100() { return *GpuDatabase::load(test::source_dir() + "/resources/gpus.json").find("H100 SXM"); }

std::string read_text(const std::string& p)
{
    std::ifstream f(p);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

// Every "e_roof" number anywhere in the document.
void collect_e_roof(const nlohmann::json& j, std::vector<double>& out)
{
    if (j.is_object()) {
        for (auto it = j.begin(); it != j.end(); ++it) {
            if (it.key() == "e_roof" && it.value().is_number())
                out.push_back(it.value().get<double>());
            collect_e_roof(it.value(), out);
        }
    } else if (j.is_array()) {
        for (const auto& x : j)
            collect_e_roof(x, out);
    }
}

// A config.json with a quantization_config block added.
ModelConfig with_quant(const std::string& quant)
{
    auto j = nlohmann::json::parse(read_text(test::source_dir() + "/tests/data/models/llama_tiny_config.json"));
    j["quantization_config"] = nlohmann::json::parse(quant);
    return parse_model_config(j.dump(), "quant_config.json");
}

} // namespace

TEST(RooflineIntegrity, ERoofAboveTheRoofBecomesAConsistencyWarning)
{
    const ModelConfig m = llama();
    CostOptions o;
    o.batch = 2;
    o.prompt = 8;
    o.context = 16;
    const CostModelResult cost = estimate_costs(m, h100(), o);
    double t_gemm = 0;
    for (const auto& op : cost.phase(Phase::Decode)->ops)
        if (op.op_class == "gemm")
            t_gemm += *op.t_theory_ns;
    // Decode GEMMs measured at half their Roofline time (E_roof 2.0: impossible); attention at 4x (E_roof 0.25).
    double t_attn = 0;
    for (const auto& op : cost.phase(Phase::Decode)->ops)
        if (op.op_class == "attention")
            t_attn += *op.t_theory_ns;
    MeasuredPhase dec{"decode", 1,
                      {{"gemm", static_cast<int64_t>(t_gemm / 2)}, {"attention", static_cast<int64_t>(t_attn * 4)}}};
    const RooflineReport r = join_roofline(cost, {dec});
    const ClassEfficiency* g = nullptr;
    const ClassEfficiency* a = nullptr;
    for (const auto& c : r.classes) {
        if (c.op_class == "gemm" && c.phase == "decode")
            g = &c;
        if (c.op_class == "attention" && c.phase == "decode")
            a = &c;
    }
    ASSERT_NE(g, nullptr);
    ASSERT_NE(a, nullptr);
    EXPECT_FALSE(g->e_roof.has_value());
    ASSERT_TRUE(g->e_roof_inconsistent.has_value());
    EXPECT_GT(*g->e_roof_inconsistent, 1.9);   // ≈ 2 (integer ns of a tiny model's few-ns theory)
    // Decode GEMMs are memory-bound: the weight dtype is named first, then tensor parallelism.
    EXPECT_EQ(g->inconsistency.rfind("dtype:", 0), 0u) << g->inconsistency;
    EXPECT_NE(g->inconsistency.find("--tp"), std::string::npos);
    ASSERT_TRUE(a->e_roof.has_value());
    EXPECT_NEAR(*a->e_roof, 0.25, 0.01);
    bool warned = false;
    for (const auto& w : r.warnings)
        warned |= w.find("data consistency: gemm decode") != std::string::npos;
    EXPECT_TRUE(warned);
    // The impossible class is not in the focus set as "low efficiency" and its E_roof is not there either.
    for (const auto& f : r.focus) {
        if (f.op_class == "gemm" && f.phase == "decode") {
            EXPECT_FALSE(f.e_roof.has_value());
        }
    }

    // JSON: no e_roof above 1.05 anywhere (operators, phases, classes, focus); the value moves to e_roof_inconsistent.
    const auto j = roofline_to_json(r, m);
    std::vector<double> all;
    collect_e_roof(j, all);
    EXPECT_FALSE(all.empty());
    for (double e : all)
        EXPECT_LE(e, kMaxPlausibleERoof);
    bool moved = false;
    for (const auto& c : j["classes"])
        if (c["class"] == "gemm" && c["phase"] == "decode") {
            EXPECT_TRUE(c["e_roof"].is_null());
            moved = c.contains("e_roof_inconsistent") && c.contains("consistency_warning");
        }
    EXPECT_TRUE(moved);
}

TEST(RooflineIntegrity, WeightBytesFollowQuantizationConfig)
{
    EXPECT_DOUBLE_EQ(with_quant(R"({"quant_method":"fp8","fmt":"e4m3"})").quant_weight_bytes, 1.0);
    EXPECT_DOUBLE_EQ(with_quant(R"({"quant_method":"mxfp4"})").quant_weight_bytes, 0.5 + 1.0 / 32);
    // AWQ and GPTQ store an fp16 scale and a b-bit zero point per group of each output column.
    EXPECT_DOUBLE_EQ(with_quant(R"({"quant_method":"awq","bits":4,"group_size":128})").quant_weight_bytes,
                     0.5 + (2.0 + 0.5) / 128);
    EXPECT_DOUBLE_EQ(with_quant(R"({"quant_method":"gptq","bits":8,"group_size":64})").quant_weight_bytes,
                     1.0 + (2.0 + 1.0) / 64);
    EXPECT_DOUBLE_EQ(with_quant(R"({"quant_method":"modelopt","quant_algo":"NVFP4"})").quant_weight_bytes,
                     0.5 + 1.0 / 16);
    EXPECT_DOUBLE_EQ(
        with_quant(R"({"quant_method":"compressed-tensors","config_groups":{"group_0":{"weights":{"num_bits":8,)"
                   R"("type":"float"}}}})")
            .quant_weight_bytes,
        1.0);
    const ModelConfig unknown = with_quant(R"({"quant_method":"mystery"})");
    EXPECT_DOUBLE_EQ(unknown.quant_weight_bytes, 0.0);

    // The cost model uses it unless --weight-dtype says otherwise; decode GEMM bytes are mostly weights.
    const ModelConfig mx = with_quant(R"({"quant_method":"mxfp4"})");
    CostOptions o;
    const CostModelResult q = estimate_costs(mx, h100(), o);
    EXPECT_DOUBLE_EQ(q.weight_bytes, 0.53125);
    o.weight_dtype = "bf16";
    EXPECT_DOUBLE_EQ(estimate_costs(mx, h100(), o).weight_bytes, 2.0);
}

TEST(RooflineIntegrity, TensorParallelismDividesOneRanksWork)
{
    const ModelConfig m = llama();
    CostOptions o;
    o.batch = 4;
    const CostModelResult one = estimate_costs(m, h100(), o);
    o.tp = 8;
    const CostModelResult eight = estimate_costs(m, h100(), o);
    for (size_t i = 0; i < one.phase(Phase::Decode)->ops.size(); ++i) {
        const OpCost& a = one.phase(Phase::Decode)->ops[i];
        const OpCost& b = eight.phase(Phase::Decode)->ops[i];
        ASSERT_EQ(a.name, b.name);
        const bool whole = a.op_class == "norm" || a.op_class == "elementwise" || a.op_class == "embedding";
        EXPECT_DOUBLE_EQ(b.flops, whole ? a.flops : a.flops / 8) << a.name;
        EXPECT_DOUBLE_EQ(b.bytes, whole ? a.bytes : a.bytes / 8) << a.name;
    }
    o.tp = 0;
    EXPECT_THROW(estimate_costs(m, h100(), o), TraceError);
}

TEST(RooflineIntegrity, RocmDeviceNamesResolve)
{
    const GpuDatabase db = GpuDatabase::load(test::source_dir() + "/resources/gpus.json");
    const GpuSpec* mi300 = db.match_device("gfx942");
    ASSERT_NE(mi300, nullptr);
    EXPECT_EQ(mi300->name, "MI300X");
    EXPECT_TRUE(mi300->peaks.bf16.has_value());
    EXPECT_EQ(db.match_device("gfx942:sramecc+:xnack-")->name, "MI300X");
    EXPECT_EQ(db.match_device("gfx9420"), nullptr);
    // CDNA2: ROCm shows each MI250X die (GCD) as a device, so gfx90a gets the board's rates halved.
    const GpuSpec* mi250x = db.match_device("gfx90a:sramecc+:xnack-");
    ASSERT_NE(mi250x, nullptr);
    EXPECT_EQ(mi250x->name, "MI250X (one GCD)");
    EXPECT_DOUBLE_EQ(*mi250x->peaks.bf16, 383.0e12 / 2);
    EXPECT_DOUBLE_EQ(mi250x->mem_bw_Bps, 1638e9);
    EXPECT_FALSE(mi250x->peaks.fp8.has_value());
    EXPECT_EQ(db.match_device("AMD Instinct MI250X")->name, "MI250X (one GCD)");
    EXPECT_EQ(db.match_device("gfx90a0"), nullptr);
}
