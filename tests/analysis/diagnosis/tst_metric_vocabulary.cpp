// The metric vocabulary a rule may name (metrics_binding.h metric_vocabulary()): complete against what the binding
// assigns, used whole by the shipped rules on real traces, and a typo in a user rule is a rule error, never a rule
// that silently never fires (issue 36: a gate must fail closed).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "analysis/diagnosis/metrics_binding.h"
#include "analysis/diagnosis/rules.h"
#include "analysis/pipeline.h"
#include "tests/support/test_env.h"

using namespace sl;
using nlohmann::json;

namespace {

std::string read(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

std::vector<std::string> device_traces()
{
    std::vector<std::string> v;
    for (const char* f : {"decode-eager", "decode-graph", "decode-sync", "moe-decode", "prefill", "train"})
        v.push_back(test::source_dir() + "/tests/data/device/" + f + ".pt.trace.json.gz");
    return v;
}

} // namespace

// Every name the binding's source assigns (m["name"], put("name", ...), the name lists it copies) is in the
// vocabulary: a metric added to metrics_binding.cpp or one of its binders (diagnosis/binders/*.cpp) and not to the
// list fails here, before a rule using it would be refused as unknown.
TEST(MetricVocabulary, ListsEveryNameTheBindingAssigns)
{
    std::string src = read(test::source_dir() + "/analysis/diagnosis/metrics_binding.cpp");
    size_t binders = 0;
    for (const auto& e : std::filesystem::directory_iterator(test::source_dir() + "/analysis/diagnosis/binders"))
        if (e.path().extension() == ".cpp") {
            src += read(e.path().string());
            ++binders;
        }
    EXPECT_GE(binders, 7u);   // trace, devices, phases, classes, kernels, ncu, host causes
    ASSERT_GT(src.size(), 10000u);
    std::set<std::string> assigned;
    const std::regex one(R"re((?:m\[|put\()"([a-z_0-9]+)")re");
    for (auto it = std::sregex_iterator(src.begin(), src.end(), one); it != std::sregex_iterator(); ++it)
        assigned.insert((*it)[1]);
    const std::regex list(R"re(for \(const char\* k : \{([^}]*)\})re");
    const std::regex name(R"re("([a-z_0-9]+)")re");
    for (auto it = std::sregex_iterator(src.begin(), src.end(), list); it != std::sregex_iterator(); ++it) {
        const std::string blk = (*it)[1];
        for (auto n = std::sregex_iterator(blk.begin(), blk.end(), name); n != std::sregex_iterator(); ++n)
            assigned.insert((*n)[1]);
    }
    ASSERT_GT(assigned.size(), 100u);
    for (const auto& n : assigned)
        EXPECT_TRUE(metric_vocabulary().count(n)) << n << " is assigned by the binding but not in metric_vocabulary()";
}

// On the project's real traces: every metric bound is in the vocabulary, and the shipped rules load without one
// rule error (none names an unknown metric).
TEST(MetricVocabulary, RealTracesBindOnlyKnownNamesAndShippedRulesAreKnown)
{
    for (const auto& path : device_traces()) {
        SCOPED_TRACE(path);
        PipelineOptions o;
        o.rule_dirs = {shipped_rules_dir()};
        const PipelineResult r = run_pipeline({path}, o);
        for (const auto& e : r.diagnosis.rule_errors)
            ADD_FAILURE() << e.file << " " << e.rule_id << ": " << e.message;
        EXPECT_TRUE(r.diagnosis.eval.errors.empty());
        size_t bound = 0;
        for (const auto& s : bind_metrics(*r.trace, r.analysis, nullptr, nullptr))
            for (const auto& [k, v] : s.metrics) {
                ++bound;
                EXPECT_TRUE(metric_vocabulary().count(k)) << k << " (scope " << scope_kind_name(s.kind) << ")";
            }
        EXPECT_GT(bound, 100u);
    }
}

// A user rule with a typo in its condition ("lanch_count") is not evaluated and is reported as a rule error naming
// the file, the rule and the unknown name; the good rule beside it still runs.
TEST(MetricVocabulary, UnknownMetricIsARuleError)
{
    const std::string dir = test::scratch_dir("metric_vocabulary_typo");
    auto rule = [](const std::string& id, const std::string& cond) {
        return json{{"id", id},
                    {"scope", "trace"},
                    {"condition", cond},
                    {"severity", "high"},
                    {"verdict", "launch-bound"},
                    {"title", {{"en", "t"}}}};
    };
    std::ofstream(dir + "/mine.json") << json{{"rules", {rule("typo", "lanch_count > 0"), rule("good", "wall_ns > 0")}}}.dump();
    PipelineOptions o;
    o.rule_dirs = {shipped_rules_dir(), dir};
    const PipelineResult r = run_pipeline({device_traces()[1]}, o);
    ASSERT_EQ(r.diagnosis.rule_errors.size(), 1u);
    EXPECT_EQ(r.diagnosis.rule_errors[0].file, dir + "/mine.json");
    EXPECT_EQ(r.diagnosis.rule_errors[0].rule_id, "typo");
    EXPECT_NE(r.diagnosis.rule_errors[0].message.find("unknown metric 'lanch_count'"), std::string::npos);
    bool typo = false, good = false;
    for (const auto& f : r.diagnosis.eval.findings) {
        typo |= f.rule == "typo";
        good |= f.rule == "good";
    }
    EXPECT_FALSE(typo);
    EXPECT_TRUE(good);
    // In the JSON a script reads: rules.errors names it.
    const json j = pipeline_to_json(r);
    EXPECT_NE(j["rules"]["errors"].dump().find("lanch_count"), std::string::npos) << j["rules"]["errors"];
}
