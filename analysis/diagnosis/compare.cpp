#include "analysis/diagnosis/compare.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <set>
#include <sstream>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "analysis/critpath/whatif.h"
#include "analysis/timeline/analysis.h"
#include "analysis/timeline/workload.h"
#include "analysis/io/fingerprint.h"
#include "analysis/io/input_bounds.h"
#include "analysis/diagnosis/metrics_binding.h"
#include "analysis/trace/trace.h"

namespace sl {

using nlohmann::json;

std::map<std::string, double> headline_metrics(const Trace& trace, const AnalysisResult& an)
{
    std::map<std::string, double> m;
    BindOptions bo;
    bo.max_kernel_scopes = 0;
    for (const auto& s : bind_metrics(trace, an, nullptr, nullptr, bo)) {
        if (s.kind == ScopeKind::Trace) {
            for (const char* k : {"wall_ns", "busy_ns", "idle_ns", "idle_fraction", "utilization", "host_wait_ns",
                                  "kernel_wait_ns", "sync_wait_ns", "other_wait_ns", "kernel_count", "launch_api_ns",
                                  "launch_overhead_fraction", "sync_api_ns", "h2d_ns", "pageable_async_memcpy_ns",
                                  "sync_memcpy_ns"})
                if (auto it = s.metrics.find(k); it != s.metrics.end())
                    m[k] = it->second;
        } else if (s.kind == ScopeKind::Device) {
            if (auto it = s.metrics.find("nccl_ns"); it != s.metrics.end())
                m["nccl_ns"] += it->second;
        }
    }
    m["kernel_ns"] = double(an.kernel_time_ns);
    if (an.phases.decode_steps > 0) {
        m["decode_steps"] = double(an.phases.decode_steps);
        if (an.phases.tpot_median_ns > 0) {
            m["tpot_median_ns"] = an.phases.tpot_median_ns;
            m["tpot_p90_ns"] = an.phases.tpot_p90_ns;
        }
    }
    if (an.phases.prefill_steps > 0)
        m["prefill_ns"] = double(an.phases.prefill_ns);
    return m;
}

namespace {

struct Agg {
    int64_t count = 0, ns = 0;
    std::string cls;
};

std::map<std::string, Agg> by_kernel_name(const Trace& t, const AnalysisResult& an)
{
    std::map<std::string, Agg> out;
    for (const auto& n : an.classes.names) {
        auto& a = out[std::string(t.str(n.name))];
        a.count += n.count;
        a.ns += n.time_ns;
        if (n.cls >= 0 && static_cast<size_t>(n.cls) < an.classes.classes.size())
            a.cls = an.classes.classes[static_cast<size_t>(n.cls)].id;
    }
    return out;
}

std::map<std::string, Agg> by_class(const AnalysisResult& an)
{
    std::map<std::string, Agg> out;
    for (const auto& c : an.classes.classes) {
        auto& a = out[c.id];
        a.count += c.count;
        a.ns += c.time_ns;
    }
    return out;
}

std::vector<DeltaRow> diff(const std::map<std::string, Agg>& b, const std::map<std::string, Agg>& a,
                           const CompareOptions& o)
{
    std::set<std::string> keys;
    for (const auto& [k, v] : b)
        keys.insert(k);
    for (const auto& [k, v] : a)
        keys.insert(k);
    std::vector<DeltaRow> rows;
    for (const auto& k : keys) {
        DeltaRow r;
        r.name = k;
        auto ib = b.find(k), ia = a.find(k);
        if (ib != b.end()) {
            r.before_count = ib->second.count;
            r.before_ns = ib->second.ns;
            r.op_class = ib->second.cls;
        }
        if (ia != a.end()) {
            r.after_count = ia->second.count;
            r.after_ns = ia->second.ns;
            if (r.op_class.empty())
                r.op_class = ia->second.cls;
        }
        if (r.before_count == 0 && r.after_count == 0)
            continue;
        if (r.before_count == 0)
            r.status = "added";
        else if (r.after_count == 0)
            r.status = "removed";
        else {
            const double limit = std::max(o.rel_threshold * double(r.before_ns), double(o.abs_threshold_ns));
            const double d = double(r.delta_ns());
            r.status = d > limit ? "slower" : d < -limit ? "faster" : "unchanged";
        }
        rows.push_back(std::move(r));
    }
    std::stable_sort(rows.begin(), rows.end(), [](const DeltaRow& x, const DeltaRow& y) {
        return std::llabs(x.delta_ns()) > std::llabs(y.delta_ns());
    });
    return rows;
}

} // namespace

std::optional<double> suggestion_metric(const std::string& metric, const std::string& subject, const Trace& trace,
                                        const AnalysisResult& an)
{
    if (metric == "subject_time_ns") {
        for (const auto& n : an.classes.names)
            if (trace.str(n.name) == subject)
                return double(n.time_ns);
        std::string cls = subject;
        if (auto p = cls.find(" ("); p != std::string::npos)
            cls = cls.substr(0, p);
        for (const auto& c : an.classes.classes)
            if (c.id == cls)
                return double(c.time_ns);
        return std::nullopt;
    }
    const auto m = headline_metrics(trace, an);
    if (auto it = m.find(metric); it != m.end())
        return it->second;
    return std::nullopt;
}

static int active_gpus(const AnalysisResult& an)
{
    int n = 0;
    for (const auto& d : an.idle.devices)
        n += d.window_ns > 0 ? 1 : 0;
    return n;
}

bool CompareEnvironment::same_hardware() const
{
    for (const auto& d : differences)
        if (d.field == "gpu" || d.field == "gpu_count")
            return false;
    return true;
}

static CompareEnvironment compare_environment(const Trace& before, const AnalysisResult& ab, const Trace& after,
                                              const AnalysisResult& aa)
{
    CompareEnvironment e;
    e.before = fingerprint_from_trace(before);
    e.after = fingerprint_from_trace(after);
    e.before_gpus = active_gpus(ab);
    e.after_gpus = active_gpus(aa);
    auto differ = [&](const std::string& field, const std::string& b, const std::string& a) {
        if (!b.empty() && !a.empty() && b != a)
            e.differences.push_back({field, b, a});
    };
    differ("gpu", e.before.gpu, e.after.gpu);
    if (e.before_gpus > 0 && e.after_gpus > 0)
        differ("gpu_count", std::to_string(e.before_gpus), std::to_string(e.after_gpus));
    differ("driver", e.before.driver, e.after.driver);
    differ("cuda", e.before.cuda, e.after.cuda);
    for (const auto& [k, v] : e.before.libraries)
        if (auto it = e.after.libraries.find(k); it != e.after.libraries.end() && k.find("rank") == std::string::npos)
            differ(k, v, it->second);   // (which rank a file came from is not an environment)
    return e;
}

static std::string hardware_words(const CompareEnvironment& e);

// Why BEFORE and AFTER are no A/B pair (compare.h): empty sides, other hardware, another workload.
static std::vector<std::string> not_comparable_reasons(const Trace& before, const AnalysisResult& ab,
                                                       const Trace& after, const AnalysisResult& aa,
                                                       const CompareEnvironment& e)
{
    std::vector<std::string> why;
    const bool empty_b = before.kernels.size() == 0, empty_a = after.kernels.size() == 0;
    if (empty_b && empty_a)
        why.push_back("neither BEFORE nor AFTER holds GPU kernels: there is no run to compare");
    else if (empty_b || empty_a)
        why.push_back(std::string(empty_b ? "BEFORE (" + before.meta.source_path : "AFTER (" + after.meta.source_path) +
                      ") holds no GPU kernels: every number would read as a 100 % change");
    if (!e.same_hardware())
        why.push_back("different hardware (" + hardware_words(e) + ")");
    else if (!empty_b && !empty_a) {
        if (e.before.gpu.empty() != e.after.gpu.empty())
            why.push_back("the GPU is known in " + std::string(e.before.gpu.empty() ? "AFTER" : "BEFORE") +
                          " only (" + (e.before.gpu.empty() ? e.after.gpu : e.before.gpu) +
                          "): the same hardware cannot be checked");
        if (e.before_gpus != e.after_gpus && (e.before_gpus == 0 || e.after_gpus == 0))
            why.push_back("different hardware (" + std::to_string(e.before_gpus) + " -> " +
                          std::to_string(e.after_gpus) + " active GPUs)");
        const std::string& vb = ab.workload.vendor;
        const std::string& va = aa.workload.vendor;
        if (!vb.empty() && !va.empty() && vb != va)
            why.push_back("different hardware (" + vb + " -> " + va + ")");
    }
    const auto kb = ab.workload.kind, ka = aa.workload.kind;
    if (kb != WorkloadKind::Unknown && ka != WorkloadKind::Unknown && kb != ka)
        why.push_back(std::string("a different workload (") + workload_kind_name(kb) + " -> " +
                      workload_kind_name(ka) + ")");
    const std::string& fb = ab.workload.framework;
    const std::string& fa = aa.workload.framework;
    if (!fb.empty() && !fa.empty() && fb != fa)
        why.push_back("a different workload (" + fb + " -> " + fa + ")");
    return why;
}

namespace {

// Tokens (or steps) per second of a run on its end-to-end metric (EndToEndVerdict).
void throughput_of(const AnalysisResult& an, const std::string& metric, double e2e, double& value, bool& per_sequence,
                   bool& steps)
{
    value = 0;
    per_sequence = steps = false;
    if (e2e <= 0)
        return;
    if (metric == "tpot_median_ns") {
        double tokens = 0, ns = 0;
        bool all = true;
        for (const StepInfo& s : an.phases.steps) {
            if (s.prefill || s.warmup)
                continue;
            const int64_t n = s.batch.decode_tokens > 0 ? s.batch.decode_tokens : s.batch.decode_requests;
            if (n <= 0) {
                all = false;
                break;
            }
            tokens += double(n);
            ns += double(s.wall_ns > 0 ? s.wall_ns : s.end - s.start);
        }
        if (all && tokens > 0 && ns > 0) {
            value = tokens * 1e9 / ns;
        } else {
            value = 1e9 / e2e;
            per_sequence = true;
        }
    } else if (metric == "wall_per_step_ns") {
        value = 1e9 / e2e;
        steps = true;
    }
}

} // namespace

EndToEndVerdict end_to_end_verdict(const CompareResult& r, const AnalysisResult& before, const AnalysisResult& after)
{
    EndToEndVerdict v;
    // The end-to-end metric both runs have, as judge_suggestions_runs takes it.
    EndToEnd eb = end_to_end_metric(before), ea = end_to_end_metric(after);
    if (eb.metric != ea.metric) {
        const std::string common = (eb.metric == "wall_ns" || ea.metric == "wall_ns") ? "wall_ns" : "wall_per_step_ns";
        eb = end_to_end_metric(before, common);
        ea = end_to_end_metric(after, common);
    }
    v.metric = eb.metric;
    v.before = eb.value;
    v.after = ea.value;
    v.steps_before = eb.steps;
    v.steps_after = ea.steps;
    v.step_noise = 2.0 * std::sqrt(eb.rel_stderr * eb.rel_stderr + ea.rel_stderr * ea.rel_stderr);
    v.spread_known = eb.steps >= 2 && ea.steps >= 2;
    v.noise = std::max(r.options.verify_threshold, v.step_noise);
    bool pb = false, pa = false, sb = false, sa = false;
    throughput_of(before, v.metric, v.before, v.throughput_before, pb, sb);
    throughput_of(after, v.metric, v.after, v.throughput_after, pa, sa);
    if (v.throughput_before > 0 && v.throughput_after > 0) {
        v.throughput_per_sequence = pb || pa;
        v.throughput_steps = sb;
        if (v.throughput_per_sequence && !(pb && pa)) {   // one side with batches: both per sequence
            v.throughput_before = 1e9 / v.before;
            v.throughput_after = 1e9 / v.after;
        }
    } else {
        v.throughput_before = v.throughput_after = 0;
    }
    if (v.before <= 0 || v.after <= 0)
        return v;   // "unknown": a run without GPU activity to time
    v.change = (v.after - v.before) / v.before;
    v.verdict = !r.comparable()         ? "not-comparable"
                : -v.change > v.noise   ? "faster"
                : v.change > v.noise    ? "slower"
                                        : "unchanged";
    return v;
}

std::string end_to_end_text(const CompareResult& r)
{
    const EndToEndVerdict& v = r.end_to_end;
    if (v.verdict == "unknown")
        return v.metric.empty() ? "No end-to-end verdict."
                                : std::string("No end-to-end verdict: ") + (v.before <= 0 ? "BEFORE" : "AFTER") +
                                      " has no GPU activity to time.";
    const std::string what = v.metric == "tpot_median_ns" ? "TPOT" : v.metric == "wall_per_step_ns" ? "time per step"
                                                                                                     : "wall time";
    char buf[512];
    std::snprintf(buf, sizeof buf, "%s %s -> %s (%+.1f %%)", what.c_str(), format_metric("x_ns", v.before).c_str(),
                  format_metric("x_ns", v.after).c_str(), v.change * 100.0);
    std::string numbers = buf;
    if (v.throughput_before > 0) {
        const char* unit = v.throughput_steps ? "steps/s" : v.throughput_per_sequence ? "tokens/s per sequence"
                                                                                     : "tokens/s";
        std::snprintf(buf, sizeof buf, ", throughput %.3g -> %.3g %s", v.throughput_before, v.throughput_after, unit);
        numbers += buf;
    }
    std::snprintf(buf, sizeof buf, "%s of +/-%.1f %%%s", v.spread_known ? "the noise" : "the noise floor",
                  v.noise * 100.0,
                  v.spread_known ? "" : " (the run-to-run spread is not known)");
    const std::string noise = buf;
    if (v.verdict == "not-comparable")
        return "Not comparable (" + (r.not_comparable.empty() ? std::string() : r.not_comparable.front()) + "): " +
               numbers + ".";
    if (v.verdict == "faster")
        return "Faster end to end: " + numbers + ", beyond " + noise + ".";
    if (v.verdict == "slower")
        return "Slower end to end: " + numbers + ", beyond " + noise + ".";
    return "No measurable change end to end: " + numbers + ", within " + noise + ".";
}

CompareResult compare_runs(const Trace& before, const AnalysisResult& ab, const Trace& after,
                           const AnalysisResult& aa, const CompareOptions& o)
{
    CompareResult r;
    r.options = o;
    r.before_path = before.meta.source_path;
    r.after_path = after.meta.source_path;
    r.environment = compare_environment(before, ab, after, aa);
    r.before_metrics = headline_metrics(before, ab);
    r.after_metrics = headline_metrics(after, aa);
    r.classes = diff(by_class(ab), by_class(aa), o);
    r.kernels = diff(by_kernel_name(before, ab), by_kernel_name(after, aa), o);
    r.not_comparable = not_comparable_reasons(before, ab, after, aa, r.environment);
    r.end_to_end = end_to_end_verdict(r, ab, aa);
    return r;
}

EndToEnd end_to_end_metric(const AnalysisResult& an, const std::string& prefer)
{
    EndToEnd e;
    std::vector<double> dec, all;
    for (const auto& s : an.phases.steps) {
        if (!s.prefill && !s.warmup)
            dec.push_back(double(s.wall_ns > 0 ? s.wall_ns : s.end - s.start));
        if (!s.warmup)
            all.push_back(double(s.end - s.start));
    }
    auto rel_se = [](const std::vector<double>& v) {
        if (v.size() < 2)
            return 0.0;
        double mean = 0, var = 0;
        for (double x : v)
            mean += x;
        mean /= double(v.size());
        for (double x : v)
            var += (x - mean) * (x - mean);
        var /= double(v.size() - 1);
        return mean > 0 ? std::sqrt(var / double(v.size())) / mean : 0.0;
    };
    if (prefer != "wall_ns" && prefer != "wall_per_step_ns" && an.phases.tpot_median_ns > 0 && !dec.empty()) {
        e.metric = "tpot_median_ns";
        e.value = an.phases.tpot_median_ns;
        e.rel_stderr = rel_se(dec);
        e.steps = int(dec.size());
    } else if (prefer != "wall_ns" && !all.empty()) {
        e.metric = "wall_per_step_ns";
        double sum = 0;
        for (double x : all)
            sum += x;
        e.value = sum / double(all.size());
        e.rel_stderr = rel_se(all);
        e.steps = int(all.size());
    } else {
        int64_t first = INT64_MAX, last = INT64_MIN;
        for (const auto& d : an.idle.devices)
            if (d.window_ns > 0) {
                first = std::min(first, d.first_start);
                last = std::max(last, d.last_end);
            }
        e.metric = "wall_ns";
        e.value = last > first ? double(last - first) : 0.0;
    }
    return e;
}

// "NVIDIA A100-PG509-200 -> Tesla V100-SXM2-16GB, 1 -> 2 GPUs"
static std::string hardware_words(const CompareEnvironment& e)
{
    std::string out;
    for (const auto& d : e.differences)
        if (d.field == "gpu" || d.field == "gpu_count")
            out += (out.empty() ? "" : ", ") + d.before + " -> " + d.after + (d.field == "gpu_count" ? " GPUs" : "");
    return out;
}

void judge_suggestions(CompareResult& r, const std::vector<SuggestionRecord>& suggestions, const Trace& before,
                       const AnalysisResult& ab, const Trace& after, const AnalysisResult& aa)
{
    judge_suggestions_runs(r, suggestions, before, ab, after, aa, {}, {});
}

void judge_suggestions_runs(CompareResult& r, const std::vector<SuggestionRecord>& suggestions, const Trace& before,
                            const AnalysisResult& ab, const Trace& after, const AnalysisResult& aa,
                            const std::vector<const AnalysisResult*>& more_before,
                            const std::vector<const AnalysisResult*>& more_after)
{
    // End to end, on a metric both sides have.
    EndToEnd eb = end_to_end_metric(ab), ea = end_to_end_metric(aa);
    if (eb.metric != ea.metric) {
        const std::string common = (eb.metric == "wall_ns" || ea.metric == "wall_ns") ? "wall_ns" : "wall_per_step_ns";
        eb = end_to_end_metric(ab, common);
        ea = end_to_end_metric(aa, common);
    }
    auto side = [&](EndToEnd& e, const std::vector<const AnalysisResult*>& more, double& run_spread) {
        std::vector<double> vals{e.value};
        for (const AnalysisResult* m : more)
            if (m) {
                const EndToEnd x = end_to_end_metric(*m, e.metric);
                if (x.metric == e.metric && x.value > 0)
                    vals.push_back(x.value);
            }
        double mean = 0;
        for (double v : vals)
            mean += v;
        mean /= double(vals.size());
        run_spread = 0;
        if (vals.size() >= 2 && mean > 0) {
            double var = 0;
            for (double v : vals)
                var += (v - mean) * (v - mean);
            run_spread = std::sqrt(var / double(vals.size() - 1)) / mean;
        }
        e.value = mean;
    };
    double spread_b = 0, spread_a = 0;
    side(eb, more_before, spread_b);
    side(ea, more_after, spread_a);
    const double step_noise = 2.0 * std::sqrt(eb.rel_stderr * eb.rel_stderr + ea.rel_stderr * ea.rel_stderr);
    const double run_noise = 2.0 * std::max(spread_b, spread_a);
    const double noise = std::max({r.options.verify_threshold, step_noise, run_noise});
    // The predicted TPOT of each what-if change the suggestions map to: one dependency graph of BEFORE, one replay
    // per change (the replay's baseline is BEFORE's TPOT median, the metric judged here).
    std::optional<critpath::DependencyGraph> graph;
    std::map<std::string, std::optional<double>> predicted;
    auto predict = [&](const std::string& change) -> std::optional<double> {
        if (eb.metric != "tpot_median_ns" || change.empty())
            return std::nullopt;
        if (auto it = predicted.find(change); it != predicted.end())
            return it->second;
        std::optional<double> p;
        critpath::Change c;
        std::string error;
        if (critpath::parse_change(change, c, error)) {
            if (!graph)
                graph.emplace(critpath::build_dependency_graph(before));
            critpath::WhatIfInputs in;
            in.classes = &ab.classes;
            in.phases = &ab.phases;
            try {
                const critpath::WhatIfResult w = critpath::replay_what_if(before, *graph, {c}, in);
                if (w.predicted_step_ns > 0)
                    p = double(w.predicted_step_ns);
            } catch (const critpath::WhatIfError&) {   // nothing to replay: no prediction
            }
        }
        return predicted[change] = p;
    };
    for (const auto& s : suggestions) {
        SuggestionVerdict v;
        v.suggestion_id = s.id;
        v.key = s.key;
        v.subject = s.subject;
        v.metric = s.metric.empty() ? "wall_ns" : s.metric;
        v.direction = s.direction.empty() ? "decrease" : s.direction;
        v.before = suggestion_metric(v.metric, s.subject, before, ab);
        v.after = suggestion_metric(v.metric, s.subject, after, aa);
        if (!v.before || !v.after) {
            v.verdict = "unmeasurable";
            v.reason = v.metric + " is not available in " + (!v.before ? "BEFORE" : "AFTER");
        } else if (*v.before == 0) {
            // Nothing to reduce before: only an increase can be judged.
            v.delta = 0;
            v.verdict = "inconclusive";
            v.reason = v.metric + " was 0 before";
        } else {
            v.delta = (*v.after - *v.before) / std::fabs(*v.before);
            const double improvement = v.direction == "increase" ? v.delta : -v.delta;
            const double t = r.options.verify_threshold;
            v.verdict = improvement >= t ? "verified" : improvement <= -t ? "failed" : "inconclusive";
            char buf[160];
            std::snprintf(buf, sizeof buf, "%s %s by %.1f %% (promised: %s; threshold %.0f %%)", v.metric.c_str(),
                          v.delta < 0 ? "fell" : "rose", std::fabs(v.delta) * 100, v.direction.c_str(), t * 100);
            v.reason = buf;
        }
        // The end-to-end judgement replaces the proxy's when both runs have the end-to-end metric.
        v.noise = noise;
        if (v.verdict != "unmeasurable" && eb.value > 0 && ea.value > 0) {
            v.proxy_verdict = v.verdict;
            v.e2e_metric = eb.metric;
            v.e2e_before = eb.value;
            v.e2e_after = ea.value;
            v.e2e_delta = (ea.value - eb.value) / eb.value;
            // Every suggestion promises a faster run, unless its own metric is the end-to-end one.
            const bool own = v.metric == eb.metric;
            const double gain = own && v.direction == "increase" ? v.e2e_delta : -v.e2e_delta;
            // Faster beyond the noise counts only when the promised metric moved too (else the speed-up came from
            // something else); slower beyond the noise fails it whatever the proxy says.
            if (gain > noise)
                v.verdict = v.proxy_verdict == "verified" ? "verified" : "inconclusive";
            else if (gain < -noise)
                v.verdict = "failed";
            else
                v.verdict = "inconclusive";
            char buf[256];
            std::snprintf(buf, sizeof buf, "end to end %s %s by %.1f %% (noise %.1f %%); proxy: ", eb.metric.c_str(),
                          v.e2e_delta < 0 ? "fell" : "rose", std::fabs(v.e2e_delta) * 100, noise * 100);
            v.reason = buf + v.reason;
            v.whatif_change = critpath::change_for_suggestion(s.key);
            v.predicted = predict(v.whatif_change);
            if (v.predicted && v.e2e_metric == eb.metric && ea.value > 0) {
                v.prediction_error = (ea.value - *v.predicted) / ea.value;
                std::snprintf(buf, sizeof buf, "; replay (%s) predicted %s, measured %s: off by %+.1f %%",
                              v.whatif_change.c_str(), format_metric("x_ns", *v.predicted).c_str(),
                              format_metric("x_ns", ea.value).c_str(), *v.prediction_error * 100);
                v.reason += buf;
            } else {
                v.predicted.reset();
            }
        }
        // Another GPU (or another number of them) moves every number: nothing is verified or failed across it; nor
        // across an empty side or another workload (not_comparable).
        if (!r.environment.same_hardware() && (v.verdict == "verified" || v.verdict == "failed")) {
            v.verdict = "inconclusive";
            v.reason = "different hardware (" + hardware_words(r.environment) + "): " + v.reason;
        } else if (!r.comparable() && (v.verdict == "verified" || v.verdict == "failed")) {
            v.verdict = "inconclusive";
            v.reason = "not comparable (" + r.not_comparable.front() + "): " + v.reason;
        }
        r.verdicts.push_back(std::move(v));
    }
}

static json rows_json(const std::vector<DeltaRow>& rows)
{
    json a = json::array();
    for (const auto& x : rows)
        a.push_back(json{{"name", x.name},
                         {"op_class", x.op_class},
                         {"status", x.status},
                         {"before_count", x.before_count},
                         {"after_count", x.after_count},
                         {"before_ns", x.before_ns},
                         {"after_ns", x.after_ns},
                         {"delta_ns", x.delta_ns()},
                         {"relative", x.before_ns > 0 ? json(x.relative()) : json()}});
    return a;
}

static nlohmann::json end_to_end_json(const EndToEndVerdict& v, const std::string& text)
{
    auto positive = [](double x) { return x > 0 ? json(x) : json(); };
    return json{{"verdict", v.verdict},
                {"metric", v.metric.empty() ? json() : json(v.metric)},
                {"before", positive(v.before)},
                {"after", positive(v.after)},
                {"change", v.before > 0 && v.after > 0 ? json(v.change) : json()},
                {"noise", v.noise},
                {"step_noise", v.spread_known ? json(v.step_noise) : json()},
                {"steps_before", v.steps_before},
                {"steps_after", v.steps_after},
                {"throughput_before", positive(v.throughput_before)},
                {"throughput_after", positive(v.throughput_after)},
                {"throughput_unit", v.throughput_before <= 0 ? json()
                                    : v.throughput_steps ? json("steps/s")
                                    : v.throughput_per_sequence ? json("tokens/s per sequence")
                                                                : json("tokens/s")},
                {"text", text}};
}

nlohmann::json compare_to_json(const CompareResult& r)
{
    json metrics = json::object();
    std::set<std::string> keys;
    for (const auto& [k, v] : r.before_metrics)
        keys.insert(k);
    for (const auto& [k, v] : r.after_metrics)
        keys.insert(k);
    for (const auto& k : keys) {
        auto b = r.before_metrics.find(k), a = r.after_metrics.find(k);
        json j{{"before", b != r.before_metrics.end() ? json(b->second) : json()},
               {"after", a != r.after_metrics.end() ? json(a->second) : json()}};
        if (b != r.before_metrics.end() && a != r.after_metrics.end()) {
            j["delta"] = a->second - b->second;
            j["relative"] = b->second != 0 ? json((a->second - b->second) / std::fabs(b->second)) : json();
        }
        metrics[k] = j;
    }
    json verdicts = json::array();
    for (const auto& v : r.verdicts) {
        verdicts.push_back(json{{"suggestion_id", v.suggestion_id},
                                {"suggestion", v.key},
                                {"subject", v.subject},
                                {"metric", v.metric},
                                {"direction", v.direction},
                                {"before", v.before ? json(*v.before) : json()},
                                {"after", v.after ? json(*v.after) : json()},
                                {"delta", v.delta},
                                {"verdict", v.verdict},
                                {"reason", v.reason},
                                {"end_to_end", v.e2e_metric.empty()
                                                   ? json()
                                                   : json{{"metric", v.e2e_metric},
                                                          {"before", v.e2e_before ? json(*v.e2e_before) : json()},
                                                          {"after", v.e2e_after ? json(*v.e2e_after) : json()},
                                                          {"delta", v.e2e_delta},
                                                          {"noise", v.noise}}},
                                {"proxy_verdict", v.proxy_verdict.empty() ? json() : json(v.proxy_verdict)}});
        if (v.predicted && v.prediction_error)
            verdicts.back()["prediction"] = {{"change", v.whatif_change},
                                             {"predicted", *v.predicted},
                                             {"error", *v.prediction_error}};
    }
    auto count = [](const std::vector<DeltaRow>& rows) {
        json c{{"added", 0}, {"removed", 0}, {"faster", 0}, {"slower", 0}, {"unchanged", 0}};
        for (const auto& x : rows)
            c[x.status] = c[x.status].get<int>() + 1;
        return c;
    };
    auto env_json = [](const EnvFingerprint& f, int gpus) {
        return json{{"gpu", f.gpu.empty() ? json() : json(f.gpu)},
                    {"gpu_count", gpus},
                    {"driver", f.driver.empty() ? json() : json(f.driver)},
                    {"cuda", f.cuda.empty() ? json() : json(f.cuda)},
                    {"libraries", f.libraries}};
    };
    json diffs = json::array();
    for (const auto& d : r.environment.differences)
        diffs.push_back(json{{"field", d.field}, {"before", d.before}, {"after", d.after}});
    return json{{"schema", "sightline.compare/1"},
                {"before", r.before_path},
                {"after", r.after_path},
                {"environment", {{"before", env_json(r.environment.before, r.environment.before_gpus)},
                                 {"after", env_json(r.environment.after, r.environment.after_gpus)},
                                 {"differences", diffs},
                                 {"same_hardware", r.environment.same_hardware()}}},
                {"thresholds", {{"rel_threshold", r.options.rel_threshold},
                                {"abs_threshold_ns", r.options.abs_threshold_ns},
                                {"verify_threshold", r.options.verify_threshold}}},
                {"metrics", metrics},
                {"op_classes", rows_json(r.classes)},
                {"kernels", rows_json(r.kernels)},
                {"kernel_summary", count(r.kernels)},
                {"verdicts", verdicts},
                {"comparable", r.comparable()},
                {"not_comparable", r.not_comparable},
                {"recorded", r.recorded ? json(*r.recorded) : json()},
                {"end_to_end", end_to_end_json(r.end_to_end, end_to_end_text(r))}};
}

static std::string fmt_metric_pair(const std::string& k, const CompareResult& r)
{
    auto b = r.before_metrics.find(k), a = r.after_metrics.find(k);
    std::string s = (b != r.before_metrics.end() ? format_metric(k, b->second) : "-") + " -> " +
                    (a != r.after_metrics.end() ? format_metric(k, a->second) : "-");
    if (b != r.before_metrics.end() && a != r.after_metrics.end() && b->second != 0) {
        char buf[32];
        std::snprintf(buf, sizeof buf, " (%+.1f %%)", (a->second - b->second) / std::fabs(b->second) * 100);
        s += buf;
    }
    return s;
}

static const char* const kHeadline[] = {"wall_ns", "tpot_median_ns", "tpot_p90_ns", "utilization", "idle_fraction",
                                        "host_wait_ns", "kernel_wait_ns", "sync_wait_ns", "other_wait_ns",
                                        "kernel_count", "kernel_ns", "launch_api_ns", "sync_api_ns", "nccl_ns",
                                        "h2d_ns"};

static std::string delta_text(const DeltaRow& x)
{
    char buf[64];
    if (x.before_ns > 0)
        std::snprintf(buf, sizeof buf, "%+.1f %%", x.relative() * 100);
    else
        std::snprintf(buf, sizeof buf, "new");
    return format_metric("x_ns", double(x.delta_ns())) + " (" + buf + ")";
}

std::string hardware_warning(const CompareEnvironment& e)
{
    return "the runs are on different hardware (" + hardware_words(e) +
           "): every difference below mixes the hardware with the change, so no suggestion is verified or failed "
           "across them; compare runs on the same GPUs";
}

// A kernel name for a text table: C++ signatures run to a thousand characters. Drops a leading "void ", the
// parameter list, and caps the rest at 120 bytes (on a UTF-8 boundary) with "…"; JSON keeps the full name.
std::string display_kernel_name(const std::string& name)
{
    std::string s = name.rfind("void ", 0) == 0 ? name.substr(5) : name;
    // The parameter list: the last top-level "(...)" that ends the name.
    if (!s.empty() && s.back() == ')') {
        int depth = 0;
        for (size_t i = s.size(); i-- > 0;) {
            if (s[i] == ')')
                ++depth;
            else if (s[i] == '(' && --depth == 0) {
                if (i > 0 && s.size() - i > 2)
                    s = s.substr(0, i) + "(…)";
                break;
            }
        }
    }
    constexpr size_t kMax = 120;
    if (s.size() > kMax) {
        size_t cut = kMax;
        while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80)
            --cut;
        s = s.substr(0, cut) + "…";
    }
    return s;
}

std::string compare_to_text(const CompareResult& r, size_t max_rows)
{
    std::ostringstream o;
    // The verdict first (issue 37 §4), then the details.
    o << terminal_safe(end_to_end_text(r)) << "\n\n";
    o << "Compare\n  before: " << terminal_safe(r.before_path) << "\n  after:  " << terminal_safe(r.after_path) << "\n";
    for (const auto& why : r.not_comparable)
        o << "  Warning: not comparable: " << terminal_safe(why) << "; no suggestion is verified or failed"
          << (r.recorded ? ", and nothing was recorded" : "") << "\n";
    if (!r.environment.differences.empty()) {
        o << "\nEnvironment (differs)\n";
        for (const auto& d : r.environment.differences)
            o << "  " << d.field << ": " << d.before << " -> " << d.after << "\n";
        if (!r.environment.same_hardware())
            o << "  Warning: " << hardware_warning(r.environment) << "\n";
    }
    o << "\nHeadline\n";
    for (const char* k : kHeadline)
        if (r.before_metrics.count(k) || r.after_metrics.count(k))
            o << "  " << k << ": " << fmt_metric_pair(k, r) << "\n";
    o << "\nOperator classes\n";
    for (const auto& x : r.classes)
        if (x.status != "unchanged" || x.delta_ns() != 0)
            o << "  " << x.status << "  " << x.name << "  " << format_metric("x_ns", double(x.before_ns)) << " -> "
              << format_metric("x_ns", double(x.after_ns)) << "  " << delta_text(x) << "\n";
    o << "\nKernels (largest changes)\n";
    size_t n = 0;
    for (const auto& x : r.kernels) {
        if (n++ >= max_rows)
            break;
        o << "  " << x.status << "  " << display_kernel_name(x.name) << "  " << x.before_count << " -> " << x.after_count << " calls, "
          << delta_text(x) << "\n";
    }
    if (!r.verdicts.empty()) {
        o << "\nSuggestions accepted on BEFORE\n";
        for (const auto& v : r.verdicts)
            o << "  " << v.verdict << "  " << v.key << " [" << v.subject << "]: " << v.reason << "\n";
    }
    return o.str();
}

std::string compare_to_markdown(const CompareResult& r, size_t max_rows)
{
    std::ostringstream o;
    o << "# Compare\n\n**" << terminal_safe(end_to_end_text(r)) << "**\n\n- before: `" << terminal_safe(r.before_path)
      << "`\n- after: `" << terminal_safe(r.after_path) << "`\n\n";
    for (const auto& why : r.not_comparable)
        o << "> **Warning:** not comparable: " << terminal_safe(why) << "; no suggestion is verified or failed"
          << (r.recorded ? ", and nothing was recorded" : "") << "\n\n";
    if (!r.environment.differences.empty()) {
        if (!r.environment.same_hardware())
            o << "> **Warning:** " << hardware_warning(r.environment) << "\n\n";
        o << "| environment | before → after |\n|---|---|\n";
        for (const auto& d : r.environment.differences)
            o << "| " << d.field << " | " << d.before << " → " << d.after << " |\n";
        o << "\n";
    }
    o << "| metric | before → after |\n|---|---|\n";
    for (const char* k : kHeadline)
        if (r.before_metrics.count(k) || r.after_metrics.count(k))
            o << "| " << k << " | " << fmt_metric_pair(k, r) << " |\n";
    o << "\n## Operator classes\n\n| class | status | before | after | delta |\n|---|---|---|---|---|\n";
    for (const auto& x : r.classes)
        o << "| " << x.name << " | " << x.status << " | " << format_metric("x_ns", double(x.before_ns)) << " | "
          << format_metric("x_ns", double(x.after_ns)) << " | " << delta_text(x) << " |\n";
    o << "\n## Kernels\n\n| kernel | status | calls | delta |\n|---|---|---|---|\n";
    size_t n = 0;
    for (const auto& x : r.kernels) {
        if (n++ >= max_rows)
            break;
        std::string name = display_kernel_name(x.name);
        std::replace(name.begin(), name.end(), '|', '/');
        o << "| `" << name << "` | " << x.status << " | " << x.before_count << " → " << x.after_count << " | "
          << delta_text(x) << " |\n";
    }
    if (!r.verdicts.empty()) {
        o << "\n## Suggestions accepted on BEFORE\n\n| suggestion | subject | verdict | reason |\n|---|---|---|---|\n";
        for (const auto& v : r.verdicts)
            o << "| " << v.key << " | " << v.subject << " | " << v.verdict << " | " << v.reason << " |\n";
    }
    return o.str();
}

int64_t ensure_kb_run(KnowledgeBase& kb, const Trace& trace, const AnalysisResult& analysis, const std::string& path,
                      const std::string& hash)
{
    if (auto r = kb.find_run_by_hash(hash))
        return r->id;
    RunRecord rec;
    rec.trace_path = path;
    rec.trace_hash = hash;
    rec.env_id = kb.upsert_environment(fingerprint_from_trace(trace));
    rec.metrics = headline_metrics(trace, analysis);
    return kb.record_run(rec, operator_measurements(trace, analysis));
}

int record_verdicts(KnowledgeBase& kb, const CompareResult& result, int64_t before_run, int64_t after_run)
{
    int written = 0;
    if (!result.comparable())
        return written;   // a false history would move the suggestion's confidence on similar environments
    for (const SuggestionVerdict& v : result.verdicts) {
        if (v.verdict == "unmeasurable")
            continue;
        VerificationRecord rec;
        rec.suggestion_id = v.suggestion_id;
        rec.suggestion_key = v.key;
        rec.before_run = before_run;
        rec.after_run = after_run;
        // The end-to-end delta when there is one: the knowledge base's confidence history is built from it.
        rec.metric = v.e2e_metric.empty() ? v.metric : v.e2e_metric;
        rec.before_value = v.e2e_metric.empty() ? v.before.value_or(0) : v.e2e_before.value_or(0);
        rec.after_value = v.e2e_metric.empty() ? v.after.value_or(0) : v.e2e_after.value_or(0);
        rec.delta = v.e2e_metric.empty() ? v.delta : v.e2e_delta;
        rec.verdict = v.verdict;
        if (v.predicted && v.prediction_error) {
            rec.change = v.whatif_change;
            rec.predicted_value = v.predicted;
            rec.prediction_error = v.prediction_error;
        }
        kb.record_verification(rec);
        ++written;
    }
    return written;
}

} // namespace sl
