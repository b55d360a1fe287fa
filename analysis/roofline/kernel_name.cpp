// kernel_base_name (declared in roofline.h) on its own: a string function that the ncu target (diagnosis/) and the
// fuzz targets use without the Roofline join and the cost model.
#include <string>
#include <string_view>

#include "analysis/roofline/roofline.h"

namespace sl {

std::string kernel_base_name(std::string_view name)
{
    std::string s(name);
    if (s.rfind("void ", 0) == 0)
        s = s.substr(5);
    // Cut the parameter list: the first '(' at template depth 0.
    int depth = 0;
    std::string out;
    static constexpr std::string_view kAnon = "(anonymous namespace)";
    for (size_t i = 0; i < s.size(); ++i) {
        const char c = s[i];
        // "(anonymous namespace)::f" is a scope, not a parameter list.
        if (c == '(' && s.compare(i, kAnon.size(), kAnon) == 0) {
            if (depth == 0)
                out += kAnon;
            i += kAnon.size() - 1;
            continue;
        }
        if (c == '<') {
            ++depth;
            continue;
        }
        if (c == '>') {
            if (depth > 0)
                --depth;
            continue;
        }
        if (depth > 0)
            continue;
        if (c == '(')
            break;
        out += c;
    }
    // Strip surrounding spaces.
    const auto b = out.find_first_not_of(' ');
    const auto e = out.find_last_not_of(' ');
    return b == std::string::npos ? std::string() : out.substr(b, e - b + 1);
}

std::string kernel_display_name(std::string_view name)
{
    std::string base = kernel_base_name(name);
    if (base.empty())
        return std::string(name);
    // Templated when a '<' comes before the parameter list's '(' (an "(anonymous namespace)" scope is not one).
    size_t open = name.find_first_of("<(");
    while (open != std::string_view::npos && name.compare(open, 21, "(anonymous namespace)") == 0)
        open = name.find_first_of("<(", open + 21);
    if (open != std::string_view::npos && name[open] == '<')
        base += "<…>";
    return base;
}

} // namespace sl
