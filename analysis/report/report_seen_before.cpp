#include "analysis/report/report_seen_before.h"

namespace sl::report {

Section build_seen_before_section(const EnvironmentHistory& h, const std::string& kb_path, Lang lang)
{
    Section sec{"seen_before", std::string(S(lang, "sec.seen_before")), {}, {}};
    std::string env = h.env.gpu.empty() ? std::string(S(lang, "val.unknown")) : h.env.gpu;
    if (!h.env.driver.empty())
        env += ", driver " + h.env.driver;
    if (!h.env.cuda.empty())
        env += ", CUDA " + h.env.cuda;
    for (const auto& [name, version] : h.env.libraries)
        env += ", " + name + " " + version;
    sec.blocks.push_back(Paragraph{F(lang, "seen.env", {env, kb_path, fmt_fixed(h.min_similarity, 2)})});
    if (h.empty()) {
        sec.blocks.push_back(Note{Note::Kind::Info, std::string(S(lang, "seen.nothing"))});
        return sec;
    }
    if (!h.runs.empty()) {
        const auto& best = h.runs.front();
        sec.blocks.push_back(Paragraph{F(lang, "seen.runs", {std::to_string(h.runs.size()), std::to_string(best.run_id),
                                                             best.trace_path, fmt_fixed(best.similarity, 2), best.reason})});
    }
    if (h.verified.empty()) {
        sec.blocks.push_back(Note{Note::Kind::Info, std::string(S(lang, "seen.no_verified"))});
        return sec;
    }
    Table t{"seen_verified", std::string(S(lang, "tbl.seen_verified")), {}, {}, -1};
    t.columns = {{"suggestion", std::string(S(lang, "col.suggestion_key")), "", Align::Left, 48},
                 {"metric", std::string(S(lang, "col.metric")), "", Align::Left},
                 {"verified", std::string(S(lang, "col.verified")), "count", Align::Right},
                 {"failed", std::string(S(lang, "col.failed")), "count", Align::Right},
                 {"inconclusive", std::string(S(lang, "col.inconclusive")), "count", Align::Right},
                 {"mean_delta", std::string(S(lang, "col.measured_gain")), "fraction", Align::Right},
                 {"similarity", std::string(S(lang, "col.similarity")), "fraction", Align::Right},
                 {"confidence", std::string(S(lang, "col.confidence")), "fraction", Align::Right}};
    for (const auto& v : h.verified) {
        const bool judged = v.verified + v.failed > 0;
        t.rows.push_back({Value::str(v.suggestion_key), Value::str(v.metric),
                          Value::num(v.verified, std::to_string(v.verified), "count"),
                          Value::num(v.failed, std::to_string(v.failed), "count"),
                          Value::num(v.inconclusive, std::to_string(v.inconclusive), "count"),
                          judged ? Value::num(v.mean_delta, (v.mean_delta > 0 ? "+" : "") + fmt_percent(v.mean_delta), "fraction")
                                 : Value::str("–"),
                          Value::num(v.similarity, fmt_fixed(v.similarity, 2), "fraction"),
                          Value::num(v.confidence, fmt_fixed(v.confidence, 2), "fraction")});
    }
    sec.blocks.push_back(std::move(t));
    return sec;
}

} // namespace sl::report
