// nsys SQLite export from raw bytes: the file header checks, SQLite's own parser under the reader's defensive
// open, schema discovery, every activity table.
#include "analysis/io/nsys_reader.h"
#include "tests/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string path = sl::fuzz::write_scratch(data, size, ".sqlite");
    sl::fuzz::expect_located_errors([&] { (void)sl::read_nsys_sqlite(path); });
    return 0;
}
