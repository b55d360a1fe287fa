#include "analysis/report/report_markdown.h"

#include <cctype>
#include <sstream>

namespace sl::report {

static bool is_word(char c) { return std::isalnum(static_cast<unsigned char>(c)) || (static_cast<unsigned char>(c) & 0x80); }

std::string md_escape(std::string_view t, bool in_table)
{
    std::string out;
    out.reserve(t.size() + 8);
    for (size_t i = 0; i < t.size(); ++i) {
        const char c = t[i];
        switch (c) {
        case '\\': case '`': case '*': case '<': case '>': case '[': case ']':
            out += '\\';
            out += c;
            break;
        case '|':
            out += in_table ? "\\|" : "|";
            break;
        case '_': {
            // Intraword underscores never emphasise in GFM; escape only at word boundaries.
            const bool prev = i > 0 && is_word(t[i - 1]);
            const bool next = i + 1 < t.size() && is_word(t[i + 1]);
            if (prev && next)
                out += '_';
            else
                out += "\\_";
            break;
        }
        case '\n': case '\r':
            out += in_table ? ' ' : c;
            break;
        default:
            out += c;
        }
    }
    return out;
}

static void write_table(std::ostringstream& o, const Table& t, Lang lang)
{
    if (!t.caption.empty())
        o << "**" << md_escape(t.caption, false) << "**\n\n";
    o << '|';
    for (const Column& c : t.columns)
        o << ' ' << md_escape(c.label, true) << " |";
    o << "\n|";
    for (const Column& c : t.columns)
        o << (c.align == Align::Right ? " ---: |" : c.align == Align::Center ? " :---: |" : " --- |");
    o << '\n';
    for (const auto& row : t.rows) {
        o << '|';
        for (size_t i = 0; i < row.size(); ++i) {
            const int max = i < t.columns.size() ? t.columns[i].max_chars : 0;
            o << ' ' << md_escape(shorten_text(row[i].text, max), true) << " |";
        }
        o << '\n';
    }
    if (t.total_rows > int64_t(t.rows.size()))
        o << '\n' << "*" << F(lang, "txt.rows_cut", {fmt_count(int64_t(t.rows.size())), fmt_count(t.total_rows)})
          << "*\n";
    o << '\n';
}

// A chart's data as a table, for writers that cannot embed the image.
static Table chart_table(const Chart& c)
{
    Table t{c.id, c.title, {}, {}, -1};
    if (c.kind == ChartKind::Roofline) {
        t.columns = {{"label", "", "", Align::Left},
                     {"x", c.x_label, c.x_unit, Align::Right},
                     {"y", c.y_label, c.y_unit, Align::Right},
                     {"group", "", "", Align::Left}};
        for (const ScatterPoint& p : c.points)
            t.rows.push_back({Value::str(p.label), Value::num(p.x, fmt_sig(p.x, 3), c.x_unit),
                              Value::num(p.y, fmt_si(p.y, "FLOP/s"), c.y_unit), Value::str(p.group)});
        return t;
    }
    t.columns.push_back({"category", c.x_label, "", Align::Left});
    for (const Series& s : c.series)
        t.columns.push_back({s.name, s.name, c.y_unit, Align::Right});
    for (size_t i = 0; i < c.categories.size(); ++i) {
        std::vector<Value> row{Value::str(c.categories[i])};
        for (const Series& s : c.series) {
            const double v = i < s.values.size() ? s.values[i] : 0.0;
            row.push_back(Value::num(v, fmt_sig(v, 3), c.y_unit));
        }
        t.rows.push_back(std::move(row));
    }
    return t;
}

static void write_section(std::ostringstream& o, const Section& s, int level, Lang lang, const MarkdownOptions& opt)
{
    o << std::string(size_t(std::min(level, 6)), '#') << ' ' << md_escape(s.title, false) << "\n\n";
    for (const Block& b : s.blocks) {
        std::visit(
            [&](const auto& x) {
                using T = std::decay_t<decltype(x)>;
                if constexpr (std::is_same_v<T, Paragraph>) {
                    o << md_escape(x.text, false) << "\n\n";
                } else if constexpr (std::is_same_v<T, KeyValues>) {
                    for (const KeyValue& kv : x.items)
                        o << "- **" << md_escape(kv.label, false) << ":** " << md_escape(kv.value.text, false)
                          << '\n';
                    o << '\n';
                } else if constexpr (std::is_same_v<T, Table>) {
                    write_table(o, x, lang);
                } else if constexpr (std::is_same_v<T, Chart>) {
                    std::string path = opt.write_image ? opt.write_image(x) : std::string();
                    if (!path.empty()) {
                        o << "![" << md_escape(x.title, false) << "](" << path << ")\n\n";
                    } else {
                        write_table(o, chart_table(x), lang);
                    }
                } else if constexpr (std::is_same_v<T, Code>) {
                    o << "```" << x.language << '\n' << x.text;
                    if (x.text.empty() || x.text.back() != '\n')
                        o << '\n';
                    o << "```\n\n";
                } else if constexpr (std::is_same_v<T, Bullets>) {
                    for (const std::string& item : x.items)
                        o << "- " << md_escape(item, false) << '\n';
                    o << '\n';
                } else if constexpr (std::is_same_v<T, Note>) {
                    o << "> " << (x.kind == Note::Kind::Warning ? "**⚠** " : "") << md_escape(x.text, false)
                      << "\n\n";
                }
            },
            b);
    }
    for (const Section& c : s.children)
        write_section(o, c, level + 1, lang, opt);
}

std::string to_markdown(const Report& r, const MarkdownOptions& options)
{
    std::ostringstream o;
    o << "# " << md_escape(r.title, false) << "\n\n";
    o << "*" << md_escape(r.run_id, false) << " · " << md_escape(r.generated_at, false) << " · Sightline "
      << md_escape(r.version, false) << "*\n\n";
    for (const Section& s : r.sections)
        write_section(o, s, 2, r.lang, options);
    std::string out = o.str();
    while (out.size() > 1 && out[out.size() - 1] == '\n' && out[out.size() - 2] == '\n')
        out.pop_back();
    return out;
}

} // namespace sl::report
