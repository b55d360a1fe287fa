// sightline-cli generate: writes nsys-schema exports whose contents match the options, and rejects bad usage.
#include <gtest/gtest.h>

#include <filesystem>

#include "tests/support/test_env.h"

using namespace sl;

namespace {

std::string cli() { return SIGHTLINE_CLI; }

int64_t count(const std::string& db, const std::string& sql) { return std::stoll(test::sqlite_rows(db, sql)[0][0]); }

} // namespace

TEST(CliGenerate, DecodePresetIsTheBundledSampleShape)
{
    const std::string out = test::scratch_dir("cli_generate") + "/sample.sqlite";
    std::string log;
    ASSERT_EQ(test::run_command(cli() + " generate --preset decode -o '" + out + "'", &log, true), 0) << log;
    EXPECT_NE(log.find("3094 kernels"), std::string::npos) << log;
    // 2 prefill + 32 decode steps of 8 layers x 11 kernels, plus final norm, lm_head and argmax per step.
    EXPECT_EQ(count(out, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"), 34 * (8 * 11 + 3));
    EXPECT_EQ(count(out, "SELECT count(*) FROM NVTX_EVENTS e JOIN StringIds s ON s.id = e.textId "
                         "WHERE s.value LIKE 'decode_step %'"), 32);
    EXPECT_EQ(count(out, "SELECT count(*) FROM NVTX_EVENTS e JOIN StringIds s ON s.id = e.textId "
                         "WHERE s.value = 'layer 3'"), 34);
    EXPECT_EQ(test::sqlite_rows(out, "SELECT value FROM META_DATA_EXPORT WHERE name='EXPORT_SCHEMA_VERSION'")[0][0],
              "3.16.1");
    EXPECT_EQ(test::sqlite_rows(out, "SELECT name FROM TARGET_INFO_GPU")[0][0], "NVIDIA H100 80GB HBM3");
    const auto size = std::filesystem::file_size(out);
    EXPECT_GT(size, 100'000u);
    EXPECT_LT(size, 3'000'000u);
}

TEST(CliGenerate, OptionsShapeTheTrace)
{
    const std::string dir = test::scratch_dir("cli_generate_opts");
    const std::string out = dir + "/small.sqlite";
    std::string log;
    ASSERT_EQ(test::run_command(cli() + " generate --steps 4 --layers 2 --prefill 1 --sync-every-step --nccl "
                                        "--seed 7 --quiet -o '" + out + "'", &log, true), 0) << log;
    EXPECT_TRUE(log.empty()) << log;
    // (1 prefill + 4 decode) x (2 layers x (11 + 2 all-reduce) + 3).
    EXPECT_EQ(count(out, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"), 5 * (2 * 13 + 3));
    EXPECT_EQ(count(out, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION"), 5);
    EXPECT_EQ(count(out, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE copyKind = 2 AND bytes = 8"), 5);
    EXPECT_EQ(count(out, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE eventClass = 1"), 5 * 2 * 2);

    const std::string scale = dir + "/scale.sqlite";
    ASSERT_EQ(test::run_command(cli() + " generate --preset scale --kernels 20000 --nvtx 4000 --quiet -o '" + scale + "'",
                                &log, true), 0) << log;
    EXPECT_EQ(count(scale, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"), 20000);
    EXPECT_NEAR(static_cast<double>(count(scale, "SELECT count(*) FROM NVTX_EVENTS")), 4000.0, 40.0);

    const std::string graphs = dir + "/graphs.sqlite";
    ASSERT_EQ(test::run_command(cli() + " generate --steps 3 --layers 2 --prefill 0 --cuda-graphs --quiet -o '" + graphs + "'",
                                &log, true), 0) << log;
    EXPECT_EQ(count(graphs, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE graphNodeId IS NOT NULL"), 3 * 25);

    // --steps replaces the scale preset's kernel total: 3 decode steps of 2 layers x 11 kernels + 3, no prefill.
    const std::string stepped = dir + "/scale_steps.sqlite";
    ASSERT_EQ(test::run_command(cli() + " generate --preset scale --steps 3 --layers 2 --quiet -o '" + stepped + "'",
                                &log, true), 0) << log;
    EXPECT_EQ(count(stepped, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"), 3 * (2 * 11 + 3));
    EXPECT_EQ(count(stepped, "SELECT count(*) FROM NVTX_EVENTS e JOIN StringIds s ON s.id = e.textId "
                             "WHERE s.value LIKE 'decode_step %'"), 3);
}

TEST(CliGenerate, BadUsageIsExit64)
{
    const std::string dir = test::scratch_dir("cli_generate_bad");
    std::string log;
    EXPECT_EQ(test::run_command(cli() + " generate --preset decode", &log, true), 64);
    EXPECT_NE(log.find("-o"), std::string::npos) << log;
    log.clear();
    EXPECT_EQ(test::run_command(cli() + " generate --preset nope -o " + dir + "/x.sqlite", &log, true), 64);
    EXPECT_NE(log.find("nope"), std::string::npos) << log;
    log.clear();
    EXPECT_EQ(test::run_command(cli() + " generate --layers zero -o " + dir + "/x.sqlite", &log, true), 64);
    EXPECT_NE(log.find("--layers"), std::string::npos) << log;
    EXPECT_EQ(test::run_command(cli() + " generate --bogus -o " + dir + "/x.sqlite", nullptr, true), 64);
    // --kernels is a total and --steps a step count: one or the other.
    log.clear();
    EXPECT_EQ(test::run_command(cli() + " generate --kernels 1000 --steps 3 -o " + dir + "/x.sqlite", &log, true), 64);
    EXPECT_NE(log.find("not both"), std::string::npos) << log;
    EXPECT_FALSE(std::filesystem::exists(dir + "/x.sqlite"));
    // An unwritable destination is an output error (exit 4) naming the path, not a crash.
    log.clear();
    EXPECT_EQ(test::run_command(cli() + " generate -o " + dir + "/no/such/dir/x.sqlite", &log, true), 4);
    EXPECT_NE(log.find("x.sqlite"), std::string::npos) << log;
}

// Serving traces: a graph replay with the trace of its capture in capture_traces/ beside it (Kineto), which analyze
// finds and joins; an MoE decode with recorded shapes; and the usage the options need.
TEST(CliGenerate, ServingTracesWithCaptureAndMoe)
{
    const std::string dir = test::scratch_dir("cli_generate_serving");
    const std::string out = dir + "/replay.json.gz";
    std::string log;
    ASSERT_EQ(test::run_command(cli() + " generate --steps 3 --layers 2 --prefill 0 --cuda-graphs --with-capture "
                                        "--moe-experts 16 --moe-top-k 2 --batch 4 --quiet -o '" + out + "'",
                                &log, true),
              0)
        << log;
    EXPECT_TRUE(std::filesystem::exists(dir + "/capture_traces/graph_capture_rank_0.pt.trace.json.gz"));
    ASSERT_TRUE(std::filesystem::exists(dir + "/capture_traces/execution_details.json"));
    std::string json;
    ASSERT_EQ(test::run_command(cli() + " analyze '" + out + "' --format json", &json), 0);
    // 3 graph launches x (2 layers x (7 attention-side + norm + 6 MoE kernels) + 3), every one matched to its twin.
    const int64_t replayed = 3 * (2 * 14 + 3);
    EXPECT_NE(json.find("\"kernels_with_op\": " + std::to_string(replayed)), std::string::npos) << json.substr(0, 2000);
    EXPECT_NE(json.find("\"graph_capture_joined\""), std::string::npos);
    EXPECT_NE(json.find("\"experts\": 16"), std::string::npos);
    EXPECT_NE(json.find("\"top_k\": 2"), std::string::npos);
    EXPECT_NE(json.find("\"moe_up\""), std::string::npos);

    // --with-capture needs graphs; a top-k above the experts is refused.
    EXPECT_EQ(test::run_command(cli() + " generate --with-capture --quiet -o '" + dir + "/x.json'", &log, true), 64);
    EXPECT_EQ(test::run_command(cli() + " generate --moe-experts 4 --moe-top-k 8 --quiet -o '" + dir + "/y.json'", &log,
                                true),
              64);
}
