#include "analysis/timeline/workload.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <string_view>

#include <nlohmann/json.hpp>

#include <map>
#include <set>

#include "analysis/io/graph_join.h"
#include "analysis/timeline/gpu_vendor.h"
#include "analysis/io/regex.h"
#include "analysis/io/model_config.h"
#include "analysis/timeline/op_classes.h"
#include "analysis/timeline/phases.h"
#include "analysis/trace/clock_offset.h"
#include "analysis/io/json_input.h"
#include "analysis/trace/cancel_point.h"

namespace sl {

const char* workload_kind_name(WorkloadKind k)
{
    switch (k) {
    case WorkloadKind::Inference: return "inference";
    case WorkloadKind::Training: return "training";
    case WorkloadKind::Unknown: break;
    }
    return "unknown";
}

const char* execution_mode_name(ExecutionMode m)
{
    switch (m) {
    case ExecutionMode::Eager: return "eager";
    case ExecutionMode::CudaGraphs: return "cuda-graphs";
    case ExecutionMode::Mixed: return "mixed";
    case ExecutionMode::None: break;
    }
    return "none";
}

namespace {

bool has(std::string_view s, std::string_view needle) { return s.find(needle) != std::string_view::npos; }

std::string lower(std::string_view s)
{
    std::string o(s);
    for (char& c : o)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return o;
}

// Signs in one (lower-cased) name. Bits: 1 training, 2 inference, 4.. frameworks.
enum Sign : uint32_t {
    kTrain = 1, kInfer = 2, kVllm = 4, kSglang = 8, kTrtllm = 16, kLlamaCpp = 32, kTorch = 64, kForward = 128
};

uint32_t signs_of(std::string_view n, bool kernel)
{
    uint32_t s = 0;
    if (has(n, "backward") || has(n, "autograd::engine") || has(n, "accumulategrad") || has(n, "optimizer") ||
        has(n, "zero_grad") || (kernel && (has(n, "adamfunctor") || has(n, "fused_adam") || has(n, "sgd"))))
        s |= kTrain;
    // "generate" only in ranges: HPC codes name kernels so (CloverLeaf's generate_chunk).
    if (has(n, "execute_model") || has(n, "execute_context_") || has(n, "decode") || has(n, "prefill") ||
        (!kernel && has(n, "generate")) || has(n, "inference") || has(n, "predict") || has(n, "reshape_and_cache") ||
        has(n, "paged_attention") || has(n, "kvcache") || has(n, "kv_cache") || has(n, "sampler") ||
        (kernel && (has(n, "argmax") || has(n, "sampling"))))
        s |= kInfer;
    if (has(n, "forward"))
        s |= kForward;
    if (has(n, "vllm") || has(n, "execute_context_") || has(n, "execute_model"))
        s |= kVllm;
    if (has(n, "sglang") || has(n, "forwardmode.extend") || has(n, "forward_extend") || has(n, "forward_decode"))
        s |= kSglang;
    if (has(n, "tensorrt_llm") || has(n, "trtllm"))
        s |= kTrtllm;
    if (has(n, "ggml") || has(n, "llama_decode") || has(n, "llama.cpp"))
        s |= kLlamaCpp;
    if (n.rfind("aten::", 0) == 0 || has(n, "at::native") || has(n, "torchdynamo") || has(n, "torch-compiled"))
        s |= kTorch;
    return s;
}

std::string ms_text(int64_t ns)
{
    char b[48];
    std::snprintf(b, sizeof b, "%.3f ms", static_cast<double>(ns) / 1e6);
    return b;
}

} // namespace

GpuVendor detect_gpu_vendor(const Trace& t)
{
    GpuVendor r;
    int amd = 0, nvidia = 0;
    std::vector<std::string> amd_why, nvidia_why;
    auto vote = [&](bool is_amd, int weight, std::string why) {
        (is_amd ? amd : nvidia) += weight;
        (is_amd ? amd_why : nvidia_why).push_back(std::move(why));
    };
    // Devices.
    bool dev_amd = false, dev_nvidia = false, warp64 = false, warp32 = false;
    std::string dev_amd_name, dev_nvidia_name;
    for (const auto& d : t.meta.devices) {
        const std::string n = lower(d.name) + " " + lower(d.chip);
        if (has(n, "amd") || has(n, "instinct") || has(n, "radeon") || has(n, "gfx")) {
            dev_amd = true;
            if (dev_amd_name.empty())
                dev_amd_name = d.name.empty() ? d.chip : d.name;
        } else if (has(n, "nvidia") || has(n, "tesla") || has(n, "geforce") || has(n, "quadro")) {
            dev_nvidia = true;
            if (dev_nvidia_name.empty())
                dev_nvidia_name = d.name;
        }
        warp64 |= d.warp_size == 64;
        warp32 |= d.warp_size == 32;
    }
    if (dev_amd)
        vote(true, 4, "device name '" + dev_amd_name + "'");
    if (dev_nvidia)
        vote(false, 4, "device name '" + dev_nvidia_name + "'");
    if (warp64 && !warp32)
        vote(true, 3, "warp (wavefront) size 64 in the device properties");
    else if (warp32 && !warp64 && !dev_amd)   // RDNA Radeons run wave32 too: a 32 names NVIDIA only without AMD names
        vote(false, 2, "warp size 32 in the device properties");
    // Runtime API names, each distinct name once.
    int64_t hip = 0, cuda = 0;
    std::string hip_example, cuda_example;
    std::vector<uint8_t> seen(t.strings.size(), 0);
    for (size_t i = 0; i < t.api.size(); ++i) {
        cancel_point(i);
        const StrId id = t.api.name[i];
        if (id >= seen.size() || seen[id])
            continue;
        seen[id] = 1;
        const std::string_view n = t.str(id);
        if (n.rfind("hip", 0) == 0 || n.rfind("hsa_", 0) == 0) {
            if (hip++ == 0)
                hip_example = std::string(n);
        } else if (n.rfind("cuda", 0) == 0 || (n.rfind("cu", 0) == 0 && n.size() > 2 &&
                                                std::isupper(static_cast<unsigned char>(n[2])))) {
            if (cuda++ == 0)
                cuda_example = std::string(n);
        }
    }
    if (hip > cuda)
        vote(true, 3, "HIP runtime calls (" + std::to_string(hip) + " distinct, e.g. " + hip_example + ")");
    else if (cuda > hip)
        vote(false, 3, "CUDA runtime/driver calls (" + std::to_string(cuda) + " distinct, e.g. " + cuda_example + ")");
    // Tracer and runtime versions.
    const auto& env = t.meta.environment;
    for (const char* k : {"roctracer_version", "hip_runtime_version", "hip_driver_version"})
        if (env.count(k)) {
            vote(true, 2, std::string(k) + " " + env.at(k));
            break;
        }
    for (const char* k : {"cupti_version", "cuda_runtime_version", "cuda_driver_version"})
        if (env.count(k)) {
            vote(false, 2, std::string(k) + " " + env.at(k));
            break;
        }
    // The format: Nsight Systems and Nsight Compute profile NVIDIA GPUs only.
    if (t.meta.format == "nsys-sqlite")
        vote(false, 2, "an Nsight Systems export");
    if (amd == nvidia) {
        if (amd > 0)
            r.evidence.push_back("vendor unknown: signs point both ways (AMD: " + std::to_string(amd) +
                                        ", NVIDIA: " + std::to_string(nvidia) + ")");
        return r;
    }
    const bool is_amd = amd > nvidia;
    r.vendor = is_amd ? "AMD" : "NVIDIA";
    r.evidence = is_amd ? amd_why : nvidia_why;
    const auto& other = is_amd ? nvidia_why : amd_why;
    for (const auto& w : other)
        r.evidence.push_back("against: " + w);
    return r;
}


WorkloadResult analyze_workload(const Trace& t, const WorkloadOptions& o)
{
    WorkloadResult r;
    r.options = o;

    // ---- names: each distinct name once ------------------------------------------------------------------------
    std::vector<uint8_t> seen(t.strings.size(), 0);   // 1 seen as range, 2 seen as kernel
    std::string train_example, infer_example, forward_example;
    int64_t forward_signs = 0;
    uint32_t all = 0;
    auto visit = [&](StrId id, bool kernel) {
        if (id >= seen.size() || (seen[id] & (kernel ? 2 : 1)))
            return;
        seen[id] |= kernel ? 2 : 1;
        const uint32_t s = signs_of(lower(t.str(id)), kernel);
        all |= s;
        if (s & kTrain) {
            ++r.training_signs;
            if (train_example.empty())
                train_example = std::string(t.str(id));
        }
        if (s & kInfer) {
            ++r.inference_signs;
            if (infer_example.empty())
                infer_example = std::string(t.str(id));
        }
        if (s & kForward) {
            ++forward_signs;
            if (forward_example.empty())
                forward_example = std::string(t.str(id));
        }
    };
    for (size_t i = 0; i < t.ranges.size(); ++i)
        if (t.ranges.kind[i] != RangeKind::PythonFunction)   // Python frames name code, not the workload's phases
            visit(t.ranges.name[i], false);
    for (size_t i = 0; i < t.gpu_ranges.size(); ++i)
        visit(t.gpu_ranges.name[i], false);
    for (size_t i = 0; i < t.kernels.size(); ++i)
        visit(t.kernels.name[i], true);
    int64_t autograd_threads = 0;
    for (const auto& th : t.meta.threads)
        if (has(lower(th.name), "autograd"))
            ++autograd_threads;
    std::string py;
    if (auto it = t.meta.environment.find("python_frameworks"); it != t.meta.environment.end())
        py = it->second;

    // ---- kind ------------------------------------------------------------------------------------------------
    auto shorten = [](std::string s) {
        if (s.size() > 80)
            s = s.substr(0, 77) + "...";
        return s;
    };
    if (r.training_signs > 0 || autograd_threads > 0) {
        r.kind = WorkloadKind::Training;
        if (r.training_signs > 0)
            r.evidence.push_back("training: " + std::to_string(r.training_signs) +
                                 " distinct backward/optimizer names, e.g. \"" + shorten(train_example) + "\"");
        if (autograd_threads > 0)
            r.evidence.push_back("training: an autograd thread (" + std::to_string(autograd_threads) + ")");
    } else if (r.inference_signs > 0) {
        r.kind = WorkloadKind::Inference;
        r.evidence.push_back("inference: " + std::to_string(r.inference_signs) +
                             " distinct inference names (serving, prefill/decode, sampling, KV cache), e.g. \"" +
                             shorten(infer_example) + "\"; no backward or optimizer work");
    } else if (!py.empty()) {
        r.kind = WorkloadKind::Inference;
        r.evidence.push_back("inference: model code from " + py + " runs, and no backward or optimizer work");
    } else if (forward_signs > 0) {
        r.kind = WorkloadKind::Inference;
        r.evidence.push_back("inference: forward passes only (\"" + shorten(forward_example) +
                             "\"), no backward or optimizer work");
    } else {
        r.evidence.push_back("kind unknown: no backward/optimizer work, and nothing names inference");
    }

    // ---- execution -------------------------------------------------------------------------------------------
    // A kernel whose launch the trace does not hold (issued before the capture began, and still queued when it did:
    // a GPU-bound run whose host is steps ahead) says nothing about how it was launched; it is counted apart.
    int64_t unlinked = 0;
    const bool has_launches = t.api.size() > 0;
    for (size_t i = 0; i < t.kernels.size(); ++i) {
        cancel_point(i);
        const int32_t a = i < t.kernels.launch_api.size() ? t.kernels.launch_api[i] : kNoIndex;
        if ((t.kernels.flags[i] & KernelTable::kGraphNode) ||
            (a >= 0 && static_cast<size_t>(a) < t.api.size() && (t.api.flags[static_cast<size_t>(a)] & kApiGraphLaunch)))
            ++r.graph_kernels;
        else if (has_launches && a < 0)
            ++unlinked;
        else
            ++r.eager_kernels;
    }
    for (size_t i = 0; i < t.api.size(); ++i)
        if (t.api.flags[i] & kApiGraphLaunch)
            ++r.graph_launches;
    const bool graphs = r.graph_kernels > 0 || r.graph_launches > 0;
    // A replayed step with a few kernels around it (the next token's input copied in, a position bumped, a sampler
    // outside the graph) is a CUDA-graph run: mixed only when eager kernels are a real share of the launches.
    constexpr double kEagerShareForMixed = 0.05;
    const int64_t linked = r.graph_kernels + r.eager_kernels;
    if (t.kernels.size() == 0 && r.graph_launches == 0)
        r.execution = ExecutionMode::None;
    else if (!graphs)
        r.execution = ExecutionMode::Eager;
    else if (r.eager_kernels == 0 ||
             static_cast<double>(r.eager_kernels) < kEagerShareForMixed * static_cast<double>(linked))
        r.execution = ExecutionMode::CudaGraphs;
    else
        r.execution = ExecutionMode::Mixed;
    if (graphs)
        r.evidence.push_back("execution: " + std::to_string(r.graph_kernels) + " kernels replayed from CUDA graphs, " +
                             std::to_string(r.eager_kernels) + " launched one by one, " +
                             std::to_string(r.graph_launches) + " graph launches" +
                             (unlinked > 0 ? ", " + std::to_string(unlinked) +
                                                 " whose launch precedes the capture (not counted)"
                                           : std::string()));
    else if (t.kernels.size() > 0)
        r.evidence.push_back("execution: every kernel launched one by one (no CUDA graph launches)");

    // ---- framework: every sign weighed -------------------------------------------------------------------------
    {
        struct Kind {
            const char* framework;
            const char* kind;
            int64_t weight;
        };
        // (framework, kind) -> distinct names and an example.
        std::map<std::pair<std::string, std::string>, std::pair<std::set<std::string>, int64_t>> signs;
        auto sign = [&](const char* fw, const char* kind, int64_t weight, std::string_view example) {
            auto& e = signs[{fw, kind}];
            if (e.first.size() < 16)
                e.first.insert(std::string(example.substr(0, 120)));
            e.second = weight;
        };
        std::vector<uint8_t> looked(t.strings.size(), 0);   // 1 as a range, 2 as a kernel, 4 as a CPU op
        auto range_name = [&](StrId id) {
            if (id >= looked.size() || (looked[id] & 1))
                return;
            looked[id] |= 1;
            const std::string_view n = t.str(id);
            const std::string l = lower(n);
            if (n.rfind("step[", 0) == 0 || has(l, "forwardmode.extend") || has(l, "forward_extend") ||
                has(l, "forward_decode"))
                sign("SGLang", "range grammar", 3, n);
            if (has(l, "execute_model") || has(l, "execute_context_"))
                sign("vLLM", "range grammar", 3, n);
            static const Regex serving(R"(^execute_\d+_context_\d+)");
            if (serving.search(n)) {
                sign("vLLM", "range grammar", 1, n);
                sign("SGLang", "range grammar", 1, n);
            }
            if (has(l, "tensorrt_llm") || has(l, "trtllm"))
                sign("TensorRT-LLM", "range grammar", 3, n);
            if (has(l, "llama_decode") || has(l, "ggml"))
                sign("llama.cpp", "range grammar", 3, n);
        };
        auto op_name = [&](StrId id) {
            if (id >= looked.size() || (looked[id] & 4))
                return;
            looked[id] |= 4;
            const std::string_view n = t.str(id);
            if (n.rfind("vllm::", 0) == 0 || n.rfind("_C::", 0) == 0 || n.rfind("_moe_C::", 0) == 0 ||
                n.rfind("_C_cache_ops::", 0) == 0 || n.rfind("_rocm_C::", 0) == 0)
                sign("vLLM", "cpu operators", 2, n);
            if (n.rfind("sgl_kernel::", 0) == 0 || n.rfind("sglang::", 0) == 0 || n.rfind("sglang_", 0) == 0)
                sign("SGLang", "cpu operators", 2, n);
            if (n.rfind("trtllm::", 0) == 0 || n.rfind("tensorrt_llm::", 0) == 0)
                sign("TensorRT-LLM", "cpu operators", 2, n);
        };
        auto kernel_name = [&](StrId id) {
            if (id >= looked.size() || (looked[id] & 2))
                return;
            looked[id] |= 2;
            const std::string_view n = t.str(id);
            const std::string l = lower(n);
            if (has(l, "sgl_") || has(l, "sglang"))
                sign("SGLang", "kernel names", 2, n);
            if (has(l, "tensorrt_llm") || has(l, "trtllm"))
                sign("TensorRT-LLM", "kernel names", 2, n);
            if (has(l, "ggml"))
                sign("llama.cpp", "kernel names", 2, n);
            if (has(l, "vllm::") || has(l, "vllm_"))
                sign("vLLM", "kernel names", 1, n);
        };
        for (size_t i = 0; i < t.ranges.size(); ++i) {
            cancel_point(i);
            if (t.ranges.kind[i] == RangeKind::CpuOp)
                op_name(t.ranges.name[i]);
            else if (t.ranges.kind[i] != RangeKind::PyModule)
                range_name(t.ranges.name[i]);
        }
        for (size_t i = 0; i < t.gpu_ranges.size(); ++i)
            range_name(t.gpu_ranges.name[i]);
        for (size_t i = 0; i < t.op_args.size(); ++i)
            if (t.op_args.source[i] == OpArgsTable::kCpuOp)
                op_name(t.op_args.name[i]);
        for (size_t i = 0; i < t.kernels.size(); ++i)
            kernel_name(t.kernels.name[i]);
        for (const auto& [pkg, fw] : {std::pair<const char*, const char*>{"vllm", "vLLM"}, {"sglang", "SGLang"},
                                      {"tensorrt_llm", "TensorRT-LLM"}})
            if (has(py, pkg))
                sign(fw, "python stacks", 3, std::string(pkg) + "/");
        auto names = [&](const std::string& n) {
            const std::string l = lower(n);
            if (has(l, "vllm"))
                sign("vLLM", "process name", 4, n);
            if (has(l, "sglang"))
                sign("SGLang", "process name", 4, n);
            if (has(l, "tensorrt_llm") || has(l, "trtllm"))
                sign("TensorRT-LLM", "process name", 4, n);
        };
        for (const auto& p : t.meta.processes)
            names(p.name);
        for (const auto& th : t.meta.threads)
            names(th.name);

        std::map<std::string, int64_t> score;
        for (const auto& [key, e] : signs) {
            FrameworkSign f;
            f.framework = key.first;
            f.kind = key.second;
            f.names = static_cast<int64_t>(e.first.size());
            f.weight = e.second * std::min<int64_t>(f.names, 5);
            f.example = e.first.empty() ? std::string() : *e.first.begin();
            score[f.framework] += f.weight;
            r.framework_evidence.push_back(std::move(f));
        }
        std::stable_sort(r.framework_evidence.begin(), r.framework_evidence.end(),
                         [](const FrameworkSign& a, const FrameworkSign& b) { return a.weight > b.weight; });
        std::string best;
        int64_t best_score = 0;
        for (const char* fw : {"vLLM", "SGLang", "TensorRT-LLM", "llama.cpp"})   // ties: this order
            if (const auto it = score.find(fw); it != score.end() && it->second > best_score) {
                best = fw;
                best_score = it->second;
            }
        if (!best.empty()) {
            r.framework = best;
            std::string used, against;
            for (const auto& f : r.framework_evidence) {
                std::string item = f.kind + " (" + std::to_string(f.names) + (f.names == 1 ? " name" : " names") +
                                   ", e.g. \"" + shorten(f.example) + "\")";
                if (f.framework == best)
                    used += (used.empty() ? "" : "; ") + item;
            }
            for (const auto& [fw, sc] : score)
                if (fw != best)
                    against += (against.empty() ? "" : ", ") + fw + " " + std::to_string(sc);
            r.evidence.push_back("framework: " + best + " (weight " + std::to_string(best_score) + ": " + used + ")" +
                                 (against.empty() ? std::string() : " over " + against));
        } else if (has(py, "transformers")) {
            r.framework = "Hugging Face transformers";
            r.evidence.push_back("framework: Hugging Face transformers (python stacks under transformers/)");
        } else if (all & kTorch) {
            r.framework = "PyTorch";
            r.evidence.push_back("framework: PyTorch (aten:: operators)");
        }
    }

    // ---- torch.compile (TorchInductor) ------------------------------------------------------------------------
    {
        TorchCompile& c = r.torch_compile;
        std::vector<int8_t> inductor(t.strings.size(), -1);   // per kernel name: -1 not looked at, 0 no, 1 yes
        std::string kernel_example, region_example;
        for (size_t i = 0; i < t.kernels.size(); ++i) {
            cancel_point(i);
            const StrId id = t.kernels.name[i];
            if (id >= inductor.size())
                continue;
            if (inductor[id] < 0) {
                const std::string_view n = t.str(id);
                inductor[id] = 0;
                for (const char* p : {"triton_poi_", "triton_per_", "triton_red_", "triton_tem_", "triton_for_"})
                    if (n.rfind(p, 0) == 0)
                        inductor[id] = 1;
                if (inductor[id] && kernel_example.empty())
                    kernel_example = std::string(n);
            }
            if (inductor[id] == 1) {
                ++c.inductor_kernels;
                c.inductor_kernel_ns += t.kernels.end[i] - t.kernels.start[i];
            }
        }
        std::vector<int8_t> region(t.strings.size(), -1);
        for (size_t i = 0; i < t.ranges.size(); ++i) {
            cancel_point(i);
            const StrId id = t.ranges.name[i];
            if (id >= region.size())
                continue;
            if (region[id] < 0) {
                const std::string_view n = t.str(id);
                region[id] = n.rfind("Torch-Compiled Region", 0) == 0 || has(n, "CompiledFxGraph") ? 1 : 0;
                if (region[id] && region_example.empty())
                    region_example = std::string(n);
            }
            c.compiled_regions += region[id] == 1 ? 1 : 0;
        }
        constexpr int64_t kInductorKernels = 10;
        c.detected = c.compiled_regions > 0 || c.inductor_kernels >= kInductorKernels;
        c.cuda_graphs = c.detected && r.graph_kernels > 0;
        if (c.detected) {
            std::string why;
            if (c.inductor_kernels > 0)
                why = std::to_string(c.inductor_kernels) + " Inductor Triton kernels (e.g. \"" + shorten(kernel_example) +
                      "\")";
            if (c.compiled_regions > 0)
                why += (why.empty() ? "" : ", ") + std::to_string(c.compiled_regions) + " compiled-region ranges (\"" +
                       shorten(region_example) + "\")";
            r.evidence.push_back("torch.compile: " + why + "; its CUDA graphs " +
                                 (c.cuda_graphs ? "replay " + std::to_string(r.graph_kernels) + " kernels"
                                                : std::string("are not used (no graph replay)")));
            if (r.framework.empty() || r.framework == "PyTorch" || r.framework == "Hugging Face transformers")
                r.framework = (r.framework.empty() ? std::string("PyTorch") : r.framework) + " (torch.compile)";
        }
    }

    // ---- graph replay: what the capture join recovered ----------------------------------------------------------
    {
        int64_t total_ns = 0, graph_ns = 0;
        for (size_t i = 0; i < t.kernels.size(); ++i) {
            cancel_point(i);
            const int64_t d = t.kernels.end[i] - t.kernels.start[i];
            total_ns += d;
            const int32_t a = t.kernels.launch_api[i];
            const bool replayed = (t.kernels.flags[i] & KernelTable::kGraphNode) ||
                                  (a >= 0 && static_cast<size_t>(a) < t.api.size() &&
                                   (t.api.flags[static_cast<size_t>(a)] & kApiGraphLaunch));
            if (replayed)
                graph_ns += d;
        }
        r.graph_kernel_ns = graph_ns;
        r.graph_time_share = total_ns > 0 ? static_cast<double>(graph_ns) / static_cast<double>(total_ns) : 0;
        int64_t joined_ns = 0;
        for (size_t j = 0; j < t.graph_ops.size(); ++j) {
            const uint32_t k = t.graph_ops.kernel[j];
            if (k < t.kernels.size() && t.graph_ops.op[j] != kNoIndex) {
                ++r.graph_kernels_joined;
                joined_ns += t.kernels.end[k] - t.kernels.start[k];
            }
        }
        r.captures = t.meta.captures;
        r.graph_joined_ns = joined_ns;
    }

    // ---- vendor ----------------------------------------------------------------------------------------------
    {
        GpuVendor v = detect_gpu_vendor(t);
        r.vendor = std::move(v.vendor);
        r.vendor_evidence = std::move(v.evidence);
    }

    // ---- trace-level warnings ----------------------------------------------------------------------------------
    const int64_t gpu_ops = static_cast<int64_t>(t.kernels.size() + t.memcpy.size() + t.memset.size());
    if (gpu_ops == 0)
        r.warnings.push_back({"no_gpu_activity", "the trace holds no kernels, copies or sets: GPU utilisation is "
                                                 "unknown (null), not 100 %, and no GPU finding can be made", {}});
    else if (t.kernels.size() == 0)
        r.warnings.push_back({"no_kernels", "the trace holds copies or sets but no kernels", {}});
    if (t.meta.clock_shift_ns != 0) {
        r.warnings.push_back({"clock_skew", "host and device clocks disagree (" + t.meta.clock_shift_reason +
                                                "); GPU times were moved by " + ms_text(t.meta.clock_shift_ns) +
                                                " onto the host clock, so queue delays and idle time are "
                                                "measured after the correction",
                              {{"reason", t.meta.clock_shift_reason},
                               {"corrected", "true"},
                               {"shift_ns", std::to_string(t.meta.clock_shift_ns)}}});
    } else if (const ClockOffset off = detect_clock_offset(t); off.detected) {
        r.warnings.push_back({"clock_skew", "host and device clocks disagree (" + off.reason +
                                                "); queue delays and host-side idle attribution are not "
                                                "trustworthy on this trace",
                              {{"reason", off.reason}, {"corrected", "false"}}});
    }
    if (!t.meta.dropped_events.empty()) {
        int64_t n = 0;
        std::string list;
        for (const auto& [kind, c] : t.meta.dropped_events) {
            n += c;
            list += (list.empty() ? "" : ", ") + kind + " " + std::to_string(c);
        }
        r.warnings.push_back({"unsupported_events_dropped",
                              std::to_string(n) + " events of kinds Sightline does not read were dropped (" + list +
                                  "); what they did on the device is not analysed",
                              {{"events", std::to_string(n)}, {"kinds", list}}});
    }
    const int64_t capture = t.meta.capture_end - t.meta.capture_start;
    const bool too_brief = capture < o.min_capture_ns;
    const bool too_few = static_cast<int64_t>(t.kernels.size()) < o.min_kernels;
    if (gpu_ops > 0 && (too_brief || too_few)) {
        // Say which limit the capture is under: a 1.4 s capture with 36 kernels is short of kernels, not of time.
        const std::string kernels = std::to_string(t.kernels.size());
        std::string why;
        if (too_brief && too_few)
            why = "it is shorter than " + ms_text(o.min_capture_ns) + " and holds fewer than " +
                  std::to_string(o.min_kernels) + " kernels";
        else if (too_brief)
            why = "it is shorter than " + ms_text(o.min_capture_ns);
        else
            why = "it holds fewer than " + std::to_string(o.min_kernels) + " kernels";
        r.warnings.push_back({"capture_too_short",
                              "the capture (" + ms_text(capture) + ", " + kernels +
                                  " kernels) is too small for a verdict: " + why + "; findings are indicative only",
                              {{"capture_ns", std::to_string(capture)},
                               {"kernels", kernels},
                               {"min_capture_ns", std::to_string(o.min_capture_ns)},
                               {"min_kernels", std::to_string(o.min_kernels)},
                               {"short_of", too_brief && too_few ? "both" : too_brief ? "time" : "kernels"}}});
    }
    // Graph replay: the capture joined, or how much ran without CPU ops and shapes, and how to record them.
    for (const auto& c : r.captures) {
        if (!c.used)
            continue;
        const std::string file = std::filesystem::path(c.path).filename().string();
        const std::string from = c.source == "beside"        ? "found beside the trace in capture_traces/"
                                 : c.source == "option"      ? "given with --capture-trace"
                                 : c.source == "graph-nodes" ? "recorded in this nsys export: the NVTX ranges open "
                                                               "when each graph node was created"
                                                             : "given as an input and recognised as a graph capture";
        std::string what = c.batch_size > 0 ? "batch " + std::to_string(c.batch_size) : std::string();
        if (!c.mode.empty())
            what += (what.empty() ? "" : ", ") + c.mode;
        r.warnings.push_back(
            {"graph_capture_joined",
             "graph replay joined to its capture " + file + (what.empty() ? "" : " (" + what + ")") + ", " + from +
                 ": " + std::to_string(c.kernels_matched) + " of " + std::to_string(c.kernels_replayed) +
                 " replayed kernels matched their captured twin (" + std::to_string(c.replays) +
                 " graph launches, " + std::to_string(c.captured_launches) +
                 " captured launches); they inherit its CPU ops, modules and shapes",
             {{"file", c.path},
              {"source", c.source},
              {"batch_size", std::to_string(c.batch_size)},
              {"mode", c.mode},
              {"matched", std::to_string(c.kernels_matched)},
              {"replayed", std::to_string(c.kernels_replayed)},
              {"replays", std::to_string(c.replays)},
              {"captured_launches", std::to_string(c.captured_launches)}}});
    }
    if (const int64_t without = r.graph_kernels - r.graph_kernels_joined; r.graph_kernels > 0 && without > 0) {
        int64_t total_ns = 0;
        for (size_t i = 0; i < t.kernels.size(); ++i)
            total_ns += t.kernels.end[i] - t.kernels.start[i];
        const int64_t ns = r.graph_kernel_ns - r.graph_joined_ns;
        const double share = total_ns > 0 ? 100.0 * static_cast<double>(ns) / static_cast<double>(total_ns) : 0;
        char pct[32];
        std::snprintf(pct, sizeof pct, "%.1f", share);
        const bool joined_some = r.graph_kernels_joined > 0;
        r.warnings.push_back(
            {"graph_replay_without_shapes",
             std::to_string(without) + (joined_some ? " of the " + std::to_string(r.graph_kernels) : std::string()) +
                 " kernels (" + pct + " % of GPU kernel time) ran in " + gpu_runtime_name(r.vendor) + " graph replay " +
                 (joined_some ? "without a captured twin" : "with no capture trace joined") +
                 ": a graph launch carries no CPU op, so they have no operator, module, shapes or dtype, and the "
                 "measured throughput, config check and Roofline points leave them out. Record the graph capture "
                 "with the profiler on and pass it with --capture-trace (or put it in capture_traces/ beside the "
                 "trace): vLLM --profiler-config.profiler torch --profiler-config.capture_torch_profiler True "
                 "(written to <torch_profiler_dir>/capture_traces), SGLang --enable-profile-cuda-graph (with "
                 "SGLANG_GRAPH_BATCH_CAPTURE=1 from 0.5.13); nsys: --cuda-graph-trace=node",
             {{"kernels", std::to_string(without)},
              {"graph_kernels", std::to_string(r.graph_kernels)},
              {"kernel_ns", std::to_string(ns)},
              {"share_pct", pct}}});
    }
    if (is_capture_trace(t)) {
        int64_t launches = 0;
        for (size_t i = 0; i < t.api.size(); ++i)
            launches += (t.api.flags[i] & kApiLaunch) ? 1 : 0;
        r.warnings.push_back({"graph_capture_trace",
                              "this is the trace of a CUDA/HIP graph capture: " + std::to_string(launches) +
                                  " kernel launches, most of them between stream Begin/EndCapture calls, add graph "
                                  "nodes that never run here (" + std::to_string(t.kernels.size()) +
                                  " kernels ran); it is not a run to judge: give it with --capture-trace beside "
                                  "the trace of the replay, whose kernels then inherit its CPU ops and shapes",
                              {{"launches", std::to_string(launches)}, {"kernels", std::to_string(t.kernels.size())}}});
    }
    int64_t loads = 0;
    std::vector<int8_t> load_name(t.strings.size(), -1);
    for (size_t i = 0; i < t.api.size(); ++i) {
        cancel_point(i);
        const StrId n = t.api.name[i];
        if (n >= load_name.size())
            continue;
        if (load_name[n] < 0) {
            const std::string_view s = t.str(n);
            load_name[n] = has(s, "ModuleLoad") || has(s, "LibraryLoad") ? 1 : 0;
        }
        loads += load_name[n];
    }
    if (loads > 0)
        r.warnings.push_back({"warmup_included", std::to_string(loads) +
                                                     " module/library loads (lazy first launches) lie inside the "
                                                     "capture: the first calls of those kernels include loading",
                              {{"cause", "module_loads"}, {"loads", std::to_string(loads)}}});
    // The reader's own notes, except those restated above with a code of their own.
    for (const auto& w : t.meta.warnings)
        if (!has(w, "host and device clocks disagree") && !has(w, "events of kinds Sightline does not read") &&
            !has(w, "no GPU activity"))
            r.warnings.push_back({"reader", w, {}});
    return r;
}

void add_phase_warnings(WorkloadResult& w, const PhaseResult& p, int64_t origin_ns)
{
    if (p.warmup_excluded > 0 && p.steady_end > p.steady_start)
        w.warnings.push_back({"warmup_excluded",
                              std::to_string(p.warmup_excluded) + " warm-up decode steps (" +
                                  std::to_string(p.warmup_detected) + " of them found slow) are left out of the "
                                  "steady-state window " + ms_text(p.steady_start - origin_ns) + " .. " +
                                  ms_text(p.steady_end - origin_ns) + " from the capture start",
                              {{"steps", std::to_string(p.warmup_excluded)},
                               {"slow_steps", std::to_string(p.warmup_detected)},
                               {"steady_start_ns", std::to_string(p.steady_start - origin_ns)},
                               {"steady_end_ns", std::to_string(p.steady_end - origin_ns)}}});
    else if (p.decode_steps > 0 && p.warmup_excluded == 0 && p.options.warmup_steps > 0)
        w.warnings.push_back({"warmup_included", "too few decode steps (" + std::to_string(p.decode_steps) +
                                                     ") to leave warm-up out: TPOT includes the first steps",
                              {{"cause", "few_decode_steps"}, {"decode_steps", std::to_string(p.decode_steps)}}});
}

} // namespace sl

namespace sl {

namespace {

// Integer dims of argument i of a recorded "Input Dims" list ({} when not a tensor).
std::vector<int64_t> dims_of(const nlohmann::json& d, size_t i)
{
    std::vector<int64_t> out;
    if (!d.is_array() || i >= d.size() || !d[i].is_array())
        return out;
    for (const auto& x : d[i]) {
        if (!x.is_number_integer())
            return {};
        out.push_back(x.get<int64_t>());
    }
    return out;
}

} // namespace

void add_moe_workload(WorkloadResult& w, const Trace& t, const OpClassResult& classes, const OpClassifier& c)
{
    MoeWorkload& m = w.moe;
    const int gemm = c.class_index("moe_gemm"), routing = c.class_index("moe_routing");
    std::set<std::string> impl;
    for (const auto& nc : classes.names) {
        if (nc.cls != gemm && nc.cls != routing)
            continue;
        if (nc.cls == gemm) {
            m.expert_gemm_kernels += nc.count;
            m.expert_gemm_ns += nc.time_ns;
        } else {
            m.routing_kernels += nc.count;
            m.routing_ns += nc.time_ns;
        }
        if (nc.pattern >= 0 && static_cast<size_t>(nc.pattern) < c.patterns().size())
            impl.insert(c.patterns()[static_cast<size_t>(nc.pattern)].framework);
    }
    m.implementations.assign(impl.begin(), impl.end());
    m.gpu_share = classes.kernel_time_ns > 0
                      ? static_cast<double>(m.expert_gemm_ns + m.routing_ns) / static_cast<double>(classes.kernel_time_ns)
                      : 0;
    // Experts and top-k from the shapes of the MoE and router ops.
    std::map<int64_t, int64_t> experts_seen, topk_seen;   // value -> calls
    bool moe_ops = false;
    const OpArgsTable& a = t.op_args;
    for (size_t i = 0; i < a.size(); ++i) {
        if (a.source[i] != OpArgsTable::kCpuOp || a.input_dims[i].empty())
            continue;
        const std::string_view n = t.str(a.name[i]);
        const bool moe_forward = n == "vllm::moe_forward";
        const bool fused = has(n, "fused_experts") || has(n, "fused_moe");
        const bool topk = n == "TopK";
        const bool topk_softmax = has(n, "topk_softmax");
        if (!moe_forward && !fused && !topk && !topk_softmax)
            continue;
        const nlohmann::json d = parse_json_lenient(a.input_dims[i]);
        if (moe_forward) {
            moe_ops = true;
            if (const auto r = dims_of(d, 1); r.size() == 2 && r[1] > 0)
                ++experts_seen[r[1]];
        } else if (fused) {
            const auto w1 = dims_of(d, 1), tw = dims_of(d, 3);
            if (w1.size() == 3 && tw.size() == 2 && w1[0] > 0 && tw[1] > 0) {
                moe_ops = true;
                ++experts_seen[w1[0]];
                ++topk_seen[tw[1]];
            }
        } else if (topk) {
            // triton_kernels' router: TopK(logits [T, E], k, ...), k in Concrete Inputs[1].
            const nlohmann::json ci = parse_json_lenient(a.concrete_inputs[i]);
            if (ci.is_array() && ci.size() > 1 && ci[1].is_string()) {
                char* end = nullptr;
                const std::string ks = ci[1].get<std::string>();
                const long long k = std::strtoll(ks.c_str(), &end, 10);
                if (!ks.empty() && end && *end == '\0' && k > 0)
                    ++topk_seen[k];
            }
        } else if (const auto tw = dims_of(d, 0), logits = d.is_array() && !d.empty() ? dims_of(d, d.size() - 1)
                                                                                     : std::vector<int64_t>{};
                   tw.size() == 2 && logits.size() == 2 && tw[1] > 0) {
            // vLLM topk_softmax(topk_weights [T, k], topk_ids, token_expert_indices, gating_output [T, E]).
            ++topk_seen[tw[1]];
            ++experts_seen[logits[1]];
        }
    }
    auto most = [](const std::map<int64_t, int64_t>& v) {
        int64_t best = 0, calls = 0;
        for (const auto& [x, n] : v)
            if (n > calls) {
                best = x;
                calls = n;
            }
        return best;
    };
    m.detected = m.expert_gemm_kernels > 0 || moe_ops;
    if (!m.detected)
        return;
    if (m.source != "config") {
        m.experts = most(experts_seen);
        m.top_k = m.experts > 0 ? std::min(most(topk_seen), m.experts) : most(topk_seen);
        m.source = m.experts > 0 || m.top_k > 0 ? "shapes" : "";
    }
    char pct[32];
    std::snprintf(pct, sizeof pct, "%.1f", 100.0 * m.gpu_share);
    std::string line = "MoE: " + std::to_string(m.expert_gemm_kernels) + " expert GEMM and " +
                       std::to_string(m.routing_kernels) + " routing kernels, " + pct + " % of kernel time";
    if (!m.implementations.empty()) {
        line += " (";
        for (size_t i = 0; i < m.implementations.size(); ++i)
            line += (i ? ", " : "") + m.implementations[i];
        line += ")";
    }
    if (m.experts > 0 || m.top_k > 0)
        line += "; " + (m.experts > 0 ? std::to_string(m.experts) : std::string("?")) + " experts, top-" +
                (m.top_k > 0 ? std::to_string(m.top_k) : std::string("?")) + " from the " +
                (m.source == "config" ? "model config" : "ops' shapes");
    w.evidence.push_back(line);
}

void set_moe_from_config(WorkloadResult& w, const ModelConfig& cfg)
{
    if (!cfg.is_moe())
        return;
    MoeWorkload& m = w.moe;
    m.detected = true;
    m.experts = cfg.num_experts;
    m.top_k = cfg.experts_per_token;
    m.source = "config";
    w.evidence.push_back("MoE: " + std::to_string(m.experts) + " experts, top-" + std::to_string(m.top_k) +
                         " from the model config");
}

} // namespace sl
