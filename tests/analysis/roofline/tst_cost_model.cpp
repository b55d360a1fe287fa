// The LLM operator cost model against hand-computed FLOPs and bytes (arithmetic in the comments), for a small
// Llama-style (MHA) and a GQA Qwen3-style config, prefill and decode, fused and unfused attention; the decode GEMM
// rule of thumb (intensity ~ 2*b/w); Roofline times on a real GPU row; MoE expert traffic.
#include <gtest/gtest.h>

#include <algorithm>

#include "analysis/roofline/cost_model.h"
#include "analysis/trace/errors.h"
#include "tests/support/test_env.h"

#include <cmath>

using namespace sl;

namespace {
std::string fixture(const std::string& f) { return test::source_dir() + "/tests/data/models/" + f; }

const OpCost& op(const std::vector<OpCost>& ops, const std::string& name)
{
    for (const auto& o : ops)
        if (o.name == name)
            return o;
    static OpCost none;
    ADD_FAILURE() << "no operator " << name;
    return none;
}

StepShape step_shape(double requests, double sq, double sk, double sqsq, double sqsk)
{
    StepShape s;
    s.requests = requests;
    s.sq = sq;
    s.sk = sk;
    s.sqsq = sqsq;
    s.sqsk = sqsk;
    return s;
}

GpuSpec h100()
{
    return *GpuDatabase::load(test::source_dir() + "/resources/gpus.json").find("H100 SXM");
}
} // namespace

// Llama tiny: h=64, H=Hkv=4, d=16, I=128, N=2, V=256, bf16 (w=a=kv=2).
TEST(CostModel, LlamaPrefillFusedAndUnfused)
{
    const ModelConfig m = load_model_config(fixture("llama_tiny_config.json"));
    CostOptions o;
    o.batch = 2;
    o.prompt = 8;   // T = 16 tokens
    const auto ops = layer_costs(m, Phase::Prefill, o);
    // q_proj: 2*16*64*64 = 131072 FLOPs; bytes 64*64*2 + 16*64*2 + 16*64*2 = 8192 + 2048 + 2048 = 12288
    EXPECT_DOUBLE_EQ(op(ops, "q_proj").flops, 131072);
    EXPECT_DOUBLE_EQ(op(ops, "q_proj").bytes, 12288);
    EXPECT_DOUBLE_EQ(op(ops, "k_proj").bytes, 12288);   // MHA: k as wide as q
    // fused causal attention: pairs = b*H*s*(s+1)/2 = 2*4*8*9/2 = 288
    //   FLOPs 4*d*288 + 5*288 = 18432 + 1440 = 19872
    //   bytes Q+O 2*(2*8*4*16*2) = 2*2048 = 4096, K+V 2*(2*8*4*16*2) = 4096 -> 8192
    EXPECT_DOUBLE_EQ(op(ops, "attention").flops, 19872);
    EXPECT_DOUBLE_EQ(op(ops, "attention").tensor_flops, 18432);
    EXPECT_DOUBLE_EQ(op(ops, "attention").bytes, 8192);
    // rotary: e = 16*(4+4)*16 = 2048 -> 6144 FLOPs, 2*2048*2 = 8192 bytes
    EXPECT_DOUBLE_EQ(op(ops, "rotary").flops, 6144);
    EXPECT_DOUBLE_EQ(op(ops, "rotary").bytes, 8192);
    // kv_cache_write: e = 16*4*16 = 1024 -> 2*1024*2 + 2*1024*2 = 8192 bytes, no FLOPs
    EXPECT_DOUBLE_EQ(op(ops, "kv_cache_write").bytes, 8192);
    EXPECT_DOUBLE_EQ(op(ops, "kv_cache_write").flops, 0);
    // norm: 4*16*64 = 4096 FLOPs, 2*16*64*2 + 64*2 = 4096 + 128 = 4224 bytes
    EXPECT_DOUBLE_EQ(op(ops, "attn_norm").flops, 4096);
    EXPECT_DOUBLE_EQ(op(ops, "attn_norm").bytes, 4224);
    // act_mul: 5*16*128 = 10240 FLOPs, 3*16*128*2 = 12288 bytes; residual add: 16*64 = 1024, 3*16*64*2 = 6144
    EXPECT_DOUBLE_EQ(op(ops, "act_mul").flops, 10240);
    EXPECT_DOUBLE_EQ(op(ops, "act_mul").bytes, 12288);
    EXPECT_DOUBLE_EQ(op(ops, "mlp_add").flops, 1024);
    EXPECT_DOUBLE_EQ(op(ops, "mlp_add").bytes, 6144);

    // No masked-tile skipping: pairs = 2*4*8*8 = 512 -> 4*16*512 + 5*512 = 32768 + 2560 = 35328
    o.causal_skip = false;
    EXPECT_DOUBLE_EQ(op(layer_costs(m, Phase::Prefill, o), "attention").flops, 35328);

    // Unfused: scores P' = 2*4*8*8 = 512
    //   qk: 2*16*512 = 16384 FLOPs; bytes Q 2048 + K 2048 + scores 512*2 = 1024 -> 5120
    //   softmax: 5*512 = 2560 FLOPs; 2*512*2 = 2048 bytes
    //   sv: 16384 FLOPs; probs 1024 + V 2048 + O 2048 = 5120 bytes
    o.fused_attention = false;
    const auto un = layer_costs(m, Phase::Prefill, o);
    EXPECT_DOUBLE_EQ(op(un, "qk_matmul").flops, 16384);
    EXPECT_DOUBLE_EQ(op(un, "qk_matmul").bytes, 5120);
    EXPECT_DOUBLE_EQ(op(un, "softmax").flops, 2560);
    EXPECT_DOUBLE_EQ(op(un, "softmax").bytes, 2048);
    EXPECT_DOUBLE_EQ(op(un, "sv_matmul").flops, 16384);
    EXPECT_DOUBLE_EQ(op(un, "sv_matmul").bytes, 5120);
    for (const auto& c : un)
        EXPECT_NE(c.name, "attention");
}

TEST(CostModel, LlamaDecodeAndWholeModelTotals)
{
    const ModelConfig m = load_model_config(fixture("llama_tiny_config.json"));
    CostOptions o;
    o.batch = 2;
    o.prompt = 8;
    o.context = 16;   // decode: T = 2, L = 16
    const auto ops = layer_costs(m, Phase::Decode, o);
    // q_proj: 2*2*64*64 = 16384; bytes 8192 + 2*64*2 + 2*64*2 = 8704
    EXPECT_DOUBLE_EQ(op(ops, "q_proj").flops, 16384);
    EXPECT_DOUBLE_EQ(op(ops, "q_proj").bytes, 8704);
    // attention: pairs = 2*4*16 = 128 -> 4*16*128 + 5*128 = 8192 + 640 = 8832
    //   bytes Q+O 2*(2*1*4*16*2) = 512, K+V 2*(2*16*4*16*2) = 8192 -> 8704
    EXPECT_DOUBLE_EQ(op(ops, "attention").flops, 8832);
    EXPECT_DOUBLE_EQ(op(ops, "attention").bytes, 8704);
    // gate_proj: 2*2*64*128 = 32768; 64*128*2 + 2*64*2 + 2*128*2 = 16384 + 256 + 512 = 17152
    EXPECT_DOUBLE_EQ(op(ops, "gate_proj").flops, 32768);
    EXPECT_DOUBLE_EQ(op(ops, "gate_proj").bytes, 17152);

    // The plain Roofline bound: this tiny model's operators are far below the H100's time floor (a kernel takes at
    // least 0.832 us there), which TimeFloorIsKernelsTimesTheShortestKernel checks; here the floor is left out.
    GpuSpec plain = h100();
    plain.min_kernel_ns = 0;
    const CostModelResult r = estimate_costs(m, plain, o);
    const PhaseCost* d = r.phase(Phase::Decode);
    ASSERT_NE(d, nullptr);
    // Per layer FLOPs: norms 2*512, q/k/v/o 4*16384, rotary 768, attention 8832, adds 2*128, gate/up/down 3*32768,
    // act_mul 1280 -> 1024 + 65536 + 768 + 8832 + 256 + 98304 + 1280 = 176000; 2 layers 352000;
    // final_norm 512; lm_head 2*2*64*256 = 65536; embedding 0 -> 418048
    EXPECT_DOUBLE_EQ(d->flops, 418048);
    EXPECT_DOUBLE_EQ(op(d->ops, "q_proj").flops, 2 * 16384.0);   // whole-model totals over both layers
    EXPECT_EQ(op(d->ops, "q_proj").count, 2);
    EXPECT_EQ(op(d->ops, "lm_head").count, 1);
    // Prefill lm_head on the last token of each sequence: rows = b = 2 -> 2*2*64*256 = 65536 FLOPs,
    // bytes 64*256*2 + 2*64*2 + 2*256*2 = 32768 + 256 + 1024 = 34048
    const PhaseCost* p = r.phase(Phase::Prefill);
    EXPECT_DOUBLE_EQ(op(p->ops, "lm_head").flops, 65536);
    EXPECT_DOUBLE_EQ(op(p->ops, "lm_head").bytes, 34048);
    EXPECT_EQ(p->tokens, 16);
    EXPECT_EQ(d->kv_len, 16);

    // Roofline time on H100 SXM (3350 GB/s, 989.4 TFLOPS bf16): decode q_proj per layer moves 8704 B
    // (2.598 ns) and computes 16384 FLOP (0.0166 ns): memory bound, T = 2 layers * 8704 / 3350 ns.
    const OpCost& q = op(d->ops, "q_proj");
    EXPECT_EQ(q.bound(), "memory");
    EXPECT_NEAR(*q.t_theory_ns, 2 * 8704 / 3350.0, 1e-9);
    EXPECT_NEAR(*q.t_compute_ns, 2 * 16384 / 989.4e3, 1e-12);
    double sum = 0;
    for (const auto& c : d->ops)
        sum += *c.t_theory_ns;
    EXPECT_NEAR(*d->t_theory_ns, sum, 1e-9);
    EXPECT_EQ(r.gemm_precision, Precision::BF16);

    // kappa scales every time.
    o.kappa = 1.5;
    const CostModelResult r2 = estimate_costs(m, plain, o);
    EXPECT_NEAR(*op(r2.phase(Phase::Decode)->ops, "q_proj").t_theory_ns, 1.5 * 2 * 8704 / 3350.0, 1e-9);
}

// Qwen3-style GQA: h=128, H=4, Hkv=2, d=64 (q width 256 != h), I=320, N=3, V=1000, tied, bf16.
TEST(CostModel, QwenGqaPrefillAndDecode)
{
    const ModelConfig m = load_model_config(fixture("qwen3_gqa_config.json"));
    CostOptions o;
    o.batch = 1;
    o.prompt = 16;   // T = 16
    auto ops = layer_costs(m, Phase::Prefill, o);
    // q_proj (128 -> 256): 2*16*128*256 = 1048576; bytes 65536 + 16*128*2 + 16*256*2 = 65536 + 4096 + 8192 = 77824
    EXPECT_DOUBLE_EQ(op(ops, "q_proj").flops, 1048576);
    EXPECT_DOUBLE_EQ(op(ops, "q_proj").bytes, 77824);
    // k_proj (128 -> 2*64 = 128): 2*16*128*128 = 524288; 32768 + 4096 + 4096 = 40960
    EXPECT_DOUBLE_EQ(op(ops, "k_proj").flops, 524288);
    EXPECT_DOUBLE_EQ(op(ops, "k_proj").bytes, 40960);
    // o_proj (256 -> 128): 1048576 FLOPs; 65536 + 16*256*2 + 16*128*2 = 65536 + 8192 + 4096 = 77824
    EXPECT_DOUBLE_EQ(op(ops, "o_proj").bytes, 77824);
    // fused attention: pairs = 1*4*16*17/2 = 544 -> 4*64*544 + 5*544 = 139264 + 2720 = 141984
    //   bytes Q+O 2*(1*16*4*64*2) = 16384; K+V with Hkv = 2: 2*(1*16*2*64*2) = 8192 -> 24576
    //   (with H instead of Hkv, the LLM-Viewer bug, K+V would be 16384)
    EXPECT_DOUBLE_EQ(op(ops, "attention").flops, 141984);
    EXPECT_DOUBLE_EQ(op(ops, "attention").bytes, 24576);
    // FA2 re-reading K/V per Q tile of 4 rows: n = 4 tiles, causal -> R = (4+1)/2 = 2.5: 16384 + 8192*2.5 = 36864
    o.fa_q_tile = 4;
    EXPECT_DOUBLE_EQ(op(layer_costs(m, Phase::Prefill, o), "attention").bytes, 36864);
    o.fa_q_tile = 0;
    // Unfused: P' = 1*4*16*16 = 1024; qk 2*64*1024 = 131072 FLOPs, bytes Q 8192 + K 4096 + scores 2048 = 14336;
    //   softmax 5120 FLOPs, 4096 bytes; sv 131072 FLOPs, bytes 2048 + V 4096 + O 8192 = 14336
    o.fused_attention = false;
    ops = layer_costs(m, Phase::Prefill, o);
    EXPECT_DOUBLE_EQ(op(ops, "qk_matmul").flops, 131072);
    EXPECT_DOUBLE_EQ(op(ops, "qk_matmul").bytes, 14336);
    EXPECT_DOUBLE_EQ(op(ops, "softmax").flops, 5120);
    EXPECT_DOUBLE_EQ(op(ops, "softmax").bytes, 4096);
    EXPECT_DOUBLE_EQ(op(ops, "sv_matmul").bytes, 14336);

    // Decode b = 4, L = 32 (T = 4), fused:
    o.fused_attention = true;
    o.batch = 4;
    o.context = 32;
    ops = layer_costs(m, Phase::Decode, o);
    // attention: pairs = 4*4*32 = 512 -> 4*64*512 + 5*512 = 131072 + 2560 = 133632
    //   bytes Q+O 2*(4*1*4*64*2) = 4096; K+V 2*(4*32*2*64*2) = 65536 -> 69632
    EXPECT_DOUBLE_EQ(op(ops, "attention").flops, 133632);
    EXPECT_DOUBLE_EQ(op(ops, "attention").bytes, 69632);
    // q_proj: 2*4*128*256 = 262144; 65536 + 4*128*2 + 4*256*2 = 68608
    EXPECT_DOUBLE_EQ(op(ops, "q_proj").flops, 262144);
    EXPECT_DOUBLE_EQ(op(ops, "q_proj").bytes, 68608);
    // Tied embeddings still read the (shared) matrix for the lm_head: 2*4*128*1000 = 1024000 FLOPs,
    // 128*1000*2 + 4*128*2 + 4*1000*2 = 256000 + 1024 + 8000 = 265024 bytes
    const auto top = model_level_costs(m, Phase::Decode, o);
    EXPECT_DOUBLE_EQ(op(top, "lm_head").flops, 1024000);
    EXPECT_DOUBLE_EQ(op(top, "lm_head").bytes, 265024);
    // KV cache in fp8: K+V = 2*(4*32*2*64*1) = 32768 -> 4096 + 32768 = 36864
    o.kv_dtype = "fp8";
    EXPECT_DOUBLE_EQ(op(layer_costs(m, Phase::Decode, o), "attention").bytes, 36864);
}

// Rule of thumb (reference §d.4): decode GEMMs have intensity ~ 2*b/w FLOP/byte, so they stay memory bound until
// b ~ (peak / BW) * w / 2 (~295 on H100 SXM at bf16).
// The time floor (issue 34 §4): an operator's T_theory is at least (kernels it needs) × the GPU's minimum kernel
// duration, 0.832 us on an H100 SXM (the shortest kernel of the project's H100 traces). Llama tiny decode, b = 2,
// L = 16: the residual add reads and writes 3·2·64·2 = 768 B per layer, 0.229 ns at 3350 GB/s, so its theory is the
// floor, 2 layers × 832 ns, and it is latency-bound; a 7B-sized decode q_proj (4096² bf16 weights, 33.6 MB, 10 us)
// is far above the floor and keeps its memory bound.
TEST(CostModel, TimeFloorIsKernelsTimesTheShortestKernel)
{
    const GpuSpec g = h100();
    EXPECT_DOUBLE_EQ(g.min_kernel_ns, 832);
    EXPECT_FALSE(g.min_kernel_source.empty());
    const ModelConfig m = load_model_config(fixture("llama_tiny_config.json"));
    CostOptions o;
    o.batch = 2;
    o.context = 16;
    const CostModelResult r = estimate_costs(m, g, o);
    const OpCost& add = op(r.phase(Phase::Decode)->ops, "attn_add");
    EXPECT_EQ(add.count, 2);
    EXPECT_NEAR(*add.t_memory_ns, 2 * 768 / 3350.0, 1e-9);
    ASSERT_TRUE(add.t_floor_ns);
    EXPECT_DOUBLE_EQ(*add.t_floor_ns, 2 * 832.0);
    EXPECT_DOUBLE_EQ(*add.t_theory_ns, 2 * 832.0);
    EXPECT_EQ(add.bound(), "latency");
    // The phase's theory: every operator instance at least one kernel: 2 layers × 15 operators + embedding,
    // final_norm and lm_head, each at the floor here (the tiny model's largest operator moves 34 KB, 10 ns).
    const PhaseCost* d = r.phase(Phase::Decode);
    int64_t kernels = 0;
    for (const auto& c : d->ops)
        kernels += c.count;
    EXPECT_EQ(kernels, 2 * 15 + 3);
    EXPECT_NEAR(*d->t_theory_ns, double(kernels) * 832.0, 1e-6);
    // kappa scales the roofs, not the floor (no kernel runs shorter, whatever the loss factor).
    o.kappa = 1.5;
    EXPECT_DOUBLE_EQ(*op(estimate_costs(m, g, o).phase(Phase::Decode)->ops, "attn_add").t_theory_ns, 2 * 832.0);

    const ModelConfig big = parse_model_config(R"({"model_type":"llama","hidden_size":4096,"num_attention_heads":32,
        "num_key_value_heads":8,"num_hidden_layers":1,"intermediate_size":11008,"vocab_size":32000,
        "torch_dtype":"bfloat16"})", "llama7b-like");
    CostOptions b1;
    const CostModelResult bigCosts = estimate_costs(big, g, b1);
    const OpCost& q = op(bigCosts.phase(Phase::Decode)->ops, "q_proj");
    EXPECT_EQ(q.bound(), "memory");
    EXPECT_NEAR(*q.t_theory_ns, (4096.0 * 4096 * 2 + 2 * 4096 * 2) / 3350.0, 1e-6);
    // A GPU row without a minimum kernel duration has no floor.
    GpuSpec none = g;
    none.min_kernel_ns = 0;
    EXPECT_FALSE(op(estimate_costs(m, none, o).phase(Phase::Decode)->ops, "attn_add").t_floor_ns);
}

TEST(CostModel, DecodeGemmIntensityRuleOfThumb)
{
    const ModelConfig m = parse_model_config(R"({"model_type":"llama","hidden_size":4096,"num_attention_heads":32,
        "num_key_value_heads":8,"num_hidden_layers":32,"intermediate_size":11008,"vocab_size":32000,
        "torch_dtype":"float16"})", "llama7b-like");
    for (int64_t b : {1, 8, 32}) {
        for (const char* wd : {"fp16", "fp8"}) {
            CostOptions o;
            o.batch = b;
            o.context = 2048;
            o.weight_dtype = wd;
            const double w = dtype_bytes(wd);
            for (const auto& c : layer_costs(m, Phase::Decode, o)) {
                if (c.op_class != "gemm")
                    continue;
                const double expect = 2.0 * static_cast<double>(b) / w;
                // The gap is the activation traffic b*(in+out)*a, which grows with b (7% for k_proj, b=32, fp8).
                EXPECT_NEAR(c.intensity(), expect, expect * 0.10) << c.name << " b=" << b << " w=" << wd;
            }
        }
    }
    // Ridge: at b = 256 decode q_proj is still memory bound on H100 SXM, at b = 512 compute bound.
    for (auto [b, bound] : {std::pair<int64_t, const char*>{256, "memory"}, {512, "compute"}}) {
        CostOptions o;
        o.batch = b;
        const auto r = estimate_costs(m, h100(), o);
        EXPECT_EQ(op(r.phase(Phase::Decode)->ops, "q_proj").bound(), bound) << b;
    }
    // Prefill GEMMs at s = 1024 are compute bound.
    CostOptions o;
    o.prompt = 1024;
    const auto r = estimate_costs(m, h100(), o);
    EXPECT_EQ(op(r.phase(Phase::Prefill)->ops, "gate_proj").bound(), "compute");
    EXPECT_EQ(op(r.phase(Phase::Decode)->ops, "attention").bound(), "memory");
}

TEST(CostModel, MoeExpertsReadOnlyTouchedExperts)
{
    // Mixtral tiny: h=64, H=4, Hkv=2, d=16, expert width 128, E=4, k=2, N=1, V=100.
    const ModelConfig m = load_model_config(fixture("mixtral_tiny_config.json"));
    CostOptions o;
    o.batch = 1;
    o.context = 8;
    const auto ops = layer_costs(m, Phase::Decode, o);
    // router: 2*1*64*4 = 512 FLOPs; 64*4*2 + 64*2 + 4*2 = 648 bytes
    EXPECT_DOUBLE_EQ(op(ops, "router").flops, 512);
    EXPECT_DOUBLE_EQ(op(ops, "router").bytes, 648);
    EXPECT_EQ(op(ops, "router").op_class, "moe_routing");
    // one token, k = 2: Tk = 2 rows, U = 4*(1 - (1 - 2/4)^1) = 2 experts touched
    // experts_gate_proj: 2*2*64*128 = 32768 FLOPs; 2*64*128*2 + 2*64*2 + 2*128*2 = 32768 + 256 + 512 = 33536
    EXPECT_DOUBLE_EQ(op(ops, "experts_gate_proj").flops, 32768);
    EXPECT_DOUBLE_EQ(op(ops, "experts_gate_proj").bytes, 33536);
    // At a large batch every expert is touched: T = 64, U = 4*(1 - 0.5^64) ~ 4
    o.batch = 64;
    const auto big = layer_costs(m, Phase::Decode, o);
    // bytes = 4*64*128*2 + 128*64*2 + 128*128*2 = 65536 + 16384 + 32768 = 114688
    EXPECT_NEAR(op(big, "experts_gate_proj").bytes, 114688, 1e-6);
}

TEST(CostModel, UnknownPeaksAndBadOptions)
{
    const ModelConfig m = load_model_config(fixture("llama_tiny_config.json"));
    GpuSpec g;
    g.name = "trace GPU";
    g.mem_bw_Bps = 1e12;   // bandwidth known, peaks unknown (trace fallback)
    const auto r = estimate_costs(m, g, CostOptions{});
    for (const auto& ph : r.phases) {
        EXPECT_FALSE(ph.t_theory_ns.has_value());
        EXPECT_EQ(op(ph.ops, "q_proj").bound(), "unknown");
        EXPECT_TRUE(op(ph.ops, "q_proj").t_memory_ns.has_value());
        EXPECT_TRUE(op(ph.ops, "kv_cache_write").t_theory_ns.has_value());   // no FLOPs: memory alone decides
    }
    EXPECT_FALSE(r.warnings.empty());
    CostOptions bad;
    bad.batch = 0;
    EXPECT_THROW(estimate_costs(m, h100(), bad), TraceError);
    bad = CostOptions{};
    bad.kv_dtype = "fp7";
    EXPECT_THROW(estimate_costs(m, h100(), bad), TraceError);
    bad = CostOptions{};
    bad.kappa = 0;
    EXPECT_THROW(estimate_costs(m, h100(), bad), TraceError);
    // fp8 weights and activations use the fp8 peak; fp32 activations the CUDA-core peak (tf32 when allowed).
    CostOptions f8;
    f8.weight_dtype = f8.act_dtype = "fp8";
    EXPECT_EQ(estimate_costs(m, h100(), f8).gemm_precision, Precision::FP8);
    CostOptions f32;
    f32.act_dtype = "fp32";
    EXPECT_EQ(estimate_costs(m, h100(), f32).gemm_precision, Precision::FP32);
    f32.allow_tf32 = true;
    EXPECT_EQ(estimate_costs(m, h100(), f32).gemm_precision, Precision::TF32);
}

TEST(CostModel, CalibrateKappaIsTheMedianRatio)
{
    EXPECT_DOUBLE_EQ(calibrate_kappa({}), 1.0);
    EXPECT_DOUBLE_EQ(calibrate_kappa({{10, 20}, {10, 15}, {10, 40}}), 2.0);
    EXPECT_DOUBLE_EQ(calibrate_kappa({{10, 20}, {10, 30}}), 2.5);
}

// A serving step's own shape (CostOptions::prefill_shape / decode_shape, from its annotation): attention per layer is
// TraceLens's inference attention model, checked against the numbers TraceLens reports for the two real serving
// traces (tracelens_perf_csvs/InferenceAttention_fwd.csv, GFLOPS_first and Data Moved (MB)_first):
//   SGLang Qwen3-8B EXTEND, 15 requests of 1,024 tokens (Hq 32, Hkv 8, d 128): Σq = Σk = 15,360,
//     Σq² = Σq·k = 15,728,640 -> 128.84901888 GFLOP, 300 MB;
//   vLLM gpt-oss decode, 32 requests (Hq 64, Hkv 8, d 64): Σq = Σq² = 32, Σk = Σq·k = 55,086 -> 0.902529024 GFLOP,
//     108.08984375 MB.
TEST(CostModel, StepShapeAttentionIsTraceLensInferenceAttention)
{
    auto config = [](int H, int Hkv, int d) {
        return parse_model_config("{\"model_type\": \"qwen3\", \"hidden_size\": " + std::to_string(H * d) +
                                      ", \"intermediate_size\": 1024, \"num_attention_heads\": " + std::to_string(H) +
                                      ", \"num_key_value_heads\": " + std::to_string(Hkv) + ", \"head_dim\": " +
                                      std::to_string(d) +
                                      ", \"num_hidden_layers\": 2, \"vocab_size\": 1000, \"torch_dtype\": \"bfloat16\"}",
                                  "step shape");
    };
    {
        const ModelConfig m = config(32, 8, 128);
        CostOptions o;
        o.prefill_shape = step_shape(15, 15360, 15360, 15728640, 15728640);
        const auto costs = layer_costs(m, Phase::Prefill, o);   // op() returns a reference into it
        const OpCost& a = op(costs, "attention");
        EXPECT_DOUBLE_EQ(a.tensor_flops, 128.84901888e9);
        EXPECT_DOUBLE_EQ(a.bytes / (1024.0 * 1024.0), 300.0);
        // The rest of the pass runs over Σq tokens with the mean request shape.
        const OpCost& q = op(costs, "q_proj");
        EXPECT_DOUBLE_EQ(q.flops, 2.0 * 15360 * 4096 * 4096);
    }
    {
        const ModelConfig m = config(64, 8, 64);
        CostOptions o;
        o.decode_shape = step_shape(32, 32, 55086, 32, 55086);
        const auto costs = layer_costs(m, Phase::Decode, o);
        const OpCost& a = op(costs, "attention");
        EXPECT_DOUBLE_EQ(a.tensor_flops, 0.902529024e9);
        EXPECT_DOUBLE_EQ(a.bytes / (1024.0 * 1024.0), 108.08984375);
        const CostModelResult r = estimate_costs(m, h100(), o);
        EXPECT_EQ(r.phase(Phase::Decode)->batch, 32);
        EXPECT_EQ(r.phase(Phase::Decode)->kv_len, 1721);   // 55,086 / 32 = 1,721.4
    }
}

// Sliding-window attention (issue 34 §4): gpt-oss / Gemma-style layer_types give each layer full or windowed
// attention; a plain sliding_window (Mistral) windows every layer; Qwen2's use_sliding_window false windows none.
// Hand oracle, h = 64, H = 4, Hkv = 2, d = 16, window W = 8, bf16 (2 bytes):
//   decode, b = 2, L = 20: full layer pairs 2*4*20 = 160, windowed 2*4*8 = 64;
//     FLOPs 4*16*P + 5*P -> 11040 and 4416; bytes Q+O 2*(2*1*4*16*2) = 512 + K+V 2*(2*Lr*2*16*2) with Lr = 20 | 8
//     -> 512 + 5120 = 5632 and 512 + 2048 = 2560.
//   prefill, b = 1, s = 12: full pairs 4*12*13/2 = 312; windowed 4*(8*9/2 + 4*8) = 4*68 = 272; K/V read once (s).
TEST(CostModel, SlidingWindowAttentionFromLayerTypes)
{
    auto config = [](const std::string& extra) {
        return parse_model_config(R"({"model_type":"llama","hidden_size":64,"num_attention_heads":4,
            "num_key_value_heads":2,"head_dim":16,"intermediate_size":128,"num_hidden_layers":2,"vocab_size":256,
            "torch_dtype":"bfloat16","tie_word_embeddings":true)" + extra + "}", "windowed");
    };
    const ModelConfig m = config(R"(,"sliding_window":8,"layer_types":["sliding_attention","full_attention"])");
    ASSERT_EQ(m.attention_window, (std::vector<int64_t>{8, 0}));
    CostOptions o;
    o.batch = 2;
    o.context = 20;
    const OpCost slid = op(layer_costs(m, Phase::Decode, o, 0), "attention");
    const OpCost full = op(layer_costs(m, Phase::Decode, o, 1), "attention");
    EXPECT_DOUBLE_EQ(full.flops, 11040);
    EXPECT_DOUBLE_EQ(full.bytes, 5632);
    EXPECT_DOUBLE_EQ(slid.flops, 4416);
    EXPECT_DOUBLE_EQ(slid.bytes, 2560);
    o.batch = 1;
    o.prompt = 12;
    EXPECT_DOUBLE_EQ(op(layer_costs(m, Phase::Prefill, o, 1), "attention").tensor_flops, 4 * 16 * 312.0);
    EXPECT_DOUBLE_EQ(op(layer_costs(m, Phase::Prefill, o, 0), "attention").tensor_flops, 4 * 16 * 272.0);
    EXPECT_DOUBLE_EQ(op(layer_costs(m, Phase::Prefill, o, 0), "attention").bytes,
                     op(layer_costs(m, Phase::Prefill, o, 1), "attention").bytes);   // K/V read once either way

    // Every layer (Mistral), none (Qwen2's use_sliding_window false), and a layer_types of the wrong length (noted).
    EXPECT_EQ(config(R"(,"sliding_window":8)").attention_window, (std::vector<int64_t>{8, 8}));
    EXPECT_TRUE(config(R"(,"sliding_window":8,"use_sliding_window":false)").attention_window.empty());
    const ModelConfig odd = config(R"(,"sliding_window":8,"layer_types":["sliding_attention"])");
    EXPECT_TRUE(odd.attention_window.empty());
    EXPECT_NE(std::find_if(odd.notes.begin(), odd.notes.end(),
                           [](const std::string& n) { return n.find("layer_types has 1 entries") != std::string::npos; }),
              odd.notes.end());
}

// A mixed (chunked-prefill) step: one prefill chunk of 12 new tokens (KV 12) and 3 decode requests at KV 20, in one
// pass. Its sums: requests 4, Σq = 12 + 3 = 15, Σk = 12 + 60 = 72, Σq² = 144 + 3 = 147, Σq·k = 144 + 60 = 204.
// The windowed config of the test above without its window: h=64, H=4, Hkv=2, d=16, I=128, 2 layers, V=256, bf16.
TEST(CostModel, MixedStepIsOnePassOverAllItsTokens)
{
    const ModelConfig m = parse_model_config(R"({"model_type":"llama","hidden_size":64,"num_attention_heads":4,
        "num_key_value_heads":2,"head_dim":16,"intermediate_size":128,"num_hidden_layers":2,"vocab_size":256,
        "torch_dtype":"bfloat16","tie_word_embeddings":true})", "mixed");
    CostOptions o;
    o.mixed_shape = step_shape(4, 15, 72, 147, 204);
    const auto mixed = layer_costs(m, Phase::Mixed, o, 0);
    // Linear layers run once over the 15 tokens: q_proj FLOPs 2·15·64·64 = 122,880; bytes 64·64·2 (weights, once)
    // + 15·64·2 (in) + 15·64·2 (out) = 8,192 + 1,920 + 1,920 = 12,032.
    EXPECT_DOUBLE_EQ(op(mixed, "q_proj").flops, 122880);
    EXPECT_DOUBLE_EQ(op(mixed, "q_proj").bytes, 12032);
    // Attention from the sums (TraceLens's inference attention): pairs = H·(Σq·k − Σq²/2) = 4·(204 − 73.5) = 522;
    // tensor FLOPs 4·d·pairs = 64·522 = 33,408; bytes: Q and O for 15 tokens (2·15·4·16·2 = 3,840) and K and V for
    // 72 KV tokens (2·72·2·16·2 = 9,216) = 13,056.
    EXPECT_DOUBLE_EQ(op(mixed, "attention").tensor_flops, 33408);
    EXPECT_DOUBLE_EQ(op(mixed, "attention").bytes, 13056);
    // The exact count of pairs is the chunk's causal 12·13/2 = 78 and 3·20 = 60 decode keys, per head 138, so 552:
    // the sums' model is within 10 % of it (it leaves out half the diagonal, as TraceLens's does).
    EXPECT_NEAR(op(mixed, "attention").tensor_flops / (4 * 16 * 552.0), 1.0, 0.10);

    // The sum of the parts: the same FLOPs as the prefill chunk alone plus the three decode requests alone, and the
    // same bytes less one read of the weights (the parts would each read them).
    CostOptions parts;
    parts.prefill_shape = step_shape(1, 12, 12, 144, 144);
    parts.decode_shape = step_shape(3, 3, 60, 3, 60);
    const auto pre = layer_costs(m, Phase::Prefill, parts, 0), dec = layer_costs(m, Phase::Decode, parts, 0);
    for (const char* g : {"q_proj", "k_proj", "o_proj", "gate_proj", "down_proj"}) {
        EXPECT_DOUBLE_EQ(op(mixed, g).flops, op(pre, g).flops + op(dec, g).flops) << g;
        EXPECT_DOUBLE_EQ(op(mixed, g).bytes, op(pre, g).bytes + op(dec, g).bytes - op(pre, g).weight_bytes) << g;
    }
    // The decode requests' attention is their decode cost to half a pair each: 4·(60 − 1.5) vs 4·60.
    EXPECT_DOUBLE_EQ(op(mixed, "attention").tensor_flops,
                     op(pre, "attention").tensor_flops + 4 * 16 * 4 * (60 - 1.5));

    // estimate_costs: a third phase, "mixed", only with a mixed shape; its lm_head reads one row per request.
    const CostModelResult r = estimate_costs(m, h100(), o);
    ASSERT_NE(r.phase(Phase::Mixed), nullptr);
    EXPECT_EQ(r.phase(Phase::Mixed)->tokens, 15);
    EXPECT_EQ(r.phase(Phase::Mixed)->batch, 4);
    EXPECT_EQ(r.phase(Phase::Mixed)->shape_source, "annotation");
    EXPECT_DOUBLE_EQ(op(r.phase(Phase::Mixed)->ops, "lm_head").flops, 2.0 * 4 * 64 * 256);
    EXPECT_EQ(estimate_costs(m, h100(), CostOptions{}).phase(Phase::Mixed), nullptr);
    EXPECT_STREQ(phase_name(Phase::Mixed), "mixed");
    EXPECT_EQ(phase_from_name("mixed"), Phase::Mixed);
    EXPECT_EQ(phase_from_name("training"), Phase::Training);
    EXPECT_FALSE(phase_from_name("warm-up").has_value());
}
