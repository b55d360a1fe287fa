#include "analysis/io/json_input.h"

#include <nlohmann/json.hpp>

#include "analysis/trace/errors.h"

namespace sl {

nlohmann::json parse_json_input(const std::string& text, const std::string& source)
{
    using nlohmann::json;
    try {
        return json::parse(text);
    } catch (const json::parse_error& e) {
        throw TraceError(source, "byte " + std::to_string(e.byte), "valid JSON", e.what());
    } catch (const json::exception& e) {
        // out_of_range.406: a number such as 1e999 that no double holds.
        throw TraceError(source, "", "valid JSON with finite numbers", e.what());
    }
}

} // namespace sl
