#pragma once
// A decode step that rewrites the whole KV cache (issue 34 §5): Hugging Face's `repeat_kv` expands each layer's K and
// V from the KV heads to the query heads (grouped-query attention) with expand + reshape, and the reshape of the
// expanded view is a copy of the whole cache — every layer, every step, K and V. On the project's real eager decode
// (tests/data/device/decode-eager) it is the largest elementwise cost: 256 copies of [8, 4, 4, 539, 128] (8.8 M
// elements each) in 16 steps. Its fix is no faster kernel but no copy: an attention that reads K/V per KV head (SDPA
// with enable_gqa=True, FlashAttention / FlashInfer with num_kv_heads, the frameworks' paged attention).
//
// Read off the recorded shapes (record_shapes): a copy op (aten::copy_, clone, contiguous) whose tensor is 5-D
// [B, Hkv, R, L, D] — KV heads, R ≥ 2 repeats, L ≥ 16 positions, a head size D that is a multiple of 16 up to 512 —
// the expanded view reshaped. The kernels those ops launched (KernelOps, so graph-replayed kernels joined to their
// capture count too) are its time.

#include <cstdint>
#include <string>
#include <vector>

namespace sl {

struct Trace;

struct KvExpansion {
    std::vector<uint32_t> kernels;      // kernel rows the copies launched, ascending
    int64_t calls = 0;                  // copy ops
    int64_t kernel_ns = 0;              // their kernels' time
    double bytes = 0;                   // read and written, all calls (2 × elements × dtype bytes each)
    int64_t kv_heads = 0, repeats = 0, head_dim = 0, batch = 0, positions = 0;   // of the largest copy
    std::string dims;                   // that copy's recorded dims, as the trace wrote them
};

KvExpansion find_kv_expansion(const Trace& trace);

} // namespace sl
