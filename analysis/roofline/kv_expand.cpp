#include "analysis/roofline/kv_expand.h"

#include "analysis/io/json_input.h"
#include "analysis/roofline/shape_throughput.h"
#include "analysis/trace/cancel_point.h"
#include "analysis/trace/kernel_ops.h"
#include "analysis/trace/trace.h"

#include <algorithm>
#include <set>
#include <nlohmann/json.hpp>
#include <string_view>
#include <unordered_map>

namespace sl {

namespace {

bool is_copy_op(std::string_view n)
{
    return n == "aten::copy_" || n == "aten::clone" || n == "aten::contiguous";
}

} // namespace

KvExpansion find_kv_expansion(const Trace& t)
{
    KvExpansion r;
    const OpArgsTable& a = t.op_args;
    // op row -> bytes of one call; only the ops that match.
    std::unordered_map<int32_t, double> matched;
    double largest = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        cancel_point(i);
        if (a.source[i] != OpArgsTable::kCpuOp || a.input_dims[i].empty() || !is_copy_op(t.str(a.name[i])))
            continue;
        const nlohmann::json d = parse_json_lenient(a.input_dims[i]);
        if (!d.is_array() || d.empty() || !d[0].is_array() || d[0].size() != 5)
            continue;
        int64_t v[5];
        bool ok = true;
        for (size_t k = 0; k < 5 && ok; ++k) {
            ok = d[0][k].is_number_integer() && d[0][k].get<int64_t>() > 0;
            v[k] = ok ? d[0][k].get<int64_t>() : 0;
        }
        if (!ok || v[2] < 2 || v[3] < 16 || v[4] < 16 || v[4] > 512 || v[4] % 16 != 0)
            continue;
        int width = 2;
        {
            const nlohmann::json ty = parse_json_lenient(a.input_types[i]);
            if (ty.is_array() && !ty.empty() && ty[0].is_string())
                if (const int b = torch_type_bytes(ty[0].get<std::string>()); b > 0)
                    width = b;
        }
        const double elements = double(v[0]) * double(v[1]) * double(v[2]) * double(v[3]) * double(v[4]);
        const double bytes = 2.0 * elements * width;
        matched[static_cast<int32_t>(i)] = bytes;
        if (bytes > largest) {
            largest = bytes;
            r.batch = v[0];
            r.kv_heads = v[1];
            r.repeats = v[2];
            r.positions = v[3];
            r.head_dim = v[4];
            r.dims = a.input_dims[i];
        }
    }
    if (matched.empty())
        return r;
    // A call is the op that launched the kernels (aten::clone holds the aten::copy_ that launches: one call, not
    // two); each launch of a replayed graph is a call of its captured op.
    const KernelOps ops(t);
    std::set<std::pair<int32_t, int32_t>> calls;
    for (size_t k = 0; k < t.kernels.size(); ++k) {
        cancel_point(k);
        const auto it = matched.find(ops.op_row(k));
        if (it == matched.end())
            continue;
        r.kernels.push_back(static_cast<uint32_t>(k));
        r.kernel_ns += t.kernels.end[k] - t.kernels.start[k];
        if (calls.insert(ops.call(k)).second) {
            r.calls += 1;
            r.bytes += it->second;
        }
    }
    return r;
}

} // namespace sl
