// Planted serving traces (analysis/io/synthetic.h, what `sightline-cli generate` writes): a decode replayed as one
// CUDA graph per step with and without the trace of the graph's capture beside it, and an MoE decode, each written as
// Kineto JSON, read back and analysed; what the analysis says of them is compared with golden files
// (tests/golden/serving/*.json; on a mismatch the test writes <golden>.actual beside it: diff it, and copy it over when
// the change is intended). What was planted is also asserted directly, so a golden written from a wrong result
// cannot pass.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "analysis/io/kineto_writer.h"
#include "analysis/io/nsys_writer.h"
#include "analysis/io/synthetic.h"
#include "analysis/pipeline.h"
#include "analysis/report/workload_json.h"
#include "analysis/trace/kernel_ops.h"
#include "tests/support/test_env.h"

using namespace sl;
using nlohmann::json;

namespace {

std::string golden(const std::string& name) { return test::source_dir() + "/tests/golden/serving/" + name; }

double sig(double v)
{
    if (v == 0 || !std::isfinite(v))
        return v;
    char b[32];
    std::snprintf(b, sizeof b, "%.4g", v);
    return std::stod(b);
}

// The replay (and, with_capture, the capture trace in capture_traces/ beside it with execution_details.json), as
// `sightline-cli generate --with-capture` writes them.
std::string write_planted(const std::string& name, const SynthOptions& o, bool with_capture)
{
    const std::string dir = test::scratch_dir("synthetic_serving_" + name);
    const std::string path = dir + "/" + name + ".json.gz";
    KinetoWriteOptions ko;
    ko.gzip = true;
    write_kineto_json(make_synthetic_trace(o), path, ko);
    if (with_capture) {
        std::filesystem::create_directories(dir + "/capture_traces");
        write_kineto_json(make_synthetic_capture_trace(o), dir + "/capture_traces/graph_capture_rank_0.pt.trace.json.gz",
                          ko);
        std::ofstream(dir + "/capture_traces/execution_details.json")
            << R"([{"file": "graph_capture_rank_0.pt.trace.json.gz", "batch_size": )" << o.batch
            << R"(, "mode": "FULL"}])";
    }
    return path;
}

// What a reader checks on a serving trace, compactly.
json summary(const PipelineResult& r)
{
    const Trace& t = *r.trace;
    const WorkloadResult& w = r.analysis.workload;
    json j;
    const json wj = workload_to_json(w);
    j["execution"] = wj["execution"];
    j["framework"] = wj["framework"];
    json replay = wj["graph_replay"];
    for (auto& c : replay["captures"])
        c["file"] = std::filesystem::path(c["file"].get<std::string>()).filename().string();
    replay["time_share"] = sig(replay["time_share"].get<double>());
    j["graph_replay"] = replay;
    json moe = wj["moe"];
    if (moe.is_object())
        moe["gpu_share"] = sig(moe["gpu_share"].get<double>());
    j["moe"] = moe;
    json warnings = json::array();
    for (const auto& x : w.warnings) {
        if (x.code.rfind("graph_", 0) != 0)   // the serving warnings only (steps, warm-up and clocks are others')
            continue;
        json args = json::object();
        for (const auto& [k, v] : x.args)
            args[k] = k == "file" ? std::filesystem::path(v).filename().string() : v;
        warnings.push_back({{"code", x.code}, {"args", args}});
    }
    j["warnings"] = warnings;
    json classes = json::object();
    for (const auto& c : r.analysis.classes.classes)
        if (c.time_ns > 0)
            classes[c.id] = sig(static_cast<double>(c.time_ns) / static_cast<double>(r.analysis.classes.kernel_time_ns));
    j["op_class_shares"] = classes;
    json points = json::array();
    for (const auto& p : r.shapes.points)
        if (p.family == "gemm" || p.family == "moe")
            points.push_back({{"op", p.op},
                              {"shape", p.shape},
                              {"calls", p.calls},
                              {"kernels", p.kernels},
                              {"flops_per_call", p.flops_per_call},
                              {"bytes_per_call", sig(p.bytes_per_call)},
                              {"tflops", sig(p.tflops)}});
    j["shape_points"] = points;
    j["kernels_from_capture"] = r.shapes.kernels_from_capture;
    json rules = json::array();
    for (const auto& f : r.diagnosis.eval.findings)
        if (f.rule == "moe-experts-dominate")
            rules.push_back({{"rule", f.rule}, {"severity", severity_name(f.severity)}, {"title", f.title.en}});
    j["moe_findings"] = rules;
    // The first replayed GEMM kernel, as the Details pane shows it.
    const KernelOps ops(t);
    for (size_t k = 0; k < t.kernels.size(); ++k) {
        const KernelOp op = ops.op(k);
        if (op.name == "aten::mm") {
            j["first_gemm"] = {{"kernel", std::string(t.str(t.kernels.name[k]))}, {"op", std::string(op.name)},
                               {"input_dims", std::string(op.input_dims)}, {"chain", op.chain},
                               {"module", op.module}, {"replayed", op.replayed}, {"from_capture", op.from_capture}};
            break;
        }
    }
    return j;
}

PipelineResult analyse(const std::string& path, bool find_captures, const std::string& model = {})
{
    PipelineOptions po;
    po.load.find_captures = find_captures;
    po.roofline.model = model;
    po.roofline.gpu = model.empty() ? std::string() : "H100-SXM";
    return run_pipeline({path}, po);
}

SynthOptions graph_decode()
{
    SynthOptions o;
    o.prefill_steps = 0;
    o.decode_steps = 6;
    o.layers = 4;
    o.cuda_graphs = true;
    o.h2d_copies = false;
    return o;
}

} // namespace

TEST(SyntheticServing, GraphReplayWithoutCaptureSaysWhatIsMissing)
{
    const SynthOptions o = graph_decode();
    const PipelineResult r = analyse(write_planted("graph_no_capture", o, false), true);
    const WorkloadResult& w = r.analysis.workload;
    // Planted: 6 steps x (4 layers x 11 + 3) kernels, all replayed, no capture anywhere.
    EXPECT_EQ(w.graph_kernels, 6 * (4 * 11 + 3));
    EXPECT_EQ(w.graph_kernels_joined, 0);
    EXPECT_TRUE(w.captures.empty());
    int without = 0;
    for (const auto& x : w.warnings)
        if (x.code == "graph_replay_without_shapes") {
            ++without;
            EXPECT_EQ(x.args.at("kernels"), std::to_string(w.graph_kernels));
            EXPECT_NE(x.message.find("--capture-trace"), std::string::npos);
            EXPECT_NE(x.message.find("--cuda-graph-trace=node"), std::string::npos);
        }
    EXPECT_EQ(without, 1);
    EXPECT_EQ(r.shapes.kernels_from_capture, 0);
    EXPECT_TRUE(test::matches_golden(golden("graph_no_capture.json"), summary(r).dump(2) + "\n"))
        << "see " << golden("graph_no_capture.json") << ".actual";
}

TEST(SyntheticServing, GraphReplayJoinedToItsCaptureBesideIt)
{
    const SynthOptions o = graph_decode();
    const PipelineResult r = analyse(write_planted("graph_with_capture", o, true), true);
    const WorkloadResult& w = r.analysis.workload;
    ASSERT_EQ(w.captures.size(), 1u);
    EXPECT_EQ(w.captures[0].source, "beside");
    EXPECT_EQ(w.captures[0].batch_size, 8);
    EXPECT_EQ(w.captures[0].replays, 6);
    EXPECT_EQ(w.captures[0].captured_launches, 4 * 11 + 3);
    EXPECT_EQ(w.captures[0].kernels_matched, 6 * (4 * 11 + 3));
    EXPECT_EQ(w.graph_kernels_joined, w.graph_kernels);
    // Every replayed GEMM now has its shapes: qkv, o, gate/up, down once per layer and step, the lm_head once a step.
    int64_t mm_calls = 0;
    for (const auto& p : r.shapes.points)
        if (p.op == "aten::mm")
            mm_calls += p.calls;
    EXPECT_EQ(mm_calls, 6 * (4 * 4 + 1));
    for (const auto& x : w.warnings)
        EXPECT_NE(x.code, "graph_replay_without_shapes");
    EXPECT_TRUE(test::matches_golden(golden("graph_with_capture.json"), summary(r).dump(2) + "\n"))
        << "see " << golden("graph_with_capture.json") << ".actual";

    // Without looking beside the trace, nothing is joined.
    const PipelineResult off = analyse(write_planted("graph_with_capture", o, true), false);
    EXPECT_TRUE(off.analysis.workload.captures.empty());
    EXPECT_EQ(off.analysis.workload.graph_kernels_joined, 0);
}

TEST(SyntheticServing, MoeDecodeIsAnMoeWorkload)
{
    SynthOptions o;
    o.prefill_steps = 0;
    o.decode_steps = 6;
    o.layers = 4;
    o.h2d_copies = false;
    o.record_shapes = true;
    o.moe_experts = 32;
    o.moe_top_k = 4;
    const std::string dir = test::scratch_dir("synthetic_serving_moe_config");
    const std::string config = dir + "/config.json";
    std::ofstream(config) << synth_model_config_json(o);
    const PipelineResult r = analyse(write_planted("moe_decode", o, false), false, config);
    const MoeWorkload& m = r.analysis.workload.moe;
    EXPECT_TRUE(m.detected);
    EXPECT_EQ(m.experts, 32);
    EXPECT_EQ(m.top_k, 4);
    EXPECT_EQ(m.source, "config");
    EXPECT_EQ(m.expert_gemm_kernels, 6 * 4 * 2);
    EXPECT_EQ(m.routing_kernels, 6 * 4 * 3);
    EXPECT_GT(m.gpu_share, 0.5);
    // One point per expert GEMM, with TraceLens's FLOPs for 8 tokens x top-4 of 32 experts, width 4096.
    const ShapePoint *up = nullptr, *down = nullptr;
    for (const auto& p : r.shapes.points) {
        if (p.op == "moe_up")
            up = &p;
        if (p.op == "moe_down")
            down = &p;
    }
    ASSERT_NE(up, nullptr);
    ASSERT_NE(down, nullptr);
    EXPECT_EQ(up->calls, 6 * 4);
    EXPECT_TRUE(up->moe_gated);
    EXPECT_FALSE(down->moe_gated);
    EXPECT_DOUBLE_EQ(up->flops_per_call, 2.0 * 8 * 4096 * 4096 * 4 * 2);
    EXPECT_DOUBLE_EQ(down->flops_per_call, 2.0 * 8 * 4096 * 4096 * 4);
    const double touched = 32 * (1 - std::pow(28.0 / 32.0, 8));
    EXPECT_NEAR(up->moe_active_experts, touched, 1e-9);
    EXPECT_NEAR(down->bytes_per_call, 8 * 4096 * 4 * 2 + touched * 4096 * 4096 * 0.5 + 8 * 4096 * 2, 1);
    bool finding = false;
    for (const auto& f : r.diagnosis.eval.findings)
        finding = finding || f.rule == "moe-experts-dominate";
    EXPECT_TRUE(finding) << "no finding names MoE although it dominates";
    EXPECT_TRUE(test::matches_golden(golden("moe_decode.json"), summary(r).dump(2) + "\n"))
        << "see " << golden("moe_decode.json") << ".actual";
}

// An MoE decode replayed as graphs, joined to its capture: the expert GEMMs get their shapes through the join.
TEST(SyntheticServing, MoeGraphDecodeJoinedToItsCapture)
{
    SynthOptions o = graph_decode();
    o.moe_experts = 32;
    o.moe_top_k = 4;
    const PipelineResult r = analyse(write_planted("moe_graph_with_capture", o, true), true);
    const WorkloadResult& w = r.analysis.workload;
    EXPECT_EQ(w.graph_kernels_joined, w.graph_kernels);
    EXPECT_EQ(w.moe.experts, 32);
    EXPECT_EQ(w.moe.top_k, 4);
    EXPECT_EQ(w.moe.source, "shapes");
    int moe_points = 0;
    for (const auto& p : r.shapes.points)
        if (p.family == "moe") {
            ++moe_points;
            EXPECT_EQ(p.calls, 6 * 4) << p.op;
        }
    EXPECT_EQ(moe_points, 2);
    EXPECT_TRUE(test::matches_golden(golden("moe_graph_with_capture.json"), summary(r).dump(2) + "\n"))
        << "see " << golden("moe_graph_with_capture.json") << ".actual";
}

// nsys: the capture inside the export itself (a server's start-up), the replayed kernels' graphNodeId leading back to
// the nodes' creation (CUDA_GRAPH_NODE_EVENTS, the instantiated nodes naming the captured ones), whose open
// emit_nvtx ranges name each op and its sizes.
TEST(SyntheticServing, NsysGraphNodesLeadBackToTheirCapture)
{
    SynthOptions o = graph_decode();
    o.capture_in_trace = true;
    const std::string dir = test::scratch_dir("synthetic_serving_nsys");
    const std::string path = dir + "/graph_nodes.sqlite";
    write_nsys_sqlite(make_synthetic_trace(o), path);
    // The export holds what nsys writes: node creation rows, cloned nodes pointing at the captured ones.
    const auto nodes = test::sqlite_rows(path, "SELECT COUNT(*), COUNT(originalGraphNodeId) FROM CUDA_GRAPH_NODE_EVENTS");
    ASSERT_EQ(nodes.size(), 1u);
    EXPECT_EQ(nodes[0][0], std::to_string(2 * (4 * 11 + 3)));
    EXPECT_EQ(nodes[0][1], std::to_string(4 * 11 + 3));
    const PipelineResult r = analyse(path, false);
    const WorkloadResult& w = r.analysis.workload;
    EXPECT_EQ(w.graph_kernels, 6 * (4 * 11 + 3));
    EXPECT_EQ(w.graph_kernels_joined, w.graph_kernels);
    ASSERT_EQ(w.captures.size(), 1u);
    EXPECT_EQ(w.captures[0].source, "graph-nodes");
    EXPECT_EQ(w.captures[0].captured_launches, 4 * 11 + 3);
    // The GEMMs get their shapes from emit_nvtx's sizes (no dtype in NVTX: FLOPs, not bytes).
    int64_t mm_calls = 0;
    for (const auto& p : r.shapes.points)
        if (p.op == "aten::mm") {
            mm_calls += p.calls;
            EXPECT_GT(p.flops_per_call, 0);
        }
    EXPECT_EQ(mm_calls, 6 * (4 * 4 + 1));
    EXPECT_TRUE(test::matches_golden(golden("nsys_graph_nodes.json"), summary(r).dump(2) + "\n"))
        << "see " << golden("nsys_graph_nodes.json") << ".actual";

    // Without the capture in the export: node ids but no node rows, nothing to join, and the warning says so.
    SynthOptions plain = graph_decode();
    const std::string bare = dir + "/graph_nodes_bare.sqlite";
    write_nsys_sqlite(make_synthetic_trace(plain), bare);
    const PipelineResult rb = analyse(bare, false);
    EXPECT_EQ(rb.analysis.workload.graph_kernels_joined, 0);
    bool warned = false;
    for (const auto& x : rb.analysis.workload.warnings)
        warned = warned || x.code == "graph_replay_without_shapes";
    EXPECT_TRUE(warned);
}

// Bad capture inputs: one named with --capture-trace that is missing or malformed is a clear error naming it; one
// found beside the trace that cannot be read is skipped with a note, and the replay is analysed without it.
TEST(SyntheticServing, BadCaptureInputs)
{
    const SynthOptions o = graph_decode();
    const std::string path = write_planted("bad_capture", o, false);
    const std::string dir = std::filesystem::path(path).parent_path().string();
    LoadOptions missing;
    missing.capture_traces = {dir + "/no_such_capture.json.gz"};
    try {
        load_workspace({path}, missing);
        ADD_FAILURE() << "a missing --capture-trace was accepted";
    } catch (const TraceError& e) {
        EXPECT_NE(std::string(e.what()).find("no_such_capture.json.gz"), std::string::npos) << e.what();
    }
    std::filesystem::create_directories(dir + "/capture_traces");
    std::ofstream(dir + "/capture_traces/execution_details.json") << "{not json";
    LoadOptions named;
    named.capture_traces = {dir + "/capture_traces"};
    try {
        load_workspace({path}, named);
        ADD_FAILURE() << "a malformed execution_details.json was accepted";
    } catch (const TraceError& e) {
        EXPECT_NE(std::string(e.what()).find("execution_details.json"), std::string::npos) << e.what();
    }
    std::ofstream(dir + "/capture_traces/execution_details.json") << "[]";
    std::ofstream(dir + "/capture_traces/broken.json") << "{\"traceEvents\": [ {\"ph\": ";
    const Trace t = load_workspace({path}, LoadOptions{});
    EXPECT_EQ(t.graph_ops.size(), 0u);
    bool noted = false;
    for (const auto& w : t.meta.warnings)
        noted = noted || w.find("broken.json") != std::string::npos;
    EXPECT_TRUE(noted);
}
