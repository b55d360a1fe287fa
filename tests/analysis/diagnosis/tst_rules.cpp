// The rule engine on hand-built MetricScopes: loading (and surviving malformed files), muparser conditions, missing
// data, evidence, expected gain, confidence and ranking.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <tuple>

#include <nlohmann/json.hpp>

#include "analysis/diagnosis/findings.h"
#include "analysis/diagnosis/rules.h"
#include "tests/support/test_env.h"

using namespace sl;
using nlohmann::json;

namespace {

void write_file(const std::string& path, const std::string& text)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
}

json basic_rule(const std::string& id, const std::string& cond, const std::string& scope = "kernel")
{
    return json{{"id", id},
                {"scope", scope},
                {"condition", cond},
                {"severity", "medium"},
                {"verdict", "launch-bound"},
                {"prior", 0.8},
                {"title", {{"en", "{subject}: {count} launches of {avg_duration_us}"}, {"zh_CN", "{subject}：{count} 次"}}},
                {"suggestions", json::array({json{{"id", "graphs"},
                                                  {"text", {{"en", "Use CUDA Graphs"}, {"zh_CN", "使用 CUDA Graph"}}},
                                                  {"gain", {0.1, 0.3}},
                                                  {"risk", "low"},
                                                  {"verify", "sightline-cli compare {trace} after.sqlite"},
                                                  {"metric", "tpot_median_ns"}}})}};
}

MetricScope kernel_scope(const std::string& name, double avg_us, double count)
{
    MetricScope s;
    s.kind = ScopeKind::Kernel;
    s.subject = name;
    s.metrics = {{"avg_duration_us", avg_us}, {"count", count}, {"total_ns", avg_us * 1000 * count},
                 {"trace_wall_ns", 1e9}};
    s.sources["avg_duration_us"] = "trace:kernels";
    return s;
}

RuleSet rules_from(const std::vector<json>& rules)
{
    RuleSet set;
    for (const auto& r : rules)
        set.rules.push_back(parse_rule(r, "inline"));
    return set;
}

} // namespace

TEST(Rules, ParseCollectsConditionVariables)
{
    Rule r = parse_rule(basic_rule("r1", "avg_duration_us < 50 && count > 500"), "f.json");
    std::vector<std::string> vars = r.variables;
    std::sort(vars.begin(), vars.end());
    EXPECT_EQ(vars, (std::vector<std::string>{"avg_duration_us", "count"}));
    EXPECT_EQ(r.scope, ScopeKind::Kernel);
    EXPECT_EQ(r.severity, Severity::Medium);
    EXPECT_DOUBLE_EQ(r.prior, 0.8);
    ASSERT_EQ(r.suggestions.size(), 1u);
    EXPECT_EQ(r.suggestions[0].direction, "decrease");   // defaulted because a metric is named
}

TEST(Rules, ParseRejectsBadRulesWithClearMessages)
{
    auto msg = [](json j) {
        try {
            parse_rule(j, "f.json");
        } catch (const std::exception& e) {
            return std::string(e.what());
        }
        return std::string("<accepted>");
    };
    json j = basic_rule("r", "count > 1");
    j["verdict"] = "slow";
    EXPECT_NE(msg(j).find("unknown verdict 'slow'"), std::string::npos);
    j = basic_rule("r", "count > 1");
    j["scope"] = "galaxy";
    EXPECT_NE(msg(j).find("unknown scope 'galaxy'"), std::string::npos);
    j = basic_rule("r", "count >> 1 &&");
    EXPECT_NE(msg(j).find("condition 'count >> 1 &&'"), std::string::npos);
    j = basic_rule("r", "count > 1");
    j["severity"] = "critical";
    EXPECT_NE(msg(j).find("unknown severity"), std::string::npos);
    j = basic_rule("r", "count > 1");
    j.erase("title");
    EXPECT_NE(msg(j).find("title"), std::string::npos);
    j = basic_rule("r", "count > 1");
    j["prior"] = 1.5;
    EXPECT_NE(msg(j).find("prior"), std::string::npos);
    j = basic_rule("r", "3 > 1");
    EXPECT_NE(msg(j).find("uses no metric"), std::string::npos);
    j = basic_rule("r", "count > 1");
    j["gain"] = {{"expr", "count * "}};
    EXPECT_NE(msg(j).find("gain.expr"), std::string::npos);
}

TEST(Rules, MalformedFilesAreReportedAndOtherRulesStillRun)
{
    const std::string dir = sl::test::scratch_dir("rules_malformed");
    write_file(dir + "/a_broken.json", "{ \"rules\": [ {\"id\": \"x\", ");   // truncated JSON
    json bad_rule = basic_rule("bad-verdict", "count > 1");
    bad_rule["verdict"] = "nonsense";
    json bad_cond = basic_rule("bad-condition", "count > (1");
    json good = basic_rule("good", "avg_duration_us < 50 && count > 500");
    write_file(dir + "/b_mixed.json", json{{"rules", {bad_rule, good, bad_cond}}}.dump());
    write_file(dir + "/c_notrules.json", "{\"hello\": 1}");

    RuleSet set = load_rules({dir});
    ASSERT_EQ(set.rules.size(), 1u);
    EXPECT_EQ(set.rules[0].id, "good");
    ASSERT_EQ(set.errors.size(), 4u);
    auto has = [&](const std::string& file_suffix, const std::string& id, const std::string& text) {
        for (const auto& e : set.errors)
            if (e.file.size() >= file_suffix.size() &&
                e.file.compare(e.file.size() - file_suffix.size(), file_suffix.size(), file_suffix) == 0 &&
                e.rule_id == id && e.message.find(text) != std::string::npos)
                return true;
        return false;
    };
    EXPECT_TRUE(has("a_broken.json", "", "not valid JSON"));
    EXPECT_TRUE(has("b_mixed.json", "bad-verdict", "unknown verdict 'nonsense'"));
    EXPECT_TRUE(has("b_mixed.json", "bad-condition", "count > (1"));
    EXPECT_TRUE(has("c_notrules.json", "", "expected {\"rules\""));

    EvalResult r = evaluate_rules(set, {kernel_scope("k", 10, 600)});
    ASSERT_EQ(r.findings.size(), 1u);
    EXPECT_EQ(r.findings[0].rule, "good");
}

TEST(Rules, UserDirectoryOverridesAndDisablesById)
{
    const std::string shipped = sl::test::scratch_dir("rules_shipped");
    const std::string user = sl::test::scratch_dir("rules_user");
    write_file(shipped + "/s.json",
               json{{"rules", {basic_rule("a", "count > 500"), basic_rule("b", "count > 1"), basic_rule("c", "count > 1")}}}.dump());
    json a2 = basic_rule("a", "count > 5000");
    json b_off = {{"id", "b"}, {"enabled", false}};
    json d = basic_rule("d", "avg_duration_us < 20");
    write_file(user + "/u.json", json{{"rules", {a2, b_off, d}}}.dump());

    // A folder named on purpose that does not exist is an error (a typo in --rules must not pass a gate silently);
    // the rest still load.
    RuleSet set = load_rules({shipped, user, "/nonexistent/dir"});
    ASSERT_EQ(set.errors.size(), 1u);
    EXPECT_EQ(set.errors[0].file, "/nonexistent/dir");
    EXPECT_EQ(set.errors[0].message, "no such rules folder");
    ASSERT_EQ(set.rules.size(), 3u);
    EXPECT_EQ(set.find("a")->condition, "count > 5000");
    EXPECT_EQ(set.find("b"), nullptr);
    EXPECT_NE(set.find("c"), nullptr);
    EXPECT_NE(set.find("d"), nullptr);

    EvalResult r = evaluate_rules(set, {kernel_scope("k", 10, 600)});
    std::set<std::string> fired;
    for (const auto& f : r.findings)
        fired.insert(f.rule);
    EXPECT_EQ(fired, (std::set<std::string>{"c", "d"}));   // a now needs 5000 launches
}

TEST(Rules, LogicalAndTernaryOperators)
{
    RuleSet set = rules_from({basic_rule("and", "avg_duration_us < 50 && count > 500"),
                              basic_rule("or", "avg_duration_us < 5 || count > 10000"),
                              basic_rule("not", "!(count > 500)"),
                              basic_rule("tern", "(count > 500 ? avg_duration_us : 0) > 40")});
    auto fired = [&](double avg, double count) {
        std::set<std::string> s;
        for (const auto& f : evaluate_rules(set, {kernel_scope("k", avg, count)}).findings)
            s.insert(f.rule);
        return s;
    };
    EXPECT_EQ(fired(45, 600), (std::set<std::string>{"and", "tern"}));
    EXPECT_EQ(fired(45, 400), (std::set<std::string>{"not"}));
    EXPECT_EQ(fired(4, 400), (std::set<std::string>{"or", "not"}));
    EXPECT_EQ(fired(60, 20000), (std::set<std::string>{"or", "tern"}));
}

TEST(Rules, MissingMetricMeansTheRuleDoesNotApplyAndIsRecorded)
{
    RuleSet set = rules_from({basic_rule("r", "avg_duration_us < 50 && tensor_core_utilization < 0.4")});
    MetricScope s = kernel_scope("gemm", 10, 1000);
    EvalResult r = evaluate_rules(set, {s});
    EXPECT_TRUE(r.findings.empty());
    ASSERT_EQ(r.missing.size(), 1u);
    EXPECT_EQ(r.missing[0].rule, "r");
    EXPECT_EQ(r.missing[0].subject, "gemm");
    EXPECT_EQ(r.missing[0].metrics, (std::vector<std::string>{"tensor_core_utilization"}));
    EXPECT_EQ(r.not_run, (std::vector<std::string>{"r"}));   // its only scope lacked the metric
    {
        // Missing on one scope, evaluated on another: the rule ran, so it is not reported as "could not run".
        MetricScope other = kernel_scope("gemv", 10, 1000);
        other.metrics["tensor_core_utilization"] = 0.9;
        const EvalResult both = evaluate_rules(set, {s, other});
        EXPECT_EQ(both.missing.size(), 1u);
        EXPECT_TRUE(both.not_run.empty());
    }
    // A NaN counts as missing too.
    s.metrics["tensor_core_utilization"] = std::nan("");
    EXPECT_TRUE(evaluate_rules(set, {s}).findings.empty());
    s.metrics["tensor_core_utilization"] = 0.2;
    EXPECT_EQ(evaluate_rules(set, {s}).findings.size(), 1u);
}

TEST(Rules, RulesOnlySeeScopesOfTheirKind)
{
    RuleSet set = rules_from({basic_rule("k", "count > 1", "kernel"), basic_rule("t", "count > 1", "trace")});
    MetricScope trace;
    trace.kind = ScopeKind::Trace;
    trace.subject = "trace";
    trace.metrics = {{"count", 5}};
    EvalResult r = evaluate_rules(set, {trace, kernel_scope("a", 1, 5), kernel_scope("b", 1, 7)});
    ASSERT_EQ(r.findings.size(), 3u);
    int kernel = 0, tr = 0;
    for (const auto& f : r.findings)
        (f.rule == "k" ? kernel : tr)++;
    EXPECT_EQ(kernel, 2);
    EXPECT_EQ(tr, 1);
}

TEST(Rules, EvidenceCarriesValuesThresholdsAndSources)
{
    json j = basic_rule("r", "avg_duration_us < 50 && count > 500 && total_ns > 0.001 * trace_wall_ns");
    j["evidence"] = {"trace_wall_ns", "not_there"};
    RuleSet set = rules_from({j});
    EvalResult r = evaluate_rules(set, {kernel_scope("k", 12.5, 800)});
    ASSERT_EQ(r.findings.size(), 1u);
    std::map<std::string, Evidence> ev;
    for (const auto& e : r.findings[0].evidence)
        ev[e.metric] = e;
    ASSERT_EQ(ev.size(), 4u);
    EXPECT_DOUBLE_EQ(ev["avg_duration_us"].value, 12.5);
    EXPECT_EQ(ev["avg_duration_us"].op, "<");
    EXPECT_DOUBLE_EQ(*ev["avg_duration_us"].threshold, 50);
    EXPECT_EQ(ev["avg_duration_us"].source, "trace:kernels");
    EXPECT_EQ(ev["count"].op, ">");
    EXPECT_DOUBLE_EQ(*ev["count"].threshold, 500);
    EXPECT_EQ(ev["count"].source, "metrics");
    EXPECT_FALSE(ev["total_ns"].threshold.has_value());   // compared with arithmetic, not a number
    EXPECT_DOUBLE_EQ(ev["total_ns"].value, 12.5 * 1000 * 800);
    EXPECT_TRUE(ev.count("trace_wall_ns"));
}

TEST(Rules, ConditionTerms)
{
    auto t = condition_terms("a < 50 && 0.3 >= b || c > 0.05 * d || 2 * e > 5 || (f != 1)");
    std::map<std::string, std::pair<std::string, double>> m;
    for (const auto& x : t)
        m[x.metric] = {x.op, x.threshold};
    ASSERT_EQ(m.size(), 3u);
    EXPECT_EQ(m["a"], (std::pair<std::string, double>{"<", 50}));
    EXPECT_EQ(m["b"], (std::pair<std::string, double>{"<=", 0.3}));
    EXPECT_EQ(m["f"], (std::pair<std::string, double>{"!=", 1}));
}

// condition_terms runs on RE2, which has no look-ahead; the look-ahead reading it had with std::regex is the oracle
// here, on every shipped rule's condition and on terms at the edges (a number followed by arithmetic, a name, a dot).
TEST(Rules, ConditionTermsAgreeWithTheLookAheadReading)
{
    using Term = std::tuple<std::string, std::string, double>;
    const auto oracle = [](const std::string& c) {
        const std::string num = R"([-+]?[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)";
        const std::string name = R"([A-Za-z_][A-Za-z0-9_]*)";
        const std::string cmp = R"((<=|>=|==|!=|<|>))";
        const std::string after = R"((?!\s*[*/^+\-(A-Za-z_0-9.]))";
        const std::regex fwd(R"((?:^|[(&|!?:,])\s*()" + name + R"()\s*)" + cmp + R"(\s*()" + num + ")" + after);
        const std::regex rev(R"((?:^|[(&|!?:,])\s*()" + num + R"()\s*)" + cmp + R"(\s*()" + name + ")" + after);
        const std::map<std::string, std::string> flip = {{"<", ">"}, {">", "<"}, {"<=", ">="}, {">=", "<="}};
        std::vector<Term> out;
        for (auto it = std::sregex_iterator(c.begin(), c.end(), fwd); it != std::sregex_iterator(); ++it)
            out.emplace_back((*it)[1].str(), (*it)[2].str(), std::strtod((*it)[3].str().c_str(), nullptr));
        for (auto it = std::sregex_iterator(c.begin(), c.end(), rev); it != std::sregex_iterator(); ++it) {
            const auto f = flip.find((*it)[2].str());
            out.emplace_back((*it)[3].str(), f == flip.end() ? (*it)[2].str() : f->second,
                             std::strtod((*it)[1].str().c_str(), nullptr));
        }
        return out;
    };
    std::vector<std::string> conditions = {
        "a < 50 && 0.3 >= b || c > 0.05 * d || 2 * e > 5 || (f != 1)", "x < 50abc", "x < 5 * 2", "x<5*2", "x < 5.",
        "a<=1e5&&b>2", "(a > 1) && (2 < b)", "x > 1 ? y < 2 : z >= 3", "a > -1 && b < +2.5e-3", "n == 0,m != 1",
        "a > 1 && b > 2 && c > 3", "50 > x", "50 > x * 2", "x >= 0.5 - y", "x > 1e", "_x<1", "x < 5 ) && y > 2",
        "", "x", "<", "a < 1 < 2"};
    namespace fs = std::filesystem;
    for (const auto& e : fs::directory_iterator(test::source_dir() + "/resources/rules")) {
        std::ifstream in(e.path());
        const json doc = json::parse(in);
        for (const auto& r : doc.at("rules"))
            if (r.contains("condition") && r.at("condition").is_string())
                conditions.push_back(r.at("condition").get<std::string>());
    }
    ASSERT_GT(conditions.size(), 60u);
    size_t terms = 0;
    for (const auto& c : conditions) {
        std::vector<Term> got;
        for (const auto& t : condition_terms(c))
            got.emplace_back(t.metric, t.op, t.threshold);
        EXPECT_EQ(got, oracle(c)) << c;
        terms += got.size();
    }
    EXPECT_GT(terms, 40u);
}

TEST(Rules, PlaceholdersAreFormattedFromMetricNames)
{
    MetricScope s;
    s.subject = "ampere_sgemm";
    s.metrics = {{"total_ns", 2'500'000}, {"avg_duration_us", 12.5}, {"idle_fraction", 0.314}, {"count", 600},
                 {"e_roof", 0.1875}, {"waves_per_sm", 0.5}};
    EXPECT_EQ(fill_placeholders("{subject}: {count} x {avg_duration_us} = {total_ns}, idle {idle_fraction}", s),
              "ampere_sgemm: 600 x 12.5 µs = 2.5 ms, idle 31.4 %");
    EXPECT_EQ(fill_placeholders("E {e_roof}, waves {waves_per_sm:raw}, {unknown} {trace}", s, "/t/x.sqlite"),
              "E 0.19, waves 0.5, {unknown} /t/x.sqlite");
    EXPECT_EQ(fill_placeholders("unterminated {count", s), "unterminated {count");
    // :raw prints the number without a unit, rounded for people (a rule's "3.70163×" reads "3.7×").
    s.metrics["distance_to_roof"] = 3.70163;
    s.metrics["far"] = 436.22;
    s.metrics["big"] = 48384.0;
    EXPECT_EQ(fill_placeholders("{distance_to_roof:raw}× / {far:raw}× / {big:raw}", s), "3.7× / 436× / 48384");
    EXPECT_EQ(format_number(14.9301), "14.9");
    EXPECT_EQ(format_number(0.0004), "0.0004");
    EXPECT_EQ(format_number(0.000947), "0.000947");   // a small grid's waves ("9.47e-04 waves" before)
    EXPECT_EQ(format_number(0.00004), "4.00e-05");
}

TEST(Rules, ExpectedGainComputedOrRange)
{
    json computed = basic_rule("computed", "count > 500");
    computed["gain"] = {{"expr", "total_ns * 0.5 / trace_wall_ns"}, {"ns", "total_ns * 0.5"}, {"range", {0.1, 0.3}}};
    json ranged = basic_rule("ranged", "count > 500");
    ranged["gain"] = {{"expr", "total_ns / no_such_metric"}, {"range", {0.1, 0.3}}};
    json clamped = basic_rule("clamped", "count > 500");
    clamped["gain"] = {{"expr", "5"}};
    RuleSet set = rules_from({computed, ranged, clamped});
    EvalResult r = evaluate_rules(set, {kernel_scope("k", 100, 1000)});   // total 100 ms of a 1 s trace
    ASSERT_EQ(r.findings.size(), 3u);
    std::map<std::string, Finding> f;
    for (auto& x : r.findings)
        f[x.rule] = x;
    EXPECT_TRUE(f["computed"].expected_gain.computed);
    EXPECT_NEAR(f["computed"].expected_gain.fraction, 0.05, 1e-12);
    EXPECT_NEAR(*f["computed"].expected_gain.ns, 50e6, 1e-3);
    EXPECT_FALSE(f["ranged"].expected_gain.computed);
    EXPECT_NEAR(f["ranged"].expected_gain.fraction, 0.2, 1e-12);
    EXPECT_DOUBLE_EQ(f["ranged"].expected_gain.low, 0.1);
    EXPECT_DOUBLE_EQ(f["ranged"].expected_gain.high, 0.3);
    EXPECT_DOUBLE_EQ(f["clamped"].expected_gain.fraction, 1.0);
}

TEST(Rules, ConfidenceFromPriorDataQualityAndHistory)
{
    RuleSet set = rules_from({basic_rule("r", "count > 1")});
    // Prior only.
    EvalResult r = evaluate_rules(set, {kernel_scope("k", 10, 600)});
    ASSERT_EQ(r.findings.size(), 1u);
    EXPECT_NEAR(r.findings[0].confidence.value, 0.8, 1e-12);
    EXPECT_EQ(r.findings[0].confidence.label, "high");

    // Short capture and few samples lower it.
    EvalOptions opt;
    opt.capture_ns = 50'000'000;
    r = evaluate_rules(set, {kernel_scope("k", 10, 3)}, opt);
    ASSERT_EQ(r.findings.size(), 1u);
    EXPECT_NEAR(r.findings[0].confidence.value, 0.8 * 0.8 * 0.85, 1e-12);
    EXPECT_EQ(r.findings[0].confidence.label, "medium");
    bool short_reason = false;
    for (const auto& s : r.findings[0].confidence.reasons)
        short_reason |= s.find("short capture") != std::string::npos;
    EXPECT_TRUE(short_reason);

    // Verified history on a similar environment raises it; failures lower it.
    EvalOptions good;
    good.history = [](const std::string& key) -> std::optional<SuggestionHistory> {
        if (key != "r/graphs")
            return std::nullopt;
        return SuggestionHistory{3, 0, 1.0, -0.23, "verified 3x on the same GPU and model: -23 % tpot_median_ns"};
    };
    r = evaluate_rules(set, {kernel_scope("k", 10, 600)}, good);
    EXPECT_NEAR(r.findings[0].confidence.kb_factor, 1.0 + 0.5 * 3.0 / 4.0, 1e-12);
    EXPECT_NEAR(r.findings[0].confidence.value, 0.99, 1e-12);   // clamped
    EXPECT_NE(r.findings[0].confidence.reasons.back().find("-23 %"), std::string::npos);

    EvalOptions bad;
    bad.history = [](const std::string&) -> std::optional<SuggestionHistory> {
        return SuggestionHistory{0, 2, 0.5, 0.02, "failed 2x on a similar GPU"};
    };
    r = evaluate_rules(set, {kernel_scope("k", 10, 600)}, bad);
    EXPECT_NEAR(r.findings[0].confidence.kb_factor, 1.0 - 0.5 * 0.5 * 2.0 / 3.0, 1e-12);
    EXPECT_LT(r.findings[0].confidence.value, 0.8);
}

TEST(Rules, RankingByGainTimesConfidence)
{
    json big = basic_rule("big", "count > 1");
    big["gain"] = {{"expr", "total_ns / trace_wall_ns"}};
    big["prior"] = 0.5;
    RuleSet set = rules_from({big});
    // 30 % at 0.5 = 0.15; 20 % at 0.5 = 0.10; 40 % at 0.5 x 0.85 (few samples) = 0.17.
    std::vector<MetricScope> scopes = {kernel_scope("b", 300, 1000), kernel_scope("a", 200, 1000),
                                       kernel_scope("c", 100'000, 4)};
    EvalResult r = evaluate_rules(set, scopes);
    ASSERT_EQ(r.findings.size(), 3u);
    EXPECT_EQ(r.findings[0].subject, "c");
    EXPECT_EQ(r.findings[1].subject, "b");
    EXPECT_EQ(r.findings[2].subject, "a");
    EXPECT_GT(r.findings[0].rank_score(), r.findings[1].rank_score());
}

TEST(Rules, FindingJsonHasTheDocumentedKeys)
{
    RuleSet set = rules_from({basic_rule("r", "avg_duration_us < 50 && count > 500")});
    MetricScope s = kernel_scope("k", 10, 600);
    s.links.kernel_ids = {4, 8};
    s.links.time_ranges.push_back({100, 200, "gap"});
    EvalOptions opt;
    opt.trace_path = "/data/before.sqlite";
    EvalResult r = evaluate_rules(set, {s}, opt);
    ASSERT_EQ(r.findings.size(), 1u);
    json j = findings_to_json(r.findings);
    ASSERT_EQ(j.size(), 1u);
    for (const char* k : {"rule", "verdict", "severity", "subject", "confidence", "expected_gain", "evidence", "suggestions"})
        EXPECT_TRUE(j[0].contains(k)) << k;
    EXPECT_EQ(j[0]["verdict"], "launch-bound");
    EXPECT_EQ(j[0]["severity"], "medium");
    EXPECT_EQ(j[0]["title"]["en"], "k: 600 launches of 10 µs");
    EXPECT_EQ(j[0]["title"]["zh_CN"], "k：600 次");
    EXPECT_EQ(j[0]["confidence"]["level"], "high");
    EXPECT_EQ(j[0]["suggestions"][0]["id"], "r/graphs");
    EXPECT_EQ(j[0]["suggestions"][0]["verify"], "sightline-cli compare /data/before.sqlite after.sqlite");
    EXPECT_EQ(j[0]["links"]["kernel_ids"], json({4, 8}));
    EXPECT_EQ(j[0]["links"]["time_ranges"][0]["end_ns"], 200);
    EXPECT_EQ(j[0]["evidence"].size(), 2u);
    // Text and Markdown renderings mention the rule and the suggestion in the chosen language.
    EXPECT_NE(findings_to_text(r.findings).find("Use CUDA Graphs"), std::string::npos);
    EXPECT_NE(findings_to_markdown(r.findings, "zh_CN").find("使用 CUDA Graph"), std::string::npos);
    EXPECT_EQ(max_severity(r.findings), Severity::Medium);
    EXPECT_FALSE(max_severity({}).has_value());
}

TEST(Rules, ShippedRulesAllLoadAndUseTheVocabulary)
{
    RuleSet set = load_rules({shipped_rules_dir()});
    for (const auto& e : set.errors)
        ADD_FAILURE() << e.file << " " << e.rule_id << ": " << e.message;
    EXPECT_GE(set.rules.size(), 25u);
    for (const auto& r : set.rules) {
        EXPECT_TRUE(is_known_verdict(r.verdict)) << r.id;
        EXPECT_FALSE(r.title.zh_CN.empty()) << r.id;
        EXPECT_FALSE(r.explanation.en.empty()) << r.id;
        EXPECT_FALSE(r.explanation.zh_CN.empty()) << r.id;
        EXPECT_FALSE(r.suggestions.empty()) << r.id;
        for (const auto& s : r.suggestions) {
            EXPECT_FALSE(s.text.zh_CN.empty()) << r.id << "/" << s.id;
            EXPECT_FALSE(s.verify.empty()) << r.id << "/" << s.id;
            EXPECT_FALSE(s.metric.empty()) << r.id << "/" << s.id;
        }
        EXPECT_FALSE(r.references.empty()) << r.id;
    }
}

// merge_ncu_launch_findings: one finding per (rule, kernel) among ncu-launch findings, the best-scoring launch kept
// in the place of the group's first, its subject and both titles rewritten, the group's kernel links and a count;
// a lone launch, other scopes and other rules untouched.
TEST(Rules, NcuLaunchFindingsMergePerRuleAndKernel)
{
    auto make = [](const std::string& rule, ScopeKind scope, const std::string& subject, double gain,
                   std::vector<int64_t> kernels) {
        Finding f;
        f.rule = rule;
        f.scope = scope;
        f.subject = subject;
        f.title = {subject + ": low waves", subject + "：波次低"};
        f.expected_gain.fraction = gain;
        f.confidence.value = 1.0;
        f.links.kernel_ids = std::move(kernels);
        return f;
    };
    std::vector<Finding> v;
    v.push_back(make("waves", ScopeKind::NcuLaunch, "gemm (ncu #3)", 0.01, {10}));
    v.push_back(make("trace-rule", ScopeKind::Trace, "trace", 0.2, {}));
    v.push_back(make("waves", ScopeKind::NcuLaunch, "gemm (ncu #9)", 0.03, {12}));
    v.push_back(make("occupancy", ScopeKind::NcuLaunch, "gemm (ncu #9)", 0.02, {12}));
    v.push_back(make("waves", ScopeKind::NcuLaunch, "gemm (ncu #4)", 0.02, {10, 11}));
    v.push_back(make("waves", ScopeKind::NcuLaunch, "other (ncu #5)", 0.01, {20}));
    v.push_back(make("waves", ScopeKind::Kernel, "gemm", 0.05, {10}));
    merge_ncu_launch_findings(v);
    ASSERT_EQ(v.size(), 5u);
    EXPECT_EQ(v[0].rule, "waves");
    EXPECT_EQ(v[0].subject, "gemm (ncu #9 and 2 more launches)");
    EXPECT_EQ(v[0].title.en, "gemm (ncu #9 and 2 more launches): low waves");
    EXPECT_EQ(v[0].title.zh_CN, "gemm（ncu #9 等 3 次启动）：波次低");
    EXPECT_DOUBLE_EQ(v[0].expected_gain.fraction, 0.03);
    EXPECT_EQ(v[0].links.kernel_ids, (std::vector<int64_t>{10, 12, 11}));
    ASSERT_FALSE(v[0].evidence.empty());
    EXPECT_EQ(v[0].evidence.back().metric, "ncu_launches_flagged");
    EXPECT_EQ(v[0].evidence.back().value, 3);
    ASSERT_TRUE(v[0].ncu_launch);   // the subject as data: the kept launch and the group's size
    EXPECT_EQ(v[0].ncu_launch->kernel, "gemm");
    EXPECT_EQ(v[0].ncu_launch->id, 9);
    EXPECT_EQ(v[0].ncu_launch->launches, 3);
    const auto j = finding_to_json(v[0]);
    ASSERT_TRUE(j.contains("ncu_launch"));
    EXPECT_EQ(j["ncu_launch"]["kernel"], "gemm");
    EXPECT_EQ(j["ncu_launch"]["id"], 9);
    EXPECT_EQ(j["ncu_launch"]["launches"], 3);
    EXPECT_FALSE(finding_to_json(v[1]).contains("ncu_launch"));   // other scopes: no key
    EXPECT_EQ(v[1].subject, "trace");
    EXPECT_EQ(v[2].rule, "occupancy");
    EXPECT_EQ(v[2].subject, "gemm (ncu #9)");   // alone in its group: as it was
    EXPECT_TRUE(v[2].evidence.empty());
    EXPECT_EQ(v[3].subject, "other (ncu #5)");
    EXPECT_EQ(v[4].scope, ScopeKind::Kernel);
}

// The ncu-launch subject is written and read in one place: "NAME (ncu #ID)" and back, a kernel name with its own
// parentheses and " (ncu #" inside included; a merged subject or any other text is not a launch.
TEST(Rules, NcuLaunchSubjectRoundTrips)
{
    EXPECT_EQ(ncu_launch_subject("void gemm<int>(float*)", 7), "void gemm<int>(float*) (ncu #7)");
    const auto r = parse_ncu_launch_subject("void f (ncu #1)(int) (ncu #12)");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->kernel, "void f (ncu #1)(int)");
    EXPECT_EQ(r->id, 12);
    EXPECT_FALSE(parse_ncu_launch_subject("gemm (ncu #9 and 2 more launches)"));
    EXPECT_FALSE(parse_ncu_launch_subject("gemm (ncu #)"));
    EXPECT_FALSE(parse_ncu_launch_subject("ncu #1"));
    EXPECT_FALSE(parse_ncu_launch_subject("gemm (decode)"));
    EXPECT_FALSE(parse_ncu_launch_subject(""));
}

// Every shipped suggestion has a form per vendor (or says it has none for one), and each form speaks its vendor's
// tools only: the engine picks the form by the trace's vendor and leaves a suggestion out where it has none.
TEST(Rules, ShippedSuggestionsHaveAnAmdAndAnNvidiaForm)
{
    RuleSet set = load_rules({shipped_rules_dir()});
    ASSERT_TRUE(set.errors.empty());
    static const char* const nvidia_words[] = {"nsys", "ncu ", "Nsight", "nvidia-smi", "cuBLAS", "TensorRT", "CUTLASS",
                                               "CUDA Graph", "CUDA graph", "nvFuser", "cudaHostAlloc", "cudaMemcpyAsync",
                                               "cudaMemsetAsync", "CUDA_MODULE_LOADING"};
    static const char* const amd_words[] = {"rocprof", "amd-smi", "hipBLASLt", "hipblaslt", "aiter", "HIP graph",
                                            "hipMem", "hipHost", "RCCL", "rocm"};
    int amd_forms = 0, nvidia_forms = 0;
    for (const auto& r : set.rules)
        for (const auto& s : r.suggestions) {
            const std::string where = r.id + "/" + s.id;
            for (const char* v : {"NVIDIA", "AMD"}) {
                const bool listed = s.forms.count(v) ||
                                    std::find(s.no_form_for.begin(), s.no_form_for.end(), v) != s.no_form_for.end();
                EXPECT_TRUE(listed) << where << " has no " << v << " form (give one, or null for none)";
            }
            if (const auto f = resolve_suggestion_form(s, "AMD")) {
                ++amd_forms;
                EXPECT_FALSE(f->text.en.empty()) << where;
                EXPECT_FALSE(f->text.zh_CN.empty()) << where;
                EXPECT_FALSE(f->verify.empty()) << where;
                const std::string text = f->text.en + " | " + f->text.zh_CN + " | " + f->verify;
                for (const char* w : nvidia_words)
                    EXPECT_EQ(text.find(w), std::string::npos) << where << " (AMD) says " << w << ": " << text;
            }
            if (const auto f = resolve_suggestion_form(s, "NVIDIA")) {
                ++nvidia_forms;
                const std::string text = f->text.en + " | " + f->text.zh_CN + " | " + f->verify;
                for (const char* w : amd_words)
                    EXPECT_EQ(text.find(w), std::string::npos) << where << " (NVIDIA) says " << w << ": " << text;
            }
        }
    // ncu.json's launches exist only on NVIDIA: those suggestions have no AMD form.
    EXPECT_GT(nvidia_forms, amd_forms);
    EXPECT_GE(amd_forms, 35);
}

TEST(Rules, TheTracesVendorPicksEachSuggestionsForm)
{
    json rule = basic_rule("r", "count > 100");
    rule["suggestions"][0]["forms"] = {
        {"NVIDIA", json::object()},
        {"AMD", {{"text", {{"en", "Use HIP graphs"}, {"zh_CN", "使用 HIP Graph"}}}, {"verify", "rocprofv3 --stats -- app"}}}};
    json amd_only = {{"id", "amd-only"},
                     {"text", {{"en", "Tune hipBLASLt"}, {"zh_CN", "调优 hipBLASLt"}}},
                     {"verify", "hipblaslt-bench"},
                     {"forms", {{"AMD", json::object()}, {"NVIDIA", nullptr}}}};
    rule["suggestions"].push_back(amd_only);
    const RuleSet set = rules_from({rule});
    const std::vector<MetricScope> scopes = {kernel_scope("k", 3, 1000)};
    auto suggestions = [&](const std::string& vendor) {
        EvalOptions o;
        o.vendor = vendor;
        const EvalResult r = evaluate_rules(set, scopes, o);
        EXPECT_EQ(r.findings.size(), 1u);
        return r.findings.empty() ? std::vector<Suggestion>{} : r.findings[0].suggestions;
    };
    const auto nv = suggestions("NVIDIA");
    ASSERT_EQ(nv.size(), 1u);   // the AMD-only suggestion is left out
    EXPECT_EQ(nv[0].text.en, "Use CUDA Graphs");
    EXPECT_EQ(nv[0].verify, "sightline-cli compare TRACE after.sqlite");
    const auto amd = suggestions("AMD");
    ASSERT_EQ(amd.size(), 2u);
    EXPECT_EQ(amd[0].text.en, "Use HIP graphs");
    EXPECT_EQ(amd[0].text.zh_CN, "使用 HIP Graph");
    EXPECT_EQ(amd[0].verify, "rocprofv3 --stats -- app");
    EXPECT_EQ(amd[1].id, "amd-only");
    // Vendor unknown: the neutral text where there is one.
    const auto unknown = suggestions("");
    ASSERT_EQ(unknown.size(), 2u);
    EXPECT_EQ(unknown[0].text.en, "Use CUDA Graphs");

    // Malformed forms are a clear error naming the suggestion.
    json bad = basic_rule("b", "count > 1");
    bad["suggestions"][0]["forms"] = {{"Intel", json::object()}};
    try {
        parse_rule(bad, "inline");
        FAIL() << "an unknown vendor was accepted";
    } catch (const std::exception& e) {
        EXPECT_NE(std::string(e.what()).find("graphs"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("Intel"), std::string::npos) << e.what();
    }
    bad["suggestions"][0]["forms"] = {{"AMD", nullptr}, {"NVIDIA", nullptr}};
    EXPECT_THROW(parse_rule(bad, "inline"), std::runtime_error);
}

// {kernel_regex}: the scope's kernels as an unanchored, shell-quoted regex for rocprofv3 / rocprof-compute.
TEST(Rules, KernelRegexPlaceholder)
{
    MetricScope s = kernel_scope("void foo::bar_kernel<float>(float*, int)", 3, 10);
    EXPECT_EQ(fill_placeholders("rocprofv3 --kernel-include-regex {kernel_regex}", s),
              "rocprofv3 --kernel-include-regex '(bar_kernel)'");
    s.sources["{kernel_regex}"] = "'(Cijk_Alik|gemv)'";
    EXPECT_EQ(fill_placeholders("-k {kernel_regex}", s), "-k '(Cijk_Alik|gemv)'");
}
