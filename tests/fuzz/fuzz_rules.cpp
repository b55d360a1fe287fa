// Rule files (JSON with muparser conditions, placeholders, suggestions), and the input as a condition expression
// on its own (condition_terms).
#include "analysis/diagnosis/rules.h"
#include "tests/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string path = sl::fuzz::write_scratch(data, size, "-rules.json");
    sl::fuzz::expect_located_errors([&] {
        sl::RuleSet set;
        sl::load_rule_file(path, set);   // a malformed file or rule is recorded in set.errors, never thrown
        (void)sl::condition_terms(std::string(reinterpret_cast<const char*>(data), size));
    });
    return 0;
}
