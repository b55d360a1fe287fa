// Every JSON Sightline reads has its nesting bounded before it is parsed (issue 36 §2). A 10^6-deep array — in a
// capture's execution_details.json, a rule's title, a kernel-class file's `within`, a GPU spec row, a config, a
// trace's shapes — crashed the recursive copy or dump that followed the parse; each is now a located error (or, for
// JSON inside a trace, a value read as "not JSON"), and an oversized execution_details.json is refused by its size
// before it is read.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "analysis/diagnosis/rules.h"
#include "analysis/io/graph_join.h"
#include "analysis/io/json_input.h"
#include "analysis/io/model_config.h"
#include "analysis/roofline/gpu_specs.h"
#include "analysis/timeline/op_classes.h"
#include "analysis/timeline/step_grammar.h"
#include "analysis/trace/errors.h"
#include "tests/support/helpers.h"
#include "tests/support/test_env.h"

using namespace sl;
namespace fs = std::filesystem;

namespace {

const std::string& dir()
{
    static const std::string d = test::scratch_dir("json_depth");
    return d;
}

std::string deep(size_t n) { return std::string(n, '[') + std::string(n, ']'); }

std::string write(const std::string& name, const std::string& text)
{
    const std::string p = dir() + "/" + name;
    fs::create_directories(fs::path(p).parent_path());
    std::ofstream(p, std::ios::binary) << text;
    return p;
}

}   // namespace

TEST(JsonDepth, NestingIsCountedOutsideStringsAndStopsAtTheLimit)
{
    EXPECT_EQ(json_nesting(R"({"a": [1, {"b": []}]})"), 4);
    EXPECT_EQ(json_nesting(R"(["[[[[", "\"[[", {"x": "]]]"}])"), 2);
    EXPECT_EQ(json_nesting("42"), 0);
    size_t at = 0;
    EXPECT_EQ(json_nesting(deep(1'000'000), kMaxJsonDepth, &at), kMaxJsonDepth + 1);
    EXPECT_EQ(at, size_t(kMaxJsonDepth));
    EXPECT_EQ(json_nesting(deep(kMaxJsonDepth)), kMaxJsonDepth);
    const std::string e = test::error_of([] { parse_json_input(deep(1'000'000), "x.json"); });
    EXPECT_NE(e.find("x.json"), std::string::npos) << e;
    EXPECT_NE(e.find("byte 64"), std::string::npos) << e;
    EXPECT_NE(e.find("nested at most 64"), std::string::npos) << e;
    EXPECT_NO_THROW(parse_json_input(deep(kMaxJsonDepth), "x.json"));
    EXPECT_TRUE(parse_json_lenient(deep(1'000'000)).is_discarded());
    EXPECT_TRUE(parse_json_lenient("[1e999]").is_discarded());
    EXPECT_EQ(parse_json_lenient("[[8, 64], [64]]").size(), 2u);
}

TEST(JsonDepth, EveryDataFileRefusesA10To6DeepArrayNamingTheFile)
{
    const std::string d = deep(1'000'000);
    // A rule's title: the rule file is refused with an error naming it (the run goes on).
    RuleSet set;
    EXPECT_FALSE(load_rule_file(write("rules/deep.json", R"({"rules": [{"id": "x", "title": )" + d + "}]}"), set));
    ASSERT_EQ(set.errors.size(), 1u);
    EXPECT_NE(set.errors[0].message.find("nested at most"), std::string::npos) << set.errors[0].message;
    // A kernel-class file's `within`.
    std::string e = test::error_of([&] {
        OpClassifier::load_file(write("classes.json", R"({"classes": [{"id": "other", "label": "Other"}],
            "patterns": [{"class": "other", "match": "x", "after": "other", "within": )" + d + "}]}"));
    });
    EXPECT_NE(e.find("classes.json"), std::string::npos) << e;
    EXPECT_NE(e.find("nested at most"), std::string::npos) << e;
    // A step grammar, a GPU spec file, a config.json.
    e = test::error_of([&] { StepGrammar::load_file(write("grammar.json", R"({"formats": )" + d + "}")); });
    EXPECT_NE(e.find("grammar.json"), std::string::npos) << e;
    EXPECT_NE(e.find("nested at most"), std::string::npos) << e;
    e = test::error_of([&] { parse_model_config(R"({"model_type": "llama", "x": )" + d + "}", "config.json"); });
    EXPECT_NE(e.find("config.json"), std::string::npos) << e;
    EXPECT_NE(e.find("nested at most"), std::string::npos) << e;
}

TEST(JsonDepth, ExecutionDetailsIsBoundedInDepthAndSize)
{
    const std::string cap = dir() + "/capture_traces";
    fs::create_directories(cap);
    write("capture_traces/capture_0.json", R"({"traceEvents": []})");
    write("capture_traces/execution_details.json", deep(1'000'000));
    std::string e = test::error_of([&] { capture_inputs(cap, "option"); });
    EXPECT_NE(e.find("execution_details.json"), std::string::npos) << e;
    EXPECT_NE(e.find("nested at most"), std::string::npos) << e;
    // Past the 16 MiB bound of a data file: refused by its size before a byte is read (a sparse file).
    {
        const std::string p = cap + "/execution_details.json";
        fs::resize_file(p, 0);
        fs::resize_file(p, std::uintmax_t{694} << 20);
    }
    e = test::error_of([&] { capture_inputs(cap, "option"); });
    EXPECT_NE(e.find("execution_details.json"), std::string::npos) << e;
    EXPECT_NE(e.find("MiB"), std::string::npos) << e;
    fs::remove(cap + "/execution_details.json");
    write("capture_traces/execution_details.json", R"([{"file": "capture_0.json", "batch_size": 8, "mode": "FULL"}])");
    const auto in = capture_inputs(cap, "option");
    ASSERT_EQ(in.size(), 1u);
    EXPECT_EQ(in[0].batch_size, 8);
}
