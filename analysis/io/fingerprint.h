#pragma once
// Environment fingerprints: what a measurement depends on (GPU, driver, CUDA, framework and library versions, the
// model, the batch/sequence shape), and how similar two environments are. The knowledge base keys its history on
// them: a suggestion verified on the same GPU and model counts for more than one verified elsewhere.

#include <cstdint>
#include <map>
#include <string>

namespace sl {

struct Trace;

struct EnvFingerprint {
    std::string gpu;                              // device name, e.g. "NVIDIA H100 80GB HBM3"
    std::string driver, cuda;                     // versions as the trace gives them
    std::map<std::string, std::string> libraries; // other versions from TraceMeta::environment (torch, vllm, ...)
    std::string model_hash;                       // hash of the model config.json (empty when none was given)
    int64_t batch = 0, seq_len = 0;               // 0 = unknown

    // Stable text key (all fields, sorted): equal keys = same environment.
    std::string key() const;
};

// Reads GPU name and the versions from trace.meta (environment keys containing "driver" -> driver, "cuda" -> cuda,
// the rest -> libraries). model_hash/batch/seq_len are left for the caller.
EnvFingerprint fingerprint_from_trace(const Trace& trace);

// 0..1: GPU 0.4, model 0.25, driver+CUDA 0.15, libraries 0.1, shape 0.1. Unknown fields on either side count half.
double environment_similarity(const EnvFingerprint& a, const EnvFingerprint& b);
// Human words for what matches: "same GPU, same model, different driver".
std::string similarity_reason(const EnvFingerprint& reference, const EnvFingerprint& other);

// 64-bit FNV-1a of a file's bytes as 16 hex digits ("" when it cannot be read), and of a string.
std::string file_hash(const std::string& path);
std::string text_hash(const std::string& text);

} // namespace sl
