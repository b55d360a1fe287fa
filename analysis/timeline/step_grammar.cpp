#include "analysis/timeline/step_grammar.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <mutex>

#include <nlohmann/json.hpp>

#include "analysis/io/input_bounds.h"
#include "analysis/io/resources.h"
#include "analysis/trace/errors.h"
#include "analysis/io/json_input.h"

namespace sl {

namespace {

// The fields a group or a pair may fill. Unprefixed requests / tokens / kv_tokens / sqsq / sqsk belong to the side
// the step's mode names.
const char* const kFields[] = {"tokens",         "requests",          "kv_tokens",        "sqsq",
                               "sqsk",           "prefill_requests",  "prefill_tokens",   "prefill_kv_tokens",
                               "prefill_sqsq",   "prefill_sqsk",      "decode_requests",  "decode_tokens",
                               "decode_kv_tokens", "decode_sqsq",     "decode_sqsk",      "mode",
                               "pairs"};

bool known_field(const std::string& f)
{
    return f.empty() || std::find(std::begin(kFields), std::end(kFields), f) != std::end(kFields);
}

int64_t to_int(std::string_view s)
{
    int64_t v = -1;
    const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    return ec == std::errc() && p == s.data() + s.size() && v >= 0 ? v : -1;
}

// Parsed values before the mode puts the unprefixed ones on a side.
struct Raw {
    std::string mode;   // "prefill" | "decode" | "mixed" | ""
    int64_t requests = -1, kv_tokens = -1, sqsq = -1, sqsk = -1;
    StepBatch b;
};

void set_field(Raw& r, const std::string& f, int64_t v)
{
    StepBatch& b = r.b;
    if (v < 0)
        return;
    if (f == "tokens") b.tokens = v;
    else if (f == "requests") r.requests = v;
    else if (f == "kv_tokens") r.kv_tokens = v;
    else if (f == "sqsq") r.sqsq = v;
    else if (f == "sqsk") r.sqsk = v;
    else if (f == "prefill_requests") b.prefill_requests = v;
    else if (f == "prefill_tokens") b.prefill_tokens = v;
    else if (f == "prefill_kv_tokens") b.prefill_kv_tokens = v;
    else if (f == "prefill_sqsq") b.prefill_sqsq = v;
    else if (f == "prefill_sqsk") b.prefill_sqsk = v;
    else if (f == "decode_requests") b.decode_requests = v;
    else if (f == "decode_tokens") b.decode_tokens = v;
    else if (f == "decode_kv_tokens") b.decode_kv_tokens = v;
    else if (f == "decode_sqsq") b.decode_sqsq = v;
    else if (f == "decode_sqsk") b.decode_sqsk = v;
}

void keep_if_unknown(int64_t& x, int64_t v)
{
    if (x < 0 && v >= 0)
        x = v;
}

void zero_side(int64_t& req, int64_t& tok, int64_t& kv, int64_t& sqsq, int64_t& sqsk)
{
    keep_if_unknown(req, 0);
    keep_if_unknown(tok, 0);
    keep_if_unknown(kv, 0);
    keep_if_unknown(sqsq, 0);
    keep_if_unknown(sqsk, 0);
}

std::string thousands(int64_t v)
{
    std::string s = std::to_string(v);
    for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3)
        s.insert(static_cast<size_t>(i), ",");
    return s;
}

} // namespace

const char* step_kind_name(StepKind k)
{
    switch (k) {
    case StepKind::PrefillOnly: return "prefill-only";
    case StepKind::PrefillHeavy: return "prefill-heavy";
    case StepKind::Mixed: return "mixed";
    case StepKind::DecodeHeavy: return "decode-heavy";
    case StepKind::DecodeOnly: return "decode-only";
    case StepKind::Unknown: break;
    }
    return "unknown";
}

bool StepBatch::has_attention_sums() const
{
    return prefill_tokens >= 0 && prefill_kv_tokens >= 0 && prefill_sqsq >= 0 && prefill_sqsk >= 0 &&
           decode_tokens >= 0 && decode_kv_tokens >= 0 && decode_sqsq >= 0 && decode_sqsk >= 0;
}

void StepBatch::fill_from(const StepBatch& o)
{
    keep_if_unknown(tokens, o.tokens);
    keep_if_unknown(prefill_requests, o.prefill_requests);
    keep_if_unknown(prefill_tokens, o.prefill_tokens);
    keep_if_unknown(prefill_kv_tokens, o.prefill_kv_tokens);
    keep_if_unknown(prefill_sqsq, o.prefill_sqsq);
    keep_if_unknown(prefill_sqsk, o.prefill_sqsk);
    keep_if_unknown(decode_requests, o.decode_requests);
    keep_if_unknown(decode_tokens, o.decode_tokens);
    keep_if_unknown(decode_kv_tokens, o.decode_kv_tokens);
    keep_if_unknown(decode_sqsq, o.decode_sqsq);
    keep_if_unknown(decode_sqsk, o.decode_sqsk);
}

std::string StepBatch::composition() const
{
    auto side = [](const char* what, int64_t req, int64_t tok, int64_t kv, bool tokens_are_requests) {
        std::string s = thousands(req) + " " + what + (req == 1 ? " request" : " requests");
        std::string in;
        if (tok >= 0 && !(tokens_are_requests && tok == req))
            in = thousands(tok) + (tok == 1 ? " token" : " tokens");
        if (kv >= 0)
            in += (in.empty() ? "" : ", ") + thousands(kv) + " KV";
        return in.empty() ? s : s + " (" + in + ")";
    };
    std::string out;
    if (prefill_requests > 0 || (prefill_requests < 0 && prefill_tokens > 0))
        out = side("prefill", std::max<int64_t>(prefill_requests, 0), prefill_tokens, prefill_kv_tokens, false);
    if (decode_requests > 0) {
        if (!out.empty())
            out += " + ";
        out += side("decode", decode_requests, decode_tokens, decode_kv_tokens, true);
    }
    if (out.empty() && tokens >= 0)
        out = thousands(tokens) + " tokens";
    return out;
}

StepGrammar StepGrammar::from_json(const nlohmann::json& doc, const std::string& source)
{
    StepGrammar g;
    g.source_ = source;
    if (!doc.is_object() || !doc.contains("formats") || !doc["formats"].is_array())
        throw TraceError(source, "top level", "an object with a \"formats\" array", describe_json(doc));
    if (doc.contains("kinds")) {
        const auto& k = doc["kinds"];
        if (!k.is_object())
            throw TraceError(source, "kinds", "an object", describe_json(k));
        for (const char* key : {"prefill_heavy_share", "decode_heavy_share"})
            if (k.contains(key) && (!k[key].is_number() || k[key].get<double>() < 0 || k[key].get<double>() > 1))
                throw TraceError(source, std::string("kinds.") + key, "a number in 0..1", describe_json(k[key]));
        g.prefill_heavy_ = k.value("prefill_heavy_share", g.prefill_heavy_);
        g.decode_heavy_ = k.value("decode_heavy_share", g.decode_heavy_);
        if (g.decode_heavy_ >= g.prefill_heavy_)
            throw TraceError(source, "kinds", "decode_heavy_share below prefill_heavy_share",
                             std::to_string(g.decode_heavy_) + " >= " + std::to_string(g.prefill_heavy_));
    }
    size_t i = 0;
    for (const auto& f : doc["formats"]) {
        const std::string where = "formats[" + std::to_string(i++) + "]";
        if (!f.is_object() || !f.contains("id") || !f["id"].is_string() || !f.contains("regex") ||
            !f["regex"].is_string() || !f.contains("groups") || !f["groups"].is_array())
            throw TraceError(source, where, "an object with string \"id\", \"regex\" and a \"groups\" array",
                             describe_json(f));
        Format fmt;
        fmt.id = f["id"].get<std::string>();
        fmt.framework = f.value("framework", std::string());
        fmt.contains = f.value("contains", std::string());
        fmt.example = f.value("example", std::string());
        const std::string re = f["regex"].get<std::string>();
        try {
            fmt.re = Regex(re);
        } catch (const RegexError& e) {
            throw TraceError(source, where + ".regex", kRegexExpected, e.what());
        }
        for (const auto& gr : f["groups"]) {
            if (!gr.is_string() || !known_field(gr.get<std::string>()))
                throw TraceError(source, where + ".groups", "field names of the grammar (see \"about\")",
                                 describe_json(gr));
            fmt.groups.push_back(gr.get<std::string>());
        }
        if (fmt.groups.size() != static_cast<size_t>(fmt.re.groups()))
            throw TraceError(source, where + ".groups", std::to_string(fmt.re.groups()) + " names (one per capture group)",
                             std::to_string(fmt.groups.size()));
        for (const char* key : {"modes", "pairs"}) {
            if (!f.contains(key))
                continue;
            if (!f[key].is_object())
                throw TraceError(source, where + "." + key, "an object", describe_json(f[key]));
            for (const auto& [k, v] : f[key].items()) {
                if (!v.is_string())
                    throw TraceError(source, where + "." + key + "." + k, "a string", describe_json(v));
                const std::string val = v.get<std::string>();
                if (std::string(key) == "modes") {
                    if (val != "prefill" && val != "decode" && val != "mixed")
                        throw TraceError(source, where + ".modes." + k, "prefill, decode or mixed", val);
                    fmt.modes.emplace_back(k, val);
                } else {
                    if (!known_field(val) || val == "mode" || val == "pairs")
                        throw TraceError(source, where + ".pairs." + k, "a numeric field of the grammar", val);
                    fmt.pairs.emplace_back(k, val);
                }
            }
        }
        g.formats_.push_back(std::move(fmt));
    }
    if (doc.contains("attention_ops")) {
        if (!doc["attention_ops"].is_array())
            throw TraceError(source, "attention_ops", "an array", describe_json(doc["attention_ops"]));
        i = 0;
        for (const auto& a : doc["attention_ops"]) {
            const std::string where = "attention_ops[" + std::to_string(i++) + "]";
            if (!a.is_object() || !a.contains("op") || !a["op"].is_string())
                throw TraceError(source, where, "an object with a string \"op\"", describe_json(a));
            AttentionOp op;
            op.op = a["op"].get<std::string>();
            for (const char* key : {"q_arg", "k_arg", "v_arg"})
                if (a.contains(key) && (!a[key].is_number_integer() || a[key].get<int>() < 0))
                    throw TraceError(source, where + "." + key, "an argument index >= 0", describe_json(a[key]));
            op.q_arg = a.value("q_arg", 0);
            op.k_arg = a.value("k_arg", 1);
            op.v_arg = a.value("v_arg", -1);
            g.attention_ops_.push_back(std::move(op));
        }
    }
    return g;
}

StepGrammar StepGrammar::load_file(const std::string& path)
{
    const std::string text = read_input_file(path, InputKind::DataFile, "a readable step-grammar JSON file");
    return from_json(parse_json_input(text, path), path);
}

StepGrammar StepGrammar::load(const std::string& user_file)
{
    if (!user_file.empty())
        return load_file(user_file);
    // The shipped grammar is read once per process (it is consulted by every analysis and every shape call).
    static std::mutex m;
    static std::optional<StepGrammar> shipped;
    std::lock_guard lock(m);
    if (!shipped)
        shipped = load_file(resource_path("step_grammar.json"));
    return *shipped;
}

std::optional<StepBatch> StepGrammar::parse(std::string_view name) const
{
    for (const Format& f : formats_) {
        if (!f.contains.empty() && name.find(f.contains) == std::string_view::npos)
            continue;
        std::vector<std::string_view> m;
        if (!f.re.full_match(name, m))
            continue;
        Raw r;
        r.b.format = f.id;
        r.b.framework = f.framework;
        for (size_t gi = 0; gi < f.groups.size(); ++gi) {
            const std::string& field = f.groups[gi];
            if (field.empty() || !m[gi + 1].data())
                continue;
            const std::string_view text = m[gi + 1];
            if (field == "mode") {
                for (const auto& [word, mode] : f.modes)
                    if (word == text)
                        r.mode = mode;
            } else if (field == "pairs") {
                static const Regex pair_re(R"((\w+)=(\d+))");
                for (const auto& pm : pair_re.all_matches(text))
                    for (const auto& [key, fld] : f.pairs)
                        if (key == pm[1])
                            set_field(r, fld, to_int(pm[2]));
            } else {
                set_field(r, field, to_int(text));
            }
        }
        StepBatch& b = r.b;
        // The unprefixed values belong to the side the mode names; a side with no request has no tokens.
        if (r.mode == "prefill") {
            keep_if_unknown(b.prefill_requests, r.requests);
            keep_if_unknown(b.prefill_tokens, b.tokens);
            keep_if_unknown(b.prefill_kv_tokens, r.kv_tokens);
            keep_if_unknown(b.prefill_sqsq, r.sqsq);
            keep_if_unknown(b.prefill_sqsk, r.sqsk);
            zero_side(b.decode_requests, b.decode_tokens, b.decode_kv_tokens, b.decode_sqsq, b.decode_sqsk);
        } else if (r.mode == "decode") {
            keep_if_unknown(b.decode_requests, r.requests);
            keep_if_unknown(b.decode_tokens, b.tokens >= 0 ? b.tokens : r.requests);   // one token per request
            keep_if_unknown(b.decode_kv_tokens, r.kv_tokens);
            keep_if_unknown(b.decode_sqsq, r.sqsq);
            keep_if_unknown(b.decode_sqsk, r.sqsk);
            zero_side(b.prefill_requests, b.prefill_tokens, b.prefill_kv_tokens, b.prefill_sqsq, b.prefill_sqsk);
        }
        if (b.prefill_requests == 0)
            zero_side(b.prefill_requests, b.prefill_tokens, b.prefill_kv_tokens, b.prefill_sqsq, b.prefill_sqsk);
        if (b.decode_requests == 0)
            zero_side(b.decode_requests, b.decode_tokens, b.decode_kv_tokens, b.decode_sqsq, b.decode_sqsk);
        if (b.tokens < 0 && b.prefill_tokens >= 0 && b.decode_tokens >= 0)
            b.tokens = b.prefill_tokens + b.decode_tokens;
        return b;
    }
    return std::nullopt;
}

StepKind StepGrammar::kind(const StepBatch& b) const
{
    if (!b.known())
        return StepKind::Unknown;
    const bool no_prefill = b.prefill_requests == 0 || (b.prefill_requests < 0 && b.prefill_tokens == 0);
    const bool no_decode = b.decode_requests == 0 || (b.decode_requests < 0 && b.decode_tokens == 0);
    if (no_prefill && no_decode)
        return StepKind::Unknown;
    if (no_decode)
        return b.prefill_requests > 0 || b.prefill_tokens > 0 ? StepKind::PrefillOnly : StepKind::Unknown;
    if (no_prefill)
        return b.decode_requests > 0 || b.decode_tokens > 0 ? StepKind::DecodeOnly : StepKind::Unknown;
    if (b.prefill_requests < 0 && b.prefill_tokens < 0)
        return StepKind::Unknown;
    if (b.decode_requests < 0 && b.decode_tokens < 0)
        return StepKind::Unknown;
    const int64_t p = b.prefill_tokens, d = b.decode_tokens >= 0 ? b.decode_tokens : b.decode_requests;
    if (p < 0 || d < 0 || p + d <= 0)
        return StepKind::Mixed;
    const double share = static_cast<double>(p) / static_cast<double>(p + d);
    if (share >= prefill_heavy_)
        return StepKind::PrefillHeavy;
    if (share <= decode_heavy_)
        return StepKind::DecodeHeavy;
    return StepKind::Mixed;
}

const StepGrammar::AttentionOp* StepGrammar::attention_op(std::string_view op) const
{
    for (const auto& a : attention_ops_)
        if (a.op == op)
            return &a;
    return nullptr;
}

} // namespace sl
