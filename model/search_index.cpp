#include "model/search_index.h"

#include <QRegularExpression>
#include <algorithm>

namespace sl {

int64_t SearchMatches::firstAtOrAfter(int64_t t) const
{
    if (ordered.empty())
        return -1;
    const auto it = std::lower_bound(ordered.begin(), ordered.end(), t,
                                     [](const SearchHit& h, int64_t v) { return h.start < v; });
    return it == ordered.end() ? 0 : int64_t(it - ordered.begin());
}

std::shared_ptr<const SearchIndex> SearchIndex::build(std::shared_ptr<const TimelineIndex> index)
{
    auto out = std::make_shared<SearchIndex>();
    out->index_ = index;
    if (!index)
        return out;
    const Trace& t = index->trace();
    const size_t nStrings = t.strings.size();
    // Pass 1: how many instances each (kind, name) has. Pass 2 below fills them in place (CSR layout).
    std::vector<uint32_t> count[3];
    for (auto& c : count)
        c.assign(nStrings, 0);
    auto classify = [&t](ItemRef r, SearchKind* kind, StrId* name) {
        switch (r.kind) {
        case ItemKind::Kernel: *kind = SearchKind::Kernel; *name = t.kernels.name[r.row]; return true;
        case ItemKind::Api: *kind = SearchKind::Api; *name = t.api.name[r.row]; return true;
        case ItemKind::Range: *kind = SearchKind::Range; *name = t.ranges.name[r.row]; return true;
        default: return false;
        }
    };
    const auto& lanes = index->lanes();
    for (const TimelineLane& lane : lanes) {
        if (lane.kind == LaneKind::Gaps)
            continue;
        for (uint32_t i = 0; i < lane.items.size(); ++i) {
            SearchKind k;
            StrId name;
            if (classify(index->ref(lane, i), &k, &name) && name < nStrings)
                ++count[int(k)][name];
        }
    }
    out->kernelName_.assign(nStrings, UINT32_MAX);
    std::vector<uint32_t> slot[3];
    uint32_t total = 0;
    for (int k = 0; k < 3; ++k) {
        slot[k].assign(nStrings, UINT32_MAX);
        for (StrId id = 0; id < nStrings; ++id) {
            if (!count[k][id])
                continue;
            slot[k][id] = uint32_t(out->names_.size());
            if (k == int(SearchKind::Kernel))
                out->kernelName_[id] = uint32_t(out->names_.size());
            const std::string_view v = t.strings.view(id);
            out->names_.push_back({id, SearchKind(k), total, total, QString::fromUtf8(v.data(), qsizetype(v.size()))});
            total += count[k][id];
        }
    }
    out->hits_.resize(total);
    for (uint32_t l = 0; l < lanes.size(); ++l) {
        const TimelineLane& lane = lanes[l];
        if (lane.kind == LaneKind::Gaps)
            continue;
        for (uint32_t i = 0; i < lane.items.size(); ++i) {
            SearchKind k;
            StrId name;
            if (!classify(index->ref(lane, i), &k, &name) || name >= nStrings)
                continue;
            Name& n = out->names_[slot[int(k)][name]];
            out->hits_[n.end++] = {index->itemStart(lane, i), l, i};
        }
    }
    for (const Name& n : out->names_)
        std::sort(out->hits_.begin() + n.begin, out->hits_.begin() + n.end,
                  [](const SearchHit& a, const SearchHit& b) { return a.start < b.start || (a.start == b.start && a.lane < b.lane); });
    return out;
}

std::shared_ptr<SearchMatches> SearchIndex::collect(const std::vector<const Name*>& names, const QString& text) const
{
    auto m = std::make_shared<SearchMatches>();
    m->text = text;
    m->names = int(names.size());
    if (!index_)
        return m;
    m->perLane.resize(index_->lanes().size());
    size_t n = 0;
    for (const Name* name : names)
        n += name->end - name->begin;
    m->ordered.reserve(n);
    for (const Name* name : names) {
        const int count = int(name->end - name->begin);
        (name->kind == SearchKind::Kernel ? m->kernels : name->kind == SearchKind::Range ? m->ranges : m->apiCalls) += count;
        m->ordered.insert(m->ordered.end(), hits_.begin() + name->begin, hits_.begin() + name->end);
    }
    // Each name's hits are already in time order: a merge would do, a sort of the matches is simpler and as cheap.
    std::sort(m->ordered.begin(), m->ordered.end(), [](const SearchHit& a, const SearchHit& b) {
        return a.start < b.start || (a.start == b.start && (a.lane < b.lane || (a.lane == b.lane && a.item < b.item)));
    });
    for (const SearchHit& h : m->ordered)
        m->perLane[h.lane].push_back(h.item);
    for (auto& items : m->perLane)
        std::sort(items.begin(), items.end());   // by start within a lane (items are stored by start)
    return m;
}

std::shared_ptr<const SearchMatches> SearchIndex::find(const QString& text, const Options& o) const
{
    std::vector<const Name*> hit;
    if (text.isEmpty())
        return collect(hit, text);
    QRegularExpression re;
    if (o.regex) {
        re.setPattern(text);
        re.setPatternOptions(o.caseSensitive ? QRegularExpression::NoPatternOption
                                             : QRegularExpression::CaseInsensitiveOption);
        if (!re.isValid()) {
            auto m = collect(hit, text);
            m->invalidPattern = true;
            return m;
        }
    }
    const Qt::CaseSensitivity cs = o.caseSensitive ? Qt::CaseSensitive : Qt::CaseInsensitive;
    for (const Name& n : names_) {
        if ((n.kind == SearchKind::Kernel && !o.kernels) || (n.kind == SearchKind::Range && !o.ranges) ||
            (n.kind == SearchKind::Api && !o.apiCalls))
            continue;
        auto matches = [&](const QString& s) { return o.regex ? re.match(s).hasMatch() : s.contains(text, cs); };
        const QString* tags = n.kind == SearchKind::Kernel && o.kernelTags && n.id < o.kernelTags->size() &&
                                      !(*o.kernelTags)[n.id].isEmpty()
                                  ? &(*o.kernelTags)[n.id]
                                  : nullptr;
        if (matches(n.text) || (tags && matches(*tags)))
            hit.push_back(&n);
    }
    return collect(hit, text);
}

std::shared_ptr<const SearchMatches> SearchIndex::kernelInstances(StrId name) const
{
    std::vector<const Name*> hit;
    if (name < kernelName_.size() && kernelName_[name] != UINT32_MAX)
        hit.push_back(&names_[kernelName_[name]]);
    return collect(hit, hit.empty() ? QString() : hit.front()->text);
}

std::shared_ptr<const SearchMatches> SearchIndex::kernelRows(const std::vector<int64_t>& rows, const QString& text) const
{
    auto m = std::make_shared<SearchMatches>();
    m->text = text;
    if (!index_ || rows.empty())
        return m;
    const Trace& t = index_->trace();
    std::vector<int64_t> sorted(rows);
    std::sort(sorted.begin(), sorted.end());
    sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
    std::vector<StrId> names;
    for (int64_t k : sorted)
        if (k >= 0 && size_t(k) < t.kernels.size())
            names.push_back(t.kernels.name[size_t(k)]);
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    const auto& lanes = index_->lanes();
    m->perLane.resize(lanes.size());
    for (StrId id : names) {
        if (id >= kernelName_.size() || kernelName_[id] == UINT32_MAX)
            continue;
        const Name& n = names_[kernelName_[id]];
        bool any = false;
        for (uint32_t h = n.begin; h < n.end; ++h) {
            const SearchHit& hit = hits_[h];
            const ItemRef r = index_->ref(lanes[hit.lane], hit.item);
            if (r.kind == ItemKind::Kernel && std::binary_search(sorted.begin(), sorted.end(), int64_t(r.row))) {
                m->ordered.push_back(hit);
                ++m->kernels;
                any = true;
            }
        }
        m->names += any;
    }
    std::sort(m->ordered.begin(), m->ordered.end(), [](const SearchHit& a, const SearchHit& b) {
        return a.start < b.start || (a.start == b.start && (a.lane < b.lane || (a.lane == b.lane && a.item < b.item)));
    });
    for (const SearchHit& h : m->ordered)
        m->perLane[h.lane].push_back(h.item);
    for (auto& items : m->perLane)
        std::sort(items.begin(), items.end());
    return m;
}

} // namespace sl
