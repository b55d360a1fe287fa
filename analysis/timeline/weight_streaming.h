#pragma once
// Weight streaming / layer cache (seed 000): when NVTX range names show per-layer weight management
// (ensure_layer_3, h2d_transfer_layer_3, prefetch_layers_4, evict_layer_0, cache_hit_layer_6, ...), report per
// layer: accesses, transfers, prefetches, evictions, hits and misses, the H2D copy time those ranges launched and
// how much of it ran under compute kernels.
//
// A range is matched by the regexes below (case-insensitive; the first capture group that matched is the layer).
// H2D copies belong to a range when their launching API call starts inside it on the same thread (NVTX projection
// semantics). Hits and misses: explicit hit/miss ranges or marks when the trace has any; otherwise inferred per
// access range: a miss when it launched an H2D copy or encloses a transfer range, else a hit.

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/trace/trace.h"

namespace sl {

struct WeightStreamingOptions {
    std::string access_regex = R"((?:ensure|acquire|get|use|access)[a-z_ -]*?layers?[_ -]?(-?\d+))";
    std::string transfer_regex = R"((?:h2d|transfer|load|upload|copy|stream[_ -]?in)[a-z_ -]*?layers?[_ -]?(-?\d+))";
    std::string prefetch_regex = R"(prefetch[a-z_ -]*?layers?[_ -]?(-?\d+))";
    std::string evict_regex = R"((?:evict|offload|release)[a-z_ -]*?layers?[_ -]?(-?\d+))";
    std::string hit_regex = R"((?:cache[_ -]?)?hit[a-z_ -]*?layers?[_ -]?(-?\d+)|layers?[_ -]?(-?\d+)[a-z_ -]*?(?:cache[_ -]?)?hit)";
    std::string miss_regex = R"((?:cache[_ -]?)?miss[a-z_ -]*?layers?[_ -]?(-?\d+)|layers?[_ -]?(-?\d+)[a-z_ -]*?(?:cache[_ -]?)?miss)";
};

struct LayerStreaming {
    int64_t layer = 0;
    int64_t accesses = 0, transfers = 0, prefetches = 0, evictions = 0;
    int64_t hits = 0, misses = 0;
    int64_t transfer_range_ns = 0;     // Σ host durations of transfer ranges
    int64_t h2d_count = 0;
    int64_t h2d_ns = 0;                // Σ H2D copies launched from this layer's ranges
    uint64_t h2d_bytes = 0;
    int64_t h2d_hidden_ns = 0;         // ... of which under compute kernels (same device)
};

struct WeightStreamingResult {
    bool detected = false;
    bool explicit_hits = false;        // hits/misses came from hit/miss ranges, not inferred
    std::vector<LayerStreaming> layers;   // by layer number
    int64_t accesses = 0, hits = 0, misses = 0, evictions = 0, prefetches = 0, transfers = 0;
    double hit_rate = -1;              // hits / (hits + misses); -1 when none
    int64_t h2d_ns = 0, h2d_hidden_ns = 0;
    double h2d_hidden_fraction = -1;
};

// Throws TraceError on an invalid regex. O((ranges + copies) log + kernels log kernels when detected).
WeightStreamingResult analyze_weight_streaming(const Trace& trace, const WeightStreamingOptions& options = {});

} // namespace sl
