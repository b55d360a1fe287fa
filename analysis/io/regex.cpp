#include "analysis/io/regex.h"

#include <re2/re2.h>

#include "analysis/trace/cancel_point.h"

namespace sl {

namespace {

// The RE2 error codes that mean "this syntax is not supported" rather than "this is not a pattern".
std::string reason(const re2::RE2& re, std::string_view pattern)
{
    // RE2's message ends in the part of the pattern it stopped at (error_arg), which may be most of a 4 KiB pattern
    // and hold control characters: that part is quoted as the pattern is (bounded, escaped).
    std::string err = re.error();
    const std::string& arg = re.error_arg();
    if (!arg.empty() && err.size() >= arg.size() && err.compare(err.size() - arg.size(), arg.size(), arg) == 0)
        err = err.substr(0, err.size() - arg.size()) + quote_regex(arg);
    else
        err = quote_regex(err);
    // RE2 reports a look-around or a back-reference as a bad/missing group or escape; say what it is.
    if (pattern.find("(?=") != std::string_view::npos || pattern.find("(?!") != std::string_view::npos ||
        pattern.find("(?<=") != std::string_view::npos || pattern.find("(?<!") != std::string_view::npos)
        return "look-around ((?=...), (?!...), (?<=...), (?<!...)) is not supported (RE2 syntax, linear time): " + err;
    for (size_t i = 0; i + 1 < pattern.size(); ++i) {
        if (pattern[i] == '\\') {
            if (pattern[i + 1] >= '1' && pattern[i + 1] <= '9')
                return "back-references (\\1 ... \\9) are not supported (RE2 syntax, linear time): " + err;
            ++i;
        }
    }
    return err;
}

}   // namespace

std::string quote_regex(std::string_view pattern)
{
    // At most kRegexQuoteBytes bytes of output (an escaped control character counts its four), never inside a UTF-8
    // sequence.
    static const char hex[] = "0123456789abcdef";
    std::string out;
    size_t i = 0;
    while (i < pattern.size()) {
        const unsigned char c = static_cast<unsigned char>(pattern[i]);
        size_t n = 1;
        if (c >= 0xC0)
            while (i + n < pattern.size() && n < 4 && (static_cast<unsigned char>(pattern[i + n]) & 0xC0) == 0x80)
                ++n;
        const size_t width = (c < 0x20 || c == 0x7f) ? 4 : n;
        if (out.size() + width > kRegexQuoteBytes)
            break;
        if (c < 0x20 || c == 0x7f) {
            out += "\\x";
            out += hex[c >> 4];
            out += hex[c & 15];
        } else {
            out.append(pattern.substr(i, n));
        }
        i += n;
    }
    if (i < pattern.size())
        out += "…";
    return out;
}

Regex::Regex(std::string_view pattern, Options o)
{
    if (pattern.size() > kMaxRegexBytes)
        throw RegexError("a regular expression of " + std::to_string(pattern.size()) + " bytes is longer than the " +
                         std::to_string(kMaxRegexBytes) + " accepted, in regular expression '" + quote_regex(pattern) +
                         "'");
    re2::RE2::Options opt;
    opt.set_log_errors(false);
    opt.set_case_sensitive(!o.icase);
    opt.set_max_mem(int64_t{8} << 20);
    auto re = std::make_shared<const re2::RE2>(re2::StringPiece(pattern.data(), pattern.size()), opt);
    if (!re->ok())
        throw RegexError(reason(*re, pattern) + ", in regular expression '" + quote_regex(pattern) + "'");
    re_ = std::move(re);
    pattern_ = std::string(pattern);
}

int Regex::groups() const
{
    return re_ ? re_->NumberOfCapturingGroups() : 0;
}

namespace {

bool run(const re2::RE2* re, std::string_view text, size_t from, re2::RE2::Anchor anchor,
         std::vector<std::string_view>* m)
{
    if (!re || from > text.size())
        return false;
    cancel_point();   // every match: a pattern run over many long names stops on Cancel (issue 36 §7)
    const re2::StringPiece t(text.data(), text.size());
    if (!m)
        return re->Match(t, from, text.size(), anchor, nullptr, 0);
    const int n = 1 + re->NumberOfCapturingGroups();
    std::vector<re2::StringPiece> sub(static_cast<size_t>(n));
    if (!re->Match(t, from, text.size(), anchor, sub.data(), n))
        return false;
    m->assign(sub.size(), std::string_view());
    for (size_t i = 0; i < sub.size(); ++i)
        if (sub[i].data())
            (*m)[i] = std::string_view(sub[i].data(), sub[i].size());
    return true;
}

}   // namespace

bool Regex::search(std::string_view text) const
{
    return run(re_.get(), text, 0, re2::RE2::UNANCHORED, nullptr);
}

bool Regex::full_match(std::string_view text) const
{
    return run(re_.get(), text, 0, re2::RE2::ANCHOR_BOTH, nullptr);
}

bool Regex::search(std::string_view text, std::vector<std::string_view>& m) const
{
    return run(re_.get(), text, 0, re2::RE2::UNANCHORED, &m);
}

bool Regex::full_match(std::string_view text, std::vector<std::string_view>& m) const
{
    return run(re_.get(), text, 0, re2::RE2::ANCHOR_BOTH, &m);
}

bool Regex::search_from(std::string_view text, size_t from, std::vector<std::string_view>& m) const
{
    return run(re_.get(), text, from, re2::RE2::UNANCHORED, &m);
}

std::vector<std::vector<std::string_view>> Regex::all_matches(std::string_view text) const
{
    std::vector<std::vector<std::string_view>> out;
    std::vector<std::string_view> m;
    size_t pos = 0;
    while (pos <= text.size() && search_from(text, pos, m)) {
        const size_t start = static_cast<size_t>(m[0].data() - text.data());
        const size_t end = start + m[0].size();
        out.push_back(m);
        pos = end > start ? end : end + 1;
    }
    return out;
}

std::string Regex::replace_all(std::string_view text, std::string_view rewrite) const
{
    std::string s(text);
    if (re_)
        re2::RE2::GlobalReplace(&s, *re_, re2::StringPiece(rewrite.data(), rewrite.size()));
    return s;
}

}   // namespace sl
