// Terminal-safe text (issue 36 §9): every control character in a name or a message — line feed, carriage return and
// tab included, with ESC, BEL, DEL and the C1 controls — is escaped by one rule (input_bounds.h terminal_safe: \n,
// \t, \r as such, the others as \xNN) in the text of every command: analyze, report and analyze as Markdown on
// standard output, summary, explain, compare, kb list, and the warnings on stderr. A GPU name (Kineto
// deviceProperties, nsys TARGET_INFO_GPU) or a knowledge-base annotation holding "\nsightline-cli: all good, 0
// findings" printed that line as a line of its own. The structural newlines of the output stay; JSON stays JSON.
#include <gtest/gtest.h>

#include <sqlite3.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "tests/support/helpers.h"
#include "tests/support/test_env.h"

using namespace sl;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

std::string cli() { return SIGHTLINE_CLI; }

int run(const std::string& args, std::string* out, bool merge_stderr = true)
{
    out->clear();
    return test::run_command("timeout 120 " + cli() + " " + args, out, merge_stderr);
}

constexpr const char* kForged = "sightline-cli: all good, 0 findings";

// No line of the output is the forged one, and no control character but the structural newline is left.
void expect_terminal_safe(const std::string& what, const std::string& out)
{
    std::istringstream in(out);
    for (std::string line; std::getline(in, line);) {
        EXPECT_NE(line.rfind(kForged, 0), 0u) << what << ": a forged line\n" << out.substr(0, 4000);
        for (char ch : line) {
            const auto c = static_cast<unsigned char>(ch);
            EXPECT_FALSE((c < 0x20 && c != '\t') || c == 0x7F)
                << what << ": a raw control character " << int(c) << " in: " << line.substr(0, 300);
        }
    }
}

const std::string kEvilName = std::string("EVIL\n") + kForged + "\r\tX\a\x1b[2J";
// What every text output shows of it.
const std::string kEscaped = std::string("EVIL\\n") + kForged + "\\r\\tX\\x07\\x1B[2J";

std::string kineto_trace(const std::string& dir)
{
    const std::string p = dir + "/evil_gpu.json";
    const json name = kEvilName;
    std::ofstream(p) << R"({"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": )" << name.dump()
                     << R"(, "numSms": 108}],
  "traceEvents": [
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 9, "tid": 9, "ts": 10, "dur": 1, "args": {"correlation": 1}},
  {"ph": "X", "cat": "kernel", "name": "A", "pid": 0, "tid": 7, "ts": 10, "dur": 10, "args": {"device": 0, "stream": 7, "correlation": 1}},
  {"ph": "X", "cat": "kernel", "name": "B", "pid": 0, "tid": 8, "ts": 15, "dur": 15, "args": {"device": 0, "stream": 8}},
  {"ph": "X", "cat": "kernel", "name": "C", "pid": 0, "tid": 7, "ts": 50, "dur": 1, "args": {"device": 0, "stream": 7}}
  ], "baseTimeNanoseconds": 1700000000000000000})";
    return p;
}

// A generated nsys export whose TARGET_INFO_GPU rows are named kEvilName.
std::string nsys_trace(const std::string& dir)
{
    const std::string p = dir + "/evil_gpu.sqlite";
    std::string log;
    EXPECT_EQ(run("generate --steps 2 --layers 1 --prefill 1 --quiet -o " + test::shell_quote(p), &log), 0) << log;
    sqlite3* db = nullptr;
    EXPECT_EQ(sqlite3_open(p.c_str(), &db), SQLITE_OK);
    sqlite3_stmt* st = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db, "UPDATE TARGET_INFO_GPU SET name = ?", -1, &st, nullptr), SQLITE_OK)
        << sqlite3_errmsg(db);
    sqlite3_bind_text(st, 1, kEvilName.data(), static_cast<int>(kEvilName.size()), SQLITE_TRANSIENT);
    EXPECT_EQ(sqlite3_step(st), SQLITE_DONE) << sqlite3_errmsg(db);
    EXPECT_GT(sqlite3_changes(db), 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return p;
}

} // namespace

// The GPU name of a Kineto trace and of an nsys export, in the text of every command that prints it.
TEST(CliTerminalText, AGpuNameCannotForgeALine)
{
    const std::string d = test::scratch_dir("cli_terminal_gpu");
    for (const std::string& trace : {kineto_trace(d), nsys_trace(d)}) {
        const std::string t = test::shell_quote(trace);
        struct Case {
            std::string args;
            std::string shows;   // what the output shows of the GPU's name ("" when it does not name the GPU)
        };
        // Markdown escapes the backslash of the rule once more, so that it renders as the text shows it.
        const std::string md = "EVIL\\\\n" + std::string(kForged) + "\\\\r\\\\tX\\\\x07";
        for (const Case& c : {Case{"analyze " + t, kEscaped}, Case{"analyze " + t + " --format md", md},
                              Case{"report " + t + " --format md", md}, Case{"summary " + t, kEscaped},
                              Case{"compare " + t + " " + t, ""}, Case{"explain " + t + " --kernel 0", ""}}) {
            std::string out;
            const int rc = run(c.args, &out);
            EXPECT_TRUE(rc == 0 || rc == 1) << c.args << " rc " << rc << "\n" << out.substr(0, 2000);
            expect_terminal_safe(c.args, out);
            if (!c.shows.empty()) {
                EXPECT_NE(out.find(c.shows), std::string::npos) << c.args << "\n" << out.substr(0, 4000);
            }
        }
        // JSON keeps its own escapes and stays JSON.
        std::string out;
        ASSERT_EQ(run("analyze " + t + " --format json", &out, false), 0) << out.substr(0, 2000);
        EXPECT_TRUE(json::accept(out)) << out.substr(0, 2000);
    }
}

// An annotation in the knowledge base (anyone's text) in `kb list`; a path with a line feed in the text's header.
TEST(CliTerminalText, AnAnnotationAndAPathCannotForgeALine)
{
    const std::string d = test::scratch_dir("cli_terminal_kb");
    const std::string kb = d + "/kb.db";
    fs::remove(kb);
    const std::string trace = d + "/plain\n" + kForged + ".sqlite";
    std::string log;
    ASSERT_EQ(run("generate --steps 2 --layers 1 --prefill 1 --quiet -o " + test::shell_quote(trace), &log), 0) << log;
    ASSERT_EQ(run("kb record " + test::shell_quote(trace) + " --kb " + test::shell_quote(kb), &log), 0) << log;
    expect_terminal_safe("kb record", log);
    ASSERT_EQ(run("kb annotate 1 " + test::shell_quote("looked at it\n" + std::string(kForged) + "\x1b[2J") + " --kb " + test::shell_quote(kb), &log), 0)
        << log;
    ASSERT_EQ(run("kb list --kb " + test::shell_quote(kb), &log), 0) << log;
    expect_terminal_safe("kb list", log);
    EXPECT_NE(log.find("# looked at it\\n" + std::string(kForged) + "\\x1B[2J"), std::string::npos) << log;
    ASSERT_EQ(run("kb list --format json --kb " + test::shell_quote(kb), &log, false), 0) << log;
    const json j = json::parse(log);
    ASSERT_TRUE(j.is_array() && !j.empty()) << log;
    EXPECT_EQ(j[0]["annotation"], "looked at it\n" + std::string(kForged) + "\x1b[2J");   // JSON: the text as it is

    for (const std::string args : {"analyze ", "summary ", "report --format md "}) {
        std::string out;
        const int rc = run(args + test::shell_quote(trace), &out);
        EXPECT_TRUE(rc == 0 || rc == 1) << args << " rc " << rc << "\n" << out.substr(0, 2000);
        expect_terminal_safe(args, out);
    }
}

// A rule file's title, explanation and suggestion (a rules folder is anyone's) in the headline, the findings and the
// report.
TEST(CliTerminalText, ARuleTextCannotForgeALine)
{
    const std::string d = test::scratch_dir("cli_terminal_rules");
    fs::create_directories(d + "/rules");
    const json forged = std::string("line\n") + kForged + "\x1b[2J";
    std::ofstream(d + "/rules/evil.json")
        << R"({"rules": [{"id": "evil-rule", "scope": "trace", "condition": "steady_utilization >= 0", "severity": "low",
  "kind": "check", "verdict": "capture-edge", "removes": {"time": "none"}, "prior": 0.5,
  "title": {"en": )" << forged.dump() << R"(, "zh_CN": "x"}, "explanation": {"en": )" << forged.dump()
        << R"(, "zh_CN": "x"}, "gain": {"range": [0.0, 0.0]},
  "suggestions": [{"id": "evil-s", "text": {"en": )" << forged.dump() << R"(, "zh_CN": "x"}}]}]})";
    const std::string trace = d + "/t.sqlite";
    std::string log;
    ASSERT_EQ(run("generate --steps 2 --layers 1 --prefill 1 --quiet -o " + test::shell_quote(trace), &log), 0) << log;
    for (const std::string format : {"text", "md"}) {
        const std::string args = "analyze " + test::shell_quote(trace) + " --rules " + test::shell_quote(d + "/rules") + " --format " + format;
        ASSERT_EQ(run(args, &log), 0) << log;
        expect_terminal_safe(args, log);
        EXPECT_NE(log.find("evil-rule"), std::string::npos) << log;   // the rule fired
    }
    const std::string args = "report " + test::shell_quote(trace) + " --rules " + test::shell_quote(d + "/rules") + " --format md";
    ASSERT_EQ(run(args, &log), 0) << log;
    expect_terminal_safe(args, log);
}
