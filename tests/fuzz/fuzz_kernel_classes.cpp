// A kernel-classes file (kernel_classes.json layout): class and pattern parsing, then classification of kernel
// names of every kind the shipped file knows.
#include "analysis/timeline/op_classes.h"
#include "tests/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    static const char* names[] = {"ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_tn",
                                  "void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 64>>",
                                  "ncclDevKernel_AllReduce_Sum_bf16_RING_LL", "rms_norm_kernel", "", "\xff\xfe"};
    const std::string path = sl::fuzz::write_scratch(data, size, "-classes.json");
    sl::fuzz::expect_located_errors([&] {
        const sl::OpClassifier c = sl::OpClassifier::load_file(path);
        for (const char* n : names)
            (void)c.classify(n);
    });
    return 0;
}
