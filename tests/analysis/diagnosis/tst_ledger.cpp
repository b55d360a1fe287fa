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

// Two findings claim the host wait (12 ms): one asks 10 ms, the other 14 ms (capped at 12 by the entry). They are
// views of the same nanoseconds: the larger claim keeps them — b is granted the 12 ms, a what b left: nothing.
TEST(Ledger, FindingsOnOneEntryLargerClaimKeepsIt)
{
    RuleSet rules;
    rules.rules = {rule("a", "trace", "idle:host", ""), rule("b", "trace", "idle:host", "")};
    std::vector<MetricScope> scopes = {trace_scope()};
    std::vector<Finding> f = {finding("a", ScopeKind::Trace, "trace", 0.10, 1e7),
                              finding("b", ScopeKind::Trace, "trace", 0.14, 1.4e7)};
    const Ledger L = apply_ledger(f, scopes, rules);
    ASSERT_EQ(f.size(), 2u);
    const double a = *by_rule(f, "a")->expected_gain.ns, b = *by_rule(f, "b")->expected_gain.ns;
    EXPECT_NEAR(a, 0, 1);
    EXPECT_NEAR(b, 1.2e7, 1);
    EXPECT_NEAR(L.find("idle:host")->granted_ns, 1.2e7, 1);
    EXPECT_NEAR(by_rule(f, "b")->expected_gain.fraction, 0.12, 1e-12);
    EXPECT_NEAR(by_rule(f, "a")->expected_gain.ledger->unbounded_fraction, 0.10, 1e-12);
    // Two claims that fit side by side are both granted in full: 4 ms and 6 ms of the 12.
    std::vector<Finding> g = {finding("a", ScopeKind::Trace, "trace", 0.04, 4e6),
                              finding("b", ScopeKind::Trace, "trace", 0.06, 6e6)};
    apply_ledger(g, scopes, rules);
    EXPECT_NEAR(*by_rule(g, "a")->expected_gain.ns, 4e6, 1);
    EXPECT_NEAR(*by_rule(g, "b")->expected_gain.ns, 6e6, 1);
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

namespace {

MetricScope class_scope(const std::string& subject, double total_ns)
{
    MetricScope s;
    s.kind = ScopeKind::OpClass;
    s.subject = subject;
    s.metrics = {{"trace_wall_ns", 1e8}, {"total_ns", total_ns}};
    return s;
}

// Ten kernels of 3 ms: rows 0..5 are the elementwise kernels of prefill, rows 0..9 all the kernel-mix kernels
// (elementwise, copies, norms), rows 6..7 a GEMM.
KernelPools ten_kernels()
{
    KernelPools p;
    p.kernel_ns.assign(10, 3e6);
    p.rows = [](const std::string& e) -> std::optional<std::vector<uint32_t>> {
        if (e == "class:elementwise (prefill)")
            return std::vector<uint32_t>{0, 1, 2, 3, 4, 5};
        if (e == "class:elementwise-copy")
            return std::vector<uint32_t>{0, 1, 2, 3, 4, 5, 8, 9};
        if (e == "class:gemm (prefill)")
            return std::vector<uint32_t>{6, 7};
        return std::nullopt;
    };
    return p;
}

} // namespace

// One claim per kernel (the Qwen case): the fusion of all kernel-mix kernels (8 kernels, 24 ms) claims half of them,
// 12 ms; a Roofline finding on the elementwise kernels of prefill (6 of those 8, 18 ms) claims 15 ms; a GEMM finding
// claims 3 ms of its own 6 ms. The Roofline claim is the larger: it keeps the six shared kernels and is granted its
// 15 ms; fusion keeps only the two kernels nobody larger took (6 ms), its claim and cap shrink to 6/24 of themselves —
// 3 ms. Together they promise 18 ms of the 24 ms pool union, never 27 ms. The GEMM pool shares nothing.
TEST(Ledger, OverlappingKernelPoolsAreClaimedOnce)
{
    RuleSet rules;
    rules.rules = {rule("fusion", "trace", "class:elementwise-copy", "elementwise_copy_ns"),
                   rule("roofline", "op_class", "class:{subject}", "total_ns"),
                   rule("gemm", "op_class", "class:{subject}", "total_ns")};
    MetricScope t = trace_scope();
    t.metrics["elementwise_copy_ns"] = 2.4e7;
    std::vector<MetricScope> scopes = {t, class_scope("elementwise (prefill)", 1.8e7), class_scope("gemm (prefill)", 6e6)};
    std::vector<Finding> f = {finding("fusion", ScopeKind::Trace, "trace", 0.12, 1.2e7),
                              finding("roofline", ScopeKind::OpClass, "elementwise (prefill)", 0.15, std::nullopt),
                              finding("gemm", ScopeKind::OpClass, "gemm (prefill)", 0.03, std::nullopt)};
    const KernelPools pools = ten_kernels();
    const Ledger L = apply_ledger(f, scopes, rules, {}, &pools);
    const auto* fusion = by_rule(f, "fusion");
    const auto* roof = by_rule(f, "roofline");
    ASSERT_NE(fusion, nullptr);
    ASSERT_NE(roof, nullptr);
    EXPECT_NEAR(*roof->expected_gain.ns, 1.5e7, 1);
    EXPECT_NEAR(*fusion->expected_gain.ns, 3e6, 1);
    EXPECT_NEAR(fusion->expected_gain.ledger->overlap_ns, 1.8e7, 1);
    ASSERT_EQ(fusion->expected_gain.ledger->overlaps.size(), 1u);
    EXPECT_EQ(fusion->expected_gain.ledger->overlaps[0], "class:elementwise (prefill)");
    EXPECT_NEAR(fusion->expected_gain.ledger->available_ns, 6e6, 1);
    EXPECT_NEAR(*by_rule(f, "gemm")->expected_gain.ns, 3e6, 1);
    EXPECT_EQ(by_rule(f, "gemm")->expected_gain.ledger->overlap_ns, 0);
    EXPECT_NEAR(L.find("class:elementwise-copy")->overlap_ns, 1.8e7, 1);
    // The other way round: fusion's claim the larger (20 ms), it keeps all eight kernels and the Roofline finding on
    // six of them gets nothing.
    std::vector<Finding> g = {finding("fusion", ScopeKind::Trace, "trace", 0.20, 2e7),
                              finding("roofline", ScopeKind::OpClass, "elementwise (prefill)", 0.15, std::nullopt)};
    apply_ledger(g, scopes, rules, {}, &pools);
    EXPECT_NEAR(*by_rule(g, "fusion")->expected_gain.ns, 2e7, 1);
    EXPECT_NEAR(*by_rule(g, "roofline")->expected_gain.ns, 0, 1);
    EXPECT_EQ(by_rule(g, "roofline")->severity, Severity::Info);
    // Without pools the two entries are taken as disjoint: 35 ms promised from 24 ms of kernels.
    std::vector<Finding> h = {finding("fusion", ScopeKind::Trace, "trace", 0.20, 2e7),
                              finding("roofline", ScopeKind::OpClass, "elementwise (prefill)", 0.15, std::nullopt)};
    apply_ledger(h, scopes, rules);
    EXPECT_NEAR(*by_rule(h, "fusion")->expected_gain.ns + *by_rule(h, "roofline")->expected_gain.ns, 3.5e7, 1);
}

// Severity both ways: a measured gain of a third of the wall is high whatever the rule's default (medium), and a
// measured 1 % is low under a high default; a range-only gain stays at most the default; a check keeps its severity;
// a high gain with low confidence is medium.
TEST(Ledger, SeverityFollowsTheMeasuredGainBothWays)
{
    RuleSet rules;
    rules.rules = {rule("sync", "phase", "idle:sync", "", "medium"), rule("tiny", "trace", "idle:host", "", "high"),
                   rule("guess", "trace", "idle:other", "", "low")};
    MetricScope t = trace_scope();
    t.metrics["sync_wait_ns"] = 3.4e7;
    t.metrics["idle_ns"] = 5.3e7;
    t.metrics["busy_ns"] = 4.7e7;
    t.metrics["other_wait_ns"] = 5e6;
    MetricScope ph;
    ph.kind = ScopeKind::Phase;
    ph.subject = "decode";
    ph.metrics = {{"trace_wall_ns", 1e8}, {"wall_ns", 1e8}, {"step_count", 100}, {"tpot_median_ns", 1e6}};
    std::vector<MetricScope> scopes = {t, ph};
    Finding guess = finding("guess", ScopeKind::Trace, "trace", 0.2, std::nullopt, Severity::Low);
    guess.expected_gain.computed = false;
    guess.expected_gain.low = 0.1;
    guess.expected_gain.high = 0.3;
    std::vector<Finding> f = {finding("sync", ScopeKind::Phase, "decode", 0.34, std::nullopt, Severity::Medium),
                              finding("tiny", ScopeKind::Trace, "trace", 0.01, 1e6, Severity::High), guess};
    apply_ledger(f, scopes, rules);
    const Finding* sync = by_rule(f, "sync");
    ASSERT_NE(sync, nullptr);
    EXPECT_NEAR(sync->expected_gain.fraction, 0.34, 1e-9);
    EXPECT_EQ(sync->severity, Severity::High);
    EXPECT_EQ(sync->expected_gain.ledger->rule_severity, Severity::Medium);
    EXPECT_EQ(by_rule(f, "tiny")->severity, Severity::Low);
    // 5 % granted (medium by the table), but a range only: at most its default, low.
    EXPECT_NEAR(by_rule(f, "guess")->expected_gain.fraction, 0.05, 1e-9);
    EXPECT_EQ(by_rule(f, "guess")->severity, Severity::Low);
    // Low confidence caps a high gain at medium.
    std::vector<Finding> g = {finding("sync", ScopeKind::Phase, "decode", 0.34, std::nullopt, Severity::Medium)};
    g[0].confidence.value = 0.3;
    apply_ledger(g, scopes, rules);
    EXPECT_EQ(g[0].severity, Severity::Medium);
    // A check keeps its severity whatever its gain.
    EXPECT_EQ(ledger_severity(Severity::High, 0.0, 0.9, true, true), Severity::High);
}

// A stall at the capture's edge is nobody's to remove (issue 34: one stall before an SGLang step was a High finding
// "up to 97.8 %"). The trace of 100 ms holds 12 ms of host wait, 10 ms of it in one gap before the first step: the
// idle entries keep 2 ms of host wait and 10 ms of idle, idle:edge the 10 ms, and a finding asking 12 ms of the host
// wait is granted the 2 ms (2 % of the wall: low, not high).
TEST(Ledger, CaptureEdgeIdleIsGrantedToNoFinding)
{
    RuleSet rules;
    rules.rules = {rule("host", "trace", "idle:host", "host_wait_ns"), rule("idle", "trace", "idle", "idle_ns")};
    MetricScope t = trace_scope();
    t.metrics["edge_host_wait_ns"] = 1e7;
    std::vector<MetricScope> scopes = {t};
    std::vector<Finding> f = {finding("host", ScopeKind::Trace, "trace", 0.12, 1.2e7),
                              finding("idle", ScopeKind::Trace, "trace", 0.2, 2e7)};
    const Ledger L = apply_ledger(f, scopes, rules);
    EXPECT_NEAR(L.edge_ns, 1e7, 1);
    ASSERT_NE(L.find("idle:edge"), nullptr);
    EXPECT_NEAR(L.find("idle:edge")->available_ns, 1e7, 1);
    EXPECT_NEAR(L.find("idle:edge")->granted_ns, 0, 1);
    EXPECT_EQ(L.find("idle:edge")->parent, "wall");
    EXPECT_NEAR(L.find("idle")->available_ns, 1e7, 1);
    EXPECT_NEAR(L.find("idle:host")->available_ns, 2e6, 1);
    ASSERT_NE(by_rule(f, "host"), nullptr);
    EXPECT_NEAR(*by_rule(f, "host")->expected_gain.ns, 2e6, 1);
    EXPECT_EQ(by_rule(f, "host")->severity, Severity::Low);
    // The idle claim gets what the host claim left of the steady idle: 10 - 2 = 8 ms, never the edge's.
    EXPECT_NEAR(*by_rule(f, "idle")->expected_gain.ns, 8e6, 1);
    EXPECT_LE(L.granted_ns(), L.wall_ns - L.edge_ns + 1);
    // A dependency wait that lies wholly at the edge leaves its finding nothing: suppressed, and the reason says where.
    RuleSet dep_rules;
    dep_rules.rules = {rule("dep", "trace", "idle:dependency", "dependency_wait_ns")};
    MetricScope d = trace_scope();
    d.metrics["dependency_wait_ns"] = 5e6;
    d.metrics["edge_dependency_wait_ns"] = 5e6;
    std::vector<Finding> df = {finding("dep", ScopeKind::Trace, "trace", 0.05, 5e6)};
    const Ledger D = apply_ledger(df, {d}, dep_rules);
    EXPECT_TRUE(df.empty());
    ASSERT_EQ(D.suppressed.size(), 1u);
    EXPECT_NE(D.suppressed[0].reason.find("capture's edge"), std::string::npos) << D.suppressed[0].reason;
    // Without edges the same findings take the whole 20 ms.
    std::vector<Finding> g = {finding("host", ScopeKind::Trace, "trace", 0.12, 1.2e7),
                              finding("idle", ScopeKind::Trace, "trace", 0.2, 2e7)};
    const Ledger M = apply_ledger(g, {trace_scope()}, rules);
    EXPECT_EQ(M.find("idle:edge"), nullptr);
    EXPECT_NEAR(M.granted_ns(), 2e7, 1);
    EXPECT_EQ(by_rule(g, "host")->severity, Severity::High);
}

// Below the evidence minimum (2 ms of GPU work and 200 kernels) nothing is above low, checks included, and each
// capped finding says why; at either minimum the severities are the ledger's own.
TEST(Ledger, NothingAboveLowWithoutEvidence)
{
    RuleSet rules;
    rules.rules = {rule("host", "trace", "idle:host", ""), rule("check", "trace", "none", "", "high")};
    auto run = [&](double busy, double kernels) {
        // The 187 µs toy program: 60 µs busy, 127 µs of host wait, 12 kernels.
        MetricScope t;
        t.kind = ScopeKind::Trace;
        t.subject = "trace";
        t.metrics = {{"trace_wall_ns", busy + 1.27e5}, {"wall_ns", busy + 1.27e5}, {"busy_ns", busy},
                     {"idle_ns", 1.27e5},              {"host_wait_ns", 1.27e5},    {"kernel_count", kernels}};
        std::vector<Finding> f = {finding("host", ScopeKind::Trace, "trace", 0.6, 1.27e5),
                                  finding("check", ScopeKind::Trace, "trace", 0, std::nullopt)};
        const Ledger L = apply_ledger(f, {t}, rules);
        return std::make_pair(L, f);
    };
    const auto [toy, toy_f] = run(6e4, 12);
    EXPECT_TRUE(toy.thin_evidence);
    ASSERT_EQ(toy_f.size(), 2u);
    for (const auto& f : toy_f) {
        EXPECT_EQ(f.severity, Severity::Low) << f.rule;
        EXPECT_NE(f.expected_gain.basis.find("evidence minimum"), std::string::npos) << f.expected_gain.basis;
    }
    EXPECT_EQ(ledger_to_json(toy)["evidence"]["thin"], true);
    EXPECT_EQ(ledger_to_json(toy)["evidence"]["min_kernels"], 200);
    // 200 kernels, or 2 ms of GPU work, is enough.
    for (const auto& [busy, kernels] : {std::pair{6e4, 200.0}, std::pair{2e6, 12.0}}) {
        const auto [L, fs] = run(busy, kernels);
        EXPECT_FALSE(L.thin_evidence) << busy << " " << kernels;
        const Finding* h = by_rule(fs, "host");
        EXPECT_EQ(h->severity, severity_for(h->expected_gain.fraction, h->confidence.value)) << busy << " " << kernels;
        EXPECT_GE(h->severity, Severity::Medium) << busy << " " << kernels;
        EXPECT_EQ(by_rule(fs, "check")->severity, Severity::High) << busy << " " << kernels;
    }
}
