#pragma once
// RFC 4180 CSV for the tests that compare with peers' reports (TraceLens's perf CSVs): quoted fields may hold commas,
// newlines and doubled quotes; lines end with \n, \r\n or \r. Header-only.
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace sl::test {

// Every row of the file as its fields, the header included; trailing empty rows dropped.
inline std::vector<std::vector<std::string>> read_csv_rows(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string text = ss.str();
    std::vector<std::vector<std::string>> rows(1);
    std::string field;
    bool quoted = false;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (quoted) {
            if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
                field += '"';
                ++i;
            } else if (c == '"') {
                quoted = false;
            } else {
                field += c;
            }
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            rows.back().push_back(std::move(field));
            field.clear();
        } else if (c == '\n' || c == '\r') {
            if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n')
                ++i;
            rows.back().push_back(std::move(field));
            field.clear();
            rows.emplace_back();
        } else {
            field += c;
        }
    }
    if (!field.empty() || !rows.back().empty())
        rows.back().push_back(std::move(field));
    while (!rows.empty() && rows.back().empty())
        rows.pop_back();
    return rows;
}

} // namespace sl::test
