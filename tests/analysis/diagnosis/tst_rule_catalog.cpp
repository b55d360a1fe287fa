// Every shipped rule fires on a scope built to trigger it and stays silent on a healthy one. The healthy scopes also
// name every metric the shipped rules use (in conditions, gains and texts), so a rule that refers to a metric the
// binding does not provide, or a text placeholder that stays unfilled, fails here.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include <functional>

#include "analysis/timeline/analysis.h"
#include "analysis/diagnosis/metrics_binding.h"
#include "analysis/io/ncu_reader.h"
#include "analysis/roofline/roofline.h"
#include "analysis/diagnosis/rules.h"
#include "analysis/io/synthetic.h"
#include "tests/support/test_env.h"

using namespace sl;

namespace {

using Metrics = std::map<std::string, double>;

// Healthy values per scope kind: nothing should fire.
Metrics healthy(ScopeKind k)
{
    switch (k) {
    case ScopeKind::Trace:
        return {{"trace_wall_ns", 1e9}, {"wall_ns", 1e9}, {"capture_ns", 1e9}, {"busy_ns", 0.95e9}, {"idle_ns", 0.05e9},
                {"idle_fraction", 0.05}, {"utilization", 0.95}, {"host_wait_ns", 1e7}, {"kernel_wait_ns", 3e7},
                {"sync_wait_ns", 0}, {"other_wait_ns", 1e7}, {"kernel_count", 20000}, {"launch_count", 20000},
                {"launch_api_ns", 9e7}, {"launch_overhead_fraction", 0.09}, {"avg_launch_api_us", 4.5},
                {"avg_queue_delay_us", 20}, {"short_kernel_count", 100}, {"short_kernel_fraction", 0.005},
                {"runtime_outlier_count", 0}, {"launch_delay_outlier_count", 0}, {"sync_api_count", 3},
                {"sync_api_ns", 1e7}, {"sync_api_fraction", 0.01}, {"pageable_async_memcpy_count", 0},
                {"pageable_async_memcpy_ns", 0}, {"sync_memcpy_count", 0}, {"sync_memcpy_ns", 0},
                {"sync_memset_count", 0}, {"h2d_ns", 2e7}, {"h2d_bytes", 4e9}, {"h2d_fraction", 0.02},
                {"h2d_overlap_fraction", 0.95}, {"h2d_setup_ns", 0}, {"h2d_loop_exposed_ns", 1e6},
                {"kv_expand_calls", 0}, {"kv_expand_ns", 0}, {"kv_expand_bytes", 0}, {"kv_expand_fraction", 0},
                {"kv_expand_repeats", 0}, {"layer_load_count", 64}, {"layer_cache_hit_rate", 0.9},
                {"weights_detected", 0}, {"elementwise_copy_ns", 1e8}, {"elementwise_copy_fraction", 0.1},
                {"comm_ranks", 2}, {"collectives_matched", 100}, {"collective_skew_mean_ns", 2e3},
                {"collective_skew_max_ns", 1e4}, {"straggler_rank", 1}, {"straggler_makes_others_wait", 0},
                {"straggler_last_fraction", 0.5}, {"straggler_wait_ns", 2e5}, {"straggler_exposed_wait_ns", 1e5},
                {"straggler_exposed_wait_fraction", 1e-4}, {"straggler_lateness_ns", 2e3},
                {"straggler_lead_in_excess_fraction", 0.01}, {"straggler_kind_last_fraction", 0.5},
                {"alltoall_matched", 0}, {"alltoall_sized", 0}, {"alltoall_imbalance", 1}, {"alltoall_imbalance_max", 1},
                {"alltoall_heaviest_rank", -1}, {"alltoall_heaviest_share", 0}, {"alltoall_latency_ns", 0},
                {"alltoall_excess_ns", 0}, {"alltoall_excess_all_ranks_ns", 0}, {"alltoall_excess_fraction", 0},
                {"rank_step_ranks", 2}, {"rank_step_slowest", 1}, {"rank_step_fastest", 0},
                {"rank_step_slowest_ns", 1.01e7}, {"rank_step_median_ns", 1e7}, {"rank_step_spread_fraction", 0.01},
                {"rank_step_excess_ns", 1e5}, {"rank_step_excess_total_ns", 5e6}, {"rank_step_excess_fraction", 0.01},
                {"moe_detected", 0}, {"moe_gemm_ns", 0},
                {"moe_routing_ns", 0}, {"moe_fraction", 0}, {"moe_experts", 0}, {"moe_top_k", 0},
                {"graph_fraction", 0}, {"prefill_compute_bound", 0},
                {"dependency_wait_ns", 0}, {"dependency_wait_fraction", 0}, {"max_gap_fraction", 0.001},
                {"sync_dependency_overlap_ns", 0}, {"edge_idle_ns", 1e6}, {"edge_idle_fraction", 0.001},
                {"edge_before_ns", 1e6}, {"edge_after_ns", 0}, {"steady_wall_ns", 0.999e9},
                {"steady_utilization", 0.951}, {"steady_idle_fraction", 0.049}, {"prefill_step_fraction", 0},
                {"torch_compiled", 0}};
    case ScopeKind::Device:
        return {{"trace_wall_ns", 1e9}, {"wall_ns", 1e9}, {"idle_fraction", 0.05}, {"utilization", 0.95},
                {"large_gap_count", 2}, {"large_gap_ns", 2e5}, {"gap_threshold_us", 50}, {"max_gap_ns", 1.2e5},
                {"low_util_chunk_count", 0}, {"low_util_chunk_fraction", 0}, {"min_chunk_utilization", 0.8},
                {"nccl_ns", 2e7}, {"nccl_fraction", 0.02}, {"comm_overlap_fraction", 0.9}, {"nccl_exposed_ns", 2e6},
                {"nccl_exposed_fraction", 0.002}};
    case ScopeKind::Phase:
        return {{"trace_wall_ns", 1e9}, {"is_decode", 1}, {"wall_ns", 5e8}, {"idle_fraction", 0.08},
                {"host_wait_ns", 1e7}, {"host_wait_share", 0.3}, {"host_wait_per_step_ns", 2e5},
                {"kernel_wait_share", 0.3}, {"tpot_median_ns", 1e7}, {"step_count", 50}, {"sync_steps_fraction", 0},
                {"syncs_per_step", 0}, {"sync_wait_per_step_ns", 0}, {"kernels_per_step", 300}, {"avg_kernel_us", 30},
                {"retest_theory_ns", 9e6}, {"retest_measured_ns", 9.9e6}, {"retest_delta_fraction", 0.1},
                {"retest_abs_delta_fraction", 0.1}, {"retest_config_shapes", 0}, {"graph_fraction", 0},
                {"dependency_wait_ns", 0}};
    case ScopeKind::OpClass:
        return {{"trace_wall_ns", 1e9}, {"is_decode", 1}, {"is_attention", 0}, {"is_gemm", 1}, {"is_elementwise_chain", 0}, {"memory_bound", 0},
                {"compute_bound", 1}, {"batch_size", 64}, {"e_roof", 0.8}, {"time_fraction", 0.4}, {"wall_fraction", 0.3},
                {"intensity", 300}, {"t_theory_ns", 8e5}, {"t_actual_ns", 1e6}, {"distance_to_roof", 1.25},
                {"torch_compiled", 0}};
    case ScopeKind::Kernel:
        return {{"trace_wall_ns", 1e9}, {"count", 1000}, {"total_ns", 2e8}, {"avg_duration_us", 200},
                {"time_fraction", 0.2}, {"wall_fraction", 0.16}, {"short_kernel_count", 0}, {"short_kernel_fraction", 0},
                {"avg_launch_api_us", 5}, {"graph_fraction", 0}, {"steady_utilization", 0.951}, {"torch_compiled", 0}};
    case ScopeKind::NcuLaunch:
        return {{"is_gemm", 1}, {"tensor_core_utilization", 0.7}, {"achieved_occupancy", 0.5},
                {"theoretical_occupancy", 0.5}, {"registers_per_thread", 128}, {"dram_throughput_fraction", 0.5},
                {"l2_miss_rate", 0.3}, {"shared_bank_conflicts_per_request", 0.1},
                {"shared_bank_conflict_ratio", 0.01}, {"stall_memory_dependency_fraction", 0.2},
                {"sm_throughput_pct", 85}, {"memory_throughput_pct", 40}, {"waves_per_sm", 4},
                {"time_fraction", 0.1}, {"wall_fraction", 0.08}};
    case ScopeKind::HostCause:
        return {{"trace_wall_ns", 1e9}, {"idle_ns", 1e6}, {"idle_fraction", 0.001}, {"host_ns", 2e6},
                {"before_gpu_ns", 0}, {"count", 3}, {"is_compilation", 0}, {"is_autotuning", 0},
                {"is_module_loading", 0}, {"is_allocator", 0}};
    }
    return {};
}

struct Trigger {
    const char* rule;
    Metrics set;   // overrides on the healthy scope of the rule's kind
};

// Hand-picked values just past each rule's threshold.
const std::vector<Trigger>& triggers()
{
    static const std::vector<Trigger> t = {
        {"launch-bound-short-kernels",
         {{"avg_duration_us", 12}, {"count", 4000}, {"total_ns", 4.8e7}, {"steady_utilization", 0.6}}},
        {"hta-short-kernels",
         {{"short_kernel_fraction", 0.8}, {"short_kernel_count", 800}, {"avg_duration_us", 3}, {"steady_utilization", 0.6}}},
        {"hta-runtime-outliers", {{"runtime_outlier_count", 7}, {"steady_utilization", 0.6}}},
        {"hta-launch-delay-outliers", {{"launch_delay_outlier_count", 3}}},
        {"launch-overhead-fraction",
         {{"launch_overhead_fraction", 0.35}, {"launch_api_ns", 3.5e8}, {"steady_utilization", 0.6}}},
        {"capture-edge-stall", {{"edge_idle_fraction", 0.6}, {"edge_idle_ns", 6e8}, {"edge_before_ns", 6e8},
                                {"idle_fraction", 0.65}, {"idle_ns", 6.5e8}, {"steady_utilization", 0.857}}},
        {"nsys-cuda-api-sync", {{"sync_api_fraction", 0.2}, {"sync_api_ns", 2e8}, {"sync_api_count", 50}, {"sync_wait_ns", 5e7}}},
        {"nsys-cuda-memcpy-async-pageable", {{"pageable_async_memcpy_count", 12}, {"pageable_async_memcpy_ns", 3e7}}},
        {"nsys-cuda-memcpy-sync", {{"sync_memcpy_count", 4}, {"sync_memcpy_ns", 2e6}}},
        {"nsys-cuda-memset-sync", {{"sync_memset_count", 2}}},
        {"nsys-gpu-gaps", {{"large_gap_count", 40}, {"large_gap_ns", 1.2e8}, {"max_gap_ns", 9e6}}},
        {"nsys-gpu-time-util", {{"low_util_chunk_count", 9}, {"low_util_chunk_fraction", 0.3}, {"min_chunk_utilization", 0.1}}},
        {"gpu-idle-fraction", {{"idle_fraction", 0.35}, {"idle_ns", 3.5e8}, {"utilization", 0.65}}},
        {"straggler-rank", {{"straggler_makes_others_wait", 1}, {"straggler_last_fraction", 0.9},
                            {"collective_skew_mean_ns", 4e6}, {"straggler_wait_ns", 1e8},
                            {"straggler_exposed_wait_ns", 5e7}, {"straggler_exposed_wait_fraction", 0.05}}},
        {"alltoall-imbalance", {{"alltoall_matched", 40}, {"alltoall_sized", 40}, {"alltoall_imbalance", 1.6},
                                {"alltoall_imbalance_max", 1.6}, {"alltoall_heaviest_rank", 1},
                                {"alltoall_heaviest_share", 1}, {"alltoall_latency_ns", 2e6},
                                {"alltoall_excess_ns", 7.5e5}, {"alltoall_excess_all_ranks_ns", 1.5e6},
                                {"alltoall_excess_fraction", 0.0015}}},
        {"rank-step-spread", {{"rank_step_slowest_ns", 1.2e7}, {"rank_step_spread_fraction", 0.2},
                              {"rank_step_excess_ns", 2e6}, {"rank_step_excess_total_ns", 1e8},
                              {"rank_step_excess_fraction", 0.17}}},
        {"communication-bound-nccl", {{"nccl_fraction", 0.3}, {"nccl_ns", 3e8}, {"comm_overlap_fraction", 0.1},
                                      {"nccl_exposed_ns", 2.7e8}, {"nccl_exposed_fraction", 0.27}}},
        {"decode-host-bound", {{"idle_fraction", 0.4}, {"host_wait_share", 0.8}, {"host_wait_per_step_ns", 3e6}}},
        {"decode-host-bound-graph-replay",
         {{"idle_fraction", 0.4}, {"host_wait_share", 0.8}, {"host_wait_per_step_ns", 3e6}, {"graph_fraction", 1}}},
        {"gpu-idle-fraction-graph-replay", {{"idle_fraction", 0.35}, {"idle_ns", 3.5e8}, {"utilization", 0.65},
                                            {"graph_fraction", 0.9}}},
        {"dependency-wait", {{"dependency_wait_fraction", 0.45}, {"dependency_wait_ns", 4.5e8}, {"idle_fraction", 0.47},
                             {"idle_ns", 4.7e8}, {"max_gap_fraction", 0.45}, {"sync_dependency_overlap_ns", 4.4e8}}},
        {"decode-sync-every-step", {{"sync_steps_fraction", 1.0}, {"syncs_per_step", 1}, {"sync_wait_per_step_ns", 4e5}}},
        {"decode-sync-per-layer", {{"sync_steps_fraction", 1.0}, {"syncs_per_step", 32}, {"sync_wait_per_step_ns", 4e5}}},
        {"decode-kernel-wait", {{"idle_fraction", 0.25}, {"kernel_wait_share", 0.7}}},
        {"decode-kv-cache-bound-attention", {{"is_attention", 1}, {"is_gemm", 0}, {"memory_bound", 1}, {"compute_bound", 0}, {"time_fraction", 0.3}}},
        {"decode-gemm-small-batch", {{"batch_size", 1}, {"e_roof", 0.35}, {"memory_bound", 1}, {"compute_bound", 0}, {"intensity", 1}, {"distance_to_roof", 2.9}}},
        {"weight-streaming-h2d-exposed",
         {{"h2d_fraction", 0.3}, {"h2d_overlap_fraction", 0.1}, {"h2d_ns", 3e8}, {"weights_detected", 1}}},
        {"h2d-copy-exposed", {{"h2d_overlap_fraction", 0.1}, {"h2d_ns", 1e8}, {"h2d_loop_exposed_ns", 9e7}}},
        {"kv-cache-expanded-every-step",
         {{"kv_expand_calls", 256}, {"kv_expand_ns", 2e8}, {"kv_expand_bytes", 9e9}, {"kv_expand_repeats", 4}}},
        {"elementwise-fusion", {{"elementwise_copy_fraction", 0.6}, {"elementwise_copy_ns", 5e8}}},
        {"moe-experts-dominate", {{"moe_detected", 1}, {"moe_fraction", 0.7}, {"moe_gemm_ns", 6e8}, {"moe_routing_ns", 5e7},
                                  {"moe_experts", 32}, {"moe_top_k", 4}}},
        {"weight-streaming-low-cache-hit", {{"layer_cache_hit_rate", 0.2}}},
        {"roofline-low-efficiency", {{"e_roof", 0.1}, {"distance_to_roof", 10}, {"t_theory_ns", 1e5}}},
        {"theory-vs-measurement", {{"retest_measured_ns", 4.5e6}, {"retest_delta_fraction", -0.5}, {"retest_abs_delta_fraction", 0.5}}},
        {"roofline-compute-underused", {{"e_roof", 0.45}, {"distance_to_roof", 2.2}}},
        {"roofline-memory-bound-near-roof", {{"memory_bound", 1}, {"compute_bound", 0}, {"is_gemm", 0}, {"e_roof", 0.7}, {"intensity", 2}}},
        {"ncu-tensor-core-underused", {{"tensor_core_utilization", 0.2}}},
        {"ncu-low-occupancy", {{"achieved_occupancy", 0.2}}},
        {"ncu-memory-bound-l2-miss", {{"dram_throughput_fraction", 0.9}, {"l2_miss_rate", 0.7}}},
        {"ncu-bank-conflicts", {{"shared_bank_conflicts_per_request", 4}}},
        {"ncu-shared-memory-conflicts", {{"shared_bank_conflict_ratio", 0.25}}},
        {"ncu-latency-bound-stalls", {{"stall_memory_dependency_fraction", 0.7}}},
        {"ncu-sol-latency", {{"sm_throughput_pct", 30}, {"memory_throughput_pct", 35}}},
        {"ncu-small-grid", {{"sm_throughput_pct", 20}, {"memory_throughput_pct", 25}, {"waves_per_sm", 0.4}}},
        {"host-jit-compilation", {{"is_compilation", 1}, {"idle_ns", 3e8}, {"idle_fraction", 0.3}, {"host_ns", 3.1e8}}},
        {"host-autotuning", {{"is_autotuning", 1}, {"idle_ns", 5e7}, {"idle_fraction", 0.05}, {"host_ns", 6e7}}},
        {"host-module-loading", {{"is_module_loading", 1}, {"idle_ns", 2e7}, {"idle_fraction", 0.02}, {"count", 12}}},
        {"host-allocator-stalls", {{"is_allocator", 1}, {"idle_ns", 3e7}, {"idle_fraction", 0.03}, {"count", 400}}},
    };
    return t;
}

MetricScope scope_of(ScopeKind k, const Metrics& overrides)
{
    MetricScope s;
    s.kind = k;
    s.subject = std::string("subject-") + scope_kind_name(k);
    s.metrics = healthy(k);
    for (const auto& [n, v] : overrides)
        s.metrics[n] = v;
    return s;
}

std::vector<MetricScope> healthy_scopes()
{
    std::vector<MetricScope> v;
    for (auto k : {ScopeKind::Trace, ScopeKind::Device, ScopeKind::Phase, ScopeKind::OpClass, ScopeKind::Kernel,
                   ScopeKind::NcuLaunch, ScopeKind::HostCause})
        v.push_back(scope_of(k, {}));
    return v;
}

const RuleSet& shipped()
{
    static const RuleSet s = load_rules({shipped_rules_dir()});
    return s;
}

} // namespace

TEST(RuleCatalog, EveryShippedRuleHasATrigger)
{
    ASSERT_TRUE(shipped().errors.empty());
    std::set<std::string> have;
    for (const auto& t : triggers())
        have.insert(t.rule);
    for (const auto& r : shipped().rules)
        EXPECT_TRUE(have.count(r.id)) << "no trigger test for shipped rule " << r.id;
    for (const auto& id : have)
        EXPECT_NE(shipped().find(id), nullptr) << "trigger for a rule that is not shipped: " << id;
}

TEST(RuleCatalog, SilentOnHealthyScopesAndNoMetricIsMissing)
{
    EvalResult r = evaluate_rules(shipped(), healthy_scopes());
    for (const auto& f : r.findings)
        ADD_FAILURE() << f.rule << " fired on the healthy " << scope_kind_name(f.scope) << " scope";
    for (const auto& m : r.missing)
        ADD_FAILURE() << m.rule << " misses " << m.metrics.front() << " on the healthy scope";
    EXPECT_TRUE(r.errors.empty());
}

TEST(RuleCatalog, EachRuleFiresOnItsTrigger)
{
    for (const auto& t : triggers()) {
        const Rule* rule = shipped().find(t.rule);
        ASSERT_NE(rule, nullptr) << t.rule;
        MetricScope s = scope_of(rule->scope, t.set);
        EvalOptions opt;
        opt.trace_path = "/traces/before.sqlite";
        EvalResult r = evaluate_rules(shipped(), {s}, opt);
        const Finding* f = nullptr;
        for (const auto& x : r.findings)
            if (x.rule == t.rule)
                f = &x;
        ASSERT_NE(f, nullptr) << t.rule << " did not fire on its trigger";
        EXPECT_EQ(f->verdict, rule->verdict);
        EXPECT_EQ(f->subject, s.subject);
        // Texts are fully filled in both languages.
        for (const std::string* text : {&f->title.en, &f->title.zh_CN, &f->explanation.en, &f->explanation.zh_CN})
            EXPECT_EQ(text->find('{'), std::string::npos) << t.rule << ": unfilled placeholder in '" << *text << "'";
        for (const auto& sg : f->suggestions)
            EXPECT_EQ(sg.verify.find('{'), std::string::npos) << t.rule << ": " << sg.verify;
        // Evidence names every condition metric with its value.
        for (const auto& v : rule->variables) {
            bool found = false;
            for (const auto& e : f->evidence)
                found |= e.metric == v && e.value == s.metrics.at(v);
            EXPECT_TRUE(found) << t.rule << " lacks evidence for " << v;
        }
        // Gain: a computed rule's gain is in [0, 1], and the rule's formula uses metrics the scope has.
        EXPECT_GE(f->expected_gain.fraction, 0.0) << t.rule;
        EXPECT_LE(f->expected_gain.fraction, 1.0) << t.rule;
        if (!rule->gain_expr.empty()) {
            EXPECT_TRUE(f->expected_gain.computed) << t.rule << ": gain '" << rule->gain_expr << "' not computable";
        }
    }
}

// A suggestion's "when" follows the scope: an operator class far from its roof is told to take a tuned library
// when it is a GEMM or attention, and to fuse or remove the work when it is an elementwise chain (a tuned GEMM
// library does nothing for a copy); a scope without the metric shows both.
TEST(RuleCatalog, ClassFixFollowsTheClass)
{
    const auto suggestions = [](const Metrics& set) {
        std::set<std::string> ids;
        for (const auto& f : evaluate_rules(shipped(), {scope_of(ScopeKind::OpClass, set)}).findings)
            if (f.rule == "roofline-low-efficiency")
                for (const auto& s : f.suggestions)
                    ids.insert(s.id);
        return ids;
    };
    const Metrics low = {{"e_roof", 0.1}, {"distance_to_roof", 10}, {"t_theory_ns", 1e5}};
    Metrics chain = low, gemm = low;
    chain["is_elementwise_chain"] = 1;
    chain["is_gemm"] = 0;
    gemm["is_elementwise_chain"] = 0;
    EXPECT_EQ(suggestions(chain), (std::set<std::string>{"ncu-deep-dive", "fuse-chain"}));
    EXPECT_EQ(suggestions(gemm), (std::set<std::string>{"ncu-deep-dive", "better-kernel"}));
    MetricScope unknown = scope_of(ScopeKind::OpClass, low);
    unknown.metrics.erase("is_elementwise_chain");
    std::set<std::string> ids;
    for (const auto& f : evaluate_rules(shipped(), {unknown}).findings)
        if (f.rule == "roofline-low-efficiency")
            for (const auto& s : f.suggestions)
                ids.insert(s.id);
    EXPECT_EQ(ids, (std::set<std::string>{"ncu-deep-dive", "better-kernel", "fuse-chain"}));
}

// "A larger decode batch" rests on decode: it is not offered to a run whose steps are mostly prefill, or whose
// prefill is compute-bound (issue 34: it was the headline of a compute-bound, prefill-heavy mixed step).
TEST(RuleCatalog, MoeDecodeBatchAdviceOnlyWhereDecodeHolds)
{
    const auto suggestions = [](const Metrics& set) {
        std::set<std::string> ids;
        for (const auto& f : evaluate_rules(shipped(), {scope_of(ScopeKind::Trace, set)}).findings)
            if (f.rule == "moe-experts-dominate")
                for (const auto& s : f.suggestions)
                    ids.insert(s.id);
        return ids;
    };
    Metrics moe = {{"moe_detected", 1}, {"moe_fraction", 0.7}, {"moe_gemm_ns", 6e8}, {"moe_routing_ns", 5e7}};
    EXPECT_EQ(suggestions(moe), (std::set<std::string>{"moe-more-tokens-per-expert", "moe-fused-kernel"}));
    moe["prefill_step_fraction"] = 0.8;
    EXPECT_EQ(suggestions(moe), (std::set<std::string>{"moe-fused-kernel"}));
    moe["prefill_step_fraction"] = 0.2;
    moe["prefill_compute_bound"] = 1;
    EXPECT_EQ(suggestions(moe), (std::set<std::string>{"moe-fused-kernel"}));
}

// No torch.compile advice to a compiled run (issue 34: a run of 1,829 Inductor kernels was told to use it): the
// kernel-mix finding says what Inductor left unfused instead, and the class and launch fixes drop torch.compile.
TEST(RuleCatalog, CompiledRunIsNotToldToCompile)
{
    const auto suggestions = [](ScopeKind kind, const char* rule, const Metrics& set) {
        std::set<std::string> ids;
        for (const auto& f : evaluate_rules(shipped(), {scope_of(kind, set)}).findings)
            if (f.rule == rule)
                for (const auto& s : f.suggestions) {
                    ids.insert(s.id);
                    if (set.at("torch_compiled") > 0) {
                        EXPECT_EQ(s.text.en.find("torch.compile ("), std::string::npos) << rule << ": " << s.text.en;
                    }
                }
        return ids;
    };
    for (const double compiled : {0.0, 1.0}) {
        const bool c = compiled > 0;
        EXPECT_EQ(suggestions(ScopeKind::Trace, "elementwise-fusion",
                              {{"elementwise_copy_fraction", 0.6}, {"elementwise_copy_ns", 5e8}, {"torch_compiled", compiled}}),
                  (std::set<std::string>{c ? "compiled-leftovers" : "torch-compile"}));
        const std::set<std::string> chain_fix = c ? std::set<std::string>{"ncu-deep-dive"}
                                                  : std::set<std::string>{"ncu-deep-dive", "fuse-chain"};
        EXPECT_EQ(suggestions(ScopeKind::OpClass, "roofline-low-efficiency",
                              {{"e_roof", 0.1}, {"is_elementwise_chain", 1}, {"is_gemm", 0}, {"torch_compiled", compiled}}),
                  chain_fix);
        const std::set<std::string> launch_fix = c ? std::set<std::string>{"cuda-graphs"}
                                                   : std::set<std::string>{"cuda-graphs", "fuse"};
        EXPECT_EQ(suggestions(ScopeKind::Kernel, "launch-bound-short-kernels",
                              {{"avg_duration_us", 12}, {"count", 4000}, {"steady_utilization", 0.6},
                               {"torch_compiled", compiled}}),
                  launch_fix);
    }
}

// A few hand-computed gains, so the formulas in the files are what the documentation says.
TEST(RuleCatalog, GainsMatchHandComputedValues)
{
    auto gain_of = [](const char* rule, const Metrics& set) {
        const Rule* r = shipped().find(rule);
        EvalResult res = evaluate_rules(shipped(), {scope_of(r->scope, set)});
        for (const auto& f : res.findings)
            if (f.rule == rule)
                return f.expected_gain;
        ADD_FAILURE() << rule << " did not fire";
        return ExpectedGain{};
    };
    // Host wait of 3 ms per step of a 10 ms TPOT: 30 %, 3 ms per step.
    auto g = gain_of("decode-host-bound", {{"idle_fraction", 0.4}, {"host_wait_share", 0.8}, {"host_wait_per_step_ns", 3e6}});
    EXPECT_NEAR(g.fraction, 0.3, 1e-12);
    EXPECT_NEAR(*g.ns, 3e6, 1e-6);
    // 4,000 launches x 5 µs = 20 ms, capped by the 48 ms they take, over a 1 s trace: 2 %.
    g = gain_of("launch-bound-short-kernels",
                {{"avg_duration_us", 12}, {"count", 4000}, {"total_ns", 4.8e7}, {"steady_utilization", 0.6}});
    EXPECT_NEAR(g.fraction, 0.02, 1e-12);
    // E_roof 0.1 on a class holding 40 % of its phase's kernel time but 30 % of the wall: reaching tau = 0.3 saves
    // 30 % x (1 - 1/3) of the wall. A gain is a fraction of end-to-end time; the phase share must not enter it (it
    // did: a decode GEMM with 83 % of decode kernel time claimed 25 % of a wall it held 57 % of, x 0.3 = 17 %).
    g = gain_of("roofline-low-efficiency", {{"e_roof", 0.1}, {"distance_to_roof", 10}});
    EXPECT_NEAR(g.fraction, 0.3 * (1 - 0.1 / 0.3), 1e-12);
    g = gain_of("roofline-memory-bound-near-roof", {{"memory_bound", 1}, {"compute_bound", 0}, {"is_gemm", 0}, {"e_roof", 0.7}, {"intensity", 2}});
    EXPECT_NEAR(g.fraction, 0.3 * 0.3, 1e-12);
    g = gain_of("decode-gemm-small-batch", {{"batch_size", 1}, {"e_roof", 0.35}, {"memory_bound", 1}, {"compute_bound", 0}, {"intensity", 1}, {"distance_to_roof", 2.9}});
    EXPECT_NEAR(g.fraction, 0.3 * (1 - 0.35) * 0.5, 1e-12);
    // ncu: a launch whose kernel name holds 10 % of kernel time and 8 % of the wall, occupancy 0.2.
    g = gain_of("ncu-low-occupancy", {{"achieved_occupancy", 0.2}});
    EXPECT_NEAR(g.fraction, 0.08 * 0.2, 1e-12);
    // Gaps of 120 ms in a 1 s window.
    g = gain_of("nsys-gpu-gaps", {{"large_gap_count", 40}, {"large_gap_ns", 1.2e8}});
    EXPECT_NEAR(g.fraction, 0.12, 1e-12);
}

// Thresholds are inclusive or exclusive as the sources say: exposed communication exactly 10 % does not fire (">"),
// occupancy exactly 0.3 does not fire ("< 0.3"), bank conflicts at exactly 10 % do ("≥ 10 %", ncu).
TEST(RuleCatalog, BoundariesFollowTheSources)
{
    auto fires = [](const char* rule, const Metrics& set) {
        const Rule* r = shipped().find(rule);
        for (const auto& f : evaluate_rules(shipped(), {scope_of(r->scope, set)}).findings)
            if (f.rule == rule)
                return true;
        return false;
    };
    // Communication: exposed (not hidden) time decides, not the total share (issue 14).
    EXPECT_FALSE(fires("communication-bound-nccl", {{"nccl_exposed_fraction", 0.1}}));
    EXPECT_TRUE(fires("communication-bound-nccl", {{"nccl_exposed_fraction", 0.1001}}));
    EXPECT_FALSE(fires("communication-bound-nccl",
                       {{"nccl_fraction", 0.6}, {"comm_overlap_fraction", 0.95}, {"nccl_exposed_fraction", 0.03}}));
    // A straggler needs two ranks with communication, a rank the others wait for, and exposed waiting.
    const Metrics straggling = {{"straggler_makes_others_wait", 1}, {"straggler_exposed_wait_fraction", 0.05}};
    EXPECT_TRUE(fires("straggler-rank", straggling));
    Metrics one_rank = straggling;
    one_rank["comm_ranks"] = 1;
    EXPECT_FALSE(fires("straggler-rank", one_rank));
    Metrics hidden = straggling;
    hidden["straggler_exposed_wait_fraction"] = 0.0009;
    EXPECT_FALSE(fires("straggler-rank", hidden));
    EXPECT_FALSE(fires("straggler-rank", {{"straggler_makes_others_wait", 0}, {"straggler_exposed_wait_fraction", 0.05}}));
    EXPECT_FALSE(fires("ncu-low-occupancy", {{"achieved_occupancy", 0.3}}));
    EXPECT_TRUE(fires("ncu-shared-memory-conflicts", {{"shared_bank_conflict_ratio", 0.1}}));
    EXPECT_FALSE(fires("launch-bound-short-kernels", {{"avg_duration_us", 50}, {"count", 4000}, {"steady_utilization", 0.6}}));
    // Launch-side findings need a steady state the GPU does not keep busy (issue 34: a graph replay after an eager
    // prefill, 89.7 % busy, was told it is host-bound): 85 % busy and above, none of them fires.
    for (const double busy : {0.84, 0.85})
        for (const auto& [rule, set] : std::vector<std::pair<const char*, Metrics>>{
                 {"launch-bound-short-kernels", {{"avg_duration_us", 12}, {"count", 4000}}},
                 {"hta-short-kernels", {{"short_kernel_fraction", 0.8}, {"avg_duration_us", 3}}},
                 {"hta-runtime-outliers", {{"runtime_outlier_count", 7}}},
                 {"launch-overhead-fraction", {{"launch_overhead_fraction", 0.35}}}}) {
            Metrics m = set;
            m["steady_utilization"] = busy;
            EXPECT_EQ(fires(rule, m), busy < 0.85) << rule << " at " << busy;
        }
    // Idle at the capture's edges is not the steady state's: 35 % idle of which 10 % before the first step is
    // 25 % of steady idle, below the 30 % the idle finding needs.
    EXPECT_TRUE(fires("gpu-idle-fraction", {{"idle_fraction", 0.35}, {"edge_idle_fraction", 0.04}}));
    EXPECT_FALSE(fires("gpu-idle-fraction", {{"idle_fraction", 0.35}, {"edge_idle_fraction", 0.1}}));
    EXPECT_FALSE(fires("capture-edge-stall", {{"edge_idle_fraction", 0.099}}));
    EXPECT_TRUE(fires("capture-edge-stall", {{"edge_idle_fraction", 0.1}}));
    EXPECT_FALSE(fires("launch-bound-short-kernels", {{"avg_duration_us", 10}, {"count", 500}}));
    // Decode rules do not fire on prefill.
    EXPECT_FALSE(fires("decode-host-bound", {{"is_decode", 0}, {"idle_fraction", 0.4}, {"host_wait_share", 0.8}}));
    // CUDA graphs are never advised for work that already runs in graph replay, nor for a compute-bound prefill:
    // the graph-replay variants speak instead, without that advice.
    const Metrics host_bound = {{"idle_fraction", 0.4}, {"host_wait_share", 0.8}, {"host_wait_per_step_ns", 3e6}};
    Metrics graphed = host_bound;
    graphed["graph_fraction"] = 0.5;
    EXPECT_FALSE(fires("decode-host-bound", graphed));
    EXPECT_TRUE(fires("decode-host-bound-graph-replay", graphed));
    EXPECT_FALSE(fires("decode-host-bound-graph-replay", host_bound));
    for (const auto& sg : shipped().find("decode-host-bound-graph-replay")->suggestions)
        EXPECT_NE(sg.id, "cuda-graphs");
    for (const auto& sg : shipped().find("gpu-idle-fraction-graph-replay")->suggestions)
        EXPECT_EQ(sg.text.en.find("CUDA Graphs for"), std::string::npos);
    EXPECT_FALSE(fires("decode-kernel-wait", {{"idle_fraction", 0.25}, {"kernel_wait_share", 0.7}, {"graph_fraction", 1}}));
    EXPECT_FALSE(fires("launch-overhead-fraction", {{"launch_overhead_fraction", 0.35}, {"graph_fraction", 0.9}}));
    EXPECT_FALSE(fires("launch-overhead-fraction", {{"launch_overhead_fraction", 0.35}, {"prefill_compute_bound", 1}}));
    EXPECT_FALSE(fires("gpu-idle-fraction", {{"idle_fraction", 0.35}, {"graph_fraction", 0.9}}));
    // Idle that queued work spends behind another stream's event is not the host's: 50 % idle of which 45 points are
    // dependency wait leaves 5 %, below the idle rule's 30 %.
    EXPECT_FALSE(fires("gpu-idle-fraction", {{"idle_fraction", 0.5}, {"dependency_wait_fraction", 0.45}}));
    EXPECT_TRUE(fires("gpu-idle-fraction", {{"idle_fraction", 0.5}, {"dependency_wait_fraction", 0.15}}));
    EXPECT_FALSE(fires("dependency-wait", {{"dependency_wait_fraction", 0.2}}));
    EXPECT_TRUE(fires("dependency-wait", {{"dependency_wait_fraction", 0.2001}}));
}

// ---- The same rules on generated traces with planted behaviour, through the metrics binding ------------------

namespace {

SynthOptions base_synth()
{
    SynthOptions o;
    o.decode_steps = 24;
    o.layers = 4;
    o.prefill_steps = 1;
    o.step_host_ns = 20'000;
    return o;
}

struct Fired {
    std::set<std::string> rules;
    EvalResult eval;
};

Fired fired_on(const Trace& t)
{
    const AnalysisResult an = analyze(t, AnalysisOptions{});
    Fired f;
    f.eval = evaluate_rules(shipped(), bind_metrics(t, an, nullptr, nullptr));
    for (const auto& x : f.eval.findings)
        f.rules.insert(x.rule);
    return f;
}

// Appends a host API call (and nothing on the GPU) to a generated trace.
void add_api(Trace& t, const char* name, int64_t start, int64_t dur)
{
    const StrId n = t.strings.intern(name);
    t.api.append(start, start + dur, n, 0, 0, ApiClass::Runtime, classify_api_name(name));
}

struct SynthCase {
    const char* rule;
    std::function<void(SynthOptions&)> trigger, silent;
    std::function<void(Trace&)> edit_trigger;   // optional edits of the generated trace
};

const std::vector<SynthCase>& synth_cases()
{
    // silent == nullptr: the healthy base trace is the one built not to trigger the rule.
    static const std::vector<SynthCase> c = {
        {"gpu-idle-fraction", [](SynthOptions& o) { o.host_starved = true; }, nullptr, {}},
        {"decode-host-bound", [](SynthOptions& o) { o.host_starved = true; }, nullptr, {}},
        {"decode-sync-every-step", [](SynthOptions& o) { o.sync_every_step = true; }, nullptr, {}},
        {"nsys-cuda-memcpy-async-pageable", [](SynthOptions& o) { o.pageable_copies = true; }, nullptr, {}},
        {"nsys-gpu-gaps", [](SynthOptions& o) { o.step_host_ns = 2'000'000; }, nullptr, {}},
        {"nsys-gpu-time-util", [](SynthOptions& o) { o.host_starved = true; o.host_starve_gap_ns = 60'000; },
         nullptr, {}},
        {"hta-runtime-outliers", [](SynthOptions& o) { o.launch_api_ns = 70'000; }, nullptr, {}},
        // Short kernels are launch-bound only where the GPU waits for them (issue 34): 80 steps of the base decode,
        // whose queue keeps the GPU busy, no longer fire; the same steps with the host starving the GPU do.
        {"launch-bound-short-kernels", [](SynthOptions& o) { o.decode_steps = 80; o.host_starved = true; },
         [](SynthOptions& o) { o.decode_steps = 80; }, {}},
        // Serial copies with no per-layer weight loads: exposed copies, not weight streaming (issue 14).
        {"h2d-copy-exposed",
         [](SynthOptions& o) { o.copy_overlaps_compute = false; o.h2d_bytes_per_step = 64u << 20; }, nullptr, {}},
        // A realistic decode launches faster than the GPU drains prefill work (queue delays > 100 µs), spends more
        // than 20 % of its time in launch calls, and has kernels shorter than their launch: the traces built not to
        // trigger these are a host-starved one (no queue), CUDA graphs (one launch per step) and long kernels.
        {"hta-launch-delay-outliers", [](SynthOptions& o) { o.kernel_time_scale = 30; },
         [](SynthOptions& o) { o.host_starved = true; }, {}},
        {"launch-overhead-fraction", [](SynthOptions& o) { o.launch_api_ns = 30'000; },
         [](SynthOptions& o) { o.cuda_graphs = true; }, {}},
        {"hta-short-kernels", [](SynthOptions& o) { o.launch_api_ns = 30'000; },
         [](SynthOptions& o) { o.kernel_time_scale = 5; }, {}},
        // The generator's all-reduce takes ~15 % of the active time. Serialised with compute, all of it is exposed
        // (past the rule's 10 %); overlapping compute, almost none is, and a hidden collective costs nothing.
        {"communication-bound-nccl", [](SynthOptions& o) { o.nccl = true; },
         [](SynthOptions& o) { o.nccl = true; o.nccl_overlaps_compute = true; }, {}},
        {"nsys-cuda-memcpy-sync", [](SynthOptions&) {}, nullptr,
         [](Trace& t) { add_api(t, "cudaMemcpy", t.api.start[t.api.size() / 2], 40'000); }},
        {"nsys-cuda-memset-sync", [](SynthOptions&) {}, nullptr,
         [](Trace& t) { add_api(t, "cudaMemset", t.api.start[t.api.size() / 2], 10'000); }},
        // A queued kernel blocked on an event for 200 ms (sightline-cli generate --event-stall-ms 200): a dependency
        // wait, not host wait — so neither the idle rule's CUDA-graph advice nor the host-bound rule fires on it.
        {"dependency-wait", [](SynthOptions& o) { o.event_stall_ns = 200'000'000; }, nullptr, {}},
        // Host-starved decode steps that already run as graph replays: the graph-replay variants, without the
        // CUDA-graph advice; the eager host-starved decode triggers the plain rules instead.
        {"decode-host-bound-graph-replay",
         [](SynthOptions& o) { o.cuda_graphs = true; o.step_host_ns = 3'000'000; },
         [](SynthOptions& o) { o.host_starved = true; }, {}},
        {"gpu-idle-fraction-graph-replay",
         [](SynthOptions& o) { o.cuda_graphs = true; o.step_host_ns = 3'000'000; },
         [](SynthOptions& o) { o.host_starved = true; }, {}},
    };
    return c;
}

} // namespace

TEST(RuleCatalogOnTraces, HealthyGeneratedTraceIsQuiet)
{
    const Fired f = fired_on(make_synthetic_trace(base_synth()));
    int checked = 0;
    for (const auto& c : synth_cases())
        if (!c.silent) {
            EXPECT_FALSE(f.rules.count(c.rule)) << c.rule << " fired on the healthy generated trace";
            ++checked;
        }
    EXPECT_GE(checked, 10);
}

TEST(RuleCatalogOnTraces, PlantedBehaviourFiresItsRule)
{
    for (const auto& c : synth_cases()) {
        SynthOptions on = base_synth(), off = base_synth();
        c.trigger(on);
        if (c.silent)
            c.silent(off);
        Trace t_on = make_synthetic_trace(on);
        if (c.edit_trigger) {
            c.edit_trigger(t_on);
            t_on.finish();
        }
        const Fired yes = fired_on(t_on);
        const Fired no = fired_on(make_synthetic_trace(off));
        EXPECT_TRUE(yes.rules.count(c.rule)) << c.rule << " did not fire on its planted trace";
        EXPECT_FALSE(no.rules.count(c.rule)) << c.rule << " fired on the trace built not to trigger it";
    }
}

// The decode host-bound finding computes its gain from the trace: host wait per step / TPOT, checked against an
// independent computation from the bound phase metrics.
TEST(RuleCatalogOnTraces, HostBoundGainComesFromTheTrace)
{
    SynthOptions o = base_synth();
    o.host_starved = true;
    const Trace t = make_synthetic_trace(o);
    const AnalysisResult an = analyze(t, AnalysisOptions{});
    const auto scopes = bind_metrics(t, an, nullptr, nullptr);
    const MetricScope* decode = nullptr;
    for (const auto& s : scopes)
        if (s.kind == ScopeKind::Phase && s.subject == "decode")
            decode = &s;
    ASSERT_NE(decode, nullptr);
    EXPECT_DOUBLE_EQ(decode->metrics.at("tpot_median_ns"), an.phases.tpot_median_ns);
    const EvalResult r = evaluate_rules(shipped(), scopes);
    for (const auto& f : r.findings)
        if (f.rule == "decode-host-bound") {
            ASSERT_TRUE(f.expected_gain.computed);
            EXPECT_NEAR(f.expected_gain.fraction,
                        std::min(1.0, decode->metrics.at("host_wait_per_step_ns") / an.phases.tpot_median_ns), 1e-12);
            EXPECT_DOUBLE_EQ(*f.expected_gain.ns, decode->metrics.at("host_wait_per_step_ns"));
            EXPECT_FALSE(f.links.time_ranges.empty());
            // The generator brackets steps in NVTX "decode_step N" ranges; when the phases came from them, the
            // finding links to them.
            if (an.phases.source == StepSource::NvtxRanges) {
                ASSERT_FALSE(f.links.nvtx_ranges.empty());
                EXPECT_EQ(f.links.nvtx_ranges[0].rfind("decode_step", 0), 0u) << f.links.nvtx_ranges[0];
            }
            return;
        }
    FAIL() << "decode-host-bound did not fire";
}

// ---- Roofline and ncu scopes through the binding ---------------------------------------------------------------

// A Roofline report written by hand (the cost model's own tests check its numbers): decode GEMMs at batch 1, memory
// bound (their memory time exceeds their compute time), at E_roof 0.2; decode attention memory bound near its
// roof; prefill GEMMs compute bound at E_roof 0.9.
TEST(RuleCatalogOnTraces, RooflineScopes)
{
    const Trace t = make_synthetic_trace(base_synth());
    const AnalysisResult an = analyze(t, AnalysisOptions{});
    RooflineReport roof;
    roof.measured = true;
    PhaseCost decode;
    decode.phase = Phase::Decode;
    decode.batch = 1;
    OpCost g;
    g.op_class = "gemm";
    g.t_compute_ns = 10'000;
    g.t_memory_ns = 400'000;
    OpCost at = g;
    at.op_class = "attention";
    at.t_memory_ns = 150'000;
    decode.ops = {g, at};
    PhaseCost prefill;
    prefill.phase = Phase::Prefill;
    prefill.batch = 1;
    OpCost pg = g;
    pg.t_compute_ns = 900'000;
    pg.t_memory_ns = 100'000;
    prefill.ops = {pg};
    roof.cost.phases = {prefill, decode};
    auto cls = [](const char* c, const char* phase, int64_t total, double theory, double actual) {
        ClassEfficiency e;
        e.op_class = c;
        e.phase = phase;
        e.measured_total_ns = total;
        e.flops = 2e9;
        e.bytes = 2e9;
        e.t_theory_ns = theory;
        e.t_actual_ns = actual;
        e.e_roof = theory / actual;
        return e;
    };
    roof.classes = {cls("gemm", "decode", 6'000'000, 400'000, 2'000'000), cls("attention", "decode", 4'000'000, 150'000, 200'000),
                    cls("gemm", "prefill", 5'000'000, 900'000, 1'000'000)};

    const auto scopes = bind_metrics(t, an, &roof, nullptr);
    std::map<std::string, const MetricScope*> by;
    for (const auto& s : scopes)
        if (s.kind == ScopeKind::OpClass)
            by[s.subject] = &s;
    ASSERT_EQ(by.size(), 3u);
    const auto& gd = by.at("gemm (decode)")->metrics;
    EXPECT_DOUBLE_EQ(gd.at("e_roof"), 0.2);
    EXPECT_DOUBLE_EQ(gd.at("distance_to_roof"), 5.0);
    EXPECT_DOUBLE_EQ(gd.at("time_fraction"), 0.6);   // 6 of the 10 ms measured in decode
    ASSERT_GT(gd.at("trace_wall_ns"), 6e6);
    EXPECT_DOUBLE_EQ(gd.at("wall_fraction"), 6e6 / gd.at("trace_wall_ns"));   // 6 ms of the whole trace
    EXPECT_EQ(gd.at("memory_bound"), 1);
    EXPECT_EQ(gd.at("compute_bound"), 0);
    EXPECT_EQ(gd.at("batch_size"), 1);
    EXPECT_EQ(by.at("gemm (prefill)")->metrics.at("compute_bound"), 1);

    std::map<std::string, std::set<std::string>> fired;
    for (const auto& f : evaluate_rules(shipped(), scopes).findings)
        if (f.scope == ScopeKind::OpClass)
            fired[f.subject].insert(f.rule);
    EXPECT_TRUE(fired["gemm (decode)"].count("roofline-low-efficiency"));
    EXPECT_TRUE(fired["gemm (decode)"].count("decode-gemm-small-batch"));
    EXPECT_TRUE(fired["attention (decode)"].count("decode-kv-cache-bound-attention"));
    EXPECT_TRUE(fired["attention (decode)"].count("roofline-memory-bound-near-roof"));   // E_roof 0.75
    EXPECT_FALSE(fired["attention (decode)"].count("roofline-low-efficiency"));
    EXPECT_TRUE(fired["gemm (prefill)"].empty());   // compute bound at E_roof 0.9: nothing to say

    // Every class finding's gain is at most the class's own time: a rule cannot promise more than the time it
    // removes. The low-efficiency gain on the decode GEMM (E_roof 0.2, tau 0.3) is a third of its 6 ms.
    for (const auto& f : evaluate_rules(shipped(), scopes).findings) {
        if (f.scope != ScopeKind::OpClass || !f.expected_gain.computed)
            continue;
        const auto& m = by.at(f.subject)->metrics;
        EXPECT_LE(f.expected_gain.fraction * m.at("trace_wall_ns"), m.at("total_ns") * (1 + 1e-12)) << f.rule << " " << f.subject;
        if (f.rule == "roofline-low-efficiency" && f.subject == "gemm (decode)") {
            EXPECT_NEAR(f.expected_gain.fraction * m.at("trace_wall_ns"), 6e6 * (1 - 0.2 / 0.3), 1.0);
        }
    }
}

// ncu launches of a real A100 details-page export: the bound figures are the ones ncu printed, and the occupancy
// rule fires exactly on the launches whose printed achieved occupancy is under 30 %.
TEST(RuleCatalogOnTraces, NcuScopesFromARealExport)
{
    auto dir = sl::test::shared_data_dir();
    if (!dir)
        GTEST_SKIP() << "no shared data";
    const NcuReport ncu = read_ncu(*dir + "/ncu/a100_gpt2_flashattn_details_ncu2021.csv");
    ASSERT_EQ(ncu.launches.size(), 10u);
    const Trace t = make_synthetic_trace(base_synth());
    const AnalysisResult an = analyze(t, AnalysisOptions{});
    const auto scopes = bind_metrics(t, an, nullptr, &ncu);
    std::vector<const MetricScope*> launches;
    for (const auto& s : scopes)
        if (s.kind == ScopeKind::NcuLaunch)
            launches.push_back(&s);
    ASSERT_EQ(launches.size(), 10u);
    std::set<std::string> low_expected;
    for (size_t i = 0; i < 10; ++i) {
        const auto printed = ncu.launches[i].number("sm__warps_active.avg.pct_of_peak_sustained_active");
        ASSERT_TRUE(printed) << i;
        EXPECT_DOUBLE_EQ(launches[i]->metrics.at("achieved_occupancy"), *printed / 100.0);
        if (*printed < 30.0)
            low_expected.insert(launches[i]->subject);
    }
    std::set<std::string> low_fired;
    for (const auto& f : evaluate_rules(shipped(), scopes).findings)
        if (f.rule == "ncu-low-occupancy")
            low_fired.insert(f.subject);
    EXPECT_EQ(low_fired, low_expected);
    EXPECT_EQ(low_expected.size(), 8u);   // 8 of the 10 printed values are under 30 % (grep of the CSV)
    // The FlashAttention forward kernel is not a GEMM; the cuBLAS fp16 GEMMs are.
    for (const auto* s : launches) {
        if (s->subject.find("fmha_fwd") != std::string::npos) {
            EXPECT_EQ(s->metrics.at("is_gemm"), 0) << s->subject;
        }
        if (s->subject.find("s16816gemm") != std::string::npos) {
            EXPECT_EQ(s->metrics.at("is_gemm"), 1) << s->subject;
        }
    }
}

// The placeholder for the user's own command reads in the report's language; the command around it does not change.
TEST(RuleCatalog, VerifyPlaceholderInTheReportLanguage)
{
    const std::string v = "nsys profile -o after <your inference command> && sightline-cli compare a after.nsys-rep";
    EXPECT_EQ(verify_for(v, "en"), v);
    EXPECT_EQ(verify_for(v, "zh_CN"), "nsys profile -o after <你的推理命令> && sightline-cli compare a after.nsys-rep");
    EXPECT_EQ(verify_for("a <your inference command>; b <your inference command>", "zh_CN"),
              "a <你的推理命令>; b <你的推理命令>");
    EXPECT_EQ(verify_for("no placeholder", "zh_CN"), "no placeholder");
    // Every shipped verify command that leaves the user's command open says so with the one placeholder.
    for (const Rule& r : shipped().rules)
        for (const auto& s : r.suggestions) {
            std::vector<std::string> cmds{s.verify};
            for (const auto& [vendor, form] : s.forms)
                cmds.push_back(form.verify);
            for (const auto& c : cmds)
                EXPECT_EQ(c.find("<your command>"), std::string::npos) << r.id << "/" << s.id;
        }
}
