// Roofline pieces: ncu CSV/text parsing throughput on the real files, the cost model on a 70B-class config, and
// the ncu-to-trace join at 10^6 kernels. Run by hand: build-*/tests/bench/bench_roofline
#include <benchmark/benchmark.h>

#include "analysis/roofline/cost_model.h"
#include "analysis/roofline/gpu_specs.h"
#include "analysis/io/ncu_reader.h"
#include "analysis/roofline/roofline.h"
#include "analysis/trace/trace.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

using namespace sl;

namespace {
std::string shared(const std::string& f)
{
    const char* d = std::getenv("SIGHTLINE_SHARED_DATA");
    const std::string dir = d ? d : std::string(SIGHTLINE_RESOURCE_DIR) + "/../../shared/data";
    std::ifstream in(dir + "/ncu/" + f, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

void parse(benchmark::State& state, const char* file)
{
    const std::string text = shared(file);
    if (text.empty()) {
        state.SkipWithError("shared data not present (set SIGHTLINE_SHARED_DATA)");
        return;
    }
    for (auto _ : state)
        benchmark::DoNotOptimize(parse_ncu_text(text, file));
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}
} // namespace

static void BM_NcuDetailsCsvA100(benchmark::State& s) { parse(s, "a100_gpt2_flashattn_details_ncu2021.csv"); }
BENCHMARK(BM_NcuDetailsCsvA100)->Unit(benchmark::kMillisecond);

static void BM_NcuTextGh200(benchmark::State& s) { parse(s, "gh200_silu_pytorch_details.txt"); }
BENCHMARK(BM_NcuTextGh200)->Unit(benchmark::kMillisecond);

static void BM_CostModel80Layers(benchmark::State& state)
{
    const ModelConfig m = parse_model_config(R"({"model_type":"llama","hidden_size":8192,"num_attention_heads":64,
        "num_key_value_heads":8,"num_hidden_layers":80,"intermediate_size":28672,"vocab_size":128256,
        "torch_dtype":"bfloat16"})", "70b");
    GpuSpec g;
    g.name = "x";
    g.mem_bw_Bps = 3.35e12;
    g.peaks.bf16 = 989.4e12;
    g.peaks.fp32 = 67e12;
    for (auto _ : state)
        benchmark::DoNotOptimize(estimate_costs(m, g, CostOptions{}));
}
BENCHMARK(BM_CostModel80Layers)->Unit(benchmark::kMicrosecond);

static void BM_JoinNcuToMillionKernels(benchmark::State& state)
{
    Trace t;
    std::vector<StrId> names;
    for (int i = 0; i < 200; ++i)
        names.push_back(t.strings.intern("void kernel_" + std::to_string(i) + "<float, 128>(Params)"));
    for (int64_t i = 0; i < 1000000; ++i)
        t.kernels.append(i * 10, i * 10 + 5, names[static_cast<size_t>(i % 200)]);
    NcuReport r;
    for (int i = 0; i < 1000; ++i) {
        NcuLaunch l;
        l.id = i;
        l.name = "kernel_" + std::to_string(i % 200);
        r.launches.push_back(l);
    }
    for (auto _ : state)
        benchmark::DoNotOptimize(join_ncu_to_trace(r, t));
}
BENCHMARK(BM_JoinNcuToMillionKernels)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
