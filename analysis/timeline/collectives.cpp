#include "analysis/timeline/collectives.h"
#include "analysis/timeline/collective_match.h"

#include "analysis/timeline/overlap.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <tuple>
#include <unordered_map>

namespace sl {

namespace {

std::string squash(std::string_view s)
{
    std::string out;
    for (char c : s)
        if (c != '_' && c != ' ')
            out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

bool is_comm_kernel(std::string_view name)
{
    const std::string n = squash(name.substr(0, 8));
    return n.rfind("nccl", 0) == 0 || n.rfind("rccl", 0) == 0;
}

struct KeyHash {
    size_t operator()(const std::tuple<int32_t, int64_t, int64_t>& k) const
    {
        return std::hash<int64_t>()(std::get<2>(k) * 0x9E3779B97F4A7C15ull ^ (std::get<1>(k) << 9) ^
                                    static_cast<uint64_t>(std::get<0>(k)));
    }
};
using Key = std::tuple<int32_t, int64_t, int64_t>;

double median(std::vector<double> v)
{
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

} // namespace

std::string collective_kind(std::string_view name)
{
    const std::string n = squash(name);
    if (n.find("allreduce") != std::string::npos) return "allreduce";
    if (n.find("allgather") != std::string::npos) return "allgather";
    if (n.find("reducescatter") != std::string::npos) return "reduce_scatter";
    if (n.find("alltoall") != std::string::npos) return "alltoall";
    if (n.find("broadcast") != std::string::npos) return "broadcast";
    if (n.find("sendrecv") != std::string::npos) return "sendrecv";
    if (n.find("send") != std::string::npos) return "send";
    if (n.find("recv") != std::string::npos) return "recv";
    if (n.find("barrier") != std::string::npos) return "barrier";
    if (n.find("reduce") != std::string::npos) return "reduce";
    return n;
}

double busbw_factor(std::string_view kind, int64_t n)
{
    if (n < 1)
        return 1.0;
    const double dn = static_cast<double>(n);
    if (kind == "allreduce")
        return 2.0 * (dn - 1) / dn;
    if (kind == "allgather" || kind == "reduce_scatter" || kind == "alltoall")
        return (dn - 1) / dn;
    return 1.0;
}

int comm_dtype_bytes(std::string_view d)
{
    const std::string s = squash(d);
    if (s == "float" || s == "float32" || s == "int" || s == "int32" || s == "uint32") return 4;
    if (s == "bfloat16" || s == "half" || s == "float16" || s == "short" || s == "int16") return 2;
    if (s == "double" || s == "float64" || s == "long" || s == "int64" || s == "uint64") return 8;
    if (s == "byte" || s == "char" || s == "bool" || s == "int8" || s == "uint8" || s.rfind("float8", 0) == 0)
        return 1;
    return 0;
}

int64_t CollectiveRecord::covered(int64_t from, int64_t to) const
{
    from = std::max(from, start);
    to = std::min(to, end);
    int64_t sum = 0;
    for (const auto& [s, e] : cover) {
        if (e <= from)
            continue;
        if (s >= to)
            break;
        sum += std::min(e, to) - std::max(s, from);
    }
    return sum;
}

std::vector<CollectiveRecord> collective_records(const Trace& t)
{
    std::vector<CollectiveRecord> out;
    const auto& k = t.kernels;
    const auto& a = t.op_args;
    // Metadata rows: kernels by (rank, device id, correlation); CPU ops by (rank, pid, External id); launches.
    std::unordered_map<Key, size_t, KeyHash> kernel_meta, op_meta, launch;
    for (size_t i = 0; i < a.size(); ++i) {
        if (a.source[i] == OpArgsTable::kKernel && !a.collective[i].empty())
            kernel_meta[{a.rank[i], a.pid[i], a.correlation[i]}] = i;
        else if (a.source[i] == OpArgsTable::kCpuOp && !a.collective[i].empty() && a.external_id[i] != 0)
            op_meta[{a.rank[i], a.pid[i], a.external_id[i]}] = i;
        else if (a.source[i] == OpArgsTable::kLaunch)
            launch[{a.rank[i], a.pid[i], a.correlation[i]}] = i;
    }
    // Non-communication kernel intervals per device, merged (merge_intervals, BusyIndex as the overlap analysis
    // uses them), for exposed time. Names are classified once each, and the intervals are only collected when the
    // trace has communication kernels at all, at exact size (issue 18: at 10^7 kernels without NCCL this built 670 MB
    // of intervals nothing read).
    std::vector<int8_t> name_comm(t.strings.size(), -1);
    auto comm_name = [&](StrId n) {
        if (n >= name_comm.size())
            return is_comm_kernel(t.str(n));
        int8_t& c = name_comm[n];
        if (c < 0)
            c = is_comm_kernel(t.str(n)) ? 1 : 0;
        return c == 1;
    };
    std::vector<uint32_t> comm;
    for (size_t i = 0; i < k.size(); ++i)
        if (comm_name(k.name[i]))
            comm.push_back(static_cast<uint32_t>(i));
    if (comm.empty())
        return out;
    std::map<uint16_t, BusyIndex> busy;
    {
        std::map<uint16_t, std::vector<Interval>> iv;
        std::map<uint16_t, size_t> count;
        for (size_t i = 0; i < k.size(); ++i)
            if (!comm_name(k.name[i]))
                ++count[k.device[i]];
        for (const auto& [dev, n] : count)
            iv[dev].reserve(n);
        for (size_t i = 0; i < k.size(); ++i)
            if (!comm_name(k.name[i]))
                iv[k.device[i]].push_back({k.start[i], k.end[i]});
        for (auto& [dev, v] : iv)
            busy.emplace(dev, BusyIndex(merge_intervals(std::move(v))));
    }
    auto rank_of = [&](uint32_t i) { return t.meta.devices[k.device[i]].rank; };
    std::sort(comm.begin(), comm.end(), [&](uint32_t x, uint32_t y) {
        return std::make_tuple(k.start[x], rank_of(x), x) < std::make_tuple(k.start[y], rank_of(y), y);
    });
    std::map<std::tuple<int32_t, std::string, std::string>, int64_t> next_seq;
    out.reserve(comm.size());
    for (uint32_t i : comm) {
        const auto& dev = t.meta.devices[k.device[i]];
        const int32_t rank = dev.rank;
        size_t row = SIZE_MAX;
        if (auto m = kernel_meta.find({rank, dev.id, k.correlation[i]}); m != kernel_meta.end()) {
            row = m->second;
        } else {
            const int64_t pid = k.process[i] < t.meta.processes.size() ? t.meta.processes[k.process[i]].pid : 0;
            if (auto l = launch.find({rank, pid, k.correlation[i]}); l != launch.end())
                if (auto o = op_meta.find({rank, pid, a.external_id[l->second]}); o != op_meta.end())
                    row = o->second;
        }
        CollectiveRecord r;
        r.rank = rank;
        r.start = k.start[i];
        r.end = k.end[i];
        r.order = i;
        if (k.launch_api[i] != kNoIndex && static_cast<size_t>(k.launch_api[i]) < t.api.size())
            r.launch_ns = t.api.start[static_cast<size_t>(k.launch_api[i])];
        if (row != SIZE_MAX) {
            r.kind = collective_kind(a.collective[row]);
            r.process_group = a.pg_name[row];
            r.group_size = std::max<int64_t>(0, a.group_size[row]);
            r.dtype = a.dtype[row];
            const int64_t ne = std::max(a.in_nelems[row], a.out_nelems[row]);
            const int e = comm_dtype_bytes(r.dtype);
            if (ne >= 0 && e > 0)
                r.bytes = static_cast<double>(ne) * e;
            r.has_metadata = true;
        } else {
            r.kind = collective_kind(t.str(k.name[i]));
        }
        r.seq = next_seq[{rank, r.process_group, r.kind}]++;
        if (auto b = busy.find(k.device[i]); b != busy.end() && r.end > r.start) {
            const auto& iv = b->second.intervals();
            auto it = std::upper_bound(iv.begin(), iv.end(), r.start,
                                       [](int64_t v, const Interval& x) { return v < x.end; });
            for (; it != iv.end() && it->start < r.end; ++it)
                r.cover.emplace_back(std::max(it->start, r.start), std::min(it->end, r.end));
        }
        out.push_back(std::move(r));
    }
    return out;
}

CollectiveStats collective_stats(const Trace& t, const CollectiveOptions& opt)
{
    return collective_stats_from_records(collective_records(t), opt);
}

CollectiveStats collective_stats_from_records(const std::vector<CollectiveRecord>& recs, const CollectiveOptions& opt,
                                              std::vector<MatchedCollective>* matched_out)
{
    CollectiveStats st;
    std::vector<uint32_t> comm(recs.size());
    for (size_t i = 0; i < recs.size(); ++i)
        comm[i] = static_cast<uint32_t>(i);
    std::sort(comm.begin(), comm.end(), [&](uint32_t x, uint32_t y) {
        const auto& p = recs[x];
        const auto& q = recs[y];
        return std::make_tuple(p.start, p.rank, p.order) < std::make_tuple(q.start, q.rank, q.order);
    });

    struct Acc {
        CollectiveGroup g;
        std::vector<double> algbw;
        double sized_bytes = 0;
        int64_t sized_ns = 0;
    };
    std::map<std::tuple<std::string, std::string, int64_t, std::string>, Acc> groups;
    std::map<int32_t, RankComm> ranks;
    // Per rank, per (process group, kind): the kernels in start order, for cross-rank matching.
    struct Call {
        int64_t start = 0, end = 0;
        uint32_t record = 0;
    };
    std::map<std::pair<std::string, std::string>, std::map<int32_t, std::vector<Call>>> sequences;
    for (uint32_t i : comm) {
        const CollectiveRecord& r = recs[i];
        const int32_t rank = r.rank;
        const int64_t dur = r.end - r.start;
        const int64_t hidden = std::min(dur, r.covered(r.start, r.end));
        if (r.has_metadata)
            st.kernels_with_metadata += 1;
        const double bytes = r.bytes;
        auto& acc = groups[{r.kind, r.process_group, r.group_size, r.dtype}];
        acc.g.kind = r.kind;
        acc.g.process_group = r.process_group;
        acc.g.group_size = r.group_size;
        acc.g.dtype = r.dtype;
        acc.g.count += 1;
        acc.g.time_ns += dur;
        acc.g.hidden_ns += hidden;
        acc.g.exposed_ns += dur - hidden;
        if (bytes > 0 && dur > 0) {
            acc.g.with_size += 1;
            acc.g.bytes += bytes;
            acc.sized_bytes += bytes;
            acc.sized_ns += dur;
            acc.algbw.push_back(bytes / (static_cast<double>(dur) * 1e-9));
        }
        st.kernels += 1;
        st.time_ns += dur;
        st.exposed_ns += dur - hidden;
        st.bytes += bytes;
        auto& rc = ranks[rank];
        rc.rank = rank;
        rc.count += 1;
        rc.time_ns += dur;
        rc.exposed_ns += dur - hidden;
        sequences[{r.process_group, r.kind}][rank].push_back({r.start, r.end, i});
    }
    for (auto& [key, acc] : groups) {
        if (acc.sized_ns > 0) {
            acc.g.algbw_Bps = acc.sized_bytes / (static_cast<double>(acc.sized_ns) * 1e-9);
            acc.g.busbw_Bps = *acc.g.algbw_Bps * busbw_factor(acc.g.kind, acc.g.group_size);
            acc.g.median_algbw_Bps = median(acc.algbw);
        }
        st.groups.push_back(acc.g);
    }
    std::stable_sort(st.groups.begin(), st.groups.end(),
                     [](const CollectiveGroup& x, const CollectiveGroup& y) { return x.time_ns > y.time_ns; });

    // Cross-rank skew and straggler. A collective completes together on every rank (the early ones spin until the
    // last arrives), so the k-th kernel of a (process group, kind) on each rank is one collective only when their
    // ends agree: match on ends (within end_tolerance), anchored on the rank with the fewest kernels. Sampled or
    // partial traces (a kernel missing on one rank, send/recv with peers outside the trace) then lose only the
    // kernels without a partner instead of shifting every later pair. When no end agrees (ranks on hosts whose
    // clocks differ) and every rank has the same count, fall back to the k-th of each.
    if (ranks.size() > 1) {
        double skew_sum = 0, skew_max = 0;
        std::map<int32_t, std::map<int32_t, int64_t>> exposed_wait_by_last;   // last rank -> waiting rank -> ns
        std::map<int32_t, std::map<int32_t, int64_t>> wait_by_last;
        auto settle = [&](const std::vector<std::pair<int32_t, const Call*>>& parts) {
            int64_t lo = INT64_MAX, hi = INT64_MIN;
            int32_t last = 0;
            for (const auto& [r, c] : parts) {
                lo = std::min(lo, c->start);
                if (c->start > hi) {
                    hi = c->start;
                    last = r;
                }
            }
            const double skew = static_cast<double>(hi - lo);
            skew_sum += skew;
            skew_max = std::max(skew_max, skew);
            ranks[last].last_arrivals += 1;
            st.matched += 1;
            if (matched_out) {
                MatchedCollective m;
                m.last_rank = last;
                m.skew_ns = hi - lo;
                for (const auto& [r, c] : parts)
                    m.records.push_back(c->record);
                std::sort(m.records.begin(), m.records.end(),
                          [&](uint32_t x, uint32_t y) { return recs[x].rank < recs[y].rank; });
                matched_out->push_back(std::move(m));
            }
            // Each earlier rank waits from its own start until the last one arrives (within its kernel); the part
            // of that wait no compute kernel of its device covers is exposed.
            for (const auto& [r, c] : parts) {
                if (r == last)
                    continue;
                const int64_t until = std::min(hi, c->end);
                if (until <= c->start)
                    continue;
                const int64_t w = until - c->start;
                const int64_t ew = w - std::min(w, recs[c->record].covered(c->start, until));
                ranks[r].wait_ns += w;
                ranks[r].exposed_wait_ns += ew;
                wait_by_last[last][r] += w;
                exposed_wait_by_last[last][r] += ew;
            }
        };
        bool any_end_match = false;
        for (const auto& [key, per_rank] : sequences) {
            if (per_rank.size() != ranks.size())
                continue;   // not every rank has this (group, kind)
            const std::vector<Call>* anchor = nullptr;
            int32_t anchor_rank = 0;
            for (const auto& [r, v] : per_rank)
                if (!anchor || v.size() < anchor->size()) {
                    anchor = &v;
                    anchor_rank = r;
                }
            // Every other rank's kernels by end time, each usable once.
            std::map<int32_t, std::vector<std::pair<int64_t, size_t>>> by_end;
            std::map<int32_t, std::vector<bool>> used;
            for (const auto& [r, v] : per_rank) {
                auto& e = by_end[r];
                for (size_t j = 0; j < v.size(); ++j)
                    e.emplace_back(v[j].end, j);
                std::sort(e.begin(), e.end());
                used[r].assign(v.size(), false);
            }
            int64_t matched_here = 0;
            for (const Call& c : *anchor) {
                const int64_t tol = std::max<int64_t>(opt.end_tolerance_ns,
                                                      static_cast<int64_t>(opt.end_tolerance_fraction *
                                                                           static_cast<double>(c.end - c.start)));
                std::vector<std::pair<int32_t, const Call*>> parts{{anchor_rank, &c}};
                std::vector<std::pair<int32_t, size_t>> picks;
                for (const auto& [r, v] : per_rank) {
                    if (r == anchor_rank)
                        continue;
                    const auto& e = by_end[r];
                    auto p = std::lower_bound(e.begin(), e.end(), std::make_pair(c.end - tol, size_t{0}));
                    size_t best = SIZE_MAX;
                    int64_t best_d = INT64_MAX;
                    for (; p != e.end() && p->first <= c.end + tol; ++p) {
                        if (used[r][p->second])
                            continue;
                        const int64_t d = std::abs(p->first - c.end);
                        if (d < best_d) {
                            best_d = d;
                            best = p->second;
                        }
                    }
                    if (best == SIZE_MAX)
                        break;
                    picks.emplace_back(r, best);
                    parts.emplace_back(r, &v[best]);
                }
                if (parts.size() != per_rank.size())
                    continue;
                for (const auto& [r, j] : picks)
                    used[r][j] = true;
                settle(parts);
                ++matched_here;
            }
            if (matched_here > 0)
                any_end_match = true;
            for (const auto& [r, v] : per_rank)
                st.unmatched += static_cast<int64_t>(v.size());
            st.unmatched -= matched_here * static_cast<int64_t>(per_rank.size());
        }
        if (!any_end_match) {
            st.unmatched = 0;
            for (const auto& [key, per_rank] : sequences) {
                if (per_rank.size() != ranks.size())
                    continue;
                size_t m = SIZE_MAX, mx = 0;
                for (const auto& [r, v] : per_rank) {
                    m = std::min(m, v.size());
                    mx = std::max(mx, v.size());
                }
                if (m != mx)
                    continue;   // unequal counts and no end to anchor on: no safe pairing
                for (size_t j = 0; j < m; ++j) {
                    std::vector<std::pair<int32_t, const Call*>> parts;
                    for (const auto& [r, v] : per_rank)
                        parts.emplace_back(r, &v[j]);
                    settle(parts);
                }
            }
            if (st.matched > 0)
                st.match_method = "sequence";
        } else {
            st.match_method = "end";
        }
        if (st.matched > 0) {
            st.mean_skew_ns = skew_sum / static_cast<double>(st.matched);
            st.max_skew_ns = skew_max;
            const RankComm* worst = nullptr;
            for (const auto& [r, rc] : ranks)
                if (!worst || rc.last_arrivals > worst->last_arrivals)
                    worst = &rc;
            st.straggler_rank = worst->rank;
            for (const auto& [r, w] : wait_by_last[worst->rank])
                st.straggler_wait_ns += w;
            for (const auto& [r, w] : exposed_wait_by_last[worst->rank])
                st.straggler_exposed_wait_ns += w;
            const double mean_coll = st.kernels > 0 ? static_cast<double>(st.time_ns) / st.kernels : 0;
            st.straggler_makes_others_wait = 2 * worst->last_arrivals >= st.matched && mean_coll > 0 &&
                                             *st.mean_skew_ns >= 0.1 * mean_coll;
            char buf[320];
            std::snprintf(buf, sizeof buf,
                          "rank %d starts last in %lld of %lld matched collectives; mean start skew %.1f us "
                          "(max %.1f us)%s",
                          worst->rank, static_cast<long long>(worst->last_arrivals),
                          static_cast<long long>(st.matched), *st.mean_skew_ns / 1e3, skew_max / 1e3,
                          st.straggler_makes_others_wait ? ": the other ranks wait for it" : "");
            st.straggler_text = buf;
            if (st.straggler_makes_others_wait) {
                std::snprintf(buf, sizeof buf, " (%.3f ms, %.3f ms of it exposed)",
                              static_cast<double>(st.straggler_wait_ns) / 1e6,
                              static_cast<double>(st.straggler_exposed_wait_ns) / 1e6);
                st.straggler_text += buf;
            }
        } else {
            st.warnings.push_back("several ranks, but no collective sequence is present on every rank: no skew");
        }
        if (st.unmatched > 0 && st.matched > 0)
            st.warnings.push_back(std::to_string(st.unmatched) +
                                  " collective kernels have no partner ending with them on every rank (sampled or "
                                  "partial traces, or peers outside the trace): left out of the skew");
    }
    for (const auto& [r, rc] : ranks)
        st.ranks.push_back(rc);
    if (st.kernels > 0 && st.kernels_with_metadata == 0)
        st.warnings.push_back("NCCL/RCCL kernels without collective metadata (PyTorch writes it from 2.1 on): "
                              "time only, no bytes or bandwidth");
    return st;
}

TpFromTrace tp_from_collectives(const Trace& t)
{
    TpFromTrace out;
    const auto& a = t.op_args;
    bool any_kernel = false;
    for (size_t i = 0; i < a.size(); ++i)
        any_kernel |= a.source[i] == OpArgsTable::kKernel && !a.collective[i].empty() && a.group_size[i] > 1;
    const uint8_t want = any_kernel ? OpArgsTable::kKernel : OpArgsTable::kCpuOp;
    // group size -> (calls, most frequent process group)
    std::map<int64_t, int64_t> calls;
    std::map<int64_t, std::map<std::string, int64_t>> pgs;
    std::map<int64_t, std::map<std::string, int64_t>> kinds;
    for (size_t i = 0; i < a.size(); ++i) {
        if (a.source[i] != want || a.collective[i].empty() || a.group_size[i] <= 1)
            continue;
        const std::string kind = collective_kind(a.collective[i]);
        if (kind != "allreduce" && kind != "allgather" && kind != "reduce_scatter")
            continue;
        calls[a.group_size[i]] += 1;
        pgs[a.group_size[i]][a.pg_name[i]] += 1;
        kinds[a.group_size[i]][kind] += 1;
    }
    if (calls.empty())
        return out;
    std::vector<std::pair<int64_t, int64_t>> order(calls.begin(), calls.end());   // (size, calls)
    std::stable_sort(order.begin(), order.end(), [](const auto& x, const auto& y) { return x.second > y.second; });
    for (const auto& [n, c] : order)
        out.sizes.push_back(n);
    const int64_t n = order.front().first;
    out.degree = n;
    auto top = [](const std::map<std::string, int64_t>& m) {
        std::string best;
        int64_t bc = -1;
        for (const auto& [k, c] : m)
            if (c > bc) {
                best = k;
                bc = c;
            }
        return best;
    };
    out.evidence = "NCCL " + top(kinds[n]) + " group size " + std::to_string(n) + " (process group '" + top(pgs[n]) +
                   "', " + std::to_string(order.front().second) + " calls)";
    if (order.size() > 1) {
        out.evidence += "; other group sizes:";
        for (size_t i = 1; i < order.size(); ++i)
            out.evidence += " " + std::to_string(order[i].first) + " (" + std::to_string(order[i].second) + " calls)";
    }
    return out;
}

} // namespace sl
