#include "analysis/report/report_model.h"
#include "analysis/critpath/steady_path.h"

#include "analysis/critpath/critpath_summary.h"
#include "analysis/diagnosis/headline.h"

#include "analysis/diagnosis/findings.h"
#include "analysis/report/report_seen_before.h"
#include "analysis/report/report_sections.h"
#include "analysis/io/sha256.h"
#include "analysis/io/input_bounds.h"
#include "analysis/timeline/summary.h"
#include "analysis/timeline/analysis.h"
#include "analysis/timeline/gpu_vendor.h"
#include "analysis/trace/trace.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <optional>
#include <set>

namespace sl::report {

// ---- Names -----------------------------------------------------------------------------------------------------------
const char* align_name(Align a)
{
    switch (a) {
    case Align::Left: return "left";
    case Align::Right: return "right";
    case Align::Center: return "center";
    }
    return "left";
}

const char* chart_kind_name(ChartKind k)
{
    switch (k) {
    case ChartKind::Bar: return "bar";
    case ChartKind::Histogram: return "histogram";
    case ChartKind::StackedBar: return "stacked_bar";
    case ChartKind::Roofline: return "roofline";
    }
    return "bar";
}

const char* note_kind_name(Note::Kind k)
{
    switch (k) {
    case Note::Kind::Info: return "info";
    case Note::Kind::Missing: return "missing";
    case Note::Kind::Warning: return "warning";
    }
    return "info";
}

const char* detail_name(Detail d) { return d == Detail::Summary ? "summary" : "full"; }

bool parse_detail(std::string_view s, Detail& out)
{
    if (s == "summary")
        out = Detail::Summary;
    else if (s == "full")
        out = Detail::Full;
    else
        return false;
    return true;
}

std::string trace_display_name(std::string_view source_path)
{
    std::vector<std::string_view> files;
    for (size_t pos = 0; pos <= source_path.size();) {
        size_t end = source_path.find(';', pos);
        if (end == std::string_view::npos)
            end = source_path.size();
        if (end > pos)
            files.push_back(source_path.substr(pos, end - pos));
        pos = end + 1;
    }
    if (files.empty())
        return {};
    std::string name = std::filesystem::path(std::string(files.front())).filename().string();
    // The format's extensions, longest first; ".gz" after any of them.
    auto strip = [&name](std::string_view ext) {
        if (name.size() > ext.size() && name.compare(name.size() - ext.size(), ext.size(), ext) == 0) {
            name.resize(name.size() - ext.size());
            return true;
        }
        return false;
    };
    strip(".gz");
    for (std::string_view ext : {".pt.trace.json", ".json", ".sqlite", ".nsys-rep", ".qdrep", ".csv", ".ncu-rep"})
        if (strip(ext))
            break;
    if (files.size() > 1)
        name += " + " + std::to_string(files.size() - 1) + " more";
    return escape_control_chars(name);   // a file name with a line feed is a title, not two lines
}

std::string report_file_stem(std::string_view trace_name)
{
    if (trace_name.empty())
        return "sightline-report";
    std::string out;
    for (char c : trace_name)
        out += (c == '/' || c == '\\' || c == ':' || c == '*' || c == '?' || c == '"' || c == '<' || c == '>' ||
                c == '|' || c == ' ' || uint8_t(c) < 0x20)
                   ? '_'
                   : c;
    return out + "-report";
}

static void collect_charts(const Section& s, std::vector<const Chart*>& out)
{
    for (const Block& b : s.blocks)
        if (const auto* c = std::get_if<Chart>(&b))
            out.push_back(c);
    for (const Section& c : s.children)
        collect_charts(c, out);
}

std::vector<const Chart*> Report::charts() const
{
    std::vector<const Chart*> out;
    for (const Section& s : sections)
        collect_charts(s, out);
    return out;
}

// ---- Formatting ------------------------------------------------------------------------------------------------------
std::string fmt_fixed(double v, int decimals)
{
    if (!std::isfinite(v))
        return std::isnan(v) ? "n/a" : (v > 0 ? "inf" : "-inf");
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    std::string s = buf;
    if (s == "-0" || s.rfind("-0.", 0) == 0) {   // no negative zero in reports
        bool all_zero = true;
        for (char c : s.substr(1))
            if (c != '0' && c != '.')
                all_zero = false;
        if (all_zero)
            s = s.substr(1);
    }
    return s;
}

std::string fmt_sig(double v, int significant)
{
    if (!std::isfinite(v))
        return fmt_fixed(v, 0);
    if (v == 0)
        return "0";
    const double a = std::fabs(v);
    int digits = significant - 1 - int(std::floor(std::log10(a)));
    if (digits < 0)
        digits = 0;
    // Rounding can carry into a new digit (9.996 -> 10.00): recompute once.
    const double rounded = std::round(a * std::pow(10.0, digits)) / std::pow(10.0, digits);
    const int digits2 = std::max(0, significant - 1 - int(std::floor(std::log10(rounded))));
    return fmt_fixed(v, std::min(digits, digits2));
}

std::string shorten_text(std::string_view text, int max_chars)
{
    if (max_chars <= 0)
        return std::string(text);
    size_t cps = 0, cut = std::string::npos;
    for (size_t i = 0; i < text.size(); ++i) {
        if ((uint8_t(text[i]) & 0xC0) == 0x80)
            continue;   // continuation byte
        if (cps == size_t(max_chars - 1))
            cut = i;
        ++cps;
    }
    if (cps <= size_t(max_chars))
        return std::string(text);
    return std::string(text.substr(0, cut)) + "…";
}

std::string fmt_duration(double ns)
{
    const double a = std::fabs(ns);
    if (a < 1e3)
        return fmt_fixed(ns, 0) + " ns";
    // Pick the unit from the rounded value so 999.96 µs prints as "1.00 ms", not "1000 µs".
    struct U { double scale; const char* name; };
    static const U units[] = {{1e3, "µs"}, {1e6, "ms"}, {1e9, "s"}};
    for (size_t i = 0; i < 3; ++i) {
        const double v = ns / units[i].scale;
        const std::string s = fmt_sig(v, 3);
        if (i < 2 && std::fabs(std::stod(s)) >= 1000)
            continue;
        return s + " " + units[i].name;
    }
    return fmt_sig(ns / 1e9, 3) + " s";
}

std::string fmt_bytes(double bytes)
{
    static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    double v = bytes;
    size_t u = 0;
    while (std::fabs(v) >= 1024 && u + 1 < std::size(units)) {
        v /= 1024;
        ++u;
    }
    if (u == 0)
        return fmt_fixed(v, 0) + " B";
    return fmt_fixed(v, 2) + " " + units[u];
}

std::string fmt_percent(double fraction) { return fmt_fixed(fraction * 100.0, 1) + " %"; }

std::string fmt_count(int64_t n)
{
    std::string digits = std::to_string(n < 0 ? -n : n);
    std::string out;
    for (size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0)
            out += ',';
        out += digits[i];
    }
    return n < 0 ? "-" + out : out;
}

std::string fmt_si(double v, const std::string& unit)
{
    static const struct { double scale; const char* prefix; } prefixes[] = {
        {1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}};
    const double a = std::fabs(v);
    for (const auto& p : prefixes)
        if (a >= p.scale)
            return fmt_sig(v / p.scale, 3) + " " + p.prefix + unit;
    return fmt_sig(v, 3) + " " + unit;
}

std::string utc_now_iso()
{
    const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

// ---- Builder context -------------------------------------------------------------------------------------------------
BuildContext::BuildContext(const ReportInputs& inputs, Lang l) : in(inputs), lang(l)
{
    const std::string vendor = in.analysis ? in.analysis->workload.vendor
                               : in.trace  ? detect_gpu_vendor(*in.trace).vendor
                                           : std::string();
    runtime = gpu_runtime_name(vendor);
    from_nsys = in.trace && in.trace->meta.format == "nsys-sqlite";
}

std::string BuildContext::s(std::string_view id) const { return std::string(S(lang, id)); }
std::string BuildContext::f(std::string_view id, const std::vector<std::string>& args) const
{
    return F(lang, id, args);
}

void BuildContext::missing(Section& sec, std::string_view what_id, std::string_view effect_id)
{
    const std::string what = s(what_id), effect = s(effect_id);
    sec.blocks.push_back(Note{Note::Kind::Missing, f("note.missing", {what, effect})});
    for (const auto& m : missing_data)
        if (m.first == what)
            return;
    missing_data.emplace_back(what, effect);
}

Value vdur(double ns) { return Value::num(ns, fmt_duration(ns), "ns"); }
Value vpct(double fraction) { return Value::num(fraction, fmt_percent(fraction), "fraction"); }
Value vcount(int64_t n) { return Value::num(double(n), fmt_count(n), "count"); }
Value vbytes(double b) { return Value::num(b, fmt_bytes(b), "B"); }
Value vtext(std::string t) { return Value::str(std::move(t)); }

// ---- Sections that need only the trace and the options -----------------------------------------------------------
// A token of the analysis (verdict, scope, evidence source, workload kind) in the report's words; a token the table
// does not know yet (a user rule's own verdict) stays as it is.
static std::string word(const BuildContext& cx, const std::string& prefix, const std::string& token)
{
    const std::string id = prefix + token;
    return has_string(id) ? cx.s(id) : token;
}

// A trace warning in the report's language from its code and arguments (as sl::WarningText says it in the GUI);
// a code or argument set the table does not know keeps the analysis's English message.
static std::string warning_words(const BuildContext& cx, const WorkloadWarning& w)
{
    auto arg = [&](const char* k) -> std::string {
        const auto it = w.args.find(k);
        return it == w.args.end() ? std::string() : it->second;
    };
    auto num = [&](const char* k, int64_t& out) {
        const std::string v = arg(k);
        if (v.empty())
            return false;
        char* end = nullptr;
        errno = 0;
        const long long x = std::strtoll(v.c_str(), &end, 10);
        if (errno != 0 || end == v.c_str() || *end != '\0')
            return false;
        out = x;
        return true;
    };
    int64_t a = 0, b = 0, x = 0, y = 0;
    std::string msg;
    const std::string& c = w.code;
    if (c == "no_gpu_activity")
        msg = cx.s("wmsg.no_gpu_activity");
    else if (c == "no_kernels")
        msg = cx.s("wmsg.no_kernels");
    else if (c == "clock_skew" && w.args.count("reason"))
        msg = arg("corrected") == "true" && num("shift_ns", a)
                  ? cx.f("wmsg.clock_skew_corrected", {arg("reason"), fmt_duration(double(a))})
                  : cx.f("wmsg.clock_skew", {arg("reason")});
    else if (c == "unsupported_events_dropped" && num("events", a))
        msg = cx.f("wmsg.unsupported_events_dropped", {fmt_count(a), arg("kinds")});
    else if (c == "capture_too_short" && num("capture_ns", a) && num("kernels", b) && num("min_capture_ns", x) &&
             num("min_kernels", y))
        msg = cx.f(arg("short_of") == "kernels" ? "wmsg.capture_too_few_kernels"
                   : arg("short_of") == "time"  ? "wmsg.capture_too_brief"
                                                : "wmsg.capture_too_short",
                   {fmt_duration(double(a)), fmt_count(b), fmt_duration(double(x)), fmt_count(y)});
    else if (c == "warmup_included" && arg("cause") == "module_loads" && num("loads", a))
        msg = cx.f("wmsg.warmup_module_loads", {fmt_count(a)});
    else if (c == "warmup_included" && arg("cause") == "few_decode_steps" && num("decode_steps", a))
        msg = cx.f("wmsg.warmup_few_decode_steps", {fmt_count(a)});
    else if (c == "warmup_excluded" && num("steps", a) && num("steady_start_ns", x) && num("steady_end_ns", y))
        msg = cx.f("wmsg.warmup_excluded", {fmt_count(a), fmt_duration(double(x)), fmt_duration(double(y))});
    else
        msg = w.message;
    // English keeps the analysis's own sentence, which says a little more ("0 of them found slow").
    if (cx.lang != Lang::ZhCN && !w.message.empty())
        msg = w.message;
    return word(cx, "warn.", c) + (cx.lang == Lang::ZhCN ? "：" : ": ") + msg;
}

static std::string capture_text(const Trace& t)
{
    if (t.meta.capture_end <= t.meta.capture_start)
        return {};
    return fmt_duration(double(t.meta.capture_end - t.meta.capture_start));
}

// "What sets the step" (issue 35): the critical path per steady step (median length, summed shares), else over the
// whole trace, with its shares largest first; the value is the path's length in ns.
static Value what_sets_the_step(BuildContext& cx, const critpath::CriticalPathSummary& c)
{
    const critpath::SteadyPath p = critpath::steady_path(c);
    const critpath::PathShares& sh = p.shares;
    const int64_t total = p.total_ns, length = p.median_ns;
    std::string text = p.per_step ? cx.f("crit.per_step", {fmt_duration(double(length)), fmt_count(int64_t(p.steps))})
                                  : cx.f("crit.trace", {fmt_duration(double(length))});
    std::vector<std::pair<int64_t, const char*>> parts = {
        {sh.host_ns, "crit.host"}, {sh.launch_ns, "crit.launch"}, {sh.gpu_kernel_ns - sh.communication_ns, "crit.kernels"},
        {sh.communication_ns, "crit.comm"}, {sh.memcpy_memset_ns, "crit.copies"}, {sh.gpu_gap_ns, "crit.gaps"}};
    std::stable_sort(parts.begin(), parts.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    bool first = true;
    for (const auto& [ns, key] : parts)
        if (ns > 0 && total > 0) {
            text += std::string(first ? (cx.lang == Lang::ZhCN ? "：" : ": ") : (cx.lang == Lang::ZhCN ? "，" : ", ")) +
                    cx.s(key) + " " + fmt_percent(double(ns) / double(total));
            first = false;
        }
    return Value::num(double(length), text, "ns");
}

static Section build_overview(BuildContext& cx, const Report& r)
{
    Section sec{"overview", cx.s("sec.overview"), {}, {}};
    KeyValues kv{"overview", {}};
    kv.items.push_back({"run_id", cx.s("kv.run_id"), vtext(r.run_id)});
    kv.items.push_back({"generated_at", cx.s("kv.generated_at"), vtext(r.generated_at)});
    kv.items.push_back({"version", cx.s("kv.version"), vtext("Sightline " + r.version)});
    kv.items.push_back({"language", cx.s("kv.language"), vtext(lang_code(r.lang))});
    if (const Trace* t = cx.in.trace) {
        std::string fmt = t->meta.format;
        if (!t->meta.tool_version.empty())
            fmt += " (" + t->meta.tool_version + ")";
        kv.items.push_back({"trace_format", cx.s("kv.trace_format"), vtext(fmt)});
        if (!t->meta.source_path.empty())
            kv.items.push_back({"trace_path", cx.s("kv.trace_path"), vtext(escape_control_chars(t->meta.source_path))});
    }
    // What kind of run it is, and what to know before reading any number (issue 13: the warnings the CLI and the
    // GUI's header show, the report shows too, first).
    const AnalysisResult* a = cx.in.analysis;
    if (a) {
        const WorkloadResult& w = a->workload;
        std::string kind = word(cx, "wk.", workload_kind_name(w.kind)) + " · " + cx.f(std::string("ex.") + execution_mode_name(w.execution), {cx.runtime});
        if (!w.framework.empty())
            kind += " · " + w.framework;
        kv.items.push_back({"workload", cx.s("kv.workload"), vtext(kind)});
    }
    if (const critpath::CriticalPathSummary* c = cx.in.critical_path; c && c->computed && c->length_ns > 0)
        kv.items.push_back({"what_sets_step", cx.s("kv.what_sets_step"), what_sets_the_step(cx, *c)});
    sec.blocks.push_back(std::move(kv));
    if (a)
        for (const auto& w : a->workload.warnings)
            sec.blocks.push_back(Note{Note::Kind::Warning, cx.s("note.trace_warning") + " " + warning_words(cx, w)});
    return sec;
}

static Section build_environment(BuildContext& cx)
{
    Section sec{"environment", cx.s("sec.environment"), {}, {}};
    const Trace* t = cx.in.trace;
    const ReportOptions& o = cx.in.options;
    if (!t) {
        cx.missing(sec, "miss.trace", "eff.trace");
    } else {
        Table gpus{"gpus", cx.s("tbl.gpus"), {}, {}, -1};
        gpus.columns = {{"id", cx.s("col.device_id"), "", Align::Right},
                        {"rank", cx.s("col.rank"), "", Align::Right},
                        {"name", cx.s("col.gpu_name"), "", Align::Left},
                        {"sm_count", cx.s("col.sm_count"), "count", Align::Right},
                        {"memory", cx.s("col.memory"), "B", Align::Right},
                        {"bandwidth", cx.s("col.bandwidth"), "B/s", Align::Right},
                        {"clock", cx.s("col.clock"), "Hz", Align::Right},
                        {"cc", cx.s("col.compute_capability"), "", Align::Right}};
        const std::string unknown = cx.s("val.unknown");
        for (const DeviceInfo& d : t->meta.devices) {
            std::vector<Value> row;
            row.push_back(Value::num(d.id, std::to_string(d.id), ""));
            row.push_back(Value::num(d.rank, std::to_string(d.rank), ""));
            row.push_back(vtext(d.name.empty() ? unknown : d.name));
            row.push_back(d.sm_count > 0 ? vcount(d.sm_count) : vtext(unknown));
            row.push_back(d.total_memory_bytes > 0 ? vbytes(double(d.total_memory_bytes)) : vtext(unknown));
            row.push_back(d.memory_bandwidth_Bps > 0 ? Value::num(d.memory_bandwidth_Bps,
                                                                  fmt_si(d.memory_bandwidth_Bps, "B/s"), "B/s")
                                                     : vtext(unknown));
            row.push_back(d.clock_hz > 0 ? Value::num(double(d.clock_hz), fmt_si(double(d.clock_hz), "Hz"), "Hz")
                                         : vtext(unknown));
            row.push_back(d.compute_major > 0
                              ? vtext(std::to_string(d.compute_major) + "." + std::to_string(d.compute_minor))
                              : vtext(unknown));
            gpus.rows.push_back(std::move(row));
        }
        if (gpus.rows.empty())
            cx.missing(sec, "miss.gpus", "eff.gpus");
        else
            sec.blocks.push_back(std::move(gpus));

        KeyValues kv{"environment", {}};
        for (const auto& [k, v] : t->meta.environment)
            kv.items.push_back({"env." + k, k, vtext(v)});
        if (t->meta.environment.empty())
            cx.missing(sec, "miss.env_versions", "eff.env_versions");
        kv.items.push_back({"model", cx.s("kv.model"), vtext(o.model.empty() ? cx.s("val.not_given") : o.model)});
        kv.items.push_back({"shape", cx.s("kv.shape"), vtext(o.shape.empty() ? cx.s("val.not_given") : o.shape)});
        if (t->meta.capture_end > t->meta.capture_start)
            kv.items.push_back({"capture_window", cx.s("kv.capture_window"),
                                Value::num(double(t->meta.capture_end - t->meta.capture_start),
                                           capture_text(*t) + "  (" + fmt_count(t->meta.capture_start) + " – " +
                                               fmt_count(t->meta.capture_end) + " ns)",
                                           "ns")});
        kv.items.push_back({"kernels", cx.s("kv.kernels"), vcount(int64_t(t->kernels.size()))});
        kv.items.push_back({"memcpys", cx.s("kv.memcpys"), vcount(int64_t(t->memcpy.size()))});
        kv.items.push_back({"api_calls", cx.f("kv.api_calls", {cx.runtime}), vcount(int64_t(t->api.size()))});
        kv.items.push_back({"nvtx_ranges", cx.s("kv.ranges"),
                            vcount(int64_t(std::count_if(t->ranges.kind.begin(), t->ranges.kind.end(), [](RangeKind k) {
                                return k != RangeKind::PythonFunction;   // Python frames are not ranges of this count
                            })))});
        kv.items.push_back({"processes", cx.s("kv.processes"), vcount(int64_t(t->meta.processes.size()))});
        sec.blocks.push_back(std::move(kv));
    }

    // Input files with their hashes.
    Table files{"input_files", cx.s("tbl.input_files"), {}, {}, -1};
    files.columns = {{"path", cx.s("col.path"), "", Align::Left},
                     {"size", cx.s("col.size"), "B", Align::Right},
                     {"sha256", "SHA-256", "", Align::Left}};
    for (const std::string& path : cx.in.input_files) {
        std::error_code ec;
        const auto size = std::filesystem::file_size(path, ec);
        std::string hash;
        if (o.hash_inputs) {
            try {
                hash = sha256_hex_cached(cx, path);
            } catch (const std::exception&) {
                hash = cx.s("val.unreadable");
            }
        } else {
            hash = cx.s("val.not_computed");
        }
        files.rows.push_back({vtext(std::filesystem::path(path).filename().string()),
                              ec ? vtext(cx.s("val.unknown")) : vbytes(double(size)), vtext(hash)});
    }
    if (!files.rows.empty())
        sec.blocks.push_back(std::move(files));
    return sec;
}

std::string sha256_hex_cached(BuildContext& cx, const std::string& path)
{
    auto it = cx.file_hashes.find(path);
    if (it != cx.file_hashes.end())
        return it->second;
    std::string h = sha256_file(path);
    cx.file_hashes.emplace(path, h);
    return h;
}

// ---- Findings ------------------------------------------------------------------------------------------------------
static std::string gain_text(BuildContext& cx, const ExpectedGain& g)
{
    std::string t;
    if (g.computed || std::fabs(g.high - g.low) < 1e-12)
        t = fmt_percent(g.fraction);
    else
        t = fmt_fixed(g.low * 100, 1) + "–" + fmt_fixed(g.high * 100, 1) + " %";
    if (g.ns)
        t += " (" + fmt_duration(*g.ns) + ")";
    t += g.computed ? cx.s("val.gain_computed") : cx.s("val.gain_range");
    return t;
}

static std::string confidence_text(BuildContext& cx, const Confidence& c)
{
    return cx.s("conf." + (c.label.empty() ? confidence_label(c.value) : c.label)) + " (" + fmt_fixed(c.value, 2) +
           ")";
}

static std::string evidence_value(const Evidence& e) { return format_metric(e.metric, e.value); }

static Section build_findings(BuildContext& cx)
{
    Section sec{"findings", cx.s("sec.findings"), {}, {}};
    if (!cx.in.findings) {
        cx.missing(sec, "miss.findings", "eff.findings");
        return sec;
    }
    const std::vector<Finding>& all = *cx.in.findings;
    if (all.empty()) {
        sec.blocks.push_back(Paragraph{cx.s("txt.no_findings")});
        return sec;
    }
    std::vector<const Finding*> ranked;
    for (const Finding& f : all)
        ranked.push_back(&f);
    std::stable_sort(ranked.begin(), ranked.end(), [](const Finding* a, const Finding* b) {
        if (a->rank_score() != b->rank_score())
            return a->rank_score() > b->rank_score();
        return a->severity > b->severity;
    });
    sec.blocks.push_back(Paragraph{cx.f("txt.findings_intro", {std::to_string(ranked.size())})});

    // Overview table: one row per finding.
    Table overview{"findings_overview", cx.s("tbl.findings_overview"), {}, {}, -1};
    overview.columns = {{"rank", "#", "", Align::Right},
                        {"severity", cx.s("col.severity"), "", Align::Left},
                        {"title", cx.s("col.finding"), "", Align::Left},
                        {"subject", cx.s("col.subject"), "", Align::Left},
                        {"expected_gain", cx.s("col.expected_gain"), "fraction", Align::Right},
                        {"confidence", cx.s("col.confidence"), "", Align::Right}};
    overview.columns[3].max_chars = 48;
    const std::string lang = lang_code(cx.lang);
    int rank = 0;
    for (const Finding* f : ranked) {
        ++rank;
        overview.rows.push_back({Value::num(rank, std::to_string(rank), ""),
                                 vtext(cx.s(std::string("sev.") + severity_name(f->severity))),
                                 vtext(f->title.get(lang)), vtext(f->subject),
                                 Value::num(f->expected_gain.fraction, fmt_percent(f->expected_gain.fraction),
                                            "fraction"),
                                 Value::num(f->confidence.value, confidence_text(cx, f->confidence), "")});
    }
    sec.blocks.push_back(std::move(overview));

    rank = 0;
    for (const Finding* f : ranked) {
        ++rank;
        Section fs{"findings." + std::to_string(rank),
                   std::to_string(rank) + ". " + f->title.get(lang) + " — " + f->subject,
                   {},
                   {}};
        // Problem.
        if (!f->explanation.get(lang).empty())
            fs.blocks.push_back(Paragraph{cx.s("lbl.problem") + " " + f->explanation.get(lang)});
        KeyValues kv{"finding", {}};
        kv.items.push_back({"rule", cx.s("kv.rule"), vtext(f->rule)});
        kv.items.push_back({"verdict", cx.s("kv.verdict"), vtext(word(cx, "verdict.", f->verdict))});
        kv.items.push_back({"severity", cx.s("col.severity"), vtext(cx.s(std::string("sev.") + severity_name(f->severity)))});
        kv.items.push_back({"scope", cx.s("kv.scope"), vtext(word(cx, "scope.", scope_kind_name(f->scope)))});
        kv.items.push_back({"subject", cx.s("col.subject"), vtext(f->subject)});
        kv.items.push_back({"expected_gain", cx.s("col.expected_gain"),
                            Value::num(f->expected_gain.fraction, gain_text(cx, f->expected_gain), "fraction")});
        if (const auto& r = f->replayed_step) {   // issue 35 §4: the what-if's step time; the gain stays the ceiling
            const std::string change = r->change == "cuda-graphs" || r->change == "remove-sync" ? cx.s("chg." + r->change)
                                                                                               : r->change;
            kv.items.push_back({"replayed_step", cx.s("kv.replayed_step"),
                                Value::num(double(r->predicted_step_ns),
                                           cx.f("txt.replayed_step",
                                                {change, cx.s(r->step_source == "steps" ? "chg.tpot" : "chg.step"),
                                                 fmt_duration(double(r->baseline_step_ns)),
                                                 fmt_duration(double(r->predicted_step_ns)),
                                                 fmt_duration(double(r->predicted_lo_ns)),
                                                 fmt_duration(double(r->predicted_hi_ns))}),
                                           "ns")});
        }
        kv.items.push_back({"confidence", cx.s("col.confidence"),
                            Value::num(f->confidence.value, confidence_text(cx, f->confidence), "")});
        if (!f->confidence.reasons.empty()) {
            std::string reasons;
            for (const auto& r : f->confidence.reasons)
                reasons += (reasons.empty() ? "" : (cx.lang == Lang::ZhCN ? "；" : "; ")) + confidence_reason_text(r, cx.lang);
            kv.items.push_back({"confidence_reasons", cx.s("kv.confidence_reasons"), vtext(reasons)});
        }
        const std::string key = f->rule + "|" + f->subject;
        if (auto it = cx.in.options.finding_state.find(key); it != cx.in.options.finding_state.end())
            kv.items.push_back({"state", cx.s("kv.state"), vtext(cx.s("state." + it->second))});
        if (auto it = cx.in.options.finding_note.find(key); it != cx.in.options.finding_note.end())
            kv.items.push_back({"annotation", cx.s("kv.annotation"), vtext(escape_control_chars(it->second))});
        fs.blocks.push_back(std::move(kv));

        // Evidence.
        if (!f->evidence.empty()) {
            Table ev{"evidence", cx.s("tbl.evidence"), {}, {}, -1};
            ev.columns = {{"metric", cx.s("col.metric"), "", Align::Left},
                          {"value", cx.s("col.value"), "", Align::Right},
                          {"condition", cx.s("col.condition"), "", Align::Left},
                          {"source", cx.s("col.source"), "", Align::Left}};
            // The metric in words; its key (what rules are written in) starts the condition, or stands alone when
            // there is no threshold. A metric without words is its key already, said once.
            for (const Evidence& e : f->evidence) {
                const std::string label = metric_label(e.metric, cx.lang);
                std::string cond = label == e.metric ? std::string() : e.metric;
                if (!e.op.empty() && e.threshold)
                    cond += (cond.empty() ? "" : " ") + e.op + " " + format_metric(e.metric, *e.threshold);
                ev.rows.push_back({vtext(label), Value::num(e.value, evidence_value(e), ""), vtext(cond),
                                   vtext(word(cx, "src.", e.source))});
            }
            fs.blocks.push_back(std::move(ev));
        }
        // Suggestions with their gains and verification commands.
        int si = 0;
        for (const Suggestion& s : f->suggestions) {
            ++si;
            std::string line = cx.s("lbl.suggestion") + " " + std::to_string(si) + ": " + s.text.get(lang) + " " +
                               [&] {
                                   const std::string g = suggestion_gain_range(s.gain_low, s.gain_high);
                                   return cx.f("txt.suggestion_gain", {g.empty() ? cx.s("txt.no_direct_gain") : g,
                                                                       cx.s("risk." + (s.risk.empty() ? "medium" : s.risk))});
                               }();
            fs.blocks.push_back(Paragraph{line});
            const std::string skey = f->rule + "/" + s.id + "|" + f->subject;
            const auto st = cx.in.options.suggestion_state.find(skey);
            const auto note = cx.in.options.suggestion_note.find(skey);
            const bool decided = st != cx.in.options.suggestion_state.end() && st->second != "proposed";
            const bool noted = note != cx.in.options.suggestion_note.end() && !note->second.empty();
            if (decided || noted) {
                const std::string state = cx.s("state." + (st != cx.in.options.suggestion_state.end() ? st->second
                                                                                                       : std::string("proposed")));
                fs.blocks.push_back(Paragraph{noted ? cx.f("txt.suggestion_decision_note", {state, note->second})
                                                    : cx.f("txt.suggestion_decision", {state})});
            }
            if (!s.verify.empty()) {
                fs.blocks.push_back(Paragraph{cx.s("lbl.verify")});
                fs.blocks.push_back(Code{"sh", verify_for(s.verify, lang_code(cx.lang))});
            }
        }
        for (const std::string& r : f->confidence.reasons)
            cx.confidence_reasons.insert(confidence_reason_text(r, cx.lang));
        sec.children.push_back(std::move(fs));
    }
    return sec;
}

// ---- Headline ----------------------------------------------------------------------------------------------------
static const Chart* find_chart(const Section& s, const std::string& id)
{
    for (const Block& b : s.blocks)
        if (const Chart* c = std::get_if<Chart>(&b); c && c->id == id)
            return c;
    for (const Section& c : s.children)
        if (const Chart* found = find_chart(c, id))
            return found;
    return nullptr;
}

// With a trace-level headline: the one-page executive summary — the verdict, the three actions with their bounded
// gains (time and share of the end-to-end time), confidence and verify command, and the one chart the verdict is
// about (idle time by cause when the GPU waits, time per operator class when it is busy). The supporting sentences
// move to the top of "Where the time goes".
static Section build_executive_summary(BuildContext& cx, Section& time)
{
    const Headline& h = *cx.in.headline;
    const std::string lang = lang_code(cx.lang);
    Section sec{"headline", cx.s("sec.summary"), {}, {}};
    sec.blocks.push_back(Paragraph{h.statement.get(lang)});
    if (h.actions.empty()) {
        sec.blocks.push_back(Note{Note::Kind::Info, cx.s("hl.no_gain")});
    } else {
        Table t{"actions", cx.s("tbl.actions"), {}, {}, -1};
        t.columns = {{"rank", "#", "count", Align::Right},
                     {"action", cx.s("col.action"), "", Align::Left},
                     {"removes", cx.s("col.removes"), "", Align::Left},
                     {"gain", cx.s("col.gain_time"), "ns", Align::Right},
                     {"gain_fraction", cx.s("col.gain_e2e"), "fraction", Align::Right},
                     {"confidence", cx.s("col.confidence"), "", Align::Left}};
        for (size_t i = 0; i < h.actions.size(); ++i) {
            const HeadlineAction& a = h.actions[i];
            std::string what = a.text.get(lang);
            if (a.subject != "trace" && !a.subject.empty())
                what += " [" + a.subject_text.get(lang) + "]";
            const std::string conf = a.confidence_label.empty()
                                         ? std::string("—")
                                         : cx.s("conf." + a.confidence_label) + " (" + fmt_fixed(a.confidence, 2) + ")";
            t.rows.push_back({Value::num(double(i + 1), std::to_string(i + 1), "count"), vtext(what),
                              vtext(a.removes.empty() ? std::string("—") : a.removes_text.get(lang)),
                              vdur(a.gain_ns), vpct(a.gain_fraction), Value::num(a.confidence, conf, "")});
        }
        sec.blocks.push_back(std::move(t));
        for (size_t i = 0; i < h.actions.size(); ++i) {
            if (h.actions[i].verify.empty())
                continue;
            sec.blocks.push_back(Paragraph{cx.f("hl.verify_action", {std::to_string(i + 1)})});
            sec.blocks.push_back(Code{"sh", verify_for(h.actions[i].verify, lang_code(cx.lang))});
        }
    }
    // The key chart: what the verdict is about.
    const bool waits = h.bound == "host" || h.bound == "sync" || h.bound == "balanced" ||
                       (h.bound == "unknown" && h.idle_ns > 0);
    const Chart* key = find_chart(time, waits ? "idle_causes" : "op_classes");
    if (!key)
        key = find_chart(time, waits ? "op_classes" : "idle_causes");
    if (key) {
        Chart c = *key;
        c.id = "summary_" + key->id;
        sec.blocks.push_back(std::move(c));
    }
    std::vector<std::string> sentences;
    headline_time_sentences(cx, sentences);
    if (!sentences.empty()) {
        std::string text;
        for (const auto& s : sentences)
            text += (text.empty() ? "" : " ") + s;
        time.blocks.insert(time.blocks.begin(), Paragraph{text});
    }
    return sec;
}

static Section build_headline(BuildContext& cx)
{
    Section sec{"headline", cx.s("sec.headline"), {}, {}};
    std::vector<std::string> sentences;
    const std::string lang = lang_code(cx.lang);
    headline_time_sentences(cx, sentences);
    if (cx.in.findings && !cx.in.findings->empty()) {
        std::vector<const Finding*> ranked;
        for (const Finding& f : *cx.in.findings)
            ranked.push_back(&f);
        std::stable_sort(ranked.begin(), ranked.end(),
                         [](const Finding* a, const Finding* b) { return a->rank_score() > b->rank_score(); });
        sentences.push_back(cx.f("hl.dominant", {word(cx, "verdict.", ranked[0]->verdict), ranked[0]->title.get(lang),
                                                 ranked[0]->subject}));
        // The top three distinct actions (several findings can share one suggestion).
        std::set<std::string> seen;
        int n = 0;
        for (size_t i = 0; i < ranked.size() && n < 3; ++i) {
            const Finding* f = ranked[i];
            std::string action = f->suggestions.empty() ? f->title.get(lang) : f->suggestions[0].text.get(lang);
            if (!seen.insert(action).second)
                continue;
            ++n;
            action += " [" + f->subject + "]";
            sentences.push_back(cx.f("hl.action", {std::to_string(n), action, gain_text(cx, f->expected_gain),
                                                   confidence_text(cx, f->confidence)}));
        }
    } else if (cx.in.findings) {
        sentences.push_back(cx.s("hl.no_findings"));
    }
    if (sentences.empty()) {
        cx.missing(sec, "miss.headline", "eff.headline");
        return sec;
    }
    std::string text;
    for (const auto& s : sentences)
        text += (text.empty() ? "" : " ") + s;
    sec.blocks.push_back(Paragraph{text});
    return sec;
}

// ---- Appendix --------------------------------------------------------------------------------------------------------
static Section build_appendix(BuildContext& cx)
{
    Section sec{"appendix", cx.s("sec.appendix"), {}, {}};
    const ReportOptions& o = cx.in.options;

    Section th{"appendix.thresholds", cx.s("sec.thresholds"), {}, {}};
    Table t{"thresholds", cx.s("tbl.thresholds"), {}, {}, -1};
    t.columns = {{"name", cx.s("col.option"), "", Align::Left}, {"value", cx.s("col.value"), "", Align::Right}};
    std::map<std::string, std::string> all = cx.thresholds;
    for (const auto& [k, v] : o.thresholds)
        all[k] = v;
    all["report.top_kernels"] = std::to_string(o.top_kernels);
    all["report.max_step_rows"] = std::to_string(o.max_step_rows);
    all["report.max_gap_rows"] = std::to_string(o.max_gap_rows);
    for (const auto& [k, v] : all)
        t.rows.push_back({vtext(k), vtext(v)});
    th.blocks.push_back(std::move(t));
    sec.children.push_back(std::move(th));

    Section rf{"appendix.rules", cx.s("sec.rule_files"), {}, {}};
    if (o.rule_files.empty()) {
        rf.blocks.push_back(Paragraph{cx.s("txt.no_rule_files")});
    } else {
        Table r{"rule_files", cx.s("tbl.rule_files"), {}, {}, -1};
        r.columns = {{"file", cx.s("col.path"), "", Align::Left}, {"version", cx.s("col.version"), "", Align::Left}};
        for (const auto& [k, v] : o.rule_files)
            r.rows.push_back({vtext(k), vtext(v)});
        rf.blocks.push_back(std::move(r));
    }
    sec.children.push_back(std::move(rf));

    Section md{"appendix.missing", cx.s("sec.missing"), {}, {}};
    if (cx.missing_data.empty()) {
        md.blocks.push_back(Paragraph{cx.s("txt.nothing_missing")});
    } else {
        Table m{"missing_data", cx.s("tbl.missing"), {}, {}, -1};
        m.columns = {{"what", cx.s("col.missing_what"), "", Align::Left},
                     {"effect", cx.s("col.missing_effect"), "", Align::Left}};
        for (const auto& [what, effect] : cx.missing_data)
            m.rows.push_back({vtext(what), vtext(effect)});
        md.blocks.push_back(std::move(m));
    }
    if (!cx.confidence_reasons.empty()) {
        md.blocks.push_back(Paragraph{cx.s("txt.confidence_reasons")});
        md.blocks.push_back(Bullets{{cx.confidence_reasons.begin(), cx.confidence_reasons.end()}});
    }
    sec.children.push_back(std::move(md));

    std::vector<std::string> warnings;
    if (cx.in.summary)
        warnings = cx.in.summary->warnings;
    else if (cx.in.trace)
        warnings = cx.in.trace->meta.warnings;
    warnings.insert(warnings.begin(), o.notes.begin(), o.notes.end());
    if (!warnings.empty()) {
        Section w{"appendix.warnings", cx.s("sec.warnings"), {}, {}};
        w.blocks.push_back(Bullets{warnings});
        sec.children.push_back(std::move(w));
    }
    return sec;
}

// ---- Entry point ---------------------------------------------------------------------------------------------------
static std::string derive_run_id(BuildContext& cx)
{
    Sha256 h;
    for (const std::string& p : cx.in.input_files) {
        std::string v;
        if (cx.in.options.hash_inputs) {
            try {
                v = sha256_hex_cached(cx, p);
            } catch (const std::exception&) {
                v = p;
            }
        } else {
            v = p;
        }
        h.update(v);
    }
    if (const Trace* t = cx.in.trace) {
        h.update(std::to_string(t->meta.capture_start) + ":" + std::to_string(t->meta.capture_end) + ":" +
                 std::to_string(t->kernels.size()));
    }
    return "r" + h.hex().substr(0, 12);
}

// The summary a reader forwards: the sections and tables of the full report that carry the verdict (see Detail).
// Built from the full document so both say the same numbers.
static void summarise(Report& r, BuildContext& cx)
{
    const ReportOptions& o = cx.in.options;
    std::vector<Section> all = std::move(r.sections);
    r.sections.clear();
    auto take = [&all](const std::string& id) -> std::optional<Section> {
        for (Section& s : all)
            if (s.id == id) {
                Section out = std::move(s);
                s.id.clear();
                return out;
            }
        return std::nullopt;
    };
    auto has_chart = [](const Section& s, const std::string& id) { return find_chart(s, id) != nullptr; };
    std::optional<Section> headline = take("headline");
    auto drop_chart = [](Section& s, const std::string& id) {
        s.blocks.erase(std::remove_if(s.blocks.begin(), s.blocks.end(),
                                      [&](const Block& b) {
                                          const Chart* c = std::get_if<Chart>(&b);
                                          return c && c->id == id;
                                      }),
                       s.blocks.end());
    };
    if (std::optional<Section> overview = take("overview")) {
        overview->blocks.push_back(Note{Note::Kind::Info, cx.s("txt.summary_detail")});
        if (headline)
            r.sections.push_back(std::move(*headline));
        r.sections.push_back(std::move(*overview));
    } else if (headline) {
        r.sections.push_back(std::move(*headline));
    }
    if (std::optional<Section> time = take("time")) {
        std::vector<Section> kept;
        for (Section& c : time->children) {
            if (c.id == "time.devices" || c.id == "time.op_classes" || c.id == "time.idle" ||
                c.id == "time.top_kernels" || c.id == "time.phases") {
                c.children.clear();   // time.steps: one row per decode step
                kept.push_back(std::move(c));
            }
        }
        for (Section& c : kept) {
            // The executive summary already shows one of these charts.
            if (!r.sections.empty() && r.sections.front().id == "headline") {
                if (has_chart(r.sections.front(), "summary_op_classes"))
                    drop_chart(c, "op_classes");
                if (has_chart(r.sections.front(), "summary_idle_causes"))
                    drop_chart(c, "idle_causes");
            }
            if (c.id == "time.top_kernels") {
                drop_chart(c, "top_kernels");
                for (Block& b : c.blocks)
                    if (Table* t = std::get_if<Table>(&b); t && t->rows.size() > size_t(std::max(1, o.summary_top_kernels))) {
                        if (t->total_rows < 0)
                            t->total_rows = int64_t(t->rows.size());
                        t->rows.resize(size_t(std::max(1, o.summary_top_kernels)));
                    }
            }
        }
        time->children = std::move(kept);
        r.sections.push_back(std::move(*time));
    }
    if (std::optional<Section> findings = take("findings")) {
        const size_t n = size_t(std::max(0, o.summary_findings));
        if (findings->children.size() > n) {
            const size_t more = findings->children.size() - n;
            findings->children.resize(n);
            findings->blocks.push_back(Note{Note::Kind::Info, cx.f("txt.summary_more_findings", {std::to_string(more)})});
        }
        r.sections.push_back(std::move(*findings));
    }
    if (std::optional<Section> roof = take("roofline")) {
        // The verdict, the GPU's roofs and the chart; the cost model's tables (per class and phase, per operator)
        // and the Nsight Compute deep dive (the kernels to profile and the ncu command) are the full report's: with
        // them the sample's summary ran to 10 pages.
        roof->blocks.erase(std::remove_if(roof->blocks.begin(), roof->blocks.end(),
                                          [](const Block& b) {
                                              const Table* t = std::get_if<Table>(&b);
                                              return t && (t->id == "roofline_operators" || t->id == "roofline_classes");
                                          }),
                           roof->blocks.end());
        roof->children.erase(std::remove_if(roof->children.begin(), roof->children.end(),
                                            [](const Section& c) { return c.id == "roofline.focus"; }),
                             roof->children.end());
        r.sections.push_back(std::move(*roof));
    }
    for (const char* id : {"environment", "seen_before"})
        if (std::optional<Section> s = take(id))
            r.sections.push_back(std::move(*s));
}

Section findings_section(const std::vector<Finding>& findings, const ReportOptions& options)
{
    ReportInputs in;
    in.findings = &findings;
    in.options = options;
    BuildContext cx{in, options.lang};
    return build_findings(cx);
}

Report build_report(const ReportInputs& in)
{
    BuildContext cx{in, in.options.lang};
    Report r;
    r.lang = in.options.lang;
    r.version = SIGHTLINE_VERSION;
    r.detail = in.options.detail;
    r.trace_name = in.trace ? trace_display_name(in.trace->meta.source_path) : std::string();
    r.title = !in.options.title.empty() ? in.options.title
              : r.trace_name.empty()    ? cx.s("title.default")
                                        : cx.f("title.trace", {r.trace_name});
    r.generated_at = in.options.generated_at.empty() ? utc_now_iso() : in.options.generated_at;
    r.run_id = in.options.run_id.empty() ? derive_run_id(cx) : in.options.run_id;

    // Built in this order (the appendix lists what each lacked, in build order); the time, Roofline and findings
    // sections are built before the headline, which quotes them, and placed after it.
    Section overview = build_overview(cx, r);
    Section environment = build_environment(cx);
    Section time = build_time_section(cx);
    Section roof = build_roofline_section(cx);
    Section findings = build_findings(cx);
    Section headline = in.headline ? build_executive_summary(cx, time) : build_headline(cx);
    if (in.headline)   // the trace-level verdict leads the report
        r.sections.push_back(std::move(headline));
    r.sections.push_back(std::move(overview));
    r.sections.push_back(std::move(environment));
    if (in.environment_history)
        r.sections.push_back(build_seen_before_section(*in.environment_history, in.kb_path, cx.lang));
    if (!in.headline)
        r.sections.push_back(std::move(headline));
    r.sections.push_back(std::move(time));
    r.sections.push_back(std::move(roof));
    r.sections.push_back(std::move(findings));
    r.sections.push_back(build_appendix(cx));
    if (r.detail == Detail::Summary)
        summarise(r, cx);
    return r;
}

} // namespace sl::report
