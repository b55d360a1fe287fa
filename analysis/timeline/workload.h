#pragma once
// What kind of run a trace is, before any verdict on it (issue 13): inference or training, eager or CUDA graphs,
// which framework, and the trace-level warnings a user must read first (no GPU activity, clock skew, dropped
// event kinds, a capture too short for a verdict, warm-up inside the capture).
//
// Kind, from the names the trace holds (CPU operators, NVTX / user annotations, kernels, thread names):
//   training  — backward or optimizer work: autograd engine functions (`autograd::engine::evaluate_function`,
//               `*Backward0`, `aten::*_backward`, `AccumulateGrad`), `## backward ##` / `zero_grad` / optimizer
//               annotations, optimizer kernels (`multi_tensor_apply_kernel<...Adam...>`, SGD/Adam/LAMB), an
//               autograd thread (`pt_autograd_N`). One such sign is enough: inference never runs backward.
//   inference — no training sign, and an inference sign: an LLM serving framework (vLLM, SGLang, TensorRT-LLM,
//               llama.cpp), prefill/decode/generate ranges, sampling or KV-cache kernels, `inference_mode`,
//               predictor stages, or forward passes only (`forward` in annotations or operator names).
//   unknown   — neither (HPC codes, micro-benchmarks, CPU-only traces without operators).
// Execution: share of kernels replayed from CUDA graphs (nsys --cuda-graph-trace=node, Kineto graph ids) and
// cudaGraphLaunch calls: none -> eager, all -> cuda-graphs, both -> mixed; no kernels -> none.
// Vendor (NVIDIA / AMD): see WorkloadResult::vendor.
// Framework, where the trace names it, weighing every sign (framework_evidence lists each with its weight):
//   process / thread names  `VLLM::EngineCore`, `VLLM::Worker` (vLLM), `sglang::scheduler` (SGLang)      weight 4
//   Python stacks           frames under vllm/, sglang/, tensorrt_llm/                                   weight 3
//   range grammar           SGLang `step[EXTEND|DECODE|MIXED|IDLE ...]`, EXTEND/DECODE forward modes;     weight 3
//                           vLLM `execute_model`, `execute_context_N(..)_generation_M(..)`; the
//                           `execute_N_context_C(..)_generation_G(..)` grammar both write               weight 1 each
//   CPU operators           `vllm::`, `_C::`, `_moe_C::`, `_C_cache_ops::` (vLLM); `sgl_kernel::`,
//                           `sglang::` (SGLang)                                                           weight 2
//   kernel names            `sgl_` / `sglang` (SGLang), `tensorrt_llm` / `trtllm` (TensorRT-LLM),
//                           `ggml` (llama.cpp): weight 2; a `vllm::` kernel or template argument: weight 1
//                           (SGLang runs some of vLLM's kernels)
// Each kind counts its distinct names up to 5 (a name seen 3 times counts once); the framework with the largest
// sum wins. Then Hugging Face transformers (python stacks under transformers/), plain PyTorch (aten:: operators and
// nothing more specific).
// torch.compile (TorchInductor), beside the framework (TorchCompile): Inductor's generated Triton kernels
// (`triton_poi_…`, `triton_per_…`, `triton_red_…`, `triton_tem_…`, `triton_for_…`) and the ranges it runs under
// (`Torch-Compiled Region`, `CompiledFxGraph`, `TorchDynamo Cache Lookup`); one compiled region or 10 Inductor kernels
// are enough. Its CUDA graphs (mode="reduce-overhead", cudagraph trees) are used when kernels of the run are replayed
// from graphs. A plain PyTorch / Hugging Face framework then reads "PyTorch (torch.compile)"; a serving framework
// keeps its name (vLLM compiles its model too).
// MoE (add_moe_workload): expert GEMM and routing kernels (op classes moe_gemm / moe_routing), MoE CPU ops
// (vllm::moe_forward, *fused_experts*, *fused_moe*), the expert count and top-k from their shapes (router logits
// [T, E], a TopK / topk / topk_softmax op's k, fused-experts weights [E, ...] and top-k weights [T, k]), or from the
// model config (set_moe_from_config: it wins).
// Pure: reads the trace and the phases, returns a value.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "analysis/trace/trace.h"

namespace sl {

enum class WorkloadKind : uint8_t { Unknown = 0, Inference = 1, Training = 2 };
enum class ExecutionMode : uint8_t { None = 0, Eager = 1, CudaGraphs = 2, Mixed = 3 };
const char* workload_kind_name(WorkloadKind k);      // "unknown", "inference", "training"
const char* execution_mode_name(ExecutionMode m);    // "none", "eager", "cuda-graphs", "mixed"

struct WorkloadWarning {
    std::string code;       // stable vocabulary, see resources/schemas/analysis.md
    std::string message;    // English, for people
    // What the message is made of, by name (numbers as decimal text, times in ns from the capture start), so that a
    // user interface can say it in its own language; the names per code are in resources/schemas/analysis.md.
    std::map<std::string, std::string> args;
};

struct MoeWorkload {
    bool detected = false;                 // MoE kernels or ops in the trace, or an MoE model config
    int64_t experts = 0, top_k = 0;        // 0 = not known
    std::string source;                    // where experts / top-k came from: "config" | "shapes" | "" (unknown)
    int64_t expert_gemm_kernels = 0, routing_kernels = 0;
    int64_t expert_gemm_ns = 0, routing_ns = 0;
    double gpu_share = 0;                  // (expert GEMMs + routing) / summed kernel time
    std::vector<std::string> implementations;   // the kernel families seen ("triton_kernels (matmul_ogs)", ...)
};

// One sign of the framework, as weighed (see above).
struct FrameworkSign {
    std::string framework;                 // "vLLM", "SGLang", ...
    std::string kind;                      // "process name" | "python stacks" | "range grammar" | "cpu operators"
                                           // | "kernel names"
    int64_t names = 0;                     // distinct names of that kind (capped at 5 in the weight)
    int64_t weight = 0;                    // weight of the kind x min(names, 5)
    std::string example;
};

// torch.compile (see above).
struct TorchCompile {
    bool detected = false;
    int64_t inductor_kernels = 0;          // kernels named as Inductor names its Triton kernels
    int64_t inductor_kernel_ns = 0;        // their summed time
    int64_t compiled_regions = 0;          // Torch-Compiled Region / CompiledFxGraph ranges
    bool cuda_graphs = false;              // its CUDA graphs replay kernels of the run
};

struct WorkloadOptions {
    int64_t min_capture_ns = 20'000'000;   // a capture shorter than 20 ms ...
    int64_t min_kernels = 50;              // ... or with fewer kernels is too short for a verdict
};

struct WorkloadResult {
    WorkloadOptions options;
    WorkloadKind kind = WorkloadKind::Unknown;
    ExecutionMode execution = ExecutionMode::None;
    std::string framework;                 // "vLLM", "SGLang", "TensorRT-LLM", "llama.cpp",
                                           // "Hugging Face transformers", "PyTorch", and those two with
                                           // " (torch.compile)"; empty when the trace does not say
    std::vector<std::string> evidence;     // what kind, execution and framework were recognised from
    int64_t graph_kernels = 0, eager_kernels = 0, graph_launches = 0;
    // Graph replay: replayed kernels whose CPU op was recovered from the graph's capture trace (graph_join.h), the
    // replayed kernels' summed time and its share of all kernel time; the capture traces joined.
    int64_t graph_kernels_joined = 0, graph_kernel_ns = 0, graph_joined_ns = 0;
    double graph_time_share = 0;
    std::vector<GraphCaptureJoin> captures;
    std::vector<FrameworkSign> framework_evidence;   // every sign weighed, largest weight first
    MoeWorkload moe;
    TorchCompile torch_compile;            // torch.compile / TorchInductor (issue 34)
    int64_t training_signs = 0, inference_signs = 0;   // distinct names that point each way
    std::vector<WorkloadWarning> warnings; // trace-level: also written as trace.warnings[]
    // The GPU vendor, "NVIDIA" or "AMD" (empty when the trace does not say), and what says so: the runtime's API
    // names (hip* / cuda*, cu*), the tracer's version keys (roctracer / CUPTI), the devices' names, warp size (64 on
    // AMD Instinct) and chips (gfx*), and the format (an nsys export is NVIDIA's). Rules pick each suggestion's and
    // verify command's form by it (diagnosis/rules.h).
    std::string vendor;
    std::vector<std::string> vendor_evidence;
};

// Kind, execution, framework and the trace-level warnings. Warm-up is added by add_phase_warnings().
WorkloadResult analyze_workload(const Trace& trace, const WorkloadOptions& options = {});

struct OpClassResult;
class OpClassifier;
// MoE from the op classes and the trace's shapes (see above).
void add_moe_workload(WorkloadResult& workload, const Trace& trace, const OpClassResult& classes,
                      const OpClassifier& classifier);
struct ModelConfig;
// An MoE model config names the experts and top-k (it wins over the trace's shapes).
void set_moe_from_config(WorkloadResult& workload, const ModelConfig& model);

struct PhaseResult;
// Adds what the step analysis found about warm-up: "warmup_excluded" (steps left out of the steady-state window,
// which it names) or "warmup_included" (too few steps to leave any out).
// Times in the messages are from origin_ns (the capture start, the origin every other time in the output uses).
void add_phase_warnings(WorkloadResult& workload, const PhaseResult& phases, int64_t origin_ns);

} // namespace sl
