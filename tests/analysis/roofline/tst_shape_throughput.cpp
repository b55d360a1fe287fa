// Measured throughput from Kineto's recorded shapes (analysis/roofline/shape_throughput.h), issue 15.
#include "analysis/io/kineto_reader.h"
#include "analysis/roofline/gemm_dims.h"
#include "analysis/roofline/gpu_specs.h"
#include "analysis/roofline/shape_throughput.h"
#include "tests/support/test_env.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

using namespace sl;

namespace {

std::string write_file(const std::string& name, const std::string& text)
{
    const std::string path = test::scratch_dir("shape_throughput_" + name) + "/" + name;
    std::ofstream(path) << text;
    return path;
}

// One CPU op with shapes, its launch (External id + correlation) and the kernel it launched (dur in µs).
std::string op_events(const std::string& name, const std::string& dims, const std::string& types,
                      const std::string& concrete, int ext, int corr, double ts, double kernel_dur,
                      const std::string& kernel = "k")
{
    std::ostringstream o;
    o << R"({"ph":"X","cat":"cpu_op","name":")" << name << R"(","pid":1,"tid":1,"ts":)" << ts
      << R"(,"dur":20,"args":{"External id":)" << ext << R"(,"Input Dims":)" << dims << R"(,"Input type":)" << types
      << R"(,"Concrete Inputs":)" << concrete << "}},\n";
    o << R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":)" << ts + 1
      << R"(,"dur":5,"args":{"External id":)" << ext << R"(,"correlation":)" << corr << "}},\n";
    o << R"({"ph":"X","cat":"kernel","name":")" << kernel << R"(","pid":0,"tid":7,"ts":)" << ts + 10
      << R"(,"dur":)" << kernel_dur << R"(,"args":{"device":0,"stream":7,"correlation":)" << corr << "}}";
    return o.str();
}

const ShapePoint* find_point(const ShapeRooflineResult& r, const std::string& op)
{
    for (const auto& p : r.points)
        if (p.op == op)
            return &p;
    return nullptr;
}

} // namespace

TEST(ShapeThroughput, GemmAttentionNormFromShapesJoinedThroughExternalId)
{
    const std::string json =
        R"({"deviceProperties":[{"id":0,"name":"NVIDIA H100 80GB HBM3"}],"traceEvents":[)" +
        // Two calls of one mm shape: 2·128·512·256 FLOPs each, kernels of 1 µs and 3 µs.
        op_events("aten::mm", "[[128,256],[256,512]]", R"(["c10::BFloat16","c10::BFloat16"])", R"(["",""])", 10, 100,
                  1000, 1.0, "nvjet_tst_128x256") + ",\n" +
        op_events("aten::mm", "[[128,256],[256,512]]", R"(["c10::BFloat16","c10::BFloat16"])", R"(["",""])", 11, 101,
                  1100, 3.0, "nvjet_tst_128x256") + ",\n" +
        // Causal flash attention, [B, S, H, D] with GQA (Hq 8, Hk 2), Sq = Sk = 4: 10 unmasked pairs of 16.
        op_events("aten::_flash_attention_forward", "[[1,4,8,64],[1,4,2,64],[1,4,2,64],[],[]]",
                  R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16","",""])",
                  R"(["","","","","","4","4","0.","True","False"])", 12, 102, 1200, 2.0, "flash_fwd") + ",\n" +
        op_events("aten::layer_norm", "[[64,1024],[],[1024],[1024],[],[]]",
                  R"(["float","ScalarList","float","float","Scalar","Scalar"])", R"(["","[1024]","","","1e-05",""])",
                  13, 103, 1300, 1.0, "layer_norm_kernel") + ",\n" +
        // Shapes but no launch carries its External id: not joined.
        R"({"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":1400,"dur":3,"args":{"External id":99,)"
        R"("Input Dims":[[2,2],[2,2]],"Input type":["float","float"]}}]})";
    const Trace t = read_kineto_json(write_file("ops.json", json));
    const GpuDatabase db = GpuDatabase::load_default();
    const GpuSpec* h100 = db.match_device("NVIDIA H100 80GB HBM3");
    ASSERT_NE(h100, nullptr);
    const ShapeRooflineResult r = shape_roofline(t, h100);
    EXPECT_EQ(r.ops_with_shapes, 5);
    EXPECT_EQ(r.calls_joined, 4);
    ASSERT_EQ(r.points.size(), 3u);

    const ShapePoint* mm = find_point(r, "aten::mm");
    ASSERT_NE(mm, nullptr);
    EXPECT_EQ(mm->family, "gemm");
    EXPECT_EQ(mm->dtype, "bf16");
    EXPECT_EQ(mm->shape, "M=128 N=512 K=256");
    EXPECT_EQ(mm->calls, 2);
    EXPECT_EQ(mm->kernel_ns, 4000);
    EXPECT_DOUBLE_EQ(mm->flops_per_call, 2.0 * 128 * 512 * 256);
    EXPECT_DOUBLE_EQ(mm->bytes_per_call, 2.0 * (128 * 256 + 256 * 512 + 128 * 512));
    EXPECT_NEAR(mm->tflops, 2 * 2.0 * 128 * 512 * 256 / 4000 / 1e3, 1e-9);
    EXPECT_NEAR(mm->max_call_tflops, 2.0 * 128 * 512 * 256 / 1000 / 1e3, 1e-9);
    EXPECT_NEAR(mm->min_call_tflops, 2.0 * 128 * 512 * 256 / 3000 / 1e3, 1e-9);
    // Intensity 33554432 / 458752 = 73 FLOP/B, under H100's bf16 ridge (≈ 295): memory-bound, % of the slanted roof.
    EXPECT_EQ(mm->bound, "memory");
    ASSERT_TRUE(mm->pct_of_roof.has_value());
    EXPECT_NEAR(*mm->pct_of_roof, 100.0 * mm->tflops * 1e12 / (mm->intensity * h100->mem_bw_Bps), 1e-6);
    ASSERT_EQ(mm->kernel_names.size(), 1u);
    EXPECT_EQ(mm->kernel_names[0], "nvjet_tst_128x256");
    EXPECT_EQ(mm->kernel_rows.size(), 2u);

    const ShapePoint* fa = find_point(r, "aten::_flash_attention_forward");
    ASSERT_NE(fa, nullptr);
    EXPECT_EQ(fa->family, "attention");
    EXPECT_EQ(fa->shape, "B=1 Hq=8 Hk=2 Sq=4 Sk=4 D=64 causal");
    EXPECT_DOUBLE_EQ(fa->flops_per_call, 4.0 * 1 * 8 * 64 * 10);
    // Q and O at 8 heads, K and V at 2 heads (GQA), bf16.
    EXPECT_DOUBLE_EQ(fa->bytes_per_call, 2.0 * (2 * 4 * 8 * 64 + 2 * 4 * 2 * 64));

    const ShapePoint* ln = find_point(r, "aten::layer_norm");
    ASSERT_NE(ln, nullptr);
    EXPECT_EQ(ln->family, "norm");
    EXPECT_DOUBLE_EQ(ln->flops_per_call, 5.0 * 64 * 1024);
    EXPECT_DOUBLE_EQ(ln->bytes_per_call, 4.0 * (64 * 1024 + 1024 + 1024 + 64 * 1024));
    EXPECT_EQ(ln->dtype, "fp32");
}

// The one GEMM-dims reader (gemm_dims.h), op by op, against PyTorch's own argument order: mm(A, B), addmm(bias, A,
// B), bmm(A, B), baddbmm(bias, A, B), linear(x, W[N, K], bias), matmul with a 2-D or a batched B.
TEST(ShapeThroughput, GemmDimsFollowEachOpsArgumentOrder)
{
    auto dims = [](const char* op, const char* text) { return gemm_dims(op, text); };
    auto same = [](const std::optional<GemmDims>& g, int64_t batch, int64_t m, int64_t n, int64_t k, int64_t b_k,
                   size_t a, size_t b) {
        ASSERT_TRUE(g);
        EXPECT_EQ(g->batch, batch);
        EXPECT_EQ(g->m, m);
        EXPECT_EQ(g->n, n);
        EXPECT_EQ(g->k, k);
        EXPECT_EQ(g->b_k, b_k);
        EXPECT_EQ(g->a, a);
        EXPECT_EQ(g->b, b);
    };
    same(dims("aten::mm", "[[8, 64], [64, 96]]"), 1, 8, 96, 64, 64, 0, 1);
    same(dims("aten::_scaled_mm", "[[8, 64], [64, 96], [], []]"), 1, 8, 96, 64, 64, 0, 1);
    same(dims("aten::addmm", "[[96], [8, 64], [64, 96], [], []]"), 1, 8, 96, 64, 64, 1, 2);
    same(dims("aten::bmm", "[[4, 8, 64], [4, 64, 32]]"), 4, 8, 32, 64, 64, 0, 1);
    same(dims("aten::baddbmm", "[[4, 8, 32], [4, 8, 64], [4, 64, 32], [], []]"), 4, 8, 32, 64, 64, 1, 2);
    same(dims("aten::linear", "[[2, 8, 64], [96, 64], [96]]"), 1, 16, 96, 64, 64, 0, 1);
    same(dims("aten::matmul", "[[2, 8, 64], [64, 96]]"), 1, 16, 96, 64, 64, 0, 1);
    same(dims("aten::matmul", "[[2, 3, 8, 64], [2, 3, 64, 32]]"), 6, 8, 32, 64, 64, 0, 1);
    same(dims("aten::mm", "[[8, 64], [32, 96]]"), 1, 8, 96, 64, 32, 0, 1);   // read as given: b_k tells the mismatch
    EXPECT_FALSE(dims("aten::add", "[[8, 64], [8, 64]]"));                  // no GEMM
    EXPECT_FALSE(dims("aten::mm", "[[8, 64, 1], [64, 96]]"));               // wrong rank
    EXPECT_FALSE(dims("aten::mm", "[[[8, 64]], [64, 96]]"));                // a TensorList is not one tensor
    EXPECT_FALSE(dims("aten::addmm", "[[96], [8, 64]]"));                   // B missing
    EXPECT_FALSE(dims("aten::mm", "not json"));
}

TEST(ShapeThroughput, NoShapesNoPointsAndUnknownGpuGivesNoRoof)
{
    const std::string json =
        R"({"traceEvents":[)" +
        op_events("aten::mm", "[[64,64],[64,64]]", R"(["c10::Half","c10::Half"])", R"(["",""])", 1, 1, 10, 1.0) +
        "]}";
    const Trace t = read_kineto_json(write_file("nogpu.json", json));
    const ShapeRooflineResult r = shape_roofline(t, nullptr);
    ASSERT_EQ(r.points.size(), 1u);
    EXPECT_EQ(r.points[0].dtype, "fp16");
    EXPECT_GT(r.points[0].tflops, 0);
    EXPECT_FALSE(r.points[0].pct_of_roof.has_value());
    EXPECT_EQ(r.points[0].bound, "");

    const Trace empty = read_kineto_json(write_file("empty.json", R"({"traceEvents":[]})"));
    const ShapeRooflineResult e = shape_roofline(empty, nullptr);
    EXPECT_EQ(e.ops_with_shapes, 0);
    EXPECT_TRUE(e.points.empty());
}

TEST(ShapeThroughput, AboveTheRoofIsAWarningNotAnEfficiency)
{
    // 2·4096³ FLOPs in 10 µs = 13.7 PFLOP/s: far above any bf16 roof, so the GPU row or the dtype is wrong.
    const std::string json =
        R"({"traceEvents":[)" +
        op_events("aten::mm", "[[4096,4096],[4096,4096]]", R"(["c10::BFloat16","c10::BFloat16"])", R"(["",""])", 1,
                  1, 10, 10.0) +
        "]}";
    const Trace t = read_kineto_json(write_file("fast.json", json));
    const GpuDatabase db = GpuDatabase::load_default();
    const ShapeRooflineResult r = shape_roofline(t, db.find("H100-SXM"));
    ASSERT_EQ(r.points.size(), 1u);
    EXPECT_TRUE(r.points[0].roof_inconsistent);
    EXPECT_FALSE(r.points[0].pct_of_roof.has_value());
    ASSERT_FALSE(r.warnings.empty());
    EXPECT_NE(r.warnings[0].find("data consistency"), std::string::npos);
}

// The H100 Qwen1.5-0.5B trace (TraceLens' sample): per-shape GEMM TFLOP/s against an independent Python computation
// from the trace's own shapes and kernel times (tests/analysis/roofline/shape_gemm_oracle.py). What a reader of the
// trace sees: a 16 × 559-token prefill whose 8944-row GEMMs run at ≈ 600–680 TFLOP/s on bf16 tensor cores (≈ 60–70 %
// of the H100 SXM's 989 TFLOP/s dense peak), flash attention with causal masking, and an fp32 RMSNorm built from
// pow / mean / rsqrt / mul elementwise ops.
TEST(ShapeThroughput, QwenH100GemmsMatchPythonOracle)
{
    const auto dir = test::shared_data_dir();
    if (!dir)
        GTEST_SKIP() << "SIGHTLINE_SHARED_DATA not set";
    const std::string path = *dir + "/kineto/tracelens/h100__Qwen1.5-0.5B-Chat_inference.json.gz";
    std::string py;
    if (test::run_command("python3 --version", &py, true) != 0)
        GTEST_SKIP() << "python3 not available for the oracle";
    std::string out;
    ASSERT_EQ(test::run_command("python3 " + test::source_dir() + "/tests/analysis/roofline/shape_gemm_oracle.py " +
                                    path,
                                &out),
              0)
        << out;

    const Trace t = read_kineto_json(path);
    const GpuDatabase db = GpuDatabase::load_default();
    ASSERT_FALSE(t.meta.devices.empty());
    const GpuSpec* spec = db.match_device(t.meta.devices[0].name);
    ASSERT_NE(spec, nullptr) << t.meta.devices[0].name;
    const ShapeRooflineResult r = shape_roofline(t, spec);

    std::istringstream lines(out);
    std::string line;
    int compared = 0;
    while (std::getline(lines, line)) {
        const auto o = nlohmann::json::parse(line);
        const ShapePoint* match = nullptr;
        for (const auto& p : r.points)
            if (p.op == o["op"] && nlohmann::json::parse(p.input_dims) == o["dims"] &&
                nlohmann::json::parse(p.input_types) == o["types"])
                match = &p;
        ASSERT_NE(match, nullptr) << line;
        EXPECT_EQ(match->calls, o["calls"].get<int64_t>()) << line;
        EXPECT_DOUBLE_EQ(match->flops_per_call, o["flops_per_call"].get<double>()) << line;
        const double want = o["tflops"].get<double>();
        EXPECT_NEAR(match->tflops, want, 0.05 * want) << line;
        ++compared;
    }
    EXPECT_GE(compared, 4);   // the four bf16 GEMM shapes of the prefill (and the fp32 rotary bmm)

    // The biggest GEMM shape: 48 calls of [8944,1024]×[1024,2816], ≈ 600+ TFLOP/s, compute-bound, 55–75 % of roof.
    const ShapePoint* top = nullptr;
    for (const auto& p : r.points)
        if (p.family == "gemm" && (!top || p.kernel_ns > top->kernel_ns))
            top = &p;
    ASSERT_NE(top, nullptr);
    EXPECT_EQ(top->shape, "M=8944 N=2816 K=1024");
    EXPECT_EQ(top->calls, 48);
    EXPECT_EQ(top->bound, "compute");
    ASSERT_TRUE(top->pct_of_roof.has_value());
    EXPECT_GT(*top->pct_of_roof, 55.0);
    EXPECT_LT(*top->pct_of_roof, 75.0);

    // Attention and norm-building points appear too.
    const ShapePoint* attn = nullptr;
    bool elementwise = false;
    for (const auto& p : r.points) {
        if (p.family == "attention")
            attn = &p;
        elementwise |= p.family == "elementwise" && p.op == "aten::pow";
    }
    ASSERT_NE(attn, nullptr);
    EXPECT_EQ(attn->shape, "B=16 Hq=16 Hk=16 Sq=559 Sk=559 D=64 causal");
    EXPECT_EQ(attn->calls, 24);
    EXPECT_TRUE(elementwise);
    for (const auto& p : r.points)
        EXPECT_FALSE(p.roof_inconsistent) << p.op << " " << p.shape;
}
