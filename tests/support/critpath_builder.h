#pragma once
// A trace built by hand for the dependency-graph tests (analysis/critpath: the critical path and the what-if
// replays): one process and thread, times in µs, CPU ops, runtime calls, the kernels they launch (correlation ids)
// and sync records, each appended in the order the test writes them.

#include <cstddef>
#include <cstdint>

#include "analysis/trace/trace.h"

namespace sl::test {

struct CritpathTraceBuilder {
    static constexpr int64_t us = 1000;
    Trace t;
    uint32_t thr = 0, corr = 1;
    CritpathTraceBuilder()
    {
        t.meta.devices.push_back({});
        t.meta.processes.push_back({1, "p", 0});
        thr = t.thread_index(1, 1, 1);
    }
    size_t op(int64_t s, int64_t e, const char* name)
    {
        return t.ranges.append(s * us, e * us, t.strings.intern(name), thr, RangeKind::CpuOp);
    }
    size_t api(int64_t s, int64_t e, const char* name)
    {
        return t.api.append(s * us, e * us, t.strings.intern(name), corr++, thr, ApiClass::Runtime,
                            classify_api_name(name));
    }
    size_t kernel(size_t api_row, int64_t s, int64_t e, uint32_t stream, const char* name = "k")
    {
        const size_t k = t.kernels.append(s * us, e * us, t.strings.intern(name));
        t.kernels.correlation[k] = t.api.correlation[api_row];
        t.kernels.stream[k] = stream;
        return k;
    }
    size_t launch(int64_t s, int64_t e, int64_t ks, int64_t ke, uint32_t stream = 7, const char* name = "k")
    {
        return kernel(api(s, e, "cudaLaunchKernel"), ks, ke, stream, name);
    }
    void sync(size_t api_row, uint8_t type, uint32_t stream, int64_t s, int64_t e)
    {
        const size_t i = t.syncs.append(s * us, e * us);
        t.syncs.correlation[i] = t.api.correlation[api_row];
        t.syncs.stream[i] = stream;
        t.syncs.sync_type[i] = type;
    }
};

} // namespace sl::test
