// `sightline-cli COMMAND --help`: every command answers with its own help on stdout and exit 0 (it used to answer
// "unknown option --help" and exit 64), the help documents every option of the command's synopsis, and
// `kb --help` lists the knowledge-base verbs.
#include <gtest/gtest.h>

#include <regex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "tests/support/test_env.h"

using namespace sl;

namespace {

int run(const std::string& args, std::string* out, bool merge_stderr = false)
{
    out->clear();
    return test::run_command(std::string(SIGHTLINE_CLI) + " " + args, out, merge_stderr);
}

// (name, synopsis) of every command, read from the top-level help ("  sightline-cli SYNOPSIS" lines).
std::vector<std::pair<std::string, std::string>> commands()
{
    std::string out;
    EXPECT_EQ(run("--help", &out), 0) << out;
    std::vector<std::pair<std::string, std::string>> cmds;
    std::istringstream in(out);
    const std::string prefix = "  sightline-cli ";
    for (std::string line; std::getline(in, line);)
        if (line.rfind(prefix, 0) == 0) {
            const std::string syn = line.substr(prefix.size());
            cmds.emplace_back(syn.substr(0, syn.find(' ')), syn);
        }
    return cmds;
}

std::string section(const std::string& text, const std::string& heading)
{
    const auto at = text.find("\n" + heading + "\n");
    if (at == std::string::npos)
        return {};
    const auto begin = at + heading.size() + 2;
    const auto end = text.find("\n\n", begin);
    return text.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
}

} // namespace

TEST(CliHelp, EveryCommandPrintsItsHelpAndExitsZero)
{
    const auto cmds = commands();
    ASSERT_GE(cmds.size(), 8u) << "summary analyze report roofline ncu compare kb generate";
    for (const auto& [name, synopsis] : cmds) {
        for (const char* flag : {"--help", "-h"}) {
            std::string out;
            EXPECT_EQ(run(name + " " + flag, &out), 0) << name << " " << flag << ": " << out;
            EXPECT_EQ(out.rfind("Usage: sightline-cli " + synopsis + "\n", 0), 0u) << name << ":\n" << out;
            EXPECT_EQ(out.find("unknown option"), std::string::npos) << out;
        }
    }
}

TEST(CliHelp, HelpDocumentsEveryOptionOfTheSynopsis)
{
    const std::regex option(R"((^|[\[ |])(--[a-z][a-z0-9-]*|-o)\b)");
    for (const auto& [name, synopsis] : commands()) {
        std::string out;
        ASSERT_EQ(run(name + " --help", &out), 0) << out;
        const std::string options = section(out, "Options:");
        ASSERT_FALSE(options.empty()) << name << " --help has no Options section:\n" << out;
        for (std::sregex_iterator it(synopsis.begin(), synopsis.end(), option), end; it != end; ++it) {
            const std::string opt = (*it)[2];
            const std::regex documented("(^|\\n)  (-o, )?" + opt + "[ ,]");
            EXPECT_TRUE(std::regex_search(options, documented))
                << name << ": option " << opt << " of the synopsis is not explained in --help:\n" << options;
        }
    }
}

TEST(CliHelp, KbHelpListsItsVerbs)
{
    std::string out;
    ASSERT_EQ(run("kb --help", &out), 0) << out;
    const std::string verbs = "\n" + section(out, "Verbs:");
    for (const char* verb : {"record", "list", "accept", "reject", "annotate", "history"})
        EXPECT_NE(verbs.find(std::string("\n  ") + verb + " "), std::string::npos)
            << "kb --help does not list the verb " << verb << ":\n" << out;
}

TEST(CliHelp, HelpAnywhereAfterTheCommandWinsAndNeedsNoInput)
{
    // The trace does not exist: help is printed before anything is read.
    std::string out;
    EXPECT_EQ(run("analyze /nonexistent/trace.sqlite --format json --help", &out), 0) << out;
    EXPECT_EQ(out.rfind("Usage: sightline-cli analyze ", 0), 0u) << out;
    // Other unknown options are still usage errors.
    EXPECT_EQ(run("summary --helpme", &out, true), 64) << out;
}
