// Golden files for the Markdown and JSON reports of the generated decode trace (analysis/io/synthetic.h) with the
// Roofline of a small Llama config on the H100 spec row and two fixed findings. On a mismatch the test writes
// <golden>.actual beside the golden file: diff it, and copy it over the golden when the change is intended.
#include "analysis/report/report_html.h"
#include "analysis/report/report_json.h"
#include "analysis/report/report_markdown.h"
#include "analysis/report_pipeline.h"
#include "analysis/io/synthetic.h"
#include "tests/support/test_env.h"

#include <gtest/gtest.h>

using namespace sl;
using namespace sl::report;

namespace {

std::vector<Finding> fixed_findings()
{
    std::vector<Finding> fs(2);
    fs[0].rule = "decode-host-bound";
    fs[0].verdict = "host-bound";
    fs[0].severity = Severity::High;
    fs[0].scope = ScopeKind::Phase;
    fs[0].subject = "decode";
    fs[0].title = {"Decode waits for the host", "Decode 阶段 GPU 在等待主机"};
    fs[0].explanation = {"The GPU idles between kernels because launches arrive late.",
                         "由于启动到达较晚，GPU 在内核之间空闲。"};
    fs[0].evidence.push_back({"host_wait_share", 0.41, ">", 0.2, "analysis:idle"});
    fs[0].expected_gain = {0.25, 0.25, 0.25, 2.5e6, true, "host_wait_ns / wall_ns", {}};
    fs[0].confidence = {0.72, "high", 0.8, 0.9, 1.0, {"short capture"}};
    Suggestion s;
    s.id = "cuda-graphs";
    s.text = {"Capture the decode step in a CUDA graph", "将 decode 步捕获为 CUDA Graph"};
    s.gain_low = 0.15;
    s.gain_high = 0.35;
    s.risk = "low";
    s.verify = "sightline-cli compare before.sqlite after.sqlite --format md";
    fs[0].suggestions.push_back(s);
    fs[1].rule = "short-kernels";
    fs[1].verdict = "launch-bound";
    fs[1].severity = Severity::Medium;
    fs[1].scope = ScopeKind::Kernel;
    fs[1].subject = "rms_norm_kernel";
    fs[1].title = {"Many kernels are shorter than their launch", "大量内核短于其启动调用"};
    fs[1].expected_gain = {0.05, 0.02, 0.08, std::nullopt, false, "rule range", {}};
    fs[1].confidence = {0.5, "medium", 0.5, 1.0, 1.0, {}};
    return fs;
}

struct Built {
    Trace trace;
    PipelineResults results;
    std::vector<Finding> findings;
};

Built& built()
{
    static Built b = [] {
        Built x;
        x.trace = make_synthetic_trace(synth_preset("decode"));
        PipelineOptions po;
        po.model_config = test::source_dir() + "/tests/data/models/llama_tiny_config.json";
        po.gpu = "H100 SXM";
        po.cost.batch = 8;
        po.cost.prompt = 512;
        po.cost.context = 512;
        po.rules = false;   // the fixed findings keep the golden independent of the shipped rule files
        x.results = run_pipeline(x.trace, po);
        x.findings = fixed_findings();
        return x;
    }();
    return b;
}

Report make(Lang lang)
{
    Built& b = built();
    ReportOptions o;
    o.lang = lang;
    o.generated_at = "2026-01-01T00:00:00Z";
    o.run_id = "r-golden";
    o.model = "llama-tiny (tests/data/models/llama_tiny_config.json)";
    o.shape = "batch 8, prompt 512, context 512";
    o.finding_state["decode-host-bound|decode"] = "accepted";
    o.finding_note["decode-host-bound|decode"] = "graphs already on in staging";
    o.suggestion_state["decode-host-bound/cuda-graphs|decode"] = "rejected";
    o.suggestion_note["decode-host-bound/cuda-graphs|decode"] = "the step has dynamic shapes";
    ReportInputs in = report_inputs(b.trace, b.results, o,
                                    {test::source_dir() + "/tests/data/models/llama_tiny_config.json"});
    in.findings = &b.findings;
    return build_report(in);
}

std::string golden(const std::string& name) { return test::source_dir() + "/tests/golden/report/" + name; }

} // namespace

TEST(ReportGolden, MarkdownEnglish)
{
    MarkdownOptions mo;
    mo.write_image = [](const Chart& c) { return "decode_en_files/" + c.id + ".png"; };
    EXPECT_TRUE(test::matches_golden(golden("decode_en.md"), to_markdown(make(Lang::En), mo)))
        << "see " << golden("decode_en.md") << ".actual";
}

TEST(ReportGolden, MarkdownChinese)
{
    EXPECT_TRUE(test::matches_golden(golden("decode_zh_CN.md"), to_markdown(make(Lang::ZhCN))))
        << "see " << golden("decode_zh_CN.md") << ".actual";
}

TEST(ReportGolden, Json)
{
    EXPECT_TRUE(test::matches_golden(golden("decode_en.json"), to_json_text(make(Lang::En))))
        << "see " << golden("decode_en.json") << ".actual";
}

TEST(ReportGolden, JsonIsParseableAndCarriesTheSchema)
{
    const auto j = nlohmann::json::parse(to_json_text(make(Lang::En)));
    EXPECT_EQ(j["schema"], "sightline.report/1");
    std::vector<std::string> ids;
    for (const auto& s : j["sections"])
        ids.push_back(s["id"]);
    EXPECT_EQ(ids, (std::vector<std::string>{"overview", "environment", "headline", "time", "roofline", "findings",
                                             "appendix"}));
}

TEST(ReportGolden, HtmlIsSelfContainedWithOneSvgPerChart)
{
    const Report r = make(Lang::En);
    const std::string html = to_html(r);
    size_t svgs = 0;
    for (size_t p = html.find("<svg"); p != std::string::npos; p = html.find("<svg", p + 1))
        ++svgs;
    EXPECT_EQ(svgs, r.charts().size());
    EXPECT_GE(svgs, 4u);   // top kernels, op classes, idle causes, gap histogram, roofline
    // Nothing is fetched: the only URL is the SVG namespace.
    size_t urls = 0;
    for (size_t p = html.find("http"); p != std::string::npos; p = html.find("http", p + 1)) {
        EXPECT_EQ(html.compare(p, 26, "http://www.w3.org/2000/svg"), 0) << html.substr(p, 60);
        ++urls;
    }
    EXPECT_EQ(urls, svgs);
    EXPECT_EQ(html.find("<script"), std::string::npos);
    EXPECT_EQ(html.find("<link"), std::string::npos);
}

TEST(ReportGolden, SuggestionDecisionsAndNotesFollowTheirSuggestion)
{
    // The Suggestions pane's state and note of each suggestion, right under it, in both languages.
    const std::string en = to_markdown(make(Lang::En));
    const size_t sug = en.find("Capture the decode step in a CUDA graph (expected gain 15–35 %");
    ASSERT_NE(sug, std::string::npos);
    const size_t decision = en.find("Your decision: rejected. Note: the step has dynamic shapes", sug);
    ASSERT_NE(decision, std::string::npos);
    EXPECT_LT(decision, en.find("###", sug));   // before the next finding
    EXPECT_NE(to_markdown(make(Lang::ZhCN)).find("用户决定：已拒绝。备注：the step has dynamic shapes"), std::string::npos);
    // A suggestion nobody decided on says nothing.
    Built& b = built();
    ReportOptions o;
    o.generated_at = "2026-01-01T00:00:00Z";
    ReportInputs in = report_inputs(b.trace, b.results, o, {});
    in.findings = &b.findings;
    EXPECT_EQ(to_markdown(build_report(in)).find("Your decision"), std::string::npos);
}

TEST(ReportGolden, TheModelAndShapeUsedAreNamed)
{
    // A config.json opened with the trace is the report's model, with the shape it was costed for (the GUI said
    // "Model: not given" while the Roofline used it).
    PipelineOptions po;
    po.model_config = "/some/where/config.json";
    po.cost.batch = 4;
    po.cost.prompt = 256;
    po.cost.context = 1024;
    ReportOptions o;
    describe_workload(o, po);
    EXPECT_EQ(o.model, "config.json");
    EXPECT_EQ(o.shape, "batch 4, prompt 256, context 1024");
    ReportOptions given;
    given.model = "Llama-3-8B";
    describe_workload(given, po);
    EXPECT_EQ(given.model, "Llama-3-8B");   // what the user said wins
    ReportOptions none;
    describe_workload(none, PipelineOptions{});
    EXPECT_TRUE(none.model.empty() && none.shape.empty());
}
