// Operator classes: the shipped kernel_classes.json against real kernel names (from the traces in shared/data and
// the frameworks the issue lists), user overrides, malformed files, and the real H100 inference trace.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <tuple>

#include "analysis/trace/errors.h"
#include "analysis/io/load.h"
#include "analysis/timeline/op_classes.h"
#include "tests/support/test_env.h"

using namespace sl;

namespace {
std::string class_of(const OpClassifier& c, std::string_view name)
{
    return c.class_ids()[static_cast<size_t>(c.classify(name).cls)];
}
} // namespace

TEST(OpClasses, RealNamesFromTheSharedTraces)
{
    const OpClassifier c = OpClassifier::load();
    EXPECT_NE(c.source().find("kernel_classes.json"), std::string::npos);
    const std::pair<const char*, const char*> cases[] = {
        // H100 Qwen trace (TraceLens) and the synthetic decode
        {"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas", "gemm"},
        {"nvjet_tst_128x8_64x12_2x1_v_bz_TNT", "gemm"},
        {"void pytorch_flash::flash_fwd_kernel<pytorch_flash::Flash_fwd_kernel_traits<64, 128, 128, 4, false, false, cutlass::bfloat16_t>>", "attention"},
        {"void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::silu_kernel(at::TensorIteratorBase&)::{lambda()#1}::operator()() const::{lambda()#6}::operator()() const::{lambda(c10::BFloat16)#1}, std::array<char*, 2ul> >(int, at::native::(anonymous namespace)::silu_kernel(at::TensorIteratorBase&)::{lambda()#1}::operator()() const::{lambda()#6}::operator()() const::{lambda(c10::BFloat16)#1}, std::array<char*, 2ul>)", "activation"},
        {"void at::native::(anonymous namespace)::indexSelectLargeIndex<c10::BFloat16, long, unsigned int, 2, 2, -2, true>(at::cuda::detail::TensorInfo<c10::BFloat16, unsigned int>)", "embedding"},
        {"void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, float, float, float>, unsigned int, float, 4> >(at::native::ReduceOp<float, at::native::MeanOps<float, float, float, float>, unsigned int, float, 4>)", "reduction"},
        {"void at::native::(anonymous namespace)::CatArrayBatchedCopy<at::native::(anonymous namespace)::OpaqueType<2u>, unsigned int, 4, 64, 64>(at::native::(anonymous namespace)::OpaqueType<2u>*)", "elementwise"},
        {"void cutlass::Kernel2<cutlass_80_simt_sgemm_128x32_8x5_nn_align1>(cutlass_80_simt_sgemm_128x32_8x5_nn_align1::Params)", "gemm"},
        {"Memset (Device)", "memcpy_memset"},
        {"Memcpy DtoH (Device -> Pinned)", "memcpy_memset"},
        // HTA traces
        {"ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)", "communication"},
        {"ncclDevKernel_AllGather_RING_LL(ncclDevComm*, unsigned long, ncclWork*)", "communication"},
        {"volta_sgemm_128x32_nt", "gemm"},
        {"void splitKreduce_kernel<float, float, float, float, true, false, false>(cublasSplitKParams<float>, float const*)", "gemm"},
        {"void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>(int, float, float const*)", "norm"},
        {"void cudnn::winograd_nonfused::winogradForwardData4x4<float, float>(cudnn::winograd_nonfused::WinogradDataParams<float, float>)", "convolution"},
        {"void implicit_convolve_sgemm<float, float, 1024, 6, 7, 3, 3, 5, 1, false, true, true>(int, int, int)", "convolution"},
        {"void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, 512, true, 1>(cudnnTensorStruct, float const*)", "norm"},
        {"void at::native::(anonymous namespace)::softmax_warp_forward<float, float, float, 9, false, false>(float*)", "reduction"},
        // Frameworks named by the issue
        {"void vllm::rms_norm_kernel<c10::BFloat16, 8, 4>(c10::BFloat16*, c10::BFloat16 const*)", "norm"},
        {"void vllm::fused_add_rms_norm_kernel<c10::BFloat16, 8>(c10::BFloat16*)", "norm"},
        {"void vllm::rotary_embedding_kernel<c10::BFloat16, true>(long const*)", "rotary"},
        {"void vllm::act_and_mul_kernel<c10::BFloat16, &vllm::silu_kernel<c10::BFloat16>, true>(c10::BFloat16*)", "activation"},
        {"void vllm::reshape_and_cache_flash_kernel<__nv_bfloat16, __nv_bfloat16, (vllm::Fp8KVCacheDataType)0>(__nv_bfloat16 const*)", "kv_cache"},
        {"void vllm::paged_attention_v2_kernel<unsigned short, unsigned short, 128, 16, 128, (vllm::Fp8KVCacheDataType)0, false, 512>(float*)", "attention"},
        {"void flash::flash_fwd_splitkv_kernel<Flash_fwd_kernel_traits<128, 64, 128, 4, false, false, cutlass::bfloat16_t>, false>(Flash_fwd_params)", "attention"},
        {"void cutlass::device_kernel<flash::FlashAttnFwdSm90<flash::CollectiveMainloopFwdSm90<2, cute::tuple<>>>>(Params)", "attention"},
        {"void flashinfer::BatchDecodeWithPagedKVCacheKernel<(flashinfer::PosEncodingMode)0, 2u, 4u>(Params)", "attention"},
        {"fmha_cutlassF_bf16_aligned_64x128_rf_sm80(PyTorchMemEffAttention::AttentionKernel<cutlass::bfloat16_t>::Params)", "attention"},
        {"void flash_attn_ext_f16<128, 128, 4, 4, 8, false>(char const*)", "attention"},
        {"void mul_mat_vec_q<(ggml_type)12, 1>(void const*, void const*, float*)", "gemm"},
        {"void mul_mat_q<(ggml_type)2, 64, 8, false>(char const*)", "gemm"},
        {"void rms_norm_f32<1024>(float const*, float*, int, float)", "norm"},
        {"void rope_neox<float, false>(float const*, float*)", "rotary"},
        {"void quantize_q8_1(float const*, void*, long, long)", "quantization"},
        {"void dequantize_block<32, 2, &dequantize_q4_0, __half>(void const*, __half*, long)", "quantization"},
        {"void k_get_rows_float<float, float>(float const*, int const*, float*)", "embedding"},
        {"void argmax_kernel(float const*, int*, int)", "sampling"},
        {"void at::native::sbtopk::gatherTopK<float, unsigned int, 2, false>(at::cuda::detail::TensorInfo<float const, unsigned int>)", "sampling"},
        {"void flashinfer::sampling::TopKTopPSamplingFromProbKernel<1024u, (cub::BlockScanAlgorithm)0, 4u, false, float, int>(float*)", "sampling"},
        {"void vllm::moe::topkGatingSoftmax<8, 128, 4, 16, int>(float const*)", "moe_routing"},
        {"void vllm::moe::moe_align_block_size_kernel<int>(int const*)", "moe_routing"},
        {"fused_moe_kernel", "moe_gemm"},
        {"matmul_kernel_persistent", "gemm"},
        {"triton_red_fused__to_copy_add_mean_mul_pow_rsqrt_0", "norm"},
        {"triton_poi_fused_add_1", "elementwise"},
        {"void vllm::cross_device_reduce_1stage<__nv_bfloat16, 8>(vllm::RankData*)", "communication"},
        {"void gemv2T_kernel_val<int, int, float, float, float, float, 128, 16, 4, 4, false, false>(cublasGemvParams)", "gemm"},
        {"void flashinfer::norm::RMSNormKernel<8u, __nv_bfloat16>(__nv_bfloat16*)", "norm"},
        {"void flashinfer::BatchQKApplyRotaryPosIdsKernel<true, 128u, 8u, 16u, __nv_bfloat16, int>(__nv_bfloat16*)", "rotary"},
        {"void at::native::(anonymous namespace)::RowwiseMomentsCUDAKernel<float, float>(long, float, float const*, float*, float*)", "norm"},
        {"void at::native::(anonymous namespace)::max_pool_forward_nchw<float, float>(int, float const*, int)", "reduction"},
        {"void cudnn::ops::scalePackedTensor_kernel<float, float>(cudnnTensor4dStruct, float*, float)", "elementwise"},
        {"saxpy(double *, double *, double *, double, int)", "elementwise"},
        {"some_custom_kernel_xyz", "other"},
    };
    for (const auto& [name, want] : cases)
        EXPECT_EQ(class_of(c, name), want) << name;
}

TEST(OpClasses, TotalsUnmatchedAndMemops)
{
    Trace t;
    t.meta.devices.push_back({});
    t.kernels.append(0, 10, t.strings.intern("nvjet_x"));
    t.kernels.append(10, 30, t.strings.intern("nvjet_x"));
    t.kernels.append(30, 35, t.strings.intern("mystery_a"));
    t.kernels.append(35, 45, t.strings.intern("mystery_b"));
    t.memcpy.append(50, 60, 8, CopyKind::DtoH);
    t.memset.append(60, 61, 8);
    t.finish();
    OpClassOptions o;
    o.max_unmatched_names = 1;
    const OpClassifier c = OpClassifier::load();
    const OpClassResult r = classify_ops(t, c, o);
    EXPECT_EQ(r.kernel_time_ns, 45);
    const auto& gemm = r.classes[static_cast<size_t>(c.class_index("gemm"))];
    EXPECT_EQ(gemm.time_ns, 30);
    EXPECT_EQ(gemm.count, 2);
    EXPECT_EQ(gemm.distinct_names, 1);
    const auto& other = r.classes[static_cast<size_t>(c.other_index())];
    EXPECT_EQ(other.time_ns, 15);
    EXPECT_EQ(r.unmatched_names_total, 2);
    ASSERT_EQ(r.unmatched.size(), 1u);
    EXPECT_EQ(t.str(r.unmatched[0].name), "mystery_b");   // the larger one is kept
    const auto& mem = r.classes[static_cast<size_t>(c.memcpy_index())];
    EXPECT_EQ(mem.time_ns, 11);
    EXPECT_EQ(mem.count, 2);
    EXPECT_EQ(r.kernel_class[2], c.other_index());
    EXPECT_EQ(r.names.front().time_ns, 30);
}

TEST(OpClasses, UserFileOverridesAndBadFilesAreClearErrors)
{
    const std::string dir = sl::test::scratch_dir("op_classes");
    const std::string user = dir + "/mine.json";
    std::ofstream(user) << R"({"classes":[{"id":"mine"},{"id":"gemm"}],
        "patterns":[{"class":"mine","match":"mystery","framework":"in-house"},
                    {"class":"gemm","match":"^my_gemm_\\d+$","kind":"regex"}]})";
    const OpClassifier c = OpClassifier::load(user);
    EXPECT_EQ(c.source(), user);
    EXPECT_EQ(class_of(c, "MYSTERY_a"), "mine");
    EXPECT_EQ(class_of(c, "my_gemm_12"), "gemm");
    EXPECT_EQ(class_of(c, "nvjet_x"), "other");   // the shipped patterns are gone
    EXPECT_EQ(c.patterns()[0].framework, "in-house");

    auto expect_error = [&](const std::string& text, const std::string& needle) {
        const std::string p = dir + "/bad.json";
        std::ofstream(p) << text;
        try {
            OpClassifier::load(p);
            ADD_FAILURE() << "no error for " << text;
        } catch (const TraceError& e) {
            EXPECT_EQ(e.file(), p);
            EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
        }
    };
    expect_error("{", "JSON");
    expect_error(R"({"patterns":[]})", "classes");
    expect_error(R"({"classes":[{"id":"a"}],"patterns":[{"class":"b","match":"x"}]})", "patterns[0]");
    expect_error(R"({"classes":[{"id":"a"}],"patterns":[{"class":"a","match":"(","kind":"regex"}]})", "regular expression");
    expect_error(R"({"classes":[{"id":"a"}],"patterns":[{"class":"a","match":"x","kind":"glob"}]})", "glob");
    EXPECT_THROW(OpClassifier::load(dir + "/missing.json"), TraceError);
}

TEST(OpClasses, RealH100InferenceTraceIsAlmostFullyClassified)
{
    const auto files = sl::test::shared_files("kineto/tracelens", {".json.gz"});
    if (files.empty())
        GTEST_SKIP() << "shared data not available";
    Trace t;
    try {
        t = load_trace(files.front());
    } catch (const std::exception& e) {
        GTEST_SKIP() << "Kineto reader not available: " << e.what();
    }
    const OpClassifier c = OpClassifier::load();
    const OpClassResult r = classify_ops(t, c);
    ASSERT_GT(t.kernels.size(), 1000u);
    const auto& other = r.classes[static_cast<size_t>(c.other_index())];
    // Every kernel of the Qwen forward is a known PyTorch/cuBLAS/FlashAttention family.
    EXPECT_EQ(other.time_ns, 0) << (r.unmatched.empty() ? "" : std::string(t.str(r.unmatched[0].name)));
    // Independent sum: the GEMM class is the one cuBLAS sm90 kernel (12.79 ms in the raw trace).
    int64_t sm90 = 0;
    for (size_t i = 0; i < t.kernels.size(); ++i)
        if (t.str(t.kernels.name[i]).rfind("sm90_xmma_gemm", 0) == 0 || t.str(t.kernels.name[i]).find("cutlass::Kernel") != std::string_view::npos)
            sm90 += t.kernels.end[i] - t.kernels.start[i];
    EXPECT_EQ(r.classes[static_cast<size_t>(c.class_index("gemm"))].time_ns, sm90);
    EXPECT_NEAR(static_cast<double>(sm90) / 1e6, 12.79, 0.02);
}

namespace {
std::string framework_of(const OpClassifier& c, std::string_view name)
{
    const auto m = c.classify(name);
    return m.pattern < 0 ? std::string() : c.patterns()[static_cast<size_t>(m.pattern)].framework;
}
} // namespace

// Issue 15's kernel families. Triton from PyTorch Inductor, in the shared traces: torch.compile of PyTorch 2.0 names
// its kernels "triton__" + the argument signature (HTA negative_queue_length_values_check: 81 of them, under
// CompiledFunction: pointwise/reduction fusions), newer Inductor "triton_<poi|red|per|tem>_fused_<ops>" (HTA
// triton_example: triton_poi_fused_add_cos_sin_0 under "Torch-Compiled Region"). None of them may fall into "other".
TEST(OpClasses, InductorTritonKernelsInTheSharedTraces)
{
    const OpClassifier c = OpClassifier::load();
    const auto files = sl::test::shared_files("kineto", {".json.gz"});
    if (files.empty())
        GTEST_SKIP() << "shared data not available";
    std::set<std::string> triton;
    for (const auto& f : files) {
        Trace t;
        try {
            t = load_trace(f);
        } catch (const std::exception&) {
            continue;
        }
        for (size_t i = 0; i < t.kernels.size(); ++i)
            if (t.str(t.kernels.name[i]).rfind("triton", 0) == 0)
                triton.emplace(t.str(t.kernels.name[i]));
    }
    ASSERT_GE(triton.size(), 7u);   // six "triton__0d1d..." signatures and triton_poi_fused_add_cos_sin_0
    bool old_names = false, new_names = false;
    for (const auto& n : triton) {
        EXPECT_NE(class_of(c, n), "other") << n;
        if (n.rfind("triton__", 0) == 0) {
            old_names = true;
            EXPECT_EQ(class_of(c, n), "elementwise") << n;
            EXPECT_EQ(framework_of(c, n), "PyTorch Inductor (2.0 names)") << n;
        }
        if (n == "triton_poi_fused_add_cos_sin_0") {
            new_names = true;
            EXPECT_EQ(class_of(c, n), "elementwise");
            EXPECT_EQ(framework_of(c, n), "PyTorch Inductor");
        }
    }
    EXPECT_TRUE(old_names);
    EXPECT_TRUE(new_names);
    // The other Inductor families, by their prefix: templates are GEMMs, reductions with rsqrt are norms.
    EXPECT_EQ(class_of(c, "triton_tem_fused_addmm_relu_3"), "gemm");
    EXPECT_EQ(class_of(c, "triton_per_fused_add_mean_mul_pow_rsqrt_0"), "norm");
    EXPECT_EQ(class_of(c, "triton_red_fused__softmax_0"), "reduction");
    EXPECT_EQ(class_of(c, "triton_poi_fused_mul_silu_2"), "activation");
    // Not Inductor: a user Triton kernel that happens to start with "triton" but has no signature suffix.
    EXPECT_NE(framework_of(c, "triton_helper"), "PyTorch Inductor (2.0 names)");
}

// FlashInfer and MoE expert GEMMs and routing. None of the traces in shared/data runs FlashInfer, so these are the
// kernel names as the libraries' sources declare them (flashinfer/attention/prefill.cuh, decode.cuh, cascade.cuh;
// vLLM fused_moe.py and csrc/moe; TensorRT-LLM moe_gemm; CUTLASS grouped GEMM; AITER fmoe); the triton_kernels MoE
// names are those of the vLLM gpt-oss decode in shared/data (kineto/tracelens/vllm_decode_full). Expert GEMMs are
// their own class (moe_gemm), apart from dense GEMMs, and their routing is moe_routing, not sampling.
TEST(OpClasses, FlashInferAndMoeGroupedGemms)
{
    const OpClassifier c = OpClassifier::load();
    const std::tuple<const char*, const char*, const char*> cases[] = {
        {"void flashinfer::BatchPrefillWithPagedKVCacheKernel<flashinfer::KernelTraits<(flashinfer::MaskMode)1, 128u, 2u, 4u, 8u, 8u, 1u, 4u, (flashinfer::PosEncodingMode)0, __nv_bfloat16, __nv_bfloat16, __nv_bfloat16, float, int, flashinfer::DefaultAttention<false, false, false, false> >, flashinfer::BatchPrefillPagedParams<__nv_bfloat16, __nv_bfloat16, __nv_bfloat16, int> >(flashinfer::BatchPrefillPagedParams<__nv_bfloat16, __nv_bfloat16, __nv_bfloat16, int>)", "attention", "FlashInfer"},
        {"void flashinfer::BatchPrefillWithRaggedKVCacheKernel<flashinfer::KernelTraits<(flashinfer::MaskMode)1, 128u, 2u>>(flashinfer::BatchPrefillRaggedParams<__nv_bfloat16, __nv_bfloat16, __nv_bfloat16, int>)", "attention", "FlashInfer"},
        {"void flashinfer::BatchDecodeWithPagedKVCacheKernel<(flashinfer::PosEncodingMode)0, 2u, 4u, 8u, 16u, 1u, 8u, flashinfer::DefaultAttention<false, false, false, false>, flashinfer::BatchDecodeParams<__nv_bfloat16, __nv_bfloat16, __nv_bfloat16, int> >(flashinfer::BatchDecodeParams<__nv_bfloat16, __nv_bfloat16, __nv_bfloat16, int>)", "attention", "FlashInfer"},
        {"void flashinfer::BatchDecodeWithPagedKVCacheKernelMLA<(flashinfer::PosEncodingMode)0, 2u, 4u>(Params)", "attention", "FlashInfer"},
        {"void flashinfer::PersistentVariableLengthMergeStatesKernel<8u, 16u, 8u, 4u, __nv_bfloat16, __nv_bfloat16, int>(__nv_bfloat16*)", "attention", "FlashInfer (split-KV merge)"},
        {"void flashinfer::AppendPagedKVCacheKernel<128u, 8u, __nv_bfloat16, int>(flashinfer::paged_kv_t<__nv_bfloat16, int>)", "kv_cache", "FlashInfer"},
        {"fused_moe_kernel", "moe_gemm", "vLLM (Triton fused MoE)"},
        {"fused_moe_kernel_gptq_awq", "moe_gemm", "vLLM (Triton fused MoE)"},
        {"void cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<cutlass::gemm::GroupProblemShape<cute::tuple<int, int, int> >, cutlass::gemm::collective::CollectiveMma<cutlass::gemm::MainloopSm90ArrayTmaGmmaWarpSpecialized<4, cute::tuple<cute::C<1>, cute::C<1>, cute::C<1> > > > > >(Params)", "moe_gemm", "CUTLASS 3 grouped GEMM (MoE)"},
        {"void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_grouped_bf16_128x128_64x3_tn_align8>(Params)", "moe_gemm", "CUTLASS 2 grouped GEMM (MoE)"},
        {"void tensorrt_llm::kernels::cutlass_kernels::moe_gemm_kernel<__nv_bfloat16, __nv_bfloat16>(Params)", "moe_gemm", "TensorRT-LLM / vLLM CUTLASS MoE GEMM"},
        {"void grouped_gemm::CutlassGroupedGemm<__nv_bfloat16>(Params)", "moe_gemm", "grouped GEMM (MoE)"},
        {"void deep_gemm::fp8_gemm_kernel<128u, 128u, 128u>(Params)", "gemm", "DeepGEMM"},
        {"void aiter::fmoe_bf16_g1u1_subGU_256(Params)", "moe_gemm", "AITER fused MoE (asm)"},
        {"void vllm::moe::moe_align_block_size_kernel<int>(int const*)", "moe_routing", "vLLM / SGLang"},
        {"void vllm::moe::topkGatingSoftmax<8, 128, 4, 16, int>(float const*)", "moe_routing", "vLLM"},
        {"_matmul_ogs_NNT_bf16xbf16xmxfp4_16x128x256x1_swiglu", "moe_gemm", "triton_kernels matmul_ogs (vLLM / SGLang gpt-oss)"},
        {"_matmul_ogs_NNT_bf16xbf16xmxfp4_16x128x256x1", "moe_gemm", "triton_kernels matmul_ogs (vLLM / SGLang gpt-oss)"},
        {"_topk_forward", "moe_routing", "triton_kernels (vLLM / SGLang gpt-oss)"},
        {"_combined_routing_compute", "moe_routing", "triton_kernels (vLLM / SGLang gpt-oss)"},
        {"_combined_routing_memset", "moe_routing", "triton_kernels (vLLM / SGLang gpt-oss)"},
        {"_sum_bitmatrix_rows", "moe_routing", "triton_kernels (vLLM / SGLang gpt-oss)"},
        {"_finalize_matmul_scatter_bf16", "moe_routing", "triton_kernels (vLLM / SGLang gpt-oss)"},
        // trtllm-gen (TensorRT-LLM's and FlashInfer's fused MoE on Blackwell): the batched GEMMs' function names as
        // TensorRT-LLM's trtllmGen_bmm_export/KernelMetaInfo.h lists them (FC1 with its fused SwiGLU, FC2, MXFP4 and
        // FP8), and the routing / permute / finalize kernels of its moe::dev namespace. Before, "bmm_" made the
        // expert GEMMs dense GEMMs (MoE share 0, "switch to tuned cuBLASLt").
        {"bmm_E2m1_E2m1E2m1_Fp32_t128x8x512u2_et128x8_m128x8x64_cga1x1x1_16dp256b_TN_transOut_schedS_bN_ldgsts_swiGlu_dynBatch_sm100a", "moe_gemm", "TensorRT-LLM / FlashInfer trtllm-gen batched GEMM (MoE)"},
        {"bmm_Bfloat16_E2m1E2m1_Fp32_t128x16x256_et128x16_m128x16x64_cga1x1x1_16dp256b_TN_transOut_schedP_bN_dynBatch_sm100a", "moe_gemm", "TensorRT-LLM / FlashInfer trtllm-gen batched GEMM (MoE)"},
        {"bmm_E4m3_E4m3E4m3_Fp32_t128x8x128_et64x8_m64x8x32_cga1x1x1_16dp256b_TN_transOut_dsFp8_schedS_bN_sm100a", "moe_gemm", "TensorRT-LLM / FlashInfer trtllm-gen batched GEMM (MoE)"},
        {"BatchedGemmKernel_BatchN_E2m1E2m1Fp32_Bfloat16_Tile128x8x256_EpiTile128x8_Mma128x8x64_Cluster1x1x1_transposeMmaOutput_sm100a", "moe_gemm", "TensorRT-LLM trtllm-gen batched GEMM (MoE)"},
        {"void moe::dev::routing::routingRenormalize::routingIndicesClusterKernel<moe::dev::routing::KernelParams<__nv_bfloat16, float, 128, 8, true> >(moe::dev::routing::KernelParams<__nv_bfloat16, float, 128, 8, true>)", "moe_routing", "TensorRT-LLM / FlashInfer trtllm-gen MoE (routing)"},
        {"void moe::dev::routing::routingDeepSeek::routingMainKernel<moe::dev::routing::KernelParams<float, __nv_bfloat16, 256, true> >(moe::dev::routing::KernelParams<float, __nv_bfloat16, 256, true>)", "moe_routing", "TensorRT-LLM / FlashInfer trtllm-gen MoE (routing)"},
        {"void moe::dev::finalize::finalizeKernel<moe::dev::finalize::KernelParams<__nv_bfloat16, __nv_bfloat16, false> >(moe::dev::finalize::KernelParams<__nv_bfloat16, __nv_bfloat16, false>)", "moe_routing", "TensorRT-LLM / FlashInfer trtllm-gen MoE (permute / finalize)"},
        // A dense batched GEMM is still a GEMM: PyTorch's bmm and a generic "bmm_" kernel without trtllm-gen's
        // dtype/tile tokens.
        {"bmm_kernel_f16", "gemm", "generic"},
    };
    for (const auto& [name, cls, fw] : cases) {
        EXPECT_EQ(class_of(c, name), cls) << name;
        EXPECT_EQ(framework_of(c, name), fw) << name;
    }
}

// A sequence pattern (kernel_classes.json: "after" a class, "within" N kernels on the stream): Hugging Face's gated
// MLP runs silu(gate), the up GEMM, then a plain elementwise mul; that mul is the activation's. On stream 7: silu,
// GEMM, mul (moved: the silu is 2 kernels back), add, mul (stays: no activation within 2), and on stream 8 a mul
// right after a silu of stream 7 in time but not on its stream (stays). Totals follow the kernels, not the names.
TEST(OpClasses, GatedMlpMulIsActivation)
{
    const char* silu = "void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::silu_kernel"
                       "(at::TensorIteratorBase&)::{lambda()#1}>(int)";
    const char* mul = "void at::native::vectorized_elementwise_kernel<4, at::native::BinaryFunctor<c10::BFloat16, "
                      "c10::BFloat16, c10::BFloat16, at::native::binary_internal::MulFunctor<float> >, "
                      "std::array<char*, 3ul> >(int)";
    const char* add = "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>, "
                      "std::array<char*, 3ul> >(int)";
    Trace t;
    t.meta.devices.push_back({});
    auto k = [&](int64_t s, int64_t e, const char* name, uint32_t stream) {
        const size_t r = t.kernels.append(s, e, t.strings.intern(name));
        t.kernels.stream[r] = stream;
    };
    k(0, 10, silu, 7);
    k(10, 50, "nvjet_tst_128x8_64x12_2x1_v_bz_TNT", 7);
    k(50, 65, mul, 7);      // -> activation
    k(65, 70, add, 7);
    k(70, 80, mul, 7);      // stays elementwise
    k(11, 19, mul, 8);      // other stream: stays
    t.finish();
    const OpClassifier c = OpClassifier::load();
    const OpClassResult r = classify_ops(t, c);
    const int act = c.class_index("activation"), elem = c.class_index("elementwise");
    ASSERT_GE(act, 0);
    ASSERT_GE(elem, 0);
    EXPECT_EQ(class_of(c, mul), "elementwise");   // by name alone: elementwise
    std::map<int64_t, int> cls;   // by start time (finish() may reorder rows)
    for (size_t i = 0; i < t.kernels.size(); ++i)
        cls[t.kernels.start[i]] = r.kernel_class[i];
    EXPECT_EQ(cls[0], act);
    EXPECT_EQ(cls[50], act);
    EXPECT_EQ(cls[70], elem);
    EXPECT_EQ(cls[11], elem);
    const auto& a = r.classes[static_cast<size_t>(act)];
    const auto& e = r.classes[static_cast<size_t>(elem)];
    EXPECT_EQ(a.count, 2);
    EXPECT_EQ(a.time_ns, 10 + 15);
    EXPECT_EQ(e.count, 3);
    EXPECT_EQ(e.time_ns, 5 + 10 + 8);

    // A sequence pattern naming a class that does not exist is a clear error.
    const std::string p = sl::test::scratch_dir("op_classes_seq") + "/bad.json";
    std::ofstream(p) << R"({"classes":[{"id":"a"}],"patterns":[{"class":"a","match":"x","after":"nope"}]})";
    try {
        OpClassifier::load(p);
        ADD_FAILURE() << "no error";
    } catch (const TraceError& err) {
        EXPECT_NE(std::string(err.what()).find("after"), std::string::npos) << err.what();
    }
}

// One rule for "this top-k runs once per layer": its edges as the step finder and the classifier both use them.
TEST(OpClasses, RunsOncePerLayerEdges)
{
    // With attention kernels: at least half as many launches as attention (a router in every layer).
    EXPECT_TRUE(sl::runs_once_per_layer(32, 64, 0));
    EXPECT_FALSE(sl::runs_once_per_layer(31, 64, 0));
    EXPECT_FALSE(sl::runs_once_per_layer(16, 64, 10'000));   // the GEMM count does not matter beside attention
    // Without attention: more than one per 8 GEMMs.
    EXPECT_TRUE(sl::runs_once_per_layer(17, 0, 128));
    EXPECT_FALSE(sl::runs_once_per_layer(16, 0, 128));
    // Nothing known, or nothing launched: no claim.
    EXPECT_FALSE(sl::runs_once_per_layer(5, 0, 0));
    EXPECT_FALSE(sl::runs_once_per_layer(0, 64, 0));
}
