#pragma once
// Regular expressions in linear time (issue 36 §1): every pattern Sightline runs — the user's --step-regex and
// --nvtx-*-regex, kernel-class, host-cause and step-grammar files, a model config's module patterns, GPU name
// patterns and the fixed patterns of the readers — goes through this one wrapper around RE2.
//
// RE2 never backtracks: a match costs time linear in the text and memory bounded by the compiled pattern, so a
// hostile pattern or name cannot hang or overflow the stack the way std::regex's recursive matcher did. The syntax
// is RE2's (Perl-like: \d \w \s \b, (?:...), (?i), non-greedy *?, named groups (?P<n>...)). What RE2 cannot run in
// linear time — back-references (\1) and look-around ((?=...), (?!...), (?<=...)) — is refused with an error that
// names it. A pattern longer than kMaxRegexBytes is refused before it is compiled, and an error quotes at most the
// pattern's first kRegexQuoteBytes bytes.
//
// RE2 stays out of this header (it is included across the core; RE2's header is not).

#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace re2 {
class RE2;
}

namespace sl {

inline constexpr size_t kMaxRegexBytes = 4096;
inline constexpr size_t kRegexQuoteBytes = 80;
// What an error expects where a pattern is refused.
inline constexpr const char* kRegexExpected = "a regular expression in RE2 syntax (no back-references or look-around)";

// A pattern that cannot be compiled: what() is "<reason> in regular expression '<prefix…>'". Callers catch it and
// name the file or option it came from.
class RegexError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// The pattern as an error may quote it: the first kRegexQuoteBytes bytes (not splitting a UTF-8 sequence), "…" when
// cut, control characters escaped.
std::string quote_regex(std::string_view pattern);

class Regex {
public:
    struct Options {
        bool icase = false;
    };
    // A regex that matches nothing (valid() false).
    Regex() = default;
    // Throws RegexError on a pattern RE2 cannot compile or one longer than kMaxRegexBytes.
    explicit Regex(std::string_view pattern, Options o);
    explicit Regex(std::string_view pattern) : Regex(pattern, Options{}) {}

    bool valid() const { return re_ != nullptr; }
    const std::string& pattern() const { return pattern_; }
    // Number of capture groups.
    int groups() const;

    // Whether the pattern matches somewhere in text / the whole text.
    bool search(std::string_view text) const;
    bool full_match(std::string_view text) const;
    // The same, filling m with the whole match (m[0]) and each group (an unmatched group is an empty view whose
    // data() is nullptr). The views point into text.
    bool search(std::string_view text, std::vector<std::string_view>& m) const;
    bool full_match(std::string_view text, std::vector<std::string_view>& m) const;
    // The first match that starts at or after byte `from` (^, $ and \b still see the whole text as context).
    bool search_from(std::string_view text, size_t from, std::vector<std::string_view>& m) const;
    // Every non-overlapping match, left to right (an empty match steps one byte on), as std::sregex_iterator does.
    std::vector<std::vector<std::string_view>> all_matches(std::string_view text) const;
    // text with every match replaced by `rewrite`, where \0 … \9 name the match and its groups.
    std::string replace_all(std::string_view text, std::string_view rewrite) const;

private:
    std::shared_ptr<const re2::RE2> re_;
    std::string pattern_;
};

}   // namespace sl
