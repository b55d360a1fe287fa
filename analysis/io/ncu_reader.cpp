#include "analysis/io/ncu_reader.h"

#include "analysis/io/input_bounds.h"
#include "analysis/trace/errors.h"
#include "analysis/io/ncu_metrics.h"
#include "analysis/io/regex.h"
#include "analysis/io/process.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <unistd.h>
#include <sys/wait.h>

namespace sl {

const NcuValue* NcuLaunch::find(const std::string& metric) const
{
    auto it = metrics.find(metric);
    return it == metrics.end() ? nullptr : &it->second;
}

std::optional<double> NcuLaunch::number(const std::string& metric) const
{
    const NcuValue* v = find(metric);
    return v ? v->number : std::nullopt;
}

bool read_csv_record(const std::string& text, size_t& pos, std::vector<std::string>& fields, bool* unterminated)
{
    fields.clear();
    if (pos >= text.size())
        return false;
    std::string cur;
    bool in_quotes = false, quoted_field = false;
    while (pos < text.size()) {
        const char c = text[pos];
        if (in_quotes) {
            if (c == '"') {
                if (pos + 1 < text.size() && text[pos + 1] == '"') {
                    cur += '"';
                    pos += 2;
                    continue;
                }
                in_quotes = false;
                ++pos;
                continue;
            }
            cur += c;
            ++pos;
            continue;
        }
        if (c == '"' && (cur.empty() && !quoted_field)) {
            in_quotes = quoted_field = true;
            ++pos;
            continue;
        }
        if (c == ',') {
            fields.push_back(std::move(cur));
            cur.clear();
            quoted_field = false;
            ++pos;
            continue;
        }
        if (c == '\r' || c == '\n') {
            ++pos;
            if (c == '\r' && pos < text.size() && text[pos] == '\n')
                ++pos;
            break;
        }
        cur += c;
        ++pos;
    }
    fields.push_back(std::move(cur));
    if (unterminated)
        *unterminated = in_quotes;
    return true;
}

namespace {

// Why a field is not a number, for the warnings (ValueIssues).
enum class NumberIssue { None, Empty, Text, NotAvailable, NotFinite, Malformed };

std::optional<double> parse_number_checked(const std::string& raw, char dec, NumberIssue& issue)
{
    issue = NumberIssue::None;
    const size_t b = raw.find_first_not_of(" \t");
    const size_t e = raw.find_last_not_of(" \t");
    if (b == std::string::npos) {
        issue = NumberIssue::Empty;
        return std::nullopt;
    }
    const std::string s = raw.substr(b, e - b + 1);
    if (s == "n/a" || s == "N/A" || s == "-") {
        issue = NumberIssue::NotAvailable;
        return std::nullopt;
    }
    {
        std::string l;
        for (char c : s)
            l += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        const std::string_view u = l[0] == '-' || l[0] == '+' ? std::string_view(l).substr(1) : std::string_view(l);
        if (u == "nan" || u == "inf" || u == "infinity" || u == "-nan" || u == "nan(ind)") {
            issue = NumberIssue::NotFinite;
            return std::nullopt;
        }
    }
    const char thousands = dec == ',' ? '.' : ',';
    // Mantissa [exponent]: digit groups only in the integer part, by three after a first group of one to three
    // ("1,234,567"); "1,2,3" is not 123.
    const size_t epos = s.find_first_of("eE");
    const std::string mant = s.substr(0, epos), ex = epos == std::string::npos ? std::string() : s.substr(epos + 1);
    for (char c : s)
        if (!std::isdigit(static_cast<unsigned char>(c)) && c != '-' && c != '+' && c != 'e' && c != 'E' && c != dec &&
            c != thousands) {
            issue = NumberIssue::Text;   // text value (cudaFuncCachePreferNone, PolicySpread, ...)
            return std::nullopt;
        }
    size_t i = 0;
    std::string t;
    if (i < mant.size() && (mant[i] == '-' || mant[i] == '+'))
        t += mant[i++];
    const size_t dpos = mant.find(dec, i);
    const std::string int_part = mant.substr(i, dpos == std::string::npos ? std::string::npos : dpos - i);
    const std::string frac = dpos == std::string::npos ? std::string() : mant.substr(dpos + 1);
    auto digits = [](const std::string& x) {
        return std::all_of(x.begin(), x.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
    };
    bool ok = digits(frac) && (int_part.size() + frac.size() > 0) && (int_part.empty() ? dpos != std::string::npos : true);
    if (ok && int_part.find(thousands) != std::string::npos) {
        size_t g = 0, first = int_part.find(thousands);
        ok = first >= 1 && first <= 3 && digits(int_part.substr(0, first));
        for (g = first; ok && g != std::string::npos;) {
            const size_t next = int_part.find(thousands, g + 1);
            const std::string group = int_part.substr(g + 1, next == std::string::npos ? std::string::npos : next - g - 1);
            ok = group.size() == 3 && digits(group);
            g = next;
        }
    } else if (ok) {
        ok = digits(int_part);
    }
    if (ok && epos != std::string::npos) {
        size_t k = 0;
        if (k < ex.size() && (ex[k] == '-' || ex[k] == '+'))
            ++k;
        ok = k < ex.size() && digits(ex.substr(k));
    }
    if (!ok) {
        issue = NumberIssue::Malformed;
        return std::nullopt;
    }
    for (char c : int_part)
        if (c != thousands)
            t += c;
    if (!frac.empty() || dpos != std::string::npos)
        t += "." + frac;
    if (epos != std::string::npos)
        t += "e" + ex;
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(t.c_str(), &end);
    if (end != t.c_str() + t.size()) {
        issue = NumberIssue::Malformed;
        return std::nullopt;
    }
    if (errno == ERANGE || !std::isfinite(v)) {
        issue = NumberIssue::NotFinite;
        return std::nullopt;
    }
    return v;
}

} // namespace

std::optional<double> parse_ncu_number(const std::string& raw, char dec)
{
    NumberIssue issue;
    return parse_number_checked(raw, dec, issue);
}

bool normalize_ncu_unit(const std::string& unit_in, double& scale, std::string& base)
{
    scale = 1;
    std::string u;
    for (char c : unit_in)
        if (c != ' ')
            u += c;
    std::string l;
    for (char c : u)
        l += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    base = l;
    if (l.empty() || l == "%")
        return true;
    // time
    static const std::pair<const char*, double> times[] = {{"nsecond", 1}, {"ns", 1}, {"usecond", 1e3}, {"us", 1e3},
                                                          {"msecond", 1e6}, {"ms", 1e6}, {"second", 1e9}, {"s", 1e9}};
    for (const auto& [n, f] : times)
        if (l == n) {
            scale = f;
            base = "ns";
            return true;
        }
    // frequency
    static const std::pair<const char*, double> freqs[] = {
        {"cycle/nsecond", 1e9}, {"cycle/ns", 1e9}, {"cycle/usecond", 1e6}, {"cycle/us", 1e6}, {"cycle/msecond", 1e3},
        {"cycle/ms", 1e3}, {"cycle/second", 1}, {"cycle/s", 1}, {"hz", 1}, {"khz", 1e3}, {"mhz", 1e6}, {"ghz", 1e9}};
    for (const auto& [n, f] : freqs)
        if (l == n) {
            scale = f;
            base = "hz";
            return true;
        }
    // prefixed quantities: byte, inst, cycle, sector, warp, thread, block, request, wavefront (+ "/second", "/s")
    double prefix = 1;
    std::string rest = l;
    const char p = l[0];
    const bool has_prefix = l.size() > 1 && (p == 'k' || p == 'm' || p == 'g' || p == 't') &&
                            std::isalpha(static_cast<unsigned char>(l[1])) && l.rfind("thread", 0) != 0;
    if (has_prefix) {
        prefix = p == 'k' ? 1e3 : p == 'm' ? 1e6 : p == 'g' ? 1e9 : 1e12;
        rest = l.substr(1);
        if (rest.rfind("i", 0) == 0 && rest.rfind("inst", 0) != 0) {   // Kibyte, Mibyte: powers of 1024
            prefix = p == 'k' ? 1024.0 : p == 'm' ? 1048576.0 : p == 'g' ? 1073741824.0 : 1099511627776.0;
            rest = rest.substr(1);
        }
    }
    if (rest == "b")
        rest = "byte";
    std::string per;
    if (const auto slash = rest.find('/'); slash != std::string::npos) {
        per = rest.substr(slash + 1);
        rest = rest.substr(0, slash);
    }
    static const char* quantities[] = {"byte", "inst", "cycle", "sector", "warp", "thread", "block", "request",
                                       "wavefront", "register", "sm", "cluster", "tpc", "op", "flop"};
    bool known = false;
    for (const char* q : quantities)
        if (rest == q)
            known = true;
    if (!known) {
        if (has_prefix)
            return false;
        base = l;
        return false;
    }
    if (per == "s" || per == "second") {
        base = rest + "/second";
    } else if (per == "nsecond" || per == "ns") {
        base = rest + "/second";
        prefix *= 1e9;
    } else if (per == "usecond" || per == "us") {
        base = rest + "/second";
        prefix *= 1e6;
    } else if (per == "msecond" || per == "ms") {
        base = rest + "/second";
        prefix *= 1e3;
    } else {
        base = per.empty() ? rest : rest + "/" + per;
    }
    scale = prefix;
    return true;
}

namespace {

std::string trim(const std::string& s)
{
    const auto b = s.find_first_not_of(" \t\r\n");
    if (b == std::string::npos)
        return {};
    const auto e = s.find_last_not_of(" \t\r\n");
    return s.substr(b, e - b + 1);
}

std::string excerpt(const std::string& s, size_t n = 80)
{
    std::string t = s.substr(0, n);
    for (auto& c : t)
        if (c == '\n' || c == '\r')
            c = ' ';
    return "'" + t + (s.size() > n ? "...'" : "'");
}

// Decides the decimal separator from the values: a comma followed by other than exactly three digits (or a dot
// followed by exactly three digits, repeatedly, then a comma) means a swapped locale.
char detect_decimal(const std::vector<std::string>& values)
{
    static const Regex comma_decimal(R"(^-?\d{1,3}(\.\d{3})*,\d+$|^-?\d+,\d{1,2}$|^-?\d+,\d{4,}$)");
    static const Regex dot_decimal(R"(^-?\d{1,3}(,\d{3})*\.\d+$|^-?\d+\.\d{1,2}$|^-?\d+\.\d{4,}$)");
    int comma = 0, dot = 0;
    for (const auto& v : values) {
        if (v.size() > 40 || v.empty())
            continue;
        if (comma_decimal.full_match(v))
            ++comma;
        else if (dot_decimal.full_match(v))
            ++dot;
    }
    return comma > dot ? ',' : '.';
}

// Values that are not numbers where ncu prints numbers, counted per kind into one warning each (with the first
// one's line, metric and text): misplaced digit groups, nan/inf, n/a, and negative durations (dropped: no time is
// negative).
struct ValueIssues {
    struct Kind {
        size_t count = 0, line = 0;
        std::string metric, text;
    };
    Kind malformed, not_finite, not_available, negative;
    size_t line = 0;          // where the value being read is
    std::string metric;

    void note(Kind& k, const std::string& text)
    {
        if (k.count++ == 0) {
            k.line = line;
            k.metric = metric;
            k.text = text;
        }
    }
    void warn(NcuReport& r) const
    {
        auto first = [](const Kind& k) {
            return "first at line " + std::to_string(k.line) + (k.metric.empty() ? "" : ", " + k.metric) + ": " +
                   quote_prefix(k.text);
        };
        auto values = [](size_t n, const char* one, const char* many) {
            return std::to_string(n) + (n == 1 ? " value " + std::string(one) : " values " + std::string(many));
        };
        if (malformed.count)
            r.warnings.push_back(values(malformed.count, "with misplaced digit-group or decimal separators was not read "
                                                         "as a number",
                                        "with misplaced digit-group or decimal separators were not read as numbers") +
                                 " (" + first(malformed) + "; digits group by three, as in 1,234,567)");
        if (not_finite.count)
            r.warnings.push_back(values(not_finite.count, "is nan or infinite and counts as missing",
                                        "are nan or infinite and count as missing") + " (" + first(not_finite) + ")");
        if (not_available.count)
            r.warnings.push_back(values(not_available.count, "is n/a and counts as missing", "are n/a and count as missing") +
                                 " (" + first(not_available) + ")");
        if (negative.count)
            r.warnings.push_back(std::to_string(negative.count) + " negative duration" + (negative.count == 1 ? " was" : "s were") +
                                 " dropped (" + first(negative) + ")");
    }
};

NcuValue make_value(const std::string& text, const std::string& unit, const std::string& section, char dec,
                    std::vector<std::string>& unknown_units, ValueIssues& issues)
{
    NcuValue v;
    v.text = text;
    v.unit = unit;
    v.section = section;
    double scale = 1;
    std::string base;
    if (!normalize_ncu_unit(unit, scale, base)) {
        if (std::find(unknown_units.begin(), unknown_units.end(), unit) == unknown_units.end())
            unknown_units.push_back(unit);
        scale = 1;
        base = unit;
    }
    v.base_unit = base;
    NumberIssue issue;
    if (auto n = parse_number_checked(text, dec, issue)) {
        if (base == "ns" && *n < 0)
            issues.note(issues.negative, text + (unit.empty() ? "" : " " + unit));
        else
            v.number = *n * scale;
    } else if (issue == NumberIssue::Malformed) {
        issues.note(issues.malformed, text);
    } else if (issue == NumberIssue::NotFinite) {
        issues.note(issues.not_finite, text);
    } else if (issue == NumberIssue::NotAvailable) {
        issues.note(issues.not_available, text);
    }
    return v;
}

int column(const std::vector<std::string>& header, const char* name)
{
    for (size_t i = 0; i < header.size(); ++i)
        if (header[i] == name)
            return static_cast<int>(i);
    return -1;
}

std::string field(const std::vector<std::string>& row, int col)
{
    return col >= 0 && static_cast<size_t>(col) < row.size() ? row[static_cast<size_t>(col)] : std::string();
}

NcuLaunch& launch_for(NcuReport& r, std::map<int64_t, size_t>& index, int64_t id)
{
    auto it = index.find(id);
    if (it != index.end())
        return r.launches[it->second];
    index[id] = r.launches.size();
    r.launches.emplace_back();
    r.launches.back().id = id;
    return r.launches.back();
}

void fill_identity(NcuLaunch& l, const std::vector<std::string>& h, const std::vector<std::string>& row)
{
    auto set = [&](std::string& dst, const char* name) {
        const std::string v = field(row, column(h, name));
        if (!v.empty() && dst.empty())
            dst = v;
    };
    set(l.name, "Kernel Name");
    set(l.process, "Process Name");
    set(l.device, "Device");
    set(l.cc, "CC");
    set(l.block, "Block Size");
    set(l.grid, "Grid Size");
    set(l.context, "Context");
    set(l.stream, "Stream");
    if (l.pid == 0)
        if (auto p = parse_ncu_number(field(row, column(h, "Process ID"))); p && *p >= 0 && *p < 9.0e18)
            l.pid = static_cast<int64_t>(*p);   // a cast of a larger double would be undefined
}

int64_t parse_id(const std::string& s, const std::string& file, size_t line)
{
    const auto v = parse_ncu_number(s);
    if (!v || !(*v >= 0 && *v < 9.0e18) || *v != static_cast<double>(static_cast<int64_t>(*v)))
        throw TraceError(file, "line " + std::to_string(line) + ", column ID", "a launch ID (a non-negative integer)",
                         excerpt(s));
    return static_cast<int64_t>(*v);
}

// Rows with fewer fields than the header (a cut line, one lone field) are kept with their missing fields empty, and
// counted into one warning that names the first lines, so they are never accepted silently.
struct ShortRows {
    size_t count = 0, expected = 0;
    std::vector<size_t> lines;
    void note(size_t fields, size_t header, size_t line)
    {
        if (fields >= header)
            return;
        ++count;
        expected = header;
        if (lines.size() < 5)
            lines.push_back(line);
    }
    void warn(NcuReport& r) const
    {
        if (!count)
            return;
        std::string where;
        for (size_t l : lines)
            where += (where.empty() ? "" : ", ") + std::to_string(l);
        r.warnings.push_back(std::to_string(count) + " CSV row" + (count == 1 ? "" : "s") + " with fewer fields than the header's " +
                             std::to_string(expected) + " (line" + (count == 1 ? " " : "s ") + where +
                             (count > lines.size() ? ", ..." : "") + "): missing fields read as empty");
    }
};

// The next record after an ncu CSV's header (both the details page and the raw page): blank lines and ncu's own
// "==PROF==" lines passed over, a quote left open and more fields than the header's (one more: a trailing comma)
// refused with the line; false at the end of the text. line counts the records read.
bool next_data_record(const std::string& text, size_t& pos, std::vector<std::string>& fields, size_t& line,
                      size_t header_fields, const std::string& file)
{
    bool open_quote = false;
    while (read_csv_record(text, pos, fields, &open_quote)) {
        ++line;
        if (open_quote)
            throw TraceError(file, "line " + std::to_string(line), "a closing quote (RFC-4180 field)",
                             "a quoted field running to the end of the file");
        if (fields.size() == 1 && trim(fields[0]).empty())
            continue;
        if (!fields.empty() && fields[0].rfind("==PROF==", 0) == 0)
            continue;
        if (fields.size() > header_fields + 1)
            throw TraceError(file, "line " + std::to_string(line),
                             "at most " + std::to_string(header_fields) + " fields (the header's count)",
                             std::to_string(fields.size()) + " fields");
        return true;
    }
    return false;
}

void parse_details_csv(NcuReport& r, const std::string& text, size_t pos, size_t line, const std::string& file,
                       const NcuReadOptions& opt)
{
    std::vector<std::string> header;
    read_csv_record(text, pos, header);
    ++line;
    const int c_id = column(header, "ID"), c_sec = column(header, "Section Name"), c_name = column(header, "Metric Name"),
              c_unit = column(header, "Metric Unit"), c_val = column(header, "Metric Value"),
              c_rule = column(header, "Rule Name"), c_type = column(header, "Rule Type"),
              c_desc = column(header, "Rule Description"), c_sut = column(header, "Estimated Speedup Type"),
              c_su = column(header, "Estimated Speedup"), c_kn = column(header, "Kernel Name");
    if (c_kn < 0)
        throw TraceError(file, "line " + std::to_string(line), "a \"Kernel Name\" column in the ncu CSV header",
                         "columns " + excerpt(text.substr(0, 200)));
    if (c_val < 0)   // a details page without values would give launches with no counters at all
        throw TraceError(file, "line " + std::to_string(line), "a \"Metric Value\" column in the ncu details CSV header",
                         "columns " + excerpt(text.substr(0, 200)));
    ShortRows short_rows;

    struct Row {
        std::vector<std::string> f;
        size_t line;
    };
    std::vector<Row> rows;
    std::vector<std::string> fields, values;
    while (next_data_record(text, pos, fields, line, header.size(), file)) {
        if (fields.size() < 2)
            throw TraceError(file, "line " + std::to_string(line), "a CSV row of the ncu details page",
                             excerpt(fields.empty() ? std::string() : fields[0]));
        short_rows.note(fields.size(), header.size(), line);
        values.push_back(field(fields, c_val));
        rows.push_back({fields, line});
    }
    short_rows.warn(r);
    r.decimal_separator = opt.decimal_separator ? opt.decimal_separator : detect_decimal(values);
    std::map<int64_t, size_t> index;
    std::vector<std::string> unknown_units;
    ValueIssues issues;
    for (const auto& row : rows) {
        const int64_t id = parse_id(field(row.f, c_id), file, row.line);
        NcuLaunch& l = launch_for(r, index, id);
        fill_identity(l, header, row.f);
        const std::string sec = field(row.f, c_sec), name = field(row.f, c_name);
        const std::string rule = field(row.f, c_rule), type = field(row.f, c_type);
        if (!name.empty()) {
            const std::string unit = field(row.f, c_unit);
            issues.line = row.line;
            issues.metric = name;
            NcuValue v = make_value(field(row.f, c_val), unit, sec, r.decimal_separator, unknown_units, issues);
            const std::string key = ncu_metric_key(sec, name, v.base_unit);
            l.metrics.emplace(key, std::move(v));   // first (ID, section, metric) wins: duplicates ignored
        }
        if (!rule.empty() || !type.empty()) {
            NcuRule ru;
            ru.section = sec;
            ru.name = rule;
            ru.type = type;
            ru.description = field(row.f, c_desc);
            ru.speedup_type = field(row.f, c_sut);
            ru.speedup_pct = parse_ncu_number(field(row.f, c_su), r.decimal_separator);
            l.rules.push_back(std::move(ru));
        }
    }
    for (const auto& u : unknown_units)
        r.warnings.push_back("unknown unit '" + u + "': values kept as printed");
    issues.warn(r);
    std::sort(r.launches.begin(), r.launches.end(), [](const NcuLaunch& a, const NcuLaunch& b) { return a.id < b.id; });
}

void parse_raw_csv(NcuReport& r, const std::string& text, size_t pos, size_t line, const std::string& file,
                   const NcuReadOptions& opt)
{
    std::vector<std::string> header;
    read_csv_record(text, pos, header);
    ++line;
    static const std::array<const char*, 12> identity = {"ID", "Process ID", "Process Name", "Host Name",
                                                         "Kernel Name", "Kernel Time", "Context", "Stream",
                                                         "Block Size", "Grid Size", "Device", "CC"};
    auto is_identity = [&](const std::string& h) {
        return std::find_if(identity.begin(), identity.end(), [&](const char* s) { return h == s; }) != identity.end();
    };
    if (column(header, "Kernel Name") < 0)
        throw TraceError(file, "line " + std::to_string(line), "a \"Kernel Name\" column in the ncu CSV header",
                         excerpt(text.substr(0, 200)));
    std::vector<std::string> units(header.size());
    std::vector<std::vector<std::string>> rows;
    std::vector<size_t> row_lines;
    std::vector<std::string> fields, values;
    bool units_seen = false;
    ShortRows short_rows;
    while (next_data_record(text, pos, fields, line, header.size(), file)) {
        if (!units_seen && trim(field(fields, 0)).empty()) {   // the units row: empty ID
            for (size_t i = 0; i < header.size(); ++i)
                units[i] = field(fields, static_cast<int>(i));
            units_seen = true;
            continue;
        }
        short_rows.note(fields.size(), header.size(), line);
        for (size_t i = 0; i < fields.size() && i < header.size(); ++i)
            if (!is_identity(header[i]))
                values.push_back(fields[i]);
        rows.push_back(fields);
        row_lines.push_back(line);
    }
    short_rows.warn(r);
    if (!units_seen)
        r.warnings.push_back("no units row under the header: values taken as printed, in base units");
    r.decimal_separator = opt.decimal_separator ? opt.decimal_separator : detect_decimal(values);
    std::map<int64_t, size_t> index;
    std::vector<std::string> unknown_units;
    ValueIssues issues;
    for (size_t k = 0; k < rows.size(); ++k) {
        const auto& row = rows[k];
        const int64_t id = parse_id(field(row, column(header, "ID")), file, row_lines[k]);
        NcuLaunch& l = launch_for(r, index, id);
        fill_identity(l, header, row);
        for (size_t i = 0; i < header.size(); ++i) {
            if (is_identity(header[i]) || header[i].empty())
                continue;
            const std::string v = field(row, static_cast<int>(i));
            if (v.empty())
                continue;
            issues.line = row_lines[k];
            issues.metric = header[i];
            l.metrics.emplace(header[i], make_value(v, units[i], "", r.decimal_separator, unknown_units, issues));
        }
    }
    for (const auto& u : unknown_units)
        r.warnings.push_back("unknown unit '" + u + "': values kept as printed");
    issues.warn(r);
    std::sort(r.launches.begin(), r.launches.end(), [](const NcuLaunch& a, const NcuLaunch& b) { return a.id < b.id; });
}

// ncu's console (text) details page.
void parse_details_text(NcuReport& r, const std::string& text, const std::string& file, const NcuReadOptions& opt)
{
    static const Regex kernel_re(
        R"(^  (\S.*) \((\d+), (\d+), (\d+)\)x\((\d+), (\d+), (\d+)\), Context (\d+), Stream (\d+)(?:, Device (\d+))?(?:, CC (\d+\.\d+))?\s*$)");
    static const Regex process_re(R"(^\[(\d+)\] (.+)@(.+)$)");
    std::istringstream in(text);
    std::string ln;
    size_t line = 0;
    NcuLaunch* cur = nullptr;
    std::string section, process;
    int64_t pid = 0;
    std::vector<std::pair<size_t, size_t>> cols;   // column spans of the current table
    int dash_lines = 0;
    NcuRule* rule = nullptr;
    std::vector<std::string> unknown_units;
    ValueIssues issues;
    const char dec = opt.decimal_separator ? opt.decimal_separator : '.';
    r.decimal_separator = dec;
    while (std::getline(in, ln)) {
        ++line;
        if (!ln.empty() && ln.back() == '\r')
            ln.pop_back();
        std::vector<std::string_view> m;
        if (ln.rfind("==PROF==", 0) == 0 || ln.rfind("==WARNING==", 0) == 0 || ln.rfind("==ERROR==", 0) == 0)
            continue;
        if (process_re.full_match(ln, m)) {
            pid = m[1].size() <= 18 ? std::stoll(std::string(m[1])) : 0;   // stoll throws past 19 digits
            process = std::string(m[2]);
            cur = nullptr;
            continue;
        }
        if (ln.size() > 2 && ln[0] == ' ' && ln[1] == ' ' && ln[2] != ' ' && kernel_re.full_match(ln, m)) {
            r.launches.emplace_back();
            cur = &r.launches.back();
            cur->id = static_cast<int64_t>(r.launches.size() - 1);
            const auto str = [&](size_t g) { return std::string(m[g]); };
            cur->name = str(1);
            cur->grid = "(" + str(2) + ", " + str(3) + ", " + str(4) + ")";
            cur->block = "(" + str(5) + ", " + str(6) + ", " + str(7) + ")";
            cur->context = str(8);
            cur->stream = str(9);
            cur->device = str(10);
            cur->cc = str(11);
            cur->process = process;
            cur->pid = pid;
            section.clear();
            rule = nullptr;
            continue;
        }
        if (!cur)
            continue;   // application output, preamble
        const std::string t = trim(ln);
        if (ln.rfind("    Section: ", 0) == 0) {
            section = trim(ln.substr(13));
            cols.clear();
            dash_lines = 0;
            rule = nullptr;
            continue;
        }
        if (t.empty()) {
            rule = nullptr;
            continue;
        }
        // Dashed line: table borders (3 per table) or a separator between rule messages ("----- -----...").
        if (t.find_first_not_of("- ") == std::string::npos) {
            rule = nullptr;
            // Tables have three dashed borders of three column spans (top, under the header, bottom); the
            // separator between rule messages has two spans and is skipped.
            std::vector<std::pair<size_t, size_t>> spans;
            size_t i = 0;
            while (i < ln.size()) {
                if (ln[i] == '-') {
                    size_t j = i;
                    while (j < ln.size() && ln[j] == '-')
                        ++j;
                    spans.emplace_back(i, j);
                    i = j;
                } else {
                    ++i;
                }
            }
            if (spans.size() == 3) {
                cols = spans;
                ++dash_lines;
            }
            continue;
        }
        // Rule message start.
        static const Regex rule_re(R"(^    (OPT|INF|WRN|ERR)\s+(.*)$)");
        if (rule_re.full_match(ln, m)) {
            NcuRule ru;
            ru.section = section;
            ru.type = std::string(m[1]);
            std::string body = trim(std::string(m[2]));
            static const Regex speed_re(R"(^Est\. (Local |Global )?Speedup: ([\d.,]+)%\s*(.*)$)");
            std::vector<std::string_view> sm;
            if (speed_re.full_match(body, sm)) {
                ru.speedup_type = sm[1] == "Local " ? "local" : "global";
                ru.speedup_pct = parse_ncu_number(std::string(sm[2]), dec);
                body = trim(std::string(sm[3]));
            }
            ru.description = body;
            cur->rules.push_back(std::move(ru));
            rule = &cur->rules.back();
            continue;
        }
        if (rule && ln.rfind("          ", 0) == 0) {
            rule->description += (rule->description.empty() ? "" : " ") + t;
            continue;
        }
        // Table row: name in the first column span; unit and value are the remaining tokens.
        if (cols.size() == 3 && dash_lines % 3 != 0) {
            if (t == "Metric Name Metric Unit Metric Value" ||
                (t.rfind("Metric Name", 0) == 0 && t.find("Metric Value") != std::string::npos))
                continue;
            const size_t name_end = std::min(ln.size(), cols[0].second);
            const std::string name = trim(ln.substr(std::min(ln.size(), cols[0].first), name_end - std::min(ln.size(), cols[0].first)));
            std::istringstream rest(ln.size() > name_end ? ln.substr(name_end) : std::string());
            std::vector<std::string> toks;
            std::string tok;
            while (rest >> tok)
                toks.push_back(tok);
            if (name.empty() || toks.empty())
                continue;
            const std::string value = toks.back();
            std::string unit;
            for (size_t i = 0; i + 1 < toks.size(); ++i)
                unit += (unit.empty() ? "" : " ") + toks[i];
            issues.line = line;
            issues.metric = name;
            NcuValue v = make_value(value, unit, section, dec, unknown_units, issues);
            const std::string key = ncu_metric_key(section, name, v.base_unit);
            cur->metrics.emplace(key, std::move(v));
        }
    }
    for (const auto& u : unknown_units)
        r.warnings.push_back("unknown unit '" + u + "': values kept as printed");
    issues.warn(r);
    if (r.launches.empty())
        throw TraceError(file, "line " + std::to_string(line),
                         "ncu text report kernel lines ('  <name> (grid)x(block), Context N, Stream N, ...')",
                         "none");
}

bool has_ncu_on_path(const std::string& bin)
{
    if (bin.find('/') != std::string::npos)
        return access(bin.c_str(), X_OK) == 0;
    const char* path = std::getenv("PATH");
    if (!path)
        return false;
    std::stringstream ss(path);
    std::string dir;
    while (std::getline(ss, dir, ':'))
        if (!dir.empty() && access((dir + "/" + bin).c_str(), X_OK) == 0)
            return true;
    return false;
}

std::string shell_quote(const std::string& s)
{
    std::string out = "'";
    for (char c : s)
        out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

} // namespace

namespace {

// Kernel names as the trace readers keep them: control characters as \xNN text, at most kMaxNameBytes bytes
// (cut names counted in one warning).
void finish_names(NcuReport& r)
{
    size_t cut = 0;
    std::string scratch;
    for (auto& l : r.launches) {
        if (has_control_chars(l.name))
            l.name = escape_control_chars(l.name);
        std::string_view v = l.name;
        if (bound_name(v, scratch)) {
            l.name = scratch;
            ++cut;
        }
    }
    if (cut)
        r.warnings.push_back(std::to_string(cut) + " kernel names were longer than " + std::to_string(kMaxNameBytes) +
                             " bytes; each was cut there and ends in \"[... N more bytes]\"");
}

} // namespace

NcuReport parse_ncu_text(const std::string& raw_content, const std::string& name, const NcuReadOptions& options)
{
    // Bytes that are not UTF-8 (a mangled kernel name) are kept as \xNN text, so names still differ and every
    // output (JSON included) can carry them.
    const std::string content = escape_invalid_utf8(raw_content);
    NcuReport r;
    r.source_path = name;
    if (content.size() >= 4 && content.compare(0, 4, std::string("NVR\0", 4)) == 0)
        throw TraceError(name, "byte 0", "a CSV or text export (this is a binary .ncu-rep; read it from a file)",
                         "the NVR magic");
    // Find the header: the first line that starts with "ID", (after an optional BOM).
    size_t pos = 0, line = 0;
    if (content.compare(0, 3, "\xEF\xBB\xBF") == 0)
        pos = 3;
    while (pos < content.size()) {
        const size_t eol = content.find('\n', pos);
        const size_t end = eol == std::string::npos ? content.size() : eol;
        if (content.compare(pos, 5, "\"ID\",") == 0 || content.compare(pos, 3, "ID,") == 0) {
            const std::string hdr = content.substr(pos, end - pos);
            const bool details = hdr.find("\"Metric Name\"") != std::string::npos ||
                                 hdr.find(",Metric Name,") != std::string::npos;
            if (details) {
                r.format = "ncu-details-csv";
                parse_details_csv(r, content, pos, line, name, options);
            } else {
                r.format = "ncu-raw-csv";
                parse_raw_csv(r, content, pos, line, name, options);
            }
            finish_names(r);
            return r;
        }
        ++line;
        pos = end + 1;
    }
    if (content.find("\n    Section: ") != std::string::npos) {
        r.format = "ncu-details-text";
        parse_details_text(r, content, name, options);
        finish_names(r);
        return r;
    }
    std::string first = content.substr(0, content.find('\n'));
    throw TraceError(name, "line 1",
                     "an Nsight Compute export: a CSV header starting with \"ID\", (ncu --csv --page details|raw) or "
                     "an ncu text report",
                     content.empty() ? std::string("an empty file") : excerpt(first));
}

NcuReport read_ncu(const std::string& path, const NcuReadOptions& options)
{
    std::string content = read_input_file(path, InputKind::NcuExport, "a readable Nsight Compute file");
    if (content.size() >= 4 && content.compare(0, 4, std::string("NVR\0", 4)) == 0) {
        const std::string cmd = options.ncu_binary + " --import " + shell_quote(path) + " --csv --page raw --print-units base";
        if (!has_ncu_on_path(options.ncu_binary))
            throw TraceError(path, "", "ncu on PATH to convert this .ncu-rep: run `ncu --import " + path +
                                           " --csv --page raw --print-units base > out.csv` and open the CSV",
                             "no '" + options.ncu_binary + "' executable on PATH");
        // Through run_process, not popen: no shell, and the child gets SIGPIPE back (sightline-cli ignores it for
        // exit 4 on a closed output; a popen child inherited that).
        std::string out;
        ProcessOptions po;
        po.on_line = [&](const std::string& line, bool is_stderr) {
            if (!is_stderr)
                out.append(line).push_back('\n');
        };
        const ProcessResult pr = run_process({options.ncu_binary, "--import", path, "--csv", "--page", "raw",
                                              "--print-units", "base"}, po);
        if (!pr.ok() || out.empty())
            throw TraceError(path, "", "`" + cmd + "` to succeed",
                             !pr.started ? pr.error
                             : pr.signal ? "killed by signal " + std::to_string(pr.signal)
                                         : "exit status " + std::to_string(pr.exit_code));
        NcuReport r = parse_ncu_text(out, path, options);
        r.warnings.push_back("converted with `" + cmd + "`");
        return r;
    }
    return parse_ncu_text(content, path, options);
}

} // namespace sl
