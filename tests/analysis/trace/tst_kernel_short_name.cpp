// shorten_kernel_name: the short kernel names Nsight Systems shows. Checked against nsys's own shortName column on
// every kernel of the shared nsys exports (CUTLASS, cuDNN, lambdas, plain C functions), then on the real Kineto
// traces of tests/data/device (H200 PyTorch: CUTLASS/cuBLAS, cuDNN flash, at::native elementwise with lambdas) and
// the shared AMD traces (SGLang on MI300: Tensile Cijk_, aiter / ck_tile / sgl_hip mangled names, rocprim; HTA's
// MI250 training), a Triton name, and a hostile 2 KiB name.
#include <gtest/gtest.h>

#include <cctype>
#include <chrono>
#include <set>
#include <string>

#include "analysis/io/load.h"
#include "analysis/trace/kernel_short_name.h"
#include "tests/support/test_env.h"

using namespace sl;

namespace {

bool plain_identifier(std::string_view s)
{
    if (s.empty())
        return false;
    for (char c : s)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_'))
            return false;
    return true;
}

} // namespace

// nsys's shortName for every distinct demangled kernel name of each shared export (read with SQL, not our reader).
TEST(KernelShortName, EqualsNsysShortNameOnSharedExports)
{
    const auto files = test::shared_files("nsys", {".sqlite"});
    if (files.empty())
        GTEST_SKIP() << "no ../shared/data";
    size_t checked = 0;
    for (const std::string& db : files) {
        const auto tables = test::sqlite_rows(db, "SELECT name FROM sqlite_master WHERE name = 'CUPTI_ACTIVITY_KIND_KERNEL'");
        if (tables.empty())
            continue;
        const auto rows = test::sqlite_rows(
            db, "SELECT DISTINCT d.value, s.value FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds d ON d.id = "
                "k.demangledName JOIN StringIds s ON s.id = k.shortName");
        for (const auto& r : rows) {
            EXPECT_EQ(shorten_kernel_name(r[0]), r[1]) << db << ": " << r[0];
            ++checked;
        }
    }
    // cutlass_benchmark, dlprof (cuDNN templates, plain C kernels), cloverleaf (lambda template arguments), saxpy
    EXPECT_GE(checked, 20u);
}

TEST(KernelShortName, RealKinetoNames)
{
    // H200 PyTorch (tests/data/device)
    EXPECT_EQ(shorten_kernel_name("void at::native::vectorized_elementwise_kernel<8, at::native::FillFunctor<c10::BFloat16>, "
                                  "std::array<char*, 1ul> >(int, at::native::FillFunctor<c10::BFloat16>, std::array<char*, 1ul>)"),
              "vectorized_elementwise_kernel");
    EXPECT_EQ(shorten_kernel_name("void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl_nocast<at::native::"
                                  "direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::"
                                  "{lambda()#12}::operator()() const::{lambda(c10::BFloat16)#1}>(at::TensorIteratorBase&, "
                                  "at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() "
                                  "const::{lambda()#12}::operator()() const::{lambda(c10::BFloat16)#1} const&)::{lambda(int)#1}>"
                                  "(int, at::native::gpu_kernel_impl_nocast<at::native::direct_copy_kernel_cuda(at::"
                                  "TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#12}::operator()() const::"
                                  "{lambda(c10::BFloat16)#1}>(at::TensorIteratorBase&, at::native::direct_copy_kernel_cuda(at::"
                                  "TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#12}::operator()() const::"
                                  "{lambda(c10::BFloat16)#1} const&)::{lambda(int)#1})"),
              "elementwise_kernel");
    EXPECT_EQ(shorten_kernel_name("void at::native::(anonymous namespace)::CatArrayBatchedCopy<at::native::(anonymous namespace)"
                                  "::OpaqueType<2u>, unsigned int, 4, 64, 64>(at::native::(anonymous namespace)::OpaqueType<2u>*, "
                                  "at::native::(anonymous namespace)::CatArrInputTensorMetadata<at::native::(anonymous namespace)"
                                  "::OpaqueType<2u>, unsigned int, 64, 64>, at::native::(anonymous namespace)::"
                                  "TensorSizeStride<unsigned int, 4u>, int, unsigned int)"),
              "CatArrayBatchedCopy");
    EXPECT_EQ(shorten_kernel_name("void (anonymous namespace)::elementwise_kernel_with_index<int, at::native::arange_cuda_out("
                                  "c10::Scalar const&, c10::Scalar const&, c10::Scalar const&, at::Tensor&)::{lambda()#1}::"
                                  "operator()() const::{lambda()#4}::operator()() const::{lambda(long)#1}>(long, int, long)"),
              "elementwise_kernel_with_index");
    EXPECT_EQ(shorten_kernel_name("void cublasLt::splitKreduce_kernel<32, 16, int, float, __nv_bfloat16, float, __nv_bfloat16, "
                                  "false, float, __nv_bfloat16, __nv_bfloat16, true, false, false, false>(cublasLt::"
                                  "cublasSplitKParams<float>, float const*, __nv_bfloat16 const*, __nv_bfloat16*, float const*, "
                                  "float const*, __nv_bfloat16 const*, float const*, __nv_bfloat16*, void*, long, float*, int*)"),
              "splitKreduce_kernel");
    // flash-attention and CUTLASS as the workbench's synthetic H100 traces name them
    EXPECT_EQ(shorten_kernel_name("void flash::flash_fwd_splitkv_kernel<Flash_fwd_kernel_traits<128, 64, 128, 4, false, false, "
                                  "cutlass::bfloat16_t, Flash_kernel_traits<128, 64, 128, 4, cutlass::bfloat16_t> >, false, "
                                  "false, false, false, true, false, false, false>(flash::Flash_fwd_params)"),
              "flash_fwd_splitkv_kernel");
    EXPECT_EQ(shorten_kernel_name("void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_64x4_tn_align8>"
                                  "(cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_64x4_tn_align8::Params)"),
              "Kernel2");
    EXPECT_EQ(shorten_kernel_name("void vllm::act_and_mul_kernel<c10::BFloat16, &(c10::BFloat16 vllm::silu_kernel<c10::"
                                  "BFloat16>(c10::BFloat16 const&)), false>(c10::BFloat16*, c10::BFloat16 const*, int)"),
              "act_and_mul_kernel");
    // names without C++ syntax stay as they are: cuBLAS, cuDNN runtime-compiled, Triton, Tensile (ROCm)
    for (const char* plain : {"nvjet_sm90_tst_256x8_64x6_2x1_v_bz_TNT",
                              "cudnn_generated_fort_native_sdpa_sm80_flash_fprop_wmma_f16_knob_35_16x128x128_1x4x1_cga1x1x1_kernel0_0",
                              "triton_poi_fused_add_cos_sin_0", "create_flashinfer_kv_indices_triton",
                              "Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT128x256x32_MI16x16x1_SN_LDSB1_AFC1"})
        EXPECT_EQ(shorten_kernel_name(plain), plain);
    // ROCm: mangled names as the SGLang MI300 trace keeps them
    EXPECT_EQ(shorten_kernel_name("_ZN5aiter24add_rmsnorm_quant_kernelIDF16bDF16bLi256ELi16ELb0ELb0ELb1ELi1EEEvPT0_PT_PfS4_S4_S4_diiiiiiib"),
              "add_rmsnorm_quant_kernel");
    EXPECT_EQ(shorten_kernel_name("_ZN7sgl_hip10activation18act_and_mul_kernelI14__hip_bfloat16TnPFT_RKS3_EXadL_Z4siluIS2_ES3_S5_EEEEvPS3_PS4_i"),
              "act_and_mul_kernel");
    EXPECT_EQ(shorten_kernel_name("_ZN7ck_tile6kentryILi2ENS_38FmhaBatchPrefillWithPagedKVCacheKernelIEEEvT0_"), "kentry");
    EXPECT_EQ(shorten_kernel_name("_Z4siluIfEvPT_"), "silu");
    EXPECT_EQ(shorten_kernel_name("void rocprim::ROCPRIM_400200_NS::detail::trampoline_kernel<rocprim::ROCPRIM_400200_NS::detail::"
                                  "wrapped_scan_config<rocprim::ROCPRIM_400200_NS::default_config, long>, (rocprim::"
                                  "ROCPRIM_400200_NS::detail::target_arch)942>(long*)"),
              "trampoline_kernel");
    // nothing would be left, or not a name at all: unchanged
    EXPECT_EQ(shorten_kernel_name("<unnamed>"), "<unnamed>");
    EXPECT_EQ(shorten_kernel_name(""), "");
    EXPECT_EQ(shorten_kernel_name("_Z"), "_Z");
    EXPECT_EQ(shorten_kernel_name("_ZN999999999999999999999x"), "_ZN999999999999999999999x");
    EXPECT_EQ(shorten_kernel_name("saxpy(double *, double *, double *, double, int)"), "saxpy");
}

// Every kernel of the real traces gets a plain identifier (no template, scope, parameter or return-type text left),
// and one that is part of the full name.
TEST(KernelShortName, EveryKernelOfTheRealTracesIsAnIdentifier)
{
    std::vector<std::string> paths;
    // the H200 decode sample (its names are those of the other device samples, which would only add load time)
    paths.push_back(test::source_dir() + "/tests/data/device/decode-eager.pt.trace.json.gz");
    for (const std::string& f : test::shared_files("kineto/tracelens/sglang_prefilldecode", {".json.gz"}))
        paths.push_back(f);
    for (const std::string& f : test::shared_files("kineto/hta", {"amd_trace__mi250_minitoy_train_ROCm6_2.json.gz"}))
        paths.push_back(f);
    size_t names = 0;
    for (const std::string& p : paths) {
        const Trace t = load_trace(p);
        std::set<StrId> seen;
        for (size_t i = 0; i < t.kernels.size(); ++i) {
            if (!seen.insert(t.kernels.name[i]).second)
                continue;
            const std::string_view full = t.str(t.kernels.name[i]);
            const std::string_view s = shorten_kernel_name(full);
            EXPECT_TRUE(plain_identifier(s)) << p << ": " << full << " -> " << s;
            EXPECT_NE(full.find(s), std::string_view::npos);
            ++names;
        }
    }
    EXPECT_GE(names, 40u);
}

// 2 KiB hostile names: thousands of '<', '(' or "::" cost one pass each, not one per bracket.
TEST(KernelShortName, HostileNamesAreLinear)
{
    const std::string opens(2048, '<'), parens = std::string(2048, '('), colons = [] {
        std::string s;
        while (s.size() < 2048)
            s += "a::";
        return s;
    }();
    std::string anon;
    while (anon.size() < 2048)
        anon += "(anonymous namespace)::";
    const auto t0 = std::chrono::steady_clock::now();
    for (int rep = 0; rep < 2000; ++rep) {
        EXPECT_EQ(shorten_kernel_name(opens), opens);
        EXPECT_EQ(shorten_kernel_name(parens), parens);
        EXPECT_EQ(shorten_kernel_name("void " + opens + "x"), "void " + opens + "x");
        EXPECT_EQ(shorten_kernel_name(colons + "f(int)"), "f");
        EXPECT_EQ(shorten_kernel_name(anon + "g<int>()"), "g");
        EXPECT_EQ(shorten_kernel_name("_ZN" + std::string(2048, '1')), "_ZN" + std::string(2048, '1'));
    }
    // 12,000 names of 2 KiB: linear work is a few tens of ms (quadratic would be seconds)
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_LT(s, 2.0);
}
