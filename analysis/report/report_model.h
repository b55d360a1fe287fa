#pragma once
// The report document model: one format-neutral tree built once from the analysis results, turned into Markdown,
// HTML, JSON (analysis/) and PDF (model/report_pdf) by separate writers. Nothing here knows about a file format.
//
//   Report ─ sections (nested) ─ blocks: Paragraph | KeyValues | Table | Chart | Code | Bullets | Note
//
// Every number a table or key-value list shows keeps its raw value (SI base units: ns, bytes, FLOP, fractions 0..1)
// next to the display text, so JSON consumers never parse formatted strings.

#include "analysis/report/report_strings.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace sl {
struct Trace;
struct Summary;
struct AnalysisResult;
struct RooflineReport;
struct NcuReport;
struct NcuTraceMatch;
struct Finding;
struct Headline;
struct EnvironmentHistory;
} // namespace sl
namespace sl::critpath {
struct CriticalPathSummary;
} // namespace sl::critpath

namespace sl::report {

inline constexpr const char* kReportSchema = "sightline.report/1";

// ---- Blocks -------------------------------------------------------------------------------------------------------
enum class Align : uint8_t { Left, Right, Center };
const char* align_name(Align a);

// A value shown to the reader (text) and, where it is a number, kept raw for scripts.
struct Value {
    std::string text;
    std::optional<double> number;
    std::string unit;        // unit of `number`: "ns", "B", "FLOP", "FLOP/s", "B/s", "FLOP/B", "fraction", "count", ""
    static Value str(std::string t) { return Value{std::move(t), std::nullopt, {}}; }
    static Value num(double v, std::string t, std::string u) { return Value{std::move(t), v, std::move(u)}; }
};

struct Paragraph {
    std::string text;
};

struct KeyValue {
    std::string key;         // stable id for JSON, e.g. "idle_fraction"
    std::string label;       // localised label
    Value value;
};
struct KeyValues {
    std::string id;
    std::vector<KeyValue> items;
};

struct Column {
    std::string key;         // stable id for JSON
    std::string label;       // localised header
    std::string unit;        // raw unit of the column's numbers (see Value::unit); "" for text
    Align align = Align::Left;
    int max_chars = 0;       // display writers shorten longer cells with "…" (0 = never); JSON keeps the full text
};
struct Table {
    std::string id;
    std::string caption;
    std::vector<Column> columns;
    std::vector<std::vector<Value>> rows;
    int64_t total_rows = -1; // when rows were cut to a limit: how many there were (-1 = not cut)
};

enum class ChartKind : uint8_t { Bar, Histogram, StackedBar, Roofline };
const char* chart_kind_name(ChartKind k);

struct Series {
    std::string name;
    std::vector<double> values;   // one per category
    std::string color;            // "#rrggbb"; empty = writer's palette
};
struct ScatterPoint {
    std::string label;
    double x = 0, y = 0;          // Roofline: x = FLOP/B, y = FLOP/s
    std::string group;            // e.g. "prefill" / "decode" / "focus"
};
struct Roof {
    std::string label;
    bool memory = false;          // memory roof: y = value · x (value in B/s); compute roof: y = value (FLOP/s)
    double value = 0;
};
struct Chart {
    std::string id;               // also the image file stem for Markdown
    ChartKind kind = ChartKind::Bar;
    std::string title;
    std::string x_label, y_label;
    std::string x_unit, y_unit;
    std::vector<std::string> categories;   // Bar/Histogram/StackedBar
    std::vector<Series> series;            // Bar: one series; StackedBar: several stacked per category
    std::vector<ScatterPoint> points;      // Roofline
    std::vector<Roof> roofs;               // Roofline
    bool log_x = false, log_y = false;
};

struct Code {
    std::string language;         // "sh", "" …
    std::string text;
};
struct Bullets {
    std::vector<std::string> items;
};
// Missing data or a caveat: what was missing and what it means for the reader.
struct Note {
    enum class Kind : uint8_t { Info, Missing, Warning } kind = Kind::Info;
    std::string text;
};
const char* note_kind_name(Note::Kind k);

using Block = std::variant<Paragraph, KeyValues, Table, Chart, Code, Bullets, Note>;

struct Section {
    std::string id;               // stable, e.g. "time.top_kernels"
    std::string title;
    std::vector<Block> blocks;
    std::vector<Section> children;
};

// How much the report holds. Summary: what a reader forwards (the verdict and actions, the time breakdown, the top
// findings with their evidence, the Roofline, the environment; at most a few pages). Full: every section and table
// (the summary plus launch, sync, overlap, steps, gaps, memory/API tables, every finding and the appendix).
enum class Detail : uint8_t { Summary, Full };
const char* detail_name(Detail d);                    // "summary" | "full"
bool parse_detail(std::string_view s, Detail& out);   // "summary" | "full"

struct Report {
    std::string schema = kReportSchema;
    Detail detail = Detail::Full;
    std::string trace_name;       // trace_display_name() of the trace ("" when it has no file name)
    std::string title;
    std::string run_id;
    std::string generated_at;     // ISO 8601 UTC
    std::string version;          // SIGHTLINE_VERSION
    Lang lang = Lang::En;
    std::vector<Section> sections;

    // Every chart in document order (writers that render images up front use this).
    std::vector<const Chart*> charts() const;
};

// ---- Inputs ---------------------------------------------------------------------------------------------------------
struct ReportOptions {
    Lang lang = Lang::En;
    std::string generated_at;     // empty: now (UTC). Fix it for reproducible output (golden tests).
    std::string run_id;           // empty: derived from the input hashes and capture window
    std::string title;            // empty: the trace's name with the localised default title, else the default
    Detail detail = Detail::Full;
    int summary_findings = 5;     // Summary: findings told in full (the overview table still lists every one)
    int summary_top_kernels = 8;  // Summary: rows of the top-kernels table
    int top_kernels = 15;         // rows of the top-kernels table
    int max_step_rows = 64;       // rows of the per-decode-step table
    int max_gap_rows = 20;        // rows of the largest-gaps table
    bool hash_inputs = true;      // SHA-256 of every input file (off for benchmarks on huge inputs is not needed:
                                  // hashing streams the file)
    // Options and thresholds the analyses ran with, shown in the appendix (name -> value as text).
    std::map<std::string, std::string> thresholds;
    // Rule files the findings came from, shown in the appendix (path -> version).
    std::map<std::string, std::string> rule_files;
    // Workload description the trace cannot give (model name, batch/sequence shape); shown when set.
    std::string model;
    std::string shape;
    // User decisions on findings when exported from the GUI: finding key (rule id + '|' + subject) -> state
    // ("accepted" / "rejected" / "verified" …) and annotation.
    std::map<std::string, std::string> finding_state;
    std::map<std::string, std::string> finding_note;
    // The same for each suggestion, keyed "<rule>/<suggestion id>|<subject>" (the knowledge base's key): shown under
    // the suggestion, so a forwarded report says what was accepted or rejected and why.
    std::map<std::string, std::string> suggestion_state;
    std::map<std::string, std::string> suggestion_note;
    // Caveats from producing the inputs (e.g. "no GPU spec matched; Roofline skipped"), listed in the appendix.
    std::vector<std::string> notes;
};

struct ReportInputs {
    const Trace* trace = nullptr;
    const Summary* summary = nullptr;
    const AnalysisResult* analysis = nullptr;
    const RooflineReport* roofline = nullptr;
    const NcuReport* ncu = nullptr;
    const NcuTraceMatch* ncu_match = nullptr;   // when set, its mismatches are said in the Roofline section
    const std::vector<Finding>* findings = nullptr;
    const Headline* headline = nullptr;     // when set, the report opens with it (diagnosis/headline.h)
    // When set (and computed), the overview says what sets the step (analysis/critpath/critpath_summary.h).
    const critpath::CriticalPathSummary* critical_path = nullptr;
    // Knowledge-base lookup of the trace's environment (diagnosis/kb_lookup.h): when set, a "seen_before" section
    // follows "environment". kb_path names the knowledge base in it.
    const EnvironmentHistory* environment_history = nullptr;
    std::string kb_path;
    std::vector<std::string> input_files;   // hashed with SHA-256 when options.hash_inputs
    ReportOptions options;
};

// Builds the document. Never throws for missing inputs: each section says what it lacked.
Report build_report(const ReportInputs& in);

// The findings section alone (the overview table, then each finding with its evidence, suggestions and verify
// commands), as build_report writes it: for documents of other inputs (a merge of ranks, rank_report.h).
Section findings_section(const std::vector<Finding>& findings, const ReportOptions& options);

// The name a report of a trace goes by: the first file's name without its folder and its format's extensions
// (".../h100__Qwen1.5-0.5B-Chat_inference.json.gz" -> "h100__Qwen1.5-0.5B-Chat_inference", "run1.nsys-rep" ->
// "run1"), and " + N more" for several files. `source_path` is TraceMeta::source_path (files joined by ';').
std::string trace_display_name(std::string_view source_path);
// A file name (no folder, no extension) for the report of that trace: the name with characters that are unsafe in
// file names replaced by '_', then "-report"; "sightline-report" when the name is empty.
std::string report_file_stem(std::string_view trace_name);

// ---- Number formatting shared by every writer ------------------------------------------------------------------------
// Three significant digits with the unit picked by magnitude: 1234 ns -> "1.23 µs".
std::string fmt_duration(double ns);
std::string fmt_bytes(double bytes);            // 1536 -> "1.50 KiB"
std::string fmt_percent(double fraction);       // 0.4567 -> "45.7 %"
std::string fmt_count(int64_t n);               // 1234567 -> "1,234,567"
std::string fmt_si(double v, const std::string& unit);   // 1.5e12, "FLOP/s" -> "1.50 TFLOP/s"
std::string fmt_fixed(double v, int decimals);  // locale-independent
std::string fmt_sig(double v, int significant = 3);
// At most max_chars code points (UTF-8 aware), the last one replaced by "…" when cut; max_chars <= 0 = unchanged.
std::string shorten_text(std::string_view text, int max_chars);
// Current UTC time as "YYYY-MM-DDTHH:MM:SSZ".
std::string utc_now_iso();

} // namespace sl::report
