// Regular expressions from the user, their files and their traces run in linear time (issue 36 §1): each hostile
// case of the issue is built here and must end — with exit 0 and the analysis, or exit 2 and an error naming what
// RE2 cannot run — well inside the `timeout 120` each command runs under (a hang is rc 124, a stack overflow a
// signal).
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/support/test_env.h"

using nlohmann::json;

namespace {

std::string cli() { return SIGHTLINE_CLI; }
std::string q(const std::string& s) { return "'" + s + "'"; }

const std::string& dir()
{
    static const std::string d = sl::test::scratch_dir("cli_regex");
    return d;
}

std::string write(const std::string& name, const std::string& text)
{
    const std::string path = dir() + "/" + name;
    std::ofstream(path, std::ios::binary) << text;
    return path;
}

int run(const std::string& args, std::string* out)
{
    out->clear();
    return sl::test::run_command("timeout 120 " + cli() + " " + args, out, true);
}

// A Kineto trace whose kernel names are `name(i)` and whose steps are annotated by `step(i)`: 20 steps of one
// kernel each, 100 us apart.
template <typename K, typename S> std::string trace(K name, S step)
{
    json events = json::array();
    for (int i = 0; i < 20; ++i) {
        const double ts = 100.0 * i;
        events.push_back({{"ph", "X"}, {"cat", "user_annotation"}, {"name", step(i)}, {"pid", 9}, {"tid", 9},
                          {"ts", ts}, {"dur", 50}});
        events.push_back({{"ph", "X"}, {"cat", "cuda_runtime"}, {"name", "cudaLaunchKernel"}, {"pid", 9}, {"tid", 9},
                          {"ts", ts + 1}, {"dur", 2}, {"args", {{"correlation", i + 1}}}});
        events.push_back({{"ph", "X"}, {"cat", "kernel"}, {"name", name(i)}, {"pid", 0}, {"tid", 7},
                          {"ts", ts + 5}, {"dur", 40},
                          {"args", {{"device", 0}, {"stream", 7}, {"correlation", i + 1}}}});
    }
    return json{{"schemaVersion", 1},
                {"deviceProperties", json::array({{{"id", 0}, {"name", "NVIDIA H100 80GB HBM3"}, {"numSms", 132}}})},
                {"traceEvents", events}}
        .dump();
}

}   // namespace

TEST(CliRegex, BacktrackingStepRegexesEndOnLongNames)
{
    const std::string names = write("long_names.json", trace([](int i) { return std::string(16384, 'a') + "!" + std::to_string(i); },
                                                             [](int i) { return "step " + std::to_string(i); }));
    std::string out;
    for (const std::string re : {"(a+)+$", "(a|b)*c", "^(.)*$", "(a|a)*b"}) {
        SCOPED_TRACE(re);
        EXPECT_EQ(run("analyze " + q(names) + " --step-regex " + q(re) + " --format json -o " + q(dir() + "/o.json"), &out), 0)
            << out.substr(0, 2000);
    }
    // What RE2 cannot run is refused: exit 2, named, the pattern quoted short.
    EXPECT_EQ(run("analyze " + q(names) + " --step-regex " + q("(a)\\1"), &out), 2) << out;
    EXPECT_NE(out.find("back-references"), std::string::npos) << out;
    EXPECT_NE(out.find("step regex"), std::string::npos) << out;
    const std::string huge(126 * 1024, 'a');
    EXPECT_EQ(run("analyze " + q(names) + " --step-regex " + huge, &out), 2);
    EXPECT_LT(out.size(), 2000u) << "a refused pattern is quoted whole";
    EXPECT_NE(out.find("longer than the 4096 accepted"), std::string::npos) << out.substr(0, 500);
}

TEST(CliRegex, OwnStepGrammarReadsLongServingAnnotations)
{
    // 20 distinct 16 KiB vLLM execute_context_N(...) annotations: the shipped grammar backtracked in O(n²).
    const std::string path = write("vllm_long.json", trace(
        [](int) { return std::string("gemm_kernel"); },
        [](int i) { return "execute_context_" + std::to_string(i) + "(" + std::string(16384, '7') + ")_generation_1(" +
                           std::string(i + 1, '3') + ")"; }));
    std::string out;
    EXPECT_EQ(run("analyze " + q(path) + " --format json -o " + q(dir() + "/v.json"), &out), 0) << out.substr(0, 2000);
}

TEST(CliRegex, ClassFilesAndConfigsWithHostilePatterns)
{
    const std::string names = write("names.json", trace([](int i) { return std::string(4096, 'a') + std::to_string(i); },
                                                        [](int i) { return "step " + std::to_string(i); }));
    std::string out;
    // A class pattern RE2 cannot run: exit 2 naming the file and the entry; one that backtracks: runs.
    const std::string classes = R"({"classes": [{"id": "gemm", "label": "GEMM"}, {"id": "other", "label": "Other"}],
        "patterns": [{"class": "gemm", "match": "PATTERN", "kind": "regex"}]})";
    auto with = [&](const std::string& pattern) {
        std::string c = classes;
        c.replace(c.find("PATTERN"), 7, json(pattern).dump().substr(1, json(pattern).dump().size() - 2));
        return write("classes.json", c);
    };
    const std::string bad = with("(a)\\1");
    EXPECT_EQ(run("analyze " + q(names) + " --classes " + q(bad), &out), 2) << out;
    EXPECT_NE(out.find("classes.json"), std::string::npos) << out;
    EXPECT_NE(out.find("back-references"), std::string::npos) << out;
    EXPECT_EQ(run("analyze " + q(names) + " --classes " + q(with("(a+)+$")) + " --format json -o " + q(dir() + "/c.json"), &out), 0)
        << out.substr(0, 2000);
    // A Hub config whose quantisation module patterns backtrack ("re:(.|.)*X"): untrusted input, run in linear time.
    const std::string config = write("config.json", R"({"model_type": "llama", "hidden_size": 4096,
        "num_attention_heads": 32, "num_key_value_heads": 8, "num_hidden_layers": 32, "intermediate_size": 14336,
        "vocab_size": 128256, "torch_dtype": "bfloat16",
        "quantization_config": {"quant_method": "compressed-tensors", "ignore": ["re:(.|.)*X", "re:(a)\\1"],
          "config_groups": {"group_0": {"targets": ["re:(.|.)*(.|.)*Y"], "weights": {"num_bits": 8, "type": "float"}}}}})");
    EXPECT_EQ(run("analyze " + q(names) + " --model " + q(config) + " --format json -o " + q(dir() + "/m.json"), &out), 0)
        << out.substr(0, 2000);
}

// The capture join's cost is bounded (issue 36 §3): a capture window two thirds the length of the graph it is joined to
// (a 6,600-kernel replay against 4,400 captured launches) would fill a 29-million-cell alignment band; past the join's
// cap it stops at once with an error naming the capture file and what was too large, never the memory budget.
TEST(CliRegex, CaptureJoinPastItsCapStopsNamingTheCapture)
{
    const std::string d = dir() + "/join";
    std::string out;
    ASSERT_EQ(sl::test::run_command("mkdir -p " + q(d) + " && " + cli() + " generate --cuda-graphs --with-capture "
                                    "--layers 600 --steps 1 -o " + q(d + "/replay.json") + " 2>&1", &out), 0)
        << out;
    const std::string gz = d + "/capture_traces/graph_capture_rank_0.pt.trace.json.gz";
    ASSERT_EQ(sl::test::run_command("gzip -dc " + q(gz) + " > " + q(d + "/capture.json") + " && rm " + q(gz) + " " +
                                        q(d + "/capture_traces/execution_details.json"), &out), 0) << out;
    json cap;
    {
        std::ifstream in(d + "/capture.json");
        cap = json::parse(in);
    }
    int launches = 0;
    for (const auto& e : cap.at("traceEvents"))
        launches += e.value("name", "").find("LaunchKernel") != std::string::npos;
    ASSERT_GT(launches, 6000) << "the generated graph is smaller than this test needs";
    json kept = json::array();
    int seen = 0;
    for (const auto& e : cap.at("traceEvents")) {
        if (e.value("name", "").find("LaunchKernel") != std::string::npos && ++seen > launches * 2 / 3)
            continue;
        kept.push_back(e);
    }
    cap["traceEvents"] = kept;
    write("join/capture_traces/capture.json", cap.dump());
    EXPECT_EQ(run("analyze " + q(d + "/replay.json") + " --format json -o " + q(d + "/out.json"), &out), 2) << out.substr(0, 2000);
    EXPECT_NE(out.find("capture_traces/capture.json"), std::string::npos) << out.substr(0, 2000);
    EXPECT_NE(out.find("million cells"), std::string::npos) << out.substr(0, 2000);
    EXPECT_EQ(out.find("--max-memory"), std::string::npos) << out.substr(0, 2000);
    // Without the capture the replay is analysed alone.
    EXPECT_EQ(run("analyze " + q(d + "/replay.json") + " --no-capture-search --format json -o " + q(d + "/out.json"), &out), 0)
        << out.substr(0, 2000);
}
