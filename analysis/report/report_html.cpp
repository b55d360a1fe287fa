#include "analysis/report/report_html.h"

#include "analysis/report/chart_svg.h"

#include <sstream>

namespace sl::report {

std::string html_escape(std::string_view t)
{
    std::string o;
    o.reserve(t.size() + 8);
    for (char c : t) {
        switch (c) {
        case '&': o += "&amp;"; break;
        case '<': o += "&lt;"; break;
        case '>': o += "&gt;"; break;
        case '"': o += "&quot;"; break;
        default: o += c;
        }
    }
    return o;
}

static const char* kCss = R"css(
body{font-family:"Noto Sans","Noto Sans CJK SC","Segoe UI",Helvetica,Arial,sans-serif;color:#222;max-width:1100px;margin:2em auto;padding:0 1.5em;line-height:1.45}
h1{font-size:1.8em;border-bottom:3px solid #4e79a7;padding-bottom:.2em}
h2{font-size:1.4em;border-bottom:1px solid #ccc;margin-top:1.8em}
h3{font-size:1.15em;margin-top:1.4em}
h4{font-size:1em}
.meta{color:#555}
table{border-collapse:collapse;margin:.6em 0 1.2em;font-size:.88em}
caption{text-align:left;font-weight:bold;padding:.3em 0}
th,td{border:1px solid #d0d0d0;padding:.25em .55em;vertical-align:top}
th{background:#eef2f7}
tr:nth-child(even) td{background:#fafafa}
td.r,th.r{text-align:right;white-space:nowrap}
td.c,th.c{text-align:center}
dl.kv{display:grid;grid-template-columns:max-content auto;gap:.15em 1.2em;margin:.6em 0 1.2em}
dl.kv dt{font-weight:bold}
dl.kv dd{margin:0}
pre{background:#f4f4f4;border:1px solid #ddd;padding:.6em;overflow-x:auto;white-space:pre-wrap}
.note{border-left:4px solid #999;background:#f7f7f7;padding:.4em .8em;margin:.6em 0}
.note.missing{border-color:#e0a030;background:#fff8e8}
.note.warning{border-color:#d04040;background:#fff0f0}
figure{margin:.8em 0}
figure svg{max-width:100%;height:auto;border:1px solid #eee}
.cut{color:#666;font-style:italic}
nav ul{columns:2}
)css";

static void write_block(std::ostringstream& o, const Block& b, Lang lang)
{
    std::visit(
        [&](const auto& x) {
            using T = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<T, Paragraph>) {
                o << "<p>" << html_escape(x.text) << "</p>\n";
            } else if constexpr (std::is_same_v<T, KeyValues>) {
                o << "<dl class=\"kv\">\n";
                for (const KeyValue& kv : x.items)
                    o << "<dt>" << html_escape(kv.label) << "</dt><dd>" << html_escape(kv.value.text) << "</dd>\n";
                o << "</dl>\n";
            } else if constexpr (std::is_same_v<T, Table>) {
                o << "<table id=\"tbl-" << html_escape(x.id) << "\">";
                if (!x.caption.empty())
                    o << "<caption>" << html_escape(x.caption) << "</caption>";
                o << "\n<thead><tr>";
                auto cls = [](Align a) { return a == Align::Right ? " class=\"r\"" : a == Align::Center ? " class=\"c\"" : ""; };
                for (const Column& c : x.columns)
                    o << "<th" << cls(c.align) << ">" << html_escape(c.label) << "</th>";
                o << "</tr></thead>\n<tbody>\n";
                for (const auto& row : x.rows) {
                    o << "<tr>";
                    for (size_t i = 0; i < row.size(); ++i) {
                        const Column* c = i < x.columns.size() ? &x.columns[i] : nullptr;
                        const std::string full = row[i].text;
                        const std::string shown = shorten_text(full, c ? c->max_chars : 0);
                        o << "<td" << cls(c ? c->align : Align::Left);
                        if (shown != full)
                            o << " title=\"" << html_escape(full) << "\"";
                        o << ">" << html_escape(shown) << "</td>";
                    }
                    o << "</tr>\n";
                }
                o << "</tbody></table>\n";
                if (x.total_rows > int64_t(x.rows.size()))
                    o << "<p class=\"cut\">"
                      << html_escape(F(lang, "txt.rows_cut", {fmt_count(int64_t(x.rows.size())), fmt_count(x.total_rows)}))
                      << "</p>\n";
            } else if constexpr (std::is_same_v<T, Chart>) {
                o << "<figure id=\"chart-" << html_escape(x.id) << "\">\n" << chart_to_svg(x, 760, x.kind == ChartKind::Roofline ? 440 : 340) << "\n</figure>\n";
            } else if constexpr (std::is_same_v<T, Code>) {
                o << "<pre><code>" << html_escape(x.text) << "</code></pre>\n";
            } else if constexpr (std::is_same_v<T, Bullets>) {
                o << "<ul>\n";
                for (const auto& item : x.items)
                    o << "<li>" << html_escape(item) << "</li>\n";
                o << "</ul>\n";
            } else if constexpr (std::is_same_v<T, Note>) {
                o << "<div class=\"note " << note_kind_name(x.kind) << "\">" << html_escape(x.text) << "</div>\n";
            }
        },
        b);
}

static void write_section(std::ostringstream& o, const Section& s, int level, Lang lang)
{
    const int h = std::min(level, 6);
    o << "<section id=\"" << html_escape(s.id) << "\">\n<h" << h << ">" << html_escape(s.title) << "</h" << h << ">\n";
    for (const Block& b : s.blocks)
        write_block(o, b, lang);
    for (const Section& c : s.children)
        write_section(o, c, level + 1, lang);
    o << "</section>\n";
}

std::string to_html(const Report& r)
{
    std::ostringstream o;
    o << "<!DOCTYPE html>\n<html lang=\"" << (r.lang == Lang::ZhCN ? "zh-CN" : "en") << "\">\n<head>\n"
      << "<meta charset=\"utf-8\">\n<meta name=\"generator\" content=\"Sightline " << html_escape(r.version) << "\">\n"
      << "<title>" << html_escape(r.title) << "</title>\n<style>" << kCss
      << "</style>\n</head>\n<body>\n";
    o << "<h1>" << html_escape(r.title) << "</h1>\n<p class=\"meta\">" << html_escape(r.run_id) << " · "
      << html_escape(r.generated_at) << " · Sightline " << html_escape(r.version) << "</p>\n";
    o << "<nav><ul>\n";
    for (const Section& s : r.sections)
        o << "<li><a href=\"#" << html_escape(s.id) << "\">" << html_escape(s.title) << "</a></li>\n";
    o << "</ul></nav>\n";
    for (const Section& s : r.sections)
        write_section(o, s, 2, r.lang);
    o << "</body>\n</html>\n";
    return o.str();
}

} // namespace sl::report
