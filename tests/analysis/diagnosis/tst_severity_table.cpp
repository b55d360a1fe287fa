// The severity table of the time ledger (resources/schemas/findings.md): what severity a finding gets from its
// bounded end-to-end gain, its confidence, whether the trace measured the gain, and its rule's kind and default —
// written out over a grid and compared with a golden file (a mismatch writes <golden>.actual beside it), so a change
// of thresholds shows as a diff a reviewer reads. And the shipped rules' kinds: every rule that removes no time is a
// check, every other a remedy.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "analysis/diagnosis/ledger.h"
#include "analysis/diagnosis/rules.h"
#include "tests/support/test_env.h"

using namespace sl;

TEST(SeverityTable, MatchesGolden)
{
    const double gains[] = {0.002, 0.005, 0.02, 0.03, 0.099, 0.10, 0.331};
    const double confidences[] = {0.30, 0.48, 0.80};
    std::string out =
        "# Severity from the bounded end-to-end gain g (share of the wall) and the confidence c (diagnosis/ledger.h).\n"
        "# high: g >= 10 % and c >= 0.4; medium: g >= 3 % (or a high gain at c < 0.4); low: g >= 0.5 %; else info.\n"
        "# A remedy whose gain the trace measured takes the table's severity, above or below its rule's default; a\n"
        "# range-only gain (not measured) is at most the default; a check keeps its default.\n"
        "#\n"
        "# kind    default gain       g        c=0.30  c=0.48  c=0.80\n";
    for (const char* kind : {"remedy", "check"})
        for (const Severity def : {Severity::Low, Severity::Medium, Severity::High})
            for (const bool computed : {true, false}) {
                if (std::string(kind) == "check" && !computed)
                    continue;
                for (const double g : gains) {
                    char line[160];
                    std::snprintf(line, sizeof line, "%-8s %-7s %-10s %5.1f %%", kind, severity_name(def),
                                  computed ? "measured" : "range", g * 100);
                    out += line;
                    for (const double c : confidences) {
                        const Severity s = ledger_severity(def, g, c, computed, std::string(kind) == "check");
                        std::snprintf(line, sizeof line, "  %-6s", severity_name(s));
                        out += line;
                    }
                    while (!out.empty() && out.back() == ' ')
                        out.pop_back();
                    out += "\n";
                }
            }
    const std::string golden = test::source_dir() + "/tests/golden/ledger/severity_table.txt";
    EXPECT_TRUE(test::matches_golden(golden, out)) << "see " << golden << ".actual\n" << out;
    // The row the planted decode loop needs: a measured third of the wall under a medium default is high.
    EXPECT_EQ(ledger_severity(Severity::Medium, 0.331, 0.7, true, false), Severity::High);
}

TEST(SeverityTable, ShippedRulesSayTheirKind)
{
    const RuleSet rules = load_rules({test::source_dir() + "/resources/rules"});
    ASSERT_TRUE(rules.errors.empty()) << rules.errors.front().file << ": " << rules.errors.front().message;
    ASSERT_FALSE(rules.rules.empty());
    for (const Rule& r : rules.rules) {
        if (r.removes == "none") {
            EXPECT_EQ(r.kind, "check") << r.id;
        } else {
            EXPECT_EQ(r.kind, "remedy") << r.id;
        }
    }
    // A kind outside the vocabulary is refused with the rule named.
    nlohmann::json j{{"id", "x"},         {"scope", "trace"},          {"condition", "idle_ns > 0"},
                     {"kind", "advice"},  {"verdict", "host-bound"}, {"title", {{"en", "x"}}}};
    EXPECT_THROW(parse_rule(j, "x.json"), std::runtime_error);
}
