// The cost model's workload from what the trace ran (analysis/roofline/trace_shapes.h, issue 34 §3): each phase's
// batch, query and KV lengths read off the recorded attention (else GEMM) shapes; flags still win, and a flag the
// trace contradicts is a warning naming both values; a phase with nothing to go on says so, and no finding above low
// severity rests on its defaults. And what a step ran (issue 34 §4): mixed (chunked-prefill) steps as a phase of their
// own, a training iteration as forward + backward + optimizer, the eager expert GEMMs of a MoE by their shapes.
#include "analysis/io/kineto_reader.h"
#include "analysis/io/model_config.h"
#include "analysis/io/synthetic.h"
#include "analysis/pipeline.h"
#include "analysis/roofline/config_check.h"
#include "analysis/roofline/cost_model.h"
#include "analysis/roofline/kv_expand.h"
#include "analysis/roofline/trace_shapes.h"
#include "analysis/timeline/phases.h"
#include "tests/support/test_env.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

using namespace sl;

namespace {

std::string write_file(const std::string& name, const std::string& text)
{
    const std::string path = test::scratch_dir("trace_shapes_" + name) + "/" + name;
    std::ofstream(path) << text;
    return path;
}

// One CPU op with shapes, its launch and its kernel (ts in µs; the kernel runs at ts + 10 for 2 µs).
std::string op_events(const std::string& name, const std::string& dims, int ext, double ts)
{
    std::ostringstream o;
    o << R"({"ph":"X","cat":"cpu_op","name":")" << name << R"(","pid":1,"tid":1,"ts":)" << ts
      << R"(,"dur":5,"args":{"External id":)" << ext << R"(,"Input Dims":)" << dims << "}},\n";
    o << R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":)" << ts + 1
      << R"(,"dur":2,"args":{"External id":)" << ext << R"(,"correlation":)" << ext << "}},\n";
    o << R"({"ph":"X","cat":"kernel","name":"k)" << ext << R"(","pid":0,"tid":7,"ts":)" << ts + 10
      << R"(,"dur":2,"args":{"device":0,"stream":7,"correlation":)" << ext << "}}";
    return o.str();
}

std::string trace_json(const std::vector<std::string>& events)
{
    std::string s = R"({"deviceProperties":[{"id":0,"name":"NVIDIA H100 80GB HBM3"}],"traceEvents":[)";
    for (size_t i = 0; i < events.size(); ++i)
        s += (i ? ",\n" : "") + events[i];
    return s + "]}";
}

// Steps by hand: [start, end) in µs of the events' "ts" (the first op of each planted trace is at ts 100, its
// kernel at ts 110), prefill or decode.
PhaseResult steps(std::initializer_list<std::tuple<double, double, bool>> windows, const Trace& t)
{
    const int64_t first = *std::min_element(t.kernels.start.begin(), t.kernels.start.end());
    const int64_t base = first - 110'000;
    PhaseResult p;
    for (const auto& [a, b, prefill] : windows) {
        StepInfo s;
        s.start = base + static_cast<int64_t>(a * 1000);
        s.end = base + static_cast<int64_t>(b * 1000);
        s.prefill = prefill;
        p.steps.push_back(s);
    }
    return p;
}

std::string sample(const std::string& name) { return test::source_dir() + "/tests/data/device/" + name; }

PipelineResult analyse(const std::string& trace, const CostOptions& cost = {})
{
    PipelineOptions po;
    po.roofline.model = sample("config.json");
    po.roofline.cost = cost;
    po.rule_dirs = {test::source_dir() + "/resources/rules"};
    return run_pipeline({sample(trace)}, po);
}

bool any_warning(const RooflineReport& r, const std::string& a, const std::string& b = {})
{
    return std::any_of(r.warnings.begin(), r.warnings.end(), [&](const std::string& w) {
        return w.find(a) != std::string::npos && (b.empty() || w.find(b) != std::string::npos);
    });
}

} // namespace

// Hand oracle, attention: a prefill step with one SDPA call ([B, H, S, D]: B 2, Sq = Sk = 64) and a decode step with
// two flash-attention forward calls ([B, S, H, D]: B 4, Sq 1, Sk 100 and 120).
TEST(TraceShapes, AttentionCallsGiveEachPhaseItsBatchQueryAndKv)
{
    const std::string json = trace_json({
        op_events("aten::scaled_dot_product_attention", "[[2,16,64,128],[2,4,64,128],[2,4,64,128],[],[]]", 1, 100),
        op_events("aten::_flash_attention_forward", "[[4,1,16,128],[4,100,4,128],[4,100,4,128],[],[]]", 2, 1000),
        op_events("aten::_flash_attention_forward", "[[4,1,16,128],[4,120,4,128],[4,120,4,128],[],[]]", 3, 1100),
    });
    const Trace t = read_kineto_json(write_file("attn.json", json));
    const PhaseResult p = steps({{0, 500, true}, {900, 1500, false}}, t);
    const TraceShapes s = shapes_from_trace(t, p);
    ASSERT_TRUE(s.prefill);
    ASSERT_TRUE(s.decode);
    EXPECT_EQ(s.prefill->from, "attention");
    EXPECT_EQ(s.prefill->calls, 1);
    EXPECT_DOUBLE_EQ(s.prefill->batch, 2);
    EXPECT_DOUBLE_EQ(s.prefill->query, 64);
    EXPECT_DOUBLE_EQ(s.prefill->kv, 64);
    // Per pass: requests B, Σq = B·Sq, Σk = B·Sk, Σq² = B·Sq², Σq·k = B·Sq·Sk.
    EXPECT_DOUBLE_EQ(s.prefill->shape.requests, 2);
    EXPECT_DOUBLE_EQ(s.prefill->shape.sq, 128);
    EXPECT_DOUBLE_EQ(s.prefill->shape.sk, 128);
    EXPECT_DOUBLE_EQ(s.prefill->shape.sqsq, 2.0 * 64 * 64);
    EXPECT_DOUBLE_EQ(s.prefill->shape.sqsk, 2.0 * 64 * 64);
    EXPECT_EQ(s.prefill->shape.source, "trace");

    EXPECT_EQ(s.decode->op, "aten::_flash_attention_forward");
    EXPECT_EQ(s.decode->calls, 2);
    EXPECT_EQ(s.decode->steps, 1);
    EXPECT_DOUBLE_EQ(s.decode->batch, 4);
    EXPECT_DOUBLE_EQ(s.decode->query, 1);
    EXPECT_DOUBLE_EQ(s.decode->kv, 110);
    EXPECT_EQ(s.decode->kv_min, 100);
    EXPECT_EQ(s.decode->kv_max, 120);
    EXPECT_DOUBLE_EQ(s.decode->shape.sk, 440);       // (4·100 + 4·120) / 2
    EXPECT_DOUBLE_EQ(s.decode->shape.sqsk, 440);
    EXPECT_DOUBLE_EQ(s.decode->shape.sqsq, 4);
    EXPECT_NE(s.decode->evidence.find("batch 4, query 1, KV 100–120 (mean 110) from 2 aten::_flash_attention_forward"),
              std::string::npos)
        << s.decode->evidence;

    // Without steps the calls are placed by their query length: the same answer here.
    const TraceShapes u = shapes_from_trace(t, PhaseResult{});
    ASSERT_TRUE(u.prefill && u.decode);
    EXPECT_DOUBLE_EQ(u.decode->kv, 110);
    EXPECT_DOUBLE_EQ(u.prefill->query, 64);
    EXPECT_EQ(u.decode->steps, 0);
}

// Hand oracle, GEMMs only: decode M = 16 in 3 of 4 calls (the lm_head's M differs) is batch 16 × 1 token, its KV not
// read; a prefill aten::linear on a [2, 32, 256] input splits M = 64 into batch 2 × 32 tokens.
TEST(TraceShapes, WithoutAttentionTheGemmRowsGiveBatchTimesQuery)
{
    const std::string json = trace_json({
        op_events("aten::linear", "[[2,32,256],[512,256],[]]", 1, 100),
        op_events("aten::linear", "[[2,32,256],[512,256],[]]", 2, 200),
        op_events("aten::mm", "[[16,256],[256,512]]", 3, 1000),
        op_events("aten::mm", "[[16,256],[256,512]]", 4, 1100),
        op_events("aten::mm", "[[16,512],[512,256]]", 5, 1200),
        op_events("aten::mm", "[[1,256],[256,1000]]", 6, 1300),
    });
    const Trace t = read_kineto_json(write_file("gemm.json", json));
    const TraceShapes s = shapes_from_trace(t, steps({{0, 500, true}, {900, 1500, false}}, t));
    ASSERT_TRUE(s.prefill && s.decode);
    EXPECT_EQ(s.prefill->from, "gemm");
    EXPECT_DOUBLE_EQ(s.prefill->batch, 2);
    EXPECT_DOUBLE_EQ(s.prefill->query, 32);
    EXPECT_DOUBLE_EQ(s.prefill->kv, 32);
    EXPECT_DOUBLE_EQ(s.prefill->shape.sqsq, 2.0 * 32 * 32);
    EXPECT_EQ(s.decode->from, "gemm");
    EXPECT_EQ(s.decode->calls, 3);
    EXPECT_DOUBLE_EQ(s.decode->batch, 16);
    EXPECT_DOUBLE_EQ(s.decode->query, 1);
    EXPECT_DOUBLE_EQ(s.decode->kv, 0) << "a GEMM says nothing of the KV length";
    EXPECT_EQ(s.decode->shape.kv_from, "");
    // No shapes at all: nothing read.
    const Trace bare = read_kineto_json(write_file("bare.json", trace_json({R"({"ph":"X","cat":"kernel","name":"k",)"
                                                                             R"("pid":0,"tid":7,"ts":10,"dur":2,)"
                                                                             R"("args":{"device":0,"stream":7}})"})));
    const TraceShapes none = shapes_from_trace(bare, PhaseResult{});
    EXPECT_FALSE(none.prefill);
    EXPECT_FALSE(none.decode);
}

// The real eager decode (tests/data/device/README.md: batch 8, a static KV cache of 539 slots read under a mask):
// with only --model, the Roofline takes batch 8 and KV 539 from the 128 attention calls of its 16 decode steps, not
// batch 1 / context 2048, and the cost model's decode attention is the hand-computed one at that shape.
TEST(TraceShapes, RealEagerDecodeTakesItsBatchAndKvFromTheRecordedShapes)
{
    const PipelineResult r = analyse("decode-eager.pt.trace.json.gz");
    ASSERT_TRUE(r.roofline.report);
    const RooflineReport& rr = *r.roofline.report;
    EXPECT_EQ(rr.cost.options.shape_source, "trace");
    const PhaseCost* d = rr.cost.phase(Phase::Decode);
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->shape_source, "trace");
    EXPECT_EQ(d->batch, 8);
    EXPECT_EQ(d->query_len, 1);
    EXPECT_EQ(d->kv_len, 539);
    EXPECT_EQ(d->batch_from, "trace");
    EXPECT_EQ(d->kv_from, "trace");
    EXPECT_NE(d->shape_evidence.find("from 128 "), std::string::npos) << d->shape_evidence;
    EXPECT_NE(d->shape_evidence.find("in 16 decode steps"), std::string::npos) << d->shape_evidence;
    EXPECT_TRUE(any_warning(rr, "decode shape from the trace's recorded shapes: batch 8, query 1, KV 539"));
    // Decode attention per layer (config: 16 heads of 128, 4 KV heads, bf16): pairs = Hq·Σq·k = 16·8·539,
    // bytes = 2·b·H·d·2 (Q, O) + 2·b·L·Hkv·d·2 (K, V), over 8 layers.
    const auto att = std::find_if(d->ops.begin(), d->ops.end(), [](const OpCost& o) { return o.name == "attention"; });
    ASSERT_NE(att, d->ops.end());
    const double pairs = 16.0 * 8 * 539;
    EXPECT_NEAR(att->flops, 8 * (4 * 128 * pairs + 5 * pairs), 1e-3);
    EXPECT_NEAR(att->bytes, 8 * (2.0 * 8 * 16 * 128 * 2 + 2.0 * 8 * 539 * 4 * 128 * 2), 1e-3);
    // Nothing rests on a default here, and no E_roof comes out below 0.01.
    for (const auto& c : rr.classes) {
        if (c.e_roof) {
            EXPECT_GE(*c.e_roof, 0.01) << c.op_class << " " << c.phase;
        }
    }
    for (const auto& f : r.diagnosis.eval.findings)
        for (const auto& e : f.evidence)
            EXPECT_NE(e.metric, "shape_default") << f.rule;
}

// The real prefill capture: batch 1 × a 2048-token prompt, from its SDPA calls (the default prompt is 1024).
TEST(TraceShapes, RealPrefillTakesItsPromptFromTheRecordedShapes)
{
    const PipelineResult r = analyse("prefill.pt.trace.json.gz");
    ASSERT_TRUE(r.roofline.report);
    const PhaseCost* p = r.roofline.report->cost.phase(Phase::Prefill);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(p->shape_source, "trace");
    EXPECT_EQ(p->batch, 1);
    EXPECT_EQ(p->query_len, 2048);
    EXPECT_EQ(p->tokens, 2048);
}

// Flags win, field by field, and a flag the trace contradicts is a warning that names both values.
TEST(TraceShapes, AFlagTheTraceContradictsIsWarnedAndStillWins)
{
    CostOptions o;
    o.batch = 1;
    o.batch_set = true;
    o.shape_source = "option";
    const PipelineResult r = analyse("decode-eager.pt.trace.json.gz", o);
    ASSERT_TRUE(r.roofline.report);
    const RooflineReport& rr = *r.roofline.report;
    EXPECT_TRUE(any_warning(rr, "--batch 1 contradicts the trace", "say batch 8 in decode")) << [&] {
        std::string s;
        for (const auto& w : rr.warnings)
            s += w + "\n";
        return s;
    }();
    const PhaseCost* d = rr.cost.phase(Phase::Decode);
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->batch, 1) << "the flag wins";
    EXPECT_EQ(d->batch_from, "option");
    EXPECT_EQ(d->kv_len, 539) << "the field no flag set still comes from the trace";
    EXPECT_EQ(d->kv_from, "trace");
    EXPECT_EQ(d->shape_source, "option");
    // A flag the trace agrees with (within 10 % of KV 539) is no warning.
    CostOptions agree;
    agree.context = 521;
    agree.context_set = true;
    agree.shape_source = "option";
    const PipelineResult a = analyse("decode-eager.pt.trace.json.gz", agree);
    ASSERT_TRUE(a.roofline.report);
    EXPECT_FALSE(any_warning(*a.roofline.report, "contradicts the trace"));
    EXPECT_EQ(a.roofline.report->cost.phase(Phase::Decode)->kv_len, 521);
    EXPECT_EQ(a.roofline.report->cost.phase(Phase::Decode)->batch, 8);
}

// With nothing to go on (the CUDA-graph decode without its capture records no shapes), the defaults are stated as
// such and every finding that reads an E_roof is at most low, its evidence saying why.
TEST(TraceShapes, DefaultsAreSaidAndNoFindingAboveLowRestsOnThem)
{
    const PipelineResult r = analyse("decode-graph.pt.trace.json.gz");
    ASSERT_TRUE(r.roofline.report);
    const RooflineReport& rr = *r.roofline.report;
    EXPECT_EQ(rr.cost.options.shape_source, "default");
    const PhaseCost* d = rr.cost.phase(Phase::Decode);
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->shape_source, "default");
    EXPECT_TRUE(any_warning(rr, "decode shape: batch 1 and KV length 2048 are the default"));
    int capped = 0;
    for (const auto& f : r.diagnosis.eval.findings) {
        const bool on_default = std::any_of(f.evidence.begin(), f.evidence.end(),
                                            [](const Evidence& e) { return e.metric == "shape_default"; });
        const bool reads_eroof = std::any_of(f.evidence.begin(), f.evidence.end(), [](const Evidence& e) {
            return e.metric == "e_roof" || e.metric == "distance_to_roof";
        });
        if (reads_eroof) {
            EXPECT_TRUE(on_default) << f.rule << " " << f.subject;
            EXPECT_LE(f.severity, Severity::Low) << f.rule << " " << f.subject;
        }
        capped += on_default;
    }
    EXPECT_GT(capped, 0) << "the graph decode's classes do read E_roof findings";
}

// A planted vLLM run with chunked prefill (sightline-cli generate --layers 4 --steps 16 --prefill 1 --mixed-every 4
// --batch 8 --step-annotation vllm --record-shapes): every 4th step runs a 512-token prefill chunk and the 8 decode
// requests in one pass. A human reading it sees one prefill pass, 12 decode steps and 4 mixed steps, each mixed step
// judged as what it ran (520 tokens for 9 requests), not as a decode step or a prefill pass.
TEST(TraceShapes, MixedStepsAreAPhaseOfTheirOwn)
{
    SynthOptions so;
    so.layers = 4;
    so.decode_steps = 16;
    so.prefill_steps = 1;
    so.mixed_every = 4;
    so.batch = 8;
    so.step_annotation = "vllm";
    so.record_shapes = true;
    PipelineOptions po;
    po.roofline.model = write_file("mixed_config.json", synth_model_config_json(so));
    po.roofline.gpu = "H100 SXM";
    po.run_rules = false;
    const PipelineResult r = run_pipeline_on(std::make_shared<const Trace>(make_synthetic_trace(so)), po);
    ASSERT_TRUE(r.roofline.report);
    const RooflineReport& roof = *r.roofline.report;
    const PhaseResult& P = r.analysis.phases;
    ASSERT_EQ(P.mixed_steps, 4);
    ASSERT_EQ(P.prefill_steps, 1);
    // The config describes the run: one pass per step, 4 layers each (a mixed step's GEMMs run once, on all tokens).
    EXPECT_EQ(roof.config_shapes.verdict, "confirmed") << roof.config_shapes.reason;

    // The mixed phase's theory: one pass of 512 + 8 = 520 tokens for 9 requests. Hand oracle for its GEMMs
    // (h 4096, fused QKV 3·4096, I 11008, V 32000): per layer 2·T·(4096·4096·3 + 4096·4096 + 4096·2·11008 +
    // 11008·4096), 4 layers, plus the lm_head over one row per request, 2·9·4096·32000.
    const PhaseCost* mixed = roof.cost.phase(Phase::Mixed);
    ASSERT_NE(mixed, nullptr);
    EXPECT_EQ(mixed->tokens, 520);
    EXPECT_EQ(mixed->batch, 9);
    EXPECT_EQ(mixed->shape_source, "annotation");
    const double T = 520, h = 4096, I = 11008;
    const double gemm_oracle = 4 * 2 * T * (h * h * 3 + h * h + h * 2 * I + I * h) + 2 * 9 * h * 32000;
    double gemm_flops = 0;
    for (const OpCost& o : mixed->ops)
        if (o.op_class == "gemm")
            gemm_flops += o.flops;
    EXPECT_NEAR(gemm_flops / gemm_oracle, 1.0, 0.10);

    // Measured: the mixed steps' kernels are their own phase, passes = mixed steps; the decode phase holds the pure
    // decode steps only, so its GEMM time per step is a decode step's (not inflated by the prefill chunks).
    const ClassEfficiency *dec_gemm = nullptr, *mix_gemm = nullptr;
    for (const ClassEfficiency& c : roof.classes) {
        if (c.op_class == "gemm" && c.phase == "decode")
            dec_gemm = &c;
        if (c.op_class == "gemm" && c.phase == "mixed")
            mix_gemm = &c;
    }
    ASSERT_TRUE(dec_gemm && mix_gemm && dec_gemm->t_actual_ns && mix_gemm->t_actual_ns);
    EXPECT_NEAR(double(mix_gemm->measured_total_ns) / *mix_gemm->t_actual_ns, 4.0, 1e-9);
    EXPECT_NEAR(double(dec_gemm->measured_total_ns) / *dec_gemm->t_actual_ns, double(P.decode_steps), 1e-9);
    EXPECT_GT(*mix_gemm->t_actual_ns, 5 * *dec_gemm->t_actual_ns);   // 520 tokens' GEMMs against 8 tokens'
    ASSERT_TRUE(mix_gemm->e_roof);
    EXPECT_GT(*mix_gemm->e_roof, 0.05);
    EXPECT_LE(*mix_gemm->e_roof, kMaxPlausibleERoof);

    // JSON and text say so.
    bool json_mixed = false;
    for (const auto& ph : r.roofline.json.at("roofline").at("phases"))
        json_mixed = json_mixed || ph.at("phase") == "mixed";
    EXPECT_TRUE(json_mixed);
    EXPECT_NE(r.roofline.text.find("mixed: 9 requests, 520 tokens in one pass"), std::string::npos) << r.roofline.text;
}

// The project's real training sample (tests/data/device/README.md: 4 profiled training steps of the dense model,
// forward over 4 × 512 tokens with every logit, cross-entropy, backward, AdamW). A human reading it sees a training
// run whose GEMMs run forward and backward: its aten::mm shapes hold 5.24 TFLOP per iteration, exactly 3× the
// forward pass the config gives (8 layers of 2·T·(2048·2048 + 2·2048·512 + 2048·2048 + 3·2048·5632) plus the lm_head
// 2·T·2048·32000, T = 2048: 1.746 TFLOP). It is costed per iteration, not as a prefill and a default decode step.
TEST(TraceShapes, TrainingIsForwardBackwardAndOptimizerPerIteration)
{
    const PipelineResult r = analyse("train.pt.trace.json.gz");
    ASSERT_TRUE(r.roofline.report);
    const RooflineReport& roof = *r.roofline.report;
    ASSERT_EQ(roof.cost.phases.size(), 1u);
    const PhaseCost& tr = roof.cost.phases.front();
    EXPECT_EQ(tr.phase, Phase::Training);
    EXPECT_EQ(tr.batch, 4);
    EXPECT_EQ(tr.query_len, 512);
    EXPECT_EQ(tr.shape_source, "trace");
    EXPECT_NE(roof.config_shapes.verdict, "contradicted") << roof.config_shapes.reason;
    double gemm = 0, optimizer_bytes = 0;
    for (const OpCost& o : tr.ops) {
        if (o.op_class == "gemm")
            gemm += o.flops;
        if (o.name == "optimizer")
            optimizer_bytes = o.bytes;
    }
    // The trace's own GEMM FLOPs per iteration (its 684 aten::mm shapes / 4 iterations, by the Python reading above).
    EXPECT_NEAR(gemm / 5.237712617472e12, 1.0, 0.10);
    // AdamW: 7 reads and writes of every parameter in bf16.
    EXPECT_DOUBLE_EQ(optimizer_bytes, 7.0 * 2 * double(load_model_config(sample("config.json")).parameter_count()));
    // Measured per iteration: 4 passes of the training phase, and the GEMMs (≈ 70–86 % of the bf16 roof per shape in
    // the trace's own throughput table) at an E_roof that says so.
    ASSERT_EQ(r.analysis.phases.training_iterations, 4);
    const ClassEfficiency* g = nullptr;
    for (const ClassEfficiency& c : roof.classes)
        if (c.op_class == "gemm" && c.phase == "training")
            g = &c;
    ASSERT_TRUE(g && g->t_actual_ns && g->e_roof);
    EXPECT_NEAR(double(g->measured_total_ns) / *g->t_actual_ns, 4.0, 1e-9);
    EXPECT_GT(*g->e_roof, 0.5);
    EXPECT_LE(*g->e_roof, kMaxPlausibleERoof);
    EXPECT_NE(r.roofline.text.find("training: batch 4, 512 tokens/seq"), std::string::npos);
    EXPECT_EQ(r.roofline.text.find("\ndecode: "), std::string::npos);   // no default decode step for a training run
}

namespace {
// The real MoE decode (tests/data/device/README.md) with its Mixtral-shaped config, rules left out.
PipelineResult moe_decode_with_its_config()
{
    PipelineOptions po;
    po.roofline.model = sample("config-moe.json");
    po.run_rules = false;
    return run_pipeline({sample("moe-decode.pt.trace.json.gz")}, po);
}
} // namespace

// The project's real MoE sample (tests/data/device/README.md: a Mixtral-shaped decode through Hugging Face's eager
// sparse block, 8 experts of width 1408, top-2, batch 8). Its expert GEMMs are plain aten::mm calls, by name cuBLAS
// GEMMs like the attention projections; their recorded shapes (2048×1408 and 1408×2048: 940 and 470 calls over 16
// steps × 4 layers, so 7.3 experts touched per layer and step, against the 7.2 the uniform-routing model expects for
// 8 tokens × top-2) say they are the experts'. A human reading it counts them as MoE time, not dense GEMM time.
TEST(TraceShapes, EagerExpertGemmsAreMoeByTheirShapes)
{
    const PipelineResult r = moe_decode_with_its_config();
    ASSERT_TRUE(r.roofline.report);
    const ModelConfig m = load_model_config(sample("config-moe.json"));
    const std::vector<bool> experts = expert_gemm_kernels(*r.trace, m);
    ASSERT_EQ(experts.size(), r.trace->kernels.size());
    // Every expert mm launched its kernel(s): at least the 1,410 calls' worth.
    EXPECT_GE(std::count(experts.begin(), experts.end(), true), 1410);
    const ClassEfficiency *moe = nullptr, *gemm = nullptr;
    for (const ClassEfficiency& c : r.roofline.report->classes) {
        if (c.phase != "decode")
            continue;
        if (c.op_class == "moe_gemm")
            moe = &c;
        if (c.op_class == "gemm")
            gemm = &c;
    }
    ASSERT_TRUE(moe && gemm);
    EXPECT_GT(moe->measured_total_ns, 0);
    ASSERT_TRUE(moe->e_roof) << "moe_gemm theory " << moe->t_theory_ns.value_or(-1);
    EXPECT_LE(*moe->e_roof, kMaxPlausibleERoof);
    // The dense GEMMs (attention projections, router, lm_head) alone against their own theory.
    ASSERT_TRUE(gemm->e_roof);
    EXPECT_LE(*gemm->e_roof, kMaxPlausibleERoof);
    // The workload's MoE share counts them too (it was the routing alone: 1.1 % of kernel time).
    const MoeWorkload& mw = r.analysis.workload.moe;
    EXPECT_GE(mw.expert_gemm_kernels, 1410);
    EXPECT_GT(mw.gpu_share, 0.05);
    // Without a MoE config nothing is moved.
    EXPECT_TRUE(expert_gemm_kernels(*r.trace, load_model_config(sample("config.json"))).empty());
}

// Experts touched per step, from what the trace ran (issue 34 §4). On the eager path each expert a token was routed
// to runs its own down projection ([rows, 1408] x [1408, 2048]) once per layer: an independent Python pass over the
// raw JSON counts 470 such aten::mm calls in the 16 ProfilerStep windows, 27–32 a step over 4 layers, i.e. 7.34
// experts a layer and step (64 routed rows a step: batch 8, top-2; uniform routing would expect 8·(1 − 0.75^8) =
// 7.20). The decode theory reads those experts' weights, and says where the number came from.
TEST(TraceShapes, ExpertsTouchedPerStepComeFromTheTrace)
{
    const PipelineResult r = moe_decode_with_its_config();
    ASSERT_TRUE(r.roofline.report);
    const ModelConfig m = load_model_config(sample("config-moe.json"));
    std::vector<bool> down;
    const std::vector<bool> experts = expert_gemm_kernels(*r.trace, m, 1, &down);
    ASSERT_EQ(down.size(), experts.size());
    EXPECT_EQ(std::count(down.begin(), down.end(), true), 470);   // the oracle's count: one per call, not per kernel
    for (size_t k = 0; k < down.size(); ++k) {
        if (down[k]) {
            ASSERT_TRUE(experts[k]) << k;   // a down projection is an expert GEMM
        }
    }
    const PhaseCost* dec = r.roofline.report->cost.phase(Phase::Decode);
    ASSERT_TRUE(dec);
    EXPECT_EQ(dec->experts_from, "trace");
    EXPECT_NEAR(dec->experts_touched, 470.0 / (16 * 4), 1e-9);
    // Each touched expert's weights are read once per layer: the down projection's weight bytes (bf16) are exactly
    // touched × layers × I_e × h × 2.
    const auto down_op = std::find_if(dec->ops.begin(), dec->ops.end(),
                                      [](const OpCost& o) { return o.name == "experts_down_proj"; });
    ASSERT_NE(down_op, dec->ops.end());
    EXPECT_NEAR(down_op->weight_bytes, dec->experts_touched * 4 * 1408.0 * 2048 * 2, 1.0);
    // The prefill phase ran no step here: its theory keeps the uniform expectation, and says so.
    const PhaseCost* pre = r.roofline.report->cost.phase(Phase::Prefill);
    ASSERT_TRUE(pre);
    EXPECT_EQ(pre->experts_from, "uniform routing");
    // Half the down calls gone (every other one), half the experts per step: the count is the calls', not a constant.
    std::vector<bool> half = down;
    bool keep = false;
    for (size_t k = 0; k < half.size(); ++k)
        if (half[k]) {
            half[k] = keep;
            keep = !keep;
        }
    const auto t = experts_touched_per_step(*r.trace, r.analysis.phases, m, half);
    EXPECT_NEAR(t[static_cast<size_t>(Phase::Decode)], 235.0 / 64, 1e-9);
    EXPECT_EQ(t[static_cast<size_t>(Phase::Prefill)], 0.0);
    // A dense config has no experts to count.
    EXPECT_EQ(experts_touched_per_step(*r.trace, r.analysis.phases, load_model_config(sample("config.json")), down),
              (std::array<double, 4>{}));
}

// The project's real eager decode (tests/data/device/README.md: "the largest single elementwise cost is the GQA
// repeat_kv copy of the KV cache, aten::copy_ of 8.8 M elements per layer"): Hugging Face's repeat_kv expands K and V
// from 4 KV heads to 16 query heads, [8, 4, 4, 539, 128], every layer (8) of every step (16), K and V: 256 copies.
// A human reading it names the copy and its fix (a GQA-aware attention), not a faster elementwise kernel.
TEST(TraceShapes, KvCacheExpandedEveryStepIsNamed)
{
    const PipelineResult r = analyse("decode-eager.pt.trace.json.gz");
    const KvExpansion kv = find_kv_expansion(*r.trace);
    EXPECT_EQ(kv.calls, 256);
    EXPECT_EQ(kv.kernels.size(), 256u);
    EXPECT_EQ(kv.kv_heads, 4);
    EXPECT_EQ(kv.repeats, 4);
    EXPECT_EQ(kv.positions, 539);
    EXPECT_EQ(kv.head_dim, 128);
    EXPECT_EQ(kv.batch, 8);
    EXPECT_DOUBLE_EQ(kv.bytes, 256 * 2.0 * 8 * 4 * 4 * 539 * 128 * 2);   // read and write, bf16
    EXPECT_GT(kv.kernel_ns, 1'000'000);
    const auto& fs = r.diagnosis.eval.findings;
    const auto f = std::find_if(fs.begin(), fs.end(),
                                [](const Finding& x) { return x.rule == "kv-cache-expanded-every-step"; });
    ASSERT_NE(f, fs.end());
    EXPECT_EQ(f->verdict, "buffer-rewrite");
    // A trace without the expanded copies (the graph replay records no shapes) has none.
    EXPECT_EQ(find_kv_expansion(*analyse("decode-graph.pt.trace.json.gz").trace).calls, 0);
}

// Operator-class findings lead to their kernels (issue 37 §3: the Roofline's E_roof findings had no links while every
// other finding had them): the longest kernels of the class, in the finding's phase.
TEST(TraceShapes, OperatorClassFindingsLinkTheirKernels)
{
    const PipelineResult r = analyse("decode-eager.pt.trace.json.gz");
    const OpClassResult& c = r.analysis.classes;
    int checked = 0;
    for (const Finding& f : r.diagnosis.eval.findings) {
        if (f.scope != ScopeKind::OpClass)
            continue;
        SCOPED_TRACE(f.rule + " @ " + f.subject);
        ASSERT_FALSE(f.links.kernel_ids.empty());
        const std::string id = f.subject.substr(0, f.subject.find(" ("));
        const bool decode = f.subject.find("(decode)") != std::string::npos;
        for (const int64_t k : f.links.kernel_ids) {
            EXPECT_EQ(c.classes[size_t(c.kernel_class[size_t(k)])].id, id);
            if (decode) {   // inside a decode step
                const int64_t t = r.trace->kernels.start[size_t(k)];
                EXPECT_TRUE(std::any_of(r.analysis.phases.steps.begin(), r.analysis.phases.steps.end(),
                                        [&](const StepInfo& s) { return !s.prefill && t >= s.start && t < s.end; }));
            }
        }
        ++checked;
    }
    EXPECT_GE(checked, 2);   // the elementwise chain and the decode GEMMs
}
