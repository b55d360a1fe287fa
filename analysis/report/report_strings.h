#pragma once
// Report strings in English and Simplified Chinese, keyed by a stable id. The analysis layer has no Qt (no tr()),
// so the report carries its own small table; a test checks that every id has both languages and that both use the
// same {0} {1} … placeholders.

#include <string>
#include <string_view>
#include <vector>

namespace sl::report {

enum class Lang { En, ZhCN };

// "en" -> En; "zh_CN", "zh-CN", "zh", "zh_CN.UTF-8" -> ZhCN. Returns false for anything else.
bool parse_lang(std::string_view s, Lang& out);
const char* lang_code(Lang l);   // "en" | "zh_CN"

struct StringEntry {
    const char* id;
    const char* en;
    const char* zh;
};
// The whole table (for tests and for translators).
const std::vector<StringEntry>& string_table();

// The text of `id` in `lang`; an unknown id returns the id itself wrapped in "??" so it shows up in review.
std::string_view S(Lang lang, std::string_view id);
// Whether the table has `id` (for words looked up by a token that may be new: a verdict, a source, a scope).
bool has_string(std::string_view id);
// A confidence reason of the rule engine (rules.cpp: "short capture (39.2 ms < 200 ms)", "few samples (count 3)",
// "incomplete data for this scope (quality 0.5)", "expected gain is the rule's range, …", "knowledge base: …") in
// `lang`, the numbers kept; a reason it does not know is returned as it is. The report and the GUI say them so.
std::string confidence_reason_text(std::string_view reason, Lang lang);
// A metric of the rule engine ("host_wait_share") named for people in `lang` ("host wait, share of idle time");
// a metric the table does not name is returned as it is.
std::string metric_label(std::string_view key, Lang lang);
// S() with {0}, {1}, … replaced by args.
std::string F(Lang lang, std::string_view id, const std::vector<std::string>& args);

} // namespace sl::report
