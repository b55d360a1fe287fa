// The time ledger on hand-built scopes: caps, sharing, the tree, gating and severity, with numbers worked out by
// hand in the comments.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "analysis/diagnosis/ledger.h"
#include "analysis/diagnosis/rules.h"

using namespace sl;

namespace {

// A trace of 100 ms: 80 ms busy, 20 ms idle = 12 ms host wait + 2 ms kernel wait + 5 ms sync wait + 1 ms other.
MetricScope trace_scope()
{
    MetricScope s;
    s.kind = ScopeKind::Trace;
    s.subject = "trace";
    s.metrics = {{"trace_wall_ns", 1e8}, {"wall_ns", 1e8},        {"busy_ns", 8e7},       {"idle_ns", 2e7},
                 {"host_wait_ns", 1.2e7}, {"kernel_wait_ns", 2e6}, {"sync_wait_ns", 5e6}, {"other_wait_ns", 1e6},
                 {"h2d_ns", 0},           {"launch_api_ns", 3e7}};
    return s;
}

MetricScope kernel_scope(const std::string& name, double total_ns)
{
    MetricScope s;
    s.kind = ScopeKind::Kernel;
    s.subject = name;
    s.metrics = {{"trace_wall_ns", 1e8}, {"total_ns", total_ns}};
    return s;
}

Rule rule(const std::string& id, const std::string& scope, const std::string& removes, const std::string& cap,
          const std::string& severity = "high")
{
    nlohmann::json j{{"id", id},
                     {"scope", scope},
                     {"condition", "trace_wall_ns > 0"},
                     {"severity", severity},
                     {"verdict", "launch-bound"},
                     {"title", {{"en", id}}}};
    if (!removes.empty()) {
        j["removes"] = {{"time", removes}};
        if (!cap.empty())
            j["removes"]["cap"] = cap;
    }
    return parse_rule(j, "test.json");
}

Finding finding(const std::string& rule, ScopeKind scope, const std::string& subject, double fraction,
                std::optional<double> ns, Severity sev = Severity::High)
{
    Finding f;
    f.rule = rule;
    f.verdict = "launch-bound";
    f.scope = scope;
    f.subject = subject;
    f.severity = sev;
    f.expected_gain.fraction = fraction;
    f.expected_gain.low = f.expected_gain.high = fraction;
    f.expected_gain.ns = ns;
    f.expected_gain.computed = true;
    f.confidence.value = 0.7;
    return f;
}

const Finding* by_rule(const std::vector<Finding>& v, const std::string& id)
{
    for (const auto& f : v)
        if (f.rule == id)
            return &f;
    return nullptr;
}

} // namespace

// Two findings claim the host wait (12 ms): one asks 10 ms, the other 14 ms (capped at 12 by the entry). They share
// the 12 ms in proportion 10 : 12, so 5.4545 ms and 6.5455 ms, together exactly 12 ms.
TEST(Ledger, FindingsOnOneEntryShareIt)
{
    RuleSet rules;
    rules.rules = {rule("a", "trace", "idle:host", ""), rule("b", "trace", "idle:host", "")};
    std::vector<MetricScope> scopes = {trace_scope()};
    std::vector<Finding> f = {finding("a", ScopeKind::Trace, "trace", 0.10, 1e7),
                              finding("b", ScopeKind::Trace, "trace", 0.14, 1.4e7)};
    const Ledger L = apply_ledger(f, scopes, rules);
    ASSERT_EQ(f.size(), 2u);
    const double a = *by_rule(f, "a")->expected_gain.ns, b = *by_rule(f, "b")->expected_gain.ns;
    EXPECT_NEAR(a, 1.2e7 * 10.0 / 22.0, 1);
    EXPECT_NEAR(b, 1.2e7 * 12.0 / 22.0, 1);
    EXPECT_NEAR(a + b, 1.2e7, 1);
    EXPECT_NEAR(L.find("idle:host")->granted_ns, 1.2e7, 1);
    EXPECT_NEAR(by_rule(f, "a")->expected_gain.fraction, a / 1e8, 1e-12);
    EXPECT_NEAR(by_rule(f, "a")->expected_gain.ledger->unbounded_fraction, 0.10, 1e-12);
}

// A deeper claim is settled first: "idle:host" takes 12 ms; a generic "idle" claim of 60 % of the wall (60 ms) gets
// what is left of the 20 ms idle: 8 ms. Nothing is counted twice and the total stays below the wall.
TEST(Ledger, ParentGetsWhatChildrenLeft)
{
    RuleSet rules;
    rules.rules = {rule("host", "trace", "idle:host", ""), rule("idle", "trace", "idle", "idle_ns")};
    std::vector<MetricScope> scopes = {trace_scope()};
    std::vector<Finding> f = {finding("idle", ScopeKind::Trace, "trace", 0.6, 6e7),
                              finding("host", ScopeKind::Trace, "trace", 0.3, 3e7)};
    const Ledger L = apply_ledger(f, scopes, rules);
    EXPECT_NEAR(*by_rule(f, "host")->expected_gain.ns, 1.2e7, 1);
    EXPECT_NEAR(*by_rule(f, "idle")->expected_gain.ns, 8e6, 1);
    EXPECT_NEAR(L.granted_ns(), 2e7, 1);
    EXPECT_LE(L.granted_ns(), L.wall_ns);
}

// The case: a short kernel of 2.19 ms total asks 2.45 ms (its launch calls). Its cap is its own time.
TEST(Ledger, KernelCapIsItsOwnTime)
{
    RuleSet rules;
    rules.rules = {rule("short", "kernel", "idle:host", "total_ns")};
    std::vector<MetricScope> scopes = {trace_scope(), kernel_scope("rms_norm", 2.19e6)};
    std::vector<Finding> f = {finding("short", ScopeKind::Kernel, "rms_norm", 0.0245, 2.45e6)};
    apply_ledger(f, scopes, rules);
    ASSERT_EQ(f.size(), 1u);
    EXPECT_NEAR(*f[0].expected_gain.ns, 2.19e6, 1);
    EXPECT_NEAR(f[0].expected_gain.ledger->cap_ns, 2.19e6, 1);
}

// Gating: with 0.5 ms of host wait (< 1 % of 100 ms) a launch finding is suppressed; severity follows the bounded
// gain (a high rule granted 4 % of the wall is medium, 0.2 % is info).
TEST(Ledger, GatingAndSeverity)
{
    RuleSet rules;
    rules.rules = {rule("launch", "trace", "idle:host", ""), rule("sync", "trace", "idle:sync", ""),
                   rule("tiny", "kernel", "kernel:{subject}", "")};
    MetricScope t = trace_scope();
    t.metrics["host_wait_ns"] = 5e5;
    std::vector<MetricScope> scopes = {t, kernel_scope("k", 2e5)};
    std::vector<Finding> f = {finding("launch", ScopeKind::Trace, "trace", 0.2, 2e7),
                              finding("sync", ScopeKind::Trace, "trace", 0.04, 4e6),
                              finding("tiny", ScopeKind::Kernel, "k", 0.5, 5e7)};
    const Ledger L = apply_ledger(f, scopes, rules);
    ASSERT_EQ(L.suppressed.size(), 1u);
    EXPECT_EQ(L.suppressed[0].rule, "launch");
    ASSERT_EQ(f.size(), 2u);
    EXPECT_EQ(by_rule(f, "sync")->severity, Severity::Medium);
    EXPECT_EQ(by_rule(f, "sync")->expected_gain.ledger->rule_severity, Severity::High);
    EXPECT_NEAR(*by_rule(f, "tiny")->expected_gain.ns, 2e5, 1);   // the kernel's whole time, not 50 ms
    EXPECT_EQ(by_rule(f, "tiny")->severity, Severity::Info);
    EXPECT_EQ(severity_for_gain(0.10), Severity::High);
    EXPECT_EQ(severity_for_gain(0.0999), Severity::Medium);
    EXPECT_EQ(severity_for_gain(0.005), Severity::Low);
    EXPECT_EQ(severity_for_gain(0.0049), Severity::Info);
}

// A rule range (nothing computed) is bounded by the same ledger, and so are the suggestions' ranges.
TEST(Ledger, RangesAndSuggestionsAreBounded)
{
    RuleSet rules;
    rules.rules = {rule("pageable", "trace", "idle:host", "pageable_async_memcpy_ns")};
    MetricScope t = trace_scope();
    t.metrics["pageable_async_memcpy_ns"] = 1920;   // 1.92 µs of pageable copies
    t.metrics["host_wait_ns"] = 5e6;
    std::vector<MetricScope> scopes = {t};
    Finding x = finding("pageable", ScopeKind::Trace, "trace", 0.45, std::nullopt, Severity::Medium);
    x.expected_gain.computed = false;
    x.expected_gain.low = 0.3;
    x.expected_gain.high = 0.6;
    Suggestion s;
    s.id = "pin-memory";
    s.gain_low = 0.3;
    s.gain_high = 0.6;
    x.suggestions.push_back(s);
    std::vector<Finding> f = {x};
    apply_ledger(f, scopes, rules);
    ASSERT_EQ(f.size(), 1u);
    EXPECT_NEAR(*f[0].expected_gain.ns, 1920, 1e-6);
    EXPECT_LE(f[0].expected_gain.high, 1920 / 1e8 + 1e-15);
    EXPECT_LE(f[0].suggestions[0].gain_high, 1920 / 1e8 + 1e-15);
    EXPECT_EQ(f[0].severity, Severity::Info);
}
