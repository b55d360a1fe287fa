#include "model/packed_refs.h"

#include <algorithm>

namespace sl {

PackedRefs::PackedRefs(const std::vector<uint32_t>& refs) : size_(refs.size())
{
    const size_t nBlocks = (refs.size() + kBlock - 1) / kBlock;
    blocks_.resize(nBlocks);
    size_t total = 0;
    for (size_t b = 0; b < nBlocks; ++b) {
        const auto first = refs.begin() + std::ptrdiff_t(b * kBlock);
        const auto last = refs.begin() + std::ptrdiff_t(std::min(refs.size(), (b + 1) * kBlock));
        const auto [mn, mx] = std::minmax_element(first, last);
        const uint32_t spread = *mx - *mn;
        Block& bl = blocks_[b];
        bl.base = *mn;
        bl.width = spread <= 0xff ? 1 : (spread <= 0xffff ? 2 : 4);
        bl.offset = static_cast<uint32_t>(total);
        total += size_t(last - first) * bl.width;
    }
    bytes_.resize(total);
    for (size_t b = 0; b < nBlocks; ++b) {
        const Block& bl = blocks_[b];
        uint8_t* out = bytes_.data() + bl.offset;
        for (size_t i = b * kBlock, end = std::min(refs.size(), (b + 1) * kBlock); i < end; ++i) {
            const uint32_t v = refs[i] - bl.base;
            for (uint8_t k = 0; k < bl.width; ++k)
                *out++ = uint8_t(v >> (8 * k));   // little-endian, whatever the machine's order
        }
    }
}

std::vector<uint32_t> PackedRefs::toVector() const
{
    std::vector<uint32_t> v(size_);
    for (size_t i = 0; i < size_; ++i)
        v[i] = (*this)[i];
    return v;
}

} // namespace sl
