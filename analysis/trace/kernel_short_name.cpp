#include "analysis/trace/kernel_short_name.h"

#include <cstddef>

namespace sl {

namespace {

constexpr std::string_view kAnonymous = "(anonymous namespace)";

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// "_Z" [L] (N [rVKRO]* <source-name>+ ... | <source-name> ...): the last <length><identifier> read before anything
// else (template arguments 'I', the end 'E', a substitution or a parameter type), or empty.
std::string_view mangled_base(std::string_view s)
{
    size_t i = 2;
    if (i < s.size() && s[i] == 'L')
        ++i;
    const bool nested = i < s.size() && s[i] == 'N';
    if (nested) {
        ++i;
        while (i < s.size() && (s[i] == 'r' || s[i] == 'V' || s[i] == 'K' || s[i] == 'R' || s[i] == 'O'))
            ++i;
    }
    std::string_view last;
    while (i < s.size()) {
        if (s.compare(i, 2, "St") == 0) {   // std::
            i += 2;
            continue;
        }
        if (!is_digit(s[i]))
            break;
        size_t len = 0;
        while (i < s.size() && is_digit(s[i]) && len < s.size())
            len = len * 10 + size_t(s[i++] - '0');
        if (len == 0 || len > s.size() - i)
            break;
        last = s.substr(i, len);
        i += len;
        if (!nested)
            break;
    }
    return last;
}

} // namespace

std::string_view shorten_kernel_name(std::string_view name)
{
    if (name.size() > 2 && name[0] == '_' && name[1] == 'Z') {
        const std::string_view base = mangled_base(name);
        return base.empty() ? name : base;
    }
    // The current component of the qualified name at template depth 0: it starts after the last "::" (or the space
    // after a return type) and ends at its template arguments or at the parameter list.
    size_t begin = 0, end = std::string_view::npos;
    int depth = 0;
    for (size_t i = 0; i < name.size(); ++i) {
        const char c = name[i];
        if (c == '<') {
            if (depth == 0 && end == std::string_view::npos)
                end = i;
            ++depth;
        } else if (c == '>') {
            if (depth > 0)
                --depth;
        } else if (depth > 0) {
            continue;
        } else if (c == '(') {
            // "(anonymous namespace)::f" is a scope, not a parameter list
            if (name.compare(i, kAnonymous.size(), kAnonymous) == 0) {
                i += kAnonymous.size() - 1;
                begin = i + 1;
                end = std::string_view::npos;
                continue;
            }
            if (end == std::string_view::npos)
                end = i;
            break;
        } else if (c == ':' && i + 1 < name.size() && name[i + 1] == ':') {
            begin = i + 2;
            end = std::string_view::npos;
            ++i;
        } else if (c == ' ' && end == std::string_view::npos) {
            begin = i + 1;   // after a return type ("void "), or a space before the parameter list
        } else if (c == ' ') {
            continue;
        }
    }
    if (end == std::string_view::npos)
        end = name.size();
    while (begin < end && name[begin] == ' ')
        ++begin;
    while (end > begin && name[end - 1] == ' ')
        --end;
    // "::" right after "(anonymous namespace)" starts the next component
    if (begin >= end)
        return name;
    return name.substr(begin, end - begin);
}

} // namespace sl
