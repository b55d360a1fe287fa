#include "analysis/report/summary_text.h"
#include "analysis/io/input_bounds.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace sl {

std::string group_digits(int64_t v)
{
    const bool neg = v < 0;
    std::string digits = std::to_string(v);
    if (neg)
        digits.erase(0, 1);
    std::string out;
    const size_t n = digits.size();
    for (size_t i = 0; i < n; ++i) {
        out += digits[i];
        const size_t left = n - 1 - i;
        if (left > 0 && left % 3 == 0)
            out += ',';
    }
    return neg ? "-" + out : out;
}

std::string group_digits(double v, int decimals)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, std::fabs(v));
    std::string s(buf);
    const auto dot = s.find('.');
    const std::string int_part = s.substr(0, dot);
    const std::string frac = dot == std::string::npos ? "" : s.substr(dot);
    if (!std::isfinite(v))
        return s;   // "nan" / "inf": nothing to group
    // Grouped from the digits themselves: std::stoll threw a bare out_of_range for |v| >= 2^63 (issue 17).
    std::string out;
    for (size_t i = 0; i < int_part.size(); ++i) {
        out += int_part[i];
        const size_t left = int_part.size() - 1 - i;
        if (left > 0 && left % 3 == 0)
            out += ',';
    }
    out += frac;
    const bool negative = v < 0 && out.find_first_not_of("0.,") != std::string::npos;
    return negative ? "-" + out : out;
}

namespace {

// A table with right-aligned number columns and left-aligned text columns (the last column is always text, as nsys
// prints its name column). `text_columns` lists other text columns by index.
class Table {
public:
    explicit Table(std::vector<std::string> header, std::vector<size_t> text_columns = {})
        : header_(std::move(header)), text_(header_.size(), false)
    {
        for (size_t c : text_columns)
            text_[c] = true;
        text_.back() = true;
    }
    void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
    std::string render() const
    {
        std::vector<size_t> w(header_.size());
        for (size_t c = 0; c < header_.size(); ++c) {
            w[c] = header_[c].size();
            for (const auto& r : rows_)
                w[c] = std::max(w[c], r[c].size());
        }
        std::string out;
        auto line = [&](const std::vector<std::string>& cells) {
            std::string l;
            for (size_t c = 0; c < cells.size(); ++c) {
                l += ' ';
                if (text_[c]) {
                    l += cells[c];
                    l.append(w[c] - cells[c].size() + 1, ' ');
                } else {
                    l.append(w[c] - cells[c].size(), ' ');
                    l += cells[c];
                    l += ' ';
                }
            }
            while (!l.empty() && l.back() == ' ')
                l.pop_back();
            out += l + '\n';
        };
        line(header_);
        std::vector<std::string> rule;
        for (size_t c = 0; c < header_.size(); ++c)
            rule.emplace_back(c + 1 == header_.size() ? header_[c].size() : w[c], '-');
        line(rule);
        for (const auto& r : rows_)
            line(r);
        return out;
    }

private:
    std::vector<std::string> header_;
    std::vector<bool> text_;
    std::vector<std::vector<std::string>> rows_;
};

std::string pct(double p) { return group_digits(p, 1); }

std::string stat_table(const std::string& title, const StatSection& s, const char* count_header,
                       const char* name_header)
{
    std::string out = "** " + title + ":\n\n";
    if (s.by_name.empty())
        return out + " (none)\n\n";
    Table t({"Time (%)", "Total Time (ns)", count_header, "Avg (ns)", "Med (ns)", "Min (ns)", "Max (ns)",
             "StdDev (ns)", name_header});
    for (const auto& r : s.by_name)
        t.add({pct(r.percent), group_digits(r.total_ns), group_digits(r.instances), group_digits(r.avg_ns, 1),
               group_digits(r.med_ns, 1), group_digits(r.min_ns), group_digits(r.max_ns), group_digits(r.stddev_ns, 1),
               r.name});
    return out + t.render() + '\n';
}

} // namespace

std::string summary_to_text(const Trace& trace, const Summary& s)
{
    const auto& m = trace.meta;
    std::string out;
    out += "Sightline summary of " + (m.source_path.empty() ? std::string("(unnamed trace)") : terminal_safe(m.source_path)) + "\n";
    out += "Format: " + m.format;
    if (!m.tool_version.empty())
        out += "  tool " + m.tool_version;
    if (!m.schema_version.empty())
        out += "  schema " + m.schema_version;
    out += "\nCapture: " + group_digits(m.capture_start) + " .. " + group_digits(m.capture_end) + " ns (" +
           group_digits(m.capture_end - m.capture_start) + " ns)\n";
    if (s.options.rank)
        out += "Rank: " + std::to_string(*s.options.rank) + "\n";
    out += "\n";

    out += stat_table("CUDA GPU Kernel Summary (cuda_gpu_kern_sum)", s.kernels, "Instances", "Name");
    out += stat_table("CUDA API Summary (cuda_api_sum)", s.api, "Num Calls", "Name");

    out += "** CUDA GPU MemOps Summary (by Time) (cuda_gpu_mem_time_sum):\n\n";
    if (s.memops.by_operation.empty()) {
        out += " (none)\n\n";
    } else {
        Table t({"Time (%)", "Total Time (ns)", "Count", "Avg (ns)", "Med (ns)", "Min (ns)", "Max (ns)", "StdDev (ns)",
                 "Operation"});
        for (const auto& r : s.memops.by_operation)
            t.add({pct(r.percent), group_digits(r.total_ns), group_digits(r.count), group_digits(r.avg_ns, 1),
                   group_digits(r.med_ns, 1), group_digits(r.min_ns), group_digits(r.max_ns),
                   group_digits(r.stddev_ns, 1), r.operation});
        out += t.render() + '\n';
        out += "** CUDA GPU MemOps Summary (by Size) (cuda_gpu_mem_size_sum):\n\n";
        auto rows = s.memops.by_operation;
        std::sort(rows.begin(), rows.end(), [](const MemopRow& a, const MemopRow& b) {
            if (a.bytes != b.bytes)
                return a.bytes > b.bytes;
            if (a.count != b.count)
                return a.count < b.count;
            return a.operation < b.operation;
        });
        Table z({"Total (B)", "Count", "Avg (B)", "Med (B)", "Min (B)", "Max (B)", "StdDev (B)", "Operation"});
        for (const auto& r : rows)
            z.add({group_digits(r.bytes), group_digits(r.count), group_digits(r.avg_bytes, 1),
                   group_digits(r.med_bytes, 1), group_digits(r.min_bytes), group_digits(r.max_bytes),
                   group_digits(r.stddev_bytes, 1), r.operation});
        out += z.render() + '\n';
    }

    out += "** NVTX Range Summary (nvtx_sum):\n\n";
    if (s.nvtx.by_name.empty()) {
        out += " (none)\n\n";
    } else {
        Table t({"Time (%)", "Total Time (ns)", "Instances", "Avg (ns)", "Med (ns)", "Min (ns)", "Max (ns)",
                 "StdDev (ns)", "Style", "Range"},
                {8});
        for (const auto& r : s.nvtx.by_name)
            t.add({pct(r.percent), group_digits(r.total_ns), group_digits(r.instances), group_digits(r.avg_ns, 1),
                   group_digits(r.med_ns, 1), group_digits(r.min_ns), group_digits(r.max_ns),
                   group_digits(r.stddev_ns, 1), r.style, r.name});
        out += t.render() + '\n';
    }

    out += "** GPU Utilization (busy = union of kernels, memcpy, memset; window = first op start .. last op end):\n\n";
    if (s.devices.empty()) {
        out += " (no devices)\n\n";
    } else {
        Table t({"Device", "Rank", "Ops", "Window (ns)", "Busy (ns)", "Idle (ns)", "Util (%)", "Gaps",
                 "Gap Total (ns)", "Name"});
        for (const auto& d : s.devices)
            t.add({std::to_string(d.id), std::to_string(d.rank), group_digits(d.kernels + d.memcpys + d.memsets),
                   group_digits(d.window_ns), group_digits(d.busy_ns), group_digits(d.idle_ns),
                   pct(100.0 * d.utilization), group_digits(d.gaps.count), group_digits(d.gaps.total_ns),
                   d.name.empty() ? std::string("-") : d.name});
        out += t.render() + '\n';
    }
    for (const auto& d : s.devices) {
        if (d.gaps.count == 0)
            continue;
        out += "** Gaps on device " + std::to_string(d.id) + " (rank " + std::to_string(d.rank) +
               "), buckets lower-inclusive:\n\n";
        Table h({"Bucket", "Count", "Total (ns)", "Share of idle (%)"}, {0});
        for (const auto& b : d.gaps.histogram)
            h.add({b.label, group_digits(b.count), group_digits(b.total_ns),
                   pct(d.gaps.total_ns > 0 ? 100.0 * static_cast<double>(b.total_ns) /
                                                 static_cast<double>(d.gaps.total_ns)
                                           : 0.0)});
        out += h.render() + '\n';
        // Kernel names can be hundreds of characters long: one block per gap instead of a table.
        out += "Largest gaps:\n\n";
        size_t rank = 0;
        for (const auto& x : d.gaps.largest) {
            out += " #" + std::to_string(++rank) + "  " + group_digits(x.duration_ns) + " ns idle from " +
                   group_digits(x.start_ns) + " ns\n";
            out += "     before: " + x.before.name + " (" + gpu_op_kind_name(x.before.op.kind) + ", stream " +
                   std::to_string(x.before.stream) + ", ends " + group_digits(x.before.end_ns) + ")\n";
            out += "     after:  " + x.after.name + " (" + gpu_op_kind_name(x.after.op.kind) + ", stream " +
                   std::to_string(x.after.stream) + ", starts " + group_digits(x.after.start_ns) + ")\n";
        }
        out += '\n';
    }
    if (!s.warnings.empty()) {
        out += "Warnings:\n";
        for (const auto& w : s.warnings)
            out += "  - " + w + "\n";
    }
    return out;
}

} // namespace sl
