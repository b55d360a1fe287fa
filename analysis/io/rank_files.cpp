#include "analysis/io/rank_files.h"

#include "analysis/trace/errors.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <glob.h>
#include <system_error>

namespace fs = std::filesystem;

namespace sl {
namespace {

bool has_glob_chars(const std::string& s) { return s.find_first_of("*?[") != std::string::npos; }

bool ends_with(const std::string& s, const char* tail)
{
    const size_t n = std::strlen(tail);
    return s.size() >= n && s.compare(s.size() - n, n, tail) == 0;
}

bool is_partial(const std::string& name) { return name.find(".partial.json") != std::string::npos; }

bool is_trace_name(const std::string& name)
{
    if (name.empty() || name[0] == '.' || is_partial(name))
        return false;
    for (const char* ext : {".json", ".json.gz", ".sqlite", ".nsys-rep"})
        if (ends_with(name, ext))
            return true;
    return false;
}

bool is_regular(const std::string& path)
{
    std::error_code ec;
    return fs::is_regular_file(path, ec);
}

} // namespace

bool natural_less(const std::string& a, const std::string& b)
{
    size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        const bool da = a[i] >= '0' && a[i] <= '9', db = b[j] >= '0' && b[j] <= '9';
        if (da && db) {
            size_t ie = i, je = j;
            while (ie < a.size() && a[ie] >= '0' && a[ie] <= '9')
                ++ie;
            while (je < b.size() && b[je] >= '0' && b[je] <= '9')
                ++je;
            // Compare the values without converting: leading zeros dropped, then length, then digits.
            size_t is = i, js = j;
            while (is + 1 < ie && a[is] == '0')
                ++is;
            while (js + 1 < je && b[js] == '0')
                ++js;
            if (ie - is != je - js)
                return ie - is < je - js;
            if (const int c = a.compare(is, ie - is, b, js, je - js); c != 0)
                return c < 0;
            if (ie - i != je - j)   // equal values: fewer leading zeros first
                return ie - i < je - j;
            i = ie;
            j = je;
        } else {
            if (a[i] != b[j])
                return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[j]);
            ++i;
            ++j;
        }
    }
    return a.size() - i < b.size() - j;
}

bool names_rank_set(const std::string& arg)
{
    std::error_code ec;
    if (fs::is_directory(arg, ec))
        return true;
    return has_glob_chars(arg) && !fs::exists(arg, ec);
}

std::vector<std::string> rank_files(const std::string& arg)
{
    std::vector<std::string> out;
    std::error_code ec;
    if (fs::is_directory(arg, ec)) {
        fs::directory_iterator it(arg, ec);
        if (ec)
            throw TraceError(arg, "", "a folder of rank traces that can be read", ec.message());
        for (; it != fs::directory_iterator(); it.increment(ec)) {
            if (ec)
                throw TraceError(arg, "", "a folder of rank traces that can be read", ec.message());
            const std::string name = it->path().filename().string();
            if (is_trace_name(name) && is_regular(it->path().string()))
                out.push_back((fs::path(arg) / name).string());
        }
        if (out.empty())
            throw TraceError(arg, "", "a folder holding rank traces (*.json, *.json.gz, *.sqlite, *.nsys-rep)",
                             "no trace file in it");
    } else if (has_glob_chars(arg) && !fs::exists(arg, ec)) {
        glob_t g{};
        const int rc = glob(arg.c_str(), 0, nullptr, &g);
        size_t folders = 0;
        if (rc == 0)
            for (size_t i = 0; i < g.gl_pathc; ++i) {
                if (is_regular(g.gl_pathv[i]) && !is_partial(fs::path(g.gl_pathv[i]).filename().string()))
                    out.emplace_back(g.gl_pathv[i]);
                else
                    ++folders;
            }
        globfree(&g);
        if (rc == GLOB_NOSPACE)
            throw TraceError(arg, "", "a glob of rank traces", "more matches than memory holds");
        if (out.empty())
            throw TraceError(arg, "", "a glob matching rank trace files",
                             folders ? "only folders match it" : "no file matches it");
    } else {
        out.push_back(arg);
    }
    std::sort(out.begin(), out.end(), natural_less);
    return out;
}

} // namespace sl
