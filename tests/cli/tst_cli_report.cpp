// sightline-cli report (and analyze --format md|pdf|html): every format from a generated trace, the JSON schema,
// Chinese output, the run id derived from the input hash, usage errors.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "analysis/io/sha256.h"
#include "tests/support/test_env.h"

namespace test = sl::test;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {
int run(const std::string& args, std::string* out, bool merge = false)
{
    return test::run_command(std::string(SIGHTLINE_CLI) + " " + args, out, merge);
}

const std::string& trace_path()
{
    static std::string path;
    if (path.empty()) {
        path = test::scratch_dir("cli_report") + "/sync.sqlite";
        std::string log;
        if (run("generate --steps 8 --layers 2 --prefill 1 --sync-every-step --seed 3 --quiet -o '" + path + "'", &log,
                true) != 0)
            ADD_FAILURE() << log;
    }
    return path;
}

std::string slurp(const std::string& p)
{
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}
} // namespace

TEST(CliReport, JsonCarriesTheSchemaAndTheInputHash)
{
    std::string out;
    ASSERT_EQ(run("report '" + trace_path() + "' --format json --generated-at 2026-01-01T00:00:00Z", &out), 0) << out;
    const json j = json::parse(out);
    EXPECT_EQ(j["schema"], "sightline.report/1");
    EXPECT_EQ(j["generated_at"], "2026-01-01T00:00:00Z");
    const std::string hash = sl::sha256_file(trace_path());
    EXPECT_NE(out.find(hash), std::string::npos);
    // The sync-every-step trace: the sync section counts one synchronising call per step or more.
    bool found = false;
    for (const auto& s : j["sections"])
        if (s["id"] == "time")
            for (const auto& c : s["sections"])
                if (c["id"] == "time.sync")
                    for (const auto& b : c["blocks"])
                        if (b["type"] == "key_values")
                            for (const auto& i : b["items"])
                                if (i["key"] == "calls") {
                                    found = true;
                                    EXPECT_GE(i["value"].get<int64_t>(), 8);
                                }
    EXPECT_TRUE(found);
    // Same input, same run id.
    std::string again;
    ASSERT_EQ(run("report '" + trace_path() + "' --format json", &again), 0);
    EXPECT_EQ(json::parse(again)["run_id"], j["run_id"]);
}

TEST(CliReport, MarkdownHtmlAndChinese)
{
    const std::string dir = test::scratch_dir("cli_report_md");
    std::string log;
    ASSERT_EQ(run("report '" + trace_path() + "' --format md -o '" + dir + "/r.md'", &log, true), 0) << log;
    const std::string md = slurp(dir + "/r.md");
    EXPECT_EQ(md.rfind("# GPU inference performance report", 0), 0u);
    EXPECT_NE(md.find("| ---: |"), std::string::npos);
    // With Qt the charts are PNG files next to the .md, linked relatively; without, data tables.
    if (fs::exists(dir + "/r_files")) {
        EXPECT_NE(md.find("](r_files/gap_histogram.png)"), std::string::npos);
        EXPECT_TRUE(fs::exists(dir + "/r_files/gap_histogram.png"));
    }
    ASSERT_EQ(run("analyze '" + trace_path() + "' --format html --lang zh_CN -o '" + dir + "/r.html'", &log, true), 0)
        << log;
    const std::string html = slurp(dir + "/r.html");
    EXPECT_NE(html.find("<html lang=\"zh-CN\">"), std::string::npos);
    EXPECT_NE(html.find("执行摘要"), std::string::npos);   // the executive summary leads (issue 16)
    EXPECT_NE(html.find("<svg"), std::string::npos);
}

TEST(CliReport, PdfWhenBuiltWithQt)
{
    const std::string dir = test::scratch_dir("cli_report_pdf");
    std::string log;
    const int rc = run("analyze '" + trace_path() + "' --format pdf -o '" + dir + "/r.pdf'", &log, true);
    if (rc == 64 && log.find("no Qt") != std::string::npos)
        GTEST_SKIP() << "CLI built without Qt";
    ASSERT_EQ(rc, 0) << log;
    const std::string pdf = slurp(dir + "/r.pdf");
    EXPECT_EQ(pdf.rfind("%PDF-", 0), 0u);
    EXPECT_GT(pdf.size(), 10000u);
}

TEST(CliReport, UsageErrors)
{
    std::string log;
    EXPECT_EQ(run("report '" + trace_path() + "'", &log, true), 64);   // no --format
    EXPECT_EQ(run("report '" + trace_path() + "' --format docx", &log, true), 64);
    EXPECT_EQ(run("report '" + trace_path() + "' --format json --lang fr", &log, true), 64);
    EXPECT_EQ(run("report /nonexistent.sqlite --format json", &log, true), 2);
}
