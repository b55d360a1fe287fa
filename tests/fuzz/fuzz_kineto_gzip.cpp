// Kineto .json.gz: the first byte picks the mode. Odd: the rest is the .gz file itself (mutated gzip streams,
// truncated members, bad CRCs). Even: the rest is JSON that the harness compresses, so the parser behind the
// gzip stream sees mutated JSON across refill boundaries.
#include <zlib.h>

#include <vector>

#include "analysis/io/kineto_reader.h"
#include "tests/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    if (size == 0)
        return 0;
    std::vector<uint8_t> file;
    if (data[0] & 1) {
        file.assign(data + 1, data + size);
    } else {
        z_stream z{};
        if (deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
            return 0;
        file.resize(deflateBound(&z, static_cast<uLong>(size)) + 32);
        z.next_in = const_cast<Bytef*>(data + 1);
        z.avail_in = static_cast<uInt>(size - 1);
        z.next_out = file.data();
        z.avail_out = static_cast<uInt>(file.size());
        deflate(&z, Z_FINISH);
        file.resize(z.total_out);
        deflateEnd(&z);
    }
    const std::string path = sl::fuzz::write_scratch(file.data(), file.size(), ".json.gz");
    sl::fuzz::expect_located_errors([&] { (void)sl::read_kineto_json(path); });
    return 0;
}
