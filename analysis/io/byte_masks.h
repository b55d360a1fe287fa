#pragma once
// Bit masks of the bytes the Kineto reader looks for (quotes, backslashes, brackets, control bytes), 16 or 64 bytes
// at a time: bit i of a mask is set when byte i matches. Chosen at compile time: SSE2 on x86-64, NEON on AArch64,
// and a portable scalar version everywhere else; the scalar versions are always compiled, so tests check the vector
// ones against them on the machine that runs the tests.
//
// Callers guarantee that 16 (string_stops) or 64 (json_structure) bytes are readable at p.

#include <cstdint>

#if defined(__SSE2__) || defined(_M_X64)
#include <emmintrin.h>
#define SIGHTLINE_BYTE_MASKS_SSE2 1
#elif defined(__ARM_NEON) && defined(__aarch64__)
#include <arm_neon.h>
#define SIGHTLINE_BYTE_MASKS_NEON 1
#endif

namespace sl::bytes {

// Quote, backslash, open ('{' or '['), close ('}' or ']') masks of 64 bytes.
struct StructureMasks {
    uint64_t quote = 0, backslash = 0, open = 0, close = 0;
    bool operator==(const StructureMasks&) const = default;
};

// The name of the implementation compiled in: "sse2", "neon" or "scalar".
constexpr const char* implementation()
{
#if defined(SIGHTLINE_BYTE_MASKS_SSE2)
    return "sse2";
#elif defined(SIGHTLINE_BYTE_MASKS_NEON)
    return "neon";
#else
    return "scalar";
#endif
}

// A byte that ends a plain JSON string scan: '"', '\\', a control byte (< 0x20) or a non-ASCII byte (>= 0x80).
inline bool is_string_stop(unsigned char c) { return c == '"' || c == '\\' || c < 0x20 || c >= 0x80; }

inline uint32_t string_stops_scalar(const char* p)
{
    uint32_t m = 0;
    for (int i = 0; i < 16; ++i)
        m |= static_cast<uint32_t>(is_string_stop(static_cast<unsigned char>(p[i]))) << i;
    return m;
}

inline StructureMasks json_structure_scalar(const char* p)
{
    StructureMasks r;
    for (int i = 0; i < 64; ++i) {
        const unsigned char c = static_cast<unsigned char>(p[i]);
        const uint64_t bit = uint64_t(1) << i;
        if (c == '"')
            r.quote |= bit;
        else if (c == '\\')
            r.backslash |= bit;
        else if (c == '{' || c == '[')
            r.open |= bit;
        else if (c == '}' || c == ']')
            r.close |= bit;
    }
    return r;
}

#if defined(SIGHTLINE_BYTE_MASKS_NEON)
namespace detail {
// The 16 lanes of a comparison result (0xFF or 0x00 each) as a 16-bit mask.
inline uint32_t movemask(uint8x16_t v)
{
    static const uint8_t kWeights[16] = {1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128};
    const uint8x16_t bits = vandq_u8(v, vld1q_u8(kWeights));
    return static_cast<uint32_t>(vaddv_u8(vget_low_u8(bits))) |
           (static_cast<uint32_t>(vaddv_u8(vget_high_u8(bits))) << 8);
}
} // namespace detail
#endif

// 16-bit mask of string stops at p.
inline uint32_t string_stops(const char* p)
{
#if defined(SIGHTLINE_BYTE_MASKS_SSE2)
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    // Signed compare: bytes below 0x20 and from 0x80 on are both "less than 0x20".
    const __m128i stop = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')),
                                                   _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))),
                                      _mm_cmpgt_epi8(_mm_set1_epi8(0x20), v));
    return static_cast<uint32_t>(_mm_movemask_epi8(stop));
#elif defined(SIGHTLINE_BYTE_MASKS_NEON)
    const uint8x16_t v = vld1q_u8(reinterpret_cast<const uint8_t*>(p));
    const uint8x16_t stop = vorrq_u8(vorrq_u8(vceqq_u8(v, vdupq_n_u8('"')), vceqq_u8(v, vdupq_n_u8('\\'))),
                                     vorrq_u8(vcltq_u8(v, vdupq_n_u8(0x20)), vcgeq_u8(v, vdupq_n_u8(0x80))));
    return detail::movemask(stop);
#else
    return string_stops_scalar(p);
#endif
}

// Quote, backslash and bracket masks of the 64 bytes at p.
inline StructureMasks json_structure(const char* p)
{
#if defined(SIGHTLINE_BYTE_MASKS_SSE2)
    StructureMasks r;
    const __m128i vq = _mm_set1_epi8('"'), vb = _mm_set1_epi8('\\');
    const __m128i v20 = _mm_set1_epi8(0x20), vo = _mm_set1_epi8(0x7B), vc = _mm_set1_epi8(0x7D);
    for (int k = 0; k < 4; ++k) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * k));
        const __m128i lower = _mm_or_si128(v, v20);   // '[' -> '{', ']' -> '}'
        const int sh = 16 * k;
        auto bits = [&](__m128i eq) {
            return static_cast<uint64_t>(static_cast<uint32_t>(_mm_movemask_epi8(eq))) << sh;
        };
        r.quote |= bits(_mm_cmpeq_epi8(v, vq));
        r.backslash |= bits(_mm_cmpeq_epi8(v, vb));
        r.open |= bits(_mm_cmpeq_epi8(lower, vo));
        r.close |= bits(_mm_cmpeq_epi8(lower, vc));
    }
    return r;
#elif defined(SIGHTLINE_BYTE_MASKS_NEON)
    StructureMasks r;
    for (int k = 0; k < 4; ++k) {
        const uint8x16_t v = vld1q_u8(reinterpret_cast<const uint8_t*>(p + 16 * k));
        const uint8x16_t lower = vorrq_u8(v, vdupq_n_u8(0x20));   // '[' -> '{', ']' -> '}'
        const int sh = 16 * k;
        r.quote |= static_cast<uint64_t>(detail::movemask(vceqq_u8(v, vdupq_n_u8('"')))) << sh;
        r.backslash |= static_cast<uint64_t>(detail::movemask(vceqq_u8(v, vdupq_n_u8('\\')))) << sh;
        r.open |= static_cast<uint64_t>(detail::movemask(vceqq_u8(lower, vdupq_n_u8(0x7B)))) << sh;
        r.close |= static_cast<uint64_t>(detail::movemask(vceqq_u8(lower, vdupq_n_u8(0x7D)))) << sh;
    }
    return r;
#else
    return json_structure_scalar(p);
#endif
}

} // namespace sl::bytes
