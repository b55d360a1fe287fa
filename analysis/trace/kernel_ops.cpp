#include "analysis/trace/kernel_ops.h"

#include <algorithm>

namespace sl {

size_t KernelOps::KeyHash::operator()(const Key& k) const
{
    // Mixed in unsigned arithmetic: a signed product overflows (undefined behaviour, caught by UBSan).
    const uint64_t h = (static_cast<uint64_t>(k.id) * 0x9E3779B97F4A7C15ull) ^ (static_cast<uint64_t>(k.pid) << 7) ^
                       static_cast<uint64_t>(static_cast<int64_t>(k.rank));
    return std::hash<uint64_t>()(h);
}

KernelOps::KernelOps(const Trace& trace) : t_(trace)
{
    const OpArgsTable& a = t_.op_args;
    for (size_t i = 0; i < a.size(); ++i) {
        if (a.source[i] == OpArgsTable::kCpuOp) {
            // A later row with the same External id is an inner op (the profiler writes parents first): it wins.
            if (a.external_id[i] != 0)
                op_of_ext_[{a.rank[i], a.pid[i], a.external_id[i]}] = static_cast<int32_t>(i);
        } else if (a.source[i] == OpArgsTable::kLaunch && a.correlation[i] != 0) {
            launch_of_corr_[{a.rank[i], a.pid[i], static_cast<int64_t>(a.correlation[i])}] = static_cast<int32_t>(i);
        }
    }
    // Rows the capture join copied in carry no External id (0): they are reached only through graph_ops.
}

bool KernelOps::replayed(size_t k) const
{
    const KernelTable& K = t_.kernels;
    if (K.flags[k] & KernelTable::kGraphNode)
        return true;
    const int32_t api = k < K.launch_api.size() ? K.launch_api[k] : kNoIndex;
    return api >= 0 && static_cast<size_t>(api) < t_.api.size() &&
           (t_.api.flags[static_cast<size_t>(api)] & kApiGraphLaunch);
}

int32_t KernelOps::eager_op(size_t k) const
{
    const KernelTable& K = t_.kernels;
    if (K.correlation[k] == 0 || op_of_ext_.empty())
        return kNoIndex;
    const int32_t rank = K.device[k] < t_.meta.devices.size() ? t_.meta.devices[K.device[k]].rank : 0;
    const int64_t pid = K.process[k] < t_.meta.processes.size() ? t_.meta.processes[K.process[k]].pid : 0;
    const auto l = launch_of_corr_.find({rank, pid, static_cast<int64_t>(K.correlation[k])});
    if (l == launch_of_corr_.end())
        return kNoIndex;
    const auto o = op_of_ext_.find({rank, pid, t_.op_args.external_id[static_cast<size_t>(l->second)]});
    return o == op_of_ext_.end() ? kNoIndex : o->second;
}

int32_t KernelOps::op_row(size_t k) const
{
    if (k >= t_.kernels.size())
        return kNoIndex;
    if (replayed(k)) {
        const int32_t j = t_.graph_ops.find(k);
        return j == kNoIndex ? kNoIndex : t_.graph_ops.op[static_cast<size_t>(j)];
    }
    return eager_op(k);
}

std::pair<int32_t, int32_t> KernelOps::call(size_t k) const
{
    const int32_t o = op_row(k);
    if (o == kNoIndex)
        return {kNoIndex, -1};
    if (!replayed(k))
        return {o, -1};
    return {o, k < t_.kernels.launch_api.size() ? t_.kernels.launch_api[k] : -1};
}

void KernelOps::build_ranges() const
{
    const RangeTable& R = t_.ranges;
    bool any_cpu_op = false;
    for (size_t i = 0; i < R.size() && !any_cpu_op; ++i)
        any_cpu_op = R.kind[i] == RangeKind::CpuOp;
    chain_is_cpu_ops_ = any_cpu_op;
    const size_t threads = t_.meta.threads.size();
    chain_ranges_.assign(threads, {});
    module_ranges_.assign(threads, {});
    for (size_t i = 0; i < R.size(); ++i) {
        const uint32_t th = R.thread[i];
        if (th >= threads)
            continue;
        const RangeKind kind = R.kind[i];
        if (kind == RangeKind::PyModule)
            module_ranges_[th].push_back(static_cast<uint32_t>(i));
        else if (any_cpu_op ? kind == RangeKind::CpuOp : kind == RangeKind::PushPop || kind == RangeKind::StartEnd)
            chain_ranges_[th].push_back(static_cast<uint32_t>(i));
    }
    auto by_start = [&](uint32_t x, uint32_t y) {
        return R.start[x] != R.start[y] ? R.start[x] < R.start[y] : R.end[x] > R.end[y];
    };
    for (auto& v : chain_ranges_)
        std::sort(v.begin(), v.end(), by_start);
    for (auto& v : module_ranges_)
        std::sort(v.begin(), v.end(), by_start);
}

std::string KernelOps::around(uint32_t thread, int64_t t, bool modules) const
{
    std::call_once(ranges_once_, [this] { build_ranges(); });
    const auto& lists = modules ? module_ranges_ : chain_ranges_;
    if (thread >= lists.size())
        return {};
    const RangeTable& R = t_.ranges;
    const auto& v = lists[thread];
    // Ranges starting at or before t; walk back collecting those still open at t. Nested ranges start after the one
    // around them, so an outermost range that closed before t ends the walk (capped for malformed nesting).
    auto it = std::upper_bound(v.begin(), v.end(), t, [&](int64_t x, uint32_t r) { return x < R.start[r]; });
    std::vector<uint32_t> open;
    int steps = 0;
    while (it != v.begin() && steps++ < 4096) {
        --it;
        const uint32_t r = *it;
        if (R.end[r] >= t)
            open.push_back(r);
        else if (R.depth[r] == 0)
            break;
    }
    std::string s;
    for (auto o = open.rbegin(); o != open.rend(); ++o) {
        if (!s.empty())
            s += " > ";
        s += t_.str(R.name[*o]);
    }
    return s;
}

KernelOp KernelOps::op(size_t k) const
{
    KernelOp r;
    if (k >= t_.kernels.size())
        return r;
    r.replayed = replayed(k);
    if (r.replayed) {
        const int32_t j = t_.graph_ops.find(k);
        if (j != kNoIndex) {
            const size_t g = static_cast<size_t>(j);
            r.op = t_.graph_ops.op[g];
            r.chain = std::string(t_.str(t_.graph_ops.chain[g]));
            r.module = std::string(t_.str(t_.graph_ops.module[g]));
            r.from_capture = true;
        }
    } else {
        r.op = eager_op(k);
    }
    const int32_t api = k < t_.kernels.launch_api.size() ? t_.kernels.launch_api[k] : kNoIndex;
    if (!r.from_capture && api >= 0 && static_cast<size_t>(api) < t_.api.size()) {
        const size_t a = static_cast<size_t>(api);
        r.chain = around(t_.api.thread[a], t_.api.start[a], false);
        r.module = around(t_.api.thread[a], t_.api.start[a], true);
    }
    if (r.op >= 0 && static_cast<size_t>(r.op) < t_.op_args.size()) {
        const size_t o = static_cast<size_t>(r.op);
        r.name = t_.str(t_.op_args.name[o]);
        r.input_dims = t_.op_args.input_dims[o];
        r.input_types = t_.op_args.input_types[o];
        r.concrete_inputs = t_.op_args.concrete_inputs[o];
    } else if (!r.chain.empty()) {
        // The innermost op of the chain, as a view into the trace's strings.
        const size_t cut = r.chain.rfind(" > ");
        const std::string last = cut == std::string::npos ? r.chain : r.chain.substr(cut + 3);
        if (const StrId id = t_.strings.find(last); id != StringPool::kNotFound)
            r.name = t_.str(id);
    }
    return r;
}

} // namespace sl
