#pragma once
// Step 1 of the analysis loop (seed 004, figure 1): before anything else, ask the knowledge base what it already
// knows about this environment (GPU, driver/CUDA, framework versions, model, shape): earlier runs on a similar
// environment, and the suggestions verified or failed there by A/B comparison, each with its confidence.
// Shown as "seen before on this environment: ..." in the CLI's profile/verify output and in reports.

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/diagnosis/knowledge_base.h"

namespace sl {

struct EnvRunMatch {
    int64_t run_id = 0;
    std::string trace_path;
    int64_t recorded_at = 0;
    double similarity = 0;            // environment_similarity(query, run's environment)
    std::string reason;               // "same GPU, same model, different driver"
    std::map<std::string, double> metrics;
};

struct EnvVerifiedRecord {
    std::string suggestion_key;       // "<rule>/<suggestion id>"
    int verified = 0, failed = 0, inconclusive = 0;
    double mean_delta = 0;            // mean relative change of the metric over verified + failed
    std::string metric;
    double similarity = 0;            // best similarity of the environments behind the verdicts
    double confidence = 0;            // (verified + 1) / (verified + failed + 2), scaled by similarity
};

struct EnvironmentHistory {
    EnvFingerprint env;
    double min_similarity = 0.5;
    std::vector<EnvRunMatch> runs;               // most similar first, then newest
    std::vector<EnvVerifiedRecord> verified;     // by confidence, then suggestion key
    bool empty() const { return runs.empty() && verified.empty(); }
};

// Runs on environments at least min_similarity alike to env (runs whose trace hash is in `exclude_hashes` are
// left out: the run being looked up), and the A/B verdicts recorded between such runs.
EnvironmentHistory lookup_environment(const KnowledgeBase& kb, const EnvFingerprint& env, double min_similarity = 0.5,
                                      const std::vector<std::string>& exclude_hashes = {});

nlohmann::json environment_history_to_json(const EnvironmentHistory& h);
// "Seen before on this environment: ..." (a section; says "nothing yet" when the history is empty).
std::string environment_history_to_text(const EnvironmentHistory& h, size_t max_rows = 10);

} // namespace sl
