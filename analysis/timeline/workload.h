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
// Framework, where the trace names it: vLLM (`execute_model`, `execute_context_N(..)_generation_M(..)`, vllm
// python stacks), SGLang (EXTEND/DECODE forward modes, sglang stacks), TensorRT-LLM (tensorrt_llm kernels, NVTX),
// llama.cpp (ggml kernels / ranges), Hugging Face transformers (python stacks under transformers/), plain PyTorch
// (aten:: operators and nothing more specific).
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

struct WorkloadOptions {
    int64_t min_capture_ns = 20'000'000;   // a capture shorter than 20 ms ...
    int64_t min_kernels = 50;              // ... or with fewer kernels is too short for a verdict
};

struct WorkloadResult {
    WorkloadOptions options;
    WorkloadKind kind = WorkloadKind::Unknown;
    ExecutionMode execution = ExecutionMode::None;
    std::string framework;                 // "vLLM", "SGLang", "TensorRT-LLM", "llama.cpp",
                                           // "Hugging Face transformers", "PyTorch"; empty when the trace does not say
    std::vector<std::string> evidence;     // what kind, execution and framework were recognised from
    int64_t graph_kernels = 0, eager_kernels = 0, graph_launches = 0;
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

struct PhaseResult;
// Adds what the step analysis found about warm-up: "warmup_excluded" (steps left out of the steady-state window,
// which it names) or "warmup_included" (too few steps to leave any out).
// Times in the messages are from origin_ns (the capture start, the origin every other time in the output uses).
void add_phase_warnings(WorkloadResult& workload, const PhaseResult& phases, int64_t origin_ns);

} // namespace sl
