// Input bounds (issue 17): a FIFO, a device or a directory is refused by stat() before anything opens it (opening
// a FIFO blocked forever; /dev/zero grew to 5 GB in 10 s); files over a kind's size limit are refused with the limit
// and the flag that raises it; messages quote a short prefix of a user value, never the whole (nested) value; names
// that are not UTF-8 are kept with the bad bytes as \xNN.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <functional>
#include <limits>

#include <nlohmann/json.hpp>

#include "analysis/io/input_bounds.h"
#include "analysis/io/load.h"
#include "analysis/io/model_config.h"
#include "analysis/io/ncu_reader.h"
#include "analysis/roofline/gpu_specs.h"
#include "analysis/timeline/host_causes.h"
#include "analysis/timeline/op_classes.h"
#include "analysis/trace/errors.h"
#include "tests/support/helpers.h"
#include "tests/support/test_env.h"

using namespace sl;

namespace {

std::string make_fifo(const std::string& name)
{
    const std::string p = test::scratch_dir("input_bounds_" + name) + "/" + name;
    ::unlink(p.c_str());
    EXPECT_EQ(::mkfifo(p.c_str(), 0600), 0);
    return p;
}

struct OverrideReset {
    ~OverrideReset() { set_input_size_override(0); }
};

} // namespace

// Every reader refuses a FIFO before opening it: no writer ever comes, so an open() would block the test forever.
TEST(InputBounds, FifoRefusedByEveryReader)
{
    const std::string fifo = make_fifo("pipe");
    for (const std::string& msg : {test::error_of([&] { load_trace(fifo); }), test::error_of([&] { load_model_config(fifo); }),
                                   test::error_of([&] { read_ncu(fifo); }), test::error_of([&] { GpuDatabase db; db.merge_file(fifo); }),
                                   test::error_of([&] { OpClassifier::load_file(fifo); })}) {
        EXPECT_NE(msg.find(fifo), std::string::npos) << msg;
        EXPECT_NE(msg.find("FIFO"), std::string::npos) << msg;
        EXPECT_NE(msg.find("regular file"), std::string::npos) << msg;
    }
    EXPECT_EQ(sniff_file(fifo), InputFormat::Missing);   // sniffing does not open it either
}

// /dev/zero as --model or an ncu file: a character device, refused at once instead of read without end.
TEST(InputBounds, DeviceRefused)
{
    const std::string a = test::error_of([] { load_model_config("/dev/zero"); });
    EXPECT_NE(a.find("/dev/zero"), std::string::npos) << a;
    EXPECT_NE(a.find("character device"), std::string::npos) << a;
    const std::string b = test::error_of([] { read_ncu("/dev/zero"); });
    EXPECT_NE(b.find("character device"), std::string::npos) << b;
    const std::string c = test::error_of([] { load_trace(test::source_dir()); });
    EXPECT_NE(c.find("directory"), std::string::npos) << c;
}

TEST(InputBounds, DefaultLimits)
{
    EXPECT_EQ(default_input_limit(InputKind::ModelConfig), 16u << 20);
    EXPECT_EQ(default_input_limit(InputKind::WeightIndex), 64u << 20);
    EXPECT_EQ(default_input_limit(InputKind::DataFile), 16u << 20);
    EXPECT_EQ(default_input_limit(InputKind::NcuExport), uint64_t{4} << 30);
    EXPECT_EQ(default_input_limit(InputKind::Trace), uint64_t{64} << 30);
}

// A 17 MiB config.json (a real one is a few KiB; 50 MB became a 1.35 GB JSON tree) is refused before parsing, with
// the limit and the override named; the override lets it through to the parser.
TEST(InputBounds, SizeLimitNamesTheLimitAndTheFlag)
{
    OverrideReset reset;
    const std::string p = test::scratch_dir("input_bounds_size") + "/config.json";
    {
        std::ofstream out(p, std::ios::binary);
        out << "{\"pad\":\"" << std::string((17u << 20), 'x') << "\"}";
    }
    const std::string msg = test::error_of([&] { load_model_config(p); });
    EXPECT_NE(msg.find(p), std::string::npos) << msg.substr(0, 300);
    EXPECT_NE(msg.find("16 MiB"), std::string::npos) << msg.substr(0, 300);
    EXPECT_NE(msg.find("--max-input-size"), std::string::npos) << msg.substr(0, 300);
    EXPECT_LT(msg.size(), 600u);
    set_input_size_override(std::numeric_limits<uint64_t>::max());
    const std::string msg2 = test::error_of([&] { load_model_config(p); });   // now parsed: the fields are missing
    EXPECT_NE(msg2.find("hidden_size"), std::string::npos) << msg2.substr(0, 300);
}

// Every JSON data file the core reads (a GPU spec file, loaded or merged; kernel classes; host causes; a weight index)
// says bad JSON the one way (io/json_input.h): the file and the byte where the text stops being JSON, or a number no
// double holds.
TEST(InputBounds, BadJsonInEveryDataFileIsSaidTheOneWay)
{
    const std::string dir = test::scratch_dir("bad_json_files");
    auto write = [&](const std::string& name, const std::string& text) {
        const std::string p = dir + "/" + name;
        std::ofstream(p) << text;
        return p;
    };
    const std::string cut = write("cut.json", "{\"a\": [1, 2");
    const std::string huge = write("huge.json", "{\"a\": 1e999}");
    const std::string config = write("config.json", R"({"model_type":"llama","hidden_size":64,"num_attention_heads":4,)"
                                                     R"("intermediate_size":128,"num_hidden_layers":2,"vocab_size":256})");
    const std::vector<std::pair<std::string, std::function<void(const std::string&)>>> loaders = {
        {"gpu spec file", [](const std::string& p) { GpuDatabase::load(p); }},
        {"merged gpu spec file", [](const std::string& p) { GpuDatabase::load_default().merge_file(p); }},
        {"kernel classes", [](const std::string& p) { OpClassifier::load_file(p); }},
        {"host causes", [](const std::string& p) { HostCausePatterns::load_file(p); }},
        {"weight index", [&](const std::string& p) { load_model_config(config, p); }},
    };
    for (const auto& [what, load] : loaders) {
        auto error_of = [&](const std::string& p) -> std::string {
            try {
                load(p);
            } catch (const TraceError& e) {
                return e.what();
            }
            return "no error";
        };
        const std::string a = error_of(cut), b = error_of(huge);
        EXPECT_EQ(a.rfind(cut + " (byte ", 0), 0u) << what << ": " << a;
        EXPECT_NE(a.find("expected valid JSON"), std::string::npos) << what << ": " << a;
        EXPECT_EQ(b.rfind(huge + ": expected valid JSON with finite numbers", 0), 0u) << what << ": " << b;
    }
}

TEST(InputBounds, ParseSize)
{
    uint64_t b = 0;
    ASSERT_TRUE(parse_size("123", b));
    EXPECT_EQ(b, 123u);
    ASSERT_TRUE(parse_size("16M", b));
    EXPECT_EQ(b, 16u << 20);
    ASSERT_TRUE(parse_size("4GiB", b));
    EXPECT_EQ(b, uint64_t{4} << 30);
    ASSERT_TRUE(parse_size("2t", b));
    EXPECT_EQ(b, uint64_t{2} << 40);
    ASSERT_TRUE(parse_size("none", b));
    EXPECT_EQ(b, std::numeric_limits<uint64_t>::max());
    for (const char* bad : {"", "0", "-1", "12Q", "M", "99999999999999999999", "20000000000T"})
        EXPECT_FALSE(parse_size(bad, b)) << bad;
}

// A value nested 100,000 deep is described by its type and size; dump() would recurse 100,000 frames deep.
TEST(InputBounds, DescribeJsonDoesNotRecurse)
{
    const std::string deep = std::string(100000, '[') + "1" + std::string(100000, ']');
    const auto v = nlohmann::json::parse(deep);
    EXPECT_EQ(describe_json(v), "an array of 1 element");
    EXPECT_EQ(describe_json(nlohmann::json::parse("{\"a\":1,\"b\":2}")), "an object of 2 keys");
    EXPECT_EQ(describe_json(nlohmann::json(std::string(1000, 'a'))),
              "the string '" + std::string(40, 'a') + "'... (1000 bytes)");
    EXPECT_EQ(describe_json(nlohmann::json(12.5)), "12.5");
    EXPECT_EQ(quote_prefix("a\x01'b"), "'a\\x01\\x27b'");
}

TEST(InputBounds, Utf8)
{
    EXPECT_TRUE(is_valid_utf8("gemm_kernel"));
    EXPECT_TRUE(is_valid_utf8("注意力 kernel ✓ \xF0\x9F\x98\x80"));
    EXPECT_FALSE(is_valid_utf8("gemm\xFF"));
    EXPECT_FALSE(is_valid_utf8("\xC0\x80"));           // overlong NUL
    EXPECT_FALSE(is_valid_utf8("\xED\xA0\x80"));       // a UTF-16 surrogate
    EXPECT_FALSE(is_valid_utf8("\xF4\x90\x80\x80"));   // above U+10FFFF
    EXPECT_FALSE(is_valid_utf8("\xE6\xB3"));           // cut sequence
    EXPECT_EQ(escape_invalid_utf8("gemm\xFF_k"), "gemm\\xFF_k");
    EXPECT_EQ(escape_invalid_utf8("注意\xE6\xB3"), "注意\\xE6\\xB3");
    EXPECT_EQ(escape_invalid_utf8("ok ✓"), "ok ✓");
    // Two different invalid names stay different.
    EXPECT_NE(escape_invalid_utf8("k\xFE"), escape_invalid_utf8("k\xFF"));
}
