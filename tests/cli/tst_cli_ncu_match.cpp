// `analyze --ncu` says when the ncu file is of another GPU or run (analysis/roofline/ncu_match.h): the real A100
// GPT-2 details CSV joined to the real H100 Qwen Kineto trace, in the JSON (ncu.trace_match) and the text.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/support/test_env.h"

namespace test = sl::test;

namespace {
std::string shared(const std::string& rel)
{
    const char* d = std::getenv("SIGHTLINE_SHARED_DATA");
    const std::string p = std::string(d ? d : "") + "/" + rel;
    return d && std::ifstream(p) ? p : std::string();
}
const char* kA100 = "ncu/a100_gpt2_flashattn_details_ncu2021.csv";
const char* kQwen = "kineto/tracelens/h100__Qwen1.5-0.5B-Chat_inference.json.gz";
} // namespace

TEST(NcuMatch, TheCliSaysIt)
{
    const std::string ncu_path = shared(kA100), trace_path = shared(kQwen);
    if (ncu_path.empty() || trace_path.empty())
        GTEST_SKIP() << "no shared data";
    std::string out;
    ASSERT_EQ(test::run_command(std::string(SIGHTLINE_CLI) + " analyze '" + trace_path + "' --ncu '" +
                                    ncu_path + "' --format json",
                                &out),
              0)
        << out.substr(0, 2000);
    const auto j = nlohmann::json::parse(out);
    const auto& m = j.at("ncu").at("trace_match");
    EXPECT_TRUE(m.at("device_mismatch").get<bool>());
    EXPECT_EQ(m.at("ncu_sm_count"), 108);
    EXPECT_EQ(m.at("trace_sm_count"), 132);
    EXPECT_EQ(m.at("warnings").at(0).at("code"), "ncu_device_mismatch");
    ASSERT_EQ(test::run_command(std::string(SIGHTLINE_CLI) + " analyze '" + trace_path + "' --ncu '" +
                                    ncu_path + "'",
                                &out),
              0);
    EXPECT_NE(out.find("warning: the Nsight Compute file"), std::string::npos);
    EXPECT_NE(out.find("108 SMs"), std::string::npos);
}
