// sightline-cli report (and analyze --format md|pdf|html): every format from a generated trace, the JSON schema,
// Chinese output, the run id derived from the input hash, usage errors.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

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
    // The default Markdown report is the summary, titled with the trace's name ("sync" from sync.sqlite).
    ASSERT_EQ(run("report '" + trace_path() + "' --format md -o '" + dir + "/r.md'", &log, true), 0) << log;
    const std::string md = slurp(dir + "/r.md");
    EXPECT_EQ(md.rfind("# sync — GPU inference performance report", 0), 0u) << md.substr(0, 200);
    EXPECT_NE(md.find("| ---: |"), std::string::npos);
    // With Qt the charts are PNG files next to the .md, linked relatively; without, data tables. The summary has
    // the executive summary's chart and no gap histogram (the gap tables are the full report's).
    if (fs::exists(dir + "/r_files")) {
        EXPECT_NE(md.find("](r_files/summary_idle_causes.png)"), std::string::npos);
        EXPECT_TRUE(fs::exists(dir + "/r_files/summary_idle_causes.png"));
        EXPECT_EQ(md.find("gap_histogram"), std::string::npos);
        EXPECT_FALSE(fs::exists(dir + "/r_files/gap_histogram.png"));
    }
    ASSERT_EQ(run("report '" + trace_path() + "' --format md --detail full -o '" + dir + "/full.md'", &log, true), 0)
        << log;
    const std::string full = slurp(dir + "/full.md");
    EXPECT_EQ(full.rfind("# sync — GPU inference performance report", 0), 0u);
    if (fs::exists(dir + "/full_files")) {
        EXPECT_NE(full.find("](full_files/gap_histogram.png)"), std::string::npos);
        EXPECT_TRUE(fs::exists(dir + "/full_files/gap_histogram.png"));
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

namespace {

// Every heading of a report document: section titles (at any depth) and table captions, as the PDF writes them.
void collect_headings(const json& section, std::vector<std::string>& out)
{
    out.push_back(section.at("title").get<std::string>());
    for (const json& b : section.at("blocks"))
        if (b.at("type") == "table" && !b.at("caption").get<std::string>().empty())
            out.push_back(b.at("caption").get<std::string>());
    for (const json& c : section.at("sections"))
        collect_headings(c, out);
}

// Whitespace runs to one space, pdftotext's ligatures undone.
std::string normalise(std::string s)
{
    for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
             {"\xef\xac\x81", "fi"}, {"\xef\xac\x82", "fl"}, {"\xef\xac\x80", "ff"}, {"\xef\xac\x83", "ffi"},
             {"\xef\xac\x84", "ffl"}, {"\xe2\x80\x8b", ""}}) {
        for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at))
            s.replace(at, from.size(), to);
    }
    std::string out;
    bool space = false;
    for (char c : s) {
        const bool ws = c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f';
        if (ws) {
            space = !out.empty();
            continue;
        }
        if (space)
            out += ' ';
        space = false;
        out += c;
    }
    return out;
}

int pdf_pages(const std::string& pdf)
{
    std::string info;
    if (test::run_command("pdfinfo '" + pdf + "'", &info) != 0)
        return -1;
    const size_t at = info.find("Pages:");
    return at == std::string::npos ? -1 : std::stoi(info.substr(at + 6));
}

std::string pdf_page_text(const std::string& pdf, int page)
{
    std::string text;
    test::run_command("pdftotext -f " + std::to_string(page) + " -l " + std::to_string(page) + " '" + pdf + "' -", &text);
    return text;
}

} // namespace

// The report people forward (issue 30): `report TRACE --format pdf` is a summary of at most 8 pages titled with the
// trace's name, on the bundled sample (packaging/run-sample.sh: the decode preset, with and without its model
// config), in English and Chinese; no heading ends a page (checked on the PDF's own text, page by page, against
// every section title and table caption of the same report as JSON); --detail full adds the appendix.
TEST(CliReport, PdfSummaryOfTheSampleIsShortTitledAndKeepsHeadingsWithTheirContent)
{
    std::string log;
    if (test::run_command("pdftotext -v", &log, true) != 0 && log.find("pdftotext") == std::string::npos)
        GTEST_SKIP() << "poppler-utils (pdftotext) is not installed";
    const std::string dir = test::scratch_dir("cli_report_pdf_summary");
    const std::string sample = dir + "/llm_decode_sample.sqlite", config = dir + "/llm_decode_sample.config.json";
    ASSERT_EQ(run("generate --preset decode --quiet -o '" + sample + "' --config-out '" + config + "'", &log, true), 0)
        << log;
    struct Case {
        std::string name, args;
        const char* lang;
    };
    const Case cases[] = {{"plain_en", "", "en"},
                          {"model_en", " --model '" + config + "' --prompt 512", "en"},
                          {"model_zh", " --model '" + config + "' --prompt 512", "zh_CN"}};
    for (const Case& c : cases) {
        SCOPED_TRACE(c.name);
        const std::string pdf = dir + "/" + c.name + ".pdf";
        const std::string common = "report '" + sample + "'" + c.args + " --lang " + c.lang;
        const int rc = run(common + " --format pdf -o '" + pdf + "'", &log, true);
        if (rc == 64 && log.find("no Qt") != std::string::npos)
            GTEST_SKIP() << "CLI built without Qt";
        ASSERT_EQ(rc, 0) << log;
        const int pages = pdf_pages(pdf);
        ASSERT_GT(pages, 0);
        EXPECT_LE(pages, 8) << log;
        EXPECT_NE(log.find("(" + std::to_string(pages) + " pages)"), std::string::npos) << log;
        // Titled with the trace's name, not its run id.
        const std::string first = normalise(pdf_page_text(pdf, 1));
        EXPECT_NE(first.find(std::string("llm_decode_sample — ") +
                             (c.lang == std::string("en") ? "GPU inference performance report" : "GPU 推理性能诊断报告")),
                  std::string::npos)
            << first.substr(0, 300);
        std::string info;
        test::run_command("pdfinfo '" + pdf + "'", &info);
        EXPECT_NE(info.find("llm_decode_sample"), std::string::npos) << info;

        // The same document as JSON: its headings.
        std::string js;
        ASSERT_EQ(run(common + " --format json --detail summary", &js), 0) << js;
        const json doc = json::parse(js);
        EXPECT_EQ(doc.at("detail"), "summary");
        EXPECT_EQ(doc.at("trace_name"), "llm_decode_sample");
        std::vector<std::string> headings;
        for (const json& sec : doc.at("sections"))
            collect_headings(sec, headings);
        ASSERT_GT(headings.size(), 5u);
        for (const json& sec : doc.at("sections"))
            EXPECT_NE(sec.at("id"), "appendix");
        const std::string page_word = c.lang == std::string("en") ? "Page " : "页";
        for (int p = 1; p <= pages; ++p) {
            std::string text = pdf_page_text(pdf, p);
            // Drop the running footer (title · run id, "Page N of M"): the last lines of the page's text.
            std::vector<std::string> lines;
            size_t pos = 0;
            while (pos < text.size()) {
                size_t end = text.find('\n', pos);
                if (end == std::string::npos)
                    end = text.size();
                const std::string line = normalise(text.substr(pos, end - pos));
                if (!line.empty())
                    lines.push_back(line);
                pos = end + 1;
            }
            while (!lines.empty() && (lines.back().find(page_word) != std::string::npos ||
                                      lines.back().find(doc.at("run_id").get<std::string>()) != std::string::npos))
                lines.pop_back();
            ASSERT_FALSE(lines.empty()) << "page " << p << " is empty";
            std::string body;
            for (const std::string& l : lines)
                body += (body.empty() ? "" : " ") + l;
            for (const std::string& h : headings) {
                const std::string nh = normalise(h);
                ASSERT_FALSE(body.size() >= nh.size() && body.compare(body.size() - nh.size(), nh.size(), nh) == 0)
                    << "page " << p << " of " << pages << " ends with the heading \"" << h << "\"";
            }
        }

        // --detail full: today's appendix, on more pages.
        const std::string full = dir + "/" + c.name + "_full.pdf";
        ASSERT_EQ(run(common + " --format pdf --detail full -o '" + full + "'", &log, true), 0) << log;
        const int full_pages = pdf_pages(full);
        EXPECT_GT(full_pages, pages);
        std::string all;
        for (int p = 1; p <= full_pages; ++p)
            all += pdf_page_text(full, p);
        EXPECT_NE(normalise(all).find(c.lang == std::string("en") ? "Thresholds and options" : "阈值与选项"),
                  std::string::npos);
    }
}

TEST(CliReport, UsageErrors)
{
    std::string log;
    EXPECT_EQ(run("report '" + trace_path() + "'", &log, true), 64);   // no --format
    EXPECT_EQ(run("report '" + trace_path() + "' --format docx", &log, true), 64);
    EXPECT_EQ(run("report '" + trace_path() + "' --format json --lang fr", &log, true), 64);
    EXPECT_EQ(run("report '" + trace_path() + "' --format md --detail everything", &log, true), 64);
    EXPECT_NE(log.find("--detail must be summary or full"), std::string::npos) << log;
    EXPECT_EQ(run("report /nonexistent.sqlite --format json", &log, true), 2);
}

// `report --kb` shows the decisions the knowledge base holds for this trace's suggestions (kb reject/accept with a
// note, or the GUI's Suggestions pane), as the GUI's export does; without --kb, or for another trace, none.
TEST(CliReport, KnowledgeBaseDecisionsAppearUnderTheirSuggestions)
{
    const std::string dir = test::scratch_dir("cli_report_decisions");
    const std::string trace = dir + "/starved.sqlite", other = dir + "/other.sqlite", kb = dir + "/kb.db";
    std::string out;
    ASSERT_EQ(run("generate --steps 16 --layers 4 --prefill 1 --host-starved --quiet -o " + trace, &out, true), 0) << out;
    ASSERT_EQ(run("generate --steps 12 --layers 4 --prefill 1 --host-starved --quiet -o " + other, &out, true), 0) << out;
    ASSERT_EQ(run("kb record " + trace + " --kb " + kb, &out, true), 0) << out;
    std::string listed;
    ASSERT_EQ(run("kb list --kb " + kb + " --format json", &listed), 0) << listed;
    const json list = json::parse(listed);
    std::string id;
    for (const auto& s : list)
        if (s["suggestion"] == "decode-host-bound/cuda-graphs")
            id = std::to_string(s["id"].get<int64_t>());
    ASSERT_FALSE(id.empty()) << list.dump(1);
    std::string rejected;
    ASSERT_EQ(run("kb reject " + id + " --note 'graphs break our sampler' --kb " + kb, &rejected, true), 0) << rejected;

    std::string en, zh, without, other_md;
    ASSERT_EQ(run("report " + trace + " --kb " + kb + " --format md", &en, true), 0) << en;
    EXPECT_NE(en.find("Your decision: rejected. Note: graphs break our sampler"), std::string::npos) << en;
    ASSERT_EQ(run("report " + trace + " --kb " + kb + " --format md --lang zh_CN", &zh, true), 0) << zh;
    EXPECT_NE(zh.find("用户决定：已拒绝。备注：graphs break our sampler"), std::string::npos);
    // Without the knowledge base, or for a trace whose run it does not hold, no decision is shown.
    ASSERT_EQ(run("report " + trace + " --format md", &without, true), 0) << without;
    EXPECT_EQ(without.find("Your decision"), std::string::npos);
    ASSERT_EQ(run("report " + other + " --kb " + kb + " --format md", &other_md, true), 0) << other_md;
    EXPECT_EQ(other_md.find("Your decision"), std::string::npos);
}

// The Chinese report says verdicts, scopes, evidence sources and the workload in words, not as the analysis's
// tokens ("判定: host-bound", "来源: analysis:idle" before).
TEST(CliReport, ChineseReportSaysTokensInWords)
{
    const std::string dir = test::scratch_dir("cli_report_words");
    const std::string trace = dir + "/starved.sqlite";
    std::string out;
    ASSERT_EQ(run("generate --steps 16 --layers 4 --prefill 1 --host-starved --quiet -o " + trace, &out, true), 0) << out;
    std::string md;
    ASSERT_EQ(run("report " + trace + " --format md --lang zh_CN", &md, true), 0) << md;
    for (const char* token : {"analysis:idle", "analysis:phases", "判定:** host-bound", "范围:** phase", "inference ·",
                              "[warmup", "short capture"})
        EXPECT_EQ(md.find(token), std::string::npos) << token;
    for (const char* words : {"判定:** 受主机限制", "范围:** 阶段", "| 预填充/解码阶段 |", "推理 · 逐个启动", "已排除预热：",
                              "采集时间短（"})
        EXPECT_NE(md.find(words), std::string::npos) << words;
}
