#include "analysis/report/chart_svg.h"

#include "analysis/report/label_layout.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace sl::report {

namespace {
const char* kAxis = "#444444";
const char* kGrid = "#e3e3e3";
const char* kText = "#222222";
const char* kMuted = "#666666";
} // namespace

const std::string& palette_color(size_t i)
{
    static const std::vector<std::string> p = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2",
                                               "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
    return p[i % p.size()];
}

std::string group_color(std::string_view group, size_t index)
{
    if (group == "prefill")
        return kPrefillColor;
    if (group == "decode")
        return kDecodeColor;
    if (group == "mixed")
        return kMixedColor;
    if (group == "training")
        return kTrainingColor;
    return palette_color(index);
}

double text_width(std::string_view text, double font_size)
{
    double w = 0;
    for (size_t i = 0; i < text.size();) {
        const auto c = uint8_t(text[i]);
        size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : 4;
        if (len == 1)
            w += (c >= 'A' && c <= 'Z') || c == 'm' || c == 'w' || c == '_' ? 0.72 : (c == ' ' || c == '.' || c == ',' || c == 'i' || c == 'l' || c == '1') ? 0.34 : 0.6;
        else if (len == 2)
            w += 0.6;   // µ, accented Latin
        else
            w += 1.0;   // CJK and other wide characters
        i += len;
    }
    return w * font_size;
}

std::vector<double> nice_ticks(double max, int target)
{
    if (!(max > 0) || !std::isfinite(max))
        return {0, 1};
    const double raw = max / std::max(1, target);
    const double mag = std::pow(10.0, std::floor(std::log10(raw)));
    double step = mag;
    for (double m : {1.0, 2.0, 2.5, 5.0, 10.0}) {
        step = m * mag;
        if (step >= raw)
            break;
    }
    std::vector<double> t;
    for (int i = 0; i <= 100; ++i) {
        t.push_back(step * i);
        if (step * i >= max * (1 - 1e-9))
            break;
    }
    return t;
}

namespace {

struct Builder {
    ChartScene s;
    void rect(double x, double y, double w, double h, const std::string& fill, const std::string& stroke = {})
    {
        ScenePrim p;
        p.kind = ScenePrim::Kind::Rect;
        p.x = x; p.y = y; p.w = w; p.h = h;
        p.fill = fill;
        p.stroke = stroke;
        s.prims.push_back(std::move(p));
    }
    void line(double x1, double y1, double x2, double y2, const std::string& color, double width = 1, bool dashed = false)
    {
        ScenePrim p;
        p.kind = ScenePrim::Kind::Line;
        p.x = x1; p.y = y1; p.w = x2; p.h = y2;
        p.stroke = color;
        p.stroke_width = width;
        p.dashed = dashed;
        s.prims.push_back(std::move(p));
    }
    void circle(double cx, double cy, double r, const std::string& fill, const std::string& stroke)
    {
        ScenePrim p;
        p.kind = ScenePrim::Kind::Circle;
        p.x = cx; p.y = cy; p.r = r;
        p.fill = fill;
        p.stroke = stroke;
        s.prims.push_back(std::move(p));
    }
    void text(double x, double y, std::string t, double size, int anchor, const std::string& color = kText,
              double rotate = 0, bool bold = false)
    {
        ScenePrim p;
        p.kind = ScenePrim::Kind::Text;
        p.x = x; p.y = y;
        p.text = std::move(t);
        p.font_size = size;
        p.anchor = anchor;
        p.fill = color;
        p.rotate = rotate;
        p.bold = bold;
        s.prims.push_back(std::move(p));
    }
};

// Shortens text to fit a pixel width.
std::string fit(const std::string& t, double width, double size)
{
    if (text_width(t, size) <= width)
        return t;
    int n = int(t.size());
    while (n > 2) {
        --n;
        std::string s = shorten_text(t, n);
        if (text_width(s, size) <= width)
            return s;
    }
    return shorten_text(t, 2);
}

std::string tick_label(double v, const std::string& unit)
{
    if (unit == "ns")
        return fmt_duration(v);
    if (std::fabs(v) >= 1e4)
        return fmt_si(v, "");
    if (v == std::floor(v))
        return fmt_fixed(v, 0);
    return fmt_sig(v, 3);
}

std::string value_label(double v, const std::string& unit)
{
    if (unit == "ns")
        return fmt_duration(v);
    if (unit == "%")
        return fmt_fixed(v, 1) + " %";
    if (unit == "count")
        return fmt_count(int64_t(std::llround(v)));
    return fmt_sig(v, 3);
}

void title(Builder& b, const Chart& c, double width)
{
    b.text(width / 2, 20, fit(c.title, width - 20, 14), 14, 1, kText, 0, true);
}

void no_data(Builder& b, double width, double height)
{
    b.text(width / 2, height / 2, "—", 14, 1, kMuted);
}

// ---- Vertical bars -----------------------------------------------------------------------------------------------------
void layout_histogram(Builder& b, const Chart& c, double W, double H)
{
    const std::vector<double> empty;
    const std::vector<double>& vals = c.series.empty() ? empty : c.series[0].values;
    double max = 0;
    for (double v : vals)
        max = std::max(max, v);
    const auto ticks = nice_ticks(max > 0 ? max : 1);
    double tick_w = 0;
    for (double t : ticks)
        tick_w = std::max(tick_w, text_width(tick_label(t, c.y_unit), 10));
    const double left = 22 + tick_w + 8, right = 16, top = 36, bottom = 46;
    const double pw = W - left - right, ph = H - top - bottom;
    const double ymax = ticks.back();
    auto Y = [&](double v) { return top + ph - v / ymax * ph; };
    for (double t : ticks) {
        b.line(left, Y(t), left + pw, Y(t), kGrid);
        b.text(left - 6, Y(t) + 3.5, tick_label(t, c.y_unit), 10, 2, kMuted);
    }
    b.line(left, top, left, top + ph, kAxis);
    b.line(left, top + ph, left + pw, top + ph, kAxis);
    b.text(14, top + ph / 2, c.y_label, 11, 1, kText, -90);
    b.text(left + pw / 2, top + ph + 36, c.x_label, 11, 1);
    const size_t n = std::max<size_t>(1, c.categories.size());
    const double slot = pw / double(n);
    const std::string color = c.series.empty() || c.series[0].color.empty() ? palette_color(0) : c.series[0].color;
    bool rotate = false;
    for (const auto& cat : c.categories)
        if (text_width(cat, 10) > slot - 4)
            rotate = true;
    for (size_t i = 0; i < c.categories.size(); ++i) {
        const double v = i < vals.size() ? vals[i] : 0;
        const double x = left + slot * double(i);
        const double bw = slot * 0.72;
        if (v > 0)
            b.rect(x + (slot - bw) / 2, Y(v), bw, top + ph - Y(v), color);
        b.text(x + slot / 2, Y(v) - 4, value_label(v, c.y_unit), 9.5, 1, kMuted);
        if (rotate)
            b.text(x + slot / 2, top + ph + 14, fit(c.categories[i], bottom - 10, 9.5), 9.5, 2, kText, -30);
        else
            b.text(x + slot / 2, top + ph + 15, c.categories[i], 10, 1);
    }
}

// ---- Horizontal bars (one series) and horizontal stacked bars (several) ------------------------------------------------
void layout_hbars(Builder& b, const Chart& c, double W, double H, bool stacked)
{
    const size_t n = c.categories.size();
    std::vector<double> totals(n, 0.0);
    for (size_t i = 0; i < n; ++i)
        for (size_t s = 0; s < (stacked ? c.series.size() : std::min<size_t>(1, c.series.size())); ++s)
            if (i < c.series[s].values.size())
                totals[i] += std::max(0.0, c.series[s].values[i]);
    double max = 0;
    for (double t : totals)
        max = std::max(max, t);
    const auto ticks = nice_ticks(max > 0 ? max : 1);
    double label_w = 0;
    for (const auto& cat : c.categories)
        label_w = std::max(label_w, text_width(cat, 10));
    const double left = std::min(label_w + 14, W * 0.42);
    const double legend_h = stacked ? 22.0 * std::ceil(double(c.series.size()) / 4.0) : 0.0;
    const double right = 58, top = 34, bottom = 38 + legend_h;
    const double pw = W - left - right, ph = H - top - bottom;
    const double xmax = ticks.back();
    auto X = [&](double v) { return left + v / xmax * pw; };
    for (double t : ticks) {
        b.line(X(t), top, X(t), top + ph, kGrid);
        b.text(X(t), top + ph + 14, tick_label(t, c.y_unit == "%" ? "" : c.y_unit), 10, 1, kMuted);
    }
    b.line(left, top, left, top + ph, kAxis);
    b.line(left, top + ph, left + pw, top + ph, kAxis);
    b.text(left + pw / 2, top + ph + 30, c.y_label, 11, 1);
    const double slot = ph / double(std::max<size_t>(1, n));
    const double bh = std::min(slot * 0.7, 26.0);
    for (size_t i = 0; i < n; ++i) {
        const double y = top + slot * double(i) + (slot - bh) / 2;
        b.text(left - 6, y + bh / 2 + 3.5, fit(c.categories[i], left - 10, 10), 10, 2);
        double acc = 0;
        const size_t ns = stacked ? c.series.size() : std::min<size_t>(1, c.series.size());
        for (size_t s = 0; s < ns; ++s) {
            const double v = i < c.series[s].values.size() ? std::max(0.0, c.series[s].values[i]) : 0.0;
            if (v > 0) {
                const std::string& col = c.series[s].color.empty() ? palette_color(stacked ? s : 0) : c.series[s].color;
                b.rect(X(acc), y, X(acc + v) - X(acc), bh, col);
            }
            acc += v;
        }
        b.text(X(acc) + 4, y + bh / 2 + 3.5, value_label(acc, c.y_unit), 9.5, 0, kMuted);
    }
    if (stacked) {
        double lx = left, ly = H - legend_h + 6;
        for (size_t s = 0; s < c.series.size(); ++s) {
            const double w = 18 + text_width(c.series[s].name, 10) + 14;
            if (lx + w > W - 8 && lx > left) {
                lx = left;
                ly += 20;
            }
            b.rect(lx, ly, 11, 11, c.series[s].color.empty() ? palette_color(s) : c.series[s].color);
            b.text(lx + 15, ly + 9.5, c.series[s].name, 10, 0);
            lx += w;
        }
    }
}

// ---- Roofline --------------------------------------------------------------------------------------------------------
void layout_roofline(Builder& b, const Chart& c, double W, double H)
{
    double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
    double peak = 0, bw_max = 0;
    for (const Roof& r : c.roofs) {
        if (r.value <= 0)
            continue;
        if (r.memory)
            bw_max = std::max(bw_max, r.value);
        else
            peak = std::max(peak, r.value);
    }
    for (const ScatterPoint& p : c.points) {
        if (p.x <= 0 || p.y <= 0)
            continue;
        x0 = std::min(x0, p.x); x1 = std::max(x1, p.x);
        y0 = std::min(y0, p.y); y1 = std::max(y1, p.y);
    }
    for (const Roof& r : c.roofs) {
        if (r.value <= 0)
            continue;
        const double ridge = r.memory ? (peak > 0 ? peak / r.value : 0) : (bw_max > 0 ? r.value / bw_max : 0);
        if (ridge > 0) {
            x0 = std::min(x0, ridge); x1 = std::max(x1, ridge);
        }
        if (!r.memory) {
            y1 = std::max(y1, r.value);
            y0 = std::min(y0, r.value / 1000);
        }
    }
    if (!std::isfinite(x0) || !std::isfinite(y0)) {
        no_data(b, W, H);
        return;
    }
    double lx0 = std::floor(std::log10(x0)) - 0.0, lx1 = std::ceil(std::log10(x1));
    double ly0 = std::floor(std::log10(y0)), ly1 = std::ceil(std::log10(y1 * 1.5));
    if (lx1 - lx0 < 2) { lx0 -= 1; lx1 += 1; }
    if (ly1 - ly0 < 2) { ly0 -= 1; }
    // The points' groups, in order; their legend sits under the x-axis title, outside the plot (issue 37 §8: inside
    // it, it covered points and roofs), in rows as wide as the chart.
    std::vector<std::string> groups;
    for (const ScatterPoint& p : c.points)
        if (std::find(groups.begin(), groups.end(), p.group) == groups.end())
            groups.push_back(p.group);
    struct LegendItem {
        size_t group;
        double x, row;
    };
    std::vector<LegendItem> legend;
    {
        constexpr double kGap = 18;
        double x = 0;
        int row = 0;
        const double avail = W - 70 - 20;
        for (size_t g = 0; g < groups.size(); ++g) {
            if (groups[g].empty())
                continue;
            const double w = 16 + text_width(groups[g], 10);
            if (x > 0 && x + w > avail) {
                x = 0;
                ++row;
            }
            legend.push_back({g, x, double(row)});
            x += w + kGap;
        }
    }
    const double legend_h = legend.empty() ? 0.0 : 16.0 * (legend.back().row + 1) + 4;
    const double left = 70, right = 20, top = 34, bottom = 44 + legend_h;
    const double pw = W - left - right, ph = H - top - bottom;
    auto X = [&](double v) { return left + (std::log10(v) - lx0) / (lx1 - lx0) * pw; };
    auto Y = [&](double v) { return top + ph - (std::log10(v) - ly0) / (ly1 - ly0) * ph; };
    for (double d = lx0; d <= lx1 + 1e-9; d += 1) {
        const double v = std::pow(10.0, d);
        b.line(X(v), top, X(v), top + ph, kGrid);
        b.text(X(v), top + ph + 14, fmt_sig(v, 3), 10, 1, kMuted);
    }
    for (double d = ly0; d <= ly1 + 1e-9; d += 1) {
        const double v = std::pow(10.0, d);
        b.line(left, Y(v), left + pw, Y(v), kGrid);
        b.text(left - 6, Y(v) + 3.5, fmt_si(v, ""), 10, 2, kMuted);
    }
    b.line(left, top, left, top + ph, kAxis);
    b.line(left, top + ph, left + pw, top + ph, kAxis);
    b.text(14, top + ph / 2, c.y_label, 11, 1, kText, -90);
    b.text(left + pw / 2, H - 8, c.x_label, 11, 1);

    const double xmin = std::pow(10.0, lx0), xmax = std::pow(10.0, lx1), ymin = std::pow(10.0, ly0);
    // What the point labels must keep clear of: the roofs' lines and labels.
    LabelLayoutOptions lo;
    lo.bounds = {left + 1, top + 1, left + pw - 1, top + ph - 1};
    constexpr double kRoofFont = 10;
    for (const Roof& r : c.roofs) {
        if (r.value <= 0)
            continue;
        if (r.memory) {
            // y = bw * x from the bottom edge (or xmin) up to the highest compute roof.
            double xa = std::max(xmin, ymin / r.value);
            double xb = peak > 0 ? peak / r.value : xmax;
            xb = std::min(xb, xmax);
            if (xb <= xa)
                continue;
            b.line(X(xa), Y(r.value * xa), X(xb), Y(r.value * xb), "#c0392b", 2);
            lo.lines.push_back({X(xa), Y(r.value * xa), X(xb), Y(r.value * xb)});
            const double angle = std::atan2(Y(r.value * xb) - Y(r.value * xa), X(xb) - X(xa)) * 180 / M_PI;
            const double xm = std::sqrt(xa * xb) / 1.6;
            const double cx = X(xm), cy = Y(r.value * xm) - 6;
            b.text(cx, cy, r.label, kRoofFont, 1, "#c0392b", angle);
            // The rotated text as small boxes along its baseline.
            const double half = text_width(r.label, kRoofFont) / 2, rad = angle * M_PI / 180;
            for (double t = -half; t <= half; t += 6)
                lo.obstacles.push_back({cx + t * std::cos(rad) - 5, cy + t * std::sin(rad) - 9,
                                        cx + t * std::cos(rad) + 5, cy + t * std::sin(rad) + 3});
        } else {
            const double xa = bw_max > 0 ? std::max(xmin, r.value / bw_max) : xmin;
            b.line(X(xa), Y(r.value), X(xmax), Y(r.value), "#2c3e50", 2);
            lo.lines.push_back({X(xa), Y(r.value), X(xmax), Y(r.value)});
            b.text(X(xmax) - 4, Y(r.value) - 5, r.label, kRoofFont, 2, "#2c3e50");
            lo.obstacles.push_back({X(xmax) - 4 - text_width(r.label, kRoofFont), Y(r.value) - 5 - kRoofFont,
                                    X(xmax) - 4, Y(r.value) - 3});
        }
    }
    // Labels (analysis/report/label_layout.h): beside the marker, else farther out with a leader line, never over
    // another label, a marker, a roof or its label; a point with no free place keeps its marker without
    // a label (the operator table beside the chart names every point).
    constexpr double kLabelFont = 9, kLineH = 11;
    constexpr double kRadius = 4.5;
    std::vector<LabelRequest> req;
    std::vector<std::string> texts;
    for (const ScatterPoint& p : c.points) {
        if (p.x <= 0 || p.y <= 0)
            continue;
        lo.markers.push_back({X(p.x), Y(p.y), kRadius});
        texts.push_back(shorten_text(p.label, 22));
        req.push_back({X(p.x), Y(p.y), kRadius, text_width(texts.back(), kLabelFont), kLineH});
    }
    const std::vector<LabelPlacement> where = place_labels(req, lo);
    for (size_t i = 0; i < where.size(); ++i)
        if (where[i].placed && where[i].leader)
            b.line(where[i].line.x0, where[i].line.y0, where[i].line.x1, where[i].line.y1, kMuted, 0.7);
    for (const ScatterPoint& p : c.points) {
        if (p.x <= 0 || p.y <= 0)
            continue;
        const size_t g = size_t(std::find(groups.begin(), groups.end(), p.group) - groups.begin());
        b.circle(X(p.x), Y(p.y), kRadius, group_color(p.group, g), "#ffffff");
    }
    for (size_t i = 0; i < where.size(); ++i)
        if (where[i].placed)   // baseline 2 px above the box's foot (text_width's box: ascent 9, descent 2)
            b.text(where[i].box.x0, where[i].box.y1 - 2, texts[i], kLabelFont, 0, kText);
    // The legend, under the x-axis title.
    for (const LegendItem& it : legend) {
        const double ly = top + ph + 52 + 16 * it.row;
        b.circle(left + it.x + 5, ly - 3.5, 4.5, group_color(groups[it.group], it.group), "#ffffff");
        b.text(left + it.x + 14, ly, groups[it.group], 10, 0);
    }
}

std::string xml_escape(std::string_view t)
{
    std::string o;
    o.reserve(t.size());
    for (char ch : t) {
        switch (ch) {
        case '&': o += "&amp;"; break;
        case '<': o += "&lt;"; break;
        case '>': o += "&gt;"; break;
        case '"': o += "&quot;"; break;
        default: o += ch;
        }
    }
    return o;
}

} // namespace

ChartScene layout_chart(const Chart& c, double width, double height)
{
    Builder b;
    b.s.width = width;
    b.s.height = height;
    b.rect(0, 0, width, height, "#ffffff");
    title(b, c, width);
    const bool empty = c.kind == ChartKind::Roofline ? c.points.empty() && c.roofs.empty() : c.categories.empty();
    if (empty) {
        no_data(b, width, height);
        return std::move(b.s);
    }
    switch (c.kind) {
    case ChartKind::Histogram: layout_histogram(b, c, width, height); break;
    case ChartKind::Bar: layout_hbars(b, c, width, height, false); break;
    case ChartKind::StackedBar: layout_hbars(b, c, width, height, true); break;
    case ChartKind::Roofline: layout_roofline(b, c, width, height); break;
    }
    return std::move(b.s);
}

std::string scene_to_svg(const ChartScene& s)
{
    std::ostringstream o;
    auto num = [](double v) { return fmt_fixed(v, 1); };
    o << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << num(s.width) << "\" height=\"" << num(s.height)
      << "\" viewBox=\"0 0 " << num(s.width) << ' ' << num(s.height)
      << "\" font-family=\"'Noto Sans','Noto Sans CJK SC','DejaVu Sans',sans-serif\" role=\"img\">\n";
    for (const ScenePrim& p : s.prims) {
        switch (p.kind) {
        case ScenePrim::Kind::Rect:
            o << "<rect x=\"" << num(p.x) << "\" y=\"" << num(p.y) << "\" width=\"" << num(p.w) << "\" height=\""
              << num(p.h) << "\" fill=\"" << (p.fill.empty() ? "none" : p.fill) << '"';
            if (!p.stroke.empty())
                o << " stroke=\"" << p.stroke << '"';
            o << "/>\n";
            break;
        case ScenePrim::Kind::Line:
            o << "<line x1=\"" << num(p.x) << "\" y1=\"" << num(p.y) << "\" x2=\"" << num(p.w) << "\" y2=\""
              << num(p.h) << "\" stroke=\"" << p.stroke << "\" stroke-width=\"" << num(p.stroke_width) << '"';
            if (p.dashed)
                o << " stroke-dasharray=\"4 3\"";
            o << "/>\n";
            break;
        case ScenePrim::Kind::Circle:
            o << "<circle cx=\"" << num(p.x) << "\" cy=\"" << num(p.y) << "\" r=\"" << num(p.r) << "\" fill=\""
              << (p.fill.empty() ? "none" : p.fill) << '"';
            if (!p.stroke.empty())
                o << " stroke=\"" << p.stroke << '"';
            o << "/>\n";
            break;
        case ScenePrim::Kind::Text:
            o << "<text x=\"" << num(p.x) << "\" y=\"" << num(p.y) << "\" font-size=\"" << num(p.font_size)
              << "\" fill=\"" << (p.fill.empty() ? kText : p.fill) << '"';
            if (p.anchor == 1)
                o << " text-anchor=\"middle\"";
            else if (p.anchor == 2)
                o << " text-anchor=\"end\"";
            if (p.bold)
                o << " font-weight=\"bold\"";
            if (p.rotate != 0)
                o << " transform=\"rotate(" << num(p.rotate) << ' ' << num(p.x) << ' ' << num(p.y) << ")\"";
            o << '>' << xml_escape(p.text) << "</text>\n";
            break;
        }
    }
    o << "</svg>";
    return o.str();
}

} // namespace sl::report
