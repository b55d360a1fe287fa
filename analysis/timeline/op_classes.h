#pragma once
// Operator classes of GPU kernel names (GEMM, attention, norm, ...), driven by resources/kernel_classes.json.
//
// The classifier tries the file's patterns in order; the first match wins. Every distinct name is classified once
// (names are interned, so the work is per StrId, not per kernel); sequence patterns ("after" a class, "within" N
// kernels on the stream) then reclass single kernels of a name by what ran just before them. memcpy/memset rows of the trace count as
// class "memcpy_memset" without name matching. Names that match no pattern fall into "other" and are listed, with
// their time, so users can extend the file (a user file with the same layout replaces the shipped one).

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/io/regex.h"
#include "analysis/trace/trace.h"

namespace sl {

class OpClassifier {
public:
    enum class PatternKind : uint8_t { Contains, Prefix, Regex };
    struct Pattern {
        int cls = 0;                 // index into class_ids()
        std::string framework;       // where the kernel family comes from ("cuBLAS", "vLLM", ...)
        std::string text;            // as written in the file
        PatternKind kind = PatternKind::Contains;
        std::string lower;           // lower-cased text (Contains/Prefix)
        Regex re;               // Regex
        // A sequence pattern ("after": class id, "within": N): it applies per kernel, not per name — to a kernel
        // whose name matches and one of the `within` kernels before it on its stream is of class `after` (HF's gated
        // MLP runs silu, the up GEMM, then a plain elementwise mul: that mul is the activation's). classify()
        // skips it; classify_ops() applies it over the kernels in stream order. -1 = a name pattern.
        int after = -1;
        int within = 0;
    };
    struct Match {
        int cls = 0;                 // class index
        int pattern = -1;            // index into patterns(), -1 when no pattern matched ("other")
    };

    // Parses the kernel-classes layout (see resources/kernel_classes.json). Throws TraceError naming `source` and
    // the offending entry on a malformed file (unknown class, bad regex, missing field).
    static OpClassifier from_json(const nlohmann::json& doc, const std::string& source);
    // Reads a file (throws TraceError when it cannot be read or parsed).
    static OpClassifier load_file(const std::string& path);
    // The user's file when `user_file` is non-empty, else the shipped resources/kernel_classes.json.
    static OpClassifier load(const std::string& user_file = {});

    Match classify(std::string_view name) const;

    const std::vector<std::string>& class_ids() const { return ids_; }
    const std::vector<std::string>& class_labels() const { return labels_; }
    // Chinese labels ("label_zh_CN" in the file; the English label when absent).
    const std::vector<std::string>& class_labels_zh_CN() const { return labels_zh_; }
    const std::vector<Pattern>& patterns() const { return patterns_; }
    // Whether `name` matches pattern i's text (whatever its kind).
    bool matches(size_t i, std::string_view name) const;
    // Index of a class id, or -1.
    int class_index(std::string_view id) const;
    int other_index() const { return other_; }
    int memcpy_index() const { return memcpy_; }
    int communication_index() const { return comm_; }
    const std::string& source() const { return source_; }

private:
    std::vector<std::string> ids_, labels_, labels_zh_;
    std::vector<Pattern> patterns_;
    int other_ = 0, memcpy_ = -1, comm_ = -1;
    std::string source_;
};

struct OpClassOptions {
    size_t max_unmatched_names = 200;   // unmatched names listed (largest total time first)
};

struct OpClassTotals {
    std::string id, label;
    std::string label_zh_CN;   // the Chinese label (the English one when the classes file has none)
    const std::string& label_for(std::string_view lang) const
    {
        return lang.rfind("zh", 0) == 0 && !label_zh_CN.empty() ? label_zh_CN : label.empty() ? id : label;
    }
    int64_t time_ns = 0;       // summed GPU time (kernels + memcpy/memset rows for memcpy_memset)
    int64_t count = 0;         // instances
    int64_t distinct_names = 0;
};

struct NameClass {
    StrId name = 0;
    int cls = 0;
    int pattern = -1;          // -1: unmatched
    int64_t time_ns = 0;
    int64_t count = 0;
};

struct OpClassResult {
    std::string source;                        // the classes file used
    std::vector<OpClassTotals> classes;        // in the file's class order
    std::vector<int16_t> kernel_class;         // per kernel row: class index
    std::vector<NameClass> names;              // one row per distinct kernel name, largest time first
    std::vector<NameClass> unmatched;          // names that fell into "other", largest time first (capped)
    int64_t unmatched_names_total = 0;         // before the cap
    int64_t kernel_time_ns = 0;                // Σ kernel durations (the percent base, nsys convention)
};

// Whether a top-k/sampling-class kernel launched `launches` times runs once per layer (a MoE router) rather than
// once per decode step (the sampler): when it runs at least half as often as the attention kernels, or, in a trace
// with no attention kernels, more than once per 8 GEMMs. The one rule behind both uses: classify_ops moves such a
// kernel name to moe_routing (only on the attention evidence: with no attention kernels it cannot tell a router
// from a busy sampler, so it leaves the class alone), and the step finder refuses the sampling class as a step
// boundary when all its launches together run per layer (PhaseOptions::per_layer_guard).
bool runs_once_per_layer(int64_t launches, int64_t attention_launches, int64_t gemm_launches);

// O(kernels + distinct names · patterns).
OpClassResult classify_ops(const Trace& trace, const OpClassifier& classifier, const OpClassOptions& options = {});

} // namespace sl
