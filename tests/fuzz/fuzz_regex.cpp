// A regular expression against a name (issue 36 §1): the input is "<flags byte><pattern>\n<name>". Every pattern
// Sightline runs (user options, class, host-cause and step-grammar files, a config's module patterns) goes through
// sl::Regex (RE2): a pattern is either refused with sl::RegexError or runs in linear time on any name, without
// recursion. libFuzzer's -timeout catches a slow match; the invariants below catch a wrong one.
#include <cstdlib>
#include <string>
#include <string_view>

#include "analysis/io/regex.h"
#include "tests/fuzz/fuzz_common.h"

namespace {
void check(bool ok, const char* what)
{
    if (!ok) {
        std::fprintf(stderr, "FINDING: %s\n", what);
        std::abort();
    }
}
}   // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    if (size == 0)
        return 0;
    const bool icase = data[0] & 1;
    const bool grow = data[0] & 2;   // the name repeated up to 16 KiB: a long kernel name
    const std::string_view rest(reinterpret_cast<const char*>(data + 1), size - 1);
    const size_t nl = rest.find('\n');
    const std::string_view pattern = rest.substr(0, nl);
    std::string name(nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1));
    if (grow && !name.empty())
        while (name.size() < 16384)
            name += name;
    sl::Regex re;
    try {
        re = sl::Regex(pattern, sl::Regex::Options{.icase = icase});
    } catch (const sl::RegexError& e) {
        check(std::string_view(e.what()).size() < 600, "a refused pattern's message is not bounded");
        return 0;
    }
    const bool found = re.search(name);
    const bool whole = re.full_match(name);
    check(!whole || found, "a full match that search does not find");
    std::vector<std::string_view> m;
    check(re.search(name, m) == found, "search with groups disagrees with search");
    if (found) {
        check(m.size() == static_cast<size_t>(re.groups()) + 1, "group count");
        for (const auto& g : m)
            check(!g.data() || (g.data() >= name.data() && g.data() + g.size() <= name.data() + name.size()),
                  "a group outside the name");
    }
    const auto all = re.all_matches(name);
    check(all.empty() == !found, "all_matches disagrees with search");
    check(all.size() <= name.size() + 1, "more matches than positions");
    (void)re.replace_all(name, "<\\0>");
    return 0;
}
