#pragma once
// Idle gaps binned by the summary's size buckets (<1us ... >1ms) and by cause, for the Gaps pane.

#include <array>
#include <cstdint>

#include "analysis/idle.h"
#include "analysis/summary.h"

namespace sl {

struct GapHistogram {
    // [bucket][cause]: count and total ns; bucket as gap_bucket_of(), cause as GapCause.
    std::array<std::array<int64_t, 4>, kGapBuckets> count{}, total_ns{};
};

GapHistogram binGapsByCause(const IdleResult& idle);

} // namespace sl
