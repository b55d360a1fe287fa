// The LLM reviewer's request and the checks its answer must pass (analysis/diagnosis/review.h): what is sent (ids,
// evidence, no paths), and what is kept or dropped from an answer (agree, disagree, uncited, foreign or unknown
// evidence, misquoted values, unknown or twice-reviewed findings, malformed JSON, fenced JSON).
#include <gtest/gtest.h>

#include "analysis/diagnosis/review.h"

namespace {

using nlohmann::json;

std::vector<sl::Finding> two_findings()
{
    sl::Finding a;
    a.rule = "decode-host-bound";
    a.verdict = "host-bound";
    a.severity = sl::Severity::High;
    a.subject = "decode";
    a.title.en = "Decode is host-bound: the GPU idles 38 % of each step";
    a.explanation.en = "Launch gaps dominate; the trace /home/alice/runs/llama/trace.sqlite shows it.";
    a.evidence = {{"decode_idle_fraction", 0.38, ">", 0.2, "idle"}, {"launch_per_kernel_ns", 5200, "", {}, "launch"}};
    a.expected_gain.fraction = 0.3;
    a.expected_gain.ns = 4.5e6;
    sl::Finding b;
    b.rule = "elementwise-fusion";
    b.verdict = "kernel-mix";
    b.severity = sl::Severity::Medium;
    b.title.en = "Elementwise kernels hold 63 % of kernel time";
    b.evidence = {{"elementwise_copy_fraction", 0.63, ">=", 0.4, "classes"}};
    return {a, b};
}

// An OpenAI chat-completions body whose message content is `content`.
std::string chat(const std::string& content)
{
    return json{{"model", "stub-1"},
                {"choices", {{{"index", 0}, {"message", {{"role", "assistant"}, {"content", content}}}}}}}
        .dump();
}

std::string reviews(const json& list) { return json{{"reviews", list}}.dump(); }

} // namespace

TEST(Review, RequestCarriesIdsAndEvidenceButNoPaths)
{
    const auto findings = two_findings();
    const json body = sl::review_request(findings, {"qwen", false, 20});
    EXPECT_EQ(body["model"], "qwen");
    EXPECT_EQ(body["temperature"], 0);
    ASSERT_EQ(body["messages"].size(), 2u);
    const json user = json::parse(body["messages"][1]["content"].get<std::string>());
    ASSERT_EQ(user["findings"].size(), 2u);
    const json& f1 = user["findings"][0];
    EXPECT_EQ(f1["id"], "f1");
    EXPECT_EQ(f1["rule"], "decode-host-bound");
    EXPECT_EQ(f1["severity"], "high");
    ASSERT_EQ(f1["evidence"].size(), 2u);
    EXPECT_EQ(f1["evidence"][0]["id"], "f1.e1");
    EXPECT_DOUBLE_EQ(f1["evidence"][0]["value"].get<double>(), 0.38);
    EXPECT_EQ(f1["evidence"][0]["comparison"], ">");
    EXPECT_DOUBLE_EQ(f1["evidence"][0]["threshold"].get<double>(), 0.2);
    EXPECT_FALSE(f1["evidence"][1].contains("threshold"));
    EXPECT_EQ(user["findings"][1]["evidence"][0]["id"], "f2.e1");
    const std::string all = body.dump();
    EXPECT_EQ(all.find("/home/alice"), std::string::npos) << all;
    EXPECT_NE(all.find("<path>"), std::string::npos);

    // Allowed by the user, the path goes; limited to one finding, the second does not.
    const json allowed = sl::review_request(findings, {"", true, 1});
    EXPECT_FALSE(allowed.contains("model"));
    const json u2 = json::parse(allowed["messages"][1]["content"].get<std::string>());
    EXPECT_EQ(u2["findings"].size(), 1u);
    EXPECT_NE(allowed.dump().find("/home/alice/runs/llama/trace.sqlite"), std::string::npos);
}

TEST(Review, ScrubPathsKeepsUnitsAndRelativeWords)
{
    EXPECT_EQ(sl::scrub_paths("read /data/x.sqlite now"), "read <path> now");
    EXPECT_EQ(sl::scrub_paths("~/traces/a.json"), "<path>");
    EXPECT_EQ(sl::scrub_paths("(C:\\Users\\bob\\t.json)"), "(<path>)");
    EXPECT_EQ(sl::scrub_paths("1200 tokens/s at 3.2 TB/s/GPU"), "1200 tokens/s at 3.2 TB/s/GPU");
    EXPECT_EQ(sl::scrub_paths("no path here"), "no path here");
}

TEST(Review, AgreeAndDisagreeWithCitationsAreKept)
{
    const auto findings = two_findings();
    const std::string body = chat(reviews(json::array(
        {{{"finding", "f1"}, {"verdict", "agree"}, {"explanation", "38 % idle per step is host-side."},
          {"cites", {{{"id", "f1.e1"}, {"value", 0.38}}}}},
         {{"finding", "f2"}, {"verdict", "disagree"}, {"explanation", "Copies, not elementwise math."},
          {"cites", {"f2.e1"}}}})));
    const sl::Review r = sl::parse_review_response(body, findings);
    EXPECT_EQ(r.status, "ok");
    EXPECT_EQ(r.model, "stub-1");
    ASSERT_EQ(r.verdicts.size(), 2u);
    EXPECT_TRUE(r.verdicts[0].agree);
    EXPECT_EQ(r.verdicts[0].rule, "decode-host-bound");
    EXPECT_EQ(r.verdicts[0].cites, std::vector<std::string>{"f1.e1"});
    EXPECT_FALSE(r.verdicts[1].agree);
    EXPECT_EQ(r.verdicts[1].rule, "elementwise-fusion");
    EXPECT_TRUE(r.dropped.empty());
    const json j = sl::review_to_json(r);
    EXPECT_EQ(j["verdicts"][1]["verdict"], "disagree");
    EXPECT_TRUE(j["advisory"].get<bool>());
    EXPECT_NE(sl::review_to_text(r).find("DISAGREES"), std::string::npos);
}

TEST(Review, ClaimsWithoutOrAgainstTheEvidenceAreDroppedAndSaid)
{
    const auto findings = two_findings();
    const std::string body = chat(reviews(json::array({
        {{"finding", "f1"}, {"verdict", "disagree"}, {"explanation", "I feel it is GPU-bound."}, {"cites", json::array()}},
        {{"finding", "f2"}, {"verdict", "agree"}, {"explanation", "x"}, {"cites", {"f1.e1"}}},   // another finding's
        {{"finding", "f9"}, {"verdict", "agree"}, {"explanation", "x"}, {"cites", {"f9.e1"}}},   // no such finding
        {{"finding", "f2"}, {"verdict", "maybe"}, {"explanation", "x"}, {"cites", {"f2.e1"}}},   // not a verdict
    })));
    const sl::Review r = sl::parse_review_response(body, findings);
    EXPECT_EQ(r.status, "ok");
    EXPECT_TRUE(r.verdicts.empty());
    ASSERT_EQ(r.dropped.size(), 4u);
    EXPECT_NE(r.dropped[0].reason.find("cites no evidence"), std::string::npos);
    EXPECT_NE(r.dropped[1].reason.find("not evidence of f2"), std::string::npos);
    EXPECT_NE(r.dropped[2].reason.find("names no finding"), std::string::npos);
    EXPECT_NE(r.dropped[3].reason.find("neither agree nor disagree"), std::string::npos);
}

TEST(Review, MisquotedEvidenceContradictsAndIsDropped)
{
    const auto findings = two_findings();
    // 0.38 measured; 0.3815 is within 1 %, 0.12 is not. A second review of f1 is dropped too.
    const std::string body = chat(reviews(json::array(
        {{{"finding", "f1"}, {"verdict", "agree"}, {"explanation", "ok"}, {"cites", {{{"id", "f1.e1"}, {"value", 0.3815}}}}},
         {{"finding", "f1"}, {"verdict", "disagree"}, {"explanation", "again"}, {"cites", {"f1.e2"}}},
         {{"finding", "f2"}, {"verdict", "disagree"}, {"explanation", "only 12 %"},
          {"cites", {{{"id", "f2.e1"}, {"value", 0.12}}}}}})));
    const sl::Review r = sl::parse_review_response(body, findings);
    ASSERT_EQ(r.verdicts.size(), 1u);
    EXPECT_EQ(r.verdicts[0].finding, "f1");
    ASSERT_EQ(r.dropped.size(), 2u);
    EXPECT_NE(r.dropped[0].reason.find("second review"), std::string::npos);
    EXPECT_EQ(r.dropped[1].finding, "f2");
    EXPECT_NE(r.dropped[1].reason.find("contradicts the evidence"), std::string::npos);
    EXPECT_NE(r.dropped[1].reason.find("0.63"), std::string::npos);
}

TEST(Review, MalformedAnswersLeaveNoVerdict)
{
    const auto findings = two_findings();
    for (const std::string& body : {std::string("<html>502</html>"), std::string("{\"choices\": []}"),
                                     chat("Sure! Finding f1 looks right to me."), chat("{\"reviews\": 3}")}) {
        const sl::Review r = sl::parse_review_response(body, findings);
        EXPECT_EQ(r.status, "failed") << body;
        EXPECT_FALSE(r.error.empty());
        EXPECT_TRUE(r.verdicts.empty());
        EXPECT_NE(sl::review_to_text(r).find("no review"), std::string::npos);
    }
}

TEST(Review, FencedJsonIsAccepted)
{
    const auto findings = two_findings();
    const std::string inner = reviews(json::array(
        {{{"finding", "f2"}, {"verdict", "agree"}, {"explanation", "63 %"}, {"cites", {"f2.e1"}}}}));
    const sl::Review r = sl::parse_review_response(chat("```json\n" + inner + "\n```"), findings);
    EXPECT_EQ(r.status, "ok");
    ASSERT_EQ(r.verdicts.size(), 1u);
    EXPECT_EQ(r.verdicts[0].finding, "f2");
}

TEST(Review, OnlyTheFindingsSentCanBeReviewed)
{
    const auto findings = two_findings();
    const std::string body = chat(reviews(json::array(
        {{{"finding", "f2"}, {"verdict", "agree"}, {"explanation", "x"}, {"cites", {"f2.e1"}}}})));
    const sl::Review r = sl::parse_review_response(body, findings, 1);   // only f1 was sent
    EXPECT_TRUE(r.verdicts.empty());
    ASSERT_EQ(r.dropped.size(), 1u);
    EXPECT_NE(r.dropped[0].reason.find("names no finding"), std::string::npos);
}
