#include "analysis/diagnosis/scope_text.h"
#include "analysis/diagnosis/rules.h"
#include "analysis/diagnosis/ncu_target.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include <muParser.h>
#include <nlohmann/json.hpp>

#include "analysis/io/input_bounds.h"
#include "analysis/trace/errors.h"
#include "analysis/io/resources.h"
#include "analysis/io/regex.h"
#include "analysis/io/json_input.h"

namespace sl {

namespace fs = std::filesystem;
using nlohmann::json;

const Rule* RuleSet::find(std::string_view id) const
{
    for (const auto& r : rules)
        if (r.id == id)
            return &r;
    return nullptr;
}

std::string shipped_rules_dir() { return resource_path("rules"); }

std::string default_user_rules_dir()
{
    if (const char* x = std::getenv("XDG_CONFIG_HOME"); x && *x)
        return (fs::path(x) / "sightline" / "rules").string();
    if (const char* h = std::getenv("HOME"); h && *h)
        return (fs::path(h) / ".config" / "sightline" / "rules").string();
    return {};
}

// ---- muparser helpers ------------------------------------------------------------------------------------------

static double logical_not(double v) { return v == 0.0 ? 1.0 : 0.0; }

namespace {
// Collects the variables an expression uses: every unknown name gets a slot in a deque-like store.
struct VarCollector {
    std::vector<std::unique_ptr<double>> slots;
};
} // namespace

static double* collect_var(const char* /*name*/, void* user)
{
    auto* c = static_cast<VarCollector*>(user);
    c->slots.push_back(std::make_unique<double>(0.0));
    return c->slots.back().get();
}

static void setup_parser(mu::Parser& p)
{
    p.DefineInfixOprt("!", logical_not);
}

static std::string mu_error(const mu::Parser::exception_type& e)
{
    std::ostringstream o;
    o << e.GetMsg();
    if (!e.GetToken().empty())
        o << " (token '" << e.GetToken() << "'";
    else
        o << " (";
    o << " at position " << e.GetPos() << ")";
    return o.str();
}

// Returns the names used by expr; throws std::runtime_error naming `what` on a syntax error.
static std::vector<std::string> used_variables(const std::string& expr, const std::string& what)
{
    VarCollector c;
    mu::Parser p;
    setup_parser(p);
    p.SetVarFactory(collect_var, &c);
    std::vector<std::string> out;
    try {
        p.SetExpr(expr);
        for (const auto& [name, ptr] : p.GetUsedVar())
            out.push_back(name);
        p.Eval();
    } catch (const mu::Parser::exception_type& e) {
        throw std::runtime_error(what + " '" + expr + "': " + mu_error(e));
    }
    return out;
}

// ---- parsing -----------------------------------------------------------------------------------------------------

static LocalText parse_text(const json& j, const std::string& what, bool required)
{
    LocalText t;
    if (j.is_null()) {
        if (required)
            throw std::runtime_error("missing " + what);
        return t;
    }
    if (j.is_string()) {
        t.en = j.get<std::string>();
    } else if (j.is_object()) {
        if (j.contains("en")) {
            if (!j["en"].is_string())
                throw std::runtime_error(what + ".en must be a string");
            t.en = j["en"].get<std::string>();
        }
        for (const char* k : {"zh_CN", "zh"})
            if (j.contains(k)) {
                if (!j[k].is_string())
                    throw std::runtime_error(what + "." + k + " must be a string");
                t.zh_CN = j[k].get<std::string>();
            }
    } else {
        throw std::runtime_error(what + " must be a string or {\"en\": ..., \"zh_CN\": ...}");
    }
    if (required && t.en.empty())
        throw std::runtime_error("missing English text in " + what);
    return t;
}

static std::pair<double, double> parse_range(const json& j, const std::string& what)
{
    if (!j.is_array() || j.size() != 2 || !j[0].is_number() || !j[1].is_number())
        throw std::runtime_error(what + " must be [low, high] numbers");
    double lo = j[0].get<double>(), hi = j[1].get<double>();
    if (lo > hi)
        throw std::runtime_error(what + ": low > high");
    return {lo, hi};
}

static std::string get_string(const json& j, const char* key, const std::string& def = {})
{
    if (!j.contains(key) || j[key].is_null())
        return def;
    if (!j[key].is_string())
        throw std::runtime_error(std::string("'") + key + "' must be a string");
    return j[key].get<std::string>();
}

std::optional<SuggestionForm> resolve_suggestion_form(const RuleSuggestion& s, const std::string& vendor)
{
    SuggestionForm neutral{s.text, s.verify};
    if (s.forms.empty() && s.no_form_for.empty())
        return neutral;
    auto fill = [&](SuggestionForm f) {
        if (f.text.en.empty())
            f.text = s.text;
        if (f.verify.empty())
            f.verify = s.verify;
        return f;
    };
    if (!vendor.empty()) {
        if (auto it = s.forms.find(vendor); it != s.forms.end())
            return fill(it->second);
        return std::nullopt;   // a vendor without a form: the suggestion does not apply to its traces
    }
    if (!s.text.en.empty())
        return neutral;
    if (auto it = s.forms.find("NVIDIA"); it != s.forms.end())
        return fill(it->second);
    if (!s.forms.empty())
        return fill(s.forms.begin()->second);
    return std::nullopt;
}

Rule parse_rule(const json& j, const std::string& file)
{
    if (!j.is_object())
        throw std::runtime_error("a rule must be a JSON object");
    Rule r;
    r.file = file;
    r.id = get_string(j, "id");
    if (r.id.empty())
        throw std::runtime_error("missing 'id'");
    const std::string scope = get_string(j, "scope");
    auto sk = parse_scope_kind(scope);
    if (!sk)
        throw std::runtime_error("unknown scope '" + scope +
                                 "' (expected trace, device, phase, op_class, kernel, ncu_launch or host_cause)");
    r.scope = *sk;
    r.condition = get_string(j, "condition");
    if (r.condition.empty())
        throw std::runtime_error("missing 'condition'");
    r.variables = used_variables(r.condition, "condition");
    if (r.variables.empty())
        throw std::runtime_error("condition '" + r.condition + "' uses no metric");
    const std::string sev = get_string(j, "severity", "medium");
    auto sv = parse_severity(sev);
    if (!sv)
        throw std::runtime_error("unknown severity '" + sev + "' (expected high, medium, low or info)");
    r.severity = *sv;
    r.verdict = get_string(j, "verdict");
    if (!is_known_verdict(r.verdict))
        throw std::runtime_error("unknown verdict '" + r.verdict + "' (see resources/schemas/findings.md)");
    if (j.contains("prior")) {
        if (!j["prior"].is_number())
            throw std::runtime_error("'prior' must be a number");
        r.prior = j["prior"].get<double>();
        if (!(r.prior > 0 && r.prior <= 1))
            throw std::runtime_error("'prior' must be in (0, 1]");
    }
    r.title = parse_text(j.value("title", json()), "title", true);
    r.explanation = parse_text(j.value("explanation", json()), "explanation", false);
    r.gain_low = 0.01;
    r.gain_high = 0.05;
    if (j.contains("gain")) {
        const json& g = j["gain"];
        if (!g.is_object())
            throw std::runtime_error("'gain' must be an object {expr, ns, range}");
        r.gain_expr = get_string(g, "expr");
        r.gain_ns_expr = get_string(g, "ns");
        if (g.contains("range"))
            std::tie(r.gain_low, r.gain_high) = parse_range(g["range"], "gain.range");
        std::set<std::string> gv;
        if (!r.gain_expr.empty())
            for (auto& v : used_variables(r.gain_expr, "gain.expr"))
                gv.insert(v);
        if (!r.gain_ns_expr.empty())
            for (auto& v : used_variables(r.gain_ns_expr, "gain.ns"))
                gv.insert(v);
        r.gain_variables.assign(gv.begin(), gv.end());
    }
    if (j.contains("removes")) {   // {"time": ledger entry, "cap": metric} (diagnosis/ledger.h)
        const json& rm = j["removes"];
        if (!rm.is_object() || !rm.contains("time") || !rm["time"].is_string())
            throw std::runtime_error("'removes' must be an object {\"time\": ledger entry, \"cap\": metric}");
        r.removes = rm["time"].get<std::string>();
        r.removes_cap = get_string(rm, "cap");
    }
    r.kind = get_string(j, "kind", r.removes == "none" ? "check" : "remedy");
    if (r.kind != "remedy" && r.kind != "check")
        throw std::runtime_error("unknown kind '" + r.kind + "' (expected remedy or check)");
    if (j.contains("suggestions")) {
        if (!j["suggestions"].is_array())
            throw std::runtime_error("'suggestions' must be an array");
        std::set<std::string> ids;
        for (const auto& sj : j["suggestions"]) {
            if (!sj.is_object())
                throw std::runtime_error("a suggestion must be an object");
            RuleSuggestion s;
            s.id = get_string(sj, "id");
            if (s.id.empty())
                throw std::runtime_error("a suggestion has no 'id'");
            if (!ids.insert(s.id).second)
                throw std::runtime_error("duplicate suggestion id '" + s.id + "'");
            const bool has_forms = sj.contains("forms");
            // With forms, the neutral text is optional (each form may carry its own).
            if (!has_forms || sj.contains("text"))
                s.text = parse_text(sj.value("text", json()), "suggestion '" + s.id + "' text", true);
            if (has_forms) {
                const json& f = sj["forms"];
                if (!f.is_object() || f.empty())
                    throw std::runtime_error("suggestion '" + s.id +
                                             "': 'forms' must be an object {\"NVIDIA\": {...}, \"AMD\": {...}}");
                for (auto it = f.begin(); it != f.end(); ++it) {
                    const std::string& v = it.key();
                    if (v != "NVIDIA" && v != "AMD")
                        throw std::runtime_error("suggestion '" + s.id + "': unknown vendor '" + v +
                                                 "' in forms (expected NVIDIA or AMD)");
                    if (it.value().is_null()) {   // deliberately no form: not shown on this vendor's traces
                        s.no_form_for.push_back(v);
                        continue;
                    }
                    if (!it.value().is_object())
                        throw std::runtime_error("suggestion '" + s.id + "': forms." + v +
                                                 " must be an object {text, verify} or null");
                    SuggestionForm form;
                    if (it.value().contains("text"))
                        form.text = parse_text(it.value()["text"], "suggestion '" + s.id + "' forms." + v + ".text",
                                               true);
                    form.verify = get_string(it.value(), "verify");
                    if (form.text.en.empty() && s.text.en.empty())
                        throw std::runtime_error("suggestion '" + s.id + "': forms." + v +
                                                 " has no text and the suggestion has no neutral text");
                    s.forms[v] = std::move(form);
                }
                if (s.forms.empty())
                    throw std::runtime_error("suggestion '" + s.id + "': every vendor in 'forms' is null");
            }
            if (sj.contains("gain"))
                std::tie(s.gain_low, s.gain_high) = parse_range(sj["gain"], "suggestion '" + s.id + "' gain");
            s.risk = get_string(sj, "risk", "medium");
            if (s.risk != "low" && s.risk != "medium" && s.risk != "high")
                throw std::runtime_error("suggestion '" + s.id + "': risk must be low, medium or high");
            s.verify = get_string(sj, "verify");
            s.when = get_string(sj, "when");
            if (!s.when.empty())
                s.when_variables = used_variables(s.when, "suggestion '" + s.id + "' when");
            s.metric = get_string(sj, "metric");
            s.direction = get_string(sj, "direction", s.metric.empty() ? "" : "decrease");
            if (!s.direction.empty() && s.direction != "decrease" && s.direction != "increase")
                throw std::runtime_error("suggestion '" + s.id + "': direction must be decrease or increase");
            r.suggestions.push_back(std::move(s));
        }
    }
    if (j.contains("references")) {
        if (!j["references"].is_array())
            throw std::runtime_error("'references' must be an array of strings");
        for (const auto& x : j["references"])
            if (x.is_string())
                r.references.push_back(x.get<std::string>());
    }
    if (j.contains("evidence")) {   // extra metrics to show as evidence (no threshold)
        if (!j["evidence"].is_array())
            throw std::runtime_error("'evidence' must be an array of metric names");
        for (const auto& x : j["evidence"])
            if (x.is_string() &&
                std::find(r.variables.begin(), r.variables.end(), x.get<std::string>()) == r.variables.end())
                r.gain_variables.push_back("@" + x.get<std::string>());   // marked: evidence-only, optional
    }
    return r;
}

static void upsert(RuleSet& set, Rule r)
{
    for (auto& x : set.rules)
        if (x.id == r.id) {
            x = std::move(r);
            return;
        }
    set.rules.push_back(std::move(r));
}

bool load_rule_file(const std::string& path, RuleSet& set)
{
    json doc;
    {
        std::string text;
        try {
            text = read_input_file(path, InputKind::DataFile, "a readable rule file");
        } catch (const TraceError& e) {
            set.errors.push_back({path, e.where(), "expected " + e.expected() + ", found " + e.found()});
            return false;
        }
        try {
            doc = parse_json_input(text, path);
        } catch (const TraceError& e) {
            set.errors.push_back({path, "", "not valid JSON (" + e.where() + "): expected " + e.expected() + ", found " +
                                                e.found()});
            return false;
        }
    }
    const json* arr = nullptr;
    if (doc.is_array())
        arr = &doc;
    else if (doc.is_object() && doc.contains("rules") && doc["rules"].is_array())
        arr = &doc["rules"];
    if (!arr) {
        set.errors.push_back({path, "", "expected {\"rules\": [...]} or an array of rules"});
        return false;
    }
    std::set<std::string> in_file;
    for (const auto& rj : *arr) {
        std::string id;
        if (rj.is_object() && rj.contains("id") && rj["id"].is_string())
            id = rj["id"].get<std::string>();
        if (rj.is_object() && rj.contains("enabled") && rj["enabled"].is_boolean() && !rj["enabled"].get<bool>()) {
            std::erase_if(set.rules, [&](const Rule& r) { return r.id == id; });
            continue;
        }
        if (!id.empty() && !in_file.insert(id).second) {
            set.errors.push_back({path, id, "duplicate rule id in the same file"});
            continue;
        }
        try {
            upsert(set, parse_rule(rj, path));
        } catch (const Cancelled&) {
            throw;   // a Cancel raised inside is not this step's failure
        } catch (const std::exception& e) {
            set.errors.push_back({path, id, e.what()});
        }
    }
    return true;
}

RuleSet load_rules(const std::vector<std::string>& dirs)
{
    RuleSet set;
    for (const auto& d : dirs) {
        if (d.empty())
            continue;
        std::error_code ec;
        const auto st = fs::status(d, ec);
        if (!fs::exists(st)) {
            // The user's default folder need not exist; any other folder was named on purpose (--rules).
            if (ec && ec != std::errc::no_such_file_or_directory)
                set.errors.push_back({d, "", "cannot read the rules folder: " + ec.message()});
            else if (d != default_user_rules_dir())
                set.errors.push_back({d, "", "no such rules folder"});
            continue;
        }
        if (!fs::is_directory(st)) {
            set.errors.push_back({d, "", "not a folder: --rules names a folder of *.json rule files, not a file"});
            continue;
        }
        // Every error of the walk (no permission, a symbolic-link loop inside) is a rule error naming the path,
        // never an exception: a broken entry in the user's default folder must not stop the analysis.
        std::vector<std::string> files;
        fs::directory_iterator it(d, ec), end;
        if (ec)
            set.errors.push_back({d, "", "cannot read the rules folder: " + ec.message()});
        for (; !ec && it != end; it.increment(ec)) {
            const fs::path p = it->path();
            if (p.extension() != ".json")
                continue;
            std::error_code fec;
            const auto fst = fs::status(p, fec);
            if (fec)
                set.errors.push_back({p.string(), "", "cannot read the rule file: " + fec.message()});
            else if (fs::is_regular_file(fst))
                files.push_back(p.string());
        }
        if (ec)
            set.errors.push_back({d, "", "cannot read the rules folder: " + ec.message()});
        std::sort(files.begin(), files.end());
        for (const auto& f : files) {
            try {
                load_rule_file(f, set);
            } catch (const Cancelled&) {
                throw;   // a Cancel raised inside is not this step's failure
            } catch (const std::exception& e) {
                set.errors.push_back({f, "", std::string("cannot load the rule file: ") + e.what()});
            }
        }
    }
    std::sort(set.rules.begin(), set.rules.end(), [](const Rule& a, const Rule& b) { return a.id < b.id; });
    return set;
}

// ---- placeholders and condition terms ----------------------------------------------------------------------

std::string fill_placeholders(const std::string& text, const MetricScope& scope, const std::string& trace_path,
                              std::string_view lang)
{
    std::string out;
    out.reserve(text.size());
    size_t i = 0;
    while (i < text.size()) {
        if (text[i] != '{') {
            out += text[i++];
            continue;
        }
        const size_t close = text.find('}', i + 1);
        if (close == std::string::npos) {
            out += text.substr(i);
            break;
        }
        std::string key = text.substr(i + 1, close - i - 1);
        bool raw = false;
        if (const auto c = key.find(':'); c != std::string::npos) {
            raw = key.substr(c + 1) == "raw";
            key = key.substr(0, c);
        }
        std::string rep;
        bool ok = true;
        if (key == "subject") {
            const auto en = scope.sources.find(kSubjectEnKey);
            rep = lang == "zh_CN" && !scope.subject_zh_CN.empty() ? scope.subject_zh_CN
                  : lang != "zh_CN" && en != scope.sources.end()  ? en->second
                                                                  : scope.subject;
        }
        else if (key == "ncu_kernels")
            rep = scope.sources.count(kNcuKernelsKey) ? scope.sources.at(kNcuKernelsKey)
                  : scope.kind == ScopeKind::Kernel
                      ? "-k regex:'^(.*::)?" + ncu_regex_escape(ncu_base_name(scope.subject)) + "$'"
                      : "-k regex:'" + ncu_regex_escape(scope.subject) + "'";
        else if (key == "kernel_regex")
            rep = scope.sources.count(kKernelRegexKey) ? scope.sources.at(kKernelRegexKey)
                                                       : kernel_include_regex({scope.kind == ScopeKind::Kernel
                                                                                   ? ncu_base_name(scope.subject)
                                                                                   : scope.subject});
        else if (key == "trace")
            rep = trace_path.empty() ? "TRACE" : trace_path;
        else if (auto it = scope.metrics.find(key); it != scope.metrics.end()) {
            if (raw) {
                rep = format_number(it->second);   // the number without a unit, rounded for people
            } else {
                rep = format_metric(key, it->second);
            }
        } else
            ok = false;
        out += ok ? rep : text.substr(i, close - i + 1);
        i = close + 1;
        // "{subject} 的" written for a Latin key: no space after a full-width bracket ("注意力（预填充）的").
        static const std::string kFullWidthClose = "）";
        if (ok && key == "subject" && i < text.size() && text[i] == ' ' && rep.size() >= kFullWidthClose.size() &&
            rep.compare(rep.size() - kFullWidthClose.size(), kFullWidthClose.size(), kFullWidthClose) == 0)
            ++i;
    }
    return out;
}

std::vector<ConditionTerm> condition_terms(const std::string& condition)
{
    // A comparison of a bare metric with a bare number: "x < 50" or "50 > x". Terms where either side is part of
    // arithmetic ("x > 0.05 * y", "2 * x > 5") carry no simple threshold and are skipped: a match followed (after
    // spaces) by an operator, a name or a digit is not a term. (RE2 has no look-ahead: that check is done here, and
    // a match it rejects lets the search go on from the next byte, as the look-ahead's failed match did.)
    static const std::string num = R"([-+]?[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)";
    static const std::string name = R"([A-Za-z_][A-Za-z0-9_]*)";
    static const std::string cmp = R"((<=|>=|==|!=|<|>))";
    static const Regex fwd("(?:^|[(&|!?:,])\\s*(" + name + ")\\s*" + cmp + "\\s*(" + num + ")");
    static const Regex rev("(?:^|[(&|!?:,])\\s*(" + num + ")\\s*" + cmp + "\\s*(" + name + ")");
    const auto free_after = [&](std::string_view match) {
        size_t i = static_cast<size_t>(match.data() - condition.data()) + match.size();
        while (i < condition.size() && std::isspace(static_cast<unsigned char>(condition[i])))
            ++i;
        if (i == condition.size())
            return true;
        const char c = condition[i];
        return !(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '*' || c == '/' ||
                 c == '^' || c == '+' || c == '-' || c == '(');
    };
    const auto terms = [&](const Regex& re, const auto& add) {
        std::vector<std::string_view> m;
        size_t pos = 0;
        while (pos <= condition.size() && re.search_from(condition, pos, m)) {
            const size_t start = static_cast<size_t>(m[0].data() - condition.data());
            if (free_after(m[0])) {
                add(m);
                pos = std::max(start + m[0].size(), start + 1);
            } else {
                pos = start + 1;
            }
        }
    };
    std::vector<ConditionTerm> out;
    terms(fwd, [&](const std::vector<std::string_view>& m) {
        out.push_back({std::string(m[1]), std::string(m[2]), std::strtod(std::string(m[3]).c_str(), nullptr)});
    });
    terms(rev, [&](const std::vector<std::string_view>& m) {
        // "50 > x" reads as "x < 50".
        std::string op(m[2]);
        if (op == "<") op = ">";
        else if (op == ">") op = "<";
        else if (op == "<=") op = ">=";
        else if (op == ">=") op = "<=";
        out.push_back({std::string(m[3]), op, std::strtod(std::string(m[1]).c_str(), nullptr)});
    });
    return out;
}

// ---- evaluation ----------------------------------------------------------------------------------------------------

namespace {

struct CompiledExpr {
    mu::Parser parser;
    std::vector<std::string> names;
    std::vector<double> values;   // sized once; DefineVar points into it
    bool ok = false;

    void compile(const std::string& expr, const std::vector<std::string>& vars)
    {
        names = vars;
        values.assign(vars.size(), 0.0);
        setup_parser(parser);
        for (size_t i = 0; i < names.size(); ++i)
            parser.DefineVar(names[i], &values[i]);
        parser.SetExpr(expr);
        ok = true;
    }
    // Returns false when a metric is missing or not finite (missing filled).
    bool bind(const MetricScope& s, std::vector<std::string>* missing)
    {
        bool all = true;
        for (size_t i = 0; i < names.size(); ++i) {
            auto it = s.metrics.find(names[i]);
            if (it == s.metrics.end() || !std::isfinite(it->second)) {
                all = false;
                if (missing)
                    missing->push_back(names[i]);
            } else {
                values[i] = it->second;
            }
        }
        return all;
    }
};

} // namespace

static double clamp01(double v) { return std::max(0.0, std::min(1.0, v)); }

EvalResult evaluate_rules(const RuleSet& rules, const std::vector<MetricScope>& scopes, const EvalOptions& opt)
{
    EvalResult res;
    res.scopes = static_cast<int>(scopes.size());
    for (const Rule& rule : rules.rules) {
        ++res.rules_evaluated;
        CompiledExpr cond, gain, gain_ns;
        std::vector<CompiledExpr> whens(rule.suggestions.size());
        try {
            cond.compile(rule.condition, rule.variables);
            for (size_t i = 0; i < rule.suggestions.size(); ++i)
                if (!rule.suggestions[i].when.empty())
                    whens[i].compile(rule.suggestions[i].when, rule.suggestions[i].when_variables);
            if (!rule.gain_expr.empty())
                gain.compile(rule.gain_expr, used_variables(rule.gain_expr, "gain.expr"));
            if (!rule.gain_ns_expr.empty())
                gain_ns.compile(rule.gain_ns_expr, used_variables(rule.gain_ns_expr, "gain.ns"));
        } catch (const Cancelled&) {
            throw;   // a Cancel raised inside is not this step's failure
        } catch (const std::exception& e) {
            res.errors.push_back({rule.file, rule.id, e.what()});
            continue;
        } catch (const mu::Parser::exception_type& e) {
            res.errors.push_back({rule.file, rule.id, mu_error(e)});
            continue;
        }
        const auto terms = condition_terms(rule.condition);
        bool boundAny = false, missedAny = false;
        for (const MetricScope& scope : scopes) {
            if (scope.kind != rule.scope)
                continue;
            std::vector<std::string> missing;
            if (!cond.bind(scope, &missing)) {
                res.missing.push_back({rule.id, scope.kind, scope.subject, std::move(missing)});
                missedAny = true;
                continue;
            }
            boundAny = true;
            double fired = 0;
            try {
                fired = cond.parser.Eval();
            } catch (const mu::Parser::exception_type& e) {
                res.errors.push_back({rule.file, rule.id, scope.subject + ": " + mu_error(e)});
                continue;
            }
            if (!std::isfinite(fired) || fired == 0.0)
                continue;

            Finding f;
            f.rule = rule.id;
            f.verdict = rule.verdict;
            f.severity = rule.severity;
            f.scope = scope.kind;
            f.subject = scope.subject;
            if (scope.kind == ScopeKind::NcuLaunch)
                f.ncu_launch = parse_ncu_launch_subject(scope.subject);
            f.links = scope.links;
            f.references = rule.references;
            f.title = {fill_placeholders(rule.title.en, scope, opt.trace_path),
                       fill_placeholders(rule.title.zh_CN, scope, opt.trace_path, "zh_CN")};
            f.explanation = {fill_placeholders(rule.explanation.en, scope, opt.trace_path),
                             fill_placeholders(rule.explanation.zh_CN, scope, opt.trace_path, "zh_CN")};

            // Evidence: every metric of the condition (with its threshold when the condition compares it with a
            // number), then the rule's extra evidence metrics that the scope has.
            auto source_of = [&](const std::string& m) {
                auto it = scope.sources.find(m);
                return it == scope.sources.end() ? std::string("metrics") : it->second;
            };
            // Only the comparisons that hold: in "a > 0.2 && (b < 0 || c < 1)" the branch that did not fire is no
            // evidence, and its metric is shown with its value alone.
            auto holds = [](const std::string& op, double x, double t) {
                return op == "<" ? x < t : op == "<=" ? x <= t : op == ">" ? x > t : op == ">=" ? x >= t
                       : op == "==" ? x == t : op == "!=" ? x != t : false;
            };
            for (const auto& v : rule.variables) {
                bool any = false;
                const double x = scope.metrics.at(v);
                for (const auto& t : terms)
                    if (t.metric == v && holds(t.op, x, t.threshold)) {
                        f.evidence.push_back({v, x, t.op, t.threshold, source_of(v)});
                        any = true;
                    }
                if (!any)
                    f.evidence.push_back({v, x, "", std::nullopt, source_of(v)});
            }
            for (const auto& v : rule.gain_variables) {
                const std::string name = (!v.empty() && v[0] == '@') ? v.substr(1) : v;
                if (std::any_of(f.evidence.begin(), f.evidence.end(), [&](const Evidence& e) { return e.metric == name; }))
                    continue;
                if (auto it = scope.metrics.find(name); it != scope.metrics.end() && std::isfinite(it->second))
                    f.evidence.push_back({name, it->second, "", std::nullopt, source_of(name)});
            }

            // Expected gain.
            auto& g = f.expected_gain;
            g.low = rule.gain_low;
            g.high = rule.gain_high;
            g.fraction = (g.low + g.high) / 2;
            g.basis = "rule range";
            if (gain.ok && gain.bind(scope, nullptr)) {
                try {
                    const double v = gain.parser.Eval();
                    if (std::isfinite(v)) {
                        g.fraction = g.low = g.high = clamp01(v);
                        g.computed = true;
                        g.basis = rule.gain_expr;
                    }
                } catch (const mu::Parser::exception_type&) {
                }
            }
            if (gain_ns.ok && gain_ns.bind(scope, nullptr)) {
                try {
                    const double v = gain_ns.parser.Eval();
                    if (std::isfinite(v) && v >= 0)
                        g.ns = v;
                } catch (const mu::Parser::exception_type&) {
                }
            }

            // Confidence = prior x data quality x knowledge-base history.
            auto& c = f.confidence;
            c.prior = rule.prior;
            if (opt.capture_ns > 0 && opt.capture_ns < opt.short_capture_ns) {
                c.data_quality *= 0.8;
                c.reasons.push_back("short capture (" + format_metric("capture_ns", double(opt.capture_ns)) +
                                    " < " + format_metric("capture_ns", double(opt.short_capture_ns)) + ")");
            }
            if (auto it = scope.metrics.find("count"); it != scope.metrics.end() && it->second < opt.min_samples) {
                c.data_quality *= 0.85;
                c.reasons.push_back("few samples (count " + format_metric("count", it->second) + ")");
            }
            if (auto it = scope.metrics.find("data_quality"); it != scope.metrics.end() && std::isfinite(it->second) &&
                it->second < 1.0) {
                c.data_quality *= std::max(0.1, it->second);
                c.reasons.push_back("incomplete data for this scope (quality " + format_metric("x", it->second) + ")");
            }
            if (!gain.ok || !g.computed)
                c.reasons.push_back("expected gain is the rule's range, not computed from this trace");

            for (size_t si = 0; si < rule.suggestions.size(); ++si) {
                const RuleSuggestion& rs = rule.suggestions[si];
                const auto form = resolve_suggestion_form(rs, opt.vendor);
                if (!form)
                    continue;   // no form for this trace's vendor
                if (whens[si].ok && whens[si].bind(scope, nullptr)) {
                    double holds_here = 1;
                    try {
                        holds_here = whens[si].parser.Eval();
                    } catch (const mu::Parser::exception_type&) {
                    }
                    if (std::isfinite(holds_here) && holds_here == 0.0)
                        continue;   // not this scope's fix
                }
                Suggestion s;
                s.id = rs.id;
                s.text = {fill_placeholders(form->text.en, scope, opt.trace_path),
                          fill_placeholders(form->text.zh_CN, scope, opt.trace_path, "zh_CN")};
                s.gain_low = rs.gain_low;
                s.gain_high = rs.gain_high;
                s.risk = rs.risk;
                s.verify = fill_placeholders(form->verify, scope, opt.trace_path);
                s.metric = rs.metric;
                s.direction = rs.direction;
                f.suggestions.push_back(std::move(s));
            }
            if (opt.history) {
                // The suggestion with the most history decides; verified successes on similar environments raise
                // confidence, failures lower it.
                double best_weight = 0;
                for (const auto& s : f.suggestions) {
                    auto h = opt.history(rule.id + "/" + s.id);
                    if (!h || h->verified + h->failed == 0)
                        continue;
                    const double n = h->verified + h->failed;
                    const double weight = n * h->similarity;
                    if (weight <= best_weight)
                        continue;
                    best_weight = weight;
                    const double net = (h->verified - h->failed) / (n + 1.0);
                    c.kb_factor = std::clamp(1.0 + 0.5 * h->similarity * net, 0.5, 1.5);
                    c.reasons.erase(std::remove_if(c.reasons.begin(), c.reasons.end(),
                                                   [](const std::string& r) { return r.rfind("knowledge base:", 0) == 0; }),
                                    c.reasons.end());
                    c.reasons.push_back("knowledge base: " + h->reason);
                }
                // Issue 35 §4: how far the what-if replay of the suggestion's change was from what verify measured
                // on similar environments. A replay within 10 % raises confidence (up to x1.1), one further off
                // lowers it (x0.8 at 30 %, at most halved), in kb_factor. The suggestion with the most predictions
                // decides.
                int best_predictions = 0;
                double prediction_factor = 1.0;
                for (const auto& s : f.suggestions) {
                    auto h = opt.history(rule.id + "/" + s.id);
                    if (!h || h->predictions <= best_predictions)
                        continue;
                    best_predictions = h->predictions;
                    prediction_factor = std::clamp(1.1 - h->mean_abs_prediction_error, 0.5, 1.1);
                    if (h->verified + h->failed == 0)
                        c.reasons.push_back("knowledge base: " + h->reason);
                }
                c.kb_factor = std::clamp(c.kb_factor * prediction_factor, 0.5, 1.5);
            }
            c.value = std::clamp(c.prior * c.data_quality * c.kb_factor, 0.05, 0.99);
            c.label = confidence_label(c.value);
            res.findings.push_back(std::move(f));
        }
        if (missedAny && !boundAny)
            res.not_run.push_back(rule.id);
    }
    std::sort(res.not_run.begin(), res.not_run.end());
    rank_findings(res.findings);
    return res;
}

} // namespace sl
