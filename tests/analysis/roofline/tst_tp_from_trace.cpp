// Tensor parallelism inferred from the trace (issue 15): with no --tp, the Roofline's cost model takes the NCCL group
// size PyTorch writes on the collectives, and says so (options.tp_source "trace" plus a warning); --tp always wins;
// a training run's all-reduces are data-parallel and leave TP at 1.
#include <gtest/gtest.h>

#include "analysis/io/load.h"
#include "analysis/pipeline.h"
#include "analysis/roofline/cost_model.h"
#include "analysis/timeline/collectives.h"
#include "tests/support/test_env.h"

#include <fstream>
#include <sstream>

using namespace sl;

namespace {

std::string write_file(const std::string& name, const std::string& text)
{
    const std::string path = test::scratch_dir("tp_from_trace_" + name) + "/" + name;
    std::ofstream(path) << text;
    return path;
}

// One rank of a TP=n decode: per "layer" a GEMM and an all-reduce of group size n (pg "0"), plus optionally a
// second, data-parallel group of size dp (pg "1") with fewer calls.
std::string tp_trace(int n, int layers, int dp = 0)
{
    std::ostringstream o;
    o << R"({"distributedInfo":{"rank":0,"world_size":)" << n * (dp > 0 ? dp : 1)
      << R"(},"deviceProperties":[{"id":0,"name":"NVIDIA H100 80GB HBM3"}],"traceEvents":[)";
    int corr = 1;
    for (int l = 0; l < layers; ++l) {
        const double t = 100.0 * l;
        if (l)
            o << ",\n";
        o << R"({"ph":"X","cat":"kernel","name":"nvjet_tst_128x8_64x12_2x1_v_bz_TNT","pid":0,"tid":7,"ts":)" << t
          << R"(,"dur":40,"args":{"device":0,"stream":7,"correlation":)" << corr++ << "}},\n";
        o << R"x({"ph":"X","cat":"kernel","name":"ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)","pid":0,"tid":20,"ts":)x"
          << t + 45 << R"(,"dur":20,"args":{"device":0,"stream":20,"correlation":)" << corr++
          << R"(,"Collective name":"allreduce","In msg nelems":1048576,"Out msg nelems":1048576,"Group size":)" << n
          << R"(,"dtype":"BFloat16","Process Group Name":"0"}})";
        if (dp > 0 && l % 4 == 0)
            o << ",\n"
              << R"x({"ph":"X","cat":"kernel","name":"ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)","pid":0,"tid":21,"ts":)x"
              << t + 70 << R"(,"dur":10,"args":{"device":0,"stream":21,"correlation":)" << corr++
              << R"(,"Collective name":"allreduce","In msg nelems":4096,"Out msg nelems":4096,"Group size":)" << dp
              << R"(,"dtype":"Float","Process Group Name":"1"}})";
    }
    o << "]}";
    return o.str();
}

PipelineResult run_with_model(const std::string& trace_path, int64_t tp = 1, const std::string& tp_source = "default")
{
    PipelineOptions o;
    o.run_rules = false;
    o.roofline.model = test::source_dir() + "/tests/data/models/llama_tiny_config.json";
    o.roofline.gpu = "H100 SXM";
    o.roofline.cost.batch = 4;
    o.roofline.cost.tp = tp;
    o.roofline.cost.tp_source = tp_source;
    return run_pipeline_on(std::make_shared<const Trace>(load_trace(trace_path)), o);
}

const nlohmann::json& options_of(const PipelineResult& r) { return r.roofline.json.at("roofline").at("options"); }

bool has_warning(const PipelineResult& r, const std::string& needle)
{
    for (const auto& w : r.roofline.json.at("roofline").at("warnings"))
        if (w.get<std::string>().find(needle) != std::string::npos)
            return true;
    return false;
}

} // namespace

TEST(TpFromTrace, GroupSizeOfTheCollectivesWithMostCalls)
{
    const Trace t8 = load_trace(write_file("tp8.json", tp_trace(8, 12)));
    const TpFromTrace a = tp_from_collectives(t8);
    EXPECT_EQ(a.degree, 8);
    EXPECT_NE(a.evidence.find("group size 8"), std::string::npos) << a.evidence;
    EXPECT_NE(a.evidence.find("12 calls"), std::string::npos) << a.evidence;
    // TP 4 inside DP 2: the per-layer TP all-reduces outnumber the gradient ones; both sizes are listed.
    const TpFromTrace b = tp_from_collectives(load_trace(write_file("tp4dp2.json", tp_trace(4, 12, 2))));
    EXPECT_EQ(b.degree, 4);
    ASSERT_EQ(b.sizes.size(), 2u);
    EXPECT_EQ(b.sizes[1], 2);
    EXPECT_NE(b.evidence.find("other group sizes: 2 (3 calls)"), std::string::npos) << b.evidence;
    // No sized collective: nothing inferred.
    EXPECT_EQ(tp_from_collectives(Trace{}).degree, 0);
}

TEST(TpFromTrace, RooflineUsesTheTraceGroupSizeWithoutTp)
{
    const std::string path = write_file("tp8_run.json", tp_trace(8, 12));
    const PipelineResult inferred = run_with_model(path);
    ASSERT_TRUE(inferred.roofline.report);
    EXPECT_EQ(options_of(inferred).at("tp"), 8);
    EXPECT_EQ(options_of(inferred).at("tp_source"), "trace");
    EXPECT_TRUE(has_warning(inferred, "tensor parallelism 8 inferred from the trace")) << inferred.roofline.json.dump();
    EXPECT_NE(inferred.roofline.text.find("Tensor parallelism: 8 (from the trace"), std::string::npos);

    // The cost model divides one rank's GEMM work by 8, exactly as --tp 8 does, and keeps norms whole.
    const PipelineResult given = run_with_model(path, 8, "option");
    EXPECT_EQ(options_of(given).at("tp_source"), "option");
    const auto* di = inferred.roofline.report->cost.phase(Phase::Decode);
    const auto* dg = given.roofline.report->cost.phase(Phase::Decode);
    ASSERT_TRUE(di && dg);
    ASSERT_EQ(di->ops.size(), dg->ops.size());
    for (size_t i = 0; i < di->ops.size(); ++i)
        EXPECT_DOUBLE_EQ(di->ops[i].bytes, dg->ops[i].bytes) << di->ops[i].name;
    CostOptions whole;
    whole.batch = 4;
    const CostModelResult one = estimate_costs(
        load_model_config(test::source_dir() + "/tests/data/models/llama_tiny_config.json"),
        inferred.roofline.report->cost.gpu, whole);
    for (size_t i = 0; i < di->ops.size(); ++i) {
        const OpCost& a = one.phase(Phase::Decode)->ops[i];
        if (a.op_class == "gemm") {
            EXPECT_DOUBLE_EQ(di->ops[i].flops, a.flops / 8) << a.name;
        }
        if (a.op_class == "norm") {
            EXPECT_DOUBLE_EQ(di->ops[i].flops, a.flops) << a.name;
        }
    }

    // --tp wins over the trace, even --tp 1.
    const PipelineResult forced = run_with_model(path, 1, "option");
    EXPECT_EQ(options_of(forced).at("tp"), 1);
    EXPECT_EQ(options_of(forced).at("tp_source"), "option");
    EXPECT_FALSE(has_warning(forced, "inferred from the trace"));
}

TEST(TpFromTrace, NoCollectivesMeansDefault)
{
    PipelineOptions o;
    o.run_rules = false;
    o.roofline.model = test::source_dir() + "/tests/data/models/llama_tiny_config.json";
    o.roofline.gpu = "H100 SXM";
    const std::string path = write_file("no_comm.json", R"({"traceEvents":[{"ph":"X","cat":"kernel","name":"gemm",)"
                                                        R"("pid":0,"tid":7,"ts":0,"dur":10,"args":{"device":0,"stream":7}}]})");
    const PipelineResult r = run_pipeline_on(std::make_shared<const Trace>(load_trace(path)), o);
    EXPECT_EQ(options_of(r).at("tp"), 1);
    EXPECT_EQ(options_of(r).at("tp_source"), "default");
}

// HTA's nccl_parser_config: rank 0 of a 2-rank DDP CNN training job; its all-reduces carry Group size 2 (what a
// human sees: 15 gradient all-reduces of 8-26 MB, ProfilerSteps, conv backward). Data-parallel, not tensor-parallel:
// the Roofline keeps TP 1 and says which group size it did not use.
TEST(TpFromTrace, TrainingAllReducesAreNotTensorParallel)
{
    const auto dir = test::shared_data_dir();
    if (!dir)
        GTEST_SKIP() << "no shared data";
    const std::string path = *dir + "/kineto/hta/nccl_parser_config__nccl_data.json.gz";
    EXPECT_EQ(tp_from_collectives(load_trace(path)).degree, 2);
    const PipelineResult r = run_with_model(path);
    ASSERT_EQ(r.analysis.workload.kind, WorkloadKind::Training);
    EXPECT_EQ(options_of(r).at("tp"), 1);
    EXPECT_EQ(options_of(r).at("tp_source"), "default");
    EXPECT_TRUE(has_warning(r, "group size 2")) << r.roofline.json.at("roofline").at("warnings").dump();
}
