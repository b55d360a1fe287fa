// Host-side causes of idle: hand-built traces whose compile ranges, module loads and allocator calls cover known
// gaps (answers worked out by hand in the comments), the precedence of nested causes, the shipped patterns file and
// its errors, and the planted JIT compile of `sightline-cli generate --jit-compile-ms`.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "analysis/io/synthetic.h"
#include "analysis/timeline/host_causes.h"
#include "analysis/timeline/idle.h"
#include "analysis/trace/errors.h"

using namespace sl;

namespace {
constexpr int64_t us = 1000;
constexpr int64_t ms = 1000 * us;

struct Builder {
    Trace t;
    uint32_t thr = 0, corr = 1;
    Builder()
    {
        t.meta.devices.push_back({});
        t.meta.processes.push_back({1, "p", 0});
        thr = t.thread_index(1, 1, 1);
    }
    size_t api(int64_t s, int64_t e, const char* name, uint32_t c = 0)
    {
        return t.api.append(s, e, t.strings.intern(name), c, thr, ApiClass::Runtime, classify_api_name(name));
    }
    size_t kernel(int64_t s, int64_t e, int64_t api_s, int64_t api_e)
    {
        const uint32_t c = corr++;
        api(api_s, api_e, "cudaLaunchKernel", c);
        const size_t k = t.kernels.append(s, e, t.strings.intern("k"));
        t.kernels.correlation[k] = c;
        t.kernels.stream[k] = 7;
        return k;
    }
    void range(int64_t s, int64_t e, const char* name)
    {
        t.ranges.append(s, e, t.strings.intern(name), thr, RangeKind::PushPop);
    }
};

const HostCause* cause(const HostCauseResult& r, const char* id)
{
    return r.find(id);
}

} // namespace

// Times in ms. K1 [0,1]; the host compiles in NVTX "KernelExecutor::compileFusion" [1,101] with a nested
// "nvrtcCompileProgram" [10,90] and a cuModuleLoadData [95,100] inside it; K2 is launched at 102 and runs [103,104]:
// the gap [1,103] is host wait. Compilation (first in precedence after autotuning) covers [1,101] of it: 100 ms — the
// module load inside the compile range is compilation's, not module loading's. Then a cudaMalloc storm: 4 calls of
// 5 ms [110,115], [115,120], [120,125], [125,130] before K3's launch at 131 (K3 [132,133]): the gap [104,132] is host
// wait, of which 20 ms is allocation. Idle that is not host wait is never a cause's: K4 is launched at 132.5, before
// K3 ends, and runs [140,141], so the gap [133,140] is not host wait (the host was not late), and the "autotune" range
// [134,139] over it covers no idle.
TEST(HostCauses, CompileRangeCoversTheHostWaitItCauses)
{
    Builder b;
    b.kernel(0, 1 * ms, -1 * ms, -1 * ms + 10 * us);
    b.range(1 * ms, 101 * ms, "KernelExecutor::compileFusion");
    b.range(10 * ms, 90 * ms, "nvrtcCompileProgram");
    b.api(95 * ms, 100 * ms, "cuModuleLoadData");
    b.kernel(103 * ms, 104 * ms, 102 * ms, 102 * ms + 10 * us);
    for (int i = 0; i < 4; ++i)
        b.api((110 + 5 * i) * ms, (115 + 5 * i) * ms, "cudaMalloc_v3020");
    b.kernel(132 * ms, 133 * ms, 131 * ms, 131 * ms + 10 * us);
    b.kernel(140 * ms, 141 * ms, 132 * ms + 500 * us, 132 * ms + 600 * us);
    b.range(134 * ms, 139 * ms, "triton autotune benchmark");
    b.t.finish();
    const IdleResult idle = analyze_idle(b.t);
    const HostCauseResult r = find_host_causes(b.t, idle, HostCausePatterns::load());

    const HostCause* c = cause(r, "compilation");
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(c->host_ns, 100 * ms);
    EXPECT_EQ(c->idle_ns, 100 * ms);
    EXPECT_EQ(c->before_gpu_ns, 0);
    EXPECT_EQ(c->first_start, 1 * ms);
    EXPECT_EQ(c->last_end, 101 * ms);
    ASSERT_GE(c->evidence.size(), 2u);
    EXPECT_EQ(c->evidence[0].name, "KernelExecutor::compileFusion");
    EXPECT_EQ(c->evidence[0].source, "nvtx");
    EXPECT_EQ(c->evidence[0].total_ns, 100 * ms);
    EXPECT_EQ(c->evidence[0].longest_start, 1 * ms);
    EXPECT_EQ(c->evidence[1].name, "nvrtcCompileProgram");
    ASSERT_FALSE(c->covered.empty());
    EXPECT_EQ(c->covered[0].start, 1 * ms);
    EXPECT_EQ(c->covered[0].end, 101 * ms);

    // The module load lies inside the compile range: its time is compilation's (precedence), so module loading has
    // evidence but no host time of its own and is not listed.
    EXPECT_EQ(cause(r, "module_loading"), nullptr);

    const HostCause* a = cause(r, "allocator");
    ASSERT_NE(a, nullptr);
    EXPECT_EQ(a->host_ns, 20 * ms);
    EXPECT_EQ(a->idle_ns, 20 * ms);
    ASSERT_EQ(a->evidence.size(), 1u);
    EXPECT_EQ(a->evidence[0].count, 4);
    EXPECT_EQ(a->evidence[0].source, "api");

    const HostCause* t = cause(r, "autotuning");
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(t->host_ns, 5 * ms);
    EXPECT_EQ(t->idle_ns, 0);   // the gap under it was not host wait

    EXPECT_EQ(r.idle_ns, 120 * ms);
    const nlohmann::json j = host_causes_to_json(r, 0);
    EXPECT_EQ(j["idle_ns"], 120 * ms);
    ASSERT_EQ(j["causes"].size(), 3u);
}

// A compile before the first GPU operation lies outside the GPU-active window: host time, before_gpu_ns, no idle.
TEST(HostCauses, CompileBeforeTheFirstGpuOpIsNotIdle)
{
    Builder b;
    b.range(0, 50 * ms, "torch/_inductor compile_fx_inner");
    b.kernel(52 * ms, 53 * ms, 51 * ms, 51 * ms + 10 * us);
    b.kernel(54 * ms, 55 * ms, 51 * ms + 20 * us, 51 * ms + 30 * us);
    b.t.finish();
    const IdleResult idle = analyze_idle(b.t);
    const HostCauseResult r = find_host_causes(b.t, idle, HostCausePatterns::load());
    const HostCause* c = cause(r, "compilation");
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(c->host_ns, 50 * ms);
    EXPECT_EQ(c->before_gpu_ns, 50 * ms);
    EXPECT_EQ(c->idle_ns, 0);
}

// "Compiled" is a compiled region running, not compilation: torch.compile's "Torch-Compiled Region" and
// "CompiledFunction" ranges are no cause; "compile" and NVRTC are.
TEST(HostCauses, ShippedPatterns)
{
    const HostCausePatterns p = HostCausePatterns::load();
    auto id = [&](const char* name, bool api) {
        const int c = p.classify(name, api);
        return c < 0 ? std::string("-") : p.causes()[static_cast<size_t>(c)].id;
    };
    EXPECT_EQ(id("KernelExecutor::compileFusion", false), "compilation");
    EXPECT_EQ(id("nvrtcCompileProgram", false), "compilation");
    EXPECT_EQ(id("nvrtcCompileProgram", true), "compilation");
    EXPECT_EQ(id("cuLinkComplete", true), "compilation");
    EXPECT_EQ(id("Torch-Compiled Region: 0/0", false), "-");
    EXPECT_EQ(id("CompiledFunction", false), "-");
    EXPECT_EQ(id("triton autotune", false), "autotuning");
    EXPECT_EQ(id("cuModuleLoadData", true), "module_loading");
    EXPECT_EQ(id("cuLibraryLoadData", true), "module_loading");
    EXPECT_EQ(id("cudaMalloc_v3020", true), "allocator");
    EXPECT_EQ(id("cudaFree", true), "allocator");
    EXPECT_EQ(id("hipMalloc", true), "allocator");
    EXPECT_EQ(id("cudaMallocAsync_v11020", true), "-");   // stream-ordered: no driver round trip
    EXPECT_EQ(id("cuMemCreate", true), "allocator");
    EXPECT_EQ(id("cudaLaunchKernel", true), "-");
    EXPECT_EQ(id("cudaMalloc", false), "-");             // an API pattern, not a range one
}

TEST(HostCauses, MalformedPatternsNameTheEntry)
{
    using nlohmann::json;
    auto err = [](const json& doc) -> std::string {
        try {
            HostCausePatterns::from_json(doc, "causes.json");
        } catch (const TraceError& e) {
            return e.where() + " | " + e.expected();
        }
        return "no error";
    };
    const json causes = json::array({{{"id", "compilation"}}});
    EXPECT_EQ(err(json{{"causes", causes}, {"patterns", json::array({{{"cause", "nope"}, {"match", "x"}}})}}),
              "patterns[0] | a cause listed under \"causes\"");
    EXPECT_EQ(err(json{{"causes", causes},
                       {"patterns", json::array({{{"cause", "compilation"}, {"match", "("}, {"kind", "regex"}}})}}),
              "patterns[0] | a regular expression in RE2 syntax (no back-references or look-around)");
    EXPECT_EQ(err(json{{"causes", causes},
                       {"patterns", json::array({{{"cause", "compilation"}, {"match", "x"}, {"on", "gpu"}}})}}),
              "patterns[0] | \"on\": range, api or both");
    EXPECT_EQ(err(json{{"patterns", json::array()}}), "top level | an object with a \"causes\" array");
}

// The planted JIT compile: inputs uploaded, then 300 ms in KernelExecutor::compileFusion (80 % in NVRTC, a module
// load at its end) before the first kernel. The device idles from the upload's end to the first kernel: all of the
// compile's host time but the few µs after it is idle compilation covers.
TEST(HostCauses, PlantedJitCompile)
{
    SynthOptions o;
    o.decode_steps = 8;
    o.layers = 4;
    o.jit_compile_ns = 300 * ms;
    const Trace t = make_synthetic_trace(o);
    const IdleResult idle = analyze_idle(t);
    const HostCauseResult r = find_host_causes(t, idle, HostCausePatterns::load());
    const HostCause* c = cause(r, "compilation");
    ASSERT_NE(c, nullptr);
    EXPECT_NEAR(double(c->host_ns), 300.0 * ms, 0.01 * 300 * ms);
    EXPECT_GT(double(c->idle_ns), 0.95 * 300 * ms);
    EXPECT_LE(c->idle_ns, c->host_ns);
    EXPECT_EQ(c->before_gpu_ns, 0);   // the upload ran first: the compile is inside the GPU-active window
    ASSERT_FALSE(c->evidence.empty());
    EXPECT_EQ(c->evidence[0].name, "KernelExecutor::compileFusion");
    EXPECT_EQ(cause(r, "module_loading"), nullptr);   // its load is inside the compile range
    // Without the plant: nothing.
    o.jit_compile_ns = 0;
    const Trace plain = make_synthetic_trace(o);
    EXPECT_TRUE(find_host_causes(plain, analyze_idle(plain), HostCausePatterns::load()).causes.empty());
}

// The first CUDA call of a process also creates the context: PyTorch's first cudaFree(0) [0,2000] ms is not an
// allocator stall; the cudaMalloc [2010,2030] inside the host-wait gap [2005,2040] between K1 and K2 is (20 ms).
TEST(HostCauses, FirstCallOfAProcessIsContextCreation)
{
    Builder b;
    b.api(0, 2000 * ms, "cudaFree");
    b.kernel(2001 * ms, 2005 * ms, 2000 * ms + 100 * us, 2000 * ms + 200 * us);
    b.api(2010 * ms, 2030 * ms, "cudaMalloc");
    b.kernel(2040 * ms, 2041 * ms, 2039 * ms, 2039 * ms + 10 * us);
    b.t.finish();
    const HostCauseResult r = find_host_causes(b.t, analyze_idle(b.t), HostCausePatterns::load());
    const HostCause* a = cause(r, "allocator");
    ASSERT_NE(a, nullptr);
    EXPECT_EQ(a->host_ns, 20 * ms);
    EXPECT_EQ(a->idle_ns, 20 * ms);
    EXPECT_EQ(a->before_gpu_ns, 0);
    ASSERT_EQ(a->evidence.size(), 1u);
    EXPECT_EQ(a->evidence[0].name, "cudaMalloc");
}
