#pragma once
// Nsight Compute exports: the details page CSV (`--csv --page details`, long format: one metric per row, rule
// rows with OPT/INF/WRN), the raw page CSV (`--csv --page raw`: one row per launch, a units row), and the text
// details page (ncu's default console output, e.g. `ncu --import x.ncu-rep` or a profiling run's log).
// `.ncu-rep` files are converted with `ncu --import F --csv --page raw --print-units base` when ncu is on PATH,
// else a TraceError naming that command.
//
// Tolerated (reference ncu_roofline.md §a.4): preamble lines and `==PROF==` output before the header (the header
// is the first line starting with "ID",), short rows (missing trailing fields are empty), RFC-4180 quoting with
// commas, quotes and newlines inside fields, thousands separators, locales that swap ',' and '.', scientific
// notation, `n/a` and non-numeric values, unit spellings of every version (nsecond/ns/usecond/us/..., cycle/nsecond,
// Ghz, Kbyte, Gbyte/second, Tbyte/s, ...), columns found by name, duplicated (ID, section, metric) rows.
// Values are kept in base units: ns, Hz (cycle/second), bytes, bytes/second; '%' and counts as printed.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace sl {

struct NcuValue {
    std::optional<double> number;   // in base units; nullopt for text or n/a
    std::string text;               // as printed
    std::string unit;               // as printed
    std::string base_unit;          // "ns", "hz", "byte", "byte/second", "%", ... ("" when unitless)
    std::string section;            // details page: section name
};

struct NcuRule {
    std::string section;            // "SpeedOfLight", "LaunchStats", ... (or the display name in text reports)
    std::string name;               // "SOLBottleneck", "LaunchConfiguration", ... ("" in text reports)
    std::string type;               // "OPT" | "INF" | "WRN" | "ERR"
    std::string description;
    std::string speedup_type;       // "global" | "local" | ""
    std::optional<double> speedup_pct;
};

struct NcuLaunch {
    int64_t id = 0;                 // ncu's launch ID (0-based within the report)
    std::string name;               // kernel name as printed
    std::string process;
    int64_t pid = 0;
    std::string device, cc, block, grid, context, stream;
    // Metrics by raw name when the file gives raw names; details-page labels are mapped to raw names where the
    // label is known (see ncu_metrics.h), else kept as "label:<Section>/<Label>".
    std::map<std::string, NcuValue> metrics;
    std::vector<NcuRule> rules;

    const NcuValue* find(const std::string& metric) const;
    std::optional<double> number(const std::string& metric) const;
};

struct NcuReport {
    std::string source_path;
    std::string format;             // "ncu-details-csv" | "ncu-raw-csv" | "ncu-details-text"
    std::vector<NcuLaunch> launches;   // in ID order
    std::vector<std::string> warnings;
    char decimal_separator = '.';   // detected (',' for a swapped locale)
};

struct NcuReadOptions {
    // 0 = detect from the numbers; '.' or ',' forces the decimal separator.
    char decimal_separator = 0;
    std::string ncu_binary = "ncu";  // used for .ncu-rep
};

// Reads any of the formats above (sniffed by content). Throws TraceError (file, line, expected, found).
NcuReport read_ncu(const std::string& path, const NcuReadOptions& options = {});
// Parses CSV/text already in memory (name is used in messages).
NcuReport parse_ncu_text(const std::string& content, const std::string& name, const NcuReadOptions& options = {});

// One RFC-4180 CSV record starting at pos (advanced past it). Returns false at end of input. unterminated (may be
// null) is set when a quoted field runs to the end of the input.
bool read_csv_record(const std::string& text, size_t& pos, std::vector<std::string>& fields,
                     bool* unterminated = nullptr);
// A number as ncu prints it: thousands separators, the given decimal separator ('.' or ','), scientific notation.
std::optional<double> parse_ncu_number(const std::string& s, char decimal_separator = '.');
// Unit normalisation: multiplies value into base units and names the base unit. false for unknown units.
bool normalize_ncu_unit(const std::string& unit, double& scale, std::string& base_unit);

} // namespace sl
