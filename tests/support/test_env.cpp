#include "tests/support/test_env.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <sys/wait.h>

#include <sqlite3.h>

namespace fs = std::filesystem;

namespace sl::test {

std::optional<std::string> shared_data_dir()
{
    const char* env = std::getenv("SIGHTLINE_SHARED_DATA");
    if (!env || !*env)
        return std::nullopt;
    std::error_code ec;
    if (!fs::is_directory(env, ec))
        return std::nullopt;
    return fs::canonical(env, ec).string();
}

std::vector<std::string> shared_files(const std::string& sub, const std::vector<std::string>& suffixes)
{
    std::vector<std::string> out;
    auto dir = shared_data_dir();
    if (!dir)
        return out;
    std::error_code ec;
    const fs::path root = fs::path(*dir) / sub;
    if (!fs::is_directory(root, ec))
        return out;
    for (const auto& e : fs::recursive_directory_iterator(root, ec)) {
        if (!e.is_regular_file())
            continue;
        const std::string p = e.path().string();
        for (const auto& s : suffixes)
            if (p.size() >= s.size() && p.compare(p.size() - s.size(), s.size(), s) == 0) {
                out.push_back(p);
                break;
            }
    }
    std::sort(out.begin(), out.end());
    return out;
}

std::string scratch_dir(const std::string& name)
{
    const char* env = std::getenv("SIGHTLINE_TEST_TMP");
    fs::path base = env && *env ? fs::path(env) : fs::temp_directory_path() / "sightline-tests";
    fs::path p = base / name;
    std::error_code ec;
    fs::remove_all(p, ec);
    fs::create_directories(p);
    return p.string();
}

std::string source_dir()
{
    const char* env = std::getenv("SIGHTLINE_SOURCE_DIR");
    return env ? env : ".";
}

int run_command(const std::string& cmd, std::string* output, bool merge_stderr)
{
    const std::string full = merge_stderr ? cmd + " 2>&1" : cmd;
    FILE* p = popen(full.c_str(), "r");
    if (!p)
        return -1;
    std::array<char, 65536> buf{};
    size_t n;
    while ((n = fread(buf.data(), 1, buf.size(), p)) > 0)
        if (output)
            output->append(buf.data(), n);
    const int status = pclose(p);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::vector<std::vector<std::string>> sqlite_rows(const std::string& db, const std::string& sql)
{
    sqlite3* h = nullptr;
    if (sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
        sqlite3_close(h);
        throw std::runtime_error("cannot open " + db);
    }
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(h, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) {
        std::string err = sqlite3_errmsg(h);
        sqlite3_close(h);
        throw std::runtime_error("bad SQL: " + err + " in " + sql);
    }
    std::vector<std::vector<std::string>> rows;
    while (sqlite3_step(st) == SQLITE_ROW) {
        std::vector<std::string> r;
        for (int c = 0; c < sqlite3_column_count(st); ++c) {
            const auto* t = sqlite3_column_text(st, c);
            r.emplace_back(t ? reinterpret_cast<const char*>(t) : "");
        }
        rows.push_back(std::move(r));
    }
    sqlite3_finalize(st);
    sqlite3_close(h);
    return rows;
}

bool matches_golden(const std::string& golden_path, const std::string& actual)
{
    std::ifstream in(golden_path, std::ios::binary);
    std::stringstream ss;
    if (in)
        ss << in.rdbuf();
    if (in && ss.str() == actual) {
        std::error_code ec;
        fs::remove(golden_path + ".actual", ec);
        return true;
    }
    std::ofstream(golden_path + ".actual", std::ios::binary) << actual;
    return false;
}

} // namespace sl::test
