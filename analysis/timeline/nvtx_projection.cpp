#include "analysis/timeline/nvtx_projection.h"

#include <algorithm>
#include <climits>
#include <numeric>

namespace sl {

namespace {
struct Agg {
    int64_t ops = 0, sum = 0, lo = INT64_MAX, hi = INT64_MIN;
    void add(int64_t s, int64_t e)
    {
        ops += 1;
        sum += e - s;
        lo = std::min(lo, s);
        hi = std::max(hi, e);
    }
    void add(const Agg& o)
    {
        ops += o.ops;
        sum += o.sum;
        lo = std::min(lo, o.lo);
        hi = std::max(hi, o.hi);
    }
};
} // namespace

NvtxProjectionResult project_nvtx(const Trace& t, const NvtxProjectionOptions& o, const LoadControl& control)
{
    NvtxProjectionResult r;
    r.options = o;
    r.ops_total = static_cast<int64_t>(t.kernels.size() + t.memcpy.size() + t.memset.size());
    const auto& R = t.ranges;
    if (R.size() == 0)
        return r;
    r.ranges.resize(R.size());
    auto wanted = [&](size_t i) {
        switch (R.kind[i]) {
        case RangeKind::PushPop:
        case RangeKind::StartEnd: return true;
        case RangeKind::UserAnnotation: return o.include_user_annotations;
        case RangeKind::CpuOp: return o.include_cpu_ops;
        case RangeKind::PyModule:
        case RangeKind::PythonFunction: return false;
        }
        return false;
    };
    std::vector<uint32_t> order;
    for (size_t i = 0; i < R.size(); ++i)
        if (wanted(i)) {
            order.push_back(static_cast<uint32_t>(i));
            r.ranges[i].included = true;
        }
    if (order.empty())
        return r;
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
        if (R.thread[a] != R.thread[b])
            return R.thread[a] < R.thread[b];
        if (R.start[a] != R.start[b])
            return R.start[a] < R.start[b];
        return R.end[a] > R.end[b];
    });

    // GPU ops per launching API call, in (thread, start) order: each call's ops are chained through one index per
    // op (kernels, then copies, then sets) and aggregated when the sweep reaches the call. At 10^7 launches a 32-byte
    // aggregate per call, grown by doubling and copied into sorted order, held about 1 GB at once (issue 18).
    const auto& A = t.api;
    const size_t nk = t.kernels.size(), nm = t.memcpy.size(), ns = t.memset.size();
    std::vector<int32_t> head(A.size(), -1), next(nk + nm + ns, -1);
    std::vector<uint32_t> apis;
    {
        auto chain = [&](const auto& table, size_t base) {
            for (size_t i = 0; i < table.size(); ++i) {
                const int32_t a = table.launch_api[i];
                if (a < 0 || static_cast<size_t>(a) >= A.size())
                    continue;
                next[base + i] = head[static_cast<size_t>(a)];
                head[static_cast<size_t>(a)] = static_cast<int32_t>(base + i);
            }
        };
        chain(t.kernels, 0);
        chain(t.memcpy, nk);
        chain(t.memset, nk + nm);
        size_t n = 0;
        for (int32_t h : head)
            n += h >= 0;
        apis.reserve(n);
        for (size_t x = 0; x < head.size(); ++x)
            if (head[x] >= 0)
                apis.push_back(static_cast<uint32_t>(x));
        auto by_thread_start = [&](uint32_t x, uint32_t y) {
            if (A.thread[x] != A.thread[y])
                return A.thread[x] < A.thread[y];
            return A.start[x] < A.start[y];
        };
        if (!std::is_sorted(apis.begin(), apis.end(), by_thread_start))
            std::sort(apis.begin(), apis.end(), by_thread_start);
        control.check();
    }
    auto ops_of = [&](uint32_t api) {
        Agg g;
        for (int32_t op = head[api]; op >= 0; op = next[static_cast<size_t>(op)]) {
            const size_t o = static_cast<size_t>(op);
            if (o < nk)
                g.add(t.kernels.start[o], t.kernels.end[o]);
            else if (o < nk + nm)
                g.add(t.memcpy.start[o - nk], t.memcpy.end[o - nk]);
            else
                g.add(t.memset.start[o - nk - nm], t.memset.end[o - nk - nm]);
        }
        return g;
    };

    std::vector<Agg> incl(R.size());
    std::vector<uint32_t> stack;
    auto close_top = [&]() {
        const uint32_t top = stack.back();
        stack.pop_back();
        if (!stack.empty())
            incl[stack.back()].add(incl[top]);
    };
    size_t ri = 0, ai = 0;
    while (ri < order.size()) {
        const uint32_t thr = R.thread[order[ri]];
        // Skip API calls on earlier threads.
        while (ai < apis.size() && A.thread[apis[ai]] < thr)
            ++ai;
        stack.clear();
        while (true) {
            const bool have_r = ri < order.size() && R.thread[order[ri]] == thr;
            const bool have_a = ai < apis.size() && A.thread[apis[ai]] == thr;
            if (!have_r && !have_a)
                break;
            // Ranges open before an API call starting at the same time.
            if (have_r && (!have_a || R.start[order[ri]] <= A.start[apis[ai]])) {
                const uint32_t rr = order[ri++];
                while (!stack.empty() && R.end[stack.back()] <= R.start[rr])
                    close_top();
                stack.push_back(rr);
            } else {
                const int64_t s = A.start[apis[ai]];
                while (!stack.empty() && R.end[stack.back()] <= s)
                    close_top();
                if (!stack.empty()) {
                    const uint32_t top = stack.back();
                    const Agg g = ops_of(apis[ai]);
                    incl[top].add(g);
                    r.ranges[top].exclusive_gpu_ns += g.sum;
                    r.ops_in_ranges += g.ops;
                }
                ++ai;
            }
        }
        while (!stack.empty())
            close_top();
        control.check();
    }

    std::vector<int32_t> slot(t.strings.size(), -1);
    for (uint32_t i : order) {
        auto& pr = r.ranges[i];
        const Agg& g = incl[i];
        pr.ops = g.ops;
        pr.gpu_ns = g.sum;
        if (g.ops > 0) {
            pr.proj_start = g.lo;
            pr.proj_end = g.hi;
            r.projected_ranges += 1;
        }
        const StrId n = R.name[i];
        int32_t& s = slot[n < slot.size() ? n : 0];
        if (s < 0) {
            s = static_cast<int32_t>(r.per_name.size());
            r.per_name.push_back({});
            r.per_name.back().name = n;
        }
        auto& pn = r.per_name[static_cast<size_t>(s)];
        pn.instances += 1;
        pn.range_ns += R.end[i] - R.start[i];
        pn.proj_ns += pr.proj_duration();
        pn.gpu_ns += pr.gpu_ns;
        pn.exclusive_gpu_ns += pr.exclusive_gpu_ns;
        pn.ops += pr.ops;
    }
    std::sort(r.per_name.begin(), r.per_name.end(), [](const RangeNameProjection& x, const RangeNameProjection& y) {
        return x.gpu_ns != y.gpu_ns ? x.gpu_ns > y.gpu_ns : x.name < y.name;
    });
    if (r.per_name.size() > o.max_names)
        r.per_name.resize(o.max_names);
    return r;
}

} // namespace sl
