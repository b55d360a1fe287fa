#include "analysis/io/json_input.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "analysis/trace/errors.h"

namespace sl {

int json_nesting(std::string_view text, int limit, size_t* at)
{
    int depth = 0, deepest = 0;
    bool in_string = false;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (in_string) {
            if (c == '\\')
                ++i;   // the escaped byte (\" or \\) does not end the string
            else if (c == '"')
                in_string = false;
            continue;
        }
        if (c == '"') {
            in_string = true;
        } else if (c == '[' || c == '{') {
            if (++depth > limit) {
                if (at)
                    *at = i;
                return limit + 1;
            }
            deepest = std::max(deepest, depth);
        } else if ((c == ']' || c == '}') && depth > 0) {
            --depth;
        }
    }
    return deepest;
}

nlohmann::json parse_json_input(const std::string& text, const std::string& source)
{
    using nlohmann::json;
    size_t at = 0;
    if (json_nesting(text, kMaxJsonDepth, &at) > kMaxJsonDepth)
        throw TraceError(source, "byte " + std::to_string(at),
                         "JSON nested at most " + std::to_string(kMaxJsonDepth) + " arrays or objects deep",
                         "deeper nesting");
    try {
        return json::parse(text);
    } catch (const json::parse_error& e) {
        throw TraceError(source, "byte " + std::to_string(e.byte), "valid JSON", e.what());
    } catch (const json::exception& e) {
        // out_of_range.406: a number such as 1e999 that no double holds.
        throw TraceError(source, "", "valid JSON with finite numbers", e.what());
    }
}

nlohmann::json parse_json_lenient(std::string_view text, int limit)
{
    using nlohmann::json;
    if (json_nesting(text, limit) > limit)
        return json(json::value_t::discarded);
    try {
        return json::parse(text, nullptr, false);
    } catch (const json::exception&) {
        return json(json::value_t::discarded);   // a number no double holds
    }
}

} // namespace sl
