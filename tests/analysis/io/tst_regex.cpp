// sl::Regex (RE2) — issue 36 §1: patterns that made std::regex backtrack exponentially or overflow its recursive
// matcher's stack run here on long names (a hang or a crash would fail the test by ctest's timeout or a signal);
// what RE2 cannot run in linear time is refused with an error that names it and quotes a bounded prefix; and the
// shipped patterns (step grammar, kernel classes, host causes) read long hostile names and still read their own
// examples as before.
#include <gtest/gtest.h>

#include <atomic>
#include <string>

#include <nlohmann/json.hpp>

#include "analysis/io/regex.h"
#include "analysis/timeline/host_causes.h"
#include "analysis/timeline/op_classes.h"
#include "analysis/timeline/step_grammar.h"
#include "analysis/trace/cancel_point.h"
#include "analysis/trace/errors.h"

using namespace sl;

namespace {

std::string repeat(const std::string& s, size_t bytes)
{
    std::string out;
    while (out.size() < bytes)
        out += s;
    return out;
}

std::string refusal(const std::string& pattern)
{
    try {
        Regex re(pattern);
    } catch (const RegexError& e) {
        return e.what();
    }
    return {};
}

}   // namespace

TEST(Regex, BacktrackingPatternsRunInLinearTimeOnLongNames)
{
    // Exponential for a backtracking matcher on a 41-character name that almost matches.
    const std::string almost = std::string(40, 'a') + "!";
    EXPECT_FALSE(Regex("(a+)+$").full_match(almost));
    EXPECT_TRUE(Regex("(a+)+!$").search(almost));
    EXPECT_FALSE(Regex("^(a|aa)+$").full_match(almost));
    // libstdc++'s recursive matcher overflowed its stack on these over a 16 KiB kernel name.
    const std::string longname = repeat("ab", 16384) + "c";
    EXPECT_TRUE(Regex("(a|b)*c").search(longname));
    EXPECT_TRUE(Regex("^(.)*$").full_match(longname));
    std::vector<std::string_view> m;
    ASSERT_TRUE(Regex("^((a|b)*)c$").full_match(longname, m));
    EXPECT_EQ(m[1].size(), longname.size() - 1);
    // A Hub config's module pattern ("re:(.|.)*X") against a long module path.
    EXPECT_FALSE(Regex("^(?:(.|.)*X)").search(repeat("model.layers.0.mlp.", 16384)));
}

TEST(Regex, WhatRe2CannotRunIsRefusedAndNamed)
{
    EXPECT_NE(refusal(R"((a)\1)").find("back-references"), std::string::npos) << refusal(R"((a)\1)");
    EXPECT_NE(refusal("compile(?!d)").find("look-around"), std::string::npos) << refusal("compile(?!d)");
    EXPECT_NE(refusal("(?<=x)y").find("look-around"), std::string::npos);
    EXPECT_NE(refusal("(unclosed").find("missing )"), std::string::npos) << refusal("(unclosed");
    // Long patterns are refused before compiling, and the message quotes a bounded prefix once.
    const std::string huge = repeat("(abc|def)", 126 * 1024);
    const std::string e = refusal(huge);
    EXPECT_NE(e.find("longer than the 4096 accepted"), std::string::npos) << e.substr(0, 200);
    EXPECT_LT(e.size(), 300u);
    EXPECT_NE(e.find("(abc|def)(abc|def)"), std::string::npos);
    EXPECT_NE(e.find("…"), std::string::npos);
    // Control characters in a quoted pattern are escaped (a message never carries a raw line feed).
    EXPECT_EQ(refusal("(\n").find('\n'), std::string::npos);
    EXPECT_NE(refusal("(\n").find("\\x0a"), std::string::npos);
    // The quote is bounded in what it prints, escapes included (fuzz target regex: 80 NUL bytes quoted twice, once
    // from the pattern and once from RE2's fragment, made a 700-byte message).
    const std::string nuls = "~s\\" + std::string(80, '\0') + ")\\1";
    EXPECT_LT(refusal(nuls).size(), 300u) << refusal(nuls).size();
    EXPECT_FALSE(refusal(nuls).empty());
    EXPECT_LE(quote_regex(std::string(200, '\x01')).size(), kRegexQuoteBytes + std::string("…").size());
    EXPECT_EQ(quote_regex("日本語"), "日本語");
    // A default Regex matches nothing.
    EXPECT_FALSE(Regex().search(""));
    EXPECT_FALSE(Regex().valid());
}

TEST(Regex, GroupsMatchesAndReplacementsAsStdRegexGaveThem)
{
    std::vector<std::string_view> m;
    const Regex re(R"(^execute_(\d+)_|\bbs=(\d+))");
    ASSERT_TRUE(re.search("step[DECODE bs=32]", m));
    EXPECT_EQ(m.size(), 3u);
    EXPECT_EQ(m[1].data(), nullptr);   // unmatched group
    EXPECT_EQ(m[2], "32");
    ASSERT_TRUE(re.search("execute_16_context_0", m));
    EXPECT_EQ(m[1], "16");
    // Case folding is an option; ^ is the start of the text, also when the search starts later.
    EXPECT_TRUE(Regex("GEMM", Regex::Options{.icase = true}).search("ampere_sgemm_128x64"));
    EXPECT_FALSE(Regex("GEMM").search("ampere_sgemm_128x64"));
    EXPECT_FALSE(Regex("^b").search_from("ab", 1, m));
    EXPECT_TRUE(Regex(R"(\bb)").search_from("a b", 1, m));
    // Every non-overlapping match, an empty one stepping on one byte (std::sregex_iterator's order).
    const auto pairs = Regex(R"((\w+)=(\d+))").all_matches("bs=16 tokens=400 x=y kv=9");
    ASSERT_EQ(pairs.size(), 3u);
    EXPECT_EQ(pairs[1][1], "tokens");
    EXPECT_EQ(pairs[2][2], "9");
    EXPECT_EQ(Regex("x*").all_matches("abc").size(), 4u);
    EXPECT_EQ(Regex(R"((^|\s)(/[a-z]+(/[a-z]+)+))").replace_all("see /home/me/trace and /a", "\\1<path>"),
              "see <path> and /a");
}

TEST(Regex, ShippedPatternsReadLongHostileNamesAndTheirOwnExamples)
{
    // Sightline's own step grammar: 16 KiB vLLM annotations (a step of 20 distinct ones backtracked in O(n²)).
    const StepGrammar& g = StepGrammar::load();
    for (int i = 0; i < 20; ++i) {
        const std::string name = "execute_context_" + std::to_string(i) + "(" + repeat("1", 16384) + "_generation_0";
        EXPECT_FALSE(g.parse(name).has_value());
        const std::string ok = "execute_context_" + std::to_string(i) + "(" + std::to_string(i * 100) +
                               ")_generation_" + std::to_string(i) + "(" + repeat("9", 16384) + ")";
        EXPECT_TRUE(g.parse(ok).has_value()) << i;
    }
    // Each format's examples (a format may list several, "step[...], step[...]") read as before.
    size_t examples = 0;
    for (const auto& f : g.formats()) {
        std::string rest = f.example;
        while (!rest.empty()) {
            const size_t cut = rest.find("], ");
            const std::string one = cut == std::string::npos ? rest : rest.substr(0, cut + 1);
            rest = cut == std::string::npos ? std::string() : rest.substr(cut + 3);
            EXPECT_TRUE(g.parse(one).has_value()) << f.id << ": " << one;
            ++examples;
        }
    }
    EXPECT_GE(examples, 7u);
    // Kernel classes: a 16 KiB templated name classifies, and the regex patterns still read what they are for.
    const OpClassifier c = OpClassifier::load();
    const std::string tmpl = "void triton_red_fused_" + repeat("add_mul_", 2048) + "rsqrt_0";
    EXPECT_EQ(c.class_ids()[static_cast<size_t>(c.classify(tmpl).cls)], "norm");
    EXPECT_EQ(c.class_ids()[static_cast<size_t>(c.classify("triton__0d1d2d").cls)], "elementwise");
    // Host causes: "compile" but not "compiled" (the look-ahead the shipped file had, in RE2's syntax).
    const HostCausePatterns h = HostCausePatterns::load();
    const int compilation = h.classify("compile_fx", false);
    ASSERT_GE(compilation, 0);
    EXPECT_EQ(h.causes()[static_cast<size_t>(compilation)].id, "compilation");
    EXPECT_EQ(h.classify("CompiledFunction", false) == compilation, false);
    EXPECT_EQ(h.classify("compileFusion", false), compilation);
    EXPECT_EQ(h.classify(repeat("compiled ", 4096), false) == compilation, false);
}

TEST(Regex, FilesWithPatternsRe2CannotRunAreRefusedNamingTheEntry)
{
    const auto refused = [](const nlohmann::json& doc, auto load) {
        try {
            load(doc);
        } catch (const TraceError& e) {
            return std::string(e.what());
        }
        return std::string();
    };
    const nlohmann::json classes = nlohmann::json::parse(R"({"classes":[{"id":"gemm","label":"GEMM"}],
        "patterns":[{"class":"gemm","match":"(a)\\1","kind":"regex"}]})");
    const std::string e = refused(classes, [](const nlohmann::json& d) { OpClassifier::from_json(d, "classes.json"); });
    EXPECT_NE(e.find("classes.json"), std::string::npos) << e;
    EXPECT_NE(e.find("patterns[0]"), std::string::npos) << e;
    EXPECT_NE(e.find("back-references"), std::string::npos) << e;
}

// Issue 36 §7: every match is a cancel point, so a pattern run over many names stops when the job is cancelled;
// outside a scope (the CLI) or with the flag down a match is only a match.
TEST(Regex, EveryMatchIsACancelPoint)
{
    const Regex re("a+b");
    std::vector<std::string_view> m;
    std::atomic<bool> flag{false};
    const CancelScope scope(&flag);
    EXPECT_TRUE(re.search("xaab"));
    flag = true;
    EXPECT_THROW(re.search("xaab"), Cancelled);
    EXPECT_THROW(re.full_match("aab"), Cancelled);
    EXPECT_THROW(re.search("xaab", m), Cancelled);
    EXPECT_THROW((void)re.all_matches("aab aab"), Cancelled);
    flag = false;
    EXPECT_EQ(re.all_matches("aab aab").size(), 2u);
}
