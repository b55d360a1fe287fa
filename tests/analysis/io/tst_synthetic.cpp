// The synthetic LLM-decode trace generator: shape, determinism, and every planted behaviour.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "analysis/io/synthetic.h"

using namespace sl;

namespace {

bool overlaps(int64_t a0, int64_t a1, int64_t b0, int64_t b1) { return a0 < b1 && b0 < a1; }

size_t count_name_prefix(const Trace& t, const std::vector<StrId>& names, std::string_view prefix)
{
    return static_cast<size_t>(std::count_if(names.begin(), names.end(),
                                             [&](StrId n) { return t.str(n).substr(0, prefix.size()) == prefix; }));
}

// Compute-stream kernels in start order.
std::vector<size_t> compute_kernels(const Trace& t)
{
    std::vector<size_t> v;
    for (size_t i = 0; i < t.kernels.size(); ++i)
        if (t.kernels.stream[i] == kSynthComputeStream)
            v.push_back(i);
    std::sort(v.begin(), v.end(), [&](size_t a, size_t b) { return t.kernels.start[a] < t.kernels.start[b]; });
    return v;
}

} // namespace

TEST(Synthetic, DecodePresetShape)
{
    const SynthOptions o = synth_preset("decode");
    const Trace t = make_synthetic_trace(o);
    // 2 prefill + 32 decode steps, each 8 layers x 11 kernels + final norm, lm_head, argmax.
    EXPECT_EQ(t.kernels.size(), size_t(34 * (8 * 11 + 3)));
    EXPECT_EQ(t.meta.devices.size(), 1u);
    EXPECT_EQ(t.meta.devices[0].name, "NVIDIA H100 80GB HBM3");
    EXPECT_EQ(t.meta.devices[0].sm_count, 132);
    EXPECT_DOUBLE_EQ(t.meta.devices[0].memory_bandwidth_Bps, 3.35e12);
    // NVTX: one range per step and per layer.
    EXPECT_EQ(t.ranges.size(), size_t(34 + 34 * 8));
    EXPECT_EQ(count_name_prefix(t, t.ranges.name, "decode_step "), 32u);
    EXPECT_EQ(count_name_prefix(t, t.ranges.name, "prefill "), 2u);
    EXPECT_NE(t.strings.find("decode_step 12"), StringPool::kNotFound);
    EXPECT_NE(t.strings.find("layer 3"), StringPool::kNotFound);
    // Layer ranges nest inside step ranges.
    for (size_t i = 0; i < t.ranges.size(); ++i)
        EXPECT_EQ(t.ranges.depth[i], t.str(t.ranges.name[i]).substr(0, 6) == "layer " ? 1 : 0) << t.str(t.ranges.name[i]);
    // One argmax sampling kernel ends every step.
    EXPECT_EQ(count_name_prefix(t, t.kernels.short_name, "reduce_kernel"), 34u);
    // H2D copies on the copy stream, pinned by default.
    ASSERT_GT(t.memcpy.size(), 0u);
    for (size_t i = 0; i < t.memcpy.size(); ++i) {
        EXPECT_EQ(t.memcpy.copy_kind[i], CopyKind::HtoD);
        EXPECT_EQ(t.memcpy.stream[i], kSynthCopyStream);
        EXPECT_EQ(t.memcpy.src_kind[i], MemKind::Pinned);
    }
    EXPECT_EQ(t.syncs.size(), 0u);
}

TEST(Synthetic, EveryKernelLinksToAnEarlierLaunchCall)
{
    const Trace t = make_synthetic_trace(synth_preset("decode"));
    std::vector<uint32_t> corrs;
    for (size_t i = 0; i < t.kernels.size(); ++i) {
        const int32_t a = t.kernels.launch_api[i];
        ASSERT_NE(a, kNoIndex) << "kernel " << i;
        EXPECT_TRUE(t.api.flags[static_cast<size_t>(a)] & kApiLaunch);
        EXPECT_LT(t.api.start[static_cast<size_t>(a)], t.kernels.start[i]);
        EXPECT_LT(t.kernels.start[i], t.kernels.end[i]);
        corrs.push_back(t.kernels.correlation[i]);
    }
    std::sort(corrs.begin(), corrs.end());
    EXPECT_EQ(std::adjacent_find(corrs.begin(), corrs.end()), corrs.end()) << "correlation ids must be unique";
    // Kernels on one stream never overlap.
    const auto ck = compute_kernels(t);
    for (size_t i = 1; i < ck.size(); ++i)
        EXPECT_LE(t.kernels.end[ck[i - 1]], t.kernels.start[ck[i]]);
    // API calls on the one host thread never overlap.
    for (size_t i = 1; i < t.api.size(); ++i)
        EXPECT_LE(t.api.end[i - 1], t.api.start[i]);
}

TEST(Synthetic, Deterministic)
{
    const Trace a = make_synthetic_trace(synth_preset("decode"));
    const Trace b = make_synthetic_trace(synth_preset("decode"));
    EXPECT_EQ(a.kernels.start, b.kernels.start);
    EXPECT_EQ(a.kernels.end, b.kernels.end);
    EXPECT_EQ(a.api.start, b.api.start);
    EXPECT_EQ(a.ranges.end, b.ranges.end);
    SynthOptions o = synth_preset("decode");
    o.seed = 2;
    const Trace c = make_synthetic_trace(o);
    EXPECT_NE(a.kernels.start, c.kernels.start);
}

// Fraction of compute kernels (after the first) whose launch call began after the previous kernel ended.
static double late_launch_fraction(const Trace& t)
{
    const auto ck = compute_kernels(t);
    size_t late = 0;
    for (size_t i = 1; i < ck.size(); ++i)
        late += t.api.start[static_cast<size_t>(t.kernels.launch_api[ck[i]])] >= t.kernels.end[ck[i - 1]];
    return static_cast<double>(late) / static_cast<double>(ck.size() - 1);
}

TEST(Synthetic, HostStarvedLaunchesAfterThePreviousKernelEnded)
{
    SynthOptions o = synth_preset("decode");
    EXPECT_LT(late_launch_fraction(make_synthetic_trace(o)), 0.2);
    o.host_starved = true;
    EXPECT_DOUBLE_EQ(late_launch_fraction(make_synthetic_trace(o)), 1.0);
}

TEST(Synthetic, SyncEveryStepLikeItem)
{
    SynthOptions o = synth_preset("decode");
    o.sync_every_step = true;
    const Trace t = make_synthetic_trace(o);
    ASSERT_EQ(t.syncs.size(), 34u);
    size_t d2h = 0;
    for (size_t i = 0; i < t.memcpy.size(); ++i)
        if (t.memcpy.copy_kind[i] == CopyKind::DtoH) {
            ++d2h;
            EXPECT_EQ(t.memcpy.bytes[i], 8u);
            EXPECT_EQ(t.memcpy.stream[i], kSynthComputeStream);
        }
    EXPECT_EQ(d2h, 34u);
    for (size_t i = 0; i < t.syncs.size(); ++i) {
        ASSERT_NE(t.syncs.api[i], kNoIndex);
        const auto a = static_cast<size_t>(t.syncs.api[i]);
        EXPECT_EQ(t.str(t.api.name[a]), "cudaStreamSynchronize_v3020");
        EXPECT_TRUE(t.api.flags[a] & kApiSync);
        // The host stays blocked until the step's last GPU work (the D2H copy) is done.
        bool covers_a_copy = false;
        for (size_t m = 0; m < t.memcpy.size(); ++m)
            covers_a_copy |= t.memcpy.copy_kind[m] == CopyKind::DtoH && t.memcpy.end[m] <= t.api.end[a] &&
                             t.memcpy.end[m] > t.api.start[a];
        EXPECT_TRUE(covers_a_copy) << "sync " << i;
    }
}

static size_t h2d_overlapping_compute(const Trace& t)
{
    size_t n = 0;
    for (size_t m = 0; m < t.memcpy.size(); ++m) {
        if (t.memcpy.copy_kind[m] != CopyKind::HtoD)
            continue;
        for (size_t k = 0; k < t.kernels.size(); ++k)
            if (overlaps(t.memcpy.start[m], t.memcpy.end[m], t.kernels.start[k], t.kernels.end[k])) {
                ++n;
                break;
            }
    }
    return n;
}

TEST(Synthetic, CopiesOverlapComputeOrNot)
{
    SynthOptions o = synth_preset("decode");
    const Trace over = make_synthetic_trace(o);
    // All but the copies issued before the very first kernel run under compute.
    EXPECT_GE(h2d_overlapping_compute(over), over.memcpy.size() - 4);
    o.copy_overlaps_compute = false;
    const Trace serial = make_synthetic_trace(o);
    EXPECT_EQ(serial.memcpy.size(), size_t(34 * 2));
    EXPECT_EQ(h2d_overlapping_compute(serial), 0u);
}

TEST(Synthetic, PageableCopiesBlockTheHost)
{
    SynthOptions o = synth_preset("decode");
    o.pageable_copies = true;
    const Trace t = make_synthetic_trace(o);
    ASSERT_GT(t.memcpy.size(), 0u);
    for (size_t m = 0; m < t.memcpy.size(); ++m) {
        EXPECT_EQ(t.memcpy.src_kind[m], MemKind::Pageable);
        ASSERT_NE(t.memcpy.launch_api[m], kNoIndex);
        EXPECT_GE(t.api.end[static_cast<size_t>(t.memcpy.launch_api[m])], t.memcpy.end[m]);
    }
}

TEST(Synthetic, NcclUnderOrOutsideCompute)
{
    SynthOptions o = synth_preset("decode");
    o.nccl = true;
    for (bool under : {false, true}) {
        o.nccl_overlaps_compute = under;
        const Trace t = make_synthetic_trace(o);
        size_t nccl = 0, overlapped = 0;
        for (size_t k = 0; k < t.kernels.size(); ++k) {
            if (t.str(t.kernels.name[k]).find("ncclKernel_AllReduce") != 0)
                continue;
            ++nccl;
            EXPECT_EQ(t.kernels.stream[k], kSynthCommStream);
            const auto a = static_cast<size_t>(t.kernels.launch_api[k]);
            EXPECT_EQ(t.api.api_class[a], ApiClass::Driver);
            for (size_t j = 0; j < t.kernels.size(); ++j)
                if (t.kernels.stream[j] == kSynthComputeStream &&
                    overlaps(t.kernels.start[k], t.kernels.end[k], t.kernels.start[j], t.kernels.end[j])) {
                    ++overlapped;
                    break;
                }
        }
        EXPECT_EQ(nccl, size_t(34 * 8 * 2));
        if (under)
            EXPECT_GT(overlapped, nccl * 9 / 10);
        else
            EXPECT_EQ(overlapped, 0u);
    }
}

TEST(Synthetic, CudaGraphsOneLaunchPerStep)
{
    SynthOptions o = synth_preset("decode");
    o.cuda_graphs = true;
    const Trace t = make_synthetic_trace(o);
    EXPECT_EQ(t.kernels.size(), size_t(34 * (8 * 11 + 3)));
    size_t graph_launches = 0;
    for (size_t i = 0; i < t.api.size(); ++i)
        graph_launches += (t.api.flags[i] & kApiGraphLaunch) != 0;
    EXPECT_EQ(graph_launches, 32u);
    size_t nodes = 0;
    for (size_t k = 0; k < t.kernels.size(); ++k) {
        if (!(t.kernels.flags[k] & KernelTable::kGraphNode))
            continue;
        ++nodes;
        ASSERT_NE(t.kernels.launch_api[k], kNoIndex);
        EXPECT_TRUE(t.api.flags[static_cast<size_t>(t.kernels.launch_api[k])] & kApiGraphLaunch);
    }
    EXPECT_EQ(nodes, size_t(32 * (8 * 11 + 3)));
}

TEST(Synthetic, ScaleModeExactKernelCountAndNvtx)
{
    SynthOptions o;
    o.prefill_steps = 0;
    o.layers = 32;
    o.total_kernels = 100'000;
    o.total_nvtx = 20'000;
    const Trace t = make_synthetic_trace(o);
    EXPECT_EQ(t.kernels.size(), 100'000u);
    EXPECT_NEAR(static_cast<double>(t.ranges.size()), 20'000.0, 200.0);
    EXPECT_GE(t.api.size(), 100'000u);
    const SynthOptions s = synth_preset("scale");
    EXPECT_EQ(s.total_kernels, 1'000'000);
    EXPECT_EQ(s.total_nvtx, 200'000);
    EXPECT_THROW(synth_preset("nope"), std::invalid_argument);
}
