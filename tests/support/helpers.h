#pragma once
// Small helpers the tests share (header-only): a path quoted for the shell the CLI tests run commands in, and the
// message of the TraceError a call throws.

#include <string>

#include "analysis/trace/errors.h"

namespace sl::test {

// s in single quotes for /bin/sh, a quote inside written as '\''.
inline std::string shell_quote(const std::string& s)
{
    std::string r = "'";
    for (char c : s)
        r += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return r + "'";
}

// What the TraceError thrown by f() says, or "(no error)" when f() throws none.
template <typename F> std::string error_of(F&& f)
{
    try {
        f();
    } catch (const TraceError& e) {
        return e.what();
    }
    return "(no error)";
}

} // namespace sl::test
