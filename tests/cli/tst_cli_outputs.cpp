// Outputs never destroy what the user has, for every command that writes:
//  - `-o` naming an input (by its path, a symbolic link, a hard link or dir/../file) is refused with exit 2 and a
//    message naming both, and the input's bytes are unchanged;
//  - a full disk (a small tmpfs in a private mount namespace; skipped where mounting is not allowed) and /dev/full
//    give exit 4 with the path and the system's reason, and a previous file at the output path is unchanged;
//  - a full standard output (`> /dev/full`) is exit 4, not 0;
//  - an interrupted `generate` leaves no file (or the previous one) at the output path and says "interrupted" once;
//  - "--" ends the options; control characters in names and paths are escaped in messages and text output.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/support/helpers.h"
#include "tests/support/test_env.h"

using namespace sl;
namespace fs = std::filesystem;

namespace {

std::string cli() { return SIGHTLINE_CLI; }

// Runs a shell command with its output in *out (emptied first).
int shell(const std::string& cmd, std::string* out, bool merge_stderr)
{
    out->clear();
    return test::run_command(cmd, out, merge_stderr);
}

int run(const std::string& args, std::string* out)
{
    return shell("timeout 120 " + cli() + " " + args, out, true);
}

std::string slurp(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

void spit(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

std::string replace_all(std::string s, const std::string& from, const std::string& to)
{
    for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size()))
        s.replace(p, from.size(), to);
    return s;
}

// The inputs every case reads: two small generated traces, an ncu CSV and a model config (copies in scratch).
struct Inputs {
    std::string dir, trace, trace2, ncu, model;
};

const Inputs& inputs()
{
    static const Inputs in = [] {
        Inputs i;
        i.dir = test::scratch_dir("cli_outputs");
        i.trace = i.dir + "/t.sqlite";
        i.trace2 = i.dir + "/t2.sqlite";
        std::string log;
        EXPECT_EQ(shell(cli() + " generate --steps 2 --layers 1 --prefill 1 --quiet -o " + test::shell_quote(i.trace), &log, true), 0)
            << log;
        EXPECT_EQ(shell(cli() + " generate --steps 3 --layers 1 --prefill 1 --seed 9 --quiet -o " + test::shell_quote(i.trace2),
                                    &log, true), 0)
            << log;
        i.ncu = i.dir + "/n.csv";
        fs::copy_file(test::source_dir() + "/tests/data/ncu/raw_base_units.csv", i.ncu, fs::copy_options::overwrite_existing);
        i.model = i.dir + "/m.json";
        fs::copy_file(test::source_dir() + "/tests/data/models/llama_tiny_config.json", i.model,
                      fs::copy_options::overwrite_existing);
        fs::create_directories(i.dir + "/sub");
        return i;
    }();
    return in;
}

// A command writing to {O}, and the input it is given.
struct Case {
    std::string args;     // {T} {T2} {N} {M} name the inputs, {O} the output
    std::string input;    // "T", "T2", "N" or "M": the input that {O} names in the refusal test
};

std::string expand(std::string s, const std::string& out)
{
    const Inputs& in = inputs();
    s = replace_all(s, "{T2}", test::shell_quote(in.trace2));
    s = replace_all(s, "{T}", test::shell_quote(in.trace));
    s = replace_all(s, "{N}", test::shell_quote(in.ncu));
    s = replace_all(s, "{M}", test::shell_quote(in.model));
    return replace_all(s, "{O}", test::shell_quote(out));
}

std::string input_path(const std::string& key)
{
    const Inputs& in = inputs();
    return key == "T" ? in.trace : key == "T2" ? in.trace2 : key == "N" ? in.ncu : in.model;
}

// Every command that writes a file, in each of its output formats.
const std::vector<Case>& writing_commands()
{
    static const std::vector<Case> c = {
        {"summary {T} -o {O}", "T"},
        {"summary {T} --format json -o {O}", "T"},
        {"analyze {T} -o {O}", "T"},
        {"analyze {T} --format json -o {O}", "T"},
        {"analyze {T} --format md -o {O}", "T"},
        {"analyze {T} --format html -o {O}", "T"},
        {"analyze {T} --format pdf -o {O}", "T"},
        {"report {T} --format json -o {O}", "T"},
        {"analyze {T} --ncu {N} -o {O}", "N"},
        {"analyze {T} --model {M} --gpu H100-SXM -o {O}", "M"},
        {"ncu {N} -o {O}", "N"},
        {"ncu {N} --format json -o {O}", "N"},
        {"compare {T} {T2} -o {O}", "T2"},
        {"compare {T} {T2} --format json -o {O}", "T"},
        {"roofline --model {M} --gpu H100-SXM -o {O}", "M"},
    };
    return c;
}

} // namespace

TEST(CliOutputs, AnOutputThatIsAnInputIsRefusedAndTheInputKept)
{
    const Inputs& in = inputs();
    for (const auto& c : writing_commands()) {
        const std::string input = input_path(c.input);
        const std::string before = slurp(input);
        ASSERT_FALSE(before.empty()) << input;
        const std::string base = fs::path(input).filename().string();
        const std::string sym = in.dir + "/sym-" + base, hard = in.dir + "/hard-" + base;
        fs::remove(sym);
        fs::remove(hard);
        fs::create_symlink(input, sym);
        fs::create_hard_link(input, hard);
        for (const std::string& out : {input, sym, hard, in.dir + "/sub/../" + base}) {
            std::string log;
            const int rc = run(expand(c.args, out), &log);
            EXPECT_EQ(rc, 2) << c.args << " -o " << out << "\n" << log;
            EXPECT_NE(log.find("refusing to write " + out), std::string::npos) << c.args << "\n" << log;
            // The input named is one of the names of that file.
            EXPECT_TRUE(log.find("it is the input " + input) != std::string::npos ||
                        log.find("it is the input " + sym) != std::string::npos ||
                        log.find("it is the input " + hard) != std::string::npos)
                << c.args << "\n" << log;
            EXPECT_EQ(slurp(input), before) << c.args << " -o " << out << " changed the input";
        }
        fs::remove(sym);
        fs::remove(hard);
    }
}

TEST(CliOutputs, GenerateConfigOutIsNotTheTrace)
{
    const std::string d = test::scratch_dir("cli_outputs_generate");
    std::string log;
    EXPECT_EQ(run("generate --steps 1 --layers 1 --quiet -o " + test::shell_quote(d + "/x.sqlite") + " --config-out " + test::shell_quote(d + "/x.sqlite"),
                  &log), 64) << log;
    EXPECT_FALSE(fs::exists(d + "/x.sqlite"));
}

TEST(CliOutputs, DevFullIsAnOutputErrorWithThePathAndTheReason)
{
    std::vector<std::string> cases;
    for (const auto& c : writing_commands())
        cases.push_back(c.args);
    cases.push_back("generate --steps 1 --layers 1 --quiet -o {O}");
    cases.push_back("generate --steps 1 --layers 1 --quiet -o " + test::shell_quote(inputs().dir + "/g.sqlite") + " --config-out {O}");
    for (const auto& c : cases) {
        std::string log;
        EXPECT_EQ(run(expand(c, "/dev/full"), &log), 4) << c << "\n" << log;
        EXPECT_NE(log.find("cannot write /dev/full: "), std::string::npos) << c << "\n" << log;
        if (c.rfind("generate", 0) != 0 || c.find("--config-out") != std::string::npos) {
            EXPECT_NE(log.find("No space left on device"), std::string::npos) << c << "\n" << log;
        }
    }
}

TEST(CliOutputs, AFullStandardOutputFails)
{
    const std::vector<std::string> cases = {"summary {T}", "summary {T} --format json", "analyze {T} --format json",
                                            "analyze {T} --format md", "ncu {N}", "compare {T} {T2}",
                                            "roofline --model {M} --gpu H100-SXM", "--version", "--help",
                                            "summary --help"};
    for (const auto& c : cases) {
        std::string log;
        // stderr to the pipe, stdout to /dev/full.
        const int rc = shell("timeout 120 " + cli() + " " + expand(c, "") + " 2>&1 >/dev/full", &log, false);
        EXPECT_EQ(rc, 4) << c << "\n" << log;
        EXPECT_NE(log.find("cannot write standard output: No space left on device"), std::string::npos) << c << "\n" << log;
    }
}

// A small tmpfs in a private mount namespace (root, or a user namespace where allowed): the disk fills, each
// command fails with exit 4 naming the path and the reason, and the previous file at the output path is unchanged.
TEST(CliOutputs, AFullDiskKeepsThePreviousFile)
{
    std::string probe;
    if (shell("unshare -m --propagation private sh -c 'd=$(mktemp -d) && mount -t tmpfs -o size=64k tmpfs $d "
                          "&& umount $d && rmdir $d' 2>&1", &probe, false) != 0)
        GTEST_SKIP() << "cannot mount a tmpfs in a private mount namespace here (" << probe << ")";
    std::vector<std::string> cases;
    for (const auto& c : writing_commands())
        cases.push_back(c.args);
    cases.push_back("generate --steps 1 --layers 1 --quiet -o {O}");
    cases.push_back("generate --steps 1 --layers 1 --quiet -o {O}.json.gz");
    std::string script = "set -u\nd=$(mktemp -d)\nmount -t tmpfs -o size=512k tmpfs \"$d\" || exit 77\n";
    for (size_t i = 0; i < cases.size(); ++i) {
        const std::string out = "$d/out" + std::to_string(i);
        script += "printf 'previous " + std::to_string(i) + "' > " + out + "\n";
        if (cases[i].find("{O}.json.gz") != std::string::npos)
            script += "printf 'previous gz' > " + out + ".json.gz\n";
    }
    script += "cat /dev/zero > \"$d/fill\" 2>/dev/null\n";
    for (size_t i = 0; i < cases.size(); ++i) {
        const std::string out = "$d/out" + std::to_string(i);
        // {O} unquoted inside the script so $d expands.
        std::string cmd = replace_all(cases[i], "{O}", "@OUT@");
        cmd = replace_all(expand(cmd, ""), "@OUT@", out);
        script += "echo \"== " + std::to_string(i) + "\"\n";
        script += "timeout 120 " + cli() + " " + cmd + " 2>&1; echo \"rc=$?\"\n";
        script += "echo \"prev=$(cat " + out + ")\"\n";
        if (cases[i].find("{O}.json.gz") != std::string::npos)
            script += "echo \"prevgz=$(cat " + out + ".json.gz)\"\n";
    }
    script += "echo \"== left\"; ls -A \"$d\"\numount \"$d\"\n";
    const std::string sh = inputs().dir + "/fulldisk.sh";
    spit(sh, script);
    std::string log;
    const int rc = shell("unshare -m --propagation private sh " + test::shell_quote(sh), &log, true);
    if (rc == 77)
        GTEST_SKIP() << "cannot mount a tmpfs: " << log;
    ASSERT_EQ(rc, 0) << log;
    for (size_t i = 0; i < cases.size(); ++i) {
        const std::string head = "== " + std::to_string(i) + "\n";
        const size_t at = log.find(head);
        ASSERT_NE(at, std::string::npos) << log;
        const size_t end = log.find("== ", at + head.size());
        const std::string part = log.substr(at, end - at);
        EXPECT_NE(part.find("rc=4"), std::string::npos) << cases[i] << "\n" << part;
        EXPECT_NE(part.find("cannot write /"), std::string::npos) << cases[i] << "\n" << part;
        EXPECT_NE(part.find("/out" + std::to_string(i)), std::string::npos) << cases[i] << "\n" << part;
        EXPECT_TRUE(part.find("No space left on device") != std::string::npos ||
                    part.find("database or disk is full") != std::string::npos)
            << cases[i] << "\n" << part;
        const bool gz = cases[i].find("{O}.json.gz") != std::string::npos;
        EXPECT_NE(part.find(gz ? "prevgz=previous gz" : "prev=previous " + std::to_string(i)), std::string::npos)
            << cases[i] << "\n" << part;
    }
    // Nothing but the previous files, the charts' folder and the filler: no temporary is left behind.
    const std::string left = log.substr(log.find("== left"));
    EXPECT_EQ(left.find(".sightline-"), std::string::npos) << left;
}

// Ctrl-C (or SIGTERM) during `generate`: one "interrupted" line, exit 130, and the output path as it was before.
TEST(CliOutputs, AnInterruptedGenerateLeavesNoFile)
{
    const std::string d = test::scratch_dir("cli_outputs_interrupt");
    struct Try {
        const char* sig;
        bool previous;
        const char* ext;
    };
    for (const Try& t : {Try{"INT", false, ".sqlite"}, Try{"TERM", true, ".json"}}) {
        const char* sig = t.sig;
        const bool previous = t.previous;
        const char* ext = t.ext;
        {
            {
                const std::string out = d + "/big-" + sig + (previous ? "-prev" : "") + ext;
                if (previous)
                    spit(out, "previous file");
                // Big enough to take seconds to write; the signal comes a second after the temporary appears (so it
                // interrupts the writing, the part that used to leave a cut file), at least a second after the start.
                const std::string cmd = "timeout 120 " + cli() + " generate --preset scale --kernels 1500000 -o " + test::shell_quote(out) +
                                        " & pid=$!; sleep 1; i=0; while [ $i -lt 300 ] && ! ls -A " + test::shell_quote(d) +
                                        " | grep -q sightline-; do sleep 0.1; i=$((i+1)); done; sleep 1; kill -" + sig +
                                        " $pid; wait $pid; echo \"rc=$?\"";
                std::string log;
                shell("sh -c " + test::shell_quote(cmd), &log, true);
                if (log.find("rc=0") != std::string::npos)
                    GTEST_SKIP() << "generate finished within a second here";
                EXPECT_NE(log.find("rc=130"), std::string::npos) << sig << "\n" << log;
                size_t lines = 0;
                for (size_t p = log.find("interrupted"); p != std::string::npos; p = log.find("interrupted", p + 1))
                    ++lines;
                EXPECT_EQ(lines, 1u) << log;
                if (previous)
                    EXPECT_EQ(slurp(out), "previous file") << sig;
                else
                    EXPECT_FALSE(fs::exists(out)) << sig << " left " << out;
                for (const auto& e : fs::directory_iterator(d))
                    EXPECT_EQ(e.path().filename().string().find(".sightline-"), std::string::npos)
                        << "temporary left: " << e.path();
            }
        }
    }
}

TEST(CliOutputs, DoubleDashEndsTheOptions)
{
    const std::string d = test::scratch_dir("cli_outputs_dashdash");
    fs::copy_file(inputs().trace, d + "/-x.sqlite", fs::copy_options::overwrite_existing);
    std::string log;
    EXPECT_EQ(shell("cd " + test::shell_quote(d) + " && " + cli() + " summary -x.sqlite", &log, true), 64) << log;
    EXPECT_NE(log.find("goes after --"), std::string::npos) << log;
    EXPECT_EQ(shell("cd " + test::shell_quote(d) + " && " + cli() + " summary --format json -- -x.sqlite", &log, true), 0)
        << log;
    EXPECT_NE(log.find("\"sightline.summary/1\""), std::string::npos) << log.substr(0, 300);
    // Options before "--" still apply; a --help after it is a file name.
    EXPECT_EQ(shell("cd " + test::shell_quote(d) + " && " + cli() + " summary -- --help", &log, true), 2) << log;
}

TEST(CliOutputs, ControlCharactersInPathsAndNamesAreEscaped)
{
    const std::string d = test::scratch_dir("cli_outputs_ctrl");
    // A file name that would clear the screen and print a line of its own.
    const std::string evil = d + "/x\x1b[2J\nFAKE LINE.sqlite";
    std::string log;
    EXPECT_EQ(run("summary " + test::shell_quote(evil), &log), 2) << log;
    EXPECT_EQ(log.find('\x1b'), std::string::npos) << log;
    EXPECT_NE(log.find("x\\x1B[2J\\nFAKE LINE.sqlite"), std::string::npos) << log;
    EXPECT_EQ(std::count(log.begin(), log.end(), '\n'), 1) << log;

    // Kernel and range names with control characters (a Kineto trace, escaped as JSON writes them).
    const std::string trace = d + "/names.json";
    spit(trace, R"({"traceEvents":[
{"ph":"X","cat":"kernel","name":"k\u001b[31mred\nFAKE","pid":0,"tid":7,"ts":10,"dur":5,"args":{"device":0,"stream":7,"correlation":1}},
{"ph":"X","cat":"kernel","name":"plain","pid":0,"tid":7,"ts":20,"dur":5,"args":{"device":0,"stream":7,"correlation":2}}
]})");
    ASSERT_EQ(run("summary " + test::shell_quote(trace), &log), 0) << log;
    EXPECT_EQ(log.find('\x1b'), std::string::npos) << log;
    EXPECT_NE(log.find("k\\x1B[31mred\\nFAKE"), std::string::npos) << log;
    EXPECT_EQ(log.find("\nFAKE"), std::string::npos) << log;
    // JSON keeps its own escapes of the same name.
    ASSERT_EQ(run("summary --format json " + test::shell_quote(trace), &log), 0) << log;
    EXPECT_NE(log.find("k\\\\x1B[31mred\\\\nFAKE"), std::string::npos) << log.substr(0, 2000);
}
