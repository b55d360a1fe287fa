// What an output, a record or a gate may never do (issue 36): replace the knowledge base or another SQLite database
// the user keeps, record a verdict from two runs that are no A/B pair, pass a gate whose rules did not load, or read
// one file as two ranks. Every hostile input is built here.
#include <gtest/gtest.h>

#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "tests/support/test_env.h"

using nlohmann::json;

namespace {

namespace fs = std::filesystem;

std::string cli() { return SIGHTLINE_CLI; }
std::string q(const std::string& s) { return "'" + s + "'"; }

// scratch_dir() makes the directory afresh: call it once per test binary.
const std::string& dir()
{
    static const std::string d = sl::test::scratch_dir("cli_guards");
    return d;
}
// Every command runs with its own XDG_DATA_HOME / XDG_CONFIG_HOME: its default knowledge base and rules folder are
// this test's, never shared with a test running beside it.
std::string xdg_data() { return dir() + "/xdg-data"; }
std::string xdg_config() { return dir() + "/xdg-config"; }
std::string default_kb() { return xdg_data() + "/sightline/knowledge.db"; }

int run(const std::string& args, std::string* out, bool merge_stderr = true)
{
    std::string local;
    if (!out)
        out = &local;
    out->clear();   // (run_command appends)
    return sl::test::run_command("XDG_DATA_HOME=" + q(xdg_data()) + " XDG_CONFIG_HOME=" + q(xdg_config()) +
                                     " timeout 120 " + cli() + " " + args,
                                 out, merge_stderr);
}

std::string bytes(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}
void write(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

// A real trace: the graph decode of tests/data/device (README: a Llama-shaped decoder on an H100).
std::string real_trace() { return sl::test::source_dir() + "/tests/data/device/decode-graph.pt.trace.json.gz"; }

// An SQLite database of another program (a user's notes), made with SQLite itself.
std::string foreign_db(const std::string& name)
{
    const std::string p = dir() + "/" + name;
    fs::remove(p);
    sqlite3* db = nullptr;
    EXPECT_EQ(sqlite3_open(p.c_str(), &db), SQLITE_OK);
    EXPECT_EQ(sqlite3_exec(db, "CREATE TABLE notes(t TEXT); INSERT INTO notes VALUES ('keep me');", nullptr, nullptr,
                           nullptr),
              SQLITE_OK);
    sqlite3_close(db);
    return p;
}

} // namespace

// ---- 1. No output may destroy the knowledge base -----------------------------------------------------------------

TEST(CliGuards, NoOutputReplacesTheDefaultKnowledgeBase)
{
    std::string out;
    // The user's knowledge base, at the default place, with a run of a real trace in it.
    ASSERT_EQ(run("kb record " + q(real_trace()), &out), 0) << out;
    ASSERT_TRUE(fs::exists(default_kb())) << out;
    const std::string kept = bytes(default_kb());
    ASSERT_GT(kept.size(), 1000u);

    // Every command and format that writes -o, none of them told about the knowledge base (no --kb).
    const std::string kb = default_kb();
    const std::vector<std::string> cases = {
        "analyze " + q(real_trace()) + " --format json -o " + q(kb),
        "analyze " + q(real_trace()) + " -o " + q(kb),
        "report " + q(real_trace()) + " --format md -o " + q(kb),
        "report " + q(real_trace()) + " --format html -o " + q(kb),
        "summary " + q(real_trace()) + " --format json -o " + q(kb),
        "roofline --model " + q(sl::test::source_dir() + "/tests/data/device/config.json") + " --gpu H100-SXM -o " +
            q(kb),
        "compare " + q(real_trace()) + " " + q(real_trace()) + " -o " + q(kb),
        "generate --steps 1 --layers 1 --quiet -o " + q(kb),
        "generate --steps 1 --layers 1 --quiet -o " + q(dir() + "/g.sqlite") + " --config-out " + q(kb),
        // The same file by another name: a symbolic link, and a path through "..".
        "analyze " + q(real_trace()) + " --format json -o " + q(dir() + "/kb-link.db"),
        "analyze " + q(real_trace()) + " --format json -o " + q(xdg_data() + "/sightline/../sightline/knowledge.db"),
        // Its SQLite companions, whether they exist now or not.
        "analyze " + q(real_trace()) + " --format json -o " + q(kb + "-wal"),
        "report " + q(real_trace()) + " --format md -o " + q(kb + "-shm"),
    };
    fs::create_symlink(fs::absolute(kb), dir() + "/kb-link.db");
    for (const auto& c : cases) {
        SCOPED_TRACE(c);
        EXPECT_EQ(run(c, &out), 2) << out;
        EXPECT_NE(out.find("refusing to write"), std::string::npos) << out;
        // compare reads the default knowledge base, so it is one of its inputs; every other command names it.
        if (c.rfind("compare", 0) == 0) {
            EXPECT_NE(out.find("it is the input " + kb), std::string::npos) << out;
        } else {
            EXPECT_NE(out.find("the default knowledge base"), std::string::npos) << out;
            EXPECT_NE(out.find("--force"), std::string::npos) << out;
        }
        EXPECT_EQ(bytes(kb), kept);
    }
    EXPECT_FALSE(fs::exists(kb + "-wal"));
    EXPECT_FALSE(fs::exists(kb + "-shm"));
    // The knowledge base still reads as one.
    ASSERT_EQ(run("kb list --format json", &out, false), 0) << out;
    EXPECT_TRUE(json::parse(out, nullptr, false).is_array()) << out;
}

TEST(CliGuards, NoOutputReplacesTheKnowledgeBaseInUseOrAForeignDatabase)
{
    std::string out;
    // --kb names the knowledge base in use, even one not created yet (analyze reads it as empty).
    const std::string kb = dir() + "/mine.db";
    EXPECT_EQ(run("analyze " + q(real_trace()) + " --kb " + q(kb) + " --format json -o " + q(kb), &out), 2) << out;
    EXPECT_NE(out.find("the knowledge base in use"), std::string::npos) << out;
    EXPECT_FALSE(fs::exists(kb));

    // An SQLite database Sightline did not write, named by nothing but -o.
    const std::string notes = foreign_db("notes.db");
    const std::string kept = bytes(notes);
    EXPECT_EQ(run("analyze " + q(real_trace()) + " --format json -o " + q(notes), &out), 2) << out;
    EXPECT_NE(out.find("an SQLite database Sightline did not write"), std::string::npos) << out;
    EXPECT_EQ(run("generate --steps 1 --layers 1 --quiet -o " + q(notes), &out), 2) << out;
    EXPECT_EQ(bytes(notes), kept);
    EXPECT_EQ(sl::test::sqlite_rows(notes, "SELECT t FROM notes")[0][0], "keep me");

    // A trace Sightline generated may be generated again over itself.
    const std::string g = dir() + "/planted.sqlite";
    ASSERT_EQ(run("generate --steps 1 --layers 1 --quiet -o " + q(g), &out), 0) << out;
    EXPECT_EQ(run("generate --steps 2 --layers 1 --quiet -o " + q(g), &out), 0) << out;

    // --force replaces it: the user said so.
    EXPECT_EQ(run("summary " + q(real_trace()) + " --format json --force -o " + q(notes), &out), 0) << out;
    EXPECT_TRUE(json::parse(bytes(notes), nullptr, false).is_object());
    // --force never lets an output replace an input.
    EXPECT_EQ(run("summary " + q(g) + " --force -o " + q(g), &out), 2) << out;
    EXPECT_NE(out.find("it is the input"), std::string::npos) << out;
}

// ---- 2. compare --record records nothing false -------------------------------------------------------------------

TEST(CliGuards, CompareAgainstAnEmptyTraceRecordsNothing)
{
    std::string out;
    const std::string kb = dir() + "/cmp.db";
    // A suggestion accepted on a real run.
    ASSERT_EQ(run("kb record " + q(real_trace()) + " --kb " + q(kb) + " --format json", &out, false), 0) << out;
    const json list = json::parse([&] {
        run("kb list --kb " + q(kb) + " --format json", &out, false);
        return out;
    }(), nullptr, false);
    ASSERT_TRUE(list.is_array() && !list.empty()) << out;
    const std::string id = std::to_string(list[0]["id"].get<int64_t>());
    ASSERT_EQ(run("kb accept " + id + " --kb " + q(kb), &out), 0) << out;
    const auto verifications = [&] { return sl::test::sqlite_rows(kb, "SELECT count(*) FROM verifications")[0][0]; };
    const auto runs = [&] { return sl::test::sqlite_rows(kb, "SELECT count(*) FROM runs")[0][0]; };
    const std::string runs_before = runs();

    // AFTER: a Kineto trace with no events at all.
    const std::string empty = dir() + "/empty.pt.trace.json";
    write(empty, R"({"schemaVersion": 1, "traceEvents": []})");
    for (const std::string format : {"json", "text"}) {
        SCOPED_TRACE(format);
        std::string err_path = dir() + "/cmp.err";
        const int rc = run("compare " + q(real_trace()) + " " + q(empty) + " --record --kb " + q(kb) + " --format " +
                               format + " 2>" + q(err_path),
                           &out, false);
        ASSERT_EQ(rc, 0) << out;
        const std::string err = bytes(err_path);
        EXPECT_NE(err.find("recorded nothing in " + kb), std::string::npos) << err;
        EXPECT_NE(err.find("holds no GPU kernels"), std::string::npos) << err;
        EXPECT_EQ(verifications(), "0");
        EXPECT_EQ(runs(), runs_before);
        if (format == "json") {
            const json j = json::parse(out, nullptr, false);
            ASSERT_TRUE(j.is_object()) << out;
            EXPECT_EQ(j["comparable"], false);
            ASSERT_EQ(j["not_comparable"].size(), 1u) << j["not_comparable"];
            EXPECT_NE(j["not_comparable"][0].get<std::string>().find("AFTER"), std::string::npos);
            EXPECT_EQ(j["recorded"], 0);
            for (const auto& v : j["verdicts"])
                EXPECT_NE(v["verdict"], "verified") << v;
        } else {
            EXPECT_NE(out.find("Warning: not comparable: AFTER"), std::string::npos) << out;
            EXPECT_EQ(out.find("  verified  "), std::string::npos) << out;
        }
    }
    // The suggestion stays accepted: nothing verified it.
    EXPECT_EQ(sl::test::sqlite_rows(kb, "SELECT state FROM suggestions WHERE id = " + id)[0][0], "accepted");

    // Another workload: inference BEFORE, training AFTER (tests/data/device: the same model, trained).
    const std::string train = sl::test::source_dir() + "/tests/data/device/train.pt.trace.json.gz";
    ASSERT_EQ(run("compare " + q(real_trace()) + " " + q(train) + " --record --kb " + q(kb) + " --format json",
                  &out, false),
              0);
    const json j = json::parse(out, nullptr, false);
    ASSERT_TRUE(j.is_object()) << out;
    EXPECT_EQ(j["comparable"], false);
    EXPECT_NE(j["not_comparable"].dump().find("inference -> training"), std::string::npos) << j["not_comparable"];
    EXPECT_EQ(verifications(), "0");
}

// ---- 3. Gates fail closed ----------------------------------------------------------------------------------------

namespace {

// A rules folder holding one broken input of each kind, each in its own folder.
struct BrokenRules {
    std::string name, path;   // path: what --rules names
};
std::vector<BrokenRules> broken_rules()
{
    const std::string base = dir() + "/rules";
    auto folder = [&](const std::string& n) {
        const std::string d = base + "/" + n;
        fs::create_directories(d);
        return d;
    };
    const json good_rule = {{"id", "mine"},   {"scope", "trace"},          {"condition", "wall_ns > 0"},
                            {"severity", "low"}, {"verdict", "launch-bound"}, {"title", {{"en", "mine"}}}};
    std::vector<BrokenRules> v;
    {
        const std::string d = folder("not-json");
        write(d + "/r.json", "this is not JSON {");
        v.push_back({"not JSON", d});
    }
    {
        json r = good_rule;
        r["condition"] = "wall_ns > > 0";
        const std::string d = folder("bad-syntax");
        write(d + "/r.json", json{{"rules", {r}}}.dump());
        v.push_back({"bad condition syntax", d});
    }
    {
        json r = good_rule;
        r["condition"] = "lanch_count > 0";
        const std::string d = folder("typo");
        write(d + "/r.json", json{{"rules", {r}}}.dump());
        v.push_back({"unknown metric", d});
    }
    {
        const std::string d = folder("too-big");
        write(d + "/r.json", "{\"rules\": [], \"pad\": \"" + std::string(17u << 20, 'x') + "\"}");
        v.push_back({"over the size limit", d});
    }
    {
        const std::string d = folder("loop");
        fs::create_symlink("loop.json", d + "/loop.json");   // a symbolic link to itself: ELOOP
        v.push_back({"symbolic-link loop", d});
    }
    {
        const std::string d = folder("file");
        write(d + "/r.json", json{{"rules", {good_rule}}}.dump());
        v.push_back({"--rules names a file", d + "/r.json"});
    }
    v.push_back({"--rules names no folder", base + "/no-such-folder"});
    return v;
}

} // namespace

TEST(CliGuards, GateFailsClosedOnEveryBrokenRulesInput)
{
    std::string out;
    // The real trace passes (or fires) its gate with good rules: never exit 2.
    const int clean = run("analyze " + q(real_trace()) + " --fail-on high", &out);
    ASSERT_TRUE(clean == 0 || clean == 1) << out;

    for (const auto& b : broken_rules()) {
        SCOPED_TRACE(b.name);
        // Under --fail-on: exit 2, the gate does not pass, and the message says why.
        EXPECT_EQ(run("analyze " + q(real_trace()) + " --rules " + q(b.path) + " --fail-on high", &out), 2) << out;
        EXPECT_NE(out.find("the gate cannot pass"), std::string::npos) << out;
        EXPECT_EQ(run("report " + q(real_trace()) + " --rules " + q(b.path) + " --fail-on low --format md -o " +
                          q(dir() + "/gate.md"),
                      &out),
                  2)
            << out;
        // Without it: exit 0, and a warning in the text and in the JSON.
        EXPECT_EQ(run("analyze " + q(real_trace()) + " --rules " + q(b.path), &out, false), 0) << out;
        EXPECT_NE(out.find("problem(s) with the rules"), std::string::npos) << out.substr(0, 2000);
        EXPECT_EQ(run("analyze " + q(real_trace()) + " --rules " + q(b.path) + " --format json", &out, false), 0);
        const json j = json::parse(out, nullptr, false);
        ASSERT_TRUE(j.is_object());
        ASSERT_FALSE(j["rules"]["errors"].empty()) << j["rules"];
        EXPECT_NE(j["rules"]["errors"][0]["file"].get<std::string>().find(dir() + "/rules/"), std::string::npos)
            << j["rules"]["errors"];
    }
}

TEST(CliGuards, BrokenFileInTheDefaultRulesFolderIsSkippedWithAWarning)
{
    const std::string user = xdg_config() + "/sightline/rules";
    fs::create_directories(user);
    write(user + "/broken.json", "[{\"id\": ");
    std::string out;
    EXPECT_EQ(run("analyze " + q(real_trace()) + " --format json -o " + q(dir() + "/default-rules.json"), &out), 0)
        << out;
    EXPECT_NE(out.find("warning: rule file " + user + "/broken.json"), std::string::npos) << out;
    const json j = json::parse(bytes(dir() + "/default-rules.json"), nullptr, false);
    ASSERT_TRUE(j.is_object());
    EXPECT_FALSE(j["findings"].empty());   // the shipped rules still ran
    EXPECT_NE(j["rules"]["errors"].dump().find("broken.json"), std::string::npos);
    // ... and a gate cannot pass with it.
    EXPECT_EQ(run("analyze " + q(real_trace()) + " --fail-on high", &out), 2) << out;
    fs::remove(user + "/broken.json");
}

// ---- 4. A file given twice is one input --------------------------------------------------------------------------

TEST(CliGuards, FileGivenTwiceIsReadOnce)
{
    std::string out;
    ASSERT_EQ(run("analyze " + q(real_trace()) + " --format json", &out, false), 0);
    const json once = json::parse(out, nullptr, false);
    ASSERT_TRUE(once.is_object());
    // The same path twice, and the same file by a link.
    fs::create_symlink(fs::absolute(real_trace()), dir() + "/again.pt.trace.json.gz");
    for (const std::string& second : {real_trace(), dir() + "/again.pt.trace.json.gz"}) {
        SCOPED_TRACE(second);
        const std::string err_path = dir() + "/twice.err";
        ASSERT_EQ(run("analyze " + q(real_trace()) + " " + q(second) + " --format json 2>" + q(err_path), &out, false),
                  0);
        const json twice = json::parse(out, nullptr, false);
        ASSERT_TRUE(twice.is_object());
        // One rank, the same kernels and the same verdict as the file read once.
        ASSERT_GT(once["trace"]["kernels"].get<int64_t>(), 6000);   // README: 16 replays of 384 kernels, and more
        EXPECT_EQ(twice["trace"]["kernels"], once["trace"]["kernels"]);
        EXPECT_EQ(twice["trace"]["kernel_time_ns"], once["trace"]["kernel_time_ns"]);
        EXPECT_EQ(twice["devices"].size(), once["devices"].size());
        EXPECT_EQ(twice["headline"]["verdict"], once["headline"]["verdict"]);
        EXPECT_NE(twice.dump().find("is the same file as"), std::string::npos);
        EXPECT_NE(twice.dump().find("given twice"), std::string::npos);
    }
}
