// Hugging Face config.json, and with a NUL byte in the input, config.json + model.safetensors.index.json (the part
// after the first NUL): ranges, aliases, MoE layer patterns, the index's layer count and size checks.
#include <cstring>

#include "analysis/io/model_config.h"
#include "tests/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const auto* nul = static_cast<const uint8_t*>(std::memchr(data, 0, size));
    sl::fuzz::expect_located_errors([&] {
        sl::ModelConfig m;
        if (!nul) {
            m = sl::parse_model_config(std::string(reinterpret_cast<const char*>(data), size), "config.json");
        } else {
            const std::string cfg = sl::fuzz::write_scratch(data, static_cast<size_t>(nul - data), "-config.json");
            const std::string idx = sl::fuzz::write_scratch(nul + 1, size - static_cast<size_t>(nul - data) - 1,
                                                            "-index.json");
            m = sl::load_model_config(cfg, idx);
        }
        (void)m.parameter_count();   // must not overflow for any accepted config
    });
    return 0;
}
