#include "analysis/timeline/workload.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <string_view>

#include "analysis/timeline/phases.h"
#include "analysis/trace/clock_offset.h"

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

    // ---- framework -------------------------------------------------------------------------------------------
    if ((all & kVllm) || has(py, "vllm"))
        r.framework = "vLLM";
    else if ((all & kSglang) || has(py, "sglang"))
        r.framework = "SGLang";
    else if ((all & kTrtllm) || has(py, "tensorrt_llm"))
        r.framework = "TensorRT-LLM";
    else if (all & kLlamaCpp)
        r.framework = "llama.cpp";
    else if (has(py, "transformers"))
        r.framework = "Hugging Face transformers";
    else if (all & kTorch)
        r.framework = "PyTorch";
    if (!r.framework.empty())
        r.evidence.push_back("framework: " + r.framework +
                             (has(py, "transformers") && r.framework == "Hugging Face transformers"
                                  ? " (python stacks under transformers/)"
                                  : r.framework == "PyTorch" ? " (aten:: operators)" : " (range or kernel names)"));

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
    int64_t loads = 0;
    std::vector<int8_t> load_name(t.strings.size(), -1);
    for (size_t i = 0; i < t.api.size(); ++i) {
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
