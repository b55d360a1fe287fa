// The vector byte masks the Kineto reader scans with (SSE2 on x86-64, NEON on AArch64) give the same bits as the
// portable scalar ones, on every byte value at every lane and on random buffers.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>

#include "analysis/io/byte_masks.h"

using namespace sl::bytes;

namespace {

// Independent oracle: one byte at a time, from the JSON grammar's characters.
StructureMasks reference_structure(const unsigned char* p)
{
    StructureMasks r;
    for (int i = 0; i < 64; ++i) {
        const uint64_t bit = uint64_t(1) << i;
        switch (p[i]) {
        case '"': r.quote |= bit; break;
        case '\\': r.backslash |= bit; break;
        case '{': case '[': r.open |= bit; break;
        case '}': case ']': r.close |= bit; break;
        default: break;
        }
    }
    return r;
}

uint32_t reference_stops(const unsigned char* p)
{
    uint32_t m = 0;
    for (int i = 0; i < 16; ++i)
        if (p[i] == '"' || p[i] == '\\' || p[i] < 0x20 || p[i] > 0x7F)
            m |= 1u << i;
    return m;
}

} // namespace

TEST(ByteMasks, ImplementationIsNamed)
{
    const std::string impl = implementation();
    EXPECT_TRUE(impl == "sse2" || impl == "neon" || impl == "scalar") << impl;
#if defined(__x86_64__)
    EXPECT_EQ(impl, "sse2");
#elif defined(__aarch64__)
    EXPECT_EQ(impl, "neon");
#endif
    std::printf("byte masks: %s\n", implementation());
}

TEST(ByteMasks, EveryByteValueInEveryLane)
{
    alignas(16) unsigned char buf[64];
    for (int v = 0; v < 256; ++v)
        for (int lane = 0; lane < 64; ++lane) {
            std::memset(buf, 'a', sizeof buf);
            buf[lane] = static_cast<unsigned char>(v);
            const auto* p = reinterpret_cast<const char*>(buf);
            ASSERT_EQ(json_structure(p), reference_structure(buf)) << "byte " << v << " lane " << lane;
            ASSERT_EQ(json_structure_scalar(p), reference_structure(buf)) << "byte " << v << " lane " << lane;
            if (lane < 16) {
                ASSERT_EQ(string_stops(p), reference_stops(buf)) << "byte " << v << " lane " << lane;
                ASSERT_EQ(string_stops_scalar(p), reference_stops(buf)) << "byte " << v << " lane " << lane;
            }
        }
}

TEST(ByteMasks, RandomBuffersAtEveryAlignment)
{
    std::mt19937 rng(20261127);
    // Biased towards the bytes that matter, so most masks have several bits.
    const unsigned char interesting[] = {'"', '\\', '{', '}', '[', ']', 0x00, 0x1F, 0x20, 0x7F, 0x80, 0xFF, 'x'};
    std::string buf(64 * 64 + 80, 'a');
    for (int round = 0; round < 200; ++round) {
        for (auto& c : buf)
            c = static_cast<char>(rng() % 3 == 0 ? interesting[rng() % sizeof interesting] : rng() % 256);
        for (size_t off = 0; off + 64 <= buf.size(); off += 1 + rng() % 7) {
            const char* p = buf.data() + off;
            const auto* u = reinterpret_cast<const unsigned char*>(p);
            ASSERT_EQ(json_structure(p), reference_structure(u)) << "offset " << off;
            ASSERT_EQ(string_stops(p), reference_stops(u)) << "offset " << off;
        }
    }
}
