#include "analysis/io/synthetic.h"
#include "analysis/trace/clock_offset.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace sl {

namespace {

// Kernel names as they appear in real H100 LLM-inference traces (cuBLAS nvjet/xmma GEMMs, flash-attention, vLLM
// custom ops, PyTorch elementwise/reduce kernels, NCCL).
struct OpDef {
    const char* name;
    const char* short_name;
    int64_t ns;                       // mean duration
    uint32_t grid_x;
    uint16_t grid_y, grid_z, block_x, block_y, block_z, regs;
    uint32_t smem;
    bool cublas;                      // launched with cudaLaunchKernelExC
};

constexpr const char* kRmsNorm =
    "void vllm::rms_norm_kernel<c10::BFloat16, 8, 4>(c10::BFloat16*, c10::BFloat16 const*, long, "
    "c10::BFloat16 const*, float, int, int)";
constexpr const char* kRotary =
    "void vllm::rotary_embedding_kernel<c10::BFloat16, true>(long const*, c10::BFloat16*, c10::BFloat16*, "
    "c10::BFloat16 const*, int, long, long, int, int, int)";
constexpr const char* kKvWrite =
    "void vllm::reshape_and_cache_flash_kernel<__nv_bfloat16, __nv_bfloat16, (vllm::Fp8KVCacheDataType)0>("
    "__nv_bfloat16 const*, __nv_bfloat16 const*, __nv_bfloat16*, __nv_bfloat16*, long const*, long, long, long, "
    "long, int, int, int, float const*, float const*)";
constexpr const char* kAttnDecode =
    "void flash::flash_fwd_splitkv_kernel<Flash_fwd_kernel_traits<128, 64, 128, 4, false, false, "
    "cutlass::bfloat16_t, Flash_kernel_traits<128, 64, 128, 4, cutlass::bfloat16_t> >, false, false, false, false, "
    "true, false, false, false>(flash::Flash_fwd_params)";
constexpr const char* kAttnPrefill =
    "void flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, cutlass::bfloat16_t, "
    "Flash_kernel_traits<128, 128, 64, 4, cutlass::bfloat16_t> >, false, true, false, false, false, true, false, "
    "false>(flash::Flash_fwd_params)";
constexpr const char* kAdd =
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>, "
    "std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, 3ul>)";
constexpr const char* kSiluMul =
    "void vllm::act_and_mul_kernel<c10::BFloat16, &(c10::BFloat16 vllm::silu_kernel<c10::BFloat16>("
    "c10::BFloat16 const&)), false>(c10::BFloat16*, c10::BFloat16 const*, int)";
constexpr const char* kArgmax =
    "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::ArgMaxOps<float>, unsigned "
    "int, long, 4> >(at::native::ReduceOp<float, at::native::ArgMaxOps<float>, unsigned int, long, 4>)";
constexpr const char* kXmma128 =
    "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__"
    "5x_cublas";
constexpr const char* kXmma256 =
    "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64_warpgroupsize2x1x1_execute_segment_k_off_kernel__"
    "5x_cublas";

enum Op { RmsNorm, Qkv, Rotary, KvWrite, Attn, OProj, Add, RmsNorm2, GateUp, SiluMul, Down, kLayerOps };

// Decode (one sequence, hidden 4096, a 7B-class model in bf16 on H100: the durations match the cost model at
// batch 1 — see tst_cli_sample_config).
const OpDef kDecode[kLayerOps] = {
    {kRmsNorm, "rms_norm_kernel", 3'200, 8, 1, 1, 1024, 1, 1, 32, 0, false},
    {"nvjet_tst_64x8_64x16_4x1_v_bz_TNT", "nvjet_tst_64x8_64x16_4x1_v_bz_TNT", 28'000, 192, 1, 1, 384, 1, 1, 168,
     213'504, true},
    {kRotary, "rotary_embedding_kernel", 2'600, 8, 1, 1, 512, 1, 1, 40, 0, false},
    {kKvWrite, "reshape_and_cache_flash_kernel", 2'200, 8, 1, 1, 1024, 1, 1, 30, 0, false},
    {kAttnDecode, "flash_fwd_splitkv_kernel", 9'000, 4, 8, 32, 128, 1, 1, 255, 49'152, false},
    {"nvjet_tst_64x8_64x16_2x1_v_bz_TNN", "nvjet_tst_64x8_64x16_2x1_v_bz_TNN", 11'000, 128, 1, 1, 384, 1, 1, 168,
     213'504, true},
    {kAdd, "vectorized_elementwise_kernel", 2'400, 64, 1, 1, 128, 1, 1, 24, 0, false},
    {kRmsNorm, "rms_norm_kernel", 3'200, 8, 1, 1, 1024, 1, 1, 32, 0, false},
    {"nvjet_tst_128x8_64x12_2x1_v_bz_TNT", "nvjet_tst_128x8_64x12_2x1_v_bz_TNT", 62'000, 344, 1, 1, 384, 1, 1, 168,
     221'184, true},
    {kSiluMul, "act_and_mul_kernel", 3'100, 8, 1, 1, 1024, 1, 1, 28, 0, false},
    {"nvjet_tst_64x8_64x16_4x1_v_bz_splitK_TNT", "nvjet_tst_64x8_64x16_4x1_v_bz_splitK_TNT", 33'000, 128, 2, 1,
     384, 1, 1, 168, 213'504, true},
};

// Prefill over 512 tokens (durations scale with prefill_tokens / 512).
const OpDef kPrefill[kLayerOps] = {
    {kRmsNorm, "rms_norm_kernel", 14'000, 512, 1, 1, 1024, 1, 1, 32, 0, false},
    {kXmma128, kXmma128, 170'000, 96, 4, 1, 384, 1, 1, 168, 197'632, true},
    {kRotary, "rotary_embedding_kernel", 10'000, 512, 1, 1, 512, 1, 1, 40, 0, false},
    {kKvWrite, "reshape_and_cache_flash_kernel", 8'000, 512, 1, 1, 1024, 1, 1, 30, 0, false},
    {kAttnPrefill, "flash_fwd_kernel", 150'000, 4, 8, 32, 128, 1, 1, 255, 49'152, false},
    {kXmma128, kXmma128, 60'000, 32, 4, 1, 384, 1, 1, 168, 197'632, true},
    {kAdd, "vectorized_elementwise_kernel", 12'000, 2048, 1, 1, 128, 1, 1, 24, 0, false},
    {kRmsNorm, "rms_norm_kernel", 14'000, 512, 1, 1, 1024, 1, 1, 32, 0, false},
    {kXmma256, kXmma256, 380'000, 86, 4, 1, 384, 1, 1, 168, 229'376, true},
    {kSiluMul, "act_and_mul_kernel", 25'000, 512, 1, 1, 1024, 1, 1, 28, 0, false},
    {kXmma128, kXmma128, 190'000, 32, 4, 1, 384, 1, 1, 168, 197'632, true},
};

const OpDef kLmHead = {"nvjet_tst_128x16_64x10_4x1_v_bz_TNT", "nvjet_tst_128x16_64x10_4x1_v_bz_TNT", 78'000, 250,
                       1, 1, 384, 1, 1, 168, 204'800, true};
const OpDef kSample = {kArgmax, "reduce_kernel", 6'000, 8, 1, 1, 32, 16, 1, 38, 0, false};
const OpDef kAllReduce = {"ncclKernel_AllReduce_RING_LL_Sum_bf16(ncclWorkElem)",
                          "ncclKernel_AllReduce_RING_LL_Sum_bf16", 19'000, 2, 1, 1, 512, 1, 1, 96, 0, false};

// A gpt-oss-like MoE layer through triton_kernels (vLLM's and SGLang's MXFP4 path): durations are computed per step
// from the tokens (see moe_ns), the launch shapes are those of the real kernels' tiles.
const OpDef kMoeRouter = {"nvjet_tst_64x8_64x16_1x1_v_bz_TNT", "nvjet_tst_64x8_64x16_1x1_v_bz_TNT", 6'000, 32, 1, 1,
                          384, 1, 1, 168, 213'504, true};
const OpDef kMoeTopk = {"_topk_forward", "_topk_forward", 4'000, 8, 1, 1, 256, 1, 1, 64, 0, false};
const OpDef kMoeRouting = {"_combined_routing_compute", "_combined_routing_compute", 4'500, 32, 1, 1, 256, 1, 1, 64,
                           0, false};
const OpDef kMoeUp = {"_matmul_ogs_NNT_bf16xbf16xmxfp4_16x128x256x1_swiglu",
                      "_matmul_ogs_NNT_bf16xbf16xmxfp4_16x128x256x1_swiglu", 0, 1024, 1, 1, 256, 1, 1, 128, 65'536,
                      false};
const OpDef kMoeDown = {"_matmul_ogs_NNT_bf16xbf16xmxfp4_16x128x256x1", "_matmul_ogs_NNT_bf16xbf16xmxfp4_16x128x256x1",
                        0, 1024, 1, 1, 256, 1, 1, 128, 65'536, false};
const OpDef kMoeFinalize = {"_finalize_matmul_scatter_bf16", "_finalize_matmul_scatter_bf16", 4'000, 64, 1, 1, 256, 1,
                            1, 64, 0, false};

// The model the kernels stand for (synth_model_config_json): Llama-2-7B-shaped.
constexpr int64_t kHidden = 4096, kInter = 11008, kQkv = 12288, kVocab = 32000;

// A CPU op as record_shapes writes it.
struct CpuOpSpec {
    std::string name, dims, types, concrete;
};

CpuOpSpec mm_spec(int64_t m, int64_t k, int64_t n)
{
    const std::string d = "[[" + std::to_string(m) + ", " + std::to_string(k) + "], [" + std::to_string(k) + ", " +
                          std::to_string(n) + "]]";
    return {"aten::mm", d, R"(["c10::BFloat16", "c10::BFloat16"])", R"(["", ""])"};
}

// splitmix64: fast, deterministic, good enough for timing jitter.
struct Rng {
    uint64_t s;
    uint64_t next()
    {
        uint64_t z = (s += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    double unit() { return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0); }   // [0,1)
};

struct OpIds {
    StrId name, short_name;
};

class Builder {
public:
    Builder(const SynthOptions& o, Trace& t) : o_(o), t_(t), rng_{o.seed * 0x2545F4914F6CDD1Dull + 7} {}

    void run();
    void run_capture();

private:
    void setup();
    void capture_window();

public:
private:
    int64_t jit(int64_t mean)
    {
        const double f = 1.0 + o_.jitter * (2.0 * rng_.unit() - 1.0);
        return std::max<int64_t>(1, static_cast<int64_t>(static_cast<double>(mean) * f));
    }
    // max(a + jit(pa), b + jit(pb)) with b's jitter drawn first. Written as two jit() arguments of one call, the
    // order of the draws was unspecified: GCC's x86-64 code drew right to left, its AArch64 code left to right, so
    // the same seed planted another trace on an Arm host. This keeps the x86-64 order the goldens were made with.
    int64_t later_of(int64_t a, int64_t pa, int64_t b, int64_t pb)
    {
        const int64_t jb = jit(pb);
        const int64_t ja = jit(pa);
        return std::max(a + ja, b + jb);
    }
    bool done() const { return o_.total_kernels > 0 && static_cast<int64_t>(t_.kernels.size()) >= o_.total_kernels; }

    uint32_t api(int64_t start, int64_t end, StrId name, ApiClass cls)
    {
        const uint32_t corr = next_corr_++;
        t_.api.append(start, end, name, corr, thread_, cls, flags_of(name));
        return corr;
    }
    uint8_t flags_of(StrId name)
    {
        if (name >= api_flags_.size())
            api_flags_.resize(name + 1, 0xFF);
        if (api_flags_[name] == 0xFF)
            api_flags_[name] = classify_api_name(t_.str(name));
        return api_flags_[name];
    }

    size_t open_range(StrId name)
    {
        if (!o_.nvtx)
            return SIZE_MAX;
        return t_.ranges.append(cpu_, cpu_, name, thread_, RangeKind::PushPop);
    }
    void close_range(size_t idx)
    {
        if (idx != SIZE_MAX)
            t_.ranges.end[idx] = std::max(cpu_, t_.ranges.start[idx] + 1);
    }

    // ---- record_shapes: CPU ops around launches, joined by External id ----------------------------------------
    struct OpScope {
        size_t range = SIZE_MAX;
        int64_t outer_ext = 0;
    };
    bool shapes() const { return (o_.record_shapes && !in_graph_replay_) || capture_mode_; }
    OpScope open_op(const CpuOpSpec& spec)
    {
        OpScope sc;
        if (!shapes())
            return sc;
        if (nvtx_ops_) {
            // emit_nvtx: the op, its sequence number and the input sizes in the range's text.
            const int64_t n = next_ext_++;
            sc.range = t_.ranges.append(cpu_, cpu_,
                                        t_.strings.intern(spec.name + ", seq = " + std::to_string(n) + ", op_id = " +
                                                          std::to_string(n) + ", sizes = " + spec.dims),
                                        thread_, RangeKind::PushPop);
            sc.outer_ext = -1;
            cpu_ += jit(1'500);
            return sc;
        }
        sc.outer_ext = cur_ext_;
        cur_ext_ = next_ext_++;
        const StrId name = t_.strings.intern(spec.name);
        sc.range = t_.ranges.append(cpu_, cpu_, name, thread_, RangeKind::CpuOp);
        const size_t r = t_.op_args.append(OpArgsTable::kCpuOp, cpu_, cpu_, name);
        t_.op_args.pid[r] = o_.pid;
        t_.op_args.external_id[r] = cur_ext_;
        t_.op_args.input_dims[r] = spec.dims;
        t_.op_args.input_types[r] = spec.types;
        t_.op_args.concrete_inputs[r] = spec.concrete;
        cpu_ += jit(1'500);
        return sc;
    }
    void close_op(const OpScope& sc)
    {
        if (sc.range == SIZE_MAX)
            return;
        cpu_ += jit(800);
        t_.ranges.end[sc.range] = cpu_;
        if (sc.outer_ext < 0)
            return;   // an emit_nvtx range: no op_args row
        // The op_args row of the same op: the last one with the range's start and name.
        for (size_t r = t_.op_args.size(); r-- > 0;)
            if (t_.op_args.source[r] == OpArgsTable::kCpuOp && t_.op_args.start[r] == t_.ranges.start[sc.range] &&
                t_.op_args.name[r] == t_.ranges.name[sc.range]) {
                t_.op_args.end[r] = cpu_;
                break;
            }
        cur_ext_ = sc.outer_ext;
    }
    // The launch call just made carries the open op's External id and names its kernel.
    void note_launch(uint32_t corr, StrId kernel)
    {
        if (!shapes() || cur_ext_ == 0 || nvtx_ops_)
            return;
        const size_t r = t_.op_args.append(OpArgsTable::kLaunch, t_.api.start.back(), t_.api.end.back(), kernel);
        t_.op_args.pid[r] = o_.pid;
        t_.op_args.external_id[r] = cur_ext_;
        t_.op_args.correlation[r] = corr;
    }
    // nn.Module frames (the capture trace's python stacks).
    size_t open_module(const char* name)
    {
        if (!capture_mode_ || nvtx_ops_)
            return SIZE_MAX;
        return t_.ranges.append(cpu_, cpu_, t_.strings.intern(name), thread_, RangeKind::PyModule);
    }
    void close_module(size_t idx)
    {
        if (idx != SIZE_MAX)
            t_.ranges.end[idx] = std::max(cpu_, t_.ranges.start[idx] + 1);
    }
    // The CPU op of a layer's launch, for `tokens` rows (the vLLM custom ops and aten ops these kernels run under).
    static CpuOpSpec op_spec(int op, int64_t tokens)
    {
        const std::string T = std::to_string(tokens), B = "\"c10::BFloat16\"", S = "\"Scalar\"";
        switch (op) {
        case Qkv: return mm_spec(tokens, kHidden, kQkv);
        case OProj: return mm_spec(tokens, kHidden, kHidden);
        case GateUp: return mm_spec(tokens, kHidden, 2 * kInter);
        case Down: return mm_spec(tokens, kInter, kHidden);
        case RmsNorm:
        case RmsNorm2:
            return {"_C::rms_norm", "[[" + T + ", 4096], [" + T + ", 4096], [4096], []]",
                    "[" + B + ", " + B + ", " + B + ", " + S + "]", R"(["", "", "", "1e-05"])"};
        case Rotary:
            return {"_C::rotary_embedding", "[[" + T + "], [" + T + ", 4096], [" + T + ", 4096], [], [4096, 128], []]",
                    "[\"long int\", " + B + ", " + B + ", " + S + ", " + B + ", " + S + "]",
                    R"(["", "", "", "128", "", "True"])"};
        case KvWrite:
            return {"_C_cache_ops::reshape_and_cache_flash",
                    "[[" + T + ", 32, 128], [" + T + ", 32, 128], [4096, 16, 32, 128], [4096, 16, 32, 128], [" + T +
                        "]]",
                    "[" + B + ", " + B + ", " + B + ", " + B + ", \"long int\"]", R"(["", "", "", "", ""])"};
        case Attn:
            return {"vllm::unified_attention_with_output",
                    "[[" + T + ", 32, 128], [" + T + ", 32, 128], [" + T + ", 32, 128], [" + T + ", 32, 128]]",
                    "[" + B + ", " + B + ", " + B + ", " + B + "]", R"(["", "", "", ""])"};
        case Add:
            return {"aten::add", "[[" + T + ", 4096], [" + T + ", 4096], []]", "[" + B + ", " + B + ", " + S + "]",
                    R"(["", "", "1"])"};
        case SiluMul:
            return {"_C::silu_and_mul", "[[" + T + ", 11008], [" + T + ", 22016]]", "[" + B + ", " + B + "]",
                    R"(["", ""])"};
        default: break;
        }
        return {};
    }
    static CpuOpSpec lm_head_spec(int64_t tokens) { return mm_spec(tokens, kHidden, kVocab); }
    static CpuOpSpec sample_spec(int64_t tokens)
    {
        return {"aten::argmax", "[[" + std::to_string(tokens) + ", 32000], [], []]", R"(["float", "Scalar", "Scalar"])",
                R"(["", "-1", "False"])"};
    }
    static CpuOpSpec all_reduce_spec(int64_t tokens)
    {
        return {"vllm::all_reduce", "[[" + std::to_string(tokens) + ", 4096]]", R"(["c10::BFloat16"])", R"([""])"};
    }

    // An MoE layer's MLP: router GEMM, then under vllm::moe_forward the top-k, routing, the expert GEMMs and the
    // finalize scatter. emit(def, ids, mean_ns, spec) launches one kernel inside its CPU op (spec may be null).
    template <typename Emit> void moe_block(int64_t tokens, Emit&& emit)
    {
        const std::string T = std::to_string(tokens), E = std::to_string(o_.moe_experts);
        const CpuOpSpec router = mm_spec(tokens, kHidden, o_.moe_experts);
        emit(kMoeRouter, moe_ids_[0], kMoeRouter.ns, &router);
        const OpScope moe = open_op({"vllm::moe_forward", "[[" + T + ", 4096], [" + T + ", " + E + "], [], []]",
                                     R"(["c10::BFloat16", "c10::BFloat16", "", ""])", R"(["", "", "", ""])"});
        const CpuOpSpec topk = {"TopK", "[[" + T + ", " + E + "], [], [], [], [], [], []]",
                                R"(["c10::BFloat16", "Scalar", "Scalar", "Scalar", "Scalar", "", ""])",
                                "[\"\", \"" + std::to_string(o_.moe_top_k) + "\", \"True\", \"1\", \"True\", \"\", \"\"]"};
        emit(kMoeTopk, moe_ids_[1], kMoeTopk.ns, &topk);
        emit(kMoeRouting, moe_ids_[2], kMoeRouting.ns, nullptr);
        emit(kMoeUp, moe_ids_[3], moe_ns(true, tokens), nullptr);
        emit(kMoeDown, moe_ids_[4], moe_ns(false, tokens), nullptr);
        emit(kMoeFinalize, moe_ids_[5], kMoeFinalize.ns, nullptr);
        close_op(moe);
    }

    // A launch call of the graph's capture: it adds the node, nothing runs.
    void captured_launch(const OpDef& def, const OpIds& ids)
    {
        const int64_t a0 = cpu_, a1 = a0 + jit(o_.launch_api_ns);
        const uint32_t corr = api(a0, a1, def.cublas ? n_launch_ex_ : n_launch_, ApiClass::Runtime);
        note_launch(corr, ids.name);
        cpu_ = a1 + jit(o_.host_overhead_ns);
    }

    // Expert GEMM time: the touched experts' MXFP4 weights (width h) at 55 % of the H100's bandwidth, or their FLOPs
    // at 400 TFLOP/s, whichever is longer.
    int64_t moe_ns(bool up, int64_t tokens) const
    {
        const double E = o_.moe_experts, k = o_.moe_top_k, T = static_cast<double>(tokens), h = kHidden;
        // (1 - k/E)^tokens by squaring: plain multiplications round the same on every IEEE host, while libm's pow
        // may take another code path (an FMA variant on x86-64) and differ in the last bit.
        double miss = 1.0, base = (E - k) / E;
        for (int64_t e = tokens; e > 0; e >>= 1, base *= base)
            if (e & 1)
                miss *= base;
        const double touched = E * (1.0 - miss);
        const double g = up ? 2.0 : 1.0;
        const double bytes = touched * g * h * h * 0.5, flops = 2.0 * T * k * g * h * h;
        return static_cast<int64_t>(std::max(bytes / (3.35e12 * 0.55), flops / 400e12) * 1e9) + 3'000;
    }

    void add_kernel(const OpDef& def, const OpIds& ids, int64_t start, int64_t dur, uint32_t corr, uint32_t stream,
                    uint8_t flags)
    {
        // Column pushes in one place (KernelTable::append would write defaults first, then we would overwrite).
        auto& kt = t_.kernels;
        kt.start.push_back(start);
        kt.end.push_back(start + dur);
        kt.name.push_back(ids.name);
        kt.short_name.push_back(ids.short_name);
        kt.correlation.push_back(corr);
        kt.launch_api.push_back(static_cast<int32_t>(t_.api.size()) - 1);
        kt.device.push_back(dev_);
        kt.process.push_back(proc_);
        kt.stream.push_back(stream);
        kt.shape.push_back(kt.intern_shape({def.grid_x, def.grid_y, def.grid_z, def.block_x, def.block_y, def.block_z,
                                            def.regs, def.smem}));
        kt.flags.push_back(flags);
    }

    // One stream launch from the host thread: API call, then the kernel on `stream`.
    void launch(const OpDef& def, const OpIds& ids, int64_t dur)
    {
        if (done())
            return;
        if (o_.host_starved)
            cpu_ = std::max(cpu_, compute_free_) + jit(o_.host_starve_gap_ns);
        const int64_t a0 = cpu_, a1 = a0 + jit(o_.launch_api_ns);
        const uint32_t corr = api(a0, a1, def.cublas ? n_launch_ex_ : n_launch_, ApiClass::Runtime);
        note_launch(corr, ids.name);
        int64_t k0 = later_of(a0, o_.launch_latency_ns, compute_free_, 1'000);
        const bool stalled = stall_until_ > 0;
        if (stalled) {
            k0 = std::max(k0, stall_until_);   // queued behind the stream wait: runs when the event completes
            stall_until_ = 0;
        }
        add_kernel(def, ids, k0, dur, corr, kSynthComputeStream, 0);
        compute_free_ = k0 + dur;
        cpu_ = a1 + jit(o_.host_overhead_ns);
        if (stalled)
            blocking_copy();
    }

    // A synchronous cudaMemcpy H2D of 8 bytes on the compute stream: queued behind the stalled kernel, so the host
    // sits in it until that kernel and the copy are done.
    void blocking_copy()
    {
        const int64_t a0 = cpu_;
        const uint32_t corr = api(a0, 0, n_memcpy_sync_, ApiClass::Runtime);
        const int64_t c0 = later_of(a0, 4'000, compute_free_, 1'000);
        const int64_t c1 = c0 + jit(1'600);
        const size_t m = t_.memcpy.append(c0, c1, 8, CopyKind::HtoD);
        t_.memcpy.src_kind[m] = MemKind::Pageable;
        t_.memcpy.dst_kind[m] = MemKind::Device;
        t_.memcpy.device[m] = dev_;
        t_.memcpy.process[m] = proc_;
        t_.memcpy.stream[m] = kSynthComputeStream;
        t_.memcpy.correlation[m] = corr;
        compute_free_ = c1;
        t_.api.end.back() = c1 + jit(2'000);
        cpu_ = t_.api.end.back() + jit(o_.host_overhead_ns);
    }

    void all_reduce()
    {
        if (!o_.nccl || done())
            return;
        const int64_t a0 = cpu_, a1 = a0 + jit(o_.launch_api_ns + 1'500);
        const uint32_t corr = api(a0, a1, n_cu_launch_ex_, ApiClass::Driver);
        const int64_t dur = kdur(kAllReduce.ns);
        int64_t k0 = later_of(a0, o_.launch_latency_ns, comm_free_, 1'000);
        if (!o_.nccl_overlaps_compute)
            k0 = std::max(k0, compute_free_ + jit(1'000));   // waits for the producer kernel
        add_kernel(kAllReduce, ids_allreduce_, k0, dur, corr, kSynthCommStream, 0);
        comm_free_ = k0 + dur;
        if (!o_.nccl_overlaps_compute)
            compute_free_ = std::max(compute_free_, comm_free_);   // the consumer waits for the result
        cpu_ = a1 + jit(o_.host_overhead_ns);
    }

    int64_t kdur(int64_t ns) const
    {
        return std::max<int64_t>(500,
                                 static_cast<int64_t>(static_cast<double>(ns) * o_.kernel_time_scale * step_scale_));
    }

    void h2d_copies(bool for_next_step)
    {
        if (!o_.h2d_copies || o_.h2d_copies_per_step <= 0 || done())
            return;
        const uint64_t each = std::max<uint64_t>(1, o_.h2d_bytes_per_step / static_cast<uint64_t>(o_.h2d_copies_per_step));
        const double bw = o_.pageable_copies ? 10.0e9 : 24.0e9;   // B/s over PCIe Gen5, pageable vs pinned
        for (int i = 0; i < o_.h2d_copies_per_step; ++i) {
            const int64_t a0 = cpu_;
            int64_t a1 = a0 + jit(3'000);
            int64_t c0 = later_of(a0, 4'000, copy_free_, 1'000);
            if (!for_next_step && !o_.copy_overlaps_compute)
                c0 = std::max(c0, compute_free_ + jit(1'000));
            const int64_t dur = jit(static_cast<int64_t>(static_cast<double>(each) / bw * 1e9) + 1'500);
            const uint32_t corr = api(a0, 0, n_memcpy_async_, ApiClass::Runtime);
            if (o_.pageable_copies)
                a1 = std::max(a1, c0 + dur + jit(1'200));   // pageable: the host waits for the staging copy
            t_.api.end.back() = a1;
            const size_t m = t_.memcpy.append(c0, c0 + dur, each, CopyKind::HtoD);
            t_.memcpy.src_kind[m] = o_.pageable_copies ? MemKind::Pageable : MemKind::Pinned;
            t_.memcpy.dst_kind[m] = MemKind::Device;
            t_.memcpy.device[m] = dev_;
            t_.memcpy.process[m] = proc_;
            t_.memcpy.stream[m] = kSynthCopyStream;
            t_.memcpy.correlation[m] = corr;
            copy_free_ = c0 + dur;
            if (!for_next_step && !o_.copy_overlaps_compute)
                compute_free_ = std::max(compute_free_, copy_free_);   // compute waits for its inputs
            cpu_ = a1 + jit(o_.host_overhead_ns);
        }
    }

    void item_sync()
    {
        if (!o_.sync_every_step || done())
            return;
        // cudaMemcpyAsync D2H of the sampled token ids on the compute stream ...
        const int64_t a0 = cpu_, a1 = a0 + jit(3'500);
        const uint32_t corr = api(a0, a1, n_memcpy_async_, ApiClass::Runtime);
        const int64_t c0 = later_of(a0, 4'000, compute_free_, 1'000);
        const int64_t c1 = c0 + jit(1'600);
        const size_t m = t_.memcpy.append(c0, c1, 8, CopyKind::DtoH);
        t_.memcpy.src_kind[m] = MemKind::Device;
        t_.memcpy.dst_kind[m] = o_.pageable_copies ? MemKind::Pageable : MemKind::Pinned;
        t_.memcpy.device[m] = dev_;
        t_.memcpy.process[m] = proc_;
        t_.memcpy.stream[m] = kSynthComputeStream;
        t_.memcpy.correlation[m] = corr;
        compute_free_ = c1;
        // ... then cudaStreamSynchronize: the host blocks until the copy is done.
        const int64_t s0 = a1 + jit(1'000);
        const int64_t s1 = later_of(s0, 1'500, c1, 1'500);
        const uint32_t scorr = api(s0, s1, n_stream_sync_, ApiClass::Runtime);
        const size_t s = t_.syncs.append(s0, s1);
        t_.syncs.device[s] = dev_;
        t_.syncs.process[s] = proc_;
        t_.syncs.stream[s] = kSynthComputeStream;
        t_.syncs.correlation[s] = scorr;
        t_.syncs.sync_type[s] = 3;   // CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE
        cpu_ = s1 + jit(2'000);
    }

    // One layer of a pass. A mixed pass (chunked prefill: mixed = true, prefill-sized kernels) runs the prefill
    // chunk's tokens and the batch's decode tokens through each kernel once, as vLLM and SGLang flatten them: its
    // linear kernels take all the tokens, its attention the chunk's causal work plus the decode tokens' KV reads.
    void layer_ops(const OpDef* defs, const std::vector<OpIds>& ids, int layer, bool prefill, int64_t context,
                   bool next_copies, bool mixed = false)
    {
        const size_t lr = open_range(layer_names_[static_cast<size_t>(layer)]);
        const int64_t tokens = mixed ? o_.prefill_tokens + o_.batch : prefill ? o_.prefill_tokens : o_.batch;
        const double pf_scale = static_cast<double>(o_.prefill_tokens) / 512.0;
        const double mixed_scale = static_cast<double>(tokens) / 512.0;
        auto dur = [&](int op) {
            int64_t mean = defs[op].ns;
            if (mixed && op == Attn)
                mean = static_cast<int64_t>(static_cast<double>(mean) * pf_scale) + context * 4;
            else if (mixed)
                mean = static_cast<int64_t>(static_cast<double>(mean) * mixed_scale);
            else if (prefill)
                mean = static_cast<int64_t>(static_cast<double>(mean) * pf_scale);
            else if (op == Attn)
                mean += context * 4;   // decode attention reads the whole KV cache
            return kdur(jit(mean));
        };
        extra_acc_ += extra_rate_;
        const int extra = static_cast<int>(extra_acc_);
        extra_acc_ -= extra;
        auto go = [&](int op) {
            const OpScope sc = shapes() ? open_op(op_spec(op, tokens)) : OpScope{};
            launch(defs[op], ids[static_cast<size_t>(op)], dur(op));
            close_op(sc);
        };
        size_t attn_r = SIZE_MAX, mlp_r = SIZE_MAX;
        if (extra >= 1)
            attn_r = open_range(n_attention_);
        for (int op = RmsNorm; op <= Add; ++op) {
            go(op);
            if (op == OProj)
                all_reduce();
        }
        close_range(attn_r);
        if (next_copies && layer == o_.layers / 2)
            h2d_copies(true);
        if (extra >= 2)
            mlp_r = open_range(n_mlp_);
        if (o_.moe_experts > 0) {
            go(RmsNorm2);
            moe_block(tokens, [&](const OpDef& def, const OpIds& id, int64_t mean, const CpuOpSpec* spec) {
                const OpScope sc = spec ? open_op(*spec) : OpScope{};
                launch(def, id, kdur(jit(mean)));
                close_op(sc);
            });
        } else {
            for (int op = RmsNorm2; op <= Down; ++op)
                go(op);
        }
        all_reduce();
        close_range(mlp_r);
        close_range(lr);
    }

    // The final norm, lm_head and sampling over `rows` sequences (0 = the decode batch).
    void step_tail(const OpDef* defs, const std::vector<OpIds>& ids, int64_t rows = 0)
    {
        auto go = [&](const OpDef& def, const OpIds& id, int64_t mean, const CpuOpSpec& spec) {
            const OpScope sc = shapes() ? open_op(spec) : OpScope{};
            launch(def, id, kdur(jit(mean)));
            close_op(sc);
        };
        const int64_t b = rows > 0 ? rows : o_.batch;
        go(defs[RmsNorm], ids[RmsNorm], kDecode[RmsNorm].ns, op_spec(RmsNorm, b));
        go(kLmHead, ids_lm_head_, kLmHead.ns, lm_head_spec(b));
        go(kSample, ids_sample_, kSample.ns, sample_spec(b));
        item_sync();
    }

    // A decode step replayed as one CUDA graph (node-level trace): one cudaGraphLaunch, kernels back to back. In
    // capture mode, the same nodes as launch calls between cudaStreamBeginCapture and EndCapture (run_capture), each
    // inside its CPU op, under the model's nn.Module frames.
    void graph_step(int64_t context)
    {
        const int64_t a0 = cpu_, a1 = a0 + jit(9'000);
        const uint32_t corr = capture_mode_ ? 0 : api(a0, a1, n_graph_launch_, ApiClass::Runtime);
        in_graph_replay_ = !capture_mode_;
        int64_t t = later_of(a0, o_.launch_latency_ns, compute_free_, 1'000);
        const bool stalled = stall_until_ > 0;
        if (stalled) {
            t = std::max(t, stall_until_);   // the replay is queued behind the stream wait
            stall_until_ = 0;
        }
        auto node = [&](const OpDef& def, const OpIds& ids, int64_t mean, uint32_t stream) {
            if (done())
                return;
            if (capture_mode_) {
                captured_launch(def, ids);
                return;
            }
            const int64_t d = kdur(jit(mean));
            add_kernel(def, ids, t, d, corr, stream, KernelTable::kGraphNode);
            t += d + jit(700);
        };
        auto emit = [&](const OpDef& def, const OpIds& ids, int64_t mean, const CpuOpSpec* spec) {
            const OpScope sc = spec ? open_op(*spec) : OpScope{};
            node(def, ids, mean, kSynthComputeStream);
            close_op(sc);
        };
        const int64_t b = o_.batch;
        const CpuOpSpec reduce = all_reduce_spec(b);
        const size_t model = open_module("LlamaForCausalLM");
        for (int l = 0; l < o_.layers; ++l) {
            const size_t layer = open_module("LlamaDecoderLayer");
            const size_t attn = open_module("LlamaAttention");
            for (int op = RmsNorm; op <= Add; ++op) {
                const CpuOpSpec spec = op_spec(op, b);
                emit(kDecode[op], decode_ids_[static_cast<size_t>(op)], kDecode[op].ns + (op == Attn ? context * 4 : 0),
                     &spec);
                if (o_.nccl && op == OProj)
                    emit(kAllReduce, ids_allreduce_, kAllReduce.ns, &reduce);
            }
            close_module(attn);
            const size_t mlp = open_module(o_.moe_experts > 0 ? "GptOssMLP" : "LlamaMLP");
            if (o_.moe_experts > 0) {
                const CpuOpSpec spec = op_spec(RmsNorm2, b);
                emit(kDecode[RmsNorm2], decode_ids_[RmsNorm2], kDecode[RmsNorm2].ns, &spec);
                moe_block(b, emit);
            } else {
                for (int op = RmsNorm2; op <= Down; ++op) {
                    const CpuOpSpec spec = op_spec(op, b);
                    emit(kDecode[op], decode_ids_[static_cast<size_t>(op)], kDecode[op].ns, &spec);
                }
            }
            if (o_.nccl)
                emit(kAllReduce, ids_allreduce_, kAllReduce.ns, &reduce);
            close_module(mlp);
            close_module(layer);
        }
        const CpuOpSpec norm = op_spec(RmsNorm, b), head = lm_head_spec(b), sample = sample_spec(b);
        emit(kDecode[RmsNorm], decode_ids_[RmsNorm], kDecode[RmsNorm].ns, &norm);
        emit(kLmHead, ids_lm_head_, kLmHead.ns, &head);
        emit(kSample, ids_sample_, kSample.ns, &sample);
        close_module(model);
        in_graph_replay_ = false;
        if (capture_mode_)
            return;
        compute_free_ = t;
        cpu_ = a1 + jit(o_.host_overhead_ns);
        if (stalled)
            blocking_copy();
        item_sync();
    }

    const SynthOptions& o_;
    Trace& t_;
    Rng rng_;
    uint32_t next_corr_ = 1;
    uint32_t thread_ = 0;
    uint16_t dev_ = 0, proc_ = 0;
    int64_t cpu_ = 0, compute_free_ = 0, copy_free_ = 0, comm_free_ = 0;
    double step_scale_ = 1.0;   // warm-up steps: kernels slower by this
    int64_t stall_until_ = 0;   // the next launched kernel starts no earlier (event_stall_ns); 0 = none
    double extra_rate_ = 0, extra_acc_ = 0;
    bool capture_mode_ = false;     // run_capture(): launch calls of the graph's capture, no kernels
    bool nvtx_ops_ = false;         // CPU ops as emit_nvtx NVTX ranges (the capture inside an nsys trace)
    bool in_graph_replay_ = false;  // inside a replayed graph: no CPU ops
    int64_t cur_ext_ = 0, next_ext_ = 1;
    std::vector<OpIds> moe_ids_;
    std::vector<uint8_t> api_flags_;
    StrId n_launch_ = 0, n_launch_ex_ = 0, n_cu_launch_ex_ = 0, n_memcpy_async_ = 0, n_stream_sync_ = 0,
          n_graph_launch_ = 0, n_attention_ = 0, n_mlp_ = 0, n_memcpy_sync_ = 0, n_wait_event_ = 0;
    std::vector<StrId> layer_names_;
    std::vector<OpIds> decode_ids_, prefill_ids_;
    OpIds ids_lm_head_{}, ids_sample_{}, ids_allreduce_{};
};

void Builder::setup()
{
    if (o_.layers <= 0 || o_.layers > 100000)
        throw std::invalid_argument("synthetic trace: layers must be in 1..100000");
    if (o_.moe_experts < 0 || o_.moe_experts > 1024 || (o_.moe_experts > 0 && (o_.moe_top_k < 1 || o_.moe_top_k > o_.moe_experts)))
        throw std::invalid_argument("synthetic trace: MoE needs 1..1024 experts and a top-k between 1 and the experts");
    if (o_.batch < 1)
        throw std::invalid_argument("synthetic trace: batch must be 1 or more");
    auto& meta = t_.meta;
    meta.format = "synthetic";
    meta.tool_version = "sightline-synthetic";
    meta.schema_version = "";
    meta.utc_epoch_ns = 1'735'689'600'000'000'000;   // 2025-01-01T00:00:00Z

    dev_ = t_.device_index(o_.device_id);
    auto& d = meta.devices[dev_];
    d.name = o_.gpu_name;
    d.sm_count = o_.sm_count;
    d.memory_bandwidth_Bps = o_.memory_bandwidth_Bps;
    d.clock_hz = o_.clock_hz;
    d.total_memory_bytes = o_.total_memory_bytes;
    d.l2_cache_bytes = o_.l2_cache_bytes;
    d.compute_major = 9;
    d.compute_minor = 0;
    d.chip = "GH100";
    proc_ = t_.process_index(o_.pid);
    meta.processes[proc_].name = o_.process_name;
    // nsys global ids: (vm << 48) | (pid << 24) | tid; the main thread's tid equals the pid.
    const int64_t gpid = (int64_t{1} << 48) | (o_.pid << 24);
    thread_ = t_.thread_index(gpid | o_.pid, o_.pid, o_.pid);
    meta.threads[thread_].name = o_.process_name;
    meta.streams.push_back({dev_, kSynthComputeStream, 0, "Default stream"});
    if (o_.h2d_copies)
        meta.streams.push_back({dev_, kSynthCopyStream, 0, "Non-blocking stream"});
    if (o_.nccl)
        meta.streams.push_back({dev_, kSynthCommStream, -1, "Non-blocking stream"});

    auto& s = t_.strings;
    n_launch_ = s.intern("cudaLaunchKernel_v7000");
    n_launch_ex_ = s.intern("cudaLaunchKernelExC_v11060");
    n_cu_launch_ex_ = s.intern("cuLaunchKernelEx");
    n_memcpy_async_ = s.intern("cudaMemcpyAsync_v3020");
    n_stream_sync_ = s.intern("cudaStreamSynchronize_v3020");
    n_graph_launch_ = s.intern("cudaGraphLaunch_v10000");
    n_memcpy_sync_ = s.intern("cudaMemcpy_v3020");
    n_wait_event_ = s.intern("cudaStreamWaitEvent_v3020");
    if (!o_.step_annotation.empty() && o_.step_annotation != "vllm" && o_.step_annotation != "sglang")
        throw std::invalid_argument("synthetic trace: step annotation must be vllm or sglang, not '" +
                                    o_.step_annotation + "'");
    if (o_.batch < 1)
        throw std::invalid_argument("synthetic trace: batch must be >= 1");
    n_attention_ = s.intern("attention");
    n_mlp_ = s.intern("mlp");
    for (int l = 0; l < o_.layers; ++l)
        layer_names_.push_back(s.intern("layer " + std::to_string(l)));
    auto ids = [&](const OpDef& def) { return OpIds{s.intern(def.name), s.intern(def.short_name)}; };
    for (const auto& def : kDecode)
        decode_ids_.push_back(ids(def));
    for (const auto& def : kPrefill)
        prefill_ids_.push_back(ids(def));
    ids_lm_head_ = ids(kLmHead);
    ids_sample_ = ids(kSample);
    ids_allreduce_ = ids(kAllReduce);
    for (const OpDef* def : {&kMoeRouter, &kMoeTopk, &kMoeRouting, &kMoeUp, &kMoeDown, &kMoeFinalize})
        moe_ids_.push_back(ids(*def));
}

void Builder::capture_window()
{
    auto& s = t_.strings;
    const bool was = capture_mode_;
    capture_mode_ = true;
    nvtx_ops_ = !was;   // inside the replay's own trace (nsys): the ops as emit_nvtx ranges
    const int64_t b0 = cpu_;
    api(b0, b0 + jit(2'500), s.intern("cudaStreamBeginCapture_v10000"), ApiClass::Runtime);
    cpu_ = t_.api.end.back() + jit(o_.host_overhead_ns);
    graph_step(o_.context_tokens);
    const int64_t e0 = cpu_;
    api(e0, e0 + jit(6'500), s.intern("cudaStreamEndCapture_v10000"), ApiClass::Runtime);
    cpu_ = t_.api.end.back() + jit(o_.host_overhead_ns);
    api(cpu_, cpu_ + jit(400'000), s.intern("cudaGraphInstantiateWithFlags_v11040"), ApiClass::Runtime);
    cpu_ = t_.api.end.back() + jit(o_.step_host_ns);
    compute_free_ = std::max(compute_free_, cpu_);
    capture_mode_ = was;
    nvtx_ops_ = false;
}

void Builder::run_capture()
{
    capture_mode_ = true;
    setup();
    cpu_ = o_.start_ns;
    compute_free_ = copy_free_ = comm_free_ = o_.start_ns;
    capture_window();
    t_.meta.capture_start = o_.start_ns - 1'000'000;
    t_.meta.capture_end = cpu_ + 1'000'000;
    t_.finish();
}

void Builder::run()
{
    setup();
    auto& s = t_.strings;
    auto& meta = t_.meta;

    const int64_t per_layer = kLayerOps + (o_.nccl ? 2 : 0);
    const int64_t per_step = per_layer * o_.layers + 3;
    int64_t steps = o_.decode_steps;
    if (o_.total_kernels > 0) {
        const int64_t pf = static_cast<int64_t>(std::max(0, o_.prefill_steps)) * per_step;
        steps = std::max<int64_t>(0, (o_.total_kernels - pf + per_step - 1) / per_step);
    }
    const int64_t total_steps = steps + std::max(0, o_.prefill_steps);
    if (o_.total_kernels > 0) {
        t_.kernels.reserve(static_cast<size_t>(o_.total_kernels));
        t_.api.reserve(static_cast<size_t>(o_.total_kernels + total_steps * 8));
    } else {
        t_.kernels.reserve(static_cast<size_t>(total_steps * per_step));
        t_.api.reserve(static_cast<size_t>(total_steps * (per_step + 8)));
    }
    if (o_.nvtx && o_.total_nvtx > 0 && total_steps > 0) {
        // In scale mode the last step is cut where the kernel budget ends: count steps fractionally.
        double steps_f = static_cast<double>(total_steps);
        if (o_.total_kernels > 0)
            steps_f = static_cast<double>(o_.total_kernels) / static_cast<double>(per_step);
        const double base = steps_f * (1 + (o_.cuda_graphs ? 0 : o_.layers));
        const double layer_slots = steps_f * o_.layers;
        extra_rate_ = std::clamp((static_cast<double>(o_.total_nvtx) - base) / layer_slots, 0.0, 2.0);
        const auto n = static_cast<size_t>(o_.total_nvtx + total_steps);
        auto& r = t_.ranges;
        r.start.reserve(n); r.end.reserve(n); r.name.reserve(n); r.thread.reserve(n); r.kind.reserve(n);
        r.depth.reserve(n);
    }

    cpu_ = o_.start_ns;
    compute_free_ = copy_free_ = comm_free_ = o_.start_ns;
    int64_t context = o_.context_tokens;
    if (o_.cuda_graphs && o_.capture_in_trace)
        capture_window();

    const int64_t P = o_.prefill_tokens, B = o_.batch;
    // The step's name as its framework writes it (serving annotations), from its batch: C prefill requests of q
    // query and q KV tokens each (a first chunk), G decode requests each attending to kv KV tokens.
    auto serving_name = [&](int64_t C, int64_t G, int64_t kv) -> std::string {
        const int64_t csq = C * P, csk = C * P, csqsq = C * P * P, csqsk = C * P * P;
        const int64_t gsq = G, gsk = G * kv, gsqsq = G, gsqsk = G * kv;
        auto n = [](int64_t v) { return std::to_string(v); };
        if (o_.step_annotation == "vllm")
            return "execute_" + n(csq + gsq) + "_context_" + n(C) + "(sq" + n(csq) + "sk" + n(csk) + "sqsq" + n(csqsq) +
                   "sqsk" + n(csqsk) + ")_generation_" + n(G) + "(sq" + n(gsq) + "sk" + n(gsk) + "sqsq" + n(gsqsq) +
                   "sqsk" + n(gsqsk) + ")";
        if (G == 0)
            return "step[EXTEND bs=" + n(C) + " toks=" + n(csq) + "]";
        if (C == 0)
            return "step[DECODE bs=" + n(G) + "]";
        return "step[MIXED bs=" + n(C + G) + " c=" + n(C) + " g=" + n(G) + " c_sq=" + n(csq) + " c_sk=" + n(csk) +
               " c_sqsq=" + n(csqsq) + " c_sqsk=" + n(csqsk) + " g_sq=" + n(gsq) + " g_sk=" + n(gsk) + " g_sqsq=" +
               n(gsqsq) + " g_sqsk=" + n(gsqsk) + "]";
    };
    const bool serving = !o_.step_annotation.empty();

    if (o_.jit_compile_ns > 0) {
        // Upload the inputs, then compile before the first kernel: the GPU idles behind the host's JIT.
        h2d_copies(false);
        cpu_ += jit(o_.host_overhead_ns);
        const int64_t total = o_.jit_compile_ns, pre = total / 20, nvrtc_ns = total * 4 / 5,
                      load = std::min<int64_t>(2'000'000, total / 10), post = total - pre - nvrtc_ns - load;
        const size_t compile = open_range(s.intern("KernelExecutor::compileFusion"));
        cpu_ += pre;
        const size_t nvrtc = open_range(s.intern("nvrtcCompileProgram"));
        cpu_ += nvrtc_ns;
        close_range(nvrtc);
        cpu_ += post;
        api(cpu_, cpu_ + load, s.intern("cuModuleLoadData"), ApiClass::Driver);
        cpu_ += load;
        close_range(compile);
        cpu_ += jit(o_.host_overhead_ns);
    }
    for (int p = 0; p < o_.prefill_steps && !done(); ++p) {
        const size_t r = open_range(s.intern(serving ? serving_name(1, 0, 0) : "prefill " + std::to_string(p)));
        h2d_copies(false);
        for (int l = 0; l < o_.layers && !done(); ++l)
            layer_ops(kPrefill, prefill_ids_, l, true, 0, false);
        step_tail(kDecode, decode_ids_);
        close_range(r);
        cpu_ += jit(o_.step_host_ns);
    }
    std::vector<int64_t> step_gpu_end;
    for (int64_t st = 0; st < steps && !done(); ++st) {
        // The host can run at most about one step ahead of the GPU (allocator and launch-queue back-pressure).
        if (st >= 2)
            cpu_ = std::max(cpu_, step_gpu_end[static_cast<size_t>(st - 2)]);
        const bool mixed = o_.mixed_every > 0 && (st + 1) % o_.mixed_every == 0;
        const std::string batch = serving ? serving_name(mixed ? 1 : 0, B, context)
                                  : o_.mixed_every > 0
                                      ? "execute_context_" + std::string(mixed ? "1" : "0") + "(" +
                                            std::to_string(mixed ? o_.prefill_tokens : 0) + ")_generation_8(8)"
                                      : "decode_step " + std::to_string(st);
        const size_t r = open_range(s.intern(batch));
        if (st == 0 && o_.event_stall_ns > 0) {
            // The step's stream waits on an event of another stream; its first kernel is queued behind the wait.
            api(cpu_, cpu_ + jit(2'500), n_wait_event_, ApiClass::Runtime);
            cpu_ = t_.api.end.back() + jit(o_.host_overhead_ns);
            stall_until_ = std::max(compute_free_, cpu_) + o_.event_stall_ns;
        }
        step_scale_ = st < o_.warmup_heavy_steps ? o_.warmup_slowdown : 1.0;
        if (st < o_.warmup_heavy_steps)
            cpu_ += jit(1'000'000);   // first-call work on the host (GEMM autotuning, allocator growth)
        if (st == 0 && o_.warmup_heavy_steps > 0) {
            // Lazy loading: the first launch of the step loads its module on the host.
            const int64_t a0 = cpu_;
            api(a0, a0 + 3'000'000, s.intern("cuModuleLoadData"), ApiClass::Driver);
            cpu_ = a0 + 3'000'000 + jit(o_.host_overhead_ns);
        }
        if (!o_.copy_overlaps_compute || st == 0)
            h2d_copies(false);
        if (mixed) {
            // One prefill chunk and the decode tokens in one pass (run eagerly: the graphs are decode-only, as
            // vLLM's FULL_DECODE_ONLY and SGLang's decode graphs), and one lm_head row per request.
            for (int l = 0; l < o_.layers && !done(); ++l)
                layer_ops(kPrefill, prefill_ids_, l, true, context, o_.copy_overlaps_compute && st + 1 < steps,
                          true);
            step_tail(kDecode, decode_ids_, o_.batch + 1);
        } else if (o_.cuda_graphs) {
            graph_step(context);
            if (o_.copy_overlaps_compute && st + 1 < steps)
                h2d_copies(true);
        } else {
            for (int l = 0; l < o_.layers && !done(); ++l)
                layer_ops(kDecode, decode_ids_, l, false, context, o_.copy_overlaps_compute && st + 1 < steps);
            step_tail(kDecode, decode_ids_);
        }
        close_range(r);
        step_gpu_end.push_back(compute_free_);
        cpu_ += jit(o_.step_host_ns);
        ++context;
    }

    step_scale_ = 1.0;
    meta.capture_start = o_.start_ns - 1'000'000;
    int64_t hi = std::max({cpu_, compute_free_, copy_free_, comm_free_});
    meta.capture_end = hi + 1'000'000;
    if (o_.clock_offset_ns != 0)   // the capture window stays on the host clock, as the profiler wrote it
        shift_gpu_times(t_, o_.clock_offset_ns);
    t_.finish();
}

} // namespace

SynthOptions synth_preset(std::string_view name)
{
    SynthOptions o;
    if (name == "decode")
        return o;
    if (name == "scale") {
        o.prefill_steps = 0;
        o.layers = 32;
        o.total_kernels = 1'000'000;
        o.total_nvtx = 200'000;
        return o;
    }
    throw std::invalid_argument("unknown synthetic preset '" + std::string(name) + "' (expected decode or scale)");
}

std::string synth_model_config_json(const SynthOptions& o)
{
    return "{\n"
           "  \"architectures\": [\"LlamaForCausalLM\"],\n"
           "  \"model_type\": \"llama\",\n"
           "  \"hidden_size\": 4096,\n"
           "  \"intermediate_size\": 11008,\n"
           "  \"num_attention_heads\": 32,\n"
           "  \"num_key_value_heads\": 32,\n"
           "  \"num_hidden_layers\": " + std::to_string(o.layers) + ",\n"
           "  \"vocab_size\": 32000,\n"
           "  \"hidden_act\": \"silu\",\n"
           "  \"max_position_embeddings\": 4096,\n"
           "  \"rms_norm_eps\": 1e-05,\n"
           "  \"rope_theta\": 10000.0,\n"
           "  \"tie_word_embeddings\": false,\n" +
           (o.moe_experts > 0 ? "  \"num_local_experts\": " + std::to_string(o.moe_experts) +
                                    ",\n  \"experts_per_token\": " + std::to_string(o.moe_top_k) +
                                    ",\n  \"moe_intermediate_size\": 4096,\n"
                              : std::string()) +
           "  \"torch_dtype\": \"bfloat16\"\n"
           "}\n";
}

Trace make_synthetic_trace(const SynthOptions& options)
{
    Trace t;
    Builder b(options, t);
    b.run();
    return t;
}

Trace make_synthetic_capture_trace(const SynthOptions& options)
{
    Trace t;
    Builder b(options, t);
    b.run_capture();
    return t;
}

} // namespace sl
