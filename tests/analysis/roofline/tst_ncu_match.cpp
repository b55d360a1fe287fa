// Whether an ncu export belongs to the trace it is joined to (analysis/roofline/ncu_match.h).
//   - The SM count its launches imply: the real A100 details CSV gives 108 (the A100's SM count, NVIDIA's datasheet)
//     from grid ÷ (waves per SM × blocks per SM), which ncu printed itself; no device column is needed.
//   - That file against the real H100 Qwen Kineto trace (132 SMs): a device mismatch naming both SM counts, and the
//     launches whose kernels the trace does not run, named.
//   - ncu launches named after a trace's own kernels, on the trace's own GPU: no warning.
//   (The CLI's text and JSON: tests/cli/tst_cli_ncu_match.cpp.)
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "analysis/io/load.h"
#include "analysis/io/ncu_reader.h"
#include "analysis/io/synthetic.h"
#include "analysis/roofline/gpu_specs.h"
#include "analysis/roofline/ncu_match.h"
#include "analysis/roofline/roofline.h"
#include "analysis/trace/trace.h"
#include "tests/support/test_env.h"

using namespace sl;

namespace {

std::string shared(const std::string& rel)
{
    const char* d = std::getenv("SIGHTLINE_SHARED_DATA");
    const std::string p = std::string(d ? d : "") + "/" + rel;
    return d && std::ifstream(p) ? p : std::string();
}

const char* kA100 = "ncu/a100_gpt2_flashattn_details_ncu2021.csv";
const char* kQwen = "kineto/tracelens/h100__Qwen1.5-0.5B-Chat_inference.json.gz";

} // namespace

TEST(NcuMatch, A100FileImpliesItsSmCount)
{
    const std::string path = shared(kA100);
    if (path.empty())
        GTEST_SKIP() << "no shared data";
    const NcuReport ncu = read_ncu(path);
    ASSERT_EQ(ncu.launches.size(), 10u);
    EXPECT_EQ(ncu_implied_sm_count(ncu), 108);
    const DeviceInfo d = ncu_device_info(ncu);
    EXPECT_EQ(d.sm_count, 108);
    EXPECT_TRUE(d.name.empty());   // the 2021 details page has no device column
}

TEST(NcuMatch, A100FileAgainstTheH100QwenTrace)
{
    const std::string ncu_path = shared(kA100), trace_path = shared(kQwen);
    if (ncu_path.empty() || trace_path.empty())
        GTEST_SKIP() << "no shared data";
    const NcuReport ncu = read_ncu(ncu_path);
    const Trace t = load_traces({trace_path});
    const GpuDatabase db = GpuDatabase::load_default();
    const auto join = join_ncu_to_trace(ncu, t);
    const NcuTraceMatch m = match_ncu_to_trace(ncu, t, join, &db);
    EXPECT_TRUE(m.device_mismatch);
    ASSERT_TRUE(m.ncu_sm_count);
    ASSERT_TRUE(m.trace_sm_count);
    EXPECT_EQ(*m.ncu_sm_count, 108);
    EXPECT_EQ(*m.trace_sm_count, 132);   // H100 SXM
    ASSERT_FALSE(m.warnings.empty());
    const WorkloadWarning& w = m.warnings.front();
    EXPECT_EQ(w.code, "ncu_device_mismatch");
    EXPECT_NE(w.message.find("108 SMs"), std::string::npos) << w.message;
    EXPECT_NE(w.message.find("132 SMs"), std::string::npos) << w.message;
    EXPECT_NE(w.message.find("H100"), std::string::npos) << w.message;
    // GPT-2's FlashAttention-1 and Ampere GEMMs are not kernels of the Qwen run.
    int64_t joined = 0;
    for (int64_t k : join)
        joined += k >= 0;
    EXPECT_EQ(m.joined, joined);
    EXPECT_LT(m.joined, m.launches);
    EXPECT_TRUE(m.kernel_mismatch);
    bool fmha = false;
    for (const std::string& n : m.unmatched_names)
        fmha = fmha || n.find("fmha_fwd_loop_kernel") != std::string::npos;
    EXPECT_TRUE(fmha);
    EXPECT_EQ(m.warnings.back().code, "ncu_kernels_unmatched");
}

TEST(NcuMatch, LaunchesOfTheTracesOwnKernelsOnItsGpuMatch)
{
    const Trace t = make_synthetic_trace(synth_preset("decode"));   // NVIDIA H100 80GB HBM3
    NcuReport ncu;
    for (size_t k = 0; k < 5; ++k) {
        NcuLaunch l;
        l.id = int64_t(k);
        l.name = std::string(t.str(t.kernels.name[k]));
        l.device = "NVIDIA H100 80GB HBM3";
        l.cc = "9.0";
        ncu.launches.push_back(l);
    }
    const GpuDatabase db = GpuDatabase::load_default();
    const NcuTraceMatch m = match_ncu_to_trace(ncu, t, join_ncu_to_trace(ncu, t), &db);
    EXPECT_EQ(m.joined, 5);
    EXPECT_FALSE(m.kernel_mismatch);
    EXPECT_FALSE(m.device_mismatch) << (m.device_evidence.empty() ? "" : m.device_evidence.front());
    EXPECT_TRUE(m.warnings.empty());
    // The same launches said to come from an A100: the names agree, the device does not.
    for (NcuLaunch& l : ncu.launches) {
        l.device = "NVIDIA A100-SXM4-80GB";
        l.cc = "8.0";
    }
    const NcuTraceMatch a = match_ncu_to_trace(ncu, t, join_ncu_to_trace(ncu, t), &db);
    EXPECT_TRUE(a.device_mismatch);
    EXPECT_FALSE(a.kernel_mismatch);
    ASSERT_EQ(a.warnings.size(), 1u);
    EXPECT_NE(a.warnings[0].args.at("evidence").find("A100"), std::string::npos) << a.warnings[0].message;
}
