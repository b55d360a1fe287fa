#pragma once
// Serving steps named by their framework: the grammar of step annotations (resources/step_grammar.json) and the
// batch composition a step's name states.
//
// vLLM and SGLang name every scheduler step: vLLM execute_{N}_context_{C}(sq{Σq}sk{Σk}sqsq{Σq²}sqsk{Σq·k})
// _generation_{G}(sq…sk…sqsq…sqsk…) — N scheduled tokens, C prefill (context) requests with their summed query and
// KV lengths, G decode (generation) requests with theirs — and its older execute_context_C(T)_generation_G(T);
// SGLang step[EXTEND bs=15 toks=15360] / step[DECODE bs=32] / step[MIXED …]; TensorRT-LLM "[Executor]
// _forward_step I: C ctx reqs, G gen reqs". The grammar is data so that a new framework version is a data change:
// each format is a regular expression whose groups name the fields they hold (see the file's "about").
//
// Step kind, from the token shares (thresholds in the file's "kinds"): prefill-only (no decode request),
// decode-only (no prefill request), else by the prefill share of the step's tokens p = Σq_prefill / (Σq_prefill +
// Σq_decode): prefill-heavy when p >= prefill_heavy_share (0.8), decode-heavy when p <= decode_heavy_share (0.2),
// mixed between; mixed when the tokens of a side are not stated.

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/io/regex.h"

namespace sl {

// A step's batch as its annotation states it; -1 = not stated.
struct StepBatch {
    std::string format;        // grammar format id ("vllm_execute", "sglang_step", ...); "" = no annotation
    std::string framework;     // "vLLM", "SGLang", "TensorRT-LLM", ...
    int64_t tokens = -1;       // tokens scheduled in the step
    int64_t prefill_requests = -1, prefill_tokens = -1, prefill_kv_tokens = -1, prefill_sqsq = -1, prefill_sqsk = -1;
    int64_t decode_requests = -1, decode_tokens = -1, decode_kv_tokens = -1, decode_sqsq = -1, decode_sqsk = -1;

    bool known() const { return !format.empty(); }
    // Σq, Σk, Σq², Σq·k of both sides known (what the inference attention model needs).
    bool has_attention_sums() const;
    // Fills what this batch does not state from another annotation of the same step (format kept).
    void fill_from(const StepBatch& other);
    // "15 prefill requests (15,360 tokens, 15,360 KV)", "32 decode requests (55,086 KV)", joined by " + ".
    std::string composition() const;
};

enum class StepKind : uint8_t { Unknown = 0, PrefillOnly, PrefillHeavy, Mixed, DecodeHeavy, DecodeOnly };
// "prefill-only", "prefill-heavy", "mixed", "decode-heavy", "decode-only", "unknown"
const char* step_kind_name(StepKind k);

class StepGrammar {
public:
    struct Format {
        std::string id, framework, contains, example;
        Regex re;
        std::vector<std::string> groups;                            // field per capture group ("" = ignored)
        std::vector<std::pair<std::string, std::string>> modes;     // word -> "prefill" | "decode" | "mixed"
        std::vector<std::pair<std::string, std::string>> pairs;    // key -> field
    };
    // A paged / chunked-prefill attention operator modelled from the step's Σ terms.
    struct AttentionOp {
        std::string op;
        int q_arg = 0, k_arg = 1, v_arg = -1;   // -1: value head size = key head size
    };

    // Throws TraceError naming `source` and the offending entry (bad regex, unknown field, missing key).
    static StepGrammar from_json(const nlohmann::json& doc, const std::string& source);
    static StepGrammar load_file(const std::string& path);
    // The user's file when non-empty, else resources/step_grammar.json (the shipped grammar is read once).
    static StepGrammar load(const std::string& user_file = {});

    // The batch a range name states, or nullopt when no format matches.
    std::optional<StepBatch> parse(std::string_view name) const;
    StepKind kind(const StepBatch& b) const;
    const AttentionOp* attention_op(std::string_view op) const;

    const std::vector<Format>& formats() const { return formats_; }
    const std::vector<AttentionOp>& attention_ops() const { return attention_ops_; }
    double prefill_heavy_share() const { return prefill_heavy_; }
    double decode_heavy_share() const { return decode_heavy_; }
    const std::string& source() const { return source_; }

private:
    std::vector<Format> formats_;
    std::vector<AttentionOp> attention_ops_;
    double prefill_heavy_ = 0.8, decode_heavy_ = 0.2;
    std::string source_;
};

} // namespace sl
