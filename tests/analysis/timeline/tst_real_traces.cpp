// Issue 13: on every real trace in ../shared/data, Sightline knows what it is looking at before it judges it.
// tests/data/real_traces.json holds, per trace, what a human reading it sees (kind, execution mode, framework,
// phases), the GPU vendor and spec-database row it names, and the capture length the profiler itself reports, computed outside Sightline (sqlite3 on
// ANALYSIS_DETAILS.duration; the Kineto "Trace" span in Python). Skipped when SIGHTLINE_SHARED_DATA is absent.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/pipeline.h"
#include "analysis/roofline/gpu_specs.h"
#include "tests/support/test_env.h"

using namespace sl;
using nlohmann::json;

namespace {

json table()
{
    const std::string path = sl::test::source_dir() + "/tests/data/real_traces.json";
    std::ifstream in(path);
    if (!in)
        throw std::runtime_error("cannot read " + path + " (SIGHTLINE_SOURCE_DIR)");
    json j = json::parse(in);
    if (!j.contains("traces") || j["traces"].size() < 26)
        throw std::runtime_error(path + ": expected \"traces\" with the 26 real traces");
    return j;
}

std::string lower(std::string s)
{
    for (char& c : s)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

} // namespace

TEST(RealTraces, TableCoversEveryTraceInSharedData)
{
    const auto dir = sl::test::shared_data_dir();
    if (!dir)
        GTEST_SKIP() << "SIGHTLINE_SHARED_DATA not set";
    std::set<std::string> listed;
    const json tab = table();   // held: a range-for over a temporary's member dangles
    for (const auto& e : tab["traces"])
        listed.insert(e["file"].get<std::string>());
    for (const std::string sub : {"nsys", "kineto"})
        for (const auto& f : sl::test::shared_files(sub, {".json.gz", ".sqlite"})) {
            const std::string rel = std::filesystem::relative(f, *dir).generic_string();
            EXPECT_TRUE(listed.count(rel)) << rel << " is in ../shared/data but not in tests/data/real_traces.json";
        }
}

TEST(RealTraces, WhatAHumanSees)
{
    const auto dir = sl::test::shared_data_dir();
    if (!dir)
        GTEST_SKIP() << "SIGHTLINE_SHARED_DATA not set";
    int checked = 0;
    const json tab = table();
    const GpuDatabase gpus = GpuDatabase::load(sl::test::source_dir() + "/resources/gpus.json");
    for (const auto& e : tab["traces"]) {
        const std::string rel = e["file"];
        const std::string path = *dir + "/" + rel;
        if (!std::filesystem::exists(path))
            continue;
        SCOPED_TRACE(rel + ": " + e["human"].get<std::string>());
        PipelineOptions po;
        PipelineResult r;
        try {
            r = run_pipeline({path}, po);
        } catch (const std::exception& ex) {
            ADD_FAILURE() << "cannot analyse " << rel << ": " << ex.what();
            continue;
        }
        ++checked;
        const Trace& t = *r.trace;
        const AnalysisResult& a = r.analysis;

        // The capture window is the one the profiler reports, within 1 %: on a trace whose clocks disagree, the window
        // before the correction (the profiler's, over both clocks); the window after it is no longer and still holds
        // every GPU op (below).
        const double want = e["capture_ns"].get<double>();
        const bool skewed = e.value("clock_skew", false);
        const double got = skewed ? static_cast<double>(t.meta.uncorrected_capture_end - t.meta.uncorrected_capture_start)
                                  : static_cast<double>(t.meta.capture_end - t.meta.capture_start);
        EXPECT_NEAR(got, want, 0.01 * want) << "capture window (" << t.meta.capture_source << ")";
        if (skewed) {
            EXPECT_LE(t.meta.capture_end - t.meta.capture_start, static_cast<int64_t>(want * 1.01));
        }
        // Every GPU op lies in it.
        for (size_t i = 0; i < t.kernels.size(); ++i) {
            ASSERT_GE(t.kernels.start[i], t.meta.capture_start);
            ASSERT_LE(t.kernels.end[i], t.meta.capture_end);
        }

        EXPECT_EQ(workload_kind_name(a.workload.kind), e["kind"].get<std::string>());
        EXPECT_EQ(execution_mode_name(a.workload.execution), e["execution"].get<std::string>());
        if (e["framework"].is_null()) {
            EXPECT_EQ(a.workload.framework, "");
        } else {
            EXPECT_EQ(a.workload.framework, e["framework"].get<std::string>());
        }
        EXPECT_FALSE(a.workload.evidence.empty());

        // MoE: what the table says a reader sees (experts and top-k where it names them).
        if (e.contains("moe")) {
            EXPECT_EQ(a.workload.moe.detected, e["moe"].get<bool>());
            if (e.contains("moe_experts")) {
                EXPECT_EQ(a.workload.moe.experts, e["moe_experts"].get<int64_t>());
            }
            if (e.contains("moe_top_k")) {
                EXPECT_EQ(a.workload.moe.top_k, e["moe_top_k"].get<int64_t>());
            }
        }
        // A replay with its capture beside it: the capture_traces/ folder is found and joined (every replayed kernel
        // matched to its twin), never merged as a rank.
        if (e.contains("capture_trace")) {
            ASSERT_FALSE(a.workload.captures.empty()) << "the capture beside the trace was not joined";
            const auto& c = a.workload.captures.front();
            EXPECT_TRUE(c.used);
            EXPECT_EQ(c.source, "beside");
            EXPECT_NE(c.path.find(e["capture_trace"].get<std::string>()), std::string::npos) << c.path;
            EXPECT_EQ(c.kernels_matched, c.kernels_replayed);
            EXPECT_EQ(a.workload.graph_kernels_joined, a.workload.graph_kernels);
            EXPECT_EQ(t.meta.world_size, 1);
            for (const auto& d : t.meta.devices)
                EXPECT_EQ(d.rank, 0);
        }
        // The trace of a graph capture says what it is.
        if (e.contains("role") && e["role"] == "capture") {
            bool said = false;
            for (const auto& w : a.workload.warnings)
                said = said || w.code == "graph_capture_trace";
            EXPECT_TRUE(said) << "a capture trace not recognised as one";
        }

        // The GPU vendor, and the spec-database row every device is identified as (by name, else its properties:
        // an AMD device with an empty or generic name, or properties listed under another device id).
        if (e.contains("vendor")) {
            EXPECT_EQ(a.workload.vendor, e["vendor"].is_null() ? std::string() : e["vendor"].get<std::string>())
                << "vendor evidence: " << (a.workload.vendor_evidence.empty() ? "" : a.workload.vendor_evidence[0]);
        }
        if (e.contains("gpu")) {
            ASSERT_FALSE(t.meta.devices.empty()) << "the table names a GPU, the trace holds no device";
            for (const DeviceInfo& d : t.meta.devices) {
                const GpuIdentification id = gpus.identify(d);
                if (e["gpu"].is_null()) {
                    EXPECT_EQ(id.spec, nullptr) << "device " << d.id << ": " << id.summary;
                } else {
                    ASSERT_NE(id.spec, nullptr) << "device " << d.id << ": " << id.summary;
                    EXPECT_EQ(id.spec->name, e["gpu"].get<std::string>()) << id.summary;
                }
            }
        }

        // Advice in the vendor's own tools: no NVIDIA tool in an AMD trace's suggestions, and no AMD tool in an
        // NVIDIA trace's.
        if (!a.workload.vendor.empty()) {
            const bool amd = a.workload.vendor == "AMD";
            static const std::vector<std::string> nvidia_words = {"nsys", "ncu ", "Nsight", "nvidia-smi", "cuBLAS",
                                                                  "TensorRT", "CUTLASS", "CUDA Graph", "CUDA graph",
                                                                  "nvFuser"};
            static const std::vector<std::string> amd_words = {"rocprof", "amd-smi", "hipBLASLt", "aiter", "HIP graph",
                                                               "hipMem", "RCCL", "CK "};
            for (const auto& f : r.diagnosis.eval.findings)
                for (const auto& sg : f.suggestions) {
                    const std::string text = sg.text.en + " | " + sg.text.zh_CN + " | " + sg.verify;
                    for (const std::string& w : amd ? nvidia_words : amd_words)
                        EXPECT_EQ(text.find(w), std::string::npos)
                            << f.rule << "/" << sg.id << " says '" << w << "' on an " << a.workload.vendor
                            << " trace: " << text;
                }
        }

        EXPECT_EQ(a.phases.prefill_steps, e["prefill_steps"].get<int64_t>());
        EXPECT_EQ(a.phases.decode_steps, e["decode_steps"].get<int64_t>());
        if (a.phases.steps.empty()) {
            EXPECT_FALSE(a.phases.note.empty()) << "no phase found and nothing says why";
        }

        std::set<std::string> codes;
        for (const auto& w : a.workload.warnings)
            codes.insert(w.code);
        for (const auto& c : e["warnings"])
            EXPECT_TRUE(codes.count(c.get<std::string>())) << "missing warning " << c;
        // No clock skew on these but the ones the table marks (launch -> start delays of 2-45 us at the least);
        // those are corrected onto the host clock.
        if (e.value("clock_skew", false)) {
            EXPECT_TRUE(codes.count("clock_skew"));
            EXPECT_NE(t.meta.clock_shift_ns, 0);
        } else {
            EXPECT_FALSE(codes.count("clock_skew"));
            EXPECT_EQ(t.meta.clock_shift_ns, 0);
        }

        // JSON: utilisation null without GPU activity, never 100 %.
        const json j = pipeline_to_json(r);
        const int64_t gpu_ops = static_cast<int64_t>(t.kernels.size() + t.memcpy.size() + t.memset.size());
        if (gpu_ops == 0) {
            EXPECT_TRUE(j["trace"]["gpu_utilization"].is_null());
        } else {
            EXPECT_LT(j["trace"]["gpu_utilization"].get<double>(), 1.0);
        }
        EXPECT_EQ(j["workload"]["kind"], e["kind"]);
        // cpu_op events are CPU operators and python_function events Python frames, neither NVTX ranges.
        int64_t cpu_ops = 0, python = 0;
        for (size_t i = 0; i < t.ranges.size(); ++i) {
            cpu_ops += t.ranges.kind[i] == RangeKind::CpuOp;
            python += t.ranges.kind[i] == RangeKind::PythonFunction;
        }
        EXPECT_EQ(j["trace"]["cpu_ops"].get<int64_t>(), cpu_ops);
        EXPECT_EQ(j["trace"]["python_functions"].get<int64_t>(), python);
        EXPECT_EQ(j["trace"]["nvtx_ranges"].get<int64_t>(), static_cast<int64_t>(t.ranges.size()) - cpu_ops - python);
        EXPECT_EQ(j["trace"]["ranges"].get<int64_t>(), static_cast<int64_t>(t.ranges.size()) - python);

        // Serving steps (the entries that list them): each step's kind and batch composition as its annotation
        // states it, in order.
        if (e.contains("steps")) {
            const json& want = e["steps"];
            ASSERT_EQ(a.phases.steps.size(), want.size()) << a.phases.note;
            for (size_t i = 0; i < want.size(); ++i) {
                const StepInfo& st = a.phases.steps[i];
                SCOPED_TRACE("step " + std::to_string(i));
                EXPECT_EQ(step_kind_name(st.kind), want[i]["kind"].get<std::string>());
                EXPECT_TRUE(st.batch.known());
                EXPECT_EQ(st.batch.prefill_requests, want[i]["prefill_requests"].get<int64_t>());
                EXPECT_EQ(st.batch.prefill_tokens, want[i]["prefill_tokens"].get<int64_t>());
                EXPECT_EQ(st.batch.prefill_kv_tokens, want[i]["prefill_kv_tokens"].get<int64_t>());
                EXPECT_EQ(st.batch.decode_requests, want[i]["decode_requests"].get<int64_t>());
                EXPECT_EQ(st.batch.decode_kv_tokens, want[i]["decode_kv_tokens"].get<int64_t>());
            }
            // The same in the JSON, with the key names the schema gives them.
            const json pj = pipeline_to_json(r);   // held: a reference into a temporary dangles
            const json& js = pj["phases"]["steps"];
            ASSERT_EQ(js.size(), want.size());
            for (size_t i = 0; i < want.size(); ++i)
                for (const char* k : {"kind", "prefill_requests", "prefill_tokens", "prefill_kv_tokens",
                                      "decode_requests", "decode_kv_tokens"})
                    EXPECT_EQ(js[i][k], want[i][k]) << "phases.steps[" << i << "]." << k;
        }
        const Headline& hl = r.diagnosis.headline;
        // A queued-then-blocked stall: named as such — a dependency wait on the event, with the call the host sat in
        // — and never headlined as host wait.
        if (e.contains("stall")) {
            const json& st = e["stall"];
            ASSERT_TRUE(hl.stall.dominant) << hl.statement.en;
            EXPECT_EQ(hl.stall.cause, "dependency_wait");
            EXPECT_EQ(hl.stall.wait_call, st["wait"].get<std::string>());
            EXPECT_EQ(hl.stall.blocking_call, st["blocking_call"].get<std::string>());
            ASSERT_TRUE(hl.stall.launched_after_ns.has_value());
            EXPECT_NEAR(double(*hl.stall.launched_after_ns), st["launched_after_ns"].get<double>(), 10'000.0);
            ASSERT_TRUE(hl.stall.queued_ns.has_value());
            EXPECT_NEAR(double(*hl.stall.queued_ns), st["waited_ns"].get<double>(), 0.01 * st["waited_ns"].get<double>());
            EXPECT_EQ(hl.stall.position, "before_step");
            EXPECT_NE(hl.bound, "host");
            EXPECT_EQ(hl.statement.en.find("host-bound"), std::string::npos) << hl.statement.en;
            EXPECT_NE(hl.statement.en.find("stall before the step"), std::string::npos) << hl.statement.en;
        }
        // No high or medium finding recommends CUDA graphs for work that already runs in graph replay, nor for a
        // prefill that is compute-bound (the SGLang EXTEND step).
        const bool graphed = a.workload.execution == ExecutionMode::CudaGraphs;
        const bool prefill_only = e.contains("steps") && !e["steps"].empty() &&
                                  std::all_of(e["steps"].begin(), e["steps"].end(),
                                              [](const json& s) { return s["kind"] == "prefill-only"; });
        if (graphed || prefill_only)
            for (const auto& f : r.diagnosis.eval.findings) {
                if (f.severity != Severity::High && f.severity != Severity::Medium)
                    continue;
                for (const auto& sg : f.suggestions) {
                    // Recommending graphs: the shipped suggestions that do, or a text that says to capture one.
                    const std::string text = lower(sg.text.en);
                    const bool recommends = sg.id == "cuda-graphs" || sg.id == "graphs-and-async" ||
                                            (text.find("capture") != std::string::npos &&
                                             text.find("graph") != std::string::npos) ||
                                            text.find("cuda graphs for") != std::string::npos;
                    EXPECT_FALSE(recommends)
                        << f.rule << " [" << severity_name(f.severity) << "] suggests " << sg.id << ": " << sg.text.en;
                }
            }

        // Training: no decode, TPOT or prefill in any finding.
        if (a.workload.kind == WorkloadKind::Training) {
            EXPECT_TRUE(a.phases.steps.empty());
            EXPECT_EQ(a.phases.tpot_median_ns, 0);
            for (const auto& f : r.diagnosis.eval.findings) {
                const std::string text = lower(f.rule + " " + f.subject + " " + f.title.en + " " + f.explanation.en);
                EXPECT_EQ(text.find("decode"), std::string::npos) << f.rule << ": " << f.title.en;
                EXPECT_EQ(text.find("tpot"), std::string::npos) << f.rule << ": " << f.title.en;
                EXPECT_EQ(text.find("prefill"), std::string::npos) << f.rule << ": " << f.title.en;
            }
        }
    }
    EXPECT_EQ(checked, static_cast<int>(tab["traces"].size())) << "a listed trace is missing from shared data";
    std::printf("checked %d real traces against tests/data/real_traces.json\n", checked);
}

// The trace of a graph capture given beside its replay (two inputs, as a user would try) is joined to the replay, not
// merged as rank 1: the replay's kernels stay the only kernels, every replayed kernel gets its twin's CPU op.
TEST(RealTraces, CaptureTraceGivenAsInputIsJoinedNotARank)
{
    const auto dir = sl::test::shared_data_dir();
    if (!dir)
        GTEST_SKIP() << "SIGHTLINE_SHARED_DATA not set";
    int checked = 0;
    const json tab = table();
    for (const auto& e : tab["traces"]) {
        if (!e.contains("capture_of"))
            continue;
        const std::string capture = *dir + "/" + e["file"].get<std::string>();
        const std::string replay = *dir + "/" + e["capture_of"].get<std::string>();
        if (!std::filesystem::exists(capture) || !std::filesystem::exists(replay))
            continue;
        SCOPED_TRACE(e["file"].get<std::string>());
        LoadOptions lo;
        lo.find_captures = false;   // only what is given
        const Trace alone = load_workspace({replay}, lo);
        const Trace both = load_workspace({replay, capture}, lo);
        EXPECT_EQ(both.kernels.size(), alone.kernels.size());
        EXPECT_EQ(both.meta.devices.size(), alone.meta.devices.size());
        for (const auto& d : both.meta.devices)
            EXPECT_EQ(d.rank, 0);
        ASSERT_EQ(both.meta.captures.size(), 1u);
        EXPECT_EQ(both.meta.captures[0].source, "input");
        EXPECT_TRUE(both.meta.captures[0].used);
        EXPECT_EQ(both.meta.captures[0].kernels_matched, both.meta.captures[0].kernels_replayed);
        EXPECT_GT(both.graph_ops.size(), 0u);
        EXPECT_EQ(alone.graph_ops.size(), 0u);
        // The order of the inputs does not matter.
        const Trace swapped = load_workspace({capture, replay}, lo);
        EXPECT_EQ(swapped.kernels.size(), alone.kernels.size());
        EXPECT_EQ(swapped.graph_ops.size(), both.graph_ops.size());
        ++checked;
    }
    if (checked == 0)
        GTEST_SKIP() << "no capture trace with its replay in shared data";
}
