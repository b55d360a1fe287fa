#include "model/range_aggregate.h"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace sl {

RangeAggregate aggregateRange(const TimelineIndex& index, const AnalysisResult* analysis, int64_t from, int64_t to,
                              const std::vector<std::string>& classLabels, const LoadControl& control)
{
    RangeAggregate a;
    a.from = std::min(from, to);
    a.to = std::max(from, to);
    if (a.to <= a.from)
        return a;
    const Trace& t = index.trace();
    struct Acc {
        int64_t count = 0, ns = 0, bytes = 0;
    };
    std::unordered_map<StrId, Acc> byName, byApi;
    std::map<int, Acc> byClass;
    std::map<std::string, Acc> byCopy;
    static const std::vector<int16_t> kNoClasses;
    const std::vector<int16_t>& kc = analysis ? analysis->classes.kernel_class : kNoClasses;
    uint64_t seen = 0;
    for (const TimelineLane& lane : index.lanes()) {
        if (lane.kind != LaneKind::Stream && lane.kind != LaneKind::ApiThread)
            continue;
        const uint32_t i0 = index.firstEndingAfter(lane, a.from), i1 = index.endStartingBefore(lane, a.to);
        for (uint32_t i = i0; i < i1; ++i) {
            if ((++seen & 0xFFFF) == 0)
                control.check();
            const int64_t s = index.itemStart(lane, i), e = index.itemEnd(lane, i);
            // Overlapping the range (a zero-length item inside it counts too), and its time inside.
            if (!(e > a.from || (s == e && s >= a.from)))
                continue;
            const int64_t inside = std::max<int64_t>(0, std::min(e, a.to) - std::max(s, a.from));
            const ItemRef r = index.ref(lane, i);
            switch (r.kind) {
            case ItemKind::Kernel: {
                ++a.kernels;
                a.kernel_ns += inside;
                Acc& n = byName[t.kernels.short_name[r.row]];
                ++n.count;
                n.ns += inside;
                if (analysis) {
                    Acc& c = byClass[r.row < kc.size() ? kc[r.row] : -1];
                    ++c.count;
                    c.ns += inside;
                }
                break;
            }
            case ItemKind::Memcpy:
            case ItemKind::Memset: {
                ++a.copies;
                a.copy_ns += inside;
                const bool copy = r.kind == ItemKind::Memcpy;
                Acc& c = byCopy[copy ? copy_kind_label(t.memcpy.copy_kind[r.row]) : "[CUDA memset]"];
                ++c.count;
                c.ns += inside;
                c.bytes += int64_t(copy ? t.memcpy.bytes[r.row] : t.memset.bytes[r.row]);
                break;
            }
            case ItemKind::Api: {
                ++a.api_calls;
                a.api_ns += inside;
                Acc& c = byApi[t.api.name[r.row]];
                ++c.count;
                c.ns += inside;
                break;
            }
            default: break;
            }
        }
    }
    auto add = [&](RangeAggregate::Group g, std::vector<RangeAggregate::Row> rows, int64_t total) {
        std::sort(rows.begin(), rows.end(), [](const auto& x, const auto& y) {
            return x.time_ns != y.time_ns ? x.time_ns > y.time_ns : x.name < y.name;
        });
        for (auto& row : rows) {
            row.group = g;
            row.share = total > 0 ? double(row.time_ns) / double(total) : 0;
            a.rows.push_back(std::move(row));
        }
    };
    std::vector<RangeAggregate::Row> rows;
    for (const auto& [c, acc] : byClass) {
        std::string name = c >= 0 && size_t(c) < classLabels.size()                             ? classLabels[size_t(c)]
                           : analysis && c >= 0 && size_t(c) < analysis->classes.classes.size() ? analysis->classes.classes[size_t(c)].id
                                                                                                : std::string("other");
        rows.push_back({RangeAggregate::Group::Class, std::move(name), acc.count, acc.ns, 0, 0});
    }
    add(RangeAggregate::Group::Class, std::move(rows), a.kernel_ns);
    rows.clear();
    for (const auto& [n, acc] : byName)
        rows.push_back({RangeAggregate::Group::Kernel, std::string(t.str(n)), acc.count, acc.ns, 0, 0});
    add(RangeAggregate::Group::Kernel, std::move(rows), a.kernel_ns);
    rows.clear();
    for (const auto& [n, acc] : byCopy)
        rows.push_back({RangeAggregate::Group::Copy, n, acc.count, acc.ns, acc.bytes, 0});
    add(RangeAggregate::Group::Copy, std::move(rows), a.copy_ns);
    rows.clear();
    for (const auto& [n, acc] : byApi)
        rows.push_back({RangeAggregate::Group::Api, std::string(t.str(n)), acc.count, acc.ns, 0, 0});
    add(RangeAggregate::Group::Api, std::move(rows), a.api_ns);
    return a;
}

} // namespace sl
