#include "analysis/diagnosis/review.h"
#include "analysis/io/regex.h"
#include "analysis/io/json_input.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>

namespace sl {
namespace {

constexpr const char* kSystemPrompt =
    "You review the findings of Sightline, a GPU trace analyser for LLM inference. Each finding has an id (f1, f2, "
    "...) and evidence items with ids (f1.e1, ...), each a measured metric with its value. Judge each finding only "
    "from its evidence: does the evidence support the finding's title and explanation? Answer with JSON only, no "
    "prose around it, exactly: {\"reviews\": [{\"finding\": \"f1\", \"verdict\": \"agree\" or \"disagree\", "
    "\"explanation\": \"one or two sentences\", \"cites\": [{\"id\": \"f1.e1\", \"value\": <the value you relied "
    "on, copied from the evidence>}]}]}. Every review must cite at least one evidence id of its own finding. Do not "
    "invent numbers; a review that cites nothing or misquotes a value is discarded.";

std::string finding_id(size_t i) { return "f" + std::to_string(i + 1); }
std::string evidence_id(size_t i, size_t j) { return finding_id(i) + ".e" + std::to_string(j + 1); }

// The message content, without a Markdown code fence around it.
std::string unfence(std::string s)
{
    const auto first = s.find("```");
    if (first == std::string::npos)
        return s;
    auto begin = s.find('\n', first);
    const auto last = s.rfind("```");
    if (begin == std::string::npos || last <= first)
        return s;
    return s.substr(begin + 1, last - begin - 1);
}

bool values_agree(double quoted, double measured)
{
    if (!std::isfinite(quoted))
        return false;
    const double scale = std::max(std::fabs(measured), 1e-12);
    return std::fabs(quoted - measured) <= 0.01 * scale;
}

} // namespace

std::string scrub_paths(const std::string& text)
{
    // An absolute POSIX path of two components or more, a home-relative path or a Windows drive path, where a word
    // starts (so "tokens/s" and "MB/s/SM" stay).
    static const Regex path(R"((^|[\s"'(=,;])((~|[A-Za-z]:)?[/\\][A-Za-z0-9._@+-]+([/\\][A-Za-z0-9._@+-]+)+))");
    return path.replace_all(text, "\\1<path>");
}

nlohmann::json review_request(const std::vector<Finding>& findings, const ReviewRequestOptions& options)
{
    const auto text = [&](const std::string& s) { return options.allow_paths ? s : scrub_paths(s); };
    nlohmann::json list = nlohmann::json::array();
    const size_t n = std::min(findings.size(), options.max_findings);
    for (size_t i = 0; i < n; ++i) {
        const Finding& f = findings[i];
        nlohmann::json ev = nlohmann::json::array();
        for (size_t j = 0; j < f.evidence.size(); ++j) {
            const Evidence& e = f.evidence[j];
            nlohmann::json item = {{"id", evidence_id(i, j)}, {"metric", e.metric}, {"value", e.value},
                                   {"source", text(e.source)}};
            if (!e.op.empty())
                item["comparison"] = e.op;
            if (e.threshold)
                item["threshold"] = *e.threshold;
            ev.push_back(std::move(item));
        }
        nlohmann::json gain = {{"fraction_of_time", f.expected_gain.fraction}};
        if (f.expected_gain.ns)
            gain["ns"] = *f.expected_gain.ns;
        list.push_back({{"id", finding_id(i)},
                        {"rule", f.rule},
                        {"verdict", f.verdict},
                        {"severity", severity_name(f.severity)},
                        {"subject", text(f.subject)},
                        {"title", text(f.title.en)},
                        {"explanation", text(f.explanation.en)},
                        {"expected_gain", std::move(gain)},
                        {"evidence", std::move(ev)}});
    }
    nlohmann::json user = {{"findings", std::move(list)}};
    nlohmann::json body = {{"temperature", 0},
                           {"messages",
                            {{{"role", "system"}, {"content", kSystemPrompt}},
                             {{"role", "user"}, {"content", user.dump()}}}}};
    if (!options.model.empty())
        body["model"] = options.model;
    return body;
}

Review failed_review(std::string error)
{
    Review r;
    r.status = "failed";
    r.error = std::move(error);
    return r;
}

Review parse_review_response(const std::string& http_body, const std::vector<Finding>& findings, size_t max_findings)
{
    const auto outer = parse_json_lenient(http_body);
    if (outer.is_discarded() || !outer.is_object())
        return failed_review("the endpoint's answer is not JSON");
    const auto* content = [&]() -> const nlohmann::json* {
        const auto c = outer.find("choices");
        if (c == outer.end() || !c->is_array() || c->empty() || !(*c)[0].is_object())
            return nullptr;
        const auto m = (*c)[0].find("message");
        if (m == (*c)[0].end() || !m->is_object())
            return nullptr;
        const auto t = m->find("content");
        return t != m->end() && t->is_string() ? &*t : nullptr;
    }();
    if (!content)
        return failed_review("the endpoint's answer has no choices[0].message.content");
    const auto answer = parse_json_lenient(unfence(content->get<std::string>()));
    if (answer.is_discarded() || !answer.is_object() || !answer.contains("reviews") || !answer["reviews"].is_array())
        return failed_review("the reviewer did not answer with the JSON asked for ({\"reviews\": [...]})");

    Review review;
    review.status = "ok";
    if (outer.contains("model") && outer["model"].is_string())
        review.model = outer["model"].get<std::string>();
    const size_t n = std::min(findings.size(), max_findings);
    std::set<std::string> reviewed;
    for (const auto& item : answer["reviews"]) {
        const auto drop = [&](const std::string& who, std::string why) {
            review.dropped.push_back({who, std::move(why)});
        };
        if (!item.is_object()) {
            drop("", "not an object");
            continue;
        }
        const std::string who = item.value("finding", std::string());
        size_t index = n;
        for (size_t i = 0; i < n; ++i)
            if (finding_id(i) == who)
                index = i;
        if (index == n) {
            drop(who, "names no finding that was sent");
            continue;
        }
        if (reviewed.count(who)) {
            drop(who, "a second review of the same finding");
            continue;
        }
        const std::string verdict = item.value("verdict", std::string());
        if (verdict != "agree" && verdict != "disagree") {
            drop(who, "verdict is neither agree nor disagree");
            continue;
        }
        const auto cites = item.find("cites");
        if (cites == item.end() || !cites->is_array() || cites->empty()) {
            drop(who, "cites no evidence");
            continue;
        }
        const Finding& f = findings[index];
        ReviewVerdict v;
        v.finding = who;
        v.rule = f.rule;
        v.subject = f.subject;
        v.agree = verdict == "agree";
        v.explanation = item.value("explanation", std::string());
        std::string problem;
        for (const auto& c : *cites) {
            const std::string id = c.is_string() ? c.get<std::string>()
                                   : c.is_object() ? c.value("id", std::string())
                                                   : std::string();
            size_t j = f.evidence.size();
            for (size_t k = 0; k < f.evidence.size(); ++k)
                if (evidence_id(index, k) == id)
                    j = k;
            if (j == f.evidence.size()) {
                problem = "cites '" + id + "', which is not evidence of " + who;
                break;
            }
            if (c.is_object() && c.contains("value")) {
                const auto& q = c["value"];
                const double quoted = q.is_number() ? q.get<double>() : NAN;
                if (!values_agree(quoted, f.evidence[j].value)) {
                    std::ostringstream os;
                    os << "quotes " << id << " as " << q.dump() << " but Sightline measured " << f.evidence[j].value
                       << " (" << f.evidence[j].metric << "): it contradicts the evidence";
                    problem = os.str();
                    break;
                }
            }
            v.cites.push_back(id);
        }
        if (!problem.empty()) {
            drop(who, problem);
            continue;
        }
        reviewed.insert(who);   // only a kept review counts: a dropped one leaves room for a valid one
        review.verdicts.push_back(std::move(v));
    }
    return review;
}

nlohmann::json review_to_json(const Review& review)
{
    nlohmann::json verdicts = nlohmann::json::array();
    for (const auto& v : review.verdicts)
        verdicts.push_back({{"finding", v.finding},
                            {"rule", v.rule},
                            {"subject", v.subject},
                            {"verdict", v.agree ? "agree" : "disagree"},
                            {"explanation", v.explanation},
                            {"cites", v.cites}});
    nlohmann::json dropped = nlohmann::json::array();
    for (const auto& d : review.dropped)
        dropped.push_back({{"finding", d.finding}, {"reason", d.reason}});
    nlohmann::json j = {{"status", review.status},
                        {"advisory", true},
                        {"endpoint", review.endpoint},
                        {"model", review.model},
                        {"verdicts", std::move(verdicts)},
                        {"dropped", std::move(dropped)}};
    if (!review.error.empty())
        j["error"] = review.error;
    return j;
}

std::string review_to_text(const Review& review)
{
    std::ostringstream os;
    os << "Reviewer (LLM, advisory; the findings above are the rule engine's and do not depend on it)\n";
    if (review.status != "ok") {
        os << "  no review: " << (review.error.empty() ? review.status : review.error) << "\n";
        return os.str();
    }
    os << "  " << review.endpoint << (review.model.empty() ? "" : ", model " + review.model) << "\n";
    for (const auto& v : review.verdicts) {
        os << "  " << v.finding << " " << v.rule << (v.subject.empty() ? "" : " (" + v.subject + ")") << ": "
           << (v.agree ? "agrees" : "DISAGREES") << " - " << v.explanation << " [";
        for (size_t i = 0; i < v.cites.size(); ++i)
            os << (i ? ", " : "") << v.cites[i];
        os << "]\n";
    }
    for (const auto& d : review.dropped)
        os << "  dropped " << (d.finding.empty() ? "a review" : d.finding) << ": " << d.reason << "\n";
    if (review.verdicts.empty() && review.dropped.empty())
        os << "  the reviewer returned no reviews\n";
    return os.str();
}

std::string chat_completions_url(const std::string& endpoint)
{
    static const std::string tail = "/chat/completions";
    std::string url = endpoint;
    while (!url.empty() && url.back() == '/')
        url.pop_back();
    if (url.size() >= tail.size() && url.compare(url.size() - tail.size(), tail.size(), tail) == 0)
        return url;
    return url + tail;
}

} // namespace sl
