#include "analysis/timeline/weight_streaming.h"

#include <algorithm>
#include <map>

#include "analysis/io/regex.h"
#include "analysis/trace/errors.h"
#include "analysis/timeline/overlap.h"
#include "analysis/trace/cancel_point.h"

namespace sl {

namespace {
enum Role : int8_t { kNone = 0, kAccess, kTransfer, kPrefetch, kEvict, kHit, kMiss };

Regex compile(const std::string& s, const char* what)
{
    try {
        return Regex(s, Regex::Options{.icase = true});
    } catch (const RegexError& e) {
        throw TraceError("options", what, kRegexExpected, e.what());
    }
}

struct NameRole {
    int8_t role = -1;   // -1 = not classified yet
    int64_t layer = 0;
};
} // namespace

WeightStreamingResult analyze_weight_streaming(const Trace& t, const WeightStreamingOptions& o)
{
    WeightStreamingResult r;
    if (t.ranges.size() == 0 && t.marks.size() == 0)
        return r;
    // Order: evict and prefetch before transfer ("prefetch_load_layer"), hit/miss before access.
    const std::pair<Role, Regex> res[] = {
        {kEvict, compile(o.evict_regex, "evict regex")},
        {kPrefetch, compile(o.prefetch_regex, "prefetch regex")},
        {kHit, compile(o.hit_regex, "hit regex")},
        {kMiss, compile(o.miss_regex, "miss regex")},
        {kTransfer, compile(o.transfer_regex, "transfer regex")},
        {kAccess, compile(o.access_regex, "access regex")},
    };
    std::vector<NameRole> roles(t.strings.size());
    auto role_of = [&](StrId n) -> NameRole& {
        NameRole& nr = roles[n < roles.size() ? n : 0];
        if (nr.role >= 0)
            return nr;
        nr.role = kNone;
        const std::string_view s = t.str(n);
        std::vector<std::string_view> m;
        for (const auto& [role, re] : res)
            if (re.search(s, m)) {
                for (size_t g = 1; g < m.size(); ++g)
                    if (m[g].data()) {
                        if (m[g].size() > 9)   // not a layer number (std::stoll would throw past 19 digits)
                            break;
                        nr.role = role;
                        nr.layer = std::stoll(std::string(m[g]));
                        break;
                    }
                if (nr.role != kNone)
                    break;
            }
        return nr;
    };
    struct Hit {
        uint32_t row;
        Role role;
        int64_t layer;
    };
    std::vector<Hit> hits;
    for (size_t i = 0; i < t.ranges.size(); ++i) {
        cancel_point(i);
        if (!is_nvtx_like(t.ranges.kind[i]))
            continue;
        const NameRole& nr = role_of(t.ranges.name[i]);
        if (nr.role > kNone)
            hits.push_back({static_cast<uint32_t>(i), static_cast<Role>(nr.role), nr.layer});
    }
    std::map<int64_t, LayerStreaming> layers;
    auto layer = [&](int64_t l) -> LayerStreaming& {
        auto& ls = layers[l];
        ls.layer = l;
        return ls;
    };
    int64_t explicit_hm = 0;
    for (size_t i = 0; i < t.marks.size(); ++i) {
        const NameRole& nr = role_of(t.marks.name[i]);
        if (nr.role == kHit || nr.role == kMiss) {
            (nr.role == kHit ? layer(nr.layer).hits : layer(nr.layer).misses) += 1;
            ++explicit_hm;
        } else if (nr.role == kEvict) {
            layer(nr.layer).evictions += 1;
        }
    }
    if (hits.empty() && layers.empty())
        return r;
    r.detected = true;
    for (const auto& h : hits)
        if (h.role == kHit || h.role == kMiss)
            ++explicit_hm;
    r.explicit_hits = explicit_hm > 0;

    // H2D copies by (thread, launch-call start).
    struct Copy {
        uint32_t thread;
        int64_t api_start;
        uint32_t row;
    };
    std::vector<Copy> copies;
    const auto& M = t.memcpy;
    for (size_t i = 0; i < M.size(); ++i) {
        if (M.copy_kind[i] != CopyKind::HtoD && M.copy_kind[i] != CopyKind::UnifiedHtoD)
            continue;
        const int32_t a = M.launch_api[i];
        if (a < 0 || static_cast<size_t>(a) >= t.api.size())
            continue;
        copies.push_back({t.api.thread[static_cast<size_t>(a)], t.api.start[static_cast<size_t>(a)], static_cast<uint32_t>(i)});
    }
    std::sort(copies.begin(), copies.end(), [](const Copy& x, const Copy& y) {
        return x.thread != y.thread ? x.thread < y.thread : x.api_start < y.api_start;
    });
    auto copies_in = [&](uint32_t range) {
        const uint32_t thr = t.ranges.thread[range];
        const int64_t s = t.ranges.start[range], e = t.ranges.end[range];
        auto lo = std::lower_bound(copies.begin(), copies.end(), Copy{thr, s, 0}, [](const Copy& x, const Copy& y) {
            return x.thread != y.thread ? x.thread < y.thread : x.api_start < y.api_start;
        });
        auto hi = lo;
        while (hi != copies.end() && hi->thread == thr && hi->api_start < e)
            ++hi;
        return std::make_pair(lo, hi);
    };

    // Compute union per device, only now that streaming ranges exist.
    const size_t nd = std::max<size_t>(t.meta.devices.size(), 1);
    std::vector<std::vector<Interval>> comp(nd);
    for (size_t i = 0; i < t.kernels.size(); ++i)
        comp[std::min<size_t>(t.kernels.device[i], nd - 1)].push_back({t.kernels.start[i], t.kernels.end[i]});
    std::vector<std::vector<Interval>> compm(nd);
    for (size_t d = 0; d < nd; ++d)
        compm[d] = merge_intervals(std::move(comp[d]));
    std::vector<BusyIndex> busy;
    for (size_t d = 0; d < nd; ++d)
        busy.emplace_back(std::move(compm[d]));

    std::vector<uint8_t> copy_counted(M.size(), 0);
    for (const auto& h : hits) {
        LayerStreaming& ls = layer(h.layer);
        const uint32_t ri = h.row;
        switch (h.role) {
        case kAccess: ls.accesses += 1; break;
        case kTransfer:
            ls.transfers += 1;
            ls.transfer_range_ns += t.ranges.end[ri] - t.ranges.start[ri];
            break;
        case kPrefetch: ls.prefetches += 1; break;
        case kEvict: ls.evictions += 1; break;
        case kHit: ls.hits += 1; break;
        case kMiss: ls.misses += 1; break;
        default: break;
        }
        if (h.role == kTransfer || h.role == kPrefetch || h.role == kAccess) {
            auto [lo, hi] = copies_in(ri);
            for (auto it = lo; it != hi; ++it) {
                if (copy_counted[it->row])
                    continue;
                copy_counted[it->row] = 1;
                const int64_t cs = M.start[it->row], ce = M.end[it->row];
                ls.h2d_count += 1;
                ls.h2d_ns += ce - cs;
                ls.h2d_bytes += M.bytes[it->row];
                ls.h2d_hidden_ns += busy[std::min<size_t>(M.device[it->row], nd - 1)].busy_in(cs, ce);
            }
        }
    }
    if (!r.explicit_hits) {
        // Inferred: an access that launched an H2D copy or encloses a transfer range on its thread is a miss.
        std::vector<const Hit*> transfers;
        for (const auto& h : hits)
            if (h.role == kTransfer)
                transfers.push_back(&h);
        for (const auto& h : hits) {
            if (h.role != kAccess)
                continue;
            auto [lo, hi] = copies_in(h.row);
            bool miss = lo != hi;
            if (!miss)
                for (const Hit* tr : transfers)
                    if (tr->layer == h.layer && t.ranges.thread[tr->row] == t.ranges.thread[h.row] &&
                        t.ranges.start[tr->row] >= t.ranges.start[h.row] && t.ranges.start[tr->row] < t.ranges.end[h.row]) {
                        miss = true;
                        break;
                    }
            (miss ? layer(h.layer).misses : layer(h.layer).hits) += 1;
        }
    }
    for (auto& [l, ls] : layers) {
        r.accesses += ls.accesses;
        r.hits += ls.hits;
        r.misses += ls.misses;
        r.evictions += ls.evictions;
        r.prefetches += ls.prefetches;
        r.transfers += ls.transfers;
        r.h2d_ns += ls.h2d_ns;
        r.h2d_hidden_ns += ls.h2d_hidden_ns;
        r.layers.push_back(ls);
    }
    if (r.hits + r.misses > 0)
        r.hit_rate = static_cast<double>(r.hits) / static_cast<double>(r.hits + r.misses);
    if (r.h2d_ns > 0)
        r.h2d_hidden_fraction = static_cast<double>(r.h2d_hidden_ns) / static_cast<double>(r.h2d_ns);
    return r;
}

} // namespace sl
