// The prefill of an eager decode loop, found from the shapes its kernels were launched with (issue 34): no annotation
// marks it, and its kernels take only twice a decode step's time (not the 3x the kernel-time rule needs), yet its
// GEMMs multiply 2,048 rows (batch 8 x a 256-token prompt) where each decode step multiplies 8, and its attention
// query is 256 tokens long where a decode step's is one. Planted Kineto traces: CPU ops with record_shapes, their
// launches and kernels, an argmax kernel ending each step.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "analysis/io/load.h"
#include "analysis/timeline/analysis.h"
#include "tests/support/test_env.h"

using namespace sl;

namespace {

struct Planted {
    bool shapes = true;      // record_shapes
    bool attention = false;  // an attention call per layer
    bool flash = false;      // ... as the flash backend's forward op, queries (B, L, H, E), the op a kernel's is
};

// One op, its launch and its kernel; `ts` advances past them.
void op(std::ostringstream& o, const std::string& name, const std::string& dims, const std::string& kernel,
        double kernel_us, int& id, double& ts, bool shapes)
{
    o << R"({"ph":"X","cat":"cpu_op","name":")" << name << R"(","pid":1,"tid":1,"ts":)" << ts
      << R"(,"dur":20,"args":{"External id":)" << id;
    if (shapes)
        o << R"(,"Input Dims":)" << dims;
    o << "}},\n";
    o << R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":)" << ts + 1
      << R"(,"dur":5,"args":{"External id":)" << id << R"(,"correlation":)" << id << "}},\n";
    o << R"({"ph":"X","cat":"kernel","name":")" << kernel << R"(","pid":0,"tid":7,"ts":)" << ts + 10
      << R"(,"dur":)" << kernel_us << R"(,"args":{"device":0,"stream":7,"correlation":)" << id
      << R"(,"External id":)" << id << "}},\n";
    ++id;
    ts += kernel_us + 30;
}

// A generate() loop at batch 8: one prefill over a 256-token prompt, then 6 decode steps; 12 GEMMs a step
// (hidden 2048; with attention, four layers of three GEMMs and an attention call), an argmax after each step.
std::string planted(const Planted& p)
{
    std::ostringstream o;
    o << R"({"deviceProperties":[{"id":0,"name":"NVIDIA H100 80GB HBM3"}],"traceEvents":[)" << "\n";
    int id = 1;
    double ts = 1000;
    for (int step = 0; step < 7; ++step) {
        const bool prefill = step == 0;
        const std::string rows = prefill ? "[8,256,2048]" : "[8,1,2048]";
        for (int g = 0; g < 12; ++g) {
            op(o, "aten::mm", "[" + std::string(prefill ? "[2048,2048]" : "[8,2048]") + ",[2048,2048]]",
               "nvjet_tst_128x64_64x8_1x1_v_bz_TNN", prefill ? 24 : 12, id, ts, p.shapes);
            if (p.attention && g % 3 == 2 && !p.flash)   // four layers of three GEMMs and one attention call
                op(o, "aten::scaled_dot_product_attention",
                   prefill ? "[[8,16,256,128],[8,4,256,128],[8,4,256,128]]"
                           : "[[8,16,1,128],[8,4,300,128],[8,4,300,128]]",
                   "fmha_cutlassF_bf16_aligned_64x64_rf_sm80", prefill ? 20 : 10, id, ts, p.shapes);
            else if (p.attention && g % 3 == 2)
                op(o, "aten::_flash_attention_forward",
                   prefill ? "[[8,256,16,128],[8,256,4,128],[8,256,4,128],[],[]]"
                           : "[[8,1,16,128],[8,300,4,128],[8,300,4,128],[],[]]",
                   "flash_fwd_kernel", prefill ? 20 : 10, id, ts, p.shapes);
        }
        op(o, "aten::argmax", "[[8,32000]]", "argmax_kernel", 4, id, ts, p.shapes);
        ts += 500;   // the host's loop between steps
    }
    o << R"({"ph":"X","cat":"cuda_runtime","name":"cudaDeviceSynchronize","pid":1,"tid":1,"ts":)" << ts
      << R"(,"dur":5,"args":{}}]})";
    return o.str();
}

PhaseResult phases_of(const Planted& p, const std::string& name)
{
    const std::string path = test::scratch_dir("phase_shapes_" + name) + "/" + name + ".json";
    std::ofstream(path) << planted(p);
    const Trace t = load_trace(path);
    return analyze(t, AnalysisOptions{}).phases;
}

} // namespace

// Without shapes the kernel-time rule reads the loop as seven decode steps: the prefill takes 2x a decode step.
TEST(PhaseShapes, WithoutShapesThePrefillReadsAsADecodeStep)
{
    const PhaseResult r = phases_of({false, false}, "no_shapes");
    ASSERT_EQ(r.steps.size(), 7u);
    EXPECT_EQ(r.phase_source, "kernel_time");
    EXPECT_EQ(r.prefill_steps, 0);
    EXPECT_EQ(r.decode_steps, 7);
}

// GEMM rows: 2,048 in the first step, 8 in every other — 256x, above the 16x a prompt needs.
TEST(PhaseShapes, GemmRowsFindThePrefillOfAnEagerDecodeLoop)
{
    const PhaseResult r = phases_of({true, false}, "gemm");
    ASSERT_EQ(r.steps.size(), 7u);
    EXPECT_EQ(r.phase_source, "gemm_shapes");
    EXPECT_EQ(r.prefill_steps, 1);
    EXPECT_EQ(r.decode_steps, 6);
    EXPECT_TRUE(r.steps.front().prefill);
    for (size_t i = 1; i < r.steps.size(); ++i)
        EXPECT_FALSE(r.steps[i].prefill) << i;
}

// Attention queries: 256 tokens in the first step (a Mixtral generate's prefill), one in every other.
TEST(PhaseShapes, AttentionQueryLengthFindsThePrefillOfGenerate)
{
    const PhaseResult r = phases_of({true, true}, "attention");
    ASSERT_EQ(r.steps.size(), 7u);
    EXPECT_EQ(r.phase_source, "attention_shapes");
    EXPECT_EQ(r.prefill_steps, 1);
    EXPECT_EQ(r.decode_steps, 6);
    EXPECT_TRUE(r.steps.front().prefill);
}

// The same through the op a kernel is launched by: the flash backend's forward, queries (B, L, H, E).
TEST(PhaseShapes, FlashForwardQueriesAreReadInTheirLayout)
{
    const PhaseResult r = phases_of({true, true, true}, "flash");
    ASSERT_EQ(r.steps.size(), 7u);
    EXPECT_EQ(r.phase_source, "attention_shapes");
    EXPECT_EQ(r.prefill_steps, 1);
    EXPECT_EQ(r.decode_steps, 6);
    EXPECT_TRUE(r.steps.front().prefill);
}
