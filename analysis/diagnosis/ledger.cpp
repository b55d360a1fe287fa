#include "analysis/diagnosis/ledger.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <unordered_map>
#include <memory>
#include <set>

#include <nlohmann/json.hpp>

#include "analysis/diagnosis/headline.h"
#include "analysis/roofline/kv_expand.h"
#include "analysis/timeline/analysis.h"
#include "analysis/timeline/kernel_phase.h"
#include "analysis/timeline/op_classes.h"
#include "analysis/trace/trace.h"

namespace sl {

namespace {

double metric(const MetricScope& s, const std::string& name, double fallback = 0)
{
    auto it = s.metrics.find(name);
    return it != s.metrics.end() && std::isfinite(it->second) ? it->second : fallback;
}

} // namespace

LocalText ledger_entry_words(const std::string& entry, const OpClassResult* classes)
{
    static const std::map<std::string, std::pair<std::string, std::string>> fixed = {
        {"wall", {"end-to-end time", "端到端时间"}},
        {"busy", {"GPU busy time", "GPU 忙碌时间"}},
        {"idle", {"GPU idle time", "GPU 空闲时间"}},
        {"idle:edge", {"GPU idle time at the capture's edges (before the first step, after the last)",
                       "采集边缘的 GPU 空闲时间（第一步之前、最后一步之后）"}},
        {"idle:launch", {"GPU idle time waiting on launches", "GPU 等待启动的空闲时间"}},
        {"idle:host", {"GPU idle time waiting for the host", "GPU 等待主机的空闲时间"}},
        {"idle:kernel", {"GPU idle time between back-to-back launches (kernel wait)", "连续启动之间的 GPU 空闲时间（内核等待）"}},
        {"idle:sync", {"GPU idle time behind host synchronisations", "主机同步造成的 GPU 空闲时间"}},
        {"idle:other", {"GPU idle time of other causes", "其他原因的 GPU 空闲时间"}},
        {"idle:dependency", {"GPU idle time with queued work waiting on other streams' events",
                             "已入队工作等待其他流事件造成的 GPU 空闲时间"}},
        {"copy:h2d-exposed", {"host-to-device copy time not hidden under compute", "未被计算掩盖的主机到设备拷贝时间"}},
        {"copy:kv-expand", {"time of the copies that expand the KV cache to the query heads",
                            "把 KV 缓存扩展到查询头的拷贝时间"}},
        {"comm:exposed", {"communication time not hidden under compute", "未被计算掩盖的通信时间"}},
        {"comm:straggler-wait", {"time other ranks wait for the slowest rank", "其他 rank 等待最慢 rank 的时间"}},
        {"class:elementwise-copy", {"elementwise, copy and normalisation kernel time", "逐元素、拷贝和归一化内核时间"}},
    };
    if (const auto it = fixed.find(entry); it != fixed.end())
        return {it->second.first, it->second.second};
    static const std::map<std::string, std::pair<std::string, std::string>> host = {
        {"compilation", {"GPU idle time while the host compiles kernels (JIT)", "主机 JIT 编译内核期间的 GPU 空闲时间"}},
        {"autotuning", {"GPU idle time while the host autotunes kernels", "主机自动调优内核期间的 GPU 空闲时间"}},
        {"module_loading", {"GPU idle time while the host loads modules", "主机加载模块期间的 GPU 空闲时间"}},
        {"allocator", {"GPU idle time while the host allocates device memory", "主机分配显存期间的 GPU 空闲时间"}},
    };
    if (entry.rfind("idle:host:", 0) == 0) {
        const std::string cause = entry.substr(10);
        if (const auto it = host.find(cause); it != host.end())
            return {it->second.first, it->second.second};
        return {"GPU idle time while the host is in " + cause, "主机处于 " + cause + " 期间的 GPU 空闲时间"};
    }
    auto phase_words = [](const std::string& p) -> std::pair<std::string, std::string> {
        if (p == "decode")
            return {"decode", "解码"};
        if (p == "prefill")
            return {"prefill", "预填充"};
        if (p == "mixed")
            return {"mixed steps", "混合步"};
        if (p == "training")
            return {"training", "训练"};
        return {p, p};
    };
    if (entry.rfind("class:", 0) == 0) {
        // "class:<id>" or "class:<id> (<phase>)".
        std::string id = entry.substr(6), phase;
        if (const size_t open = id.find(" ("); open != std::string::npos && id.back() == ')') {
            phase = id.substr(open + 2, id.size() - open - 3);
            id.resize(open);
        }
        std::string en = id, zh = id;
        if (classes)
            for (const auto& c : classes->classes)
                if (c.id == id) {
                    en = c.label_for("en");
                    zh = c.label_for("zh_CN");
                }
        // Chinese sets Latin words off with spaces, not Chinese ones: "解码阶段的 GEMM / GEMV 时间", "预填充阶段的注意力时间".
        const bool latin = !zh.empty() && static_cast<unsigned char>(zh.front()) < 0x80;
        const bool latin_end = !zh.empty() && static_cast<unsigned char>(zh.back()) < 0x80;
        LocalText t;
        if (phase.empty()) {
            t.en = en + " kernel time";
            t.zh_CN = zh + (latin_end ? " " : "") + "内核时间";
        } else {
            const auto [pen, pzh] = phase_words(phase);
            t.en = en + " time in " + pen;
            t.zh_CN = pzh + "阶段的" + (latin ? " " : "") + zh + (latin_end ? " " : "") + "时间";
        }
        return t;
    }
    if (entry.rfind("kernel:", 0) == 0) {
        const std::string name = entry.substr(7);
        return {"the time of kernel " + name, "内核 " + name + " 的时间"};
    }
    return {entry, entry};
}

namespace {

std::string fill_subject(std::string text, const std::string& subject)
{
    const std::string ph = "{subject}";
    for (size_t p = text.find(ph); p != std::string::npos; p = text.find(ph, p + subject.size()))
        text.replace(p, ph.size(), subject);
    return text;
}

// The fixed part of the tree; lazily added entries ("kernel:x", "class:x", unknown prefixes) hang below "busy"
// (kernel, class, copy, comm) or "wall".
std::string parent_of(const std::string& key)
{
    if (key == "wall")
        return {};
    if (key == "idle" || key == "busy" || key == "idle:edge")
        return "wall";
    if (key == "idle:host" || key == "idle:kernel")
        return "idle:launch";
    if (key.rfind("idle:host:", 0) == 0)   // a host-side cause's share of the host wait (host_causes.h)
        return "idle:host";
    if (key.rfind("idle:", 0) == 0)
        return "idle";
    if (key == "comm:straggler-wait")   // the others' waits sit inside their (exposed) collectives
        return "comm:exposed";
    for (const char* p : {"kernel:", "class:", "copy:", "comm:"})
        if (key.rfind(p, 0) == 0)
            return "busy";
    return "wall";
}

int depth_of(const std::string& key)
{
    int d = 0;
    for (std::string k = key; !k.empty(); k = parent_of(k))
        ++d;
    return d;
}

struct Claim {
    size_t finding;
    std::string entry;
    double claim = 0, cap = 0, low_ns = 0, high_ns = 0, basis_ns = 0;
    double granted = 0, bound = 0;
};

} // namespace

Severity severity_for_gain(double f, const LedgerOptions& o)
{
    if (f >= o.high_fraction) return Severity::High;
    if (f >= o.medium_fraction) return Severity::Medium;
    if (f >= o.low_fraction) return Severity::Low;
    return Severity::Info;
}

Severity severity_for(double f, double confidence, const LedgerOptions& o)
{
    const Severity s = severity_for_gain(f, o);
    if (s == Severity::High && confidence < o.high_confidence)
        return Severity::Medium;
    return s;
}

Severity ledger_severity(Severity rule, double f, double confidence, bool computed, bool check, const LedgerOptions& o)
{
    if (check)
        return rule;
    const Severity s = severity_for(f, confidence, o);
    return computed ? s : std::min(rule, s);
}

KernelPools kernel_pools(const Trace& trace, const AnalysisResult& an)
{
    KernelPools p;
    const size_t n = trace.kernels.size();
    p.kernel_ns.resize(n);
    for (size_t i = 0; i < n; ++i)
        p.kernel_ns[i] = double(trace.kernels.end[i] - trace.kernels.start[i]);
    // Phase of each kernel as the Roofline measures it (timeline/kernel_phase.h): KernelPhase's values, -1 none.
    auto phase = std::make_shared<const std::vector<KernelPhase>>(kernel_phases(trace, an.phases));
    const Trace* t = &trace;
    const AnalysisResult* a = &an;
    p.rows = [t, a, phase](const std::string& entry) -> std::optional<std::vector<uint32_t>> {
        if (entry == "copy:kv-expand")   // the copies' own kernels (roofline/kv_expand.h)
            return find_kv_expansion(*t).kernels;
        const auto& kc = a->classes.kernel_class;
        const size_t n = std::min(t->kernels.size(), kc.size());
        std::vector<uint32_t> rows;
        if (entry == "class:elementwise-copy") {
            for (size_t i = 0; i < n; ++i) {
                const int c = kc[i];
                if (c >= 0 && static_cast<size_t>(c) < a->classes.classes.size() &&
                    is_kernel_mix_class(a->classes.classes[static_cast<size_t>(c)].id))
                    rows.push_back(static_cast<uint32_t>(i));
            }
            return rows;
        }
        if (entry.rfind("class:", 0) == 0) {
            std::string id = entry.substr(6);
            int ph = -2;   // any phase
            if (const size_t open = id.find(" ("); open != std::string::npos && id.back() == ')') {
                const std::string p = id.substr(open + 2, id.size() - open - 3);
                const auto named = kernel_phase_named(p);
                ph = named ? static_cast<int>(*named) : -3;
                id.resize(open);
            }
            if (ph == -3)
                return std::nullopt;
            int cls = -1;
            for (size_t c = 0; c < a->classes.classes.size(); ++c)
                if (a->classes.classes[c].id == id)
                    cls = static_cast<int>(c);
            if (cls < 0)
                return std::nullopt;
            for (size_t i = 0; i < n; ++i)
                if (kc[i] == cls && (ph == -2 || static_cast<int>((*phase)[i]) == ph))
                    rows.push_back(static_cast<uint32_t>(i));
            return rows;
        }
        if (entry.rfind("kernel:", 0) == 0) {
            const std::string_view name = std::string_view(entry).substr(7);
            StrId id = 0;
            bool found = false;
            for (const auto& nc : a->classes.names)
                if (t->str(nc.name) == name) {
                    id = nc.name;
                    found = true;
                    break;
                }
            if (!found)
                return std::nullopt;
            for (size_t i = 0; i < t->kernels.size(); ++i)
                if (t->kernels.name[i] == id)
                    rows.push_back(static_cast<uint32_t>(i));
            return rows;
        }
        return std::nullopt;
    };
    return p;
}

double Ledger::granted_ns() const
{
    double g = 0;
    for (const auto& e : entries)
        g += e.granted_ns;
    return g;
}

const LedgerEntry* Ledger::find(const std::string& key) const
{
    for (const auto& e : entries)
        if (e.key == key)
            return &e;
    return nullptr;
}

Ledger apply_ledger(std::vector<Finding>& findings, const std::vector<MetricScope>& scopes, const RuleSet& rules,
                    const LedgerOptions& opt, const KernelPools* pools)
{
    Ledger L;
    const MetricScope* trace = nullptr;
    double comm_exposed = 0;
    for (const auto& s : scopes) {
        if (s.kind == ScopeKind::Trace && !trace)
            trace = &s;
        if (s.kind == ScopeKind::Device)
            comm_exposed += metric(s, "nccl_ns") * (1.0 - std::clamp(metric(s, "comm_overlap_fraction"), 0.0, 1.0));
    }
    std::map<std::string, LedgerEntry> entries;
    std::map<std::string, double> edge_of;   // the capture-edge idle taken out of each idle entry
    auto add = [&](const std::string& key, double ns) {
        auto& e = entries[key];
        e.key = key;
        e.parent = parent_of(key);
        e.available_ns = std::max(0.0, ns);
    };
    if (trace) {
        const double busy = metric(*trace, "busy_ns"), idle = metric(*trace, "idle_ns");
        L.wall_ns = busy + idle > 0 ? busy + idle : metric(*trace, "trace_wall_ns");
        // The capture's edges leave every idle entry of their cause for idle:edge, which no rule claims.
        const double e_host = metric(*trace, "edge_host_wait_ns"), e_kern = metric(*trace, "edge_kernel_wait_ns"),
                     e_sync = metric(*trace, "edge_sync_wait_ns"), e_other = metric(*trace, "edge_other_wait_ns"),
                     e_dep = metric(*trace, "edge_dependency_wait_ns");
        L.edge_ns = std::clamp(e_host + e_kern + e_sync + e_other + e_dep, 0.0, idle);
        edge_of = {{"idle", L.edge_ns},          {"idle:launch", e_host + e_kern}, {"idle:host", e_host},
                   {"idle:kernel", e_kern},      {"idle:sync", e_sync},            {"idle:other", e_other},
                   {"idle:dependency", e_dep}};
        add("wall", L.wall_ns);
        add("busy", busy);
        add("idle", idle - L.edge_ns);
        if (L.edge_ns > 0)
            add("idle:edge", L.edge_ns);
        const double host = metric(*trace, "host_wait_ns") - e_host, kern = metric(*trace, "kernel_wait_ns") - e_kern;
        add("idle:launch", host + kern);
        add("idle:host", host);
        add("idle:kernel", kern);
        add("idle:sync", metric(*trace, "sync_wait_ns") - e_sync);
        add("idle:other", metric(*trace, "other_wait_ns") - e_other);
        add("idle:dependency", metric(*trace, "dependency_wait_ns") - e_dep);
        add("copy:h2d-exposed", metric(*trace, "h2d_loop_exposed_ns"));
        add("copy:kv-expand", metric(*trace, "kv_expand_ns"));
        add("comm:exposed", comm_exposed);
        // The evidence minimum.
        L.evidence_busy_ns = busy;
        L.evidence_kernels = static_cast<int64_t>(metric(*trace, "kernel_count"));
        L.min_evidence_busy_ns = opt.min_evidence_busy_ns;
        L.min_evidence_kernels = opt.min_evidence_kernels;
        L.thin_evidence = trace->metrics.count("kernel_count") && busy < opt.min_evidence_busy_ns &&
                          L.evidence_kernels < opt.min_evidence_kernels;
        if (L.thin_evidence) {
            char buf[320];
            std::snprintf(buf, sizeof buf,
                          "%.3g ms of GPU work and %lld kernels: below the evidence minimum (%.3g ms or %lld kernels), "
                          "so no finding is above low",
                          busy / 1e6, static_cast<long long>(L.evidence_kernels), opt.min_evidence_busy_ns / 1e6,
                          static_cast<long long>(opt.min_evidence_kernels));
            L.thin_evidence_reason = buf;
        }
    }
    // Each finding's scope through a map (the first scope of a kind and subject, as a scan found it): a scan per
    // finding was quadratic on traces with a scope per device (60,000 devices: 120,000 findings; issue 36 §8).
    std::unordered_map<std::string, const MetricScope*> scope_by;
    scope_by.reserve(scopes.size());
    auto scope_key = [](ScopeKind kind, const std::string& subject) {
        return std::to_string(static_cast<int>(kind)) + '\x1f' + subject;
    };
    for (const auto& s : scopes)
        scope_by.emplace(scope_key(s.kind, s.subject), &s);
    auto scope_of = [&](const Finding& f) -> const MetricScope* {
        const auto it = scope_by.find(scope_key(f.scope, f.subject));
        return it == scope_by.end() ? nullptr : it->second;
    };

    // Claims: what each finding asks for, in ns of the end-to-end basis.
    std::vector<Claim> claims;
    std::vector<bool> drop(findings.size(), false);
    for (size_t i = 0; i < findings.size(); ++i) {
        auto& f = findings[i];
        const MetricScope* s = scope_of(f);
        const Rule* r = rules.find(f.rule);
        Claim c;
        c.finding = i;
        c.entry = r && !r->removes.empty() ? fill_subject(r->removes, f.subject) : "wall";
        // "none": a check that promises no time (a theory/measurement mismatch puts every other number in doubt):
        // it neither claims nor is gated, and keeps the severity its rule gives.
        if (c.entry == "none")
            continue;
        // The scope's time the rule's fraction is a share of.
        const double trace_wall = s ? metric(*s, "trace_wall_ns", L.wall_ns) : L.wall_ns;
        c.basis_ns = trace_wall;
        if (s && (f.scope == ScopeKind::Phase || f.scope == ScopeKind::Device))
            c.basis_ns = metric(*s, "wall_ns", trace_wall);
        const auto& g = f.expected_gain;
        if (g.ns && f.scope != ScopeKind::Phase)
            c.claim = std::max(0.0, *g.ns);
        else
            c.claim = std::max(0.0, g.fraction) * c.basis_ns;
        c.low_ns = g.computed ? c.claim : std::max(0.0, g.low) * c.basis_ns;
        c.high_ns = g.computed ? c.claim : std::max(0.0, g.high) * c.basis_ns;
        if (!entries.count(c.entry)) {
            // kernel:/class: entries: the subject's own time.
            add(c.entry, s ? metric(*s, "total_ns", r && !r->removes_cap.empty() ? metric(*s, r->removes_cap) : 0) : 0);
        }
        const auto& e = entries[c.entry];
        c.cap = e.available_ns;
        if (r && s && !r->removes_cap.empty() && s->metrics.count(r->removes_cap))
            c.cap = std::min(c.cap, std::max(0.0, metric(*s, r->removes_cap)));
        if (c.entry.rfind("idle", 0) == 0 && e.available_ns < opt.gate_fraction * L.wall_ns) {
            char buf[320];
            // A host-blocking call that sat behind a dependency wait: the GPU idled, but on another stream's event
            // (idle:dependency), not on this call; say which, so the sync section's stall and this agree.
            const double behind = trace ? metric(*trace, "sync_dependency_overlap_ns") : 0;
            const double edge = edge_of.count(c.entry) ? edge_of[c.entry] : 0.0;
            if (edge > 0 && e.available_ns + edge >= opt.gate_fraction * L.wall_ns)
                std::snprintf(buf, sizeof buf,
                              "its idle lies at the capture's edge (%.3g ms before the first step or after the last): "
                              "the capture's, not the steady state's; %s is %.3g ms without it",
                              edge / 1e6, c.entry.c_str(), e.available_ns / 1e6);
            else if (c.entry == "idle:sync" && behind > 0)
                std::snprintf(buf, sizeof buf,
                              "the GPU was not waiting on it: while the host blocked here (%.3g ms), the GPU's queued "
                              "work was waiting on another stream's event (dependency wait, see idle:dependency)",
                              behind / 1e6);
            else
                std::snprintf(buf, sizeof buf, "the GPU was not waiting on it: %s is %.3g ms, below %.1f %% of the wall",
                              c.entry.c_str(), e.available_ns / 1e6, opt.gate_fraction * 100.0);
            L.suppressed.push_back({f.rule, f.subject, f.verdict, c.entry, e.available_ns, c.claim, buf});
            drop[i] = true;
            continue;
        }
        claims.push_back(std::move(c));
    }

    // The claims on each entry, in claim order (every loop below visits an entry's claims; scanning all claims per
    // entry was quadratic).
    std::unordered_map<std::string, std::vector<size_t>> claims_on;
    for (size_t ci = 0; ci < claims.size(); ++ci)
        claims_on[claims[ci].entry].push_back(ci);
    static const std::vector<size_t> kNoClaims;
    auto claims_of = [&](const std::string& key) -> const std::vector<size_t>& {
        const auto it = claims_on.find(key);
        return it == claims_on.end() ? kNoClaims : it->second;
    };

    // One claim per kernel: kernel-pool entries over overlapping kernels, taken largest claim first, each keep the
    // kernels no larger claim took; an entry's time, and its claims and caps, shrink to the share of its kernel time
    // still free.
    if (pools && pools->rows) {
        struct Pool {
            std::string key;
            double asked = 0;
            std::vector<uint32_t> rows;
        };
        std::vector<Pool> order;
        for (const auto& [key, e] : entries) {
            (void)e;
            double asked = 0;
            const auto& on_key = claims_of(key);
            for (size_t ci : on_key)
                asked += std::min(claims[ci].claim, claims[ci].cap);
            if (on_key.empty())
                continue;
            auto rows = pools->rows(key);
            if (rows)
                order.push_back({key, asked, std::move(*rows)});
        }
        std::stable_sort(order.begin(), order.end(), [](const Pool& a, const Pool& b) {
            return a.asked != b.asked ? a.asked > b.asked : a.key < b.key;
        });
        std::vector<int32_t> owner(pools->kernel_ns.size(), -1);
        for (size_t pi = 0; pi < order.size(); ++pi) {
            const Pool& p = order[pi];
            double total = 0, taken = 0;
            std::set<int32_t> by;
            for (uint32_t r : p.rows) {
                if (r >= owner.size())
                    continue;
                const double ns = pools->kernel_ns[r];
                total += ns;
                if (owner[r] >= 0) {
                    taken += ns;
                    by.insert(owner[r]);
                } else {
                    owner[r] = static_cast<int32_t>(pi);
                }
            }
            if (total <= 0 || taken <= 0)
                continue;
            const double keep = std::max(0.0, 1.0 - taken / total);
            auto& e = entries[p.key];
            e.overlap_ns = e.available_ns * (1.0 - keep);
            e.available_ns *= keep;
            for (int32_t o : by)
                e.overlaps.push_back(order[static_cast<size_t>(o)].key);
            for (size_t ci : claims_of(p.key)) {
                Claim& c = claims[ci];
                c.claim *= keep;
                c.cap *= keep;
                c.low_ns *= keep;
                c.high_ns *= keep;
            }
        }
    }

    // Settle entries deepest first; claims on one entry share what is left of it and of every entry above it.
    std::vector<std::string> keys;
    for (const auto& [k, e] : entries)
        keys.push_back(k);
    std::stable_sort(keys.begin(), keys.end(),
                     [](const std::string& a, const std::string& b) { return depth_of(a) > depth_of(b); });
    for (const auto& key : keys) {
        double left = 1e300;
        for (std::string k = key; !k.empty(); k = parent_of(k)) {
            auto it = entries.find(k);
            if (it != entries.end())
                left = std::min(left, it->second.available_ns - it->second.consumed_ns);
        }
        left = std::max(0.0, left);
        double asked = 0;
        std::vector<Claim*> on;
        for (size_t ci : claims_of(key)) {
            Claim& c = claims[ci];
            c.bound = std::min(c.cap, left);
            asked += std::min(c.claim, c.bound);
            on.push_back(&c);
        }
        if (asked <= 0)
            continue;
        // The larger claim keeps what the findings on one entry share (views of the same nanoseconds): each is granted
        // what it asks of what the larger ones left; equal claims go to the narrower scope (a phase's before the
        // trace's), then in ranking order.
        std::stable_sort(on.begin(), on.end(), [&](const Claim* a, const Claim* b) {
            const double x = std::min(a->claim, a->bound), y = std::min(b->claim, b->bound);
            if (x != y)
                return x > y;
            return static_cast<int>(findings[a->finding].scope) > static_cast<int>(findings[b->finding].scope);
        });
        double granted = 0, rest = left;
        auto& e = entries[key];
        for (Claim* c : on) {
            c->granted = std::max(0.0, std::min({c->claim, c->bound, rest}));
            rest -= c->granted;
            granted += c->granted;
            e.findings.push_back(findings[c->finding].rule + " @ " + findings[c->finding].subject);
        }
        e.claimed_ns += asked;
        e.granted_ns += granted;
        for (std::string k = key; !k.empty(); k = parent_of(k))
            if (auto it = entries.find(k); it != entries.end())
                it->second.consumed_ns += granted;
    }

    // Write the bounded gains back.
    for (const auto& c : claims) {
        auto& f = findings[c.finding];
        auto& g = f.expected_gain;
        const MetricScope* s = scope_of(f);
        TimeClaim t;
        t.entry = c.entry;
        t.available_ns = entries[c.entry].available_ns;
        t.cap_ns = c.cap;
        t.claimed_ns = c.claim;
        t.granted_ns = c.granted;
        t.wall_ns = L.wall_ns;
        t.unbounded_fraction = g.fraction;
        t.rule_severity = f.severity;
        t.overlap_ns = entries[c.entry].overlap_ns;
        t.overlaps = entries[c.entry].overlaps;
        const double w = L.wall_ns > 0 ? L.wall_ns : 1.0;
        g.fraction = c.granted / w;
        g.ns = c.granted;
        if (g.computed) {
            g.low = g.high = g.fraction;
        } else {
            g.low = std::min(c.low_ns, c.granted) / w;
            g.high = std::max(g.low, std::min(c.high_ns, c.bound) / w);
        }
        double bound_for_suggestions = g.high;
        if (s && f.scope == ScopeKind::Phase) {
            const double steps = metric(*s, "step_count");
            if (steps > 0) {
                t.per_step_ns = c.granted / steps;
                const double step = metric(*s, "tpot_median_ns", metric(*s, "wall_ns") / steps);
                if (step > 0) {
                    t.step_fraction = *t.per_step_ns / step;
                    bound_for_suggestions = std::max(*t.step_fraction, std::min(c.high_ns, c.bound) / steps / step);
                }
            }
        }
        // One number: the rule's remedy — its first suggestion that promises a gain — removes the time the trace
        // measured, so when the gain is computed its range ends at the bounded gain (the number the headline says,
        // above or below the rule's generic range); every other suggestion is capped by it.
        bool primary_done = false;
        for (auto& sg : f.suggestions) {
            const bool primary = !primary_done && sg.gain_high > 0;
            primary_done = primary_done || primary;
            if (primary && g.computed)
                sg.gain_high = bound_for_suggestions;
            else
                sg.gain_high = std::min(sg.gain_high, bound_for_suggestions);
            sg.gain_low = std::min(sg.gain_low, sg.gain_high);
        }
        {
            const Rule* r = rules.find(f.rule);
            f.severity = ledger_severity(f.severity, g.fraction, f.confidence.value, g.computed,
                                         r && r->kind == "check", opt);
        }
        g.basis += (g.basis.empty() ? "" : "; ") + std::string("bounded by ") + c.entry;
        g.ledger = t;
    }
    std::vector<Finding> kept;
    kept.reserve(findings.size());
    for (size_t i = 0; i < findings.size(); ++i)
        if (!drop[i])
            kept.push_back(std::move(findings[i]));
    findings = std::move(kept);
    // Below the evidence minimum nothing is above low, checks included.
    if (L.thin_evidence)
        for (auto& f : findings)
            if (f.severity == Severity::High || f.severity == Severity::Medium) {
                f.severity = Severity::Low;
                auto& basis = f.expected_gain.basis;
                basis += (basis.empty() ? "" : "; ") + std::string("severity capped at low: ") + L.thin_evidence_reason;
            }
    rank_findings(findings);

    // Entries in tree order (parents first), only those with time or claims.
    std::vector<std::string> order = keys;
    std::stable_sort(order.begin(), order.end(),
                     [](const std::string& a, const std::string& b) { return depth_of(a) < depth_of(b); });
    for (const auto& k : order)
        L.entries.push_back(entries[k]);
    return L;
}

nlohmann::json ledger_to_json(const Ledger& l)
{
    using nlohmann::json;
    json entries = json::array();
    for (const auto& e : l.entries)
        entries.push_back(json{{"key", e.key},
                               {"parent", e.parent},
                               {"available_ns", e.available_ns},
                               {"claimed_ns", e.claimed_ns},
                               {"granted_ns", e.granted_ns},
                               {"findings", e.findings},
                               {"overlap_ns", e.overlap_ns},
                               {"overlaps", e.overlaps}});
    json sup = json::array();
    for (const auto& s : l.suppressed)
        sup.push_back(json{{"rule", s.rule},
                           {"subject", s.subject},
                           {"verdict", s.verdict},
                           {"time", s.entry},
                           {"available_ns", s.available_ns},
                           {"claimed_ns", s.claimed_ns},
                           {"reason", s.reason}});
    const json evidence{{"thin", l.thin_evidence},
                        {"reason", l.thin_evidence_reason.empty() ? json() : json(l.thin_evidence_reason)},
                        {"busy_ns", l.evidence_busy_ns},
                        {"kernels", l.evidence_kernels},
                        {"min_busy_ns", l.min_evidence_busy_ns},
                        {"min_kernels", l.min_evidence_kernels}};
    return json{{"wall_ns", l.wall_ns}, {"granted_ns", l.granted_ns()}, {"edge_ns", l.edge_ns},
                {"evidence", evidence},  {"entries", entries},         {"suppressed", sup}};
}

} // namespace sl
