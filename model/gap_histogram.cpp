#include "model/gap_histogram.h"

namespace sl {

GapHistogram binGapsByCause(const IdleResult& idle)
{
    GapHistogram h;
    for (const Gap& g : idle.gaps) {
        const size_t b = gap_bucket_of(g.duration());
        const auto c = static_cast<size_t>(g.cause);
        if (b >= kGapBuckets || c >= 4)
            continue;
        ++h.count[b][c];
        h.total_ns[b][c] += g.duration();
    }
    return h;
}

} // namespace sl
