// Kineto / Chrome-trace JSON as plain text: the streaming event scanner, simdjson per event, clock and flow handling.
#include "analysis/io/kineto_reader.h"
#include "tests/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string path = sl::fuzz::write_scratch(data, size, ".json");
    sl::fuzz::expect_located_errors([&] { (void)sl::read_kineto_json(path); });
    return 0;
}
