// sightline-cli analyze --partial and merge (issue 38 §1): the map and the reduce of a many-rank run as commands.
// The merge of the ranks' partials prints the collectives `analyze` of all the ranks prints; bad partials exit 2
// naming the file; the schema document names every key.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "tests/support/helpers.h"
#include "tests/support/merge_json.h"
#include "tests/support/test_env.h"

using nlohmann::json;
using sl::test::shell_quote;

namespace {

std::string cli() { return SIGHTLINE_CLI; }

int run(const std::string& args, std::string* out, bool merge = false)
{
    return sl::test::run_command(cli() + " " + args, out, merge);
}

json run_json(const std::string& args)
{
    std::string out;
    const int rc = run(args, &out);
    EXPECT_EQ(rc, 0) << args << "\n" << out;
    return json::parse(out, nullptr, false);
}

std::string slurp(const std::string& path)
{
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// Generated ranks of one job (rank `straggler` late by 8 µs), and their partials.
struct Ranks {
    std::vector<std::string> traces, partials;
};
Ranks make_ranks(const std::string& dir, int world, int straggler)
{
    Ranks r;
    std::string out;
    for (int i = 0; i < world; ++i) {
        const std::string t = dir + "/rank" + std::to_string(i) + ".json.gz";
        const std::string p = dir + "/rank" + std::to_string(i) + ".partial.json";
        EXPECT_EQ(run("generate --rank " + std::to_string(i) + " --world-size " + std::to_string(world) +
                          " --straggler " + std::to_string(straggler) + " --skew-us 8 --alltoall-heavy 0 --steps 6 "
                          "--layers 2 --quiet -o " + shell_quote(t), &out, true), 0) << out;
        EXPECT_EQ(run("analyze " + shell_quote(t) + " --partial -o " + shell_quote(p), &out, true), 0) << out;
        r.traces.push_back(t);
        r.partials.push_back(p);
    }
    return r;
}

std::string joined(const std::vector<std::string>& v)
{
    std::string s;
    for (const auto& x : v)
        s += " " + shell_quote(x);
    return s;
}

} // namespace

TEST(CliMerge, MergeOfPartialsEqualsAnalyzeOfAllRanks)
{
    const std::string dir = sl::test::scratch_dir("cli_merge_equal");
    const Ranks r = make_ranks(dir, 3, 1);
    const json partial = json::parse(slurp(r.partials[1]));
    EXPECT_EQ(partial["schema"], "sightline.partial/1");
    EXPECT_EQ(partial["identity"]["rank"], 1);
    EXPECT_EQ(partial["identity"]["world_size"], 3);
    EXPECT_GT(partial["collectives"]["count"].get<int>(), 0);

    const json merged = run_json("merge" + joined(r.partials) + " --format json");
    const json all = run_json("analyze" + joined(r.traces) + " --format json");
    ASSERT_TRUE(merged.is_object());
    ASSERT_TRUE(all.is_object());
    EXPECT_EQ(merged["schema"], "sightline.merge/1");
    EXPECT_EQ(merged["collectives"], all["collectives"]);
    EXPECT_EQ(merged["collectives"]["straggler_rank"], 1);
    EXPECT_NEAR(merged["collectives"]["mean_skew_ns"].get<double>(), 8000, 400);
    EXPECT_EQ(merged["ranks"].size(), 3u);
    EXPECT_GT(merged["comm_latency"]["total_ns"].get<int64_t>(), 0);
    EXPECT_NEAR(merged["alltoall"]["mean_imbalance"].get<double>(), 2.0 / (4.0 / 3.0), 1e-9);
    ASSERT_FALSE(merged["findings"].empty());

    // The order of the partials on the command line changes nothing.
    const json reversed = run_json("merge " + shell_quote(r.partials[2]) + " " + shell_quote(r.partials[0]) + " " +
                                   shell_quote(r.partials[1]) + " --format json");
    EXPECT_EQ(reversed["collectives"], merged["collectives"]);

    // A compressed partial (-o FILE.gz) merges as the plain one.
    std::string log;
    const std::string gz = dir + "/rank2.partial.json.gz";
    ASSERT_EQ(run("analyze " + shell_quote(r.traces[2]) + " --partial -o " + shell_quote(gz), &log, true), 0) << log;
    EXPECT_LT(std::filesystem::file_size(gz), std::filesystem::file_size(r.partials[2]) / 2);
    const json mixed = run_json("merge" + joined({r.partials[0], r.partials[1], gz}) + " --format json");
    EXPECT_EQ(mixed["collectives"], merged["collectives"]);

    // The same map and reduce in one command, at most two ranks in memory (issue 38 §2), the ranks named by a glob.
    const json mapped = run_json("analyze " + shell_quote(dir + "/rank*.json.gz") + " --max-ranks-in-memory 2 "
                                 "--format json");
    EXPECT_EQ(mapped["schema"], "sightline.merge/1");
    for (const char* key : {"collectives", "comm_latency", "alltoall", "steps", "findings", "world_size"})
        EXPECT_EQ(mapped[key], merged[key]) << key;

    std::string text;
    ASSERT_EQ(run("merge" + joined(r.partials), &text), 0) << text;
    EXPECT_NE(text.find("rank 1 arrives last at 100 %"), std::string::npos) << text;
    EXPECT_NE(text.find("comm latency"), std::string::npos) << text;
}

// Issue 38 done-when: `merge` of 16 partials equals `analyze` of the 16 ranks in one process, and `analyze` of their
// folder (the map on the readers' pool, then the merge) prints the merge of their partials.
TEST(CliMerge, SixteenPartialsEqualOneProcessAndTheFolder)
{
    const std::string dir = sl::test::scratch_dir("cli_merge_sixteen");
    const Ranks r = make_ranks(dir, 16, 11);
    const json merged = run_json("merge" + joined(r.partials) + " --format json");
    const json all = run_json("analyze" + joined(r.traces) + " --format json");
    ASSERT_TRUE(merged.is_object());
    EXPECT_EQ(merged["collectives"], all["collectives"]);
    EXPECT_EQ(merged["collectives"]["straggler_rank"], 11);
    EXPECT_EQ(merged["ranks"].size(), 16u);

    // The folder holds the partials too: they are not ranks (left out), nor are other files.
    std::ofstream(dir + "/notes.txt") << "not a trace";
    const json folder = run_json("analyze " + shell_quote(dir) + " --format json");
    EXPECT_EQ(sl::test::merge_without_file_names(folder), sl::test::merge_without_file_names(merged));
    // Natural order: rank10 after rank9 (the inputs list is the map's order).
    ASSERT_EQ(folder["ranks"].size(), 16u);
    EXPECT_NE(folder["ranks"][10]["trace"].get<std::string>().find("rank10.json.gz"), std::string::npos);

    std::string out;
    const std::string empty = sl::test::scratch_dir("cli_merge_empty_folder");
    EXPECT_EQ(run("analyze " + shell_quote(empty), &out, true), 2) << out;
    EXPECT_NE(out.find("no trace file in it"), std::string::npos) << out;
    EXPECT_EQ(run("analyze " + shell_quote(dir + "/nothing-*.json"), &out, true), 2) << out;
    EXPECT_NE(out.find("nothing-*.json"), std::string::npos) << out;
    EXPECT_EQ(run("analyze " + shell_quote(dir) + " --partial", &out, true), 64) << out;
}

TEST(CliMerge, BadPartialsExitTwoNamingTheFile)
{
    const std::string dir = sl::test::scratch_dir("cli_merge_bad");
    const Ranks r = make_ranks(dir, 2, 0);
    std::string out;
    // Two partials for one rank.
    const std::string copy = dir + "/copy.partial.json";
    std::filesystem::copy_file(r.partials[1], copy);
    EXPECT_EQ(run("merge" + joined({r.partials[0], r.partials[1], copy}), &out, true), 2) << out;
    EXPECT_NE(out.find("a rank no other partial claims"), std::string::npos) << out;
    EXPECT_NE(out.find("copy.partial.json"), std::string::npos) << out;
    EXPECT_NE(out.find("rank1.partial.json"), std::string::npos) << out;
    // Another version.
    json j = json::parse(slurp(r.partials[1]));
    j["schema"] = "sightline.partial/9";
    const std::string v9 = dir + "/v9.partial.json";
    std::ofstream(v9) << j.dump();
    EXPECT_EQ(run("merge" + joined({r.partials[0], v9}), &out, true), 2) << out;
    EXPECT_NE(out.find("v9.partial.json"), std::string::npos) << out;
    EXPECT_NE(out.find("sightline.partial/1"), std::string::npos) << out;
    // Another world.
    j["schema"] = "sightline.partial/1";
    j["identity"]["world_size"] = 8;
    const std::string w8 = dir + "/w8.partial.json";
    std::ofstream(w8) << j.dump();
    EXPECT_EQ(run("merge" + joined({r.partials[0], w8}), &out, true), 2) << out;
    EXPECT_NE(out.find("w8.partial.json"), std::string::npos) << out;
    EXPECT_NE(out.find("world size 2"), std::string::npos) << out;
    // One file twice.
    EXPECT_EQ(run("merge" + joined({r.partials[0], r.partials[0]}), &out, true), 2) << out;
    EXPECT_NE(out.find("the same file twice"), std::string::npos) << out;
    // A trace is not a partial; --partial takes one trace.
    EXPECT_EQ(run("merge" + joined({r.traces[0]}), &out, true), 2) << out;
    EXPECT_NE(out.find("analyze TRACE --partial"), std::string::npos) << out;
    EXPECT_EQ(run("analyze" + joined(r.traces) + " --partial", &out, true), 64) << out;
    EXPECT_EQ(run("merge", &out, true), 64) << out;
    EXPECT_EQ(run("analyze" + joined(r.traces) + " --partial --max-ranks-in-memory 2", &out, true), 64) << out;
    EXPECT_EQ(run("analyze" + joined(r.traces) + " --max-ranks-in-memory 0", &out, true), 64) << out;
}

// HTA's sampled ranks 0 and 1 of one 128-rank job keep their numbers through partials and merge.
TEST(CliMerge, SampledRanksOfOneJob)
{
    const auto data = sl::test::shared_data_dir();
    if (!data)
        GTEST_SKIP() << "SIGHTLINE_SHARED_DATA not set";
    const std::string dir = sl::test::scratch_dir("cli_merge_hta");
    std::vector<std::string> traces, partials;
    std::string out;
    for (int i = 0; i < 2; ++i) {
        traces.push_back(*data + "/kineto/hta/trace_filter__sampled_rank-" + std::to_string(i) + ".json.gz");
        partials.push_back(dir + "/r" + std::to_string(i) + ".partial.json");
        ASSERT_EQ(run("analyze " + shell_quote(traces.back()) + " --partial -o " + shell_quote(partials.back()), &out,
                      true), 0) << out;
        EXPECT_LT(std::filesystem::file_size(partials.back()), 20'000u);
    }
    const json merged = run_json("merge" + joined(partials) + " --format json");
    const json all = run_json("analyze" + joined(traces) + " --format json");
    EXPECT_EQ(merged["collectives"], all["collectives"]);
    EXPECT_EQ(merged["collectives"]["straggler_rank"], 1);
    EXPECT_EQ(merged["world_size"], 128);
}

// resources/schemas/partial.md names every key a partial and a merge print (keys are a contract).
TEST(CliMerge, SchemaDocumentNamesEveryKey)
{
    const std::string dir = sl::test::scratch_dir("cli_merge_schema");
    const Ranks r = make_ranks(dir, 2, 1);
    const std::string doc = slurp(sl::test::source_dir() + "/resources/schemas/partial.md");
    ASSERT_FALSE(doc.empty());
    auto check = [&](const json& obj, const std::string& where) {
        for (auto it = obj.begin(); it != obj.end(); ++it)
            EXPECT_TRUE(doc.find("`" + it.key() + "`") != std::string::npos ||
                        doc.find("`" + it.key() + "[]`") != std::string::npos)
                << where << it.key() << " is not documented";
    };
    const json p = json::parse(slurp(r.partials[0]));
    check(p, "partial: ");
    check(p["collectives"], "partial collectives: ");
    const json m = run_json("merge" + joined(r.partials) + " --format json");
    check(m, "merge: ");
}

// merge writes what analyze writes (issue 38 §1): text, JSON, Markdown, HTML and PDF, each with the cross-rank
// findings: the planted straggler (rank 2, 8 µs late) with its lateness, gain, confidence and verify command, and the
// planted all-to-all imbalance (rank 0 sends twice the others').
TEST(CliMerge, MergeWritesEveryFormatWithTheCrossRankFindings)
{
    const std::string dir = sl::test::scratch_dir("cli_merge_formats");
    const Ranks r = make_ranks(dir, 4, 2);
    const json m = run_json("merge" + joined(r.partials) + " --format json");
    ASSERT_TRUE(m["cross_rank_findings"].is_array());
    ASSERT_GE(m["cross_rank_findings"].size(), 2u);
    const json& f = m["cross_rank_findings"][0];
    EXPECT_EQ(f["rule"], "straggler-rank");
    EXPECT_NE(f["title"]["en"].get<std::string>().find("Rank 2 arrives last"), std::string::npos) << f["title"];
    EXPECT_LE(f["expected_gain"]["ns"].get<double>(), m["collectives"]["straggler_wait_ns"].get<double>());
    EXPECT_GT(f["confidence"]["value"].get<double>(), 0.0);
    EXPECT_FALSE(f["suggestions"][0]["verify"].get<std::string>().empty());
    EXPECT_EQ(m["straggler"]["rank"], 2);
    EXPECT_NEAR(m["straggler"]["lateness_ns"].get<double>(), 8000.0, 400.0);
    bool alltoall = false;
    for (const auto& x : m["cross_rank_findings"])
        alltoall = alltoall || x["rule"] == "alltoall-imbalance";
    EXPECT_TRUE(alltoall) << m["cross_rank_findings"].dump(1);

    std::string text;
    ASSERT_EQ(run("merge" + joined(r.partials), &text), 0) << text;
    EXPECT_NE(text.find("Findings across ranks"), std::string::npos) << text;
    EXPECT_NE(text.find("rule straggler-rank"), std::string::npos) << text;

    const std::string md = dir + "/merge.md", html = dir + "/merge.html", pdf = dir + "/merge.pdf",
                      zh = dir + "/merge.zh.md";
    std::string out;
    ASSERT_EQ(run("merge" + joined(r.partials) + " --format md -o " + shell_quote(md), &out, true), 0) << out;
    const std::string mdText = slurp(md);
    EXPECT_NE(mdText.find("Rank 2 arrives last"), std::string::npos) << mdText;
    EXPECT_NE(mdText.find("straggler-rank"), std::string::npos);
    EXPECT_NE(mdText.find("sightline-cli merge"), std::string::npos);   // a verify command
    EXPECT_NE(mdText.find("| rank |"), std::string::npos);               // the per-rank table
    ASSERT_EQ(run("merge" + joined(r.partials) + " --format html -o " + shell_quote(html), &out, true), 0) << out;
    const std::string htmlText = slurp(html);
    EXPECT_NE(htmlText.find("<html"), std::string::npos);
    EXPECT_NE(htmlText.find("Rank 2 arrives last"), std::string::npos);
    ASSERT_EQ(run("merge" + joined(r.partials) + " --format md --lang zh_CN -o " + shell_quote(zh), &out, true), 0) << out;
    EXPECT_NE(slurp(zh).find("rank 2 在"), std::string::npos);
    const int rc = run("merge" + joined(r.partials) + " --format pdf -o " + shell_quote(pdf), &out, true);
    if (!(rc == 64 && out.find("no Qt") != std::string::npos)) {   // a CLI built without Qt writes no PDF
        ASSERT_EQ(rc, 0) << out;
        EXPECT_EQ(slurp(pdf).rfind("%PDF-", 0), 0u);
    }
    EXPECT_EQ(run("merge" + joined(r.partials) + " --format pdf", &out, true), 64) << out;   // needs -o
    EXPECT_EQ(run("merge" + joined(r.partials) + " --format docx", &out, true), 64) << out;
}
