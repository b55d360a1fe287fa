#pragma once
// A merge's JSON (sightline.merge/1) without what names the files it read (`inputs`, each rank's `partial` and
// `trace`): what a cluster run, a local merge and `analyze` of a folder must agree on.

#include <nlohmann/json.hpp>

namespace sl::test {

inline nlohmann::json merge_without_file_names(nlohmann::json j)
{
    j.erase("inputs");
    for (auto& r : j["ranks"]) {
        r.erase("partial");
        r.erase("trace");
    }
    return j;
}

} // namespace sl::test
