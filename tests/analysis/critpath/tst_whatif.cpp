// What-if replays (analysis/critpath/whatif.h) on planted traces whose replayed step times are computed by hand here:
// a host-bound launch loop (cuda-graphs, remove-range), a sync-bound loop (remove-sync, with and without the sync
// records Kineto omits), two streams joined by an event wait (class:NAME=K) and a graph replay. The real pairs
// recorded on a GPU (tests/data/device/) are checked end to end in tests/cli/tst_cli_whatif.cpp.
#include <gtest/gtest.h>

#include "analysis/critpath/graph_beside.h"
#include "analysis/critpath/whatif.h"
#include "analysis/io/input_bounds.h"
#include "analysis/io/load.h"
#include "analysis/pipeline.h"
#include "analysis/report/analysis_text.h"
#include "tests/support/critpath_builder.h"
#include "tests/support/test_env.h"

using namespace sl;
using namespace sl::critpath;

namespace {
constexpr int64_t us = 1000;

using Builder = test::CritpathTraceBuilder;

StepInfo step(int64_t start, int64_t end, int64_t wall, bool warmup)
{
    StepInfo s;
    s.start = start * us;
    s.end = end * us;
    s.wall_ns = wall * us;
    s.kind = StepKind::DecodeOnly;
    s.warmup = warmup;
    return s;
}

// Fixed constants, so the hand computations below do not follow the defaults.
WhatIfOptions fixed()
{
    WhatIfOptions o;
    o.graph_node_gap_ns = 480;
    o.graph_launch_base_ns = 5'000;
    o.graph_launch_per_node_ns = 900;
    o.default_launch_delay_ns = 5'000;
    o.default_queued_gap_ns = 1'000;
    return o;
}

std::vector<Change> changes(std::initializer_list<const char*> texts)
{
    std::vector<Change> v;
    for (const char* s : texts) {
        Change c;
        std::string err;
        EXPECT_TRUE(parse_change(s, c, err)) << err;
        v.push_back(c);
    }
    return v;
}

WhatIfResult replay(const Builder& b, const PhaseResult* ph, std::initializer_list<const char*> c,
                    const OpClassResult* cls = nullptr)
{
    const DependencyGraph g = build_dependency_graph(b.t);
    WhatIfInputs in;
    in.phases = ph;
    in.classes = cls;
    return replay_what_if(b.t, g, changes(c), in, fixed());
}

// A host-bound loop of three steps, 100 µs apart: a CPU op "step" [0, 90] holds three launches at 10, 30, 50 (5 µs
// each), whose 2 µs kernels start 5 µs after their launch, and a 25 µs "python_work" op [60, 85] that launches
// nothing; 10 µs of Python between steps. Steps are the kernels' GPU windows.
Builder host_bound(PhaseResult& ph)
{
    Builder b;
    for (int k = 0; k < 3; ++k) {
        const int64_t t0 = 100 * k;
        b.op(t0, t0 + 90, "step");
        for (int i = 0; i < 3; ++i)
            b.launch(t0 + 10 + 20 * i, t0 + 15 + 20 * i, t0 + 15 + 20 * i, t0 + 17 + 20 * i);
        b.op(t0 + 60, t0 + 85, "python_work");
    }
    b.t.finish();
    ph.steps = {step(15, 57, 42, true), step(115, 157, 100, false), step(215, 257, 100, false)};
    ph.decode_steps = 3;
    return b;
}

} // namespace

TEST(WhatIf, ParsesChanges)
{
    Change c;
    std::string err;
    EXPECT_TRUE(parse_change("cuda-graphs", c, err));
    EXPECT_EQ(c.kind, ChangeKind::CudaGraphs);
    EXPECT_TRUE(parse_change("remove-sync", c, err));
    EXPECT_EQ(c.kind, ChangeKind::RemoveSync);
    EXPECT_TRUE(c.name.empty());
    EXPECT_TRUE(parse_change("remove-sync:cudaStreamSynchronize", c, err));
    EXPECT_EQ(c.name, "cudaStreamSynchronize");
    EXPECT_TRUE(parse_change("class:gemm=2.5", c, err));
    EXPECT_EQ(c.kind, ChangeKind::ClassFaster);
    EXPECT_EQ(c.name, "gemm");
    EXPECT_DOUBLE_EQ(c.factor, 2.5);
    EXPECT_TRUE(parse_change("fuse:elementwise", c, err));
    EXPECT_EQ(c.kind, ChangeKind::Fuse);
    EXPECT_TRUE(parse_change("remove-range:aten::copy_", c, err));
    EXPECT_EQ(c.name, "aten::copy_");
    EXPECT_TRUE(parse_change("comm=4", c, err));
    EXPECT_DOUBLE_EQ(c.factor, 4.0);
    for (const char* bad : {"", "graphs", "remove-sync:", "class:gemm", "class:gemm=0", "class:gemm=-2", "class:=2",
                            "class:gemm=fast", "fuse:", "remove-range:", "comm=", "comm=x", "comm=inf"}) {
        EXPECT_FALSE(parse_change(bad, c, err)) << bad;
        EXPECT_NE(err.find(std::string("'") + bad + "'"), std::string::npos) << err;   // names the change
        EXPECT_NE(err.find("expected"), std::string::npos) << err;                      // and what was expected
    }
}

// No change: the replay gives the trace back, step for step.
TEST(WhatIf, BaselineReplayIsTheTrace)
{
    PhaseResult ph;
    const Builder b = host_bound(ph);
    const WhatIfResult r = replay(b, &ph, {});
    EXPECT_EQ(r.unexplained_nodes, 0);
    EXPECT_EQ(r.step_source, "steps");
    EXPECT_EQ(r.steady_steps, 2);
    EXPECT_EQ(r.baseline_step_ns, 100 * us);
    EXPECT_EQ(r.baseline_replay_step_ns, 100 * us);
    EXPECT_EQ(r.predicted_step_ns, 100 * us);
    EXPECT_DOUBLE_EQ(r.baseline_replay_max_error, 0.0);
    ASSERT_EQ(r.steps.size(), 3u);
    for (const StepReplay& s : r.steps)
        EXPECT_EQ(s.baseline_replay_ns, s.measured_ns);
}

// cuda-graphs on the host-bound loop: per step, the host time from the first launch (10) to the last (55) becomes
// one graph launch of 5 + 3 x 0.9 = 7.7 µs; the 35 µs after the last launch (python_work included) and the 10 µs
// before the first stay, and so do the 10 µs between steps: the host needs 10 + 7.7 + 35 + 10 = 62.7 µs per step,
// while the GPU needs 3 x 2 µs + 2 x 0.48 µs. Host-bound still: 62.7 µs.
TEST(WhatIf, CudaGraphsOnAHostBoundLoop)
{
    PhaseResult ph;
    const Builder b = host_bound(ph);
    const WhatIfResult r = replay(b, &ph, {"cuda-graphs"});
    EXPECT_EQ(r.launch_delay_ns, 5 * us);
    ASSERT_EQ(r.steps.size(), 3u);
    // Step 0 (from its GPU window's start, 15): graph launch at 10, first kernel at 15, then 17.48, 19.96: ends 21.96.
    EXPECT_EQ(r.steps[0].changed_replay_ns, 6'960);
    EXPECT_EQ(r.steps[1].predicted_ns, 62'700);
    EXPECT_EQ(r.steps[2].predicted_ns, 62'700);
    EXPECT_EQ(r.predicted_step_ns, 62'700);
    EXPECT_EQ(r.predicted_lo_ns, 62'700);
    EXPECT_EQ(r.predicted_hi_ns, 62'700);
    ASSERT_EQ(r.changes.size(), 1u);
    EXPECT_EQ(r.changes[0].events_changed - 9, 3 * 5);   // 9 ops; 5 host pieces per step inside [10, 55]
    EXPECT_FALSE(r.changes[0].kept.empty());
    const nlohmann::json j = to_json(r);
    EXPECT_EQ(j["predicted_step_ns"], 62'700);
    EXPECT_EQ(j["predicted_range_ns"], nlohmann::json::array({62'700, 62'700}));
    EXPECT_EQ(j["changes"][0]["constants"]["graph_node_gap_ns"], 480);
}

// remove-range on the same loop: 25 µs of python_work per step gone, the step is 75 µs. With cuda-graphs as well:
// 62.7 - 25 = 37.7 µs; each alone as computed.
TEST(WhatIf, RemoveRange)
{
    PhaseResult ph;
    const Builder b = host_bound(ph);
    const WhatIfResult r = replay(b, &ph, {"remove-range:python_work"});
    EXPECT_EQ(r.predicted_step_ns, 75 * us);
    const WhatIfResult both = replay(b, &ph, {"cuda-graphs", "remove-range:python_work"});
    EXPECT_EQ(both.predicted_step_ns, 37'700);
    ASSERT_EQ(both.changes.size(), 2u);
    EXPECT_EQ(both.changes[0].alone_step_ns, 62'700);
    EXPECT_EQ(both.changes[1].alone_step_ns, 75 * us);
    EXPECT_THROW(replay(b, &ph, {"remove-range:nothing_named_so"}), WhatIfError);
}

namespace {
// A sync-bound loop: launch [t0, t0+5], a 40 µs kernel [t0+10, t0+50], cudaStreamSynchronize [t0+6, t0+52] until it
// is done, next launch at t0+60; three steps (GPU windows around each kernel).
Builder sync_bound(PhaseResult& ph, bool sync_rows)
{
    Builder b;
    for (int i = 0; i < 3; ++i) {
        const int64_t t0 = 60 * i;
        b.launch(t0, t0 + 5, t0 + 10, t0 + 50);
        const size_t s = b.api(t0 + 6, t0 + 52, "cudaStreamSynchronize");
        if (sync_rows)
            b.sync(s, 3, 7, t0 + 6, t0 + 52);
    }
    b.t.finish();
    ph.steps = {step(10, 50, 40, true), step(70, 110, 60, false), step(130, 170, 60, false)};
    ph.decode_steps = 3;
    return b;
}
} // namespace

// remove-sync: the host no longer waits, so it issues a launch every 5 + 1 + 8 = 14 µs and runs ahead; the kernels
// queue back to back, 1 µs apart (the fallback gap between queued ops: this trace has none queued): 41 µs a step.
// The same without the sync records (as Kineto writes them): each sync is matched to the op launched before it.
TEST(WhatIf, RemoveSyncOnASyncBoundLoop)
{
    for (bool rows : {true, false}) {
        PhaseResult ph;
        const Builder b = sync_bound(ph, rows);
        const WhatIfResult base = replay(b, &ph, {});
        EXPECT_EQ(base.unexplained_nodes, 0) << rows;
        EXPECT_EQ(base.baseline_step_ns, 60 * us);
        EXPECT_EQ(base.syncs_inferred, rows ? 0 : 3);
        const WhatIfResult r = replay(b, &ph, {"remove-sync"});
        EXPECT_EQ(r.predicted_step_ns, 41 * us) << rows;
        EXPECT_EQ(r.changes[0].events_changed, 3);
        const WhatIfResult named = replay(b, &ph, {"remove-sync:cudaStreamSynchronize"});
        EXPECT_EQ(named.predicted_step_ns, 41 * us);
        EXPECT_THROW(replay(b, &ph, {"remove-sync:cudaDeviceSynchronize"}), WhatIfError);
        // cuda-graphs keeps the sync: the launch becomes a graph launch of 5 + 0.9 µs, the kernel still starts 10 µs
        // after it (the trace's launch delay) and the host still waits for it (+ the sync's 2 µs after it): 60 µs.
        const WhatIfResult g = replay(b, &ph, {"cuda-graphs"});
        EXPECT_EQ(g.predicted_step_ns, 60 * us) << rows;
    }
}

namespace {
OpClassResult two_classes(size_t kernels, std::vector<int16_t> of)
{
    OpClassResult c;
    c.classes.resize(3);
    c.classes[0].id = "gemm";
    c.classes[1].id = "elementwise";
    c.classes[2].id = "communication";
    c.kernel_class = std::move(of);
    EXPECT_EQ(c.kernel_class.size(), kernels);
    return c;
}
} // namespace

// Two streams: a 100 µs GEMM on stream 7 [10, 110], an event recorded after it, stream 13 waits on it, a 20 µs
// elementwise kernel on stream 13 [111, 131], a device sync [20, 135]. No steps: the capture (0 .. 135) is the step.
// GEMMs 2x faster: the GEMM ends at 60, the other kernel waits for it (1 µs), [61, 81], the sync returns 4 µs after:
// 85 µs. The elementwise kernel 2x faster: 125 µs. Collectives: there are none, nothing changes.
TEST(WhatIf, StreamDependencyThroughAnEventWait)
{
    Builder b;
    b.launch(0, 5, 10, 110, 7, "gemm");
    b.api(6, 8, "cudaEventRecord");
    const size_t w = b.api(9, 11, "cudaStreamWaitEvent");
    b.sync(w, 2, 13, 10, 11);
    b.launch(12, 17, 111, 131, 13, "add");
    const size_t d = b.api(20, 135, "cudaDeviceSynchronize");
    b.sync(d, 4, 0xFFFFFFFFu, 20, 135);
    b.t.finish();
    const OpClassResult cls = two_classes(2, {0, 1});
    const WhatIfResult base = replay(b, nullptr, {}, &cls);
    EXPECT_EQ(base.step_source, "capture");
    EXPECT_EQ(base.baseline_step_ns, 135 * us);
    EXPECT_EQ(base.unexplained_nodes, 0);
    EXPECT_EQ(replay(b, nullptr, {"class:gemm=2"}, &cls).predicted_step_ns, 85 * us);
    EXPECT_EQ(replay(b, nullptr, {"class:elementwise=2"}, &cls).predicted_step_ns, 125 * us);
    // Without steps, cuda-graphs takes the capture as one step and says what that overstates.
    const WhatIfResult g = replay(b, nullptr, {"cuda-graphs"}, &cls);
    ASSERT_EQ(g.changes[0].unknown.size(), 1u);
    EXPECT_NE(g.changes[0].unknown[0].find("no steps found"), std::string::npos);
    const WhatIfResult comm = replay(b, nullptr, {"comm=4"}, &cls);
    EXPECT_EQ(comm.predicted_step_ns, 135 * us);
    EXPECT_FALSE(comm.changes[0].unknown.empty());
    EXPECT_THROW(replay(b, nullptr, {"class:attention=2"}, &cls), WhatIfError);
    EXPECT_THROW(replay(b, nullptr, {"fuse:gemm"}, &cls), WhatIfError);   // no Roofline: it cannot say
}

// A graph replay: cudaGraphLaunch [0, 10], three replayed 10 µs kernels at 15, 26, 40. GEMMs (all three) 2x faster:
// [15, 20], then the graph-node gaps kept (1 and 4 µs): [21, 26], [30, 35]: 35 µs. cuda-graphs has nothing to
// capture and says so.
TEST(WhatIf, GraphReplay)
{
    Builder b;
    const size_t gl = b.api(0, 10, "cudaGraphLaunch");
    for (int64_t s : {15, 26, 40}) {
        const size_t k = b.kernel(gl, s, s + 10, 7);
        b.t.kernels.flags[k] |= KernelTable::kGraphNode;
    }
    b.t.finish();
    const OpClassResult cls = two_classes(3, {0, 0, 0});
    EXPECT_EQ(replay(b, nullptr, {}, &cls).baseline_step_ns, 50 * us);
    EXPECT_EQ(replay(b, nullptr, {"class:gemm=2"}, &cls).predicted_step_ns, 35 * us);
    const WhatIfResult g = replay(b, nullptr, {"cuda-graphs"}, &cls);
    EXPECT_EQ(g.predicted_step_ns, 50 * us);
    ASSERT_FALSE(g.changes[0].unknown.empty());
    EXPECT_NE(g.changes[0].unknown[0].find("nothing changed"), std::string::npos);
}

// remove-sync:cudaStreamWaitEvent on the two streams above: the wait edge (GEMM end -> add start) is dropped and the
// 2 µs call with it. The host then runs 2 µs earlier: the add's launch at [10, 15]; as a launch that did not bound
// its op it gets the trace's launch delay (the GEMM's, 10 µs): [20, 40]. The device sync starts at 18 and still
// waits for the GEMM (110) + its own 4 µs: 114 µs. Without such a call the change is refused, naming it.
TEST(WhatIf, RemoveStreamWaitEvent)
{
    Builder b;
    b.launch(0, 5, 10, 110, 7, "gemm");
    b.api(6, 8, "cudaEventRecord");
    const size_t w = b.api(9, 11, "cudaStreamWaitEvent");
    b.sync(w, 2, 13, 10, 11);
    b.launch(12, 17, 111, 131, 13, "add");
    const size_t d = b.api(20, 135, "cudaDeviceSynchronize");
    b.sync(d, 4, 0xFFFFFFFFu, 20, 135);
    b.t.finish();
    const WhatIfResult r = replay(b, nullptr, {"remove-sync:cudaStreamWaitEvent"});
    EXPECT_EQ(r.baseline_step_ns, 135 * us);
    EXPECT_EQ(r.predicted_step_ns, 114 * us);
    ASSERT_EQ(r.changes.size(), 1u);
    EXPECT_EQ(r.changes[0].events_changed, 1);
    EXPECT_NE(r.changes[0].changed.find("1 GPU -> GPU event wait(s)"), std::string::npos) << r.changes[0].changed;
    // The host-blocking syncs alone (remove-sync) are another change: the device sync goes, the wait stays.
    EXPECT_NE(replay(b, nullptr, {"remove-sync"}).predicted_step_ns, 114 * us);
    Builder none;
    none.launch(0, 5, 10, 110, 7, "gemm");
    none.t.finish();
    EXPECT_THROW(replay(none, nullptr, {"remove-sync:cudaStreamWaitEvent"}), WhatIfError);
}

// Issue 35 §4: the findings' replays come from the critical path's own dependency graph, built once per pipeline run,
// and are stored with the findings; the JSON and the text read them (no graph built while serialising) and show the
// same step. Real trace: the eager decode (tests/data/device/README.md: host-bound, CUDA graphs the first action).
TEST(WhatIf, FindingsReplayOnTheCriticalPathsGraph)
{
    const std::string trace = test::source_dir() + "/tests/data/device/decode-eager.pt.trace.json.gz";
    const uint64_t before = dependency_graphs_built();
    const PipelineResult r = run_pipeline({trace}, PipelineOptions{});
    EXPECT_EQ(dependency_graphs_built() - before, 1u);
    ASSERT_TRUE(r.critical_path.computed);
    const Finding* graphs = nullptr;
    for (const Finding& f : r.diagnosis.eval.findings)
        if (f.replayed_step && f.replayed_step->change == "cuda-graphs")
            graphs = graphs ? graphs : &f;
    ASSERT_NE(graphs, nullptr) << "no finding carries the cuda-graphs replay";
    // The replay a `whatif --change cuda-graphs` makes on a graph of its own.
    const DependencyGraph g = build_dependency_graph(*r.trace);
    WhatIfInputs in;
    in.classes = &r.analysis.classes;
    in.phases = &r.analysis.phases;
    const WhatIfResult w = replay_what_if(*r.trace, g, changes({"cuda-graphs"}), in);
    const ReplayedStep& s = *graphs->replayed_step;
    EXPECT_EQ(s.baseline_step_ns, w.baseline_step_ns);
    EXPECT_EQ(s.predicted_step_ns, w.predicted_step_ns);
    EXPECT_EQ(s.predicted_lo_ns, w.predicted_lo_ns);
    EXPECT_EQ(s.predicted_hi_ns, w.predicted_hi_ns);
    // decode-graph measured 1.733 ms a step: the replay is within the 25 %.
    EXPECT_NEAR(double(s.predicted_step_ns), 1.733e6, 0.25 * 1.733e6);

    const uint64_t built = dependency_graphs_built();
    const nlohmann::json j = pipeline_to_json(r);
    const std::string text = pipeline_to_text(r);
    EXPECT_EQ(dependency_graphs_built(), built) << "a serialiser built a graph";
    int in_json = 0;
    for (size_t i = 0; i < r.diagnosis.eval.findings.size(); ++i) {
        const Finding& f = r.diagnosis.eval.findings[i];
        ASSERT_EQ(j["findings"][i].contains("replayed_step"), f.replayed_step.has_value()) << f.rule;
        if (!f.replayed_step)
            continue;
        ++in_json;
        const auto& js = j["findings"][i]["replayed_step"];
        EXPECT_EQ(js["change"], f.replayed_step->change);
        EXPECT_EQ(js["predicted_step_ns"].get<int64_t>(), f.replayed_step->predicted_step_ns);
        EXPECT_EQ(js["baseline_step_ns"].get<int64_t>(), f.replayed_step->baseline_step_ns);
    }
    EXPECT_GE(in_json, 1);
    const std::string line = "cuda-graphs: step " + format_ns(double(s.baseline_step_ns)) + " -> " +
                             format_ns(double(s.predicted_step_ns)) + " [";
    EXPECT_NE(text.find(line), std::string::npos) << "text lacks '" << line << "'";
}

// The pipeline replays every change its findings suggest on one replayer (replay_each: edges, order and baseline
// replay built once; a change's appended edges taken beside the shared order). Each change's result is the one
// replay_what_if gives for it alone, word for word, in any order and after a change that appended edges; a change
// replay_what_if refuses gets its message.
TEST(WhatIf, EachChangeOnOneReplayerIsTheChangeAlone)
{
    const std::string trace = test::source_dir() + "/tests/data/device/decode-sync.pt.trace.json.gz";
    PipelineOptions po;
    po.critical_path = false;
    po.run_rules = false;
    const PipelineResult r = run_pipeline({trace}, po);
    const DependencyGraph g = build_dependency_graph(*r.trace);
    WhatIfInputs in;
    in.classes = &r.analysis.classes;
    in.phases = &r.analysis.phases;
    const std::vector<Change> list =
        changes({"cuda-graphs", "remove-sync", "class:no_such_class=2", "class:gemm=2", "cuda-graphs", "comm=2"});
    const std::vector<EachReplay> each = replay_each(*r.trace, g, list, in);
    ASSERT_EQ(each.size(), list.size());
    int replayed = 0;
    for (size_t i = 0; i < list.size(); ++i) {
        try {
            const WhatIfResult alone = replay_what_if(*r.trace, g, {list[i]}, in);
            ASSERT_TRUE(each[i].result) << list[i].text << ": " << each[i].error;
            EXPECT_EQ(to_json(*each[i].result), to_json(alone)) << list[i].text;
            ++replayed;
        } catch (const WhatIfError& e) {
            EXPECT_FALSE(each[i].result) << list[i].text;
            EXPECT_EQ(each[i].error, e.what()) << list[i].text;
        }
    }
    EXPECT_GE(replayed, 3);
    ASSERT_TRUE(each[0].result);
    EXPECT_LT(each[0].result->predicted_step_ns, each[0].result->baseline_step_ns);   // the eager loop is host-bound
    EXPECT_FALSE(each[2].result);
}

// The critical path and the replays are optional: past the memory budget (--max-memory) the pipeline leaves them out
// with a warning that says how much the graph would need, and the findings keep their bounds, instead of ending the
// run out of memory. Within the budget, the same trace gets both.
TEST(WhatIf, CriticalPathLeftOutPastTheMemoryBudget)
{
    const std::string file = test::source_dir() + "/tests/data/device/decode-eager.pt.trace.json.gz";
    const auto t = std::make_shared<const Trace>(load_trace(file));
    set_memory_budget_override(1);   // the trace is loaded: only the pipeline's own check sees it
    PipelineResult r, neither;
    PipelineOptions no_graph;        // neither the critical path nor the rules: nothing left out, nothing to say
    no_graph.critical_path = false;
    no_graph.run_rules = false;
    try {
        r = run_pipeline_on(t, PipelineOptions{});
        neither = run_pipeline_on(t, no_graph);
    } catch (...) {
        set_memory_budget_override(0);
        throw;
    }
    set_memory_budget_override(0);
    for (const WorkloadWarning& x : neither.analysis.workload.warnings)
        EXPECT_NE(x.code, "critical_path_skipped");
    EXPECT_FALSE(r.critical_path.computed);
    const WorkloadWarning* w = nullptr;
    for (const WorkloadWarning& x : r.analysis.workload.warnings)
        if (x.code == "critical_path_skipped")
            w = &x;
    ASSERT_NE(w, nullptr);
    EXPECT_EQ(w->args.at("needed_bytes"), std::to_string(critical_path_bytes(*t)));
    EXPECT_EQ(w->args.at("budget_bytes"), "1");
    EXPECT_NE(w->message.find("--max-memory"), std::string::npos);
    ASSERT_FALSE(r.diagnosis.eval.findings.empty());
    for (const Finding& f : r.diagnosis.eval.findings)
        EXPECT_FALSE(f.replayed_step) << f.rule;
    const nlohmann::json j = pipeline_to_json(r);
    EXPECT_FALSE(j.contains("critical_path"));
    bool in_json = false;
    for (const auto& x : j["workload"]["warnings"])
        in_json = in_json || x["code"] == "critical_path_skipped";
    EXPECT_TRUE(in_json);

    const PipelineResult within = run_pipeline_on(t, PipelineOptions{});
    EXPECT_TRUE(within.critical_path.computed);
    bool replayed = false;
    for (const Finding& f : within.diagnosis.eval.findings)
        replayed = replayed || f.replayed_step.has_value();
    EXPECT_TRUE(replayed);
    for (const WorkloadWarning& x : within.analysis.workload.warnings)
        EXPECT_NE(x.code, "critical_path_skipped");
}
