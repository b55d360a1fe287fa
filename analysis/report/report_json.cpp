#include "analysis/report/report_json.h"

#include <cmath>

namespace sl::report {

using oj = nlohmann::ordered_json;

// Integral values print as integers (1234, not 1234.0); NaN/inf as null.
static oj number(double v)
{
    if (!std::isfinite(v))
        return nullptr;
    if (std::fabs(v) < 9.007199254740992e15 && v == std::floor(v))
        return int64_t(v);
    return v;
}

static oj value_json(const Value& v)
{
    if (v.number)
        return number(*v.number);
    return v.text;
}

static oj block_json(const Block& b)
{
    oj j;
    std::visit(
        [&](const auto& x) {
            using T = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<T, Paragraph>) {
                j["type"] = "paragraph";
                j["text"] = x.text;
            } else if constexpr (std::is_same_v<T, KeyValues>) {
                j["type"] = "key_values";
                j["id"] = x.id;
                oj items = oj::array();
                for (const KeyValue& kv : x.items) {
                    oj i;
                    i["key"] = kv.key;
                    i["label"] = kv.label;
                    i["text"] = kv.value.text;
                    i["value"] = value_json(kv.value);
                    i["unit"] = kv.value.unit;
                    items.push_back(std::move(i));
                }
                j["items"] = std::move(items);
            } else if constexpr (std::is_same_v<T, Table>) {
                j["type"] = "table";
                j["id"] = x.id;
                j["caption"] = x.caption;
                oj cols = oj::array();
                for (const Column& c : x.columns) {
                    oj cj;
                    cj["key"] = c.key;
                    cj["label"] = c.label;
                    cj["unit"] = c.unit;
                    cj["align"] = align_name(c.align);
                    cols.push_back(std::move(cj));
                }
                j["columns"] = std::move(cols);
                oj rows = oj::array();
                for (const auto& row : x.rows) {
                    oj rj = oj::array();
                    for (const Value& v : row)
                        rj.push_back(value_json(v));
                    rows.push_back(std::move(rj));
                }
                j["rows"] = std::move(rows);
                j["total_rows"] = x.total_rows >= 0 ? x.total_rows : int64_t(x.rows.size());
            } else if constexpr (std::is_same_v<T, Chart>) {
                j["type"] = "chart";
                j["id"] = x.id;
                j["kind"] = chart_kind_name(x.kind);
                j["title"] = x.title;
                j["x_label"] = x.x_label;
                j["y_label"] = x.y_label;
                j["x_unit"] = x.x_unit;
                j["y_unit"] = x.y_unit;
                j["log_x"] = x.log_x;
                j["log_y"] = x.log_y;
                j["categories"] = x.categories;
                oj series = oj::array();
                for (const Series& s : x.series) {
                    oj sj;
                    sj["name"] = s.name;
                    oj vals = oj::array();
                    for (double v : s.values)
                        vals.push_back(number(v));
                    sj["values"] = std::move(vals);
                    series.push_back(std::move(sj));
                }
                j["series"] = std::move(series);
                oj points = oj::array();
                for (const ScatterPoint& p : x.points) {
                    oj pj;
                    pj["label"] = p.label;
                    pj["x"] = number(p.x);
                    pj["y"] = number(p.y);
                    pj["group"] = p.group;
                    points.push_back(std::move(pj));
                }
                j["points"] = std::move(points);
                oj roofs = oj::array();
                for (const Roof& r : x.roofs) {
                    oj rj;
                    rj["label"] = r.label;
                    rj["kind"] = r.memory ? "memory" : "compute";
                    rj["value"] = number(r.value);
                    roofs.push_back(std::move(rj));
                }
                j["roofs"] = std::move(roofs);
            } else if constexpr (std::is_same_v<T, Code>) {
                j["type"] = "code";
                j["language"] = x.language;
                j["text"] = x.text;
            } else if constexpr (std::is_same_v<T, Bullets>) {
                j["type"] = "bullets";
                j["items"] = x.items;
            } else if constexpr (std::is_same_v<T, Note>) {
                j["type"] = "note";
                j["kind"] = note_kind_name(x.kind);
                j["text"] = x.text;
            }
        },
        b);
    return j;
}

static oj section_json(const Section& s)
{
    oj j;
    j["id"] = s.id;
    j["title"] = s.title;
    oj blocks = oj::array();
    for (const Block& b : s.blocks)
        blocks.push_back(block_json(b));
    j["blocks"] = std::move(blocks);
    oj children = oj::array();
    for (const Section& c : s.children)
        children.push_back(section_json(c));
    j["sections"] = std::move(children);
    return j;
}

oj report_to_json(const Report& r)
{
    oj j;
    j["schema"] = r.schema;
    j["title"] = r.title;
    j["run_id"] = r.run_id;
    j["detail"] = detail_name(r.detail);
    j["trace_name"] = r.trace_name;
    j["generated_at"] = r.generated_at;
    j["version"] = r.version;
    j["language"] = lang_code(r.lang);
    oj secs = oj::array();
    for (const Section& s : r.sections)
        secs.push_back(section_json(s));
    j["sections"] = std::move(secs);
    return j;
}

std::string to_json_text(const Report& r)
{
    return report_to_json(r).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

} // namespace sl::report
