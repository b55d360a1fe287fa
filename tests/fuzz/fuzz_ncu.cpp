// Nsight Compute exports from memory: the details CSV, the raw CSV (units row, locales) and the text details page.
#include "analysis/io/ncu_reader.h"
#include "tests/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string text(reinterpret_cast<const char*>(data), size);
    sl::fuzz::expect_located_errors([&] {
        const sl::NcuReport r = sl::parse_ncu_text(text, "fuzz.csv");
        for (const auto& l : r.launches)
            for (const auto& [key, v] : l.metrics)
                (void)v.number;
    });
    return 0;
}
