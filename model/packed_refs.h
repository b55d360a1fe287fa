#pragma once
// A compact, immutable array of 32-bit item references (the timeline index's packed kind << 29 | row): blocks of 64
// stored as the block's smallest reference plus each reference's offset from it in 1, 2 or 4 bytes, whichever the
// block's spread needs. A lane's references are rows of the trace's tables sorted by start, so neighbours are
// close rows and most blocks take 1 byte per item instead of 4 (issue 18: the index of a 10^7-kernel trace within
// 20 % of the trace). Random access is O(1).

#include <cstddef>
#include <cstdint>
#include <vector>

namespace sl {

class PackedRefs {
public:
    static constexpr uint32_t kBlock = 64;

    PackedRefs() = default;
    explicit PackedRefs(const std::vector<uint32_t>& refs);

    size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    uint32_t operator[](size_t i) const
    {
        const Block& b = blocks_[i / kBlock];
        const size_t j = i % kBlock;
        const uint8_t* p = bytes_.data() + b.offset + j * b.width;
        switch (b.width) {
        case 1: return b.base + p[0];
        case 2: return b.base + (uint32_t(p[0]) | uint32_t(p[1]) << 8);
        default: return b.base + (uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24);
        }
    }
    uint32_t front() const { return (*this)[0]; }
    uint32_t back() const { return (*this)[size_ - 1]; }
    std::vector<uint32_t> toVector() const;
    bool operator==(const PackedRefs& o) const { return size_ == o.size_ && toVector() == o.toVector(); }

    // Heap bytes held.
    size_t memoryBytes() const { return blocks_.capacity() * sizeof(Block) + bytes_.capacity(); }

private:
    struct Block {
        uint32_t base = 0;     // smallest reference in the block
        uint32_t offset = 0;   // byte offset of the block's first item in bytes_ (items are at most 2^29: fits)
        uint8_t width = 4;     // bytes per item: 1, 2 or 4
    };
    std::vector<Block> blocks_;
    std::vector<uint8_t> bytes_;
    size_t size_ = 0;
};

} // namespace sl
