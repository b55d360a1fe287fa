#pragma once
// Helpers shared by the GoogleTest executables.

#include <optional>
#include <string>
#include <vector>

namespace sl::test {

// ../shared/data when it exists (SIGHTLINE_SHARED_DATA), else nullopt: tests on real traces skip.
std::optional<std::string> shared_data_dir();
// Every regular file under shared_data_dir()/sub with one of the given suffixes (e.g. ".sqlite"), sorted.
std::vector<std::string> shared_files(const std::string& sub, const std::vector<std::string>& suffixes);
// A fresh scratch directory for this test (under SIGHTLINE_TEST_TMP or /tmp).
std::string scratch_dir(const std::string& name);
// Source-tree paths.
std::string source_dir();

// Runs a shell command, capturing stdout (and stderr when merge_stderr). Returns the exit status.
int run_command(const std::string& cmd, std::string* output, bool merge_stderr = false);

// Runs one SQL query against a SQLite file (read-only) and returns the rows as strings (NULL -> "").
std::vector<std::vector<std::string>> sqlite_rows(const std::string& db, const std::string& sql);

// Compares text against a golden file; on mismatch writes <golden>.actual beside it and returns false.
bool matches_golden(const std::string& golden_path, const std::string& actual);

} // namespace sl::test
