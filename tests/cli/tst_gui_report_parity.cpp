// The GUI and the CLI run one pipeline and give the same numbers: the report the GUI exports (File › Export Report,
// driven here by its hidden --export-report option) equals `sightline-cli report` on the same trace, apart from the
// generation time and how the input path is spelled.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/support/test_env.h"

using nlohmann::json;

namespace {

[[maybe_unused]] json read_json(const std::string& path)
{
    std::ifstream in(path);
    return json::parse(in);
}

// Drops what legitimately differs between two runs: timestamps, and absolute vs relative input paths.
[[maybe_unused]] void normalise(json& j, const std::string& dir)
{
    if (j.is_object()) {
        if (j.contains("key") && j["key"] == "generated_at")
            j.erase("text"), j.erase("value");
        for (auto& [k, v] : j.items()) {
            if (k == "generated_at")
                v = nullptr;
            else
                normalise(v, dir);
        }
    } else if (j.is_array()) {
        for (auto& v : j)
            normalise(v, dir);
    } else if (j.is_string()) {
        std::string s = j.get<std::string>();
        for (size_t p; (p = s.find(dir + "/")) != std::string::npos;)
            s.erase(p, dir.size() + 1);
        j = s;
    }
}

} // namespace

TEST(GuiReportParity, GuiExportEqualsCliReport)
{
#ifndef SIGHTLINE_GUI
    GTEST_SKIP() << "built without the GUI";
#else
    const std::string dir = sl::test::scratch_dir("gui_report_parity");
    const std::string trace = dir + "/s.sqlite";
    std::string out;
    ASSERT_EQ(sl::test::run_command(std::string(SIGHTLINE_CLI) + " generate --preset decode --quiet -o " + trace, &out,
                                    true), 0)
        << out;
    ASSERT_EQ(sl::test::run_command("cd " + dir + " && QT_QPA_PLATFORM=offscreen " + SIGHTLINE_GUI + " " + trace +
                                        " --export-report " + dir + "/gui.json",
                                    &out, true), 0)
        << out;
    // The GUI reads the workbench's knowledge base when it exists (confidence history, "Seen before on this
    // environment"): the CLI is given the same one.
    const char* xdg = std::getenv("XDG_DATA_HOME");
    const std::string kb = std::string(xdg ? xdg : "") + "/sightline/knowledge.db";
    const std::string kb_arg = xdg && std::filesystem::exists(kb) ? " --kb " + kb : "";
    ASSERT_EQ(sl::test::run_command(std::string(SIGHTLINE_CLI) + " report " + trace + kb_arg + " --format json -o " + dir +
                                        "/cli.json",
                                    &out, true), 0)
        << out;
    json gui = read_json(dir + "/gui.json"), cli = read_json(dir + "/cli.json");
    ASSERT_EQ(gui["schema"], "sightline.report/1");
    normalise(gui, dir);
    normalise(cli, dir);
    EXPECT_EQ(gui, cli) << "GUI and CLI reports differ";
    // The comparison is not vacuous: the report carries the trace's numbers.
    EXPECT_NE(cli.dump().find("3,094"), std::string::npos);
#endif
}
