#include "analysis/diagnosis/kb_lookup.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

namespace sl {

EnvironmentHistory lookup_environment(const KnowledgeBase& kb, const EnvFingerprint& env, double min_similarity,
                                      const std::vector<std::string>& exclude_hashes)
{
    EnvironmentHistory h;
    h.env = env;
    h.min_similarity = min_similarity;
    std::map<int64_t, double> run_similarity;   // every similar run, including excluded ones (for verdicts)
    std::map<int64_t, std::optional<EnvFingerprint>> env_cache;
    for (const auto& run : kb.runs()) {
        auto it = env_cache.find(run.env_id);
        if (it == env_cache.end())
            it = env_cache.emplace(run.env_id, kb.environment(run.env_id)).first;
        if (!it->second)
            continue;
        const double sim = environment_similarity(env, *it->second);
        if (sim < min_similarity)
            continue;
        run_similarity[run.id] = sim;
        if (std::find(exclude_hashes.begin(), exclude_hashes.end(), run.trace_hash) != exclude_hashes.end())
            continue;
        EnvRunMatch m;
        m.run_id = run.id;
        m.trace_path = run.trace_path;
        m.recorded_at = run.recorded_at;
        m.similarity = sim;
        m.reason = similarity_reason(env, *it->second);
        m.metrics = run.metrics;
        h.runs.push_back(std::move(m));
    }
    std::stable_sort(h.runs.begin(), h.runs.end(), [](const EnvRunMatch& a, const EnvRunMatch& b) {
        if (a.similarity != b.similarity)
            return a.similarity > b.similarity;
        return a.recorded_at > b.recorded_at;
    });

    std::map<std::string, EnvVerifiedRecord> by_key;
    std::map<std::string, double> delta_sum;
    for (const auto& v : kb.verifications()) {
        const auto b = run_similarity.find(v.before_run), a = run_similarity.find(v.after_run);
        if (b == run_similarity.end() && a == run_similarity.end())
            continue;
        const double sim = std::max(b != run_similarity.end() ? b->second : 0.0,
                                    a != run_similarity.end() ? a->second : 0.0);
        auto& r = by_key[v.suggestion_key];
        r.suggestion_key = v.suggestion_key;
        r.metric = v.metric;
        r.similarity = std::max(r.similarity, sim);
        if (v.verdict == "verified")
            ++r.verified;
        else if (v.verdict == "failed")
            ++r.failed;
        else
            ++r.inconclusive;
        if (v.verdict == "verified" || v.verdict == "failed")
            delta_sum[v.suggestion_key] += v.delta;
    }
    for (auto& [key, r] : by_key) {
        const int judged = r.verified + r.failed;
        r.mean_delta = judged > 0 ? delta_sum[key] / judged : 0.0;
        // Laplace-smoothed success rate, weighed by how alike the environments are.
        r.confidence = (r.verified + 1.0) / (judged + 2.0) * r.similarity;
        h.verified.push_back(r);
    }
    std::stable_sort(h.verified.begin(), h.verified.end(), [](const EnvVerifiedRecord& a, const EnvVerifiedRecord& b) {
        if (a.confidence != b.confidence)
            return a.confidence > b.confidence;
        return a.suggestion_key < b.suggestion_key;
    });
    return h;
}

nlohmann::json environment_history_to_json(const EnvironmentHistory& h)
{
    nlohmann::json j;
    j["environment"] = {{"gpu", h.env.gpu}, {"driver", h.env.driver}, {"cuda", h.env.cuda},
                        {"model_hash", h.env.model_hash}, {"key", h.env.key()}};
    j["min_similarity"] = h.min_similarity;
    j["runs"] = nlohmann::json::array();
    for (const auto& r : h.runs)
        j["runs"].push_back({{"run_id", r.run_id}, {"trace_path", r.trace_path}, {"recorded_at", r.recorded_at},
                             {"similarity", r.similarity}, {"reason", r.reason}, {"metrics", r.metrics}});
    j["verified"] = nlohmann::json::array();
    for (const auto& v : h.verified)
        j["verified"].push_back({{"suggestion", v.suggestion_key}, {"metric", v.metric}, {"verified", v.verified},
                                 {"failed", v.failed}, {"inconclusive", v.inconclusive}, {"mean_delta", v.mean_delta},
                                 {"similarity", v.similarity}, {"confidence", v.confidence}});
    return j;
}

std::string environment_history_to_text(const EnvironmentHistory& h, size_t max_rows)
{
    std::string out = "Seen before on this environment (" + (h.env.gpu.empty() ? std::string("unknown GPU") : h.env.gpu) +
                      (h.env.driver.empty() ? "" : ", driver " + h.env.driver) +
                      (h.env.cuda.empty() ? "" : ", CUDA " + h.env.cuda) + "):\n";
    if (h.empty())
        return out + "  nothing yet: no run on a similar environment in the knowledge base.\n";
    char buf[512];
    std::snprintf(buf, sizeof buf, "  %zu earlier run(s) on a similar environment", h.runs.size());
    out += buf;
    if (!h.runs.empty()) {
        const auto& best = h.runs.front();
        std::snprintf(buf, sizeof buf, "; closest: run %lld (%s, similarity %.2f: %s)", (long long)best.run_id,
                      best.trace_path.c_str(), best.similarity, best.reason.c_str());
        out += buf;
    }
    out += "\n";
    size_t n = 0;
    for (const auto& v : h.verified) {
        if (n++ >= max_rows)
            break;
        std::snprintf(buf, sizeof buf, "  %-48s verified %dx, failed %dx, inconclusive %dx; mean %+.1f %% %s; confidence %.2f\n",
                      v.suggestion_key.c_str(), v.verified, v.failed, v.inconclusive, 100.0 * v.mean_delta,
                      v.metric.c_str(), v.confidence);
        out += buf;
    }
    if (h.verified.empty())
        out += "  no A/B-verified suggestion recorded there yet.\n";
    return out;
}

} // namespace sl
