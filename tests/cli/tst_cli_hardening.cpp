// sightline-cli under hostile input (issue 17): each failure of the hostile-user run, end to end.
//  - roofline --model with hidden_size nested 100,000 deep: SIGSEGV (recursive dump in the error message);
//  - num_hidden_layers = 10^9: a ~70-minute per-layer loop;
//  - a FIFO as the trace, --model or --ncu: blocked forever;
//  - `kb annotate` printed "annotateed";
// and the size-limit override flag. Every bad input exits 2 with a message naming the file.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "tests/support/test_env.h"

using namespace sl;

namespace {
std::string cli() { return SIGHTLINE_CLI; }
int run(const std::string& args, std::string* out)
{
    out->clear();
    // timeout: a hang fails the test in 60 s instead of blocking ctest (exit 124).
    return test::run_command("timeout 60 " + cli() + " " + args, out, true);
}
// scratch_dir() makes the directory afresh: call it once per test binary.
const std::string& dir()
{
    static const std::string d = test::scratch_dir("cli_hardening");
    return d;
}
std::string write(const std::string& name, const std::string& text)
{
    const std::string p = dir() + "/" + name;
    std::ofstream(p, std::ios::binary) << text;
    return p;
}
const std::string kCfg = R"("model_type":"llama","num_attention_heads":4,"intermediate_size":128,"vocab_size":256)";
} // namespace

TEST(CliHardening, DeeplyNestedHiddenSizeIsAnErrorNotACrash)
{
    const std::string cfg = write("deep.json", "{" + kCfg + ",\"num_hidden_layers\":2,\"hidden_size\":" +
                                                   std::string(100000, '[') + std::string(100000, ']') + "}");
    std::string out;
    EXPECT_EQ(run("roofline --model " + cfg + " --gpu H100-SXM", &out), 2) << out.substr(0, 500);
    // Refused by its nesting before it is parsed (issue 36 §2), naming the file and the byte.
    EXPECT_NE(out.find(cfg + " (byte "), std::string::npos) << out.substr(0, 500);
    EXPECT_NE(out.find("expected JSON nested at most 64 deep"), std::string::npos) << out.substr(0, 500);
    EXPECT_LT(out.size(), 1000u);
}

TEST(CliHardening, BillionLayersIsRefusedAtOnce)
{
    const std::string cfg = write("layers.json", "{" + kCfg + ",\"hidden_size\":64,\"num_hidden_layers\":1000000000}");
    std::string out;
    EXPECT_EQ(run("roofline --model " + cfg + " --gpu H100-SXM --batch 8 --prompt 1024 --context 2048", &out), 2) << out;
    EXPECT_NE(out.find("(num_hidden_layers): expected a value from 1 to 4096"), std::string::npos) << out;
}

TEST(CliHardening, FifoAsAnyInputIsRefused)
{
    const std::string fifo = dir() + "/fifo";
    ::unlink(fifo.c_str());
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    const std::string cfg = write("ok.json", "{" + kCfg + ",\"hidden_size\":64,\"num_hidden_layers\":2}");
    const std::string trace = dir() + "/t.sqlite";
    std::string out;
    ASSERT_EQ(run("generate --steps 2 --layers 1 --prefill 1 --quiet -o " + trace, &out), 0) << out;
    for (const std::string& args : {"summary " + fifo, "analyze " + trace + " --model " + fifo,
                                    "analyze " + trace + " --ncu " + fifo, "roofline --model " + fifo + " --gpu H100-SXM",
                                    "ncu " + fifo}) {
        EXPECT_EQ(run(args, &out), 2) << args << "\n" << out;
        EXPECT_NE(out.find(fifo), std::string::npos) << args << "\n" << out;
        EXPECT_NE(out.find("FIFO"), std::string::npos) << args << "\n" << out;
    }
}

TEST(CliHardening, MaxInputSizeFlag)
{
    const std::string cfg = write("big.json", "{" + kCfg + ",\"hidden_size\":64,\"num_hidden_layers\":2,\"pad\":\"" +
                                                  std::string(4096, 'x') + "\"}");
    std::string out;
    EXPECT_EQ(run("roofline --model " + cfg + " --gpu H100-SXM --max-input-size 1K", &out), 2) << out;
    EXPECT_NE(out.find("at most 1 KiB"), std::string::npos) << out;
    EXPECT_NE(out.find("--max-input-size"), std::string::npos) << out;
    EXPECT_EQ(run("roofline --model " + cfg + " --gpu H100-SXM --max-input-size=1M", &out), 0) << out;
    EXPECT_EQ(run("roofline --model " + cfg + " --gpu H100-SXM --max-input-size lots", &out), 64) << out;
}

TEST(CliHardening, KbAnnotateSaysAnnotated)
{
    const std::string trace = dir() + "/kb.sqlite", kb = dir() + "/kb.db";
    ::unlink(kb.c_str());
    std::string out;
    ASSERT_EQ(run("generate --steps 8 --layers 2 --prefill 1 --host-starved --quiet -o " + trace, &out), 0) << out;
    ASSERT_EQ(run("kb record " + trace + " --kb " + kb, &out), 0) << out;
    ASSERT_EQ(run("kb list --kb " + kb + " --format json", &out), 0) << out;
    const auto list = nlohmann::json::parse(out, nullptr, false);
    ASSERT_TRUE(list.is_array() && !list.empty()) << out;
    const std::string id = std::to_string(list[0]["id"].get<int64_t>());
    ASSERT_EQ(run("kb annotate " + id + " 'tried it' --kb " + kb, &out), 0) << out;
    EXPECT_EQ(out, "suggestion " + id + ": annotated\n");
    ASSERT_EQ(run("kb accept " + id + " --kb " + kb, &out), 0) << out;
    EXPECT_EQ(out, "suggestion " + id + ": accepted\n");
}
