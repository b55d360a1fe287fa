// A GPU spec file (gpus.json layout) merged over the shipped database, then every row resolved by name.
#include "analysis/roofline/gpu_specs.h"
#include "tests/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    static const sl::GpuDatabase shipped = sl::GpuDatabase::load_default();
    const std::string path = sl::fuzz::write_scratch(data, size, "-gpus.json");
    sl::fuzz::expect_located_errors([&] {
        sl::GpuDatabase db = shipped;
        db.merge_file(path);
        (void)sl::resolve_gpu(db, "H100-SXM", nullptr);
    });
    return 0;
}
