#include "analysis/diagnosis/findings.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "analysis/io/input_bounds.h"
#include "analysis/roofline/roofline.h"

namespace sl {

const char* scope_kind_name(ScopeKind k)
{
    switch (k) {
    case ScopeKind::Trace: return "trace";
    case ScopeKind::Device: return "device";
    case ScopeKind::Phase: return "phase";
    case ScopeKind::OpClass: return "op_class";
    case ScopeKind::Kernel: return "kernel";
    case ScopeKind::NcuLaunch: return "ncu_launch";
    case ScopeKind::HostCause: return "host_cause";
    }
    return "trace";
}

std::optional<ScopeKind> parse_scope_kind(std::string_view s)
{
    if (s == "trace") return ScopeKind::Trace;
    if (s == "device") return ScopeKind::Device;
    if (s == "phase") return ScopeKind::Phase;
    if (s == "op_class" || s == "operator_class") return ScopeKind::OpClass;
    if (s == "kernel") return ScopeKind::Kernel;
    if (s == "ncu_launch" || s == "ncu") return ScopeKind::NcuLaunch;
    if (s == "host_cause") return ScopeKind::HostCause;
    return std::nullopt;
}

std::string verify_for(const std::string& verify, std::string_view lang)
{
    if (lang.rfind("zh", 0) != 0)
        return verify;
    // The placeholders a verify command may hold (verify_command.h writes the torch.profiler ones), in Chinese.
    static const std::pair<std::string_view, std::string_view> kWords[] = {
        {"<your inference command>", "<你的推理命令>"},
        {"<your command under torch.profiler, saving after.pt.trace.json.gz>",
         "<在 torch.profiler 下运行你的命令，保存为 after.pt.trace.json.gz>"},
        {"<run `", "<在 torch.profiler 下运行 `"},
        {"` under torch.profiler, saving after.pt.trace.json.gz>", "`，保存为 after.pt.trace.json.gz>"},
    };
    std::string out = verify;
    for (const auto& [en, zh] : kWords)
        for (size_t at = out.find(en); at != std::string::npos; at = out.find(en, at + zh.size()))
            out.replace(at, en.size(), zh);
    return out;
}

const char* severity_name(Severity s)
{
    switch (s) {
    case Severity::Info: return "info";
    case Severity::Low: return "low";
    case Severity::Medium: return "medium";
    case Severity::High: return "high";
    }
    return "info";
}

std::optional<Severity> parse_severity(std::string_view s)
{
    if (s == "info") return Severity::Info;
    if (s == "low") return Severity::Low;
    if (s == "medium") return Severity::Medium;
    if (s == "high") return Severity::High;
    return std::nullopt;
}

const std::vector<std::string>& verdict_vocabulary()
{
    static const std::vector<std::string> v = {
        "launch-bound", "host-bound", "sync-bound", "idle-gaps", "compute-underused", "low-occupancy",
        "memory-bound", "latency-bound", "bank-conflict", "communication-bound", "pageable-memcpy",
        "synchronous-memcpy", "weight-streaming", "low-roofline-efficiency", "kv-cache-bound", "low-utilization",
        "theory-measurement-mismatch",
        // trace-level verdicts of the headline (headline.h)
        "compute-bound", "balanced", "unknown",
        // H2D copies the GPU waits for (not weights)
        "copy-exposed",
        // a whole buffer rewritten every step: the KV cache expanded to the query heads (roofline/kv_expand.h)
        "buffer-rewrite",
        // one rank starts its collectives late and the others wait for it (collectives.h)
        "straggler",
        // the GPU idles while the host compiles, autotunes, loads modules or allocates (timeline/host_causes.h)
        "compilation", "autotuning", "module-loading", "allocator-stall",
        // an MoE model's expert GEMMs and routing take most of the GPU time (workload.h, MoE)
        "moe-bound",
        // idle at the capture's edges, not the steady state's (timeline/capture_edge.h)
        "capture-edge"};
    return v;
}

bool is_known_verdict(std::string_view v)
{
    const auto& voc = verdict_vocabulary();
    return std::find(voc.begin(), voc.end(), v) != voc.end();
}

std::string confidence_label(double v)
{
    if (v >= 0.7) return "high";
    if (v >= 0.4) return "medium";
    return "low";
}

void rank_findings(std::vector<Finding>& findings)
{
    std::stable_sort(findings.begin(), findings.end(), [](const Finding& a, const Finding& b) {
        // A theory/measurement mismatch (step 2 of the loop, resources/rules/retest.json) puts every other number
        // in doubt: it comes first whatever its gain.
        const bool fa = a.verdict == "theory-measurement-mismatch", fb = b.verdict == "theory-measurement-mismatch";
        if (fa != fb) return fa;
        const double sa = a.rank_score(), sb = b.rank_score();
        if (sa != sb) return sa > sb;
        if (a.severity != b.severity) return a.severity > b.severity;
        if (a.rule != b.rule) return a.rule < b.rule;
        return a.subject < b.subject;
    });
}

namespace {

constexpr std::string_view kNcuOpen = " (ncu #";

} // namespace

std::string ncu_launch_subject(std::string_view kernel, int64_t id)
{
    std::string s(kernel);
    s += kNcuOpen;
    s += std::to_string(id);
    s += ')';
    return s;
}

std::optional<NcuLaunchRef> parse_ncu_launch_subject(std::string_view subject)
{
    const size_t at = subject.rfind(kNcuOpen);
    if (at == std::string_view::npos || subject.back() != ')')
        return std::nullopt;
    const std::string_view id = subject.substr(at + kNcuOpen.size(), subject.size() - at - kNcuOpen.size() - 1);
    NcuLaunchRef r;
    const auto [end, ec] = std::from_chars(id.data(), id.data() + id.size(), r.id);
    if (id.empty() || ec != std::errc() || end != id.data() + id.size())
        return std::nullopt;
    r.kernel = std::string(subject.substr(0, at));
    return r;
}

namespace {

void replace_all(std::string& s, const std::string& from, const std::string& to)
{
    if (from.empty())
        return;
    for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
        s.replace(at, from.size(), to);
}

} // namespace

void merge_ncu_launch_findings(std::vector<Finding>& findings)
{
    struct Group {
        size_t first = 0, best = 0, count = 0;
        std::vector<int64_t> kernels;
    };
    std::map<std::pair<std::string, std::string>, Group> groups;
    std::vector<std::pair<std::string, std::string>> key_of(findings.size());
    for (size_t i = 0; i < findings.size(); ++i) {
        const Finding& f = findings[i];
        if (f.scope != ScopeKind::NcuLaunch)
            continue;
        const auto launch = parse_ncu_launch_subject(f.subject);
        if (!launch)
            continue;
        key_of[i] = {f.rule, launch->kernel};
        auto [it, fresh] = groups.try_emplace(key_of[i]);
        Group& g = it->second;
        if (fresh)
            g.first = g.best = i;
        else if (f.rank_score() > findings[g.best].rank_score())
            g.best = i;
        ++g.count;
        for (int64_t k : f.links.kernel_ids)
            if (std::find(g.kernels.begin(), g.kernels.end(), k) == g.kernels.end())
                g.kernels.push_back(k);
    }
    std::vector<Finding> out;
    out.reserve(findings.size());
    for (size_t i = 0; i < findings.size(); ++i) {
        if (key_of[i].first.empty()) {
            out.push_back(std::move(findings[i]));
            continue;
        }
        const Group& g = groups.at(key_of[i]);
        if (i != g.first)
            continue;   // the group's place is its first finding's
        Finding f = std::move(findings[g.best]);
        if (g.count > 1) {
            NcuLaunchRef launch = *parse_ncu_launch_subject(f.subject);
            const std::string& name = launch.kernel;
            const std::string id = std::to_string(launch.id);
            const std::string more = std::to_string(g.count - 1);
            const std::string en_tail = " (ncu #" + id + " and " + more + " more launch" + (g.count > 2 ? "es" : "") + ")";
            const std::string zh_tail = "（ncu #" + id + " 等 " + std::to_string(g.count) + " 次启动）";
            const std::string en = name + en_tail;
            // Texts name the kernel by its short name (bind_metrics) or, where it has none, by the subject.
            const std::string shown = kernel_display_name(name);
            const std::string shown_subject = ncu_launch_subject(shown, launch.id);
            for (LocalText* t : {&f.title, &f.explanation}) {
                replace_all(t->en, f.subject, en);
                replace_all(t->zh_CN, f.subject, name + zh_tail);
                if (shown != name) {
                    replace_all(t->en, shown_subject, shown + en_tail);
                    replace_all(t->zh_CN, shown_subject, shown + zh_tail);
                }
            }
            f.subject = en;
            launch.launches = static_cast<int64_t>(g.count);
            f.ncu_launch = std::move(launch);
            f.links.kernel_ids = g.kernels;
            Evidence e;
            e.metric = "ncu_launches_flagged";
            e.value = double(g.count);
            e.source = "ncu";
            f.evidence.push_back(std::move(e));
        }
        out.push_back(std::move(f));
    }
    findings = std::move(out);
}

std::optional<Severity> max_severity(const std::vector<Finding>& findings)
{
    std::optional<Severity> m;
    for (const auto& f : findings)
        if (!m || f.severity > *m)
            m = f.severity;
    return m;
}

static bool ends_with(std::string_view s, std::string_view p)
{
    return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}

static std::string fmt(const char* f, double v)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, f, v);
    return buf;
}

static std::string format_ns(double ns)
{
    const double a = std::fabs(ns);
    if (a >= 1e9) return fmt("%.3g s", ns / 1e9);
    if (a >= 1e6) return fmt("%.3g ms", ns / 1e6);
    if (a >= 1e3) return fmt("%.3g µs", ns / 1e3);
    return fmt("%.0f ns", ns);
}

std::string format_metric(std::string_view name, double v)
{
    if (!std::isfinite(v)) return "n/a";
    if (ends_with(name, "_ns")) return format_ns(v);
    if (ends_with(name, "_us")) return format_ns(v * 1e3);
    if (ends_with(name, "_ms")) return format_ns(v * 1e6);
    if (ends_with(name, "_pct")) return fmt("%.1f %%", v);
    if (name == "e_roof" || ends_with(name, "_e_roof")) return fmt("%.2f", v);
    if (ends_with(name, "_fraction") || ends_with(name, "_rate") || ends_with(name, "_ratio") ||
        ends_with(name, "_utilization") || ends_with(name, "_share") || name == "achieved_occupancy" ||
        name == "theoretical_occupancy" || name == "utilization")
        return fmt("%.1f %%", v * 100.0);
    if (ends_with(name, "_bytes")) {
        if (std::fabs(v) >= 1e9) return fmt("%.3g GB", v / 1e9);
        if (std::fabs(v) >= 1e6) return fmt("%.3g MB", v / 1e6);
        if (std::fabs(v) >= 1e3) return fmt("%.3g kB", v / 1e3);
        return fmt("%.0f B", v);
    }
    return format_number(v);
}

std::string format_number(double v)
{
    // For people: three significant digits below 100 ("14.9", "0.27"), whole numbers above ("436", "12345"),
    // never an exponent in the range a rule prints.
    if (!std::isfinite(v)) return "n/a";
    if (v == std::floor(v) && std::fabs(v) < 1e15) return fmt("%.0f", v);
    if (std::fabs(v) >= 100 && std::fabs(v) < 1e15) return fmt("%.0f", v);
    if (std::fabs(v) >= 1e-4 || v == 0) return fmt("%.3g", v);   // "0.000947", as %g writes it down to 1e-4
    return fmt("%.2e", v);
}

static nlohmann::json text_json(const LocalText& t)
{
    return nlohmann::json{{"en", t.en}, {"zh_CN", t.zh_CN}};
}

nlohmann::json finding_to_json(const Finding& f)
{
    using nlohmann::json;
    json ev = json::array();
    for (const auto& e : f.evidence) {
        json j{{"metric", e.metric}, {"value", std::isfinite(e.value) ? json(e.value) : json()},
               {"display", format_metric(e.metric, e.value)}, {"source", e.source}};
        j["op"] = e.op.empty() ? json() : json(e.op);
        j["threshold"] = e.threshold ? json(*e.threshold) : json();
        ev.push_back(std::move(j));
    }
    json sug = json::array();
    for (const auto& s : f.suggestions)
        sug.push_back(json{{"id", f.rule + "/" + s.id},
                           {"text", text_json(s.text)},
                           {"expected_gain", json{{"low", s.gain_low}, {"high", s.gain_high}}},
                           {"risk", s.risk},
                           {"verify", s.verify},
                           {"metric", s.metric.empty() ? json() : json(s.metric)},
                           {"direction", s.direction.empty() ? json() : json(s.direction)}});
    const auto& g = f.expected_gain;
    json gain{{"fraction", g.fraction}, {"low", g.low}, {"high", g.high}, {"computed", g.computed},
              {"basis", g.basis}};
    gain["ns"] = g.ns ? json(*g.ns) : json();
    if (g.ledger) {
        const auto& l = *g.ledger;
        json rm{{"time", l.entry},
                {"available_ns", l.available_ns},
                {"cap_ns", l.cap_ns},
                {"claimed_ns", l.claimed_ns},
                {"granted_ns", l.granted_ns},
                {"wall_ns", l.wall_ns},
                {"unbounded_fraction", l.unbounded_fraction},
                {"rule_severity", severity_name(l.rule_severity)}};
        rm["per_step_ns"] = l.per_step_ns ? json(*l.per_step_ns) : json();
        rm["step_fraction"] = l.step_fraction ? json(*l.step_fraction) : json();
        rm["overlap_ns"] = l.overlap_ns;
        rm["overlaps"] = l.overlaps;
        gain["removes"] = rm;
    }
    const auto& c = f.confidence;
    json conf{{"level", c.label}, {"value", c.value}, {"prior", c.prior}, {"data_quality", c.data_quality},
              {"kb_factor", c.kb_factor}, {"reasons", c.reasons}};
    json ranges = json::array();
    for (const auto& r : f.links.time_ranges)
        ranges.push_back(json{{"start_ns", r.start}, {"end_ns", r.end}, {"label", r.label}});
    json links{{"kernel_ids", f.links.kernel_ids}, {"time_ranges", ranges}, {"nvtx_ranges", f.links.nvtx_ranges}};
    json out{{"rule", f.rule},
             {"verdict", f.verdict},
             {"severity", severity_name(f.severity)},
             {"scope", scope_kind_name(f.scope)},
             {"subject", f.subject},
             {"title", text_json(f.title)},
             {"explanation", text_json(f.explanation)},
             {"confidence", conf},
             {"expected_gain", gain},
             {"evidence", ev},
             {"suggestions", sug},
             {"links", links},
             {"references", f.references}};
    if (f.ncu_launch)
        out["ncu_launch"] = json{{"kernel", f.ncu_launch->kernel}, {"id", f.ncu_launch->id},
                                 {"launches", f.ncu_launch->launches}};
    return out;
}

nlohmann::json findings_to_json(const std::vector<Finding>& findings)
{
    nlohmann::json a = nlohmann::json::array();
    for (const auto& f : findings)
        a.push_back(finding_to_json(f));
    return a;
}

std::string suggestion_gain_range(double low, double high)
{
    const double lo = std::round(low * 100), hi = std::round(high * 100);
    if (hi <= 0 && lo <= 0)
        return "";
    if (lo == hi)
        return fmt("%.0f %%", hi);
    return fmt("%.0f", lo) + "–" + fmt("%.0f %%", hi);
}

// "(gain 15–35 %, risk low)", "(gain 15 %, risk medium)", "(no direct gain, risk low)".
static std::string suggestion_gain_note(const Suggestion& s)
{
    const std::string g = suggestion_gain_range(s.gain_low, s.gain_high);
    return "(" + (g.empty() ? std::string("no direct gain") : "gain " + g) + ", risk " + s.risk + ")";
}

static std::string gain_text(const ExpectedGain& g)
{
    std::string s;
    if (g.computed)
        s = fmt("%.1f %%", g.fraction * 100.0);
    else
        s = fmt("%.0f", g.low * 100.0) + "–" + fmt("%.0f %%", g.high * 100.0);
    if (g.ns)
        s += " (" + format_ns(*g.ns) + ")";
    if (g.ledger) {
        const auto& l = *g.ledger;
        if (l.per_step_ns)
            s += ", " + format_ns(*l.per_step_ns) + " per step" +
                 (l.step_fraction ? fmt(" (%.1f %% of the step)", *l.step_fraction * 100.0) : std::string());
        s += " of wall time; removes " + l.entry + " (" + format_ns(l.available_ns) + " in the trace";
        if (l.overlap_ns > 0 && !l.overlaps.empty()) {
            // One claim per kernel: a larger claim on overlapping kernels took this share first (ledger.h).
            std::string by;
            for (const auto& o : l.overlaps)
                by += (by.empty() ? "" : ", ") + o;
            s += ", and " + format_ns(l.overlap_ns) + " of its kernels counted under " + by;
        }
        s += ")";
    }
    return s;
}

static std::string evidence_text(const Evidence& e)
{
    std::string s = e.metric + " = " + format_metric(e.metric, e.value);
    if (e.threshold)
        s += " (" + e.op + " " + format_metric(e.metric, *e.threshold) + ")";
    if (!e.source.empty())
        s += " [" + e.source + "]";
    return s;
}

// The texts of a finding come from rule files (the user's folder is anyone's) filled with names: each is escaped by
// the one rule of terminal_safe, so no rule text or name prints a line of its own.
std::string findings_to_text(const std::vector<Finding>& findings, std::string_view lang)
{
    std::ostringstream o;
    if (findings.empty()) {
        o << "No findings.\n";
        return o.str();
    }
    int i = 0;
    for (const auto& f : findings) {
        o << ++i << ". [" << severity_name(f.severity) << "] " << terminal_safe(f.title.get(lang)) << "\n";
        o << "   rule " << terminal_safe(f.rule) << ", verdict " << terminal_safe(f.verdict) << ", " << scope_kind_name(f.scope) << " '"
          << terminal_safe(f.subject) << "'\n";
        o << "   expected gain " << gain_text(f.expected_gain) << ", confidence " << f.confidence.label << " ("
          << fmt("%.2f", f.confidence.value) << ")\n";
        for (const auto& r : f.confidence.reasons)
            o << "     - " << r << "\n";
        if (!f.explanation.get(lang).empty())
            o << "   " << terminal_safe(f.explanation.get(lang)) << "\n";
        for (const auto& e : f.evidence)
            o << "   evidence: " << evidence_text(e) << "\n";
        for (const auto& s : f.suggestions) {
            o << "   -> " << terminal_safe(s.text.get(lang)) << " " << suggestion_gain_note(s) << "\n";
            if (!s.verify.empty())
                o << "      verify: " << terminal_safe(s.verify) << "\n";
        }
    }
    return o.str();
}

std::string findings_to_markdown(const std::vector<Finding>& findings, std::string_view lang)
{
    std::ostringstream o;
    o << "## Findings\n\n";
    if (findings.empty()) {
        o << "No findings.\n";
        return o.str();
    }
    o << "| # | severity | verdict | subject | expected gain | confidence |\n|---|---|---|---|---|---|\n";
    int i = 0;
    for (const auto& f : findings)
        o << "| " << ++i << " | " << severity_name(f.severity) << " | " << terminal_safe(f.verdict) << " | " << terminal_safe(f.subject) << " | "
          << gain_text(f.expected_gain) << " | " << f.confidence.label << " (" << fmt("%.2f", f.confidence.value)
          << ") |\n";
    o << "\n";
    i = 0;
    for (const auto& f : findings) {
        o << "### " << ++i << ". " << terminal_safe(f.title.get(lang)) << "\n\n";
        o << "Rule `" << terminal_safe(f.rule) << "` on " << scope_kind_name(f.scope) << " `" << terminal_safe(f.subject) << "`. "
          << terminal_safe(f.explanation.get(lang)) << "\n\n";
        for (const auto& e : f.evidence)
            o << "- " << evidence_text(e) << "\n";
        for (const auto& r : f.confidence.reasons)
            o << "- confidence: " << r << "\n";
        o << "\n";
        for (const auto& s : f.suggestions) {
            o << "- **" << terminal_safe(s.text.get(lang)) << "** " << suggestion_gain_note(s);
            if (!s.verify.empty())
                o << " — verify: `" << terminal_safe(s.verify) << "`";
            o << "\n";
        }
        o << "\n";
    }
    return o.str();
}

} // namespace sl
