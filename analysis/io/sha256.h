#pragma once
// SHA-256 (FIPS 180-4), small and dependency-free: the report lists every input file with its hash so a reader can
// tell which trace a report came from.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace sl {

class Sha256 {
public:
    Sha256();
    void update(const void* data, size_t len);
    void update(std::string_view s) { update(s.data(), s.size()); }
    std::array<uint8_t, 32> digest();   // finishes; the object must not be updated afterwards
    std::string hex();                  // digest() as 64 lower-case hex digits

private:
    void block(const uint8_t* p);
    uint32_t h_[8];
    uint8_t buf_[64];
    size_t buf_len_ = 0;
    uint64_t total_ = 0;
};

std::string sha256_hex(std::string_view data);
// Streams the file; throws TraceError when it cannot be read.
std::string sha256_file(const std::string& path);

} // namespace sl
